"""The CPU priority of `mnemo serve`'s background jobs process, and its raise while it holds a lock.

The jobs process (extraction, consolidation) should use only the cores the request workers leave
idle. A nice value does not do that: under the kernel's fair scheduler a nice-10 thread still gets
a share, and a request worker that wakes up waits for it to finish its slice. Measured at 70% of
the 2-worker saturation (tests/bench/serve_load.py, chat mix), the workers' main threads spent
~3.2 s of every 15 s runnable but waiting for a core with the jobs process at nice 10. Linux's
SCHED_IDLE policy runs a thread only on a core nothing else wants, and a waking request thread
preempts it at once.

But a thread that only runs when a core is idle must not hold a lock a request waits for: on a busy
machine it would not run again until the load drops (priority inversion). So while a thread of
this process holds the per-user lock it runs as an ordinary thread at the jobs' own nice value, and
while it holds the database's write lock at the request workers' priority (``raised``).

Leaving SCHED_IDLE and lowering a nice value need privileges (CAP_SYS_NICE or RLIMIT_NICE): where
the process lacks them it stays at its nice value only, as before.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass

log = logging.getLogger("mnemo.priority")

USER_LOCK = 1  # holding the per-user lock: runs as an ordinary thread at the process's own nice value
WRITE_LOCK = 2  # holding the database's write lock: runs at the request workers' nice value


@dataclass
class _Policy:
    idle: bool = False  # this process's threads run under SCHED_IDLE outside the locks
    own_nice: int = 0
    write_nice: int | None = None  # None: no raise while writing


_policy = _Policy()
_held = threading.local()  # per thread: the level it runs at now (0: its base priority)


def configure(*, idle: bool, own_nice: int, write_nice: int | None) -> bool:
    """Set this process's policy (the jobs process, once, from its main thread before it starts any
    other: threads inherit their creator's policy). ``own_nice``: the nice value it runs at;
    ``write_nice``: the request workers' (None or not lower: no raise). Returns whether it now runs
    under SCHED_IDLE."""
    _policy.own_nice = own_nice
    _policy.write_nice = write_nice if write_nice is not None and write_nice < own_nice else None
    _policy.idle = idle and idle_supported(min(own_nice, _policy.write_nice if _policy.write_nice is not None
                                                else own_nice))
    if _policy.idle:
        os.sched_setscheduler(threading.get_native_id(), os.SCHED_IDLE, os.sched_param(0))
    return _policy.idle


def idle_supported(nice: int) -> bool:
    """Whether a thread of this process can enter SCHED_IDLE and come back out of it at ``nice``.

    Tried on a thread of its own, which is thrown away: a process that could enter but not leave
    would run its lock holders at idle priority, the inversion this module exists to prevent."""
    if not hasattr(os, "SCHED_IDLE"):
        return False
    result: list[bool] = []

    def attempt() -> None:
        tid = threading.get_native_id()
        try:
            os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0))
            os.sched_setscheduler(tid, os.SCHED_OTHER, os.sched_param(0))
            os.setpriority(os.PRIO_PROCESS, tid, nice)
        except OSError:
            result.append(False)
            return
        result.append(True)

    probe = threading.Thread(target=attempt, name="mnemo-priority-probe")
    probe.start()
    probe.join()
    return result == [True]


def thread_policy() -> tuple[int, int]:
    """The calling thread's scheduling policy and nice value."""
    tid = threading.get_native_id()
    return os.sched_getscheduler(tid), os.getpriority(os.PRIO_PROCESS, tid)


def _apply(level: int) -> None:
    tid = threading.get_native_id()
    if level == 0:
        os.setpriority(os.PRIO_PROCESS, tid, _policy.own_nice)
        if _policy.idle:
            os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0))
        return
    if _policy.idle:
        os.sched_setscheduler(tid, os.SCHED_OTHER, os.sched_param(0))
    nice = _policy.write_nice if level == WRITE_LOCK and _policy.write_nice is not None else _policy.own_nice
    os.setpriority(os.PRIO_PROCESS, tid, nice)


@contextlib.contextmanager
def raised(level: int) -> Iterator[None]:
    """Run the calling thread at least at ``level`` until the block ends (a no-op in the request
    workers and in every process that did not ``configure`` a lower priority)."""
    before: int = getattr(_held, "level", 0)
    if level <= before or not (_policy.idle or _policy.write_nice is not None):
        yield
        return
    try:
        _apply(level)
    except OSError:
        # refused after the start-up probe allowed it: this hold runs as the thread was, half-applied changes
        # undone; the policy stays, so the next hold tries again (giving up for good would leave every later
        # holder running idle)
        with contextlib.suppress(OSError):
            _apply(before)
        log.warning("could not raise a lock holder's priority", extra={"level": level})
        level = before
    _held.level = level
    try:
        yield
    finally:
        _held.level = before
        if level != before:
            with contextlib.suppress(OSError):
                _apply(before)
