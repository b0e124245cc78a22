"""Multi-session conversation benchmark: do later sessions get the right memories in the block?

    .venv/bin/python tests/eval/conversations.py [--extractor learned|rules] [--data FILE]

Plays tests/eval/data/frozen/conversations_frozen.json (written blind, never tuned on) through the
embedded home on a manual clock: each session's turns are posted, the conversation is closed and
extracted; then each probe of that session is asked as a retrieve, and its block must contain every
`must_contain` keyword (one of the "|"-separated alternatives, case-insensitive, starting a word of the text
the block quotes: "rust" is not in "trust", "paint" is in "painting", "25" is not in a label's "25d ago") and
none of
`must_not_contain` (superseded values, other people's facts). Prints probes right overall and for
later sessions (2 onwards), blocks that named a value they must not, and where the keywords the blocks lack
are among the user's memories (never stored, retired, only a retraction, or live but not chosen by the
retrieval: extraction's share and retrieval's); writes tests/eval/results/conversations.json.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from mnemo.bootstrap import Mnemo, build_local, run_due_jobs
from mnemo.clock import ManualClock
from mnemo.domain.extraction.slots import RETRACTION_TAG
from mnemo.domain.models import Memory
from mnemo.services.ingest import IncomingMessage
from mnemo.settings import Settings

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "frozen" / "conversations_frozen.json"
TENANT = "bench"
# why a keyword a probe needs is not in its block (see why_missing), in the order they are printed
MISSING_KINDS = ("never_stored", "retired", "retraction", "not_chosen")


def has(block: str, keyword: str) -> bool:
    # in what the block quotes (each memory's and profile value's text), at the start of a word: the block's fixed
    # rules ("trust the conversation") hold no user's "rust", its labels ("[episodic | ... | 25d ago]", dates)
    # no "25" or "2"
    return says(_QUOTED.findall(block), keyword)


_QUOTED = re.compile(r'"(.*)"')


def says(texts: list[str], keyword: str) -> bool:
    """One of the keyword's "|"-separated alternatives starts a word of one of the texts (case-insensitive)."""
    joined = "\n".join(texts)
    return any(alt.strip() and re.search(r"(?<!\w)" + re.escape(alt.strip()), joined, re.IGNORECASE)
               for alt in keyword.split("|"))


def why_missing(keyword: str, memories: list[Memory], now: datetime) -> str:
    """Where a keyword the block lacks is among the user's memories: ``not_chosen`` (a live fact says it, the
    retrieval left it out), ``retraction`` (only a listed, never-injected retraction says it), ``retired`` (only
    a fact no longer live: superseded, archived, expired) or ``never_stored`` (no fact says it: extraction)."""
    live = [m for m in memories if m.is_live(now)]
    if says([m.content for m in live if RETRACTION_TAG not in m.tags], keyword):
        return "not_chosen"
    if says([m.content for m in live], keyword):
        return "retraction"
    return "retired" if says([m.content for m in memories], keyword) else "never_stored"


def timeline(data: dict[str, Any]) -> list[tuple[datetime, dict[str, Any], int, dict[str, Any]]]:
    """(date, user, session number, session) for every session of every user, oldest first."""
    sessions = [(datetime.fromisoformat(session["date"].replace("Z", "+00:00")), user, number, session)
                for user in data["users"] for number, session in enumerate(user["sessions"], start=1)]
    return sorted(sessions, key=lambda s: s[0])


# (the service, the user, the probe, its block, the time of the probe)
OnProbe = Callable[[Mnemo, dict[str, Any], dict[str, Any], str, datetime], None]


