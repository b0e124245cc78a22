"""One table from the core's errors to HTTP statuses, and the JSON error shape of API.md."""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools.event_handler import Response

from mnemo import errors

STATUS: dict[type[errors.MnemoError], int] = {
    errors.InvalidInput: 400,
    errors.InvalidField: 422,
    errors.Unauthorized: 401,
    errors.NotFound: 404,
    errors.VersionConflict: 409,
    errors.PayloadTooLarge: 413,
    errors.Throttled: 429,
    errors.BackendUnavailable: 503,
    errors.ConfigurationError: 500,
}


def status_for(exc: errors.MnemoError) -> int:
    for cls in type(exc).__mro__:
        if cls in STATUS:
            return STATUS[cls]
    return 500


def detail_list(details: Any, message: str) -> list[dict[str, str]] | None:
    """The one ``details`` shape of API.md: a list of ``{field, reason}``, or null when no field is at
    fault. The core names a field with a ``{"field": ...}`` map; its reason defaults to the message."""
    if details is None:
        return None
    entries = details if isinstance(details, list) else [details]
    shaped = []
    for entry in entries:
        if isinstance(entry, dict) and entry.get("field"):
            shaped.append({"field": str(entry["field"]), "reason": str(entry.get("reason") or message)})
    return shaped or None


def error_response(status: int, code: str, message: str, details: Any = None,
                   headers: dict[str, str] | None = None) -> Response[str]:
    body = {"error": {"code": code, "message": message, "details": detail_list(details, message)}}
    return Response(status_code=status, content_type="application/json", body=json.dumps(body),
                    headers=headers)


# the member tags pydantic puts in the location of a union's errors ("task_progress.k.int"): a type,
# not a field the client sent ("function-after[_visible(), str]" is an annotated str)
_UNION_TAGS = frozenset({"str", "int", "float", "bool", "none"})


def _is_union_tag(part: object) -> bool:
    return isinstance(part, str) and (part in _UNION_TAGS or part.startswith(("function-", "constrained-")))


def validation_details(raw_errors: Any) -> list[dict[str, str]]:
    """Pydantic's error list reduced to field + reason (never echoing the input value)."""
    details = []
    for err in raw_errors:
        loc = [str(p) for p in err.get("loc", ()) if p not in ("body",) and not _is_union_tag(p)] or ["body"]
        field = ".".join(loc)
        reason = str(err.get("msg", "invalid"))
        if err.get("type") == "json_invalid":
            field, reason = "body", "body is not valid JSON"
        elif err.get("type") == "missing":
            reason = "field required"
        details.append({"field": field, "reason": reason})
    return details
