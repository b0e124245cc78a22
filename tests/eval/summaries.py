"""The summary benchmark (issue 16): coverage, duplicated and unsupported claims of consolidation.

    .venv/bin/python tests/eval/summaries.py [--users N] [--seed S] [--show]

Generated histories (tests/eval/summary_histories.py: several topics mixed, quantities, breaks,
trends) go through what consolidation does: episodes embedded with the bundled model, grouped into
topics (mnemo.domain.topics), each topic large enough summarised by the offline summariser. The
scorer reads the claims out of each summary and checks them against the generated truth. Prints
the figures and writes tests/eval/results/summaries.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]  # run as a script from anywhere (make bench)

import numpy as np  # noqa: E402

from mnemo.bootstrap import shared_embedder  # noqa: E402
from mnemo.domain.models import Category, Memory  # noqa: E402
from mnemo.domain.summarise import RuleBasedSummariser  # noqa: E402
from mnemo.domain.topics import find_topics  # noqa: E402
from mnemo.ports import Embedder, Summariser  # noqa: E402
from mnemo.settings import Settings  # noqa: E402
from tests.eval.summary_histories import History, Summary, generate, score  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def as_memories(history: History) -> list[Memory]:
    return [Memory(memory_id=e.episode_id, tenant_id="bench", user_id=history.user_id, category=Category.EPISODIC,
                   subject=f"event:{e.episode_id}", content=e.text, confidence=0.8, created_at=e.when,
                   updated_at=e.when, last_confirmed_at=e.when) for e in history.episodes]


def summarise_all(histories: list[History], summariser: Summariser, embedder: Embedder,
                  settings: Settings) -> tuple[dict[str, list[Summary]], dict[str, list[str]]]:
    """Every user's summaries (with their sources) and, for showing, their texts per topic."""
    out: dict[str, list[Summary]] = {}
    shown: dict[str, list[str]] = {}
    for history in histories:
        memories = as_memories(history)
        vectors = np.asarray(embedder.embed([m.content for m in memories]), dtype=np.float32)
        out[history.user_id] = []
        for topic in find_topics(memories, vectors, settings.cluster_similarity,
                                 settings.consolidation_cluster_size):
            facts = summariser.summarise([memories[i] for i in topic], vectors[topic])
            out[history.user_id] += [Summary(f.text, list(f.sources)) for f in facts]
            shown.setdefault(history.user_id, []).extend([f.text for f in facts] + [""])
    return out, shown


def run(users: int = 8, summariser: Summariser | None = None, seed: int = 16) -> dict[str, Any]:
    settings = Settings()
    histories = generate(seed=seed, users=users)
    started = time.perf_counter()
    summaries, shown = summarise_all(histories, summariser or RuleBasedSummariser(), shared_embedder(settings),
                                     settings)
    result = score(histories, summaries)
    result["episodes"] = sum(len(h.episodes) for h in histories)
    result["summaries"] = sum(len(s) for s in summaries.values())
    result["seconds"] = round(time.perf_counter() - started, 2)
    result["examples"] = shown
    return result


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=8)
    parser.add_argument("--seed", type=int, default=16, help="16 is the benchmark; others check it generalises")
    parser.add_argument("--show", action="store_true", help="print every summary")
    args = parser.parse_args(argv)
    result = run(args.users, seed=args.seed)
    print(f"summary benchmark: {result['users']} users, {result['episodes']} episodes, {result['topics']} topics "
          f"to summarise, {result['summaries']} summaries written ({result['seconds']} s)")
    print(f"  required facts stated: {result['stated']}/{result['required']} = {result['coverage']:.1%}")
    print(f"  duplicated claims:     {result['duplicated']}")
    print(f"  unsupported claims:    {result['unsupported']}")
    print(f"  facts per topic:       {result['facts_per_topic']}")
    for line in result["missing"][:20]:
        print(f"  missing: {line}")
    for line in result["problems"][:20]:
        print(f"  problem: {line}")
    if args.show:
        for user, texts in result["examples"].items():
            print(f"\n{user}")
            for text in texts:
                print(f"  {text}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    name = "summaries.json" if args.seed == 16 else f"summaries-seed{args.seed}.json"
    (RESULTS / name).write_text(json.dumps(result, indent=2, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
