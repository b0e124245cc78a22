"""Process-wide counters of what the background work did: the local server exposes them, the Lambdas
turn each report into CloudWatch metrics instead. Thread-safe; names are fixed at construction."""

from __future__ import annotations

import threading
from collections.abc import Iterable


class Counters:
    def __init__(self, names: Iterable[str]) -> None:
        self._values = dict.fromkeys(names, 0)
        self._lock = threading.Lock()

    def add(self, name: str, amount: int = 1) -> None:
        if name not in self._values:
            raise KeyError(name)  # a typo would otherwise make a counter that nothing reads
        with self._lock:
            self._values[name] += amount

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self._values)
