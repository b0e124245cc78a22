"""An answer rule the user says outright replaces theirs retires every rule on the same thing, and only those
(the learned extractor, the local home)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemo.bootstrap import Mnemo
from tests.integration.conversation_steps import learned_home, say_next_day

TENANT, USER = "t-rules", "u-rules"


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Mnemo]:
    with learned_home(tmp_path) as built:
        yield built


def _rules(service: Mnemo) -> list[str]:
    now = service.ports.clock.now()
    return [m.content for m in service.ports.memories.all_for_user(TENANT, USER)
            if m.is_live(now) and m.content.startswith("How to answer")]


def test_a_rule_changed_outright_retires_every_rule_on_the_same_thing(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1", "always answer in British English please")
    say_next_day(service, TENANT, USER, "c2", "code only. no explanations.")
    say_next_day(service, TENANT, USER, "c3", "changed my mind on format: short explanation first, then the code. "
                                             "kept missing caveats")
    rules = _rules(service)
    assert not [r for r in rules if "code only" in r or "no explanations" in r], rules
    assert [r for r in rules if "explanation first" in r]
    assert [r for r in rules if "British English" in r]  # another thing: it stays


def test_a_language_taken_back_leaves_one_rule_that_names_the_new_one(service: Mnemo) -> None:
    # read as a general instruction and as the answer language, it was the instruction that stood, and the French
    # it replaced stayed; the old rule let go ("forget the Spanish thing") is no part of the new one
    say_next_day(service, TENANT, USER, "c1", "Please answer me in French from now, c'est plus naturel.")
    say_next_day(service, TENANT, USER, "c2", "Non, finalement answer me in English, my English gets better with the "
                                             "customers, and your French is always too formal.")
    assert [r for r in _rules(service) if "French" in r or "English" in r] == [
        "How to answer the user: Non, finalement answer them in English."]
    say_next_day(service, TENANT, USER, "c3", "Can you write to me in Spanish from now? I'm tired of English.")
    say_next_day(service, TENANT, USER, "c4", "Actually forget the Spanish thing, answer me in English again - "
                                             "the agency wants me to practice.")
    assert [r for r in _rules(service) if "Spanish" in r or "English" in r] == [
        "How to answer the user: answer them in English again."]


def test_a_rule_for_a_kind_of_question_stands_beside_the_rule_for_the_rest(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1", "Style request: please no bullet-point listicles. Write to me in actual "
                                             "paragraphs, like a person who has read a book.")
    say_next_day(service, TENANT, USER, "c2", "Okay, I'm partially rescinding the paragraphs rule: for code and "
                                             "technical questions give me terse bullets and code, I read those on my "
                                             "phone between meetings. Life stuff can stay in paragraphs.")
    rules = _rules(service)
    assert "How to answer the user: for code and technical questions: terse bullets and code." in rules
    assert [r for r in rules if "paragraphs" in r and "code" not in r]


def test_only_a_rule_let_go_is_cut_from_the_new_one(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1", "skip the small talk, just give me the code from now on")
    assert [r for r in _rules(service) if "small talk" in r], _rules(service)


def test_a_rule_let_go_with_forget_takes_the_next_one_said_after_it(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1", "keep every answer under five lines please")
    say_next_day(service, TENANT, USER, "c2", "Forget five lines. Longer is fine when it's technical.")
    rules = _rules(service)
    assert any("Longer is fine when it's technical" in r for r in rules), rules
    assert not any("five lines" in r for r in rules), rules


def test_pieces_of_the_one_answer_style_said_together_are_one_rule(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1", "keep answers short. no bullet points")
    style = [r for r in _rules(service) if "short" in r or "bullet" in r]
    assert len(style) == 1, style
    assert "short" in style[0], style
    assert "bullet" in style[0], style


def test_forget_said_of_someone_with_a_title_forgets_them_whole() -> None:
    from mnemo.domain.extraction.pipeline import _forget_and_rest

    assert _forget_and_rest("Dr. Smith, he retired.") == ("Dr. Smith, he retired", "")
    assert _forget_and_rest("five lines. Longer is fine when it's technical.") == (
        "five lines", "Longer is fine when it's technical.")


def test_a_day_off_said_again_replaces_the_old_one(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1", "I work 11 am to 9 pm, only Monday is off ka")
    say_next_day(service, TENANT, USER, "c2", "Wednesday is my day off now ka, manager change the schedule")
    now = service.ports.clock.now()
    days = [m.content for m in service.ports.memories.all_for_user(TENANT, USER)
            if m.is_live(now) and "day off" in m.content]
    assert days == ["User's routine: day off: Wednesday."]


def test_a_day_off_this_once_is_no_routine(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1", "Monday is off for the bank holiday, what should I do?")
    assert not [m for m in service.ports.memories.all_for_user(TENANT, USER) if "day off" in m.content]
