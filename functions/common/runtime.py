"""Cold-start wiring shared by the handlers: settings validated once, service and resolver built once.

Nothing here runs on import: the first invocation builds everything (a test can set the
environment first), and later invocations of a warm function reuse it.
"""

from __future__ import annotations

import os
import time
from functools import cache
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from mnemo.api.app import create_app
from mnemo.bootstrap import Mnemo, build
from mnemo.settings import Settings

# the logger never gets request bodies or memory content: only ids, counts and timings
logger = Logger(service="mnemo", log_uncaught_exceptions=True)
metrics = Metrics(namespace="mnemo", service="mnemo")


@cache
def settings() -> Settings:
    return Settings.from_env(os.environ)


@cache
def service() -> Mnemo:
    return build(settings())


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
