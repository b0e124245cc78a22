"""A stored rule about answers ends when a later message takes another stance on an aspect it holds, whether or not
the extractor reads a rule from that message (the extraction service's _with_answer_rules_overridden, the learned
extractor in the local home); a rule the same session overrode is not written; a stance on another aspect, or a
request of this once, leaves it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemo.bootstrap import Mnemo
from mnemo.domain.extraction.slots import ANSWER_SLOTS
from mnemo.domain.models import Status
from tests.integration.conversation_steps import learned_home, say_in_one_session, say_next_day

TENANT, USER = "t-stances", "u-stances"


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Mnemo]:
    with learned_home(tmp_path) as built:
        yield built


def _rules(service: Mnemo) -> list[str]:
    """The user's answer rules that hold now (an ended one is a record, tagged, never injected)."""
    now = service.ports.clock.now()
    return [m.content for m in service.ports.memories.all_for_user(TENANT, USER)
            if m.subject.partition(":")[0] in ANSWER_SLOTS and m.is_live(now) and m.status is Status.ACTIVE
            and m.polarity and "retraction" not in m.tags]


@pytest.mark.parametrize(("first", "later", "gone"), [
    ("keep answers short. no bullet points", "can do lists now. easier on the phone", "bullet"),
    ("Kindly give all responses in bullet points only, it is easier for me to forward to my team.",
     "Kindly stop the bullet points, my manager is saying it looks like a slide deck.", "bullet"),
    ("answers as bullet points pls. no fluff", "forget what i said about formatting, normal text is fine", "bullet"),
    ("aur please Hindi mein jawab do, English padhne mein thoda time lagta hai", "aur ab se English mein hi likho",
     "hindi"),
    ("sorry my english is not perfect, please answer simple and short ok",
     "you can write longer answers now with all the details", "short"),
])
def test_a_later_stance_on_the_same_aspect_ends_the_rule(service: Mnemo, first: str, later: str, gone: str) -> None:
    say_next_day(service, TENANT, USER, "c1", first)
    assert any(gone in rule.lower() for rule in _rules(service))
    say_next_day(service, TENANT, USER, "c2", later)
    assert not any(gone in rule.lower() for rule in _rules(service))


@pytest.mark.parametrize("later", ["write me a short bio for the team page", "please answer in Spanish from now on",
                                   "just this once, use a numbered list"])
def test_a_request_of_this_once_or_another_aspect_leaves_the_rule(service: Mnemo, later: str) -> None:
    say_next_day(service, TENANT, USER, "c1", "please give detailed answers, no bullet points")
    say_next_day(service, TENANT, USER, "c2", later)
    assert any("detailed" in rule for rule in _rules(service))


def test_a_rule_the_same_session_overrode_is_not_written(service: Mnemo) -> None:
    # the later message yields no rule of its own: only this step leaves the first unwritten
    say_in_one_session(service, TENANT, USER, "c1", ["answers as bullet points pls", "my trip to Lisbon is in May",
                                                     "can do paragraphs now, easier"])
    assert not any("bullet points pls" in rule for rule in _rules(service))
