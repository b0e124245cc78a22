"""An in-memory stand-in for OpenSearch that executes exactly the query subset the adapter emits.

It also records every request, so tests can check the bodies (routing present, filter inside knn).
Scores follow OpenSearch: faiss inner product -> 1 + ip (ip >= 0) or 1 / (1 - ip); match -> BM25.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from datetime import datetime
from typing import Any

import numpy as np


class FakeOpenSearch:
    def __init__(self) -> None:
        self.docs: dict[str, dict[str, Any]] = {}  # _id -> source
        self.routing: dict[str, str] = {}
        self.requests: list[tuple[str, str, dict[str, str], Any]] = []
        self.indices: set[str] = set()
        self.down = False  # every request fails, as when the domain is unreachable
        self.refuse_writes = False  # searches work, bulk writes fail (a red cluster, a full disk)

    # -- transport
    def request(self, method: str, path: str, *, params: dict[str, str] | None = None,
                body: Any = None) -> dict[str, Any]:
        params = params or {}
        self.requests.append((method, path, params, body))
        writing = method in ("PUT", "DELETE") or path.endswith(("/_bulk", "/_delete_by_query"))
        if self.down or (self.refuse_writes and writing):
            from mnemo.errors import BackendUnavailable

            raise BackendUnavailable("OpenSearch request failed")
        parts = path.strip("/").split("/")
        if method == "POST" and path == "/_bulk":
            return self._bulk(body)
        if parts[-1] == "_search":
            return self._search(body or {}, params.get("routing"))
        if parts[-1] == "_mget":
            return {"docs": [{"_id": i, "found": i in self.docs,
                              **({"_source": self.docs[i]} if i in self.docs else {})} for i in body["ids"]]}
        if parts[-1] == "_count":
            return {"count": len(self._matching(body["query"], params.get("routing")))}
        if parts[-1] == "_delete_by_query":
            doomed = self._matching(body["query"], params.get("routing"))
            for doc_id in doomed:
                self.docs.pop(doc_id, None)
            return {"deleted": len(doomed)}
        if method == "DELETE" and "_doc" in parts:
            found = self.docs.pop(parts[-1], None)
            return {"result": "deleted" if found else "not_found"}
        if method == "PUT" and len(parts) == 1:
            self.indices.add(parts[0])
            return {"acknowledged": True}
        if method == "HEAD" and len(parts) == 1:
            if parts[0] not in self.indices:
                from mnemo.errors import BackendUnavailable

                raise BackendUnavailable("404 index_not_found_exception")
            return {}
        raise AssertionError(f"unexpected request {method} {path}")

    def _bulk(self, body: str) -> dict[str, Any]:
        lines = [json.loads(line) for line in body.strip().split("\n")]
        for action, source in zip(lines[::2], lines[1::2], strict=True):
            meta = action["index"]
            assert meta.get("routing"), "every write is routed"
            self.docs[meta["_id"]] = source
            self.routing[meta["_id"]] = meta["routing"]
        return {"errors": False, "items": []}

    # -- queries
    def _matching(self, query: dict[str, Any], routing: str | None) -> list[str]:
        return [i for i, d in self.docs.items() if (routing is None or self.routing[i] == routing) and _match(d, query)]

    def _search(self, body: dict[str, Any], routing: str | None) -> dict[str, Any]:
        query = body.get("query", {"match_all": {}})
        size = body.get("size", 10)
        if "aggs" in body:
            return self._aggs(body)
        scored: list[tuple[float, str]] = []
        if "knn" in query:
            spec = query["knn"]["embedding"]
            for doc_id in self._matching(spec.get("filter", {"match_all": {}}), routing):
                ip = float(np.dot(self.docs[doc_id]["embedding"], spec["vector"]))
                scored.append((_ip_score(ip), doc_id))
            scored = sorted(scored, reverse=True)[: spec["k"]]
        elif "nested" in query:
            spec = query["nested"]["query"]["knn"]["parts.vector"]
            for doc_id in self._matching(spec.get("filter", {"match_all": {}}), routing):
                parts = self.docs[doc_id].get("parts") or []
                if parts:
                    best = max(float(np.dot(p["vector"], spec["vector"])) for p in parts)
                    scored.append((_ip_score(best), doc_id))
            scored = sorted(scored, reverse=True)[: spec["k"]]
        elif "bool" in query and query["bool"].get("must"):
            text = query["bool"]["must"][0]["match"]["terms"]
            pool = self._matching({"bool": {"filter": query["bool"].get("filter", [])}}, routing)
            scored = sorted(((s, i) for i, s in _bm25(self.docs, pool, text.split()).items() if s > 0), reverse=True)
        else:
            ids = self._matching(query, routing)
            if body.get("sort"):
                keys = [(next(iter(s)), next(iter(s.values()))["order"]) for s in body["sort"]]
                ids.sort(key=lambda i: tuple(self.docs[i][k] or "" for k, _ in keys), reverse=keys[0][1] == "desc")
                if "search_after" in body:
                    after = tuple(body["search_after"])
                    desc = keys[0][1] == "desc"
                    ids = [i for i in ids if (tuple(self.docs[i][k] for k, _ in keys) < after) == desc
                           and tuple(self.docs[i][k] for k, _ in keys) != after]
            scored = [(1.0, i) for i in ids]
        hits = [{"_id": i, "_score": s, "_source": self.docs[i],
                 **({"sort": [self.docs[i][next(iter(k))] for k in body["sort"]]} if body.get("sort") else {})}
                for s, i in scored[:size]]
        return {"hits": {"total": {"value": len(hits)}, "hits": hits}}

    def _aggs(self, body: dict[str, Any]) -> dict[str, Any]:
        composite = body["aggs"]["values"]["composite"]
        field = next(iter(composite["sources"][0]))
        values = sorted({d[field] for i, d in self.docs.items() if _match(d, body["query"])})
        if "after" in composite:
            values = [v for v in values if v > composite["after"][field]]
        values = values[: composite["size"]]
        buckets = [{"key": {field: v}, "doc_count": 1} for v in values]
        return {"aggregations": {"values": {"buckets": buckets,
                                            **({"after_key": {field: values[-1]}} if values else {})}}}


def _ip_score(ip: float) -> float:
    return 1.0 + ip if ip >= 0 else 1.0 / (1.0 - ip)


def _match(doc: dict[str, Any], query: dict[str, Any]) -> bool:
    kind, spec = next(iter(query.items()))
    if kind == "match_all":
        return True
    if kind == "term":
        field, value = next(iter(spec.items()))
        return bool(doc.get(field) == value)
    if kind == "terms":
        field, values = next(iter(spec.items()))
        return doc.get(field) in values
    if kind == "exists":
        return doc.get(spec["field"]) is not None
    if kind == "range":
        field, bounds = next(iter(spec.items()))
        value = doc.get(field)
        if value is None:
            return False
        moment = datetime.fromisoformat(value)
        return all(_compare(moment, op, datetime.fromisoformat(b)) for op, b in bounds.items())
    if kind == "bool":
        ok = all(_match(doc, q) for q in spec.get("filter", []) + spec.get("must", []))
        ok = ok and not any(_match(doc, q) for q in spec.get("must_not", []))
        if spec.get("should"):
            ok = ok and sum(_match(doc, q) for q in spec["should"]) >= spec.get("minimum_should_match", 1)
        return ok
    raise AssertionError(f"query {kind} is not in the subset the adapter should emit")


def _compare(a: datetime, op: str, b: datetime) -> bool:
    return {"gt": a > b, "gte": a >= b, "lt": a < b, "lte": a <= b}[op]


def _bm25(docs: dict[str, dict[str, Any]], pool: list[str], query: list[str], k1: float = 1.2,
          b: float = 0.75) -> dict[str, float]:
    tokens = {i: docs[i]["terms"].split() for i in pool}
    n = len(pool) or 1
    avg = sum(len(t) for t in tokens.values()) / n or 1.0
    scores: dict[str, float] = {}
    for term in set(query):
        having = [i for i in pool if term in tokens[i]]
        if not having:
            continue
        idf = math.log(1 + (n - len(having) + 0.5) / (len(having) + 0.5))
        for i in having:
            tf = Counter(tokens[i])[term]
            scores[i] = scores.get(i, 0.0) + idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(tokens[i]) / avg))
    return scores
