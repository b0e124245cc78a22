"""`make bench`: every benchmark, one after the other; each prints its figures and writes JSON
under tests/bench/results/.

    .venv/bin/python tests/bench/run_all.py [NAME ...]   (names: see ALL below; default all)

``summaries``, ``extraction`` and ``conversations`` are quality benchmarks of tests/eval.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mnemo.progress import ProgressBar

HERE = Path(__file__).resolve().parent
# quality figures live beside the evaluation data, in tests/eval
SCRIPTS = {"summaries": HERE.parent / "eval" / "summaries.py",
           "extraction": HERE.parent / "eval" / "extraction_frozen.py",
           "conversations": HERE.parent / "eval" / "conversations.py"}
ALL = ["embedding", "latency", "throughput", "locomo", "load", "serve_load", "close_load", "summaries",
       "consolidation", "extraction", "conversations"]


def main() -> int:
    unknown = [a for a in sys.argv[1:] if a not in ALL]
    if unknown:  # not all of them instead: that is a long run nobody asked for
        print(f"unknown benchmark {unknown[0]!r}; the names: {', '.join(ALL)}", file=sys.stderr)
        return 2
    chosen = sys.argv[1:] or ALL
    failed = []
    bar = ProgressBar("benchmarks")  # on stderr, between the benchmarks' own output, when it is a terminal
    for done, name in enumerate(chosen):
        bar(done, len(chosen), name)
        bar.close()
        print(f"\n##### {name}", flush=True)
        script = SCRIPTS.get(name, HERE / f"{name}.py")
        if subprocess.run([sys.executable, str(script)], check=False).returncode:
            failed.append(name)
    bar(len(chosen), len(chosen), "done")
    bar.close()
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
