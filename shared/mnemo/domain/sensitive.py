"""Detection and redaction of secrets and sensitive identifiers (SPEC R3, R10).

Runs before anything durable is written (memories, buffers, logs, traces): a detected
value is replaced by a ``[REDACTED:kind]`` marker, and a fact that would carry such a
marker is refused, while the rest of the message is still used.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mnemo.domain.text import screen_form

MARKER = "[REDACTED:"


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


# the countries that issue IBANs and the length of theirs (the SWIFT IBAN registry; the countries that use the
# format unregistered, as the banks that serve them publish it; the French territories' are France's). A
# lowercase hex id ("ef7570fb0f3e4b87ae42ca...") passed the checksum under a made-up country (one uuid4 in
# 70), then under a real one at any length from 15 to 32 (one in 230): an IBAN has its country's length
_IBAN_LENGTHS: dict[str, int] = {
    **dict.fromkeys("BE".split(), 16), **dict.fromkeys("NO".split(), 15),
    **dict.fromkeys("DK FI FK FO GL NL SD".split(), 18), **dict.fromkeys("MK SI".split(), 19),
    **dict.fromkeys("AT BA EE KZ LT LU MN XK".split(), 20), **dict.fromkeys("CH HR LI LV".split(), 21),
    **dict.fromkeys("BG BH CR DE GB GE IE ME RS VA".split(), 22),
    **dict.fromkeys("AE GI IL IQ OM SO TL".split(), 23),
    **dict.fromkeys("AD CZ ES MD PK RO SA SE SK TN VG".split(), 24),
    **dict.fromkeys("LY PT ST AO CV GW MZ".split(), 25), **dict.fromkeys("IS TR DZ IR".split(), 26),
    **dict.fromkeys("BI DJ FR GR IT MC MR SM CM CF TD KM CG GQ GA MG GF GP MQ RE PF TF YT NC PM WF".split(), 27),
    **dict.fromkeys("AL AZ BY CY DO GT HU LB NI PL SV BJ BF CI HN ML MA NE SN TG".split(), 28),
    **dict.fromkeys("BR EG PS QA UA".split(), 29), **dict.fromkeys("JO KW MU YE".split(), 30),
    **dict.fromkeys("MT SC".split(), 31), **dict.fromkeys("LC".split(), 32), **dict.fromkeys("RU".split(), 33),
}


def iban_valid(candidate: str) -> bool:
    iban = re.sub(r"[ -]", "", candidate).upper()
    if len(iban) != _IBAN_LENGTHS.get(iban[:2]) or not iban[2:4].isdigit():
        return False
    rearranged = iban[4:] + iban[:4]
    try:
        number = int("".join(str(int(ch, 36)) for ch in rearranged))
    except ValueError:
        return False
    return number % 97 == 1


# digits grouped as people paste them: by spaces of any width (a no-break space from a statement, two
# spaces), dashes of any width, or dots, up to three of them between two digits ("4111 - 1111").
# A stray dash or dot against the number still starts or ends one ("-4111...", "is.4111", "4111...-");
# only a digit right behind a separator means the run is the tail of a longer number (0.4111..., a
# date-time), and a separator then a digit after it that it goes on.
_CARD_SEP = r"[^\S\n\r\x0b\x0c\x1c-\x1f\x85\u2028\u2029]|[.\-\u2010-\u2015\u2212]"
_CARD = re.compile(
    rf"(?<!\d)(?<!\d(?:{_CARD_SEP}))(?<!\d(?:{_CARD_SEP}){{2}})(?<!\d(?:{_CARD_SEP}){{3}})"
    rf"(?:\d(?:{_CARD_SEP}){{0,3}}){{12,18}}\d(?!\d)(?!(?:{_CARD_SEP}){{1,3}}\d)")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ -]?[A-Z0-9]{4}){2,7}(?:[ -]?[A-Z0-9]{1,4})?\b", re.IGNORECASE)
# an id a program made (a uuid, bare or dashed, with its version and variant; a SHA-1 or SHA-256 digest): one uuid
# in ~450 has a Luhn-valid digit run or a checksum-valid "de42e16b..." in it (a LangGraph store's keys in metadata
# were refused as secrets). Only a run the id's hex letters enclose on both sides, or one no card network starts,
# is let go (and an IBAN-shaped start of a bare uuid): a card or IBAN padded out to an id's length, or set in its
# dashes, is still one (one random uuid in ~2,000 is still refused)
_HEX_ID = re.compile(
    r"(?<![0-9A-Za-z])(?:(?P<uuid>[0-9a-f]{8}-?[0-9a-f]{4}-?[1-8][0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12})"
    r"|[0-9a-f]{40}|[0-9a-f]{64})(?![0-9A-Za-z])", re.IGNORECASE)
_HEX_LETTER = frozenset("abcdefABCDEF")


def _part_of_an_id(finding: Finding, text: str, ids: list[re.Match[str]]) -> bool:
    for m in ids:
        if not (m.start() <= finding.start and finding.end <= m.end()):
            continue
        if finding.kind == "iban" and m.group("uuid") and finding.start == m.start() and "-" not in m.group():
            return True
        enclosed = (finding.start > m.start() and text[finding.start - 1] in _HEX_LETTER
                    and finding.end < m.end() and text[finding.end] in _HEX_LETTER)
        # no network issues a card starting 0, 1, 7, 8 or 9 (_CARD_NETWORKS, below): in an id it is the id's digits
        if finding.kind == "payment_card" and (enclosed or text[finding.start] not in _CARD_NETWORKS):
            return True
    return False


# a run of base64 long enough to hide a card or a token: decoded and screened again
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])")


def _iban_prefix(candidate: str) -> str | None:
    """The longest valid IBAN at the start of a match (a following word may have been swallowed)."""
    # dashes or spaces between the groups: one character each, so the length maps back to the text
    chunks = re.split(r"[ -]", candidate)
    while chunks:
        text = " ".join(chunks)
        if iban_valid(text):
            return text
        if len(chunks) == 1:
            # unspaced, a word run on after it: the country's length is where it ends
            end = _IBAN_LENGTHS.get(text[:2].upper(), 0)
            return text[:end] if end and iban_valid(text[:end]) else None
        chunks.pop()
    return None
_KEYWORD_VALUE = r"\s*(?:is|was|:|=|->|of)?\s*[\"'`]?"
# a secret said in words may run to several (correct horse battery staple): up to the end of the clause
# (a value never ends on a sentence's full stop, so the next sentence is never taken with it)
_WORDS_VALUE = (r"[\"'`]?[^\s\"'`]+[^\s\"'`.,;:!?)](?:\s+(?!(?:and|but|so|because|for|which|when|if|or|though)\b)"
                r"[^\s.,;!?\"'`]+){0,5}")
_BIP39_WORD = r"[a-z]{3,8}"
# what a door, gate, alarm or safe code opens
_PLACES = (r"door|gate|alarm|safe|locker|garage|building|entry|entrance|keypad|lock ?box|key ?safe|padlock|bike lock"
           r"|lock|front door|apartment|flat|house|office|vault|wi-?fi")

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("private_key", re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY"
        r"(?: BLOCK)?-----|\Z)", re.DOTALL)),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b")),
    ("aws_secret_key", re.compile(
        r"(?i)\baws[_ ]?secret[_ ]?(?:access[_ ]?)?key\b" + _KEYWORD_VALUE + r"[A-Za-z0-9/+=]{30,}")),
    ("api_key", re.compile(
        r"\b(?:sk|pk|rk)[-_](?:live[-_]|test[-_]|proj[-_]|ant[-_])?[A-Za-z0-9_-]{16,}\b")),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})\b")),
    ("slack_token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b")),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{30,}\b")),
    ("gitlab_token", re.compile(r"\bglpat-[A-Za-z0-9_-]{16,}\b")),
    ("stripe_key", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}\b")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b")),
    ("bearer_token", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*")),
    ("connection_string", re.compile(
        r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s@/]+@[^\s]+", re.IGNORECASE)),
    ("password", re.compile(
        r"(?i)\b(?:pass(?:\s+|-)?word|passwd|pwd|passphrase|passcode|pass\s+code|pin(?:\s+code|\s+number)?"
        r"|login\s+code|2fa\s+code|otp|one(?:\s+|-)time\s+code|security\s+code|cvv|cvc)\b(?:\s+(?:for|to|on)\s+[\w.@-]+)?"
        # a value after "is"/":"/"=", or any following word that looks like a secret (digits, symbols)
        + r"(?:\s*(?:is|was|:|=|->)\s*[\"'`]?[^\s\"'`]{2,}[^\s\"'`.,;:!?)]"
          r"|\s+(?=[^\s]*[\d!@#$%^&*])[^\s\"'`]{3,}[^\s\"'`.,;:!?)])")),
    ("secret", re.compile(
        r"(?i)\b(?:api[_ -]?key|access[_ -]?token|auth[_ -]?token|secret[_ -]?key|client[_ -]?secret"
        r"|private[_ -]?key|token|secret)\b" + _KEYWORD_VALUE + r"(?=[^\s\"'`]*\d)[A-Za-z0-9._~+/=-]{12,}")),
    ("us_ssn", re.compile(r"\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b")),
    ("government_id", re.compile(
        r"(?i)\b(?:social security(?: number)?|ssn|passport(?: number| no\.?| #)?|national (?:id|insurance)"
        r"(?: number| no\.?)?|nino|driver'?s? licen[cs]e(?: number| no\.?)?|tax (?:id|number)|tin|nif|nie"
        r"|dni|aadhaar(?: number)?|pan(?: card)?(?: number)?|sin|medicare(?: number)?|id number"
        r"|personalausweis(?:nummer)?|bsn|codice fiscale|cpf|curp|rut|steuer-?id)(?:\b|(?<=[.#]))"
        + _KEYWORD_VALUE + r"(?=[A-Za-z0-9 -]*\d)[A-Za-z0-9][A-Za-z0-9 -]{4,22}[A-Za-z0-9]")),
    ("bank_account", re.compile(
        r"(?i)\b(?:account(?: number| no\.?| #)?|acct|routing(?: number)?|sort code|bic|swift)(?:\b|(?<=[.#]))"
        + _KEYWORD_VALUE + r"(?=[A-Za-z0-9 -]*\d{4})[A-Za-z0-9][A-Za-z0-9 -]{5,30}[A-Za-z0-9]")),
    ("password", re.compile(
        # "the password I use everywhere is X", "my pw is X", "login: bob, pass: X", "wifi password: X"
        r"(?i)\b(?:pass(?:\s+|-)?word|passwd|pwd|pw|passphrase|passcode|pin)\b[^.!?\n]{0,40}?\b(?:is|was)\b\s*:?\s*"
        + _WORDS_VALUE
        + r"|\b(?:pass(?:\s+|-)?word|passwd|pwd|pw|pass|passphrase|passcode|pin)\s*[:=]\s*" + _WORDS_VALUE)),
    ("password", re.compile(
        # a question and its answer: "password? it's X" (also across the messages of a turn)
        r"(?i)\b(?:pass(?:\s+|-)?word|passwd|pw|passphrase|passcode|pin(?:\s+code)?)\s*\?+\s*(?:it'?s|it is|is|:|=)?\s*"
        + _WORDS_VALUE)),
    ("recovery_phrase", re.compile(
        r"(?i)\b(?:(?:recovery|seed|backup|wallet|secret|mnemonic)[ -](?:phrase|words|mnemonic|sentence)"
        r"|mnemonic)\b\s*(?:is|was|:|=|->)?\s*(?:" + _BIP39_WORD + r"[\s,]+){7,23}" + _BIP39_WORD + r"\b")),
    ("access_code", re.compile(
        # door, gate, alarm, safe and locker codes and combinations
        rf"(?i)\b(?:{_PLACES})\s+(?:access\s+)?(?:code|combination|combo|pin|passcode|number)\b"
        r"(?:\s+(?:for|at|of|to|on|in)\s+(?:the\s+|my\s+|our\s+)?[\w-]+)?"
        r"\s*(?:is|was|:|=|,)?\s*[\"'#]?(?=[#*\w-]*\d)[#*\w-]{2,}(?:[ -]\d{1,4}){0,4}")),
    ("access_code", re.compile(
        # the same said the other way round: "the code to my safe is 4821", "the combination for the gate: 1234"
        rf"(?i)\b(?:access\s+)?(?:code|combination|combo|pin|passcode)\s+(?:for|to|of|on|at)\s+(?:the\s+|my\s+|our\s+)?"
        rf"(?:{_PLACES})\b\s*(?:is|was|:|=|,)?\s*[\"'#]?(?=[#*\w-]*\d)[#*\w-]{{2,}}(?:[ -]\d{{1,4}}){{0,4}}")),
    ("access_code", re.compile(r"(?i)\b(?:combination|combo)\s*(?:is|was|:|=)?\s*\d{1,4}(?:[ -]\d{1,4}){1,4}")),
    ("security_answer", re.compile(
        r"(?i)\b(?:(?:my\s+)?(?:mother|mum|mom|mommy|mummy)(?:'s|s)?\s+maiden\s+name|maiden name of my mother"
        r"|answer to (?:my|the|a) security question|security (?:question )?answer|secret answer"
        r"|memorable (?:word|answer|information))\b"
        r"\s*(?:is|was|:|=|->)?\s*[\"'`]?[\w'-]{2,}(?:\s+[A-Z][\w'-]+){0,2}")),
    ("uk_national_insurance", re.compile(
        r"\b[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b")),
    ("webhook", re.compile(
        r"(?i)https?://(?:hooks\.slack\.com/services|discord(?:app)?\.com/api/webhooks|[\w.-]*webhook\.office"
        r"\.com)/[^\s\"'<>]+")),
    ("private_key", re.compile(r"\b(?:0x)?[0-9a-fA-F]{64}\b|\b[xt]prv[1-9A-HJ-NP-Za-km-z]{100,}\b")),
    ("api_key", re.compile(r"\b(?:npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,}|xai-[A-Za-z0-9]{20,}"
                           r"|sk-ant-[A-Za-z0-9_-]{20,}|AccountKey=[A-Za-z0-9+/=]{40,})")),
]


# a card number read out in words ("four one one one, one one one one, ..."), as a voice app transcribes it
_DIGIT_WORDS = {"zero": "0", "oh": "0", "nil": "0", "one": "1", "two": "2", "three": "3", "four": "4",
                "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9"}
_SPOKEN_DIGIT = r"(?:zero|oh|nil|one|two|three|four|five|six|seven|eight|nine)"
_SPOKEN_CARD = re.compile(rf"(?i)\b{_SPOKEN_DIGIT}(?:[\s,.\-]{{1,3}}{_SPOKEN_DIGIT}){{12,18}}\b")


def _spoken_cards(text: str) -> list[Finding]:
    found = []
    for m in _SPOKEN_CARD.finditer(text):
        digits = "".join(_DIGIT_WORDS[w.lower()] for w in re.findall(r"[A-Za-z]+", m.group()))
        if luhn_valid(digits) and len(set(digits)) > 1:
            found.append(Finding("payment_card", m.start(), m.end()))
    return found


def _decoded(token: str) -> str | None:
    """The text a base64 token stands for, when it is text at all."""
    padded = token + "=" * (-len(token) % 4)
    try:
        raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return text if text.isprintable() else None


def find_sensitive(text: str, depth: int = 0) -> list[Finding]:
    """Every sensitive span in ``text``, non-overlapping, in order (base64 runs decoded once). Read in its
    screen form (look-alike letters and other scripts' digits as ASCII, character for character)."""
    text = screen_form(text)
    findings: list[Finding] = []
    for kind, pattern in _PATTERNS:
        findings.extend(Finding(kind, m.start(), m.end()) for m in pattern.finditer(text))
    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group())
        if 13 <= len(digits) <= 19 and luhn_valid(digits) and len(set(digits)) > 1:
            findings.append(Finding("payment_card", m.start(), m.end()))
    findings.extend(_spoken_cards(text))
    for m in _IBAN.finditer(text):
        found = _iban_prefix(m.group())
        if found:
            findings.append(Finding("iban", m.start(), m.start() + len(found)))
    ids = list(_HEX_ID.finditer(text))
    if ids:
        findings = [f for f in findings if not _part_of_an_id(f, text, ids)]
    if depth == 0:
        for m in _BASE64.finditer(text):
            decoded = _decoded(m.group())
            if decoded and find_sensitive(decoded, depth + 1):
                findings.append(Finding("encoded_secret", m.start(), m.end()))
    findings.sort(key=lambda f: (f.start, -(f.end - f.start)))
    merged: list[Finding] = []
    for f in findings:
        if merged and f.start < merged[-1].end:
            last = merged[-1]
            if f.end > last.end:
                merged[-1] = Finding(last.kind, last.start, f.end)
            continue
        merged.append(f)
    return merged


