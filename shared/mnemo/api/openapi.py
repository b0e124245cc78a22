"""The OpenAPI document: what the generator derives from the routes, finished with what it cannot know.

Powertools writes the paths, the operation ids given to the routes and the body schemas. Added here:
the Bearer scheme (global, lifted where no tenant data is behind a route), each operation's own error
statuses with an example body (a table, since which errors a route can give is a fact of its handler,
not of its types), the limits that are settings of this deployment, and the edge's own routes
(/ready, /metrics), which the local server answers before the resolver.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from mnemo.api.schemas import ErrorResponse
from mnemo.settings import Settings

BEARER = "bearer"
ERROR_REF = {"$ref": "#/components/schemas/ErrorResponse"}

# no tenant data behind these: they answer without a key (API.md)
PUBLIC_OPERATIONS = frozenset({"health", "ready", "metrics", "get_openapi", "docs"})

ERROR_TEXT: dict[int, str] = {
    400: "bad input the schema cannot catch: a body that is not JSON or not UTF-8, a secret in a field or an "
         "id, a rule across fields, an unknown cursor",
    401: "no or wrong credentials (`Authorization: Bearer <key>`)",
    404: "unknown id, another tenant's or user's id, or a path that names no resource",
    409: "the memory moved on: `version` is not its current one, or it is not the current version",
    413: "body or per-request work too large (MNEMO_MAX_BODY_BYTES, MNEMO_MAX_REQUEST_SENTENCES, "
         "MNEMO_MAX_REQUEST_EMBEDDINGS)",
    415: "the body is not `application/json`",
    422: "a field breaks its schema (type, range, pattern, length); `details` lists each field and why",
    429: "a tenant quota is exhausted (MNEMO_TENANT_REQUESTS_PER_SECOND, MNEMO_TENANT_BURST, "
         "MNEMO_TENANT_CONCURRENT_REQUESTS); retry after the Retry-After header's seconds",
    503: "a back end is unavailable; nothing was half-written, the request can be retried",
}


def _error(code: str, message: str, field: str | None = None, reason: str | None = None) -> dict[str, Any]:
    details = [{"field": field, "reason": reason or message}] if field else None
    return {"error": {"code": code, "message": message, "details": details}}


ERROR_EXAMPLES: dict[int, dict[str, Any]] = {
    400: _error("invalid_input", "body: body is not valid JSON", "body", "body is not valid JSON"),
    401: _error("unauthorized", "missing or unknown API key"),
    404: _error("not_found", "memory not found", "memory_id", "memory not found"),
    409: _error("version_conflict", "memory is at version 3", "version", "memory is at version 3"),
    413: _error("payload_too_large", "request body exceeds 1048576 bytes", "body"),
    415: _error("unsupported_media_type", "the body must be application/json", "content-type",
                "not application/json"),
    422: _error("invalid_input", "top_k: Input should be less than or equal to 50", "top_k",
                "Input should be less than or equal to 50"),
    429: _error("throttled", "too many requests a second for this tenant; retry later"),
    503: _error("backend_unavailable", "the memory store is unavailable"),
}

# what a tenant route can always give: no key, a quota, a back end down
_TENANT = (401, 429, 503)
# a route with path ids: a malformed one fails its pattern (422) or names no route (404)
_IDS = (404, 422)
# a route with a JSON body
_BODY = (400, 413, 415, 422)

OPERATION_ERRORS: dict[str, tuple[int, ...]] = {
    "health": (),
    "get_openapi": (),
    "docs": (),
    "ready": (503,),
    "metrics": (401,),
    "retrieve": (*_TENANT, *_IDS, *_BODY),
    "search": (*_TENANT, *_IDS, *_BODY),
    "add_turns": (*_TENANT, *_IDS, *_BODY),
    "close_conversation": (*_TENANT, *_IDS, 400),  # 400: a conversation id that looks like a secret
    "feedback": (*_TENANT, *_IDS, *_BODY),
    "remember": (*_TENANT, *_IDS, *_BODY),
    "import_memories": (*_TENANT, *_IDS, *_BODY),
    "list_memories": (*_TENANT, *_IDS, 400),
    "get_memory": (*_TENANT, *_IDS),
    "update_memory": (*_TENANT, *_IDS, *_BODY, 409),
    "delete_memory": (*_TENANT, *_IDS),
    "forget": (*_TENANT, *_IDS, *_BODY),
    "get_profile": (*_TENANT, *_IDS),
    "update_profile": (*_TENANT, *_IDS, *_BODY),
    "get_settings": (*_TENANT, *_IDS),
    "update_settings": (*_TENANT, *_IDS, *_BODY),
    "export_user": (*_TENANT, *_IDS),
    "erase_user": (*_TENANT, *_IDS),
    "get_session": (*_TENANT, *_IDS, 400),  # 400: a session id that looks like a secret
    "update_session": (*_TENANT, *_IDS, *_BODY),
    "get_trace": (*_TENANT, *_IDS),
    "consolidate": (*_TENANT, *_BODY),
}

# served by the local server's edge before the resolver (mnemo.server.WsgiApp), so written by hand
EDGE_PATHS: dict[str, Any] = {
    "/ready": {"get": {
        "operationId": "ready", "tags": ["ops"], "summary": "Readiness: 200 when the back ends answer (local server)",
        "responses": {"200": {"description": "ready", "content": {"application/json": {"schema": {
            "type": "object", "properties": {"status": {"const": "ready"}}, "required": ["status"]}}}}}}},
    "/metrics": {"get": {
        "operationId": "metrics", "tags": ["ops"],
        "summary": "Prometheus metrics, no user content (local server; loopback, or MNEMO_METRICS_KEY as Bearer)",
        "responses": {"200": {"description": "Prometheus text format", "content": {
            "text/plain": {"schema": {"type": "string"}}}}}}},
}


def error_responses(operation_id: str) -> dict[str, Any]:
    """The error responses of one operation, each with an example body."""
    return {str(status): {"description": ERROR_TEXT[status], "content": {"application/json": {
        "schema": ERROR_REF, "example": ERROR_EXAMPLES[status]}}}
        for status in sorted(set(OPERATION_ERRORS[operation_id]))}


def _error_schemas() -> dict[str, Any]:
    schema = ErrorResponse.model_json_schema(ref_template="#/components/schemas/{model}")
    nested = schema.pop("$defs", {})
    return {"ErrorResponse": schema, **nested}


def _set_limits(doc: dict[str, Any], settings: Settings) -> None:
    """Limits that are settings, not constants, written into the document this deployment serves."""
    schemas = doc.get("components", {}).get("schemas", {})
    budget = schemas.get("RetrieveRequest", {}).get("properties", {}).get("token_budget", {})
    for option in budget.get("anyOf", [budget]):
        if option.get("type") == "integer":
            option["maximum"] = settings.token_budget_cap
    items = schemas.get("ImportRequest", {}).get("properties", {}).get("items")
    if items is not None:
        items["maxItems"] = settings.max_import_items
    limits = {
        "max_body_bytes": settings.max_body_bytes, "max_import_items": settings.max_import_items,
        "max_content_chars": settings.max_content_chars, "max_request_sentences": settings.max_request_sentences,
        "max_request_embeddings": settings.max_request_embeddings,
        "tenant_requests_per_second": settings.tenant_requests_per_second or None,
        "tenant_burst": settings.tenant_burst or None,
        "tenant_concurrent_requests": settings.tenant_concurrent_requests or None,
    }
    info = doc.setdefault("info", {})
    info["x-mnemo-limits"] = limits
    info["description"] = (info.get("description", "") + "\n\nLimits of this deployment (null: none): " + ", ".join(
        f"{name} {value}" for name, value in limits.items()) + ". A request over a per-request limit gets 413 "
        "naming the field; one over a tenant quota gets 429 with Retry-After.")


def _unused_schemas(doc: dict[str, Any]) -> set[str]:
    """Component schemas nothing refers to any more (the generator's own validation-error models,
    replaced by ErrorResponse)."""
    schemas = doc.get("components", {}).get("schemas", {})
    unused = set()
    for name in schemas:
        ref = f'"#/components/schemas/{name}"'
        rest = {k: v for k, v in schemas.items() if k != name}
        if ref not in json.dumps(doc.get("paths", {})) and ref not in json.dumps(rest):
            unused.add(name)
    return unused


def finish_document(generated: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """The served document, from the generator's."""
    doc = copy.deepcopy(generated)
    paths = doc.setdefault("paths", {})
    for path, operations in EDGE_PATHS.items():
        paths.setdefault(path, copy.deepcopy(operations))
    for operations in paths.values():
        for operation in operations.values():
            operation_id = operation["operationId"]
            responses = operation.setdefault("responses", {})
            for status in [s for s in responses if not s.startswith("2")]:
                del responses[status]  # the generator's guess; the table below says what the route gives
            success = responses.get("204")
            if success is not None:
                success.pop("content", None)  # derived from the return type, but a 204 has no body
            responses.update(error_responses(operation_id))
            if operation_id in PUBLIC_OPERATIONS:
                operation["security"] = []
    components = doc.setdefault("components", {})
    components.setdefault("schemas", {}).update(_error_schemas())
    for name in _unused_schemas(doc) & {"HTTPValidationError", "ValidationError"}:
        del components["schemas"][name]
    components["securitySchemes"] = {BEARER: {
        "type": "http", "scheme": "bearer",
        "description": "An API key from MNEMO_API_KEYS (local server) or `mnemo apikey create` (AWS); it names "
                       "the tenant. A local server without MNEMO_API_KEYS needs none (loopback only)."}}
    doc["security"] = [{BEARER: []}]
    _set_limits(doc, settings)
    return doc
