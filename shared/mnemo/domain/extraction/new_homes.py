"""A move said by the new home alone: "and we moved! the new flat in Easton has a little yard", "moved flats.
friedrichshain now"; and where the user lives said in words the tagger seldom saw: "a Kiwi living in London", "I rent
a flat in Leeds", "I stay Rongai", "I dey stay Tema", "vivo en Sevilla".

The tagger reads "moved to Easton" as the home, but not a town named only as where the new flat, house or place
is. "new" is what makes it the user's home now (a holiday flat or a parent's house is no new home of theirs).
"""

from __future__ import annotations

import re

_NEW_HOME = re.compile(
    # "new" may open the sentence ("New place in Astoria is one bedroom"); the town keeps its capital
    r"\b(?i:(?:(?:our|my|the)\s+)?new\s+(?:flat|house|place|apartment|home|room|digs|condo)\s+(?:is\s+|here\s+)?"
    r"(?:in|on the edge of|just outside)"
    # the same in the languages users switch to: "o quarto novo em Alfama", "mi nuevo piso en Gràcia", "notre nouvel
    # appart à Verdun", "unsere neue Wohnung in Linden"
    r"|(?:quarto|apartamento|apê|casa|ap)\s+nov[oa]\s+(?:em|no|na)|nov[oa]\s+(?:quarto|apartamento|apê|casa)\s+(?:em|no|na)"
    r"|nuev[oa]\s+(?:piso|casa|departamento|depa|apartamento|cuarto)\s+(?:en)|(?:piso|casa|departamento|apartamento)\s+"
    r"nuev[oa]\s+(?:en)|(?:nouvel\s+appart(?:ement)?|nouvelle\s+maison|nouveau\s+logement|nouvel\s+apart)\s+(?:à|a|en)"
    r"|neue[nr]?\s+(?:Wohnung|Haus|WG)\s+in)\s+(?P<place>[A-ZÀ-Ý][\w'’-]+(?:\s+[A-ZÀ-Ý][\w'’-]+){0,2})")
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


# the user living somewhere: "I" or "we", a verb of living of theirs and a town with a capital (1-3 words); the
# words between may not bring in someone else, a wish, a doubt or an ending ("my sister living in", "I'd love living
# in", "I used to live in", "I don't live in ... anymore"); "staying" is a visit ("staying in a hotel in Rome")
_TOWN = r"[A-ZÀ-Ý][\w'’-]+(?:\s+(?:[A-ZÀ-Ý][\w'’-]+|\d{1,3}\b)){0,2}"  # with its capitals: case matters here
_LIVING_IN = re.compile(
    r"\b(?i:i|we)\b(?P<between>[^.!?;:,]{0,40}?)\s*\b(?i:living|live|stay|dey stay|reside|residing|based|"
    r"rent(?:ing)? (?:a|our|my) (?:flat|house|room|place|apartment|studio|bedsit))\s+(?:(?i:in|at)\s+)?"
    r"(?P<place>" + _TOWN + r")"
    # the same said in the languages users switch to
    r"|\b(?i:vivo|moro|habito)\s+(?i:en|a|em|in|no|na)\s+(?P<place2>" + _TOWN + r")"
    r"|\b(?i:wohne|lebe)\s+(?i:in)\s+(?P<place3>" + _TOWN + r")"
    r"|\b(?i:j['’]habite|on habite|on vit|nous habitons|nous vivons|on a déménagé|nous avons déménagé|"
    r"j['’]ai déménagé)\s+(?i:à|a|en|au)\s+(?P<place4>" + _TOWN + r")"
    r"|\b(?i:vivimos|nos mudamos|me mudé|me mude|moramos|mudei|mudamos|me mudei)\s+(?i:en|a|em|para|pra|no|na)\s+"
    r"(?P<place5>" + _TOWN + r")"
    r"|\b(?i:wir wohnen|wir leben)\s+(?i:in)\s+(?P<place6>" + _TOWN + r")"
    r"|\b(?i:(?:ich bin|wir sind)\s+nach)\s+(?P<place7>" + _TOWN + r")\s+(?i:gezogen)"
    # Tagalog: "nasa Skokie na ako" (I'm in Skokie now), "lumipat kami sa Cebu" (we moved to Cebu)
    # (a stay the same words may say: only with a word of a home after it, "share kami ni ate Joy sa 2-bedroom")
    r"|\b(?i:nasa)\s+(?P<place8>" + _TOWN + r")\s+(?i:na\s+(?:ako|kami))\b"
    r"(?=[^.!?\n]{0,80}?\b(?i:bahay|condo|apartment|apt|flat|house|room|bedroom|rent|renta|upa|lipat|nakatira|titira|"
    r"share)\b)"
    r"|\b(?i:lumipat|lipat)\s+(?i:na\s+)?(?i:ako|kami)\s+(?i:sa)\s+(?P<place9>" + _TOWN + r")")
