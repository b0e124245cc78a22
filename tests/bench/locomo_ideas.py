"""Issue 15, third pass: more ideas replayed on LoCoMo's tuning half (none kept; README, retrieval section).

As locomo_replay.py: the tuning half's turns are imported once (the embedded home) and every question's
candidates fetched through the store as search fetches them, ranked by the shipped ``rank``; each idea
then re-orders them, or searches the store again with its own query vector:

- ``fusion``: issue 15 item 3 with more of the signals a ranking has at hand (whole and best-sentence
  cosine apart, BM25, the date match, the sitting's context, the own relevance of the candidate made just
  before and just after it, its length, the size of its sitting among the candidates, its place): a
  pairwise logistic model (``fit_pairwise``), trained on two conversations and measured on the third;
- ``nearest``: the sitting's context lent only by the ``k`` candidates made nearest before and after a
  memory, not by every candidate of its sitting (the whole sitting of one strong match fills the top 10);
- ``entities``: item 2's multi-hop second round, seeded by the names the first round's best memories
  mention and the question does not (searched through the store, their BM25 added to the relevance);
- ``vectors``: one query vector for the search, made otherwise: minus the user's mean memory vector
  (centring, hubness on the query side), minus the vectors of the question's words found in more than a
  share of the user's memories, plus the vector of the question without those words (IDF for the
  embedding: a LoCoMo turn starts with its speaker's name, so the name is in half of them), plus the vector
  of the question without its capitalised words (the earlier replay's "without its names", as one vector);
  and, over the shipped candidates, the relevance plus a share of the semantic cosine to the question without
  its capitalised words (the earlier replay's form) or to the question itself (a control: how much of that
  was the semantic evidence weighing more against BM25).

Tune on the tuning half only (locomo_split.json).

    .venv/bin/python tests/bench/locomo_ideas.py [--only fusion|nearest|entities|vectors|second ...] [--data PATH]
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo import CATEGORY, DEFAULT_DATA, import_turns, tuning_half, turns_of
from locomo_replay import TOP_K, Array, fit_pairwise, recall, unnamed

from mnemo.clock import ManualClock
from mnemo.domain.ranking import Hit, Scored, rank, semantic
from mnemo.domain.text import terms
from mnemo.domain.when import DateSpan
from mnemo.ports import SearchRequest

IDEAS = ("fusion", "nearest", "entities", "vectors")  # "second": the part of "vectors" that adds a second cosine
RICH_FEATURES = ("whole cosine", "best sentence", "lexical", "date", "context", "before", "after", "log words",
                 "sitting size", "place")
_SENTENCE_START = re.compile(r"(?:^|[.!?:]\s+|\[)(\w+)")
_CAPITALISED = re.compile(r"\b[A-Z][\w'-]+")


@dataclass
class Asked:
    """One question and the first round as search does it."""

    user: str
    text: str
    category: str
    evidence: set[str]
    vector: Array
    now: datetime  # a day after the user's conversation ended
    dates: list[DateSpan]
    hits: list[Hit]
    ranked: list[Scored]  # the shipped order
    dias: list[str]  # of ``ranked``


Row = tuple[str, set[str], list[str]]  # category, evidence, the dia ids in the order a variant gives


class Bench:
    def __init__(self, service: Any, id_to_dia: dict[str, str], clock: ManualClock) -> None:
        self.service = service
        self.retriever = service.retriever
        self.params = self.retriever._params()
        self.limit = max(TOP_K * service.ports.settings.candidate_multiplier, 20)
        self.window = float(service.ports.settings.context_window_seconds)
        self.id_to_dia = id_to_dia
        self.clock = clock

    def questions(self, data: list[dict[str, Any]]) -> Iterator[Asked]:
        for sample in data:
            user = sample["sample_id"]
            self.clock.set(max(t[2] for t in turns_of(sample)) + timedelta(days=1))
            for qa in sample["qa"]:
                if qa.get("category") == 5 or not qa.get("evidence"):
                    continue
                text = qa["question"]
                vector = self.retriever.queries.get(text, "bench", user)
                dates = self.retriever._dates(text)
                hits = self.search(user, vector, terms(text))
                ranked = self.ranked(hits, dates)
                yield Asked(user, text, CATEGORY[qa["category"]], set(qa["evidence"]), vector, self.clock.now(), dates,
                            hits, ranked,
                            [self.id_to_dia[s.memory.memory_id] for s in ranked])

    def search(self, user: str, vector: Array, words: list[str]) -> list[Hit]:
        found: list[Hit] = self.service.ports.memories.search("bench", user, SearchRequest(
            vector=vector, terms=words, limit=self.limit, now=self.clock.now()))
        return found

    def ranked(self, hits: list[Hit], dates: list[DateSpan]) -> list[Scored]:
        out = rank(hits, self.clock.now(), self.params, dates)
        out.sort(key=lambda s: (-s.relevance, -s.score, s.memory.memory_id))  # search's order
        return out

    def embed(self, text: str, user: str) -> Array:
        vector: Array = self.retriever.queries.get(text, "bench", user)
        return vector


def header(title: str) -> None:
    print(f"\n{title}")
    print(f"  {'variant':<62} " + " ".join(f"{c[:7]:>7}" for c in ["all", *CATEGORY.values()]))


def show(name: str, rows: list[Row]) -> dict[str, float]:
    """R@10 per category, R@5 and R@20 overall, of one variant's orders."""
    per: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for category, evidence, found in rows:
        for cat in ("all", category):
            for k in (5, 10, 20):
                per[cat][k].append(recall(found, evidence, k))
    out = {f"{c} R@10": round(float(np.mean(per[c][10])), 4) for c in per}
    print(f"  {name:<62} " + " ".join(f"{out[c + ' R@10']:>7.3f}" for c in ["all", *CATEGORY.values()] if c in per)
          + f"   R@5 {np.mean(per['all'][5]):.3f} R@20 {np.mean(per['all'][20]):.3f}")
    return out


