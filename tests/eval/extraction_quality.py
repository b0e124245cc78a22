"""Precision and recall of the rule-based extractor on a hand-labelled set of user messages.

    .venv/bin/python tests/eval/extraction_quality.py

Each line of data/extraction_*.txt is a message and the facts a careful reader would
store (category and the start of the slot), or "-" for nothing. A predicted fact is right when
its category matches and its slot starts with the expected prefix, as written or with its words
stemmed the way slots are ("allergy:sesame" also matches "allergy:sesam"). Prints per-category
figures for every file and for all of them, and writes tests/eval/results/extraction_quality.json.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mnemo.domain.extraction import RuleBasedExtractor
from mnemo.domain.models import Message
from mnemo.domain.text import stem

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "extraction_labelled.txt"


def load(path: Path = DATA) -> list[tuple[str, list[tuple[str, str]]]]:
    cases = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        message, _, labels = line.partition(" || ")
        expected = [] if labels.strip() == "-" else [
            tuple(label.strip().split(":", 1)) if ":" in label else (label.strip(), "")
            for label in labels.split(";")]
        cases.append((message.strip(), [(c, s) for c, s in expected]))
    return cases


def evaluate(cases: list[tuple[str, list[tuple[str, str]]]]) -> dict[str, Any]:
    extractor = RuleBasedExtractor()
    when = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
    stats: dict[str, dict[str, int]] = defaultdict(lambda: {"tp": 0, "fp": 0, "fn": 0})
    errors: list[dict[str, Any]] = []
    for i, (message, expected) in enumerate(cases):
        got = [(c.category.value, c.subject) for c in extractor.extract(
            [Message(role="user", content=message, message_id=f"m{i}", created_at=when)]).accepted]
        unmatched = list(expected)
        for category, subject in got:
            match = next((e for e in unmatched if e[0] == category and
                          (subject.startswith(e[1]) or subject.startswith(stemmed(e[1])))), None)
            if match:
                unmatched.remove(match)
                stats[category]["tp"] += 1
            else:
                stats[category]["fp"] += 1
                errors.append({"message": message, "unexpected": f"{category}:{subject}"})
        for category, subject in unmatched:
            stats[category]["fn"] += 1
            errors.append({"message": message, "missed": f"{category}:{subject}"})
    report: dict[str, Any] = {"messages": len(cases), "by_category": {}}
    total = {"tp": 0, "fp": 0, "fn": 0}
    for category, s in sorted(stats.items()):
        for k in total:
            total[k] += s[k]
        report["by_category"][category] = _figures(s)
    report["all"] = _figures(total)
    report["errors"] = errors
    return report


def stemmed(prefix: str) -> str:
    """The slot's kind stays as written ("favorite", "avoids"); its object is stemmed ("movie" -> "movi")."""
    kind, *objects = prefix.split(":")
    return ":".join([kind, *("_".join(stem(w) for w in part.split("_")) for part in objects)])


def _figures(s: dict[str, int]) -> dict[str, float]:
    precision = s["tp"] / (s["tp"] + s["fp"]) if s["tp"] + s["fp"] else 1.0
    recall = s["tp"] / (s["tp"] + s["fn"]) if s["tp"] + s["fn"] else 1.0
    return {"precision": round(precision, 3), "recall": round(recall, 3), **s}


def load_all() -> list[tuple[str, list[tuple[str, str]]]]:
    return [case for path in files() for case in load(path)]


def files() -> list[Path]:
    return sorted((HERE / "data").glob("extraction_*.txt"))


def table(title: str, report: dict[str, Any]) -> None:
    print(f"{title} ({report['messages']} messages)")
    print(f"  {'category':<14} {'precision':>9} {'recall':>7} {'tp':>4} {'fp':>4} {'fn':>4}")
    for category, f in [*report["by_category"].items(), ("all", report["all"])]:
        print(f"  {category:<14} {f['precision']:>9.3f} {f['recall']:>7.3f} {f['tp']:>4} {f['fp']:>4} {f['fn']:>4}")


def main() -> int:
    reports = {path.stem: evaluate(load(path)) for path in files()}
    reports["all"] = evaluate(load_all())
    for name, report in reports.items():
        table(name, report)
        if "-v" in sys.argv and name != "all":
            for error in report["errors"]:
                print("    ", error)
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "extraction_quality.json").write_text(json.dumps(reports, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