def run(data: dict[str, Any], extractor: str, model: Path | None = None,
        min_confidence: float | None = None, ending_at_least: float | None = None,
        ending_cross: bool = True, judge_keep_at_least: float | None = None,
        settings: dict[str, str] | None = None, on_probe: OnProbe | None = None) -> dict[str, Any]:
    """The set replayed on one timeline, each probe scored; ``on_probe`` sees each probe with the service, the user,
    the block and the clock (for a tool that looks further, as retired_by_kind.py does)."""
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        sessions = timeline(data)
        clock = ManualClock(sessions[0][0])
        knobs: dict[str, Any] = {} if min_confidence is None else {"extractor_min_confidence": min_confidence}
        if judge_keep_at_least is not None:
            knobs["extractor_judge_keep_at_least"] = judge_keep_at_least
        if ending_at_least is not None:
            knobs.update(ending_enabled=True, ending_at_least=ending_at_least, ending_cross_encoder=ending_cross)
        knobs.update(settings or {})  # validated (and coerced from text) by Settings itself
        service = build_local(Settings(data_dir=Path(tmp), extractor=extractor, extractor_model_path=model,
                                       **knobs), clock=clock)
        try:
            # every user's sessions on one timeline, in the order they happened: one clock serves them all,
            # so a user replayed after another must not have their sessions pushed past that one's last
            for when, user, number, session in sessions:
                if when > clock.now():
                    clock.set(when)
                conversation = f"{user['user_id']}-s{number}"
                for turn in session["turns"]:
                    messages = [IncomingMessage(role="user", content=turn["user"], created_at=clock.now())]
                    if turn.get("assistant"):
                        messages.append(IncomingMessage(role="assistant", content=turn["assistant"],
                                                        created_at=clock.now()))
                    service.ingestor.add_turns(TENANT, user["user_id"], conversation, messages)
                service.ingestor.close(TENANT, user["user_id"], conversation)
                run_due_jobs(service)
                for probe in session.get("probes", []):
                    answer = service.retriever.retrieve(TENANT, user["user_id"], probe["query"], top_k=8,
                                                        token_budget=500)
                    block = answer.context or ""
                    if on_probe is not None:
                        on_probe(service, user, probe, block, clock.now())
                    missing = [k for k in probe.get("must_contain", []) if not has(block, k)]
                    leaked = [k for k in probe.get("must_not_contain", []) if has(block, k)]
                    why: dict[str, str] = {}
                    if missing:
                        memories = list(service.ports.memories.all_for_user(TENANT, user["user_id"]))
                        why = {k: why_missing(k, memories, clock.now()) for k in missing}
                    results.append({"user": user["user_id"], "session": number, "query": probe["query"],
                                    "right": not missing and not leaked, "missing": missing,
                                    "leaked": leaked, **({"why_missing": why} if why else {}),
                                    **({"block": block} if missing or leaked else {})})
        finally:
            service.close()
    later = [r for r in results if r["session"] >= 2]
    return {
        "probes": len(results), "right": sum(r["right"] for r in results),
        "later_probes": len(later), "later_right": sum(r["right"] for r in later),
        "blocks_with_forbidden_values": sum(bool(r["leaked"]) for r in results),
        "missing_keywords": dict(Counter(w for r in results for w in r.get("why_missing", {}).values())),
        "results": results,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extractor", default="learned", choices=["learned", "rules"])
    parser.add_argument("--data", type=Path, default=DATA,
                        help="default: the frozen set; tests/eval/data/dev/conversations_dev.json to work on")
    parser.add_argument("--model", type=Path, default=None, help="a tagger's weights (default: the shipped one)")
    parser.add_argument("--min-confidence", type=float, default=None,
                        help="MNEMO_EXTRACTOR_MIN_CONFIDENCE (default: the setting's)")
    parser.add_argument("--ending-at-least", type=float, default=None,
                        help="switch the learned judge of endings on at this threshold (default: the settings')")
    parser.add_argument("--no-cross", action="store_true",
                        help="with --ending-at-least: the first judge of endings alone (MNEMO_ENDING_CROSS_ENCODER)")
    parser.add_argument("--judge-keep-at-least", type=float, default=None,
                        help="MNEMO_EXTRACTOR_JUDGE_KEEP_AT_LEAST (default: the setting's)")
    parser.add_argument("--setting", action="append", default=[], metavar="NAME=VALUE",
                        help="any other setting by its field name, e.g. near_miss_ratio=0.4 (repeatable)")
    args = parser.parse_args(argv)
    settings = dict(item.partition("=")[::2] for item in args.setting)
    report = run(json.loads(args.data.read_text()), args.extractor, args.model, args.min_confidence,
                 args.ending_at_least, not args.no_cross, args.judge_keep_at_least, settings)
    share = report["later_right"] / max(report["later_probes"], 1)
    print(f"conversation benchmark ({args.data.name}, {args.extractor} extractor): "
          f"{report['right']}/{report['probes']} probes right; later sessions {report['later_right']}/"
          f"{report['later_probes']} ({share:.1%}); blocks naming a value they must not: "
          f"{report['blocks_with_forbidden_values']}")
    kinds = report["missing_keywords"]
    print("keywords missing from blocks: " + (", ".join(f"{kind} {kinds.get(kind, 0)}" for kind in MISSING_KINDS)))
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    suffix = "" if args.data == DATA else f"_{args.data.stem}"
    (out / f"conversations_{args.extractor}{suffix}.json").write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
