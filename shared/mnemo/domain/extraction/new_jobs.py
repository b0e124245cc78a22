"""A new job told by when it began: "I started last week as deputy principal at Scoil Éanna in Oranmore", "I've
just started as a driver for Arriva"; and a job the user says they left by its workplace: "I quit my job at Tesco
yesterday", "I resigned from Shoprite", "I retired from the railway last year".

The tagger reads such news, in a long message, as an event, as nothing, or takes another title in the message
("Twelve years as a plain teacher and now this") for the job. The way of saying it is narrow: the user, a verb of
beginning, at most a few words of when, "as", the work. An exact rule; the job it finds is the user's job now.
"""

from __future__ import annotations

import re

from mnemo.domain.extraction.countries import is_a_country_or_city_abroad
from mnemo.domain.extraction.dates import CALENDAR_NAMES
from mnemo.domain.extraction.segment import sentence_around

JOB_MAX_WORDS = 10
_GAP = (r"(?:last|this|on|in|at|the|a|my|new|job|role|position|post|work|working|there|here|yesterday|today|recently|"
        r"properly|week|weekend|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|"
        r"\d{1,2}(?:st|nd|rd|th)?|jan\w*|feb\w*|mar\w*|apr\w*|may|jun\w*|jul\w*|aug\w*|sep\w*|oct\w*|nov\w*|dec\w*)")
_BEGAN = re.compile(
    r"(?<!when )(?<!since )(?<!before )(?<!after )(?<!until )\bI(?:['’]ve|\s+have)?\s+"
    r"(?P<just>(?:just|finally|officially)\s+)?(?:started|began)(?P<gap>(?:\s+" + _GAP + r"){0,4})\s+as\s+"
    r"(?!(?:an?\s+|the\s+)?(?:joke|usual|planned|expected|always|normal|well|soon|such|if|though|much|many|before|"
    r"ever|promised|agreed|scheduled|volunteer|kid|child|teenager|student)\b)"
    r"(?:an?\s+|the\s+|their\s+|our\s+)?(?P<job>[^\W\d_][^,.;!?()\n]*)", re.IGNORECASE)
_A_YEAR = re.compile(r"\b(?:19|20)\d\d\b")  # "as a nurse in 1990": a beginning long past
# a beginning said to be recent: "I just started as", "I started last week / on Monday / yesterday as"; without one
# it is a memory ("20 years ago I started as a cashier, now I manage the whole store", "The day I started as a nurse")
_RECENT = re.compile(r"\b(?:last|this|yesterday|today|recently|monday|tuesday|wednesday|thursday|friday|saturday|"
                     r"sunday|mon|tue|wed|thu|fri|new)\b", re.IGNORECASE)
# where the work's words end: a new clause ("and they asked me", "but", "so")
_CLAUSE_END = re.compile(r"\s+(?:and|but|so|because|which|who|after|since|when|while|worked|was|were|I|now)\s+.*$",
                         re.IGNORECASE)


# the first days at a workplace named with a capital, in a sentence that speaks of work ("first week at Zentra done,
# platform team, onboarding bahut slow hai"); "first day at Disneyland" is a visit, "my son's first day at St Mary's"
# his
_FIRST_DAYS = re.compile(
    # ("sa" as Tagalog says "at": "first week ko sa Rush!")
    r"(?<!['’]s )(?<!\bhis )(?<!\bher )(?<!\btheir )\b(?i:first\s+(?:day|days|week|weeks|month|shift)\s+(?:ko\s+)?"
    r"(?:at|with|sa)\s+)"
    r"(?P<job>[A-ZÀ-Ý][\w&'’.-]*(?:\s+[A-ZÀ-Ý][\w&'’.-]*){0,2})")
_WORK_TALK = re.compile(r"\b(?:job|work|working|team|onboarding|induction|training|boss|manager|colleagues?|"
                        r"co-?workers?|office|shift|shifts|desk|role|position|hired|contract|payroll|salary|overtime|"
                        r"staffing|laptop|pipeline|stack|codebase|sprint|standup|deploy\w*|clients?|customers?)\b",
                        re.IGNORECASE)
