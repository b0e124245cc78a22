"""Tools and stacks the user says they switched to, where the tagger marked nothing.

The tagger learned tools from messages that introduce them ("I use Figma"); a switch said in passing ("our
team switched to Playwright", "we are migrating from Cypress to Playwright", "shifted accounts from Zoho Books
to Tally Prime") it seldom marks, so the old tool stayed the user's. The construction is a closed one: a verb
of switching, what moved (optional), the tool left ("from ..."), then "to" and the new tool by its name
(capitalised, or with a digit: "Tally Prime", "TypeScript", "Go 1.22"). A move of home ("moved to Bristol"),
a shift pattern ("switched to days") or a diet ("switched to Mediterranean") is no tool: the verbs that also
say those need the talk around them to be of work, code or software.
"""

from __future__ import annotations

import re

from mnemo.domain.extraction.segment import is_question, sentence_around
from mnemo.domain.extraction.tech import is_technology

# a tool's name: words that open with a capital letter or hold one or a digit ("TypeScript", "iOS", "Go 1.22"),
# joined by "+", "&", "and" or "with" to a second one ("Playwright with TypeScript", "Golang + chi")
_NAME_WORD = r"(?:[A-Z][\w+#-]*|[a-z][\w+#-]*[A-Z0-9][\w+#-]*|\d+)(?:\.\w+)*"
_NAME = rf"{_NAME_WORD}(?:\s+{_NAME_WORD}){{0,2}}"
_TOOLS = rf"(?P<new>{_NAME}(?:\s*(?:\+|&|,|and|with)\s*{_NAME}){{0,3}})"
# verbs that only ever move work between tools
_TOOL_VERB = r"(?:migrat(?:e|ed|es|ing)|port(?:ed|ing|s)?|rewr(?:ite|ites|ote|iting|itten))"
# verbs that also move homes, shifts and diets
_OTHER_VERB = r"(?:switch(?:ed|es|ing)?|shift(?:ed|s|ing)?|swap(?:ped|s|ping)?|chang(?:ed|es|ing)|mov(?:ed|es|ing))"
_SWITCH = re.compile(
    rf"\b(?P<verb>{_TOOL_VERB}|{_OTHER_VERB})(?:\s+(?:over|all|everything|it|them))?"
    r"(?P<what>(?:\s+(?!from\b|to\b|onto\b|into\b)[\w'-]+){0,3}?)"
    r"(?:\s+from\s+(?:the\s+|our\s+|my\s+)?(?P<old>[^,.;:!?()]{1,40}?))?"
    rf"\s+(?:to|onto|into|over to|in)\s+(?:the\s+|our\s+|my\s+)?{_TOOLS}(?![\w+#-]|\.\w)")
# talk of work, code or software around a verb that also moves homes, shifts and diets
_AT_WORK = re.compile(
    r"\b(?:team|project|app|apps|code|codebase|repo|stack|tests?|testing|ci|pipeline|framework|library|tool(?:s|ing)?|"
    r"software|accounts|accounting|books|invoices?|database|db|server|backend|frontend|editor|ide|language|"
    r"platform|service|workflow|deploy\w*)\b", re.IGNORECASE)
# where the new tool belongs: a project's stack when the talk is of building something, else a tool the user uses
_BUILDING = re.compile(r"\b(?:team|project|app|apps|code|codebase|repo|stack|tests?|testing|ci|pipeline|framework|"
                       r"library|database|db|server|backend|frontend|service|deploy\w*|infra\w*|rewr\w+|migrat\w+|port\w*)\b",
                       re.IGNORECASE)
# a switch only thought of, wished for or denied has not happened ("thinking of switching our app to Flutter")
_NOT_DONE = re.compile(
    r"(?:n['’]t|\b(?:never|not|no|cannot|wanna|gonna|might|may|will|would|should|could|want to|wants to|going to|"
    r"plan(?:ning)? to|considering|(?:think|thinking|thought|talk|talking|dream|dreaming) (?:of|about)|if|whether))"
    r"(?:\s+(?:we|i|really|even|ever|just|soon|to))*\s+$", re.IGNORECASE)
_NOT_A_TOOL = re.compile(r"^(?:january|february|march|april|may|june|july|august|september|october|november|"
                         r"december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|i|i'm|the|a|an|my|our)"
                         r"s?$", re.IGNORECASE)


# a verb that only moves work between tools, then a technology written in lower case: "rewrote the shipper in rust",
# "migrating the app to kotlin" (_SWITCH reads capitalised names only, and a lower-case word is a technology only
# where the tech lists know it)
_REWRITTEN_IN = re.compile(rf"\b(?P<verb>{_TOOL_VERB})(?:\s+(?!from\b|to\b|in\b|into\b)[\w'-]+){{0,3}}?"
                           r"\s+(?:to|into|in)\s+(?P<new>[a-z][\w+#-]*)\b")


def switched_to(text: str) -> list[tuple[str, str, str | None, str, str]]:
    """(slot, new tool, old tool or None, the sentence, the sentence) for each switch of tools the text states
    (the shape of diets.diets_followed, whose words said differ from their sentence)."""
    found: list[tuple[str, str, str | None, str, str]] = []
    for m in _SWITCH.finditer(text):
        sentence = sentence_around(text, m.start(), m.end())
        verb = m.group("verb").lower()
        if re.match(_OTHER_VERB, verb) and (not _AT_WORK.search(sentence) or (
                verb.startswith("mov") and not (m.group("what").strip() and m.group("old")))):
            continue  # "moved from Cardiff to Bristol": a home; "moved the CI from Jenkins to ..." a tool
        if is_question(sentence) or _NOT_DONE.search(text[:m.start()]):
            continue
        new = m.group("new").strip()
        if _NOT_A_TOOL.match(new.split()[0]) or new.replace(".", "").isdigit():
            continue  # a day, a month, or a bare version number ("java 8 to 17": the tool's version, not a tool)
        old = m.group("old").strip() if m.group("old") else None
        found.append(("project_stack" if _BUILDING.search(sentence) else "uses", new, old, sentence, sentence))
    for m in _REWRITTEN_IN.finditer(text):
        sentence = sentence_around(text, m.start(), m.end())
        if (not is_technology(m.group("new"), said_of_code=True) or is_question(sentence)
                or _NOT_DONE.search(text[:m.start()]) or any(f[1] == m.group("new") for f in found)):
            continue
        found.append(("project_stack", m.group("new"), None, sentence, sentence))
    return found
