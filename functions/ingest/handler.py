"""Turns and conversation close: buffer and schedule the debounced extraction (HTTP API, payload v2)."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.common.runtime import logger, metrics, resolver, serve, tracer, warm_up

# no model: ingest buffers turns and schedules extraction, it never embeds
warm_up(resolver)


@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return serve(event, context)
