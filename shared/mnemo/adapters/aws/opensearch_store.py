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
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from mnemo.adapters.aws.dynamo_state import DynamoTable, pk
from mnemo.adapters.aws.write_journal import DELETE, SAVE, Entry, WriteJournal, digest
from mnemo.clock import Clock, SystemClock, iso
from mnemo.crypto import UserCipher
from mnemo.domain.models import Category, Memory, MemoryVersion, Scope, Status
from mnemo.domain.ranking import Hit
from mnemo.errors import BackendUnavailable, ConfigurationError, InvalidInput, Throttled
from mnemo.ports import Page, SearchRequest, Vector
from mnemo.settings import Settings

INDEXED = ["active", "probationary", "pending"]
SIMILARITY = "memory_bm25"
# the vectors stay in the index for k-NN but are not shipped back with every hit (384 floats each,
# plus one per sentence); only the reads that re-save a memory or compare vectors ask for them
NO_VECTORS = {"excludes": ["embedding", "parts"]}
NO_SENTENCE_VECTORS = {"excludes": ["parts"]}
# bulk items OpenSearch may accept on a second try (overloaded thread pool, a shard relocating)
RETRYABLE = {429, 502, 503, 504}
# memories per journal entry (one DynamoDB item of at most 400 KB, version rows included)
JOURNAL_CHUNK = 100


class OpenSearchError(BackendUnavailable):
    """OpenSearch answered with an error status. ``status`` and ``error_type`` (OpenSearch's, e.g.
    ``index_not_found_exception``) let a caller accept the answers that are no failure for it."""

    def __init__(self, status: int, error_type: str | None, message: str | None = None) -> None:
        if message is None:
            message = (f"the OpenSearch index does not exist: run the index set-up (status {status})"
                       if error_type == "index_not_found_exception"
                       else f"OpenSearch answered {status} ({error_type or 'no error type'})")
        super().__init__(message, details={"status": status, "type": error_type})
        self.status = status
        self.error_type = error_type


def error_from(status: int, body: Any) -> BackendUnavailable | Throttled:
    """The core's error for an OpenSearch error answer (the body's error type, never its reason:
    a reason can quote document values)."""
    cause = body.get("error") if isinstance(body, dict) else None
    error_type = cause.get("type") if isinstance(cause, dict) else None
    if status == 429:
        return Throttled(f"OpenSearch is overloaded ({error_type or 'too many requests'}); retry later")
    return OpenSearchError(status, error_type if isinstance(error_type, str) else None)


class Transport(Protocol):
    """The calls the adapter makes; opensearch-py's transport (SignedOpenSearchTransport).

    ``request`` returns the decoded answer of a 2xx and raises ``error_from``'s error otherwise
    (``OpenSearchError``, ``Throttled``), or ``BackendUnavailable`` when the domain is unreachable.
    ``head`` is True for a 2xx and False for a 404, as opensearch-py answers a HEAD."""

    def request(self, method: str, path: str, *, params: dict[str, str] | None = None,
                body: Any = None) -> dict[str, Any]: ...

    def head(self, path: str) -> bool: ...


@dataclass(frozen=True)
class IndexTuning:
    """The index settings that come from the service settings: BM25 as in the embedded home (memories
    are short: lighter length normalisation than OpenSearch's 1.2 / 0.75) and slow-log thresholds."""

    bm25_k1: float
    bm25_b: float
    slowlog_ms: tuple[tuple[str, int], ...]

    @classmethod
    def from_settings(cls, settings: Settings) -> IndexTuning:
        return cls(settings.bm25_k1, settings.bm25_b, (
            ("search.slowlog.threshold.query.warn", settings.opensearch_slow_search_warn_ms),
            ("search.slowlog.threshold.query.info", settings.opensearch_slow_search_info_ms),
            ("search.slowlog.threshold.fetch.warn", settings.opensearch_slow_fetch_warn_ms),
            ("indexing.slowlog.threshold.index.warn", settings.opensearch_slow_index_warn_ms),
            ("indexing.slowlog.threshold.index.info", settings.opensearch_slow_index_info_ms)))

    def dynamic_settings(self) -> dict[str, str]:
        """The settings an open index accepts changes of (flat, as OpenSearch reports them)."""
        return {f"index.{name}": f"{ms}ms" for name, ms in self.slowlog_ms}


