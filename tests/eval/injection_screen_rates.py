"""How often the instruction screens flag ordinary text, and how many injections in other languages they read.

Benign: every turn of LoCoMo's development conversations (shared/data/locomo-dev.json, when present), the user
and assistant turns of the conversation sets (tests/eval/data/dev, frozen), the extraction sentences
(tests/eval/data/*.txt, left of '||') and the messages of the secrets corpus (tests/eval/secrets_corpus.py);
the ordinary sentences of other languages of tests/unit/test_other_languages.py. Attacks: that file's orders.
'flagged' counts is_instruction_like (the block's caution); 'refused' counts rejection_reason ==
'instruction_injection' (extraction drops the candidate).

    PYTHONPATH=shared:. .venv/bin/python tests/eval/injection_screen_rates.py [--locomo shared/data/locomo-dev.json]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from pathlib import Path

from mnemo.domain.screening import is_instruction_like, rejection_reason
from tests.bench.locomo_data import DEFAULT_DATA, turns_of
from tests.eval.secrets_corpus import corpus
from tests.unit import test_other_languages as languages

EVAL = Path(__file__).resolve().parent


def conversations() -> list[str]:
    texts: list[str] = []
    paths = [*sorted((EVAL / "data" / "dev").glob("conversations_*.json")),
             EVAL / "data" / "frozen" / "conversations_frozen.json"]
    for path in paths:
        for user in json.loads(path.read_text())["users"]:
            for session in user["sessions"]:
                for turn in session["turns"]:
                    texts += [turn.get("user", ""), turn.get("assistant", "")]
    return [t for t in texts if t]


def extraction_sentences() -> list[str]:
    texts = []
    for path in sorted(EVAL.glob("data/**/*.txt")):
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                texts.append(line.split("||")[0].strip())
    return texts


def locomo(path: Path) -> list[str]:
    if not path.exists():
        print(f"(no LoCoMo file at {path}: --locomo PATH)")
        return []
    return [text for sample in json.loads(path.read_text()) for _, text, _ in turns_of(sample)]


def report(name: str, texts: Iterable[str]) -> None:
    distinct = sorted(set(texts))
    flagged = [t for t in distinct if is_instruction_like(t)]
    refused = [t for t in distinct if rejection_reason(t) == "instruction_injection"]
    share = 100 * len(flagged) / max(1, len(distinct))
    print(f"{name:<34} {len(distinct):>6} texts  flagged {len(flagged):>4} ({share:.2f}%)"
          f"  refused as injection {len(refused):>4}")
    for text in flagged[:5]:
        print(f"    flagged: {text[:110]!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    print("benign")
    report("LoCoMo dev turns", locomo(args.locomo))
    report("conversation sets' turns", conversations())
    report("extraction sentences", extraction_sentences())
    report("secrets corpus messages", [message for _, _, message, _ in corpus()])
    report("other languages, ordinary", languages.BENIGN + getattr(languages, "SECOND_BENIGN", []))
    print("attacks (other languages)")
    report("development", languages.DEVELOPMENT)
    report("held out", languages.HELD_OUT)
    report("second held out", getattr(languages, "SECOND_HELD_OUT", []))


if __name__ == "__main__":
    main()
