"""Changing the embedding model: every memory re-embedded, in place or into a new index."""

from __future__ import annotations

import numpy as np
import pytest
from moto import mock_aws

from mnemo.adapters.aws.bedrock_embedder import TitanEmbedder
from mnemo.bootstrap import Mnemo
from mnemo.clock import ManualClock
from mnemo.domain.models import Category, SourceKind, Status
from mnemo.ports import Embedder
from mnemo.services.reembed import Reembedder
from mnemo.services.writing import NewFact
from mnemo.settings import Settings
from tests.contract.bedrock_fake import FakeBedrock
from tests.eval.conftest import aws_service

FACTS = ["User lives in Lisbon.", "User is allergic to peanuts.", "User prefers short answers.",
         "User works as a nurse at the city hospital. User usually works night shifts on weekends."]


def write(service: Mnemo, clock: ManualClock, user: str) -> None:
    service.writer.write("t", user, [
        NewFact(content=c, category=Category.PREFERENCE, subject=f"s{i}", confidence=0.9,
                source=SourceKind.EXTRACTED, occurred_at=clock.now()) for i, c in enumerate(FACTS)])
    # a version chain, so that the history travels too
    service.writer.write("t", user, [NewFact(content="User lives in Porto.", category=Category.PREFERENCE,
                                             subject="s0", confidence=0.9, source=SourceKind.USER_EXPLICIT,
                                             occurred_at=clock.now())])


def test_in_place_re_embedding_rewrites_the_same_vectors(service: Mnemo, clock: ManualClock) -> None:
    write(service, clock, "u1")
    before = {m.memory_id: np.asarray(m.embedding) for m in service.ports.memories.all_for_user("t", "u1")}
    report = Reembedder(service.ports).run()
    assert (report.tenants, report.users, report.memories) == (1, 1, len(before))
    after = {m.memory_id: np.asarray(m.embedding) for m in service.ports.memories.all_for_user("t", "u1")}
    assert after.keys() == before.keys()
    assert all(float(after[k] @ before[k]) > 0.999 for k in before)


def test_a_new_model_with_another_dimension_fills_a_new_index(
        settings: Settings, clock: ManualClock, embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        service = aws_service(settings, clock, embedder)
        try:
            for user in ("u1", "u2"):
                write(service, clock, user)
            titan = TitanEmbedder(FakeBedrock().client, "amazon.titan-embed-text-v2:0", 256)
            target = service.ports.memories.on_index("mnemo-memories-titan-256", 256)  # type: ignore[attr-defined]
            service.ports.embedder = titan
            report = Reembedder(service.ports, target).run()
            assert (report.users, report.memories) == (2, 2 * (len(FACTS) + 1))
            for user in ("u1", "u2"):
                copied = {m.memory_id: m for m in target.all_for_user("t", user)}
                source = {m.memory_id: m for m in service.ports.memories.all_for_user("t", user)}
                assert copied.keys() == source.keys()
                assert all(len(m.embedding) == 256 for m in copied.values())
                assert {m.status for m in copied.values()} == {Status.ACTIVE, Status.SUPERSEDED}
                porto = next(m for m in copied.values() if m.content == "User lives in Porto.")
                assert [v.content for v in target.history("t", user, porto.supersedes)] == ["User lives in Lisbon."]
                # the new index answers queries embedded by the new model
                hits = target.similar("t", user, titan.embed_queries(["User is allergic to peanuts."])[0], 1)
                assert hits[0][0].content == "User is allergic to peanuts."
            titan.close()
        finally:
            service.close()