def ordered(dias: list[str], scores: Array) -> list[str]:
    """Best first; ties keep the shipped order (``dias`` is in it)."""
    return [dias[j] for j in np.argsort(-scores, kind="stable")]


def rich_features(q: Asked, window: float) -> Array:
    """One row per candidate of ``q``: RICH_FEATURES, all read from the hits and the first ranking."""
    own = np.array([s.relevance - s.context for s in q.ranked])
    moments = np.array([s.memory.created_at.timestamp() for s in q.ranked])
    by_time = np.argsort(moments, kind="stable")
    before, after = np.zeros(len(own)), np.zeros(len(own))
    for place, i in enumerate(by_time):
        if place > 0 and moments[i] - moments[by_time[place - 1]] <= window:
            before[i] = own[by_time[place - 1]]
        if place + 1 < len(by_time) and moments[by_time[place + 1]] - moments[i] <= window:
            after[i] = own[by_time[place + 1]]
    places = np.empty(len(own))
    places[np.argsort(-own, kind="stable")] = np.arange(len(own))
    hits = {h.memory.memory_id: h for h in q.hits}
    rows = []
    for j, s in enumerate(q.ranked):
        h = hits[s.memory.memory_id]
        sitting = float(np.sum(np.abs(moments - moments[j]) <= window))
        rows.append([h.cosine, h.part_cosine if h.part_cosine is not None else h.cosine, s.lexical,
                     1.0 if any(d.contains(s.memory.created_at) for d in q.dates) else 0.0, s.context,
                     before[j], after[j], math.log1p(len(s.memory.content.split())), math.log1p(sitting),
                     -math.log1p(places[j])])
    return np.array(rows)


def fusion(bench: Bench, asked: list[Asked]) -> None:
    header("learned fusion over more signals (each conversation of the tuning half held out in turn)")
    shipped = [(q.category, q.evidence, q.dias) for q in asked]
    show("shipped", shipped)
    features = [rich_features(q, bench.window) for q in asked]
    labels = [np.array([1 if d in q.evidence else 0 for d in q.dias]) for q in asked]
    relevance = [np.array([s.relevance for s in q.ranked]) for q in asked]
    users = sorted({q.user for q in asked})
    every = list(range(len(RICH_FEATURES)))
    for name, columns in (("the 4 signals of locomo_replay.py, best sentence for semantic", [1, 2, 3, 4]),
                          ("all signals", every), ("all but the place", every[:-1])):
        models = {held: fit_pairwise([(f[:, columns], y, r) for q, f, y, r in
                                      zip(asked, features, labels, relevance, strict=True) if q.user != held])
                  for held in users}
        show(f"learned, {name}", [(q.category, q.evidence, ordered(q.dias, f[:, columns] @ models[q.user]))
                                   for q, f in zip(asked, features, strict=True)])
        weights = fit_pairwise([(f[:, columns], y, r) for f, y, r in zip(features, labels, relevance, strict=True)])
        print("    weights fitted on all three: "
              + ", ".join(f"{RICH_FEATURES[c]} {w:.2f}" for c, w in zip(columns, weights, strict=True)))


