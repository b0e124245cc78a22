"""The background jobs of `mnemo serve` (the debounce worker and the consolidation schedule) in a
process of their own, beside the request workers, at a lower CPU priority.

Why a process of its own: extraction is the heaviest steady work the server does (a model pass per
message). Run inside a request worker, it shared that worker's interpreter lock with the requests,
so a retrieve could wait behind a whole extraction step; and it took its share of the cores from
requests that a client is waiting for. As a separate process with a higher nice value and, on
Linux, under SCHED_IDLE (mnemo.adapters.local.priority), the kernel gives the cores to request
workers first and extraction uses what is left: under load its lag grows (it is asynchronous by
contract), the answers a client waits for do not. It also checkpoints the database's WAL, off the
write lock the request workers wait for (mnemo.adapters.local.sqlite_db.WalCheckpointer).

Exactly one runs per data directory: the holder of ``run/jobs.lock`` (a kernel lock, so kill -9
releases it). The arbiter's `JobsSupervisor` starts it, starts another if it dies, and stops it on
SIGTERM, where it finishes the extraction job in progress. It also exits if the arbiter goes away.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from mnemo.adapters.local import priority
from mnemo.adapters.local.file_locks import ExclusiveFile
from mnemo.adapters.local.sqlite_db import WalCheckpointer
from mnemo.ports import ExtractionJob
from mnemo.services.extraction import ExtractionReport
from mnemo.settings import Settings

if TYPE_CHECKING:
    from mnemo.bootstrap import Mnemo

log = logging.getLogger("mnemo.jobs")
SETTINGS_ENV = "MNEMO_JOBS_SETTINGS"  # the server's settings as JSON: the same ones as its workers
RUN_DIR_ENV = "MNEMO_JOBS_RUN_DIR"
RETRY_SECONDS = 1.0


def run(settings: Settings, run_dir: Path, parent: int) -> int:
    """Wait for the jobs lock, then run the jobs until SIGTERM/SIGINT or until the parent is gone."""
    from mnemo import metrics
    from mnemo.bootstrap import build_local, start_scheduler, start_worker

    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    # Ctrl-C reaches the whole process group: the arbiter stops this process itself, once its
    # workers are done, so that the supervisor does not see an early exit and start another
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    lower_priority(settings, parent)
    lock = ExclusiveFile(run_dir / "jobs.lock")
    # a previous jobs process that lost its arbiter may still finish its job: wait for its lock
    while not lock.try_acquire():
        if stopping.wait(RETRY_SECONDS) or os.getppid() != parent:
            return 0
    lock.write_owner(f"{os.getpid()}\n")
    service = build_local(settings)
    warm_up(service)
    logging.getLogger("mnemo").addHandler(metrics.FallbackCounter())
    clock = service.ports.clock
    process = service.extraction.process

    def settle() -> None:
        """What was erased while the job ran (mnemo.services.user_caches); a busy store is not the job's failure:
        the next job's look drops what another process erased, and this process's own erases were dropped by id."""
        try:
            service.caches.settle()
        except Exception as exc:
            log.warning("dropping the users erased during a job failed", extra={"error": type(exc).__name__})

    def timed(job: ExtractionJob) -> ExtractionReport:
        metrics.EXTRACTION_LAG.observe(max(0.0, (clock.now() - job.due_at).total_seconds()))
        service.caches.drop_erased()  # what a request worker erased since the last job (mnemo.services.user_caches)
        try:
            result = process(job)
        except Exception:
            metrics.EXTRACTION_JOBS.labels(outcome="failed").inc()
            raise
        finally:
            settle()
        metrics.count_extraction(result)
        return result

    service.extraction.process = timed  # type: ignore[method-assign]  # the same job, timed
    queue = service.ports.queue
    address = run_dir / "wake.sock"
    address.unlink(missing_ok=True)  # a dead jobs process's socket file
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(address))

    def listen() -> None:  # request workers send a datagram when they schedule a job
        while not stopping.is_set():
            try:
                listener.recv(64)
            except OSError:
                return
            queue.wakeup.set()  # type: ignore[attr-defined]

    threading.Thread(target=listen, name="mnemo-wake", daemon=True).start()
    checkpointer = None
    if settings.wal_checkpoint_seconds > 0:
        checkpointer = WalCheckpointer(settings.data_dir.expanduser() / "mnemo.db", settings.wal_checkpoint_seconds,
                                       settings.sqlite_busy_timeout_ms)
        checkpointer.start()
    start_worker(service)
    start_scheduler(service)
    log.info("the background jobs run", extra={"worker": os.getpid()})
    try:
        while not stopping.wait(RETRY_SECONDS):
            if os.getppid() != parent:  # the arbiter died (kill -9): nobody would stop this process
                break
    finally:
        listener.close()
        service.close()  # the debounce worker finishes the job in progress
        if checkpointer is not None:
            checkpointer.stop()
        lock.release()
    return 0


def warm_up(service: Mnemo) -> None:
    """The models' first inference (~0.4 s: sessions, allocations) here, before the first job: paid in
    a job, it fell under the user's lock (a fact is embedded there), and a turns request of that user
    waited for it in a request worker, measured at 390 ms, with the requests queued behind it."""
    from mnemo.bootstrap import learned_extractor
    from mnemo.domain.models import Message

    service.ports.embedder.embed(["Warm up the model for memories. It embeds sentence by sentence."])
    service.ports.embedder.embed_queries(["warm up the query model"])
    if service.settings.extractor != "rules":  # the learned one, or an LLM's fallback: never a network call here
        said = Message(role="user", content="I live in Lisbon and I work as a nurse.", message_id="warm-up",
                       created_at=service.ports.clock.now())
        learned_extractor(service.settings).extract([said])


def lower_priority(settings: Settings, parent: int) -> bool:
    """This process at settings.jobs_nice and, where it can come back out of it, SCHED_IDLE; its lock
    holders at their raised priority (mnemo.adapters.local.priority). From the main thread, before
    any other starts (they inherit its policy). Returns whether it runs under SCHED_IDLE."""
    with contextlib.suppress(OSError):
        os.nice(settings.jobs_nice)
    try:
        workers = os.getpriority(os.PRIO_PROCESS, parent)
    except OSError:  # the arbiter is already gone: this process exits at its first check
        workers = None
    idle = priority.configure(idle=settings.jobs_idle_priority, own_nice=os.getpriority(os.PRIO_PROCESS, 0),
                              write_nice=workers)
    log.info("the background jobs' priority", extra={"idle": idle, "nice": os.getpriority(os.PRIO_PROCESS, 0)})
    return idle


class JobsSupervisor:
    """In the arbiter: keeps one jobs process running until `stop`."""

    def __init__(self, settings: Settings, run_dir: Path) -> None:
        self._env = {**os.environ, SETTINGS_ENV: settings.model_dump_json(), RUN_DIR_ENV: str(run_dir),
                     "MNEMO_JOBS_PARENT": str(os.getpid())}
        self._grace = settings.shutdown_grace_seconds
        self._run_dir = run_dir
        self._stopping = threading.Event()
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._supervise, name="mnemo-jobs-supervisor", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def wait_until_running(self, timeout: float) -> bool:
        """True once a jobs process holds the jobs lock (its pid is in the lock file)."""
        deadline = time.monotonic() + timeout
        owner = self._run_dir / "jobs.lock"
        while time.monotonic() < deadline:
            # the lock file may not exist yet, or be empty between its creation and the owner's line
            with contextlib.suppress(OSError, ValueError, IndexError):
                process = self._process
                if process is not None and int(owner.read_text().split()[0]) == process.pid:
                    return True
            time.sleep(0.02)
        log.warning("the jobs process has not started yet; the server starts without waiting for it")
        return False

    def _spawn(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen([sys.executable, "-m", "mnemo.jobs_process"], env=self._env)

    def _supervise(self) -> None:
        while not self._stopping.is_set():
            with self._lock:
                if self._stopping.is_set():
                    return
                self._process = self._spawn()
            started = time.monotonic()
            # the arbiter may reap it first (its SIGCHLD handler waits for any child): wait() then
            # returns at once with 0; either way the process is gone
            self._process.wait()
            if self._stopping.is_set():
                return
            from prometheus_client import multiprocess

            multiprocess.mark_process_dead(self._process.pid)  # type: ignore[no-untyped-call]
            log.warning("the jobs process ended; starting another", extra={"worker": self._process.pid})
            # a process that dies at once (a broken installation) is not restarted in a tight loop
            self._stopping.wait(max(0.0, RETRY_SECONDS - (time.monotonic() - started)))

    def stop(self) -> None:
        """SIGTERM, then wait for the job in progress to finish (up to the grace period)."""
        with self._lock:
            self._stopping.set()
            process = self._process
        if process is None or process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=self._grace)
        except subprocess.TimeoutExpired:
            process.kill()


def main() -> int:
    from mnemo.cli import configure_logging

    settings = Settings.model_validate_json(os.environ[SETTINGS_ENV])
    configure_logging(settings.log_level)
    return run(settings, Path(os.environ[RUN_DIR_ENV]), int(os.environ.get("MNEMO_JOBS_PARENT", os.getppid())))


if __name__ == "__main__":
    sys.exit(main())
