"""Helpers shared by the benchmark scripts: timing summaries, results on disk, in-process calls."""

from __future__ import annotations

import json
import platform
import statistics
import time
from pathlib import Path
from typing import Any

from mnemo.server import build_event

RESULTS = Path(__file__).resolve().parent / "results"


def percentiles(samples_ms: list[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)

    def pct(p: float) -> float:
        if not ordered:
            return 0.0
        k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
        return round(ordered[k], 3)

    return {"n": len(ordered), "p50": pct(50), "p95": pct(95), "p99": pct(99),
            "mean": round(statistics.fmean(ordered), 3) if ordered else 0.0}


def write_result(name: str, payload: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    payload = {"benchmark": name, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()},
               **payload}
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2))
    return path


class InProcessClient:
    """Calls the resolver with the same API Gateway event `mnemo serve` builds (no sockets)."""

    def __init__(self, app: Any, tenant: str = "bench") -> None:
        self.app = app
        self.tenant = tenant

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        raw = json.dumps(body).encode() if body is not None else b""
        event = build_event(method, path, {"content-type": "application/json"}, raw, self.tenant, "127.0.0.1")
        result = self.app.resolve(event, None)
        text = result.get("body") or ""
        return int(result["statusCode"]), json.loads(text) if text else None
