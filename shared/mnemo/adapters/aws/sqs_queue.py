"""The debounce queue on SQS (DESIGN.md section 4), with the conversation's job in DynamoDB.

Scheduling writes the conversation's current job to the ``JOB#<conversation>`` item (the highest
scheduled seq, the due time and a fresh ``schedule_id``: its generation), then sends an SQS message
carrying that job with DelaySeconds until it is due (at most 15 minutes, SQS's limit). Every newer
schedule overtakes: a delivered copy whose ``schedule_id`` is no longer the item's is stale and
dropped, so only the last message of a burst extracts.

Every change to the item is conditional on the copy's own ids, so an old copy can never remove or
unlock a newer one: ``claim`` takes the conversation's lease only for the current generation and
only when no live lease holds it; ``complete`` deletes the item only if it is still that
generation (otherwise it hands the lease back, and the newer generation's own message runs it).
A message that fails is redelivered by SQS; a worker that died leaves a lease that runs out.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any

from mnemo.adapters.aws.dynamo_state import DynamoTable, pk
from mnemo.adapters.aws.errors import aws_errors
from mnemo.clock import Clock, iso
from mnemo.errors import BackendUnavailable
from mnemo.ports import Claim, ExtractionJob

MAX_DELAY_SECONDS = 900
SCHEDULE_ROUNDS = 8  # each round is lost only to another schedule of the same conversation landing between


def job_to_body(job: ExtractionJob) -> str:
    return json.dumps({"tenant_id": job.tenant_id, "user_id": job.user_id, "conversation_id": job.conversation_id,
                       "up_to_seq": job.up_to_seq, "due_at": iso(job.due_at), "schedule_id": job.schedule_id})


def job_from_body(body: str) -> ExtractionJob:
    data = json.loads(body)
    return ExtractionJob(data["tenant_id"], data["user_id"], data["conversation_id"], int(data["up_to_seq"]),
                         datetime.fromisoformat(data["due_at"]), str(data.get("schedule_id", "")))


def _this_copy(job: ExtractionJob, attribute: str = "schedule_id") -> tuple[str, dict[str, Any]]:
    """The condition "the item's <attribute> is this copy's id" (an item written before ids existed
    has none, and matches a message that carries none)."""
    if not job.schedule_id:
        return f"attribute_not_exists({attribute})", {}
    return f"{attribute} = :id", {":id": {"S": job.schedule_id}}


class SqsExtractionQueue:
    def __init__(self, sqs: Any, queue_url: str, table: DynamoTable, clock: Clock) -> None:
        self._sqs = sqs
        self._url = queue_url
        self._t = table
        self._clock = clock
        # receipts of the messages ``due`` received (polling); the Lambda's event source deletes its own
        self._receipts: dict[ExtractionJob, list[str]] = defaultdict(list)
        self._lock = threading.Lock()

    def _key(self, job: ExtractionJob) -> tuple[str, str]:
        return pk(job.tenant_id, job.user_id), f"JOB#{job.conversation_id}"

    def schedule(self, job: ExtractionJob) -> None:
        owner, sk = self._key(job)
        values = {":seq": {"N": str(job.up_to_seq)}, ":due": {"S": iso(job.due_at) or ""},
                  ":id": {"S": uuid.uuid4().hex}}
        for _ in range(SCHEDULE_ROUNDS):
            # the job's seq never goes down: ours if it is at least the live one's ...
            item = self._t.update_if(owner, sk, "SET up_to_seq = :seq, due_at = :due, schedule_id = :id",
                                     "attribute_not_exists(up_to_seq) OR up_to_seq <= :seq", values=values)
            if item is None:  # ... else the live (higher) one, with our due time and a new generation
                item = self._t.update_if(owner, sk, "SET due_at = :due, schedule_id = :id", "up_to_seq > :seq",
                                         values=values)
            if item is not None:
                break
        else:
            raise BackendUnavailable("the extraction job could not be scheduled (too much contention)")
        scheduled = ExtractionJob(job.tenant_id, job.user_id, job.conversation_id, int(item["up_to_seq"]["N"]),
                                  job.due_at, values[":id"]["S"])
        self._send(scheduled, job.due_at)

    def _send(self, job: ExtractionJob, at: datetime) -> None:
        delay = int(max(0.0, min(MAX_DELAY_SECONDS, (at - self._clock.now()).total_seconds())))
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
                self._receipts[job].append(message["ReceiptHandle"])
            jobs.append(job)
        return jobs

    def claim(self, job: ExtractionJob, now: datetime, lease: timedelta) -> Claim:
        owner, sk = self._key(job)
        same, values = _this_copy(job)
        values = {**values, ":me": {"S": job.schedule_id}, ":now": {"S": iso(now) or ""},
                  ":until": {"S": iso(now + lease) or ""}}
        if self._t.update_if(owner, sk, "SET claimed_id = :me, claimed_until = :until",
                             f"{same} AND attribute_exists(up_to_seq) AND "
                             "(attribute_not_exists(claimed_until) OR claimed_until <= :now)", values=values):
            return Claim.CLAIMED
        item = self._t.get(owner, sk)
        if item is None or item.get("schedule_id", {}).get("S", "") != job.schedule_id:
            return Claim.STALE
        return Claim.BUSY

    def complete(self, job: ExtractionJob) -> None:
        owner, sk = self._key(job)
        same, values = _this_copy(job)
        if not self._t.delete_if(owner, sk, same, values=values or None):
            self._hand_back(job)  # a newer generation stays, and its own message will run it
        self._forget(job)

    def release(self, job: ExtractionJob, retry_at: datetime) -> None:
        """The message is not deleted: SQS delivers it again after its visibility timeout."""
        self._hand_back(job)

    def defer(self, job: ExtractionJob, at: datetime) -> None:
        self._send(job, at)
        self._forget(job)

    def drop(self, job: ExtractionJob) -> None:
        self._forget(job)

    def _hand_back(self, job: ExtractionJob) -> None:
        owner, sk = self._key(job)
        self._t.update_if(owner, sk, "REMOVE claimed_id, claimed_until", "claimed_id = :me",
                          values={":me": {"S": job.schedule_id}})

    def _forget(self, job: ExtractionJob) -> None:
        with self._lock:
            receipts = self._receipts.get(job)
            receipt = receipts.pop(0) if receipts else None
            if receipts == []:
                del self._receipts[job]
        if receipt:
            with aws_errors("SQS"):
                self._sqs.delete_message(QueueUrl=self._url, ReceiptHandle=receipt)
