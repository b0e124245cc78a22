"""Facts the extractor split out of one clause go into the block together (services/retrieval.said_together)."""

from datetime import UTC, datetime

from mnemo.domain.extraction.slots import RETRACTION_TAG
from mnemo.domain.models import Category, Memory, Provenance, SourceKind
from mnemo.domain.ranking import Scored
from mnemo.services.retrieval import said_together

NOW = datetime(2026, 4, 1, tzinfo=UTC)
CLAUSE = "I've joined the cathedral choir instead, Thursday evenings, alto."


def scored(mid: str, content: str, evidence: str | None, relevance: float, tags: list[str] | None = None,
           subject: str = "habit:x", conversation: str = "c1", source: SourceKind = SourceKind.EXTRACTED) -> Scored:
    memory = Memory(memory_id=mid, tenant_id="t", user_id="u", category=Category.PROCEDURAL, subject=subject,
                    content=content, confidence=0.9, created_at=NOW, updated_at=NOW, last_confirmed_at=NOW,
                    provenance=Provenance(evidence=evidence, conversation_id=conversation, source=source),
                    tags=tags or [])
    return Scored(memory, cosine=relevance, lexical=0.0, relevance=relevance, recency=1.0, score=relevance)


def test_a_fact_said_in_the_clause_of_a_kept_one_follows_it() -> None:
    evenings = scored("a", "User's routine: Thursday evenings, alto.", CLAUSE, 0.75)
    choir = scored("b", "User's routine: cathedral choir.", CLAUSE, 0.1)
    other = scored("c", "User's job: teaching.", "I've been teaching primary school", 0.12)
    ranked = [evenings, other, choir]
    assert [s.memory.memory_id for s in said_together([evenings], ranked, 2, NOW)] == ["a", "b"]
    # 0 switches it off
    assert [s.memory.memory_id for s in said_together([evenings], ranked, 0, NOW)] == ["a"]


def test_only_live_statements_up_to_the_limit_come_along() -> None:
    kept = scored("a", "User's routine: Thursday evenings, alto.", CLAUSE, 0.75)
    retraction = scored("r", "User no longer does book club.", CLAUSE, 0.2, tags=[RETRACTION_TAG])
    past = scored("p", "User plans: concert (for 2026-03-01).", CLAUSE, 0.2, subject="plan:concert")
    siblings = [scored(f"s{n}", f"User's routine: thing {n}.", CLAUSE, 0.1) for n in range(3)]
    chosen = said_together([kept], [kept, retraction, past, *siblings], 2, NOW)
    assert [s.memory.memory_id for s in chosen] == ["a", "s0", "s1"]
    # a memory without a clause brings nothing
    bare = scored("x", "User likes tea.", None, 0.8)
    assert said_together([bare], [bare, scored("y", "User likes coffee.", None, 0.1)], 2, NOW) == [bare]


def test_only_the_same_conversations_extracted_facts_come_along_and_after_every_kept_one() -> None:
    evenings = scored("a", "User's routine: Thursday evenings, alto.", CLAUSE, 0.75)
    allergy = scored("k", "User is allergic to peanuts.", "I'm allergic to peanuts", 0.6)
    elsewhere = scored("e", "User's routine: choir practice.", CLAUSE, 0.1, conversation="c2")
    summary_a = scored("s1", "User ran a half marathon.", "2 of 5 episodic memories", 0.7, source=SourceKind.SUMMARY)
    summary_b = scored("s2", "User got divorced.", "2 of 5 episodic memories", 0.05, source=SourceKind.SUMMARY)
    choir = scored("b", "User's routine: cathedral choir.", CLAUSE, 0.1)
    chosen = said_together([evenings, summary_a, allergy], [evenings, summary_a, allergy, elsewhere, summary_b, choir],
                           2, NOW)
    # the sibling follows every kept memory (a top-k cut takes it first), and nothing else comes along
    assert [s.memory.memory_id for s in chosen] == ["a", "s1", "k", "b"]
