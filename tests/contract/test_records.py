"""Contracts of the trace store, feedback store, audit log, turn buffer and debounce queue, both homes."""

from __future__ import annotations

from datetime import timedelta

import pytest

from mnemo.domain.models import AuditEvent, BufferedTurn, FeedbackRecord, Message, RetrievalTrace
from mnemo.errors import BackendUnavailable
from mnemo.ports import Claim, ExtractionJob
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


def test_feedback_goes_after_the_users_key_was_destroyed(home: Home, clock) -> None:
    """An erase destroys the data key first, then deletes the rows: deleting the ratings and their
    tenant-wide pointers must not need to open them (nor make the user a new key)."""
    for n, trace_id in enumerate(("a" * 32, "b" * 32)):
        home.feedback.put(FeedbackRecord(tenant_id="t1", user_id="u1", trace_id=trace_id, rating="down",
                                         comment="you forgot my cat", at=clock.now() + timedelta(seconds=n)))
    home.feedback.put(FeedbackRecord(tenant_id="t1", user_id="u2", trace_id="c" * 32, rating="up", at=clock.now()))
    home.vault.destroy("t1", "u1")
    home.feedback.delete_user("t1", "u1")
    assert home.feedback.get("t1", "a" * 32) is None
    assert home.feedback.get("t1", "b" * 32) is None
    assert [r.trace_id for r in home.feedback.since("t1", clock.now() - timedelta(seconds=1))] == ["c" * 32]


def test_rating_a_trace_again_later_replaces_the_rating_everywhere(home: Home, clock) -> None:
    """The AWS store kept the first rating's time pointer: ``since`` listed the trace twice, and the
    pointer (naming the user) outlived the user's erasure."""
    record = FeedbackRecord(tenant_id="t1", user_id="u1", trace_id="a" * 32, rating="up", at=clock.now())
    home.feedback.put(record)
    home.feedback.put(record.model_copy(update={"rating": "down", "at": clock.now() + timedelta(minutes=5)}))
    assert [r.rating for r in home.feedback.since("t1", clock.now() - timedelta(seconds=1))] == ["down"]
    home.vault.destroy("t1", "u1")
    home.feedback.delete_user("t1", "u1")
    assert home.feedback.since("t1", clock.now() - timedelta(seconds=1)) == []
    if home.name == "aws":  # no pointer naming the user is left (since() skips one whose rating is gone)
        assert home.feedback._t.query("t1#_feedback_by_time") == []


def test_feedback_stored_before_its_time_was_in_the_clear_goes_too(home: Home, clock) -> None:
    """AWS: a rating written before the item carried its time; the erase finds its time pointer
    without opening it."""
    if home.name != "aws":
        pytest.skip("the item layout of the AWS store")
    for user_id, trace_id in (("u1", "a" * 32), ("u2", "b" * 32)):
        home.feedback.put(FeedbackRecord(tenant_id="t1", user_id=user_id, trace_id=trace_id, rating="up",
                                         at=clock.now()))
    table = home.feedback._t
    item = table.get("t1#u1", "FEEDBACK#" + "a" * 32)
    del item["at"]
    table.put(item)  # as an older version of the store wrote it
    home.vault.destroy("t1", "u1")
    home.feedback.delete_user("t1", "u1")
    assert [r.trace_id for r in home.feedback.since("t1", clock.now() - timedelta(seconds=1))] == ["b" * 32]
    assert table.query("t1#_feedback_by_time")[0]["user_id"]["S"] == "u2"
    assert len(table.query("t1#_feedback_by_time")) == 1


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
    assert home.buffer.acknowledge("t1", "u1", "c1", [1, 2]) == 2
    assert [t.message.message_id for t in home.buffer.pending("t1", "u1", "c1", 10)] == ["m2"]
    assert home.buffer.append([turn(clock, "m1", "I live in Alfama")], clock.now()).dropped == ["m1"]
    assert home.buffer.acknowledge("t1", "u1", "c1", [1, 2]) == 0  # already gone: nothing more let go of


def test_buffer_acknowledges_exactly_the_turns_named_never_a_range(home: Home, clock) -> None:
    home.buffer.append([turn(clock, "m1", "I live in Alfama"), turn(clock, "m2", "I love fado"),
                        turn(clock, "m3", "I have a cat")], clock.now())
    # an extraction that read seq 1 and 3 (seq 2 landed after it read the buffer) lets go of those two only
    assert home.buffer.acknowledge("t1", "u1", "c1", [1, 3]) == 2
    assert [t.message.message_id for t in home.buffer.pending("t1", "u1", "c1", 10)] == ["m2"]


def test_a_message_the_buffer_failed_to_store_is_not_remembered_as_seen(home: Home, clock) -> None:
    """Otherwise the client's retry is dropped as a duplicate and the turn is lost for good."""
    if home.name == "local":
        pytest.skip("one SQLite transaction holds the id and the row already")
    with pytest.raises(BackendUnavailable):  # DynamoDB refuses an item over 400 KB: the write fails
        home.buffer.append([turn(clock, "m1", "x" * 500_000)], clock.now())
    retry = home.buffer.append([turn(clock, "m1", "I live in Alfama")], clock.now())
    assert (retry.accepted, retry.dropped) == (1, [])
    assert [t.message.content for t in home.buffer.pending("t1", "u1", "c1", 10)] == ["I live in Alfama"]


