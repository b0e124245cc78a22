"""CPU an extraction job costs, on the turns serve_load.py's chat mix sends, in one process (no server).

    .venv/bin/python tests/bench/extraction_cpu.py [--rounds 12] [--repeat 3] [--code DIR ...]

The users and memories of serve_load.py (60 users, 20 memories each, imported), then ``--rounds`` rounds
in which every user sends one turns request of the chat mix (a user message, 40% a fact of serve_load's
and 60% one of its chat questions, and the assistant's answer) to one conversation of their own, and
the extraction jobs those turns scheduled run (the clock moved past the debounce): one job a user a
round, as in `mnemo serve` at ~0.5 turns a second a user. The conversation is long enough for the
rolling summary's checkpoints (every 10 messages) to fold, as in serve_load's 70% hold. Prints the
process's CPU time (user + system, every thread: onnxruntime's and the BLAS's too) per job, and what
the jobs wrote (created / merged / superseded; the same code gives the same counts).

``--code DIR`` (repeatable): run the measurement in a child process on another checkout's ``shared``
(e.g. ``git archive main | tar -x -C /tmp/base``), alternating the checkouts ``--repeat`` times, and
print each run and the CPU a job of each relative to the first checkout's in the same repetition.
serve_load's users repeat its few sentences (8 questions, 8 facts), which real users seldom do;
``--distinct`` gives every user message words of its own, so only the rolling summary's fold (and
a job that reads its turns again) reads a piece twice.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def measure(rounds: int, distinct: bool) -> dict[str, Any]:
    """One measurement in this process (``mnemo`` as found on sys.path)."""
    from mnemo import bootstrap
    from mnemo.api.app import create_app
    from mnemo.bootstrap import build_local, run_due_jobs
    from mnemo.clock import ManualClock
    from mnemo.services.writing import MemoryWriter
    from mnemo.settings import Settings
    from tests.bench import serve_load as load
    from tests.bench.common import InProcessClient

    outcomes: Counter[str] = Counter()
    write = MemoryWriter.write

    def counted(self: MemoryWriter, *args: Any, **kwargs: Any) -> Any:
        results = write(self, *args, **kwargs)
        if kwargs.get("actor") == "extraction":
            outcomes.update(r.outcome for r in results)
        return results

    MemoryWriter.write = counted  # type: ignore[method-assign]
    clock = ManualClock(datetime.now(UTC))
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.from_env({**os.environ, "MNEMO_DEBOUNCE_QUIET_SECONDS": "2"}, data_dir=Path(tmp))
        service = build_local(settings, clock=clock)
        client = InProcessClient(create_app(service), tenant="default")
        rng = random.Random(7)
        for u in range(load.USERS):  # serve_load.seed_users, in process
            items = [{"content": load.fact(rng)} for _ in range(12)] + [
                {"content": f"On trip {k} I visited {rng.choice(load.FILL['c'])} and liked the food there."}
                for k in range(8)]
            status, body = client.call("POST", f"/v1/users/load-{u:03d}/memories/import", {"items": items})
            assert status == 200, body
        # warm: the models load, and one job runs, before the clock starts
        client.call("POST", "/v1/users/warm/turns", {"conversation_id": "w", "messages": [
            {"role": "user", "content": "I live in Oslo.", "message_id": "w1"}]})
        clock.advance(seconds=3)
        run_due_jobs(service)
        outcomes.clear()
        rng = random.Random(11)
        jobs, cpu, wall = 0, 0.0, 0.0
        for r in range(rounds):
            for u in range(load.USERS):
                text = load.fact(rng) if rng.random() < 0.4 else rng.choice(load.CHAT)
                if distinct:  # no user says the same words twice (serve_load's users repeat its few sentences)
                    text = f"{text[:-1]} ({r + 1}){text[-1]}"
                status, body = client.call("POST", f"/v1/users/load-{u:03d}/turns", {
                    "conversation_id": "c1", "messages": [
                        {"role": "user", "content": text, "message_id": f"s{r}-{u}"},
                        {"role": "assistant", "content": "Sure, here is an idea.", "message_id": f"s{r}-{u}a"}]})
                assert status == 202, body
            clock.advance(seconds=3)
            started, began = time.process_time(), time.perf_counter()
            jobs += run_due_jobs(service)
            cpu += time.process_time() - started
            wall += time.perf_counter() - began
        service.close()
    # what the extractor found kept of the pieces it read (bootstrap._PIECE_READINGS: none before it existed)
    kept = list(getattr(bootstrap, "_PIECE_READINGS", {}).values())
    reused = {"hits": sum(r.hits for r in kept), "misses": sum(r.misses for r in kept)} if kept else None
    return {"jobs": jobs, "pieces_kept_reused": reused, "cpu_ms_per_job": round(cpu * 1000 / jobs, 3),
            "wall_ms_per_job": round(wall * 1000 / jobs, 3),
            "outcomes": dict(sorted(outcomes.items()))}


def child(code: Path, rounds: int, distinct: bool) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": f"{code / 'shared'}:{ROOT}"}
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--rounds", str(rounds), "--child",
                          *(["--distinct"] if distinct else [])],
                         env=env, check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=12, help="turns requests per user (one job each)")
    parser.add_argument("--repeat", type=int, default=1, help="measurements of each checkout, alternated")
    parser.add_argument("--code", type=Path, action="append", default=[],
                        help="a checkout to measure (its shared/ is imported); repeat to compare")
    parser.add_argument("--distinct", action="store_true",
                        help="each user message its own words (a round number in it): no piece is said twice")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.rounds, args.distinct)))
        return 0
    codes = args.code or [ROOT]
    runs: list[dict[str, Any]] = []
    for n in range(args.repeat):
        first = None
        for code in codes:
            result = child(code, args.rounds, args.distinct)
            first = first or result["cpu_ms_per_job"]
            ratio = result["cpu_ms_per_job"] / first
            runs.append({"repetition": n + 1, "code": str(code), **result, "cpu_vs_first": round(ratio, 3)})
            print(f"run {n + 1} {code}: {result['jobs']} jobs, CPU {result['cpu_ms_per_job']:.2f} ms a job "
                  f"(x{ratio:.3f} of the first), wall {result['wall_ms_per_job']:.2f} ms, wrote {result['outcomes']}, "
                  f"pieces reused {result['pieces_kept_reused']}, load {os.getloadavg()[0]:.1f}",
                  flush=True)
    sys.path[:0] = [str(ROOT)]
    from tests.bench.common import write_result

    name = "extraction_cpu_distinct" if args.distinct else "extraction_cpu"
    print(f"wrote {write_result(name, {'rounds': args.rounds, 'distinct': args.distinct, 'runs': runs})}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
