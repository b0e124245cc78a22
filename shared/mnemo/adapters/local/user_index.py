"""An in-memory index of one user's live memories: exact cosine over a matrix, plus BM25.

Per user the live set is capped (1,000 by default), so an exact scan is both faster and
more accurate than an approximate index at this size (DESIGN.md section 5).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from mnemo.domain.lexical import Bm25Index
from mnemo.domain.models import Memory, Scope
from mnemo.domain.ranking import Hit
from mnemo.domain.text import terms
from mnemo.ports import SearchRequest, Vector


def visible_in(memory: Memory, project_id: str | None, session_id: str | None) -> bool:
    """User-scoped facts are always in view; project and session facts only in their own."""
    if memory.scope is Scope.PROJECT:
        return project_id is not None and memory.project_id == project_id
    if memory.scope is Scope.SESSION:
        return session_id is not None and memory.session_id == session_id
    return True


class UserIndex:
    def __init__(self, dimension: int, generation: int, k1: float, b: float) -> None:
        self.generation = generation
        self._dimension = dimension
        self.memories: dict[str, Memory] = {}
        self._vectors: dict[str, Vector] = {}
        self._bm25 = Bm25Index(k1, b)
        self._ids: list[str] = []
        self._matrix: Vector = np.zeros((0, dimension), dtype=np.float32)
        self._dirty = False

    def put(self, memory: Memory, vector: Vector) -> None:
        self.memories[memory.memory_id] = memory
        self._vectors[memory.memory_id] = vector
        self._bm25.add(memory.memory_id, terms(memory.content))
        self._dirty = True

    def vector(self, memory_id: str) -> Vector:
        return self._vectors[memory_id]

    def remove(self, memory_id: str) -> None:
        if self.memories.pop(memory_id, None) is not None:
            self._vectors.pop(memory_id, None)
            self._bm25.remove(memory_id)
            self._dirty = True

    def _refresh(self) -> None:
        if self._dirty:
            self._ids = list(self._vectors)
            self._matrix = (np.stack([self._vectors[i] for i in self._ids]) if self._ids
                            else np.zeros((0, self._dimension), dtype=np.float32))
            self._dirty = False

    def cosine_all(self, vector: Vector) -> tuple[list[str], Vector]:
        self._refresh()
        if not self._ids:
            return [], np.zeros(0, dtype=np.float32)
        return self._ids, self._matrix @ vector

    def similar(self, vector: Vector, limit: int) -> list[tuple[Memory, float]]:
        ids, sims = self.cosine_all(vector)
        if not ids:
            return []
        order = np.argsort(-sims)[:limit]
        return [(self.memories[ids[i]], float(sims[i])) for i in order]

    def search(self, request: SearchRequest) -> list[Hit]:
        ids, sims = self.cosine_all(request.vector)
        if not ids:
            return []
        now = request.now

        def allowed(m: Memory) -> bool:
            return (m.status in request.statuses
                    and (m.expires_at is None or m.expires_at > now)
                    and (request.categories is None or m.category in request.categories)
                    and visible_in(m, request.project_id, request.session_id))

        mask = np.fromiter((allowed(self.memories[i]) for i in ids), dtype=bool, count=len(ids))
        if not mask.any():
            return []
        masked = np.where(mask, sims, -np.inf)
        k = min(request.limit, int(mask.sum()))
        top = np.argpartition(-masked, k - 1)[:k] if k < len(ids) else np.arange(len(ids))
        chosen: dict[str, float] = {ids[i]: float(sims[i]) for i in top if mask[i]}
        lexical = self._bm25.score(request.terms)
        allowed_lex = sorted(((s, mid) for mid, s in lexical.items() if allowed(self.memories[mid])),
                             reverse=True)[: request.limit]
        position = {mid: i for i, mid in enumerate(ids)}
        for _, mid in allowed_lex:
            if mid not in chosen:
                chosen[mid] = float(sims[position[mid]])
        return [Hit(self.memories[mid], cos, lexical.get(mid, 0.0)) for mid, cos in chosen.items()]

    def load(self, rows: Iterable[tuple[Memory, Vector]]) -> None:
        for memory, vector in rows:
            self.put(memory, vector)
