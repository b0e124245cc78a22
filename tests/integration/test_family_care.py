"""A dependant's facts (docs/slots.md, family_care) through the local home with the learned extractor: filed
under the person, never as the user's own, replaced when they change, and in the block when the request is
about what the user does for the family, not for the user's own requests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemo.bootstrap import Mnemo
from mnemo.domain.models import Status
from tests.integration.conversation_steps import learned_home, say_next_day

TENANT, USER = "t-care", "u-care"


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Mnemo]:
    with learned_home(tmp_path) as built:
        yield built


def _live(service: Mnemo) -> dict[str, str]:
    now = service.ports.clock.now()
    return {m.subject: m.content for m in service.ports.memories.all_for_user(TENANT, USER)
            if m.is_live(now) and m.status is Status.ACTIVE}


def _block(service: Mnemo, query: str) -> str:
    return service.retriever.retrieve(TENANT, USER, query, top_k=8, token_budget=500).context or ""


def test_a_grandchilds_allergy_is_theirs_and_helps_the_family_meal_only(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1",
                 "Every Saturday my grandson Omar comes for lunch, he is allergic to sesame, so no tahini for him.")
    live = _live(service)
    care = [c for s, c in live.items() if s.startswith("family_care:")]
    assert care == ["User's grandson Omar is allergic to sesame."]
    assert not [s for s in live if s.startswith("allergy:")]  # the user is not allergic
    assert "sesame" in _block(service, "what can I make for lunch with the family on Saturday?")
    assert "sesame" not in _block(service, "what should I eat before my morning run?")


def test_a_childs_new_diet_replaces_the_old_one_in_a_later_conversation(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1", "my daughter Nell just went vegan, so dinners are interesting now")
    say_next_day(service, TENANT, USER, "c2", "Nell is vegetarian now, she eats eggs again")
    diets = {s: c for s, c in _live(service).items() if s.startswith("family_care:nell_diet")}
    assert list(diets.values()) == ["User's daughter Nell's diet: vegetarian."]
    assert not [s for s in _live(service) if s == "diet"]


def test_a_sisters_diet_is_hers_and_not_for_the_family_table(service: Mnemo) -> None:
    # she does not live with the user: her diet is her life's (family_life), for requests about her only
    say_next_day(service, TENANT, USER, "c1", "my sister Bea is vegan so christmas dinner is always a debate")
    assert [s for s, c in _live(service).items() if "vegan" in c.lower()] == ["family_life:bea_diet"]
    assert "vegan" not in _block(service, "what should we cook for the family on Sunday?")
    assert "vegan" not in _block(service, "what should I cook tonight?")
    assert "vegan" in _block(service, "what can I cook for my sister when she visits?")


def test_a_household_members_diet_is_kept_for_the_meals_with_them(service: Mnemo) -> None:
    # an adult who lives with the user eats at their table: their diet was dropped as someone else's
    say_next_day(service, TENANT, USER, "c1", "my brother Tom lives with us since the divorce. hes vegan, no idea what "
                                              "to cook half the time")
    live = _live(service)
    assert [c for s, c in live.items() if s.startswith("family_care:")] == ["User's brother Tom's diet: vegan."]
    assert "diet" not in live  # the user is not vegan
    assert "brother Tom's diet: vegan" in _block(service, "what can I cook for the family tonight?")


@pytest.mark.parametrize(("said", "word"), [
    # a visitor: a visit's facts would outlive it, later dinners must not hold the sister's diet
    ("my sister Dana is coming to help with the party, she's gluten free so I'll need some GF cupcakes too", "gluten"),
    # a relative who lives elsewhere, a stay that ends, a home shared no more
    ("my dad is diabetic, he lives in Lagos with my stepmum", "diabet"),
    ("my brother is staying with us this week, he's vegan so I'm cooking lentils", "vegan"),
    ("my mum used to live with us, she is coeliac", "coeliac"),
    # someone else's wife at the user's table is no wife of the user's
    ("My nephew Gerald is living with us for now, together with his wife Priya, who is vegan.", "wife"),
])
def test_the_facts_of_adults_not_at_the_users_table_are_not_kept_for_it(service: Mnemo, said: str,
                                                                        word: str) -> None:
    # a close one's life may be kept (family_life), for requests that name them; never as the user's, never for
    # the family's table
    say_next_day(service, TENANT, USER, "c1", said)
    assert not [c for s, c in _live(service).items() if word in c.lower() and not s.startswith("family_life:")]
    assert word not in _block(service, "what can I cook for the family this weekend?").lower()


def test_a_childs_allergy_said_in_the_next_sentence_is_theirs(service: Mnemo) -> None:
    # the stretch about Leo ended at the full stop: "He is allergic to peanuts" was nobody's
    say_next_day(service, TENANT, USER, "c1", "my son Leo is 6. He is allergic to peanuts, so the trip is a worry.")
    care = [c for s, c in _live(service).items() if s.startswith("family_care:")]
    assert care == ["User's son Leo is allergic to peanuts."]


def test_a_partners_diet_is_at_the_table_only_for_meals_with_them(service: Mnemo) -> None:
    # a spouse or partner shares the user's home: their food facts are kept, but the user's own meals are the user's
    say_next_day(service, TENANT, USER, "c1", "my partner Sam is coeliac so our kitchen is a minefield of two toasters")
    live = _live(service)
    assert [c for s, c in live.items() if s.startswith("family_care:")] == ["User's partner Sam's health: coeliac."]
    assert not [s for s in live if s in ("diet", "health", "allergy")]
    assert "coeliac" in _block(service, "What should I make for dinner for both of us this week?")
    assert "coeliac" in _block(service, "any bread Sam can eat?")
    assert "coeliac" not in _block(service, "what should I have for lunch?")


def test_a_former_partners_diet_is_not_kept(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1", "my ex-wife is vegan, the kids say dinners there are all lentils")
    assert not [c for c in _live(service).values() if "vegan" in c.lower()]


def test_children_listed_with_their_ages_are_known_by_name(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1", "hiya sorry typing at the school gate. Siobhan, mam of 4 in "
                                             "Knocknacarra, Galway. Aoife's 11, Darragh's 9 and the twins Fionn and "
                                             "Saoirse are 5")
    say_next_day(service, TENANT, USER, "c2", "Darragh has a nut allergy, tree nuts AND peanuts, EpiPen goes "
                                             "everywhere")
    care = [m.content for m in service.ports.memories.all_for_user(TENANT, USER)
            if m.subject.startswith("family_care:") and m.status is Status.ACTIVE]
    assert any("Darragh" in c and "peanut" in c for c in care), care


@pytest.mark.parametrize("text", ["Flight is 9 and the kids are excited", "my kids are great, it's 5 o'clock already"])
def test_a_name_and_a_number_alone_name_no_child(service: Mnemo, text: str) -> None:
    say_next_day(service, TENANT, USER, "c1", text)
    # no family fact of a name and a number ("User's family: Flight 9.", "User's family: It 5.")
    assert not [m.content for m in service.ports.memories.all_for_user(TENANT, USER)
                if m.subject.startswith("family:") and any(ch.isdigit() for ch in m.content)]


def test_a_relative_known_by_name_is_no_partner_and_a_weeks_diet_no_diet(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1", "I have 5 grandkids, my granddaughter Marisol lives with me, she is 16")
    say_next_day(service, TENANT, USER, "c2",
                 "estoy vegana this week jaja, Marisol made me watch a documentary about the cows, we see how long "
                 "it lasts")
    live = _live(service)
    assert "relationship_status" not in live  # Marisol is the granddaughter
    assert "diet" not in live  # a week's try