def nearest_context(moments: Array, own: Array, window: float, k: int) -> Array:
    """For each candidate, the best own relevance among the ``k`` candidates made nearest before it and the ``k``
    nearest after it, within ``window`` seconds."""
    by_time = np.argsort(moments, kind="stable")
    out = np.zeros(len(own))
    for place, i in enumerate(by_time):
        for j in [*by_time[max(place - k, 0):place], *by_time[place + 1:place + 1 + k]]:
            if abs(moments[j] - moments[i]) <= window:
                out[i] = max(out[i], own[j])
    return out


def nearest(bench: Bench, asked: list[Asked]) -> None:
    header("the sitting's context lent by the nearest candidates in time only")
    show("shipped (every candidate of the sitting lends, weight 0.4)",
         [(q.category, q.evidence, q.dias) for q in asked])
    own = [np.array([s.relevance - s.context for s in q.ranked]) for q in asked]
    moments = [np.array([s.memory.created_at.timestamp() for s in q.ranked]) for q in asked]
    for k in (1, 2, 3, 5):
        for weight in (0.3, 0.4, 0.6):
            show(f"the {k} nearest each side lend, weight {weight}", [
                (q.category, q.evidence, ordered(q.dias, o + weight * nearest_context(m, o, bench.window, k)))
                for q, o, m in zip(asked, own, moments, strict=True)])


def entities(text: str) -> set[str]:
    """The capitalised words of a text that do not open a sentence (names, places, titles)."""
    openers = {m.group(1) for m in _SENTENCE_START.finditer(text)}
    return {w.removesuffix("'s") for w in _CAPITALISED.findall(text) if w not in openers} - {"I"}


def entity_round(bench: Bench, asked: list[Asked]) -> None:
    header("a second round searching the names the first round's best memories mention (BM25 added)")
    show("shipped", [(q.category, q.evidence, q.dias) for q in asked])
    seeds = (1, 2, 3)
    second: list[dict[int, dict[str, float]]] = []
    for q in asked:
        bench.clock.set(q.now)
        known = {t for w in q.text.split() for t in terms(w)}
        found: dict[int, dict[str, float]] = {}
        for n in seeds:
            names = sorted({t for s in q.ranked[:n] for e in entities(s.memory.content) for t in terms(e)} - known)
            again = {bench.id_to_dia[h.memory.memory_id]: h.lexical
                     for h in (bench.search(q.user, q.vector, names) if names else []) if h.lexical > 0}
            top = max(again.values(), default=0.0)
            found[n] = {d: v / top for d, v in again.items()} if top > 0 else {}
        second.append(found)
    for n in seeds:
        for weight in (0.05, 0.1, 0.2):
            rows: list[Row] = []
            for q, more in zip(asked, second, strict=True):
                score = {d: s.relevance for d, s in zip(q.dias, q.ranked, strict=True)}
                for d, v in more[n].items():  # a memory only the second round found joins with its share alone
                    score[d] = score.get(d, 0.0) + weight * v
                rows.append((q.category, q.evidence, sorted(score, key=lambda d: -score[d])))
            show(f"the names of the {n} best, weight {weight}", rows)


