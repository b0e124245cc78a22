"""Who a stretch of a message is about: the user's dependants and guests (docs/slots.md, family_care) and their
close ones (family_life), said again in the first person for the tagger; anyone else stays out."""

from __future__ import annotations

import pytest

from mnemo.domain.extraction.household import (
    AN_AGE,
    CARE_SLOTS,
    GUEST_SLOTS,
    Person,
    arranged,
    content,
    partner_left,
    people_in,
    relatives_named,
    slots_of,
    stretches,
    subject,
)


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
    "my ex-husband has gout so no red meat for him",  # a partner no longer
    "my previous partner was vegan",  # a partner no longer, whom the user would otherwise share a home with
    "Marco's wife is pregnant, due in May",  # someone else's spouse
    "Marta is allergic to kiwi",  # a name no family fact holds: a friend, a colleague
    "my neighbour's kid is vegan and coming to the party",  # a child, but not the user's
    "her son has a nut allergy",
    "I am a partner at a small firm of solicitors in Edinburgh",  # a kinship word said of anyone: the user's job
    "I'm a mother of two and a nurse in Leeds",
])
def test_nobody_close_to_the_user(text: str) -> None:
    assert stretches(text, {"noor": Person("noor", "")}) == []


@pytest.mark.parametrize(("text", "who"), [
    ("my sister Bea is vegan, she brought her own roast", ["sister Bea"]),
    ("my mum's diabetic and my brother is keto", ["mum", "brother"]),
    ("Husband Juha. He is carpenter.", ["husband Juha"]),
])
def test_other_adults_are_close_ones_not_dependants(text: str, who: list[str]) -> None:
    # their life is kept (family_life) for requests that name them; their care is no matter of the user's
    found = stretches(text, {})
    assert [s.person.label for s in found] == who
    assert all(slots_of(s)[0] in (frozenset(), GUEST_SLOTS) for s in found)
    assert all(slots_of(s)[1] for s in found)


def test_a_close_ones_life_is_read_only_where_the_words_say_what_they_are_or_do() -> None:
    # "baby on hip" says where the baby is, not what the baby does; "my dad's birthday" is a thing of his
    [baby] = stretches("sorry typing one handed, baby on hip. need quick dinner ideas", {})
    assert slots_of(baby) == (CARE_SLOTS, frozenset())
    assert stretches("which sweets can I buy for my dad's birthday that are definitely halal", {}) == []


@pytest.mark.parametrize(("relationship", "ended", "fact", "left"), [
    ("User's relationship: single.", False, "User's girlfriend Larissa's diet: vegetarian.", True),
    ("User's relationship is no longer: together.", True, "User's boyfriend's job: the bank.", True),
    ("User's relationship: girlfriend Inês.", False, "User's girlfriend Larissa's diet: vegetarian.", True),
    ("User's relationship: fiancée Larissa.", False, "User's girlfriend Larissa's diet: vegetarian.", False),
    ("User's relationship: married.", False, "User's husband Juha's job: carpenter.", False),
    ("User's relationship: single.", False, "User's sister Bea's diet: vegan.", False),  # no partner's
    ("User's relationship: Married.", False, "User's husband Juha's job: carpenter.", False),  # a status, no name
])
def test_a_new_relationship_leaves_the_old_partners_life_behind(relationship: str, ended: bool, fact: str,
                                                                 left: bool) -> None:
    assert partner_left(relationship, ended, fact) is left


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


@pytest.mark.parametrize("text", [
    "ME AND MY HUSBAND ARE RETIRED TEACHERS FROM OHIO",  # both are: the job is the user's too
    "I live with my girlfriend in Kraków and I work remote",
    "kami ni hubby nasa Davao na",
    "my partner and I both work at Ikea in Gothenburg",
])
def test_a_close_one_said_with_the_user_has_no_life_of_their_own_there(text: str) -> None:
    assert not [s for s in stretches(text, {}) if slots_of(s)[1]]


@pytest.mark.parametrize(("text", "named"), [
    ("Also my wife gave birth to our son last month! His name is Joon.", ["son Joon"]),  # the kin named last
    ("my new granddaughter arrived, she's called Ivy", ["granddaughter Ivy"]),
    ("our son is called Leo", ["son Leo"]),
    ("my dog is called Rex", []),  # a pet's (pets.py)
    ("My son had a fever all night so I called Dr Patel", []),
    ("my wife called Steve the plumber about the boiler", []),  # called as a verb
    ("my new boss is called Dave", []),  # no relative
    ("my son has a dog named Rex", []),
    ("my son Leo plays in a band called Nirvana", []),  # named with him already
    ("my team is called Alpha", []),
])
def test_a_relatives_name_said_after_them(text: str, named: list[str]) -> None:
    assert [value for _s, _e, value in relatives_named(text)] == named


@pytest.mark.parametrize("text", ["I have a son who is allergic to peanuts", "we have a toddler with a dairy allergy"])
def test_a_dependant_said_with_a_is_still_the_users(text: str) -> None:
    [found] = stretches(text, {})
    assert (found.person.close, found.person.guest) == (False, False)


@pytest.mark.parametrize("text", ["." + " " * 5000 + "x", " " * 10000, "we " * 3000, ", " * 3000,
                                  "Thanks, that worked." + " " * 2000 + "ok"])
def test_a_run_of_spaces_is_read_for_partings_in_linear_time(text: str) -> None:
    # the parting's lead had three runs of spaces in a row, read in cubic time on a run of spaces after a full stop
    import time

    from mnemo.domain.extraction.household import partings

    started = time.perf_counter()
    partings(text)
    assert time.perf_counter() - started < 1.0
