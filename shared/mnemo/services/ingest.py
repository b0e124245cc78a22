"""Turns in: redact, buffer, schedule the debounced extraction. Never extracts on the request path."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from mnemo.clock import to_utc
from mnemo.domain.models import BufferedTurn, Message
from mnemo.domain.sensitive import redact_together
from mnemo.errors import InvalidInput
from mnemo.ports import ExtractionJob
from mnemo.services.context import Ports
from mnemo.services.sessions import SessionService


@dataclass(frozen=True)
class IncomingMessage:
    role: str
    content: str
    message_id: str | None = None
    created_at: datetime | None = None


@dataclass(frozen=True)
class IngestResult:
    accepted: int
    pending: int


@dataclass(frozen=True)
class CloseResult:
    """What a close handed to extraction: the user turns queued (counted like ``IngestResult.pending``; the
    assistant's replies go along as their context) and when the job is due (None: nothing was pending)."""

    queued: int
    due_at: datetime | None


class Ingestor:
    def __init__(self, ports: Ports, sessions: SessionService) -> None:
        self.p = ports
        self.sessions = sessions

    def add_turns(self, tenant_id: str, user_id: str, conversation_id: str, messages: Sequence[IncomingMessage],
                  project_id: str | None = None) -> IngestResult:
        if not self.p.user_settings.get(tenant_id, user_id).memory_enabled:
            return IngestResult(accepted=0, pending=0)  # memory off: nothing is kept, not even the buffer
        now = self.p.clock.now()
        latest = now + timedelta(seconds=self.p.settings.max_clock_skew_seconds)
        if any(m.created_at is not None and to_utc(m.created_at) > latest for m in messages):
            raise InvalidInput("created_at must not be in the future", details={"field": "created_at"})
        turns = []
        # the sensitive value is never written, not even to the short-lived buffer; the messages of a
        # turn are screened together (a card split over two of them, a password asked and answered)
        contents = redact_together([m.content for m in messages])
        for m, content in zip(messages, contents, strict=True):
            message_id = m.message_id or uuid.uuid4().hex
            turns.append(BufferedTurn(
                tenant_id=tenant_id, user_id=user_id, conversation_id=conversation_id, project_id=project_id,
                seq=0, message=Message(role=m.role, content=content, message_id=message_id,
                                       created_at=to_utc(m.created_at) if m.created_at else now)))
        result = self.p.buffer.append(turns, now)
        if result.accepted:
            fresh = [t.message for t in turns if t.message.message_id not in set(result.dropped)]
            self.sessions.record_turns(tenant_id, user_id, conversation_id, fresh)
        # a request whose turns were all buffered already is a client's retry, maybe after a failure
        # between buffering and scheduling: scheduling again is what makes sure those turns get a job
        if result.accepted or (result.dropped and result.pending):
            due = now if result.pending >= self.p.settings.debounce_turns else now + timedelta(
                seconds=self.p.settings.debounce_quiet_seconds)
            self.p.queue.schedule(ExtractionJob(tenant_id, user_id, conversation_id, result.last_seq, due))
        return IngestResult(accepted=result.accepted, pending=result.pending)

    def close(self, tenant_id: str, user_id: str, conversation_id: str) -> CloseResult:
        """Session end: whatever is pending is extracted now."""
        pending = self.p.buffer.pending(tenant_id, user_id, conversation_id, up_to_seq=2**62)
        if not pending:
            return CloseResult(queued=0, due_at=None)
        now = self.p.clock.now()
        self.p.queue.schedule(ExtractionJob(tenant_id, user_id, conversation_id, pending[-1].seq, now))
        return CloseResult(queued=sum(1 for turn in pending if turn.message.role == "user"), due_at=now)
