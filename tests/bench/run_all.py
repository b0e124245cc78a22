"""`make bench`: every benchmark, one after the other; each prints its figures and writes JSON
under tests/bench/results/.

    .venv/bin/python tests/bench/run_all.py [embedding|latency|throughput|locomo|load|close_load ...]
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ALL = ["embedding", "latency", "throughput", "locomo", "load", "close_load"]


def main() -> int:
    chosen = [a for a in sys.argv[1:] if a in ALL] or ALL
    failed = []
    for name in chosen:
        print(f"\n##### {name}", flush=True)
        if subprocess.run([sys.executable, str(HERE / f"{name}.py")], check=False).returncode:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
