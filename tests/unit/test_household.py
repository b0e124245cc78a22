"""Who a stretch of a message is about: the user's dependants (docs/slots.md, family_care), said again in the
first person for the tagger; other adults stay out."""

from __future__ import annotations

import pytest

from mnemo.domain.extraction.household import AN_AGE, Person, arranged, content, people_in, stretches, subject


@pytest.mark.parametrize(("text", "who", "said"), [
    ("my boy Sami has a sesame allergy, so no hummus for him", "son", None),
    ("our middle one, Ana, is coeliac", "middle one Ana", "I am coeliac"),
    ("my granddaughter Rosa, she can't have dairy at all", "granddaughter Rosa", "I can't have dairy at all"),
    ("my stepson Kit is vegan now", "stepson Kit", "I am vegan now"),
    ("the twins have swimming on thursdays", "twins", "I have swimming on thursdays"),
])
def test_a_dependant_named_by_kinship_is_who_the_stretch_is_about(text: str, who: str, said: str | None) -> None:
    found = stretches(text, {})
    if said is None:  # "my boy" is nobody's kinship word here: a dog, a friend
        assert found == []
        return
    assert [s.person.label for s in found] == [who]
    assert found[0].first_person == said


def test_a_name_the_family_facts_hold_is_a_dependant_and_a_possessive_is_theirs_or_their_doing() -> None:
    household = {"noor": Person("noor", ""), "eli": Person("Eli", "grandson")}
    doing = stretches("noor's starting reception in september", household)
    assert [(s.person.label, s.first_person) for s in doing] == [
        ("family member Noor", "I'm starting reception in september")]
    theirs = stretches("Eli's school trip is on the 4th", household)
    assert [(s.person.label, s.first_person) for s in theirs] == [("grandson Eli", "My school trip is on the 4th")]


@pytest.mark.parametrize("text", [
    "my sister Bea is vegan, she brought her own roast",
    "my ex-husband has gout so no red meat for him",  # a partner no longer
    "my previous partner was vegan",  # a partner no longer, whom the user would otherwise share a home with
    "Marco's wife is pregnant, due in May",  # someone else's spouse
    "Marta is allergic to kiwi",  # a name no family fact holds: a friend, a colleague
    "my mum's diabetic and my brother is keto",
    "my neighbour's kid is vegan and coming to the party",  # a child, but not the user's
    "her son has a nut allergy",
])
def test_other_adults_are_no_dependants(text: str) -> None:
    assert stretches(text, {"noor": Person("noor", "")}) == []


def test_a_spouse_or_partner_is_at_the_users_table() -> None:
    # they share the user's home unless the user says otherwise (retrieval gives their facts only to requests that
    # speak of them or of the user with others: domain/for_others.py)
    [found] = stretches("my husband has gout so no red meat for him", {})
    assert (found.person.label, found.person.guest) == ("husband", True)


def test_a_stretch_ends_where_the_user_speaks_of_themselves_again() -> None:
    [found] = stretches("my daughter Lila is lactose intolerant and I am allergic to shellfish", {})
    assert found.first_person == "I am lactose intolerant and"


def test_family_facts_name_their_people() -> None:
    assert people_in("daughter Jess") == [Person("Jess", "daughter")]
    assert people_in("noor") == [Person("noor", "")]
    assert people_in("two kids") == []


def test_a_dependants_fact_is_labelled_with_who_and_keyed_by_person_and_slot() -> None:
    kid = Person("Sami", "son")
    assert content(kid, "User is allergic to sesame.") == "User's son Sami is allergic to sesame."
    assert content(Person("", "twins"), "User's routine: swimming.") == "User's twins' routine: swimming."
    # one diet per person (a new one replaces the old), many allergies
    assert subject(kid, "diet", "vegan") == subject(kid, "diet", "pescatarian") == "family_care:sami_diet"
    assert subject(kid, "allergy", "sesame") != subject(kid, "allergy", "kiwi")
    assert subject(kid, "allergy", "sesame") != subject(Person("Ana", "daughter"), "allergy", "sesame")


def test_only_what_the_user_arranges_is_a_dependants_plan_and_an_age_is_no_health_need() -> None:
    assert arranged("User plans: start kindergarten in september")
    assert arranged("User's routine: swimming lessons on thursdays")
    assert not arranged("User plans: going to Mysuru for one week")  # their own trip
    assert not arranged("User's studies: medicine in Kazan")  # a grown child's own life
    assert AN_AGE.match("7 weeks")
    assert AN_AGE.match("14 months old")
    assert not AN_AGE.match("type 1 diabetes")
    assert content(Person("", "twins"), "User is allergic to peanut.") == "User's twins are allergic to peanut."
