"""Issue 17, as a property: whatever the interleaving of turns, closes, polls, runs, redeliveries, crashes
and timeouts, once the queue drains every buffered turn was extracted exactly once (by a worker that
went on to acknowledge it), nothing is left pending, no job is left behind, and no turn was let go of
unextracted. In both homes: SQLite + the local queue, and DynamoDB + SQS under moto.

Hypothesis writes the interleavings; a step may also plan what happens *inside* the extraction of the
job it runs (a turn, a close, another worker running an old copy), and how that worker ends (it dies
mid-extraction, after writing but before acknowledging, after acknowledging but before completing, or
its extraction fails). See tests/integration/interleaving.py for the step-by-step worker.
MNEMO_FUZZ_SCALE multiplies the number of interleavings (`make fuzz`).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from moto import mock_aws

from mnemo.adapters.aws.dynamo_state import create_table
from mnemo.adapters.aws.opensearch_store import IndexTuning, ensure_index
from mnemo.bootstrap import Mnemo, build_aws, build_local
from mnemo.clock import ManualClock
from mnemo.ports import Embedder
from mnemo.settings import Settings
from tests.contract.opensearch_fake import FakeOpenSearch
from tests.integration.interleaving import Harness

SCALE = float(os.environ.get("MNEMO_FUZZ_SCALE", "1"))
# 200 interleavings in the embedded home and 100 in the AWS one (moto is slower) in `make test`; ten times
# as many in `make fuzz`; MNEMO_INTERLEAVINGS overrides the base (a quick look, or a long night)
EXAMPLES = {"local": 200, "aws": 100}
if os.environ.get("MNEMO_INTERLEAVINGS"):
    EXAMPLES = dict.fromkeys(EXAMPLES, int(os.environ["MNEMO_INTERLEAVINGS"]))
REGION = "eu-west-1"
RACE_SETTINGS: dict[str, Any] = {"debounce_quiet_seconds": 0.0, "extraction_busy_retry_seconds": 0.0}

CONVERSATIONS = st.sampled_from(["c1", "c2"])
FAULTS = st.sampled_from([None, None, None, "die_during", "die_before_ack", "die_before_complete", "fail"])
INSIDE = st.one_of(  # what happens while the worker is inside the extraction
    st.tuples(st.just("say"), CONVERSATIONS, st.integers(1, 3)),
    st.tuples(st.just("close"), CONVERSATIONS),
    st.tuples(st.just("another_worker"), st.integers(0, 60)),
)
STEPS = st.lists(st.one_of(
    st.tuples(st.just("say"), CONVERSATIONS, st.integers(1, 4)),
    st.tuples(st.just("close"), CONVERSATIONS),
    st.tuples(st.just("fetch")),
    st.tuples(st.just("process"), st.integers(0, 9), FAULTS, st.lists(INSIDE, max_size=2)),
    st.tuples(st.just("redeliver"), st.integers(0, 60)),
    st.tuples(st.just("timeout")),
), min_size=1, max_size=25)


def inside_step(h: Harness, step: tuple[Any, ...]) -> Callable[[], object]:
    if step[0] == "say":
        return lambda: h.say(step[1], step[2])
    if step[0] == "close":
        return lambda: h.close(step[1])
    return lambda: h.another_worker(h.history[step[1] % len(h.history)]) if h.history else None


def play(h: Harness, steps: list[tuple[Any, ...]]) -> None:
    for step in steps:
        kind = step[0]
        if kind == "say":
            h.say(step[1], step[2])
        elif kind == "close":
            h.close(step[1])
        elif kind == "fetch":
            h.fetch()
        elif kind == "process" and h.inbox:
            _, index, fault, inside = step
            h.extractor.during = [inside_step(h, s) for s in inside]
            h.process(h.inbox[index % len(h.inbox)], **({fault: True} if fault else {}))
            h.extractor.during = []
        elif kind == "redeliver" and h.history:
            h.inbox.append(h.history[step[1] % len(h.history)])  # SQS delivers a message again
        elif kind == "timeout":
            h.timeouts_pass()
    h.drain()
    h.assert_every_turn_extracted_once()
    stale = sum(1 for r in h.reports if r.stale)
    assert stale <= h.service.extraction.counters.snapshot()["jobs_dropped_stale"]


def examples(home: str) -> Any:
    return settings(max_examples=max(1, int(EXAMPLES[home] * SCALE)), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@examples("local")
@given(steps=STEPS)
def test_every_turn_is_extracted_exactly_once_in_the_embedded_home(steps: list[tuple[Any, ...]],
                                                                   embedder: Embedder) -> None:
    clock = ManualClock()
    with tempfile.TemporaryDirectory() as tmp:
        svc = build_local(Settings(data_dir=Path(tmp), **RACE_SETTINGS), clock=clock, embedder=embedder)
        try:
            play(Harness(svc, clock, learn=False), steps)
        finally:
            svc.close()


class AwsHome:
    """One moto account for the whole test; each interleaving gets its own table, queue and tenant (moto
    scans a whole table to answer a query: one table for all would slow every example down)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.dynamodb = boto3.client("dynamodb", region_name=REGION)
        self.kms = boto3.client("kms", region_name=REGION)
        self.key_id = self.kms.create_key()["KeyMetadata"]["KeyId"]
        self.sqs = boto3.client("sqs", region_name=REGION)
        self.fake = FakeOpenSearch()
        self.count = 0

    def harness(self) -> Harness:
        self.count += 1
        clock = ManualClock()
        queue_url = self.sqs.create_queue(QueueName=f"mnemo-extract-{self.count}")["QueueUrl"]
        create_table(self.dynamodb, f"mnemo-state-{self.count}")
        aws = Settings(backend="aws", kms_key_id=self.key_id, extract_queue_url=queue_url,
                       state_table=f"mnemo-state-{self.count}", **RACE_SETTINGS)
        transport = self.fake.transport()  # the real client on the wire (the job reads the user's family facts)
        ensure_index(transport, aws.opensearch_index, self.embedder.dimension, tuning=IndexTuning.from_settings(aws))
        svc: Mnemo = build_aws(aws, clock=clock, embedder=self.embedder, dynamodb=self.dynamodb, kms=self.kms,
                               sqs=self.sqs, opensearch=transport)
        return Harness(svc, clock, tenant=f"t{self.count}", sqs=self.sqs, learn=False)


@pytest.fixture(scope="module")
def aws_home(embedder: Embedder) -> Iterator[AwsHome]:
    with pytest.MonkeyPatch.context() as patch:
        for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
            patch.setenv(name, "testing")
        with mock_aws():
            home = AwsHome(embedder)
            yield home
            home.fake.close()


@examples("aws")
@given(steps=STEPS)
def test_every_turn_is_extracted_exactly_once_in_the_aws_home(steps: list[tuple[Any, ...]],
                                                              aws_home: AwsHome) -> None:
    play(aws_home.harness(), steps)
