"""Choose the learned extractor's thresholds on the development set (never on the frozen one).

    .venv/bin/python tests/eval/extraction_tune.py [--model PATH]

Scores the dev set (tests/eval/data/dev/extraction_dev.txt) through the whole extractor for a grid of
the three thresholds (MNEMO_EXTRACTOR_MIN_CONFIDENCE, _OUTSIDE_AT_LEAST, _VERIFY_AT_LEAST); each
message's token states are computed once and reused, so the grid costs little more than one pass.
Prints the grid sorted by F1 (and by precision at recall >= 0.75), writes
tests/eval/results/extraction_tune.json. The chosen values become the settings' defaults.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mnemo.bootstrap import TAGGER_PATH, shared_token_encoder
from mnemo.domain.extraction.pipeline import LearnedExtractor
from mnemo.domain.extraction.tagger import SlotTagger, TokenEncoder, TokenStates
from mnemo.settings import Settings
from tests.eval.extraction_frozen import DEV, HERE, evaluate, load

GRID = {"min_confidence": [0.5], "outside_at_least": [0.5, 0.6],
        "verify_at_least": [0.1, 0.2, 0.3, 0.4, 0.5]}


class CachedEncoder:
    """The same token states for the same text, computed once."""

    def __init__(self, inner: TokenEncoder) -> None:
        self._inner = inner
        self._cache: dict[str, TokenStates] = {}

    def encode_tokens(self, texts: Sequence[str]) -> list[TokenStates]:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            self._cache.update(zip(missing, self._inner.encode_tokens(missing), strict=True))
        return [self._cache[t] for t in texts]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=TAGGER_PATH)
    args = parser.parse_args(argv)
    tagger = SlotTagger.load(args.model)
    encoder = CachedEncoder(shared_token_encoder(Settings()))
    cases = load([DEV])
    grid = GRID if tagger.verifier is not None else {**GRID, "verify_at_least": [0.5]}
    rows: list[dict[str, Any]] = []
    for values in itertools.product(*grid.values()):
        knobs = dict(zip(grid, values, strict=True))
        extractor = LearnedExtractor(encoder, tagger, knobs["min_confidence"], knobs["outside_at_least"],
                                     knobs["verify_at_least"])
        report = evaluate(extractor, cases)["all"]
        p, r = report["precision"], report["recall"]
        rows.append({**knobs, "precision": p, "recall": r, "f1": round(2 * p * r / max(p + r, 1e-9), 3)})
    rows.sort(key=lambda row: -row["f1"])
    print(f"dev set ({len(cases)} messages), tagger {args.model.name}, verifier: {tagger.verifier is not None}")
    print(f"  {'min_conf':>8} {'outside':>7} {'verify':>6}  {'P':>5} {'R':>5} {'F1':>5}")
    for row in rows:
        print(f"  {row['min_confidence']:>8} {row['outside_at_least']:>7} {row['verify_at_least']:>6}  "
              f"{row['precision']:.3f} {row['recall']:.3f} {row['f1']:.3f}")
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "extraction_tune.json").write_text(json.dumps({"model": args.model.name, "grid": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
