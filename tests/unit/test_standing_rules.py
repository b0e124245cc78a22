"""Standing rules said as orders that last (domain/extraction/standing_rules.py)."""

from __future__ import annotations

import pytest

from mnemo.domain.extraction.standing_rules import standing_rules


@pytest.mark.parametrize(("text", "rules"), [
    ("use metric units always, I'm Australian", ["use metric units always"]),
    ("always type-annotate python you give me, I run mypy in strict mode", ["always type-annotate python you give me"]),
    ("temps in celsius pls, every time", ["temps in celsius pls, every time"]),
    ("descriptive variable names please, no single letters, ever",
     ["descriptive variable names please, no single letters, ever"]),
    ("hi! I work nights. keep answers short from now on pls", ["keep answers short from now on pls"]),
    ("From now please answer with numbered steps. Easier for me.", ["From now please answer with numbered steps"]),
])
def test_an_order_that_lasts_is_a_standing_rule(text: str, rules: list[str]) -> None:
    assert [r.rule for r in standing_rules(text)] == rules


@pytest.mark.parametrize("text", [
    "use metric units for this recipe",       # a one-off request
    "I always use metric units",              # the user's own habit
    "can you always answer in French?",       # asked
    "it always rains here please help",
    "my wife always says be careful",
    "always tired these days lol",
])
def test_no_standing_rule(text: str) -> None:
    assert standing_rules(text) == []