def copy_of(home: Home, clock, seq: int, conversation: str = "c1") -> ExtractionJob:
    """Schedule, and return the copy a worker would be handed (the row locally, the message in SQS)."""
    home.queue.schedule(ExtractionJob("t1", "u1", conversation, seq, clock.now()))
    # far enough ahead that no lease or due time hides the row; SQS ignores the time and hands the new message
    (copy,) = [j for j in home.queue.due(clock.now() + timedelta(days=1), 10) if j.conversation_id == conversation]
    return copy


LEASE = timedelta(seconds=60)


def test_queue_newer_schedule_overtakes_and_complete_removes(home: Home, clock) -> None:
    first = copy_of(home, clock, 1)
    newer = copy_of(home, clock, 2)
    assert first.schedule_id
    assert newer.schedule_id != first.schedule_id
    assert home.queue.claim(first, clock.now(), LEASE) is Claim.STALE
    home.queue.drop(first)
    assert home.queue.claim(newer, clock.now(), LEASE) is Claim.CLAIMED
    home.queue.complete(newer)
    assert home.queue.claim(newer, clock.now(), LEASE) is Claim.STALE  # done: a redelivery changes nothing
    assert home.queue.due(clock.now(), 10) == []


def test_same_seq_and_same_due_time_are_still_two_copies(home: Home, clock) -> None:
    """The bug of issue 17: closing re-schedules the same seq; completing the old copy removed the new."""
    old = copy_of(home, clock, 5)
    assert home.queue.claim(old, clock.now(), LEASE) is Claim.CLAIMED
    new = copy_of(home, clock, 5)  # the close, while the worker extracts the old copy
    assert (new.up_to_seq, new.due_at) == (old.up_to_seq, old.due_at)
    home.queue.complete(old)
    assert home.queue.claim(new, clock.now(), LEASE) is Claim.CLAIMED  # the newer copy survived, and is free
    home.queue.complete(new)
    assert home.queue.due(clock.now(), 10) == []


def test_a_stale_copy_neither_removes_nor_unlocks_the_live_job(home: Home, clock) -> None:
    old = copy_of(home, clock, 3)
    new = copy_of(home, clock, 4)
    assert home.queue.claim(new, clock.now(), LEASE) is Claim.CLAIMED
    assert home.queue.claim(old, clock.now(), LEASE) is Claim.STALE
    home.queue.drop(old)
    assert home.queue.claim(new, clock.now(), LEASE) is Claim.BUSY  # still held by its own delivery
    home.queue.complete(new)
    assert home.queue.claim(new, clock.now(), LEASE) is Claim.STALE


def test_one_delivery_at_a_time_and_a_dead_one_lets_go_when_its_lease_ends(home: Home, clock) -> None:
    job = copy_of(home, clock, 2)
    assert home.queue.claim(job, clock.now(), LEASE) is Claim.CLAIMED
    assert home.queue.claim(job, clock.now(), LEASE) is Claim.BUSY  # a redelivery while the first runs
    newer = copy_of(home, clock, 3)
    assert home.queue.claim(newer, clock.now(), LEASE) is Claim.BUSY  # the newer one waits for the holder
    if home.name == "local":
        assert home.queue.due(clock.now(), 10) == []  # not offered while the lease holds
    clock.advance(seconds=61)  # the holder died: its lease ran out
    assert home.queue.claim(newer, clock.now(), LEASE) is Claim.CLAIMED
    home.queue.complete(job)  # the dead holder's late completion changes nothing
    assert home.queue.claim(newer, clock.now(), LEASE) is Claim.BUSY
    home.queue.complete(newer)
    assert home.queue.claim(newer, clock.now(), LEASE) is Claim.STALE


def test_release_keeps_the_job_and_hands_the_lease_back(home: Home, clock) -> None:
    job = copy_of(home, clock, 2)
    assert home.queue.claim(job, clock.now(), LEASE) is Claim.CLAIMED
    home.queue.release(job, clock.now() + timedelta(seconds=30))
    if home.name == "local":
        assert home.queue.due(clock.now(), 10) == []  # tried again after the retry delay
        clock.advance(seconds=31)
        assert [j.schedule_id for j in home.queue.due(clock.now(), 10)] == [job.schedule_id]
    assert home.queue.claim(job, clock.now(), LEASE) is Claim.CLAIMED


def test_the_job_never_covers_less_than_the_highest_seq_scheduled(home: Home, clock) -> None:
    copy_of(home, clock, 7)
    late = copy_of(home, clock, 5)  # a writer that buffered seq 5 schedules after the one that buffered 7
    assert late.up_to_seq == 7


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
