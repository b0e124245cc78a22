"""Search's own query encoder (issue 15): the search route embeds its questions with the encoder fine-tuned for
them, retrieve keeps the query twin its gate and slot affinity were trained on, and neither reuses the other's
cached vectors."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.bootstrap import build_local, shared_embedder
from mnemo.clock import ManualClock
from mnemo.ports import Embedder
from mnemo.settings import Settings
from tests.conftest import ApiClient

FACTS = ["My sister Maria moved to Porto last spring.", "I have been learning the cello since January.",
         "Our dog Biscuit hates thunderstorms.", "I work night shifts at the children's hospital."]


class Counting:
    """The real embedder, counting which encoder each text went through."""

    def __init__(self, real: Embedder) -> None:
        self.real, self.dimension, self.model_id = real, real.dimension, real.model_id
        self.own_search_model = real.own_search_model
        self.calls: dict[str, list[str]] = {"embed": [], "queries": [], "search": []}

    def embed(self, texts: Sequence[str]) -> Any:
        self.calls["embed"] += texts
        return self.real.embed(texts)

    def embed_queries(self, texts: Sequence[str]) -> Any:
        self.calls["queries"] += texts
        return self.real.embed_queries(texts)

    def embed_search_queries(self, texts: Sequence[str]) -> Any:
        self.calls["search"] += texts
        return self.real.embed_search_queries(texts)


def _service(tmp_path: Path, embedder: Embedder, **settings: Any) -> Any:
    service = build_local(Settings(data_dir=tmp_path, **settings),
                          clock=ManualClock(datetime(2024, 6, 1, tzinfo=UTC)), embedder=embedder)
    items = [{"content": text, "created_at": f"2024-05-0{i + 1}T10:00:00+00:00"} for i, text in enumerate(FACTS)]
    status, body = ApiClient(service).call("POST", "/v1/users/u/memories/import", {"items": items})
    assert status == 200, body
    return service


def test_search_asks_through_its_encoder_and_retrieve_through_the_twin(tmp_path: Path) -> None:
    counting = Counting(shared_embedder(Settings()))
    service = _service(tmp_path, counting)
    try:
        api = ApiClient(service)
        question = "Which city does my sister live in now?"
        status, body = api.call("POST", "/v1/users/u/search", {"query": question, "top_k": 2})
        assert status == 200, body
        assert "Porto" in body["items"][0]["content"]
        # (and the second query vector's words, when the question has words common in the user's memories)
        assert counting.calls["search"][0] == question
        assert counting.calls["queries"] == []
        searched = list(counting.calls["search"])
        status, body = api.call("POST", "/v1/users/u/retrieve", {"query": question})
        assert status == 200, body
        # retrieve embeds the same text again, with its own model: the search's cached vector is not its
        assert counting.calls["queries"] == [question]
        assert not np.allclose(service.retriever.queries.get(question, "tenant_a", "u"),
                               service.retriever.search_queries.get(question, "tenant_a", "u"))
        # asked again, each is answered from its own cache
        api.call("POST", "/v1/users/u/search", {"query": question, "top_k": 2})
        api.call("POST", "/v1/users/u/retrieve", {"query": question})
        assert counting.calls["search"] == searched
        assert counting.calls["queries"] == [question]
    finally:
        service.close()


def test_switched_off_search_embeds_like_retrieve(tmp_path: Path) -> None:
    settings = Settings(search_query_model=False)
    service = _service(tmp_path, shared_embedder(settings), search_query_model=False)
    try:
        question = "What instrument am I learning?"
        assert np.allclose(service.retriever.queries.get(question, "tenant_a", "u"),
                           service.retriever.search_queries.get(question, "tenant_a", "u"))
        [top] = service.retriever.search("tenant_a", "u", question, top_k=1)
        assert "cello" in top.memory.content
    finally:
        service.close()


def test_search_weighs_words_by_its_own_share_only_with_its_encoder(tmp_path: Path) -> None:
    # the same search at search_lexical_weight 1 (words only) and 0: with its own encoder search's relevance
    # moves with it; asking through the twin, search keeps retrieve's lexical_weight and does not move
    question = "Which city does my sister live in now?"
    for own in (True, False):
        relevances = []
        for share in (1.0, 0.0):
            settings = Settings(search_query_model=own, search_lexical_weight=share)
            service = _service(tmp_path / f"{own}-{share}", shared_embedder(settings), search_query_model=own,
                               search_lexical_weight=share)
            try:
                assert service.ports.embedder.own_search_model is own
                ranked = service.retriever.search("tenant_a", "u", question, top_k=4)
                assert "Porto" in ranked[0].memory.content
                relevances.append({s.memory.content: round(s.relevance, 6) for s in ranked})
            finally:
                service.close()
        words_only, meaning_only = relevances
        if own:
            assert words_only != meaning_only
            assert words_only[FACTS[0]] > meaning_only[FACTS[0]]  # the one memory with the question's word
        else:
            assert words_only == meaning_only
