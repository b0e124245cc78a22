"""Issue 15, tenth pass: a second retrieval hop over the shipped search (its own query encoder, BM25 share
``search_lexical_weight``, the second query vector), replayed on one half of LoCoMo.

The half is imported once through the API; every question is searched as ``Retriever.search`` searches it
(the shipped order: locomo_query_tower.py's figure), then each idea makes a second order from a second
search of the same index and merges the two:

- ``prf``: pseudo-relevance feedback (Rocchio): the question's vector plus ``beta`` x the mean of the first
  round's ``m`` best memories' vectors, searched again (no encoder run: the memories' vectors are stored);
- ``residual``: the question's vector with ``gamma`` x its projection on the first round's best memory taken
  out, searched again: what the question asks that the best match does not say (the second part of a
  two-part question);
- ``split``: a question with " and " / ", " / " or " searched also as each part (an encoder run a part);
- ``category``: a question asking for several things ("What activities ...", "What books ...") searched
  again with the vector of the plural noun it asks about, so memories naming an instance ("swimming",
  "camping") come up;
- ``twin``: retrieve's query twin (the other query encoder, against the same stored vectors) searched alone,
  or its vector mixed into search's own (a second encoder run).

Not a second round (``plural``): the questions asking for several things (the plural noun above, or "how
many") ranked with other weights (less of the sitting's context, more of the best sentence, ...), the
others as shipped.

Merges: ``rrf`` (reciprocal rank, first order weight 1, second ``w``), ``lead L`` (the first order's best
``L`` kept, the two orders interleaved after them). Recall is over the first 20 (what locomo.py asks).
Tune on the tuning half only (locomo_split.json); run the checking half once for what is kept.

    .venv/bin/python tests/bench/locomo_second_hop.py [--half tuning|checking]
        [--only twin prf residual split category plural] [--data PATH]
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))

import locomo_multihop as multihop
from locomo_data import CATEGORY
from locomo_ideas import run_ideas

from mnemo.clock import ManualClock
from mnemo.domain.ranking import Hit, RankingParams, Scored, rank
from mnemo.domain.text import terms
from mnemo.ports import SearchRequest

Array = npt.NDArray[np.float64]
Merge = Callable[[list[str], list[str]], list[str]]
TOP_K = 20  # as locomo.py asks
RRF_K = 60
# a question asking for several things: a wh-word (and at most one word) before a plural noun
_PLURAL = re.compile(r"^\s*(?:what|which)(?:\s+(?:kinds?|types?|sorts?)\s+of)?(?:\s+\w+)?\s+"
                     r"(?!(?:is|was|does|has|this|its)\b)(\w+[^'s\s]s)\b", re.IGNORECASE)


Asked = multihop.Asked


class Bench(multihop.Bench):
    """locomo_multihop's bench searching as ``Retriever.search`` does now: its own encoder and BM25 share."""

    def __init__(self, service: Any, id_to_dia: dict[str, str], clock: ManualClock) -> None:
        super().__init__(service, id_to_dia, clock)
        if service.ports.embedder.own_search_model:
            self.params = replace(self.params, lexical_weight=service.ports.settings.search_lexical_weight)

    def embed(self, text: str, user: str) -> Array:
        vector: Array = self.retriever.search_queries.get(text, "bench", user)
        return vector

    def ranked(self, user: str, text: str, vector: Any = None, params: RankingParams | None = None) -> list[Scored]:
        """The shipped search's order for ``text``, searched with ``vector`` when given (the question's own otherwise;
        the second query vector is made from the vector searched with, as search makes it)."""
        searched = np.asarray(self.embed(text, user) if vector is None else vector, dtype=np.float32)
        hits: list[Hit] = self.service.ports.memories.search("bench", user, SearchRequest(
            vector=searched, terms=terms(text), limit=self.limit, now=self.clock.now(),
            second_vector=self.retriever._second_vector(text, searched, "bench", user)))
        out = rank(hits, self.clock.now(), params or self.params, self.retriever._dates(text))
        out.sort(key=lambda s: (-s.relevance, -s.score, s.memory.memory_id))
        diversified: list[Scored] = self.retriever._diversified(out, lambda s: s.relevance)
        return diversified

    def ids(self, user: str, text: str, vector: Array | None = None, params: RankingParams | None = None) -> list[str]:
        return ids_of(self.ranked(user, text, vector, params))

    def at(self, q: Asked) -> None:
        """The clock as it was when ``q`` was asked (a day after its conversation ended)."""
        self.clock.set(self.asked_at[q.user])

    def vector(self, q: Asked) -> Array:
        return self.embed(q.text, q.user)


