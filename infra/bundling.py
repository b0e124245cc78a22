"""The Lambda bundles, built without Docker (DESIGN.md 8): one per set of models, each function on the one
with the models it loads.

pip installs manylinux wheels for the target architecture and Python (``--platform ... --only-binary=:all:
--no-deps``, versions from requirements.lock and requirements-aws.lock) once into build/lambda-packages,
keyed by the command and the pins; each bundle is then that folder (hard-linked where the file system allows),
the code (shared/mnemo without its training code and data, functions/) and its model files. Only the model
files are bundled, not the packages that ship them (one is a whole SDK), in one folder, each once; a bundle
without the extraction encoder leaves out the tagger's and the ending judge's weights too (they run on it). boto3 and
botocore come with the Lambda runtime and are left out. Each bundle's size is reported, and the build fails
past Lambda's 250 MB unzipped limit.

Why several: the four ONNX models (the embedding model, its query twin, search's query encoder and the
extraction encoder, about 23 MB each), the tokenizer and the packages come to about 264 MB, past the limit;
no function loads all four (BUNDLES, FUNCTION_BUNDLES).

Run alone (every bundle, or those named; ``--arch x86_64 --python 3.11`` for ones the tests can import), or
report the bundles a synthesised stage deploys (`make synth` does, for dev):
    python -m infra.bundling --out /tmp/bundles [--arch arm64] [--python 3.14] [--only query write]
    python -m infra.bundling --synthesised cdk.out/dev
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
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
DOCUMENT_MODEL = "model.onnx"
TOKENIZER = "tokenizer.json"
QUERY_MODEL = "query-dynint8.onnx"
SEARCH_MODEL = "search-dynint8.onnx"
EXTRACTOR_ENCODER = "extractor-encoder-int8.onnx"
# where the functions find them (the asset is unpacked to /var/task)
LAMBDA_MODEL_DIR = f"/var/task/{MODEL_DIR}"
# package data of mnemo/models that runs on the extraction encoder (bootstrap.TAGGER_PATH, ENDING_PATH)
ENCODER_DATA = ("extractor_tagger.npz", "extractor_tagger.json", "ending.npz", "ending.json")

# the model files of each bundle: the embedding model and its tokenizer wherever a function builds the
# service (the embedder checks both at start), the query twin with them (retrieve's questions, forget by
# description, and the query space the slot boost is keyed by), then search's encoder or the extractor's
BUNDLES: dict[str, tuple[str, ...]] = {
    "query": (DOCUMENT_MODEL, TOKENIZER, QUERY_MODEL, SEARCH_MODEL),
    "write": (DOCUMENT_MODEL, TOKENIZER, QUERY_MODEL, EXTRACTOR_ENCODER),
    "plain": (),
}
# retrieve serves retrieve and search and never extracts; memories, extract and consolidate write memories
# (the extractor, memory keys, endings); ingest and feedback embed nothing but build the same service; the
# authorizer and the index's set-up build none
FUNCTION_BUNDLES: dict[str, str] = {
    "retrieve": "query",
    "memories": "write", "extract": "write", "consolidate": "write", "ingest": "write", "feedback": "write",
    "authorizer": "plain", "index_setup": "plain",
}


def model_environment(bundle: str, model_dir: str = LAMBDA_MODEL_DIR) -> dict[str, str]:
    """The settings that point a function at its bundle's models, and off the ones it does not have: without
    search's encoder search asks through the twin; without the extraction encoder the function extracts with
    the rules (only retrieve, which extracts nothing: the learned extractor would check the file at start)."""
    models = BUNDLES[bundle]
    env: dict[str, str] = {}
    if DOCUMENT_MODEL in models:
        env["MNEMO_MODEL_DIR"] = model_dir
    if QUERY_MODEL in models:
        env["MNEMO_QUERY_MODEL_PATH"] = f"{model_dir}/{QUERY_MODEL}"
    if SEARCH_MODEL in models:  # on by default (a stage may still turn it off)
        env["MNEMO_SEARCH_QUERY_MODEL_PATH"] = f"{model_dir}/{SEARCH_MODEL}"
    else:
        env["MNEMO_SEARCH_QUERY_MODEL"] = "false"
    if EXTRACTOR_ENCODER in models:
        env["MNEMO_EXTRACTOR_ENCODER_PATH"] = f"{model_dir}/{EXTRACTOR_ENCODER}"
    else:
        env.update(MNEMO_EXTRACTOR="rules", MNEMO_MEMORY_KEYS="0", MNEMO_ENDING_ENABLED="false")
    return env


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


# left out of the installed packages: bytecode, and the packages' own test suites (numpy's, about 8 MB), which
# nothing imports at run time (tests/infra/test_bundle.py imports every handler and builds every service)
PRUNED = ("__pycache__", "tests")


def packages(arch: str, python: str, cache: Path = ROOT / "build" / "lambda-packages") -> Path:
    """The runtime packages for ``arch`` and ``python``, pip-installed once per command and pins (wheels do not
    change under a pinned version) and shared by every bundle and every synth."""
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile",
               "--no-deps", "--only-binary=:all:", "--implementation", "cp", "--python-version", python]
    for platform in platforms(arch):
        command += ["--platform", platform]
    pins = pinned_requirements()
    key = hashlib.sha256(json.dumps([command[1:], pins, PRUNED]).encode()).hexdigest()[:16]
    done = cache / f"{arch}-cp{python}-{key}"
    if done.is_dir():
        return done
    cache.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{done.name}-", dir=cache))
    try:
        subprocess.run([*command, "--target", str(staging), *pins], check=True)  # noqa: S603 - our own pins
        for pruned in [p for name in PRUNED for p in staging.rglob(name) if p.is_dir()]:
            shutil.rmtree(pruned, ignore_errors=True)
        staging.rename(done)  # whole or not at all; a concurrent build that finished first wins
    except OSError:
        if not done.is_dir():
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return done


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:  # another file system (a test's /tmp): a copy
        shutil.copy2(source, target)


def build_bundle(out: Path, arch: str = "arm64", python: str = "3.12", bundle: str = "write") -> dict[str, Any]:
    models = BUNDLES[bundle]
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(packages(arch, python), out, copy_function=_link_or_copy, dirs_exist_ok=True)
    ignore = ["__pycache__", "*.pyc", "*.onnx", "training"]  # the ONNX models go to models/, each once
    if EXTRACTOR_ENCODER not in models:
        ignore += ENCODER_DATA
    shutil.copytree(ROOT / "shared" / "mnemo", out / "mnemo", ignore=shutil.ignore_patterns(*ignore))
    shutil.copytree(ROOT / "functions", out / "functions", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    _copy_models(out / MODEL_DIR, models)
    report = {"bundle": bundle, "arch": arch, "python": python, "models": sorted(models), **size_report(out)}
    (out / "bundle-report.json").write_text(json.dumps(report, indent=2))
    print(f"mnemo bundle {bundle!r} ({arch}, Python {python}): {report['total_mb']} MB unzipped "
          f"({report['total_bytes'] / 2**20:.1f} of Lambda's 250 MiB), models: {', '.join(sorted(models)) or 'none'}"
          f"; largest: {', '.join(f'{k} {v} MB' for k, v in list(report['largest_mb'].items())[:5])}", file=sys.stderr)
    if report["total_bytes"] > LAMBDA_UNZIPPED_LIMIT:
        raise RuntimeError(f"the {bundle} bundle is {report['total_mb']} MB, over Lambda's 250 MB unzipped limit")
    return report


def _copy_models(target: Path, models: tuple[str, ...]) -> None:
    from mnemo.adapters.local.onnx_embedder import (
        EXTRACTOR_ENCODER_PATH,
        QUERY_MODEL_PATH,
        SEARCH_MODEL_PATH,
        model_paths,
    )

    model, tokenizer = model_paths()
    sources = {DOCUMENT_MODEL: model, TOKENIZER: tokenizer, QUERY_MODEL: QUERY_MODEL_PATH,
               SEARCH_MODEL: SEARCH_MODEL_PATH, EXTRACTOR_ENCODER: EXTRACTOR_ENCODER_PATH}
    target.mkdir(parents=True, exist_ok=True)
    for name in models:
        shutil.copyfile(sources[name], target / name)


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

    def __init__(self, arch: str, python: str, bundle: str) -> None:
        self.arch = arch
        self.python = python
        self.bundle = bundle

    def try_bundle(self, output_dir: str, *, image: DockerImage, **_: Any) -> bool:
        build_bundle(Path(output_dir), self.arch, self.python, self.bundle)
        return True


def bundling_options(arch: str, python: str, bundle: str) -> BundlingOptions:
    # the image is never pulled: the local bundler always succeeds or fails the synth
    # the environment is never used by a container; it makes the target and the bundle part of the asset's hash
    return BundlingOptions(image=DockerImage.from_registry("mnemo/no-docker-needed"),
                           local=LocalBundler(arch, python, bundle),
                           environment={"MNEMO_BUNDLE_TARGET": f"{arch}-cp{python}", "MNEMO_BUNDLE": bundle})


def synthesised(cloud_assembly: Path) -> dict[str, dict[str, Any]]:
    """The bundle each function of a synthesised stage deploys (``cdk.out/<stage>``): its report, read from the
    asset folder the template's code points at, with the functions on it."""
    found: dict[str, dict[str, Any]] = {}
    for template in cloud_assembly.glob("*.template.json"):
        for resource in json.loads(template.read_text())["Resources"].values():
            props = resource.get("Properties", {})
            handler = props.get("Handler", "")
            if resource["Type"] != "AWS::Lambda::Function" or not handler.startswith("functions."):
                continue
            asset = cloud_assembly / f"asset.{props['Code']['S3Key'].removesuffix('.zip')}"
            report = json.loads((asset / "bundle-report.json").read_text())
            entry = found.setdefault(report["bundle"], {**report, "functions": []})
            entry["functions"].append(handler.split(".")[1])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="each bundle goes to OUT/<name>")
    parser.add_argument("--arch", default="arm64")
    parser.add_argument("--python", default="3.14")
    parser.add_argument("--only", nargs="*", choices=sorted(BUNDLES), default=sorted(BUNDLES))
    parser.add_argument("--synthesised", type=Path, help="report the bundles of a synthesised stage (cdk.out/dev)")
    args = parser.parse_args()
    if args.synthesised:
        reports = synthesised(args.synthesised)
    elif args.out:
        reports = {name: {**build_bundle(Path(args.out) / name, args.arch, args.python, name),
                          "functions": [job for job, b in FUNCTION_BUNDLES.items() if b == name]}
                   for name in args.only}
    else:
        parser.error("--out or --synthesised")
    for name, report in sorted(reports.items()):
        print(f"Lambda bundle {name:<5} {report['arch']}: {report['total_mb']:5.1f} MB unzipped "
              f"({report['total_bytes'] / 2**20:5.1f} of 250 MiB), models: {', '.join(report['models']) or 'none'}; "
              f"functions: {', '.join(sorted(report['functions']))}")
        if report["total_bytes"] > LAMBDA_UNZIPPED_LIMIT:
            raise SystemExit(f"the {name} bundle is over Lambda's 250 MB unzipped limit")


if __name__ == "__main__":
    main()
