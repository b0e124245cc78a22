"""SQS batches that end inside the function's time, and records that come back soon, not in 12 minutes.

A queue's visibility timeout is six times its consumer's timeout (720 s for extract), so a record
reported failed waits that long before its retry. Two cases deserve better:
- the function is running out of time: records not yet started are handed back at once (visibility
  0) instead of being started and cut off, which would fail the whole batch;
- a record was throttled (DynamoDB, KMS): it comes back after a short, jittered pause.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from functions.common.runtime import logger, settings

# jittered pause before a throttled record is retried
THROTTLED_RETRY_SECONDS = (20, 60)


class OutOfTime(Exception):
    """Not enough of the invocation left to process one more record."""


class Deadline:
    """``budget_ms``: what one record may take at worst (its clients' timeouts times their attempts)."""

    def __init__(self, context: Any, budget_ms: int) -> None:
        self._remaining = getattr(context, "get_remaining_time_in_millis", None)
        self.budget_ms = budget_ms

    def check(self) -> None:
        if self._remaining is not None and self._remaining() < self.budget_ms:
            raise OutOfTime(f"less than {self.budget_ms} ms left")


@cache
def _sqs() -> Any:
    import boto3

    return boto3.client("sqs", region_name=settings().aws_region)


def come_back_in(record: SQSRecord, queue_url: str, seconds: int, client: Any = None) -> None:
    """Shorten the record's visibility (best effort: if this fails it returns after the queue's timeout)."""
    if not queue_url:
        return  # the embedded back end in tests: no queue behind the record
    try:
        (client or _sqs()).change_message_visibility(QueueUrl=queue_url, ReceiptHandle=record.receipt_handle,
                                                     VisibilityTimeout=seconds)
    except Exception as exc:
        logger.warning("could not shorten a record's visibility", extra={"error": type(exc).__name__})


def throttled_pause() -> int:
    return random.randint(*THROTTLED_RETRY_SECONDS)  # noqa: S311 - jitter, not a secret
