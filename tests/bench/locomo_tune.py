"""Choose the fusion weights of search on the tuning half of the LoCoMo development set (issue 15).

Imports the tuning conversations once through the import route (as locomo.py does), fetches each
question's candidates once through the memory store's search (the candidate set does not depend on
the fusion weights), then re-ranks them with the core's own ``rank`` for every point of a grid of
``lexical_weight`` x ``sentence_weight`` x ``date_boost`` and prints R@5/10/20 per category, best
first. The chosen point becomes the settings' default; the checking half is never read here.

    .venv/bin/python tests/bench/locomo_tune.py [--data PATH]
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections import defaultdict
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import write_result
from locomo import CATEGORY, DEFAULT_DATA, KS, import_turns, tuning_half, turns_of

from mnemo.domain.ranking import Hit, RankingParams, rank
from mnemo.domain.text import terms
from mnemo.domain.when import DateSpan
from mnemo.ports import SearchRequest

LEXICAL = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)
SENTENCE = (0.5, 0.7, 0.85, 1.0)
DATE_BOOST = (0.0, 0.05, 0.1, 0.2, 0.3)
TOP_K = 20  # what locomo.py asks search for


Question = tuple[int, set[str], list[Hit], list[DateSpan], datetime]


def recall(questions: list[Question], id_to_dia: dict[str, str], params: RankingParams) -> dict[str, dict[str, float]]:
    per_cat: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for category, relevant, hits, dates, now in questions:
        # search's order: relevance, ties by the full score (Retriever.search with rank_by="relevance")
        ranked = sorted(rank(hits, now, params, dates), key=lambda s: (-s.relevance, -s.score, s.memory.memory_id))
        found = [id_to_dia[s.memory.memory_id] for s in ranked[:TOP_K]]
        for cat in ("all", CATEGORY[category]):
            for k in KS:
                per_cat[cat][f"R@{k}"].append(len(relevant & set(found[:k])) / len(relevant))
    return {cat: {m: round(sum(v) / len(v), 4) for m, v in ms.items()} for cat, ms in per_cat.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    with tuning_half(args.data, "mnemo-locomo-tune-") as (data, clock, service):
        settings = service.settings
        id_to_dia, _, _ = import_turns(service, data)
        questions: list[Question] = []
        for sample in data:
            clock.set(max(t[2] for t in turns_of(sample)) + timedelta(days=1))
            for qa in sample["qa"]:
                if qa.get("category") == 5 or not qa.get("evidence"):
                    continue
                vector = service.retriever.queries.get(qa["question"], "bench", sample["sample_id"])
                hits = service.ports.memories.search("bench", sample["sample_id"], SearchRequest(
                    vector=vector, terms=terms(qa["question"]), now=clock.now(),
                    limit=max(TOP_K * settings.candidate_multiplier, 20)))
                questions.append((qa["category"], set(qa["evidence"]), hits,
                                  service.retriever._dates(qa["question"]), clock.now()))
        base = service.retriever._params()
        grid: list[dict[str, Any]] = []
        for lexical, sentence, boost in itertools.product(LEXICAL, SENTENCE, DATE_BOOST):
            params = replace(base, lexical_weight=lexical, sentence_weight=sentence, date_boost=boost)
            grid.append({"lexical_weight": lexical, "sentence_weight": sentence, "date_boost": boost,
                         "metrics": recall(questions, id_to_dia, params)})
    grid.sort(key=lambda g: (-g["metrics"]["all"]["R@10"], -g["metrics"]["all"]["R@20"]))
    print(f"{'lexical':>7} {'sentence':>8} {'date':>5}  R@10: {'all':>6} "
          + " ".join(f"{c:>11}" for c in CATEGORY.values()) + f"  {'R@5':>6} {'R@20':>6}")
    for g in grid:
        m = g["metrics"]
        print(f"{g['lexical_weight']:>7} {g['sentence_weight']:>8} {g['date_boost']:>5}        "
              f"{m['all']['R@10']:>6.3f} "
              + " ".join(f"{m[c]['R@10']:>11.3f}" for c in CATEGORY.values())
              + f"  {m['all']['R@5']:>6.3f} {m['all']['R@20']:>6.3f}")
    print(f"\nwrote {write_result('locomo-tune', {'half': 'tuning', 'grid': grid})}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
