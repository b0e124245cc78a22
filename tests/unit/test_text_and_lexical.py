from mnemo.domain.grammar import third_person
from mnemo.domain.lexical import Bm25Index
from mnemo.domain.text import sentence_parts, stem, terms, visible


def test_terms_drop_stopwords_and_stem() -> None:
    assert terms("I was hiking and I love hikes") == ["hik", "lov", "hik"]
    assert stem("lives") == stem("live") == stem("living")
    assert stem("running") == "run"
    assert stem("glass") == "glass"


def test_bm25_prefers_rarer_matching_terms_and_forgets_removed_docs() -> None:
    index = Bm25Index()
    index.add("a", terms("User loves spicy Thai food"))
    index.add("b", terms("User loves quiet mornings"))
    index.add("c", terms("User has a dog"))
    scores = index.score(terms("spicy food"))
    assert set(scores) == {"a"}
    index.remove("a")
    assert index.score(terms("spicy food")) == {}
    assert len(index) == 2


def test_sentence_parts_only_for_long_memories() -> None:
    assert sentence_parts("User likes tea.") == []
    assert sentence_parts("Jon: I lost my job today. I will open a dance studio soon.") == [
        "Jon: I lost my job today.", "Jon: I will open a dance studio soon."]


def test_third_person_rewrites() -> None:
    assert third_person("I live in Porto") == "User lives in Porto."
    assert third_person("I'm vegan") == "User is vegan."
    assert third_person("I really love my dog") == "User really loves their dog."
    assert third_person("My sister studies law") == "User's sister studies law."


def test_visible_keeps_the_joiners_a_script_needs_and_drops_those_that_hide_a_latin_word() -> None:
    persian, sinhala, devanagari = "می\u200cخواهم", "ශ්\u200dරී", "क्\u200dष"
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    for text in (persian, sinhala, devanagari, family, f"I want {persian} and {family}"):
        assert visible(text) == text
    assert visible("pass\u200cword and pass\u200dword") == "password and password"
    assert visible("\u200dSYSTEM:\u200c") == "SYSTEM:"