def index_body(dimension: int, shards: int = 4, replicas: int = 1, tuning: IndexTuning | None = None) -> dict[str, Any]:
    """The index: strict mapping, faiss HNSW inner product, routing required (also used by the CDK custom resource)."""
    tuning = tuning or IndexTuning.from_settings(Settings())
    vector = {"type": "knn_vector", "dimension": dimension,
              "method": {"name": "hnsw", "engine": "faiss", "space_type": "innerproduct",
                         "parameters": {"m": 16, "ef_construction": 128}}}
    keyword = {"type": "keyword"}
    return {
        "settings": {"index": {"knn": True, "number_of_shards": shards, "number_of_replicas": replicas,
                               "similarity": {SIMILARITY: {"type": "BM25", "k1": tuning.bm25_k1, "b": tuning.bm25_b}},
                               **{name: f"{ms}ms" for name, ms in tuning.slowlog_ms}},
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
                "terms": {"type": "text", "analyzer": "hashed_terms", "similarity": SIMILARITY},
                "embedding": vector,
                "parts": {"type": "nested", "properties": {"vector": vector}},
            },
        },
    }


def ensure_index(transport: Transport, index: str, dimension: int, shards: int = 4, replicas: int = 1,
                 tuning: IndexTuning | None = None) -> str:
    """Create the index if it is missing; run at deploy time by the CDK custom resource.

    Returns "created", "updated" (an existing index took new slow-log thresholds) or "exists".
    Idempotent, also when two runs race (the loser's 400 resource_already_exists is an "exists").
    An existing index must be a k-NN index of this dimension: one that a write auto-created with a
    dynamic mapping, or one of another model's dimension, is a ConfigurationError (a new model
    means a new index and a re-embed job). Static settings (shards, BM25 k1/b) apply to a new
    index only; a new mapping field is added with a PUT _mapping by a later migration.
    """
    tuning = tuning or IndexTuning.from_settings(Settings())
    if not transport.head(f"/{index}"):
        try:
            transport.request("PUT", f"/{index}", body=index_body(dimension, shards, replicas, tuning))
            return "created"
        except OpenSearchError as exc:
            if exc.error_type != "resource_already_exists_exception":
                raise
    mappings = next(iter(transport.request("GET", f"/{index}/_mapping").values()))["mappings"]
    embedding = mappings.get("properties", {}).get("embedding", {})
    if embedding.get("type") != "knn_vector" or int(embedding.get("dimension", 0)) != dimension:
        found = f"{embedding.get('type', 'no embedding field')} of dimension {embedding.get('dimension', '-')}"
        raise ConfigurationError(f"index {index} exists but is not a k-NN index of dimension {dimension} "
                                 f"(found {found}); remove it or configure another index name")
    current = _flat(next(iter(transport.request("GET", f"/{index}/_settings").values()))["settings"])
    wanted = tuning.dynamic_settings()
    if all(current.get(k) == v for k, v in wanted.items()):
        return "exists"
    transport.request("PUT", f"/{index}/_settings", body={"index": {k.removeprefix("index."): v
                                                                    for k, v in wanted.items()}})
    return "updated"


