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


def test_bm25_scores_as_an_array_are_the_same_floats_and_follow_every_change() -> None:
    """The search's vectorised BM25 (score_array) gives each document the float ``score`` gives it, also
    after documents are added, replaced and removed between searches (its per-term arrays are kept)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    words = ["tea", "coffee", "melanie", "paint", "sunset", "lake", "dog", "run"]

    @settings(max_examples=100, deadline=None)
    @given(st.lists(st.tuples(st.integers(0, 6), st.lists(st.sampled_from(words), max_size=12)), max_size=25),
           st.lists(st.sampled_from(words), min_size=1, max_size=4))
    def check(changes: list[tuple[int, list[str]]], query: list[str]) -> None:
        index = Bm25Index()
        numbering: dict[str, int] = {}  # one object, renumbered in place: the documents' change alone must tell
        for doc, doc_words in changes:
            if doc_words:
                index.add(f"d{doc}", doc_words)
            else:
                index.remove(f"d{doc}")
            numbering.clear()
            numbering.update({d: i for i, d in enumerate(sorted(index._lengths))})
            expected = index.score(query)
            for _ in range(2):  # the second time from the arrays kept
                scores, found = index.score_array(query, numbering, len(numbering))
                assert {d: scores[i] for d, i in numbering.items() if found[i]} == expected
                assert all(scores[i] == 0.0 for d, i in numbering.items() if d not in expected)

    check()


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


def test_the_unseen_ranges_are_this_pythons_whitespace_controls_and_format_characters() -> None:
    """The ranges behind the schema's "a character a reader sees" pattern are written out (computing them
    at import takes ~0.3 s); a Python with other Unicode tables fails here instead of drifting."""
    import sys
    import unicodedata

    from mnemo.domain.text import _UNSEEN_RANGES

    unseen = [code for code in range(sys.maxunicode + 1)
              if unicodedata.category(chr(code)) in ("Cc", "Cf") or chr(code).isspace()]
    written = [code for lo, hi in _UNSEEN_RANGES for code in range(lo, hi + 1)]
    assert written == unseen


def test_text_the_content_pattern_accepts_is_text_the_service_keeps() -> None:
    """What a client (or a fuzzer) reads off the OpenAPI document, "at least one character that matches
    SEEN_CHARACTER_PATTERN", is what validate_content accepts: "\\f" or a zero-width space alone is
    refused by both, anything with a letter, digit, sign or emoji passes both."""
    import re

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from mnemo.domain.text import SEEN_CHARACTER_PATTERN
    from mnemo.errors import InvalidField
    from mnemo.services.writing import validate_content

    pattern = re.compile(SEEN_CHARACTER_PATTERN)

    def kept(text: str) -> bool:
        try:
            validate_content(visible(text) if visible(text).strip() else text, 10_000)
        except InvalidField:
            return False
        return True

    for text in ("\f", "\u200b", " \x01\t", "\ufeff\u2060", "\U000e0041"):
        assert not pattern.search(text)
        assert not kept(text)
    for text in ("a", " ok ", "🎉", "ｈｉ", "ب", "\u200bx"):
        assert pattern.search(text)
        assert kept(text)

    @given(st.text(max_size=12) | st.text(st.sampled_from("\f\x01\u200b\u200d\u3000\ufeff a🎉ب"), max_size=6))
    @settings(max_examples=400, deadline=None, database=None)
    def agree(text: str) -> None:
        # the one way they differ: a joiner between two non-Latin characters is kept by the service
        # (it shapes those scripts), where the pattern, being one character class, counts no joiner
        if pattern.search(text):
            assert kept(text)
        elif "\u200c" not in text and "\u200d" not in text:
            assert not kept(text)

    agree()
