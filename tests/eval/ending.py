"""The judge of endings on its check set: does a later message end a stored fact?

    .venv/bin/python tests/eval/ending.py [--model PATH] [--data FILE]

Reads tests/eval/data/frozen/ending_check.txt (360 pairs written blind by a helper session that read neither the
code nor the training pairs; never trained or tuned on), runs the shipped judge (domain/extraction/ending.py) over
each pair as the extraction job does (the fact's statement and the message each read by the extraction encoder),
the first judge's likely pairs read again by the cross-encoder unless --no-cross (MNEMO_ENDING_CROSS_ENCODER),
and prints precision and recall of `ends` at several thresholds, the shipped one (MNEMO_ENDING_AT_LEAST) marked,
with the pairs it got wrong at that threshold; writes tests/eval/results/ending.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]

from mnemo.bootstrap import ENDING_PATH, endings  # noqa: E402
from mnemo.settings import Settings  # noqa: E402
from mnemo.training.ending import load, scores  # noqa: E402

DATA = ROOT / "tests" / "eval" / "data" / "frozen" / "ending_check.txt"
RESULTS = ROOT / "tests" / "eval" / "results" / "ending.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=ENDING_PATH)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--no-cross", action="store_true", help="the first judge alone")
    args = parser.parse_args(argv)
    settings = Settings(ending_enabled=True, ending_model_path=args.model, ending_cross_encoder=not args.no_cross)
    judge = endings(settings)
    assert judge is not None
    pairs = load([args.data])
    y = np.array([int(p.ends) for p in pairs], np.int64)
    chances = np.array([judge.probabilities(p.message, [p.fact])[0] for p in pairs], np.float32)
    shipped = settings.ending_at_least
    rows = [scores(chances, y, t) for t in sorted({0.5, 0.6, 0.7, 0.8, 0.9, 0.95, shipped})]
    print(f"judge of endings ({judge.version}) on {args.data.name}: {len(pairs)} pairs, {int(y.sum())} ends")
    for row in rows:
        mark = "  <- shipped (MNEMO_ENDING_AT_LEAST)" if row["at_least"] == shipped else ""
        print(f"  at >= {row['at_least']:.2f}: precision {row['precision']:.3f} recall {row['recall']:.3f} "
              f"(tp {row['tp']}, fp {row['fp']}, fn {row['fn']}){mark}")
    wrong = [{"fact": p.fact, "message": p.message, "ends": p.ends, "chance": round(float(c), 3)}
             for p, c in zip(pairs, chances, strict=True) if (c >= shipped) != p.ends]
    print(f"wrong at the shipped threshold: {sum(1 for w in wrong if not w['ends'])} ended that hold, "
          f"{sum(1 for w in wrong if w['ends'])} missed")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"data": args.data.name, "pairs": len(pairs), "version": judge.version,
                                   "shipped_at_least": shipped, "scores": rows, "wrong": wrong},
                                  indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
