"""The conversation benchmark's keyword check (tests/eval/conversations.py): a keyword counts where a word of the
block starts with it, so the block's fixed wording never reads as a user's value."""

from __future__ import annotations

import pytest

from tests.eval.conversations import has

BLOCK = ("Rules: ... If a memory seems outdated or conflicts with the conversation, trust the conversation and ask.\n"
         "- \"User's hobby: watercolour painting.\"\n- \"User's project uses Python 3.12.\"")


@pytest.mark.parametrize(("keyword", "found"), [
    ("rust", False),  # inside "trust" only
    ("paint", True),  # the start of "painting"
    ("python|sqlalchemy", True),
    ("golang|rust", False),
    ("3.12", True),
    ("olour", False),  # inside "watercolour"
])
def test_a_keyword_must_start_a_word_of_the_block(keyword: str, found: bool) -> None:
    assert has(BLOCK, keyword) is found
