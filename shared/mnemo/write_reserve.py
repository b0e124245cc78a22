"""A reserve process beside each request worker of `mnemo serve`, which takes over the worker's accepting
while the worker serves a write.

Why: gunicorn's sync workers take connections first come, first served from one listen queue, and a write
holds its worker several times longer than a read (a remember embeds its memory, ~20 ms under load; a turns
request runs several write transactions; an import, seconds). With every worker on a write, a retrieve waits
in the queue: at 70% of the 2-worker saturation of the chat mix, 43 ms of the retrieve p99's 47 ms was that
wait (tests/bench/serve_load.py). Running more sync processes than workers ends the wait but lets reads crowd
each other off the cores too. The route is known only once a connection is accepted, so the choice is made
there.

Shape: `--workers N` is N slots, each a pair of sync processes (the worker and its reserve) sharing the
slot's lock; only the holder accepts. A holder that reads a write lets the slot go to its partner (when the
partner is not on a write of its own) and serves the write beside it; afterwards it waits for the slot again.
Reads keep the slot. A reserve gives the slot back once its worker's write is answered, so the reads go to one
process of the pair and find its caches warm. So N processes take connections at any time, as N sync workers
did, and a write runs beside them instead of in front of the reads (it shares the cores with them). The locks
are kernel locks (flock) that die with their holder: kill -9 of either process frees the slot for the other,
and the arbiter starts a new partner.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import threading
from pathlib import Path
from typing import Any

from gunicorn.workers.sync import StopWaiting, SyncWorker  # type: ignore[import-untyped]

from mnemo.adapters.local.file_locks import hold_first_free

SLOT_WAIT_SECONDS = 0.5  # how often a process waiting for its slot tells the arbiter it is alive
RESERVE_IDLE_SECONDS = 0.05  # how soon an idle reserve holding the slot sees its worker back from a write


class SlotPair:
    """One process's place in a pair: its membership, the slot it accepts under, and the pair's `aside`
    lock (held by the one of the two serving a write away from the slot)."""

    def __init__(self, folder: Path, slots: int) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        # a membership of its own, held for life: two processes a pair, whatever order workers are
        # (re)started in; a dead member's place is free again at once
        self._member = -1
        self.slot = -1
        self.reserve = False
        held = hold_first_free(folder / f"member-{place}" for place in range(2 * slots))
        if held is not None:
            place, self._member = held
            self.slot = place // 2
            # the pair's first member is its worker, the second its reserve, which holds the slot only while
            # the worker serves a write: reads stay on one process, whose caches (the users' indexes, their
            # queries' vectors) they find warm
            self.reserve = place % 2 == 1
        if self.slot < 0:  # more processes than places (never with the arbiter's count): a slot of its own
            self.slot = os.getpid() % max(1, slots)
        self._slot = os.open(folder / f"slot-{self.slot}", os.O_CREAT | os.O_RDWR, 0o600)
        self._aside = os.open(folder / f"aside-{self.slot}", os.O_CREAT | os.O_RDWR, 0o600)
        self.holding = False
        self.aside = False

    def try_take(self) -> bool:
        try:
            fcntl.flock(self._slot, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        self.holding = True
        return True

    def take_blocking(self) -> None:
        """Wait for the slot (from a thread of its own: the caller keeps reporting to the arbiter)."""
        fcntl.flock(self._slot, fcntl.LOCK_EX)

    def step_aside(self) -> bool:
        """Let the slot go to the partner for a write; False (keep it) when the partner is on a write too."""
        if not self.holding:
            return False
        try:
            fcntl.flock(self._aside, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        self.aside = True
        fcntl.flock(self._slot, fcntl.LOCK_UN)
        self.holding = False
        return True

    def worker_is_back(self) -> bool:
        """For a reserve holding the slot: whether its worker's write is answered (nobody is aside), so the
        slot should go back to the worker."""
        if not self.reserve or not self.holding:
            return False
        try:
            fcntl.flock(self._aside, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(self._aside, fcntl.LOCK_UN)
        return True

    def release(self) -> None:
        if self.holding:
            fcntl.flock(self._slot, fcntl.LOCK_UN)
            self.holding = False

    def back(self) -> None:
        """The write is answered: no longer aside (the slot is taken again before the next accept)."""
        if self.aside:
            fcntl.flock(self._aside, fcntl.LOCK_UN)
            self.aside = False


class ReserveWorker(SyncWorker):  # type: ignore[misc]
    """gunicorn's sync worker, accepting only while it holds its slot (see the module's docstring).

    The application (mnemo.serving) sets ``slots_folder`` and ``slots`` on the class before the arbiter
    starts, and the WSGI application calls ``step_aside`` when a request turns out to be a write."""

    slots_folder: Path | None = None
    slots = 1
    pair: SlotPair | None = None

    def run(self) -> None:
        assert self.slots_folder is not None
        self.pair = SlotPair(self.slots_folder, self.slots)
        self._want = threading.Event()
        self._got = threading.Event()
        threading.Thread(target=self._taker, name="mnemo-slot-wait", daemon=True).start()
        super().run()

    def _taker(self) -> None:
        assert self.pair is not None
        while True:
            self._want.wait()
            self._want.clear()
            self.pair.take_blocking()
            self._got.set()

    def _take_slot(self, at_once: bool = True) -> bool:
        """Block until this process holds its slot; False when it should stop instead. ``at_once=False``
        (a reserve that just gave the slot back): wait in line behind the worker rather than race it."""
        assert self.pair is not None
        if self.pair.holding or (at_once and self.pair.try_take()):
            return True
        self._got.clear()
        self._want.set()
        while not self._got.wait(SLOT_WAIT_SECONDS):
            self.notify()
            if not self.alive or not self.is_parent_alive():
                return False
        self.pair.holding = True
        return True

    def step_aside(self) -> None:
        if self.pair is not None:
            self.pair.step_aside()

    def run_for_one(self, timeout: float) -> None:
        """SyncWorker.run_for_one, taking the slot before each accept."""
        assert self.pair is not None
        listener = self.sockets[0]
        while self.alive:
            self.notify()
            gave_back = self.pair.worker_is_back()
            if gave_back:
                self.pair.release()
            if not self._take_slot(at_once=not gave_back):
                return
            try:
                self.accept(listener)
                continue
            except OSError as e:
                if e.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                    raise
            if not self.is_parent_alive():
                return
            try:
                self.wait(min(timeout, RESERVE_IDLE_SECONDS) if self.pair.reserve else timeout)
            except StopWaiting:
                return

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        try:
            super().handle(listener, client, addr)
        finally:
            if self.pair is not None:
                with contextlib.suppress(OSError):
                    self.pair.back()

