"""Cold-start wiring shared by the handlers: settings validated once, service and resolver built once.

Nothing here runs on import: the first invocation builds everything (a test can set the
environment first), and later invocations of a warm function reuse it.
"""

from __future__ import annotations

import os
import time
from functools import cache
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from mnemo.api.app import create_app
from mnemo.bootstrap import Mnemo, build
from mnemo.services.retrieval import RetrieveResult
from mnemo.settings import Settings

# the logger never gets request bodies or memory content: only ids, counts and timings
logger = Logger(service="mnemo", log_uncaught_exceptions=True)
metrics = Metrics(namespace="mnemo", service="mnemo")
# X-Ray: off outside Lambda (POWERTOOLS_TRACE_DISABLED), patches boto3 so every AWS call is a subsegment
tracer = Tracer(service="mnemo")


@cache
def settings() -> Settings:
    return Settings.from_env(os.environ)


@cache
def service() -> Mnemo:
    built = build(settings())
    built.retriever.observers.append(record_retrieval)
    return built


def record_retrieval(result: RetrieveResult) -> None:
    """Per-stage latency and what was injected, as metrics; ids and timings only on the trace."""
    for stage, ms in result.timings_ms.items():
        metrics.add_metric(name=f"RetrieveStage_{stage}", unit=MetricUnit.Milliseconds, value=ms)
    metrics.add_metric(name="MemoriesInjected", unit=MetricUnit.Count, value=len(result.memories))
    metrics.add_metric(name="MemoryTokens", unit=MetricUnit.Count, value=result.tokens)
    metrics.add_metric(name=f"RetrieveDecision_{result.decision}", unit=MetricUnit.Count, value=1)
    tracer.put_annotation(key="decision", value=result.decision)
    tracer.put_metadata(key="timings_ms", value=result.timings_ms)


@cache
def resolver() -> APIGatewayHttpResolver:
    return create_app(service())


def serve(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Resolve one API Gateway event and record its latency and outcome (never its content)."""
    started = time.perf_counter()
    response = resolver().resolve(event, context)
    status = int(response.get("statusCode", 500))
    metrics.add_metric(name="RequestLatency", unit=MetricUnit.Milliseconds,
                       value=(time.perf_counter() - started) * 1000)
    metrics.add_metric(name=f"Responses{status // 100}xx", unit=MetricUnit.Count, value=1)
    return response