def vectors(bench: Bench, asked: list[Asked], searched_again: bool = True) -> None:
    header("a second query vector: its cosine added to the relevance, or one vector made otherwise searched with")
    variants: dict[str, list[Row]] = defaultdict(list)
    means: dict[str, Array] = {}
    for q in asked:
        bench.clock.set(q.now)
        index = bench.service.ports.memories._index("bench", q.user)  # the embedded home's own index
        if q.user not in means:
            means[q.user] = np.mean([index.vector(mid) for mid in index.memories], axis=0)
        postings, n = index._bm25._postings, len(index.memories)

        def searched(v: Array, q: Asked = q) -> list[str]:
            v = (v / np.linalg.norm(v)).astype(np.float32)
            return [bench.id_to_dia[s.memory.memory_id] for s in bench.ranked(bench.search(q.user, v, terms(q.text)),
                                                                            q.dates)]

        def add(name: str, v: Array, q: Asked = q) -> None:
            variants[name].append((q.category, q.evidence, searched(v)))

        add("shipped", q.vector)
        # the earlier replay's "+ question without its names 0.3" (0.807) added a second cosine to each
        # candidate's relevance; the same addition of the question's own cosine tells what of that was the
        # semantic evidence weighing more against BM25, and the question without the words in many of the
        # user's memories whether a rule that knows nothing of names does as well
        relevance = np.array([s.relevance for s in q.ranked])
        seconds = [("its own", q.text), ("the question without its capitalised words", unnamed(q.text))]
        for share in (0.1, 0.2):
            kept = [w for w in q.text.split() if not any(len(postings.get(t, ())) > share * n for t in terms(w))]
            seconds.append((f"the question without the words in > {share} of memories", " ".join(kept) or q.text))
        vectors_of: list[tuple[str, Array]] = [(name, bench.embed(text, q.user)) for name, text in seconds]
        # the same without a second run of the encoder: the question's vector minus its common words' own
        # (each word's vector cached per user: the same few words recur)
        common = [w for w in q.text.split() if any(len(postings.get(t, ())) > 0.2 * n for t in terms(w))]
        for gamma in (0.5, 0.8, 1.0):
            v = q.vector.astype(np.float64)
            for w in common:
                v = v - gamma * bench.embed(w.strip("?,.!\"'").removesuffix("'s"), q.user)
            vectors_of.append((f"its vector minus x{gamma} its words in > 0.2 of memories'", v / np.linalg.norm(v)))
        for name, second_vector in vectors_of:
            ids, whole, best = index.cosine_all(second_vector.astype(np.float32))
            at = {mid: i for i, mid in enumerate(ids)}
            second = np.array([semantic(Hit(s.memory, float(whole[at[s.memory.memory_id]]), 0.0,
                                            float(best[at[s.memory.memory_id]])
                                            if np.isfinite(best[at[s.memory.memory_id]]) else None),
                                        bench.params.sentence_weight) for s in q.ranked])
            for weight in (0.15, 0.3):
                variants[f"relevance + {weight} x semantic cosine to {name}"].append(
                    (q.category, q.evidence, ordered(q.dias, relevance + weight * second)))
        if not searched_again:
            continue
        for alpha in (0.1, 0.2, 0.3, 0.5, 0.7):
            add(f"minus the user's mean memory vector x{alpha}", q.vector - alpha * means[q.user])
        for beta in (0.5, 1.0):
            add(f"plus the question without its capitalised words x{beta}",
                q.vector + beta * bench.embed(unnamed(q.text), q.user))
        for share in (0.1, 0.2, 0.3):
            common = [w for w in q.text.split() if any(len(postings.get(t, ())) > share * n for t in terms(w))]
            rest = " ".join(w for w in q.text.split() if w not in common)
            for gamma in (0.2, 0.35, 0.5):
                v = q.vector.astype(np.float64)
                for w in common:
                    v = v - gamma * bench.embed(w.strip("?,.!\"'").removesuffix("'s"), q.user)
                add(f"words in > {share} of memories: minus their vectors x{gamma}", v)
            for beta in (0.5, 1.0):
                other = bench.embed(rest, q.user) if common and rest else q.vector
                add(f"words in > {share} of memories: plus the question without x{beta}", q.vector + beta * other)
    for name, rows in variants.items():
        show(name, rows)


RUN: dict[str, Callable[[Bench, list[Asked]], None]] = {
    "fusion": fusion, "nearest": nearest, "entities": entity_round, "vectors": vectors,
    "second": lambda bench, asked: vectors(bench, asked, searched_again=False)}


def run_ideas(description: str | None, runs: Mapping[str, Callable[[Any, list[Any]], None]], default: Sequence[str],
              prefix: str, bench_of: Callable[[Any, dict[str, str], ManualClock], Any]) -> int:
    """The command line every ideas script shares: the tuning half (or ``--half``'s) imported once, its questions
    asked through ``bench_of``'s bench, then each idea of ``runs`` that ``--only`` names (default ``default``) run
    over them."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--only", nargs="+", choices=tuple(runs), default=list(default))
    parser.add_argument("--half", choices=("tuning", "checking"), default="tuning",
                        help="checking: once, for figures of what the tuning half chose")
    args = parser.parse_args()
    with tuning_half(args.data, prefix, args.half) as (data, clock, service):
        id_to_dia, _, _ = import_turns(service, data)
        bench = bench_of(service, id_to_dia, clock)
        asked = list(bench.questions(data))
        print(f"\nLoCoMo {args.half} half, {len(asked)} questions")
        for idea in args.only:
            runs[idea](bench, asked)
    return 0


def main() -> int:
    return run_ideas(__doc__, RUN, IDEAS, "mnemo-locomo-ideas-", Bench)


if __name__ == "__main__":
    raise SystemExit(main())
