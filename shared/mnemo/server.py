"""The HTTP edge of `mnemo serve`: a WSGI application that turns each request into the API Gateway
(HTTP API, v2) event the Lambdas receive and hands it to the very same resolver.

Around the resolver it does what API Gateway and its authorizer do in AWS (authentication, the
tenant in the request context, body limits, throttling) and what a production service needs
(readiness, Prometheus metrics, structured access logs without bodies). The process model
(workers, background jobs, shutdown) lives in `mnemo.serving`.
"""

from __future__ import annotations

import base64
import hmac
import ipaddress
import json
import logging
import os
import queue
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver

from mnemo.quotas import TenantQuotas

log = logging.getLogger("mnemo.server")
access = logging.getLogger("mnemo.access")
DRAIN_LIMIT = 16 * 1024 * 1024

StartResponse = Callable[[str, list[tuple[str, str]]], Any]
# `/mcp` (mnemo.mcp_server.http): method, lower-cased headers, body, query -> status, headers, body
McpHandler = Callable[[str, dict[str, str], bytes, str], tuple[int, list[tuple[str, str]], bytes]]


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_name(header: str) -> str:
    """The host part of a Host header: "[::1]:8080" -> "::1", "localhost:80" -> "localhost"."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else ""
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class Authenticator:
    """Bearer keys -> tenant (MNEMO_API_KEYS); with no keys, one tenant `default` on loopback only."""

    def __init__(self, keys: dict[str, str]) -> None:
        self._keys = keys

    @property
    def open(self) -> bool:
        return not self._keys

    @property
    def tenants(self) -> list[str]:
        return ["default"] if self.open else sorted(set(self._keys.values()))

    def tenant_for(self, authorization: str | None) -> str | None:
        if self.open:
            return "default"
        if not authorization or not authorization.lower().startswith("bearer "):
            return None
        offered = authorization[7:].strip()
        for key, tenant in self._keys.items():
            if hmac.compare_digest(key.encode(), offered.encode()):
                return tenant
        return None


def routing_path(raw_path: str) -> str:
    """The path the resolver matches, from the raw (still percent-encoded) one.

    API Gateway hands the function a percent-decoded path, so "/v1/users/a%3Ab/..." means user
    "a:b" in both homes. Decoding the whole path first would let "%2F" split a segment
    ("a%2Fmemories%2Fx" becoming three segments and another route); so each segment is decoded on
    its own, and a slash inside one stays encoded, where the id patterns refuse it.
    """
    return "/".join(unquote(segment).replace("/", "%2F") for segment in raw_path.split("/"))


def build_event(method: str, raw_path: str, headers: dict[str, str], body: bytes, tenant_id: str,
                source_ip: str) -> dict[str, Any]:
    """The HTTP API payload format 2.0 event, with the authorizer's tenant in its context."""
    parts = urlsplit(raw_path)
    path = routing_path(parts.path)
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    text: str | None
    try:
        text = body.decode("utf-8") if body else None
        encoded = False
    except UnicodeDecodeError:
        text, encoded = base64.b64encode(body).decode(), True
    now = time.time()
    return {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": parts.query,
        "headers": headers,
        "queryStringParameters": query or None,
        "requestContext": {
            "accountId": "local", "apiId": "local", "domainName": "localhost", "domainPrefix": "localhost",
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": source_ip,
                     "userAgent": headers.get("user-agent", "")},
            "requestId": uuid.uuid4().hex, "routeKey": "$default", "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)), "timeEpoch": int(now * 1000),
            "authorizer": {"lambda": {"tenant_id": tenant_id}},
        },
        "body": text,
        "isBase64Encoded": encoded,
    }


