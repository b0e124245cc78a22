"""Cold start per function: import (Lambda's initialisation, with each handler's warm-up) and first call,
from its Lambda bundle, each function in a fresh interpreter that sees only its bundle and boto3.

    .venv/bin/python tests/bench/cold_start.py [--bundles DIR]   # default: builds them for this machine

The functions run on the embedded back end here (no AWS to reach), so AWS round trips are not in the
figures; what is: importing the code and its libraries, building the service, loading the models each
function needs. It also records which ONNX sessions each function holds after its first call (ingest,
feedback, consolidate and the authorizer must hold none). Prints a table; writes
tests/bench/results/cold_start.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]

from infra.bundling import FUNCTION_BUNDLES, MODEL_DIR, build_bundle, model_environment  # noqa: E402
from tests.bench.common import write_result  # noqa: E402

JOBS = ["retrieve", "ingest", "feedback", "memories", "extract", "consolidate", "authorizer"]

CHILD = r'''
import json, os, sys, time
sys.path[:0] = [os.environ["BUNDLE"], os.environ["RUNTIME"]]
job = os.environ["JOB"]
started = time.perf_counter()
module = __import__(f"functions.{job}.handler", fromlist=["handler"])
imported = time.perf_counter()

def loaded_sessions():
    from functions.common import runtime
    if not runtime.service.cache_info().currsize:
        return None  # the service is not built
    return sorted(getattr(runtime.service().ports.embedder, "_sessions", {}))

at_import = loaded_sessions()

class Context:
    function_name = f"mnemo-bench-{job}"
    memory_limit_in_mb = 1769
    invoked_function_arn = f"arn:aws:lambda:eu-west-1:123456789012:function:mnemo-bench-{job}"
    aws_request_id = "bench-1"
    def get_remaining_time_in_millis(self):
        return 10_000

def http(method, path, body):
    from mnemo.server import build_event
    raw = json.dumps(body).encode() if body is not None else b""
    return build_event(method, path, {"content-type": "application/json"}, raw, "bench", "127.0.0.1")

events = {
    "retrieve": lambda: http("POST", "/v1/users/u1/retrieve", {"query": "What should I cook tonight?"}),
    "ingest": lambda: http("POST", "/v1/users/u1/turns", {"conversation_id": "c1", "messages": [
        {"role": "user", "content": "I am vegetarian."}]}),
    "feedback": lambda: http("POST", "/v1/users/u1/feedback", {"retrieval_id": "r-none", "rating": "up"}),
    "memories": lambda: http("POST", "/v1/users/u1/memories", {"content": "I live in Lisbon."}),
    "extract": lambda: {"Records": [{
        "messageId": "m1", "receiptHandle": "rh1", "md5OfBody": "0" * 32, "eventSource": "aws:sqs",
        "eventSourceARN": "arn:aws:sqs:eu-west-1:123456789012:mnemo-bench-extract", "awsRegion": "eu-west-1",
        "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "1795640400000", "SenderId": "A",
                       "ApproximateFirstReceiveTimestamp": "1795640400000"}, "messageAttributes": {},
        "body": json.dumps({"tenant_id": "bench", "user_id": "u1", "conversation_id": "c1", "up_to_seq": 1,
                            "due_at": "2026-11-26T00:00:00+00:00"})}]},
    "consolidate": lambda: {"job": "consolidate"},
}
first_ms = None
status = None
if job in events:
    event = events[job]()
    t = time.perf_counter()
    result = module.handler(event, Context())
    first_ms = (time.perf_counter() - t) * 1000
    status = result.get("statusCode") if isinstance(result, dict) else None
print(json.dumps({"job": job, "import_ms": round((imported - started) * 1000, 1),
                  "first_call_ms": None if first_ms is None else round(first_ms, 1), "status": status,
                  "built_at_import": at_import is not None, "sessions_at_import": at_import or [],
                  "onnx_sessions": loaded_sessions() or [], "onnxruntime_imported": "onnxruntime" in sys.modules}))
'''


def lambda_runtime(tmp: Path) -> Path:
    """What the Lambda Python runtime brings: boto3 and its own dependencies, nothing else."""
    import boto3
    import botocore
    import s3transfer

    runtime = tmp / "runtime"
    runtime.mkdir(exist_ok=True)
    for module in (boto3, botocore, s3transfer):
        (runtime / module.__name__).symlink_to(Path(str(module.__file__)).parent)
    return runtime


def measure(bundles: Path, job: str, tmp: Path, runtime: Path) -> dict[str, object]:
    bundle = bundles / FUNCTION_BUNDLES[job]
    env = {
        "PATH": os.environ["PATH"], "BUNDLE": str(bundle), "RUNTIME": str(runtime), "JOB": job,
        # what Lambda sets: the handlers warm up at import only in Lambda
        "AWS_LAMBDA_FUNCTION_NAME": f"mnemo-bench-{job}", "AWS_DEFAULT_REGION": "eu-west-1",
        "POWERTOOLS_TRACE_DISABLED": "true", "POWERTOOLS_METRICS_NAMESPACE": "mnemo-bench",
        "MNEMO_DATA_DIR": str(tmp / job), "MNEMO_STATE_TABLE": "mnemo-bench-state",
        **model_environment(FUNCTION_BUNDLES[job], str(bundle / MODEL_DIR)),  # as the stack sets it
    }
    done = subprocess.run([sys.executable, "-I", "-S", "-c", CHILD], env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    if done.returncode:
        raise RuntimeError(f"{job}: {done.stderr[-2000:]}")
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bundles", type=Path, default=None, help="bundles built by python -m infra.bundling")
    parser.add_argument("--jobs", nargs="*", default=JOBS)
    parser.add_argument("--keep-bundles", type=Path, default=None, help="build the bundles here and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mnemo-cold-") as tmp_name:
        tmp = Path(tmp_name)
        bundles = args.bundles
        if bundles is None:
            bundles = args.keep_bundles or tmp / "bundles"
            host = os.uname().machine
            for name in sorted({FUNCTION_BUNDLES[job] for job in args.jobs}):
                build_bundle(bundles / name, "x86_64" if host == "x86_64" else "arm64",
                             f"{sys.version_info[0]}.{sys.version_info[1]}", name)
        runtime = lambda_runtime(tmp)
        rows = [measure(bundles, job, tmp, runtime) for job in args.jobs]
    print(f"{'function':<12} {'import+init ms':>15} {'first call ms':>14}  onnx sessions")
    for row in rows:
        first = "-" if row["first_call_ms"] is None else f"{row['first_call_ms']:.1f}"
        sessions = ", ".join(row["onnx_sessions"]) or "none"  # type: ignore[arg-type]
        print(f"{row['job']:<12} {row['import_ms']:>15.1f} {first:>14}  {sessions}")
    path = write_result("cold_start", {"home": "embedded back end, AWS round trips excluded", "functions": rows})
    print(f"written: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
