"""The in-process debounce worker of the embedded home (SQS + the extract Lambda in AWS)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from mnemo.adapters.local.sqlite_stores import SqliteExtractionQueue
from mnemo.clock import Clock
from mnemo.ports import ExtractionJob

log = logging.getLogger("mnemo.worker")


class DebounceWorker:
    """Runs due extraction jobs; wakes on a new schedule or every ``poll_seconds``."""

    def __init__(self, queue: SqliteExtractionQueue, clock: Clock, process: Callable[[ExtractionJob], object],
                 poll_seconds: float) -> None:
        self._queue = queue
        self._clock = clock
        self._process = process
        self._poll = poll_seconds
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run_due(self, limit: int = 50) -> int:
        """Process every job due now; returns how many ran. A job that fails has its lease handed back
        by the service and comes back after the retry delay."""
        ran = 0
        for job in self._queue.due(self._clock.now(), limit):
            if self._stop.is_set():  # shutting down: the job in progress finished, the rest stay queued
                break
            try:
                self._process(job)
                ran += 1
            except Exception as exc:  # a bad job must not stop the worker
                log.warning("extraction job failed; retrying later", extra={"error": type(exc).__name__})
        return ran

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.run_due()
            self._queue.wakeup.wait(self._poll)
            self._queue.wakeup.clear()

    def start(self) -> None:
        if self._thread is None:
            # a worker killed mid-job left its lease behind: its jobs run now, not when the lease ends
            recovered = self._queue.recover_claims()
            if recovered:
                log.info("leases of stopped workers handed back", extra={"jobs": recovered})
            self._thread = threading.Thread(target=self._loop, name="mnemo-debounce", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._queue.wakeup.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None


class PeriodicJob:
    """Runs ``job`` every ``interval_seconds`` in a background thread (the EventBridge schedule locally)."""

    def __init__(self, job: Callable[[], object], interval_seconds: float, name: str) -> None:
        self._job = job
        self._interval = interval_seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self._job()
            except Exception as exc:  # the next round retries; the job is idempotent
                log.warning("scheduled job failed", extra={"error": type(exc).__name__})

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
