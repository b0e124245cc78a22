"""Where a rule about answers stands on each aspect (layout, length, language, order of code and explanation), and
which user messages take a stance as a standing directive (answer_stances)."""

import pytest

from mnemo.domain.extraction.answer_stances import languages_asked, overrides, said_stances, stances


@pytest.mark.parametrize(("rule", "held"), [
    ("keep answers short; no bullet points", {"length": "short", "layout": "prose"}),
    ("answers as bullet points pls", {"layout": "structured"}),
    ("For anything long, please use checklists", {"layout": "structured"}),  # "long" is the case, not the length
    ("aur please Hindi mein jawab do, English padhne mein thoda time lagta hai", {"language": "hindi"}),
    ("you answer them simple English, short sentence", {"language": "english", "length": "short"}),
    ("réponds-moi en français", {"language": "french"}),
    ("short answers. code > explanation", {"length": "short", "order": "code first"}),
    ("explanation first, then the code", {"order": "explanation first"}),
    # a language named as not the one, or as the user's own, is none
    ("Answer in English even if I write in Spanish", {"language": "english"}),
    ("reply in English, not in German", {"language": "english"}),
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
    # a stance complained of, avoided or not read is the other; "don't worry" negates nothing
    ("your answers are too long", {"length": "short"}), ("too many bullet points again", {"layout": "prose"}),
    ("Please avoid long answers", {"length": "short"}), ("I can't read long answers on my phone", {"length": "short"}),
    ("don't worry keep it short", {"length": "short"}),
    ("Your replies are getting long again", {"length": "short"}),
])
def test_a_standing_directive_about_answers_takes_a_stance(said: str, stance: dict[str, str]) -> None:
    assert said_stances(said) == stance


@pytest.mark.parametrize("said", [
    # an answer already given, thanked for or apologised for
    "your last answer was too long", "thanks for the detailed answer!", "Sorry for the late reply, long day at work",
    "To answer your question, the trip is long, about 3 weeks", "The replies on reddit were detailed",
    # praise of the layout a rule asked for, and the layout of a paste
    "this format is fine, thanks", "ignore the weird formatting, I copied this from a PDF: x",
    # requests of this one answer, replies the user drafts to someone, the user's own lists and languages
    "now give me a list of 10 restaurants in Lisbon", "now write me a detailed plan for the week",
    "Can you format this data as a table?", "make it a table instead",
    "help me write a reply in Spanish to my landlord, he says the heating is my problem",
    "reply to this email in German for me", "the guest list is fine, thanks", "my to-do list is better now",
    "we always speak Portuguese at home", "I stopped writing in English at work, everyone uses Hindi",
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


def test_a_long_clause_is_read_in_linear_time() -> None:
    # each length word read the whole clause before it for the case it is said of (5 s for 48 000 characters)
    import time

    started = time.perf_counter()
    said_stances("answers " + "short " * 8000)
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(("text", "languages"), [
    ("réponds-moi en français stp", ["French"]),
    ("alafu nijibu kwa Swahili tu, hii English ya ofisi inanibore", ["Swahili"]),
    ("mujhe Hindi mein jawab do", ["Hindi"]),
    ("antworte mir bitte auf Deutsch", ["German"]),
    ("just this once, answer in French", []),  # this once
    ("help me write a reply in Spanish to my landlord", []),  # a reply the user drafts
    ("do you speak Swahili?", []),
    # someone else's replies, a language said not to be the one, the English the tagger reads
    ("My customers always reply in Arabic so I use Google Translate", []), ("Mon fils me parle en anglais", []),
    ("Hindi mein jawab mat do, English mein do", []), ("I'd rather you didn't reply in English", []),
])
def test_a_language_asked_for_in_the_users_own_words(text: str, languages: list[str]) -> None:
    assert [language for _s, _e, language in languages_asked(text)] == languages
