"""Hybrid relevance and the re-rank of SPEC R5."""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from mnemo.domain.models import IMPORTANCE_WEIGHT, Memory
from mnemo.domain.when import DateSpan


@dataclass(frozen=True)
class Hit:
    """A memory the index found, with its raw evidence of relevance."""

    memory: Memory
    cosine: float  # of the whole memory
    lexical: float  # raw BM25 (or 0 when the term evidence is absent)
    part_cosine: float | None = None  # best single sentence of a long memory
    # the same two, to the query's second vector (SearchRequest.second_vector), when it had one
    second_cosine: float | None = None
    second_part_cosine: float | None = None


@dataclass(frozen=True)
class Scored:
    memory: Memory
    cosine: float
    lexical: float  # normalised to 0..1 within this query
    relevance: float
    recency: float
    score: float
    # the part of ``relevance`` lent by memories made in the same sitting (0 without context_weight), and
    # the share of the query's second vector (RankingParams.second_weight):
    # it orders, but a memory's own evidence alone decides whether it clears a relevance floor
    context: float = 0.0
    # the part of ``relevance`` a memory gains because the request needs its kind of fact (its slot):
    # it counts as the memory's own, but is not evidence to compare other memories against
    needed: float = 0.0


@dataclass(frozen=True)
class RankingParams:
    a: float
    b: float
    c: float
    importance: float
    access: float
    lexical_weight: float
    recency_lambda: float
    sentence_weight: float = 0.0
    recency_exempt: frozenset[str] = frozenset()
    # added to the relevance of a memory made within a date the query names ("on 8 December, 2023")
    date_boost: float = 0.0
    # a memory gains context_weight x the best own relevance among the other memories made within
    # context_window_seconds of it (the same sitting): a reply rarely repeats the question's words
    context_weight: float = 0.0
    context_window_seconds: float = 1800.0
    # a memory gains second_weight x its semantic cosine to the query's second vector (the question without
    # the words common in the user's memories), where the hit has one; it orders and lends nothing to the sitting
    second_weight: float = 0.0
    version: int = 0  # of the tuned weights in force (0: the configured defaults)


def recency(memory: Memory, now: datetime, recency_lambda: float,
            exempt: frozenset[str] = frozenset()) -> float:
    """exp(-lambda * days since the fact was last confirmed); 1.0 for categories exempt from decay."""
    if memory.category.value in exempt:
        return 1.0
    days = max((now - memory.last_confirmed_at).total_seconds() / 86400.0, 0.0)
    return math.exp(-recency_lambda * days)


def semantic(hit: Hit, sentence_weight: float) -> float:
    """Cosine of the memory; a long one also counts its best sentence, so one apt line is not diluted."""
    if hit.part_cosine is None:
        return hit.cosine
    return (1.0 - sentence_weight) * hit.cosine + sentence_weight * max(hit.cosine, hit.part_cosine)


def fuse(cosine: float, lexical_norm: float, lexical_weight: float) -> float:
    """Relevance from both kinds of evidence; neither alone decides."""
    return (1.0 - lexical_weight) * max(cosine, 0.0) + lexical_weight * lexical_norm


def sitting_context(moments: Sequence[float], relevances: Sequence[float], window: float) -> list[float]:
    """For each memory (made at ``moments[i]``, seconds), the best relevance among the *other* memories
    made within ``window`` seconds of it; 0 where there is none.

    One sweep in time order with a sliding-window maximum on each side (a monotonic deque), so a
    search's candidates cost O(n log n), not O(n^2). Memories made at the same moment count as each
    other's neighbours."""
    n = len(moments)
    order = sorted(range(n), key=lambda i: moments[i])
    best = [0.0] * n
    for sweep in (order, order[::-1]):  # neighbours made before, then after
        window_max: deque[int] = deque()
        for i in sweep:
            while window_max and abs(moments[i] - moments[window_max[0]]) > window:
                window_max.popleft()
            if window_max:
                best[i] = max(best[i], relevances[window_max[0]])
            while window_max and relevances[window_max[-1]] <= relevances[i]:
                window_max.pop()
            window_max.append(i)
    return best


