"""A worker driven step by step, for testing interleavings of turns, closes, deliveries, redeliveries and
crashes in both homes without threads or sleeps (issue 17).

The worker's moments are explicit: ``fetch`` is the poll that hands it copies of jobs (SQLite's due
rows, SQS's messages), ``process`` runs one of them, and whatever must happen *inside* the
extraction (between reading the buffer and acknowledging it) is handed to the extractor, which runs
it when the worker calls it. A crash is an exception no handler catches (the process is gone: no
lease is handed back); ``timeouts_pass`` moves the manual clock past the lease and the retry delay
and, in AWS, makes the messages in flight visible again, as SQS does after the visibility timeout.

The record: every extractor call with the message ids it saw, and whether the worker that made it
died before acknowledging them. "Every turn extracted exactly once" means each posted message id is
in exactly one call whose worker went on to acknowledge it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from mnemo.bootstrap import Mnemo
from mnemo.clock import ManualClock
from mnemo.domain.extraction import Extraction, RuleBasedExtractor
from mnemo.domain.models import Message
from mnemo.ports import ExtractionJob
from mnemo.services.extraction import ExtractionReport
from mnemo.services.ingest import IncomingMessage

# one fact each, in slots of their own (likes: many values), so every turn leaves a memory of its own
LIKES = ["hiking", "jazz music", "Thai food", "painting", "chess", "sailing", "pottery", "opera", "sushi",
         "gardening", "astronomy", "tango"]


class WorkerDied(BaseException):  # not an Exception: no handler in the code may catch it
    """The worker process stops here (kill -9, a Lambda timeout): nothing after this line runs."""


@dataclass
class Call:
    message_ids: list[str]
    acknowledged: bool = True  # False when its worker died before acknowledging what it saw


class ScriptedExtractor:
    """The rule-based extractor (or none, for speed), recording what it saw, running the steps that a
    test plans for the moment a worker is inside an extraction."""

    name = "scripted"
    version = "1"

    def __init__(self, learn: bool) -> None:
        self._rules = RuleBasedExtractor() if learn else None
        self.calls: list[Call] = []
        self.during: list[Callable[[], object]] = []  # run, in order, at the next call
        self.die = False  # the next call kills the worker after running ``during``
        self.fail = False  # the next call raises an ordinary error after running ``during``

    def extract(self, messages: Sequence[Message]) -> Extraction:
        self.calls.append(Call([m.message_id for m in messages]))
        # this call's plan; a worker started by a step (another delivery) finds none
        steps, die, fail = self.during, self.die, self.fail
        self.during, self.die, self.fail = [], False, False
        for step in steps:
            step()
        if die:
            raise WorkerDied
        if fail:
            raise RuntimeError("the model timed out")
        return self._rules.extract(messages) if self._rules else Extraction()


class DyingQueue:
    """The queue as the worker sees it, except that the worker can be made to die just before it
    completes a job (after acknowledging the turns)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.die_before_complete = False

    def complete(self, job: ExtractionJob) -> None:
        if self.die_before_complete:
            self.die_before_complete = False
            raise WorkerDied
        self.inner.complete(job)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class DyingBuffer:
    """The buffer as the worker sees it, except that the worker can be made to die just before it
    acknowledges what it extracted (after the writes)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.die_before_acknowledge = False

    def acknowledge(self, tenant_id: str, user_id: str, conversation_id: str, seqs: Sequence[int]) -> int:
        if self.die_before_acknowledge:
            self.die_before_acknowledge = False
            raise WorkerDied
        result: int = self.inner.acknowledge(tenant_id, user_id, conversation_id, seqs)
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@dataclass
class Harness:
    service: Mnemo
    clock: ManualClock
    tenant: str = "t"
    user: str = "u"
    sqs: Any = None  # the SQS client in the AWS home
    learn: bool = True
    posted: list[str] = field(default_factory=list)
    reports: list[ExtractionReport] = field(default_factory=list)
    inbox: list[ExtractionJob] = field(default_factory=list)  # copies the worker was handed, not yet run
    history: list[ExtractionJob] = field(default_factory=list)  # every copy ever handed over
    _count: int = 0

    def __post_init__(self) -> None:
        self.extractor = ScriptedExtractor(self.learn)
        ports = self.service.ports
        if isinstance(ports.queue, DyingQueue):  # a harness per example over one service
            ports.queue, ports.buffer = ports.queue.inner, ports.buffer.inner  # type: ignore[attr-defined]
        self.queue = DyingQueue(ports.queue)
        self.buffer = DyingBuffer(ports.buffer)
        ports.extractor, ports.queue, ports.buffer = self.extractor, self.queue, self.buffer  # type: ignore[assignment]

    # -- the app
    def say(self, conversation: str, count: int = 1) -> list[str]:
        ids = []
        for _ in range(count):
            self._count += 1
            ids.append(f"{self.tenant}-{conversation}-m{self._count}")
        texts = [f"I love {LIKES[(self._count - count + i) % len(LIKES)]}." for i in range(count)]
        self.service.ingestor.add_turns(self.tenant, self.user, conversation,
                                        [IncomingMessage("user", t, i) for t, i in zip(texts, ids, strict=True)])
        self.posted.extend(ids)
        return ids

    def close(self, conversation: str) -> None:
        self.service.ingestor.close(self.tenant, self.user, conversation)

    # -- the worker
    def fetch(self) -> list[ExtractionJob]:
        """The worker's poll: the copies it is handed now (this tenant's; SQS may hold older tests')."""
        copies = [j for j in self.queue.inner.due(self.clock.now(), 10) if j.tenant_id == self.tenant]
        self.inbox.extend(copies)
        self.history.extend(copies)
        return copies

    def process(self, job: ExtractionJob, *, die_during: bool = False, die_before_ack: bool = False,
                die_before_complete: bool = False, fail: bool = False) -> ExtractionReport | None:
        """Run one copy; None when the worker died (its inbox is gone with it) or the job failed."""
        if job in self.inbox:
            self.inbox.remove(job)
        self.extractor.die, self.extractor.fail = die_during, fail
        self.buffer.die_before_acknowledge, self.queue.die_before_complete = die_before_ack, die_before_complete
        first = len(self.extractor.calls)  # this process's own extractor call, if it makes one, comes next
        try:
            report = self.service.extraction.process(job)
        except WorkerDied:
            if not die_before_complete and len(self.extractor.calls) > first:
                self.extractor.calls[first].acknowledged = False  # it died before acknowledging what it saw
            self.inbox.clear()
            return None
        except RuntimeError:
            if not fail:
                raise
            self.extractor.calls[first].acknowledged = False
            return None
        finally:
            self.extractor.die = self.extractor.fail = False
            self.buffer.die_before_acknowledge = self.queue.die_before_complete = False
        self.reports.append(report)
        return report

    def another_worker(self, job: ExtractionJob) -> ExtractionReport:
        """A second worker runs ``job`` to the end, now (called from inside the first one's extraction)."""
        faults = self.buffer.die_before_acknowledge, self.queue.die_before_complete
        self.buffer.die_before_acknowledge = self.queue.die_before_complete = False  # the first worker's fate
        try:
            report = self.service.extraction.process(job)
        finally:
            self.buffer.die_before_acknowledge, self.queue.die_before_complete = faults
        self.reports.append(report)
        return report

    def run(self, **faults: bool) -> list[ExtractionReport | None]:
        """Fetch and process everything handed over now."""
        return [self.process(job, **faults) for job in self.fetch()]

    def timeouts_pass(self) -> None:
        """Leases and retry delays run out; SQS makes the messages in flight visible again."""
        settings = self.service.settings
        self.clock.advance(seconds=max(settings.extraction_lease_seconds, settings.extraction_retry_seconds) + 1)
        if self.sqs is not None:
            receipts = self.queue.inner._receipts  # the handles of the messages this worker received
            for handles in receipts.values():
                for handle in handles:
                    self.sqs.change_message_visibility(QueueUrl=self.queue.inner._url, ReceiptHandle=handle,
                                                       VisibilityTimeout=0)
            receipts.clear()

    def drain(self, rounds: int = 40) -> None:
        """Time passes and a healthy worker runs whatever is handed to it until nothing is left."""
        self.inbox.clear()  # copies held by a worker that is gone
        for _ in range(rounds):
            self.timeouts_pass()
            if not self.run():
                return
        raise AssertionError("the queue did not drain")

    # -- what happened
    def extracted(self) -> dict[str, int]:
        """Per posted message id: how many acknowledged extractor calls saw it."""
        seen = dict.fromkeys(self.posted, 0)
        for call in self.extractor.calls:
            if call.acknowledged:
                for message_id in call.message_ids:
                    if message_id in seen:
                        seen[message_id] += 1
        return seen

    def pending(self, conversation: str) -> list[str]:
        return [t.message.message_id for t in
                self.buffer.pending(self.tenant, self.user, conversation, 2**62)]

    def live_job(self, conversation: str) -> bool:
        """Whether the conversation still has a job (locally its row; in AWS its JOB# item)."""
        inner = self.queue.inner
        if self.sqs is None:
            far: datetime = self.clock.now() + timedelta(days=365)
            return any(j.tenant_id == self.tenant and j.conversation_id == conversation
                       for j in inner.due(far, 10_000))
        return inner._t.get(f"{self.tenant}#{self.user}", f"JOB#{conversation}") is not None

    def assert_every_turn_extracted_once(self, conversations: Sequence[str] = ("c1", "c2")) -> None:
        counts = self.extracted()
        wrong = {m: n for m, n in counts.items() if n != 1}
        assert not wrong, f"turns not extracted exactly once: {wrong}"
        for conversation in conversations:
            assert self.pending(conversation) == []
            assert not self.live_job(conversation)
        assert self.service.extraction.counters.snapshot()["turns_acknowledged_unextracted"] == 0