# the POST routes that only read: they keep their worker's place in the accepting (mnemo.write_reserve), as
# every GET does; an unmatched route is refused at once
READ_ROUTES = frozenset({"/v1/users/<user_id>/retrieve", "/v1/users/<user_id>/search", "unmatched"})
# no tenant data behind these: they answer without a key, as in the AWS stack
PUBLIC_PATHS = frozenset({"/health", "/ready", "/openapi.json", "/docs"})
SERVED_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE"})
# the methods named in metrics and logs; any other is "other": a method is the client's text, and each
# distinct one was a new label value in /metrics (unbounded, and without a key)
LABELLED_METHODS = SERVED_METHODS | {"HEAD", "OPTIONS"}


class Reply:
    def __init__(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.body = body
        self.headers = headers or {}


def error_reply(status: int, code: str, message: str, field: str | None = None,
                headers: dict[str, str] | None = None) -> Reply:
    details = [{"field": field, "reason": message}] if field else None
    body = json.dumps({"error": {"code": code, "message": message, "details": details}}).encode()
    return Reply(status, body, {"Content-Type": "application/json", **(headers or {})})


class RouteLabels:
    """The route template of a request (for metrics and logs: never the path, which holds user ids)."""

    def __init__(self, app: APIGatewayHttpResolver) -> None:
        # the resolver's compiled routes (private attributes: Powertools offers no public listing)
        self._routes = [(r.method, r.rule, r.path) for r in [*app._static_routes, *app._dynamic_routes]]

    def __call__(self, method: str, path: str) -> str:
        for route_method, rule, template in self._routes:
            if route_method == method and rule.match(path):
                return str(template)
        return "unmatched"


class ResolverPool:
    """Resolvers of one service, each used by one request at a time: Powertools keeps the current
    event on the resolver, so threads serving requests at once each take one of their own. As many
    as the worker has request threads, so a request never waits here."""

    def __init__(self, resolvers: Sequence[APIGatewayHttpResolver]) -> None:
        self._free: queue.SimpleQueue[APIGatewayHttpResolver] = queue.SimpleQueue()
        for resolver in resolvers:
            self._free.put(resolver)

    def resolve(self, event: dict[str, Any]) -> dict[str, Any]:
        resolver = self._free.get()
        try:
            return resolver.resolve(event, None)  # type: ignore[arg-type]
        finally:
            self._free.put(resolver)


class OneSegment(list[bytes]):
    """An answer's body that lets its head and body leave together: gunicorn writes the head, then the body,
    each with its own send, and each woke the client (a reader of the head that then waits for the body) and,
    on a busy machine, handed it the core the worker was on. The connection is corked while gunicorn writes
    and uncorked when it closes the body, after the last write, so the whole answer goes out at once."""

    _sock: socket.socket | None = None

    @classmethod
    def around(cls, sock: object, body: Iterable[bytes]) -> Iterable[bytes]:
        if not isinstance(sock, socket.socket) or sock.family not in {socket.AF_INET, socket.AF_INET6}:
            return body  # in-process calls, unix sockets: nothing to cork
        if not cls._cork(sock, True):
            return body
        held = cls(body)
        held._sock = sock
        return held

    @staticmethod
    def _cork(sock: socket.socket, on: bool) -> bool:
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, int(on))
        except (OSError, AttributeError):  # not Linux, or the client is gone
            return False
        return True

    def close(self) -> None:
        """Called by the server once the answer is written (WSGI): what the cork held goes out now."""
        if self._sock is not None:
            self._cork(self._sock, False)
            self._sock = None