def rank(hits: list[Hit], now: datetime, params: RankingParams, dates: Sequence[DateSpan] = (),
         needed: Mapping[str, float] | None = None) -> list[Scored]:
    """Score every hit and return them best first (ties broken by id for stable output).

    ``dates`` are the spans the query names (mnemo.domain.when): a memory made within one is more
    relevant by ``params.date_boost``, whatever its words (measured on LoCoMo's tuning half: issue 15).
    With ``params.context_weight`` a memory also gains that share of the best relevance among the
    other hits made in the same sitting (issue 15: the answer to a question is often the turn after
    the one that shares its words). ``needed`` maps a slot to the relevance its memories gain because
    the request needs that kind of fact (domain/slot_affinity.py); it lends nothing to the sitting.
    """
    top_lexical = max((h.lexical for h in hits), default=0.0)
    own: list[tuple[float, float, float]] = []  # cosine, lexical, own relevance
    for h in hits:
        lex = h.lexical / top_lexical if top_lexical > 0 else 0.0
        cosine = semantic(h, params.sentence_weight)
        relevance = fuse(cosine, lex, params.lexical_weight)
        if dates and any(span.contains(h.memory.created_at) for span in dates):
            relevance += params.date_boost
        own.append((cosine, lex, relevance))
    lent = ([params.context_weight * r for r in sitting_context(
        [h.memory.created_at.timestamp() for h in hits], [o[2] for o in own], params.context_window_seconds)]
        if params.context_weight > 0 and len(hits) > 1 else [0.0] * len(hits))
    scored: list[Scored] = []
    for h, (cosine, lex, own_relevance), by_sitting in zip(hits, own, lent, strict=True):
        gain = needed.get(h.memory.subject.partition(":")[0], 0.0) if needed else 0.0
        # the second vector's share counts with the sitting's: it orders, a memory's own evidence decides what
        # clears a floor
        context = by_sitting + (params.second_weight * semantic(
            Hit(h.memory, h.second_cosine, 0.0, h.second_part_cosine), params.sentence_weight)
            if params.second_weight and h.second_cosine is not None else 0.0)
        relevance = own_relevance + context + gain
        rec = recency(h.memory, now, params.recency_lambda, params.recency_exempt)
        use = 1.0 - math.exp(-h.memory.access_count / 10.0)
        score = (params.a * relevance + params.b * rec + params.c * h.memory.confidence
                 + params.importance * IMPORTANCE_WEIGHT[h.memory.importance] + params.access * use)
        scored.append(Scored(h.memory, cosine, lex, relevance, rec, score, context, gain))
    scored.sort(key=lambda s: (-s.score, s.memory.memory_id))
    return scored


def diversify(ranked: Sequence[Scored], penalty: float, window: float, depth: int,
              key: Callable[[Scored], float]) -> list[Scored]:
    """Re-order the first ``depth`` of ``ranked`` (best first) so that a memory loses ``penalty`` of
    ``key`` for each memory already placed above it that was made within ``window`` seconds of it
    (the same sitting); the rest keep their order after them. 0 leaves the order as it is.

    Meant for questions that need memories of several sittings ("What activities does she do?"), whose
    first sitting's neighbours, lifted by ``context_weight``, can fill the top k (issue 15). Greedy and
    lazy: a memory's count of sitting-mates above it only grows, so a stale score is an upper bound and
    it is recounted only when it reaches the top of the heap."""
    if penalty <= 0 or len(ranked) < 2:
        return list(ranked)
    head, tail = list(ranked[:depth]), list(ranked[depth:])
    moments = [s.memory.created_at.timestamp() for s in head]
    heap = [(-key(s), i, 0) for i, s in enumerate(head)]  # i breaks ties in the given order
    heapq.heapify(heap)
    placed: list[int] = []
    while heap:
        _, i, counted = heapq.heappop(heap)
        mates = sum(1 for j in placed if abs(moments[i] - moments[j]) <= window)
        if mates != counted:
            heapq.heappush(heap, (-(key(head[i]) - penalty * mates), i, mates))
            continue
        placed.append(i)
    return [head[i] for i in placed] + tail
