"""Scheduled maintenance (EventBridge): consolidation and offline tuning for every tenant.

With few users the job runs here; past ``MNEMO_CONSOLIDATE_INLINE_USERS`` it fans out: one SQS
message per user to the consolidation queue, which this same function consumes (batch processing
with partial failures). Each user's run is idempotent, so a retried message is harmless.

SQS may refuse single entries of a batch (``Failed``) while accepting the rest: those are sent
again, and a run that still cannot queue every user fails, so EventBridge's invocation is retried
and, past its retries, lands in the consolidation DLQ (the function's on-failure destination).
"""

from __future__ import annotations

import json
import time
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.common.runtime import logger, metrics, service, settings, tracer, warm_up
from mnemo.errors import BackendUnavailable

SEND_ATTEMPTS = 3

processor = BatchProcessor(event_type=EventType.SQS)
warm_up(service)  # the model loads only if a cluster needs a summary embedded


def consolidate_user(record: SQSRecord) -> None:
    body = json.loads(record.body)
    service().caches.drop_erased()  # each job checks afresh what another function may have erased
    report = service().consolidator.run_user(body["tenant_id"], body["user_id"])
    metrics.add_metric(name="ConsolidationChanges", unit=MetricUnit.Count, value=report.total())


def run_schedule(sqs: Any = None, job: str = "all") -> dict[str, Any]:
    """``job``: "consolidate", "tune" (the two EventBridge rules) or "all"."""
    mnemo = service()
    mnemo.caches.drop_erased()
    fanned, inline, tuned = 0, 0, 0
    for tenant_id in mnemo.ports.memories.tenants():
        if job in ("tune", "all"):
            mnemo.tuner.run(tenant_id)
            tuned += 1
        if job == "tune":
            continue
        users = mnemo.ports.memories.users(tenant_id)
        if len(users) <= settings().consolidate_inline_users or not settings().consolidate_queue_url:
            mnemo.consolidator.run(tenant_id)
            inline += len(users)
        else:
            import boto3

            client = sqs or boto3.client("sqs", region_name=settings().aws_region)
            for start in range(0, len(users), 10):
                send_batch(client, settings().consolidate_queue_url, [
                    {"Id": str(i), "MessageBody": json.dumps({"tenant_id": tenant_id, "user_id": user})}
                    for i, user in enumerate(users[start:start + 10])])
            fanned += len(users)
    metrics.add_metric(name="TenantsTuned", unit=MetricUnit.Count, value=tuned)
    metrics.add_metric(name="ConsolidationUsersInline", unit=MetricUnit.Count, value=inline)
    metrics.add_metric(name="ConsolidationUsersFannedOut", unit=MetricUnit.Count, value=fanned)
    return {"inline": inline, "fanned_out": fanned}


def send_batch(client: Any, queue_url: str, entries: list[dict[str, str]]) -> None:
    """Send every entry or raise: the entries SQS lists as ``Failed`` are sent again (a sender fault,
    such as a malformed entry, cannot succeed later and fails at once)."""
    pending = entries
    for attempt in range(SEND_ATTEMPTS):
        failed = client.send_message_batch(QueueUrl=queue_url, Entries=pending).get("Failed", [])
        if not failed:
            return
        metrics.add_metric(name="ConsolidationSendFailed", unit=MetricUnit.Count, value=len(failed))
        if any(f.get("SenderFault") for f in failed):
            break
        refused = {f["Id"] for f in failed}
        pending = [e for e in pending if e["Id"] in refused]
        time.sleep(0.2 * 2 ** attempt)
    codes = sorted({str(f.get("Code")) for f in failed})
    logger.error("consolidation messages could not be queued", extra={"count": len(failed), "codes": codes})
    raise BackendUnavailable(f"{len(failed)} consolidation messages could not be queued ({', '.join(codes)})")


@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    if "Records" in event:  # the fan-out queue
        return process_partial_response(event=event, record_handler=consolidate_user, processor=processor,
                                        context=context)
    job = str(event.get("job", "all"))  # the rule's input names the job
    if job not in ("all", "consolidate", "tune"):
        metrics.add_metric(name="ScheduledJobRejected", unit=MetricUnit.Count, value=1)
        raise ValueError(f"unknown scheduled job {job!r}")
    return run_schedule(job=job)
