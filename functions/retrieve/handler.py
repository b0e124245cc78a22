"""The hot path: retrieve and search (API Gateway HTTP API, payload v2)."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.common.runtime import (
    load_query_model,
    load_search_model,
    logger,
    metrics,
    resolver,
    serve,
    tracer,
    warm_up,
)

# the query twin and search's encoder (search is routed here too): retrieve never embeds a document
warm_up(resolver, load_query_model, load_search_model)


@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return serve(event, context)
