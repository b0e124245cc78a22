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
- The debounce worker and the consolidation schedule run in a process of their own at a lower CPU
  priority (`mnemo.jobs_process`), started by the arbiter and started again if it dies; it holds
  the jobs lock (`run/jobs.lock`) and picks up the durable queue where the last one stopped.
  Request workers wake it through a datagram socket. So extraction never holds a request
  worker's interpreter lock, and the cores go to the requests a client is waiting for first.
- SIGTERM (gunicorn's graceful stop): workers finish their request in flight, the jobs process
  finishes the extraction job in progress, then each closes its service (flushing traces/audit).
"""

from __future__ import annotations

import contextlib
import gc
import json
import logging
import math
import os
import re
import shutil
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gunicorn import util as gunicorn_util  # type: ignore[import-untyped]
from gunicorn.app.base import BaseApplication  # type: ignore[import-untyped]
from gunicorn.workers.sync import SyncWorker  # type: ignore[import-untyped]

from mnemo.adapters.local.file_locks import hold_first_free, lock_data_dir
from mnemo.errors import ConfigurationError
from mnemo.jobs_process import JobsSupervisor
from mnemo.quotas import TenantQuotas
from mnemo.server import Authenticator, McpHandler, ResolverPool, WsgiApp, is_loopback
from mnemo.settings import Settings

log = logging.getLogger("mnemo.serving")
# the commits' own WAL checkpoint when the jobs process checkpoints (settings.sqlite_autocheckpoint_pages):
# 40 MB of WAL at 4 KB pages, reached only if its checkpointer falls behind or is down
SERVE_AUTOCHECKPOINT_PAGES = 10_000
CACHE_SIZES_SECONDS = 1.0  # how often a worker refreshes its mnemo_cached_users gauges (at a request)
SWITCH_INTERVAL_SECONDS = 0.0005  # how long another thread may hold the interpreter lock a request waits for


@dataclass
class ServeOptions:
    host: str
    port: int
    workers: int
    threads: int = 1  # request threads per worker: 1 = gunicorn's sync workers, more = its gthread workers
    # sync workers only: a reserve process per worker takes over its accepting while it serves a write
    # (mnemo.write_reserve)
    write_reserve: bool = False


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


_PINNED: list[int] = []  # the descriptor of the core's lock file, held for the worker's whole life


def pin_to_a_free_core(folder: Path) -> int | None:
    """Keep this process (and the threads it starts after this) on one core that no other worker holds.

    A worker that sleeps between requests wakes up on whichever core the scheduler chooses, beside the client
    and the jobs process. With one worker a core, each keeps to its own: at one fixed rate the retrieve tail was
    lower, the CPU a request the same (README issue 14, eighth pass). Each core is a lock file; a kernel lock
    dies with its holder, so a worker started after one was killed takes the core that one left. None (and no
    pinning) when every core is held (a reload's new workers while the old ones finish) or the system cannot
    pin."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    folder.mkdir(parents=True, exist_ok=True)
    cores = sorted(os.sched_getaffinity(0))
    held = hold_first_free(folder / f"core-{core}" for core in cores)
    if held is None:
        return None
    index, fd = held
    try:
        os.sched_setaffinity(0, {cores[index]})
    except OSError:
        os.close(fd)
        return None
    _PINNED.append(fd)
    return cores[index]


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
    """What one request worker process holds: its service and its WSGI app."""

    def __init__(self, settings: Settings, run_dir: Path, auth: Authenticator, quotas: TenantQuotas,
                 threads: int = 1, step_aside: Callable[[], None] | None = None) -> None:
        from mnemo import metrics
        from mnemo.api.app import create_app
        from mnemo.bootstrap import build_local

        self.settings = settings
        self.threads = threads
        self.run_dir = run_dir
        self.service = build_local(settings)
        self._stopping = threading.Event()
        queue = self.service.ports.queue
        # jobs scheduled here wake the jobs process (it polls anyway)
        self.wake = WakeSignal(queue.wakeup, run_dir / "wake.sock")  # type: ignore[attr-defined]
        queue.wakeup = self.wake  # type: ignore[attr-defined]
        logging.getLogger("mnemo").addHandler(metrics.FallbackCounter())
        resolvers = [create_app(self.service) for _ in range(threads)]
        self.resolvers = ResolverPool(resolvers)
        self.app = WsgiApp(resolvers[0], auth, max_body_bytes=settings.max_body_bytes, quotas=quotas,
                           ready=self.readiness, metrics_db=settings.data_dir.expanduser() / "mnemo.db",
                           metrics_key=settings.metrics_key, access_log=settings.access_log, mcp=self._mcp,
                           server_timing=settings.server_timing, resolvers=self.resolvers,
                           step_aside=step_aside, before_request=self._before_request,
                           after_request=self.service.caches.settle)
        self._sizes_at = 0.0
        self._warm_up(resolvers)
        if threads > 1:
            threading.Thread(target=self._watchdog, name="mnemo-request-timeout", daemon=True).start()
        # what start-up built (the model, the resolver's routes and schemas, the imports) lives as long as
        # the worker: out of the collector's sight, a full collection no longer walks it between two
        # requests (a pause of ~90 ms measured, which every request queued on this worker waited for)
        gc.collect()
        gc.freeze()
        # the request thread shares the interpreter lock with the background writers (traces, audit):
        # when it let go of the lock for a SQLite read, a flush could keep it for the whole default
        # 5 ms interval (a one-row read's p99 went from 0.15 ms to 5 ms with flushes running)
        sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)

    def _before_request(self) -> None:
        """Drop the users another process erased since this worker's last request (mnemo.services.user_caches),
        and now and then tell the metrics how many users its caches hold (a walk over them: not every request)."""
        from mnemo import metrics

        self.service.caches.drop_erased()
        now = time.monotonic()
        if now - self._sizes_at >= CACHE_SIZES_SECONDS:
            self._sizes_at = now
            for name, size in self.service.caches.sizes().items():
                metrics.CACHED_USERS.labels(cache=name).set(size)

    def _mcp(self) -> McpHandler:
        """`/mcp` (see mnemo.mcp_server.http): its tools call this worker's own API in-process, past the edge's
        quota (the `/mcp` request itself was counted) and its access log (one line per `/mcp` request)."""
        from mnemo.mcp_server.http import McpEndpoint

        api = WsgiApp(self.app.app, self.app.auth, max_body_bytes=self.settings.max_body_bytes, access_log=False,
                      resolvers=self.resolvers)
        # a little under gunicorn's timeout (the request timeout), which would kill the worker instead
        return McpEndpoint(api, self.settings.max_body_bytes, self.settings.request_timeout_seconds * 0.9).handle

    def _warm_up(self, resolvers: list[Any]) -> None:
        """Pay the first inference and each resolver's first-call set-up here, before this worker
        accepts a connection, not in a client's first request."""
        from mnemo.server import build_event

        embedder = self.service.ports.embedder
        embedder.embed_queries(["warm up the query model"])
        embedder.embed_search_queries(["warm up the search model"])
        embedder.embed(["Warm up the model for memories. It embeds sentence by sentence."])
        for resolver in resolvers:
            resolver.resolve(build_event("GET", "/health", {}, b"", "", "127.0.0.1"), None)

    def _watchdog(self) -> None:
        """The request timeout of a threaded worker. A sync worker that stops reporting to the arbiter
        (one request running past the timeout) is killed by it; a threaded worker's main loop keeps
        reporting whatever its request threads do, and a Python thread cannot be stopped from outside.
        So a request past the timeout ends this worker as the arbiter would a sync one: the arbiter
        starts another, the cut-off transactions roll back (as after kill -9), and the requests in
        flight on this worker with it lose their connection (clients retry them)."""
        limit = self.settings.request_timeout_seconds
        while not self._stopping.wait(min(0.25, limit / 4)):
            if self.app.oldest_request_seconds() > limit:
                log.error("a request ran past the request timeout: replacing this worker",
                          extra={"timeout_s": limit, "worker": os.getpid()})
                closing = threading.Thread(target=self.service.close, daemon=True)  # flush traces and audit
                closing.start()
                closing.join(timeout=2.0)
                os._exit(1)

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

    def close(self) -> None:
        """Flush what the requests queued (traces, audit)."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        self.service.close()


def write_json_error(sock: socket.socket, status_int: int, reason: str, _message: str) -> None:
    """gunicorn's own refusals (a malformed request line or header, a Content-Length like "1_3") in
    our error shape rather than its HTML page; its message, which may quote the input, is left out."""
    names = {400: "invalid_input", 403: "forbidden", 413: "payload_too_large", 414: "uri_too_long",
             431: "headers_too_large", 501: "not_implemented"}
    # a 5xx is gunicorn's fault or a cut-off request (a body that never arrived before the request
    # timeout), not the client's input
    body = json.dumps({"error": {"code": names.get(status_int, "invalid_input" if status_int < 500 else "internal"),
                                 "message": f"request refused: {reason}", "details": None}}).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode("latin1")
    gunicorn_util.write_nonblock(sock, head + body)


def close_at_once(graceful: Callable[..., None]) -> Callable[..., None]:
    """gunicorn's close of a connection after its answer, without the wait for the client when nothing of
    the request is left unread.

    gunicorn (22 on) closes every connection gracefully: it half-closes, then reads until the client closes
    its end (up to 2 s), so that the kernel does not answer request bytes still unread with a reset that
    could cut the response off at the client. A sync worker takes no other connection meanwhile: every
    request kept its worker for one more round trip to the client after the answer was sent (a client busy
    elsewhere kept it milliseconds), the next request waiting in the queue. With nothing unread, a plain close
    sends no reset; so the worker closes at once unless bytes are waiting (a body refused unread, a
    pipelined request), where the graceful close does as before."""

    def close(sock: socket.socket, *args: Any, **kwargs: Any) -> None:
        try:
            # a socket with a timeout (the read timeout, read_deadline) waits that long for readability before
            # any recv, MSG_DONTWAIT or not: a client keeping its connection open held the worker for it
            sock.settimeout(0.0)
            waiting = sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except BlockingIOError:
            waiting = b""  # nothing unread, the client still connected
        except OSError:
            waiting = b""  # reset or gone already: nothing to protect
        if waiting:
            graceful(sock, *args, **kwargs)
            return
        with contextlib.suppress(OSError):
            sock.close()

    return close


def read_deadline(handle: Callable[..., None], seconds: float) -> Callable[..., None]:
    """A sync worker's ``handle(listener, client, addr)`` with a read timeout on the client's socket.

    gunicorn's sync worker reads a request from a blocking socket with no timeout: two connections
    that sent half a request line (no key needed) held both workers of `mnemo serve --workers 2` until
    the arbiter killed them at the request timeout (60 s), every request waiting meanwhile, and again as
    often as they were opened. Each read now waits ``seconds`` at most; a stalled connection is closed."""

    def timed(listener: Any, client: socket.socket, addr: Any) -> None:
        client.settimeout(seconds)
        handle(listener, client, addr)

    return timed


class ClientTooSlow(logging.Filter):
    """gunicorn logs a socket error while it reads a request with its traceback; a client too slow to send
    its request is the client's doing, one line without one."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], TimeoutError):
            record.msg, record.args, record.exc_info, record.exc_text = (
                "a client's request did not arrive within the read timeout: its connection is closed", (), None, None)
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


class RequestTextOut(logging.Filter):
    """gunicorn logs its refusals with the request as sent ("Invalid request from ip=...: Invalid HTTP
    header name: '<the header line>'") and an application error with the URI: a key in a malformed
    Authorization line, a user id or a query reached the log. The refusal keeps its kind, not the text."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        if message.startswith("Invalid request from ip="):
            head, _, error = message.partition(": ")
            # gunicorn's words before the quoted input ("Invalid HTTP header name"); anything else may be
            # the client's own text (an invalid method is only itself)
            kind = re.split(r"[:']", error, maxsplit=1)[0].strip() if re.search(r"[:']", error) else ""
            if not re.fullmatch(r"[A-Za-z][A-Za-z ]{0,60}", kind):
                kind = "malformed request"
            record.msg = f"{head}: {kind} (the request's text is not logged)"
            record.args = ()
        elif message.startswith("Error handling request") and record.args:
            record.msg, record.args = "Error handling request (its URI is not logged)", ()
        return True


class MnemoApplication(BaseApplication):  # type: ignore[misc]
    def __init__(self, settings: Settings, options: ServeOptions, announce: Callable[[str], None]) -> None:
        self.settings = settings
        self.options = options
        self.announce = announce
        self.data_dir = settings.data_dir.expanduser()
        self.run_dir = self.data_dir / "run"
        self.auth = Authenticator(settings.tenant_keys())
        self.runtime: WorkerRuntime | None = None  # set in each worker process, after the fork
        self.worker: Any = None  # this process's gunicorn worker, after the fork
        self.reserve = options.write_reserve and options.threads == 1
        # one worker a core, each on its own (pin_to_a_free_core): only where each worker's share is one core
        # (the model then runs one thread a worker, cli.py), never with the reserve's second process a worker
        self.pin = (settings.serve_pin_workers and not self.reserve and options.workers == default_workers()
                    and settings.embedding_threads == 1)
        self.jobs = JobsSupervisor(settings, self.run_dir)  # in the arbiter
        self.quotas = TenantQuotas(self.run_dir / "quotas", self.auth.tenants, settings.tenant_requests_per_second,
                                   settings.tenant_burst, settings.tenant_concurrent_requests)
        super().__init__()

    def load_config(self) -> None:
        booted = threading.Event()

        def post_fork(_server: Any, worker: Any) -> None:
            self.worker = worker
            if self.pin:  # first, before this process starts a thread: a thread keeps the mask it started with
                pin_to_a_free_core(self.run_dir / "cores")
            gunicorn_util.write_error = write_json_error
            if isinstance(worker, SyncWorker):  # the sync worker and the reserve's (gthread waits for data itself)
                worker.handle = read_deadline(worker.handle, self.settings.client_read_timeout_seconds)
            gunicorn_util.close_graceful = close_at_once(gunicorn_util.close_graceful)
            logging.getLogger("gunicorn.error").addFilter(RequestTextOut())
            logging.getLogger("gunicorn.error").addFilter(ClientTooSlow())
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
            base = f"http://{host}:{port}"
            self.announce(f"mnemo serving on {base} (data: {self.data_dir.resolve()}, "
                          f"workers: {self.options.workers})")
            keys = ("no API key needed (one tenant, loopback only)" if self.auth.open
                    else "send a key of MNEMO_API_KEYS as Bearer")
            self.announce(f"  API docs: {base}/docs; {keys}; stop with Ctrl+C (SIGTERM to pid {os.getppid()})")

        def when_ready(_server: Any) -> None:
            # before the workers start: the jobs process holds its lock by the time a client is told
            # the server is up
            self.jobs.start()
            self.jobs.wait_until_running(self.settings.jobs_start_timeout_seconds)

        def on_exit(_server: Any) -> None:
            self.jobs.stop()

        def child_exit(_server: Any, worker: Any) -> None:
            from prometheus_client import multiprocess

            multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]

        def worker_exit(_server: Any, _worker: Any) -> None:
            if self.runtime is not None:
                self.runtime.close()

        def worker_int(_worker: Any) -> None:
            if self.runtime is not None:
                self.runtime.close()

        worker_class: Any = "sync" if self.options.threads == 1 else "gthread"
        if self.reserve:
            from mnemo.write_reserve import ReserveWorker

            ReserveWorker.slots_folder, ReserveWorker.slots = self.run_dir / "slots", self.options.workers
            worker_class = ReserveWorker
        config = {
            "bind": [f"{self.options.host}:{self.options.port}"],
            # with the reserve, two processes a worker, of which one accepts at a time (mnemo.write_reserve)
            "workers": self.options.workers * (2 if self.reserve else 1),
            # sync: one request at a time per process; gthread: `threads` at once, each with its resolver.
            # A gthread worker takes a connection only while a thread is free (worker_connections), and
            # closes each after its answer as a sync worker does (no keep-alive connection holds a thread)
            "worker_class": worker_class,
            "threads": self.options.threads,
            "worker_connections": self.options.threads,
            "keepalive": 0 if self.options.threads > 1 else 2,
            "timeout": max(1, math.ceil(self.settings.request_timeout_seconds)),
            "graceful_timeout": max(1, math.ceil(self.settings.shutdown_grace_seconds)),
            "backlog": 2048,
            "accesslog": None,  # our own structured access log (mnemo.access), without paths or bodies
            "errorlog": "-",
            "loglevel": "warning",
            "proc_name": "mnemo",
            "preload_app": False,  # each worker loads its own model and database connections after the fork
            "post_fork": post_fork,
            "when_ready": when_ready,
            "on_exit": on_exit,
            "post_worker_init": post_worker_init,
            "child_exit": child_exit,
            "worker_exit": worker_exit,
            "worker_int": worker_int,
        }
        for name, value in config.items():
            self.cfg.set(name, value)

    def load(self) -> WsgiApp:
        step_aside = getattr(self.worker, "step_aside", None) if self.reserve else None
        self.runtime = WorkerRuntime(self.settings, self.run_dir, self.auth, self.quotas, self.options.threads,
                                     step_aside)
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
    if options.threads < 1:
        raise ConfigurationError("--threads must be at least 1")
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