# the first pay from a workplace named with a capital: work, whatever else the sentence says ("First salary in
# Comarch! Same position, QA engineer")
_FIRST_PAY = re.compile(
    r"(?<!['’]s )(?<!\bhis )(?<!\bher )(?<!\btheir )\b(?i:first\s+(?:salary|pay\s*(?:check|cheque|slip)|paycheck|"
    r"paycheque|payslip|wages?|pay\s+day|payday)\s+(?:at|in|from|with|sa)\s+)"
    r"(?P<job>[A-ZÀ-Ý][\w&'’.-]*(?:\s+[A-ZÀ-Ý][\w&'’.-]*){0,2})")


# working for a workplace named with a capital since a time that has begun: "driving for Raben since Monday better
# money", "been teaching at Riverside Primary since September"; said by the user (at the sentence's start, or after
# "I'm", "I've been", "now"), not of someone else ("my husband is working for Google since May")
_WORKING_SINCE = re.compile(
    r"(?:^|(?<=[.!?;\n])\s*|\b(?i:i['’]?m|i\s+am|i['’]?ve\s+been|i\s+have\s+been|been|now|currently|and|so)\s+)"
    r"(?P<job>(?i:working|driving|teaching|nursing|delivering|coding|designing|consulting|lecturing)\s+"
    r"(?i:for|at|with)\s+(?:the\s+)?(?P<place>[A-ZÀ-Ý][\w&'’.-]*(?:\s+[A-ZÀ-Ý][\w&'’.-]*){0,2}))\s+(?i:since)\s+"
    r"(?i:\w+)")
# who is no workplace: "cooking for Mum since she got sick", "working with Dad since Easter"
_NO_WORKPLACE = re.compile(r"^(?:mum|mom|mam|dad|my|our|his|her|their|the\s+kids|christmas|easter|marathon|"
                           r"grandma|grandpa|nan|gran)\b", re.IGNORECASE)


def _a_place_or_time(name: str) -> bool:
    words = name.split()
    return (is_a_country_or_city_abroad(name) or is_a_country_or_city_abroad(words[0])
            or words[0].lower() in CALENDAR_NAMES)


def new_jobs(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "deputy principal at Scoil Éanna in Oranmore") for each job the text says the user began."""
    # (a country, a city abroad or a month is where or when the work is, not who it is for: "First salary in Canada!!",
    # "first week ko sa Dubai", "got my first paycheck in March")
    out = [(m.start("job"), m.end("job"), m.group("job")) for m in _FIRST_DAYS.finditer(text)
           if _WORK_TALK.search(text) and not _a_place_or_time(m.group("job"))]
    out.extend((m.start("job"), m.end("job"), m.group("job")) for m in _FIRST_PAY.finditer(text)
               if not _a_place_or_time(m.group("job")))
    # "working at Google" is the workplace's job; "driving for Raben" says the work too
    out.extend((m.start("place"), m.end("place"), m.group("place")) if m.group("job").lower().startswith("working")
               else (m.start("job"), m.end("job"), m.group("job")) for m in _WORKING_SINCE.finditer(text)
               if not _NO_WORKPLACE.match(m.group("place")))
    for m in _BEGAN.finditer(text):
        if not (m.group("just") or _RECENT.search(m.group("gap"))):
            continue
        job = _CLAUSE_END.sub("", m.group("job")).strip(" '\"")
        if job and len(job.split()) <= JOB_MAX_WORDS and not _A_YEAR.search(job):
            out.append((m.start("job"), m.start("job") + len(job), job))
    return out


def began_as(value: str) -> str | None:
    """The job in an event the tagger read ("started last week as deputy principal at Scoil Éanna in Oranmore"),
    read as ``new_jobs`` reads the user's own words; None when it says no recent beginning of work."""
    found = new_jobs(f"I {value.strip()}")
    return found[0][2] if found else None


