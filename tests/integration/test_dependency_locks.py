"""The lock files agree with pyproject.toml and keep the core lean (tools/locks.py writes them)."""

from __future__ import annotations

from pathlib import Path

from tools.locks import expected

ROOT = Path(__file__).resolve().parents[2]


def pins(file: str) -> set[str]:
    return {line.partition("==")[0].lower().replace("_", "-") for line in (ROOT / file).read_text().splitlines()
            if "==" in line}


def test_the_locks_are_what_pyproject_and_the_installed_versions_give() -> None:
    # every package a group pulls in is pinned in its lock, at the version `make test` installed,
    # and nothing else (otherwise: `make lock`)
    for file, text in expected().items():
        assert (ROOT / file).read_text() == text, f"{file} is out of date: run `make lock`"


def test_the_core_lock_has_no_aws_library_and_no_development_tool() -> None:
    core = pins("requirements.lock")
    for heavy in ("aws-cdk-lib", "jsii", "constructs", "cdk-nag", "boto3", "botocore", "opensearch-py",
                  "aws-xray-sdk", "moto", "pytest", "mypy", "ruff", "cfn-lint", "sympy", "onnx"):
        assert heavy not in core
    assert {"onnxruntime", "tokenizers", "numpy", "aws-lambda-powertools", "gunicorn"} <= core
    assert {"boto3", "opensearch-py", "aws-xray-sdk"} <= pins("requirements-aws.lock")
    assert {"aws-cdk-lib", "cdk-nag", "moto", "pytest", "onnx"} <= pins("requirements-dev.lock")


def test_no_lock_pins_the_unused_sigv4_helper() -> None:
    # opensearch-py's own Urllib3AWSV4SignerAuth signs the requests (adapters/aws/opensearch_transport.py)
    for file in ("requirements.lock", "requirements-aws.lock", "requirements-dev.lock"):
        assert "requests-aws4auth" not in pins(file)
