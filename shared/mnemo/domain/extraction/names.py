"""Whether a name the tagger read as the user's is one the user gives themselves.

Users name other people far more often than themselves ("my supervisor, Karin, agreed", "Femke passed her
exams"), and the tagger, taught on introductions, reads many of those names as the user's own; a single-valued
slot then replaces the user's real name with a colleague's or a daughter's. People name themselves in a few
ways, all exact: after a word that says so ("I'm", "my name is", "call me", "it's", "ich bin"), before "here"
("joyce here"), at the head of an introduction ("hey, jamal, 36, PE teacher"), or signing off ("thanks, Ray").
"""

from __future__ import annotations

import re

# greetings in the languages users open with ("Sawasdee ka, I am Nok na"): no name
_GREETING_WORDS = (r"sawa?s?dee|sawatdee|namaste|namaskar|namaskaram|merhaba|salaam|salam|assalamu|hola|ola|olá|"
                   r"bonjour|ciao|hallo|hello|hi|hey|hiya|heya|yo|konnichiwa|annyeong|xin chao|jambo|habari|shalom|"
                   r"privet|kamusta|mabuhay|selamat|vanakkam|aloha|howdy|buongiorno|buenos|buenas|guten|moin|servus|"
                   r"salut|ahoj|cze[sś][cć]|hej|hei|dear|greetings")
# an introduction's opening before the name: a greeting, or a word that leads into it
_GREETING = rf"{_GREETING_WORDS}|good (?:morning|afternoon|evening)|quick intro|intro|ok|okay|so|well"
# a word that says the next one is the user's name, or an introduction's opening before it
_SAYS_IT_BEFORE = re.compile(
    r"(?:\b(?:i'?m|i’m|i am|im|my name is|my name's|my name’s|my n[a-z]{2}e is|"
    r"it's|it’s|its|it is|this is|call me|calls me|called|full name|known as|go by|spelled|born|than|"
    r"me llamo|je m'appelle|je m’appelle|ich hei(?:ß|ss)e|ich bin|sono|soy|sou|jestem|ik ben)"
    # a bare "name is" opens what it says ("name is dana, 41"), not in the middle of a café's story ("a small café
    # in Neukölln, name is Kahve Köşe"); a title names the user only after words that say so ("I'm Dr. Patel"):
    # "Dr. Faisal, my manager, has asked me" is someone else
    rf"|(?:^|[.!?\n]\s*)(?:(?:{_GREETING}|there)\b\W*)*(?:name is|name's|name’s|names|name:))"
    r"(?:[\s,:!.\-–—]*(?:dr|mr|mrs|ms|miss|prof)\.?)?[\s,:!.\-–—]*$", re.IGNORECASE)
_A_GREETING = re.compile(rf"^(?:{_GREETING_WORDS})\b", re.IGNORECASE)
# an introduction's head says only the name before a pause or the age: "Paul, history teacher", not "Femke passed"
_HEAD_OF_INTRO = re.compile(rf"\W*(?:(?:{_GREETING})\b\W*)*", re.IGNORECASE)
_PAUSE_OR_AGE = re.compile(r"^\s*(?:[,.;:!)\-–—(]|\d|$)")
_SAYS_IT_AFTER = re.compile(r"^\s*(?:here|speaking|writing|again|on paper)\b", re.IGNORECASE)
_SIGNING_OFF = re.compile(r"(?:[\n.!,]\s*|\s[-–—~]\s*|\b(?:thanks|thank you|thx|cheers|regards|best|love)\W*)$",
                          re.IGNORECASE)


def names_self(value: str, text: str) -> bool:
    """Whether ``text`` gives ``value`` as the name of the one who wrote it, at any of its mentions."""
    for m in re.finditer(re.escape(value.strip()), text, re.IGNORECASE):
        before, after = text[:m.start()], text[m.end():]
        if _A_GREETING.match(value.strip()) and not before.strip(" \n.,!:;-"):
            continue  # a greeting opening the message ("Sawasdee ka, I am Nok"); "Hi, I'm Salam" names Salam
        if _HEAD_OF_INTRO.fullmatch(before):
            if _PAUSE_OR_AGE.match(after) or _SAYS_IT_AFTER.match(after):
                return True
            continue
        if _SAYS_IT_BEFORE.search(before) or _SAYS_IT_AFTER.match(after):
            return True
        if not after.strip(" .!x\n") and _SIGNING_OFF.search(before):
            return True
    return False
