"""Extraction: user messages -> typed fact candidates, as a pipeline of named steps.

segment (casual text -> clauses) -> screen (secrets, questions, hypotheticals, injections)
-> classify (a learned tagger finds value spans and their slots) -> normalise (third person,
clean slot values, polarity, anchored dates) -> resolve (slot and key: single-valued slots
supersede on change; see docs/slots.md). The rule-based extractor is kept beside it.
"""

from mnemo.domain.extraction.candidates import Candidate, Extraction, ForgetRequest
from mnemo.domain.extraction.rules import RuleBasedExtractor, guess_category, slot_key, split_clauses

__all__ = ["Candidate", "Extraction", "ForgetRequest", "RuleBasedExtractor", "guess_category", "slot_key",
           "split_clauses"]
