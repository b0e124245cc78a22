"""The README's curl walkthrough runs as written against `mnemo serve` on port 8080."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

from tests.e2e.conftest import MODEL_CACHE

README = Path(__file__).resolve().parents[2] / "README.md"


def walkthrough() -> str:
    text = README.read_text()
    section = text.split("## Walkthrough with curl", 1)[1]
    match = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert match, "the walkthrough has a sh block"
    return match.group(1)


def port_free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def test_the_curl_walkthrough_runs_as_written(tmp_path: Path) -> None:
    assert port_free(8080), "the README uses port 8080: free it to run this test"
    env = {k: v for k, v in os.environ.items() if k != "MNEMO_API_KEYS"}
    env["MNEMO_MODEL_CACHE_DIR"] = str(MODEL_CACHE)
    server = subprocess.Popen([sys.executable, "-m", "mnemo.cli", "serve", "--port", "8080",
                               "--data-dir", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True, env=env)
    try:
        assert server.stdout is not None
        assert "serving on" in server.stdout.readline()
        result = subprocess.run(["bash", "-eu", "-c", walkthrough()], capture_output=True,
                                text=True, timeout=120, check=False)
        assert result.returncode == 0, result.stderr
        out = result.stdout
        assert '"accepted": 2' in out.replace('"accepted":2', '"accepted": 2')
        assert "User's diet: vegetarian." in out
        assert "4111" not in out
        assert "## What you know about this user" in out
        assert '"outcome": "superseded"' in out
        assert '"adjusted"' in out
        assert out.rstrip().endswith("204")
    finally:
        server.terminate()
        server.wait(timeout=20)
        if server.stdout:
            server.stdout.close()
