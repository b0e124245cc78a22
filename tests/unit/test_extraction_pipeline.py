"""The exact steps of the extraction pipeline: dates, segmentation, slots, span decoding."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import numpy as np
import pytest

from mnemo.domain.extraction.candidates import Candidate
from mnemo.domain.extraction.dates import anchor, whole_date
from mnemo.domain.extraction.diets import diets_followed
from mnemo.domain.extraction.pipeline import (
    CEASABLE_SLOTS,
    called_off,
    eats_again,
    ended_in_passing,
    ended_just_after,
    ended_just_before,
    joined_fragments,
    said_no_longer,
    slot_candidate,
    stopped_taking,
    switched_from,
    terse_rules,
)
from mnemo.domain.extraction.screen import screen
from mnemo.domain.extraction.segment import MAX_WORDS, chunks, clause_around, is_question, sentence_around
from mnemo.domain.extraction.slots import SLOTS, slot_identity, subject_for, value_key
from mnemo.domain.extraction.tagger import Mlp, SlotTagger, Span, TokenStates, bio_path, bio_steps
from mnemo.domain.models import Category, Message
from mnemo.settings import Settings

MONDAY = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)  # a Monday


def said(slot: str, value: str, clause: str, negated: bool = False) -> Candidate:
    """The fact ``slot_candidate`` makes of a value found in a clause the user said on 2 March 2026."""
    message = Message(role="user", content=clause, message_id="m1", created_at=datetime(2026, 3, 2, tzinfo=UTC))
    return slot_candidate(SLOTS[slot], value, clause, negated, message, 0.9)


@pytest.mark.parametrize(("text", "expected"), [
    ("dentist on friday", "2026-03-06"),
    ("ran my first 10k last sunday", "2026-03-01"),
    ("next monday", "2026-03-09"),
    ("yesterday was rough", "2026-03-01"),
    ("tmrw morning", "2026-03-03"),
    ("3 days ago", "2026-02-27"),
    ("in two weeks", "2026-03-16"),
    ("flying to rome may 3rd", "2026-05-03"),
    ("on the 14th of february", "2026-02-14"),
    ("moving in june", "2026-06"),
    ("last summer", "2025-07"),
    ("no date here", None),
])
def test_relative_dates_are_anchored_to_the_message_time(text: str, expected: str | None) -> None:
    assert anchor(text, MONDAY) == expected


def test_short_messages_are_read_whole_and_long_ones_in_pieces_that_cover_them() -> None:
    assert chunks("hey im dana, 41, nurse") == [(0, "hey im dana, 41, nurse")]
    long = " ".join(f"Sentence number {i} is here." for i in range(100))
    pieces = chunks(long)
    assert len(pieces) > 1
    assert all(len(p.split()) <= MAX_WORDS for _o, p in pieces)
    assert all(long[o:o + len(p)] == p for o, p in pieces)
    assert "Sentence number 99" in pieces[-1][1]


def test_the_clause_around_a_value_stops_at_breaks_and_keeps_its_question_mark() -> None:
    text = "im vegan btw, is pesto ok for someone allergic to nuts?"
    start = text.index("nuts")
    clause = clause_around(text, start, start + 4)
    assert clause == "is pesto ok for someone allergic to nuts?"
    assert is_question(clause)
    assert not is_question(clause_around(text, 3, 8))
    assert not is_question("im vegan any recipe ideas?")  # a statement with a question tacked on



def test_an_at_sign_between_words_is_read_as_at() -> None:
    from mnemo.domain.extraction.pipeline import at_spelled_out
    assert at_spelled_out("kai. backend @ fernwerk. go") == "kai. backend at fernwerk. go"
    assert at_spelled_out("mail me at kai@fernwerk.de or ping @kai") == "mail me at kai@fernwerk.de or ping @kai"


def test_a_trade_done_for_a_named_employer_is_a_job() -> None:
    from mnemo.domain.extraction.pipeline import works_for
    assert works_for("drive for Bring, local delivery with a van") == "drive for Bring, local delivery with a van"
    assert works_for("writes for The Guardian") == "writes for The Guardian"
    assert works_for("drive for fun") is None
    assert works_for("cook for my kids") is None
    assert works_for("walk for an hour") is None


def test_what_the_user_does_for_a_living_is_their_job() -> None:
    from mnemo.domain.extraction.pipeline import for_a_living
    assert for_a_living("yacht deliveries", "i do yacht deliveries for a living, mostly atlantic") == "yacht deliveries"
    assert for_a_living("fix old boats for a living", "i fix old boats for a living") == "fix old boats"
    assert for_a_living("drive a cab", "I drive a cab to pay the bills") == "drive a cab"
    assert for_a_living("paint", "I paint for fun") is None
    assert for_a_living("running", "running is how I stay sane") is None


def test_so_opens_a_clause_but_a_so_that_says_how_much_does_not() -> None:
    # "not so many difficult words" was cut before "so": the rule kept "so many difficult words", the inverse
    # of what was asked
    rule = "write plain english for me pls, not so many hard words"
    at = rule.index("hard")
    assert clause_around(rule, at, at + 4) == rule
    assert said("answer_tone", "hard words", rule).content == (
        "How to answer the user: write plain english for them pls, not so many hard words.")
    tired = "honestly i am so tired of the night bus"
    assert clause_around(tired, tired.index("bus"), len(tired)) == tired
    emojis = "you use so many emojis. cut it out"
    assert clause_around(emojis, emojis.index("emojis"), emojis.index("emojis") + 6) == "you use so many emojis"
    # the conjunction still opens one
    knee = "my knee is wrecked so i quit football"
    assert clause_around(knee, knee.index("football"), len(knee)) == "so i quit football"


def test_a_full_stop_inside_a_number_or_a_word_ends_no_clause_and_a_terse_question_asks() -> None:
    # "1.22" had cut "matrix for go 1" out of its question, and "matrix" became the project's stack in place
    # of the "github actions" said before it
    text = "moved ledgerline ci from jenkins to github actions. matrix for go 1.22/1.23?"
    start = text.index("matrix")
    assert clause_around(text, start, start + 6) == "matrix for go 1.22/1.23?"
    assert clause_around(text, text.index("github"), text.index("github") + 6) == (
        "moved ledgerline ci from jenkins to github actions")
    assert clause_around("the publisher needs .ai files from me", 0, 3) == "the publisher needs .ai files from me"
    # a question with no question word asks when it says nothing of the user; one that does is a statement
    assert is_question("matrix for go 1.22/1.23?")
    assert is_question("parallel safe?")
    assert not is_question("im allergic to nuts?")
    assert not is_question("my editor is neovim?")
    assert not is_question("Please responde en español siempre, ok?")  # a tag asking only for agreement
    assert not is_question("bullet points from now on yeah?")


def test_a_fact_said_before_a_terse_question_is_no_question() -> None:
    # the user states a fact, then asks in a word or two: the fact is the user's ("35 weeks pregnant" was
    # refused as a question, as were the Spanish and German ones, whose question words are not English)
    for text, value in [("35 weeks pregnant, safe to fly?", "pregnant"),
                        ("just moved to leeds, know any good vegan spots?", "leeds"),
                        ("type 1 diabetic, advice on running?", "diabetic"),
                        ("soy vegetariana, ¿qué puedo cenar hoy?", "vegetariana"),
                        ("ich bin Vegetarierin, was kann ich heute kochen?", "Vegetarierin")]:
        start = text.index(value)
        assert not is_question(clause_around(text, start, start + len(value))), text


def test_a_stop_before_the_user_speaking_again_ends_the_clause_without_a_space() -> None:
    # texting without a space after the stop: "not vegan anymore" must not reach "vegetarian", nor "if i won
    # the lottery" "leeds"; a stop inside a name or a number still ends nothing
    text = "not vegan anymore.im vegetarian now"
    assert clause_around(text, text.index("vegetarian"), text.index("vegetarian") + 10) == "im vegetarian now"
    text = "if i won the lottery id move to spain.i live in leeds now"
    assert clause_around(text, text.index("leeds"), text.index("leeds") + 5) == "i live in leeds now"
    assert clause_around("we use node.js at work", 7, 14) == "we use node.js at work"


def test_a_number_in_a_value_is_whole() -> None:
    text = "i run 5.5 km on go 1.22 days"
    offsets = [(0, 1), (2, 5), (6, 7), (7, 8), (8, 9), (10, 12)]  # i | run | 5 | . | ##5 | km: "5" tagged alone
    states = np.array([[0, 0], [0, 0], [1, 0], [0, 0], [0, 0], [0, 0]], dtype=np.float32)
    spans = _tagger().spans(text, TokenStates(offsets, states))
    assert [text[s.start:s.end] for s in spans] == ["5.5"]


def test_slots_follow_the_vocabulary_document() -> None:
    assert SLOTS["home_location"].category is Category.BIOGRAPHICAL
    assert not SLOTS["home_location"].multi
    assert SLOTS["allergy"].multi
    assert SLOTS["allergy"].category is Category.CONSTRAINT
    assert subject_for(SLOTS["allergy"], "Peanuts") == "allergy:peanut"
    assert subject_for(SLOTS["diet"], "keto") == "diet"
    assert value_key("the Beatles") == "beatl"
    assert slot_identity("dislikes:country_music") == slot_identity("likes:country_music")


def _tagger() -> SlotTagger:
    """A hand-set tagger over 2-d token states: x[0] high -> B-diet, x[1] high -> I-diet."""
    tags = ["O", "B-diet", "I-diet"]
    width = 8  # token_features concatenates four 2-d vectors
    w1 = np.eye(width, dtype=np.float32)
    w2 = np.zeros((width, 3), dtype=np.float32)
    w2[0, 1] = 10.0
    w2[1, 2] = 10.0
    b2 = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    net = Mlp(np.zeros(width, np.float32), np.ones(width, np.float32), w1, np.zeros(width, np.float32), w2, b2)
    polarity = Mlp(np.zeros(8, np.float32), np.ones(8, np.float32), np.eye(8, dtype=np.float32),
                   np.zeros(8, np.float32), np.zeros((8, 2), np.float32), np.array([1.0, 0.0], np.float32))
    return SlotTagger(tags, net, polarity, "test")


def test_spans_are_decoded_from_bio_tags_and_widened_to_whole_words() -> None:
    text = "im gluten free now"
    offsets = [(0, 2), (3, 6), (6, 9), (10, 14), (15, 18)]  # im | glu | ##ten | free | now
    states = np.array([[0, 0], [1, 0], [0, 1], [0, 1], [0, 0]], dtype=np.float32)
    spans = _tagger().spans(text, TokenStates(offsets, states))
    assert [(text[s.start:s.end], s.slot, s.negated) for s in spans] == [("gluten free", "diet", False)]


@pytest.mark.parametrize("apostrophe", ["'", "’"])
def test_a_value_that_opens_on_a_possessives_tail_opens_after_it(apostrophe: str) -> None:
    # "my sister's yoga class": the tokenizer cuts "sister" "'" "s", and a value tagged from the "'" or the
    # "s" on was stored as "s yoga class"; the owner is a word of its own (the family fact beside it)
    text = f"i go to my sister{apostrophe}s yoga class"
    offsets = [(0, 1), (2, 4), (5, 7), (8, 10), (11, 17), (17, 18), (18, 19), (20, 24), (25, 30)]
    for first in (5, 6):  # the value's first piece: the apostrophe, or the "s" after it
        states = np.zeros((len(offsets), 2), dtype=np.float32)
        states[first, 0] = 1.0
        states[first + 1:, 1] = 1.0
        spans = _tagger().spans(text, TokenStates(offsets, states))
        assert [text[s.start:s.end] for s in spans] == ["yoga class"]
    # a word with an apostrophe inside is whole ("o'clock"), and a value that is only the tail stays as it was
    states = np.array([[1, 0], [0, 1]], dtype=np.float32)
    assert [(s.start, s.end) for s in _tagger().spans("o'clock swims", TokenStates([(2, 7), (8, 13)], states))] == [
        (0, 13)]


_JOB_TAGS = ["O", "B-job", "I-job", "B-education", "I-education"]


def _probs(*rows: list[float]) -> np.ndarray:
    return np.array(rows, dtype=np.float32)


def test_the_pieces_are_read_together_so_one_wavering_piece_does_not_cut_a_value_in_two() -> None:
    # "software" "engineer" "at": each piece's own best tag reads B-job I-education, a job "software" and a
    # stray education; read together, a value that changes slot halfway costs more than the waver gains
    probs = _probs([0.1, 0.6, 0.1, 0.1, 0.1], [0.25, 0.0, 0.35, 0.0, 0.4], [0.9, 0.02, 0.04, 0.02, 0.02])
    assert list(bio_path(probs, bio_steps(_JOB_TAGS, 1.0))) == [1, 2, 0]
    # without the penalty every piece keeps its own best tag
    assert list(bio_path(probs, bio_steps(_JOB_TAGS, 0.0))) == [1, 4, 0]


def test_a_value_may_start_with_an_inside_tag_when_the_rest_of_it_is_sure() -> None:
    # the first piece read I-job over B-job: still a job (a soft rule), unless the penalty makes BIO hard
    probs = _probs([0.3, 0.2, 0.5, 0.0, 0.0], [0.05, 0.0, 0.95, 0.0, 0.0])
    # B-job I-job pays nothing (log 0.2 + log 0.95); I-job I-job pays the start (log 0.5 - 1 + log 0.95)
    assert list(bio_path(probs, bio_steps(_JOB_TAGS, 1.0))) == [1, 2]
    alone = _probs([0.45, 0.0, 0.55, 0.0, 0.0])
    assert list(bio_path(alone, bio_steps(_JOB_TAGS, 1.0))) == [0]  # nothing after it to pay for the start
    assert list(bio_path(alone, bio_steps(_JOB_TAGS, 0.0))) == [2]


def test_the_reading_chosen_is_the_best_of_every_reading() -> None:
    # brute force over every tag sequence of four pieces: bio_path's reading scores as high as the best one
    import itertools

    rng = np.random.default_rng(3)
    for penalty in (0.0, 1.0, 3.0):
        costs = bio_steps(_JOB_TAGS, penalty)

        def score(path: tuple[int, ...], logp: np.ndarray, pen: float = penalty) -> float:
            total = 0.0
            for k, tag in enumerate(path):
                total += float(logp[k, tag])
                name = _JOB_TAGS[tag]
                if name.startswith("I-") and (k == 0 or _JOB_TAGS[path[k - 1]][2:] != name[2:]
                                              or _JOB_TAGS[path[k - 1]] == "O"):
                    total -= pen
            return total

        for _ in range(30):
            probs = rng.dirichlet(np.ones(5) * 0.5, size=4).astype(np.float32)
            logp = np.log(np.clip(probs, 1e-9, 1.0))
            best = max(score(path, logp) for path in itertools.product(range(5), repeat=4))
            assert score(tuple(int(t) for t in bio_path(probs, costs)), logp) == pytest.approx(best, abs=1e-4)


def test_outside_at_least_moves_the_odds_of_outside() -> None:
    probs = _probs([0.45, 0.30, 0.25, 0.0, 0.0])
    assert list(bio_path(probs, bio_steps(_JOB_TAGS, 1.0), outside_at_least=0.5)) == [0]
    assert list(bio_path(probs, bio_steps(_JOB_TAGS, 1.0), outside_at_least=0.7)) == [1]


def test_a_tagger_survives_a_round_trip_through_its_file(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "t.npz"
    _tagger().save(path)
    loaded = SlotTagger.load(path)
    assert loaded.tags == ["O", "B-diet", "I-diet"]
    assert loaded.version == "test"
    text = "im gluten free now"
    offsets = [(0, 2), (3, 6), (6, 9), (10, 14), (15, 18)]
    states = np.array([[0, 0], [1, 0], [0, 1], [0, 1], [0, 0]], dtype=np.float32)
    assert loaded.spans(text, TokenStates(offsets, states)) == _tagger().spans(text, TokenStates(offsets, states))


def test_a_plan_event_or_routine_that_is_only_a_time_is_no_value() -> None:
    from mnemo.domain.extraction.slots import only_when

    # a verb of doing alone has lost what is done too ("we're getting a cat" read as "User plans: getting.")
    for when in ("next", "the fourteenth", "3rd", "every Sunday", "2pm", "tue wed", "12.5hr", "getting", "going",
                 "coming next week"):
        assert only_when(when), when
    for value in ("climbing", "dentist on tuesday", "caffeine after 2pm", "trip to Lisbon in May", "going to Lisbon"):
        assert not only_when(value), value


def test_a_plans_day_without_a_year_is_the_next_one_and_an_events_the_last_one() -> None:
    when = datetime(2026, 3, 2, 10, tzinfo=UTC)
    assert anchor("the entry is due 15 November", when, "future") == "2026-11-15"
    assert anchor("we met on 15 November", when, "past") == "2025-11-15"
    assert anchor("on 3 March", when) == "2026-03-03"
    # a month alone the same way: "my mum passed in october", said in March, was dated to the October to come
    assert anchor("my mum passed in october", when, "past") == "2025-10"
    assert anchor("I ran my first half in March", when, "past") == "2026-03"
    assert anchor("the trip in october", when, "future") == "2026-10"


def test_a_span_of_time_is_not_a_date() -> None:
    when = datetime(2026, 3, 2, 10, tzinfo=UTC)
    # Christmas is the day ("for Christmas" dates the plan), not three years on
    assert anchor("going home for Christmas, the first time in three years", when, "future") == "2026-12-25"
    assert anchor("going home, the first time in three years", when, "future") is None
    assert anchor("I'll know in two weeks", when) == "2026-03-16"


def test_the_pieces_of_one_word_belong_to_one_value() -> None:
    from mnemo.domain.extraction.tagger import _same_word

    text = "based in Bengaluru, office"
    assert _same_word(text, (9, 12), (12, 15))  # "Ben" + "gal"
    assert not _same_word(text, (9, 18), (20, 26))  # "Bengaluru" then ", office"
    assert not _same_word(text, (0, 5), (6, 8))  # "based" "in"


def test_fragments_of_one_phrase_become_one_value() -> None:
    text = "booked a week in tenerife from june, and hiking or climbing"
    spans = [Span(0, 8, "plan", 0.7, False), Span(17, 25, "plan", 0.6, False),  # "booked a" .. "tenerife"
             Span(41, 47, "hobby", 0.8, False), Span(51, 59, "hobby", 0.8, False)]  # "hiking" or "climbing"
    joined = joined_fragments(text, spans)
    assert [text[s.start:s.end] for s in joined] == ["booked a week in tenerife", "hiking", "climbing"]
    assert joined[0].confidence == 0.7
    # a comma or "and" between two pieces of a phrase slot keeps them apart, as do more than three words
    apart = "dentist on monday, gym on tuesday then a long walk by the sea"
    two = [Span(0, 17, "plan", 0.7, False), Span(19, 33, "plan", 0.7, False)]
    assert len(joined_fragments(apart, two)) == 2
    far = [Span(0, 7, "plan", 0.7, False), Span(51, 53, "plan", 0.7, False)]
    assert len(joined_fragments(apart, far)) == 2


@pytest.mark.parametrize(("value", "clause", "refused"), [
    ("AWS", "My AWS key is [REDACTED:aws_access_key] and my [REDACTED:password]", True),
    ("bank pin", "my bank pin: [REDACTED:pin]", True),
    ("Porto", "I live in Porto and my password is [REDACTED:password]", False),
    ("vegan", "card [REDACTED:card] and I'm vegan", False),
])
def test_the_label_of_a_redacted_secret_is_no_fact(value: str, clause: str, refused: bool) -> None:
    assert (screen(value, clause, "owns") == "sensitive_data") is refused


def test_a_day_of_the_month_alone_is_the_nearest_such_day_in_the_tense_of_the_slot() -> None:
    when = datetime(2026, 3, 20, 10, 0, tzinfo=UTC)
    assert anchor("my driving test is on the 16th", when, "future") == "2026-04-16"
    assert anchor("my driving test was on the 16th", when, "past") == "2026-03-16"
    assert anchor("party on the 25th", when, "future") == "2026-03-25"
    assert anchor("on the 31st", datetime(2026, 4, 20, tzinfo=UTC), "future") == "2026-05-31"  # April has 30
    assert anchor("the 14th of february", when) == "2026-02-14"  # a month named: read as a day and month
    assert anchor("my 30th birthday", when, "future") is None
    assert anchor("we live on the 2nd floor", when) is None


@pytest.mark.parametrize(("clause", "message", "kept"), [
    ("three sentences max, always", "three sentences max, always", True),
    ("use metric units", "use metric units, I'm in Europe", True),
    ("Rust examples: no unwrap()", "Rust examples: no unwrap(). Always.", True),
    ("payments table, 400M rows", "the payments table, 400M rows, needs a migration", False),
    ("Es más fácil para mí", "Sorry my English no es muy bueno. Es más fácil para mí.", False),
    ("Kindly explain row level security policies in Supabase",
     "Kindly explain row level security policies in Supabase.", False),
    ("write the answer in French and English side by side, just for this handout",
     "write the answer in French and English side by side, just for this handout", False),
    ("Summarize every chapter of this book in three bullet points",
     "Summarize every chapter of this book in three bullet points.", False),
    ("Translate any of these phrases into German", "Translate any of these phrases into German, keep it casual.",
     False),
    ("Plain text only, no formatting", "Plain text only, no formatting, it's going to SMS.", True),
    # a new format, or the user's reason for it, says it stands
    ("Short prose, max 5 sentences.", "Switch format: no bullets. Short prose, max 5 sentences.", True),
    ("Short prose only.", "Changing the format: no bullets. Short prose only.", True),
    # a reason alone makes no task a standing rule
    ("Help me understand recursion", "Help me understand recursion, it helps me learn", False),
])
def test_an_answer_instruction_must_address_the_assistant_and_stand(clause: str, message: str, kept: bool) -> None:
    refused = screen("x", clause, "instruction", sentence=clause, message=message)
    assert (refused is None) is kept
    # a fact in any other slot is not judged as an instruction
    assert screen("x", clause, "likes", sentence=clause, message=message) != "one_off_request"


def test_no_more_is_an_instruction_not_a_correction() -> None:
    from mnemo.domain.extraction.commands import CORRECTION_OPENING

    assert not CORRECTION_OPENING.match("no more emojis please")
    assert not CORRECTION_OPENING.match("no exclamation points, ever")
    for said in ("no, I live in Lyon", "no i meant grenoble", "nope, it's Berlin"):
        assert CORRECTION_OPENING.match(said)


@pytest.mark.parametrize(("value", "clause", "theirs"), [
    ("Mysuru", "my wife Ananya and daughter Diya are going to Mysuru for one week", True),
    ("vegan", "my mom and my dad are vegan", True),
    ("shellfish", "my coworker is allergic to shellfish", True),
    ("celíaca", "Mi madre es celíaca y viene a comer el domingo", True),
    ("vegan", "I'm a nurse and my mum is vegan", True),  # the value sits after "and my mum is"
    ("nurse", "I'm a nurse and my mum is vegan", False),  # before it: the user's
    ("vegan", "I'm vegan and my mum is too", False),
    ("Lisbon", "my wife and I are moving to Lisbon in May", False),
    ("Mysuru", "I'm going to Mysuru with my wife", False),
    ("Galway", "Our lad Cian is off to Galway for college in September", True),
    ("wedding in Flagstaff", "my grandson's wedding is in Flagstaff in June", True),
    ("penicillin", "my patient is allergic to penicillin", True),
    # a few words placing the person still leave them the subject ("my patient in bed 12", "my friend from work")
    ("penicillin", "My patient in bed 12 is allergic to penicillin and sulfa", True),
    ("vegan", "my friend from work is vegan", True),
    ("shellfish", "my boss at the bank is allergic to shellfish", True),
    ("Leeds", "my sister in Leeds says I should move", False),
    ("vegan", "my friend from work is vegan and so am I", False),  # the user's too
    ("vegan", "my wife is vegan, me too", False),
    # "I'm too" with what the user is too much of is no "me too"
    ("Berlin", "my sister is moving to Berlin and I'm too scared to visit alone", True),
    ("vegan", "my friend is vegan and im too lazy to cook like that", True),
    ("vegan", "my bf is vegan and i'm too now", False),
    # placed in the languages users switch to; and their "me too"
    ("Madrid", "mi hermana en Madrid es vegana", True),
    ("vegana", "minha irmã em Lisboa é vegana", True),
    ("végane", "ma sœur à Paris est végane", True),
    ("vegana", "mi hermana en Madrid es vegana y yo también", False),
    # the user among them
    ("vegan", "me and my wife are vegan", False),
    ("vegan", "me and my friends at work are all vegan", False),
    ("nuts", "me & my sister are both allergic to nuts", False),
    ("keto", "and husband Dan doing keto now, cooking 2 meals every night", True),
    ("type 2 diabetic", "my doctor just told me I'm type 2 diabetic", False),
    ("nurse", "my mum is vegan and I'm a nurse", False),
    # a person word that opens the clause with no "my" can be the value itself
    ("Friends", "Friends is my favourite show", False),
    ("Doctor Who", "Doctor Who is my comfort watch", False),
    ("husband", "my husband is vegan", True),
    # a relative's thing right before the value; a place's is the user's ("St Wilfrid's community choir")
    ("hip operation", "December was a blur of deadlines and my mum's hip operation", True),
    ("community choir", "Instead I have joined the St Wilfrid's community choir", False),
    ("hip operation", "I'm worried about my mum's hip operation", True),
    # a named person as the clause's subject ("Tom's moved", "Eleanor has graduated"), not a capitalised word
    ("Leeds", "Tom's moved out to live with his boyfriend in Leeds", True),
    ("junior architect", "Eleanor has graduated and is now working in London as a junior architect", True),
    ("Leeds", "Finally moved to Leeds last week", False),
    ("Leeds", "Tom's moved out, so I live in Leeds on my own now", False),
    # a capitalised subject reaches no further than its own stretch of the clause
    ("barista", "Uni has been mad, started a part-time job as a barista", False),
    # the user texting without an apostrophe, a day or a month, or a thing acting on the user, is no named person
    ("vegan", "Im also vegan", False),
    ("climbing", "Ive just started climbing", False),
    ("nurse", "Tuesday was my first day as a nurse", False),
    ("barista", "March was mad, started a new job as a barista", False),
    ("asthma", "Covid has left me with asthma", False),
    ("Python", "Django is great, we use it with Python", False),
])
def test_other_peoples_facts_are_not_the_users(value: str, clause: str, theirs: bool) -> None:
    assert (screen(value, clause, "diet") == "about_someone_else") is theirs


@pytest.mark.parametrize(("value", "clause", "slot", "theirs"), [
    # a relative is the value of the user's family slots, unless it is another person's relative
    ("fiancé", "so Kayla and her fiancé moved the wedding up to September 26th", "relationship_status", True),
    ("husband", "my sister and her husband live in Leeds", "relationship_status", True),
    ("wife", "my brother's wife is expecting", "family", True),
    ("husband", "me and my husband just moved", "relationship_status", False),
    ("sister", "my sister and her husband live in Leeds", "family", False),
    ("hamster", "my son's hamster Nibbles died", "pet", False),  # the household's
    ("dog", "her dog barks all night", "pet", True),
    # a contraction is no possessive
    ("wife", "so it's wife now, not girlfriend", "relationship_status", False),
    ("girlfriend", "so she's my girlfriend again, not single anymore", "relationship_status", False),
    # a name the clause then says something of is someone the user speaks of, not the user
    ("Linda", "and Linda got a new job she's the vice principal now", "name", True),
    ("Linda", "my wife Linda she's a teacher", "name", True),  # the name of a person word
    ("Jun", "hi, Jun here, 26, I'm a game artist", "name", False),
    ("Ray", "I'm Ray and I work as an electrician", "name", False),
    ("Priyanka", "hey, Priyanka here, I'm 41 and live in Nagpur", "name", False),
    ("Kudi", "Left Kudi", "name", True),
    ("Margaret", "My late wife, Margaret, used to attend to such correspondence", "name", True),
    ("Ava", "hi!! Ava's 10th birthday party is feb 28", "name", True),
    ("Ray", "Ray's here, quick question", "name", False),
    # another person's thing named right before the value is theirs, but their events are on the user's calendar
    ("12 May", "Isla's first birthday is 12 May", "birthday", True),
    ("piano recital is next friday", "my daughter's piano recital is next friday", "plan", False),
    ("Marcus", "Name's Marcus", "name", False),
    ("Jordan", "My name is Jordan he/him", "name", False),
    ("March 3", "Acme's launch date is March 3", "project_deadline", False),
    # ... and where the user goes, works or helps out, a routine or a job there is the user's too
    ("yoga class every Tuesday", "I go to my sister's yoga class every Tuesday", "habit", False),
    ("garage", "i help out at my uncle's garage most saturdays", "job", False),
    # ... but not the relative's care, nor their allergy, health or diet that the user cooks or shops for
    # (each was stored as the user's)
    ("dialysis sessions three times a week", "I go to my dad's dialysis sessions three times a week", "habit",
     True),
    ("chemo appointments", "I drive to my mum's chemo appointments", "habit", True),
    ("nut allergy", "I cook for my son's nut allergy", "allergy", True),
    ("coeliac", "we shop for my daughter's coeliac diet", "health", True),
    ("celiac disease", "I buy gluten free food for my son's celiac disease", "health", True),
    # a clause about she or he is about someone else, unless the user speaks of themselves again
    ("passed away in 2023", "she passed away in 2023", "event", True),
    ("teacher", "and he's a teacher in Leeds", "job", True),
    ("nurse", "she's a teacher and I'm a nurse", "job", False),
    ("nurse", "I'm a nurse", "job", False),
    ("Linda", "me and Linda are off to Rome", "name", True),
    ("kiana", "me n kiana r drivin to nashville may 16", "name", True),  # texting
    ("sam", "hiking w/ sam this weekend", "name", True),
])
def test_other_peoples_relatives_and_names_are_not_the_users(value: str, clause: str, slot: str,
                                                             theirs: bool) -> None:
    assert (screen(value, clause, slot) == "about_someone_else") is theirs



@pytest.mark.parametrize(("value", "clause", "expected"), [
    ("the Gesellenprüfung", "I passed the Gesellenprüfung", "passed the Gesellenprüfung"),
    ("ran my first 10k", "ran my first 10k last sunday", "ran my first 10k"),
    ("Melbourne", "Today is so cold in Melbourne", None),
    ("new Massey", "Got the new Massey Ferguson 5S delivered Tuesday", None),
    ("car accident in January", "car accident in January, still sore", "car accident in January"),
])
def test_an_event_is_what_happened_with_its_verb(value: str, clause: str, expected: str | None) -> None:
    from mnemo.domain.extraction.pipeline import event_value

    assert event_value(value, clause) == expected


@pytest.mark.parametrize(("value", "clause", "expected"), [
    ("booked a", "booked a week in tenerife from the 3rd of june, first holiday in 2 yrs",
     "booked a week in tenerife from the 3rd of june"),
    ("Getting back into", "Getting back into running", "Getting back into running"),
    ("chess online", "i play chess online every night", "chess online"),
])
def test_a_phrase_cut_after_a_function_word_runs_to_the_end_of_its_phrase(value: str, clause: str,
                                                                           expected: str) -> None:
    from mnemo.domain.extraction.pipeline import completed_phrase

    assert completed_phrase(value, clause) == expected


@pytest.mark.parametrize(("clause", "former"), [
    ("I was a school secretary for 31 years you know", True),
    ("ex merchant navy, living in Stromness", True),
    ("I taught at a primary school for thirty-four years before retiring", True),
    ("I worked at Google for years", True),
    ("I'm a nurse at St James", False),
    ("now I work at Siemens Energy", False),
    ("my ex-wife is a nurse", False),
    ("I was actually promoted to head nurse last month", False),
    ("I was asked to lead the night shift", False),
])
def test_a_former_job_is_not_the_current_one(clause: str, former: bool) -> None:
    assert (screen("nurse", clause, "job") == "not_current") is former


@pytest.mark.parametrize(("slot", "clause", "negated"), [
    ("diet", "I'm not vegan anymore", True),
    ("uses", "also on helix now, ditched neovim", True),
    ("hobby", "I have been rereading Trollope this winter", False),  # nothing says no
    ("dislikes", "I'm not a fan of small talk", False),  # the slot's own "not"
    ("avoids", "I don't drink anymore", False),  # avoids alcohol, more than ever
    ("avoids", "I don't avoid gluten anymore", True),
    ("avoids", "I avoid gluten too btw", False),
])
def test_a_value_is_negated_only_where_the_clause_says_so(slot: str, clause: str, negated: bool) -> None:
    assert said_no_longer(slot, clause) is negated


@pytest.mark.parametrize(("slot", "clause", "value", "negated"), [
    # the leaving is the old employer's, said before the user took up a new thought as subject
    ("job", "I've left Lendwise and I started last Monday as head of marketing at Greenloop",
     "head of marketing at Greenloop", False),
    ("job", "I've left Lendwise and I started last Monday as head of marketing at Greenloop", "Lendwise", True),
    ("diet", "I eat fish now and I'm not vegetarian anymore", "vegetarian", True),
    ("hobby", "quit the choir but I still play bass", "bass", False),
    ("hobby", "not doing yoga anymore", "yoga", True),
])
def test_a_negation_holds_only_since_the_user_last_took_up_a_new_thought(
        slot: str, clause: str, value: str, negated: bool) -> None:
    assert said_no_longer(slot, clause, value) is negated


@pytest.mark.parametrize(("value", "clause", "ended"), [
    ("quit volleyball", "I quit volleyball, my knee can't take it anymore.", True),  # the tagger took the verb in
    ("gave up the allotment", "gave up the allotment last spring", True),
    ("volleyball", "I play volleyball every Thursday", False),
    ("stopped by the farmers market", "I stopped by the farmers market every Saturday", False),  # a call on the way
    ("Give Up the Ghost", "my favourite song is Give Up the Ghost", False),  # a title
    ("quit sugar", "I'm trying to quit sugar", False),  # only wished
    ("the gym after Christmas", "Stopped going to the gym after Christmas.", True),  # the going, not the gym
    ("stopping", "stopping", False),
])
def test_an_ending_the_tagger_took_into_the_value_ends_it(value: str, clause: str, ended: bool) -> None:
    assert ended_just_before(value, clause) is ended


@pytest.mark.parametrize(("clause", "value", "negated"), [
    ("I stopped cycling to my mum's, it's too far", "mum", False),  # the cycling ended, not the mother
    ("we don't go to my sister's anymore", "sister", False),
    ("no more sleepovers at my brother's", "brother", False),
    ("I don't have kids", "kids", True),
    ("no siblings, only child", "siblings", True),
    ("we lost our son in 2019", "son", True),
    ("I no longer have any grandparents", "grandparents", True),
    ("lost both my parents when I was young", "parents", True),
    ("I'm not a mum yet", "mum", False),  # says nothing of the user's mother
    ("I'm scared of losing my dad", "dad", False),
    ("I haven't got any children", "children", True),
])
def test_a_relative_is_no_longer_in_the_users_life_only_where_the_words_say_so(
        clause: str, value: str, negated: bool) -> None:
    assert said_no_longer("family", clause, value) is negated


@pytest.mark.parametrize(("value", "clause", "whose"), [
    ("passed away in march", "my dad passed away in march", "dad"),
    ("graduated from uni", "so our daughter Jess graduated from uni!", "daughter Jess"),
    ("ran my first 10k", "went to my mum's and ran my first 10k", None),
    ("started a new job", "I started a new job", None),
    ("got married", "my really old friend got married", None),  # not right before: left to the screen
    ("went fishing in Norway", "Me and my dad went fishing in Norway", None),  # the user went too
    ("to Scotland last week", "I drove my mum to Scotland last week", None),  # the object of the user's doing
])
def test_an_event_is_the_relatives_said_right_before_it(value: str, clause: str, whose: str | None) -> None:
    from mnemo.domain.extraction.screen import whose_event

    assert whose_event(value, clause) == whose


@pytest.mark.parametrize(("value", "when"), [
    ("end of May", True), ("the 12th", True), ("Q3", True), ("in two weeks", True), ("friday", True),
    ("column", False), ("NRDC", False), ("rows", False),
])
def test_a_deadline_names_a_time(value: str, when: bool) -> None:
    from mnemo.domain.extraction.slots import says_when

    assert says_when(value) is when


@pytest.mark.parametrize(("first", "second", "kept"), [
    ((0.9, "lyon", "I live in lyon"), (0.85, "grenoble", "grenoble"), "grenoble"),  # the later value stands
    # "i'm in berlin, rust meetups?": a doubtful second place
    ((0.95, "berlin", "i'm in berlin"), (0.6, "rust", "rust meetups?"), "berlin"),
    # "i live in paris, i mean lyon": taken back, however unsure the tagger was of the new value
    ((0.95, "paris", "i live in paris"), (0.6, "lyon", "i mean lyon"), "lyon"),
    # "i moved to liverpool!! got the keys last sat, flat near sefton park": a less sure second place
    ((0.95, "liverpool", "i moved to liverpool!!"), (0.83, "sefton park", "flat near sefton park"), "liverpool"),
])
def test_a_single_valued_slot_said_twice_keeps_the_later_value_unless_it_is_doubtful(
        first: tuple[float, str, str], second: tuple[float, str, str], kept: str) -> None:
    from mnemo.domain.extraction.candidates import Candidate
    from mnemo.domain.extraction.pipeline import last_value_wins

    def found(confidence: float, city: str, clause: str) -> Candidate:
        return Candidate(category=Category.BIOGRAPHICAL, subject="home_location", content=f"User lives in {city}.",
                         confidence=confidence, evidence=clause, message_id="m", occurred_at=MONDAY,
                         tags=["home_location"])

    doubt = Settings().extractor_later_value_doubt
    assert [c.content for c in last_value_wins([found(*first), found(*second)], doubt)] == [f"User lives in {kept}."]
    # a multi-valued slot keeps both values
    hobbies = [Candidate(category=Category.PREFERENCE, subject=f"hobby:{v}", content=f"User's hobby: {v}.",
                         confidence=0.9, evidence="", message_id="m", occurred_at=MONDAY, tags=["hobby"])
               for v in ("chess", "golf")]
    assert len(last_value_wins(hobbies)) == 2


@pytest.mark.parametrize(("slot", "value", "negated", "clause", "kept"), [
    ("plan", "ogallala", False, "i always fuel up in ogallala on tuesdays", False),
    ("habit", "blackbirds", False, "I sat in the garden and simply listened to the blackbirds", False),
    ("plan", "fly to Rome", False, "we fly to Rome in May", True),
    ("habit", "run every morning", False, "I run every morning", True),
    ("habit", "smoking", True, "I quit smoking", True),  # a routine given up
    ("habit", "smoke", False, "i still smoke", True),  # the doing itself
    ("plan", "retire", False, "I plan to retire next year", True),
    ("plan", "propose", False, "i'm going to propose", True),
    ("pet", "Biscuit", False, "my dog Biscuit", True),  # other slots are names
    # a verb that needs what follows it says nothing alone
    ("habit", "use", False, "i use a cpap every night", False),
    ("habit", "stop", False, "I stop the long distance", False),
    ("plan", "start", False, "i start at the new place monday", False),
])
def test_a_plan_or_a_routine_says_what_is_done(slot: str, value: str, negated: bool, clause: str,
                                               kept: bool) -> None:
    from mnemo.domain.extraction.pipeline import says_what_is_done

    assert says_what_is_done(slot, value, negated, clause) is kept


@pytest.mark.parametrize(("message", "allergy"), [
    ("peanut alergy here", True),
    ("my throat closes up with hazelnuts", True),
    ("hay fever every spring, grass pollen mostly", True),
    ("no dairy for me lactose makes me sick as a dog", True),
    ("Soy alérgica a las nueces", True),
    ("Mercury is in retrograde so I'm not signing anything this week", False),
    ("I'm only after coming in from the milking and I'm soaked to the bone.", False),
])
def test_an_allergy_is_read_only_where_the_message_talks_of_one(message: str, allergy: bool) -> None:
    from mnemo.domain.extraction.pipeline import speaks_of_an_allergy

    assert speaks_of_an_allergy(message) is allergy


@pytest.mark.parametrize(("value", "clause", "subject", "content"), [
    ("quit volleyball", "I quit volleyball", "hobby:volleyball", "User no longer does volleyball."),
    ("stopped climbing", "i stopped climbing", "hobby:climb", "User no longer does climbing."),
    ("volleyball", "I quit volleyball", "hobby:volleyball", "User no longer does volleyball."),
    # a title that begins with such a word keeps it ("Never Let Me Go", "Not Like Us")
    ("Don't Starve", "i don't play Don't Starve anymore", "hobby:starv", "User no longer does Don't Starve."),
])
def test_the_word_that_ends_a_fact_is_no_part_of_its_value(value: str, clause: str, subject: str,
                                                            content: str) -> None:
    # "quit volleyball" as the value kept the key "quit_volleyball", which no longer retired "User's hobby:
    # volleyball" (every word of the key must be in the old fact)
    candidate = said("hobby", value, clause, negated=True)
    assert (candidate.subject, candidate.content) == (subject, content)



@pytest.mark.parametrize(("value", "content"), [
    # a title keeps its pronouns; the user's own words are rewritten about them
    ("Never Let Me Go", "User likes Never Let Me Go."),
    ("Call Me By Your Name", "User likes Call Me By Your Name."),
    ("I Am Legend", "User likes I Am Legend."),
    ("cooking for my kids", "User likes cooking for their kids."),
    ("My Little Pony with my niece", "User likes My Little Pony with their niece."),
    ("films my sister and I watch", "User likes films their sister and they watch."),
])
def test_pronouns_in_a_title_are_the_titles_own(value: str, content: str) -> None:
    assert said("likes", value, f"I love {value}").content == content


@pytest.mark.parametrize(("slot", "value", "clause", "content"), [
    ("event", "accepted a postdoc", "And I accepted a postdoc in Montréal",
     "User accepted a postdoc in Montréal (said on 2026-03-02)."),
    ("plan", "moving to Lisbon", "we're moving to Lisbon in May", "User plans: moving to Lisbon in May (for 2026-05)."),
    ("event", "passed my driving test", "I passed my driving test, so happy",
     "User passed their driving test (said on 2026-03-02)."),
])
def test_an_episode_keeps_where_and_when_it_happens(slot: str, value: str, clause: str, content: str) -> None:
    assert said(slot, value, clause).content == content


@pytest.mark.parametrize(("slot", "value", "clause", "ended"), [
    ("diet", "keto", "so I quit the keto thing and I'm doing a Mediterranean diet now", True),
    ("hobby", "watercolours", "I have rather given up on the watercolours", True),
    ("owns", "old F-150", "I traded in the old F-150 for a 2022 Silverado", True),
    ("owns", "2022 Silverado", "I traded in the old F-150 for a 2022 Silverado", False),
    ("home_location", "the Delft dorm", "I moved out of the Delft dorm", True),
    # the place moved from, with or without where to ("I live in Porto since last year, I moved from Curitiba")
    ("home_location", "Curitiba", "I live in Porto since last year, I moved from Curitiba", True),
    ("home_location", "Denver", "We relocated from Denver to Boise in the spring", True),
    # words between the move and the place it left ("having moved the household from Bradford", "moved to Leeds
    # from Bradford", "we moved here last year from Porto")
    ("home_location", "Bradford", "We have now settled in Headingley, having moved the household from Bradford", True),
    ("home_location", "Bradford", "I moved to Leeds from Bradford last spring", True),
    ("home_location", "Porto", "we moved here last year from Porto and honestly I love it", True),
    ("home_location", "Leeds", "I moved to Leeds from Bradford last spring", False),
    ("project_stack", "Angular", "We moved from Angular to Vue", True),
    # a move still ahead has not ended anything
    ("home_location", "Lyon", "we are moving from Lyon to Berlin next month", False),
    ("diet", "Mediterranean diet", "so I quit the keto thing and I'm doing a Mediterranean diet now", False),
    # family, names and ages never end this way ("dropped the kids at school")
    ("family", "kids", "I quit the kids' football club", False),
    ("hobby", "climbing", "I took up climbing", False),
    # an ending denied, wished for or planned has not happened
    ("habit", "coffee", "I can't quit coffee", False),
    ("hobby", "guitar", "I've never stopped playing guitar", False),
    ("habit", "smoking", "I'm trying to quit smoking", False),
    ("hobby", "watercolours", "I haven't given up on the watercolours", False),
    ("owns", "Tesla", "I'm thinking of selling my Tesla", False),
    ("owns", "Tesla", "I don't want to give up my Tesla", False),
    ("owns", "Tesla", "I had to give up my Tesla", True),
    ("habit", "smoking", "I'm so proud of quitting smoking", True),
    ("owns", "Tesla", "I'm considering selling my Tesla", False),
    ("hobby", "book club", "And I'm done with the book club, Maureen and I had words", True),
    ("current_project", "thesis", "im finally done with my thesis!!", True),
    ("learning", "course", "when I'm done with the course I'll travel", False),
    ("current_project", "thesis", "as soon as I'm done with my thesis I'll travel", False),
])
def test_a_verb_of_ending_right_before_a_value_says_it_no_longer_holds(slot: str, value: str, clause: str,
                                                                       ended: bool) -> None:
    assert (slot in CEASABLE_SLOTS and ended_just_before(value, clause)) is ended


@pytest.mark.parametrize(("value", "clause", "stopped"), [
    # a medicine stopped (docs/slots.md: health holds the medicines a user takes)
    ("warfarin", "my cardiologist has taken me off warfarin and prescribed apixaban instead", True),
    ("apixaban", "my cardiologist has taken me off warfarin and prescribed apixaban instead", False),
    ("sertraline", "I stopped the sertraline but I still have depression", True),
    ("depression", "I stopped the sertraline but I still have depression", False),
    ("metformin", "I'm trying to come off metformin", False),
    # an episode over, or being done with how a condition runs one's life, does not end the condition
    ("asthma", "phew, my asthma attack is finally over", False),
    ("type 2 diabetes", "I'm really done with my type 2 diabetes controlling my life", False),
])
def test_a_medicine_stopped_right_before_its_name_is_no_longer_taken(value: str, clause: str, stopped: bool) -> None:
    assert stopped_taking(value, clause) is stopped
    assert "health" not in CEASABLE_SLOTS  # the other endings ("is over", "done with") never apply to health


@pytest.mark.parametrize(("read", "value", "clause", "ended"), [
    (ended_just_after, "gluten free", "gluten free experiment is over, made zero difference, back to bread", True),
    (ended_just_after, "Fiat", "my Fiat is gone, sold it last week", True),
    (ended_just_after, "vegan", "I'm vegan no more", True),
    (ended_just_after, "vegetarian", "vegetarian, not anymore.", True),
    (ended_just_after, "keto", "the keto phase is officially over", True),
    (ended_just_after, "vegetarian", "ok update vegetarian didnt last, had a sausage roll", True),
    (ended_just_after, "pescatarian", "lol pescatarian era over, doc said it helps", True),
    (ended_just_after, "vegan", "my vegan days are over", True),
    # what only sounds like it
    (ended_just_after, "vegan", "I'm vegan and it lasted", False),
    (ended_just_after, "vegan", "I'm vegan, any more questions?", False),
    (ended_just_after, "job", "my job is done for today", False),
    (ended_just_after, "Lisbon", "Lisbon is gorgeous in the spring", False),
    (ended_just_after, "yoga", "my yoga class is over at 7", False),
    (ended_just_after, "climbing", "the climbing gym is over in Leith", False),
    # what the user eats again they no longer avoid
    (eats_again, "chicken", "update: i started eating chicken again lol", True),
    (eats_again, "dairy", "back to having dairy, the lactose thing was a false alarm", True),
    (eats_again, "gluten", "I had gluten again by accident at the wedding, sick for two days", False),  # a slip
    (eats_again, "pork", "I don't eat pork", False),
    (eats_again, "sugar", "trying to cut sugar again", False),
])
def test_an_ending_right_after_a_value_says_it_no_longer_holds(
        read: Callable[[str, str], bool], value: str, clause: str, ended: bool) -> None:
    assert read(value, clause) is ended


@pytest.mark.parametrize(("value", "clause", "off"), [
    ("Sardinia trip", "Sadly the Sardinia trip we have cancelled", True),
    ("trip to Rome", "we cancelled the trip to Rome", True),
    ("party", "the surprise party is off", True),
    ("wedding", "the wedding got called off", True),
    ("camping weekend", "the camping weekend fell through", True),
    # what only sounds like it
    ("taking time", "I'm taking time off work in June", False),
    ("trip to Rome", "we might cancel the trip to Rome", False),
    ("trip to Rome", "booked the trip to Rome, can't wait", False),
    ("dinner with Sam", "dinner with Sam Friday, she is off work then", False),
])
def test_a_plan_called_off_no_longer_holds(value: str, clause: str, off: bool) -> None:
    assert called_off(value, clause) is off


@pytest.mark.parametrize(("value", "clause", "old"), [
    ("Playwright", "we are migrating from Cypress to Playwright, my lead decided", "Cypress"),
    ("Adobe Illustrator", "Also I switched from Affinity Designer to Adobe Illustrator because", "Affinity Designer"),
    ("Paris", "we moved from London to Paris last year", "London"),
    ("Rust", "moving from Go to Rust for the parser", "Go"),
    # no switch said
    ("Paris", "flights from London to Paris are cheap", None),
    ("Rust", "I'm learning Rust", None),
    ("Playwright", "thinking of switching from Cypress to Playwright", None),
    ("Rust", "we switched from Python to Go to Rust", None),
])
def test_what_the_user_switched_from_is_read_with_what_they_switched_to(value: str, clause: str,
                                                                         old: str | None) -> None:
    assert switched_from(value, clause) == old


@pytest.mark.parametrize(("statement", "uncertain"), [
    ("I'm doing a Mediterranean kind of diet now", False),
    ("I bought some sort of standing desk", False),
    ("I kind of like jazz", True),
    ("it's sort of vegan", True),
    ("kind of into bouldering these days", True),
    ("maybe I'll move to Porto", True),
    ("I'm vegan, kind of", True),
    ("we sort of moved to Lisbon", True),
    ("I have kind of given up on it", True),
    ("this is kind of my diet now", True),
    ("what kind of music do I like", False),
    ("it was that kind of day", False),
    ("if i move to leeds i'll get a dog", True),
    # an apology or a request is no hedge of the facts beside it
    ("nurse on a cardio ward, sorry if i type like a potato", False),
    ("tell me if i got the dates wrong, the wedding is in june", False),
    # "now i guess" after a change is the user resigned to it, not unsure of it
    ("so vegetarian now i guess?? still no meat tho ever", False),
    ("single now, i guess", False),
    ("i guess i'm vegetarian", True),
    ("I guess I'm vegetarian now? eggs and cheese are back", False),
])
def test_kind_of_hedges_only_outside_a_noun_phrase(statement: str, uncertain: bool) -> None:
    from mnemo.domain.screening import rejection_reason

    assert (rejection_reason(statement) == "uncertain") is uncertain


@pytest.mark.parametrize(("value", "clause", "whole"), [
    ("30", "and the deadline moved to 30 June", "30 June"),
    ("30th", "due on the 30th of June, then holidays", "30th of June"),
    ("june", "ship by june 30.", "june 30"),
    ("end of May", "deadline is end of May", "end of May"),
    ("Friday", "due Friday 12 people", "Friday"),
])
def test_a_date_the_tagger_marked_in_part_is_read_whole(value: str, clause: str, whole: str) -> None:
    assert whole_date(value, clause) == whole


@pytest.mark.parametrize(("slot", "value", "clause", "no_longer"), [
    ("home_location", "Porto", "I said Porto not Lisbon", False),
    ("home_location", "Lisbon", "I said Porto not Lisbon", True),
    ("diet", "vegan", "I'm not vegan", True),
    ("diet", "vegan", "vegan, not anymore", True),
    ("owns", "the Fiat", "the Fiat is gone", True),
    ("job", "Target", "I work at Target and I don't like it", False),
    # a negative slot's own "not" and "anymore" are the avoiding's: only a change undoes it
    ("avoids", "drink", "I don't drink anymore", False),
    ("avoids", "gluten", "I don't avoid gluten anymore", True),
])
def test_a_negation_after_the_value_is_the_next_values(slot: str, value: str, clause: str, no_longer: bool) -> None:
    assert said_no_longer(slot, clause, value) is no_longer


@pytest.mark.parametrize(("text", "tagged", "expected"), [
    ("Also my knee is bad now, so I stopped the futsal, the doctor said maybe forever.", [],
     [("hobby", "futsal", "so I stopped the futsal")]),
    ("The doctor has switched me off the warfarin and onto apixaban.", [],
     [("health", "warfarin", "switched me off the warfarin")]),
    ("I've given up the painting, I'm afraid", [], [("hobby", "painting", "I've given up the painting")]),
    ("Quit the gym in May, too expensive", [], [("hobby", "gym", "Quit the gym")]),
    ("gave up on learning the piano, my hands just won't cooperate", [], [("hobby", "piano",
                                                                           "gave up on learning the piano")]),
    # the tagger's own reading of the name stands
    ("so I stopped the futsal", ["futsal"], []),
    # someone else's ending, one denied or wished for, a question, a name that is no name
    ("my brother quit smoking last year", [], []),
    ("I can't quit coffee", [], []),
    ("did I stop the pills?", [], []),
    ("I stopped at the shop on the way home", [], []),
    ("I quit my job", [], []),
    # a pause ends nothing
    ("I stopped the futsal for a couple of weeks while my knee heals", [], []),
    ("quit the gym for now, money is tight", [], []),
    # an ending still to come, or a condition
    ("once I quit the gym I'll take up swimming", [], []),
    ("when I quit the gym I'll have more time for the kids", [], []),
    ("until we give up the allotment there's no time for holidays", [], []),
    ("I quit the gym, and when I did I felt better", [], [("hobby", "gym", "I quit the gym")]),
    # moved off one thing onto another by someone else: what follows "from" ended, the user's ("me")
    ("the rheumatologist changed me from methotrexate to a weekly injection", [],
     [("health", "methotrexate", "changed me from methotrexate")]),
    ("they've switched me over from the night rota, thank god", [],
     [("health", "night rota", "switched me over from the night rota")]),
    # the user moving from a place is no ending in passing (the tagger reads a home that changed)
    ("we moved from Cardiff to Bristol", [], []),
])
def test_an_ending_said_of_a_name_in_passing_is_found(text: str, tagged: list[str],
                                                      expected: list[tuple[str, str, str]]) -> None:
    assert ended_in_passing(text, tagged) == expected


@pytest.mark.parametrize(("text", "answer_clauses", "expected"), [
    # a message made of terse rules about what answers hold or leave out, each sentence one
    ("code only. no chit-chat.", [], ["code only", "no chit-chat"]),
    ("only examples from now on. no intros", [], ["only examples from now on", "no intros"]),
    ("just bullets pls, no emojis", [], ["just bullets pls, no emojis"]),
    ("ok. markdown only", [], ["markdown only"]),
    ("no headers or tables, thx", [], ["no headers or tables, thx"]),
    # a sentence the tagger read as an answer rule of its own stands beside them
    ("Keep it under five lines. Numbered lists.", ["Keep it under five lines"], ["Numbered lists"]),
    # a request beside "code only" makes it this answer's, not a standing rule
    ("refactor the loader. code only.", [], []),
    ("can you fix this test? no explanations", [], []),
    # tastes and plain words are no rules
    ("I love tables and charts", [], []),
    ("thanks!", [], []),
    # a rule lifted as tersely is the rule now; a statement beside it does not make it a request
    ("picked up zig properly now. prose ok.", [], ["prose ok"]),
    ("examples are fine again", [], ["examples are fine again"]),
])
def test_a_message_of_terse_answer_rules_is_read_as_rules(text: str, answer_clauses: list[str],
                                                         expected: list[str]) -> None:
    assert terse_rules(text, answer_clauses) == expected


@pytest.mark.parametrize(("slot", "value", "clause", "content"), [
    ("hobby", "play futsal with", "I play futsal with", "User's hobby: play futsal."),
    # the words after a pastime that say where stop before the word that leads on to the next value
    ("hobby", "watercolour painting", "I've taken up watercolour painting at the community hall on Wednesday mornings",
     "User's hobby: watercolour painting at the community hall."),
    # a title's capitalised last word is part of it
    ("likes", "Carry On", "I love Carry On", "User likes Carry On."),
    # an instruction is the user's own clause, whose last word may end nothing; nor does "from now on" lead on
    ("answer_language", "Spanish", "please always answer in Spanish from now on",
     "How to answer the user: answer in Spanish from now on."),
    ("instruction", "focus", "from now on don't tell me what to focus on",
     "How to answer the user: don't tell them what to focus on."),
    ("habit", "yoga every morning from now on", "I'm doing yoga every morning from now on",
     "User's routine: yoga every morning from now on."),
])
def test_a_value_does_not_end_on_a_word_that_leads_on(slot: str, value: str, clause: str, content: str) -> None:
    assert said(slot, value, clause).content == content


@pytest.mark.parametrize(("value", "clause", "negated", "content"), [
    # an allergy's value that names the condition is said as one ("allergic to lactose intolerance" was not)
    ("lactose intolerance", "Also I have lactose intolerance", False, "User has lactose intolerance."),
    ("nut allergy", "i have a severe nut allergy", False, "User has nut allergy."),
    ("lactose intolerant", "im not lactose intolerant anymore", True, "User is not lactose intolerant."),
    ("peanuts", "I'm allergic to peanuts", False, "User is allergic to peanuts."),
])
def test_an_allergy_that_names_the_condition_is_said_as_one(value: str, clause: str, negated: bool,
                                                              content: str) -> None:
    assert said("allergy", value, clause, negated).content == content


@pytest.mark.parametrize("text", ["code only" + " please" * 22 + " x", "no prose" + ", thanks" * 22 + " x",
                                  "just code" + " again" * 11 + " from now on" * 11 + " ok x"])
def test_a_sentence_of_repeated_tail_words_is_read_at_once(text: str) -> None:
    # the rule's tail gave each gap two readings, and a sentence that then failed at its end cost 2^n tries:
    # 22 repeats took 7.8 s (the jobs process held for every tenant); one reading now, whatever n
    import time

    started = time.perf_counter()
    assert terse_rules(text) == []
    assert time.perf_counter() - started < 1.0


def test_the_same_fact_found_twice_in_one_message_is_kept_once_at_its_surer_reading() -> None:
    from mnemo.domain.extraction.pipeline import one_fact_once

    def found(confidence: float, polarity: bool = False, city: str = "glasgow") -> Candidate:
        return Candidate(category=Category.BIOGRAPHICAL, subject="home_location", polarity=polarity,
                         content=f"User {'lives' if polarity else 'no longer lives'} in {city}.",
                         confidence=confidence, evidence="moved from glasgow to paisley", message_id="m",
                         occurred_at=MONDAY, tags=["home_location"])

    twice = [found(0.9), found(0.95, True, "paisley"), found(0.95)]
    kept = one_fact_once(twice)
    assert [(c.content, c.confidence) for c in kept] == [("User lives in paisley.", 0.95),
                                                        ("User no longer lives in glasgow.", 0.95)]
    # a rejected reading is left as it is (it is reported, not stored), and different facts all stay
    rejected = found(0.9)
    rejected.should_store = False
    assert len(one_fact_once([rejected, found(0.8), found(0.8, True, "paisley")])) == 3


def test_a_weekday_that_labels_a_date_gives_that_date() -> None:
    # "Thursday Feb 19" said on Monday 2 February: the weekday alone read as the next Thursday (5 February)
    monday = datetime(2026, 2, 2, 10, tzinfo=UTC)
    assert anchor("my eye test is Thursday Feb 19 at 10:30", monday, "future") == "2026-02-19"
    assert anchor("its thurs 5 feb at 10am", monday, "future") == "2026-02-05"
    assert anchor("Sat, 14 March", monday, "future") == "2026-03-14"
    assert anchor("friday the 13th", monday, "future") == "2026-02-13"
    assert anchor("on tuesday", monday, "future") == "2026-02-03"


def test_a_value_is_dated_by_the_date_nearest_it_in_its_clause() -> None:
    from mnemo.domain.extraction.dates import anchor_near

    text = "training for the Berlin half, it's on 5 April, did 12 km today"
    at = text.index("Berlin half")
    # the first pattern that matched anywhere decided: "today" dated the race to the day it was mentioned
    assert anchor(text, MONDAY, "future") == "2026-03-02"
    assert anchor_near(text, at, at + len("Berlin half"), MONDAY, "future") == ("2026-04-05", "5 April")
    text = "Monday was a board meeting, Tuesday I had jury duty"
    at = text.index("jury duty")
    assert anchor_near(text, at, at + 9, datetime(2026, 3, 5, tzinfo=UTC), "past") == ("2026-03-03", "Tuesday")
    assert anchor_near("no date here", 0, 2, MONDAY) is None


@pytest.mark.parametrize(("text", "meant"), [
    ("the exam's on tuesday, wait no, wednesday", "the exam's on wednesday"),
    ("physio is Monday March 9 at 4... sorry, 4:45. I always get that wrong",
     "physio is Monday March 9 at 4:45. I always get that wrong"),
    ("dentist on the 14th, sorry, the 15th", "dentist on the 15th"),
    ("we meet at 7, no 8", "we meet at 8"),
    ("flying out in may. actually june", "flying out in june"),
    # no second day or time after the words that take back: nothing is corrected
    ("Tuesday, no idea why", "Tuesday, no idea why"),
    ("I run at 6am, no excuses", "I run at 6am, no excuses"),
    ("i have 2 dogs, no cats", "i have 2 dogs, no cats"),
    ("fishing on april 11th, no wait it's the 12th", "fishing on april 12th"),
    # "it's" adds to a date, and a day is not taken back by a number that is no day
    ("Party on Saturday, it's 8pm", "Party on Saturday, it's 8pm"),
    ("My birthday is on May 3, it's Sunday", "My birthday is on May 3, it's Sunday"),
    ("The exam is on the 14th, it is Tuesday", "The exam is on the 14th, it is Tuesday"),
    ("Got my 2nd jab tuesday. It's 3 weeks till the next one",
     "Got my 2nd jab tuesday. It's 3 weeks till the next one"),
    ("Friday no 5 people came", "Friday no 5 people came"),
    # a day before its month, as many write it, and "well" before the words that take it back
    ("she visits on 20 march, no, 21 march", "she visits on 21 march"),
    ("the gig is on the 6th of June well actually it's the 7th", "the gig is on the 7th of June"),
    ("test on 14 april, no wait, it is 15 april, the 14 is her birthday", "test on 15 april, the 14 is her birthday"),
    ("on Saturday, well, Sunday works too", "on Saturday, well, Sunday works too"),
    ("I have 2 may, no, 3 mayors", "I have 2 may, no, 3 mayors"),
    # taken back courteously; "the 20" is a day, as the 18th it takes back
    ("in Alexandria on the 20th of March, no, forgive me, the 19th, as", "in Alexandria on the 19th of March, as"),
    ("we leave the 18th - no, perdón, the 20, they changed", "we leave the 20, they changed"),
    ("the 5th, the 20 people came", "the 5th, the 20 people came"),
    # said as not the one, then the one
    ("the Boki exam is not in June, it is on 24 May. I misread", "the Boki exam is on 24 May. I misread"),
    ("its not 5pm, its 6pm", "its 6pm"),
    ("I am not free on Monday, Tuesday works", "I am not free on Monday, Tuesday works"),
    # the one, then not the other: left for the tagger, which reads both (a deadline and the one it is not)
    ("thesis is due 30 April, not 30 March", "thesis is due 30 April, not 30 March"),
])
def test_a_day_or_time_taken_back_in_the_same_breath_is_read_as_the_one_meant(text: str, meant: str) -> None:
    from mnemo.domain.extraction.dates import corrected_dates

    assert corrected_dates(text) == meant


@pytest.mark.parametrize(("text", "meant"), [
    ("my moot is on feb 3rd - omg my flatmate just set off the fire alarm AGAIN - sorry, feb 13th",
     "my moot is on feb 13th"),
    ("convocation is on June 6 hold on one sec the dispatcher is calling me okay sorry it is June 9 at UBC",
     "convocation is on June 9 at UBC"),
    ("the jags on the 12th of March - sorry, Eilidh's just tipped her porridge over Bess - the 21st, I mean.",
     "the jags on the 21st of March."),
    ("visiting from Sacramento on the 18th - wait my phone's blowing up - the 25th, sorry", "visiting from "
     "Sacramento on the 25th"),
    ("I have exam ISTQB Advanced on 6 March, no wait, I checked in email, it is 13 March.",
     "I have exam ISTQB Advanced on 13 March."),
])
def test_a_day_taken_back_across_an_aside_is_read_as_the_one_meant(text: str, meant: str) -> None:
    from mnemo.domain.extraction.dates import corrected_dates

    assert corrected_dates(text) == meant


@pytest.mark.parametrize("text", ["we fly on the 3rd - my sister comes on the 5th - sorry",
                                  "party on the 3rd - the kids loved it - 5 of them came",
                                  "the exam is June 6 and then sorry, the party is June 9",
                                  "the party is on the 3rd, sorry for the noise, it is 5 of us",
                                  # a courtesy, eagerness, another day as its own clause's subject, a count
                                  "My flight to Lisbon is on the 3rd - sorry for the spam - the 5th is when we're back",
                                  "My job interview is on Thursday - sorry if I sound nervous - Friday I have another",
                                  "we arrive in Rome on Friday - can't wait - Saturday is the wedding",
                                  "My dentist appointment is at 3 - sorry, typing one-handed - 2 kids screaming here",
                                  "I can do Monday - sorry for the late reply - Tuesday also works",
                                  # a bare "no" and nothing checked
                                  "my exam was on Monday, no results yet, it's Friday already",
                                  "we moved in on the 12th, no heating yet, it's the 20th and still nothing"])
def test_an_aside_naming_a_day_of_its_own_or_taking_none_back_leaves_the_day(text: str) -> None:
    from mnemo.domain.extraction.dates import corrected_dates

    assert corrected_dates(text) == text


@pytest.mark.parametrize("text", ["tuesday" + "." * 40 + "x", "tuesday" + " sorry, ..." * 400 + " x",
                                  "at 9" + "." * 3000 + "x", "See you on tuesday" + "." * 30 + " can't wait",
                                  "on 20 march" + " well" * 2000 + " x", "the 6th of June" + ", well. " * 2000,
                                  "June 6" + " hold on" * 3000 + " x", "on the 3rd - " + "sorry wait " * 2000 + "x",
                                  "the 3rd" + " - sorry" * 2000 + " x"])
def test_a_run_of_dots_after_a_day_is_read_in_linear_time(text: str) -> None:
    # the separators between the words that take a day back were read two ways each (".." as one or two):
    # 22 dots after "tuesday" took 7.8 s, a message ending in 30 held its extraction job for hours
    import time

    from mnemo.domain.extraction.dates import corrected_dates

    started = time.perf_counter()
    corrected_dates(text)
    assert time.perf_counter() - started < 1.0


def test_a_plan_keeps_the_words_of_its_date_beside_the_anchored_day() -> None:
    # the tagger marked "school concert" and left "feb 26" outside: "(for 2026-02-26)" alone, and the
    # user's own words for the day were gone from the memory
    message = Message(role="user", content="x", message_id="m1", created_at=datetime(2026, 2, 1, tzinfo=UTC))
    candidate = slot_candidate(SLOTS["plan"], "school concert", "Noor's school concert is feb 26", False,
                               message, 0.9)
    assert candidate.content == "User plans: school concert feb 26 (for 2026-02-26)."
    # a value that holds its date already is not given it twice
    assert said("plan", "dentist on friday", "dentist on friday").content == \
        "User plans: dentist on friday (for 2026-03-06)."


@pytest.mark.parametrize(("value", "clause", "expected"), [
    ("Google Maps", "I use Waze instead of Google Maps", True),
    ("WhatsApp", "I use WeChat for everything, not WhatsApp", True),
    ("iphone", "i use android not iphone", True),
    ("vim", "I code in emacs rather than vim", True),
    ("Waze", "I use Waze instead of Google Maps", False),  # the one said first is the user's
    ("Notion", "nothing beats Notion", False),  # "not" inside a word is none
    ("Obsidian", "I'm not sure, Obsidian maybe", False),  # a "not" earlier in the clause is not the value's
])
def test_the_value_right_after_not_or_instead_of_is_the_one_the_user_does_not_have(
        value: str, clause: str, expected: bool) -> None:
    from mnemo.domain.extraction.pipeline import not_this_one

    assert not_this_one(value, clause) is expected


@pytest.mark.parametrize(("slot", "value", "clause", "expected"), [
    ("pet", "old dog Rex", "our old dog Rex passed away in August", True),
    ("pet", "cat", "my cat died this morning 😭😭", True),
    ("pet", "cat", "my cat Milo sadly had to be put down", True),
    ("family", "mum", "my mum passed in the autumn", True),
    ("family", "dad", "since my dad passed", True),
    ("relationship_status", "girlfriend", "My girlfriend and I broke up last weekend", True),
    ("relationship_status", "husband", "my husband and I split up in the spring", True),
    ("family", "son", "my son passed his driving test", False),  # a test passed is no death
    ("family", "mum", "my mum's friend passed away", False),  # the owner's friend, not the owner
    ("relationship_status", "partner", "my partner and I split the school runs", False),
    ("family", "dad", "my dad lives with us", False),
    ("family", "grandparents", "my grandparents are no longer alive", True),
    ("family", "dad", "my dad's no longer with us", True),
    ("pet", "cat", "the cat is gone, the neighbours think a fox", True),
    ("family", "mum", "my mum's gone to Spain for a month", False),  # gone somewhere, not gone
    ("owns", "phone", "my phone died", False),  # a thing's end is for the slots of things to read
])
def test_a_pet_or_relative_that_died_and_a_partner_parted_from_are_gone(
        slot: str, value: str, clause: str, expected: bool) -> None:
    from mnemo.domain.extraction.pipeline import gone_after

    assert gone_after(slot, value, clause) is expected


@pytest.mark.parametrize(("text", "expected"), [
    ("the whole team switched to Vitest with TypeScript last sprint",
     [("project_stack", "Vitest with TypeScript", None)]),
    ("we're migrating from Jenkins to GitLab CI, my manager decided", [("project_stack", "GitLab CI", "Jenkins")]),
    ("we've shifted our books from QuickBooks to Xero", [("uses", "Xero", "QuickBooks")]),
    ("moved the deploys from Heroku to Fly.io. so much cheaper", [("project_stack", "Fly.io", "Heroku")]),
    # a home, a shift pattern, a diet, someone else's move, a day, a switch only thought of or asked about
    ("we moved from Cardiff to Bristol in May", []),
    ("I switched to nights at the hospital", []),
    ("switched to Mediterranean food this year", []),
    ("my brother is shifting to Pune for his job", []),
    ("we changed the team meeting to Tuesday", []),
    ("thinking of switching our app to Flutter", []),
    ("should we migrate the backend to Go?", []),
    ("we're migrating the app from java 8 to 17 this quarter", []),  # a version, not a tool
])
def test_a_switch_of_tools_names_the_new_tool_and_the_one_left(
        text: str, expected: list[tuple[str, str, str | None]]) -> None:
    from mnemo.domain.extraction.switches import switched_to

    assert [(slot, new, old) for slot, new, old, _said, _sentence in switched_to(text)] == expected


@pytest.mark.parametrize(("value", "clause", "expected"), [
    ("19", "I grew up in Kumasi and came over when I was 19", True),
    ("18", "been doing it since I was 18", True),
    ("22", "I'm a bus driver in Istanbul, 22 years on the İETT buses", True),
    ("41", "retired as of Friday!! 41 years at the post office", True),
    ("14", "mostly 14 to 16 year olds", True),
    ("41", "im 41 btw", False),
    ("40", "im learnig to swim at 40 lol", False),  # "at 40": the age now
    ("52", "I still hurl with the junior B team, God help me at 52", False),
    ("25", "age 25, m, new to this app", False),
    ("nineteen", "Mr Pickles died on Saturday last, at the age of nineteen", True),  # the cat's age
    ("12", "I started piano at the age of 12", True),
])
def test_an_age_once_or_a_span_of_years_is_not_the_users_age_now(value: str, clause: str, expected: bool) -> None:
    from mnemo.domain.extraction.pipeline import not_the_age_now

    assert not_the_age_now(value, clause) is expected


def test_a_new_dose_of_a_medicine_is_the_same_fact_changed() -> None:
    assert said("health", "levothyroxine 100 mcg", "increased my levothyroxine dose to 100 mcg").subject == \
        said("health", "levothyroxine 75 mcg", "started me on levothyroxine 75 mcg").subject == "health:levothyroxin"


def _values(reader: Callable[[str], list[tuple[str, str, str | None, str, str]]]) -> Callable[[str], list[str]]:
    """The values one of the readers of facts said in passing finds in a text."""
    return lambda text: [value for _slot, value, _old, _said, _sentence in reader(text)]


_diets = _values(diets_followed)


@pytest.mark.parametrize(("read", "text", "expected"), [
    (_diets, "I'm starting a low FODMAP diet this week", ["low FODMAP"]),
    (_diets, "we've been doing a Nordic kind of diet since spring", ["Nordic"]),
    (_diets, "i follow a plant-based diet", ["plant-based"]),
    # how a diet is kept, no diet named, one only thought of or asked about
    (_diets, "im on a strict diet", []),
    (_diets, "I was going to start a diet today but the donuts won", []),
    (_diets, "thinking of trying a vegan diet", []),
    (_diets, "is a keto diet good for runners?", []),
    # the short and the Hindi words for vegetarian, and Quebec's "chu"; not before a noun
    (_diets, "chu végé depuis deux semaines", ["végé"]),
    (_diets, "I am shakahari now from last week", ["shakahari"]),
    (_diets, "I'm veggie burger obsessed lol", []),
])
def test_a_diet_named_is_read_where_it_is_said(
        read: Callable[[str], list[str]], text: str, expected: list[str]) -> None:
    assert read(text) == expected


@pytest.mark.parametrize(("value", "clause", "expected"), [
    # the tagger's piece of a job runs back to where the user says what they do
    ("Rotterdam", "I work since 4 years as process engineer by Shell in Rotterdam",
     "process engineer by Shell in Rotterdam"),
    ("for private clients", "I'm freelance now doing bookkeeping for private clients",
     "freelance now doing bookkeeping for private clients"),
    ("Baker Bros", "I am managing a small cafe in Leeds, name is Baker Bros",
     "managing a small cafe in Leeds, name is Baker Bros"),
    ("Lidl", "im at Lidl now", "Lidl"),
    # a new job said by when it began
    ("Oranmore", "and I'm burying the lede here, is that I started last week as deputy principal at Scoil Éanna "
     "in Oranmore", "deputy principal at Scoil Éanna in Oranmore"),
    ("Arriva", "I've just started as a driver for Arriva", "driver for Arriva"),
    ("Leeds", "I started running again and I love Leeds", "Leeds"),
    # a title taken back on the way: the one meant only
    ("junior designer", "I joined an agency as junior developer, sorry, junior designer", "junior designer"),
    # no "I" before it, or too far: the value as found
    ("nurse", "nurse, nights, mostly", "nurse"),
    ("Acme", "I love my job at Acme", "Acme"),
    # another subject between: what follows is no part of the job
    ("tests", "I work as QA in a fintech called Finvo and we use Jest for the tests", "tests"),
    ("Acme", "I'm so tired this week, the kids were sick and the car broke down and work is mad at Acme", "Acme"),
    # an introduction's list: the name and the age before it are no part of the job
    ("nurse", "hey im dana, 41, nurse", "nurse"),
    ("retired teacher", "I'm 62, recently retired teacher", "retired teacher"),
])
def test_a_piece_of_a_job_runs_back_to_where_the_user_says_what_they_do(value: str, clause: str, expected: str) -> None:
    from mnemo.domain.extraction.pipeline import job_phrase

    assert job_phrase(value, clause) == expected


@pytest.mark.parametrize(("value", "clause", "expected"), [
    # the tagger read the number beside the deadline as the deadline
    ("of 4", "beta deadline is 30 April, team of 4", "30 April"),
    ("end of May", "launch is end of May", "end of May"),
    ("Q3", "ship by Q3, team of 4", "Q3"),
])
def test_a_deadline_read_as_a_bare_number_is_the_date_beside_it(value: str, clause: str, expected: str) -> None:
    from mnemo.domain.extraction.pipeline import deadline_date

    assert deadline_date(value, clause, MONDAY) == expected


def test_shouting_is_lowered_with_markers_and_offsets_kept() -> None:
    from mnemo.domain.extraction.segment import unshouted
    text = "I AM MOVING TO WHITBY. MY CARD IS [REDACTED:card] OK"
    out = unshouted(text)
    assert out == "I am moving to whitby. My card is [REDACTED:card] ok"
    assert len(out) == len(text)
    # a few capitals in ordinary text are no shouting
    assert unshouted("I work at the NHS in the ICU, OK") == "I work at the NHS in the ICU, OK"
    assert unshouted("OK LOL") == "OK LOL"


@pytest.mark.parametrize(("text", "meant"), [
    ("up in Oban, the 14th o June... naw hing oan, it's the 21st, the 14th wis jist the hotel's first offer",
     "the 21st of June"),
    ("a talk for PyData Berlin, on the 14th, non attends, the 15th of February", "the 15th of February"),
    ("the 3rd, nah the 4th", "the 4th"),
    ("departure the 14 May, ah no, pardon, the 15 May, the 14 is the birthday", "the 15 May"),
])
def test_a_date_taken_back_in_other_voices_and_languages_is_the_one_meant(text: str, meant: str) -> None:
    from mnemo.domain.extraction.dates import corrected_dates
    out = corrected_dates(text)
    assert meant in out
    assert "14" not in out.split(meant)[0]
    assert "3rd" not in out


@pytest.mark.parametrize(("value", "text", "slot", "theirs"), [
    # the subject before a clause that opens on its verb, over an aside and a title's full stop
    ("penicillin", "I am allergic to sulfa drugs. My colleague Dr. Reem, on the other hand, is allergic to "
                   "penicillin, which causes confusion.", "allergy", True),
    ("sulfa drugs", "I am allergic to sulfa drugs. My colleague Dr. Reem, on the other hand, is allergic to "
                    "penicillin, which causes confusion.", "allergy", False),
    # kin in the Englishes users write, a lowercase name, a learner's bare verb
    ("type 2 diabetes", "my bhai tariq got type 2 diabetes bad, he drives uber", "health", True),
    ("keto", "Roommate Jake start keto diet, he eat only meat and eggs", "diet", True),
    ("Kotlin", "team uses Kotlin", "project_stack", False),  # "uses" is no name of the team's
])
def test_someone_else_named_before_the_clause_or_in_other_words_owns_the_value(value: str, text: str, slot: str,
                                                                               theirs: bool) -> None:
    at = text.find(value)
    clause, sentence = clause_around(text, at, at + len(value)), sentence_around(text, at, at + len(value))
    assert (screen(value, clause, slot, sentence=sentence) == "about_someone_else") is theirs


def test_a_titles_full_stop_before_a_name_ends_no_sentence() -> None:
    text = "My colleague Dr. Reem is allergic to penicillin. I am not."
    at = text.find("penicillin")
    assert sentence_around(text, at, at + 10) == "My colleague Dr. Reem is allergic to penicillin."
    assert clause_around(text, at, at + 10) == "My colleague Dr. Reem is allergic to penicillin"
    # "MS" and "St" are no titles, and a title's stop before a lowercase word ends the sentence
    for text, word, sentence in (("I have MS. My brother is vegan.", "MS", "I have MS."),
                                 ("I live on Elm St. My wife is a nurse.", "Elm", "I live on Elm St."),
                                 ("saw the dr. then home", "saw", "saw the dr.")):
        at = text.find(word)
        assert sentence_around(text, at, at + len(word)) == sentence
