"""`mnemo serve` as the lean install runs it: no AWS library, no development tool, no warning.

`pip install .` and `make run` install requirements.lock only (tools/locks.py); this server runs
with every package that lock leaves out made unimportable, through a turn, an extraction, a
retrieve, a search and the metrics, and its log must hold no warning (the first start used to
print ~37 lines of onnxruntime's quantiser deriving the query model).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import KEYS, Server, stop_server

pytestmark = pytest.mark.e2e

# the aws extra's and the dev group's top-level packages, and onnx (the quantiser's, now dev only)
NOT_IN_THE_CORE = ("boto3", "botocore", "s3transfer", "opensearchpy", "aws_xray_sdk", "requests", "onnx",
                   "aws_cdk", "jsii", "constructs", "cdk_nag", "moto", "pytest", "hypothesis", "schemathesis",
                   "cfnlint", "mypy", "importlinter", "langgraph", "langchain_core")
BLOCKING_SERVE = (
    "import sys\n"
    f"for name in {NOT_IN_THE_CORE!r}:\n"
    "    sys.modules[name] = None  # any import of it raises ImportError, in the workers too (forked)\n"
    "from mnemo.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def start_lean_server(data_dir: Path) -> Server:
    env = {**os.environ, "MNEMO_API_KEYS": ",".join(f"{t}={k}" for t, k in KEYS.items()),
           "MNEMO_DEBOUNCE_QUIET_SECONDS": "1", "MNEMO_WORKER_POLL_SECONDS": "0.1"}
    data_dir.mkdir(parents=True, exist_ok=True)
    with (data_dir / "server.log").open("a") as err:
        process = subprocess.Popen(
            [sys.executable, "-c", BLOCKING_SERVE, "serve", "--port", "0", "--data-dir", str(data_dir),
             "--workers", "2"],
            stdout=subprocess.PIPE, stderr=err, text=True, env=env, start_new_session=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.search(r"http://([\d.]+):(\d+)", line)
    if not match:
        process.kill()
        process.wait()
        raise AssertionError(f"server did not start: {line!r} {(data_dir / 'server.log').read_text()[-3000:]}")
    return Server(f"http://{match.group(1)}:{match.group(2)}", process, data_dir)


def test_the_server_runs_without_aws_or_dev_packages_and_starts_without_a_warning(tmp_path: Path) -> None:
    server = start_lean_server(tmp_path / "data")
    try:
        assert server.call("GET", "/health")[0] == 200
        status, _ = server.call("POST", "/v1/users/ana/turns", {
            "conversation_id": "c1",
            "messages": [{"role": "user", "content": "I live in Lisbon and I am vegetarian."}]})
        assert status == 202
        assert server.call("POST", "/v1/users/ana/conversations/c1/close")[0] in {200, 202}
        server.wait_for(lambda: server.call("GET", "/v1/users/ana/memories")[1]["items"])
        status, block = server.call("POST", "/v1/users/ana/retrieve", {"query": "Any good cafés near where I live?"})
        assert status == 200
        assert "lisbon" in block["context"].lower()
        assert server.call("POST", "/v1/users/ana/search", {"query": "where do I live"})[0] == 200
        assert server.call("GET", "/openapi.json")[0] == 200
    finally:
        assert stop_server(server) == 0
    log = (tmp_path / "data" / "server.log").read_text()
    assert "Traceback" not in log
    levels = {json.loads(line).get("level") for line in log.splitlines() if line.startswith("{")}
    assert not levels & {"WARNING", "ERROR", "CRITICAL"}, log[-3000:]
    assert all(line.startswith("{") for line in log.splitlines()), log[-3000:]  # nothing printed raw either
