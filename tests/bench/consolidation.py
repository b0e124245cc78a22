"""How long consolidation takes for one user at the 1,000-memory cap (issue 16: under 2 s).

    .venv/bin/python tests/bench/consolidation.py [--memories 1000] [--repeats 3]

The user holds the generated episode histories of tests/eval/summary_histories.py (several
topics, ~70% of the memories) and preferences to fill up to the cap, written through the real
writer into the embedded home (SQLite, sealed content, the bundled model). Each repeat consolidates a
fresh copy of the same data directory; the figure is the wall time of ``Consolidator.run_user``:
reading and unsealing every memory, grouping topics, summarising, embedding the summaries, writing
them and archiving the episodes, and the cap's near-duplicate merge. Writes
tests/bench/results/consolidation.json.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "shared"), str(Path(__file__).resolve().parent)]

from common import percentiles, write_result  # noqa: E402

from mnemo.bootstrap import build_local, shared_embedder  # noqa: E402
from mnemo.clock import ManualClock  # noqa: E402
from mnemo.domain.models import Category, SourceKind, Status  # noqa: E402
from mnemo.services.writing import NewFact  # noqa: E402
from mnemo.settings import Settings  # noqa: E402
from tests.eval.summary_histories import generate  # noqa: E402

TENANT, USER = "bench", "heavy-user"


def populate(data_dir: Path, clock: ManualClock, memories: int) -> int:
    settings = Settings(data_dir=data_dir)
    service = build_local(settings, clock=clock, embedder=shared_embedder(settings))
    try:
        episodes = [e for h in generate(users=4) for e in h.episodes][: int(memories * 0.7)]
        offset = clock.now() - max(e.when for e in episodes) - timedelta(days=1)  # all within the last 90 days
        facts = [NewFact(content=f"{e.text.rstrip('.')} on {(e.when + offset).day} {(e.when + offset):%B}.",
                         category=Category.EPISODIC, subject=f"event:{e.episode_id}", confidence=0.85,
                         source=SourceKind.EXTRACTED, occurred_at=e.when + offset) for e in episodes]
        i = 0
        while True:
            live = sum(1 for m in service.ports.memories.all_for_user(TENANT, USER) if m.status is Status.ACTIVE)
            missing = memories - live - len(facts)
            if missing <= 0:
                break
            facts += [NewFact(content=f"User likes dish number {i + k} at the Thai place on Rua {i + k}.",
                              category=Category.PREFERENCE, subject=f"likes:dish_{i + k}", confidence=0.8,
                              source=SourceKind.EXTRACTED, occurred_at=clock.now()) for k in range(missing)]
            i += missing
            service.writer.write(TENANT, USER, facts, resolve_conflicts=False)
            facts = []
        return sum(1 for m in service.ports.memories.all_for_user(TENANT, USER) if m.status is Status.ACTIVE)
    finally:
        service.close()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    clock = ManualClock()
    work = Path(tempfile.mkdtemp(prefix="mnemo-consolidation-"))
    try:
        seed = work / "seed"
        started = time.perf_counter()
        count = populate(seed, clock, args.memories)
        print(f"consolidation: one user with {count} active memories (written in "
              f"{time.perf_counter() - started:.1f} s)")
        samples, cpu, reports = [], [], []
        for r in range(args.repeats):
            copy = work / f"run{r}"
            shutil.copytree(seed, copy)
            settings = Settings(data_dir=copy)
            service = build_local(settings, clock=clock, embedder=shared_embedder(settings))
            try:
                t, c = time.perf_counter(), time.process_time()
                report = service.consolidator.run_user(TENANT, USER)
                samples.append((time.perf_counter() - t) * 1000)
                cpu.append((time.process_time() - c) * 1000)
                reports.append(vars(report))
            finally:
                service.close()
        stats = percentiles(samples)
        print(f"  run_user wall: {', '.join(f'{s / 1000:.2f} s' for s in samples)} (max {max(samples) / 1000:.2f} s)")
        print(f"  run_user CPU (all threads): {', '.join(f'{s / 1000:.2f} s' for s in cpu)}")
        print(f"  load average while measuring: {', '.join(f'{x:.1f}' for x in os.getloadavg())} "
              f"on {os.cpu_count()} CPUs")
        print(f"  report: {reports[-1]}")
        write_result("consolidation", {"memories": count, "run_user_ms": stats, "cpu_ms": percentiles(cpu),
                                       "load_average": os.getloadavg(), "report": reports[-1]})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
