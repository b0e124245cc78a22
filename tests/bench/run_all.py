"""`make bench`: every benchmark, one after the other; each prints its figures and writes JSON
under tests/bench/results/.

    .venv/bin/python tests/bench/run_all.py [embedding|latency|throughput|locomo|load|extraction|conversations ...]
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# quality figures live beside the evaluation data, in tests/eval
EVAL = {"extraction": "extraction_frozen", "conversations": "conversations"}
ALL = ["embedding", "latency", "throughput", "locomo", "load", *EVAL]


def main() -> int:
    chosen = [a for a in sys.argv[1:] if a in ALL] or ALL
    failed = []
    for name in chosen:
        print(f"\n##### {name}", flush=True)
        script = HERE.parent / "eval" / f"{EVAL[name]}.py" if name in EVAL else HERE / f"{name}.py"
        if subprocess.run([sys.executable, str(script)], check=False).returncode:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
