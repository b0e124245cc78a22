"""An HTTP server on 127.0.0.1 that answers OpenSearch's REST subset as an OpenSearch 2.19 domain does.

The adapter reaches it through the real opensearch-py transport and the real SigV4 signer
(``transport()``), so what the client library makes of each answer is what happens on AWS: a
HEAD that gets 404 returns False, an error status raises the client's own exception, a ``_bulk``
can succeed for some items and fail for others. The answers follow OpenSearch: status codes, the
error body ``{"error": {"root_cause": [...], "type", "reason", ...}, "status"}``, the 404 with
``"result": "not_found"`` of a DELETE of a missing document, per-item statuses and ``errors: true``
in ``_bulk``, auto-creation of an index by a write, per-document errors in ``_mget``, routing to
shards, near-real-time search (visible after a refresh), ``_source`` filtering. Every request body
is checked against the OpenSearch API specification; a body that breaks it gets a 400.

Knobs for tests: ``down`` (the domain drops every connection), ``refuse_writes`` (an index write
block, as a full disk or a red index gives), ``fail_items`` (chosen bulk items fail with a status).
``requests`` and ``answers`` record the traffic for checks of the bodies.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from tests.contract import sigv4
from tests.contract.opensearch_indices import FakeIndex, nest
from tests.contract.opensearch_query import Evaluator, QueryError, filter_source
from tests.contract.opensearch_spec import document, problems

REGION = "eu-west-1"
ACCESS_KEY, SECRET_KEY = "AKIAFAKEOPENSEARCH01", "fake-opensearch-secret"
Answer = tuple[int, Any]


def error(status: int, kind: str, reason: str, **extra: Any) -> Answer:
    return failure(status, {"type": kind, "reason": reason, **extra})


def failure(status: int, cause: dict[str, Any]) -> Answer:
    """OpenSearch's error body: the cause, also as the root cause, and the status."""
    return status, {"error": {"root_cause": [cause], **cause}, "status": status}


def index_missing(name: str) -> dict[str, Any]:
    return {"type": "index_not_found_exception", "reason": f"no such index [{name}]", "index": name,
            "resource.id": name, "resource.type": "index_or_alias", "index_uuid": "_na_"}


