"""The rule-based extractor: explicit first-person statements -> typed fact candidates.

It needs no model, so it is the embedded default and the fallback of the LLM extractor.
It reads user messages only for facts; the assistant's previous message is used as
context (a short answer to "where do you live?"), never as a source of user facts.
Ambiguous or hedged language is left alone: a missed fact costs less than a wrong one.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from mnemo.domain.extraction.candidates import Candidate, Extraction, ForgetRequest
from mnemo.domain.extraction.commands import AFFIRM, ASKED, CONFIRM_Q, FORGET, REMEMBER
from mnemo.domain.grammar import third_person
from mnemo.domain.models import Category, Importance, Message, Sensitivity, SourceKind
from mnemo.domain.screening import rejection_reason
from mnemo.domain.sensitive import redact
from mnemo.domain.text import terms

EXTRACTOR_NAME = "rule-based"
EXTRACTOR_VERSION = "1.0"


def slot_key(text: str, limit: int = 3) -> str:
    """A stable short key for the object of a fact ("spicy Thai food" -> "spici_thai_food")."""
    words = terms(text)[:limit]
    if not words:
        return hashlib.sha1(text.lower().encode()).hexdigest()[:8]  # noqa: S324 - a key, not security
    return "_".join(words)


# --- topic detection, so "I prefer tea" and later "I prefer coffee" share one slot
_TOPICS: list[tuple[str, re.Pattern[str]]] = [
    ("programming_language", re.compile(
        r"\b(?:python|javascript|typescript|java|golang|go|rust|c\+\+|c#|ruby|kotlin|swift|php|scala|"
        r"haskell|elixir|clojure|perl|lua|dart|julia|matlab|r)\b(?! ?(?:island|river))", re.I)),
    ("response_language", re.compile(
        r"\b(?:in|reply in|respond in|answers? in|speak) (?:english|french|spanish|german|italian|portuguese|"
        r"dutch|japanese|chinese|mandarin|korean|russian|arabic|hindi|polish|swedish|turkish)\b", re.I)),
    ("response_style", re.compile(
        r"\b(?:short|brief|concise|long|detailed|in-depth|bullet(?:ed)? points?|bullets|step[- ]by[- ]step|"
        r"formal|casual|informal|terse|verbose|plain language|simple language|technical|eli5) "
        r"?(?:answers?|replies|responses|explanations|summaries|tone|style|lists?)?\b", re.I)),
    ("units", re.compile(r"\b(?:metric|imperial|celsius|fahrenheit|kilometers|miles|kg|pounds|lbs)\b", re.I)),
    ("drink", re.compile(r"\b(?:tea|coffee|espresso|latte|cappuccino|matcha)\b", re.I)),
    ("seat", re.compile(r"\b(?:window|aisle|middle) seats?\b", re.I)),
    ("theme", re.compile(r"\b(?:dark|light) (?:mode|theme)\b", re.I)),
    ("time_format", re.compile(r"\b(?:24|12)[- ]hour (?:clock|time|format)\b", re.I)),
    ("editor", re.compile(r"\b(?:vim|neovim|emacs|vs ?code|visual studio|intellij|pycharm|sublime)\b", re.I)),
    ("os", re.compile(r"\b(?:linux|windows|macos|mac os|ubuntu|debian|fedora)\b", re.I)),
    ("cloud", re.compile(r"\b(?:aws|azure|gcp|google cloud)\b", re.I)),
]


def topic_of(text: str) -> str | None:
    for topic, pattern in _TOPICS:
        if pattern.search(text):
            return topic
    return None


# --- clause splitting
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+|(?<=[.!?])(?=[A-Z])")
_CONJUNCTION = re.compile(
    r",?\s+(?:and|but|so|although|though|while|whereas|because)\s+(?=(?:now |then )?(?:i|i'm|i've|my|we|our|"
    r"i'll)\b)|,\s+(?=(?:now |then |these days |nowadays )?(?:i|i'm|i've|my)\s)"
    # a statement, then a question about it: "I live in Seattle, what's good for brunch?"
    r"|,\s+(?=(?:what|what's|how|where|which|who|when|why|can|could|would|will|should|do|does|is|are|any)\b"
    r"[^.!]*\?\s*$)", re.IGNORECASE)
_LEADING = re.compile(
    r"^(?:(?:oh|ah|well|so|hey|hi|hello|hi there|hello there|ok|okay|yeah|yes|yep|sure|btw|by the way|fyi|fwiw|"
    r"also|anyway|anyways|these days|nowadays|lately|currently|now|at the moment|for what it's worth|"
    r"by profession|professionally|just so you know|for context|wait|oh wait|to clarify|to be clear|sorry|"
    r"and|but|just so you know|for (?:the|your) record|to be honest|honestly|fun fact|in fact|lol|haha|"
    r"please|pls|thanks|thank you)\b[,!.:]?\s*)+", re.IGNORECASE)
_TRAILING = re.compile(
    r"\s*(?:,?\s*(?:by the way|btw|lol|haha|though|too|as well|these days|nowadays|at the moment|right now|"
    r"now|currently|anymore|any more|for sure|honestly|actually))+[.!]*$", re.IGNORECASE)


_ABBREVIATION = re.compile(
    r"(?:\b(?:st|dr|mr|mrs|ms|jr|sr|mt|ave|inc|co|ltd|corp|vs|etc|no|prof|rev|gen|sgt|approx|dept|univ)|"
    r"\b[a-z]|\be\.g|\bi\.e)\.$", re.IGNORECASE)


def _sentences(text: str) -> list[str]:
    """Split on sentence ends, but not after an abbreviation ("St. Mary's", "Dr. Lee", "e.g.")."""
    out: list[str] = []
    for piece in _SENTENCE.split(text):
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


_CONTRACTIONS = [(re.compile(r"\bi'm\b", re.I), "I am"), (re.compile(r"\bi've\b", re.I), "I have"),
                 (re.compile(r"\bi'll\b", re.I), "I will"), (re.compile(r"\bi'd\b", re.I), "I would"),
                 (re.compile(r"\bwe're\b", re.I), "we are"), (re.compile(r"\bwe've\b", re.I), "we have")]


def expand_contractions(text: str) -> str:
    """One spelling for the rules to match ("I'm into X" and "I am into X" alike)."""
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    return text.replace("\u2019", "'")


_COMPOUND_SUBJECT = re.compile(r"^(?:my|our) [\w-]+(?: [\w-]+)?$", re.IGNORECASE)


def split_clauses(text: str) -> list[str]:
    clauses: list[str] = []
    for sentence in _sentences(text):
        parts = [p.strip(" \t\"'()[]-–—") for p in _CONJUNCTION.split(sentence)]
        parts = [p for p in parts if p]
        merged: list[str] = []
        for part in parts:
            # "My partner and I have a baby": one subject, not two statements
            if merged and _COMPOUND_SUBJECT.match(merged[-1]) and sentence.lower().find(
                    f"{merged[-1].lower()} and {part[:2].lower()}") >= 0:
                merged[-1] = f"{merged[-1]} and {part}"
            else:
                merged.append(part)
        clauses.extend(merged)
    return clauses


_FRONTED_TIME = re.compile(r"^(?P<when>(?:every|each) (?:\w+ )?(?:day|morning|evening|night|week|weekend|month|"
                           r"year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)),? (?P<rest>(?:i|we) .+)$",
                           re.IGNORECASE)


def clean(clause: str) -> str:
    clause = _LEADING.sub("", clause.strip()).strip(" ,;:-")
    fronted = _FRONTED_TIME.match(clause)
    if fronted:  # "Every Friday I play poker" says what "I play poker every Friday" says
        clause = f"{fronted.group('rest').rstrip('.!')} {fronted.group('when').lower()}"
    return clause


def _object(text: str) -> str:
    """Trim an object phrase: trailing filler, punctuation, and a following sub-clause."""
    text = re.split(r"\s+(?:because|since|as|so|but|which|although|when|whenever|if)\s+|[,;(]", text)[0]
    text = _TRAILING.sub("", text.strip())
    return text.strip(" .!?\"'")


@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern[str]
    category: Category
    subject: Callable[[re.Match[str]], str]
    confidence: float = 0.9
    importance: Importance = Importance.MEDIUM
    polarity: bool = True
    sensitivity: Sensitivity = Sensitivity.NORMAL
    high_stakes: bool = False
    episodic: bool = False
    content: Callable[[re.Match[str], str], str] | None = None


def _rule(pattern: str, category: Category, subject: Callable[[re.Match[str]], str] | str,
          **kw: object) -> Rule:
    subj = subject if callable(subject) else (lambda _m, s=subject: s)
    return Rule(re.compile(pattern, re.IGNORECASE), category, subj, **kw)  # type: ignore[arg-type]


def _g(m: re.Match[str], name: str = "x") -> str:
    return _object(m.group(name))


# an organisation: capitalised words ("Deloitte", "Johnson & Johnson")
_ORG = r"(?P<x>[A-Z][\w&.'-]*(?: [A-Z&][\w&.'-]*)*)"
# names must be capitalised even though the rules ignore case: "my wife is pregnant" names nobody
_NAME = r"(?P<x>(?-i:[A-Z][\w'-]+(?: [A-Z][\w'-]+){0,2}))"
# the first word may come in lower case ("i live in berlin"); later words only capitalised, so
# "Porto, not Lisbon" stops at "Porto"
_PLACE = r"(?P<x>[A-Z0-9][\w'.-]*(?-i:(?:[ ,]+(?:[A-Z0-9][\w'.-]*|de|da|do|del|la|le|of|am|upon|on))*))"
_RELATION = (r"(?P<rel>wife|husband|partner|spouse|son|daughter|kid|child|mother|mom|mum|father|dad|brother|"
             r"sister|boyfriend|girlfriend|fianc[eé]e?|grandmother|grandma|grandfather|grandpa|"
             r"best friend|roommate|boss|manager|cousin|aunt|uncle|niece|nephew|twin)")
_PET = (r"(?P<species>dog|cat|puppy|kitten|parrot|bird|rabbit|bunny|hamster|fish|turtle|horse|snake|lizard|pet|"
        r"retriever|labrador|lab|terrier|poodle|spaniel|shepherd|bulldog|beagle|husky|dachshund|corgi|collie|"
        r"chihuahua|pug|boxer|greyhound|tabby|guinea pig|ferret|budgie|cockatiel|goldfish)")
_DIETS = (r"(?P<x>vegetarian|vegan|pescatarian|pescetarian|keto|paleo|gluten[- ]free|dairy[- ]free|lactose[- ]"
          r"intolerant|halal|kosher|teetotal|sober|low[- ]carb|plant[- ]based|carnivore|flexitarian)")
_HEALTH = (r"(?P<x>diabetes|diabetic|asthma|asthmatic|celiac|coeliac|epilepsy|epileptic|adhd|autism|autistic|"
           r"dyslexia|dyslexic|colou?r ?blind|deaf|blind|hard of hearing|migraines?|a heart condition|"
           r"high blood pressure|hypertension|anxiety|depression|arthritis|a bad back|crohn'?s|ibs|parkinson'?s|"
           r"multiple sclerosis|lupus|fibromyalgia|tinnitus|hearing loss|chronic pain|copd|sleep apnea|insomnia|"
           r"partially (?:deaf|sighted|blind)|legally blind|visually impaired|hearing impaired|osteoporosis|"
           r"scoliosis|endometriosis|pcos|gout|eczema|psoriasis|an? (?:heart|thyroid|kidney|liver) condition)")
_PLAN = (r"(?:i'm|i am|we're|we are) (?:going|planning|about|hoping|scheduled|due|set) to"
         r"|i plan to|i will|i'll|we will|we'll")

RULES: list[Rule] = [
    # identity
    _rule(r"^my (?:full |first )?name is " + _NAME, Category.BIOGRAPHICAL, "name",
          importance=Importance.HIGH, confidence=0.95, content=lambda m, _c: f"User's name is {_g(m)}."),
    _rule(r"^(?:my |the )?name(?:'s| is) " + _NAME, Category.BIOGRAPHICAL, "name", importance=Importance.HIGH,
          confidence=0.95, content=lambda m, _c: f"User's name is {_g(m)}."),
    _rule(r"^i am (?P<x>(?-i:[A-Z][a-z'-]+(?: [A-Z][a-z'-]+){0,2}))(?:,? (?:by the way|btw|nice to meet you|"
          r"and\b.*|here)\b.*|\W*)$", Category.BIOGRAPHICAL, lambda m: "name" if _is_name(m.group("x")) else "",
          importance=Importance.HIGH, confidence=0.9, content=lambda m, _c: f"User's name is {_g(m)}."),
    _rule(r"^(?:please )?(?:just |simply )?(?:call me|i go by|you can (?:just |simply )?call me|"
          r"(?:people|everyone|everybody|my friends|friends) "
          r"(?:usually |mostly |just )?calls? me) " + _NAME, Category.PREFERENCE,
          "preferred_name", importance=Importance.HIGH, confidence=0.95,
          content=lambda m, _c: f"User prefers to be called {_g(m)}."),
    # age and dates of the user
    _rule(r"^i(?:'m| am) (?P<x>\d{1,3})(?: (?:years old|yrs old|y/?o)\b|(?:,? not \d{1,3})?\W*$)",
          Category.BIOGRAPHICAL, "age", content=lambda m, _c: f"User is {m.group('x')} years old."),
    _rule(r"^i am in my (?:early |mid |mid-|late )?(?P<x>teens|twenties|thirties|forties|fifties|sixties|seventies|"
          r"eighties|nineties|[2-9]0s)\b", Category.BIOGRAPHICAL, "age"),
    _rule(r"^i (?:will|'ll|am) (?:turn|be|turning) (?P<x>\d{1,3})(?: years old)?\b", Category.BIOGRAPHICAL, "age",
          content=lambda m, c: f"User will turn {m.group('x')}{_after_number(c)}."),
    _rule(r"^i (?:just |recently )?turned (?P<x>\d{1,3})\b", Category.BIOGRAPHICAL, "age",
          content=lambda m, _c: f"User is {m.group('x')} years old."),
    _rule(r"^my birthday is (?:on )?(?P<x>.+)", Category.BIOGRAPHICAL, "birthday", importance=Importance.HIGH),
    _rule(r"^i was born (?:in|on) (?P<x>.+)", Category.BIOGRAPHICAL, "birth"),
    # where
    _rule(r"^i(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated) (?:from [\w' ,.-]+? )?(?:back )?to "
          + _PLACE,
          Category.BIOGRAPHICAL, "location", importance=Importance.HIGH, confidence=0.92),
    _rule(r"^(?:i|we|my [\w-]+ and i)(?:'m| am| are| have been)? (?:currently |now |still |just |actually |really )?"
          r"(?:live|living|reside|residing|based|"
          r"located|staying) (?:just |right )?(?:in|at|near|outside|out of|outside of) (?:the )?" + _PLACE,
          Category.BIOGRAPHICAL, "location", importance=Importance.HIGH),
    _rule(r"^my (?:home|house|apartment|flat|place) is in " + _PLACE, Category.BIOGRAPHICAL, "location",
          importance=Importance.HIGH),
    _rule(r"^i (?:have )?lived in " + _PLACE + r" (?:for|since) ", Category.BIOGRAPHICAL, "location",
          importance=Importance.HIGH, content=lambda m, _c: f"User lives in {_object(m.group('x'))}."),
    _rule(r"^home (?:for me )?is " + _PLACE + r"\W*$", Category.BIOGRAPHICAL, "location", importance=Importance.HIGH,
          content=lambda m, _c: f"User lives in {_object(m.group('x'))}."),
    _rule(r"^i (?:don't|do not|no longer) live in " + _PLACE, Category.BIOGRAPHICAL, "location",
          importance=Importance.HIGH, polarity=False,
          content=lambda m, _c: f"User no longer lives in {_object(m.group('x'))}."),
    _rule(r"^i am (?:now |currently )?(?:in|back in) " + _PLACE + r" (?:now|these days|nowadays|for good)\W*$",
          Category.BIOGRAPHICAL, "location", importance=Importance.HIGH,
          content=lambda m, _c: f"User lives in {_object(m.group('x'))}."),
    _rule(r"^i(?:'m| am) (?:originally )?from " + _PLACE, Category.BIOGRAPHICAL, "hometown"),
    _rule(r"^i am (?:an? )?(?P<x>(?-i:[A-Z][a-z]+(?:an|ian|ese|ish|i|ch|ic|er)))(?: citizen| national)?\W*$",
          Category.BIOGRAPHICAL, lambda m: "nationality" if _is_nationality(m.group("x")) else "",
          content=lambda m, _c: f"User is {m.group('x')}."),
    _rule(r"^i grew up in " + _PLACE, Category.BIOGRAPHICAL, "hometown"),
    _rule(r"^i was (?:born and )?(?:raised|brought up)"
          r"(?: on an? [\w ]{1,20}?| in a (?:small |little )?(?:town|village|city))?"
          r" in " + _PLACE, Category.BIOGRAPHICAL, "hometown"),
    _rule(r"^i (?:come|hail) from (?:a (?:small |little |tiny )?(?:town|village|city) (?:in|near|outside) )?"
          + _PLACE, Category.BIOGRAPHICAL, "hometown"),
    _rule(r"^my (?:home ?town|birthplace|home country) is " + _PLACE, Category.BIOGRAPHICAL, "hometown"),
    # work and study
    _rule(r"^i (?:\w+ly )?(?:work|am working|'m working|have worked|have been working)"
          r"(?: \w+ly| from home| part[- ]time|"
          r" full[- ]time)? "
          r"(?:as|as an?) (?P<x>.+)", Category.BIOGRAPHICAL, "job", importance=Importance.HIGH),
    _rule(r"^my (?:job|profession|occupation|role|position|job title|title) is (?P<x>.+)",
          Category.BIOGRAPHICAL, "job", importance=Importance.HIGH),
    _rule(r"^i (?:(?:have )?been working|work|am working|'m working|am employed|'m employed)(?: remotely| full[- ]time"
          r"| part[- ]time)? (?:at|for|with) " + _ORG, Category.BIOGRAPHICAL,
          "employer", importance=Importance.HIGH),
    _rule(r"^i (?:(?:have )?been working|work|am working|am employed)(?: remotely| full[- ]time| part[- ]time| nights|"
          r" days| weekends| shifts)? (?:at|for|in) an? (?P<x>(?:[\w-]+ ){0,3}(?:startup|company|firm|agency|bank|"
          r"hospital|clinic|school|"
          r"university|college|nonprofit|non-profit|charity|ngo|consultancy|studio|restaurant|shop|store|"
          r"factory|lab|laboratory|warehouse|hotel|airline|newspaper|publisher|law firm)\b.*)",
          Category.BIOGRAPHICAL, "employer", importance=Importance.HIGH),
    _rule(r"^i (?:don't|do not|no longer) work (?:at|for) " + _ORG,
          Category.BIOGRAPHICAL, "employer", importance=Importance.HIGH, polarity=False,
          content=lambda m, _c: f"User no longer works at {_g(m)}."),
    _rule(r"^i work in (?P<x>(?:[\w-]+ ){0,2}(?:finance|marketing|sales|it|tech|technology|healthcare|health care|"
          r"education|retail|hospitality|construction|banking|insurance|consulting|law|media|publishing|logistics|"
          r"real estate|government|support|hr|human resources|engineering|research|accounting|design|"
          r"advertising|journalism|manufacturing|pharma|biotech|software|cybersecurity|security|operations|"
          r"nursing|social care|public relations|pr|recruiting|recruitment|fashion|film|tv|television|music|"
          r"aviation|shipping|telecoms?|energy|agriculture|academia|the nonprofit sector|nonprofits)\b.*)",
          Category.BIOGRAPHICAL, "job", importance=Importance.HIGH),
    _rule(r"^i am (?P<x>self-employed|self employed|unemployed|between jobs|freelancing|a full-time parent|"
          r"on (?:maternity|paternity|parental|sick) leave)\b", Category.BIOGRAPHICAL, "job",
          importance=Importance.HIGH),
    _rule(r"^i am in (?:my |the )?(?:first|second|third|fourth|final|last|\d(?:st|nd|rd|th)) year (?:of|at) (?P<x>.+)",
          Category.BIOGRAPHICAL, "education"),
    _rule(r"^i (?:have )?(?:just )?(?:quit|left) my (?:job|position|role) (?:at|with) " + _ORG,
          Category.BIOGRAPHICAL, "employer", importance=Importance.HIGH, polarity=False,
          content=lambda m, _c: f"User no longer works at {_g(m)}."),
    _rule(r"^i(?:'ve| have)? (?:just )?(?:started|joined|got) (?:a new job |working |a job )?(?:at|with) "
          + _ORG, Category.BIOGRAPHICAL, "employer",
          importance=Importance.HIGH),
    _rule(r"^i am an? (?:keen|avid|passionate|amateur|enthusiastic|dedicated|keen amateur|hobby|weekend) "
          r"(?P<x>[\w-]+)\b", Category.PREFERENCE, lambda m: f"hobby:{slot_key(_g(m), 1)}"),
    _rule(r"^i (?:sing|dance|act|perform|play|row|swim|run) (?:in|with|for) an? (?:local |amateur |community )?"
          r"(?P<x>choir|band|orchestra|theatre group|theater group|club|league|team|ensemble|quartet)\b",
          Category.PREFERENCE, lambda m: f"hobby:{slot_key(m.group(0).split()[1], 1)}"),
    _rule(r"^i(?:'m| am) (?:currently |now |also |actually )?an? (?P<x>(?:[\w-]+ ){0,3}student)\b",
          Category.BIOGRAPHICAL, "education"),
    _rule(r"^i(?:'m| am) (?:currently |now |also |actually )?(?:an?|the) (?P<x>(?:[\w-]+ ){0,3}(?:engineer|developer|"
          r"programmer|designer|manager|"
          r"teacher|nurse|doctor|physician|surgeon|dentist|lawyer|attorney|accountant|architect|scientist|"
          r"researcher|analyst|consultant|student|professor|lecturer|writer|author|journalist|editor|artist|"
          r"musician|photographer|chef|cook|baker|pilot|driver|mechanic|electrician|plumber|carpenter|"
          r"farmer|firefighter|police officer|officer|soldier|veteran|pharmacist|therapist|psychologist|"
          r"counselor|counsellor|social worker|librarian|entrepreneur|founder|ceo|cto|cfo|freelancer|"
          r"contractor|intern|retiree|barista|waiter|waitress|cashier|salesperson|marketer|recruiter|"
          r"administrator|coach|trainer|tutor|vet|veterinarian|paramedic|economist|translator|"
          r"data scientist|product owner|specialist|technician|homemaker|stay-at-home \w+))\b",
          Category.BIOGRAPHICAL, "job", importance=Importance.HIGH),
    _rule(r"^i(?:'m| am) (?:currently )?(?:studying (?!for\b)|majoring in |doing a (?:degree|phd|master'?s) in )"
          r"(?P<x>.+)", Category.BIOGRAPHICAL, "education"),
    _rule(r"^i (?:study|major in|am majoring in) (?P<x>.+)", Category.BIOGRAPHICAL, "education"),
    _rule(r"^i (?:studied|graduated (?:from|in)|have a degree in|hold a degree in) (?P<x>.+)",
          Category.BIOGRAPHICAL, "education"),
    _rule(r"^i(?:'m| am) retired\b", Category.BIOGRAPHICAL, "job", importance=Importance.HIGH),
    _rule(r"^i (?:teach|lecture (?:in|on)|coach|train) (?P<x>[\w ]+?)(?: at | for |\W*$)", Category.BIOGRAPHICAL, "job",
          importance=Importance.HIGH),
    _rule(r"^i (?:own|run|manage) (?:an? |my own )(?P<x>(?:[\w-]+ ){0,2}(?:business|company|shop|store|bakery|"
          r"restaurant|cafe|bar|startup|agency|practice|clinic|studio|farm|salon|firm|hotel|gym))\b",
          Category.BIOGRAPHICAL, "job", importance=Importance.HIGH),
    # family and pets
    _rule(r"^my " + _RELATION + r"(?:'s name)? is (?:called |named )?" + _NAME, Category.BIOGRAPHICAL,
          lambda m: f"family:{m.group('rel').lower()}", sensitivity=Sensitivity.PERSONAL),
    _rule(r"^(?:i|we) (?:have )?(?:just |recently )?(?:adopted|rescued|got) (?:an? |one |two |three |\d+ )?(?:\w+ )?"
          + _PET + r"s?(?: (?:named|called) " + _NAME + r")?", Category.BIOGRAPHICAL,
          lambda m: f"pet:{(m.group('x') or m.group('species')).lower()}"),
    _rule(r"^my (?P<x>kids|children|sons|daughters|boys|girls|twins) are (?:aged )?\d", Category.BIOGRAPHICAL,
          "family:children", sensitivity=Sensitivity.PERSONAL),
    _rule(r"^my " + _RELATION + r" (?:lives|is living|is staying|stays) with (?:me|us)\b", Category.BIOGRAPHICAL,
          lambda m: f"family:{m.group('rel').lower()}", sensitivity=Sensitivity.PERSONAL),
    # "we have two kids", "my partner and I have a baby girl" (a count is needed after a bare I or we:
    # "I have girls' night on Fridays" is not a family)
    _rule(r"^(?:(?:i|we) have (?:got )?(?:an? |one |two |three |four |five |\d+ )|my (?:wife|husband|partner|spouse|"
          r"boyfriend|girlfriend) and i have (?:got )?(?:an? |one |two |three |\d+ )?)"
          r"(?:baby |little |young |newborn |older |younger |grown-up |grown )?"
          r"(?P<x>sons?|daughters?|kids?|children|child|brothers?|sisters?|siblings?|grandchildren|grandkids|"
          r"twin boys|twin girls|twins|girls?|boys?)\b", Category.BIOGRAPHICAL,
          lambda m: f"family:{slot_key(m.group('x'), 1)}", sensitivity=Sensitivity.PERSONAL),
    _rule(r"^i(?:'m| am) an? (?:single |proud |stay-at-home |new |working )?(?P<x>dad|father|mom|mum|mother|parent)"
          r"(?: of (?P<n>.+))?", Category.BIOGRAPHICAL, "family:children", sensitivity=Sensitivity.PERSONAL),
    _rule(r"^i(?:'m| am| got| just got)(?: recently| newly| happily| now| just)? (?P<x>married|divorced|engaged|single|"
          r"widowed|separated)\b",
          Category.BIOGRAPHICAL, "relationship_status", sensitivity=Sensitivity.PERSONAL),
    _rule(r"^i(?:'m| am) (?:currently |now )?(?P<x>pregnant|expecting a baby)\b", Category.CONSTRAINT,
          "health:pregnant", importance=Importance.HIGH, sensitivity=Sensitivity.PERSONAL),
    _rule(r"^i am (?P<x>left-handed|right-handed|ambidextrous)\b", Category.BIOGRAPHICAL,
          lambda m: f"trait:{slot_key(m.group('x'), 1)}"),
    _rule(r"^i am an? (?P<x>morning person|night owl|early bird|early riser|late riser|night person)\b",
          Category.PREFERENCE, "chronotype"),
    _rule(r"^i am (?:an? )?(?:bit of an? |pretty |very |quite |a total |total )?(?P<x>introvert|extrovert|ambivert|"
          r"introverted|extroverted|people person|homebody)\b", Category.BIOGRAPHICAL, "personality"),
    _rule(r"^(?:i|we) (?:have(?: got)?|got|own) (?:an? |one |two |three |\d+ )?(?:\w+ )?" + _PET
          + r"s?(?: (?:named|called) " + _NAME + r")?",
          Category.BIOGRAPHICAL, lambda m: f"pet:{(m.group('x') or m.group('species')).lower()}"),
    _rule(r"^i (?:don't|do not|no longer) (?:have|own) (?:an? |my |any )?" + _PET + r"s?\b", Category.BIOGRAPHICAL,
          lambda m: f"pet:{m.group('species').lower()}", polarity=False,
          content=lambda m, c: third_person(c)),
    _rule(r"^(?:my|our) " + _PET + r" is an? [\w -]{0,30}? (?:called|named) " + _NAME, Category.BIOGRAPHICAL,
          lambda m: f"pet:{m.group('x').lower()}"),
    _rule(r"^(?:my|our) " + _PET + r"(?:'s name is| is called| is named| named| called) " + _NAME,
          Category.BIOGRAPHICAL,
          lambda m: f"pet:{m.group('x').lower()}"),
    # diet, allergies, health, other constraints
    _rule(r"^i(?:'m| am) (?:no longer|not) (?:a |an |strictly |fully )?" + _DIETS + r"\b", Category.CONSTRAINT,
          "diet", importance=Importance.HIGH, polarity=False),
    _rule(r"^i(?:'m| am| have been|'ve been)(?: now| currently)? (?:a |an |strictly |fully |100% )?" + _DIETS
          + r"\b", Category.CONSTRAINT, "diet", importance=Importance.HIGH),
    _rule(r"^i (?:have )?(?:become|became|went|turned|switched to being|am now) (?:a |an |fully |strictly )?"
          + _DIETS + r"\b", Category.CONSTRAINT, "diet", importance=Importance.HIGH),
    _rule(r"^i(?:'m| am)? (?:on|follow|following|eat) an? " + _DIETS + r" diet", Category.CONSTRAINT, "diet",
          importance=Importance.HIGH),
    _rule(r"^i (?:am on|follow|am following|keep to|stick to|am sticking to) an? (?P<x>[\w-]+(?: [\w-]+)?) diet\b",
          Category.CONSTRAINT, "diet", importance=Importance.HIGH),
    _rule(r"^i (?:only )?(?:keep|eat|observe) (?:only )?(?P<x>kosher|halal)\b", Category.CONSTRAINT, "diet",
          importance=Importance.HIGH),
    _rule(r"^(?P<x>[\w -]+?) (?:give|gives|cause|causes) me (?:an? )?(?:severe |bad |serious |mild )?"
          r"(?:allergic reactions?|an allergy|hives|anaphylaxis)", Category.CONSTRAINT,
          lambda m: f"allergy:{slot_key(_g(m), 2)}", importance=Importance.CRITICAL, confidence=0.9,
          sensitivity=Sensitivity.PERSONAL,
          content=lambda m, _c: f"User is allergic to {_lower_first(_object(m.group('x')))}."),
    _rule(r"^i(?:'m| am)(?: severely| very| highly| deathly)? allergic to (?P<x>.+)", Category.CONSTRAINT,
          lambda m: f"allergy:{slot_key(_g(m), 2)}", importance=Importance.CRITICAL, confidence=0.95,
          sensitivity=Sensitivity.PERSONAL),
    _rule(r"^i have (?:an? )?(?:severe |serious |mild |bad |slight |life-threatening |deadly )?allergy to (?P<x>.+)",
          Category.CONSTRAINT, lambda m: f"allergy:{slot_key(_g(m), 2)}", importance=Importance.CRITICAL,
          confidence=0.95, sensitivity=Sensitivity.PERSONAL),
    _rule(r"^i have (?:an? )?(?:severe |serious |mild |bad |slight |life-threatening |deadly )?(?P<x>[\w -]+?) allergy",
          Category.CONSTRAINT,
          lambda m: f"allergy:{slot_key(_g(m), 2)}", importance=Importance.CRITICAL, confidence=0.95,
          sensitivity=Sensitivity.PERSONAL),
    _rule(r"^i(?:'m| am) (?P<x>lactose|gluten|fructose|histamine) intolerant|^i(?:'m| am) intolerant to (?P<y>.+)",
          Category.CONSTRAINT, lambda m: f"intolerance:{slot_key(_object(m.group('x') or m.group('y')), 2)}",
          importance=Importance.CRITICAL, sensitivity=Sensitivity.PERSONAL),
    _rule(r"^i (?:avoid|stay away from|cut out) (?P<x>.+)", Category.CONSTRAINT,
          lambda m: f"avoids:{slot_key(_g(m), 2)}", importance=Importance.HIGH, confidence=0.85),
    _rule(r"^i (?:don't|do not|never|can't|cannot|can not|no longer|won't) "
          r"(?:eat|drink|consume|touch|have(?! an? | any | my ))"
          r" ?"
          r"(?P<x>.+)", Category.CONSTRAINT, lambda m: f"avoids:{slot_key(_g(m), 2)}",
          importance=Importance.HIGH, polarity=True),
    _rule(r"^i (?:have )?(?:stopped|quit|gave up|given up) (?:eating|drinking|consuming) (?P<x>.+)",
          Category.CONSTRAINT, lambda m: f"avoids:{slot_key(_g(m), 2)}", importance=Importance.HIGH),
    _rule(r"^i(?:'m| am| have| suffer from| live with| (?:have been|was) diagnosed with)? (?:a |an )?"
          r"(?:type [12] |type (?:one|two) |chronic |severe |mild |bad )?" + _HEALTH + r"\b", Category.CONSTRAINT,
          lambda m: f"health:{slot_key(m.group('x'), 2)}", importance=Importance.HIGH,
          sensitivity=Sensitivity.PERSONAL),
    _rule(r"^i (?:use|am in|'m in) a wheelchair", Category.CONSTRAINT, "mobility", importance=Importance.HIGH,
          sensitivity=Sensitivity.PERSONAL),
    _rule(r"^i (?:can't|cannot|can not|am unable to) (?P<x>(?:stand|sit|walk|kneel|type|drive|read) (?:up )?(?:for )?"
          r"(?:long|long periods|long distances|more than [\w ]+|very long|a long time))\b", Category.CONSTRAINT,
          lambda m: f"cannot:{slot_key(_g(m), 3)}", importance=Importance.HIGH),
    _rule(r"^i (?:can't|cannot|can not|am unable to) (?P<x>(?:lift|carry) (?:heavy|anything heavy)[\w ]*|run|jog|kneel|"
          r"bend|stand for long|sit for long|see well|hear well|read small print)\b.*\b(?:because of|due to) my "
          r"\w+", Category.CONSTRAINT, lambda m: f"cannot:{slot_key(_g(m), 3)}", importance=Importance.HIGH),
    _rule(r"^i (?:can't|cannot|can not|don't|do not) (?P<x>drive|swim|fly|travel|walk long distances|"
          r"climb stairs|work (?:on )?weekends|take calls (?:before|after) [\w: ]+|use \w+)",
          Category.CONSTRAINT, lambda m: f"cannot:{slot_key(_g(m), 3)}", importance=Importance.HIGH),
    _rule(r"^i (?:only|exclusively) (?P<x>(?:eat|drink|fly|use|work|shop|buy|travel|read|watch) .+)",
          Category.CONSTRAINT, lambda m: f"only:{slot_key(_g(m), 2)}"),
    _rule(r"^i(?:'m| am) (?:not allowed|unable|forbidden) to (?P<x>.+)", Category.CONSTRAINT,
          lambda m: f"cannot:{slot_key(_g(m), 3)}", importance=Importance.HIGH),
    # durable instructions about answers (procedural), told apart from one-off requests by screening
    _rule(r"^(?:from now on|going forward|in (?:the )?future|by default),? (?P<x>(?:no more than|at most|under|"
          r"less than|fewer than|max(?:imum)?|only|no) \w.+)", Category.PROCEDURAL,
          lambda m: f"style:{topic_of(m.group('x')) or slot_key(m.group('x'), 2)}", confidence=0.9,
          content=lambda m, _c: f"User wants answers with {_lower_first(_g(m))}."),
    _rule(r"^(?:from now on|going forward|in (?:the )?future|always|by default|whenever you (?:answer|reply|"
          r"respond|write)),? (?:please )?(?P<x>(?:answer|reply|respond|write|use|give|show|explain|keep|"
          r"format|include|call|address|talk|speak|be|cite|quote|add|mention|link|label|number|end|start|begin)"
          r"\b.+)", Category.PROCEDURAL,
          lambda m: f"style:{topic_of(m.group('x')) or slot_key(m.group('x'), 2)}", confidence=0.9,
          content=lambda m, _c: f"User wants the assistant to {_lower_first(_g(m))}."),
    _rule(r"^(?:please )?(?P<x>(?:answer|reply|respond|write|use|give|show|explain|keep|format|include|call|"
          r"address|talk|speak|be)\b.+?),? (?:from now on|going forward|in (?:the )?future|by default|always|"
          r"every time)\W*$", Category.PROCEDURAL,
          lambda m: f"style:{topic_of(m.group('x')) or slot_key(m.group('x'), 2)}", confidence=0.9,
          content=lambda m, _c: f"User wants the assistant to {_lower_first(_g(m))}."),
    _rule(r"^(?:please )?(?:don't|do not) (?P<x>(?:use|give|include|add|send|write|mention|put)\b.+?\b"
          r"(?:in (?:your|the|any) (?:answers?|replies|reply|responses?|messages?)|ever|anymore|any more))\W*$",
          Category.PROCEDURAL, lambda m: f"style_avoid:{slot_key(m.group('x'), 3)}",
          content=lambda m, _c: f"User does not want the assistant to {_assistant_view(_g(m))}."),
    _rule(r"^(?:please )?(?:don't|do not) (?P<x>use (?:any )?(?:emojis?|emoticons|jargon|slang|abbreviations|"
          r"markdown|bullet points|tables|exclamation (?:marks|points)|capital letters|all caps|profanity|"
          r"swear words|technical terms|headers|headings))\W*$", Category.PROCEDURAL,
          lambda m: f"style_avoid:{slot_key(m.group('x'), 3)}",
          content=lambda m, _c: f"User does not want the assistant to {_lower_first(_g(m))}."),
    _rule(r"^(?:please )?(?:never|don't ever|do not ever|stop) (?P<x>(?:use|give|show|send|include|add|write|"
          r"recommend|suggest|call|mention|using|giving|showing|sending|including|adding|writing|recommending|"
          r"suggesting|calling|mentioning)\b.+)", Category.PROCEDURAL,
          lambda m: f"style_avoid:{slot_key(m.group('x'), 3)}",
          content=lambda m, _c: f"User does not want the assistant to {_lower_first(_g(m))}."),
    # preferences
    _rule(r"^my (?:absolute |all-time |all time |very )?(?:favou?rite|fave) (?P<what>[\w -]+?) (?:is|are) (?P<x>.+)",
          Category.PREFERENCE,
          lambda m: f"favorite:{slot_key(m.group('what'), 2)}", importance=Importance.MEDIUM),
    _rule(r"^(?P<x>[\w' -]+?) (?:is|are) (?:definitely |probably )?my (?:absolute )?(?:favou?rite|fave) "
          r"(?P<what>[\w -]+?)\W*$", Category.PREFERENCE, lambda m: f"favorite:{slot_key(m.group('what'), 2)}",
          content=lambda m, _c: f"User's favorite {_object(m.group('what'))} is {_object(m.group('x'))}."),
    _rule(r"^i (?:would |'d )?(?:much |really |strongly |generally |usually )?prefer (?P<x>.+)",
          Category.PREFERENCE, lambda m: f"prefers:{topic_of(m.group('x')) or slot_key(_g(m), 2)}"),
    _rule(r"^i (?:would|'d) (?:much )?rather (?:have |get |use |see |go with |read )?(?P<x>.+)",
          Category.PREFERENCE, lambda m: f"prefers:{topic_of(m.group('x')) or slot_key(_g(m), 2)}"),
    _rule(r"^i (?:really |absolutely |totally |just |also |do )?(?:love|like|enjoy|adore|"
          r"am (?:really |totally |very |quite |so |super |a bit )?into|'m into|"
          r"am obsessed with|'m obsessed with|am a (?:big |huge )?fan of|'m a (?:big |huge )?fan of|"
          r"am passionate about|'m passionate about|am crazy about|'m crazy about|am a (?:total |big )?sucker for|"
          r"have a soft spot for|have a weakness for|"
          r"can't get enough of|really dig) (?P<x>.+)",
          Category.PREFERENCE, lambda m: f"likes:{slot_key(_g(m))}"),
    _rule(r"^i (?:really |absolutely |totally |just |also )?(?:hate|dislike|detest|despise|can't stand|cannot stand|"
          r"don't like|do not like|don't enjoy|do not enjoy|don't care for|am not (?:a )?(?:big )?fan of|"
          r"'m not (?:a )?(?:big )?fan of|am not into|'m not into|don't love|no longer like|no longer enjoy|"
          r"don't really like|stopped liking) (?P<x>.+)", Category.PREFERENCE,
          lambda m: f"likes:{slot_key(_g(m))}", polarity=False),
    _rule(r"^(?P<x>[\w' -]+?) (?:is|are) (?:totally |really |definitely )?(?:my thing|my jam|my passion|my obsession|"
          r"my favou?rite thing)\W*$", Category.PREFERENCE, lambda m: f"likes:{slot_key(_g(m))}",
          content=lambda m, _c: f"User loves {_lower_first(_object(m.group('x')))}."),
    _rule(r"^(?P<x>[\w' -]+?) (?:is not|isn't|are not|aren't) (?:really )?(?:for me|my thing|my cup of tea)\W*$",
          Category.PREFERENCE, lambda m: f"likes:{slot_key(_g(m))}", polarity=False,
          content=lambda m, _c: f"User does not like {_lower_first(_object(m.group('x')))}."),
    _rule(r"^i (?P<x>(?!think|guess|feel|do\b|play\b|go\b|practi)\w+(?: .+?)?) (?:every|each) "
          r"(?:day|morning|evening|night|week|weekend|month|"
          r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", Category.PROCEDURAL,
          lambda m: f"habit:{slot_key(_g(m), 3)}", confidence=0.8),
    _rule(r"^i (?P<x>(?!think|guess|feel|am\b|have\b)\w+(?: [\w']+){0,4}) (?:on|every) (?:mondays|tuesdays|"
          r"wednesdays|thursdays|fridays|saturdays|sundays|weekends|weekdays|weeknights)\b", Category.PROCEDURAL,
          lambda m: f"habit:{slot_key(_g(m), 3)}", confidence=0.8),
    _rule(r"^i (?:usually|always|normally|typically|often|regularly|tend to) (?P<x>(?!think|guess|feel)\w.+)",
          Category.PROCEDURAL, lambda m: f"habit:{slot_key(_g(m), 3)}", confidence=0.8),
    _rule(r"^i do (?P<x>(?:[\w-]+ ){0,2}(?:puzzles?|crosswords?|sudoku|meditation|crafts|woodwork|woodworking|"
          r"calligraphy|origami|archery|ballet|salsa|tai chi|aikido|kickboxing|taekwondo|triathlons?|marathons?|"
          r"embroidery|knitting|crochet|pottery|photography|karaoke|improv|stand-up))\b", Category.PREFERENCE,
          lambda m: f"hobby:{slot_key(_g(m), 2)}"),
    _rule(r"^i (?:play|practice|practise|do|go) (?P<x>(?:the )?(?:guitar|piano|violin|drums|tennis|soccer|"
          r"cello|saxophone|sax|flute|clarinet|trumpet|trombone|harp|bass|ukulele|banjo|accordion|harmonica|oboe|"
          r"viola|organ|keyboard|mandolin|badminton|squash|rugby|cricket|hockey|baseball|softball|table tennis|"
          r"ping pong|darts|bridge|poker|mahjong|padel|"
          r"football|basketball|chess|yoga|pilates|golf|volleyball|climbing|bouldering|running|swimming|"
          r"hiking|surfing|skiing|boxing|karate|judo|crossfit|cycling|martial arts|\w+ing)\b.*)",
          Category.PREFERENCE, lambda m: f"hobby:{slot_key(_g(m), 2)}"),
    _rule(r"^i (?P<x>(?!think|guess|feel|am\b|have\b|need\b|want\b)\w+(?: [\w'-]+){0,4}) in my (?:free|spare|own) "
          r"time\b", Category.PREFERENCE, lambda m: f"hobby:{slot_key(_g(m), 2)}"),
    _rule(r"^i (?:write|do|keep|track|manage|plan|store|draft) (?:everything|all my [\w ]+?|my [\w ]+?) (?:in|on|with) "
          r"(?P<x>[\w .+-]+)", Category.PREFERENCE, lambda m: f"uses:{slot_key(_g(m), 2)}", confidence=0.85),
    _rule(r"^i am (?:fluent|bilingual|trilingual|conversational|native) in (?P<x>.+)", Category.BIOGRAPHICAL,
          lambda m: f"speaks:{slot_key(_g(m), 3)}"),
    _rule(r"^i (?:can )?speak (?:a little |a bit of |some |basic |fluent |conversational |good |decent )?(?P<x>.+)",
          Category.BIOGRAPHICAL, lambda m: f"speaks:{slot_key(_g(m), 3)}"),
    _rule(r"^i (?:mostly |mainly |usually |always |only |now )?use (?P<x>(?!to\b).+?)(?: (?:for|at|when) .+)?$",
          Category.PREFERENCE, lambda m: f"uses:{topic_of(m.group('x')) or slot_key(_g(m), 2)}", confidence=0.85),
    _rule(r"^my (?:e-?mail(?: address)?|phone(?: number)?|mobile(?: number)?|cell(?: number)?|home address|"
          r"address|postal address) is (?P<x>.+)", Category.BIOGRAPHICAL,
          lambda m: f"contact:{slot_key(m.group(0).split(' is ')[0], 2)}", sensitivity=Sensitivity.PERSONAL),
    _rule(r"^my (?:native|first|mother) (?:language|tongue) is (?P<x>.+)", Category.BIOGRAPHICAL,
          "native_language"),
    _rule(r"^i drive an? (?P<x>(?-i:[A-Z][\w-]*)(?: [\w-]+){0,2})", Category.BIOGRAPHICAL,
          lambda m: f"owns:{slot_key(_g(m), 2)}", confidence=0.85),
    # things the user has
    _rule(r"^i (?:have|own|drive|ride) (?:an? |my own )(?P<x>(?!\w+ allergy)(?:[\w-]+ ){0,3}(?:car|bike|bicycle|"
          r"motorcycle|motorbike|scooter|moped|e-bike|vespa|truck|van|house|apartment|flat|boat|garden|cabin|tesla|"
          r"toyota|honda|bmw|audi|"
          r"ford|volkswagen|vw|mac|macbook|iphone|android|pixel|laptop|pc|\w+ phone))\b",
          Category.BIOGRAPHICAL, lambda m: f"owns:{slot_key(_g(m), 3)}", confidence=0.85),
    # projects and team facts: high-stakes ones wait for confirmation
    _rule(r"^(?:our|the|my) (?:project'?s? |team'?s? |annual |monthly |total |marketing |)?budget "
          r"(?:for (?:the |our |this )?[\w -]+? )?(?:is|was|will be|has been set to) (?P<x>.+)",
          Category.PROJECT_FACT, "budget",
          importance=Importance.CRITICAL, high_stakes=True),
    _rule(r"^(?:we|i) (?:have )?(?:decided|agreed|chose|chosen|settled on) (?:to |on )?(?P<x>.+)",
          Category.PROJECT_FACT, lambda m: f"decision:{topic_of(m.group('x')) or slot_key(_g(m), 3)}",
          importance=Importance.HIGH, high_stakes=True),
    _rule(r"^(?:we|our (?:company|team|product|system|app)|i) (?:must|need to|have to) (?:be )?"
          r"(?:comply|compliant|conform) (?:with )?(?P<x>.+)", Category.PROJECT_FACT,
          lambda m: f"compliance:{slot_key(_g(m), 2)}", importance=Importance.CRITICAL, high_stakes=True),
    _rule(r"^(?:we|our (?:company|team|product|system|app)|i) (?:must|need to|have to) be (?P<x>[\w -]+?) "
          r"(?:compliant|certified)\b", Category.PROJECT_FACT,
          lambda m: f"compliance:{slot_key(_g(m), 2)}", importance=Importance.CRITICAL, high_stakes=True),
    _rule(r"^(?:our|the|my) (?P<what>backend|frontend|front end|back end|api|app|service|website|site|codebase|"
          r"server|platform|pipeline|mobile app) (?:is (?:written|built|implemented|developed) (?:in|with|on)|"
          r"runs on|is powered by) (?P<x>.+)", Category.PROJECT_FACT,
          lambda m: f"stack:{slot_key(m.group('what'), 2)}", importance=Importance.HIGH),
    _rule(r"^(?:our|my) team (?:is|has|consists of|is made up of) (?P<x>\w+) (?:people|persons|engineers|developers|"
          r"members|designers)\b", Category.PROJECT_FACT, "team_size"),
    _rule(r"^(?:our|the|my) (?:tech )?stack (?:is|uses|includes) (?P<x>.+)", Category.PROJECT_FACT, "stack",
          importance=Importance.HIGH),
    _rule(r"^(?:our|the|my) (?:project'?s? |team'?s? |final |next )?(?P<what>deadline|launch date|release date|"
          r"go-live|due date|milestone) (?:for (?:the |our |this )?[\w -]+? )?(?:is|was moved to|moved to|will be) "
          r"(?P<x>.+)", Category.PROJECT_FACT,
          lambda m: m.group("what").lower().replace(" ", "_"), importance=Importance.HIGH),
    _rule(r"^(?:the|our|my) (?:client|customer|stakeholders?|boss|manager|team lead|product owner|board|investors?) "
          r"(?:wants|want|needs|need|expects|expect|requires|require|asked for) (?P<x>.+?) by (?P<when>[\w ,]+)\W*$",
          Category.PROJECT_FACT, "deadline", importance=Importance.HIGH),
    _rule(r"^we are (?:currently )?(?:building|developing|writing|making|migrating|rewriting) (?P<x>.+)",
          Category.PROJECT_FACT, lambda m: f"working_on:{slot_key(_g(m), 3)}", confidence=0.85),
    _rule(r"^(?:we|our (?:team|company|project|app|service)) (?:use|uses|run|runs|deploy|deploys|are using|"
          r"is using|build|builds) (?P<x>.+)", Category.PROJECT_FACT,
          lambda m: f"uses:{topic_of(m.group('x')) or slot_key(_g(m), 2)}"),
    _rule(r"^i am (?:halfway through|in the middle of|partway through|midway through|nearly done with|almost done with|"
          r"almost finished with|close to finishing) (?P<x>.+)", Category.EPISODIC,
          lambda m: f"ongoing:{slot_key(_g(m), 3)}", confidence=0.85, episodic=True),
    _rule(r"^i am no longer (?P<x>(?:learning|training for|studying|practi[cs]ing|working on|writing) .+)",
          Category.EPISODIC, lambda m: f"ongoing:{slot_key(_g(m).split(' ', 1)[-1], 3)}", polarity=False,
          content=lambda m, c: third_person(c)),
    _rule(r"^i(?:'m| am) (?:currently |now )(?:reading|watching|rewatching|listening to|taking a course (?:in|on)|"
          r"doing a course (?:in|on)) (?P<x>.+)", Category.EPISODIC, lambda m: f"ongoing:{slot_key(_g(m), 3)}",
          confidence=0.85, episodic=True),
    _rule(r"^i(?:'m| am) (?:currently |now )?(?:training for|preparing for|saving (?:up )?for|learning|practi[cs]ing|"
          r"studying for|trying to|working towards|recovering from|renovating|planning (?!to\b)) ?(?P<x>.+)",
          Category.EPISODIC, lambda m: f"ongoing:{slot_key(_g(m), 3)}", confidence=0.85, episodic=True),
    _rule(r"^i(?:'m| am) (?:currently )?(?:working on|building|developing|writing|leading|running) (?P<x>.+)",
          Category.PROJECT_FACT, lambda m: f"working_on:{slot_key(_g(m), 3)}", confidence=0.85),
    # plans and events (episodic: dated from the message)
    _rule(r"^i (?:will|'ll) be (?:in|at|visiting|travel(?:l)?ing to|flying to|away in|off to) (?P<x>.+)",
          Category.EPISODIC,
          lambda m: f"plan:{slot_key(_g(m), 3)}", confidence=0.85, episodic=True),
    _rule(r"^(?:" + _PLAN + r") (?P<x>(?!be\b)\w.+)", Category.EPISODIC, lambda m: f"plan:{slot_key(_g(m), 3)}",
          confidence=0.85, episodic=True),
    _rule(r"^(?:next|this) (?:week|weekend|month|year|summer|winter|spring|fall|autumn|monday|tuesday|"
          r"wednesday|thursday|friday|saturday|sunday),? (?:i|we)(?:'m| am|'re| are| will|'ll)? (?P<x>.+)",
          Category.EPISODIC, lambda m: f"plan:{slot_key(_g(m), 3)}", confidence=0.85, episodic=True),
    _rule(r"^(?:i am|we are) (?P<x>(?:getting|having|moving|starting|taking|visiting|flying|traveling|travelling|"
          r"heading|off|driving|sailing|"
          r"leaving|retiring|graduating|hosting|attending|running|doing|going|throwing|buying|selling|adopting)\b.*\b"
          r"(?:next|tomorrow|tonight|this (?:week|weekend|month|year|summer|winter|spring|fall|autumn|evening)|"
          r"soon|in (?:january|february|march|april|may|june|july|august|september|october|november|december|"
          r"\w+ (?:days|weeks|months))|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b.*)",
          Category.EPISODIC, lambda m: f"plan:{slot_key(_g(m), 3)}", confidence=0.85, episodic=True),
    _rule(r"^(?:my|our) (?P<x>(?:\w+ ){0,2}\w+(?:s|ed)?\b.*\b"
          r"(?:next|tomorrow|tonight|this (?:week|weekend|month|year|summer)|soon|in (?:january|february|march|"
          r"april|may|june|july|august|september|october|november|december)|on (?:monday|tuesday|wednesday|"
          r"thursday|friday|saturday|sunday|the \d{1,2}(?:st|nd|rd|th)))\b.*)", Category.EPISODIC,
          lambda m: f"event:{slot_key(_g(m), 3)}", confidence=0.85, episodic=True),
    _rule(r"^(?:tomorrow|tonight|later today|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)),? "
          r"(?:i|we) (?:have|am having|are having|have got) (?P<x>.+)", Category.EPISODIC,
          lambda m: f"event:{slot_key(_g(m), 3)}", confidence=0.85, episodic=True),
    _rule(r"^i have (?:got )?an? (?P<x>(?:[\w'-]+ ){0,3}(?:appointment|interview|exam|test|meeting|flight|trip|surgery|"
          r"wedding|party|concert|game|match|race|marathon|deadline|presentation|conference|vacation|holiday)"
          r"\b.*)", Category.EPISODIC, lambda m: f"event:{slot_key(_g(m), 3)}", confidence=0.85, episodic=True),
    _rule(r"^(?:yesterday|last (?:week|weekend|month|year|night|monday|tuesday|wednesday|thursday|friday|"
          r"saturday|sunday)|earlier today|today|this morning|recently|a few days ago|on the weekend|"
          r"(?:a|an|one|two|three|four|five|six|\d+|a couple of|a few) (?:days?|weeks?|months?|years?) ago),? "
          r"(?:i|we) (?P<x>\w.+)", Category.EPISODIC, lambda m: f"event:{slot_key(_g(m), 3)}",
          confidence=0.85, episodic=True),
    # life events only: "I enjoyed the movie yesterday" is a reaction, not something to remember
    _rule(r"^(?:i|we) (?P<x>(?:had|went|got|made|took|met|ran|won|lost|bought|sold|began|left|came|found|broke|fell|"
          r"flew|drove|wrote|built|became|moved|started|finished|completed|visited|adopted|welcomed|graduated|married|"
          r"joined|launched|booked|signed|passed|failed|quit|retired|traveled|travelled|hiked|climbed|cycled|swam|"
          r"renovated|published|released|opened|closed|celebrated|attended|hosted|organi[sz]ed|volunteered|received|"
          r"returned|injured|sprained|fractured|divorced|proposed|delivered|gave birth) .+?) "
          r"(?:last (?:week|weekend|month|"
          r"year|night|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|yesterday|earlier today|this morning|"
          r"(?:a|an|one|two|three|four|five|six|\d+|a couple of|a few) (?:days?|weeks?|months?|years?) ago|"
          r"on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|in (?:january|february|march|april|may|"
          r"june|july|august|september|october|november|december))\W*$", Category.EPISODIC,
          lambda m: f"event:{slot_key(_g(m), 3)}", confidence=0.8, episodic=True),
    _rule(r"^i (?:just |recently |finally )?(?:went|visited|traveled|travelled|finished|completed|started|"
          r"bought|adopted|got|ran|won|lost|met|attended|joined|graduated|passed|quit|left|launched|"
          r"published|signed up|moved into|took|made|built|painted|wrote|read|watched|saw|tried|learned|"
          r"learnt|began|celebrated|hosted|organized|organised|volunteered|received|sold|fixed) (?P<x>.+)",
          Category.EPISODIC, lambda m: f"event:{slot_key(m.group(0), 4)}", confidence=0.8, episodic=True),
]

_CORRECTION = re.compile(
    r"^(?:actually|correction|to correct myself|i meant|sorry,? i meant|wait|(?:no,? )?i (?:said|told you)(?: that)?|"
    r"what i said was|no,? actually|"
    r"that's not right|that is not right|that's wrong|that's not correct|not quite|no|nope)\b[,:!.]?\s*"
    r"(?:it's|it is)?\s*", re.IGNORECASE)
_CORRECTION_OPENING = re.compile(
    r"^(?:actually|correction|no,? i (?:said|meant)|i meant|that's not (?:right|correct|true)|that is not "
    r"(?:right|correct|true)|that's wrong|not quite|wrong|no,? (?:that's|that is|it's|it is) (?:not|wrong)|"
    r"no,? actually|nope,?)\b", re.IGNORECASE)
_LISTED = re.compile(r"^(?P<head>i am (?:severely |very |highly )?allergic to) (?P<items>.+)$", re.IGNORECASE)


def _split_list(clause: str) -> list[str]:
    """'I am allergic to nuts, shellfish and penicillin' -> one statement per item (one slot each)."""
    m = _LISTED.match(clause)
    if not m:
        return [clause]
    items = [i.strip(" .") for i in re.split(r",\s*(?:and\s+)?|\s+and\s+", m.group("items"))
             if i.strip(" .") and not re.match(r"(?:not|but not|except)\b", i.strip(), re.IGNORECASE)]
    return [f"{m.group('head')} {item}" for item in items] if len(items) > 1 else [clause]


_ROLE = re.compile(r"^(?:as|being) (?P<what>an? [\w -]+?|vegan|vegetarian|pescatarian|diabetic|celiac|coeliac)"
                   r"(?:(?:,\s*|\s+)(?P<rest>(?:i|my|we)\b.+)|,?$)", re.IGNORECASE)


_DESCRIBED = re.compile(r"^i am an? (?P<who>(?-i:[A-Z][a-z]+)) (?P<rest>(?:living|based|working|studying) .+)$",
                        re.IGNORECASE)


def _split_role(clause: str) -> list[str]:
    """'As a nurse, I work weekends' -> 'I am a nurse' and 'I work weekends': the role is a fact too;
    'I am a Canadian living in Mexico City' -> 'I am Canadian' and 'I am living in Mexico City'."""
    described = _DESCRIBED.match(clause)
    if described:
        return [f"I am {described.group('who')}", f"I am {described.group('rest')}"]
    m = _ROLE.match(clause)
    if not m:
        return [clause]
    return [f"I am {m.group('what')}", *([m.group("rest")] if m.group("rest") else [])]


_COORDINATED = re.compile(
    r"^(?P<head>(?P<prefix>i'm|i am|i have|i've|i)\b.+?),? (?:and|but) (?:also )?(?P<tail>(?!i\b|i'm|my\b).+)$", re.I)
_REACTION = re.compile(
    r"^(?:it|that|this|these|those|them|that one|this one|that idea|this idea|the idea|that plan|this plan|"
    r"the plan|the suggestion|your \w+|the answer|what you said|"
    r"how you \w+ (?:it|that)|the (?:first|second|last) (?:one|option))$", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"^(?:i|i'm|i've|i'd|i'll|my|we|we're|our)\b", re.IGNORECASE)

# Short answers to the assistant's own question (context, not assistant facts).


# not names: "I'm Italian", "I'm Catholic", "I'm Ready"
_NOT_NAMES = re.compile(
    r"^(?:\w+(?:an|ian|ese|ish|ic|ist|i|ch)|sure|fine|good|ok|okay|here|back|done|ready|sorry|new|home|"
    r"christian|jewish|muslim|hindu|buddhist|catholic|protestant|mormon|atheist|agnostic|dutch|greek|thai|"
    r"swiss|french|irish|welsh|british|scottish|polish|danish|finnish|swedish|turkish|english|spanish|"
    r"black|white|asian|latino|latina|gay|lesbian|bi|trans|queer|straight|single|married)$", re.IGNORECASE)
_COMMON_NAMES_ENDING_LIKE_ADJECTIVES = frozenset({
    "brian", "ian", "adrian", "julian", "christian", "vivian", "lillian", "jillian", "sebastian", "fabian",
    "damian", "ivan", "dean", "sean", "logan", "ryan", "jordan", "morgan", "nathan", "ethan", "jonathan", "dan",
    "alan", "evan", "megan", "susan", "jan", "stan", "juan", "rafael", "nick", "eric", "patrick", "derrick",
    "dominic", "alexis", "chris", "mitch", "rich", "kenji", "yuki", "naomi", "dani", "remi", "ali", "eli",
})


def _is_name(words_: str) -> bool:
    """"Sofia Martins" or "Rafael": a name, not a nationality, a faith or a state ("I'm Italian", "I'm Ready")."""
    parts = words_.split()
    first = parts[0].lower()
    if first in _COMMON_NAMES_ENDING_LIKE_ADJECTIVES:
        return True
    if len(parts) > 1:
        return not _NOT_NAMES.match(first)
    return not _NOT_NAMES.match(first) and len(first) > 1


def _after_number(clause: str) -> str:
    """' in March' from "I'll turn 40 in March": when the birthday falls, if the user said."""
    m = re.search(r"\d{1,3}(?: years old)?(?P<rest> (?:in|on|next|this) [\w ]+?)\W*$", clause)
    return m.group("rest") if m else ""


_NATIONALITY_ENDINGS = ("an", "ian", "ese", "ish", "i", "ch", "ic", "er")
_NOT_NATIONALITIES = frozenset({
    "christian", "lutheran", "anglican", "republican", "vegetarian", "librarian", "veterinarian", "comedian",
    "musician", "technician", "electrician", "physician", "politician", "historian", "guardian", "catholic",
    "stoic", "diabetic", "epileptic", "autistic", "asthmatic", "alcoholic", "workaholic", "introvert", "extrovert",
    "teacher", "manager", "engineer", "designer", "writer", "painter", "baker", "farmer", "lawyer", "dancer",
    "singer", "player", "runner", "swimmer", "gamer", "beginner", "smoker", "member", "owner", "user", "partner",
    "mother", "father", "brother", "sister", "daughter", "leader", "founder", "volunteer", "foreigner", "stranger",
})


def _is_nationality(word: str) -> bool:
    low = word.lower()
    return low.endswith(_NATIONALITY_ENDINGS) and low not in _NOT_NATIONALITIES and not _is_name(word) \
        and len(low) > 3


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text else text


def _assistant_view(text: str) -> str:
    """An instruction addressed to "you", restated about the assistant ("your answers" -> "its answers")."""
    return re.sub(r"\byour\b", "its", _lower_first(text))


def _date_suffix(when: datetime, clause: str) -> str:
    low = clause.lower()
    day = when.date()
    if "yesterday" in low:
        day = (when - timedelta(days=1)).date()
    return f" (on {day.isoformat()})" if any(
        w in low for w in ("yesterday", "today", "this morning", "last ", "ago", "recently", "just ")
    ) or not _plan_like(low) else f" (said on {day.isoformat()})"


def _plan_like(low: str) -> bool:
    return bool(re.search(r"\b(?:going to|plan|will|'ll|next|about to|hoping to|scheduled|have an?)\b", low))


class RuleBasedExtractor:
    """Extracts candidates from a batch of messages of one conversation."""

    name = EXTRACTOR_NAME
    version = EXTRACTOR_VERSION

    def extract(self, messages: Sequence[Message]) -> Extraction:
        result = Extraction()
        previous_assistant = ""
        for message in messages:
            if message.role != "user":
                previous_assistant = message.content
                continue
            text, kinds = redact(message.content)
            result.redacted_kinds.extend(kinds)
            self._from_context(previous_assistant, text, message, result)
            first = len(result.candidates)
            for clause in split_clauses(text):
                for part in (p for whole in _split_role(clean(expand_contractions(clause)))
                             for p in self._split_coordination(whole)):
                    for item in _split_list(part):
                        self._clause(item, message, result)
            if _CORRECTION_OPENING.match(text.strip()):
                # "No, that's not right, my favourite is X": the whole message corrects the assistant
                for candidate in result.candidates[first:]:
                    if candidate.should_store and candidate.source is SourceKind.EXTRACTED:
                        candidate.correction = True
                        candidate.source = SourceKind.USER_EXPLICIT
                        candidate.confidence = max(candidate.confidence, 0.95)
            previous_assistant = ""
        return result

    def _split_coordination(self, clause: str) -> list[str]:
        """'I'm vegetarian and allergic to nuts' -> two statements, when each half stands as a fact."""
        m = _COORDINATED.match(clause)
        if not m:
            return [clause]
        if m.group("tail")[:1].isupper():
            return [clause]  # "reading War and Peace", "a fan of Simon and Garfunkel": a title, not two facts
        head, tail = m.group("head"), m.group("prefix") + " " + m.group("tail")
        if self._rule_for(head) and self._rule_for(tail):
            return [head, *self._split_coordination(tail)]
        return [clause]

    def classify(self, statement: str, when: datetime) -> Candidate | None:
        """Category, slot and polarity of one first-person statement, without the refusals.

        For facts an app hands over directly (remember, import): the app has vetted them, and
        the write path still refuses secrets and identity claims.
        """
        clause = clean(expand_contractions(statement))
        for part in self._split_coordination(clause):
            candidate = self._match(part, Message(role="user", content=part, message_id="api", created_at=when),
                                    explicit=True)
            if candidate is not None:
                return candidate
        return None

    @staticmethod
    def _rule_for(clause: str) -> Rule | None:
        return next((r for r in RULES if r.pattern.search(clause)), None)

    def _from_context(self, asked: str, answer: str, message: Message, result: Extraction) -> None:
        if not asked:
            return
        short = answer.strip().rstrip(".!")
        confirm = CONFIRM_Q.search(asked)
        if confirm and AFFIRM.match(short):
            statement = confirm.group("x")
            statement = re.sub(r"^you(?:'re| are)\b", "I'm", statement, flags=re.I)
            statement = re.sub(r"^your\b", "my", statement, flags=re.I)
            statement = re.sub(r"^you\b", "I", statement, flags=re.I)
            self._clause(statement, message, result, explicit=True)
            return
        if len(short.split()) > 4 or _FIRST_PERSON.match(short) or short.endswith("?"):
            return
        for question, template in ASKED:
            if question.search(asked):
                self._clause(template.format(short), message, result)
                return

    def _clause(self, raw: str, message: Message, result: Extraction, explicit: bool = False) -> None:
        clause = clean(expand_contractions(raw))
        if not clause or (clause.endswith("?") and not REMEMBER.match(clause)):
            return
        forget = FORGET.match(clause)
        if forget and not explicit:
            result.forget.append(ForgetRequest(_object(forget.group("x")) or forget.group("x"), message.message_id))
            return
        remember = REMEMBER.match(clause)
        if remember:
            clause = clean(remember.group("x"))
            explicit = True
        correction = False
        corrected = _CORRECTION.match(clause)
        if corrected and corrected.end() < len(clause):
            rest = clause[corrected.end():]
            if _FIRST_PERSON.match(rest) or explicit:
                clause = rest
                correction = True
        if re.search(r"\bi (?:moved|relocated|switched|changed|no longer|stopped|quit)\b|\banymore\b", clause, re.I):
            correction = True
        reason = rejection_reason(clause)
        if reason == "uncertain" and explicit:
            reason = None
        candidate = self._match(clause, message, explicit)
        if candidate is None:
            if reason:
                # recorded as refused so traces and evaluations can see why nothing was kept
                result.candidates.append(Candidate(
                    category=guess_category(clause), subject="refused", content="",
                    confidence=0.0, evidence="", message_id=message.message_id,
                    occurred_at=message.created_at, should_store=False, rejection_reason=reason,
                ))
                return
            if not explicit or (not _FIRST_PERSON.match(clause) and reason):
                return
            # "remember that X" where X matches no rule: keep the user's own words
            candidate = Candidate(
                category=guess_category(clause), subject=f"note:{slot_key(clause, 4)}",
                content=third_person(clause), confidence=1.0, evidence=clause,
                message_id=message.message_id, occurred_at=message.created_at,
            )
        if explicit:
            candidate.confidence = 1.0
            candidate.source = SourceKind.USER_EXPLICIT
        elif correction:
            candidate.confidence = max(candidate.confidence, 0.95)
            candidate.source = SourceKind.USER_EXPLICIT
            candidate.correction = True
        if reason:
            candidate.should_store = False
            candidate.rejection_reason = reason
        result.candidates.append(candidate)

    def _match(self, clause: str, message: Message, explicit: bool) -> Candidate | None:
        for rule in RULES:
            m = rule.pattern.search(clause)
            if not m:
                continue
            if "x" in m.re.groupindex and m.group("x") and _REACTION.match(_object(m.group("x"))):
                return None  # "I love it!", "I like that idea": a reaction to the reply, not a preference
            subject = rule.subject(m)
            if not subject:
                continue  # the rule's own check said no ("I am Canadian" is not a name): the next may fit
            content = rule.content(m, clause) if rule.content else third_person(_TRAILING.sub("", clause))
            if rule.episodic:
                content = content.rstrip(".") + _date_suffix(message.created_at, clause) + "."
            polarity = rule.polarity
            return Candidate(
                category=rule.category, subject=subject, content=content,
                confidence=rule.confidence, evidence=clause, message_id=message.message_id,
                occurred_at=message.created_at, polarity=polarity, importance=rule.importance,
                sensitivity=rule.sensitivity, high_stakes=rule.high_stakes and not explicit,
            )
        return None


def guess_category(clause: str) -> Category:
    low = clause.lower()
    if re.search(r"\b(?:allergic|can't|cannot|never|must not|avoid|don't eat)\b", low):
        return Category.CONSTRAINT
    if re.search(r"\b(?:prefer|like|love|hate|favou?rite|rather)\b", low):
        return Category.PREFERENCE
    if re.search(r"\b(?:project|repo|team|deadline|budget|stack|client)\b", low):
        return Category.PROJECT_FACT
    if re.search(r"\b(?:yesterday|tomorrow|next|last|on \w+day|meeting|trip)\b", low):
        return Category.EPISODIC
    return Category.BIOGRAPHICAL
