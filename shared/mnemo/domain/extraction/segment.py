"""The segment step: a message -> pieces the model can read whole, and the clause around a value.

The tagger reads a whole message at once (it needs no punctuation), so segmenting only has two
jobs: keep long messages within the model's window, and find the clause a value sits in so the
screen can judge that clause (a question, a hypothetical, an injection) rather than the message.
"""

from __future__ import annotations

import re

MAX_WORDS = 120  # well inside MiniLM's 256 word pieces, with room for casual spelling
# a title's full stop before a name ends no sentence: "My colleague Dr. Reem, on the other hand, is allergic to
# penicillin" (but "I have MS. My brother is vegan" ends one: "MS" and "St" are no titles here)
_TITLES = ("Dr", "dr", "DR", "Mr", "MR", "Mrs", "MRS", "Ms", "Prof", "prof")
_TITLE_BEFORE_A_NAME = "(?-i:(?!(?:" + "|".join(rf"(?<=\b{t}\.)" for t in _TITLES) + r")\s+[A-Z]))"
_SENTENCE_END = re.compile(rf"(?<=[.!?]){_TITLE_BEFORE_A_NAME}\s+|\n+|(?<=[;])\s+")
# where one clause ends and the next begins inside a sentence; a full stop inside a word or number is none
# ("go 1.22", "node.js", "5.5 km", "needs .ai files": "matrix for go 1.22/1.23?" is one question), but one
# before the user speaking again is, space or not ("not vegan anymore.im vegetarian now")
# words after which "so" qualifies what follows rather than opening a clause ("not so many", "i'm so tired");
# each a fixed-width look-behind, so listed one by one
_BEFORE_AN_INTENSIFYING_SO = ("not", "and", "or", "be", "is", "am", "are", "was", "were", "been", "feel", "feels",
                              "felt", "get", "got", "look", "looks", "seem", "seems", "im", "i'm", "it's", "its",
                              "that's", "thats", "too", "just", "really", "also", "ever", "quite", "never")
_CLAUSE_BREAK = re.compile(
    r"[.!?]+(?!\w)" + _TITLE_BEFORE_A_NAME
    + r"|[.!?]+(?=(?:i|im|i['’]m|ive|i['’]ve|id|i['’]d|my|we|now|but)\s)|[;\n]+|\s[-–—]\s"
    r"|,\s*(?=(?:but|so|and|also|oh|btw|anyway|anyways|though|because|bc|cuz|lol|haha|tbh|"
    r"what|how|can|could|would|should|any|do|does|is|are|i|im|i'm|i've|ive|my|we|our)\b)"
    r"|\s(?=(?:but|because|bc|cuz|although|though|whereas|anyway|anyways|btw)\s)"
    # "so" opens a clause ("my back hurts so i stopped running"), but not where it says how much: after a word
    # it then qualifies ("not so many hard words", "i am so tired") or before one it measures ("so many emojis")
    r"|" + "".join(rf"(?<!\b{w})" for w in _BEFORE_AN_INTENSIFYING_SO)
    + r"\s(?=so\s(?!(?:many|much|few|little|far|often|long|well|badly|hard|bad|good|very)\b))"
    r"|\s(?:lol|lmao|haha|tbh|ngl)\b", re.IGNORECASE)
_QUESTION_START = re.compile(
    r"^\W*(?:what|what's|whats|how|where|which|who|when|why|can|could|would|will|should|shall|do|does|did|is|are|"
    r"was|were|have|has|any|anything|is it|isn't|aren't|wanna|u think|you think|thoughts|ideas)\b", re.IGNORECASE)


# a message typed in capitals throughout ("MY GRANDSON JOSH IS 10 AND HE HAS A NUT ALLERGY"): the rules that find
# people and names read a capital as a name's, and every word has one. A few capitals in ordinary text ("NHS",
# "ICU", "OK") are no shouting, so the share and the count of capitals must both be high
_SHOUTED_SHARE = 0.8
_SHOUTED_LETTERS = 16
_REDACTED = re.compile(r"\[REDACTED:[^\]]*\]")
_SENTENCE_START = re.compile(r"(^|[.!?]\s+|\n\s*)([a-z])")
_LONE_I = re.compile(r"\bi(?=\b|['’])")


def unshouted(text: str) -> str:
    """Each sentence typed in capitals throughout, in lower case with its first letter and "I" capitalised, as a
    user who did not shout would have typed it ("WE BOUGHT A LITTLE HOUSE IN AMES. No stairs."); any other sentence as
    it is. Redaction markers stay as they are, and so does every offset (a sentence whose lower case is longer is
    left alone)."""
    whole = _shouted(text)  # a message in capitals throughout: its short sentences too ("MY CARD IS ... OK")
    out: list[str] = []
    last = 0
    for m in _SENTENCE_END.finditer(text):
        out.extend((_unshouted_sentence(text[last:m.start()], whole), m.group(0)))
        last = m.end()
    out.append(_unshouted_sentence(text[last:], whole))
    return "".join(out)


def _shouted(text: str) -> bool:
    letters = [c for c in _REDACTED.sub(" ", text) if c.isalpha() and c.lower() != c.upper()]
    upper = sum(c.isupper() for c in letters)
    return upper >= _SHOUTED_LETTERS and upper >= _SHOUTED_SHARE * len(letters)


