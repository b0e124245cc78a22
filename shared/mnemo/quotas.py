"""Per-tenant request quotas of `mnemo serve`, shared by every worker process.

- Rate: a token bucket per tenant (``rate`` requests a second, ``burst`` at once) kept in a small
  file mapped into every worker, updated under an exclusive ``flock`` (released if its holder dies).
- Concurrency: ``limit`` slot files per tenant; a request holds one slot's ``flock`` while it runs,
  so a worker killed mid-request frees its slot with it.
A refused request gets 429 with ``Retry-After``; quotas count tenant requests only (not /health).
"""

from __future__ import annotations

import fcntl
import math
import mmap
import os
import struct
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

_SLOT = struct.Struct("dd")  # tokens, last refill (monotonic seconds: one clock for the whole machine)


@dataclass(frozen=True)
class Ticket:
    """A concurrency slot held for one request."""

    fd: int
    local: threading.Lock


@dataclass(frozen=True)
class Refusal:
    reason: str  # "rate" or "concurrency"
    retry_after: int  # seconds


class _PerProcess:
    """File descriptors opened after the fork, in the process that uses them (a descriptor shared
    across fork would share its flock, and so never exclude a sibling)."""

    def __init__(self) -> None:
        self.pid = 0
        self.fds: dict[str, int] = {}

    def fd(self, path: Path) -> int:
        if self.pid != os.getpid():
            self.fds, self.pid = {}, os.getpid()
        key = str(path)
        if key not in self.fds:
            self.fds[key] = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        return self.fds[key]


class TenantQuotas:
    def __init__(self, run_dir: Path, tenants: Iterable[str], rate: float, burst: int, concurrent: int) -> None:
        self._dir = run_dir
        self._slots = {tenant: i for i, tenant in enumerate(sorted(set(tenants)))}
        self.rate = rate
        self.burst = float(burst or max(1, math.ceil(rate)))
        self.concurrent = concurrent
        self._files = _PerProcess()
        self._map: mmap.mmap | None = None
        self._map_pid = 0
        self._thread_locks = {(t, i): threading.Lock() for t in self._slots for i in range(concurrent)}
        self._guard = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.rate > 0 or self.concurrent > 0

    @property
    def _bucket_path(self) -> Path:
        return self._dir / "rate.bin"

    def prepare(self) -> None:
        """Once, in the parent process, before the workers start: empty buckets (full on first use)."""
        self._dir.mkdir(parents=True, exist_ok=True)
        with self._bucket_path.open("wb") as fh:
            fh.write(b"\0" * (_SLOT.size * max(1, len(self._slots))))

    def _mapped(self) -> tuple[int, mmap.mmap]:
        fd = self._files.fd(self._bucket_path)
        if self._map is None or self._map_pid != os.getpid():
            self._map = mmap.mmap(fd, _SLOT.size * max(1, len(self._slots)))
            self._map_pid = os.getpid()
        return fd, self._map

    def _take_token(self, tenant: str) -> Refusal | None:
        slot = self._slots.get(tenant)
        if slot is None or self.rate <= 0:
            return None
        offset = slot * _SLOT.size
        with self._guard:
            fd, mapped = self._mapped()
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                tokens, last = _SLOT.unpack_from(mapped, offset)
                now = time.monotonic()
                tokens = min(self.burst, tokens + (now - last) * self.rate) if last else self.burst
                if tokens >= 1.0:
                    _SLOT.pack_into(mapped, offset, tokens - 1.0, now)
                    return None
                _SLOT.pack_into(mapped, offset, tokens, now)
                return Refusal("rate", max(1, math.ceil((1.0 - tokens) / self.rate)))
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)

    def admit(self, tenant: str) -> tuple[Refusal | None, Ticket | None]:
        """(refusal, None) or (None, ticket); pass the ticket to ``release`` when the request ends."""
        refused = self._take_token(tenant)
        if refused is not None:
            return refused, None
        if self.concurrent <= 0 or tenant not in self._slots:
            return None, None
        start = os.getpid() % self.concurrent  # spread workers over the slots: fewer failed tries
        for k in range(self.concurrent):
            index = (start + k) % self.concurrent
            local = self._thread_locks[(tenant, index)]
            if not local.acquire(blocking=False):
                continue
            fd = self._files.fd(self._dir / f"busy-{self._slots[tenant]}-{index}.lock")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                local.release()
                continue
            return None, Ticket(fd, local)
        return Refusal("concurrency", 1), None

    @staticmethod
    def release(ticket: Ticket | None) -> None:
        if ticket is None:
            return
        fcntl.flock(ticket.fd, fcntl.LOCK_UN)
        ticket.local.release()
