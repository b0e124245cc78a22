"""Whether a request is about the people a fact of someone in the user's care is about.

A dependant's or a housemate's fact ("User's son Leo is allergic to sesame.", "User's partner Sam's health:
coeliac.") shares its words with the user's own food and health questions: "what should I have for lunch" is
as near to "User's partner Sam's diet: keto." as to the user's own diet, and a block that gave it would have the
assistant cook keto for someone who is not. Such a fact goes in when the request needs the user's family (the slot
affinity, through the fact's borrowed slot), names the person ("what can I cook for Sam?", "my mum" for a mother)
or speaks of the user with others ("dinner for both of us", "for everyone on Sunday"); a child's fact also when it
speaks of what is done for children ("lunchbox ideas", "the school fete"). A visit on the user's calendar that says
what the visitor needs at the table ("... (she is vegetarian)") is read the same way, by the visitor's words alone.
A close one's life ("User's husband Juha's job: carpenter.", family_life) goes in only for a request that names
them ("gift idea for my husband"): what the family needs together is no matter of a sister's job or a mother's
illness far away.
"""

from __future__ import annotations

import re

CARE_PREFIX = "family_care:"
LIFE_PREFIX = "family_life:"

# the user with others: "dinner for both of us", "what should we cook on Sunday", "for everyone"
_TOGETHER = re.compile(
    r"\b(?:we|us|our|ours|both|together|family|families|everyone|everybody|guests?|visitors?|all of us|"
    r"the two of us|for two|for three|for four|household)\b", re.IGNORECASE)
# what the user does for children: a child's fact goes in for these ("lunchbox ideas", "the school run")
_FOR_CHILDREN = re.compile(
    r"\b(?:kids?|kiddos?|children|child|bab(?:y|ies)|toddlers?|boys|girls|twins|lunch\s?box(?:es)?|"
    r"packed lunch(?:es)?|school|nursery|daycare|party|birthday)\b", re.IGNORECASE)
_CHILD_KIN = re.compile(r"^(?:(?:step-?)?(?:sons?|daughters?)|kids?|child|children|bab(?:y|ies)|toddlers?|youngest|"
                        r"eldest|oldest|twins|boys|girls|grand\w+|family)$", re.IGNORECASE)
# the same person called otherwise in the request: "my mum" of "User's mother ..."
_SAME_KIN = {"mum": "mother", "mom": "mother", "mommy": "mother", "mam": "mother", "dad": "father",
             "daddy": "father", "hubby": "husband", "missus": "wife", "kiddo": "kid", "kiddos": "kids",
             "sis": "sister", "bro": "brother", "gran": "grandmother", "granny": "grandmother",
             "grandma": "grandmother", "nan": "grandmother", "grandpa": "grandfather",
             # the words of other languages and Englishes for them: "Mama in Kharkiv" is "my mother"
             "mama": "mother", "mamá": "mother", "maman": "mother", "mutti": "mother", "ammi": "mother",
             "papá": "father"}
# words that are a relative only as the user's: "my boy" is a son, "oh boy" and "songs like ABBA" are none
_MY_KIN = {"boy": "son", "lad": "son", "girl": "daughter", "papa": "father", "abba": "father", "amma": "mother",
           "mamma": "mother"}
_MY_KIN_SAID = re.compile(r"\b(?:my|our)\s+(?:little\s+|eldest\s+|youngest\s+)?(" + "|".join(_MY_KIN) + r")\b",
                          re.IGNORECASE)
# a visit on the user's calendar with what the visitor needs at the table ("User's calendar: mother come to visit
# ... (she is vegetarian) ..."): the visitor's need, as a care fact's, is only for requests about them
_CALENDAR_NEED = re.compile(r"^User's calendar: (?P<label>.+?)\s+(?:is|are|will|come|comes|coming|visit\w*|fly\w*|"
                            r"arriv\w*)\b.*\((?:she|he|shes|hes)\b", re.IGNORECASE)
# how a care fact names its person: "User's son Leo is ...", "User's partner Sam's diet: ...", "Rohit's mother ..."
_LABEL = re.compile(r"^(?:User's\s+)?(?P<label>.+?)(?:['’]s?\s+(?:diet|health|school|education|routine|plan|job|"
                    r"studies|hobby)\b|\s+(?:is|has|avoids|takes|goes|attends|plans|lives|no longer)\b|:)",
                    re.IGNORECASE)
_NOT_A_NAME = frozenset({"user", "user's", "member"})


def is_care_fact(subject: str, content: str = "") -> bool:
    """A fact of someone in the user's care, or a visit that says what the visitor needs at the table."""
    return subject.startswith((CARE_PREFIX, LIFE_PREFIX)) or bool(_CALENDAR_NEED.match(content))


def names_in(content: str) -> set[str]:
    """The words a care fact names its person by: "User's son Leo is allergic to sesame." -> {"son", "leo"};
    "User's calendar: sis ria is coming to visit ... (shes vegan) ..." -> {"sister", "ria"}."""
    m = _CALENDAR_NEED.match(content) or _LABEL.match(content)
    if not m:
        return set()
    return {_SAME_KIN.get(w, w) for w in re.findall(r"[^\W\d_][\w-]+", m.group("label").lower())
            if w not in _NOT_A_NAME}


def asked_for(query: str, content: str, needed: float, life: bool = False) -> bool:
    """Whether a care fact (``life``: a close one's) belongs in the block of this request (see the module's
    docstring)."""
    if not life and (needed > 0 or _TOGETHER.search(query)):
        return True
    names = names_in(content)
    if not life and _FOR_CHILDREN.search(query) and any(_CHILD_KIN.match(n) for n in names):
        return True
    words = {_SAME_KIN.get(w, w) for w in re.findall(r"[^\W\d_][\w-]+", query.lower())}
    words |= {_MY_KIN[m.group(1).lower()] for m in _MY_KIN_SAID.finditer(query)}
    return bool(words & names)


def not_asked_for(query: str, subject: str, content: str, needed: float) -> bool:
    """A fact of someone in the user's care (or a visit saying what the visitor needs) that this request does not
    ask for. ``needed`` is the relevance the fact's slot gained from the request: a care fact's is the family's
    (its borrowed slot), a visit's the plan slot's ("this weekend" needs plans), which says nothing of the visitor."""
    if not is_care_fact(subject, content):
        return False
    return not asked_for(query, content, needed if subject.startswith(CARE_PREFIX) else 0.0,
                         life=subject.startswith(LIFE_PREFIX))
