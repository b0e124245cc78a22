"""When a fact of someone in the user's care belongs in a block (domain/for_others.py)."""

from __future__ import annotations

import pytest

from mnemo.domain.for_others import asked_for, is_care_fact, names_in, not_asked_for


def test_a_care_fact_names_its_person_by_kin_and_name() -> None:
    assert names_in("User's son Leo is allergic to sesame.") == {"son", "leo"}
    assert names_in("User's partner Sam's health: coeliac.") == {"partner", "sam"}
    assert names_in("Rohit's mother avoids onion.") == {"rohit", "mother"}
    assert is_care_fact("family_care:leo_allergy_sesame")
    assert not is_care_fact("allergy:sesame")


@pytest.mark.parametrize("query", ["what should I have for lunch?", "snacks for my run", "quick breakfast ideas",
                                   "what should i bake for the school fete"])
def test_the_users_own_request_is_not_asked_for(query: str) -> None:
    assert not asked_for(query, "User's partner Sam's diet: keto.", 0.0)


@pytest.mark.parametrize("query", ["dinner for both of us this week", "what can Sam eat at the bbq?",
                                   "what should we cook on Sunday?"])
def test_a_request_with_others_or_naming_the_person_is(query: str) -> None:
    assert asked_for(query, "User's partner Sam's diet: keto.", 0.0)


def test_a_request_the_family_affinity_marks_is_asked_for_whatever_its_words() -> None:
    assert asked_for("what should I cook tonight", "User's son Leo is allergic to sesame.", 0.1)


def test_what_is_done_for_children_asks_for_a_childs_fact_only() -> None:
    assert asked_for("lunchbox ideas for this week?", "User's son Leo is allergic to sesame.", 0.0)
    assert asked_for("lunchbox ideas for this week?", "User's family member Ivy is allergic to egg.", 0.0)
    assert not asked_for("lunchbox ideas for this week?", "User's partner Sam's diet: keto.", 0.0)


def test_a_person_called_otherwise_in_the_request_is_named() -> None:
    assert asked_for("what can I cook for my mum?", "User's mother's diet: vegetarian.", 0.0)


def test_a_visit_with_what_the_visitor_needs_is_asked_for_only_by_requests_about_them() -> None:
    visit = "User's calendar: sis ria is coming to visit jul 12-26 (shes vegan) (for 2026-07-12)."
    assert is_care_fact("plan:sis_ria", visit)
    assert not is_care_fact("plan:dentist", "User plans: dentist on friday (for 2026-03-06).")
    assert names_in(visit) == {"sister", "ria"}
    assert asked_for("plan some stuff to do when my sister visits", visit, 0.0)
    assert not asked_for("what should i cook for myself this weekend", visit, 0.0)


def test_a_visits_gain_from_the_plan_slot_asks_for_nothing_of_the_visitor() -> None:
    visit = "User's calendar: sis ria is coming to visit jul 12-26 (shes vegan) (for 2026-07-12)."
    # "this weekend" needs the user's plans: the visit gains, but the sister's diet is not asked for
    assert not_asked_for("what should i cook for myself this weekend", "plan:sis_ria", visit, 0.1)
    # a care fact's gain is the family's: it is asked for
    assert not not_asked_for("what should i cook tonight", "family_care:leo_allergy_sesam",
                             "User's son Leo is allergic to sesame.", 0.1)
    assert not not_asked_for("what should i cook tonight", "diet", "User's diet: vegan.", 0.0)


@pytest.mark.parametrize(("content", "named"), [
    ("User's husband Juha's job: carpenter.", {"husband", "juha"}),
    ("User's sister Bea's studies: medicine.", {"sister", "bea"}),
    ("User's mother lives in Kharkiv.", {"mother"}),
    ("User's wife Eluned's hobby: choir.", {"wife", "eluned"}),
])
def test_a_close_ones_fact_names_its_person_not_its_slot(content: str, named: set[str]) -> None:
    assert names_in(content) == named
    assert is_care_fact("family_life:juha_job", content)


@pytest.mark.parametrize(("query", "asked"), [
    ("gift idea for my husband, something useful", True),
    ("what can I bring Juha in hospital?", True),
    ("what should we cook on Sunday?", False),  # together, but no request about him
    ("what should I cook tonight", False),
    ("any tips for my new job?", False),  # "job" is the fact's slot, not its person
])
def test_a_close_ones_life_is_asked_for_only_by_naming_them(query: str, asked: bool) -> None:
    # the family affinity's gain says nothing of a brother's job or a mother's illness far away
    assert not_asked_for(query, "family_life:juha_job", "User's husband Juha's job: carpenter.", 0.2) is not asked


@pytest.mark.parametrize(("query", "content"), [
    ("What I can bring for my mother as present, she is ill now?", "User's family member Mama lives in Kharkiv."),
    ("recommend something gentle for joint pain for my mother", "User's family member Mamá's health: artritis."),
    ("My boy cries every morning before school, how I can help him?", "User's son Misha's hobby: football in club."),
])
def test_a_person_called_in_other_words_of_kin_is_named(query: str, content: str) -> None:
    assert asked_for(query, content, 0.0, life=True)


@pytest.mark.parametrize("query", ["oh boy, what should I cook tonight", "make me a playlist of songs like ABBA",
                                   "any tips for a girl's night out?"])
def test_a_word_of_kin_said_of_no_relative_names_none(query: str) -> None:
    assert not asked_for(query, "User's son Misha's hobby: football.", 0.0, life=True)
    assert not asked_for(query, "User's father's job: farmer.", 0.0, life=True)
