"""Validation of the request bodies we send against the OpenSearch API specification in the handbook.

The spec's schemas are open (no additionalProperties: false), so this catches wrong types and
missing required fields; the in-memory fake rejects any query outside the subset we emit.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012


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
BASE = "https://opensearch.example/openapi.json"
BODY = {"_search": "search", "_count": "count", "_delete_by_query": "delete_by_query", "_mget": "mget"}


@cache
def registry() -> Registry:
    document = yaml.load(spec_path().read_text(), Loader=yaml.CSafeLoader)
    return Registry().with_resource(BASE, Resource.from_contents(document, default_specification=DRAFT202012))


def validator(request_body: str) -> Draft202012Validator:
    schema = {"$ref": f"{BASE}#/components/requestBodies/{request_body}/content/application~1json/schema"}
    return Draft202012Validator(schema, registry=registry())


def problems(method: str, path: str, body: Any) -> list[str]:
    """Every way ``body`` breaks the spec for this endpoint (empty when it conforms)."""
    endpoint = path.rstrip("/").rsplit("/", 1)[-1]
    if method == "PUT" and path.count("/") == 1:
        name = "indices.create"
    elif endpoint == "_bulk":
        lines = [json.loads(line) for line in body.strip().split("\n")]
        return [f"bulk action {i}: {a}" for i, a in enumerate(lines[::2]) if set(a) - {"index", "create", "delete"}]
    else:
        name = BODY.get(endpoint, "")
    if not name or body is None:
        return []
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator(name).iter_errors(body)
            if not _only_ambiguous(e)]


def _only_ambiguous(error: Any) -> bool:
    """The spec's oneOf for `sort` has overlapping alternatives, so a correct object matches two of them
    and fails "exactly one". That, and only that, is tolerated: a value that matches no alternative
    still fails."""
    if error.validator != "oneOf":
        return False
    stack = list(error.context)
    while stack:
        child = stack.pop()
        if child.validator == "oneOf" and "is valid under each of" in child.message:
            return True
        stack.extend(child.context)
    return False
