"""The query subset the adapter emits, evaluated as OpenSearch 2.19 evaluates it (for the HTTP fake).

Scores follow OpenSearch: faiss inner product -> 1 + ip (ip >= 0) or 1 / (1 - ip); a nested knn
query with ``score_mode: max`` scores a document by its best nested vector; ``match`` -> Lucene's
BM25 (no (k1 + 1) factor since Lucene 8) with the field's similarity parameters and statistics of
the shard searched. Dates are milliseconds since the epoch, as the ``date`` type stores them (sort
values come back as numbers). Anything outside the subset is a ``QueryError``, never a silent match.
"""

from __future__ import annotations

import fnmatch
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cmp_to_key
from typing import Any

import numpy as np


class QueryError(Exception):
    """A request OpenSearch would refuse: status, error type and reason as in its error body."""

    def __init__(self, status: int, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.kind, self.reason = status, kind, reason


@dataclass
class Field:
    type: str
    dimension: int = 0
    k1: float = 1.2
    b: float = 0.75


def millis(value: Any) -> int:
    if isinstance(value, int | float):
        return int(value)
    moment = datetime.fromisoformat(str(value))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)  # the date type keeps milliseconds


def ip_score(ip: float) -> float:
    return 1.0 + ip if ip >= 0 else 1.0 / (1.0 - ip)


