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

from mnemo.errors import MnemoError
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
    from mnemo.serving import ServeOptions, default_workers, serve

    workers = args.workers or default_workers()
    overrides: dict[str, object] = {}
    if args.data_dir:
        overrides["data_dir"] = Path(args.data_dir)
    if "MNEMO_EMBEDDING_THREADS" not in os.environ:
        # one process per core already: more model threads per worker would only fight over the cores
        overrides["embedding_threads"] = max(1, default_workers() // workers)
    settings = Settings.from_env(os.environ, **overrides)
    configure_logging(settings.log_level)
    return serve(settings, ServeOptions(args.host, args.port, workers), lambda line: print(line, flush=True))


def cmd_import(args: argparse.Namespace) -> int:
    from mnemo.services.importer import import_file

    with local_service(args.data_dir) as service:
        summary = import_file(service.writer, service.ports.clock, Path(args.file), tenant_id=args.tenant,
                              default_user=args.user, max_chars=service.settings.max_content_chars,
                              resolve_conflicts=args.resolve_conflicts,
                              progress=lambda done, total: print(f"\rimported {done}/{total}", end="",
                                                                 file=sys.stderr, flush=True))
    print(file=sys.stderr)
    print(json.dumps(summary, indent=2))
    return 0


def cmd_consolidate(args: argparse.Namespace) -> int:
    with local_service(args.data_dir) as service:
        tenants = [args.tenant] if args.tenant else service.ports.memories.tenants()
        for tenant_id in tenants:
            report = service.consolidator.run(
                tenant_id, args.user,
                progress=lambda done, total, _user: print(f"\r{done}/{total} users", end="", file=sys.stderr,
                                                          flush=True))
            print(file=sys.stderr)
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
        report = Reembedder(service.ports, target).run()
        print(json.dumps({"model": service.ports.embedder.model_id, **vars(report)}))
    finally:
        service.close()
    return 0


def cmd_apikey(args: argparse.Namespace) -> int:
    """Issue or revoke a tenant's API key in the AWS home (the authorizer's table)."""
    import boto3

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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mnemo", description="Long-term memory for chat applications")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the local HTTP server on the embedded back end")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8080)
    serve.add_argument("--data-dir", default=None, help="default: $MNEMO_DATA_DIR or ./.mnemo")
    serve.add_argument("--workers", type=int, default=None, help="worker processes (default: the number of cores)")
    serve.set_defaults(func=cmd_serve)
    demo = sub.add_parser("demo", help="a scripted walk through two sessions")
    demo.add_argument("--keep", action="store_true", help="keep the temporary data directory")
    demo.set_defaults(func=cmd_demo)
    imp = sub.add_parser("import", help="import memories from a JSON file")
    imp.add_argument("file")
    imp.add_argument("--tenant", default="default")
    imp.add_argument("--user", default=None, help="user for items that name none")
    imp.add_argument("--resolve-conflicts", action="store_true")
    imp.add_argument("--data-dir", default=None)
    imp.set_defaults(func=cmd_import)
    cons = sub.add_parser("consolidate", help="run consolidation now (TTL, pruning, summaries, the cap)")
    cons.add_argument("--tenant", default=None, help="default: every tenant")
    cons.add_argument("--user", default=None, help="default: every user")
    cons.add_argument("--data-dir", default=None)
    cons.set_defaults(func=cmd_consolidate)
    tune = sub.add_parser("tune", help="re-tune the ranking weights from feedback; report by category")
    tune.add_argument("--tenant", default=None)
    tune.add_argument("--data-dir", default=None)
    tune.set_defaults(func=cmd_tune)
    reembed = sub.add_parser("reembed", help="re-embed every memory with the configured embedder")
    reembed.add_argument("--target-index", default=None,
                         help="AWS: write into this new OpenSearch index (when the dimension changes)")
    reembed.add_argument("--data-dir", default=None)
    reembed.set_defaults(func=cmd_reembed)
    apikey = sub.add_parser("apikey", help="AWS: issue a tenant API key, or revoke one read from stdin")
    apikey.add_argument("action", choices=["create", "revoke"])
    apikey.add_argument("--tenant", default=None)
    apikey.set_defaults(func=cmd_apikey)
    mcp = sub.add_parser("mcp", help="the MCP server over stdio (desktop and IDE clients), calling a mnemo server; "
                         "the API key is read from $MNEMO_API_KEY")
    mcp.add_argument("--url", default=os.environ.get("MNEMO_URL", "http://127.0.0.1:8080"),
                     help="the mnemo server (default: $MNEMO_URL or http://127.0.0.1:8080)")
    mcp.add_argument("--user-id", default=os.environ.get("MNEMO_USER_ID") or None,
                     help="bind the tools to this user (default: $MNEMO_USER_ID); without it every tool takes user_id")
    mcp.set_defaults(func=cmd_mcp)
    bench = sub.add_parser("bench", help="run the benchmarks (tests/bench)")
    bench.add_argument("rest", nargs=argparse.REMAINDER)
    bench.set_defaults(func=cmd_bench)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except MnemoError as exc:
        print(f"mnemo: {exc.message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
