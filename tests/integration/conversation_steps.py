"""Steps the extraction tests share: a user's message said a day after the last, its conversation closed and
extracted (the local home on a manual clock)."""

from __future__ import annotations

from datetime import timedelta

from mnemo.bootstrap import Mnemo, run_due_jobs
from mnemo.clock import ManualClock
from mnemo.services.ingest import IncomingMessage


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
