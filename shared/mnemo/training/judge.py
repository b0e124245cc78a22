"""Trains the judge of the learned extractor's candidates (domain/extraction/judge.py; ``make train-judge``).

    .venv/bin/python -m mnemo.training.judge [--folds K] [--members M] [--rows FILE]

Out of fold, so that the judge learns the mistakes the extractor makes on text its tagger never saw: the
committed training messages (``data/extraction_train_*.txt`` and ``data/held``) are cut into K folds by a
hash of their text; for each fold a tagger is trained (as ``mnemo.training.extractor`` trains it, ``--members``
averaged taggers) on the other folds, the whole learned extractor runs with it over the fold's messages, and
each candidate it stores is labelled as the eval scripts score it (tests/eval/extraction_frozen.py): right
when a label of its message has its category, slot and polarity and, for a multi-valued slot, shares a word
of its value, each label matched once, in the extractor's order. The judge (a small MLP, numpy) is then fitted
on every candidate's row and written to ``mnemo/models/extractor_judge.npz`` with a JSON report: the
candidates' precision and recall over the keep threshold, each fold's candidates judged by a judge fitted on
the other folds. The extraction encoder was fine-tuned on all these messages, so its vectors saw every fold;
only the taggers are out of fold. Deterministic for a given seed, data and model.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import zlib
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import numpy.typing as npt

from mnemo.domain.extraction.judge import OWN_FIGURES, CandidateJudge, judge_rows, judged
from mnemo.domain.extraction.pipeline import LearnedExtractor
from mnemo.domain.extraction.slots import SLOTS
from mnemo.domain.extraction.tagger import READING_FIGURES, TokenEncoder
from mnemo.domain.models import Category, Message
from mnemo.domain.text import terms
from mnemo.settings import Settings
from mnemo.training.extractor import encode, fit, fit_tag_net, fit_tagger, training_files, write_model
from mnemo.training.extractor import load as load_examples

HERE = Path(__file__).resolve().parent
MODEL = HERE.parent / "models" / "extractor_judge.npz"
VERSION = "judge-1"
FOLDS = 5
MEMBERS = 1
# five judges from consecutive seeds, averaged; small and strongly decayed: on the pending set (rows of the
# shipped tagger's candidates) one 32-wide judge over 30 epochs lost three times the recall at 0.05 (README, issue 10)
JUDGES = 5
HIDDEN = 16
EPOCHS = 15
DECAY = 1e-2
WHEN = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)  # the eval scripts' message time
_LABEL = re.compile(r"^(?P<neg>-)?(?P<category>[a-z_]+):(?P<slot>[a-z_]+)=(?P<value>.+)$")
THRESHOLDS = (0.0, 0.05, 0.1, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7)

Array = npt.NDArray[np.float32]
Label = tuple[str, str, str, bool]  # category, slot, value, stated


def cases(paths: list[Path]) -> list[tuple[str, list[Label]]]:
    """Every labelled message, its labels read as the eval scripts read them."""
    out = []
    for path in paths:
        for line in path.read_text().splitlines():
            if not line.strip() or line.startswith("#") or " || " not in line:
                continue
            message, _, labels = line.partition(" || ")
            parsed = []
            for label in ([] if labels.strip() == "-" else labels.split(";")):
                m = _LABEL.match(label.strip())
                if m:
                    parsed.append((m.group("category"), m.group("slot"), m.group("value").strip(), not m.group("neg")))
            out.append((message.strip(), parsed))
    return out


def fold_of(text: str, folds: int) -> int:
    return zlib.crc32(text.strip().encode()) % folds


def _value_matches(got: str, want: str) -> bool:
    g, w = set(terms(got)), set(terms(want))
    return bool(g & w) or want.lower() in got.lower() or got.lower() in want.lower()


def message_rows(extractor: LearnedExtractor, text: str, labels: list[Label], width: int) -> tuple[Array, list[int]]:
    """The judged candidates' rows of one message and their labels (1: a labelled fact, matched as the eval does)."""
    extraction = extractor.extract([Message(role="user", content=text, message_id="m", created_at=WHEN)])
    unmatched = list(labels)
    right: list[int] = []
    accepted = extraction.accepted
    for c in accepted:
        slot = c.tags[0] if c.tags and c.tags[0] in SLOTS else c.subject.split(":", 1)[0]
        spec = SLOTS.get(slot)
        value = c.evidence if spec is None else c.content
        match = next((e for e in unmatched if e[0] == c.category.value and e[1] == slot and e[3] == c.polarity
                      and (not (spec and spec.multi) or _value_matches(value, e[2]))), None)
        if match:
            unmatched.remove(match)
        right.append(int(match is not None))
    rows = judge_rows(accepted, text, width)
    keep = [i for i, c in enumerate(accepted) if judged(c)]
    return rows[keep], [right[i] for i in keep]


