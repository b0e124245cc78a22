"""A request the gate reads as general knowledge is searched when its kind of fact is needed together with its
kindred slots, as the slot boost reads them (the shipped encoder, the local home)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from mnemo.bootstrap import Mnemo, build_local
from mnemo.clock import ManualClock
from mnemo.domain.gate import GENERAL_KNOWLEDGE, decide
from mnemo.domain.models import Category, SourceKind
from mnemo.domain.slot_affinity import SlotAffinity
from mnemo.services.writing import NewFact
from mnemo.settings import Settings

TENANT, USER = "t-second-look", "u-second-look"
START = datetime(2026, 3, 1, 9, tzinfo=UTC)


def test_a_general_knowledge_request_is_searched_when_kindred_slots_are_needed_together(tmp_path: Path) -> None:
    service = build_local(Settings(data_dir=tmp_path, extractor="learned"), clock=ManualClock(START))
    try:
        _searched_for_kindred_slots(service)
    finally:
        service.close()


def _searched_for_kindred_slots(service: Mnemo) -> None:
    # a request the gate reads as general knowledge, which needs the user's project and its stack each a little
    # under the second look's 0.6, and one of the project's facts 0.7 likely: searched, and the stack is in its block
    service.writer.write(TENANT, USER, [NewFact(content="User's project uses Affinity Designer.",
                                                category=Category.PROJECT_FACT, subject="project_stack",
                                                confidence=0.95, source=SourceKind.EXTRACTED, occurred_at=START)])
    query = "Explain how to add crop marks to a print file."
    retriever = service.retriever
    direction = np.asarray(retriever.queries.get(query, TENANT, USER), dtype=np.float32)
    weights = np.vstack([direction, direction, -direction]) * 4.0
    # p = sigmoid(4 + bias) = 0.45 for both project slots at the request's own vector
    bias = np.full(3, -4.0 + float(np.log(0.45 / 0.55)), dtype=np.float32)
    retriever.affinity = SlotAffinity(["current_project", "project_stack", "pet"], weights, bias, "test:3")
    assert decide(query).reason == GENERAL_KNOWLEDGE
    needed = retriever.affinity.probabilities(direction)
    assert max(needed.values()) < service.ports.settings.gate_second_look_at_least
    answer = retriever.retrieve(TENANT, USER, query, top_k=8, token_budget=500)
    assert answer.decision == "retrieve"
    assert "Affinity Designer" in answer.context
