"""A move said by the new home alone: "and we moved! the new flat in Easton has a little yard", "moved flats.
friedrichshain now".

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


# "moved flats. friedrichshain now", "moved house last week, Headingley now": a move, then the place alone with "now"
_MOVED_THEN_PLACE = re.compile(
    r"(?:^|[.!?]\s*|\b(?:i|we|just|finally)\s+)(?:have\s+|'ve\s+)?moved(?:\s+(?:flats?|house|houses|apartments?|"
    r"places?|home|out))?(?:\s+(?:last|this)\s+\w+|\s+yesterday|\s+on\s+\w+)?\s*[.!,;:-]+\s*"
    r"(?P<place>[^\W\d_][\w'’-]+(?:\s+[^\W\d_][\w'’-]+)?)\s+now\b", re.IGNORECASE)
# what a word before "now" says of the user rather than where they live ("moved flats. exhausted now"), written in
# lower case (a capital names a place: "Headingley now")
_A_STATE_SAID_LOW = re.compile(r"^\w+(?:ed|y|ing)$")
_A_STATE = re.compile(r"^(?:broke|done|home|back|free|ok|okay|fine|good|great|alone|single|here|there|in|out|poor|sad|"
                      r"glad|so|all|we|i|it|and|but|living|finally|just|happy|happier|tired|busy|lonely|ready|sorry|"
                      r"hungry|exhausted|relieved|settled|sorted|knackered|skint)$", re.IGNORECASE)


def new_homes(text: str) -> list[tuple[int, int, str]]:
    """(start, end, place) for each new home the text names by its town."""
    found = [(m.start(), m.end(), m.group("place")) for m in _NEW_HOME.finditer(text)
             if not _NOT_OURS.search(text[:m.start()])]
    for m in _MOVED_THEN_PLACE.finditer(text):
        place = m.group("place")
        if not any(_A_STATE.match(word) or (word.islower() and _A_STATE_SAID_LOW.match(word))
                   for word in place.split()):
            found.append((m.start("place"), m.end("place"), place))
    return found
