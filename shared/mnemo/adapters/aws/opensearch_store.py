"""Semantic memory on a managed OpenSearch domain (DESIGN.md section 5), behind the MemoryStore port.

One index; faiss HNSW with inner product on unit vectors; every write and search routed to
``tenant:user`` so one user's memories live on one shard; the tenant/user/status/expiry/scope
filter inside ``knn.embedding.filter`` (efficient filtering, exact below ~5,300 docs per user).
Memory text is sealed with the user's key, so lexical relevance runs on keyed hashes of the terms
(a whitespace-analysed field): BM25 server-side without plaintext, destroyed with the user's key.
Long memories keep their sentence vectors as nested documents; a nested knn query scores a memory
by its best sentence. Versions (history) live in DynamoDB. Fusion and re-ranking happen in the
service, as in the embedded home.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

import numpy as np

from mnemo.adapters.aws.dynamo_state import DynamoTable, pk
from mnemo.clock import iso
from mnemo.crypto import UserCipher
from mnemo.domain.models import Category, Memory, MemoryVersion, Scope, Status
from mnemo.domain.ranking import Hit
from mnemo.errors import InvalidInput
from mnemo.ports import Page, SearchRequest, Vector

INDEXED = ["active", "probationary", "pending"]


class Transport(Protocol):
    """The one call the adapter makes; opensearch-py's transport in AWS, a fake in tests."""

    def request(self, method: str, path: str, *, params: dict[str, str] | None = None,
                body: Any = None) -> dict[str, Any]: ...


def index_body(dimension: int, shards: int = 4, replicas: int = 1) -> dict[str, Any]:
    """The index: strict mapping, faiss HNSW inner product, routing required (also used by the CDK custom resource)."""
    vector = {"type": "knn_vector", "dimension": dimension,
              "method": {"name": "hnsw", "engine": "faiss", "space_type": "innerproduct",
                         "parameters": {"m": 16, "ef_construction": 128}}}
    keyword = {"type": "keyword"}
    return {
        "settings": {"index": {"knn": True, "number_of_shards": shards, "number_of_replicas": replicas},
                     "analysis": {"analyzer": {"hashed_terms": {"type": "custom", "tokenizer": "whitespace"}}}},
        "mappings": {
            "dynamic": "strict",
            "_routing": {"required": True},
            "properties": {
                "tenant_id": keyword, "user_id": keyword, "memory_id": keyword, "scope": keyword,
                "project_id": keyword, "session_id": keyword, "category": keyword, "status": keyword,
                "subject_hash": keyword, "fingerprint": keyword, "confidence": {"type": "float"},
                "version": {"type": "integer"}, "created_at": {"type": "date"}, "updated_at": {"type": "date"},
                "expires_at": {"type": "date"}, "sealed": {"type": "binary"},
                "terms": {"type": "text", "analyzer": "hashed_terms", "similarity": "BM25"},
                "embedding": vector,
                "parts": {"type": "nested", "properties": {"vector": vector}},
            },
        },
    }


def ensure_index(transport: Transport, index: str, dimension: int, shards: int = 4, replicas: int = 1) -> str:
    """Create the index if it is missing (idempotent): run at deploy time by the CDK custom resource.

    Returns "created" or "exists". A new mapping field is added with a PUT _mapping by a later
    migration; the embedding dimension is fixed for the life of an index (a new model means a new
    index and a re-embed job).
    """
    from mnemo.errors import BackendUnavailable

    try:
        transport.request("HEAD", f"/{index}")
        return "exists"
    except BackendUnavailable:
        transport.request("PUT", f"/{index}", body=index_body(dimension, shards, replicas))
        return "created"


