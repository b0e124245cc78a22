"""The extra keys of a memory (mnemo.domain.keys) and how they are embedded beside its sentences."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

import numpy as np
import pytest

from mnemo.domain.extraction import Candidate, Extraction
from mnemo.domain.keys import fact_keys, speaker_of
from mnemo.domain.models import Category, Message
from mnemo.errors import InvalidInput
from mnemo.ports import Embedder
from mnemo.services.writing import embed_contents, find_keys

WHEN = datetime(2024, 1, 8, tzinfo=UTC)


def fact(content: str, slot: str = "hobby", category: Category = Category.PREFERENCE, *,
         should_store: bool = True, clause: str = "") -> Candidate:
    return Candidate(category=category, subject=f"{slot}:x", content=content, confidence=0.9,
                     evidence=clause or f"clause of {content}", message_id="0", occurred_at=WHEN,
                     should_store=should_store, tags=[slot])


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
    assert fact_keys("Melanie", candidates, 4, "fact") == ["Melanie's hobby: painting.",
                                                           "Melanie ran a charity race (on 2023-05-20)."]
    assert fact_keys("", candidates, 4, "fact") == ["User's hobby: painting.",
                                                    "User ran a charity race (on 2023-05-20)."]
    assert fact_keys("Melanie", candidates, 1, "fact") == ["Melanie's hobby: painting."]
    assert fact_keys("Melanie", candidates, 0, "fact") == []


def test_clause_keys_are_the_words_around_each_fact_said_by_the_speaker() -> None:
    candidates = [fact("User's hobby: painting.", clause="I painted that lake sunrise last year"),
                  fact("User's hobby: lake.", clause="I painted that lake sunrise last year"),  # same clause
                  fact("User's family: kids.", "family", Category.BIOGRAPHICAL, clause="swimming with the kids")]
    assert fact_keys("Melanie", candidates, 4) == ["Melanie: I painted that lake sunrise last year",
                                                   "Melanie: swimming with the kids"]
    assert fact_keys("", candidates, 4) == ["I painted that lake sunrise last year", "swimming with the kids"]
    assert fact_keys("Melanie", candidates, 3, "both") == ["Melanie: I painted that lake sunrise last year",
                                                           "Melanie's hobby: painting.", "Melanie's hobby: lake."]


def test_keys_are_parts_beside_the_sentences_and_leave_the_whole_vector_alone(embedder: Embedder) -> None:
    long = "I moved to Porto last year. I work as a nurse there. I love the river at night."
    short = "I am vegetarian."
    plain_vectors, plain_parts = embed_contents(embedder, [long, short])
    vectors, parts = embed_contents(embedder, [long, short],
                                    keys=[["User's job: nurse.", "I work as a nurse there."],  # a sentence already
                                          ["User's diet: vegetarian.", short]])  # the memory itself
    assert plain_parts[1] is None
    assert parts[0] is not None
    assert parts[1] is not None
    assert plain_parts[0] is not None
    assert len(parts[1]) == 1
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
    assert parts[0] is not None
    assert len(parts[0]) == 2
    assert parts[1] is None
    with pytest.raises(InvalidInput):
        embed_contents(embedder, ["a", "b"], budget=1, keys=[["k"], ["k"]])


def test_keys_are_found_only_in_long_memories_that_keyed_marks() -> None:
    class Finds:
        """An extractor that finds one fact in every message it is given."""

        name, version = "finds", "1"

        def __init__(self) -> None:
            self.seen: list[str] = []

        def extract(self, messages: Sequence[Message]) -> Extraction:
            self.seen.extend(m.content for m in messages)
            return Extraction([replace(fact("User's hobby: rowing.", clause=m.content[:12]), message_id=m.message_id)
                               for m in messages])

        def classify(self, statement: str, when: datetime) -> Candidate | None:
            return None

    finds = Finds()
    contents = ["Ana: I row on the river every morning before work.", "I row.",
                "I row on the river every morning before work."]
    keys = find_keys(finds, contents, [WHEN] * 3, limit=4, min_words=6, keyed=[True, True, False])
    assert keys == [["Ana: I row on the"], [], []]
    assert finds.seen == ["I row on the river every morning before work."]  # the label is the speaker's
    assert find_keys(None, contents, [WHEN] * 3, limit=4, min_words=6) == [[], [], []]
