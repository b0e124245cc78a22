"""Hybrid relevance and the re-rank of SPEC R5."""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import numpy.typing as npt

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
    # memory.created_at as a POSIX timestamp, where the store has it at hand (reading it from the datetime
    # costs more than the rest of a hit's ranking); None: ``rank`` reads it
    made: float | None = None

    @classmethod
    def of(cls, memory: Memory, cosine: float, lexical: float, part_cosine: float | None = None,
           second_cosine: float | None = None, second_part_cosine: float | None = None,
           made: float | None = None) -> Hit:
        """A Hit made without the frozen dataclass's __init__ (one object.__setattr__ a field: a tenth of a
        warm retrieve's search over a user's index, as for ``Scored.of``); the same object otherwise."""
        hit = object.__new__(cls)
        hit.__dict__.update(memory=memory, cosine=cosine, lexical=lexical, part_cosine=part_cosine,
                            second_cosine=second_cosine, second_part_cosine=second_part_cosine, made=made)
        return hit


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

    @classmethod
    def of(cls, memory: Memory, cosine: float, lexical: float, relevance: float, recency: float, score: float,
           context: float, needed: float) -> Scored:
        """A Scored made without the frozen dataclass's __init__ (one object.__setattr__ a field: a third of
        ``rank``'s time over a search's 100-200 candidates); the same object otherwise."""
        made = object.__new__(cls)
        made.__dict__.update(memory=memory, cosine=cosine, lexical=lexical, relevance=relevance, recency=recency,
                             score=score, context=context, needed=needed)
        return made


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
    made within ``window`` seconds of it; 0 where there is none. Memories made at the same moment count
    as each other's neighbours."""
    best: list[float] = _sitting_context(np.asarray(moments, dtype=np.float64),
                                         np.asarray(relevances, dtype=np.float64), window).tolist()
    return best


def _sitting_context(moments: npt.NDArray[np.float64], relevances: npt.NDArray[np.float64],
                     window: float) -> npt.NDArray[np.float64]:
    """``sitting_context`` over arrays: in time order, each memory's neighbours are a run before it and a
    run after it, and numpy takes the maximum of every run at once (O(n log n) and the candidate's run
    lengths, none of it in Python)."""
    n = len(moments)
    if n == 0:
        return np.zeros(0)
    order = np.argsort(moments, kind="stable")
    at, worth = moments[order], relevances[order]
    first = np.searchsorted(at, at - window, side="left")  # the first made at most ``window`` before
    after = np.searchsorted(at, at + window, side="right")  # past the last made at most ``window`` after
    place = np.arange(n)
    padded = np.append(worth, 0.0)  # a run may end at n
    best = np.zeros(n)
    for lo, hi in ((first, place), (place + 1, after)):
        # reduceat over the pairs (lo, hi) gives each run's maximum at the even places (an empty run gives
        # its first element instead: masked)
        bounds = np.empty(2 * n, dtype=np.int64)
        bounds[0::2], bounds[1::2] = lo, hi
        runs = np.maximum.reduceat(padded, bounds)[0::2]
        best = np.maximum(best, np.where(hi > lo, runs, 0.0))
    out = np.empty(n)
    out[order] = best
    return out


def _semantic(cosine: npt.NDArray[np.float64], part: npt.NDArray[np.float64],
              sentence_weight: float) -> npt.NDArray[np.float64]:
    """``semantic`` over arrays (``part`` NaN where a memory has no sentences): the same floats."""
    # fmax takes the cosine where ``part`` is NaN, a value np.where then replaces anyway (nan_to_num was a tenth
    # of ``rank`` over a warm retrieve's ~20 hits)
    mixed = (1.0 - sentence_weight) * cosine + sentence_weight * np.fmax(cosine, part)
    return np.where(np.isnan(part), cosine, mixed)


def rank(hits: list[Hit], now: datetime, params: RankingParams, dates: Sequence[DateSpan] = (),
         needed: Mapping[str, float] | None = None) -> list[Scored]:
    """Score every hit and return them best first (ties broken by id for stable output).

    ``dates`` are the spans the query names (mnemo.domain.when): a memory made within one is more
    relevant by ``params.date_boost``, whatever its words (measured on LoCoMo's tuning half: issue 15).
    With ``params.context_weight`` a memory also gains that share of the best relevance among the
    other hits made in the same sitting (issue 15: the answer to a question is often the turn after
    the one that shares its words). ``needed`` maps a slot to the relevance its memories gain because
    the request needs that kind of fact (domain/slot_affinity.py); it lends nothing to the sitting.

    Each term is computed for every hit at once with numpy (a search ranks 100-200 candidates, and a
    loop over them in Python was a third of a LoCoMo search's time); every operation is the one a hit at
    a time would do, in the same order, so the floats are the same (exp stays math.exp's).
    """
    n = len(hits)
    if not n:
        return []
    memories = [h.memory for h in hits]
    nan = math.nan
    whole = np.fromiter((h.cosine for h in hits), dtype=np.float64, count=n)
    part = np.fromiter((nan if h.part_cosine is None else h.part_cosine for h in hits), dtype=np.float64, count=n)
    raw_lexical = np.fromiter((h.lexical for h in hits), dtype=np.float64, count=n)
    top_lexical = max(raw_lexical.max(), 0.0)
    lex = raw_lexical / top_lexical if top_lexical > 0 else np.zeros(n)
    cosine = _semantic(whole, part, params.sentence_weight)
    own = (1.0 - params.lexical_weight) * np.maximum(cosine, 0.0) + params.lexical_weight * lex
    if dates:
        on_date = np.fromiter((any(span.contains(m.created_at) for span in dates) for m in memories),
                              dtype=np.bool_, count=n)
        own = np.where(on_date, own + params.date_boost, own)
    if params.context_weight > 0 and n > 1:
        moments = np.fromiter((h.memory.created_at.timestamp() if h.made is None else h.made for h in hits),
                              dtype=np.float64, count=n)
        context = params.context_weight * _sitting_context(moments, own, params.context_window_seconds)
    else:
        context = np.zeros(n)
    if params.second_weight:
        # the second vector's share counts with the sitting's: it orders, a memory's own evidence decides what
        # clears a floor
        second = np.fromiter((nan if h.second_cosine is None else h.second_cosine for h in hits),
                             dtype=np.float64, count=n)
        second_part = np.fromiter((nan if h.second_part_cosine is None else h.second_part_cosine for h in hits),
                                  dtype=np.float64, count=n)
        context = np.where(np.isnan(second), context,
                           context + params.second_weight * _semantic(second, second_part, params.sentence_weight))
    gain = (np.fromiter((needed.get(m.subject.partition(":")[0], 0.0) for m in memories), dtype=np.float64,
                        count=n) if needed else np.zeros(n))
    relevance = own + context + gain
    rec = np.fromiter((recency(m, now, params.recency_lambda, params.recency_exempt) for m in memories),
                      dtype=np.float64, count=n)
    use = np.fromiter((1.0 - math.exp(-m.access_count / 10.0) for m in memories), dtype=np.float64, count=n)
    confidence = np.fromiter((m.confidence for m in memories), dtype=np.float64, count=n)
    importance = np.fromiter((IMPORTANCE_WEIGHT[m.importance] for m in memories), dtype=np.float64, count=n)
    score = (params.a * relevance + params.b * rec + params.c * confidence
             + params.importance * importance + params.access * use)
    scored = [Scored.of(*fields) for fields in zip(memories, cosine.tolist(), lex.tolist(), relevance.tolist(),
                                                rec.tolist(), score.tolist(), context.tolist(), gain.tolist(),
                                                strict=True)]
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
