"""The learned extractor keeps what it read in a user's pieces while a service reads that user's turns, and
reading a piece again gives exactly what reading it anew gives (shipped encoder and tagger)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mnemo.bootstrap import TAGGER_PATH, Mnemo, build_local, piece_readings, run_due_jobs, shared_token_encoder
from mnemo.clock import ManualClock
from mnemo.domain.extraction.pipeline import LearnedExtractor
from mnemo.domain.extraction.readings import PieceReadings, reading_for
from mnemo.domain.extraction.tagger import SlotTagger, TokenEncoder, TokenStates
from mnemo.domain.models import Message
from mnemo.ports import Embedder
from mnemo.services.ingest import IncomingMessage
from mnemo.settings import Settings

WHEN = datetime(2026, 5, 1, tzinfo=UTC)
CHAT = [("user", "ok that worked, thanks. random but im allergic to sesame and my dad keeps putting it on "
                 "everything. my cousin is keto"),
        ("assistant", "Noted. What's your name?"),
        ("user", "Dana. I moved to Leeds last month and I work as a nurse."),
        ("user", "My card is 4111 1111 1111 1111 and I prefer Rust for scripting.")]


class CountingEncoder:
    """The shipped token encoder, and the texts it was asked to encode."""

    def __init__(self, encoder: TokenEncoder) -> None:
        self.encoder = encoder
        self.encoded: list[str] = []

    def encode_tokens(self, texts: Sequence[str]) -> list[TokenStates]:
        self.encoded.extend(texts)
        return self.encoder.encode_tokens(texts)


@pytest.fixture(scope="module")
def tagger() -> SlotTagger:
    return SlotTagger.load(TAGGER_PATH)


def extractor(tagger: SlotTagger, readings: PieceReadings | None) -> tuple[LearnedExtractor, CountingEncoder]:
    encoder = CountingEncoder(shared_token_encoder(Settings()))
    return LearnedExtractor(encoder, tagger, readings=readings), encoder


def messages(prefix: str = "m") -> list[Message]:
    return [Message(role=role, content=text, message_id=f"{prefix}{i}", created_at=WHEN)
            for i, (role, text) in enumerate(CHAT)]


def test_a_piece_read_again_for_the_same_user_is_not_encoded_again_and_reads_the_same(tagger: SlotTagger) -> None:
    fresh, _ = extractor(tagger, None)
    expected = fresh.extract(messages())
    assert expected.accepted  # the chat states facts: the comparison is not between two empty readings
    kept, encoder = extractor(tagger, PieceReadings(64))
    with reading_for("t", "u"):
        first = kept.extract(messages())
        pieces = len(encoder.encoded)
        assert pieces >= 4  # the chatty message is read whole and sentence by sentence
        again = kept.extract(messages("n"))  # the same words in messages of other ids, as the summary's fold has them
    assert len(encoder.encoded) == pieces
    assert first == expected
    assert again == fresh.extract(messages("n"))


def test_only_the_same_user_within_a_reading_uses_what_was_kept(tagger: SlotTagger) -> None:
    readings = PieceReadings(64)
    kept, encoder = extractor(tagger, readings)
    with reading_for("t", "u"):
        kept.extract(messages())
    pieces = len(encoder.encoded)
    kept.extract(messages())  # no reader named (a remember in a request worker): nothing kept, nothing used
    assert len(encoder.encoded) == 2 * pieces
    with reading_for("t", "other"):
        kept.extract(messages())
    with reading_for("other-tenant", "u"):
        kept.extract(messages())
    assert len(encoder.encoded) == 4 * pieces
    readings.forget_user("t", "u")
    with reading_for("t", "u"):
        kept.extract(messages())
    assert len(encoder.encoded) == 5 * pieces


def test_the_cache_holds_digests_not_words_and_keeps_at_most_its_size(tagger: SlotTagger) -> None:
    readings = PieceReadings(2)
    kept, _ = extractor(tagger, readings)
    with reading_for("t", "u"):
        kept.extract(messages())
    assert len(readings) == 2
    assert all(len(key[2]) == 32 and "sesame" not in repr(key) for key in readings._kept)


def rolling_summary(settings: Settings, clock: ManualClock, embedder: Embedder) -> tuple[str, Mnemo]:
    service = build_local(settings, clock=clock, embedder=embedder)
    texts = ["I'm vegetarian and I live in Lisbon.", "Can you plan a three day trip to Porto?",
             "My sister Ana is allergic to peanuts.", "I work as a nurse in Porto now.",
             "Tell me more about day 2.", "I prefer Rust for scripting."]
    for i, text in enumerate(texts):
        service.ingestor.add_turns("t", "u", "s1", [IncomingMessage("user", text, f"u{i}"),
                                                    IncomingMessage("assistant", f"Answer {i}.", f"a{i}")])
        clock.advance(seconds=settings.debounce_quiet_seconds + 1)
        run_due_jobs(service)  # a job a turn: the fold at the 10th message reads turns earlier jobs read
    state = service.sessions.get("t", "u", "s1")
    assert state.fold_due == 0
    assert state.rolling_summary
    return state.rolling_summary, service


def test_the_rolling_summary_reads_the_turns_its_jobs_read_from_what_they_kept(
        tmp_path: Path, embedder: Embedder) -> None:
    plain = Settings(data_dir=tmp_path / "plain", extraction_cache_size=0)
    without, first = rolling_summary(plain, ManualClock(WHEN), embedder)
    first.close()
    cached = plain.model_copy(update={"data_dir": tmp_path / "kept", "extraction_cache_size": 4096})
    readings = piece_readings(cached)
    assert readings is not None
    hits = readings.hits
    with_kept, second = rolling_summary(cached, ManualClock(WHEN), embedder)
    assert readings.hits - hits >= 2  # the fold's user turns, which their jobs read before
    assert with_kept == without
    assert "User's diet: vegetarian." in with_kept
    # an erase drops the user's readings from the process's caches
    assert any(key[:2] == ("t", "u") for key in readings._kept)
    second.control.erase("t", "u")
    assert not any(key[:2] == ("t", "u") for key in readings._kept)
    second.close()
