"""The read path (DESIGN.md section 5): gate, profile || search, re-rank, conflicts, budget, trace."""

from __future__ import annotations

import hashlib
import math
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

import numpy as np

from mnemo.crypto import TenantHashKeys, keyed_hash
from mnemo.domain.agenda import is_agenda, is_past_plan, upcoming
from mnemo.domain.block import build_block
from mnemo.domain.extraction.slots import RETRACTION_TAG
from mnemo.domain.for_others import not_asked_for
from mnemo.domain.gate import GENERAL_KNOWLEDGE, Gate, GateDecision, decide, is_open_ended
from mnemo.domain.models import (
    SOURCE_PRECEDENCE,
    SOURCE_TIER,
    AuditEvent,
    Category,
    Memory,
    Profile,
    RetrievalTrace,
    SourceKind,
    Status,
)
from mnemo.domain.ranking import Hit, RankingParams, Scored, diversify, rank
from mnemo.domain.scope import visible_in_scope
from mnemo.domain.slot_affinity import SlotAffinity, query_space
from mnemo.domain.text import terms
from mnemo.domain.user_entries import drop_user, owners_of
from mnemo.domain.when import DateSpan, date_spans
from mnemo.errors import InvalidInput
from mnemo.ports import SearchRequest, Vector
from mnemo.services.context import Ports
from mnemo.services.profile import ProfileView
from mnemo.services.signals import ImplicitSignals


@dataclass
class RetrieveResult:
    decision: str
    reason: str
    profile: Profile | None
    memories: list[Scored]
    conflicts: list[list[str]]
    pending: list[Memory]
    context: str
    tokens: int
    trace_id: str
    timings_ms: dict[str, float] = field(default_factory=dict)


TRACE_TIMING_GRAIN_MS = 50


def _near_miss(s: Scored, best: float, floor: float, ratio: float) -> bool:
    """Under the relevance cut-off, but among the best this user has for the request."""
    own = s.relevance - s.context  # what the memory's own evidence gives, without its sitting's share
    return own >= floor and own >= ratio * best


def said_together(kept: list[Scored], ranked: list[Scored], limit: int, now: datetime) -> list[Scored]:
    """The kept memories, then up to ``limit`` live facts extracted from the same clause of the same
    conversation as each: what the extractor split apart was said as one ("I've joined the cathedral choir
    instead, Thursday evenings, alto" gave "routine: Thursday evenings, alto" and "routine: cathedral choir"; a
    request about Thursday evenings needs both). They come after every kept memory, so a top-k cut never drops
    a kept memory for them; summaries and what an app handed over carry no clause of their own."""
    if not limit:
        return kept
    chosen = {s.memory.memory_id for s in kept}

    def said(memory: Memory) -> tuple[str, str] | None:
        p = memory.provenance
        return (p.conversation_id or "", p.evidence) if p.evidence and p.source is SourceKind.EXTRACTED else None

    by_clause: dict[tuple[str, str], list[Scored]] = {}
    for s in ranked:
        key = said(s.memory)
        if (key and s.memory.memory_id not in chosen and RETRACTION_TAG not in s.memory.tags
                and not is_past_plan(s.memory, now)):
            by_clause.setdefault(key, []).append(s)
    siblings: list[Scored] = []
    for s in kept:
        key = said(s.memory)
        if key:
            siblings.extend(by_clause.pop(key, [])[:limit])
    return kept + siblings


def needed_slots(kept: list[Scored], ranked: list[Scored], gain_at_least: float, now: datetime) -> list[Scored]:
    """The kept memories, then, for each slot the request needs so surely that its memories gained at least
    ``gain_at_least`` of relevance (``Scored.needed``), the best-ranked live memory of that slot not yet kept:
    what a request needs seldom shares its words ("cli entrypoint with a --dry-run flag" and "User's project
    uses python 3.12"), and the relevance floor is a matter of words. They come after every kept memory, so a
    top-k cut drops them first; one a slot, so a slot the user has said much about cannot fill the block."""
    if gain_at_least <= 0:
        return kept
    chosen = {s.memory.memory_id for s in kept}
    filled: set[str] = set()
    extra: list[Scored] = []
    for s in ranked:
        slot = s.memory.subject.partition(":")[0]
        if (s.needed < gain_at_least or slot in filled or s.memory.memory_id in chosen
                or RETRACTION_TAG in s.memory.tags or is_past_plan(s.memory, now)):
            continue
        filled.add(slot)
        extra.append(s)
    return kept + extra


