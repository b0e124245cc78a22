"""Facts given directly by an app (remember, import): infer what the app did not say."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from mnemo.clock import to_utc
from mnemo.domain.extraction import Candidate, RuleBasedExtractor, guess_category, slot_key
from mnemo.domain.extraction.slots import vocabulary_subject
from mnemo.domain.models import Category, Provenance, Scope, SourceKind
from mnemo.domain.sensitive import sensitive_field
from mnemo.errors import InvalidInput
from mnemo.services.writing import NewFact, validate_content

_THIRD_TO_FIRST: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    (re.compile(r"^(?:the )?user's\b", re.I), "my"),
    (re.compile(r"^(?:the )?user (?:is|was)\b", re.I), "I am"),
    (re.compile(r"^(?:the )?user (?:has)\b", re.I), "I have"),
    (re.compile(r"^(?:the )?user (?:does not|doesn't)\b", re.I), "I don't"),
    (re.compile(r"^(?:the )?user (\w+s)\b", re.I), lambda m: "I " + _base_form(m.group(1))),
]


def _base_form(verb: str) -> str:
    """likes -> like, goes -> go, watches -> watch, studies -> study."""
    low = verb.lower()
    if low.endswith("ies"):
        return verb[:-3] + "y"
    if re.search(r"(?:ch|sh|ss|x|z|o)es$", low):
        return verb[:-2]
    return verb[:-1]


class StatementClassifier(Protocol):
    def classify(self, statement: str, when: datetime) -> Candidate | None: ...


class ExplicitFactClassifier:
    """The slot of a fact an app hands over (remember, import), by the exact phrase rules, named in the slot
    vocabulary. Not the learned tagger: an explicit fact must never supersede another because a model
    misread its slot ("I collect stamps" filed as the current project would replace the last one said);
    a statement no rule knows keeps a key of its own words."""

    def __init__(self) -> None:
        self._rules = RuleBasedExtractor()

    def classify(self, statement: str, when: datetime) -> Candidate | None:
        candidate = self._rules.classify(statement, when)
        if candidate is not None:
            candidate.subject = vocabulary_subject(candidate.subject)
        return candidate


_EXPLICIT = ExplicitFactClassifier()


class MemoryInput(Protocol):
    """What an app may say about a fact (the API's MemoryIn satisfies it)."""

    @property
    def content(self) -> str: ...
    @property
    def category(self) -> Category | None: ...
    @property
    def subject(self) -> str | None: ...
    @property
    def scope(self) -> str | None: ...
    @property
    def project_id(self) -> str | None: ...
    @property
    def session_id(self) -> str | None: ...
    @property
    def expires_at(self) -> datetime | None: ...
    @property
    def created_at(self) -> datetime | None: ...
    @property
    def confidence(self) -> float | None: ...
    @property
    def metadata(self) -> dict[str, str] | None: ...


def first_person(content: str) -> str:
    """'User likes jazz.' -> 'I like jazz.', so the extractor's rules can classify an app's fact."""
    for pattern, replacement in _THIRD_TO_FIRST:
        if pattern.match(content):
            return pattern.sub(replacement, content, count=1)
    return content


def fact_from_api(item: MemoryInput, now: datetime, source: SourceKind, default_confidence: float,
                  max_chars: int, classifier: StatementClassifier | None = None) -> NewFact:
    content = validate_content(item.content, max_chars)
    field = sensitive_field({"metadata": item.metadata or {}, "subject": item.subject or ""})
    if field is not None:
        raise InvalidInput(f"{field} must not carry secrets", details={"field": field})
    scope = Scope(item.scope) if item.scope else (
        Scope.PROJECT if item.project_id else Scope.SESSION if item.session_id else Scope.USER)
    if scope is Scope.PROJECT and not item.project_id:
        raise InvalidInput("project scope needs project_id", details={"field": "project_id"})
    if scope is Scope.SESSION and not item.session_id:
        raise InvalidInput("session scope needs session_id", details={"field": "session_id"})
    occurred = to_utc(item.created_at) if item.created_at else now
    if item.expires_at is not None and to_utc(item.expires_at) < now:
        # it would supersede the user's current fact of its slot and then never be shown: "I live in Rome." with
        # a past expiry left the user with no location at all (the old one superseded, the new one expired)
        raise InvalidInput("expires_at must not be in the past", details={"field": "expires_at"})
    # learn category and slot the way the extractor would, from the statement itself
    candidate = (classifier or _EXPLICIT).classify(first_person(content), occurred)
    category = item.category or (candidate.category if candidate else guess_category(content))
    subject = item.subject or (candidate.subject if candidate else f"note:{slot_key(content, 5)}")
    return NewFact(
        content=content, category=category, subject=subject,
        confidence=item.confidence if item.confidence is not None else default_confidence,
        source=source, occurred_at=occurred, polarity=candidate.polarity if candidate else True,
        importance=candidate.importance if candidate else NewFact.importance,
        scope=scope, project_id=item.project_id if scope is Scope.PROJECT else None,
        session_id=item.session_id if scope is Scope.SESSION else None,
        expires_at=to_utc(item.expires_at) if item.expires_at else None,
        sensitivity=candidate.sensitivity if candidate else NewFact.sensitivity,
        metadata=dict(item.metadata or {}), provenance=Provenance(source=source),
    )
