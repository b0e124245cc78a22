"""Detection and redaction of secrets and sensitive identifiers (SPEC R3, R10).

Runs before anything durable is written (memories, buffers, logs, traces): a detected
value is replaced by a ``[REDACTED:kind]`` marker, and a fact that would carry such a
marker is refused, while the rest of the message is still used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


def iban_valid(candidate: str) -> bool:
    iban = candidate.replace(" ", "").upper()
    if not 15 <= len(iban) <= 34 or not iban[:2].isalpha() or not iban[2:4].isdigit():
        return False
    rearranged = iban[4:] + iban[:4]
    try:
        number = int("".join(str(int(ch, 36)) for ch in rearranged))
    except ValueError:
        return False
    return number % 97 == 1


_CARD = re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b", re.IGNORECASE)


def _iban_prefix(candidate: str) -> str | None:
    """The longest valid IBAN at the start of a match (a following word may have been swallowed)."""
    chunks = candidate.split(" ")
    while chunks:
        text = " ".join(chunks)
        if iban_valid(text):
            return text
        if len(chunks) == 1:
            # unspaced: try every length from the longest down
            for end in range(len(text) - 1, 14, -1):
                if iban_valid(text[:end]):
                    return text[:end]
            return None
        chunks.pop()
    return None
_KEYWORD_VALUE = r"\s*(?:is|was|:|=|->|of)?\s*[\"'`]?"

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
        r"(?i)\b(?:password|passwd|pwd|passphrase|passcode|pass code|pin(?: code| number)?"
        r"|login code|2fa code|otp|one[- ]time code|security code|cvv|cvc)\b(?:\s+(?:for|to|on)\s+[\w.@-]+)?"
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
]


def find_sensitive(text: str) -> list[Finding]:
    """Every sensitive span in ``text``, non-overlapping, in order."""
    findings: list[Finding] = []
    for kind, pattern in _PATTERNS:
        findings.extend(Finding(kind, m.start(), m.end()) for m in pattern.finditer(text))
    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group())
        if 13 <= len(digits) <= 19 and luhn_valid(digits) and len(set(digits)) > 1:
            findings.append(Finding("payment_card", m.start(), m.end()))
    for m in _IBAN.finditer(text):
        found = _iban_prefix(m.group())
        if found:
            findings.append(Finding("iban", m.start(), m.start() + len(found)))
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
