"""Audit events are never lost when a write is interrupted, in the AWS home (issue 11, #13).

OpenSearch and DynamoDB share no transaction: a write's documents go to OpenSearch after a journal
entry, and its versions, audit events and the entry's clearing commit in one DynamoDB transaction
(shared/mnemo/adapters/aws/write_journal.py). Here the process "dies" between the steps: a botocore
hook on the real DynamoDB client fails the commit (or OpenSearch refuses the documents), and what
was written must end up described by the audit trail once the next write, an export or the
scheduled consolidation runs. The embedded home keeps both in one SQLite transaction
(tests/eval/test_hostile.py::test_a_crash_right_after_a_write_keeps_its_audit_events).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from moto import mock_aws

from mnemo.bootstrap import Mnemo
from mnemo.clock import ManualClock
from mnemo.domain.models import Category, SourceKind
from mnemo.errors import BackendUnavailable
from mnemo.ports import Embedder
from mnemo.services.user_control import MemoryEdit
from mnemo.services.writing import NewFact
from mnemo.settings import Settings
from tests.conftest import ApiClient
from tests.eval.conftest import DYNAMODB, FAKES, aws_service

T, U = "tenant_a", "alice"


class Killed(Exception):
    """The process stops here: nothing after this point of the write runs."""


@pytest.fixture
def aws(settings: Settings, clock: ManualClock, embedder: Embedder,
        monkeypatch: pytest.MonkeyPatch) -> Iterator[Mnemo]:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        service = aws_service(settings, clock, embedder)
        yield service
        service.close()


def kill_next_commit(service: Mnemo) -> list[int]:
    """The next TransactWriteItems (a unit of work's commit) never reaches DynamoDB."""
    client = DYNAMODB[id(service)]
    fired: list[int] = []

    def die(**_: Any) -> None:
        if not fired:
            fired.append(1)
            raise Killed

    client.meta.events.register("before-call.dynamodb.TransactWriteItems", die)
    return fired


def facts(*contents: str) -> list[NewFact]:
    return [NewFact(content=c, category=Category.PREFERENCE, subject=f"likes:{c.split()[-1].strip('.').lower()}",
                    confidence=0.9, source=SourceKind.IMPORTED, occurred_at=ManualClock().now()) for c in contents]


def audited(service: Mnemo) -> dict[str, list[str]]:
    """Memory id -> the audit actions naming it."""
    out: dict[str, list[str]] = {}
    for event in service.ports.audit.for_user(T, U, 10_000):
        for memory_id in event.memory_ids:
            out.setdefault(memory_id, []).append(event.action)
    return out


def journal(service: Mnemo) -> list[dict[str, Any]]:
    items = DYNAMODB[id(service)].scan(TableName=service.settings.state_table)["Items"]
    return [i for i in items if i["sk"]["S"].startswith("JOURNAL#")]


def test_an_import_killed_before_its_commit_is_audited_by_the_next_write(aws: Mnemo) -> None:
    # given an import whose documents reach OpenSearch, and the process dies before the DynamoDB commit
    fired = kill_next_commit(aws)
    with pytest.raises(Killed):
        aws.writer.write(T, U, facts("I like tea.", "I like jam.", "I like figs."), resolve_conflicts=False,
                         actor="import")
    assert fired
    written = {m.memory_id for m in aws.ports.memories.all_for_user(T, U)}
    assert len(written) == 3
    assert not set(audited(aws)) & written  # the audit events died with the process
    assert len(journal(aws)) == 1  # ... but the journal entry stands for the write
    # when the user's next write runs
    result = aws.writer.write(T, U, facts("I like rye."), resolve_conflicts=False)[0]
    # then every memory written is named by the audit trail, and the entry is gone
    trail = audited(aws)
    assert written <= set(trail)
    assert all(trail[m] == ["memory.write"] for m in written)
    assert result.memory is not None
    assert trail[result.memory.memory_id] == ["memory.created"]
    assert journal(aws) == []


def test_the_scheduler_settles_an_interrupted_write(aws: Mnemo) -> None:
    kill_next_commit(aws)
    with pytest.raises(Killed):
        aws.writer.write(T, U, facts("I like tea.", "I like jam."), resolve_conflicts=False)
    aws.consolidator.run(T)  # the scheduled run, with no write of the user since
    assert {m.memory_id for m in aws.ports.memories.all_for_user(T, U)} <= set(audited(aws))
    assert journal(aws) == []


def test_an_edit_killed_before_its_commit_keeps_its_version_and_audit(aws: Mnemo) -> None:
    api = ApiClient(aws)
    status, created = api.call("POST", f"/v1/users/{U}/memories", {"content": "I like green tea."})
    assert status == 201
    memory_id = created["memory"]["memory_id"]
    kill_next_commit(aws)
    with pytest.raises(Killed):
        aws.control.edit(T, U, memory_id, MemoryEdit(content="I like black tea."))
    assert aws.ports.memories.history(T, U, memory_id) == []  # the document changed, its version did not land
    # the export (the user looking) settles it: the earlier version and the audit event are there
    status, export = api.call("GET", f"/v1/users/{U}/export")
    assert status == 200
    (memory,) = export["memories"]
    assert memory["content"] == "I like black tea."
    assert [h["content"] for h in memory["history"]] == ["I like green tea."]
    assert "memory.write" in audited(aws)[memory_id]


def test_a_delete_killed_before_its_commit_is_audited(aws: Mnemo) -> None:
    api = ApiClient(aws)
    memory_id = api.call("POST", f"/v1/users/{U}/memories", {"content": "I like green tea."})[1]["memory"]["memory_id"]
    kill_next_commit(aws)
    with pytest.raises(Killed):
        aws.control.delete(T, U, memory_id)
    assert aws.ports.memories.get(T, U, memory_id) is None
    assert "memory.delete" not in audited(aws)[memory_id]
    aws.consolidator.run(T, U)
    assert "memory.delete" in audited(aws)[memory_id]
    assert journal(aws) == []


def test_a_write_that_never_reached_opensearch_is_not_audited(aws: Mnemo) -> None:
    # given OpenSearch refusing the documents: the write fails (503) after its journal entry
    FAKES[id(aws)].refuse_writes = True
    with pytest.raises(BackendUnavailable):
        aws.writer.write(T, U, facts("I like tea."), resolve_conflicts=False)
    assert len(journal(aws)) == 1
    FAKES[id(aws)].refuse_writes = False
    # when the entry is settled, nothing is claimed for a write that did not happen
    aws.consolidator.run(T, U)
    assert list(aws.ports.memories.all_for_user(T, U)) == []
    assert audited(aws) == {}
    assert journal(aws) == []


def test_a_write_that_completes_leaves_no_journal_and_one_event_per_memory(aws: Mnemo) -> None:
    results = aws.writer.write(T, U, facts("I like tea.", "I like jam."), resolve_conflicts=False)
    assert journal(aws) == []
    trail = audited(aws)
    assert all(trail[r.memory.memory_id] == ["memory.created"] for r in results if r.memory)
