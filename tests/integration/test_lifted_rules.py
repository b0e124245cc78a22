"""An answer rule the user lifts is gone from every block: the lift retires each rule on its topic, and a lift
said with what holds instead leaves only the new rule to inject (the learned extractor, the local home)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mnemo.bootstrap import Mnemo, build_local
from mnemo.clock import ManualClock
from mnemo.domain.models import Category, SourceKind, Status
from mnemo.services.writing import NewFact
from mnemo.settings import Settings
from tests.integration.conversation_steps import say_next_day

TENANT, USER = "t-lifted", "u-lifted"
START = datetime(2026, 5, 4, 8, tzinfo=UTC)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Mnemo]:
    built = build_local(Settings(data_dir=tmp_path, extractor="learned"), clock=ManualClock(START))
    yield built
    built.close()


def _block(service: Mnemo, query: str) -> str:
    return service.retriever.retrieve(TENANT, USER, query, top_k=8, token_budget=500).context or ""


def _rule(content: str, subject: str, when: datetime) -> NewFact:
    return NewFact(content=content, category=Category.PROCEDURAL, subject=subject, confidence=0.9,
                   source=SourceKind.EXTRACTED, occurred_at=when)


def test_a_dropped_layout_said_with_its_replacement_leaves_only_the_replacement(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1", "Going forward, format every comparison as a markdown table please.")
    say_next_day(service, TENANT, USER, "c2",
                 "no more markdown tables please, simple bullet lists work much better on my phone.")
    block = _block(service, "compare two budget laptops for me")
    assert "bullet lists" in block
    assert "table" not in block.lower()


def test_a_lift_retires_every_rule_on_its_topic(service: Mnemo) -> None:
    # two rules about one thing, filed under two answer slots; the lift is closest to one of them
    service.writer.write(TENANT, USER, [
        _rule("How to answer the user: write in British English, never American.", "answer_language", START),
        _rule("How to answer the user: follow the British spelling of their firm's house style in every draft.",
              "instruction:follow_british_spell", START)])
    later = START.replace(month=6)
    service.writer.write(TENANT, USER, [NewFact(
        content="How to answer the user: you don't need the British spelling anymore.",
        category=Category.PROCEDURAL, subject="instruction:need_british_spell", confidence=0.9,
        source=SourceKind.EXTRACTED, occurred_at=later, polarity=False)])
    live = [m.content for m in service.ports.memories.all_for_user(TENANT, USER) if m.status is Status.ACTIVE]
    assert [c for c in live if "British" in c] == ["How to answer the user: you don't need the British spelling "
                                                    "anymore."]
    assert "British" not in _block(service, "proofread this paragraph of my cover letter")
