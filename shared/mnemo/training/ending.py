"""Trains the judge of whether a message ends a stored fact (``make train-ending``; see domain/extraction/ending.py).

    .venv/bin/python -m mnemo.training.ending [--epochs N] [--hidden H] [--seed S] [--folds K]

Reads every ``data/ending/ending_train_*.txt`` beside this file: lines ``FACT || MESSAGE || ends|holds``, written
by helper sessions that read neither the code nor any evaluation data (data/ending/README.md). Each fact's
statement and each message are read by the extraction encoder (one text per run, as the extractor reads them),
the pairs' features built as the judge builds them, and a small network fitted with numpy. ``--folds K`` first
reports K-fold cross-validated precision and recall over the training pairs (the only figures that may choose
the epochs and the hidden size: the check set, tests/eval/data/frozen/ending_check.txt, is for
tests/eval/ending.py alone). Writes ``mnemo/models/ending.npz`` and a JSON report beside it. Deterministic for a
given seed, data and model.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from mnemo.domain.extraction.ending import EndingModel, pair_features, read_statement
from mnemo.domain.extraction.tagger import TokenEncoder, TokenStates
from mnemo.domain.text import terms
from mnemo.training.extractor import ENCODER, fit, write_model

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "ending"
MODEL = HERE.parent / "models" / "ending.npz"
VERSION = "ending-2"  # 2: trained with unrelated messages too
LABELS = {"holds": 0, "ends": 1}
EPOCHS = 30
HIDDEN = 64
UNRELATED = 2  # pairs of each fact with unrelated messages added per written pair (see with_unrelated)

Array = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Pair:
    fact: str
    message: str
    ends: bool


def load(paths: list[Path]) -> list[Pair]:
    """The labelled pairs of ``paths``; a line that is not ``FACT || MESSAGE || ends|holds`` is an error."""
    pairs: list[Pair] = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" || ")]
            if len(parts) != 3 or parts[2] not in LABELS or not parts[0] or not parts[1]:
                raise ValueError(f"{path.name}:{number}: not 'FACT || MESSAGE || ends|holds'")
            pairs.append(Pair(parts[0], parts[1], parts[2] == "ends"))
    return pairs


def training_files() -> list[Path]:
    return sorted(DATA.glob("ending_train_*.txt"))


def with_unrelated(pairs: list[Pair], per_pair: int, seed: int) -> list[Pair]:
    """``pairs`` and, for each, ``per_pair`` more with its fact and another pair's message about another kind of
    fact that shares none of its value's words, labelled ``holds``. The written pairs are nearly all about the
    fact's own topic, where a judge learns that news of a change ends it; at run time most of a user's facts
    meet messages about something else ("we got a puppy" against "User's relationship: husband."), and a judge
    trained without such pairs ended them (dev conversations, the first judge: 103 -> 88 probes right)."""
    rng = random.Random(seed)  # noqa: S311 - a reproducible sample, not security
    out = list(pairs)
    for pair in pairs:
        start, end, slot = read_statement(pair.fact)
        value = set(terms(pair.fact[start:end]))
        for _ in range(per_pair):
            for _attempt in range(20):
                other = rng.choice(pairs)
                if read_statement(other.fact)[2] != slot and not value & set(terms(other.message)):
                    out.append(Pair(pair.fact, other.message, False))
                    break
    return out


def features(pairs: list[Pair], encoder: TokenEncoder) -> Array:
    """The judge's rows for ``pairs``, each text read once."""
    states: dict[str, TokenStates] = {}
    for text in {t for p in pairs for t in (p.fact, p.message)}:
        states[text] = encoder.encode_tokens([text])[0]
    return np.vstack([pair_features(states[p.fact], p.fact, states[p.message]) for p in pairs])


def fit_model(x: Array, y: npt.NDArray[np.int64], epochs: int, hidden: int, seed: int) -> EndingModel:
    # the two labels weigh alike whatever their shares in the pairs
    counts = np.bincount(y, minlength=2).astype(np.float32)
    weights = (counts.sum() / (2 * np.maximum(counts, 1))).astype(np.float32)
    return EndingModel(fit(x, y, 2, hidden, epochs, seed, weights, decay=1e-3), VERSION)


def scores(probabilities: Array, y: npt.NDArray[np.int64], at_least: float) -> dict[str, float]:
    said = probabilities >= at_least
    tp = int((said & (y == 1)).sum())
    fp = int((said & (y == 0)).sum())
    fn = int((~said & (y == 1)).sum())
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return {"at_least": at_least, "precision": round(precision, 3), "recall": round(recall, 3),
            "tp": tp, "fp": fp, "fn": fn}


def cross_validate(x: Array, y: npt.NDArray[np.int64], folds: int, epochs: int, hidden: int,
                   seed: int) -> Array:
    """Each pair's probability from a model trained without its fold."""
    order = list(range(len(y)))
    random.Random(seed).shuffle(order)  # noqa: S311 - a reproducible split, not security
    out = np.zeros(len(y), np.float32)
    for k in range(folds):
        held = np.array(order[k::folds])
        kept = np.setdiff1d(np.arange(len(y)), held)
        model = fit_model(x[kept], y[kept], epochs, hidden, seed)
        out[held] = model.probabilities(x[held])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--hidden", type=int, default=HIDDEN)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--folds", type=int, default=0, help="report K-fold figures on the training pairs first")
    parser.add_argument("--out", type=Path, default=MODEL)
    parser.add_argument("--encoder", type=Path, default=ENCODER)
    parser.add_argument("--unrelated", type=int, default=UNRELATED)
    args = parser.parse_args(argv)
    from mnemo.adapters.local.onnx_embedder import OnnxMiniLmEmbedder

    encoder = OnnxMiniLmEmbedder(query_model=args.encoder, verify=False)
    paths = training_files()
    pairs = with_unrelated(load(paths), args.unrelated, args.seed)
    y = np.array([int(p.ends) for p in pairs], np.int64)
    print(f"{len(pairs)} labelled pairs from {len(paths)} files: {int(y.sum())} ends, {int(len(y) - y.sum())} holds")
    started = time.perf_counter()
    x = features(pairs, encoder)
    report: dict[str, object] = {"pairs": len(pairs), "version": VERSION, "seed": args.seed, "epochs": args.epochs,
                                 "hidden": args.hidden, "unrelated": args.unrelated}
    if args.folds >= 2:
        p = cross_validate(x, y, args.folds, args.epochs, args.hidden, args.seed)
        report["cross_validated"] = [scores(p, y, t) for t in (0.5, 0.6, 0.7, 0.8, 0.9)]
        for row in report["cross_validated"]:  # type: ignore[attr-defined]
            print(f"{args.folds}-fold, at >= {row['at_least']}: precision {row['precision']:.3f} "
                  f"recall {row['recall']:.3f}")
    write_model(fit_model(x, y, args.epochs, args.hidden, args.seed).save, args.out, report, started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
