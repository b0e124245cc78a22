"""The judge of the learned extractor's candidates (domain/extraction/judge.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from mnemo.domain.extraction.candidates import Candidate
from mnemo.domain.extraction.judge import JUDGED, JUDGED_SLOTS, OWN_FIGURES, CandidateJudge, judge_rows
from mnemo.domain.extraction.pipeline import slot_candidate
from mnemo.domain.extraction.slots import SLOTS
from mnemo.domain.extraction.tagger import Mlp
from mnemo.domain.models import Category, Message

WHEN = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
WIDTH = 6
ROW = WIDTH + len(JUDGED_SLOTS) + len(Category) + OWN_FIGURES


def found(slot: str, value: str, clause: str, reading: float | None = 0.0, confidence: float = 0.9) -> Candidate:
    message = Message(role="user", content=clause, message_id="m1", created_at=WHEN)
    candidate = slot_candidate(SLOTS[slot], value, clause, False, message, confidence)
    candidate.reading = None if reading is None else np.full(WIDTH, reading, np.float32)
    return candidate


def judge_of_first_number() -> CandidateJudge:
    """A judge that says "stated" exactly when the reading's first number is positive."""
    w1 = np.zeros((ROW, 1), np.float32)
    w1[0, 0] = 1.0
    net = Mlp(np.zeros(ROW, np.float32), np.ones(ROW, np.float32), w1, np.zeros(1, np.float32),
              np.array([[-10.0, 10.0]], np.float32), np.array([5.0, -5.0], np.float32))
    return CandidateJudge([net], WIDTH, "test")


def test_rows_say_how_a_candidate_overlaps_the_others_of_its_message() -> None:
    text = "i live in leeds and love watching leeds united"
    whole, piece, home = (found("hobby", "watching leeds united", text), found("hobby", "leeds", text),
                          found("home_location", "leeds", text))
    rows = judge_rows([whole, piece, home], text, WIDTH)
    assert rows.shape == (3, ROW)
    figures = rows[:, -OWN_FIGURES:]
    # the share of its content's words another holds: all of the piece's ("hobby", "leeds") are in the whole
    assert figures[1, 6] == 1.0
    assert 0.0 < figures[0, 6] < 1.0
    # its words inside another's: the piece yes, the whole no; another's inside its own: the whole yes
    assert (figures[1, 8], figures[0, 8], figures[0, 9]) == (1.0, 0.0, 1.0)
    # others of the same slot: the whole and the piece one each, the home none
    assert list(figures[:, 10]) == [1.0, 1.0, 0.0]
    slot_part = rows[:, WIDTH:WIDTH + len(JUDGED_SLOTS)]
    assert slot_part[2, JUDGED_SLOTS.index("home_location")] == 1.0
    assert slot_part.sum() == 3.0


def test_the_judge_stores_only_what_it_finds_likely_and_leaves_the_rest_alone(tmp_path: Path) -> None:
    judge = judge_of_first_number()
    path = tmp_path / "judge.npz"
    judge.save(path)
    judge = CandidateJudge.load(path)
    text = "im vegan and i love climbing"
    kept, doubted = found("diet", "vegan", text, 1.0), found("hobby", "climbing", text, -1.0)
    by_rule = found("hobby", "climbing", text, None)  # no tagger reading: a rule found it
    explicit = found("hobby", "climbing", text, -1.0, confidence=1.0)  # "remember that ...": the user's word
    retiring = found("hobby", "climbing", text, -1.0)
    retiring.only_to_retire = True
    out = judge.judge([kept, doubted, by_rule, explicit, retiring], text, 0.5)
    assert [c.should_store for c in out] == [True, False, True, True, True]
    assert doubted.rejection_reason == JUDGED
    # at 0 the judge is off
    again = found("hobby", "climbing", text, -1.0)
    assert judge.judge([again], text, 0.0)[0].should_store


def test_the_shipped_judge_reads_rows_of_the_shipped_taggers_width() -> None:
    from mnemo.bootstrap import JUDGE_PATH
    from mnemo.domain.extraction.tagger import READING_FIGURES

    judge = CandidateJudge.load(JUDGE_PATH)
    assert judge.width == 2 * 384 + READING_FIGURES
    assert all(net.mean.shape == (judge.width + len(JUDGED_SLOTS) + len(Category) + OWN_FIGURES,)
               for net in judge.nets)
    assert len(judge.nets) > 1