def redact(text: str) -> tuple[str, list[str]]:
    """``text`` with each sensitive span replaced by a marker, and the kinds found."""
    findings = find_sensitive(text)
    if not findings:
        return text, []
    parts: list[str] = []
    cursor = 0
    for f in findings:
        parts.append(text[cursor:f.start])
        parts.append(f"{MARKER}{f.kind}]")
        cursor = f.end
    parts.append(text[cursor:])
    return "".join(parts), [f.kind for f in findings]


def contains_sensitive(text: str) -> bool:
    return MARKER in text or bool(find_sensitive(text))


def redact_together(texts: Sequence[str]) -> list[str]:
    """Each text redacted, screened as one: a card split over two messages of a turn, or a password
    asked in one and answered in the next, is found in the joined text and cut from every part.
    Joined with a space and without one: a split right after a separator ("5100-" + "0000-...")
    must read as one number too."""
    spans: list[list[tuple[int, int]]] = [[] for _ in texts]
    kinds: list[dict[int, str]] = [{} for _ in texts]
    for joiner in (" ", ""):
        joined = joiner.join(texts)
        starts, cursor = [], 0
        for text in texts:
            starts.append(cursor)
            cursor += len(text) + len(joiner)
        for f in find_sensitive(joined):
            for i, (start, text) in enumerate(zip(starts, texts, strict=True)):
                lo, hi = max(f.start, start), min(f.end, start + len(text))
                if lo < hi:
                    spans[i].append((lo - start, hi - start))
                    kinds[i][lo - start] = f.kind
    out = []
    for text, found, kind in zip(texts, spans, kinds, strict=True):
        merged: list[tuple[int, int, str]] = []
        for lo, hi in sorted(found):
            if merged and lo <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(hi, merged[-1][1]), merged[-1][2])
            else:
                merged.append((lo, hi, kind[lo]))
        parts, at = [], 0
        for lo, hi, name in merged:
            parts.extend([text[at:lo], f"{MARKER}{name}]"])
            at = hi
        out.append("".join([*parts, text[at:]]))
    return out


