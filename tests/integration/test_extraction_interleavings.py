"""Issue 17: every buffered turn is extracted exactly once whatever happens between the worker's steps,
in both homes (SQLite + the in-process worker; DynamoDB + SQS under moto).

Each test is one interleaving, made deterministic: the worker's poll and run are separate steps, what
happens during an extraction is run by the extractor itself when the worker calls it, and time is a
manual clock (see tests/integration/interleaving.py). The last test runs the real debounce thread
with a barrier inside the extraction.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from moto import mock_aws

from mnemo.adapters.local.sqlite_stores import SqliteExtractionQueue
from mnemo.adapters.local.worker import DebounceWorker
from mnemo.bootstrap import Mnemo, build_local
from mnemo.clock import ManualClock
from mnemo.domain.models import Status
from mnemo.ports import Embedder, ExtractionJob
from mnemo.services.extraction import ExtractionReport
from mnemo.settings import Settings
from tests.eval.conftest import aws_service
from tests.integration.interleaving import LIKES, Harness

# every schedule due at once, so SQS (which moto delays in real time) hands it over at once too
RACE_SETTINGS = {"debounce_quiet_seconds": 0.0, "extraction_busy_retry_seconds": 0.0}


@contextmanager
def home_service(home: str, tmp_path: Path, clock: ManualClock, embedder: Embedder) -> Iterator[Mnemo]:
    settings = Settings(data_dir=tmp_path / "data", **RACE_SETTINGS)  # type: ignore[arg-type]
    svc = build_local(settings, clock=clock, embedder=embedder) if home == "local" else \
        aws_service(settings, clock, embedder)
    try:
        yield svc
    finally:
        svc.close()


@pytest.fixture(params=["local", "aws"])
def h(request: pytest.FixtureRequest, tmp_path: Path, clock: ManualClock, embedder: Embedder,
      monkeypatch: pytest.MonkeyPatch) -> Iterator[Harness]:
    if request.param == "local":
        with home_service("local", tmp_path, clock, embedder) as svc:
            yield Harness(svc, clock)
        return
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws(), home_service("aws", tmp_path, clock, embedder) as svc:
        yield Harness(svc, clock, sqs=svc.ports.queue._sqs)  # type: ignore[attr-defined]


def memories(h: Harness) -> list[str]:
    return sorted(m.content for m in h.service.ports.memories.all_for_user(h.tenant, h.user)
                  if m.status is Status.ACTIVE)


def five_likes() -> list[str]:
    return sorted(f"User loves {like}." for like in LIKES[:5])


def test_closing_while_the_job_waits_in_the_worker_loses_nothing(h: Harness) -> None:
    """The issue's case: the worker holds the five-turn job, the close re-schedules the same seq, the
    worker finds its copy stale and drops it; the close's copy must survive and extract."""
    h.say("c1", 5)
    (copy,) = h.fetch()
    h.close("c1")
    report = h.process(copy)
    assert report is not None
    assert report.stale
    assert h.live_job("c1")  # dropping the stale copy left the newer one
    assert [r.messages for r in h.run() if r] == [5]
    h.assert_every_turn_extracted_once()
    assert memories(h) == five_likes()
    assert h.service.extraction.counters.snapshot()["jobs_dropped_stale"] == 1


def test_closing_while_the_job_extracts_loses_nothing(h: Harness) -> None:
    h.say("c1", 5)
    (copy,) = h.fetch()
    h.extractor.during = [lambda: h.close("c1")]
    report = h.process(copy)
    assert report is not None
    assert report.extracted == 5
    assert h.live_job("c1")  # completing the old copy did not remove the close's
    assert [r.messages for r in h.run() if r] == [0]  # it runs, and finds nothing left
    h.assert_every_turn_extracted_once()
    assert memories(h) == five_likes()


def test_a_turn_posted_during_the_extraction_gets_its_own(h: Harness) -> None:
    h.say("c1", 5)
    (copy,) = h.fetch()
    h.extractor.during = [lambda: h.say("c1", 1)]
    h.process(copy)
    assert h.pending("c1") == [h.posted[-1]]  # acknowledged exactly what was read
    assert [r.extracted for r in h.run() if r] == [1]
    h.assert_every_turn_extracted_once()


def test_a_stale_copy_then_a_turn_then_the_close(h: Harness) -> None:
    h.say("c1", 5)
    (old,) = h.fetch()
    h.say("c1", 2)
    h.close("c1")
    assert h.process(old).stale  # type: ignore[union-attr]
    h.drain()
    h.assert_every_turn_extracted_once()


def test_a_redelivery_after_completion_changes_nothing(h: Harness) -> None:
    h.say("c1", 5)
    (copy,) = h.fetch()
    h.process(copy)
    calls = len(h.extractor.calls)
    again = h.process(copy)  # SQS delivered the message twice / a second worker polled the same row
    assert again is not None
    assert again.stale
    assert len(h.extractor.calls) == calls
    h.drain()
    h.assert_every_turn_extracted_once()


def test_a_redelivery_while_the_first_delivery_extracts_waits_its_turn(h: Harness) -> None:
    h.say("c1", 5)
    (copy,) = h.fetch()
    seen: list[ExtractionReport] = []
    h.extractor.during = [lambda: seen.append(h.another_worker(copy))]
    h.process(copy)
    assert [r.busy for r in seen] == [True]  # it did not extract the same turns alongside
    h.drain()  # the deferred copy comes back (in SQS) and is then stale
    h.assert_every_turn_extracted_once()
    assert memories(h) == five_likes()