class WsgiApp:
    """One worker's application: its resolvers (one per request thread, see ResolverPool) behind the
    edge's own steps."""

    def __init__(self, app: APIGatewayHttpResolver, auth: Authenticator, *, max_body_bytes: int,
                 quotas: TenantQuotas | None = None, ready: Callable[[], str | None] | None = None,
                 metrics_db: Path | None = None, metrics_key: str = "", access_log: bool = True,
                 mcp: Callable[[], McpHandler] | None = None, server_timing: bool = False,
                 resolvers: ResolverPool | None = None, step_aside: Callable[[], None] | None = None,
                 before_request: Callable[[], None] | None = None,
                 after_request: Callable[[], None] | None = None) -> None:
        self.app = app
        # the worker's own steps before and after each request (drop what it caches of users another worker
        # erased; after: of users erased while the request ran, see mnemo.services.user_caches)
        self.before_request = before_request
        self.after_request = after_request
        # a write hands this worker's accepting to its reserve process (mnemo.write_reserve)
        self.step_aside = step_aside
        self.resolvers = resolvers or ResolverPool([app])
        # when each request in progress started, by thread: the request timeout's watchdog reads it
        self.in_flight: dict[int, float] = {}
        self._mcp_factory = mcp  # built on the first `/mcp` request: the SDK stays unloaded until then
        self._mcp: McpHandler | None = None
        self.auth = auth
        self.max_body = max_body_bytes
        self.quotas = quotas if quotas is not None and quotas.enabled else None
        self.ready = ready
        self.metrics_db = metrics_db
        self.metrics_key = metrics_key
        self.access_log = access_log
        self.server_timing = server_timing
        self.labels = RouteLabels(app)
        self._observe: Callable[[str, str, int, float], None] | None = None
        self._throttled: Callable[[str, str], None] | None = None
        if metrics_db is not None:
            from mnemo import metrics

            def observe(method: str, route: str, status: int, seconds: float) -> None:
                metrics.REQUESTS.labels(method=method, route=route, status=str(status)).observe(seconds)

            def throttled(tenant: str, reason: str) -> None:
                metrics.THROTTLED.labels(tenant=tenant, reason=reason).inc()

            self._observe, self._throttled = observe, throttled

    def oldest_request_seconds(self) -> float:
        """How long the longest request in progress has run (0 when none)."""
        starts = list(self.in_flight.values())
        return time.perf_counter() - min(starts) if starts else 0.0

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        started = time.perf_counter()
        thread = threading.get_ident()
        self.in_flight[thread] = started
        try:
            return OneSegment.around(environ.get("gunicorn.socket"), self._answer(environ, start_response, started))
        finally:
            self.in_flight.pop(thread, None)

    def _answer(self, environ: dict[str, Any], start_response: StartResponse, started: float) -> Iterable[bytes]:
        method = str(environ.get("REQUEST_METHOD", "GET")).upper()
        raw_uri = str(environ.get("RAW_URI") or environ.get("PATH_INFO") or "/")
        path = routing_path(urlsplit(raw_uri).path)
        tenant = ""
        try:
            reply, tenant, route = self._serve(environ, method, raw_uri, path)
        except Exception as exc:  # the resolver maps every error; this is the edge's own last resort
            log.error("request failed at the edge", extra={"error": type(exc).__name__})
            reply, route = error_reply(500, "internal", "internal error"), "unmatched"
        headers = [(k, v) for k, v in reply.headers.items() if k.lower() not in {"content-length", "connection"}]
        headers.append(("Content-Length", str(len(reply.body))))
        elapsed = time.perf_counter() - started
        if self.server_timing:
            headers.append(("Server-Timing", f"app;dur={elapsed * 1000:.2f}"))
        start_response(f"{reply.status} {HTTPStatus(reply.status).phrase}", headers)
        label = method if method in LABELLED_METHODS else "other"
        if self._observe is not None:
            self._observe(label, route, reply.status, elapsed)
        if self.access_log:
            access.info("request", extra={
                "method": label, "route": route, "status": reply.status, "ms": round(elapsed * 1000, 2),
                "tenant": tenant, "bytes_in": int(environ.get("CONTENT_LENGTH") or 0),
                "bytes_out": len(reply.body), "worker": os.getpid()})
        return [reply.body]

    # -- the steps of one request
    def _serve(self, environ: dict[str, Any], method: str, raw_uri: str, path: str) -> tuple[Reply, str, str]:
        self._step(self.before_request, "before")
        try:
            return self._steps(environ, method, raw_uri, path)
        finally:
            self._step(self.after_request, "after")

    @staticmethod
    def _step(step: Callable[[], None] | None, when: str) -> None:
        if step is None:
            return
        try:
            step()
        except Exception as exc:  # a busy store: the next request looks again; this one is served
            log.warning("a step around the request failed", extra={"error": type(exc).__name__, "when": when})

    def _steps(self, environ: dict[str, Any], method: str, raw_uri: str, path: str) -> tuple[Reply, str, str]:
        if self.auth.open and not is_loopback(host_name(str(environ.get("HTTP_HOST", "")))):
            # DNS rebinding: a page on attacker.example resolving to 127.0.0.1 sends its own Host
            return error_reply(400, "invalid_host", "without API keys only a loopback Host is served",
                               "host"), "", "unmatched"
        if method not in SERVED_METHODS:
            return error_reply(405, "method_not_allowed", f"{method} is not served",
                               headers={"Allow": "GET, POST, PUT, PATCH, DELETE"}), "", "unmatched"
        if path == "/ready" and method == "GET":
            return self._readiness(), "", "/ready"
        if path == "/metrics" and method == "GET":
            return self._metrics(environ), "", "/metrics"
        if path in {"/ready", "/metrics"}:  # the edge's own routes: 405 as the resolver answers for its own
            return error_reply(405, "method_not_allowed", f"{method} is not served on this path",
                               headers={"Allow": "GET"}), "", path
        authorization = environ.get("HTTP_AUTHORIZATION")
        tenant = self.auth.tenant_for(authorization)
        if tenant is None and path not in PUBLIC_PATHS:
            return error_reply(401, "unauthorized", "missing or unknown API key",
                               headers={"WWW-Authenticate": "Bearer"}), "", "unmatched"
        route = "/mcp" if path == "/mcp" and self._mcp_factory is not None else self.labels(method, path)
        if self.step_aside is not None and method != "GET" and route not in READ_ROUTES:
            self.step_aside()  # before its body is read: an import's body takes a while to arrive
        body = self._body(environ)
        if isinstance(body, Reply):
            return body, tenant or "", route
        ticket = None
        if self.quotas is not None and tenant is not None and path not in PUBLIC_PATHS:
            refused, ticket = self.quotas.admit(tenant)
            if refused is not None:
                if self._throttled is not None:
                    self._throttled(tenant, refused.reason)
                what = "requests a second" if refused.reason == "rate" else "requests at once"
                return error_reply(429, "throttled", f"too many {what} for this tenant; retry later",
                                   headers={"Retry-After": str(refused.retry_after)}), tenant, route
        try:
            if route == "/mcp":
                return self._serve_mcp(environ, method, raw_uri, body), tenant or "", route
            return self._resolve(environ, method, raw_uri, body, tenant or ""), tenant or "", route
        finally:
            if self.quotas is not None:
                self.quotas.release(ticket)

    def _body(self, environ: dict[str, Any]) -> bytes | Reply:
        if "chunked" in str(environ.get("HTTP_TRANSFER_ENCODING", "")).lower():
            return error_reply(411, "length_required", "send a Content-Length", "content-length")
        length = int(environ.get("CONTENT_LENGTH") or 0)  # the server has checked it is a plain number
        stream = environ["wsgi.input"]
        if length > self.max_body:
            # read (and drop) a moderately large body so the client gets its 413 rather than a broken
            # pipe; a huge one is cut off with the connection
            try:
                remaining = length if length <= DRAIN_LIMIT else 0
                while remaining > 0:
                    chunk = stream.read(min(remaining, 65536))
                    if not chunk:
                        break
                    remaining -= len(chunk)
            except TimeoutError:
                pass  # the 413 all the same
            return error_reply(413, "payload_too_large", f"request body exceeds {self.max_body} bytes", "body")
        try:
            return stream.read(length) if length else b""
        except TimeoutError:  # the client stopped sending before the end of its body (the read timeout)
            return error_reply(408, "request_timeout", "the request body did not arrive in time", "body")

    @staticmethod
    def _headers(environ: dict[str, Any]) -> dict[str, str]:
        headers = {key[5:].replace("_", "-").lower(): str(value) for key, value in environ.items()
                   if key.startswith("HTTP_")}
        if environ.get("CONTENT_TYPE"):
            headers["content-type"] = str(environ["CONTENT_TYPE"])
        if environ.get("CONTENT_LENGTH"):
            headers["content-length"] = str(environ["CONTENT_LENGTH"])
        return headers

    def _serve_mcp(self, environ: dict[str, Any], method: str, raw_uri: str, body: bytes) -> Reply:
        if self._mcp is None:
            assert self._mcp_factory is not None
            self._mcp = self._mcp_factory()
        status, headers, out = self._mcp(method, self._headers(environ), body, urlsplit(raw_uri).query)
        return Reply(status, out, dict(headers))

    def _resolve(self, environ: dict[str, Any], method: str, raw_uri: str, body: bytes, tenant: str) -> Reply:
        headers = self._headers(environ)
        event = build_event(method, raw_uri, headers, body, tenant, str(environ.get("REMOTE_ADDR", "")))
        result = self.resolvers.resolve(event)
        payload = result.get("body") or ""
        raw = base64.b64decode(payload) if result.get("isBase64Encoded") else str(payload).encode()
        return Reply(int(result.get("statusCode", 500)), raw, dict(result.get("headers") or {}))

    def _readiness(self) -> Reply:
        problem = self.ready() if self.ready is not None else None
        if problem:
            return error_reply(503, "not_ready", problem)
        return Reply(200, b'{"status":"ready"}', {"Content-Type": "application/json"})

    def _metrics(self, environ: dict[str, Any]) -> Reply:
        offered = str(environ.get("HTTP_AUTHORIZATION", ""))
        keyed = bool(self.metrics_key) and hmac.compare_digest(offered.encode(), f"Bearer {self.metrics_key}".encode())
        if not keyed and not is_loopback(str(environ.get("REMOTE_ADDR", ""))):
            return error_reply(401, "unauthorized", "metrics need MNEMO_METRICS_KEY from a non-loopback address",
                               headers={"WWW-Authenticate": "Bearer"})
        if self.metrics_db is None:
            return error_reply(404, "not_found", "no such route")
        from mnemo import metrics

        return Reply(200, metrics.render(self.metrics_db), {"Content-Type": metrics.CONTENT_TYPE})


