"""The extra keys of a memory (mnemo.domain.keys) and how they are embedded beside its sentences."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from mnemo.domain.extraction import Candidate
from mnemo.domain.keys import fact_keys, speaker_of
from mnemo.domain.models import Category
from mnemo.errors import InvalidInput
from mnemo.ports import Embedder
from mnemo.services.writing import embed_contents

WHEN = datetime(2024, 1, 8, tzinfo=UTC)


def fact(content: str, slot: str = "hobby", category: Category = Category.PREFERENCE, *,
         should_store: bool = True) -> Candidate:
    return Candidate(category=category, subject=f"{slot}:x", content=content, confidence=0.9, evidence="",
                     message_id="0", occurred_at=WHEN, should_store=should_store, tags=[slot])


def test_speaker_label_is_at_most_three_words_before_a_colon() -> None:
    assert speaker_of("Melanie: I painted a lake.") == ("Melanie", "I painted a lake.")
    assert speaker_of("Note to self: buy milk") == ("Note to self", "buy milk")
    assert speaker_of("The thing I said yesterday: nothing") == ("", "The thing I said yesterday: nothing")
    assert speaker_of("I painted a lake.") == ("", "I painted a lake.")


def test_fact_keys_name_the_speaker_and_skip_what_no_question_asks_for() -> None:
    candidates = [
        fact("User's hobby: painting."),
        fact("User's name is Caroline.", "name", Category.BIOGRAPHICAL),  # "Thanks, Caroline!"
        fact("How to answer the user: briefly.", "answer_style", Category.PROCEDURAL),
        fact("User's health: asthma.", "health", Category.CONSTRAINT, should_store=False),  # screened out
        fact("User's hobby: painting."),  # found twice, one key
        fact("User ran a charity race (on 2023-05-20).", "event", Category.EPISODIC),
    ]
    assert fact_keys("Melanie", candidates, 4) == ["Melanie's hobby: painting.",
                                                   "Melanie ran a charity race (on 2023-05-20)."]
    assert fact_keys("", candidates, 4) == ["User's hobby: painting.", "User ran a charity race (on 2023-05-20)."]
    assert fact_keys("Melanie", candidates, 1) == ["Melanie's hobby: painting."]
    assert fact_keys("Melanie", candidates, 0) == []


def test_keys_are_parts_beside_the_sentences_and_leave_the_whole_vector_alone(embedder: Embedder) -> None:
    long = "I moved to Porto last year. I work as a nurse there. I love the river at night."
    short = "I am vegetarian."
    plain_vectors, plain_parts = embed_contents(embedder, [long, short])
    vectors, parts = embed_contents(embedder, [long, short], keys=[["User's job: nurse."], ["User's diet: vegetarian."]])
    assert plain_parts[1] is None
    assert parts[0] is not None and parts[1] is not None and plain_parts[0] is not None
    assert len(parts[0]) == len(plain_parts[0]) + 1
    np.testing.assert_allclose(parts[0][:-1], plain_parts[0], atol=1e-5)
    for vector, plain in zip(vectors, plain_vectors, strict=True):
        np.testing.assert_allclose(vector, plain, atol=1e-5)
    key = embedder.embed(["User's diet: vegetarian."])[0]
    assert float(parts[1][0] @ key) == pytest.approx(1.0, abs=1e-4)


def test_over_the_budget_the_keys_go_first(embedder: Embedder) -> None:
    long = "I moved to Porto last year. I work as a nurse there."
    # 2 sentences + 1 whole + 2 keys = 5 texts; a budget of 3 keeps the sentences, drops the keys
    _, parts = embed_contents(embedder, [long, "I am vegetarian."], budget=3,
                              keys=[["User's job: nurse."], ["User's diet: vegetarian."]])
    assert parts[0] is not None and len(parts[0]) == 2
    assert parts[1] is None
    with pytest.raises(InvalidInput):
        embed_contents(embedder, ["a", "b"], budget=1, keys=[["k"], ["k"]])