@pytest.mark.parametrize("moment", ["die_during", "die_before_ack", "die_before_complete"])
def test_a_worker_that_dies_is_replaced_when_its_lease_runs_out(h: Harness, moment: str) -> None:
    h.say("c1", 5)
    (copy,) = h.fetch()
    assert h.process(copy, **{moment: True}) is None
    assert h.run() == []  # nobody else takes the conversation while the dead worker's lease holds
    h.close("c1")  # the app closes meanwhile: a newer copy, which waits for the lease too
    assert all(r is not None and r.busy for r in h.run())  # (SQS hands the close's copy over: it waits)
    h.drain()
    h.assert_every_turn_extracted_once()
    assert memories(h) == five_likes()  # a redone extraction wrote nothing twice


def test_a_failed_extraction_is_tried_again_after_the_delay(h: Harness) -> None:
    h.say("c1", 5)
    (copy,) = h.fetch()
    assert h.process(copy, fail=True) is None
    assert h.run() == []
    assert h.service.extraction.counters.snapshot()["jobs_failed"] == 1
    h.drain()
    h.assert_every_turn_extracted_once()


def test_two_conversations_interleaved_with_closes_and_crashes(h: Harness) -> None:
    h.say("c1", 3)
    h.say("c2", 2)
    first = h.fetch()
    h.close("c1")
    h.extractor.during = [lambda: h.say("c2", 1), lambda: h.close("c2")]
    for job in first:
        h.process(job)
    h.say("c1", 2)
    for job in h.fetch():
        h.process(job, die_during=True)
    h.drain()
    h.assert_every_turn_extracted_once()


def test_the_debounce_thread_with_a_close_while_it_extracts(tmp_path: Path, clock: ManualClock,
                                                            embedder: Embedder) -> None:
    """The in-process worker thread itself: it is stopped inside the extraction by a barrier while the
    conversation is closed, then let go; both copies run and the turns are extracted once."""
    with home_service("local", tmp_path, clock, embedder) as svc:
        h = Harness(svc, clock)
        inside, go = threading.Event(), threading.Event()
        done = threading.Condition()
        runs: list[ExtractionReport] = []

        def hold() -> None:
            inside.set()
            assert go.wait(10)

        def process(job: ExtractionJob) -> ExtractionReport:
            report = svc.extraction.process(job)
            with done:
                runs.append(report)
                done.notify_all()
            return report

        queue = svc.ports.queue.inner  # type: ignore[attr-defined]
        assert isinstance(queue, SqliteExtractionQueue)
        worker = DebounceWorker(queue, clock, process, poll_seconds=0.05)
        h.extractor.during = [hold]
        worker.start()
        try:
            h.say("c1", 5)
            assert inside.wait(10)  # the worker is inside the extraction of the five turns
            h.close("c1")
            go.set()
            with done:
                assert done.wait_for(lambda: len(runs) >= 2, timeout=10)
        finally:
            worker.stop()
        assert [r.extracted for r in runs] == [5, 0]
        h.assert_every_turn_extracted_once(["c1"])
        assert memories(h) == five_likes()


def test_the_local_server_metrics_count_stale_drops_and_unextracted_turns(tmp_path: Path, clock: ManualClock,
                                                                         embedder: Embedder) -> None:
    """What `mnemo serve` exposes at /metrics (its jobs worker counts every report this way)."""
    from prometheus_client import REGISTRY

    from mnemo import metrics

    def sample(name: str, outcome: str) -> float:
        return REGISTRY.get_sample_value(name, {"outcome": outcome}) or 0.0

    names = [("mnemo_extraction_jobs_total", o) for o in ("done", "stale")] + \
        [("mnemo_extraction_turns_total", o) for o in ("extracted", "acknowledged_unextracted")]
    before = {n: sample(*n) for n in names}
    with home_service("local", tmp_path, clock, embedder) as svc:
        h = Harness(svc, clock, learn=False)
        h.say("c1", 5)
        (copy,) = h.fetch()
        h.close("c1")
        h.process(copy)
        h.run()
        for report in h.reports:
            metrics.count_extraction(report)
        text = metrics.render(tmp_path / "data" / "mnemo.db").decode()
    delta = {n: sample(*n) - before[n] for n in names}
    assert delta == {("mnemo_extraction_jobs_total", "done"): 1, ("mnemo_extraction_jobs_total", "stale"): 1,
                     ("mnemo_extraction_turns_total", "extracted"): 5,
                     ("mnemo_extraction_turns_total", "acknowledged_unextracted"): 0}
    assert 'mnemo_extraction_turns_total{outcome="acknowledged_unextracted"}' in text
    assert svc.extraction.counters.snapshot()["jobs_dropped_stale"] == 1  # the in-process counters agree


def test_a_restarted_local_worker_takes_back_the_leases_of_a_dead_process(tmp_path: Path, clock: ManualClock,
                                                                          embedder: Embedder) -> None:
    """kill -9 of the process running the jobs: its replacement need not wait for the lease to run out."""
    import subprocess
    import sys

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    with home_service("local", tmp_path, clock, embedder) as svc:
        h = Harness(svc, clock)
        h.say("c1", 5)
        (copy,) = h.fetch()
        assert h.process(copy, die_during=True) is None
        queue = svc.ports.queue.inner  # type: ignore[attr-defined]
        assert queue.recover_claims() == 0  # the lease of a live process (this one) stays
        with queue._db.write() as conn:  # the lease as the killed process left it
            conn.execute("UPDATE extraction_jobs SET claimant=?", (gone.stdout.strip(),))
        assert h.fetch() == []
        assert queue.recover_claims() == 1
        assert [r.extracted for r in h.run() if r] == [5]
        h.assert_every_turn_extracted_once(["c1"])
