"""`mnemo serve`: the local HTTP server. Each request becomes the API Gateway (HTTP API, v2)
event the Lambdas receive, and goes through the very same resolver.
"""

from __future__ import annotations

import base64
import hmac
import ipaddress
import json
import logging
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver

from mnemo.errors import ConfigurationError

log = logging.getLogger("mnemo.server")
DRAIN_LIMIT = 16 * 1024 * 1024


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Authenticator:
    """Bearer keys -> tenant (MNEMO_API_KEYS); with no keys, one tenant `default` on loopback only."""

    def __init__(self, keys: dict[str, str]) -> None:
        self._keys = keys

    @property
    def open(self) -> bool:
        return not self._keys

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


def build_event(method: str, raw_path: str, headers: dict[str, str], body: bytes, tenant_id: str,
                source_ip: str) -> dict[str, Any]:
    """The HTTP API payload format 2.0 event, with the authorizer's tenant in its context."""
    parts = urlsplit(raw_path)
    # API Gateway HTTP APIs hand the function the path percent-decoded; so does this server, so
    # "/v1/users/a%3Ab/..." means user "a:b" in both homes
    path = unquote(parts.path)
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


# no tenant data behind these: they answer without a key, as in the AWS stack
PUBLIC_PATHS = frozenset({"/health", "/openapi.json"})


class _ThreadingServer(ThreadingHTTPServer):
    # the listen backlog: socketserver's default of 5 resets connections when many clients connect at once
    request_queue_size = 128
    daemon_threads = True


class LocalServer:
    def __init__(self, app: APIGatewayHttpResolver, auth: Authenticator, host: str, port: int,
                 max_body_bytes: int) -> None:
        if auth.open and not is_loopback(host):
            raise ConfigurationError("without MNEMO_API_KEYS the server only listens on a loopback address")
        self.app = app
        self.auth = auth
        self.max_body = max_body_bytes
        # Powertools keeps the current event on a class attribute: one resolution at a time.
        self.resolve_lock = threading.Lock()
        handler = self._handler_class()
        self.httpd = _ThreadingServer((host, port), handler)

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.httpd.server_address[:2]
        return str(host), int(port)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body go out in two writes; with Nagle on, the second waits ~40 ms for an ACK
            disable_nagle_algorithm = True
            # a client that connects and says nothing does not hold a thread for ever
            timeout = 60
            server_version = "mnemo"
            sys_version = ""

            def log_message(self, format: str, *args: Any) -> None:
                return  # access logs would carry paths with user ids; structured logs instead

            def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                for name, value in (headers or {}).items():
                    if name.lower() not in {"content-length", "connection"}:
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
                """The stdlib's own errors (bad request line, unknown method) in our JSON shape; a method
                we do not serve is the client's mistake (405), not a server fault (501)."""
                status = 405 if code == 501 else code
                names = {400: "invalid_input", 405: "method_not_allowed", 408: "timeout", 414: "uri_too_long",
                         431: "headers_too_large"}
                self._error(status, names.get(status, "invalid_input"), message or "request refused", close=True)

            def do_HEAD(self) -> None:
                self._error(405, "method_not_allowed", "HEAD is not served; use GET")

            def do_OPTIONS(self) -> None:
                self._error(405, "method_not_allowed", "OPTIONS is not served")

            def _error(self, status: int, code: str, message: str, close: bool = False) -> None:
                body = json.dumps({"error": {"code": code, "message": message, "details": None}}).encode()
                headers = {"Content-Type": "application/json"}
                if close:
                    headers["Connection"] = "close"
                    self.close_connection = True
                if status == 401:
                    headers["WWW-Authenticate"] = "Bearer"
                self._send(status, body, headers)

            def _handle(self) -> None:
                length_header = self.headers.get("Content-Length")
                try:
                    length = int(length_header) if length_header else 0
                except ValueError:
                    self._error(400, "invalid_input", "Content-Length is not a number", close=True)
                    return
                if length < 0:
                    self._error(400, "invalid_input", "Content-Length is negative", close=True)
                    return
                if length > server.max_body:
                    # read (and drop) a moderately large body so the client gets its 413 rather than a
                    # broken pipe; a huge one is cut off
                    if length <= DRAIN_LIMIT:
                        remaining = length
                        while remaining > 0:
                            chunk = self.rfile.read(min(remaining, 65536))
                            if not chunk:
                                break
                            remaining -= len(chunk)
                    self._error(413, "payload_too_large", f"request body exceeds {server.max_body} bytes",
                                close=length > DRAIN_LIMIT)
                    return
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    self._error(411, "length_required", "send a Content-Length", close=True)
                    return
                body = self.rfile.read(length) if length else b""
                tenant = server.auth.tenant_for(self.headers.get("Authorization"))
                path = urlsplit(self.path).path
                if tenant is None and path not in PUBLIC_PATHS:
                    self._error(401, "unauthorized", "missing or unknown API key")
                    return
                headers = {k.lower(): v for k, v in self.headers.items()}
                event = build_event(self.command, self.path, headers, body, tenant or "", self.client_address[0])
                with server.resolve_lock:
                    result = server.app.resolve(event, None)  # type: ignore[arg-type]
                payload = result.get("body") or ""
                raw = base64.b64decode(payload) if result.get("isBase64Encoded") else str(payload).encode()
                out_headers = dict(result.get("headers") or {})
                self._send(int(result.get("statusCode", 500)), raw, out_headers)

            def do_GET(self) -> None:
                self._handle()

            def do_POST(self) -> None:
                self._handle()

            def do_PUT(self) -> None:
                self._handle()

            def do_PATCH(self) -> None:
                self._handle()

            def do_DELETE(self) -> None:
                self._handle()

        return Handler

    def serve_forever(self) -> None:
        self.httpd.serve_forever(poll_interval=0.25)

    def start_background(self) -> threading.Thread:
        thread = threading.Thread(target=self.serve_forever, name="mnemo-http", daemon=True)
        thread.start()
        return thread

    def shutdown(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
