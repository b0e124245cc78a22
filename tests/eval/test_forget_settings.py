"""Forget's match is the settings' (forget_lexical_weight, forget_min_cosine), in both homes."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemo.settings import Settings
from tests.conftest import ApiClient

U = "forget-settings-user"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    # only the words count, and a text must carry all the weight to be reached: a memory holding the
    # query's words is forgotten however far its meaning (a weight hard-coded at 0.5 would need cosine
    # 0.9 for that)
    return Settings(data_dir=tmp_path / "data", forget_lexical_weight=1.0, forget_min_relevance=0.95,
                    forget_min_cosine=1.0)


def test_forget_weighs_words_as_the_settings_say(api: ApiClient) -> None:
    for content in ("I love fado music.", "I have a dog named Rex."):
        assert api.call("POST", f"/v1/users/{U}/memories", {"content": content})[0] == 201
    status, body = api.call("POST", f"/v1/users/{U}/forget", {"query": "fado"})
    assert status == 200
    assert len(body["forgotten"]) == 1
    assert [m["content"] for m in api.memories(U)] == ["I have a dog named Rex."]
