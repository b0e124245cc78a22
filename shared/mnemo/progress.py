"""A progress bar for the CLI's long jobs (import, consolidate, reembed, bench), drawn on stderr only when
stderr is a terminal: a pipe, a log file or CI gets nothing but the command's own output.

Twenty lines rather than a dependency: the runtime install stays small (issue 13, item 1).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 28
MIN_INTERVAL = 0.1  # seconds between redraws: a 100,000-item import must not spend its time drawing


class ProgressBar:
    """``bar(done, total)`` redraws one line; ``bar.close()`` ends it. Does nothing off a terminal."""

    def __init__(self, label: str, stream: TextIO | None = None, *, force: bool = False) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = force or self.stream.isatty()
        self.started = time.monotonic()
        self._drawn_at = 0.0
        self._drawn = False

    def __call__(self, done: int, total: int, note: str = "") -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if done < total and now - self._drawn_at < MIN_INTERVAL:
            return
        self._drawn_at = now
        fraction = done / total if total > 0 else 1.0
        filled = round(WIDTH * fraction)
        line = (f"\r{self.label} [{'#' * filled}{'.' * (WIDTH - filled)}] {done}/{total} {fraction:4.0%} "
                f"{now - self.started:5.1f}s {note}")
        self.stream.write(line.ljust(len(line) + 8)[:120])
        self.stream.flush()
        self._drawn = True

    def by_user(self, done: int, total: int, _user_id: str) -> None:
        """For jobs that report the user they finished (consolidation); the id itself is never shown."""
        self(done, total, "users")

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False
