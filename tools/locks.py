"""The three lock files, written from pyproject.toml and the versions installed in this venv.

- requirements.lock: the core, what `pip install .` and `make run` install (the embedded server);
- requirements-aws.lock: what the `aws` extra adds (boto3, opensearch-py, the X-Ray SDK);
- requirements-dev.lock: what the `dev` dependency group adds (CDK, moto, pytest, linters, ...).

Each file pins exactly the packages its group adds to the ones before it, with every package they
pull in (markers evaluated for this machine), at the version installed here. To move a pin:
`pip install -U NAME` in .venv, then `make lock`; tests/unit/test_locks.py fails while the files
and pyproject.toml disagree.

    python tools/locks.py           # rewrite the three files
    python tools/locks.py --check   # exit 1 and say what differs
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
HEADERS = {
    "requirements.lock": "# the core: what `pip install .` and `make run` install (tools/locks.py writes this file)",
    "requirements-aws.lock": "# the aws extra, over the core (tools/locks.py writes this file)\n-r requirements.lock",
    "requirements-dev.lock": "# the dev group (CDK, tests, linters), over the aws extra (tools/locks.py writes it)\n"
                             "-r requirements-aws.lock",
}


def _closure(requirements: Iterable[str]) -> dict[str, str]:
    """Every distribution the requirements pull in, by canonical name -> the name as it spells itself."""
    found: dict[str, str] = {}
    pending = [(Requirement(r), "") for r in requirements]
    while pending:
        req, extra = pending.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        key = canonicalize_name(req.name)
        dist = metadata.distribution(req.name)
        first = key not in found
        found[key] = str(dist.metadata["Name"])
        for line in dist.requires or []:
            sub = Requirement(line)
            if sub.marker is None or "extra" not in str(sub.marker):
                if first:
                    pending.append((sub, ""))
                continue
            for wanted in req.extras:  # an extra asked for (moto[dynamodb]) brings its own requirements
                if sub.marker.evaluate({"extra": wanted}):
                    pending.append((sub, wanted))
    return found


def _group(groups: dict[str, list[object]], name: str) -> list[str]:
    out: list[str] = []
    for item in groups[name]:
        if isinstance(item, dict):
            out += _group(groups, str(item["include-group"]))
        else:
            out.append(str(item))
    return out


def expected() -> dict[str, str]:
    """File name -> its wanted text."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    core = project["project"]["dependencies"]
    aws = project["project"]["optional-dependencies"]["aws"]
    dev = _group(project["dependency-groups"], "dev")
    layers = {"requirements.lock": _closure(core)}
    layers["requirements-aws.lock"] = {k: v for k, v in _closure(core + aws).items()
                                       if k not in layers["requirements.lock"]}
    below = {**layers["requirements.lock"], **layers["requirements-aws.lock"]}
    layers["requirements-dev.lock"] = {k: v for k, v in _closure(core + aws + dev).items() if k not in below}
    texts = {}
    for file, names in layers.items():
        pins = sorted((f"{name}=={metadata.version(name)}" for name in names.values()), key=str.lower)
        texts[file] = "\n".join([HEADERS[file], *pins]) + "\n"
    return texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    stale = []
    for file, text in expected().items():
        path = ROOT / file
        if path.exists() and path.read_text() == text:
            continue
        if args.check:
            stale.append(file)
        else:
            path.write_text(text)
            print(f"wrote {file} ({text.count('==')} pins)")
    if stale:
        print(f"out of date with pyproject.toml and this venv: {', '.join(stale)} (run `make lock`)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