def _texts(value: object) -> list[str]:
    """Every string in a client's value, keys included (a secret can hide in a key as well)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [t for k, v in value.items() for t in (*_texts(k), *_texts(v))]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [t for item in value for t in _texts(item)]
    return []


def _numbers(value: object, key: str = "") -> list[str]:
    """Every number in a client's value as text, with the key it is under ("pin: 4821"): a JSON number is
    no string, and {"card": 4111111111111111} in a session's task_progress was stored where the same digits
    in quotes are refused. Floats count when they are whole (4111111111111111.0)."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer() and abs(value) < 1e20):
        return [f"{key}: {int(value)}" if key else str(int(value))]
    if isinstance(value, Mapping):
        return [t for k, v in value.items() for t in _numbers(v, k if isinstance(k, str) else "")]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [t for item in value for t in _numbers(item, key)]
    return []


def sensitive_field(fields: Mapping[str, object]) -> str | None:
    """The name of the first field that carries a secret anywhere inside it, or None. A number is read as an
    id is (``secret_in_id``): a digit run no card network issues (a timestamp in milliseconds) is no card."""
    found = sensitive_item(fields)
    return found[0] if found else None


# an edge of a string where the string beside it in the joined text can change what is read: a digit or a
# spoken digit (a card, an IBAN or a spoken card run on over the space; the post-checks then read the longer
# run) within reach of the edge, line breaks included: the spoken card's gaps take a line break too, so a card
# after "\n" at a string's start ran on from the string before it and was missed (helper-84's review)
_DIGIT_EDGE = rf"(?:\d|\b{_SPOKEN_DIGIT}\b)"
_DIGIT_AT_END = re.compile(rf"{_DIGIT_EDGE}.{{0,80}}\Z", re.IGNORECASE | re.DOTALL)
_DIGIT_AT_START = re.compile(rf"\A.{{0,80}}?{_DIGIT_EDGE}", re.IGNORECASE | re.DOTALL)


