"""Write-side figures: import throughput, remember latency, extraction throughput, POST turns latency.

    .venv/bin/python tests/bench/throughput.py   (MNEMO_* settings apply: MNEMO_MEMORY_KEYS=4 writes keys)
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import InProcessClient, percentiles, write_result
from corpus import chat_messages, memories

from mnemo.api.app import create_app
from mnemo.bootstrap import build_local, run_due_jobs
from mnemo.domain.models import Status
from mnemo.settings import Settings


def main() -> int:
    workdir = Path(tempfile.mkdtemp(prefix="mnemo-throughput-"))
    report: dict[str, Any] = {}
    try:
        service = build_local(Settings.from_env(os.environ, data_dir=workdir))
        client = InProcessClient(create_app(service), tenant="default")
        client.call("POST", "/v1/users/warm/memories", {"content": "warm up the model"})

        # import: fact-sized memories in batches of 500 through the import route
        texts = memories(2000, seed=21)
        started = time.perf_counter()
        for start in range(0, len(texts), 500):
            status, body = client.call("POST", "/v1/users/importer/memories/import",
                                       {"items": [{"content": t} for t in texts[start:start + 500]]})
            assert status == 200, body
        seconds = time.perf_counter() - started
        report["import"] = {"memories": len(texts), "seconds": round(seconds, 2),
                            "per_second": round(len(texts) / seconds, 1)}

        # remember: one memory a request, the whole write path (embedding, the facts found in it as keys,
        # resolution against the user's memories), for a fact-sized memory and a chat turn's length
        for name, items in (("remember_fact_ms", memories(100, seed=22)),
                            ("remember_long_ms", [f"{a} Also, {b[0].lower()}{b[1:]}" for a, b in
                                                  zip(memories(100, seed=23), memories(100, seed=24), strict=True)])):
            latencies = []
            for i, text in enumerate(items):
                started = time.perf_counter()
                status, body = client.call("POST", f"/v1/users/rememberer-{i % 5}/memories", {"content": text})
                latencies.append((time.perf_counter() - started) * 1000)
                assert status == 201, body
            report[name] = percentiles(latencies)

        # POST turns: the request path only buffers (extraction is asynchronous)
        messages = chat_messages(600)
        latencies = []
        for i, text in enumerate(messages):
            conversation = f"conv-{i // 6}"
            started = time.perf_counter()
            status, body = client.call("POST", f"/v1/users/chatter-{i % 20}/turns", {
                "conversation_id": conversation,
                "messages": [{"role": "user", "content": text, "message_id": f"m{i}"},
                             {"role": "assistant", "content": "Sure, noted.", "message_id": f"a{i}"}]})
            latencies.append((time.perf_counter() - started) * 1000)
            assert status == 202, body
        report["post_turns_ms"] = percentiles(latencies)

        # extraction: every buffered conversation closed, then the debounce queue drained
        for i in range(100):
            client.call("POST", f"/v1/users/chatter-{(i * 6) % 20}/conversations/conv-{i}/close")
        started = time.perf_counter()
        jobs = run_due_jobs(service)
        seconds = time.perf_counter() - started
        stored = sum(service.ports.memories.count("default", f"chatter-{u}", list(Status)) for u in range(20))
        report["extraction"] = {"jobs": jobs, "user_messages": len(messages), "seconds": round(seconds, 2),
                                "messages_per_second": round(len(messages) / seconds, 1),
                                "memories_written": stored}
        service.close()
        print(f"import            {report['import']['per_second']:8.1f} memories/s "
              f"({report['import']['memories']} fact-sized memories in {report['import']['seconds']} s)")
        for name in ("remember_fact_ms", "remember_long_ms"):
            r = report[name]
            print(f"{name.removesuffix('_ms').replace('_', ' '):<17} p50 {r['p50']:.2f} ms  p95 {r['p95']:.2f} ms  "
                  f"p99 {r['p99']:.2f} ms (n={r['n']})")
        p = report["post_turns_ms"]
        print(f"POST turns        p50 {p['p50']:.2f} ms  p95 {p['p95']:.2f} ms  p99 {p['p99']:.2f} ms (n={p['n']})")
        e = report["extraction"]
        print(f"extraction        {e['messages_per_second']:8.1f} user messages/s ({e['jobs']} conversations, "
              f"{e['memories_written']} memories kept)")
        print(f"wrote {write_result('throughput', report)}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
