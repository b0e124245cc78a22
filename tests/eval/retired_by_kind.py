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
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import conversations as bench

from mnemo.bootstrap import Mnemo


def retired_kinds(data: dict[str, Any]) -> Counter[tuple[str, str, str]]:
    """The kinds of the retired keywords, over the benchmark's own replay (conversations.run)."""
    kinds: Counter[tuple[str, str, str]] = Counter()

    def look(service: Mnemo, user: dict[str, Any], probe: dict[str, Any], block: str, now: datetime) -> None:
        missing = [k for k in probe.get("must_contain", []) if not bench.has(block, k)]
        if not missing:
            return
        memories = list(service.ports.memories.all_for_user(bench.TENANT, user["user_id"]))
        by_id = {m.memory_id: m for m in memories}
        for keyword in missing:
            if bench.why_missing(keyword, memories, now) != "retired":
                continue
            old = next((m for m in memories if bench.says([m.content], keyword) and m.superseded_by), None)
            new = by_id.get(old.superseded_by or "") if old is not None else None
            if old is None or new is None:
                kinds[("?", "?", "?")] += 1
                continue
            back = any(bench.says([new.content], v) for v in probe.get("must_not_contain", []))
            kinds[(old.subject.partition(":")[0], "the old value back" if back else "another value",
                   "same session" if new.created_at == old.created_at else "later")] += 1

    bench.run(data, "learned", on_probe=look)
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
