"""Extra keys of a memory: short statements of the facts the extractor finds in it.

A memory is found by its best key (mnemo.domain.ranking.semantic). Its sentences are keys already;
a fact found in it, rewritten as a short statement ("Melanie's hobby: painting."), is another,
closer to how a question asks for it ("What are Melanie's hobbies?") than the chatty turn that
said it. The LongMemEval paper measured this kind of key expansion at about +9% recall; issue 15
measures it on LoCoMo (tests/bench/locomo.py). The key texts are embedded only, never stored.
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


def fact_keys(label: str, candidates: Sequence[Candidate], limit: int) -> list[str]:
    """At most ``limit`` key texts from the facts found in one memory, in the order found, each once.

    A fact the screen refused (a secret, a guess) is no key; "User" becomes the speaker's name when
    the memory has one, so the key says whose fact it is as the question will."""
    keys: list[str] = []
    for candidate in candidates:
        if len(keys) >= limit:
            break
        if (not candidate.should_store or candidate.category in _NOT_KEYS
                or _NOT_KEY_SLOTS.intersection(candidate.tags[:1])):
            continue
        text = _USER.sub(label, candidate.content, count=1) if label else candidate.content
        if text not in keys:
            keys.append(text)
    return keys