class OpenSearchMemoryStore:
    def __init__(self, transport: Transport, index: str, cipher: UserCipher, history: DynamoTable,
                 dimension: int) -> None:
        self._http = transport
        self._index = index
        self._cipher = cipher
        self._history = history
        self._dimension = dimension

    def on_index(self, index: str, dimension: int, shards: int = 4, replicas: int = 1) -> OpenSearchMemoryStore:
        """The same store over another index, created if missing: the target of a re-embed job
        when a new model changes the dimension (the version history stays in DynamoDB, shared)."""
        ensure_index(self._http, index, dimension, shards, replicas)
        return OpenSearchMemoryStore(self._http, index, self._cipher, self._history, dimension)

    # -- documents
    @staticmethod
    def _routing(tenant_id: str, user_id: str) -> str:
        return f"{tenant_id}:{user_id}"

    def _document(self, m: Memory, vector: Vector, parts: Vector | None) -> dict[str, Any]:
        sealed = self._cipher.seal(m.tenant_id, m.user_id, m.memory_id, "memory",
                                   m.model_dump_json(exclude={"embedding", "part_embeddings"}).encode())
        doc: dict[str, Any] = {
            "tenant_id": m.tenant_id, "user_id": m.user_id, "memory_id": m.memory_id, "scope": m.scope.value,
            "project_id": m.project_id, "session_id": m.session_id, "category": m.category.value,
            "status": m.status.value,
            "subject_hash": self._cipher.keyed_hash(m.tenant_id, m.user_id, "subject:" + m.subject),
            "fingerprint": self._cipher.fingerprint(m.tenant_id, m.user_id, m.content), "confidence": m.confidence,
            "version": m.version, "created_at": iso(m.created_at), "updated_at": iso(m.updated_at),
            "expires_at": iso(m.expires_at), "sealed": base64.b64encode(sealed).decode(),
            "terms": " ".join(self._cipher.term_hashes(m.tenant_id, m.user_id, m.content)),
            "embedding": [float(x) for x in vector],
        }
        if parts is not None and len(parts):
            doc["parts"] = [{"vector": [float(x) for x in row]} for row in parts]
        return doc

    def _open(self, source: dict[str, Any], with_vector: bool = False) -> Memory:
        memory = Memory.model_validate_json(self._cipher.open(
            source["tenant_id"], source["user_id"], source["memory_id"], "memory", base64.b64decode(source["sealed"])))
        if with_vector and "embedding" in source:
            memory.embedding = list(source["embedding"])
        return memory

    def _search(self, tenant_id: str, user_id: str, body: dict[str, Any]) -> list[dict[str, Any]]:
        result = self._http.request("POST", f"/{self._index}/_search",
                                    params={"routing": self._routing(tenant_id, user_id)}, body=body)
        hits: list[dict[str, Any]] = result["hits"]["hits"]
        return hits

    def _owner_filter(self, tenant_id: str, user_id: str) -> list[dict[str, Any]]:
        return [{"term": {"tenant_id": tenant_id}}, {"term": {"user_id": user_id}}]

    # -- port
    def get(self, tenant_id: str, user_id: str, memory_id: str) -> Memory | None:
        found = self.get_many(tenant_id, user_id, [memory_id])
        return found[0] if found else None

    def get_many(self, tenant_id: str, user_id: str, memory_ids: Sequence[str]) -> list[Memory]:
        if not memory_ids:
            return []
        result = self._http.request("POST", f"/{self._index}/_mget",
                                    params={"routing": self._routing(tenant_id, user_id)},
                                    body={"ids": [self._doc_id(tenant_id, user_id, i) for i in memory_ids]})
        out = []
        for doc in result["docs"]:
            source = doc.get("_source") if doc.get("found") else None
            # an id of another tenant or user is simply not found: the document id carries the owner
            if source and source["tenant_id"] == tenant_id and source["user_id"] == user_id:
                out.append(self._open(source, with_vector=True))
        return out

    @staticmethod
    def _doc_id(tenant_id: str, user_id: str, memory_id: str) -> str:
        return f"{tenant_id}:{user_id}:{memory_id}"

    def save(self, memories: Sequence[Memory], history: Sequence[MemoryVersion] = ()) -> None:
        if not memories and not history:
            return
        by_id = {m.memory_id: m for m in memories}
        lines: list[str] = []
        for m in memories:
            vector, parts = self._vectors_for(m)
            doc_id = self._doc_id(m.tenant_id, m.user_id, m.memory_id)
            lines.append(json.dumps({"index": {"_index": self._index, "_id": doc_id,
                                               "routing": self._routing(m.tenant_id, m.user_id)}}))
            lines.append(json.dumps(self._document(m, vector, parts)))
        rows = []
        for h in history:
            if h.memory_id not in by_id:
                raise InvalidInput("a version must be saved together with its memory")
            owner = by_id[h.memory_id]
            sealed = self._cipher.seal(owner.tenant_id, owner.user_id, f"{h.memory_id}#{h.version}", "version",
                                       h.model_dump_json().encode())
            rows.append({"pk": {"S": pk(owner.tenant_id, owner.user_id)},
                         "sk": {"S": f"VERSION#{h.memory_id}#{h.version:06d}"}, "sealed": {"B": sealed}})
        if lines:
            result = self._http.request("POST", "/_bulk", params={"refresh": "wait_for"},
                                        body="\n".join(lines) + "\n")
            if result.get("errors"):
                from mnemo.errors import BackendUnavailable

                raise BackendUnavailable("OpenSearch refused part of a bulk write")
        # the versions only once their memories are written: a failed write leaves no orphan version
        # behind, and a retry writes the same rows again (same keys)
        for row in rows:
            self._history.put(row)

    def _vectors_for(self, m: Memory) -> tuple[Vector, Vector | None]:
        if m.embedding is not None:
            parts = np.asarray(m.part_embeddings, dtype=np.float32).reshape(-1, self._dimension) \
                if m.part_embeddings else None
            return np.asarray(m.embedding, dtype=np.float32), parts
        hits = self._search(m.tenant_id, m.user_id, {"size": 1, "query": {"bool": {"filter": [
            *self._owner_filter(m.tenant_id, m.user_id), {"term": {"memory_id": m.memory_id}}]}}})
        if not hits:
            raise InvalidInput("a new memory must be embedded before it is saved")
        source = hits[0]["_source"]
        parts = np.asarray([p["vector"] for p in source.get("parts", [])], dtype=np.float32) \
            if source.get("parts") else None
        return np.asarray(source["embedding"], dtype=np.float32), parts

    def by_subject(self, tenant_id: str, user_id: str, subjects: Sequence[str]) -> list[Memory]:
        hashes = [self._cipher.keyed_hash(tenant_id, user_id, "subject:" + s) for s in subjects]
        hits = self._search(tenant_id, user_id, {"size": 100, "query": {"bool": {"filter": [
            *self._owner_filter(tenant_id, user_id), {"terms": {"subject_hash": hashes}},
            {"terms": {"status": INDEXED}}]}}})
        return [self._open(h["_source"], with_vector=True) for h in hits]

    def by_fingerprint(self, tenant_id: str, user_id: str, content: str) -> list[Memory]:
        fingerprint = self._cipher.fingerprint(tenant_id, user_id, content)
        hits = self._search(tenant_id, user_id, {"size": 100, "query": {"bool": {
            "filter": [*self._owner_filter(tenant_id, user_id), {"term": {"fingerprint": fingerprint}}],
            "must_not": [{"term": {"status": "deleted"}}]}}})
        return [self._open(h["_source"], with_vector=True) for h in hits]

    def similar(self, tenant_id: str, user_id: str, vector: Vector, limit: int) -> list[tuple[Memory, float]]:
        body = {"size": limit, "query": {"knn": {"embedding": {
            "vector": [float(x) for x in vector], "k": limit,
            "filter": {"bool": {"filter": [*self._owner_filter(tenant_id, user_id),
                                           {"terms": {"status": INDEXED}}]}}}}}}
        return [(self._open(h["_source"]), _cosine(h["_score"])) for h in self._search(tenant_id, user_id, body)]

    def _live_filter(self, tenant_id: str, user_id: str, request: SearchRequest) -> dict[str, Any]:
        scope: list[dict[str, Any]] = [{"term": {"scope": Scope.USER.value}}]
        if request.project_id:
            scope.append({"bool": {"filter": [{"term": {"scope": "project"}},
                                              {"term": {"project_id": request.project_id}}]}})
        if request.session_id:
            scope.append({"bool": {"filter": [{"term": {"scope": "session"}},
                                              {"term": {"session_id": request.session_id}}]}})
        filters: list[dict[str, Any]] = [
            *self._owner_filter(tenant_id, user_id), {"terms": {"status": [s.value for s in request.statuses]}},
            {"bool": {"should": [{"bool": {"must_not": [{"exists": {"field": "expires_at"}}]}},
                                 {"range": {"expires_at": {"gt": iso(request.now)}}}], "minimum_should_match": 1}},
            {"bool": {"should": scope, "minimum_should_match": 1}},
        ]
        if request.categories is not None:
            filters.append({"terms": {"category": sorted(c.value for c in request.categories)}})
        return {"bool": {"filter": filters}}

    def search(self, tenant_id: str, user_id: str, request: SearchRequest) -> list[Hit]:
        flt = self._live_filter(tenant_id, user_id, request)
        vector = [float(x) for x in request.vector]
        semantic = self._search(tenant_id, user_id, {"size": request.limit, "query": {"knn": {"embedding": {
            "vector": vector, "k": request.limit, "filter": flt}}}})
        best_part = {h["_source"]["memory_id"]: _cosine(h["_score"]) for h in self._search(
            tenant_id, user_id, {"size": request.limit, "query": {"nested": {"path": "parts", "score_mode": "max",
                                 "query": {"knn": {"parts.vector": {"vector": vector, "k": request.limit,
                                                                    "filter": flt}}}}}})}
        hashed = " ".join(self._cipher.keyed_hash_terms(tenant_id, user_id, request.terms))
        lexical = self._search(tenant_id, user_id, {"size": request.limit, "query": {"bool": {
            "filter": [flt], "must": [{"match": {"terms": hashed}}]}}}) if hashed else []
        found: dict[str, dict[str, Any]] = {}
        cosine: dict[str, float] = {}
        lexical_score: dict[str, float] = {}
        for h in semantic:
            found[h["_source"]["memory_id"]] = h["_source"]
            cosine[h["_source"]["memory_id"]] = _cosine(h["_score"])
        for h in lexical:
            found.setdefault(h["_source"]["memory_id"], h["_source"])
            lexical_score[h["_source"]["memory_id"]] = float(h["_score"])
        missing_cosine = [mid for mid in found if mid not in cosine]
        for mid in missing_cosine:
            cosine[mid] = float(np.dot(np.asarray(found[mid]["embedding"], dtype=np.float32), request.vector))
        return [Hit(self._open(source), cosine[mid], lexical_score.get(mid, 0.0), best_part.get(mid))
                for mid, source in found.items()]

    def page(self, tenant_id: str, user_id: str, *, statuses: Sequence[Status] | None, category: Category | None,
             limit: int, cursor: str | None) -> Page:
        filters: list[dict[str, Any]] = list(self._owner_filter(tenant_id, user_id))
        if statuses:
            filters.append({"terms": {"status": [s.value for s in statuses]}})
        if category is not None:
            filters.append({"term": {"category": category.value}})
        body: dict[str, Any] = {"size": limit + 1, "query": {"bool": {"filter": filters}},
                                "sort": [{"created_at": {"order": "desc"}}, {"memory_id": {"order": "desc"}}]}
        if cursor:
            try:
                body["search_after"] = json.loads(base64.urlsafe_b64decode(cursor.encode()))
            except (ValueError, TypeError) as exc:
                raise InvalidInput("cursor is not valid", details={"field": "cursor"}) from exc
        hits = self._search(tenant_id, user_id, body)
        items = [self._open(h["_source"]) for h in hits[:limit]]
        next_cursor = None
        if len(hits) > limit:
            next_cursor = base64.urlsafe_b64encode(json.dumps(hits[limit - 1]["sort"]).encode()).decode()
        return Page(items, next_cursor)

    def history(self, tenant_id: str, user_id: str, memory_id: str) -> list[MemoryVersion]:
        items = self._history.query(pk(tenant_id, user_id), f"VERSION#{memory_id}#")
        out = []
        for item in items:
            version = int(item["sk"]["S"].rsplit("#", 1)[1])
            out.append(MemoryVersion.model_validate_json(self._cipher.open(
                tenant_id, user_id, f"{memory_id}#{version}", "version", item["sealed"]["B"])))
        return out

    def count(self, tenant_id: str, user_id: str, statuses: Sequence[Status]) -> int:
        filters = [*self._owner_filter(tenant_id, user_id), {"terms": {"status": [s.value for s in statuses]}}]
        result = self._http.request("POST", f"/{self._index}/_count",
                                    params={"routing": self._routing(tenant_id, user_id)},
                                    body={"query": {"bool": {"filter": filters}}})
        return int(result["count"])

    def all_for_user(self, tenant_id: str, user_id: str) -> Iterator[Memory]:
        after: list[Any] | None = None
        while True:
            body: dict[str, Any] = {"size": 500, "query": {"bool": {"filter": self._owner_filter(tenant_id, user_id)}},
                                    "sort": [{"created_at": {"order": "asc"}}, {"memory_id": {"order": "asc"}}]}
            if after:
                body["search_after"] = after
            hits = self._search(tenant_id, user_id, body)
            for h in hits:
                yield self._open(h["_source"], with_vector=True)
            if len(hits) < 500:
                return
            after = hits[-1]["sort"]

    def delete(self, tenant_id: str, user_id: str, memory_ids: Sequence[str]) -> None:
        for memory_id in memory_ids:
            self._http.request("DELETE", f"/{self._index}/_doc/{self._doc_id(tenant_id, user_id, memory_id)}",
                               params={"routing": self._routing(tenant_id, user_id), "refresh": "wait_for"})
            for item in self._history.query(pk(tenant_id, user_id), f"VERSION#{memory_id}#"):
                self._history.delete(pk(tenant_id, user_id), item["sk"]["S"])

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        self._http.request("POST", f"/{self._index}/_delete_by_query",
                           params={"routing": self._routing(tenant_id, user_id), "refresh": "true"},
                           body={"query": {"bool": {"filter": self._owner_filter(tenant_id, user_id)}}})
        for item in self._history.query(pk(tenant_id, user_id), "VERSION#"):
            self._history.delete(pk(tenant_id, user_id), item["sk"]["S"])

    def users(self, tenant_id: str) -> list[str]:
        return self._distinct("user_id", [{"term": {"tenant_id": tenant_id}}])

    def tenants(self) -> list[str]:
        return self._distinct("tenant_id", [])

    def _distinct(self, field: str, filters: list[dict[str, Any]]) -> list[str]:
        out: list[str] = []
        after: dict[str, Any] | None = None
        while True:
            composite: dict[str, Any] = {"size": 1000, "sources": [{field: {"terms": {"field": field}}}]}
            if after:
                composite["after"] = after
            result = self._http.request("POST", f"/{self._index}/_search", body={
                "size": 0, "query": {"bool": {"filter": filters}}, "aggs": {"values": {"composite": composite}}})
            buckets = result["aggregations"]["values"]["buckets"]
            out.extend(b["key"][field] for b in buckets)
            after = result["aggregations"]["values"].get("after_key")
            if not buckets or not after:
                return sorted(out)


def _cosine(score: float) -> float:
    """faiss inner-product scores come back as 1 + ip for positive ip, 1 / (1 - ip) otherwise."""
    return score - 1.0 if score >= 1.0 else 1.0 - 1.0 / score
