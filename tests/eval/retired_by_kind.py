"""Why the keywords a conversation set's probes miss as "retired" were retired, by kind only: the slot of the right
fact, whether what replaced it holds a value the probe says must not be there (the old value back) or another one,
and whether it was read in the same session. It prints no text of the set, so a holdout can be looked at this way
without being read.

    PYTHONPATH=shared:. python tests/eval/retired_by_kind.py --data tests/eval/data/dev/conversations_dev21.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import conversations as bench

from mnemo.bootstrap import build_local, run_due_jobs
from mnemo.clock import ManualClock
from mnemo.services.ingest import IncomingMessage
from mnemo.settings import Settings


def retired_kinds(data: dict[str, object]) -> Counter[tuple[str, str, str]]:
    kinds: Counter[tuple[str, str, str]] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        sessions = bench.timeline(data)  # type: ignore[arg-type]
        clock = ManualClock(sessions[0][0])
        service = build_local(Settings(data_dir=Path(tmp), extractor="learned"), clock=clock)
        try:
            for when, user, number, session in sessions:
                clock.set(max(when, clock.now()))
                conversation = f"{user['user_id']}-s{number}"
                for turn in session["turns"]:
                    service.ingestor.add_turns(bench.TENANT, user["user_id"], conversation, [
                        IncomingMessage(role="user", content=turn["user"], created_at=clock.now())])
                service.ingestor.close(bench.TENANT, user["user_id"], conversation)
                run_due_jobs(service)
                for probe in session.get("probes", []):
                    block = service.retriever.retrieve(bench.TENANT, user["user_id"], probe["query"], top_k=8,
                                                       token_budget=500).context or ""
                    memories = list(service.ports.memories.all_for_user(bench.TENANT, user["user_id"]))
                    by_id = {m.memory_id: m for m in memories}
                    for keyword in probe.get("must_contain", []):
                        if bench.has(block, keyword) or bench.why_missing(keyword, memories, clock.now()) != "retired":
                            continue
                        old = next((m for m in memories if bench.says([m.content], keyword) and m.superseded_by), None)
                        new = by_id.get(old.superseded_by or "") if old is not None else None
                        if old is None or new is None:
                            kinds[("?", "?", "?")] += 1
                            continue
                        back = any(bench.says([new.content], v) for v in probe.get("must_not_contain", []))
                        kinds[(old.subject.partition(":")[0], "the old value back" if back else "another value",
                               "same session" if new.created_at == old.created_at else "later")] += 1
        finally:
            service.close()
    return kinds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a conversations JSON file")
    args = parser.parse_args(argv)
    kinds = retired_kinds(json.loads(args.data.read_text()))
    print(f"keywords retired ({args.data.name}): {sum(kinds.values())}")
    for (slot, replaced_by, when), count in kinds.most_common():
        print(f"  {count:3}  {slot}: replaced by {replaced_by}, {when}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