def call_wsgi(app: WsgiApp, method: str, path: str, body: bytes = b"",
              headers: dict[str, str] | None = None, remote: str = "127.0.0.1") -> tuple[int, dict[str, str], bytes]:
    """One request through the WSGI application in this process, as gunicorn would hand it over
    (the demo, whose manual clock must be shared with the service, and tests of the edge)."""
    import io

    raw_path, _, query = path.partition("?")
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method, "RAW_URI": path, "PATH_INFO": unquote(raw_path), "QUERY_STRING": query,
        "CONTENT_LENGTH": str(len(body)) if body else "", "wsgi.input": io.BytesIO(body),
        "REMOTE_ADDR": remote, "HTTP_HOST": "localhost", "CONTENT_TYPE": "application/json" if body else "",
    }
    for name, value in (headers or {}).items():
        key = name.upper().replace("-", "_")
        environ[key if key in {"CONTENT_TYPE", "CONTENT_LENGTH"} else f"HTTP_{key}"] = value
    answer: dict[str, Any] = {}

    def start_response(status: str, response_headers: list[tuple[str, str]]) -> None:
        answer["status"], answer["headers"] = int(status.split(maxsplit=1)[0]), dict(response_headers)

    out = b"".join(app(environ, start_response))
    return answer["status"], answer["headers"], out
