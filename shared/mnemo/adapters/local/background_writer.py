"""Batched writes off the request path, for records a request produces but does not need back.

Retrieval traces and audit events are written on every retrieve; committing them inline costs
more than the search itself. They are queued here and flushed together every ``interval`` (or
sooner when the batch is full). A reader asks ``pending()`` first, so a trace is visible the
moment its retrieve returns. On close everything is flushed. A crash can lose at most one
interval of these records, never a memory.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")
log = logging.getLogger("mnemo.background_writer")


class BackgroundWriter(Generic[T]):
    def __init__(self, flush: Callable[[Sequence[T]], None], interval: float = 0.05, batch: int = 256,
                 name: str = "mnemo-writer") -> None:
        self._flush = flush
        self._interval = interval
        self._batch = batch
        self._items: list[T] = []
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._flushing: list[T] = []
        # one flush at a time: a caller's flush() returns only once what was queued before it is committed
        self._flush_lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def put(self, item: T) -> None:
        with self._lock:
            self._items.append(item)
            full = len(self._items) >= self._batch
        if full:
            self._wake.set()

    def pending(self) -> list[T]:
        """Items not yet committed (queued or being written), oldest first."""
        with self._lock:
            return [*self._flushing, *self._items]

    def flush(self) -> None:
        with self._flush_lock:
            with self._lock:
                items, self._items = self._items, []
                self._flushing = items
            try:
                if items:
                    self._flush(items)
            except Exception as exc:  # keep the items: a later flush retries them
                log.warning("background write failed; will retry", extra={"error": type(exc).__name__})
                with self._lock:
                    self._items = items + self._items
            finally:
                with self._lock:
                    self._flushing = []

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self._interval)
            self._wake.clear()
            self.flush()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=10)
        self.flush()
