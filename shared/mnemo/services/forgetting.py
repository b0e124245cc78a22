"""Forget by query (R7): semantic and lexical match over everything held, every status and every
earlier version; a matching memory is retired and its text wiped, a matching earlier version wiped."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from mnemo.domain.lexical import Bm25Index
from mnemo.domain.models import AuditEvent, Memory, MemoryVersion, Status
from mnemo.domain.ranking import Hit, RankingParams, fuse, rank
from mnemo.domain.sensitive import MARKER
from mnemo.domain.text import terms
from mnemo.services.context import Ports

if TYPE_CHECKING:
    from mnemo.services.consolidation import Consolidator

USER_DELETED = "user_deleted"
FORGOTTEN = "forgotten by the user"
# what a buffered turn says once forgotten: a redaction marker, so no extractor stores anything from it
FORGOTTEN_TURN = f"{MARKER}forgotten]"


@dataclass(frozen=True)
class _Text:
    """One text held about the user: a memory's current content, or one of its earlier versions."""

    key: str
    memory: Memory
    version: MemoryVersion | None


class Forgetter:
    def __init__(self, ports: Ports, summaries: Consolidator | None = None) -> None:
        self.p = ports
        self.summaries = summaries  # refreshes the summaries drawn from what is forgotten

    def forget(self, tenant_id: str, user_id: str, query: str, *, actor: str = "api") -> list[str]:
        """Retire the memories that match ``query`` closely, wipe matching history; returns their ids."""
        query = query.strip()
        if not query:
            return []
        vector = self.p.embedder.embed_queries([query])[0]
        now = self.p.clock.now()
        with self.p.locks.hold(tenant_id, user_id):
            # every status (superseded, disabled, archived, expired too): a forgotten fact must not live on
            memories = [m for m in self.p.memories.all_for_user(tenant_id, user_id) if m.status is not Status.DELETED]
            texts = [_Text(m.memory_id, m, None) for m in memories]
            for m in memories:
                if m.version > 1 or m.status is Status.SUPERSEDED:
                    texts.extend(_Text(f"{m.memory_id}#{h.version}", m, h)
                                 for h in self.p.memories.history(tenant_id, user_id, m.memory_id) if h.content)
            doomed = self._matches(texts, query, vector)
            retired: dict[str, Memory] = {}
            history: dict[tuple[str, int], MemoryVersion] = {}
            for text in doomed:
                m = text.memory
                if text.version is not None:
                    history[(m.memory_id, text.version.version)] = text.version.model_copy(
                        update={"content": "", "reason": FORGOTTEN})
                    # saved with its wiped version, itself unchanged (its stored vectors are kept), but for a
                    # slot named after the forgotten text (an edit keeps the slot: likes:mango -> kiwis)
                    update: dict[str, object] = {"embedding": None}
                    if set(terms(m.subject.replace(":", " ").replace("_", " "))) & set(terms(query)):
                        update["subject"] = f"note:{m.memory_id[:8]}"
                    retired.setdefault(m.memory_id, m.model_copy(update=update))
                    continue
                for h in self.p.memories.history(tenant_id, user_id, m.memory_id):
                    history[(m.memory_id, h.version)] = h.model_copy(update={"content": "", "reason": FORGOTTEN})
                history[(m.memory_id, m.version)] = MemoryVersion(
                    memory_id=m.memory_id, version=m.version, content="", category=m.category, status=m.status,
                    confidence=m.confidence, updated_at=now, reason=FORGOTTEN)
                # the record stays as a tombstone without its text (nor its vectors): its id (derived from the
                # source message) keeps a replay of the old turn from teaching the fact again. Its slot goes
                # too: most are named after the text ("pet:biscuit", "note:sister_wilhelmina_liv_quito")
                retired[m.memory_id] = m.model_copy(update={
                    "subject": f"note:{m.memory_id[:8]}",
                    "status": Status.DELETED, "superseded_by": USER_DELETED, "confidence": 0.0, "content": "",
                    "updated_at": now, "metadata": {}, "tags": [], "part_embeddings": None,
                    "embedding": [0.0] * len(vector),
                    # the sentence it was learned from is the forgotten text too
                    "provenance": m.provenance.model_copy(update={"evidence": None})})
            # a memory kept (its text does not match) may still quote the forgotten sentence as its evidence
            wanted = set(terms(query))
            quoting = [m.model_copy(update={"provenance": m.provenance.model_copy(update={"evidence": None})})
                       for m in memories if m.memory_id not in retired and m.provenance.evidence and wanted
                       and len(wanted & set(terms(m.provenance.evidence))) / len(wanted) >= 0.5]
            if quoting:
                with self.p.memories.atomic():
                    self.p.memories.save(quoting)
            if retired:  # the tombstones, the wiped history, the derived summaries and the audit event commit together
                with self.p.memories.atomic():
                    self.p.memories.save(list(retired.values()), list(history.values()))
                    if self.summaries is not None:
                        current = {m.memory_id: m for m in memories} | retired
                        self.summaries.refresh_summaries(tenant_id, user_id, list(current.values()), set(retired))
                    self.p.audit.record([AuditEvent(tenant_id=tenant_id, user_id=user_id, action="memory.forget",
                                                    actor=actor, memory_ids=list(retired), at=now)])
            self._scrub_sessions(tenant_id, user_id, query, vector)
            self._scrub_buffer(tenant_id, user_id, query, vector)
        return list(retired)

    def _scrub_buffer(self, tenant_id: str, user_id: str, query: str, vector: np.ndarray) -> None:
        """Turns not extracted yet would teach the forgotten fact again: a matching turn keeps its place
        (ids, order) and loses its text to a marker no fact is ever stored with."""
        turns = self.p.buffer.for_user(tenant_id, user_id)
        doomed = self._matching_lines([t.message.content for t in turns], query, vector)
        for turn in turns:
            if turn.message.content in doomed:
                self.p.buffer.rewrite(turn, FORGOTTEN_TURN)

    def _scrub_sessions(self, tenant_id: str, user_id: str, query: str, vector: np.ndarray) -> None:
        """The session state is derived from the turns too (rolling summary, recent turns, the app's
        confirmed facts and questions): what matches the forgotten text leaves it, line by line."""
        for state in self.p.sessions.for_user(tenant_id, user_id, self.p.clock.now()):
            lines = [line for line in state.rolling_summary.splitlines() if line.strip()]
            texts = [*lines, *(t.get("content", "") for t in state.recent_turns), *state.confirmed_facts,
                     *state.open_questions]
            doomed = self._matching_lines([t for t in texts if t], query, vector)
            if not doomed:
                continue
            kept = [t.get("content", "") not in doomed for t in state.recent_turns]
            self.p.sessions.put(tenant_id, user_id, state.model_copy(update={
                "rolling_summary": "\n".join(line for line in lines if line not in doomed),
                "recent_turns": [t for t, keep in zip(state.recent_turns, kept, strict=True) if keep],
                # the checkpoint still to fold counts the turns that stay
                "fold_due": sum(kept[:state.fold_due]),
                "confirmed_facts": [f for f in state.confirmed_facts if f not in doomed],
                "open_questions": [q for q in state.open_questions if q not in doomed]}))

    def _matching_lines(self, texts: list[str], query: str, vector: np.ndarray) -> set[str]:
        """The texts a forget of ``query`` reaches: the memories' test (relevance from cosine and the
        share of the query's terms present, and some lexical or strong semantic evidence)."""
        if not texts:
            return set()
        wanted = set(terms(query))
        vectors = self.p.embedder.embed(texts)
        out = set()
        for text, row in zip(texts, vectors, strict=True):
            cosine = float(np.dot(vector, row))
            lexical = len(wanted & set(terms(text))) / len(wanted) if wanted else 0.0
            if self._reaches(fuse(cosine, lexical, self.p.settings.forget_lexical_weight), lexical, cosine):
                out.add(text)
        return out

    def _matches(self, texts: list[_Text], query: str, vector: np.ndarray) -> list[_Text]:
        if not texts:
            return []
        old = [t for t in texts if t.version is not None]
        old_vectors = self.p.embedder.embed([t.version.content for t in old if t.version]) if old else None
        lexical = Bm25Index(self.p.settings.bm25_k1, self.p.settings.bm25_b)
        by_key: dict[str, _Text] = {}
        hits: list[Hit] = []
        for text in texts:
            content = text.version.content if text.version else text.memory.content
            lexical.add(text.key, terms(content))
            by_key[text.key] = text
        scores = lexical.score(terms(query))
        j = 0
        for text in texts:
            if text.version is not None and old_vectors is not None:
                cosine = float(np.dot(vector, old_vectors[j]))
                j += 1
            elif text.memory.embedding is not None:
                cosine = float(np.dot(vector, np.asarray(text.memory.embedding, dtype=np.float32)))
            else:
                cosine = 0.0
            hits.append(Hit(text.memory.model_copy(update={"memory_id": text.key}), cosine, scores.get(text.key, 0.0)))
        params = RankingParams(a=1.0, b=0.0, c=0.0, importance=0.0, access=0.0,
                               lexical_weight=self.p.settings.forget_lexical_weight,
                               recency_lambda=0.0, sentence_weight=self.p.settings.sentence_weight)
        return [by_key[s.memory.memory_id] for s in rank(hits, self.p.clock.now(), params)
                if self._reaches(s.relevance, s.lexical, s.cosine)]

    def _reaches(self, relevance: float, lexical: float, cosine: float) -> bool:
        """Close enough, with some lexical evidence or strong semantic evidence (one test for every text)."""
        return relevance >= self.p.settings.forget_min_relevance and (
            lexical > 0 or cosine >= self.p.settings.forget_min_cosine)
