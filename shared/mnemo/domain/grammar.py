"""Turning a first-person clause into a third-person fact ("I live in Porto" -> "User lives in Porto")."""

from __future__ import annotations

import re

_IRREGULAR = {
    "am": "is", "'m": "is", "have": "has", "'ve": "has", "do": "does", "go": "goes", "was": "was",
    "don't": "doesn't", "dont": "doesn't", "haven't": "hasn't", "aren't": "isn't", "wasn't": "wasn't",
    "were": "was", "weren't": "wasn't", "'d": "would", "'ll": "will", "are": "is",
}
# irregular past tenses ("ran", "lost"): they take no -s, and they say an event happened
_IRREGULAR_PAST = frozenset(
    "ran went got made took saw came bought met won lost left felt read wrote began ate drank swam flew drove "
    "gave found sold told thought knew grew spent built sent paid brought caught taught kept slept sat stood "
    "became broke chose forgot held heard led meant put quit rode rang rose said set shut sang sank spoke "
    "stole struck swore threw understood woke wore fell hit cut hurt dug fed fled bit blew drew froze hid "
    "shook split spun tore wept".split())
_UNCHANGED = frozenset(
    "can could will would shall should may might must can't cannot couldn't won't wouldn't shouldn't "
    "didn't did had hadn't need used ought".split()) | _IRREGULAR_PAST
# words that end in -ed and are no past tense
_NOT_PAST = frozenset("hundred sacred naked wicked bed red shed wed need speed seed feed weed breed bleed".split())


def is_past_verb(word: str) -> bool:
    """A verb in the past tense ("moved", "passed", "lost"), by its ending or from the irregular ones."""
    low = word.lower()
    return (low in _IRREGULAR_PAST or low in {"had", "did", "was", "were"}
            or (len(low) > 3 and low.endswith("ed") and low not in _NOT_PAST))


_ADVERBS = frozenset(
    "really also usually always never often just still actually now currently absolutely totally "
    "mostly generally definitely sometimes already truly rarely seriously honestly recently finally "
    "only even strongly kinda mainly normally typically no longer not".split()
)
_PRONOUNS = {
    "my": "their", "me": "them", "myself": "themselves", "mine": "theirs", "i": "they",
    "i'm": "they're", "i've": "they've", "i'll": "they'll", "i'd": "they'd",
    "our": "their", "we": "they", "us": "them", "ours": "theirs", "we're": "they're",
}
_CONTRACTION = re.compile(r"^(i|we)('m|'ve|'ll|'d|'re)$", re.IGNORECASE)
_TOKEN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?|[^A-Za-z\s]+|\s+")


def conjugate(verb: str) -> str:
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low in _UNCHANGED or low.endswith("ed") or low.endswith("n't"):
        return verb
    if re.search(r"(s|sh|ch|x|z|o)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


def third_person(clause: str, subject: str = "User") -> str:
    """Rewrite a clause that starts with I / my in the third person; other clauses keep their words."""
    tokens = _TOKEN.findall(clause.strip())
    out: list[str] = []
    i = 0
    first_word_done = False
    while i < len(tokens):
        tok = tokens[i]
        low = tok.lower()
        if not first_word_done and tok.strip() and tok[0].isalpha():
            first_word_done = True
            match = _CONTRACTION.match(low)
            if low in {"i", "we"} or match:
                out.append(subject)
                rest = match.group(2) if match else None
                if rest:
                    out.append(" " + _IRREGULAR.get(rest, rest.lstrip("'")))
                    i += 1
                    continue
                # conjugate the next verb, skipping adverbs
                j = i + 1
                while j < len(tokens):
                    word = tokens[j]
                    if word.isspace() or word.lower() in _ADVERBS:
                        j += 1
                        continue
                    if word[0].isalpha():
                        tokens[j] = conjugate(word)
                    break
                i += 1
                continue
            if low in {"my", "our"}:
                out.append(f"{subject}'s")
                i += 1
                continue
        if tok[:1].isalpha() and low in _PRONOUNS:
            out.append(_PRONOUNS[low])
        else:
            out.append(tok)
        i += 1
    text = "".join(out).strip()
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    text = text.rstrip(" ,;:-")
    if text and text[-1] not in ".!?":
        text += "."
    return text[0].upper() + text[1:] if text else text
