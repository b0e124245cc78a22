"""The debounce queue on SQS (DESIGN.md section 4).

Scheduling writes the conversation's current job (highest buffered seq and its due time) to
DynamoDB and sends an SQS message with DelaySeconds until the job is due (at most 15 minutes,
SQS's limit). Every newer turn overtakes: the consumer asks ``is_current`` and drops a message
whose job is no longer the conversation's current one, so only the last message of a burst
extracts. Redelivery is harmless: a completed job is gone, and the write path is idempotent.
"""

from __future__ import annotations

import json
import threading
from datetime import datetime
from typing import Any

from mnemo.adapters.aws.dynamo_state import DynamoTable, pk
from mnemo.adapters.aws.errors import aws_errors
from mnemo.clock import Clock, iso
from mnemo.ports import ExtractionJob

MAX_DELAY_SECONDS = 900


def job_to_body(job: ExtractionJob) -> str:
    return json.dumps({"tenant_id": job.tenant_id, "user_id": job.user_id, "conversation_id": job.conversation_id,
                       "up_to_seq": job.up_to_seq, "due_at": iso(job.due_at)})


def job_from_body(body: str) -> ExtractionJob:
    data = json.loads(body)
    return ExtractionJob(data["tenant_id"], data["user_id"], data["conversation_id"], int(data["up_to_seq"]),
                         datetime.fromisoformat(data["due_at"]))


class SqsExtractionQueue:
    def __init__(self, sqs: Any, queue_url: str, table: DynamoTable, clock: Clock) -> None:
        self._sqs = sqs
        self._url = queue_url
        self._t = table
        self._clock = clock
        self._receipts: dict[tuple[str, str, str, int], str] = {}
        self._lock = threading.Lock()

    def schedule(self, job: ExtractionJob) -> None:
        # a late writer with an older seq never replaces a newer job
        if not self._t.put_if(
                {"pk": {"S": pk(job.tenant_id, job.user_id)}, "sk": {"S": f"JOB#{job.conversation_id}"},
                 "up_to_seq": {"N": str(job.up_to_seq)}, "due_at": {"S": iso(job.due_at) or ""}},
                "attribute_not_exists(up_to_seq) OR up_to_seq <= :seq", values={":seq": {"N": str(job.up_to_seq)}}):
            return
        delay = int(max(0.0, min(MAX_DELAY_SECONDS, (job.due_at - self._clock.now()).total_seconds())))
        with aws_errors("SQS"):
            self._sqs.send_message(QueueUrl=self._url, MessageBody=job_to_body(job), DelaySeconds=delay)

    def due(self, now: datetime, limit: int) -> list[ExtractionJob]:
        """Poll (tests, a local runner); in AWS the extract Lambda gets the messages pushed."""
        with aws_errors("SQS"):
            messages = self._sqs.receive_message(QueueUrl=self._url, MaxNumberOfMessages=max(1, min(10, limit)),
                                                 WaitTimeSeconds=0).get("Messages", [])
        jobs = []
        for message in messages:
            job = job_from_body(message["Body"])
            with self._lock:
                self._receipts[(job.tenant_id, job.user_id, job.conversation_id, job.up_to_seq)] = \
                    message["ReceiptHandle"]
            jobs.append(job)
        return jobs

    def is_current(self, job: ExtractionJob) -> bool:
        item = self._t.get(pk(job.tenant_id, job.user_id), f"JOB#{job.conversation_id}")
        return item is not None and int(item["up_to_seq"]["N"]) == job.up_to_seq \
            and item["due_at"]["S"] == iso(job.due_at)

    def complete(self, job: ExtractionJob) -> None:
        # only this job: a newer one scheduled meanwhile stays
        self._t.delete_if(pk(job.tenant_id, job.user_id), f"JOB#{job.conversation_id}", "up_to_seq = :seq",
                          values={":seq": {"N": str(job.up_to_seq)}})
        with self._lock:
            receipt = self._receipts.pop((job.tenant_id, job.user_id, job.conversation_id, job.up_to_seq), None)
        if receipt:
            with aws_errors("SQS"):
                self._sqs.delete_message(QueueUrl=self._url, ReceiptHandle=receipt)
