"""Medicines a doctor started the user on, where the tagger marked nothing.

docs/slots.md files the medicines a user takes regularly under ``health``. The tagger learned conditions
("type 2 diabetic") far better than the drugs for them, and the way a prescription is told is a closed
construction: someone put, started or switched the user onto a named drug ("doc put me on lisinopril 10mg",
"has started me on thyroxine 50 mcg", "switched me off the warfarin and onto apixaban", "prescribed me
sertraline"), or changed its dose ("increased my thyroxine dose to 75 mcg"). The same words also put people
on hold, on nights or on a waiting list, so the sentence must talk of a doctor or medicine, or give a dose.
"""

from __future__ import annotations

import re

from mnemo.domain.extraction.segment import is_question, sentence_around

_DOSE = r"\d+(?:\.\d+)?\s*(?:mg|mcg|µg|ug|g|ml|units?|iu)\b"
# a drug's name, with the word that says what kind of drug when it is two ("beta blockers", "vitamin D", "B12 shots")
_DRUG = (r"(?P<name>[A-Za-z][\w-]{2,}(?:\s+(?:blockers?|thinners?|tablets?|pills?|inhalers?|patch(?:es)?|drops|"
         r"injections?|shots?|supplements?|[A-Z0-9][\w-]*)\b)?)")
_ARTICLE = r"(?:(?:a|an|the|some|my)\s+)?"
_STARTED_ON = re.compile(
    r"\b(?:put|puts|putting|started|starts|starting|switched|moved|changed|swapped|transferred)\s+(?:me|him|her)\s+"
    rf"(?:over\s+|back\s+|straight\s+)?(?:on|onto|on to)\s+{_ARTICLE}{_DRUG}(?P<dose>\s*{_DOSE})?", re.IGNORECASE)
# "switched me off the warfarin and onto apixaban": the second half, after an "off"
_AND_ONTO = re.compile(rf"\boff\b[^,.;!?]{{1,40}}?\b(?:and|then)\s+(?:put\s+(?:me\s+)?)?(?:onto|on to|on)\s+"
                       rf"{_ARTICLE}{_DRUG}(?P<dose>\s*{_DOSE})?", re.IGNORECASE)
_PRESCRIBED = re.compile(rf"\bprescribed\s+(?:me\s+)?{_ARTICLE}{_DRUG}(?P<dose>\s*{_DOSE})?", re.IGNORECASE)
_NEW_DOSE = re.compile(rf"\b(?:increased|raised|upped|lowered|reduced|changed|adjusted|doubled|halved)\s+my\s+"
                       rf"{_DRUG}\s+(?:dose|dosage)\s+(?:to|up to|down to)\s+(?P<dose>{_DOSE})", re.IGNORECASE)
_MEDICAL = re.compile(r"\b(?:doctor|doc|dr|gp|consultant|specialist|cardiologist|endo\w*|nurse|meds?|medications?|"
                      r"medicines?|pills?|tablets?|dose|dosage|prescri\w*|diagnosed|pharmac\w*)\b", re.IGNORECASE)
# what one is put on that is no medicine
_NOT_A_DRUG = frozenset({
    "hold", "list", "waiting", "nights", "days", "shift", "shifts", "rota", "duty", "duties", "call", "leave", "diet",
    "speaker", "mute", "notice", "probation", "track", "spot", "team", "project", "case", "phone", "line", "plan",
    "bed", "rest", "medication", "medicine", "meds", "pills", "tablets", "something", "that", "this", "it", "them",
    "new", "different", "another", "stronger", "higher", "lower", "low", "high",
})


def started_on(text: str) -> list[tuple[str, str, str | None, str, str]]:
    """("health", the drug with its dose when said, None, the words that say so, their sentence) for each drug
    the user was started on."""
    found: list[tuple[str, str, str | None, str, str]] = []
    for pattern in (_STARTED_ON, _AND_ONTO, _PRESCRIBED, _NEW_DOSE):
        for m in pattern.finditer(text):
            name = m.group("name")
            if name.split()[0].lower() in _NOT_A_DRUG:
                continue
            sentence = sentence_around(text, m.start("name"), m.end("name"))
            dose = (m.group("dose") or "").strip()
            if not (dose or _MEDICAL.search(sentence)) or is_question(sentence):
                continue
            value = f"{name} {dose}".strip()
            if all(value.lower() != v.lower() for _s, v, _o, _t, _u in found):
                # what was said of it, from the verb that names the user ("doctor has increased my thyroxine
                # dose ...": the doctor is the one acting, the dose is the user's)
                found.append(("health", value, None, text[m.start():m.end()].strip(), sentence))
    return found


_A_DOSE = re.compile(r"\s*" + _DOSE, re.IGNORECASE)


def without_dose(value: str) -> str:
    """The drug without its dose: "thyroxine 75 mcg" -> "thyroxine", so a new dose is the same fact, changed."""
    return _A_DOSE.sub("", value).strip() or value


def names_a_dose(text: str) -> bool:
    """The text gives a dose ("amlodipine 5mg"): a medicine, not a condition."""
    return _A_DOSE.search(text) is not None