def ids_of(ranked: list[Scored]) -> list[str]:
    return [s.memory.memory_id for s in ranked]


def unit(v: Array) -> Array:
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


def rrf(first: list[str], second: list[str], w: float) -> list[str]:
    score: dict[str, float] = defaultdict(float)
    for weight, order in ((1.0, first), (w, second)):
        for i, memory_id in enumerate(order):
            score[memory_id] += weight / (RRF_K + i + 1)
    return sorted(score, key=lambda m: -score[m])


def lead(first: list[str], second: list[str], kept: int) -> list[str]:
    out = list(dict.fromkeys(first[:kept]))
    for i in range(max(len(first), len(second))):
        for order in (first, second):
            if i < len(order) and order[i] not in out:
                out.append(order[i])
    return out


def merges() -> list[tuple[str, Merge]]:
    def by_rrf(w: float) -> Merge:
        return lambda a, b: rrf(a, b, w)

    def by_lead(kept: int) -> Merge:
        return lambda a, b: lead(a, b, kept)
    return [*((f"rrf w {w}", by_rrf(w)) for w in (0.25, 0.5, 1.0)),
            *((f"lead {kept}", by_lead(kept)) for kept in (3, 5, 10))]


def recall(found: list[str], evidence: set[str], k: int) -> float:
    return len(set(found[:k]) & evidence) / len(evidence)


def header(title: str) -> None:
    cats = ["all", *CATEGORY.values()]
    print(f"\n{title}")
    print(f"  {'variant':<44} " + " ".join(f"{c[:9]:>17}" for c in cats))
    print(f"  {'':<44} " + " ".join(f"{'R@5/R@10/R@20':>17}" for _ in cats))


def show(bench: Bench, name: str, asked: list[Asked], orders: list[list[str]]) -> dict[str, float]:
    per: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for q, order in zip(asked, orders, strict=True):
        dias = list(dict.fromkeys(bench.id_to_dia[m] for m in order))
        for cat in ("all", q.category):
            for k in (5, 10, 20):
                per[cat][k].append(recall(dias, q.evidence, k))
    cells = [f"{np.mean(per[c][5]):.3f}/{np.mean(per[c][10]):.3f}/{np.mean(per[c][20]):.3f}"
             for c in ["all", *CATEGORY.values()] if c in per]
    print(f"  {name:<44} " + " ".join(f"{c:>17}" for c in cells), flush=True)
    return {c: float(np.mean(per[c][10])) for c in per}


def second_rounds(bench: Bench, asked: list[Asked], title: str,
                  variants: list[tuple[str, Callable[[Asked], list[str] | None]]]) -> None:
    """Each variant's second order (None: the question gets none) merged with the first by each merge."""
    header(title)
    show(bench, "shipped", asked, [ids_of(q.ranked) for q in asked])
    for name, second_of in variants:
        seconds = []
        for q in asked:
            bench.at(q)
            seconds.append(second_of(q))
        show(bench, f"{name}, second order alone", asked,
             [s if s is not None else ids_of(q.ranked) for q, s in zip(asked, seconds, strict=True)])
        for merge_name, merge in merges():
            show(bench, f"{name}, {merge_name}", asked,
                 [merge(ids_of(q.ranked), s) if s is not None else ids_of(q.ranked)
                  for q, s in zip(asked, seconds, strict=True)])


def prf(bench: Bench, asked: list[Asked]) -> None:
    def second(m: int, beta: float) -> Callable[[Asked], list[str]]:
        def of(q: Asked) -> list[str]:
            feedback = bench.vectors(q.user, q.ranked[:m]).mean(axis=0)
            return bench.ids(q.user, q.text, unit(bench.vector(q) + beta * unit(feedback)))
        return of
    second_rounds(bench, asked, "pseudo-relevance feedback: the question's vector + beta x the m best memories' mean",
                  [(f"m {m}, beta {beta}", second(m, beta)) for m in (1, 3, 5) for beta in (0.3, 0.6)])


def residual(bench: Bench, asked: list[Asked]) -> None:
    def second(gamma: float) -> Callable[[Asked], list[str]]:
        def of(q: Asked) -> list[str]:
            best = unit(bench.vectors(q.user, q.ranked[:1])[0])
            own = bench.vector(q)
            return bench.ids(q.user, q.text, unit(own - gamma * float(own @ best) * best))
        return of
    second_rounds(bench, asked, "residual: the question's vector without gamma x its part along the best memory",
                  [(f"gamma {gamma}", second(gamma)) for gamma in (0.5, 1.0)])


