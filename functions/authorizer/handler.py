"""The HTTP API's Lambda authorizer: `Authorization: Bearer <key>` -> the tenant (simple responses).

The tenant travels to the functions as ``requestContext.authorizer.lambda.tenant_id``; nothing in a
path or a body can name it. API Gateway caches a decision per key for the configured TTL, so a key
costs one DynamoDB read every few minutes, not one per request.

Because a denial is cached too, only an unknown key is denied. When the table cannot be read the
invocation fails instead: API Gateway answers that request 500 and caches nothing, so a DynamoDB
blip costs the requests made during it, not five minutes of a valid key. It never fails open.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import boto3
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.common.runtime import logger, metrics, settings, tracer, warm_up
from mnemo.adapters.aws.api_keys import DynamoApiKeys
from mnemo.adapters.aws.dynamo_state import DynamoTable
from mnemo.errors import BackendUnavailable, Throttled


@cache
def api_keys() -> DynamoApiKeys:
    return DynamoApiKeys(DynamoTable(boto3.client("dynamodb", region_name=settings().aws_region),
                                     settings().state_table))


warm_up(api_keys)  # at initialisation, in Lambda only (functions/common/runtime.py)


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
    except (BackendUnavailable, Throttled) as exc:
        # neither allow nor deny: a raised error is not cached (a denial would be, for the whole TTL)
        metrics.add_metric(name="AuthorizerError", unit=MetricUnit.Count, value=1)
        logger.error("authorizer could not read the key table", extra={"error": type(exc).__name__})
        raise
    metrics.add_metric(name="AuthorizerAllowed" if tenant else "AuthorizerDenied", unit=MetricUnit.Count, value=1)
    if tenant is None:
        return {"isAuthorized": False}
    return {"isAuthorized": True, "context": {"tenant_id": tenant}}
