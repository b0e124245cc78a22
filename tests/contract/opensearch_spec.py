"""Validation of the request bodies we send against the OpenSearch API specification in the handbook.

The spec's schemas are open (no additionalProperties: false), so this catches wrong types and
missing required fields; the HTTP fake (opensearch_fake) answers a body that breaks the spec with a
400, and rejects any query outside the subset we emit. The validator is jsonschema-rs (Draft
2020-12): the fake checks every request, and the Python validator takes tens of milliseconds
for one search body where this one takes tens of microseconds.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs
import yaml


def spec_path() -> Path:
    """The handbook's copy: $MNEMO_OPENSEARCH_SPEC, else shared/opensearch/ beside the project (as in CI)."""
    if os.environ.get("MNEMO_OPENSEARCH_SPEC"):
        return Path(os.environ["MNEMO_OPENSEARCH_SPEC"])
    for folder in Path(__file__).resolve().parents:
        candidate = folder / "shared" / "opensearch" / "opensearch-openapi.yaml"
        if candidate.exists():
            return candidate
    raise FileNotFoundError("the OpenSearch API spec (shared/opensearch/opensearch-openapi.yaml beside the "
                            "project, or $MNEMO_OPENSEARCH_SPEC) is needed to check request bodies")


BODY = {"_search": "search", "_count": "count", "_delete_by_query": "delete_by_query", "_mget": "mget"}


@cache
def document() -> Any:
    """The parsed spec; parsing 2.8 MB of YAML takes seconds, so a JSON copy is kept in the temp
    directory under the YAML's hash (a changed spec is parsed again)."""
    text = spec_path().read_bytes()
    cached = Path(tempfile.gettempdir()) / f"mnemo-opensearch-spec-{hashlib.sha256(text).hexdigest()[:16]}.json"
    if cached.exists():
        return json.loads(cached.read_text())
    parsed = yaml.load(text, Loader=yaml.CSafeLoader)
    partial = cached.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps(parsed))
    partial.replace(cached)  # atomic: parallel runs never read half a file
    return parsed


@cache
def validator(pointer: str) -> Any:
    """A validator of the schema at ``pointer``: the whole document is the root (so every $ref in it
    resolves) and its own $ref names the schema."""
    return jsonschema_rs.Draft202012Validator({**document(), "$ref": f"#{pointer}"})


def body_pointer(request_body: str) -> str:
    return f"/components/requestBodies/{request_body}/content/application~1json/schema"


def problems(method: str, path: str, body: Any) -> list[str]:
    """Every way ``body`` breaks the spec for this endpoint (empty when it conforms)."""
    endpoint = path.rstrip("/").rsplit("/", 1)[-1]
    if endpoint == "_bulk":
        return bulk_problems(body)
    if method == "PUT" and path.count("/") == 1:
        name = "indices.create"
    elif method == "PUT" and endpoint == "_settings":
        name = "indices.put_settings"
    else:
        name = BODY.get(endpoint, "")
    if not name or body is None:
        return []
    return _messages(validator(body_pointer(name)), body)


def bulk_problems(body: str) -> list[str]:
    """Each action line against the spec's operation schema; a source line follows index and create."""
    lines = [json.loads(line) for line in body.split("\n") if line.strip()]
    found: list[str] = []
    position = 0
    while position < len(lines):
        action = lines[position]
        found += [f"line {position + 1}: {m}" for m in _messages(
            validator("/components/schemas/_core.bulk___OperationContainer"), action)]
        kind = next(iter(action), "")
        if kind not in ("index", "create", "delete"):
            found.append(f"line {position + 1}: the adapter writes index, create and delete actions, not {kind!r}")
        position += 1 if kind == "delete" else 2
        if kind != "delete" and (position > len(lines) or not isinstance(lines[position - 1], dict)):
            found.append(f"line {position}: an {kind} action needs a source line")
    return found


def _messages(checker: Any, body: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.instance_path))}: {e.message}" for e in checker.iter_errors(body)
            if not _only_ambiguous(e.kind)]


def _only_ambiguous(kind: Any) -> bool:
    """The spec's oneOf for `sort` has overlapping alternatives, so a correct object matches two of them
    and fails "exactly one". That, and only that, is tolerated: a value that matches no alternative
    still fails."""
    kinds = jsonschema_rs.ValidationErrorKind
    if not isinstance(kind, kinds.OneOfNotValid | kinds.OneOfMultipleValid):
        return False
    stack = [kind]
    while stack:
        current = stack.pop()
        if isinstance(current, jsonschema_rs.ValidationErrorKind.OneOfMultipleValid):
            return True
        for group in getattr(current, "context", None) or []:
            stack.extend(error.kind for error in group)
    return False
