"""An in-memory index of one user's live memories: exact cosine over a matrix, plus BM25.

Per user the live set is capped (1,000 by default), so an exact scan is both faster and
more accurate than an approximate index at this size (DESIGN.md section 5). Long memories
also carry one vector per sentence; a search reports the best sentence of each memory.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from mnemo.domain.lexical import Bm25Index
from mnemo.domain.models import Memory, Scope, Status
from mnemo.domain.ranking import Hit
from mnemo.domain.text import terms
from mnemo.ports import SearchRequest, Vector


class UserIndex:
    def __init__(self, dimension: int, generation: int, k1: float, b: float) -> None:
        self.generation = generation
        self._dimension = dimension
        self.memories: dict[str, Memory] = {}
        self._vectors: dict[str, Vector] = {}
        self._parts: dict[str, Vector] = {}
        self._bm25 = Bm25Index(k1, b)
        self._ids: list[str] = []
        self._position: dict[str, int] = {}
        self._id_order = np.zeros(0, dtype=np.int64)
        self._matrix: Vector = np.zeros((0, dimension), dtype=np.float32)
        self._part_matrix: Vector = np.zeros((0, dimension), dtype=np.float32)
        self._part_owner = np.zeros(0, dtype=np.int64)
        self._part_starts = np.zeros(0, dtype=np.int64)
        # filter columns, so the filters of a search run vectorised
        self._status = np.zeros(0, dtype=object)
        self._category = np.zeros(0, dtype=object)
        self._scope = np.zeros(0, dtype=object)
        self._project = np.zeros(0, dtype=object)
        self._session = np.zeros(0, dtype=object)
        self._expires = np.zeros(0, dtype=np.float64)
        self._made = np.zeros(0, dtype=np.float64)  # created_at, for the ranking's sitting context
        # what depends only on the memories, not on the request: made once per change of the index (a
        # retrieve always asks the same statuses)
        self._user_scope = np.zeros(0, dtype=np.bool_)
        self._status_masks: dict[frozenset[Status], npt.NDArray[np.bool_]] = {}
        self._dirty = False
        # a search reads the arrays a write rebuilds (a worker with --threads serves both at once): one at a time,
        # so a search never sees half a refresh nor caches a filter of the arrays before it
        self._lock = threading.RLock()

    def put(self, memory: Memory, vector: Vector, parts: Vector | None = None) -> None:
        with self._lock:
            before = self.memories.get(memory.memory_id)
            self.memories[memory.memory_id] = memory
            self._vectors[memory.memory_id] = vector
            if parts is not None and len(parts):
                self._parts[memory.memory_id] = parts
            else:
                self._parts.pop(memory.memory_id, None)
            if before is None or before.content != memory.content:
                # a confirmation or a status change keeps the words: their terms (stemming is the dear part of
                # a save inside the write transaction) stay as they are
                self._bm25.add(memory.memory_id, terms(memory.content))
            self._dirty = True

    def vector(self, memory_id: str) -> Vector:
        return self._vectors[memory_id]

    def live(self) -> list[tuple[Memory, Vector]]:
        """The live memories and their vectors as of one moment: another thread's catch-up (``catch_up``)
        changes the index in place, and a loop over ``memories`` meanwhile would fail or see half of it."""
        with self._lock:
            return [(memory, self._vectors[memory_id]) for memory_id, memory in self.memories.items()]

    def remove(self, memory_id: str) -> None:
        with self._lock:
            if self.memories.pop(memory_id, None) is not None:
                self._vectors.pop(memory_id, None)
                self._parts.pop(memory_id, None)
                self._bm25.remove(memory_id)
                self._dirty = True

    def catch_up(self, changed: Sequence[tuple[Memory, Vector, Vector | None]], gone: Sequence[str],
                 generation: int) -> None:
        """Another process's writes since this index's generation: the live memories it wrote and the ids it
        took out of the live set, all at once (a search in another thread sees the index before or after)."""
        with self._lock:
            for memory, vector, parts in changed:
                self.put(memory, vector, parts)
            for memory_id in gone:
                self.remove(memory_id)
            self.generation = generation

    def _refresh(self) -> None:
        if not self._dirty:
            return
        self._ids = list(self._vectors)
        self._position = {mid: i for i, mid in enumerate(self._ids)}
        # each memory's place among the ids in sorted order: ties of BM25 go to the greater id
        self._id_order = np.empty(len(self._ids), dtype=np.int64)
        self._id_order[sorted(range(len(self._ids)), key=self._ids.__getitem__)] = np.arange(len(self._ids))
        self._matrix = (np.stack([self._vectors[i] for i in self._ids]) if self._ids
                        else np.zeros((0, self._dimension), dtype=np.float32))
        blocks = sorted(((self._position[mid], parts) for mid, parts in self._parts.items()),
                        key=lambda block: block[0])
        if blocks:
            self._part_matrix = np.concatenate([parts for _, parts in blocks])
            self._part_owner = np.array([pos for pos, _ in blocks], dtype=np.int64)
            sizes = np.array([len(parts) for _, parts in blocks], dtype=np.int64)
            self._part_starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        else:
            self._part_matrix = np.zeros((0, self._dimension), dtype=np.float32)
            self._part_owner = np.zeros(0, dtype=np.int64)
            self._part_starts = np.zeros(0, dtype=np.int64)
        ms = [self.memories[i] for i in self._ids]
        self._status = np.array([m.status.value for m in ms], dtype=object)
        self._category = np.array([m.category.value for m in ms], dtype=object)
        self._scope = np.array([m.scope.value for m in ms], dtype=object)
        self._project = np.array([m.project_id for m in ms], dtype=object)
        self._session = np.array([m.session_id for m in ms], dtype=object)
        self._expires = np.array([m.expires_at.timestamp() if m.expires_at else np.inf for m in ms])
        self._made = np.array([m.created_at.timestamp() for m in ms], dtype=np.float64)
        self._user_scope = self._scope == Scope.USER.value
        self._status_masks = {}
        self._dirty = False

    def _with_status(self, statuses: frozenset[Status]) -> npt.NDArray[np.bool_]:
        """Which memories have one of ``statuses`` (never written to: callers combine it into new arrays)."""
        found = self._status_masks.get(statuses)
        if found is None:
            found = np.isin(self._status, [s.value for s in statuses])
            self._status_masks[statuses] = found
        return found

    def _mask(self, request: SearchRequest) -> npt.NDArray[np.bool_]:
        """Filters first (R5): status, expiry, category and scope, for every memory at once (the search
        that calls it has refreshed the arrays, under the lock)."""
        mask = self._with_status(request.statuses) & (self._expires > request.now.timestamp())
        if request.categories is not None:
            mask &= np.isin(self._category, [c.value for c in request.categories])
        in_scope = self._user_scope
        if request.project_id is not None:
            in_scope = in_scope | ((self._scope == Scope.PROJECT.value) & (self._project == request.project_id))
        if request.session_id is not None:
            in_scope = in_scope | ((self._scope == Scope.SESSION.value) & (self._session == request.session_id))
        mask &= in_scope
        return mask

    def cosine_all(self, vector: Vector) -> tuple[list[str], Vector, Vector]:
        """Whole-memory cosines and best-sentence cosines (-inf where a memory has no sentences)."""
        self._refresh()
        best = np.full(len(self._ids), -np.inf, dtype=np.float32)
        if not self._ids:
            return [], np.zeros(0, dtype=np.float32), best
        if len(self._part_owner):
            # parts are stored grouped by memory, so a segmented max gives each memory its best sentence
            best[self._part_owner] = np.maximum.reduceat(self._part_matrix @ vector, self._part_starts)
        return self._ids, self._matrix @ vector, best

    def similar(self, vector: Vector, limit: int) -> list[tuple[Memory, float]]:
        with self._lock:
            self._refresh()
            if not self._ids:
                return []
            sims = self._matrix @ vector
            order = np.argsort(-sims)[:limit]
            return [(self.memories[self._ids[i]], float(sims[i])) for i in order]

    def common_terms(self, query_terms: Sequence[str], share: float) -> frozenset[str]:
        with self._lock:
            self._refresh()
            return self._bm25.common(query_terms, share)

    def search(self, request: SearchRequest) -> list[Hit]:
        with self._lock:
            ids, sims, best = self.cosine_all(request.vector)
            if not ids:
                return []
            mask = self._mask(request)
            if not mask.any():
                return []
            pool = np.where(mask, np.maximum(sims, best), -np.inf)
            k = min(request.limit, int(mask.sum()))
            top = np.argpartition(-pool, k - 1)[:k] if k < len(ids) else np.flatnonzero(mask)
            lexical, found = self._bm25.score_array(request.terms, self._position, len(ids))
            # the best ``limit`` by BM25 among those allowed, ties to the greater id (as heapq.nlargest over
            # (score, id) pairs chose them)
            allowed_lex = np.flatnonzero(found & mask)
            if len(allowed_lex) > request.limit:
                allowed_lex = allowed_lex[np.lexsort((self._id_order[allowed_lex],
                                                      lexical[allowed_lex]))[-request.limit:]]
            chosen = np.union1d(top[mask[top]], allowed_lex)
            # Python floats once for the chosen: indexing numpy element by element is the dear part here
            whole, sentence, lex = sims[chosen].tolist(), best[chosen].tolist(), lexical[chosen].tolist()
            memories = [self.memories[ids[i]] for i in chosen.tolist()]
            made = self._made[chosen].tolist()
            if request.second_vector is None:
                return [Hit.of(m, w, x, s if math.isfinite(s) else None, made=t)
                        for m, w, x, s, t in zip(memories, whole, lex, sentence, made, strict=True)]
            _, second_sims, second_best = self.cosine_all(request.second_vector)
            whole2, sentence2 = second_sims[chosen].tolist(), second_best[chosen].tolist()
            return [Hit.of(m, w, x, s if math.isfinite(s) else None, w2, s2 if math.isfinite(s2) else None, t)
                    for m, w, x, s, w2, s2, t in zip(memories, whole, lex, sentence, whole2, sentence2, made,
                                                     strict=True)]
