"""The OpenAPI document, Swagger UI, docs/api.md and the error conventions of API.md (issue 13, items 5
and 6), through the edge of `mnemo serve` in process. The same over real HTTP is in tests/e2e."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from openapi_spec_validator import validate
from openapi_spec_validator.validation import OpenAPIV31SpecValidator

from mnemo.api.app import create_app, openapi_document
from mnemo.api.openapi import OPERATION_ERRORS
from mnemo.api.reference import render
from mnemo.api.schemas import ErrorResponse
from mnemo.bootstrap import Mnemo
from tests.integration.test_server_edge import call, edge

ROOT = Path(__file__).resolve().parents[2]
NO_KEY = {"Authorization": ""}


@pytest.fixture
def doc(service: Mnemo) -> dict[str, Any]:
    status, _, body = call(edge(service), "GET", "/openapi.json", headers=NO_KEY)
    assert status == 200
    return dict(body)


def operations(doc: dict[str, Any]) -> dict[str, tuple[str, str, dict[str, Any]]]:
    return {op["operationId"]: (method, path, op) for path, ops in doc["paths"].items() for method, op in ops.items()}


# -- item 5: the document
def test_the_document_is_valid_openapi_3_1(doc: dict[str, Any]) -> None:
    assert doc["openapi"].startswith("3.1")
    assert list(OpenAPIV31SpecValidator(doc).iter_errors()) == []
    validate(doc)


def test_bearer_is_declared_globally_and_lifted_only_where_no_tenant_data_is(doc: dict[str, Any]) -> None:
    schemes = doc["components"]["securitySchemes"]
    assert schemes["bearer"] == {**schemes["bearer"], "type": "http", "scheme": "bearer"}
    assert doc["security"] == [{"bearer": []}]
    public = {name for name, (_, _, op) in operations(doc).items() if op.get("security") == []}
    assert public == {"health", "ready", "metrics", "get_openapi", "docs"}


def test_operation_ids_are_the_names_of_api_md(doc: dict[str, Any]) -> None:
    ids = operations(doc)
    assert {"retrieve", "search", "add_turns", "close_conversation", "feedback", "remember", "import_memories",
            "list_memories", "get_memory", "update_memory", "delete_memory", "forget", "get_profile",
            "update_profile", "get_settings", "update_settings", "export_user", "erase_user", "get_session",
            "update_session", "get_trace", "consolidate", "health", "ready", "metrics", "get_openapi",
            "docs"} == set(ids)
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", name) for name in ids)
    assert ids["close_conversation"][:2] == ("post", "/v1/users/{user_id}/conversations/{conversation_id}/close")


def test_each_route_lists_only_its_own_errors_with_examples(doc: dict[str, Any]) -> None:
    ids = operations(doc)
    errors = {name: {s for s in op["responses"] if not s.startswith("2")} for name, (_, _, op) in ids.items()}
    assert errors["health"] == errors["get_openapi"] == errors["docs"] == set()
    assert "409" in errors["update_memory"]
    assert {"409", "415", "413"}.isdisjoint(errors["close_conversation"])  # no body
    assert {"404", "409"}.isdisjoint(errors["consolidate"])
    assert "409" not in errors["remember"]
    assert len({frozenset(e) for e in errors.values()}) > 4  # not one list on every route
    for name, (_, _, op) in ids.items():
        assert errors[name] == {str(s) for s in OPERATION_ERRORS[name]}
        for status in errors[name]:
            example = op["responses"][status]["content"]["application/json"]["example"]
            ErrorResponse.model_validate(example)  # each example has the error shape


def test_the_error_schema_states_the_one_details_shape(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    details = schemas["ErrorBody"]["properties"]["details"]
    assert {"type": "array", "items": {"$ref": "#/components/schemas/ErrorDetail"}} in details["anyOf"]
    assert set(schemas["ErrorDetail"]["required"]) == {"field", "reason"}
    assert "HTTPValidationError" not in schemas


def test_the_committed_api_reference_is_up_to_date(service: Mnemo) -> None:
    """docs/api.md is written by `make api-docs`; run it when this fails."""
    current = render(openapi_document(create_app(service), service.settings))
    assert (ROOT / "docs" / "api.md").read_text(encoding="utf-8") == current


def test_swagger_ui_and_the_document_answer_without_a_key(service: Mnemo) -> None:
    app = edge(service)  # with API keys
    status, headers, page = call(app, "GET", "/docs", headers=NO_KEY)
    assert status == 200
    assert headers["Content-Type"].startswith("text/html")
    assert b"SwaggerUIBundle" in page
    assert b'"operationId": "retrieve"' in page
    assert b"https://" not in page.split(b"<style>")[0]  # the UI is inline: no CDN, works offline
    assert call(app, "GET", "/docs?format=json", headers=NO_KEY)[2]["openapi"].startswith("3.1")
    assert call(app, "GET", "/openapi.json", headers=NO_KEY)[0] == 200
    assert call(app, "GET", "/v1/users/u1/memories", headers=NO_KEY)[0] == 401


def test_in_open_mode_the_docs_still_need_a_loopback_host(service: Mnemo) -> None:
    app = edge(service, keys={})
    assert call(app, "GET", "/docs", headers={"Host": "localhost:8080"})[0] == 200
    for path in ("/docs", "/openapi.json"):
        status, _, body = call(app, "GET", path, headers={"Host": "attacker.example"})
        assert status == 400
        assert body["error"]["details"] == [{"field": "host", "reason": body["error"]["message"]}]


# -- item 6: consistent errors
@pytest.mark.parametrize(("method", "path", "allow"), [
    ("GET", "/v1/users/u1/retrieve", "POST"),
    ("DELETE", "/v1/users/u1/turns", "POST"),
    ("PUT", "/v1/users/u1/memories", "GET, POST"),
    ("POST", "/v1/users/u1/profile", "GET, PATCH"),
    ("GET", "/v1/users/u1", "DELETE"),
    ("POST", "/health", "GET"),
    ("POST", "/ready", "GET"),  # the edge's own routes
    ("DELETE", "/metrics", "GET"),
])
def test_a_known_path_with_the_wrong_method_gets_405_with_allow(service: Mnemo, method: str, path: str,
                                                                  allow: str) -> None:
    status, headers, body = call(edge(service), method, path, {"query": "x"} if method != "GET" else None)
    assert (status, headers["Allow"]) == (405, allow)
    assert body["error"]["code"] == "method_not_allowed"


def test_an_unknown_path_is_still_404(service: Mnemo) -> None:
    status, headers, body = call(edge(service), "GET", "/v1/nothing-here")
    assert (status, body["error"]["code"]) == (404, "not_found")
    assert "Allow" not in headers


@pytest.mark.parametrize(("path", "body", "field"), [
    ("/v1/users/u1/retrieve", {"query": "x", "token_budget": 10}, "token_budget"),  # under the schema's minimum
    ("/v1/users/u1/retrieve", {"query": "x", "token_budget": 5000}, "token_budget"),  # over the setting's cap
    ("/v1/users/u1/retrieve", {"query": "x", "top_k": 0}, "top_k"),
    ("/v1/users/u1/memories/import", {"items": [{"content": "I like tea."}] * 501}, "items"),
    ("/v1/users/u1/memories", {"content": "x", "surprise": 1}, "surprise"),
])
def test_every_field_validation_error_is_422_with_a_list_of_field_and_reason(
        service: Mnemo, path: str, body: dict[str, Any], field: str) -> None:
    status, _, answer = call(edge(service), "POST", path, body)
    assert status == 422
    details = answer["error"]["details"]
    assert isinstance(details, list)
    assert details[0]["field"] == field
    assert set(details[0]) == {"field", "reason"}
    assert details[0]["reason"]


def test_errors_the_core_raises_have_the_same_details_shape(service: Mnemo) -> None:
    app = edge(service)
    status, _, body = call(app, "GET", "/v1/users/u1/memories?cursor=bogus")
    assert status == 400
    assert body["error"]["details"] == [{"field": "cursor", "reason": "cursor is not valid"}]
    status, _, body = call(app, "GET", "/v1/users/u1/memories/0123abcd")
    assert status == 404
    assert [d["field"] for d in body["error"]["details"]] == ["memory_id"]


def test_a_body_that_is_not_json_gets_415_and_one_without_a_type_is_read_as_json(service: Mnemo) -> None:
    app = edge(service)
    status, _, body = call(app, "POST", "/v1/users/u1/retrieve", raw=b'{"query": "tea"}',
                           headers={"Content-Type": "application/x-www-form-urlencoded"})  # curl -d's default
    assert (status, body["error"]["code"]) == (415, "unsupported_media_type")
    assert body["error"]["details"] == [{"field": "content-type", "reason": "not application/json"}]
    status, _, _ = call(app, "POST", "/v1/users/u1/retrieve", raw=b'{"query": "tea"}', headers={"Content-Type": ""})
    assert status == 200


def test_close_says_what_it_queued(service: Mnemo) -> None:
    app = edge(service)
    status, _, body = call(app, "POST", "/v1/users/u1/conversations/c1/close")
    assert (status, body["queued"], body["due_at"]) == (202, 0, None)
    messages = [{"role": "user", "content": "I live in Oslo."}, {"role": "assistant", "content": "Nice."}]
    assert call(app, "POST", "/v1/users/u1/turns", {"conversation_id": "c1", "messages": messages})[0] == 202
    status, _, body = call(app, "POST", "/v1/users/u1/conversations/c1/close")
    assert status == 202
    assert (body["accepted"], body["queued"], body["pending"]) == (0, 1, 1)  # user turns, as /turns counts them
    assert body["due_at"] is not None
