"""Each function builds itself during Lambda's initialisation and loads only the model it uses (issue 12,
item 6): the cold-start benchmark's child, run here from the source tree for four functions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bench.cold_start import CHILD

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("job", "sessions"), [
    ("ingest", []), ("feedback", []), ("retrieve", ["query", "search"]), ("extract", ["document"]),
])
def test_a_function_warms_up_at_import_and_loads_only_its_model(job: str, sessions: list[str], tmp_path: Path) -> None:
    env = {
        "PATH": os.environ["PATH"], "BUNDLE": str(ROOT), "RUNTIME": str(ROOT / "shared"), "JOB": job,
        "AWS_LAMBDA_FUNCTION_NAME": f"mnemo-test-{job}", "AWS_DEFAULT_REGION": "eu-west-1",
        "POWERTOOLS_TRACE_DISABLED": "true", "POWERTOOLS_METRICS_NAMESPACE": "mnemo-test",
        "MNEMO_DATA_DIR": str(tmp_path),
    }
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["built_at_import"] is True  # the service was built during initialisation
    assert result["sessions_at_import"] == sessions  # and the model loaded then, not on the first request
    assert result["onnx_sessions"] == sessions
    assert result["first_call_ms"] is not None
    if job in ("ingest", "retrieve"):
        assert result["status"] in (200, 202)