class QueryEmbeddings:
    """LRU cache of query embeddings (R13), per tenant and user: a hit (and the time it saves) never
    tells one tenant or user what another asked. A query is held by its digest, not its text, and an erase
    drops the user's entries (``forget_user``): an erased user's questions were kept in the clear, with
    their vectors, in every worker that served them, and a later user of the same id hit them."""

    def __init__(self, ports: Ports, *, for_search: bool = False) -> None:
        """``for_search``: the search route's cache, its vectors from the search query encoder
        (``Embedder.embed_search_queries``); never mixed with retrieve's, which another model makes."""
        self._embed = ports.embedder.embed_search_queries if for_search else ports.embedder.embed_queries
        self.cache_name = "search_queries" if for_search else "retrieve_queries"
        self._size = ports.settings.query_cache_size
        self._cache: OrderedDict[tuple[str, str, bytes], Vector] = OrderedDict()
        self._lock = threading.Lock()

    def owners(self) -> set[tuple[str, str]]:
        with self._lock:
            return owners_of(self._cache)

    def forget_user(self, tenant_id: str, user_id: str) -> None:
        with self._lock:
            drop_user(self._cache, tenant_id, user_id)

    def get(self, text: str, tenant_id: str = "", user_id: str = "") -> Vector:
        key = (tenant_id, user_id, hashlib.sha256(" ".join(text.split()).lower().encode("utf-8", "replace")).digest())
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        vector: Vector = self._embed([text])[0]
        if self._size:
            with self._lock:
                self._cache[key] = vector
                while len(self._cache) > self._size:
                    self._cache.popitem(last=False)
        return vector


def _wins(a: Memory, b: Memory) -> bool:
    """The user's word over inference, then newer, then explicit, then more confident (R5)."""
    key_a = (SOURCE_TIER[a.provenance.source], a.last_confirmed_at, SOURCE_PRECEDENCE[a.provenance.source],
             a.confidence)
    key_b = (SOURCE_TIER[b.provenance.source], b.last_confirmed_at, SOURCE_PRECEDENCE[b.provenance.source],
             b.confidence)
    return key_a >= key_b


