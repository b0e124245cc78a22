"""The conversation benchmark's keyword check (tests/eval/conversations.py): a keyword counts where a word of the
text the block quotes starts with it, so the block's fixed wording and labels never read as a user's value."""

from __future__ import annotations

import pytest

from tests.eval.conversations import has

BLOCK = ("Rules: ... If a memory seems outdated or conflicts with the conversation, trust the conversation and ask.\n"
         "Profile:\n- occupation: \"QA lead\"\n"
         "- [preference | confidence 0.85 | 25d ago] \"User's hobby: watercolour painting.\"\n"
         "- [project_fact | confidence 0.9 | 2mo ago] \"User's project uses Python 3.12.\"")


@pytest.mark.parametrize(("keyword", "found"), [
    ("rust", False),  # inside "trust" only
    ("paint", True),  # the start of "painting"
    ("python|sqlalchemy", True),
    ("golang|rust", False),
    ("3.12", True),
    ("olour", False),  # inside "watercolour"
    ("25|2", False),  # only in the labels ("25d ago", "2mo ago")
    ("preference", False),  # a label's category
    ("QA lead", True),  # a profile value
])
def test_a_keyword_must_start_a_word_of_the_block(keyword: str, found: bool) -> None:
    assert has(BLOCK, keyword) is found
