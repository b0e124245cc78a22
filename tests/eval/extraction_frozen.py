"""Extraction quality on labelled messages in the slot vocabulary (docs/slots.md).

    .venv/bin/python tests/eval/extraction_frozen.py [--extractor learned|rules] [--set frozen|dev] [--model PATH] [-v]

Scores the frozen test set (tests/eval/data/frozen/extraction_frozen.txt: written blind, from
docs/slots.md only, never tuned on) next to the training data (shared/mnemo/training/data: what
the tagger learned from, so an upper bound). A predicted fact is right when its category, its slot
and its polarity match a label's and, for a multi-valued slot, its value shares a word with the
label's value (stemmed). Prints precision and recall per category and overall, value accuracy
(single-valued slots whose value matches too), and writes tests/eval/results/extraction_frozen.json.

``--set dev`` scores the development set instead (tests/eval/data/dev/extraction_dev.txt: written
blind by another session, from docs/slots.md only; the one to measure changes on while working, so
that the frozen set is scored only to report). ``--set pending`` scores the 1,297 blind messages parked in
shared/mnemo/training/data/pending (training reads none of them, so for the shipped model they are a second
development set, three times the dev set's size; a model trained on them must not be measured on them).
(The 2,824 messages of the tenth session's batch "voices", a development set here once, are training data since
the eleventh: they are in data/held, scored with the training data.)
``--set voices_c`` scores the 2,398 messages of batch voices_c (pending/voices_c, written blind in the fourteenth
session, not trained on): another development set, four times the dev set's size.
``--model`` scores a tagger other than the shipped one.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mnemo.domain.extraction.slots import SLOTS
from mnemo.domain.models import Message
from mnemo.domain.text import terms
from mnemo.ports import Extractor
from mnemo.training.judge import cases

HERE = Path(__file__).resolve().parent
FROZEN = HERE / "data" / "frozen" / "extraction_frozen.txt"
DEV = HERE / "data" / "dev" / "extraction_dev.txt"
TRAINING = HERE.parents[1] / "shared" / "mnemo" / "training" / "data"
PENDING = TRAINING / "pending"
WHEN = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


class Label:
    def __init__(self, category: str, slot: str, value: str, polarity: bool) -> None:
        self.category, self.slot, self.value, self.polarity = category, slot, value, polarity

    def __repr__(self) -> str:
        return f"{'' if self.polarity else '-'}{self.category}:{self.slot}={self.value}"


def load(paths: list[Path]) -> list[tuple[str, list[Label]]]:
    """Every labelled message and its labels (read as the candidates' judge is trained to score them)."""
    return [(message, [Label(*label) for label in labels]) for message, labels in cases(paths)]


def _value_matches(got: str, want: str) -> bool:
    g, w = set(terms(got)), set(terms(want))
    return bool(g & w) or want.lower() in got.lower() or got.lower() in want.lower()


def evaluate(extractor: Extractor, cases: list[tuple[str, list[Label]]]) -> dict[str, Any]:
    stats: dict[str, dict[str, int]] = defaultdict(lambda: {"tp": 0, "fp": 0, "fn": 0})
    values = {"right": 0, "of": 0}
    errors: list[dict[str, Any]] = []
    started = time.perf_counter()
    for i, (message, expected) in enumerate(cases):
        extraction = extractor.extract([Message(role="user", content=message, message_id=f"m{i}", created_at=WHEN)])
        unmatched = list(expected)
        for c in extraction.accepted:
            slot = c.tags[0] if c.tags and c.tags[0] in SLOTS else c.subject.split(":", 1)[0]
            spec = SLOTS.get(slot)
            value = c.evidence if spec is None else c.content

            def fits(e: Label, c_slot: str = slot, c_pol: bool = c.polarity, c_cat: str = c.category.value,
                     c_val: str = value, multi: bool = bool(spec and spec.multi)) -> bool:
                return (e.category == c_cat and e.slot == c_slot and e.polarity == c_pol
                        and (not multi or _value_matches(c_val, e.value)))

            match = next((e for e in unmatched if fits(e)), None)
            if match:
                unmatched.remove(match)
                stats[match.category]["tp"] += 1
                if spec is not None and not spec.multi:
                    values["of"] += 1
                    values["right"] += int(_value_matches(c.content, match.value))
            else:
                stats[c.category.value]["fp"] += 1
                errors.append({"message": message, "unexpected": f"{c.category.value}:{c.subject}",
                               "content": c.content})
        for e in unmatched:
            stats[e.category]["fn"] += 1
            errors.append({"message": message, "missed": repr(e)})
    elapsed = time.perf_counter() - started
    report: dict[str, Any] = {"messages": len(cases), "by_category": {},
                              "messages_per_second": round(len(cases) / elapsed, 1)}
    total = {"tp": 0, "fp": 0, "fn": 0}
    for category, s in sorted(stats.items()):
        for k in total:
            total[k] += s[k]
        report["by_category"][category] = _figures(s)
    report["all"] = _figures(total)
    report["single_value_accuracy"] = round(values["right"] / values["of"], 3) if values["of"] else None
    report["errors"] = errors
    return report


def _figures(s: dict[str, int]) -> dict[str, float]:
    precision = s["tp"] / (s["tp"] + s["fp"]) if s["tp"] + s["fp"] else 1.0
    recall = s["tp"] / (s["tp"] + s["fn"]) if s["tp"] + s["fn"] else 1.0
    return {"precision": round(precision, 3), "recall": round(recall, 3), **s}


def table(title: str, report: dict[str, Any]) -> None:
    print(f"{title} ({report['messages']} messages, {report['messages_per_second']} messages/s, "
          f"single-valued slots with the right value: {report['single_value_accuracy']})")
    print(f"  {'category':<14} {'precision':>9} {'recall':>7} {'tp':>4} {'fp':>4} {'fn':>4}")
    for category, f in [*report["by_category"].items(), ("all", report["all"])]:
        print(f"  {category:<14} {f['precision']:>9.3f} {f['recall']:>7.3f} {f['tp']:>4} {f['fp']:>4} {f['fn']:>4}")


def build_extractor(kind: str, model: Path | None = None, **knobs: float | None) -> Extractor:
    from mnemo.bootstrap import _extractor
    from mnemo.settings import Settings

    chosen = {f"extractor_{k}": v for k, v in knobs.items() if v is not None}
    return _extractor(Settings(extractor=kind, extractor_model_path=model, **chosen))  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extractor", default="learned", choices=["learned", "rules"])
    parser.add_argument("--set", dest="which", default="frozen", choices=["frozen", "dev", "pending", "voices_c"],
                        help="the blind set to score: frozen (to report), dev, pending or voices_c (to work on)")
    parser.add_argument("--model", type=Path, default=None, help="a tagger's weights (default: the shipped one)")
    parser.add_argument("--no-training", action="store_true", help="skip scoring the training data")
    for knob in ("min_confidence", "outside_at_least", "verify_at_least", "bio_penalty", "judge_keep_at_least"):
        parser.add_argument(f"--{knob.replace('_', '-')}", dest=knob, type=float, default=None,
                            help=f"MNEMO_EXTRACTOR_{knob.upper()} (default: the setting's)")
    parser.add_argument("-v", action="store_true", help="print every error of the training data, and of the dev set")
    args = parser.parse_args(argv)
    extractor = build_extractor(args.extractor, args.model, min_confidence=args.min_confidence,
                                outside_at_least=args.outside_at_least, verify_at_least=args.verify_at_least,
                                bio_penalty=args.bio_penalty, judge_keep_at_least=args.judge_keep_at_least)
    sets = {"frozen": [FROZEN], "dev": [DEV], "pending": sorted(PENDING.glob("extraction_train_*.txt")),
            "voices_c": sorted((PENDING / "voices_c").glob("extraction_train_*.txt"))}
    reports = {args.which: evaluate(extractor, load(sets[args.which]))}
    if not args.no_training:
        training = [*sorted(TRAINING.glob("extraction_train_*.txt")),
                    *sorted((TRAINING / "held").glob("extraction_train_*.txt"))]
        reports["training"] = evaluate(extractor, load(training))
    table(f"{args.which} set, {args.extractor} extractor", reports[args.which])
    if "training" in reports:
        table(f"training data, {args.extractor} extractor (an upper bound)", reports["training"])
    if args.v:  # never the frozen set's errors: it is not read line by line
        for name in ("training", "dev", "pending", "voices_c"):
            for error in reports.get(name, {}).get("errors", []):
                print("   ", name, error)
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    suffix = "" if args.which == "frozen" else f"_{args.which}"
    (out / f"extraction_frozen_{args.extractor}{suffix}.json").write_text(json.dumps(reports, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
