"""Extra keys of a memory, from the facts the extractor finds in it.

A memory is found by its best key (mnemo.domain.ranking.semantic): its sentences are keys already,
and each fact the extractor finds in it adds one more, the clause around the fact's value, said by
the memory's speaker ("Melanie: I ran a charity race for mental health last Saturday"): a phrase
shorter than the sentence, so one apt clause of a long sentence is not diluted by the rest. The
extractor's rewritten statement of the fact ("Melanie's hobby: painting.") is the other kind, and
both together the third (``memory_key_kind``). The LongMemEval paper measured key expansion at
about +9% recall on long sessions; issue 15 measures it on LoCoMo's turns (tests/bench/locomo.py).
Key texts are embedded only, never stored.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mnemo.domain.extraction import Candidate
from mnemo.domain.models import Category

# "How to answer the user: ..." says how to talk, not what happened: no key for a question to find
_NOT_KEYS = frozenset({Category.PROCEDURAL})
# a name in a long memory is mostly the other speaker addressed ("Thanks, Mel!"), read as the user's
# own; the memory's own words still carry it
_NOT_KEY_SLOTS = frozenset({"name", "preferred_name"})
_USER = re.compile(r"^User\b")


def speaker_of(text: str) -> tuple[str, str]:
    """('Melanie', 'I painted a lake.') for 'Melanie: I painted a lake.'; ('', text) without a label.

    The same rule as mnemo.domain.text.sentence_parts: a label is at most three words before ': '."""
    label, sep, body = text.partition(": ")
    if not sep or not label.strip() or len(label.split()) > 3:
        return "", text
    return label.strip(), body


def fact_keys(label: str, candidates: Sequence[Candidate], limit: int, kind: str = "clause") -> list[str]:
    """At most ``limit`` key texts from the facts found in one memory, in the order found, each once.

    ``kind``: "clause" (the words around each fact), "fact" (its statement) or "both". A fact the
    screen refused (a secret, a guess) gives no key; the speaker's name stands for "User", so a key
    says whose fact it is as the question will."""
    keys: list[str] = []
    for candidate in candidates:
        if len(keys) >= limit:
            break
        if (not candidate.should_store or candidate.category in _NOT_KEYS
                or _NOT_KEY_SLOTS.intersection(candidate.tags[:1])):
            continue
        statement = _USER.sub(label, candidate.content, count=1) if label else candidate.content
        clause = f"{label}: {candidate.evidence}" if label else candidate.evidence
        texts = {"fact": [statement], "clause": [clause], "both": [clause, statement]}[kind]
        keys.extend(text for text in texts if text not in keys)
    return keys[:limit]
