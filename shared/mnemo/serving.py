"""`mnemo serve`: gunicorn with sync worker processes, each with its own service and resolver.

Why this shape:
- gunicorn is a well-kept production server with no dependencies of its own; its sync workers
  run one request at a time per process, which is what a Powertools resolver allows (it keeps the
  current event on itself), and scale over cores as processes, free of the GIL.
- A worker that is busy (a 500-item import) takes no new connection, so /health and every other
  tenant go to the others: no head-of-line blocking while a worker is free.
- Everything that must hold across workers lives in the data directory: SQLite (WAL, one writer at
  a time), the per-user lock (file record locks), the index generation counter, the quotas, and
  the metrics files. Kernel locks die with their holder, so kill -9 of any worker leaves no lock.
- The debounce worker and the consolidation schedule run in exactly one worker: the holder of the
  jobs lock (`run/jobs.lock`). When it dies, another worker takes the lock within a second and
  picks up the durable queue where it stopped. Other workers wake it through a datagram socket.
- SIGTERM (gunicorn's graceful stop): workers finish their request in flight, the jobs worker
  finishes the extraction job in progress, then each closes its service (flushing traces/audit).
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import shutil
import socket
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gunicorn import util as gunicorn_util  # type: ignore[import-untyped]
from gunicorn.app.base import BaseApplication  # type: ignore[import-untyped]

from mnemo.adapters.local.file_locks import ExclusiveFile, lock_data_dir
from mnemo.errors import ConfigurationError
from mnemo.ports import ExtractionJob
from mnemo.quotas import TenantQuotas
from mnemo.server import Authenticator, WsgiApp, is_loopback
from mnemo.services.extraction import ExtractionReport
from mnemo.settings import Settings

log = logging.getLogger("mnemo.serving")
LEADER_RETRY_SECONDS = 1.0


@dataclass
class ServeOptions:
    host: str
    port: int
    workers: int


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class WakeSignal:
    """The extraction queue's wakeup event, reaching the jobs worker in another process too.

    ``set()`` (called when a job is scheduled) sets the local event and sends one datagram to the
    jobs worker's socket; the jobs worker's listener sets its own event on receipt. Lost datagrams
    cost only latency: the jobs worker polls anyway.
    """

    def __init__(self, event: threading.Event, address: Path) -> None:
        self._event = event
        self._address = str(address)
        self._sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._sender.setblocking(False)

    def set(self) -> None:
        self._event.set()
        # no jobs worker listening right now, or its buffer is full: it polls anyway
        with contextlib.suppress(OSError):
            self._sender.sendto(b"1", self._address)

    def wait(self, timeout: float | None = None) -> bool:
        return self._event.wait(timeout)

    def clear(self) -> None:
        self._event.clear()

    def is_set(self) -> bool:
        return self._event.is_set()


class WorkerRuntime:
    """What one worker process holds: its service, its WSGI app, and maybe the background jobs."""

    def __init__(self, settings: Settings, run_dir: Path, auth: Authenticator, quotas: TenantQuotas) -> None:
        from mnemo import metrics
        from mnemo.api.app import create_app
        from mnemo.bootstrap import build_local

        self.settings = settings
        self.run_dir = run_dir
        self.service = build_local(settings)
        self._stopping = threading.Event()
        self._jobs_lock = ExclusiveFile(run_dir / "jobs.lock")
        self._jobs: list[Any] = []
        self._listener: socket.socket | None = None
        queue = self.service.ports.queue
        self.wake = WakeSignal(queue.wakeup, run_dir / "wake.sock")  # type: ignore[attr-defined]
        queue.wakeup = self.wake  # type: ignore[attr-defined]
        logging.getLogger("mnemo").addHandler(metrics.FallbackCounter())
        self.app = WsgiApp(create_app(self.service), auth, max_body_bytes=settings.max_body_bytes, quotas=quotas,
                           ready=self.readiness, metrics_db=settings.data_dir.expanduser() / "mnemo.db",
                           metrics_key=settings.metrics_key, access_log=settings.access_log)
        self._warm_up()
        self._elector = threading.Thread(target=self._elect, name="mnemo-jobs-elector", daemon=True)
        self._elector.start()

    def _warm_up(self) -> None:
        """Pay the first inference and the resolver's first-call set-up here, before this worker
        accepts a connection, not in a client's first request."""
        from mnemo.server import build_event

        embedder = self.service.ports.embedder
        embedder.embed_queries(["warm up the query model"])
        embedder.embed(["Warm up the model for memories. It embeds sentence by sentence."])
        self.app.app.resolve(build_event("GET", "/health", {}, b"", "", "127.0.0.1"), None)  # type: ignore[arg-type]

    @property
    def leads_jobs(self) -> bool:
        return self._jobs_lock.held

    def readiness(self) -> str | None:
        """None when this worker can serve: its database answers and it is not shutting down."""
        if self._stopping.is_set():
            return "shutting down"
        db = getattr(self.service.ports.memories, "_db", None)
        try:
            if db is not None:
                with db.read() as conn:
                    conn.execute("SELECT value FROM store_generation").fetchone()
        except Exception as exc:
            return f"the database does not answer ({type(exc).__name__})"
        return None

    def _elect(self) -> None:
        while not self._stopping.is_set():
            if self._jobs_lock.try_acquire():
                self._jobs_lock.write_owner(f"{os.getpid()}\n")
                self._start_jobs()
                return
            self._stopping.wait(LEADER_RETRY_SECONDS)

    def _start_jobs(self) -> None:
        from mnemo import metrics
        from mnemo.bootstrap import start_scheduler, start_worker

        address = self.run_dir / "wake.sock"
        address.unlink(missing_ok=True)  # a dead jobs worker's socket file
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        listener.bind(str(address))
        self._listener = listener
        threading.Thread(target=self._listen, args=(listener,), name="mnemo-wake", daemon=True).start()
        clock = self.service.ports.clock
        process = self.service.extraction.process

        def timed(job: ExtractionJob) -> ExtractionReport:
            metrics.EXTRACTION_LAG.observe(max(0.0, (clock.now() - job.due_at).total_seconds()))
            try:
                result = process(job)
            except Exception:
                metrics.EXTRACTION_JOBS.labels(outcome="failed").inc()
                raise
            metrics.count_extraction(result)
            return result

        self.service.extraction.process = timed  # type: ignore[method-assign]  # the same job, timed
        # the jobs share this worker's interpreter lock with its requests: hand it over every
        # millisecond rather than every five, so a request never waits long behind an extraction
        sys.setswitchinterval(0.001)
        self._jobs = [start_worker(self.service), start_scheduler(self.service)]
        log.info("this worker runs the background jobs", extra={"worker": os.getpid()})

    def _listen(self, listener: socket.socket) -> None:
        while not self._stopping.is_set():
            try:
                listener.recv(64)
            except OSError:
                return
            self.wake._event.set()

    def close(self) -> None:
        """Stop taking jobs, finish the one in progress, flush what the requests queued."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        if self._listener is not None:
            self._listener.close()
        self.service.close()  # stops the debounce worker (it finishes its current job) and the scheduler
        self._jobs_lock.release()


def write_json_error(sock: socket.socket, status_int: int, reason: str, _message: str) -> None:
    """gunicorn's own refusals (a malformed request line or header, a Content-Length like "1_3") in
    our error shape rather than its HTML page; its message, which may quote the input, is left out."""
    names = {400: "invalid_input", 403: "forbidden", 413: "payload_too_large", 414: "uri_too_long",
             431: "headers_too_large"}
    body = json.dumps({"error": {"code": names.get(status_int, "invalid_input"),
                                 "message": f"request refused: {reason}", "details": None}}).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode("latin1")
    gunicorn_util.write_nonblock(sock, head + body)


class MnemoApplication(BaseApplication):  # type: ignore[misc]
    def __init__(self, settings: Settings, options: ServeOptions, announce: Callable[[str], None]) -> None:
        self.settings = settings
        self.options = options
        self.announce = announce
        self.data_dir = settings.data_dir.expanduser()
        self.run_dir = self.data_dir / "run"
        self.auth = Authenticator(settings.tenant_keys())
        self.runtime: WorkerRuntime | None = None  # set in each worker process, after the fork
        self.quotas = TenantQuotas(self.run_dir / "quotas", self.auth.tenants, settings.tenant_requests_per_second,
                                   settings.tenant_burst, settings.tenant_concurrent_requests)
        super().__init__()

    def load_config(self) -> None:
        booted = threading.Event()

        def post_fork(_server: Any, worker: Any) -> None:
            gunicorn_util.write_error = write_json_error
            # loading the model is not a request: keep the arbiter's timeout (meant for stuck requests)
            # from killing a worker that is still booting on a busy machine
            def heartbeat() -> None:
                while not booted.wait(0.25):
                    worker.notify()

            threading.Thread(target=heartbeat, name="mnemo-boot-heartbeat", daemon=True).start()

        def post_worker_init(worker: Any) -> None:
            booted.set()
            # announced by the first worker ready to answer (not when the socket opens): whoever waits
            # for the line can send requests that are served at once
            try:
                os.close(os.open(self.run_dir / "announced", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            except FileExistsError:
                return
            host, port = worker.sockets[0].getsockname()[:2]
            self.announce(f"mnemo serving on http://{host}:{port} (data: {self.settings.data_dir}, "
                          f"workers: {self.options.workers})")

        def child_exit(_server: Any, worker: Any) -> None:
            from prometheus_client import multiprocess

            multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]

        def worker_exit(_server: Any, _worker: Any) -> None:
            if self.runtime is not None:
                self.runtime.close()

        def worker_int(_worker: Any) -> None:
            if self.runtime is not None:
                self.runtime.close()

        config = {
            "bind": [f"{self.options.host}:{self.options.port}"],
            "workers": self.options.workers,
            "worker_class": "sync",
            "timeout": max(1, math.ceil(self.settings.request_timeout_seconds)),
            "graceful_timeout": max(1, math.ceil(self.settings.shutdown_grace_seconds)),
            "backlog": 2048,
            "accesslog": None,  # our own structured access log (mnemo.access), without paths or bodies
            "errorlog": "-",
            "loglevel": "warning",
            "proc_name": "mnemo",
            "preload_app": False,  # each worker loads its own model and database connections after the fork
            "post_fork": post_fork,
            "post_worker_init": post_worker_init,
            "child_exit": child_exit,
            "worker_exit": worker_exit,
            "worker_int": worker_int,
        }
        for name, value in config.items():
            self.cfg.set(name, value)

    def load(self) -> WsgiApp:
        self.runtime = WorkerRuntime(self.settings, self.run_dir, self.auth, self.quotas)
        return self.runtime.app


def prepare_data_dir(settings: Settings) -> None:
    """Create what every worker would otherwise race to create: the schema and the master key."""
    from mnemo.adapters.local.key_file_vault import load_or_create_master_key
    from mnemo.adapters.local.sqlite_db import Database

    root = settings.data_dir.expanduser()
    root.mkdir(parents=True, exist_ok=True)
    load_or_create_master_key(root / "master.key")
    Database(root / "mnemo.db", settings.sqlite_busy_timeout_ms).close()


def serve(settings: Settings, options: ServeOptions, announce: Callable[[str], None]) -> int:
    """Run until SIGTERM or SIGINT; returns the exit status."""
    if not settings.tenant_keys() and not is_loopback(options.host):
        raise ConfigurationError("without MNEMO_API_KEYS the server only listens on a loopback address")
    if options.workers < 1:
        raise ConfigurationError("--workers must be at least 1")
    data_dir = settings.data_dir.expanduser()
    data_dir.mkdir(parents=True, exist_ok=True)
    held = lock_data_dir(data_dir)  # refuses a second server on this data directory, and says why
    try:
        run_dir = data_dir / "run"
        shutil.rmtree(run_dir, ignore_errors=True)  # the last run's metrics, quotas and sockets
        (run_dir / "metrics").mkdir(parents=True)
        # before prometheus_client is first imported: the workers inherit it and write their samples there
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(run_dir / "metrics")
        prepare_data_dir(settings)
        application = MnemoApplication(settings, options, announce)
        application.quotas.prepare()
        try:
            application.run()
        except SystemExit as stop:
            return int(stop.code or 0)
        return 0
    finally:
        held.release()
