"""The v1 routes (API.md) on a Powertools resolver, shared by the Lambdas and `mnemo serve`."""

from __future__ import annotations

import binascii
import json
import logging
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from pydantic import BaseModel, StringConstraints, TypeAdapter

import mnemo
from mnemo import errors
from mnemo.api.errors import error_response, status_for, validation_details
from mnemo.api.openapi import finish_document
from mnemo.api.schemas import (
    ID_PATTERN,
    Adjustment,
    CloseAccepted,
    ConsolidateRequest,
    ConsolidateResponse,
    CreateMemoryResponse,
    ExportOut,
    FeedbackRequest,
    FeedbackResponse,
    ForgetRequest,
    ForgetResponse,
    Health,
    ImportRequest,
    ImportResponse,
    ImportResult,
    MemoryIn,
    MemoryOut,
    MemoryPage,
    MemoryPatch,
    MemoryWithHistory,
    ProfilePatch,
    RetrieveRequest,
    RetrieveResponse,
    ScoredMemoryOut,
    SearchRequestBody,
    SearchResponse,
    SessionPut,
    SettingsBody,
    SettingsOut,
    TurnsAccepted,
    TurnsRequest,
)
from mnemo.bootstrap import Mnemo
from mnemo.domain.models import Category, Profile, RetrievalTrace, SessionState, SourceKind, Status
from mnemo.domain.ranking import Scored
from mnemo.domain.sensitive import secret_in_id
from mnemo.domain.text import sentence_parts
from mnemo.services.facts import fact_from_api
from mnemo.services.ingest import IncomingMessage
from mnemo.services.user_control import MemoryEdit
from mnemo.settings import Settings

log = logging.getLogger("mnemo.api")

UserId = Annotated[str, Path(pattern=ID_PATTERN, description="the chat app's id for its end user")]
MemoryId = Annotated[str, Path(pattern=r"^[A-Za-z0-9-]{1,64}$")]


def documented(model: type[BaseModel], status: int = 200, description: str = "success") -> dict[int, Any]:
    """A route's success response; its errors are added from one table (mnemo.api.openapi)."""
    return {status: {"description": description, "content": {"application/json": {"model": model}}}}


def reply(model: BaseModel, status: int = 200) -> Response[str]:
    """Serialise with pydantic-core: the resolver would re-validate the model and walk it in Python,
    a cost that showed in the retrieve latency benchmark (tests/bench/latency.py)."""
    return Response(status, "application/json", model.model_dump_json())


def scored_out(s: Scored) -> ScoredMemoryOut:
    """A ranked memory for the response, from plain values (see ``MemoryOut.fields_of``)."""
    return ScoredMemoryOut.model_validate({
        **MemoryOut.fields_of(s.memory), "score": round(s.score, 4), "relevance": round(s.relevance, 4),
        "similarity": round(s.cosine, 4), "lexical": round(s.lexical, 4), "recency": round(s.recency, 4)})


def openapi_document(app: APIGatewayHttpResolver, settings: Settings) -> dict[str, Any]:
    """The OpenAPI document of these routes as this deployment serves it (also written to docs/api.md)."""
    generated = json.loads(app.get_openapi_json_schema(
        title="mnemo", version=mnemo.__version__,
        description="Long-term memory and personalization for chat applications"))
    return finish_document(generated, settings)


def swagger_page(document: str) -> str:
    """Swagger UI over the document, with the UI's script and style inline (Powertools ships them), so
    the page works with no network."""
    from pathlib import Path

    from aws_lambda_powertools.event_handler.openapi import swagger_ui
    from aws_lambda_powertools.event_handler.openapi.swagger_ui.html import generate_swagger_html

    assets = Path(swagger_ui.__file__).parent
    return generate_swagger_html(
        document.replace("</", "<\\/"),  # no "</script>" inside the inline script
        (assets / "swagger-ui-bundle.min.js").read_text(encoding="utf-8"),
        (assets / "swagger-ui.min.css").read_text(encoding="utf-8"),
        "", None, persist_authorization=True)


def allowed_methods(app: APIGatewayHttpResolver, path: str) -> list[str]:
    """The methods served on a path (for 405 and its Allow header); empty when no route matches it.
    Powertools keeps its compiled routes in private attributes and offers no public listing."""
    routes = [*app._static_routes, *app._dynamic_routes]
    return sorted({str(route.method).upper() for route in routes if route.rule.match(path)})


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise ValueError("a number too large for a double")
    return value


