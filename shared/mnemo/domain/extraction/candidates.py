"""What every extractor produces: candidate facts, forget requests and what was redacted."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from mnemo.domain.models import Category, Importance, Sensitivity, SourceKind


@dataclass
class Candidate:
    """A proposed fact (SPEC R3): what, why, and whether it should be stored."""

    category: Category
    subject: str
    content: str
    confidence: float
    evidence: str
    message_id: str
    occurred_at: datetime
    polarity: bool = True
    importance: Importance = Importance.MEDIUM
    source: SourceKind = SourceKind.EXTRACTED
    sensitivity: Sensitivity = Sensitivity.NORMAL
    should_store: bool = True
    rejection_reason: str | None = None
    correction: bool = False
    high_stakes: bool = False
    tags: list[str] = field(default_factory=list)
    # an ending said of a name the user only refers back to ("stopped the futsal"): written only where it retires
    # a stored fact, since alone it says nothing that holds
    only_to_retire: bool = False
    # what the learned tagger saw of the value (tagger.reading_features), for the judge (judge.py); None when
    # no tagger found it (a rule did, or another extractor)
    reading: object | None = field(default=None, repr=False, compare=False)
    # a new medicine the message says takes the place of an earlier one it does not name ("the doctor put me on
    # nebivolol instead"): the write path ends the one medicine it replaces, where the user's facts say which
    replaces_unnamed: bool = False
    # a new medicine said as the one taken now ("Chemist give mi di losartan now", "Since Monday I take candesartan"):
    # the write path ends a stored medicine of the same kind (medicines.same_kind), none of another
    replaces_same_kind: bool = False


@dataclass
class ForgetRequest:
    query: str
    message_id: str


@dataclass
class Extraction:
    candidates: list[Candidate] = field(default_factory=list)
    forget: list[ForgetRequest] = field(default_factory=list)
    redacted_kinds: list[str] = field(default_factory=list)

    @property
    def accepted(self) -> list[Candidate]:
        return [c for c in self.candidates if c.should_store]