# a workplace named: up to three capitalised words, or one lower-case word that is no article, pronoun or time
_NAMED_PLACE = (r"(?:[A-Z][\w&'’-]*(?:\s+[A-Z][\w&'’-]*){0,2}|(?!(?:the|my|our|his|her|their|a|an|this|that|end|start|"
                r"beginning|same|last|first|next|time|moment|weekend|close|work|school|uni|home)\b)[a-z][\w'’-]*)")
# the user leaving a workplace, named after "my job at" or, with a capital, after a verb that is only said of work
_LEFT_JOB = re.compile(
    r"(?<!when )(?<!if )(?<!before )\b(?i:I)(?:['’]ve|\s+have)?\s+(?i:just\s+|finally\s+|officially\s+)?"
    r"(?:(?i:quit|left|resigned from|handed in my notice at|walked out of|lost)\s+(?i:my\s+(?:job|position|role|post))"
    r"\s+(?i:at|with|in)\s+(?i:the\s+)?(?P<place>[^\W\d_][^,.;:!?()\n]*)"
    # a notice given "to" is given to whoever heard it ("to my landlord", "to HR", "to the council"): only a name
    # said right after it is the workplace ("gave my notice to Asda")
    r"|(?i:resigned from|retired from|(?:handed in|handed|gave|given|put in)\s+(?:in\s+)?my\s+notice\s+"
    r"(?:at|to(?=\s+(?-i:[A-Z][a-z]))))"
    r"\s+(?i:the\s+)?"
    # not "my", "her": whose workplace it is, not which ("resigned from my post"); nor when ("my notice at the end of
    # the month", "at the same time as")
    r"(?P<named>" + _NAMED_PLACE + "))")
# a job the user lost or ended by its last day, named after the words that say so, with the user as the one who lost
# it: "i got laid off from amazon", "got made redundant from Barclays", "they let me go at the warehouse", "yesterday
# was my last day at walmart"; not someone else's ("Half my team got laid off from Meta", "her last day at"), nor a
# day still wished for or feared
_LOST_JOB = re.compile(
    r"(?:(?:^|(?<=[.!?,;]\s)|\b(?i:i|i['’]ve|i\s+have|i\s+was|i['’]m|we\s+were))\s*(?i:just\s+|finally\s+)?"
    r"(?i:(?:got|been|was|get)\s+)?(?i:laid off|made redundant|fired|sacked|let go)"
    r"|\b(?i:let me go|laid me off|fired me|sacked me|made me redundant))"
    r"\s+(?i:from|at|by)\s+(?i:my\s+(?:job|position|role|post)\s+(?:at|with|in)\s+)?(?i:the\s+)?(?P<lost>"
    + _NAMED_PLACE + r")"
    + r"|(?<![\w'’])(?i:my)\s+(?i:last)\s+(?i:day|shift)\s+(?i:at|with)\s+(?i:the\s+)?(?P<last>" + _NAMED_PLACE + ")")
# ... only feared, denied or wished: "I might get laid off from Ford", "scared they'll let me go at the plant"
_NOT_SO = re.compile(r"\b(?:might|may|could|would|will|gonna|going to|afraid|worried|scared|fear|if|hope|hoping|"
                     r"not|never|n['’]t)\b[^.!?]{0,25}$", re.IGNORECASE)
# a last day is a job's only where the message speaks of leaving work ("my last day at Disney World with the kids" is
# a holiday's, "my last shift at the hospital before my week off" a week's)
_LEAVING_WORK = re.compile(r"\b(?:job|work|colleagues?|co-?workers?|team|boss|manager|notice|resign\w*|quit|retir\w*|"
                           r"leaving\s+do|farewell|starting|start\s+at|new\s+(?:job|role|position)|redundan\w*|"
                           r"contract)\b", re.IGNORECASE)
_A_BREAK_AFTER = re.compile(r"^[^.!?]{0,40}?\bbefore\s+(?:my|our|the)\s+(?:\w+\s+)?(?:week|weeks|days?|holiday|leave|"
                            r"vacation|break|time)\s+off\b|^[^.!?]{0,20}?\b(?:this|for\s+the)\s+(?:week|year|month)\b",
                            re.IGNORECASE)