_NOT_THE_USERS_LIVING = re.compile(
    r"\b(?:my|our|his|her|their|he|she|they|who|if|would|'d|could|might|may|want|wanted|wish|love|like|dream\w*|"
    r"imagine|thinking|consider\w*|plan\w*|hope|used to|not|never|no longer|n't|once|before|until|moving|"
    r"move|going)\b|n['’]t\b", re.IGNORECASE)
# a capital after a verb of living that is no town ("I live in Hope" is one, but "I live In A Van" is not)
_NO_TOWN = frozenset({"a", "an", "the", "in", "at", "with", "near", "by", "here", "there", "i", "it", "my", "our",
                      "alone", "together", "abroad", "downtown", "now", "currently", "still"})

_NOT_IN_A_TOWN = frozenset({"and", "but", "or", "so", "with", "i", "im", "i'm", "i’m", "we", "now", "since", "for"})


def living_in(text: str, other_languages_only: bool = False) -> list[tuple[int, int, str]]:
    """(start, end, place) where the user says, in the first person, that they live in a town; ``other_languages_only``:
    only where they say it in another language than English (which the tagger, trained on English, reads least)."""
    found = []
    for m in _LIVING_IN.finditer(text):
        if other_languages_only and m.group("place"):
            continue
        group = next(g for g in ("place", *(f"place{n}" for n in range(2, 10))) if m.group(g))
        place = m.group(group)
        if m.group("between") and _NOT_THE_USERS_LIVING.search(m.group("between")):
            continue
        words = place.split()
        while words and words[-1].lower() in _NOT_IN_A_TOWN:  # "I LIVE IN TULSA AND I NEED": capitals throughout
            words.pop()
        if not words or words[0].lower() in _NO_TOWN:
            continue
        place = " ".join(words)
        found.append((m.start(group), m.start(group) + len(place), place))
    return found


# a home bought or rented where the message says the user has moved into it ("WE BOUGHT A LITTLE HOUSE IN AMES,
# moved in Saturday"); bought alone may be a holiday home or a let, and a move to come is no home yet
_GOT_A_HOME = re.compile(
    r"\b(?i:(?:i|we)(?:['’]ve| have)?\s+(?:just\s+|finally\s+)?(?:bought|got|found|rented|signed for)\s+"
    r"(?:a|an|our|my)\s+(?:(?:little|small|new|tiny|lovely|nice|big|first)\s+)*"
    r"(?:house|flat|place|apartment|home|condo|bungalow|cottage|townhouse)\s+(?:in|on the edge of|just outside|outside)"
    # a town in lower case too: a sentence typed in capitals is read lower-cased (segment.unshouted)
    r")\s+(?P<place>(?!(?i:town|the|a|an|our|my|which|that|where|when|it)\b)[^\W\d_][\w'’-]+"
    r"(?:\s+[A-ZÀ-Ý][\w'’-]+){0,2})")
