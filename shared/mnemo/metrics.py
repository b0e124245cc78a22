"""Prometheus metrics of `mnemo serve`, summed over its worker processes.

prometheus_client's multiprocess mode keeps each worker's samples in files under
``PROMETHEUS_MULTIPROC_DIR`` (set by the server before any worker starts); a scrape, answered by
whichever worker gets it, reads them all. What the store knows (queue depth, extraction lag,
memories per tenant) is read from SQLite at scrape time, so every worker reports the same.
No label carries a user id or user text.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import REGISTRY, Collector

if TYPE_CHECKING:
    from mnemo.services.extraction import ExtractionReport

CONTENT_TYPE = CONTENT_TYPE_LATEST
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

REQUESTS = Histogram("mnemo_request_duration_seconds", "Request latency by route template",
                     ["method", "route", "status"], buckets=LATENCY_BUCKETS)
THROTTLED = Counter("mnemo_throttled_requests_total", "Requests refused by a tenant quota", ["tenant", "reason"])
EXTRACTION_LAG = Histogram("mnemo_extraction_lag_seconds", "From an extraction job falling due to its start",
                           buckets=(0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900))
EXTRACTION_JOBS = Counter("mnemo_extraction_jobs_total",
                          "Extraction job deliveries by outcome: done, stale (a newer schedule overtook it: dropped), "
                          "busy (its conversation was being extracted: deferred), failed", ["outcome"])
EXTRACTION_TURNS = Counter("mnemo_extraction_turns_total",
                           "Buffered turns let go of: extracted, or acknowledged_unextracted (must stay 0)",
                           ["outcome"])
# per worker (the pid label), refreshed now and then by each: what it holds of users beside the store
# (mnemo.services.user_caches); after an erase the user is out of every worker's at its next request
CACHED_USERS = Gauge("mnemo_cached_users", "Users a cache of this worker process holds something of",
                     ["cache"], multiprocess_mode="liveall")
FALLBACKS = Counter("mnemo_fallbacks_total", "Times a component fell back (e.g. LLM extraction to the rules)",
                    ["component"])


def count_extraction(report: ExtractionReport) -> None:
    """One extraction delivery's outcome (the same figures the extract Lambda sends to CloudWatch)."""
    outcome = "stale" if report.stale else "busy" if report.busy else "done"
    EXTRACTION_JOBS.labels(outcome=outcome).inc()
    if outcome == "done":
        EXTRACTION_TURNS.labels(outcome="extracted").inc(report.extracted)
        # touched even at 0, so the series exists from the first job and an alert can watch it
        EXTRACTION_TURNS.labels(outcome="acknowledged_unextracted").inc(report.unextracted)


class FallbackCounter(logging.Handler):
    """Counts log records that carry ``extra={"fallback": component}``: the core reports a fallback
    by logging it, and needs to know nothing about Prometheus."""

    def emit(self, record: logging.LogRecord) -> None:
        component = getattr(record, "fallback", None)
        if isinstance(component, str):
            FALLBACKS.labels(component=component).inc()


class StoreCollector(Collector):
    """Gauges read from the database at scrape time."""

    def __init__(self, db_path: Path) -> None:
        self._db_path = db_path

    def collect(self) -> Iterator[Metric]:
        depth = GaugeMetricFamily("mnemo_extraction_queue_depth", "Extraction jobs waiting (due or not)")
        due = GaugeMetricFamily("mnemo_extraction_queue_due", "Extraction jobs due now")
        lag = GaugeMetricFamily("mnemo_extraction_oldest_due_seconds", "How long the oldest due job has waited")
        memories = GaugeMetricFamily("mnemo_memories", "Live memories (active, probationary, pending) per tenant",
                                     labels=["tenant"])
        now = datetime.now(UTC)
        uri = f"file:{self._db_path}?mode=ro"
        with sqlite3.connect(uri, uri=True, timeout=2) as conn:
            total = conn.execute("SELECT count(*) FROM extraction_jobs").fetchone()[0]
            row = conn.execute("SELECT count(*), MIN(due_at) FROM extraction_jobs WHERE due_at <= ?",
                               (now.isoformat(),)).fetchone()
            for tenant, count in conn.execute(
                    "SELECT tenant_id, count(*) FROM memories WHERE status IN ('active','probationary','pending') "
                    "GROUP BY tenant_id"):
                memories.add_metric([tenant], count)
        depth.add_metric([], total)
        due.add_metric([], row[0])
        oldest = (now - datetime.fromisoformat(row[1])).total_seconds() if row[1] else 0.0
        lag.add_metric([], max(0.0, oldest))
        yield from (depth, due, lag, memories)


def render(db_path: Path) -> bytes:
    """The exposition text: every worker's counters and histograms, then the store's gauges."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:  # one process (tests, tools): its own registry
        registry = CollectorRegistry()
        registry.register(_Forward(REGISTRY))
    registry.register(StoreCollector(db_path))
    return generate_latest(registry)


class _Forward(Collector):
    def __init__(self, source: CollectorRegistry) -> None:
        self._source = source

    def collect(self) -> Iterator[Metric]:
        yield from self._source.collect()
