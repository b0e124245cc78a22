"""A close one's life (docs/slots.md, family_life) through the local home with the learned extractor: filed under
the person and never as the user's own, in the block only for a request that names them, and left behind with a
partner the user is no longer with."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemo.bootstrap import Mnemo
from mnemo.domain.extraction.pipeline import LearnedExtractor
from mnemo.domain.models import Status
from tests.integration.conversation_steps import learned_home, live_facts, say_next_day, stored

TENANT, USER = "t-life", "u-life"


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Mnemo]:
    with learned_home(tmp_path) as built:
        yield built


def _block(service: Mnemo, query: str) -> str:
    return service.retriever.retrieve(TENANT, USER, query, top_k=8, token_budget=500).context or ""


def test_a_husbands_job_is_his_and_helps_a_request_about_him_only(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1", "I'm an accountant in Tampere. Husband Juha. He is carpenter.")
    assert live_facts(service, TENANT, USER, "family_life") == ["User's husband Juha's job: carpenter."]
    assert all("carpenter" not in c for c in live_facts(service, TENANT, USER, "job"))
    assert "carpenter" in _block(service, "Gift idea for my husband. Something useful.")
    assert "carpenter" not in _block(service, "what should I cook tonight?")


def test_a_brothers_home_is_not_the_users(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1", "I live in York. My brother Tom is a firefighter in Leeds.")
    assert live_facts(service, TENANT, USER, "home_location") == ["User lives in York."]
    life = live_facts(service, TENANT, USER, "family_life")
    assert "User's brother Tom's job: firefighter." in life
    assert "Leeds" not in _block(service, "find me a good climbing gym near home")


def test_a_partner_left_takes_their_life_along(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1", "My girlfriend Larissa is vegetarian and she wants me to eat less meat")
    assert "vegetarian" in _block(service, "ideas for a dinner date with my girlfriend?")
    say_next_day(service, TENANT, USER, "c2",
                 "Me and my girlfriend decided to finish, the distance was impossible. So now I am single.")
    assert live_facts(service, TENANT, USER, "family_life") == []
    now = service.ports.clock.now()
    ended = [m for m in service.ports.memories.all_for_user(TENANT, USER)
             if m.subject.startswith("family_life:") and m.is_live(now) and not m.polarity]
    assert [m.status for m in ended] == [Status.ACTIVE]  # listed as a retraction, never injected
    assert "vegetarian" not in _block(service, "ideas for a dinner date with my girlfriend?")


@pytest.mark.parametrize(("text", "mine", "theirs"), [
    ("I, like my mum, am vegan", {"diet": "User's diet: vegan."}, []),  # the user's own verb after the aside
    ("Husband Juha. He is carpenter.", {}, ["User's husband Juha's job: carpenter."]),
    ("ME AND MY HUSBAND ARE RETIRED TEACHERS FROM OHIO", {"job": "User's job: retired."}, []),
    ("I'm 22 and just moved out of my parents' house into a flatshare in Madrid.",
     {"home_location": "User lives in Madrid."}, []),  # the parents' house says nothing of them
    ("Our son Deniz is 12, he goes to Gymnasium in Kreuzberg", {}, []),  # where a child's school is is no home
])
def test_what_is_said_of_a_close_one_and_what_of_the_user(extractor: LearnedExtractor, text: str,
                                                          mine: dict[str, str], theirs: list[str]) -> None:
    facts = stored(extractor, text)
    assert {s: c for s, c in facts.items() if s in mine} == mine
    assert [c.split(" (")[0] for s, c in facts.items() if s.startswith("family_life:")] == theirs
    if not mine:
        assert "job" not in facts


def test_a_partner_named_in_an_earlier_session_is_known_by_name(service: Mnemo) -> None:
    # the partner's name comes from the relationship fact ("User's relationship: husband Vito."), not a family one
    say_next_day(service, TENANT, USER, "c1", "I am Rosa, 78, I live in Woodbridge with my husband Vito, he is 81")
    say_next_day(service, TENANT, USER, "c2", "Vito fell on the ice and broke his hip, now he is in Mackenzie hospital")
    life = live_facts(service, TENANT, USER, "family_life")
    assert any("Vito" in fact and "hip" in fact for fact in life), life
    assert live_facts(service, TENANT, USER, "job") == []  # being in hospital is no job
    assert "hip" in _block(service, "What I bring to Vito in hospital?")
    assert "broke" not in _block(service, "what should I plant in the garden this spring?")


def test_a_partner_named_by_name_alone_is_at_the_table(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1", "Mi live inna Peckham wid mi wife Marcia.")
    say_next_day(service, TENANT, USER, "c2", "Marcia say she a go vegetarian fi Lent. Me? Mi still love mi chicken")
    assert all("vegetarian" not in fact for fact in live_facts(service, TENANT, USER, "diet"))
    assert "vegetarian" in _block(service, "Gimme some easy meal mi can mek fi both a we dis week")


@pytest.mark.parametrize(("text", "relationship", "theirs"), [
    # the name after the word for the partner, where the tagger read the word alone
    ("my husband Vito broke his hip last week, he is in hospital", "User's relationship: husband Vito.",
     ["User's husband Vito broke their hip last week"]),
    # what happened to a close one that a request about them needs; a death in the family is the user's own event
    ("my mum had a stroke in January", None, ["User's mum had a stroke in January"]),
    ("my son crashed his bike yesterday", None, []),  # their day passes
])
def test_what_happened_to_a_close_one(extractor: LearnedExtractor, text: str, relationship: str | None,
                                      theirs: list[str]) -> None:
    facts = stored(extractor, text)
    assert facts.get("relationship_status") == relationship
    assert [c.split(" (")[0] for s, c in facts.items() if s.startswith("family_life:")] == theirs


def test_a_death_in_the_family_stays_the_users_own_event(extractor: LearnedExtractor) -> None:
    facts = stored(extractor, "my mum passed in April. I'm not her carer anymore, so my weekdays are suddenly empty")
    assert not [s for s in facts if s.startswith("family_life:")]
    assert any(s.startswith("event:") and "passed" in c for s, c in facts.items())


@pytest.mark.parametrize(("text", "calendar"), [
    # a birthday of someone the user names is on the user's calendar, never the user's own birthday
    ("Caleb's birthday is on the 9th of May, he will be 12.", "User's calendar: Caleb's birthday is on the 9th of May"),
    ("Pia birthday March 3, she will be 7. Joy plan party sa Jollibee.", "User's calendar: Pia's birthday March 3"),
    ("my daughter's bday is the 14th of June", "User's calendar: daughter's bday is the 14th of June"),
])
def test_a_birthday_of_someone_named_is_theirs(extractor: LearnedExtractor, text: str, calendar: str) -> None:
    facts = stored(extractor, text)
    assert "birthday" not in facts
    assert [c.split(" (for")[0] for s, c in facts.items() if c.startswith("User's calendar:")] == [calendar]


@pytest.mark.parametrize("text", [
    "Aoife's confirmation is the 9th of May and i havent a notion what to do for food",  # no birthday at all
    "Zosia birthday is 3rd of February she is crazy about horses",
])
def test_a_day_said_of_someone_else_is_no_birthday_of_the_users(extractor: LearnedExtractor, text: str) -> None:
    assert "birthday" not in stored(extractor, text)


def test_a_partners_name_is_no_day(extractor: LearnedExtractor) -> None:
    facts = stored(extractor, "Went to the cinema with my girlfriend Saturday night")
    assert "Saturday" not in facts.get("relationship_status", "")


@pytest.mark.parametrize(("text", "birthday"), [
    ("my birthday is 3 May", "User's birthday is 3 May."),
    ("Happy birthday to me, it's on the 5th of May", "User's birthday is 5th of May."),
    ("Kindly note my date of birth is 03-11-1958, I'm working out my pension", "User's birthday is 03-11-1958."),
    ("I turned 40 on 3 March", "User's birthday is 3 March."),
    ("My birthdate is 3 May 1980", "User's birthday is 3 May 1980."),
    ("Ok birthday is 3 May btw", "User's birthday is 3 May."),
    ("Our birthday is on 9 May (twins!)", "User's birthday is 9 May."),
])
def test_the_users_own_birthday_is_still_theirs(extractor: LearnedExtractor, text: str, birthday: str) -> None:
    assert stored(extractor, text).get("birthday") == birthday


def test_a_capital_before_the_word_for_a_partner_names_nobody(extractor: LearnedExtractor) -> None:
    facts = stored(extractor, "The missus does the books and I do the cows")
    assert [c for s, c in facts.items() if s.startswith("family_life:")] == ["User's missus' hobby: books."]


@pytest.mark.parametrize(("text", "relationship"), [
    # a parting said of "we" or of the partner by name, where the tagger read the partner as the relationship now
    ("Pavel and me, we broke up. He took job with orchestra in Boston.", "User's relationship is no longer: Pavel."),
    ("we're divorced but co-parent well", "User's relationship: divorced."),
    ("my wife and I are separated, she moved out in May", "User's relationship: separated."),
    # what the user says the relationship is now stands
    ("we broke up, so I'm single again and cooking for one", "User's relationship: single."),
])
def test_a_parting_is_the_relationship_ended(extractor: LearnedExtractor, text: str, relationship: str) -> None:
    assert stored(extractor, text).get("relationship_status") == relationship


@pytest.mark.parametrize("text", ["we split the bill", "my sister broke up with her bf", "If we broke up I would move",
                                  "We split up the chores so it's fair: he cooks, I clean.",
                                  "We broke up the trip into two legs", "We separated the kids into different rooms",
                                  "We ended it at 2am, great party",
                                  "Tom and I called it quits at 5 and went for a beer"])
def test_no_parting_of_the_users(extractor: LearnedExtractor, text: str) -> None:
    assert "relationship_status" not in stored(extractor, text)


def test_a_partner_parted_by_name_ends_the_relationship_stored_with_the_word_for_them(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1", "I live in Washington Heights with boyfriend Pavel, he is pianist")
    assert live_facts(service, TENANT, USER, "relationship_status") == ["User's relationship: boyfriend Pavel."]
    say_next_day(service, TENANT, USER, "c2", "Pavel and me, we broke up. He took job with orchestra in Boston.")
    assert not [f for f in live_facts(service, TENANT, USER, "relationship_status") if "no longer" not in f]