class Retriever:
    def __init__(self, ports: Ports, signals: ImplicitSignals | None = None,
                 profiles: ProfileView | None = None, *, profile_in_parallel: bool = True,
                 affinity: SlotAffinity | None = None) -> None:
        """``profile_in_parallel``: read the profile on a thread while the query is embedded and searched,
        which pays where the read is a network call (DynamoDB). Where it is a local SQLite read, the
        interpreter lock serialises the two anyway, and the hand-over between threads cost more than
        it overlapped: read it inline."""
        self.p = ports
        self.signals = signals
        self.profiles = profiles or ProfileView(ports)
        self.queries = QueryEmbeddings(ports)
        self.search_queries = QueryEmbeddings(ports, for_search=True)
        # which kinds of fact a request needs; only over the query vectors it was trained on (the AWS home's
        # Titan vectors are another space: there it is left out)
        space = query_space(ports.embedder.model_id, ports.settings.fast_query_model)
        self.affinity = affinity if affinity is not None and affinity.fits(space, ports.embedder.dimension) else None
        self._pool = (ThreadPoolExecutor(max_workers=4, thread_name_prefix="mnemo-profile")
                      if profile_in_parallel else None)
        # the tenant's query-hash key, derived once per process: reading it from the vault was a database read
        # on every retrieve
        self._query_hash_key = TenantHashKeys(self.p.vault, "query")
        # told of every retrieval (the Lambda records its per-stage metrics); never given the query text
        self.observers: list[Callable[[RetrieveResult], None]] = []

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False)

    def _profile(self, tenant_id: str, user_id: str) -> Profile | None:
        profile = self.profiles.current(tenant_id, user_id)
        return None if profile.is_empty() else profile

    def _params(self, tenant_id: str | None = None) -> RankingParams:
        w = self.p.settings.weights
        tuned = self.p.weights.current(tenant_id) if tenant_id else None
        a, b, c = (tuned.a, tuned.b, tuned.c) if tuned else (w.a, w.b, w.c)
        return RankingParams(a=a, b=b, c=c, importance=w.importance, access=w.access,
                             version=tuned.version if tuned else 0,
                             lexical_weight=self.p.settings.lexical_weight,
                             recency_lambda=self.p.settings.recency_lambda,
                             sentence_weight=self.p.settings.sentence_weight,
                             recency_exempt=self.p.settings.recency_exempt,
                             date_boost=self.p.settings.date_boost,
                             context_weight=self.p.settings.context_weight,
                             context_window_seconds=self.p.settings.context_window_seconds)

    def _dates(self, query: str) -> list[DateSpan]:
        """The dates the query names (a month without its year read against the clock, when so set)."""
        settings = self.p.settings
        return date_spans(query, settings.date_slack_days,
                          self.p.clock.now() if settings.date_month_without_year else None)

    def search(self, tenant_id: str, user_id: str, query: str, *, top_k: int, category: Category | None = None,
               project_id: str | None = None, session_id: str | None = None,
               rank_by: str = "relevance") -> list[Scored]:
        """Ranked search with no gate, no minimum and no budget (memory UIs, benchmarks).

        By default the order is relevance (what matches the query), ties broken by the full score;
        ``rank_by="score"`` orders by the re-rank retrieve uses (recency, confidence, importance).
        """
        vector = self.search_queries.get(query, tenant_id, user_id)
        hits = self.p.memories.search(tenant_id, user_id, SearchRequest(
            vector=vector, terms=terms(query), limit=max(top_k * self.p.settings.candidate_multiplier, 20),
            now=self.p.clock.now(), project_id=project_id, session_id=session_id,
            categories=frozenset({category}) if category else None,
            second_vector=self._second_vector(query, vector, tenant_id, user_id)))
        params = replace(self._params(), second_weight=self.p.settings.second_query_weight)
        if self.p.embedder.own_search_model:
            params = replace(params, lexical_weight=self.p.settings.search_lexical_weight)
        ranked = rank(hits, self.p.clock.now(), params, self._dates(query))
        if rank_by == "relevance":
            ranked.sort(key=lambda s: (-s.relevance, -s.score, s.memory.memory_id))
        return self._diversified(ranked, (lambda s: s.relevance) if rank_by == "relevance" else (lambda s: s.score))[
            :top_k]

    def _second_vector(self, query: str, vector: Vector, tenant_id: str, user_id: str) -> Vector | None:
        """Search's second query vector: the query without its words found in more than
        settings.common_word_share of the user's memories (settings.second_query_kind says how it is made);
        None when it has no such word, or nothing else, or the setting is off."""
        settings = self.p.settings
        if not settings.second_query_weight:
            return None
        common = self.p.memories.common_terms(tenant_id, user_id, terms(query), settings.common_word_share)
        if not common:
            return None
        words = query.split()
        dropped = [w for w in words if common.intersection(terms(w))]
        if not dropped or len(dropped) == len(words):
            return None
        if settings.second_query_kind == "text":
            return self.search_queries.get(" ".join(w for w in words if w not in dropped), tenant_id, user_id)
        second = np.asarray(vector, dtype=np.float32).copy()
        for word in dropped:
            own = self.search_queries.get(word.strip("?,.!;:\"'").removesuffix("'s"), tenant_id, user_id)
            second -= settings.common_word_subtract * own
        norm = float(np.linalg.norm(second))
        return second / norm if norm > 0 else None

    def _diversified(self, ranked: list[Scored], key: Callable[[Scored], float]) -> list[Scored]:
        """The n-th memory of one sitting pays for the ones above it (settings.sitting_penalty; off by default)."""
        settings = self.p.settings
        return diversify(ranked, settings.sitting_penalty, settings.context_window_seconds,
                         settings.sitting_penalty_depth, key)

    def retrieve(self, tenant_id: str, user_id: str, query: str, *, top_k: int, token_budget: int,
                 project_id: str | None = None, session_id: str | None = None,
                 conversation_id: str | None = None) -> RetrieveResult:
        settings = self.p.settings
        if token_budget > settings.token_budget_cap:
            raise InvalidInput(f"token_budget must be at most {settings.token_budget_cap}",
                               details={"field": "token_budget"})
        started = time.perf_counter()
        timings: dict[str, float] = {}
        now = self.p.clock.now()
        trace_id = uuid.uuid4().hex

        if not self.p.user_settings.get(tenant_id, user_id).memory_enabled:
            return self._finish(tenant_id, user_id, query, trace_id, "skip", "memory is off for this user",
                                None, [], [], [], [], timings, started, conversation_id)
        gate = self._second_look(decide(query), query, tenant_id, user_id)
        timings["gate"] = _ms(started)
        if gate.decision is GateDecision.SKIP:
            return self._instructions_only(tenant_id, user_id, query, trace_id, gate.reason, token_budget,
                                           timings, started, conversation_id)

        if gate.decision is GateDecision.OVERVIEW:
            return self._overview(tenant_id, user_id, query, trace_id, gate.reason, top_k, token_budget,
                                  project_id, session_id, timings, started, conversation_id)
        profile_future: Future[Profile | None] | None = (
            self._pool.submit(self._profile, tenant_id, user_id) if self._pool is not None else None)
        ranked: list[Scored] = []
        best = 0.0  # the best own relevance among the candidates (near misses are measured against it)
        pending: list[Memory] = []
        vector: Vector | None = None
        params = self._params(tenant_id)
        if gate.decision is GateDecision.RETRIEVE:
            t = time.perf_counter()
            vector = self.queries.get(query, tenant_id, user_id)
            timings["embed"] = _ms(t)
            t = time.perf_counter()
            # one pass over the index: live memories to inject, pending ones to offer for confirmation
            request = SearchRequest(vector=vector, terms=terms(query), limit=top_k * settings.candidate_multiplier,
                                    now=now, project_id=project_id, session_id=session_id,
                                    statuses=frozenset({Status.ACTIVE, Status.PROBATIONARY, Status.PENDING}))
            found = self.p.memories.search(tenant_id, user_id, request)
            hits = [h for h in found if h.memory.status is not Status.PENDING]
            timings["search"] = _ms(t)
            t = time.perf_counter()
            dates = self._dates(query)
            ranked = self._diversified(rank(hits, now, params, dates, self._needed(vector)), lambda s: s.score)
            # the best evidence the user's memories hold on their own, without what their slot gained
            best = max((s.relevance - s.context - s.needed for s in ranked if RETRACTION_TAG not in s.memory.tags),
                       default=0.0)
            pending = [s.memory for s in rank([h for h in found if h.memory.status is Status.PENDING], now,
                                              params, dates) if s.relevance - s.context >= settings.min_relevance][:3]
            timings["rerank"] = _ms(t)
        t = time.perf_counter()
        profile = profile_future.result() if profile_future is not None else self._profile(tenant_id, user_id)
        timings["profile_wait"] = _ms(t)

        rejected: dict[str, str] = {}
        kept: list[Scored] = []
        near_misses = settings.near_miss_limit
        # a memory's own relevance decides what goes in: the share lent by its sitting only orders
        for s in ranked:
            if RETRACTION_TAG in s.memory.tags:
                rejected[s.memory.memory_id] = "retraction"
            elif s.relevance - s.context >= settings.min_relevance and s.cosine >= settings.min_cosine:
                kept.append(s)
            elif (near_misses > 0 and _near_miss(s, best, settings.near_miss_floor, settings.near_miss_ratio)
                  and not is_past_plan(s.memory, now)):
                near_misses -= 1
                kept.append(s)
            else:
                rejected[s.memory.memory_id] = "below_min_relevance"
        kept = said_together(kept, ranked, settings.said_together_limit, now)
        kept = needed_slots(kept, ranked, settings.slot_boost * settings.needed_slot_at_least, now)
        unasked = self._unasked(query, kept)
        kept = [s for s in kept if s.memory.memory_id not in unasked]
        for s in kept:
            rejected.pop(s.memory.memory_id, None)
        rejected.update(dict.fromkeys(unasked, "not_asked_for"))
        kept, conflicts, lost = self._resolve_conflicts(kept)
        rejected.update(dict.fromkeys(lost, "conflict_lost"))
        for s in kept[top_k:]:
            rejected[s.memory.memory_id] = "below_top_k"
        kept = kept[:top_k]
        if gate.decision is GateDecision.RETRIEVE and settings.agenda_limit and is_agenda(query):
            kept = self._with_agenda(tenant_id, user_id, kept, ranked, now, project_id, session_id)
            unasked = self._unasked(query, kept)  # a visit the agenda brought is one too
            kept = [s for s in kept if s.memory.memory_id not in unasked]
            rejected.update(dict.fromkeys(unasked, "not_asked_for"))
        conflicted = {i for pair in conflicts for i in pair}
        shown = profile
        if profile is not None and gate.decision is GateDecision.RETRIEVE:
            # identity and constraints always go in; a preference only when this request touches it
            # (seed 001: "irrelevant memory suppression")
            # an open-ended personal request ("plan my weekend", "gift ideas for me") needs the user's tastes
            # even when no preference resembles its words
            relevant = {s.memory.content for s in kept}
            if not is_open_ended(query):
                shown = profile.model_copy(update={"preferences": [p for p in profile.preferences
                                                                   if p in relevant]})
        block = build_block(shown if shown and not shown.is_empty() else None,
                            [s.memory for s in kept], now, token_budget, conflicted)
        rejected.update(dict.fromkeys(block.dropped, "token_budget"))
        selected = [s for s in kept if s.memory.memory_id in set(block.included)]
        conflicts = [pair for pair in conflicts if all(i in block.included for i in pair)]
        return self._finish(tenant_id, user_id, query, trace_id, "retrieve", gate.reason, profile, ranked,
                            selected, conflicts, pending, timings, started, conversation_id,
                            rejected=rejected, context=block.text, tokens=block.tokens, vector=vector,
                            params=params)

    def _unasked(self, query: str, kept: list[Scored]) -> set[str]:
        """The kept facts of people in the user's care (and visits saying what the visitor needs) that this request
        does not ask for (domain/for_others.py; settings.care_facts_when_asked)."""
        if not self.p.settings.care_facts_when_asked:
            return set()
        return {s.memory.memory_id for s in kept
                if not_asked_for(query, s.memory.subject, s.memory.content, s.needed)}

    def _second_look(self, gate: Gate, query: str, tenant_id: str, user_id: str) -> Gate:
        """A request worded like general knowledge may still need the user's facts ("what's good to put in
        the slow cooker tomorrow" needs their diet): when the slot affinity is sure enough of a slot, it is
        searched after all. Costs the query's embedding, which the search then reuses from the cache."""
        at_least = self.p.settings.gate_second_look_at_least
        if (gate.decision is not GateDecision.SKIP or gate.reason != GENERAL_KNOWLEDGE or self.affinity is None
                or not self.p.settings.slot_boost or not at_least):
            return gate
        needed = self.affinity.needed(self.queries.get(query, tenant_id, user_id))
        slot = max(needed, key=needed.__getitem__)
        if needed[slot] < at_least:
            return gate
        return Gate(GateDecision.RETRIEVE, f"worded as general knowledge, but needs the user's {slot}")

    def _needed(self, vector: Vector) -> dict[str, float] | None:
        """The relevance each slot's memories gain because the request needs that kind of fact:
        "keybinding to format on save?" shares nothing with "User uses helix" but needs the user's tools."""
        settings = self.p.settings
        if self.affinity is None or not settings.slot_boost:
            return None
        return self.affinity.gains(vector, settings.slot_boost, settings.slot_affinity_at_least)

    def _with_agenda(self, tenant_id: str, user_id: str, kept: list[Scored], ranked: list[Scored], now: datetime,
                     project_id: str | None, session_id: str | None) -> list[Scored]:
        """A question about the user's coming weeks also gets their plans still ahead, soonest first, when
        the search did not bring them (they seldom share its words)."""
        page = self.p.memories.page(tenant_id, user_id, statuses=[Status.ACTIVE], category=Category.EPISODIC,
                                    limit=self.p.settings.max_active_memories, cursor=None).items
        live = [m for m in page if m.is_live(now) and visible_in_scope(m, project_id, session_id)
                and RETRACTION_TAG not in m.tags]
        have = {s.memory.memory_id for s in kept}
        found = {s.memory.memory_id: s for s in ranked}
        extra = [found.get(m.memory_id) or Scored(m, 0.0, 0.0, 0.0, 0.0, 0.0)
                 for m in upcoming(live, now, self.p.settings.agenda_limit) if m.memory_id not in have]
        return kept + extra

    def _instructions_only(self, tenant_id: str, user_id: str, query: str, trace_id: str, reason: str,
                           token_budget: int, timings: dict[str, float], started: float,
                           conversation_id: str | None) -> RetrieveResult:
        """A request that needs no memory still gets the user's standing answer instructions (format,
        language, length, tone): they apply to every answer, "what is a mole" included. Nothing is searched
        and no other fact is shown; the profile is a cached read."""
        profile = self._profile(tenant_id, user_id) if self.p.settings.instructions_on_skip else None
        timings["profile_wait"] = _ms(started)
        if profile is None or not profile.instructions:
            return self._finish(tenant_id, user_id, query, trace_id, "skip", reason, None, [], [], [], [],
                                timings, started, conversation_id)
        shown = Profile(instructions=profile.instructions, updated_at=profile.updated_at)
        block = build_block(shown, [], self.p.clock.now(), token_budget)
        return self._finish(tenant_id, user_id, query, trace_id, "skip", f"{reason}; answer instructions only",
                            shown if block.text else None, [], [], [], [], timings, started, conversation_id,
                            context=block.text, tokens=block.tokens)

    def _overview(self, tenant_id: str, user_id: str, query: str, trace_id: str, reason: str, top_k: int,
                  token_budget: int, project_id: str | None, session_id: str | None, timings: dict[str, float],
                  started: float, conversation_id: str | None) -> RetrieveResult:
        """What is remembered, whatever the topic: the profile and the most important live memories.
        Only what may be shown: active memories in this scope (not pending, disabled or expired)."""
        now = self.p.clock.now()
        profile = self._profile(tenant_id, user_id)
        live = [m for m in self.p.memories.all_for_user(tenant_id, user_id)
                if m.status is Status.ACTIVE and m.is_live(now) and visible_in_scope(m, project_id, session_id)]
        # no query relevance here: every memory counts as fully relevant, the rest of the score orders them
        # (and so none lends relevance to the memories of its sitting)
        params = replace(self._params(tenant_id), context_weight=0.0)
        ranked = rank([Hit(m, 1.0, 0.0) for m in live], now, params)[: max(top_k, 10)]
        block = build_block(profile if profile and not profile.is_empty() else None, [s.memory for s in ranked],
                            now, token_budget, overview=True)
        selected = [s for s in ranked if s.memory.memory_id in set(block.included)]
        return self._finish(tenant_id, user_id, query, trace_id, "retrieve", reason, profile, ranked, selected,
                            [], [], timings, started, conversation_id, context=block.text, tokens=block.tokens,
                            params=params)

    def _resolve_conflicts(self, kept: list[Scored]) -> tuple[list[Scored], list[list[str]], list[str]]:
        """Same-slot disagreements: the winner stays. Ambiguous pairs (linked at write time) are flagged."""
        by_subject: dict[tuple[str, str | None, str | None], Scored] = {}
        lost: list[str] = []
        out: list[Scored] = []
        for s in kept:
            key = (s.memory.subject, s.memory.project_id, s.memory.session_id)
            other = by_subject.get(key)
            if other is None or s.memory.subject.startswith("note:"):
                by_subject[key] = s
                out.append(s)
                continue
            if _wins(other.memory, s.memory):
                lost.append(s.memory.memory_id)
            else:
                lost.append(other.memory.memory_id)
                out[out.index(other)] = s
                by_subject[key] = s
        ids = {s.memory.memory_id for s in out}
        conflicts: list[list[str]] = []
        for s in out:
            for other_id in s.memory.conflicts_with:
                pair = sorted([s.memory.memory_id, other_id])
                if other_id in ids and pair not in conflicts:
                    conflicts.append(pair)
        return out, conflicts, lost

    def _finish(self, tenant_id: str, user_id: str, query: str, trace_id: str, decision: str, reason: str,
                profile: Profile | None, candidates: list[Scored], selected: list[Scored],
                conflicts: list[list[str]], pending: list[Memory], timings: dict[str, float],
                started: float, conversation_id: str | None, *, rejected: dict[str, str] | None = None,
                context: str = "", tokens: int = 0, vector: Vector | None = None,
                params: RankingParams | None = None) -> RetrieveResult:
        now = self.p.clock.now()
        rejected = rejected or {}
        selected_ids = [s.memory.memory_id for s in selected]
        params = params or self._params(tenant_id)
        chosen = set(selected_ids)
        timings["total"] = _ms(started)
        trace = RetrievalTrace(
            trace_id=trace_id, tenant_id=tenant_id, user_id=user_id, conversation_id=conversation_id,
            decision=decision, reason=reason,
            query_hash=keyed_hash(self._query_hash_key(tenant_id), query),
            # plain dicts, which pydantic-core validates into TraceCandidate in one pass: a third of the
            # cost of a model_construct per candidate, whose field loop runs in Python (hot path)
            candidates=[{
                "memory_id": s.memory.memory_id, "cosine": round(s.cosine, 4), "lexical": round(s.lexical, 4),
                "relevance": round(s.relevance, 4), "recency": round(s.recency, 4),
                "confidence": s.memory.confidence, "score": round(s.score, 4),
                "selected": s.memory.memory_id in chosen, "reason": rejected.get(s.memory.memory_id),
                "derived_from": s.memory.provenance.memory_ids} for s in candidates],
            selected=selected_ids, conflicts=conflicts, tokens=tokens,
            weights={"a": params.a, "b": params.b, "c": params.c}, weights_version=params.version,
            # the client sees a coarse total only: stage timings would show a cache hit (DESIGN.md section 7);
            # the per-stage figures go to the operator's metrics through the observers
            timings_ms={"total": TRACE_TIMING_GRAIN_MS * math.ceil(timings["total"] / TRACE_TIMING_GRAIN_MS)},
            created_at=now,
            expires_at=now + timedelta(days=self.p.settings.trace_ttl_days),
        )
        self.p.traces.put(trace)
        if self.signals is not None and vector is not None:
            self.signals.observe_query(trace, query, vector)
        events = [AuditEvent(tenant_id=tenant_id, user_id=user_id, action="retrieve", actor="api",
                             memory_ids=[s.memory.memory_id for s in candidates][:50], at=now,
                             detail={"trace_id": trace_id, "decision": decision})]
        if selected_ids:
            events.append(AuditEvent(tenant_id=tenant_id, user_id=user_id, action="inject", actor="api",
                                     memory_ids=selected_ids, at=now, detail={"trace_id": trace_id}))
        self.p.audit.record(events)
        result = RetrieveResult(decision=decision, reason=reason, profile=profile, memories=selected,
                                conflicts=conflicts, pending=pending, context=context, tokens=tokens,
                                trace_id=trace_id, timings_ms=timings)
        for observe in self.observers:
            observe(result)
        return result


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000.0, 3)