class Evaluator:
    """Evaluates one request body over the documents of the shards a request reaches."""

    def __init__(self, fields: Mapping[str, Field], docs: Mapping[str, dict[str, Any]]) -> None:
        self._fields = fields
        self._docs = docs

    def _field(self, name: str) -> Field:
        return self._fields.get(name) or Field("unmapped")

    def _value(self, doc: dict[str, Any], name: str) -> Any:
        value = doc.get(name)
        if value is not None and self._field(name).type == "date":
            return millis(value)
        return value

    # -- filters
    def matches(self, doc: dict[str, Any], query: dict[str, Any]) -> bool:
        if len(query) != 1:
            raise QueryError(400, "parsing_exception", "a query object holds exactly one query")
        kind, spec = next(iter(query.items()))
        if kind == "match_all":
            return True
        if kind in ("term", "terms", "range"):
            if len(spec) != 1:
                raise QueryError(400, "parsing_exception", f"[{kind}] query does not support multiple fields")
            name, arg = next(iter(spec.items()))
            value = self._value(doc, name)
            if kind == "term":
                wanted = arg["value"] if isinstance(arg, dict) else arg
                return value is not None and value == self._coerce(name, wanted)
            if kind == "terms":
                return value is not None and value in [self._coerce(name, v) for v in arg]
            if value is None:
                return False
            ops = {"gt": value.__gt__, "gte": value.__ge__, "lt": value.__lt__, "lte": value.__le__}
            return all(ops[op](self._coerce(name, bound)) for op, bound in arg.items())
        if kind == "exists":
            return doc.get(spec["field"]) is not None
        if kind == "ids":
            return doc.get("_id") in spec["values"]
        if kind == "bool":
            unknown = set(spec) - {"filter", "must", "must_not", "should", "minimum_should_match"}
            if unknown:
                raise QueryError(400, "parsing_exception", f"[bool] query does not support {sorted(unknown)}")
            ok = all(self.matches(doc, q) for q in _list(spec.get("filter")) + _list(spec.get("must")))
            ok = ok and not any(self.matches(doc, q) for q in _list(spec.get("must_not")))
            should = _list(spec.get("should"))
            if should:
                default = 0 if spec.get("filter") or spec.get("must") else 1
                ok = ok and sum(self.matches(doc, q) for q in should) >= spec.get("minimum_should_match", default)
            return ok
        if kind == "match":
            name, text = next(iter(spec.items()))
            return bool(set(str(text).split()) & set(str(doc.get(name) or "").split()))
        raise QueryError(400, "parsing_exception", f"unknown query [{kind}] (not in the fake's subset)")

    def _coerce(self, name: str, value: Any) -> Any:
        return millis(value) if self._field(name).type == "date" else value

    def pool(self, query: dict[str, Any]) -> list[str]:
        check(query)
        return [i for i, d in self._docs.items() if self.matches(d, query)]

    # -- scoring
    def score(self, query: dict[str, Any]) -> list[tuple[float, str]]:
        """(score, id) of every hit, best first (ties by id, as a stable shard order would give)."""
        check(query)
        if "knn" in query:
            name, spec = next(iter(query["knn"].items()))
            self._check_vector(name, spec["vector"])
            ids = self.pool(spec.get("filter", {"match_all": {}}))
            scored = [(ip_score(float(np.dot(self._docs[i][name], spec["vector"]))), i) for i in ids]
            return _best(scored)[: spec["k"]]
        if "nested" in query:
            nested = query["nested"]
            if set(nested["query"]) != {"knn"}:
                raise QueryError(400, "parsing_exception", "the fake evaluates nested knn queries only")
            name, spec = next(iter(nested["query"]["knn"].items()))
            path, leaf = name.rsplit(".", 1)
            if path != nested["path"] or self._field(path).type != "nested":
                raise QueryError(400, "query_shard_exception", f"[nested] failed to find nested object under "
                                                               f"path [{nested['path']}]")
            self._check_vector(name, spec["vector"])
            scored = []
            for i in self.pool(spec.get("filter", {"match_all": {}})):
                children = self._docs[i].get(path) or []
                if children:
                    scores = [ip_score(float(np.dot(c[leaf], spec["vector"]))) for c in children]
                    reduce = {"max": max, "avg": lambda s: sum(s) / len(s), "sum": sum, "min": min}
                    scored.append((reduce[nested.get("score_mode", "avg")](scores), i))
            return _best(scored)[: spec["k"]]
        if "bool" in query and query["bool"].get("must"):
            musts = query["bool"]["must"]
            if len(musts) != 1 or "match" not in musts[0]:
                raise QueryError(400, "parsing_exception", "the fake scores one match query inside bool.must")
            name, text = next(iter(musts[0]["match"].items()))
            ids = self.pool({"bool": {k: v for k, v in query["bool"].items() if k != "must"}})
            return _best([(s, i) for i, s in self._bm25(name, ids, str(text).split()).items() if s > 0])
        return [(0.0 if "bool" in query and "filter" in query["bool"] else 1.0, i) for i in self.pool(query)]

    def _check_vector(self, name: str, vector: list[float]) -> None:
        field = self._field(name)
        if field.type != "knn_vector":
            raise QueryError(400, "query_shard_exception",
                             f"failed to create query: Field '{name}' is not knn_vector type.")
        if len(vector) != field.dimension:
            raise QueryError(400, "query_shard_exception", f"failed to create query: Query vector has invalid "
                                                           f"dimension: {len(vector)}. Dimension should be: "
                                                           f"{field.dimension}")

    def _bm25(self, name: str, ids: list[str], query: list[str]) -> dict[str, float]:
        field = self._field(name)
        if field.type != "text":
            raise QueryError(400, "query_shard_exception", f"the fake scores match on text fields, not [{name}]")
        # collection statistics are the shard's, over every document with the field (other users too)
        having_field = {i: str(d[name]).split() for i, d in self._docs.items() if d.get(name)}
        n = len(having_field) or 1
        avg = sum(len(t) for t in having_field.values()) / n or 1.0
        scores: dict[str, float] = {}
        for term in set(query):
            freq = sum(1 for t in having_field.values() if term in t)
            if not freq:
                continue
            idf = math.log(1 + (n - freq + 0.5) / (freq + 0.5))
            for i in ids:
                tokens = having_field.get(i, [])
                tf = Counter(tokens)[term]
                if tf:
                    norm = field.k1 * (1 - field.b + field.b * len(tokens) / avg)
                    scores[i] = scores.get(i, 0.0) + idf * tf / (tf + norm)
        return scores

    # -- sort, paging and aggregations
    def sort(self, ids: list[str], sort: list[Any], after: list[Any] | None) -> list[tuple[str, list[Any]]]:
        keys: list[tuple[str, bool]] = []
        for entry in sort:
            name, spec = (entry, {}) if isinstance(entry, str) else next(iter(entry.items()))
            order = spec.get("order", "asc") if isinstance(spec, dict) else spec
            keys.append((name, order == "desc"))
        rows = [(i, [self._value(self._docs[i], name) for name, _ in keys]) for i in ids]
        desc = [down for _, down in keys]
        rows.sort(key=cmp_to_key(lambda x, y: _compare(x[1], y[1], desc)))
        if after is not None:
            if len(after) != len(keys):
                raise QueryError(400, "illegal_argument_exception", "search_after has "
                                 f"{len(after)} value(s) but sort has {len(keys)}.")
            bound = [self._coerce(name, v) for (name, _), v in zip(keys, after, strict=True)]
            rows = [r for r in rows if _compare(r[1], bound, desc) > 0]
        return rows

    def composite(self, spec: dict[str, Any], ids: list[str]) -> dict[str, Any]:
        if len(spec["sources"]) != 1:
            raise QueryError(400, "parsing_exception", "the fake runs composite aggregations on one source")
        name, source = next(iter(spec["sources"][0].items()))
        field = source["terms"]["field"]
        counts = Counter(self._docs[i][field] for i in ids if self._docs[i].get(field) is not None)
        keys = sorted(counts)
        if "after" in spec:
            keys = [k for k in keys if k > spec["after"][name]]
        keys = keys[: spec.get("size", 10)]
        out: dict[str, Any] = {"buckets": [{"key": {name: k}, "doc_count": counts[k]} for k in keys]}
        if keys:
            out["after_key"] = {name: keys[-1]}
        return out