class FakeOpenSearch:
    def __init__(self, region: str = REGION) -> None:
        self.region = region
        self.indices: dict[str, FakeIndex] = {}
        self.requests: list[tuple[str, str, dict[str, str], Any]] = []
        self.answers: list[tuple[str, str, int, Any]] = []
        self.down = False
        self.refuse_writes = False
        self.fail_items: dict[str, list[tuple[int, str]]] = {}  # document id -> failures still to give
        self._lock = threading.Lock()
        document()  # the 2.8 MB spec loads once, before a first request could wait on it
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.fake = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeOpenSearch:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def transport(self, timeout: float = 60.0, **kwargs: Any) -> Any:
        """The adapter's real transport (opensearch-py + requests + SigV4) pointed at this server.
        The timeout is generous: checking an index body against the spec takes seconds the first time."""
        from botocore.credentials import Credentials

        from mnemo.adapters.aws.opensearch_transport import SignedOpenSearchTransport

        return SignedOpenSearchTransport(self.url, self.region, timeout,
                                         credentials=Credentials(ACCESS_KEY, SECRET_KEY), **kwargs)

    def fail(self, doc_id: str, status: int = 429, kind: str = "es_rejected_execution_exception",
             times: int = 1) -> None:
        """The next ``times`` bulk writes of this document fail with this status and error type."""
        self.fail_items.setdefault(doc_id, []).extend([(status, kind)] * times)

    @property
    def docs(self) -> dict[str, dict[str, Any]]:
        """Every stored document's source by id (what someone with the cluster's disks would read)."""
        with self._lock:
            return {i: d.source for index in self.indices.values() for i, d in index.docs.items()}

    # -- one request
    def handle(self, method: str, target: str, headers: dict[str, str], raw: bytes) -> Answer | None:
        if self.down:
            return None  # the connection drops: the client sees a connection error
        denied = sigv4.problem(method, target, headers, raw, secrets={ACCESS_KEY: SECRET_KEY}, region=self.region)
        if denied:
            return 403, {"message": denied}
        split = urlsplit(target)
        parts = [unquote(p) for p in split.path.strip("/").split("/") if p]
        params = dict(parse_qsl(split.query, keep_blank_values=True))
        path = "/" + "/".join(parts)
        try:
            body = self._body(method, path, headers, raw)
        except QueryError as exc:
            return error(exc.status, exc.kind, exc.reason)
        with self._lock:
            self.requests.append((method, path, params, body))
            try:
                status, answer = self._route(method, parts, params, body)
            except QueryError as exc:
                status, answer = error(exc.status, exc.kind, exc.reason)
            self.answers.append((method, path, status, answer))
        return status, (None if method == "HEAD" else answer)

    def _body(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> Any:
        if not raw:
            return None
        kind = {k.lower(): v for k, v in headers.items()}.get("content-type", "")
        if not kind.startswith(("application/json", "application/x-ndjson")):
            raise QueryError(406, "content_type_exception", f"Content-Type header [{kind}] is not supported")
        text = raw.decode()
        try:
            body = text if path.endswith("/_bulk") else json.loads(text)
            found = problems(method, path, body)
        except ValueError as exc:
            raise QueryError(400, "json_parse_exception", f"Unexpected character: {exc}") from exc
        if found:
            raise QueryError(400, "x_content_parse_exception", "; ".join(found))
        return body

    def _route(self, method: str, parts: list[str], params: dict[str, str], body: Any) -> Answer:
        if parts == ["_bulk"] or parts[1:] == ["_bulk"]:
            return self._bulk(body, parts[0] if len(parts) == 2 else None, params)
        if not parts or parts[0].startswith("_"):
            return 400, {"error": f"no handler found for uri [/{'/'.join(parts)}] and method [{method}]",
                         "status": 400}
        name, rest = parts[0], parts[1:]
        if method == "PUT" and not rest:
            if name in self.indices:
                existing = self.indices[name]
                return error(400, "resource_already_exists_exception",
                             f"index [{name}/{existing.uuid}] already exists", index=name, index_uuid=existing.uuid)
            self.indices[name] = FakeIndex.create(name, body)
            return 200, {"acknowledged": True, "shards_acknowledged": True, "index": name}
        index = self.indices.get(name)
        if method == "HEAD" and not rest:
            return (200 if index else 404), None
        if rest == ["_mget"]:
            return self._mget(name, index, params, body)
        if index is None:
            return failure(404, index_missing(name))
        routings = params["routing"].split(",") if "routing" in params else None
        match method, rest:
            case "DELETE", []:
                del self.indices[name]
                return 200, {"acknowledged": True}
            case "GET", ["_mapping"]:
                return 200, {name: {"mappings": index.mappings}}
            case "GET", ["_settings"]:
                return 200, {name: {"settings": nest(index.settings)}}
            case "PUT", ["_settings"]:
                index.put_settings(body)
                return 200, {"acknowledged": True}
            case "POST", ["_refresh"]:
                index.refresh(force=True)
                return 200, {"_shards": {"total": index.shards, "successful": index.shards, "failed": 0}}
            case ("GET" | "POST"), ["_search"]:
                return 200, self._search(index, routings, body or {}, params)
            case ("GET" | "POST"), ["_count"]:
                docs = index.searchable(routings)
                found = Evaluator(index.fields(), docs).pool((body or {}).get("query", {"match_all": {}}))
                return 200, {"count": len(found), "_shards": _shards(index, routings)}
            case "POST", ["_delete_by_query"]:
                return 200, self._delete_by_query(index, routings, body, params)
            case "DELETE", ["_doc", doc_id]:
                return self._delete(index, doc_id, params)
        return 405, {"error": f"Incorrect HTTP method for uri [/{'/'.join(parts)}] and method [{method}]",
                     "status": 405}

    # -- writes
    def _write_blocked(self, index: FakeIndex) -> dict[str, Any] | None:
        if not self.refuse_writes:
            return None
        return {"type": "cluster_block_exception",
                "reason": f"index [{index.name}] blocked by: [FORBIDDEN/8/index write (api)];"}

    def _bulk(self, body: str, default_index: str | None, params: dict[str, str]) -> Answer:
        lines = [json.loads(line) for line in body.split("\n") if line.strip()]
        items: list[dict[str, Any]] = []
        touched: set[str] = set()
        started = time.monotonic()
        position = 0
        while position < len(lines):
            action, meta = next(iter(lines[position].items()))
            source = lines[position + 1] if action != "delete" else None
            position += 1 if action == "delete" else 2
            name = meta.get("_index", default_index)
            items.append({action: self._bulk_item(action, name, meta, source, touched)})
        if params.get("refresh") in ("", "true", "wait_for"):
            for name in touched:
                self.indices[name].refresh(force=True)
        return 200, {"took": int((time.monotonic() - started) * 1000), "errors": any(
            "error" in next(iter(i.values())) for i in items), "items": items}

    def _bulk_item(self, action: str, name: str, meta: dict[str, Any], source: dict[str, Any] | None,
                   touched: set[str]) -> dict[str, Any]:
        doc_id, routing = str(meta.get("_id")), meta.get("routing")
        failed = {"_index": name, "_id": doc_id}
        index = self.indices.get(name)
        if index is None:
            if action == "delete":
                return {**failed, "status": 404, "error": index_missing(name)}
            index = self.indices[name] = FakeIndex.create(name, None)  # auto-created, dynamic mapping
        base = {"_index": name, "_id": doc_id}
        planned = self.fail_items.get(doc_id)
        if planned:
            status, kind = planned.pop(0)
            return {**base, "status": status, "error": {"type": kind, "reason": f"injected failure ({kind})",
                                                        "index": name, "index_uuid": index.uuid}}
        blocked = self._write_blocked(index)
        if blocked:
            return {**base, "status": 403, "error": blocked}
        if index.routing_required and routing is None:
            return {**base, "status": 400, "error": {"type": "routing_missing_exception",
                                                     "reason": f"routing is required for [{name}]/[{doc_id}]"}}
        touched.add(name)
        shards = {"total": 2, "successful": 1, "failed": 0}
        if action == "delete":
            gone = index.remove(doc_id)
            return {**base, "_version": gone.version + 1 if gone else 1, "result": "deleted" if gone else "not_found",
                    "_shards": shards, "_seq_no": index.seq_no, "_primary_term": 1, "status": 200 if gone else 404}
        assert source is not None
        try:
            index.check_document(doc_id, source)
        except QueryError as exc:
            return {**base, "status": exc.status, "error": {"type": exc.kind, "reason": exc.reason}}
        if action == "create" and doc_id in index.docs:
            return {**base, "status": 409, "error": {"type": "version_conflict_engine_exception",
                                                     "reason": f"[{doc_id}]: version conflict, document already "
                                                               "exists"}}
        result, doc = index.write(doc_id, source, routing)
        return {**base, "_version": doc.version, "result": result, "_shards": shards, "_seq_no": doc.seq_no,
                "_primary_term": 1, "status": 201 if result == "created" else 200}

    def _delete(self, index: FakeIndex, doc_id: str, params: dict[str, str]) -> Answer:
        routing = params.get("routing")
        if index.routing_required and routing is None:
            return error(400, "routing_missing_exception", f"routing is required for [{index.name}]/[{doc_id}]")
        blocked = self._write_blocked(index)
        if blocked:
            return failure(403, blocked)
        doc = index.docs.get(doc_id)
        on_shard = doc is not None and index.shard(doc.routing, doc_id) == index.shard(routing, doc_id)
        gone = index.remove(doc_id) if on_shard else None
        if params.get("refresh") in ("", "true", "wait_for"):
            index.refresh(force=True)
        answer = {"_index": index.name, "_id": doc_id, "_version": gone.version + 1 if gone else 1,
                  "result": "deleted" if gone else "not_found", "_shards": {"total": 2, "successful": 1, "failed": 0},
                  "_seq_no": index.seq_no, "_primary_term": 1}
        return (200 if gone else 404), answer

    def _delete_by_query(self, index: FakeIndex, routings: list[str] | None, body: dict[str, Any],
                         params: dict[str, str]) -> dict[str, Any]:
        started = time.monotonic()
        found = Evaluator(index.fields(), index.searchable(routings)).pool(body["query"])
        blocked = self._write_blocked(index)
        failures = []
        deleted = 0
        for doc_id in found:
            if blocked:
                failures.append({"index": index.name, "id": doc_id, "cause": blocked, "status": 403})
            elif index.remove(doc_id) is not None:
                deleted += 1
        if params.get("refresh") in ("", "true"):
            index.refresh(force=True)
        return {"took": int((time.monotonic() - started) * 1000), "timed_out": False, "total": len(found),
                "deleted": deleted, "batches": 1 if found else 0, "version_conflicts": 0, "noops": 0,
                "retries": {"bulk": 0, "search": 0}, "throttled_millis": 0, "requests_per_second": -1.0,
                "throttled_until_millis": 0, "failures": failures}

    # -- reads
    def _mget(self, name: str, index: FakeIndex | None, params: dict[str, str], body: dict[str, Any]) -> Answer:
        wanted = [{"_id": i} for i in body.get("ids", [])] + list(body.get("docs", []))
        docs = []
        for entry in wanted:
            doc_id = str(entry["_id"])
            routing = entry.get("routing", params.get("routing"))
            if index is None:
                docs.append({"_index": name, "_id": doc_id, "error": {"root_cause": [index_missing(name)],
                                                                      **index_missing(name)}})
                continue
            if index.routing_required and routing is None:
                docs.append({"_index": name, "_id": doc_id, "error": {
                    "type": "routing_missing_exception", "reason": f"routing is required for [{name}]/[{doc_id}]"}})
                continue
            doc = index.docs.get(doc_id)  # a get is real-time: no refresh needed
            if doc is None or index.shard(doc.routing, doc_id) != index.shard(routing, doc_id):
                docs.append({"_index": name, "_id": doc_id, "found": False})
                continue
            found: dict[str, Any] = {"_index": name, "_id": doc_id, "_version": doc.version, "_seq_no": doc.seq_no,
                                     "_primary_term": 1, "found": True}
            if doc.routing is not None:
                found["_routing"] = doc.routing
            source = filter_source(doc.source, _source_spec(entry.get("_source"), params))
            if source is not None:
                found["_source"] = source
            docs.append(found)
        return 200, {"docs": docs}

    def _search(self, index: FakeIndex, routings: list[str] | None, body: dict[str, Any],
                params: dict[str, str]) -> dict[str, Any]:
        started = time.monotonic()
        docs = index.searchable(routings)
        evaluator = Evaluator(index.fields(), docs)
        query = body.get("query", {"match_all": {}})
        scored = evaluator.score(query)
        size, offset = int(body.get("size", params.get("size", 10))), int(body.get("from", 0))
        answer: dict[str, Any] = {"took": 0, "timed_out": False, "_shards": _shards(index, routings)}
        sort_values: dict[str, list[Any]] = {}
        if body.get("sort"):
            rows = evaluator.sort([i for _, i in scored], body["sort"], body.get("search_after"))
            scores = {i: s for s, i in scored}
            sort_values = dict(rows)
            scored = [(scores[i], i) for i, _ in rows]
        elif "search_after" in body:
            raise QueryError(400, "illegal_argument_exception", "Sort must contain at least one field.")
        hits = []
        spec = _source_spec(body.get("_source"), params)
        for score, doc_id in scored[offset: offset + size]:
            doc = index.visible[doc_id]
            hit: dict[str, Any] = {"_index": index.name, "_id": doc_id,
                                   "_score": None if sort_values else score}
            if doc.routing is not None:
                hit["_routing"] = doc.routing
            source = filter_source(doc.source, spec)
            if source is not None:
                hit["_source"] = source
            if sort_values:
                hit["sort"] = sort_values[doc_id]
            hits.append(hit)
        answer["hits"] = {"total": {"value": len(scored), "relation": "eq"},
                          "max_score": None if sort_values or not scored else max(s for s, _ in scored), "hits": hits}
        if "aggs" in body or "aggregations" in body:
            aggregations = body.get("aggs") or body.get("aggregations")
            answer["aggregations"] = {}
            for agg_name, agg in aggregations.items():
                if set(agg) != {"composite"}:
                    raise QueryError(400, "parsing_exception", "the fake runs composite aggregations only")
                answer["aggregations"][agg_name] = evaluator.composite(agg["composite"], [i for _, i in scored])
        answer["took"] = int((time.monotonic() - started) * 1000)
        return answer


def _shards(index: FakeIndex, routings: list[str] | None) -> dict[str, int]:
    total = index.shards if routings is None else len({index.shard(r, "") for r in routings})
    return {"total": total, "successful": total, "skipped": 0, "failed": 0}


def _source_spec(body_spec: Any, params: dict[str, str]) -> Any:
    if body_spec is not None:
        return body_spec
    if params.get("_source") in ("false", "true"):
        return params["_source"] == "true"
    includes = [p for p in params.get("_source_includes", params.get("_source", "")).split(",") if p]
    excludes = [p for p in params.get("_source_excludes", "").split(",") if p]
    return {"includes": includes, "excludes": excludes} if includes or excludes else None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the client's connection pool expects

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        fake: FakeOpenSearch = self.server.fake  # type: ignore[attr-defined]
        answer = fake.handle(self.command, self.path, dict(self.headers.items()), raw)
        if answer is None:
            self.close_connection = True
            return
        status, body = answer
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json; charset=UTF-8")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _serve  # noqa: N815 - the names the base class calls

    def log_message(self, format: str, *args: Any) -> None:
        pass


def running() -> Iterator[FakeOpenSearch]:
    """A started fake, closed afterwards (for fixtures)."""
    fake = FakeOpenSearch()
    try:
        yield fake
    finally:
        fake.close()