def sensitive_item(fields: Mapping[str, object]) -> tuple[str, int | None] | None:
    """The first field that carries a secret, with the index of the string in it (``_texts``'s order) that
    carries one on its own, or None for a secret only the strings together make (a card split over two); None
    when no field carries one.

    Each field's strings are screened once, joined with a space: a secret in one string is found there too
    (every pattern matches what it finds, whatever stands beside it across the space, as at the string's edge)
    except where digits meet across the space: "Order 1234" then a card reads as one run of 20 digits and
    no card. A string with a digit (or a spoken one) near an edge it shares is also screened alone. Before,
    each string was screened alone and the joined text again (twice over every character, and a session PUT
    screened its lists a third time): 2.5 s for a session state at its sizes."""
    for name, value in fields.items():
        texts = _texts(value)
        joined = " ".join(texts)
        if contains_sensitive(joined):
            alone = next((i for i, t in enumerate(texts) if contains_sensitive(t)), None)
            return name, alone
        last = len(texts) - 1
        for i, text in enumerate(texts):
            edges = (i > 0 and _DIGIT_AT_START.search(text)) or (i < last and _DIGIT_AT_END.search(text))
            if edges and contains_sensitive(text):
                return name, i
        if any(secret_in_id(t) for t in _numbers(value)):
            return name, None
    return None


# Card networks issue numbers starting 2-6 (Mastercard 2/5, Amex and Diners 3, Visa 4, Discover 6):
# a run of digits starting otherwise is an app's numeric id (a Slack timestamp, a snowflake), not a card.
_CARD_NETWORKS = frozenset("23456")


def secret_in_id(value: str) -> str | None:
    """The kind of secret an id an app sends (conversation, message, project, session) carries, or
    None. Ids are stored in the clear in keys and echoed back, so the shared screen applies, with two
    shapes that are common ids allowed: a digit run no card network issues (a Slack timestamp
    1700000000.123456 passes the Luhn check one time in ten), and 64 hex digits (a SHA-256 digest;
    also the shape of a raw private key, which an app has no reason to use as an id)."""
    for finding in find_sensitive(value):
        text = value[finding.start:finding.end]
        if finding.kind == "payment_card" and re.sub(r"\D", "", text)[:1] not in _CARD_NETWORKS:
            continue
        if finding.kind == "private_key" and re.fullmatch(r"[0-9a-fA-F]{64}", text):
            continue
        return finding.kind
    return None
