"""Search's second query vector (issue 15): the question without the words found in many of the user's memories."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from mnemo.bootstrap import build_local
from mnemo.clock import ManualClock
from mnemo.ports import Embedder
from mnemo.settings import Settings
from tests.conftest import ApiClient

TENANT = "tenant_a"  # ApiClient's
TURNS = ["Ana: Good morning! How was your weekend?", "Ana: Wow, that's great, I'm so happy for you!",
         "Ana: I signed up for a pottery class last week, it's so relaxing.",
         "Ana: Thanks, talk soon!", "Ben: My brother plays chess on Tuesdays."]


@pytest.mark.parametrize(("weight", "kind"), [(0.3, "word_vectors"), (0.3, "text"), (0.0, "word_vectors")])
def test_a_word_in_most_memories_is_left_out_of_the_second_vector(tmp_path: Path, embedder: Embedder,
                                                                   weight: float, kind: str) -> None:
    clock = ManualClock(datetime(2024, 3, 1, tzinfo=UTC))
    # no sitting context, so a memory's context is the second vector's share alone
    settings = Settings(data_dir=tmp_path, second_query_weight=weight, second_query_kind=kind, context_weight=0.0)
    service = build_local(settings, clock=clock, embedder=embedder)
    try:
        items = [{"content": text, "created_at": f"2024-02-01T{i:02d}:00:00+00:00"} for i, text in enumerate(TURNS)]
        status, body = ApiClient(service).call("POST", "/v1/users/u/memories/import", {"items": items})
        assert status == 200, body
        # "Ana" is in 4 of 5 memories: the second vector is the question's minus half of "Ana"'s, or "What hobby
        # did take up?" embedded; its cosine orders
        found = service.retriever.search(TENANT, "u", "What hobby did Ana take up?", top_k=5)
        assert len(found) == 5
        # every memory gets the second vector's share (search's encoder puts small talk near orthogonal to the
        # question without its name: a share of either sign), and the answer the most of it
        assert all(s.context != 0 for s in found) is (weight > 0)
        if weight:
            assert "pottery" in max(found, key=lambda s: s.context).memory.content
        assert all(s.context == 0 for s in found) is (weight == 0)
        # a question without such a word embeds nothing more and gains nothing
        plain = service.retriever.search(TENANT, "u", "Who plays chess?", top_k=5)
        assert all(s.context == 0 for s in plain)
    finally:
        service.close()
