"""Locks that hold across the worker processes of `mnemo serve`, and die with their holder.

Kernel file locks are released when the process that holds them exits, kill -9 included, so a
crashed worker can never leave a user, the background jobs or the data directory locked.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from mnemo.adapters.local import priority
from mnemo.errors import BackendUnavailable, ConfigurationError


def hold_first_free(paths: Iterable[Path]) -> tuple[int, int] | None:
    """(index, descriptor) of the first of ``paths`` whose exclusive kernel lock (flock) this process could
    take without waiting, or None when each is held. The lock lasts while the descriptor is open and dies with
    the process, so a place a killed process held is free again at once: the way `mnemo serve`'s processes
    share out places among themselves (a worker's core, a pair's membership)."""
    for index, path in enumerate(paths):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return index, fd
    return None


class FileUserLocks:
    """The per-user write lock (the UserLocks port) across processes and threads.

    Users map onto ``stripes`` byte ranges of one file, each taken with a POSIX record lock
    (``fcntl.lockf``). Record locks belong to a process, not a thread, so each stripe also has a
    re-entrant thread lock: a second thread of the same process waits on that one, and only the
    outermost hold of a thread takes and releases the file range. Two users sharing a stripe are
    serialised together, which costs a little concurrency and nothing else.
    """

    def __init__(self, path: Path, stripes: int = 4096) -> None:
        self._path = path
        self._stripes = stripes
        self._threads = [threading.RLock() for _ in range(stripes)]
        self._depth = [0] * stripes
        self._fd: int | None = None
        self._pid = 0
        self._open_guard = threading.Lock()

    def _file(self) -> int:
        # record locks are not inherited across fork: each process opens its own descriptor, and keeps
        # it open for its whole life (closing any descriptor of the file drops all of its record locks)
        with self._open_guard:
            if self._fd is None or self._pid != os.getpid():
                self._path.parent.mkdir(parents=True, exist_ok=True)
                self._fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o600)
                self._pid = os.getpid()
            return self._fd

    def stripe(self, tenant_id: str, user_id: str) -> int:
        digest = hashlib.blake2b(f"{tenant_id}\x1f{user_id}".encode(), digest_size=8).digest()
        return int.from_bytes(digest, "big") % self._stripes

    @contextmanager
    def hold(self, tenant_id: str, user_id: str) -> Iterator[None]:
        index = self.stripe(tenant_id, user_id)
        # a background thread running at idle priority takes, holds and gives back the lock as an ordinary
        # one, release included (a request of this user may be waiting for it: mnemo.adapters.local.priority)
        with self._threads[index], priority.raised(priority.USER_LOCK):
            outermost = self._depth[index] == 0
            if outermost:
                fd = self._file()
                try:
                    fcntl.lockf(fd, fcntl.LOCK_EX, 1, index)
                except OSError as exc:
                    raise BackendUnavailable("the user lock could not be taken") from exc
            self._depth[index] += 1
            try:
                yield
            finally:
                self._depth[index] -= 1
                if outermost:
                    fcntl.lockf(self._file(), fcntl.LOCK_UN, 1, index)


class ExclusiveFile:
    """A whole-file ``flock``: one holder among every process on the machine."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def try_acquire(self) -> bool:
        if self._fd is not None:
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        held = hold_first_free([self.path])
        if held is None:
            return False
        self._fd = held[1]
        return True

    def write_owner(self, text: str) -> None:
        """Say who holds the lock (read by whoever is refused)."""
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, text.encode(), 0)

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def lock_data_dir(data_dir: Path) -> ExclusiveFile:
    """One server per data directory: its caches (keys, indexes) assume no other writer set."""
    lock = ExclusiveFile(data_dir / "serve.lock")
    if not lock.try_acquire():
        try:
            owner = lock.path.read_text().strip() or "another process"
        except OSError:
            owner = "another process"
        raise ConfigurationError(f"{data_dir} is already served by {owner}; stop it first or use another "
                                 "--data-dir (two servers on one data directory would corrupt each other's caches)")
    lock.write_owner(f"mnemo serve (pid {os.getpid()})")
    return lock