# times of day said after "at": "my boss let me go at lunch"
_A_TIME_OF_DAY = frozenset({"lunch", "lunchtime", "noon", "midday", "night", "dinner", "breakfast", "midnight",
                            "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"})
# where a workplace's words end: when, why, and a new clause
_PLACE_END = re.compile(r"\s+(?:today|yesterday|last|this|on|in|after|because|and|but|so|since|to|for|at|I|now|"
                        r"finally|earlier)\b.*$", re.IGNORECASE)


def left_jobs(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "Tesco") for each workplace the text says the user left, lost, or ended by a last day said with
    words of work."""
    out: list[tuple[int, int, str]] = []
    for m in _LEFT_JOB.finditer(text):
        _keep_place(out, m, "place" if m.group("place") else "named", times_too=True)
    for m, group in _lost_jobs(text):
        if group == "lost" or _work_said(text, m):
            _keep_place(out, m, group)
    return out


def last_days_at(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "walmart") for each last day the text says with no word of work ("yesterday was my last day at
    walmart"): it ends a job only where the user's job is there ("my last day at Disney World with the kids" is a
    holiday's)."""
    out: list[tuple[int, int, str]] = []
    for m, group in _lost_jobs(text):
        if group == "last" and not _work_said(text, m):
            _keep_place(out, m, group)
    return out


def _lost_jobs(text: str) -> list[tuple[re.Match[str], str]]:
    """Each job lost or last day the user says, not feared nor wished, and no last day before a break, with the group
    that names its place."""
    out: list[tuple[re.Match[str], str]] = []
    for m in _LOST_JOB.finditer(text):
        group = "lost" if m.group("lost") else "last"
        if _NOT_SO.search(text[:m.start()]) or (group == "last" and _A_BREAK_AFTER.match(text[m.end():])):
            continue
        out.append((m, group))
    return out


def _work_said(text: str, m: re.Match[str]) -> bool:
    return _LEAVING_WORK.search(sentence_around(text, m.start(), m.end())) is not None


def _keep_place(out: list[tuple[int, int, str]], m: re.Match[str], group: str, times_too: bool = False) -> None:
    """The workplace of the match, cut at its last word of place; a word of time opening it is no place ("let me go
    at lunch"), unless ``times_too``: where the words before say it is a workplace ("my job at Five Guys")."""
    place = _PLACE_END.sub("", m.group(group)).strip(" '\"")
    if place and len(place.split()) <= JOB_MAX_WORDS and (times_too or place.split()[0].lower() not in _A_TIME_OF_DAY):
        out.append((m.start(group), m.start(group) + len(place), place))


# the user's manager named with the workplace: "my manager at chatime is sooo annoying", "my boss at Deloitte"; not
# an old or another's manager ("my old boss at", "my sister's manager at"), nor where the place is no name ("my
# manager at work")
_BOSS_AT = re.compile(
    r"(?<![\w'’])(?i:my)\s+(?i:line\s+|new\s+|current\s+)?(?i:manager|boss|supervisor|team lead|gaffer|head chef"
    # ... or the user's own job or shift named with it: "my job at the bank", "my shift at the depot" (not "my old
    # job at", "my husband's job at")
    r"|(?:day\s+|full-time\s+|part-time\s+|weekend\s+|night\s+|early\s+|late\s+)?(?:job|shifts?))"
    r"\s+(?i:at|@)\s+(?i:the\s+)?(?P<place>[^\W\d_][\w&'’-]*(?:\s+[A-Z][\w&'’-]*){0,2})")
_NO_PLACE = frozenset({"work", "my", "our", "the", "job", "home", "school", "uni", "college", "office", "night",
                       "weekends", "weekend", "lunch", "least", "first", "last", "times", "all"})


def bosses_at(text: str) -> list[tuple[int, int, str]]:
    """(start, end, "chatime") for each workplace the user names as where their manager, their job or their shift
    is."""
    out = []
    for m in _BOSS_AT.finditer(text):
        place = m.group("place").strip(" '\"")
        if place and place.split()[0].lower() not in _NO_PLACE:
            out.append((m.start("place"), m.start("place") + len(place), place))
    return out

