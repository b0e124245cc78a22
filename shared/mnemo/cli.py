"""The `mnemo` command: serve, mcp, demo, import, consolidate, tune, reembed, bench."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import mnemo
from mnemo.errors import MnemoError
from mnemo.progress import ProgressBar
from mnemo.settings import Settings

if TYPE_CHECKING:
    from mnemo.bootstrap import Mnemo


def load_settings(data_dir: str | None = None) -> Settings:
    overrides: dict[str, object] = {}
    if data_dir:
        overrides["data_dir"] = Path(data_dir)
    return Settings.from_env(os.environ, **overrides)


@contextmanager
def local_service(data_dir: str | None) -> Iterator[Mnemo]:
    """The embedded home for a one-shot command, closed (and flushed) at the end."""
    from mnemo.bootstrap import build_local

    service = build_local(load_settings(data_dir))
    try:
        yield service
    finally:
        service.close()


class JsonFormatter(logging.Formatter):
    """One JSON object a line: level, logger, message and the record's ``extra`` fields (which by our
    rules carry names, counts and durations, never user text)."""

    STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {"time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"), "level": record.levelname,
                                    "logger": record.name, "message": record.getMessage()}
        entry.update({k: v for k, v in vars(record).items() if k not in self.STANDARD and not k.startswith("_")})
        if record.exc_info:
            entry["error"] = record.exc_info[0].__name__ if record.exc_info[0] else "unknown"
        return json.dumps(entry, default=str)


def configure_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    logging.basicConfig(level=level.upper(), handlers=[handler])


def cmd_serve(args: argparse.Namespace) -> int:
    from mnemo.serving import SERVE_AUTOCHECKPOINT_PAGES, ServeOptions, default_workers, serve

    workers = args.workers or default_workers()
    overrides: dict[str, object] = {}
    if args.data_dir:
        overrides["data_dir"] = Path(args.data_dir)
    if "MNEMO_EMBEDDING_THREADS" not in os.environ:
        # one process per core already: more model threads per worker would only fight over the cores
        overrides["embedding_threads"] = max(1, default_workers() // workers)
    settings = Settings.from_env(os.environ, **overrides)
    if "MNEMO_SQLITE_AUTOCHECKPOINT_PAGES" not in os.environ and settings.wal_checkpoint_seconds > 0:
        # the jobs process checkpoints off the write lock: a commit's own checkpoint is only the backstop
        settings = settings.model_copy(update={"sqlite_autocheckpoint_pages": SERVE_AUTOCHECKPOINT_PAGES})
    configure_logging(settings.log_level)
    threads = args.threads or settings.serve_threads
    options = ServeOptions(args.host, args.port, workers, threads, write_reserve=settings.serve_write_reserve)
    return serve(settings, options, lambda line: print(line, flush=True))


def cmd_import(args: argparse.Namespace) -> int:
    from mnemo.services.importer import import_file

    bar = ProgressBar("import")
    try:
        with local_service(args.data_dir) as service:
            summary = import_file(service.writer, service.ports.clock, Path(args.file), tenant_id=args.tenant,
                                  default_user=args.user, max_chars=service.settings.max_content_chars,
                                  resolve_conflicts=args.resolve_conflicts, progress=bar)
    finally:
        bar.close()
    print(json.dumps(summary, indent=2))
    return 0


def cmd_consolidate(args: argparse.Namespace) -> int:
    with local_service(args.data_dir) as service:
        tenants = [args.tenant] if args.tenant else service.ports.memories.tenants()
        for tenant_id in tenants:
            bar = ProgressBar(f"consolidate {tenant_id}")
            try:
                report = service.consolidator.run(tenant_id, args.user, progress=bar.by_user)
            finally:
                bar.close()
            print(json.dumps({"tenant": tenant_id, "users": report.users, **vars(report.totals)}))
    return 0


def cmd_tune(args: argparse.Namespace) -> int:
    with local_service(args.data_dir) as service:
        tenants = [args.tenant] if args.tenant else service.ports.memories.tenants()
        for tenant_id in tenants:
            report = service.tuner.run(tenant_id)
            state = f"new version {report.version}" if report.changed else f"unchanged (version {report.version})"
            print(f"tenant {tenant_id}: {report.samples} rated memories; weights {report.weights} {state}")
            for category in report.worst_categories():
                stats = report.categories[category]
                print(f"  {category:<14} rated {int(stats['total']):>4}  corrections/misses/downs "
                      f"{stats.get('bad_rate', 0.0):.0%}")
    return 0


def cmd_reembed(args: argparse.Namespace) -> int:
    """Re-embed every memory with the configured embedder (after a model change)."""
    from mnemo.bootstrap import build
    from mnemo.services.reembed import Reembedder

    settings = load_settings(args.data_dir)
    if settings.backend == "aws":
        # the domain is VPC-only, IAM grants the stage's one index, and the functions cannot be pointed at
        # another: a deployed stage keeps the embedder it was created with (docs/runbook.md)
        print("mnemo: reembed runs on the embedded home only; an AWS stage keeps the embedder it was first "
              "deployed with (docs/runbook.md, 'Changing the embedding model')", file=sys.stderr)
        return 2
    service = build(settings)
    try:
        target = None
        if args.target_index:
            on_index = getattr(service.ports.memories, "on_index", None)
            if on_index is None:
                print("mnemo: --target-index is for the AWS back end (an OpenSearch index)", file=sys.stderr)
                return 2
            target = on_index(args.target_index, service.ports.embedder.dimension, settings.opensearch_shards,
                              settings.opensearch_replicas)
        bar = ProgressBar("reembed")
        try:
            report = Reembedder(service.ports, target).run(progress=lambda done, total: bar(done, total, "users"))
        finally:
            bar.close()
        print(json.dumps({"model": service.ports.embedder.model_id, **vars(report)}))
    finally:
        service.close()
    return 0


def cmd_apikey(args: argparse.Namespace) -> int:
    """Issue or revoke a tenant's API key in the AWS home (the authorizer's table)."""
    try:
        import boto3
    except ImportError:  # `make run` and `pip install .` install the core only
        print("mnemo: apikey is for the AWS home and needs the aws extra: pip install 'mnemo[aws]' (make install)",
              file=sys.stderr)
        return 2

    from mnemo.adapters.aws.api_keys import DynamoApiKeys
    from mnemo.adapters.aws.dynamo_state import DynamoTable
    from mnemo.clock import SystemClock

    settings = load_settings(None)
    keys = DynamoApiKeys(DynamoTable(boto3.client("dynamodb", region_name=settings.aws_region),
                                     settings.state_table))
    if args.action == "create":
        if not args.tenant:
            print("mnemo: --tenant is required to create a key", file=sys.stderr)
            return 2
        try:
            issued = keys.create(args.tenant, SystemClock().now())
        except ValueError as exc:
            print(f"mnemo: {exc}", file=sys.stderr)
            return 2
        print(json.dumps({"tenant": args.tenant, "key": issued.key, "key_id": issued.key_id}))
        print("the key is shown once; keep it in the chat app's secret store", file=sys.stderr)
        return 0
    key = sys.stdin.readline().strip()  # never on the command line, where shell history keeps it
    keys.revoke(key)
    print(json.dumps({"revoked": True}))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from mnemo.demo import run_demo

    return run_demo(keep=args.keep)


# the names tests/bench/run_all.py knows (listed here for --help: the checkout may not be there)
BENCHMARKS = ("embedding", "latency", "throughput", "locomo", "load", "serve_load", "close_load", "summaries",
              "consolidation", "extraction", "conversations")


def cmd_mcp(args: argparse.Namespace) -> int:
    from mnemo.mcp_server.stdio import run_stdio

    configure_logging(os.environ.get("MNEMO_LOG_LEVEL", "WARNING"))  # stderr: stdout is the protocol's
    run_stdio(args.url, os.environ.get("MNEMO_API_KEY") or None, args.user_id)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    import runpy

    root = Path(__file__).resolve().parents[2] / "tests" / "bench" / "run_all.py"
    if not root.exists():
        print("the benchmarks live in tests/bench of a source checkout", file=sys.stderr)
        return 2
    sys.argv = [str(root), *args.rest]
    runpy.run_path(str(root), run_name="__main__")
    return 0


IMPORT_FORMAT = """\
The file is JSON: a list of memories, or {"items": [...]}. Each memory is an object:
  content            the fact, 1 to MNEMO_MAX_CONTENT_CHARS (2,000) characters (required)
  user_id            whose memory it is (default: --user; one of the two is required)
  category, subject  as in the API (subject: a slot such as home_location)
  scope              user (default), project (with project_id) or session (with session_id)
  created_at         ISO 8601, when the user said it (default: now); expires_at likewise
  confidence         0 to 1 (default 0.9)
  metadata           the app's own map of string keys to string values