_MOVED_IN = re.compile(r"\b(?:moved(?:\s+in)?|relocated|settled in)\b", re.IGNORECASE)


def new_homes(text: str) -> list[tuple[int, int, str]]:
    """(start, end, place) for each new home the text names by its town."""
    found = [(m.start(), m.end(), m.group("place")) for m in _NEW_HOME.finditer(text)
             if not _NOT_OURS.search(text[:m.start()])]
    if _MOVED_IN.search(text):
        found += [(m.start("place"), m.end("place"), m.group("place")) for m in _GOT_A_HOME.finditer(text)]
    for m in _MOVED_THEN_PLACE.finditer(text):
        place = m.group("place")
        if not any(_A_STATE.match(word) or (word.islower() and _A_STATE_SAID_LOW.match(word))
                   for word in place.split()):
            found.append((m.start("place"), m.end("place"), place))
    return found + [said for said in living_in(text) if not any(said[0] < e and s < said[1] for s, e, _p in found)]


# the user back where they lived before, for good: "I came back to Tashkent after 5 years in Seoul", "Home in
# Glasgow again after two years in Sydney!", "back in Manila for good", "moved back home to Galway". The place of the
# years away is the home left, never the one now. Only with words that say it is for good (for good, after years or
# months away, a move home): "came back to Python after a year of R", "I'm back in Figma again", "We came back to
# Tokyo last spring for cherry blossoms" are a tool taken up again and a past visit
_FOR_GOOD = r"(?=\s*(?i:for good|(?:again\s+)?after\s+(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|" \
            r"many|several|some)\s+(?:\w+\s+)?(?:years?|months?)\s+(?:in|away|abroad|overseas|living))\b)"
_BACK_HOME = re.compile(
    r"(?:\b(?i:(?:came|come|moved)\s+back|returned)\s+(?:(?i:home)\s+)?(?i:to)"
    r"|(?:\b(?i:i['’]?m|im|i am|we['’]?re|we are|finally|now)\s+|^\W*|(?<=[.!?]\s))(?i:back\s+(?:home\s+)?in))"
    r"\s+(?P<place>" + _TOWN + ")" + _FOR_GOOD
    # a move back home said as one: "moved back home to Galway", "we moved back to Cork in the summer"
    + r"|\b(?i:(?:i|we)(?:['’]ve|\s+have)?\s+(?:just\s+|finally\s+)?moved\s+back\s+(?:home\s+)?to)\s+(?P<place3>"
    + _TOWN + r")"
    # "Home in Glasgow again": said by the user of themselves, not "lives in a care home in Cork"
    + r"|(?:^\W*|(?<=[.!?]\s)|\b(?i:i['’]?m|im|i am|we['’]?re|we are|finally|now)\s+)(?i:home\s+in)\s+(?P<place2>"
    + _TOWN + r")(?=\s*(?i:again|for good)\b)")
_BACK_FOR_A_WHILE = re.compile(r"^\s*(?i:for\s+(?:the|a|two|three|few|couple)|till|until|to visit|visiting)\b")
_NOT_NOW_BACK = re.compile(r"\b(?:going|gonna|will|'ll|plan\w*|want\w*|hope|if|when|might|should|would)\s+(?:\w+\s+)?$",
                           re.IGNORECASE)


def back_home(text: str) -> list[tuple[int, int, str]]:
    """(start, end, place) where the user says they are back, for good, where they lived before."""
    found = []
    for m in _BACK_HOME.finditer(text):
        if _NOT_NOW_BACK.search(text[:m.start()]) or _BACK_FOR_A_WHILE.match(text[m.end():]):
            continue
        group = next(g for g in ("place", "place2", "place3") if m.group(g))
        place = " ".join(w for w in m.group(group).split() if w.lower() not in _NOT_IN_A_TOWN)
        if place and place.split()[0].lower() not in _NO_TOWN:
            found.append((m.start(group), m.start(group) + len(place), place))
    return found