def _unshouted_sentence(sentence: str, whole: bool) -> str:
    if not (whole or _shouted(sentence)):
        return sentence
    parts: list[str] = []
    last = 0
    for m in _REDACTED.finditer(sentence):
        parts.extend((sentence[last:m.start()].lower(), m.group(0)))
        last = m.end()
    parts.append(sentence[last:].lower())
    lowered = "".join(parts)
    if len(lowered) != len(sentence):
        return sentence
    lowered = _LONE_I.sub("I", lowered)
    return _SENTENCE_START.sub(lambda m: m.group(1) + m.group(2).upper(), lowered, count=1)


def chunks(text: str) -> list[tuple[int, str]]:
    """(offset, piece) pairs covering the text, each at most MAX_WORDS words, split between sentences."""
    if len(text.split()) <= MAX_WORDS:
        return [(0, text)]
    pieces: list[tuple[int, str]] = []
    start = 0
    current_start, current_words = 0, 0
    for m in [*_SENTENCE_END.finditer(text), None]:
        end = m.start() if m else len(text)
        words = len(text[start:end].split())
        if current_words and current_words + words > MAX_WORDS:
            pieces.append((current_start, text[current_start:start].rstrip()))
            current_start, current_words = start, 0
        current_words += words
        start = m.end() if m else len(text)
    if current_start < len(text):
        pieces.append((current_start, text[current_start:]))
    out: list[tuple[int, str]] = []
    for offset, piece in pieces:  # one run-on sentence longer than the window: cut it by words
        spans = list(re.finditer(r"\S+", piece))
        for i in range(0, len(spans), MAX_WORDS):
            first, last = spans[i], spans[min(i + MAX_WORDS, len(spans)) - 1]
            out.append((offset + first.start(), piece[first.start():last.end()]))
    return out


def sentences(text: str) -> list[tuple[int, str]]:
    """(offset, sentence) pairs: the text cut at its sentence ends, each at most MAX_WORDS words."""
    out: list[tuple[int, str]] = []
    start = 0
    for m in [*_SENTENCE_END.finditer(text), None]:
        end = m.start() if m else len(text)
        piece = text[start:end]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            out.extend((start + lead + o, p) for o, p in chunks(piece.strip()))
        start = m.end() if m else len(text)
    return out


def _between_breaks(text: str, start: int, end: int, breaks: re.Pattern[str]) -> tuple[str, re.Match[str] | None]:
    """text[start:end] widened to the last break before it and the next one after it (and that break)."""
    left = 0
    for m in breaks.finditer(text, 0, start):
        left = m.end()
    right = breaks.search(text, end)
    return text[left:right.start() if right else len(text)].strip(), right


def clause_around(text: str, start: int, end: int) -> str:
    """The clause that holds text[start:end]: from the last break before it to the next one after it."""
    clause, right = _between_breaks(text, start, end, _CLAUSE_BREAK)
    # keep a question mark that closes the clause: it decides whether the clause asks
    return clause + "?" if right and right.group(0).startswith("?") else clause


def sentence_around(text: str, start: int, end: int) -> str:
    """The sentence that holds text[start:end]."""
    return _between_breaks(text, start, end, _SENTENCE_END)[0]


# the user speaking of themselves: "im allergic?" is a statement said with doubt, not a question about a thing
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|i've|ive|i'd|id|me|my|mine|we|we're|our|us)\b", re.IGNORECASE)


# a tag that only asks for agreement: "Please responde en español siempre, ok?" states a rule
_TAG_QUESTION = re.compile(
    r"(?:^|[\s,])(?:ok|okay|k|kk|right|yeah|yes|yea|ya|no|pls|plz|please|alright|deal|sure|fine|got it|"
    r"understood|sí|si|vale|bitte|ja|oui|d'accord|né|tá)\W*\?+\W*$", re.IGNORECASE)


# a statement before the question, which needs no "I": "35 weeks pregnant, safe to fly?", "soy vegetariana,
# ¿qué puedo cenar?" (a number's comma, "10,000", is none)
_STATED_FIRST = re.compile(r",(?!\d)")


def is_question(clause: str) -> bool:
    """A clause that asks rather than states ("is pesto ok if you're allergic to nuts?"), terse ones too
    ("matrix for go 1.22/1.23?", "parallel safe?": no question word, nothing said of the user or stated before
    it, and no tag asking only for agreement, "answer in Spanish always, ok?")."""
    if not clause.rstrip().endswith("?"):
        return False
    return bool(_QUESTION_START.match(clause)
                or not (_FIRST_PERSON.search(clause) or _TAG_QUESTION.search(clause)
                        or _STATED_FIRST.search(clause)))


# a doing denied, wished for or only planned, right before it, has not happened ("I can't quit coffee", "never
# stopped playing guitar", "trying to quit smoking", "thinking of selling my Tesla", "my doctor wants to increase my
# sertraline"); "had to give it up" and "proud of quitting smoking" have
DENIED_OR_WISHED = re.compile(
    # "nearly", "almost": a near miss ("I nearly quit the choir", "I almost gave up running")
    r"(?:n['’]t|\b(?:never|not|no|cannot|wanna|gonna|might|may|will|would|should|could|(?<!\bhad )to|considering|"
    r"nearly|almost|"
    r"(?:think|thinking|thought|talk|talking|talked|dream|dreaming) (?:of|about)))"
    r"(?:\s+(?:really|even|ever|yet|just|totally|fully|completely))*\s+$", re.IGNORECASE)
