"""docs/api.md, the API reference, written from the OpenAPI document (`make api-docs`).

A test regenerates it and compares (tests/integration/test_openapi.py), so the committed page never
drifts from the routes. Run as `python -m mnemo.api.reference [PATH]`.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

HEADER = """# mnemo API reference

Generated from the OpenAPI document (`GET /openapi.json`) by `make api-docs`; do not edit by hand.
The contract is the handbook's API.md; Swagger UI over the same document is at `GET /docs` on the
local server.

Authentication: `Authorization: Bearer <key>` on every route except those marked *no key*
(security scheme `{scheme}`). A local server without `MNEMO_API_KEYS` needs no key and serves
loopback addresses only.

Errors: every error is `{{"error": {{"code", "message", "details"}}}}`. `details` is null, or a list of
`{{"field", "reason"}}`, one entry per field at fault (the one shape of every validation error). A known
path with a method it does not serve gets 405 with an `Allow` header; a body that is not
`application/json` gets 415. Each operation below lists only the errors it can give.
"""


def _ref_name(schema: dict[str, Any]) -> str | None:
    ref = schema.get("$ref")
    return str(ref).rsplit("/", 1)[-1] if ref else None


def type_of(schema: dict[str, Any]) -> str:
    """A short readable type: `string`, `integer (1-50)`, `[Memory]`, `RetrieveRequest`, `string | null`."""
    name = _ref_name(schema)
    if name:
        return f"[{name}](#{name.lower()})"
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " \\| ".join(type_of(option) for option in schema[key])
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    if "enum" in schema:
        return " \\| ".join(f"`{value}`" for value in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"[{type_of(schema.get('items', {}))}]"
    if kind == "object" and "additionalProperties" in schema and isinstance(schema["additionalProperties"], dict):
        return f"map of {type_of(schema['additionalProperties'])}"
    limits = []
    for low, high in (("minimum", "maximum"), ("minLength", "maxLength"), ("minItems", "maxItems")):
        if low in schema or high in schema:
            limits.append(f"{schema.get(low, '')}-{schema.get(high, '')}")
    if "pattern" in schema:
        limits.append(f"`{schema['pattern']}`")
    if "format" in schema:
        limits.append(str(schema["format"]))
    return f"{kind} ({', '.join(limits)})" if limits else str(kind)


def _cell(text: Any) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _operation(path: str, method: str, op: dict[str, Any], public: bool) -> list[str]:
    lines = [f"#### `{op['operationId']}`", "", f"`{method.upper()} {path}`" + (" (no key)" if public else ""), ""]
    if op.get("summary"):
        lines += [_cell(op["summary"]), ""]
    params = op.get("parameters", [])
    if params:
        lines += ["| parameter | in | type | required | description |", "|---|---|---|---|---|"]
        lines += [f"| `{p['name']}` | {p['in']} | {type_of(p.get('schema', {}))} | "
                  f"{'yes' if p.get('required') else 'no'} | {_cell(p.get('description', ''))} |" for p in params]
        lines.append("")
    body = op.get("requestBody", {}).get("content", {})
    for media, content in body.items():
        lines += [f"Body ({media}): {type_of(content.get('schema', {}))}", ""]
    lines += ["| status | meaning | body |", "|---|---|---|"]
    for status, response in sorted(op.get("responses", {}).items()):
        content = response.get("content", {})
        shape = ", ".join(f"{type_of(c.get('schema', {}))} ({media})" for media, c in content.items()) or "none"
        lines.append(f"| {status} | {_cell(response.get('description', ''))} | {shape} |")
    lines.append("")
    return lines


def _schema(name: str, schema: dict[str, Any]) -> list[str]:
    lines = [f"### {name}", ""]
    if schema.get("description"):
        lines += [_cell(schema["description"]), ""]
    properties = schema.get("properties", {})
    if not properties:
        return [*lines, f"{type_of(schema)}", ""]
    required = set(schema.get("required", []))
    lines += ["| field | type | required | description |", "|---|---|---|---|"]
    for field, spec in properties.items():
        default = f" (default `{json.dumps(spec['default'])}`)" if "default" in spec else ""
        lines.append(f"| `{field}` | {type_of(spec)} | {'yes' if field in required else 'no'} | "
                     f"{_cell(spec.get('description', ''))}{default} |")
    return [*lines, ""]


def render(doc: dict[str, Any]) -> str:
    """The Markdown reference of an OpenAPI document (deterministic: same document, same text)."""
    scheme = next(iter(doc.get("components", {}).get("securitySchemes", {})), "none")
    lines = [HEADER.format(scheme=scheme), "## Operations", ""]
    by_tag: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    for path, operations in doc.get("paths", {}).items():
        for method, op in operations.items():
            by_tag.setdefault((op.get("tags") or ["other"])[0], []).append((path, method, op))
    for tag in sorted(by_tag):
        lines += [f"### {tag}", ""]
        for path, method, op in sorted(by_tag[tag], key=lambda item: (item[0], item[1])):
            lines += _operation(path, method, op, op.get("security") == [])
    lines += ["## Schemas", ""]
    for name, schema in sorted(doc.get("components", {}).get("schemas", {}).items()):
        lines += _schema(name, schema)
    return "\n".join(lines).rstrip() + "\n"


def current_document() -> dict[str, Any]:
    """The document a server with the default settings serves, built in a throwaway data directory."""
    from mnemo.api.app import create_app, openapi_document
    from mnemo.bootstrap import build_local
    from mnemo.settings import Settings

    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(data_dir=Path(folder))
        service = build_local(settings)
        try:
            return openapi_document(create_app(service), settings)
        finally:
            service.close()


def main(argv: list[str] | None = None) -> int:
    target = Path((argv if argv is not None else sys.argv[1:] or ["docs/api.md"])[0])
    target.write_text(render(current_document()), encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
