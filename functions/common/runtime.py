"""Cold-start wiring shared by the handlers: settings validated once, service and resolver built once.

In Lambda each handler module calls ``warm_up`` at import, so the service, the resolver and the one
model that function needs are built during initialisation: with provisioned concurrency that is
before any request, and on demand it runs with the init phase's full CPU. Outside Lambda (tests,
the local server) nothing runs on import and the first invocation builds everything, so a test can
set the environment first. Later invocations of a warm function reuse it all.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
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
    if settings().extractor == "bedrock" or settings().conflict_judge == "bedrock":
        from mnemo.adapters.aws.bedrock_extractor import FALLBACK_LISTENERS

        if record_bedrock_fallback not in FALLBACK_LISTENERS:
            FALLBACK_LISTENERS.append(record_bedrock_fallback)
    return built


def record_bedrock_fallback(tool: str, error: str) -> None:
    """Every Bedrock call the rules had to answer for (alarm BedrockFallback); the code goes to the log."""
    metrics.add_metric(name="BedrockFallback", unit=MetricUnit.Count, value=1)
    logger.info("bedrock fallback", extra={"tool": tool, "error": error})


def record_retrieval(result: RetrieveResult) -> None:
    """Per-stage latency and what was injected, as metrics; ids and timings only on the trace."""
    for stage, ms in result.timings_ms.items():
        metrics.add_metric(name=f"RetrieveStage_{stage}", unit=MetricUnit.Milliseconds, value=ms)
    metrics.add_metric(name="MemoriesInjected", unit=MetricUnit.Count, value=len(result.memories))
    metrics.add_metric(name="MemoryTokens", unit=MetricUnit.Count, value=result.tokens)
    metrics.add_metric(name=f"RetrieveDecision_{result.decision}", unit=MetricUnit.Count, value=1)
    tracer.put_annotation(key="decision", value=result.decision)
    tracer.put_metadata(key="timings_ms", value=result.timings_ms)


def in_lambda() -> bool:
    return bool(os.environ.get("AWS_LAMBDA_FUNCTION_NAME"))


def warm_up(*steps: Callable[[], object]) -> None:
    """Run ``steps`` now if this is a Lambda initialisation. A failing step is logged, not raised: the
    function still starts, and the first request runs the step again (the builders cache successes only)."""
    if not in_lambda():
        return
    for step in steps:
        try:
            step()
        except Exception:
            logger.exception("warm-up step failed; the first request retries it",
                             extra={"step": getattr(step, "__name__", "step")})


def load_query_model() -> None:
    service().ports.embedder.embed_queries(["warm-up"])


def load_search_model() -> None:
    service().ports.embedder.embed_search_queries(["warm-up"])


def load_document_model() -> None:
    service().ports.embedder.embed(["warm-up"])


@cache
def resolver() -> APIGatewayHttpResolver:
    return create_app(service())


def serve(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Resolve one API Gateway event and record its latency and outcome (never its content)."""
    started = time.perf_counter()
    service().caches.drop_erased()  # what another function erased since (mnemo.services.user_caches)
    response = resolver().resolve(event, context)
    status = int(response.get("statusCode", 500))
    metrics.add_metric(name="RequestLatency", unit=MetricUnit.Milliseconds,
                       value=(time.perf_counter() - started) * 1000)
    metrics.add_metric(name=f"Responses{status // 100}xx", unit=MetricUnit.Count, value=1)
    return response
