"""Issue 15, fourth pass: multi-hop ideas replayed on LoCoMo's tuning half over the shipped search.

As locomo_ideas.py, but the first round is today's search (the second query vector included, so the
shipped order gives locomo.py's tuning R@10): the tuning half is imported once, every question's
candidates fetched through the store as search fetches them and ranked by the shipped ``rank``; each idea
then re-orders the first ``DEPTH`` of them (bounded: the rest keep their order after them):

- ``aggregate``: a question that asks for several things ("What books has Melanie read?", "How many times
  ...", "What activities ...": a wh-word before a plural noun, or "how many") is told from one that asks
  for one; only the former get the sitting penalty (``diversify``: a memory loses ``p`` for each memory of its
  sitting above it), which lost over every question because single-hop answers are the best match's
  neighbours (README, issue 15);
- ``cap``: at most ``c`` memories of one sitting in the top 10 (all questions, or the aggregate ones);
- ``mmr``: maximal marginal relevance over the memories' own vectors (a memory loses ``lam`` x its
  greatest cosine to a memory placed above it; embedded home only: the AWS home's search returns no vectors);
- ``split``: a question with " and " searched also as its parts (each part embedded and searched like the
  question; the per-part orders interleaved after the whole question's best).

Tune on the tuning half only (locomo_split.json).

    .venv/bin/python tests/bench/locomo_multihop.py [--only aggregate cap mmr split] [--data PATH]
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo import CATEGORY, turns_of
from locomo_ideas import Row, header, run_ideas, show
from locomo_replay import TOP_K, Array

from mnemo.clock import ManualClock
from mnemo.domain.ranking import Hit, Scored, diversify, rank
from mnemo.domain.text import terms
from mnemo.ports import SearchRequest

DEPTH = 40  # how many of the shipped order an idea may re-order
# a question that asks for several things: "how many", or a wh-word before a plural noun ("What books",
# "Which endorsement deals", "What types of pottery"), not before a verb ("What is", "What does")
_AGGREGATE = re.compile(r"^\s*(?:how many\b|(?:what|which)(?:\s+\w+)?\s+(?!(?:is|was|does|has|this|its)\b)"
                        r"\w+[^'s\s]s\b)", re.IGNORECASE)


def aggregate(question: str) -> bool:
    return bool(_AGGREGATE.search(question))


@dataclass
class Asked:
    user: str
    text: str
    category: str
    evidence: set[str]
    ranked: list[Scored]  # the shipped order
    dias: list[str]  # of ``ranked``


class Bench:
    """The shipped search, step by step, so each idea starts from its candidates and order."""

    def __init__(self, service: Any, id_to_dia: dict[str, str], clock: ManualClock) -> None:
        self.service = service
        self.retriever = service.retriever
        settings = service.ports.settings
        self.params = replace(self.retriever._params(), second_weight=settings.second_query_weight)
        self.limit = max(TOP_K * settings.candidate_multiplier, 20)
        self.window = float(settings.context_window_seconds)
        self.id_to_dia = id_to_dia
        self.clock = clock
        self.asked_at: dict[str, datetime] = {}  # a day after each user's conversation ended

    def ranked(self, user: str, text: str, vector: Any = None) -> list[Scored]:
        """The shipped search's order for ``text``, searched with ``vector`` when one is given (its second vector
        made from it) instead of the question's own."""
        if vector is None:
            vector = self.retriever.queries.get(text, "bench", user)
        hits: list[Hit] = self.service.ports.memories.search("bench", user, SearchRequest(
            vector=vector, terms=terms(text), limit=self.limit, now=self.clock.now(),
            second_vector=self.retriever._second_vector(text, vector, "bench", user)))
        out = rank(hits, self.clock.now(), self.params, self.retriever._dates(text))
        out.sort(key=lambda s: (-s.relevance, -s.score, s.memory.memory_id))  # search's order
        return out

    def questions(self, data: list[dict[str, Any]]) -> Iterator[Asked]:
        for sample in data:
            user = sample["sample_id"]
            self.asked_at[user] = max(t[2] for t in turns_of(sample)) + timedelta(days=1)
            self.clock.set(self.asked_at[user])
            for qa in sample["qa"]:
                if qa.get("category") == 5 or not qa.get("evidence"):
                    continue
                ranked = self.ranked(user, qa["question"])
                yield Asked(user, qa["question"], CATEGORY[qa["category"]], set(qa["evidence"]), ranked,
                            [self.id_to_dia[s.memory.memory_id] for s in ranked])

    def vectors(self, user: str, ranked: list[Scored]) -> Array:
        index = self.service.ports.memories._index("bench", user)
        return np.stack([index.vector(s.memory.memory_id) for s in ranked]).astype(np.float64)


def dias_of(bench: Bench, ranked: list[Scored]) -> list[str]:
    return [bench.id_to_dia[s.memory.memory_id] for s in ranked]


