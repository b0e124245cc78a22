"""Steps the extraction tests share: the local home with the learned extractor on a manual clock, a user's message
said a day after the last with its conversation closed and extracted, and what the extractor keeps of one message."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from mnemo.bootstrap import Mnemo, build_local, run_due_jobs
from mnemo.clock import ManualClock
from mnemo.domain.extraction.candidates import Candidate
from mnemo.domain.extraction.pipeline import LearnedExtractor
from mnemo.domain.models import Message, Status
from mnemo.services.ingest import IncomingMessage
from mnemo.settings import Settings


@contextmanager
def learned_home(data_dir: Path) -> Iterator[Mnemo]:
    """The local home with the learned extractor, its clock at 2026-03-01 09:00 UTC."""
    built = build_local(Settings(data_dir=data_dir, extractor="learned"),
                        clock=ManualClock(datetime(2026, 3, 1, 9, tzinfo=UTC)))
    try:
        yield built
    finally:
        built.close()


def kept(extractor: LearnedExtractor, text: str) -> list[Candidate]:
    """Every fact the extractor keeps of one user message said on 2026-05-01 (an ended value shares its subject
    with the value said)."""
    message = Message(role="user", content=text, message_id="m1", created_at=datetime(2026, 5, 1, tzinfo=UTC))
    return extractor.extract([message]).accepted


def stored(extractor: LearnedExtractor, text: str) -> dict[str, str]:
    """The facts the extractor keeps of one user message said on 2026-05-01, by subject."""
    return {c.subject: c.content for c in kept(extractor, text)}


def say_next_day(service: Mnemo, tenant: str, user: str, conversation: str, text: str,
                 project_id: str | None = None) -> None:
    clock = service.ports.clock
    assert isinstance(clock, ManualClock)
    clock.set(clock.now() + timedelta(days=1))
    service.ingestor.add_turns(tenant, user, conversation,
                               [IncomingMessage(role="user", content=text, created_at=clock.now())],
                               project_id=project_id)
    service.ingestor.close(tenant, user, conversation)
    run_due_jobs(service)


def say_in_one_session(service: Mnemo, tenant: str, user: str, conversation: str, texts: list[str]) -> None:
    """The texts as the turns of one session a day on, a minute apart, read by one extraction job when it closes."""
    clock = service.ports.clock
    assert isinstance(clock, ManualClock)
    clock.set(clock.now() + timedelta(days=1))
    for text in texts:
        clock.set(clock.now() + timedelta(minutes=1))
        service.ingestor.add_turns(tenant, user, conversation,
                                   [IncomingMessage(role="user", content=text, created_at=clock.now())])
    service.ingestor.close(tenant, user, conversation)
    run_due_jobs(service)


def live_facts(service: Mnemo, tenant: str, user: str, slot: str) -> list[str]:
    """The user's facts of a slot that hold now: live, active and stated (no ended value)."""
    now = service.ports.clock.now()
    return [m.content for m in service.ports.memories.all_for_user(tenant, user)
            if m.subject.partition(":")[0] == slot and m.is_live(now) and m.status is Status.ACTIVE and m.polarity]
