"""A kind of fact the request surely needs gets its best memory into the block (services/retrieval.needed_slots)."""

from dataclasses import replace
from datetime import UTC, datetime

from mnemo.domain.extraction.slots import RETRACTION_TAG
from mnemo.domain.models import Category, Memory
from mnemo.domain.ranking import Scored
from mnemo.services.retrieval import needed_slots

NOW = datetime(2026, 4, 1, tzinfo=UTC)


def scored(mid: str, subject: str, content: str, needed: float, relevance: float = 0.05,
           tags: list[str] | None = None) -> Scored:
    memory = Memory(memory_id=mid, tenant_id="t", user_id="u", category=Category.PROJECT_FACT, subject=subject,
                    content=content, confidence=0.9, created_at=NOW, updated_at=NOW, last_confirmed_at=NOW,
                    tags=tags or [])
    return Scored(memory, cosine=relevance, lexical=0.0, relevance=relevance + needed, recency=1.0,
                  score=relevance + needed, needed=needed)


def ids(chosen: list[Scored]) -> list[str]:
    return [s.memory.memory_id for s in chosen]


def test_the_best_memory_of_a_slot_needed_surely_enough_follows_the_kept_ones() -> None:
    # "cli entrypoint with a --dry-run flag": the stack is needed 0.94 likely (gain 0.188), shares no word
    kept = scored("p", "current_project", "User is working on log shipper cli.", 0.188, relevance=0.5)
    stack = scored("s", "project_stack", "User's project uses python 3.12, sqlalchemy.", 0.188)
    pet = scored("c", "pet:tom", "User has a pet: cat Tom.", 0.0, relevance=0.2)
    ranked = [kept, pet, stack]
    assert ids(needed_slots([kept], ranked, 0.14, NOW)) == ["p", "s"]
    # a slot needed less surely brings nothing, and 0 switches it off
    assert ids(needed_slots([kept], ranked, 0.19, NOW)) == ["p"]
    assert ids(needed_slots([kept], ranked, 0.0, NOW)) == ["p"]


def test_one_memory_a_slot_and_never_a_retraction_or_a_past_plan() -> None:
    plans = [scored(f"p{n}", f"plan:trip_{n}", f"User plans: trip {n} (for 2026-05-0{n + 1}).", 0.18)
             for n in range(3)]
    past = scored("old", "plan:dentist", "User plans: dentist (for 2026-03-01).", 0.18)
    retraction = scored("r", "habit:book_club", "User no longer goes to book club.", 0.17, tags=[RETRACTION_TAG])
    habit = scored("h", "habit:choir", "User's routine: cathedral choir.", 0.17)
    ranked = [past, retraction, *plans, habit]
    # the slot is the subject's kind ("plan", "habit"): one plan however many the user has, the best ranked
    assert ids(needed_slots([], ranked, 0.14, NOW)) == ["p0", "h"]
    # a kept memory of a slot does not stop the slot's best other memory: "Thursday evenings, alto" kept, the
    # choir said beside it still comes
    evenings = replace(habit, memory=habit.memory.model_copy(
        update={"memory_id": "e", "subject": "habit:thursday", "content": "User's routine: Thursday evenings."}))
    assert ids(needed_slots([evenings], [evenings, habit], 0.14, NOW)) == ["e", "h"]