def out_of_fold(encoder: TokenEncoder, folds: int, members: int, epochs: int, seed: int
                ) -> tuple[Array, npt.NDArray[np.int64], npt.NDArray[np.int64], dict[str, int]]:
    """Every judged candidate's row, label and fold, and the counts the curve needs (labels, unjudged hits)."""
    paths = training_files()
    examples = load_examples(paths)
    labelled = cases(paths)
    settings = Settings()
    encoded = encode(examples, encoder)
    width = 2 * encoded[0].tokens.states.shape[1] + READING_FIGURES
    xs: list[Array] = []
    ys: list[int] = []
    fs: list[int] = []
    counts = {"labels": sum(len(labels) for _t, labels in labelled), "messages": len(labelled)}
    for fold in range(folds):
        started = time.perf_counter()
        train = [item for item in encoded if fold_of(examples[item.origin].text, folds) != fold]
        tagger = fit_tagger(train, epochs, seed + fold)
        tagger.more_tag_nets = [fit_tag_net(train, epochs, seed + fold + 100 * n) for n in range(1, members)]
        extractor = LearnedExtractor(encoder, tagger, settings.extractor_min_confidence,
                                     settings.extractor_outside_at_least, settings.extractor_verify_at_least,
                                     settings.extractor_later_value_doubt, settings.extractor_bio_penalty,
                                     with_features=True)
        held = [(text, labels) for text, labels in labelled if fold_of(text, folds) == fold]
        n = 0
        for text, labels in held:
            x, y = message_rows(extractor, text, labels, width)
            xs.append(x)
            ys.extend(y)
            fs.extend([fold] * len(y))
            n += len(y)
        print(f"  fold {fold + 1}/{folds}: {len(held)} messages, {n} judged candidates, "
              f"{sum(ys[-n:]) if n else 0} right ({time.perf_counter() - started:.0f} s)", flush=True)
    return (np.vstack(xs).astype(np.float32), np.array(ys, dtype=np.int64), np.array(fs, dtype=np.int64), counts)


def fit_judge(x: Array, y: npt.NDArray[np.int64], seed: int, width: int, hidden: int = HIDDEN,
              epochs: int = EPOCHS, judges: int = JUDGES) -> CandidateJudge:
    """``judges`` MLPs from seeds ``seed``, ``seed + 1``, ..., on classes weighted to balance."""
    counts = np.bincount(y, minlength=2).astype(np.float32)
    weights = (counts.sum() / (2 * np.maximum(counts, 1))).astype(np.float32)
    return CandidateJudge([fit(x, y, 2, hidden=hidden, epochs=epochs, seed=seed + n, weights=weights, decay=DECAY)
                           for n in range(judges)], width, VERSION)


def curve(x: Array, y: npt.NDArray[np.int64], folds: npt.NDArray[np.int64], seed: int, width: int,
          hidden: int, epochs: int) -> list[dict[str, float]]:
    """The judged candidates' precision and recall (of the right ones among them) over the keep threshold, each
    fold judged by a judge fitted on the other folds."""
    p = np.zeros(len(y), np.float32)
    for fold in np.unique(folds):
        inside = folds == fold
        p[inside] = fit_judge(x[~inside], y[~inside], seed, width, hidden, epochs).probabilities(x[inside])
    out = []
    for t in THRESHOLDS:
        kept = p >= t
        tp = int((kept & (y == 1)).sum())
        fp = int((kept & (y == 0)).sum())
        out.append({"keep_at_least": t, "kept": int(kept.sum()), "right": tp, "wrong": fp,
                    "precision": round(tp / max(tp + fp, 1), 3), "right_kept": round(tp / max(int(y.sum()), 1), 3)})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=FOLDS)
    parser.add_argument("--members", type=int, default=MEMBERS, help="averaged taggers per fold")
    parser.add_argument("--epochs", type=int, default=12, help="the fold taggers' epochs (as the shipped tagger's)")
    parser.add_argument("--hidden", type=int, default=HIDDEN)
    parser.add_argument("--judge-epochs", type=int, default=EPOCHS)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=MODEL)
    parser.add_argument("--rows", type=Path, default=None,
                        help="keep the out-of-fold rows in this .npz (read them from it when it exists)")
    args = parser.parse_args(argv)
    from mnemo.bootstrap import shared_token_encoder

    started = time.perf_counter()
    encoder = shared_token_encoder(Settings())
    if args.rows is not None and args.rows.exists():
        with np.load(args.rows) as data:
            x, y, folds = data["x"], data["y"], data["folds"]
            counts = {"labels": int(data["labels"]), "messages": int(data["messages"])}
    else:
        x, y, folds, counts = out_of_fold(encoder, args.folds, args.members, args.epochs, args.seed)
        if args.rows is not None:
            np.savez_compressed(args.rows, x=x, y=y, folds=folds, labels=counts["labels"],
                                messages=counts["messages"])
    width = x.shape[1] - (len(SLOTS) + len(Category) + OWN_FIGURES)
    print(f"{len(y)} judged candidates out of fold, {int(y.sum())} right; {counts}")
    report: dict[str, object] = {"version": VERSION, "folds": args.folds, "members": args.members,
                                 "seed": args.seed, "hidden": args.hidden, "epochs": args.judge_epochs,
                                 "candidates": len(y), "right": int(y.sum()), **counts}
    report["curve"] = curve(x, y, folds, args.seed, width, args.hidden, args.judge_epochs)
    for row in report["curve"]:  # type: ignore[attr-defined]
        print(f"  keep >= {row['keep_at_least']:.2f}: kept {row['kept']}, precision {row['precision']:.3f}, "
              f"right kept {row['right_kept']:.3f}")
    judge = fit_judge(x, y, args.seed, width, args.hidden, args.judge_epochs)
    write_model(judge.save, args.out, report, started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
