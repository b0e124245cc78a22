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
    assert [c for s, c in facts.items() if s.startswith("family_life:")] == theirs
    if not mine:
        assert "job" not in facts
