"""Where a rule about answers stands on each aspect (layout, length, language, order of code and explanation), and
which user messages take a stance as a standing directive (answer_stances)."""

import pytest

from mnemo.domain.extraction.answer_stances import overrides, said_stances, stances


@pytest.mark.parametrize(("rule", "held"), [
    ("keep answers short; no bullet points", {"length": "short", "layout": "prose"}),
    ("answers as bullet points pls", {"layout": "structured"}),
    ("For anything long, please use checklists", {"layout": "structured"}),  # "long" is the case, not the length
    ("aur please Hindi mein jawab do, English padhne mein thoda time lagta hai", {"language": "hindi"}),
    ("you answer them simple English, short sentence", {"language": "english", "length": "short"}),
    ("réponds-moi en français", {"language": "french"}),
    ("short answers. code > explanation", {"length": "short", "order": "code first"}),
    ("explanation first, then the code", {"order": "explanation first"}),
])
def test_a_rule_holds_a_stance_on_each_aspect_it_speaks_of(rule: str, held: dict[str, str]) -> None:
    assert stances(rule) == held


@pytest.mark.parametrize(("said", "stance"), [
    ("can do lists now. easier on the phone", {"layout": "structured"}),
    ("Kindly stop the bullet points, my manager is saying it looks like a slide deck.", {"layout": "prose"}),
    ("bullet point no need anymore. normal paragraph ok. but still short, under 5 line",
     {"layout": "prose", "length": "short"}),
    ("the checklists are too much now, just give me a quick paragraph instead", {"layout": "prose"}),
    ("forget what i said about formatting, normal text is fine", {"layout": "lifted"}),
    ("aur ab se English mein hi likho", {"language": "english"}),
    ("So please, you do not need to keep your sentences short anymore.", {"length": "long"}),
    ("you can write longer answers now with all the details", {"length": "long"}),
    ("keep it short pls", {"length": "short"}),
])
def test_a_standing_directive_about_answers_takes_a_stance(said: str, stance: dict[str, str]) -> None:
    assert said_stances(said) == stance


@pytest.mark.parametrize("said", [
    "write me a short bio for the team page",  # a request of this once
    "give me a checklist for the move",
    "can you give me a list of museums?",
    "just this once, answer in French",
    "I stopped long runs now, my knee",  # no word of answering
    "the tables at the wedding were too long",
])
def test_requests_of_this_once_and_words_about_other_things_take_none(said: str) -> None:
    assert said_stances(said) == {}


def test_another_stance_or_a_lift_on_an_aspect_the_rule_holds_overrides_it() -> None:
    rule = stances("keep answers short; no bullet points")
    assert overrides({"layout": "structured"}, rule)
    assert overrides({"length": "long"}, rule)
    assert overrides({"layout": "lifted"}, rule)
    # the same stance, or a stance on another aspect, leaves it
    assert not overrides({"layout": "prose"}, rule)
    assert not overrides({"language": "spanish"}, rule)