def capped(ranked: list[Scored], cap: int, window: float, k: int = 10) -> list[Scored]:
    """The first ``k`` with at most ``cap`` of one sitting (in the shipped order otherwise), then the rest."""
    head: list[Scored] = []
    later: list[Scored] = []
    for s in ranked[:DEPTH]:
        moment = s.memory.created_at.timestamp()
        mates = sum(1 for h in head if abs(h.memory.created_at.timestamp() - moment) <= window)
        (head if len(head) < k and mates < cap else later).append(s)
    return head + later + ranked[DEPTH:]


def mmr(ranked: list[Scored], vectors: Array, lam: float) -> list[Scored]:
    """Greedy: each place goes to the memory with the best relevance minus ``lam`` x its greatest cosine to
    a memory placed above it."""
    n = min(DEPTH, len(ranked))
    relevance = np.array([s.relevance for s in ranked[:n]])
    sims = vectors[:n] @ vectors[:n].T
    closest = np.full(n, -np.inf)
    left = list(range(n))
    order: list[int] = []
    while left:
        gain = [relevance[i] - lam * max(closest[i], 0.0) for i in left]
        best = left.pop(int(np.argmax(gain)))
        order.append(best)
        closest = np.maximum(closest, sims[best])
    return [ranked[i] for i in order] + ranked[n:]


def run(name: str, asked: list[Asked], reorder: Callable[[Asked], list[str]]) -> dict[str, float]:
    rows: list[Row] = [(q.category, q.evidence, reorder(q)) for q in asked]
    return show(name, rows)


def aggregate_idea(bench: Bench, asked: list[Asked]) -> None:
    told = [q for q in asked if aggregate(q.text)]
    counts = {c: sum(1 for q in told if q.category == c) for c in CATEGORY.values()}
    header(f"the sitting penalty for aggregate questions only ({len(told)} told: {counts})")
    run("shipped", asked, lambda q: q.dias)
    for p in (0.02, 0.04, 0.08, 0.16):
        run(f"penalty {p} for every question", asked, lambda q, p=p: dias_of(bench, diversify(
            q.ranked, p, bench.window, DEPTH, lambda s: s.relevance)))
        run(f"penalty {p} for aggregate questions", asked, lambda q, p=p: dias_of(bench, diversify(
            q.ranked, p, bench.window, DEPTH, lambda s: s.relevance)) if aggregate(q.text) else q.dias)


def cap_idea(bench: Bench, asked: list[Asked]) -> None:
    header("at most c memories of one sitting in the top 10")
    run("shipped", asked, lambda q: q.dias)
    for c in (1, 2, 3, 4):
        run(f"cap {c}, every question", asked, lambda q, c=c: dias_of(bench, capped(q.ranked, c, bench.window)))
        run(f"cap {c}, aggregate questions", asked, lambda q, c=c: dias_of(
            bench, capped(q.ranked, c, bench.window)) if aggregate(q.text) else q.dias)


def mmr_idea(bench: Bench, asked: list[Asked]) -> None:
    header("maximal marginal relevance over the memories' vectors")
    run("shipped", asked, lambda q: q.dias)
    vectors = {id(q): bench.vectors(q.user, q.ranked[:DEPTH]) for q in asked}
    for lam in (0.05, 0.1, 0.2, 0.4):
        run(f"lambda {lam}, every question", asked,
            lambda q, lam=lam: dias_of(bench, mmr(q.ranked, vectors[id(q)], lam)))
        run(f"lambda {lam}, aggregate questions", asked, lambda q, lam=lam: dias_of(
            bench, mmr(q.ranked, vectors[id(q)], lam)) if aggregate(q.text) else q.dias)


def split_idea(bench: Bench, asked: list[Asked]) -> None:
    told = [q for q in asked if " and " in q.text]
    counts = {c: sum(1 for q in told if q.category == c) for c in CATEGORY.values()}
    header(f"a question with ' and ' searched also as its parts ({len(told)} such: {counts})")
    run("shipped", asked, lambda q: q.dias)
    parts: dict[int, list[list[str]]] = {}
    for q in told:
        bench.clock.set(bench.asked_at[q.user])
        parts[id(q)] = [dias_of(bench, bench.ranked(q.user, part.strip(" ?")))
                        for part in q.text.split(" and ") if part.strip(" ?")]

    def merged(q: Asked, lead: int) -> list[str]:
        if id(q) not in parts:
            return q.dias
        orders = [q.dias, *parts[id(q)]]
        out = list(dict.fromkeys(q.dias[:lead]))
        for i in range(max(len(o) for o in orders)):
            for o in orders:
                if i < len(o) and o[i] not in out:
                    out.append(o[i])
        return out

    for lead in (0, 3, 5):
        run(f"interleaved after the whole question's best {lead}", asked, lambda q, lead=lead: merged(q, lead))


RUN: dict[str, Callable[[Bench, list[Asked]], None]] = {
    "aggregate": aggregate_idea, "cap": cap_idea, "mmr": mmr_idea, "split": split_idea}


def main() -> int:
    return run_ideas(__doc__, RUN, tuple(RUN), "mnemo-locomo-multihop-", Bench)


if __name__ == "__main__":
    raise SystemExit(main())
