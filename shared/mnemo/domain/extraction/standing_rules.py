"""Standing rules for the assistant said as an order with a word that makes it last: "use UK spelling, not American,
always", "temps in celsius pls, every time", "explain like I'm 12 from now on", "descriptive variable names please,
no single letters, ever".

The tagger finds most answer rules, but misses terse ones and sometimes keeps the user's reason instead of the rule
("always type-annotate python you give me, I run mypy in strict mode" gave "How to answer the user: they run mypy
in strict mode."). What makes a sentence a standing rule is exact: it tells the assistant what to do (an order, or
a thing asked for with "please"), and says it holds beyond this answer ("always", "every time", "from now on",
"ever", "in all your answers"). Without such a word an order is a one-off request ("use metric units for this
recipe") and is left alone. The rule is the order's own segments; a reason the user adds ("I'm Australian") is not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mnemo.domain.extraction.segment import sentences

# an order to the assistant: the verb opening the sentence (after a filler or two)
_ORDER = re.compile(
    r"^(?:(?:ok|okay|so|also|and|btw|oh|please|pls|plz|remember|one more thing|just|going forward|from now(?: on)?|"
    r"in future|in the future|et|aussi|et aussi|y|también|e|und|auch|désormais|à partir de maintenant|"
    r"a partir de ahora|de ahora en adelante|ab jetzt|d['’]ora in poi)\b[\s,:;-]*)*"
    r"(?:always\s+|never\s+|don['’]?t\s+|do not\s+)?"
    r"(?:use|keep|give|format|put|write|explain|answer|reply|respond|show|include|add|avoid|skip|stop|lose|drop|"
    r"make|be|talk|speak|call|address|list|cite|label|number|convert|quote|spell|translate|correct|ask|assume|"
    r"default to|stick to|switch to|go easy|leave out|leave|"
    # the same orders in the languages users switch to ("réponds-moi en français", "respóndeme en español")
    r"r[ée]ponds|r[ée]pondez|[ée]cris|[ée]crivez|parle|parlez|responde|resp[óo]ndeme|contesta|cont[ée]stame|escribe|"
    r"escr[íi]beme|habla|h[áa]blame|antworte|antworten|schreib|schreibe|responda|fale|escreva|rispondi|scrivi)(?:-moi)?\b",
    re.IGNORECASE)
# "always type-annotate python you give me": "always" or "never" and a verb the list lacks, said to the assistant
_ALWAYS_DO = re.compile(r"^(?:always|never)\s+[a-z][\w-]+\b", re.IGNORECASE)
_TO_THE_ASSISTANT = re.compile(r"\b(?:me|my|you|your|answers?|replies|responses|code)\b", re.IGNORECASE)
# a thing asked for with please, no verb, no one's own statement: "temps in celsius pls", "descriptive names please"
_ASKED_FOR = re.compile(r"^(?!(?:i|i['’]m|im|my|we|we['’]re|our|it|it['’]s|this|that|the weather)\b)[\w'’ /-]{3,60}?"
                        r"\s+(?:please|pls|plz)\b", re.IGNORECASE)
# what makes it last beyond this answer
_LASTING = re.compile(
    r"\b(?:always|every ?time|each time|from now(?: on)?|going forward|in (?:the )?future|ever|whatever you write|"
    r"in (?:all|any|every)(?: of)? (?:your |my )?(?:answers?|replies|responses|code|workout plans?|recipes?|plans?)|"
    r"that['’]s the rule|by default|per answer|all the time|for good|no matter what|whenever|"
    r"d[ée]sormais|toujours|à partir de maintenant|siempre|a partir de ahora|de ahora en adelante|ab jetzt|immer|"
    r"sempre|a partir de agora|d['’]ora in poi)\b", re.IGNORECASE)
# a segment that gives the user's reason or news, not the rule: "I'm Australian", "I run mypy in strict mode"
_REASON = re.compile(r"^(?:i|i['’]m|im|i am|i['’]ve|my|we|we['’]re|our|it|it['’]s|they|she|he|since|because|"
                     r"bc|cause|cos|as)\b", re.IGNORECASE)


# a part of a sentence that is only a filler or the words that make a rule last ("et aussi", "from now on")
_ONLY_FILLER = re.compile(
    r"^(?:(?:ok|okay|so|also|and|btw|oh|et|aussi|y|también|e|und|auch|just|one more thing)\b\s*)*"
    r"(?:(?:from now(?: on)?|going forward|in (?:the )?future|d[ée]sormais|à partir de maintenant|a partir de ahora|"
    r"de ahora en adelante|ab jetzt|d['’]ora in poi)\s*)?$", re.IGNORECASE)


@dataclass(frozen=True)
class StandingRule:
    start: int  # the sentence's place in the text
    end: int
    rule: str  # the order's own words ("use UK spelling, not American")


def standing_rules(text: str) -> list[StandingRule]:
    """The standing rules a text gives the assistant, one per sentence that gives one."""
    out = []
    for offset, sentence in sentences(text):
        said = sentence.strip()
        if said.endswith("?") or not _LASTING.search(said):
            continue
        parts = [p for p in re.split(r"\s*[,;]\s*|\s+-\s+", said.rstrip(" .!")) if p]
        kept: list[str] = []
        for part in parts:
            if not kept and _ONLY_FILLER.match(part):
                continue  # "et aussi", "from now on" alone before the order
            if _REASON.match(part):
                if kept:
                    break  # the reason closes the rule
                continue
            kept.append(part)
        rule = ", ".join(kept)
        if not kept or not (_ORDER.match(kept[0]) or _ASKED_FOR.match(kept[0])
                            or (_ALWAYS_DO.match(kept[0]) and _TO_THE_ASSISTANT.search(rule))):
            continue
        if len(rule.split()) < 2:
            continue
        start = offset + (len(sentence) - len(sentence.lstrip()))
        out.append(StandingRule(start, start + len(said), rule))
    return out