_SPLIT = re.compile(r"\s+and\s+|\s*,\s+|\s+or\s+")


def split(bench: Bench, asked: list[Asked]) -> None:
    def of(q: Asked) -> list[str] | None:
        parts = [p.strip(" ?") for p in _SPLIT.split(q.text) if len(p.strip(" ?").split()) >= 2]
        if len(parts) < 2:
            return None
        orders = [bench.ids(q.user, p) for p in parts]
        return lead([], orders[0], 0) if len(orders) == 1 else _interleave(orders)
    told = sum(1 for q in asked if len([p for p in _SPLIT.split(q.text) if len(p.strip(" ?").split()) >= 2]) >= 2)
    second_rounds(bench, asked, f"decomposition at ' and ' / ', ' / ' or ' ({told} questions)", [("parts", of)])


def _interleave(orders: list[list[str]]) -> list[str]:
    out: list[str] = []
    for i in range(max(len(o) for o in orders)):
        for o in orders:
            if i < len(o) and o[i] not in out:
                out.append(o[i])
    return out


def category(bench: Bench, asked: list[Asked]) -> None:
    def second(alpha: float) -> Callable[[Asked], list[str] | None]:
        def of(q: Asked) -> list[str] | None:
            found = _PLURAL.search(q.text)
            if not found:
                return None
            noun = bench.embed(found.group(1), q.user)
            return bench.ids(q.user, q.text, unit(bench.vector(q) + alpha * unit(noun)))
        return of
    told = [q for q in asked if _PLURAL.search(q.text)]
    counts = {c: sum(1 for q in told if q.category == c) for c in CATEGORY.values()}
    second_rounds(bench, asked, f"the plural noun asked about added to the vector ({len(told)} questions: {counts})",
                  [(f"alpha {alpha}", second(alpha)) for alpha in (0.5, 1.0)])


def plural(bench: Bench, asked: list[Asked]) -> None:
    """Not a second round: a question asking for several things ranked with other weights (the others as shipped)."""
    told = [q for q in asked if _PLURAL.search(q.text) or q.text.lower().startswith("how many")]
    counts = {c: sum(1 for q in told if q.category == c) for c in CATEGORY.values()}
    header(f"questions asking for several things ranked with other weights ({len(told)}: {counts})")
    show(bench, "shipped", asked, [ids_of(q.ranked) for q in asked])
    p = bench.params
    for name, changed in [("context 0.2", {"context_weight": 0.2}), ("context 0", {"context_weight": 0.0}),
                          ("sentence 0.85", {"sentence_weight": 0.85}), ("sentence 1.0", {"sentence_weight": 1.0}),
                          ("second 0.5", {"second_weight": 0.5}), ("second 0.8", {"second_weight": 0.8}),
                          ("lexical 0.3", {"lexical_weight": 0.3}), ("lexical 0.05", {"lexical_weight": 0.05}),
                          ("sentence 1.0, context 0.2", {"sentence_weight": 1.0, "context_weight": 0.2})]:
        orders = []
        for q in asked:
            bench.at(q)
            orders.append(bench.ids(q.user, q.text, None, replace(p, **changed)) if q in told else ids_of(q.ranked))
        show(bench, name, asked, orders)


def twin(bench: Bench, asked: list[Asked]) -> None:
    """Two query encoders: retrieve's query twin's vector, searched alone (merged) or mixed into search's own."""
    def second(share: float | None) -> Callable[[Asked], list[str]]:
        def of(q: Asked) -> list[str]:
            other: Array = bench.retriever.queries.get(q.text, "bench", q.user)
            mixed = other if share is None else unit((1 - share) * bench.vector(q) + share * other)
            return bench.ids(q.user, q.text, mixed)
        return of
    second_rounds(bench, asked, "retrieve's query twin beside search's own encoder (a second encoder run)",
                  [("twin", second(None)), *((f"vectors mixed, twin share {s}", second(s)) for s in (0.3, 0.5))])


RUN: dict[str, Callable[[Bench, list[Asked]], None]] = {
    "twin": twin, "prf": prf, "residual": residual, "split": split, "category": category, "plural": plural}


def main() -> int:
    return run_ideas(__doc__, RUN, tuple(RUN), "mnemo-locomo-hop-", Bench)


if __name__ == "__main__":
    raise SystemExit(main())