def _flat(nested: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in nested.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


class OpenSearchMemoryStore:
    def __init__(self, transport: Transport, index: str, cipher: UserCipher, history: DynamoTable,
                 dimension: int, *, bulk_attempts: int = 3, tuning: IndexTuning | None = None,
                 clock: Clock | None = None) -> None:
        self._http = transport
        self._index = index
        self._cipher = cipher
        self._history = history
        self._dimension = dimension
        self._bulk_attempts = bulk_attempts
        self._tuning = tuning
        self._clock = clock or SystemClock()
        # the versions and audit events of a write commit together, after its documents (write_journal)
        self._journal = WriteJournal(history, self._clock)
        self._settled = threading.local()  # users whose unfinished writes this unit of work has settled

    def on_index(self, index: str, dimension: int, shards: int = 4, replicas: int = 1) -> OpenSearchMemoryStore:
        """The same store over another index, created if missing: the target of a re-embed job
        when a new model changes the dimension (the version history stays in DynamoDB, shared)."""
        ensure_index(self._http, index, dimension, shards, replicas, self._tuning)
        return OpenSearchMemoryStore(self._http, index, self._cipher, self._history, dimension,
                                     bulk_attempts=self._bulk_attempts, tuning=self._tuning, clock=self._clock)

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

    def _readable(self, tenant_id: str, user_id: str) -> bool:
        """A user without a data key has nothing readable: documents found are an unfinished erase's
        leftovers (its key went first), and a read must neither serve them nor create a key."""
        return self._cipher.existing_key(tenant_id, user_id) is not None

    def _search(self, tenant_id: str, user_id: str, body: dict[str, Any]) -> list[dict[str, Any]]:
        if not self._readable(tenant_id, user_id):
            return []
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
        if not memory_ids or not self._readable(tenant_id, user_id):
            return []
        result = self._http.request("POST", f"/{self._index}/_mget",
                                    params={"routing": self._routing(tenant_id, user_id), "_source_excludes": "parts"},
                                    body={"ids": [self._doc_id(tenant_id, user_id, i) for i in memory_ids]})
        out = []
        for doc in result["docs"]:
            if "error" in doc:  # _mget answers 200 and reports a missing index document by document
                error_type = doc["error"].get("type")
                raise OpenSearchError(404 if error_type == "index_not_found_exception" else 500, error_type)
            source = doc.get("_source") if doc.get("found") else None
            # an id of another tenant or user is simply not found: the document id carries the owner
            if source and source["tenant_id"] == tenant_id and source["user_id"] == user_id:
                out.append(self._open(source, with_vector=True))
        return out

    @staticmethod
    def _doc_id(tenant_id: str, user_id: str, memory_id: str) -> str:
        return f"{tenant_id}:{user_id}:{memory_id}"

    def save(self, memories: Sequence[Memory], history: Sequence[MemoryVersion] = ()) -> None:
        """Journal entry, documents, then versions with the unit's audit events (write_journal)."""
        if not memories and not history:
            return
        by_id = {m.memory_id: m for m in memories}
        for h in history:
            if h.memory_id not in by_id:
                raise InvalidInput("a version must be saved together with its memory")
        by_owner: dict[tuple[str, str], list[Memory]] = {}
        for m in memories:
            by_owner.setdefault(m.owner, []).append(m)
        for (tenant_id, user_id), owned in sorted(by_owner.items()):
            self._settle_once(tenant_id, user_id)
            for start in range(0, len(owned), JOURNAL_CHUNK):
                chunk = owned[start:start + JOURNAL_CHUNK]
                ids = {m.memory_id for m in chunk}
                self._save_chunk(tenant_id, user_id, chunk, [h for h in history if h.memory_id in ids])

    def _save_chunk(self, tenant_id: str, user_id: str, memories: list[Memory],
                    history: list[MemoryVersion]) -> None:
        lines: list[str] = []
        digests: dict[str, str] = {}
        for m in memories:
            vector, parts = self._vectors_for(m)
            doc_id = self._doc_id(m.tenant_id, m.user_id, m.memory_id)
            document = self._document(m, vector, parts)
            digests[m.memory_id] = digest(document["sealed"])
            lines.append(json.dumps({"index": {"_index": self._index, "_id": doc_id,
                                               "routing": self._routing(m.tenant_id, m.user_id)}}))
            lines.append(json.dumps(document))
        rows = []
        for h in history:
            sealed = self._cipher.seal(tenant_id, user_id, f"{h.memory_id}#{h.version}", "version",
                                       h.model_dump_json().encode())
            rows.append({"pk": {"S": pk(tenant_id, user_id)},
                         "sk": {"S": f"VERSION#{h.memory_id}#{h.version:06d}"}, "sealed": {"B": sealed}})
        entry = self._journal.begin(tenant_id, user_id, SAVE, digests, puts=rows)
        self._bulk(lines)
        # the versions only once their memories are written: a failed write leaves no orphan version
        # behind (its journal entry is settled later), and a retry writes the same rows again (same keys)
        self._journal.finish(entry)

    # -- interrupted writes (write_journal)
    def recover(self, tenant_id: str, user_id: str) -> int:
        """Settle the user's writes that were interrupted between their documents and their versions and
        audit events; returns how many there were. Call where the user's writes are serialised."""
        entries = self._journal.pending(tenant_id, user_id)
        for entry in entries:
            self._journal.settle(entry, self._landed(entry))
        return len(entries)

    def _settle_once(self, tenant_id: str, user_id: str) -> None:
        """Before a user's first write in a unit of work (every write outside one): what an earlier,
        interrupted write left is settled first, so its documents are judged before anything changes them."""
        settled: set[tuple[str, str]] | None = getattr(self._settled, "owners", None)
        if settled is not None and (tenant_id, user_id) in settled:
            return
        self.recover(tenant_id, user_id)
        if settled is not None:
            settled.add((tenant_id, user_id))

    def _landed(self, entry: Entry) -> set[str]:
        """The memories of an entry whose documents are in OpenSearch as the write left them."""
        if not entry.docs:
            return set()
        result = self._http.request(
            "POST", f"/{self._index}/_mget",
            params={"routing": self._routing(entry.tenant_id, entry.user_id), "_source_includes": "memory_id,sealed"},
            body={"ids": [self._doc_id(entry.tenant_id, entry.user_id, i) for i in entry.docs]})
        stored: dict[str, str] = {}
        for doc in result["docs"]:
            if "error" in doc:
                raise OpenSearchError(500, doc["error"].get("type"))
            if doc.get("found"):
                stored[doc["_source"]["memory_id"]] = digest(doc["_source"]["sealed"])
        if entry.op == DELETE:
            return {i for i in entry.docs if i not in stored}
        return {i for i, d in entry.docs.items() if stored.get(i) == d}

    def _bulk(self, lines: list[str]) -> None:
        """Index documents (action and source line pairs). OpenSearch applies each item on its own, so
        a bulk can half succeed: items refused as overloaded are sent again (up to ``bulk_attempts``
        in all, with a short backoff); whatever still fails raises, so the caller answers 503 (or 429
        when only overload remains) and its retry rewrites the same documents (same ids)."""
        pending = list(zip(lines[::2], lines[1::2], strict=True))
        for attempt in range(self._bulk_attempts):
            result = self._http.request("POST", "/_bulk", params={"refresh": "wait_for"},
                                        body="".join(f"{a}\n{d}\n" for a, d in pending))
            if not result.get("errors"):
                return
            failed = [(pair, item) for pair, entry in zip(pending, result["items"], strict=True)
                      if "error" in (item := next(iter(entry.values())))]
            if not failed:
                return
            statuses = {int(item["status"]) for _, item in failed}
            if not statuses <= RETRYABLE or attempt == self._bulk_attempts - 1:
                types = sorted({str(item["error"].get("type")) for _, item in failed})
                what = f"OpenSearch refused {len(failed)} of {len(pending)} documents ({', '.join(types)})"
                if statuses == {429}:
                    raise Throttled(what + "; retry later")
                raise OpenSearchError(max(statuses), types[0], what)
            pending = [pair for pair, _ in failed]
            time.sleep(0.05 * 2 ** attempt)

    def _vectors_for(self, m: Memory) -> tuple[Vector, Vector | None]:
        if m.embedding is not None:
            parts = np.asarray(m.part_embeddings, dtype=np.float32).reshape(-1, self._dimension) \
                if m.part_embeddings else None
            return np.asarray(m.embedding, dtype=np.float32), parts
        # the one read that takes the stored vectors back whole: the document is written again
        hits = self._search(m.tenant_id, m.user_id, {"size": 1, "query": {"bool": {"filter": [
            *self._owner_filter(m.tenant_id, m.user_id), {"term": {"memory_id": m.memory_id}}]}}})
        if not hits:
            raise InvalidInput("a new memory must be embedded before it is saved")
        source = hits[0]["_source"]
        parts = np.asarray([p["vector"] for p in source.get("parts", [])], dtype=np.float32) \
            if source.get("parts") else None
        return np.asarray(source["embedding"], dtype=np.float32), parts

    def by_subject(self, tenant_id: str, user_id: str, subjects: Sequence[str]) -> list[Memory]:
        hashes = self._cipher.lookup_hashes(tenant_id, user_id, ["subject:" + s for s in subjects])
        if hashes is None:
            return []  # no key, nothing readable (and a lookup creates none)
        hits = self._search(tenant_id, user_id, {"size": 100, "_source": NO_SENTENCE_VECTORS, "query": {"bool": {
            "filter": [*self._owner_filter(tenant_id, user_id), {"terms": {"subject_hash": hashes}},
                       {"terms": {"status": INDEXED}}]}}})
        return [self._open(h["_source"], with_vector=True) for h in hits]

    def by_fingerprint(self, tenant_id: str, user_id: str, content: str) -> list[Memory]:
        fingerprint = self._cipher.lookup_fingerprint(tenant_id, user_id, content)
        if fingerprint is None:
            return []
        hits = self._search(tenant_id, user_id, {"size": 100, "_source": NO_SENTENCE_VECTORS, "query": {"bool": {
            "filter": [*self._owner_filter(tenant_id, user_id), {"term": {"fingerprint": fingerprint}}],
            "must_not": [{"term": {"status": "deleted"}}]}}})
        return [self._open(h["_source"], with_vector=True) for h in hits]

    def similar(self, tenant_id: str, user_id: str, vector: Vector, limit: int) -> list[tuple[Memory, float]]:
        body = {"size": limit, "_source": NO_VECTORS, "query": {"knn": {"embedding": {
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

    def common_terms(self, tenant_id: str, user_id: str, terms: Sequence[str], share: float) -> frozenset[str]:
        """None: counting a user's documents per term is a query per term here, and the second query vector
        it serves (settings.second_query_weight) was measured on the embedded home only (issue 15)."""
        return frozenset()

    def search(self, tenant_id: str, user_id: str, request: SearchRequest) -> list[Hit]:
        flt = self._live_filter(tenant_id, user_id, request)
        vector = [float(x) for x in request.vector]
        semantic = self._search(tenant_id, user_id, {"size": request.limit, "_source": NO_VECTORS, "query": {
            "knn": {"embedding": {"vector": vector, "k": request.limit, "filter": flt}}}})
        best_part = {h["_source"]["memory_id"]: _cosine(h["_score"]) for h in self._search(
            tenant_id, user_id, {"size": request.limit, "_source": {"includes": ["memory_id"]}, "query": {
                "nested": {"path": "parts", "score_mode": "max", "query": {"knn": {"parts.vector": {
                    "vector": vector, "k": request.limit, "filter": flt}}}}}})}
        hashed = " ".join(self._cipher.lookup_terms(tenant_id, user_id, request.terms) or [])
        lexical = self._search(tenant_id, user_id, {"size": request.limit, "_source": NO_VECTORS, "query": {"bool": {
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
        missing_cosine = sorted(mid for mid in found if mid not in cosine)
        if missing_cosine:
            # lexical hits outside the k nearest: OpenSearch scores exactly these few (a filtered faiss
            # search is exact), so no vector travels back
            only = {"bool": {"filter": [flt, {"terms": {"memory_id": missing_cosine}}]}}
            for h in self._search(tenant_id, user_id, {"size": len(missing_cosine), "_source": {
                    "includes": ["memory_id"]}, "query": {"knn": {"embedding": {
                        "vector": vector, "k": len(missing_cosine), "filter": only}}}}):
                cosine[h["_source"]["memory_id"]] = _cosine(h["_score"])
        return [Hit(self._open(source), cosine.get(mid, 0.0), lexical_score.get(mid, 0.0), best_part.get(mid))
                for mid, source in found.items()]

    def page(self, tenant_id: str, user_id: str, *, statuses: Sequence[Status] | None, category: Category | None,
             limit: int, cursor: str | None) -> Page:
        filters: list[dict[str, Any]] = list(self._owner_filter(tenant_id, user_id))
        if statuses:
            filters.append({"terms": {"status": [s.value for s in statuses]}})
        if category is not None:
            filters.append({"term": {"category": category.value}})
        body: dict[str, Any] = {"size": limit + 1, "_source": NO_VECTORS, "query": {"bool": {"filter": filters}},
                                "sort": [{"created_at": {"order": "desc"}}, {"memory_id": {"order": "desc"}}]}
        if cursor:
            try:
                after = json.loads(base64.urlsafe_b64decode(cursor.encode()))
            except (ValueError, TypeError) as exc:
                raise InvalidInput("cursor is not valid", details={"field": "cursor"}) from exc
            # only what a previous page handed out: the sort values of a memory (time, then id)
            if not (isinstance(after, list) and len(after) == 2 and isinstance(after[0], (int, str))
                    and not isinstance(after[0], bool) and isinstance(after[1], str)):
                raise InvalidInput("cursor is not valid", details={"field": "cursor"})
            body["search_after"] = after
        hits = self._search(tenant_id, user_id, body)
        items = [self._open(h["_source"]) for h in hits[:limit]]
        next_cursor = None
        if len(hits) > limit:
            next_cursor = base64.urlsafe_b64encode(json.dumps(hits[limit - 1]["sort"]).encode()).decode()
        return Page(items, next_cursor)

    def history(self, tenant_id: str, user_id: str, memory_id: str) -> list[MemoryVersion]:
        if not self._readable(tenant_id, user_id):
            return []
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
            body: dict[str, Any] = {"size": 500, "_source": NO_SENTENCE_VECTORS,
                                    "query": {"bool": {"filter": self._owner_filter(tenant_id, user_id)}},
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
        if not memory_ids:
            return
        self._settle_once(tenant_id, user_id)
        drops = [item["sk"]["S"] for memory_id in memory_ids
                 for item in self._history.query(pk(tenant_id, user_id), f"VERSION#{memory_id}#")]
        entry = self._journal.begin(tenant_id, user_id, DELETE, dict.fromkeys(memory_ids, ""), drops=drops)
        for memory_id in memory_ids:
            try:
                self._http.request("DELETE", f"/{self._index}/_doc/{self._doc_id(tenant_id, user_id, memory_id)}",
                                   params={"routing": self._routing(tenant_id, user_id), "refresh": "wait_for"})
            except OpenSearchError as exc:
                # 404 with "result": "not_found" (no error type): already gone, so a retried delete
                # succeeds; a 404 index_not_found_exception is a failure like any other
                if exc.status != 404 or exc.error_type is not None:
                    raise
        self._journal.finish(entry)

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        result = self._http.request("POST", f"/{self._index}/_delete_by_query",
                                    params={"routing": self._routing(tenant_id, user_id), "refresh": "true"},
                                    body={"query": {"bool": {"filter": self._owner_filter(tenant_id, user_id)}}})
        if result.get("failures") or result.get("timed_out"):
            # delete by query answers 200 and lists the documents it could not delete: the history
            # stays until a retry has removed every document
            causes = sorted({str(f.get("cause", {}).get("type")) for f in result.get("failures", [])})
            raise OpenSearchError(500, causes[0] if causes else "timed_out",
                                  f"OpenSearch could not delete {len(result.get('failures', []))} documents "
                                  f"({', '.join(causes) or 'timed out'})")
        for item in self._history.query(pk(tenant_id, user_id), "VERSION#"):
            self._history.delete(pk(tenant_id, user_id), item["sk"]["S"])
        self._journal.delete_user(tenant_id, user_id)

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """A unit of work: the versions, the audit events and the journal clearing of the writes made
        inside commit in one DynamoDB transaction at the end; the documents were written before, each
        write's journal entry standing for them until then (write_journal)."""
        outermost = getattr(self._settled, "owners", None) is None
        if outermost:
            self._settled.owners = set()
        try:
            with self._history.unit():
                yield
        finally:
            if outermost:
                self._settled.owners = None

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
