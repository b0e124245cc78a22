"""The memories routes of the HTTP API (API Gateway HTTP API, payload v2), over the shared resolver."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.common.runtime import (
    load_document_model,
    load_query_model,
    logger,
    metrics,
    resolver,
    serve,
    tracer,
    warm_up,
)

# remember and import embed documents, search embeds queries
warm_up(resolver, load_query_model, load_document_model)


@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return serve(event, context)
