"""Values a later message takes back, which the tagger read as stated (the blind voices_c follow-ups showed each):
what the user told before and has changed since ("I told you I was learning guitar, but I've switched to the
ukulele"), a routine called off ("Tuesday yoga is off for me now"), a value said to be wrong ("pescatarian was
wrong"), an allergy outgrown, and a trip the user changed their mind about. Stored as stated, each stayed in the
blocks after the change. And what only touches a value ends none of it. The shipped model, one message each."""

from __future__ import annotations

import pytest

from mnemo.domain.extraction.pipeline import LearnedExtractor
from tests.integration.conversation_steps import kept


def _kept(extractor: LearnedExtractor, text: str) -> list[str]:
    return [c.content for c in kept(extractor, text)]


@pytest.mark.parametrize(("text", "ended", "now"), [
    ("I told you I was learning guitar, but I've switched to the ukulele, my fingers hurt less",
     "User is no longer learning guitar.", "User is learning ukulele."),
    ("I said I was on Jira earlier but we moved everything to Linear last sprint",
     "User no longer uses Jira.", "User uses Linear."),
    ("remember i said i was at Tesco? not anymore, I'm a shift supervisor at Aldi since last month",
     "User no longer works as/at Tesco.", "User's job: shift supervisor at Aldi."),
])
def test_a_value_told_before_and_changed_since_is_ended(extractor: LearnedExtractor, text: str, ended: str,
                                                        now: str) -> None:
    kept = _kept(extractor, text)
    assert ended in kept, kept
    assert now in kept, kept


@pytest.mark.parametrize(("text", "ended"), [
    ("Tuesday yoga is off for me now, the teacher left", "User no longer: Tuesday yoga."),
    ("pottery class got cancelled for good, the studio closed", "User no longer does pottery."),
    ("no wait, I eat chicken. pescatarian was wrong, I just don't eat pork",
     "User no longer follows this diet: pescatarian."),
    ("the allergist says I've outgrown the shellfish allergy!! great news", "User is not allergic to shellfish."),
])
def test_a_value_called_off_taken_back_or_outgrown_is_ended(extractor: LearnedExtractor, text: str,
                                                           ended: str) -> None:
    assert ended in _kept(extractor, text)


def test_a_trip_the_user_changed_their_mind_about_is_called_off(extractor: LearnedExtractor) -> None:
    kept = _kept(extractor, "changed my mind about the Bali trip, we're going to Lombok instead, same dates")
    assert "User no longer plans: the Bali trip." in kept
    assert not any(c.startswith("User plans:") and "Bali" in c for c in kept)


@pytest.mark.parametrize(("text", "held"), [
    ("I told you I was allergic to nuts, but you put almonds in the recipe!", "User is allergic to nuts."),
    ("I told you I use VS Code but it keeps crashing", "User uses VS Code."),
    ("my laptop is off", "User owns laptop."),  # a thing switched off, no pastime called off
])
def test_a_value_held_with_a_but_or_an_off_stays(extractor: LearnedExtractor, text: str, held: str) -> None:
    assert held in _kept(extractor, text)


@pytest.mark.parametrize(("text", "kept_on"), [
    # an allergy told before and added to is never ended by what follows the "but"
    ("I told you I was allergic to peanuts, but actually it's tree nuts too", "peanuts"),
    ("I said I was learning Spanish, but I'm now also doing French", "Spanish"),  # one more, none ended
    ("I mentioned I use VS Code, but I switched themes and it looks weird", "VS Code"),  # the change is not of it
    ("yoga was cancelled today because the teacher is sick", "yoga"),  # one evening's, not the routine
    ("my Spanish class is cancelled tonight so I have a free evening", "Spanish"),
    ("buying the Tesla was a mistake, the range is awful in winter", "Tesla"),
    ("so forget vegan for today, it's my birthday", "vegan"),
])
def test_what_only_touches_a_value_ends_none(extractor: LearnedExtractor, text: str, kept_on: str) -> None:
    # (a plan of one evening called off is ended, as it should be: "User no longer plans: yoga today.")
    ended = [c.content for c in kept(extractor, text) if not c.polarity and not c.subject.startswith("plan")]
    assert not any(kept_on in c for c in ended), ended
