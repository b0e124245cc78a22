"""The conversation benchmark's keyword check (tests/eval/conversations.py): a keyword counts where a word of the
text the block quotes starts with it, so the block's fixed wording and labels never read as a user's value."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from mnemo.domain.extraction.slots import RETRACTION_TAG
from mnemo.domain.models import Category, Memory, Status
from tests.eval.conversations import has, why_missing

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


NOW = datetime(2026, 6, 1, tzinfo=UTC)


def fact(content: str, status: Status = Status.ACTIVE, tags: list[str] | None = None) -> Memory:
    when = NOW - timedelta(days=3)
    return Memory(memory_id=content, tenant_id="t", user_id="u", category=Category.PREFERENCE, subject="hobby",
                  content=content, confidence=0.8, created_at=when, updated_at=when, last_confirmed_at=when,
                  status=status, tags=tags or [])


def test_a_missing_keyword_is_traced_to_extraction_or_to_retrieval() -> None:
    memories = [fact("User's hobby: bouldering."), fact("User lives in Porto.", Status.SUPERSEDED),
                fact("User no longer does bridge.", tags=[RETRACTION_TAG])]
    assert why_missing("climbing|bouldering", memories, NOW) == "not_chosen"  # live: the retrieval left it out
    assert why_missing("Porto", memories, NOW) == "retired"
    assert why_missing("bridge", memories, NOW) == "retraction"
    assert why_missing("Lisbon", memories, NOW) == "never_stored"
    assert why_missing("ouldering", memories, NOW) == "never_stored"  # a keyword starts a word, as in blocks