KINDS = {"match_all", "term", "terms", "range", "exists", "ids", "bool", "match", "knn", "nested"}


def check(query: dict[str, Any]) -> None:
    """The whole query is in the subset, also the parts no document reaches (OpenSearch parses it all)."""
    if not isinstance(query, dict) or len(query) != 1:
        raise QueryError(400, "parsing_exception", "a query object holds exactly one query")
    kind, spec = next(iter(query.items()))
    if kind not in KINDS:
        raise QueryError(400, "parsing_exception", f"unknown query [{kind}] (not in the fake's subset)")
    if kind == "bool":
        for clause in ("filter", "must", "must_not", "should"):
            for inner in _list(spec.get(clause)):
                check(inner)
    elif kind == "knn":
        for field_spec in spec.values():
            if "filter" in field_spec:
                check(field_spec["filter"])
    elif kind == "nested":
        check(spec["query"])


def _best(scored: list[tuple[float, str]]) -> list[tuple[float, str]]:
    return sorted(scored, key=lambda s: (-s[0], s[1]))


def _compare(a: list[Any], b: list[Any], desc: list[bool]) -> int:
    """Sort order of two rows of sort values: missing values last in either direction, as OpenSearch."""
    for x, y, down in zip(a, b, desc, strict=True):
        if x == y:
            continue
        if x is None or y is None:
            return 1 if x is None else -1
        return (1 if x > y else -1) * (-1 if down else 1)
    return 0


def _list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def filter_source(source: dict[str, Any], spec: Any) -> dict[str, Any] | None:
    """``_source`` as a search or get asks for it: false, a list of includes, or includes/excludes."""
    if spec is None or spec is True:
        return source
    if spec is False:
        return None
    includes: list[str]
    excludes: list[str]
    if isinstance(spec, str | list):
        includes, excludes = _list(spec), []
    else:
        includes, excludes = _list(spec.get("includes")), _list(spec.get("excludes"))
    if not includes and not any(c in p for p in excludes for c in "*?[."):
        return {k: v for k, v in source.items() if k not in excludes}  # the common case, without pattern matching
    return _filter(source, "", includes, excludes)


def _filter(value: dict[str, Any], prefix: str, includes: list[str], excludes: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in value.items():
        path = f"{prefix}{key}"
        if any(fnmatch.fnmatchcase(path, pattern) for pattern in excludes):
            continue
        included = not includes or any(fnmatch.fnmatchcase(path, p) for p in includes)
        deeper = [p for p in includes if p.startswith(path + ".")]
        if isinstance(item, dict):
            if included or deeper:
                out[key] = _filter(item, path + ".", [] if included else includes, excludes)
        elif isinstance(item, list) and item and all(isinstance(x, dict) for x in item):
            if included or deeper:
                out[key] = [_filter(x, path + ".", [] if included else includes, excludes) for x in item]
        elif included:
            out[key] = item
    return out