Every item is checked before anything is written; exact duplicates merge. Example:
  [{"user_id": "ana", "content": "Ana lives in Lisbon.", "created_at": "2025-03-01T10:00:00Z"},
   {"user_id": "ana", "content": "Ana is vegetarian.", "category": "constraint"}]
"""

DATA_DIR_HELP = "where the memories live (default: $MNEMO_DATA_DIR, else ./.mnemo)"


def parser() -> argparse.ArgumentParser:
    """The command line, every option with its help (`mnemo COMMAND --help`)."""
    root = argparse.ArgumentParser(
        prog="mnemo", description="Long-term memory for chat applications. Configuration beyond these options "
                                  "is read from MNEMO_* environment variables (see the README).")
    root.add_argument("--version", action="version", version=f"mnemo {mnemo.__version__}")
    sub = root.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = sub.add_parser("serve", help="run the local HTTP server on the embedded back end",
                           description="Serve the HTTP API (API.md) on the embedded back end, with Swagger UI at "
                                       "/docs. Without MNEMO_API_KEYS one tenant, 'default', is served without a "
                                       "key, on a loopback address only. Stop it with Ctrl+C (SIGINT) or SIGTERM.")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default: %(default)s; anything but loopback needs MNEMO_API_KEYS)")
    serve.add_argument("--port", type=int, default=8080, help="port to listen on; 0 picks a free one "
                                                               "(default: %(default)s)")
    serve.add_argument("--data-dir", default=None, help=DATA_DIR_HELP)
    serve.add_argument("--workers", type=int, default=None,
                       help="worker processes (default: the number of cores)")
    serve.add_argument("--threads", type=int, default=None,
                       help="requests each worker serves at once, one thread each (default: MNEMO_SERVE_THREADS, 1)")
    serve.set_defaults(func=cmd_serve)
    demo = sub.add_parser("demo", help="a scripted walk through two sessions",
                          description="A scripted walk through two sessions, in a temporary data directory.")
    demo.add_argument("--keep", action="store_true", help="keep the temporary data directory afterwards")
    demo.set_defaults(func=cmd_demo)
    imp = sub.add_parser("import", help="import memories from a JSON file",
                         description="Bulk load curated memories (a migration, a history) into the embedded\n"
                                     "home; prints a JSON summary of the outcomes.",
                         epilog=IMPORT_FORMAT, formatter_class=argparse.RawDescriptionHelpFormatter)
    imp.add_argument("file", help="the JSON file (format below)")
    imp.add_argument("--tenant", default="default", help="the tenant to import into (default: %(default)s)")
    imp.add_argument("--user", default=None, help="user for items that name none")
    imp.add_argument("--resolve-conflicts", action="store_true",
                     help="let a newer fact supersede an older one in the same slot, as extraction does "
                          "(default: off: each item is stored as given, exact duplicates merged)")
    imp.add_argument("--data-dir", default=None, help=DATA_DIR_HELP)
    imp.set_defaults(func=cmd_import)
    cons = sub.add_parser("consolidate", help="run consolidation now (TTL, pruning, summaries, the cap)",
                          description="Run consolidation now, as the daily schedule of `mnemo serve` does; prints "
                                      "one JSON line a tenant. Idempotent: a killed run is finished by the next.")
    cons.add_argument("--tenant", default=None, help="only this tenant (default: every tenant)")
    cons.add_argument("--user", default=None, help="only this user (default: every user)")
    cons.add_argument("--data-dir", default=None, help=DATA_DIR_HELP)
    cons.set_defaults(func=cmd_consolidate)
    tune = sub.add_parser("tune", help="re-tune the ranking weights from feedback; report by category")
    tune.add_argument("--tenant", default=None, help="only this tenant (default: every tenant)")
    tune.add_argument("--data-dir", default=None, help=DATA_DIR_HELP)
    tune.set_defaults(func=cmd_tune)
    reembed = sub.add_parser("reembed", help="re-embed every memory with the configured embedder",
                             description="Re-embed every memory with the configured embedder (after a model "
                                         "change). Idempotent: a run that stops half-way is simply run again.")
    reembed.add_argument("--target-index", default=None,
                         help="AWS: write into this new OpenSearch index (when the dimension changes)")
    reembed.add_argument("--data-dir", default=None, help=DATA_DIR_HELP)
    reembed.set_defaults(func=cmd_reembed)
    apikey = sub.add_parser("apikey", help="AWS: issue a tenant API key, or revoke one read from stdin")
    apikey.add_argument("action", choices=["create", "revoke"],
                        help="create: print a new key for --tenant (shown once); revoke: the key read from stdin")
    apikey.add_argument("--tenant", default=None, help="the tenant the new key names (create)")
    apikey.set_defaults(func=cmd_apikey)
    mcp = sub.add_parser("mcp", help="the MCP server over stdio (desktop and IDE clients), calling a mnemo server; "
                         "the API key is read from $MNEMO_API_KEY")
    mcp.add_argument("--url", default=os.environ.get("MNEMO_URL", "http://127.0.0.1:8080"),
                     help="the mnemo server (default: $MNEMO_URL or http://127.0.0.1:8080)")
    mcp.add_argument("--user-id", default=os.environ.get("MNEMO_USER_ID") or None,
                     help="bind the tools to this user (default: $MNEMO_USER_ID); without it every tool takes user_id")
    mcp.set_defaults(func=cmd_mcp)
    bench = sub.add_parser("bench", help="run the benchmarks (tests/bench)",
                           description="Run the benchmarks of a source checkout (tests/bench/run_all.py).")
    bench.add_argument("rest", nargs=argparse.REMAINDER, metavar="NAME",
                       help="benchmarks to run (default: all): " + ", ".join(BENCHMARKS))
    bench.set_defaults(func=cmd_bench)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.func(args))
    except MnemoError as exc:
        print(f"mnemo: {exc.message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
