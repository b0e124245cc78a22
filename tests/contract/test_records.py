"""Contracts of the trace store, feedback store, audit log, turn buffer and debounce queue, both homes."""

from __future__ import annotations

from datetime import timedelta

from mnemo.domain.models import AuditEvent, BufferedTurn, FeedbackRecord, Message, RetrievalTrace
from mnemo.ports import ExtractionJob
from tests.contract.conftest import Home


def trace(clock, trace_id: str, user: str = "u1", conversation: str | None = "c1", days: int = 30) -> RetrievalTrace:
    return RetrievalTrace(trace_id=trace_id, tenant_id="t1", user_id=user, conversation_id=conversation,
                          decision="retrieve", reason="personal", query_hash="abc", selected=["m1"],
                          created_at=clock.now(), expires_at=clock.now() + timedelta(days=days))


def test_traces_by_id_by_conversation_expiry_and_isolation(home: Home, clock) -> None:
    home.traces.put(trace(clock, "a" * 32))
    clock.advance(seconds=1)
    home.traces.put(trace(clock, "b" * 32))
    assert home.traces.get("t1", "a" * 32, clock.now()).selected == ["m1"]
    assert home.traces.get("t2", "a" * 32, clock.now()) is None
    assert home.traces.latest("t1", "u1", "c1", clock.now()).trace_id == "b" * 32
    assert home.traces.latest("t1", "u2", "c1", clock.now()) is None
    assert home.traces.get("t1", "a" * 32, clock.now() + timedelta(days=31)) is None
    home.traces.delete_user("t1", "u1")
    assert home.traces.get("t1", "b" * 32, clock.now()) is None


def test_feedback_one_per_trace_sealed_and_listed_since(home: Home, clock) -> None:
    record = FeedbackRecord(tenant_id="t1", user_id="u1", trace_id="a" * 32, rating="down",
                            comment="you forgot my cat Whiskers", at=clock.now())
    home.feedback.put(record)
    home.feedback.put(record.model_copy(update={"rating": "up"}))
    assert home.feedback.get("t1", "a" * 32).rating == "up"
    assert home.feedback.get("t2", "a" * 32) is None
    assert [r.trace_id for r in home.feedback.since("t1", clock.now() - timedelta(seconds=1))] == ["a" * 32]
    assert home.feedback.since("t1", clock.now() + timedelta(seconds=1)) == []
    assert b"Whiskers" not in home.raw()
    home.feedback.delete_user("t1", "u1")
    assert home.feedback.get("t1", "a" * 32) is None


def test_audit_newest_first_per_user(home: Home, clock) -> None:
    for action in ("memory.created", "retrieve", "inject"):
        home.audit.record([AuditEvent(tenant_id="t1", user_id="u1", action=action, actor="api", at=clock.now())])
        clock.advance(seconds=1)
    assert [e.action for e in home.audit.for_user("t1", "u1", 2)] == ["inject", "retrieve"]
    assert home.audit.for_user("t1", "u2", 10) == []
    home.audit.delete_user("t1", "u1")
    assert home.audit.for_user("t1", "u1", 10) == []


def turn(clock, message_id: str, text: str, role: str = "user") -> BufferedTurn:
    return BufferedTurn(tenant_id="t1", user_id="u1", conversation_id="c1", project_id=None, seq=0,
                        message=Message(role=role, content=text, message_id=message_id, created_at=clock.now()))


def test_buffer_orders_dedupes_seals_and_acknowledges(home: Home, clock) -> None:
    result = home.buffer.append([turn(clock, "m1", "I live in Alfama"), turn(clock, "a1", "ok", "assistant")],
                                clock.now())
    assert (result.accepted, result.pending, result.last_seq) == (2, 1, 2)
    again = home.buffer.append([turn(clock, "m1", "I live in Alfama"), turn(clock, "m2", "I love fado")],
                               clock.now())
    assert (again.accepted, again.dropped, again.pending) == (1, ["m1"], 2)
    assert [t.message.message_id for t in home.buffer.pending("t1", "u1", "c1", 10)] == ["m1", "a1", "m2"]
    assert b"Alfama" not in home.raw()
    home.buffer.acknowledge("t1", "u1", "c1", 2)
    assert [t.message.message_id for t in home.buffer.pending("t1", "u1", "c1", 10)] == ["m2"]
    assert home.buffer.append([turn(clock, "m1", "I live in Alfama")], clock.now()).dropped == ["m1"]


def test_queue_newer_schedule_overtakes_and_complete_removes(home: Home, clock) -> None:
    first = ExtractionJob("t1", "u1", "c1", 1, clock.now())
    home.queue.schedule(first)
    newer = ExtractionJob("t1", "u1", "c1", 2, clock.now())
    home.queue.schedule(newer)
    assert not home.queue.is_current(first)
    assert home.queue.is_current(newer)
    due = home.queue.due(clock.now(), 10)
    assert newer in due
    home.queue.complete(newer)
    assert not home.queue.is_current(newer)


def test_the_user_lease_serialises_workers(home: Home, clock, tmp_path) -> None:
    import threading

    from mnemo.adapters.aws.locks import DynamoUserLocks
    from mnemo.adapters.local.file_locks import FileUserLocks

    if home.name == "aws":
        locks: object = DynamoUserLocks(home.buffer._t, clock, wait_seconds=10)
    else:
        locks = FileUserLocks(tmp_path / "users.lock")
    inside, overlaps = [0], [0]
    guard = threading.Lock()

    def work() -> None:
        with locks.hold("t1", "u1"):  # type: ignore[attr-defined]
            with guard:
                inside[0] += 1
                overlaps[0] = max(overlaps[0], inside[0])
            threading.Event().wait(0.02)
            with guard:
                inside[0] -= 1

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert overlaps[0] == 1
