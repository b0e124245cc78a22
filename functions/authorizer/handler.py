"""The HTTP API's Lambda authorizer: `Authorization: Bearer <key>` -> the tenant (simple responses).

The tenant travels to the functions as ``requestContext.authorizer.lambda.tenant_id``; nothing in a
path or a body can name it. API Gateway caches a decision per key for the configured TTL, so a key
costs one DynamoDB read every few minutes, not one per request.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import boto3
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.common.runtime import logger, metrics, settings, tracer
from mnemo.adapters.aws.api_keys import DynamoApiKeys
from mnemo.adapters.aws.dynamo_state import DynamoTable
from mnemo.errors import BackendUnavailable


@cache
def api_keys() -> DynamoApiKeys:
    return DynamoApiKeys(DynamoTable(boto3.client("dynamodb", region_name=settings().aws_region),
                                     settings().state_table))


def presented_key(event: dict[str, Any]) -> str | None:
    headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
    value = str(headers.get("authorization", ""))
    scheme, _, key = value.partition(" ")
    return key.strip() if scheme.lower() == "bearer" and key.strip() else None


@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    key = presented_key(event)
    try:
        tenant = api_keys().tenant_for(key) if key else None
    except BackendUnavailable:
        # deny rather than fail open; API Gateway answers 403 and the client retries
        logger.warning("authorizer could not read the key table")
        tenant = None
    metrics.add_metric(name="AuthorizerAllowed" if tenant else "AuthorizerDenied", unit=MetricUnit.Count, value=1)
    if tenant is None:
        return {"isAuthorized": False}
    return {"isAuthorized": True, "context": {"tenant_id": tenant}}
