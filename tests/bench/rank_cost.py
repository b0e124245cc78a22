"""The cost of ranking a warm retrieve's candidates, and of making its hits, in one process.

    PYTHONPATH=shared .venv/bin/python tests/bench/rank_cost.py

20 hits (a served user of tests/bench/serve_load.py holds ~20-40 memories), half with a best sentence. Times, in
7 alternating rounds (the median printed): the hits made with the frozen dataclass's constructor and with
``Hit.of``; ``rank`` with the sentence mix as it was (``np.nan_to_num``) and as it is (``np.fmax``), whose
answers it checks are equal.
"""

from __future__ import annotations

import random
import sys
import timeit
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path[:0] = [str(Path(__file__).resolve().parents[2] / "shared")]

import mnemo.domain.ranking as ranking  # noqa: E402
from mnemo.domain.models import Category, Memory  # noqa: E402

NOW = datetime(2026, 6, 1, tzinfo=UTC)
Floats = npt.NDArray[np.float64]


def nan_to_num_mix(cosine: Floats, part: Floats, sentence_weight: float) -> Floats:
    """The sentence mix before fmax (ranking._semantic as it was)."""
    mixed = (1.0 - sentence_weight) * cosine + sentence_weight * np.maximum(cosine, np.nan_to_num(part, nan=0.0))
    return np.where(np.isnan(part), cosine, mixed)


def main() -> int:
    rng = random.Random(3)
    memories = []
    for i in range(20):
        when = NOW - timedelta(days=rng.uniform(0, 30))
        memories.append(Memory(memory_id=f"m{i}", tenant_id="t", user_id="u", category=Category.PREFERENCE,
                               subject=f"likes:m{i}", content="x", confidence=0.9, created_at=when, updated_at=when,
                               last_confirmed_at=when))
    values = [(m, rng.random(), rng.random() * 3, None if rng.random() < 0.5 else rng.random(), None, None,
               m.created_at.timestamp()) for m in memories]
    params = ranking.RankingParams(a=0.6, b=0.25, c=0.15, importance=0.1, access=0.05, lexical_weight=0.3,
                                   recency_lambda=0.01, sentence_weight=0.5, context_weight=0.3)
    hits = [ranking.Hit(*v) for v in values]
    fmax_mix = ranking._semantic
    took: dict[str, list[float]] = {"Hit(...)": [], "Hit.of(...)": [], "rank, nan_to_num": [], "rank, fmax": []}

    def timed(name: str, call: object) -> None:
        took[name].append(timeit.timeit(call, number=2000) / 2000 * 1e6)  # type: ignore[arg-type]

    for _ in range(7):
        timed("Hit(...)", lambda: [ranking.Hit(*v) for v in values])
        timed("Hit.of(...)", lambda: [ranking.Hit.of(*v) for v in values])
        ranking._semantic = nan_to_num_mix
        timed("rank, nan_to_num", lambda: ranking.rank(hits, NOW, params))
        ranking._semantic = fmax_mix
        timed("rank, fmax", lambda: ranking.rank(hits, NOW, params))
    ranking._semantic = nan_to_num_mix
    before = ranking.rank(hits, NOW, params)
    ranking._semantic = fmax_mix
    assert ranking.rank(hits, NOW, params) == before
    for name, samples in took.items():
        print(f"{name:18s} median {sorted(samples)[3]:7.1f} us (20 hits)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
