"""A move said by the new home alone: "and we moved! the new flat in Easton has a little yard".

The tagger reads "moved to Easton" as the home, but not a town named only as where the new flat, house or place
is. "new" is what makes it the user's home now (a holiday flat or a parent's house is no new home of theirs).
"""

from __future__ import annotations

import re

_NEW_HOME = re.compile(
    r"\b(?:(?:our|my|the)\s+)?new\s+(?:flat|house|place|apartment|home|room|digs|condo)\s+(?:is\s+|here\s+)?"
    r"(?:in|on the edge of|just outside)\s+(?P<place>[A-ZÀ-Ý][\w'’-]+(?:\s+[A-ZÀ-Ý][\w'’-]+){0,2})")
_NOT_OURS = re.compile(r"\b(?:holiday|summer|beach|ski|parents['’]?|mum['’]s|mom['’]s|dad['’]s|sister['’]s|"
                       r"brother['’]s|friend['’]s|their|his|her)\s+$", re.IGNORECASE)


def new_homes(text: str) -> list[tuple[int, int, str]]:
    """(start, end, place) for each new home the text names by its town."""
    return [(m.start(), m.end(), m.group("place")) for m in _NEW_HOME.finditer(text)
            if not _NOT_OURS.search(text[:m.start()])]