def load_json(text: str) -> Any:
    """json.loads, with input it cannot take (nesting deeper than the interpreter's stack, integers
    longer than Python converts) reported as invalid JSON (a 400) rather than escaping as a 500.
    NaN and Infinity are no JSON (RFC 8259), nor is a number that overflows a double (1e400): Python
    reads them as floats, which a free-form field (a session's task_progress) then stored as null."""
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text[:64], 0) from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # "Exceeds the limit (4300 digits) for integer string conversion"
        raise json.JSONDecodeError(type(exc).__name__, text[:64], 0) from None
    if _SURROGATE_ESCAPE.search(text) and _has_lone_surrogate(data):
        # "\udfff" alone is JSON's grammar but no Unicode text (RFC 8259 8.2): Python reads it into a
        # str that no UTF-8 encoder takes, so a metadata or profile value holding one was stored and
        # then failed every read of the user (profile, retrieve, export: 500s until an erase)
        raise json.JSONDecodeError("a lone surrogate escape", text[:64], 0)
    return data


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _has_lone_surrogate(data: Any) -> bool:
    """Whether any string in ``data``, key or value, holds a surrogate json.loads did not pair (a walk
    without recursion: a body may nest as deeply as json.loads itself takes)."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if any("\ud800" <= ch <= "\udfff" for ch in item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def media_type(headers: Any) -> str:
    for name, value in (headers or {}).items():
        if str(name).lower() == "content-type":
            return str(value).split(";", 1)[0].strip().lower()
    return ""


@dataclass(frozen=True)
class Direct:
    """A route the resolver answers without its middleware chain (``MnemoResolver.serve_directly``)."""

    body: type[BaseModel]  # the route's JSON body, as the handler's ``body`` argument
    params: dict[str, TypeAdapter[Any]]  # its path parameters, each with the validator of its annotation
    covers: tuple[Callable[..., Any], ...]  # the resolver's own middlewares this path stands in for
    max_body_bytes: int  # the ``body_limit`` middleware's bound

    def arguments(self, event: Any, route_arguments: dict[str, str]) -> dict[str, Any] | None:
        """The handler's arguments when the request passes every check of the chain; None for anything
        else (a body too large, not JSON, invalid), which the chain then answers with its own error."""
        text = event.body
        if not text or not isinstance(text, str) or event.is_base64_encoded or len(text.encode()) > self.max_body_bytes:
            return None
        try:
            data = load_json(text)
            if not isinstance(data, dict):
                return None
            values = {name: adapter.validate_python(route_arguments[name]) for name, adapter in self.params.items()}
            return {**values, "body": self.body.model_validate(data)}
        except (ValueError, KeyError):  # json.JSONDecodeError and pydantic's ValidationError are ValueErrors
            return None


class MnemoResolver(APIGatewayHttpResolver):
    """The resolver, refusing a body that is not JSON (415) before validation would try to read it
    as a form or fail on it.

    It keeps the event it resolves on itself: Powertools keeps it on ``BaseRouter``, a class attribute
    that every resolver of the process shares, so two threads resolving at once, each with a resolver
    of its own (`mnemo serve --threads`), would read each other's tenant, user and body. Everything
    reads it through ``current_event``; a resolver still serves one request at a time."""

    _own_event: Any = None

    @property
    def current_event(self) -> Any:
        return self._own_event

    @current_event.setter
    def current_event(self, value: Any) -> None:
        self._own_event = value

    def _to_proxy_event(self, event: dict[str, Any]) -> Any:
        proxy = super()._to_proxy_event(event)
        self._own_event = proxy
        return proxy

    _direct: dict[tuple[str, str], Direct] | None = None

    def serve_directly(self, method: str, path: str, direct: Direct) -> None:
        """Answer a valid request of this route without Powertools' middleware chain: its request and response
        validation, and its frames around each middleware, were ~15% of a warm retrieve in a served worker
        (issue 14). The route, the event, the handler, the exception handlers and the response builder stay
        the resolver's, so both homes answer it alike; a request failing any check, or a resolver given other
        middlewares than those ``direct`` covers, goes through the chain, which answers as before."""
        if self._direct is None:
            self._direct = {}
        self._direct[(method.upper(), path)] = direct

    def _call_route(self, route: Any, route_arguments: dict[str, str]) -> Any:
        direct = self._direct.get((route.method, route.path)) if self._direct else None
        arguments = (direct.arguments(self.current_event, route_arguments)
                     if direct is not None and not route.middlewares
                     and tuple(self._router_middlewares) == direct.covers else None)
        if arguments is None:
            return super()._call_route(route, route_arguments)
        try:
            return self._response_builder_class(
                response=self._to_response(route.func(**arguments)),  # type: ignore[arg-type]  # as Powertools'
                serializer=self._serializer, route=route)
        except Exception as exc:  # the handlers the chain would call: MnemoError -> its status, else 500
            handled = self._call_exception_handler(exc, route)
            if handled is None:
                raise
            return handled

    def resolve(self, event: Any, context: Any) -> dict[str, Any]:
        body = event.get("body") if isinstance(event, dict) else None
        kind = media_type(event.get("headers")) if isinstance(event, dict) else ""
        if body and kind not in {"application/json", ""}:
            refused = error_response(415, "unsupported_media_type", "the body must be application/json",
                                     [{"field": "content-type", "reason": "not application/json"}])
            return {"statusCode": 415, "headers": {"Content-Type": "application/json"},
                    "body": refused.body, "isBase64Encoded": False}
        if kind == "application/json":
            # a media type is case-insensitive (RFC 9110), Powertools' parser compares it as written:
            # "APPLICATION/JSON" would pass the check above and then fail there (a 500)
            headers = {name: value for name, value in (event.get("headers") or {}).items()
                       if str(name).lower() != "content-type"}
            event = {**event, "headers": {**headers, "content-type": kind}}
        return super().resolve(event, context)


def request_caps(settings: Settings, contents: list[str], what: str) -> None:
    """Bound the work of one request: sentences to segment and texts to embed (a long memory is
    embedded sentence by sentence)."""
    sentences = embeddings = 0
    for text in contents:
        parts = len(sentence_parts(text))
        sentences += max(parts, 1)
        embeddings += parts or 1
    if sentences > settings.max_request_sentences:
        raise errors.PayloadTooLarge(f"at most {settings.max_request_sentences} sentences per request",
                                     details={"field": what, "reason": f"{sentences} sentences"})
    if embeddings > settings.max_request_embeddings:
        raise errors.PayloadTooLarge(f"at most {settings.max_request_embeddings} embeddings per request",
                                     details={"field": what, "reason": f"{embeddings} texts to embed"})


def screen_ids(ids: dict[str, str | None]) -> None:
    """Ids an app sends are kept in the clear (storage keys, traces) and echoed back: one that carries
    a secret (a card number, a token) is refused naming the field, like any other field a client sends."""
    for name, value in ids.items():
        kind = secret_in_id(value) if value else None
        if kind is not None:
            raise errors.InvalidInput(f"{name} must not carry a secret ({kind})",
                                      details={"field": name, "reason": kind})


def within(prefix: str, exc: errors.MnemoError) -> errors.MnemoError:
    """``exc`` with the fields it names placed under ``prefix`` (an import's item: "items.3.content"),
    so an app can tell which of its items to mend."""
    entries = exc.details if isinstance(exc.details, list) else [exc.details]
    exc.details = [{**entry, "field": f"{prefix}.{entry['field']}"}
                   if isinstance(entry, dict) and entry.get("field") else entry for entry in entries]
    return exc


def create_app(service: Mnemo) -> APIGatewayHttpResolver:
    app = MnemoResolver(enable_validation=True, json_body_deserializer=load_json)
    limit = service.settings.max_body_bytes

    def tenant() -> str:
        context = app.current_event.raw_event.get("requestContext") or {}
        tenant_id = ((context.get("authorizer") or {}).get("lambda") or {}).get("tenant_id")
        if not isinstance(tenant_id, str) or not tenant_id:
            raise errors.Unauthorized("no tenant in the request context")
        return tenant_id

    def body_limit(app: APIGatewayHttpResolver, next_middleware: NextMiddleware) -> Response[Any]:
        body = app.current_event.body or ""
        if len(body.encode() if isinstance(body, str) else body) > limit:
            return error_response(413, "payload_too_large", f"request body exceeds {limit} bytes",
                                  {"field": "body"})
        return next_middleware(app)

    app.use([body_limit])

    # -- errors: one JSON shape, never a stack trace, never input echoed back
    @app.exception_handler(RequestValidationError)
    def _invalid(exc: RequestValidationError) -> Response[str]:
        details = validation_details(exc.errors())
        if details and all(d["reason"] == "body is not valid JSON" for d in details):
            return error_response(400, "invalid_input", "body: body is not valid JSON", details)
        return error_response(422, "invalid_input", f"{details[0]['field']}: {details[0]['reason']}"
                              if details else "invalid input", details)

    @app.exception_handler([UnicodeDecodeError, binascii.Error])
    def _not_text(_exc: Exception) -> Response[str]:
        # API Gateway base64-encodes a body that is not text; the resolver fails decoding it
        return error_response(400, "invalid_input", "body must be UTF-8 JSON",
                              [{"field": "body", "reason": "not UTF-8 text"}])

    @app.exception_handler(errors.MnemoError)
    def _mnemo(exc: errors.MnemoError) -> Response[str]:
        status = status_for(exc)
        if status >= 500:
            log.error("request failed", extra={"error": type(exc).__name__})
        return error_response(status, exc.code, exc.message, exc.details)

    @app.not_found
    def _not_found(_exc: NotFoundError) -> Response[str]:
        allowed = allowed_methods(app, app.current_event.path)
        if allowed:
            method = app.current_event.http_method.upper()
            return error_response(405, "method_not_allowed", f"{method} is not served on this path",
                                  headers={"Allow": ", ".join(allowed)})
        return error_response(404, "not_found", "no such route")

    @app.exception_handler(Exception)
    def _unexpected(exc: Exception) -> Response[str]:
        log.error("unexpected error", extra={"error": type(exc).__name__})
        return error_response(500, "internal", "internal error")

    # -- routes
    @app.get("/health", operation_id="health", tags=["ops"], responses=documented(Health))
    def health() -> Response[str]:
        return reply(Health(status="ok", backend=service.settings.backend, version=mnemo.__version__))

    served: dict[str, str] = {}  # the document and its Swagger UI, built on first request, then served as is

    def document() -> str:
        if "json" not in served:
            served["json"] = json.dumps(openapi_document(app, service.settings))
        return served["json"]

    @app.get("/openapi.json", operation_id="get_openapi", tags=["ops"], summary="This OpenAPI document (no key)",
             responses={200: {"description": "the OpenAPI 3.1 document", "content": {
                 "application/json": {"schema": {"type": "object"}}}}})
    def openapi() -> Response[str]:
        return Response(200, "application/json", document())

    @app.get("/docs", operation_id="docs", tags=["ops"], summary="Swagger UI over this document (no key)",
             responses={200: {"description": "an HTML page", "content": {"text/html": {"schema": {"type": "string"}}}}})
    def docs() -> Response[str]:
        if (app.current_event.query_string_parameters or {}).get("format") == "json":
            return Response(200, "application/json", document())  # the page's own "download" link
        if "html" not in served:
            served["html"] = swagger_page(document())
        return Response(200, "text/html; charset=utf-8", served["html"])

    @app.post("/v1/users/<user_id>/retrieve", operation_id="retrieve",
              tags=["memory"], responses=documented(RetrieveResponse),
              summary="Memories that matter for this query, as a labelled prompt block")
    def retrieve(user_id: UserId, body: RetrieveRequest) -> Response[str]:
        screen_ids({"session_id": body.session_id, "project_id": body.project_id,
                    "conversation_id": body.conversation_id})
        cap = service.settings.token_budget_cap
        if body.token_budget is not None and body.token_budget > cap:
            # the cap is a setting, so not in the static schema: refused like the schema's own minimum
            raise errors.InvalidField(f"token_budget: must be at most {cap}",
                                      details={"field": "token_budget", "reason": f"must be at most {cap}"})
        result = service.retriever.retrieve(
            tenant(), user_id, body.query, top_k=body.top_k or service.settings.default_top_k,
            token_budget=body.token_budget or service.settings.token_budget,
            project_id=body.project_id, session_id=body.session_id, conversation_id=body.conversation_id)
        return reply(RetrieveResponse(
            decision="retrieve" if result.decision == "retrieve" else "skip", reason=result.reason,
            profile=result.profile, memories=[scored_out(s) for s in result.memories],
            conflicts=result.conflicts, pending_confirmations=[MemoryOut.of(m) for m in result.pending],
            context=result.context, tokens=result.tokens, trace_id=result.trace_id))


    @app.post("/v1/users/<user_id>/search", operation_id="search",
              tags=["memory"], responses=documented(SearchResponse),
              summary="Ranked search, no gate, no budget")
    def search(user_id: UserId, body: SearchRequestBody) -> Response[str]:
        screen_ids({"project_id": body.project_id, "session_id": body.session_id})
        found = service.retriever.search(tenant(), user_id, body.query, top_k=body.top_k, category=body.category,
                                         project_id=body.project_id, session_id=body.session_id,
                                         rank_by=body.rank_by)
        return reply(SearchResponse(items=[scored_out(s) for s in found]))

    # the read routes a chat app calls on every turn: a valid request skips the middleware chain, see serve_directly
    user_param = {"user_id": TypeAdapter(Annotated[str, StringConstraints(pattern=ID_PATTERN)])}
    for path, model in (("/v1/users/<user_id>/retrieve", RetrieveRequest),
                        ("/v1/users/<user_id>/search", SearchRequestBody)):
        app.serve_directly("POST", path, Direct(body=model, params=user_param, covers=(body_limit,),
                                                max_body_bytes=limit))

    @app.post("/v1/users/<user_id>/turns", operation_id="add_turns",
              tags=["ingest"], responses=documented(TurnsAccepted, 202, "buffered"),
              summary="Buffer a turn; extraction runs later, debounced")
    def turns(user_id: UserId, body: TurnsRequest) -> Response[str]:
        screen_ids({"conversation_id": body.conversation_id, "project_id": body.project_id,
                    **{f"messages.{i}.message_id": m.message_id for i, m in enumerate(body.messages)}})
        request_caps(service.settings, [m.content for m in body.messages], "messages")
        result = service.ingestor.add_turns(
            tenant(), user_id, body.conversation_id,
            [IncomingMessage(m.role, m.content, m.message_id, m.created_at) for m in body.messages],
            project_id=body.project_id)
        return reply(TurnsAccepted(accepted=result.accepted, pending=result.pending), 202)

    @app.post("/v1/users/<user_id>/conversations/<conversation_id>/close", operation_id="close_conversation",
              tags=["ingest"],
              responses=documented(CloseAccepted, 202, "the pending turns are queued for extraction"),
              summary="Extract what is pending now (session end)")
    def close(user_id: UserId, conversation_id: Annotated[str, Path(pattern=ID_PATTERN)]) -> Response[str]:
        screen_ids({"conversation_id": conversation_id})
        closed = service.ingestor.close(tenant(), user_id, conversation_id)
        return reply(CloseAccepted(accepted=0, pending=closed.queued, queued=closed.queued, due_at=closed.due_at),
                     202)

    @app.post("/v1/users/<user_id>/memories", operation_id="remember", tags=["memories"],
              responses=documented(CreateMemoryResponse, 201, "remembered"), summary="Remember a fact explicitly")
    def create_memory(user_id: UserId, body: MemoryIn) -> Response[str]:
        screen_ids({"project_id": body.project_id, "session_id": body.session_id})
        fact = fact_from_api(body, service.ports.clock.now(), SourceKind.USER_EXPLICIT, default_confidence=1.0,
                             max_chars=service.settings.max_content_chars)
        result = service.writer.write(tenant(), user_id, [fact], actor="api")[0]
        if result.outcome == "rejected" or result.memory is None:
            raise errors.InvalidInput(f"content was not stored: {result.reason}",
                                      details={"field": "content", "reason": result.reason})
        return reply(CreateMemoryResponse(memory=MemoryOut.of(result.memory), outcome=result.outcome,
                                          superseded=result.superseded), 201)

    @app.post("/v1/users/<user_id>/memories/import", operation_id="import_memories",
              tags=["memories"], responses=documented(ImportResponse),
              summary="Bulk load curated memories (at most 500)")
    def import_memories(user_id: UserId, body: ImportRequest) -> Response[str]:
        if len(body.items) > service.settings.max_import_items:
            raise errors.InvalidField(f"items: at most {service.settings.max_import_items} items per import",
                                      details={"field": "items",
                                               "reason": f"at most {service.settings.max_import_items} items"})
        request_caps(service.settings, [item.content for item in body.items], "items")
        screen_ids({f"items.{i}.{name}": getattr(item, name) for i, item in enumerate(body.items)
                    for name in ("project_id", "session_id")})
        now = service.ports.clock.now()
        facts = []
        for i, item in enumerate(body.items):
            try:
                facts.append(fact_from_api(item, now, SourceKind.IMPORTED, default_confidence=0.9,
                                           max_chars=service.settings.max_content_chars))
            except errors.MnemoError as exc:
                raise within(f"items.{i}", exc) from None
        results = service.writer.write(tenant(), user_id, facts, resolve_conflicts=body.resolve_conflicts,
                                       actor="import")
        return reply(ImportResponse(results=[
            ImportResult(memory_id=r.memory.memory_id if r.memory else None, outcome=r.outcome, reason=r.reason)
            for r in results]))

    @app.get("/v1/users/<user_id>/memories", operation_id="list_memories",
             tags=["memories"], responses=documented(MemoryPage),
             summary="List what is remembered")
    def list_memories(
        user_id: UserId,
        status: Annotated[Status | None, Query()] = None,
        category: Annotated[Category | None, Query()] = None,
        limit: Annotated[int, Query(ge=1, le=200)] = 50,
        cursor: Annotated[str | None, Query(max_length=512)] = None,
    ) -> Response[str]:
        # forgotten memories are tombstones without text: never listed
        statuses = [status] if status else [s for s in Status if s is not Status.DELETED]
        page = service.ports.memories.page(tenant(), user_id, statuses=statuses, category=category, limit=limit,
                                           cursor=cursor)
        return reply(MemoryPage(items=[MemoryOut.of(m) for m in page.items], next_cursor=page.next_cursor))

    @app.get("/v1/users/<user_id>/memories/<memory_id>", operation_id="get_memory",
             tags=["memories"], responses=documented(MemoryWithHistory),
             summary="One memory with its history")
    def get_memory(user_id: UserId, memory_id: MemoryId) -> Response[str]:
        tenant_id = tenant()
        memory = service.control.get(tenant_id, user_id, memory_id)
        history = service.ports.memories.history(tenant_id, user_id, memory_id)
        return reply(MemoryWithHistory(**MemoryOut.of(memory).model_dump(), history=history))

    @app.patch("/v1/users/<user_id>/memories/<memory_id>", operation_id="update_memory",
               tags=["memories"], responses=documented(MemoryOut),
               summary="Edit (a new version), confirm a pending memory, disable or re-enable")
    def patch_memory(user_id: UserId, memory_id: MemoryId, body: MemoryPatch) -> Response[str]:
        edited = service.control.edit(tenant(), user_id, memory_id, MemoryEdit(
            content=body.content, category=body.category, status=Status(body.status) if body.status else None,
            version=body.version))
        return reply(MemoryOut.of(edited))

    @app.delete("/v1/users/<user_id>/memories/<memory_id>", operation_id="delete_memory",
                tags=["memories"], summary="Delete one memory",
                responses={204: {"description": "deleted"}})
    def delete_memory(user_id: UserId, memory_id: MemoryId) -> Response[str]:
        service.control.delete(tenant(), user_id, memory_id)
        return Response(204, None, "")

    @app.post("/v1/users/<user_id>/forget", operation_id="forget",
              tags=["memories"], responses=documented(ForgetResponse),
              summary="Forget what matches a description")
    def forget(user_id: UserId, body: ForgetRequest) -> Response[str]:
        return reply(ForgetResponse(forgotten=service.forgetter.forget(tenant(), user_id, body.query)))

    @app.post("/v1/users/<user_id>/feedback", operation_id="feedback",
              tags=["feedback"], responses=documented(FeedbackResponse),
              summary="Thumbs up or down on a retrieval")
    def feedback(user_id: UserId, body: FeedbackRequest) -> Response[str]:
        result = service.feedback.rate(tenant(), user_id, body.trace_id, body.rating, body.comment)
        return reply(FeedbackResponse(adjusted=[Adjustment(memory_id=m, confidence=c) for m, c in result.adjusted],
                                      follow_up=result.follow_up))

    @app.patch("/v1/users/<user_id>/profile", operation_id="update_profile",
               tags=["profile"], responses=documented(Profile),
               summary="Change the profile (named fields become explicit facts)")
    def patch_profile(user_id: UserId, body: ProfilePatch) -> Response[str]:
        # each preference and constraint becomes a memory: the same bound on the request's work as an import
        # (40 items of 2,000 characters were ~3,600 sentences, 12 s of one worker, where the import is a 413)
        request_caps(service.settings, [*(body.preferences or []), *(body.constraints or [])],
                     "constraints" if body.constraints else "preferences")
        return reply(service.control.update_profile(tenant(), user_id, body.model_dump(exclude_unset=True)))

    @app.get("/v1/users/<user_id>/settings", operation_id="get_settings",
             tags=["settings"], responses=documented(SettingsOut),
             summary="The user's memory settings")
    def get_settings(user_id: UserId) -> Response[str]:
        current = service.control.settings(tenant(), user_id)
        return reply(SettingsOut(memory_enabled=current.memory_enabled, updated_at=current.updated_at))

    @app.put("/v1/users/<user_id>/settings", operation_id="update_settings",
             tags=["settings"], responses=documented(SettingsOut),
             summary="Switch memory on or off for the user")
    def put_settings(user_id: UserId, body: SettingsBody) -> Response[str]:
        current = service.control.put_settings(tenant(), user_id, body.memory_enabled)
        return reply(SettingsOut(memory_enabled=current.memory_enabled, updated_at=current.updated_at))

    @app.get("/v1/users/<user_id>/export", operation_id="export_user",
             tags=["users"], summary="Everything held about the user",
             responses=documented(ExportOut))
    def export(user_id: UserId) -> Response[str]:
        return reply(ExportOut.model_validate(service.control.export(tenant(), user_id)))

    @app.delete("/v1/users/<user_id>", operation_id="erase_user",
                tags=["users"], summary="Erase the user, irrecoverably",
                responses={204: {"description": "erased"}})
    def erase(user_id: UserId) -> Response[str]:
        service.control.erase(tenant(), user_id)
        return Response(204, None, "")

    @app.get("/v1/users/<user_id>/sessions/<session_id>", operation_id="get_session",
             tags=["sessions"], responses=documented(SessionState),
             summary="The state of one conversation")
    def get_session(user_id: UserId, session_id: Annotated[str, Path(pattern=ID_PATTERN)]) -> Response[str]:
        screen_ids({"session_id": session_id})
        return reply(service.sessions.get(tenant(), user_id, session_id))

    @app.put("/v1/users/<user_id>/sessions/<session_id>", operation_id="update_session",
             tags=["sessions"], responses=documented(SessionState),
             summary="Set the structured state of one conversation (expires with its TTL)")
    def put_session(user_id: UserId, session_id: Annotated[str, Path(pattern=ID_PATTERN)],
                    body: SessionPut) -> Response[str]:
        screen_ids({"session_id": session_id})
        changes = body.model_dump(exclude_unset=True)
        for name, value in changes.items():
            if value is None:  # an explicit null clears the field
                changes[name] = SessionState.model_fields[name].get_default(call_default_factory=True)
        return reply(service.sessions.update(tenant(), user_id, session_id, changes))

    @app.post("/v1/admin/consolidate", operation_id="consolidate",
              tags=["ops"], responses=documented(ConsolidateResponse),
              summary="Run consolidation now for the tenant (or one user)")
    def consolidate(body: ConsolidateRequest) -> Response[str]:
        report = service.consolidator.run(tenant(), body.user_id)
        return reply(ConsolidateResponse(users=report.users, **vars(report.totals)))

    @app.get("/v1/traces/<trace_id>", operation_id="get_trace", tags=["ops"], responses=documented(RetrievalTrace),
             summary="What one retrieval considered and chose")
    def get_trace(trace_id: Annotated[str, Path(pattern=r"^[a-f0-9]{32}$")]) -> Response[str]:
        trace = service.ports.traces.get(tenant(), trace_id, service.ports.clock.now())
        if trace is None:
            raise errors.NotFound("trace not found", details={"field": "trace_id"})
        return reply(trace)

    @app.get("/v1/users/<user_id>/profile", operation_id="get_profile", tags=["profile"], responses=documented(Profile),
             summary="The compact profile")
    def get_profile(user_id: UserId) -> Response[str]:
        return reply(service.profiles.current(tenant(), user_id))

    return app
