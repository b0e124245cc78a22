"""The in-memory index of one user: a memory saved again keeps or replaces its lexical terms."""

import threading
from datetime import UTC, datetime, timedelta

import numpy as np
import numpy.typing as npt

from mnemo.adapters.local.user_index import UserIndex
from mnemo.domain.models import Category, Memory, Scope, Status
from mnemo.domain.text import terms
from mnemo.ports import SearchRequest

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def memory(content: str, status: Status = Status.ACTIVE) -> Memory:
    when = NOW - timedelta(days=3)
    return Memory(memory_id="m1", tenant_id="t", user_id="u", category=Category.PREFERENCE, subject="drink",
                  content=content, confidence=0.8, created_at=when, updated_at=when, last_confirmed_at=when,
                  status=status)


def lexical(index: UserIndex, query: str) -> float:
    # a vector orthogonal to the memory's: only the words can bring it in
    request = SearchRequest(vector=np.array([0.0, 1.0], dtype=np.float32), terms=terms(query), limit=1, now=NOW)
    return max((hit.lexical for hit in index.search(request)), default=0.0)


def test_a_memory_saved_again_is_found_by_its_current_words_only() -> None:
    index = UserIndex(2, 1, 1.2, 0.75)
    vector = np.array([1.0, 0.0], dtype=np.float32)
    index.put(memory("User drinks green tea."), vector)
    tea = lexical(index, "green tea")
    assert tea > 0
    index.put(memory("User drinks green tea.", Status.PROBATIONARY), vector)  # same words: the same terms
    assert lexical(index, "green tea") == tea
    index.put(memory("User drinks black coffee."), vector)  # new words replace the old ones
    assert lexical(index, "green tea") == 0
    assert lexical(index, "coffee") > 0
    index.remove("m1")
    index.put(memory("User drinks green tea."), vector)
    assert lexical(index, "green tea") == tea


def found(index: UserIndex, statuses: frozenset[Status] = frozenset({Status.ACTIVE}),
          project_id: str | None = None) -> list[tuple[str, float | None]]:
    request = SearchRequest(vector=np.array([1.0, 0.0], dtype=np.float32), terms=[], limit=10, now=NOW,
                            project_id=project_id, statuses=statuses)
    return [(hit.memory.memory_id, hit.part_cosine) for hit in index.search(request)]


def test_the_filters_kept_between_searches_follow_every_change_of_the_index() -> None:
    index = UserIndex(2, 1, 1.2, 0.75)
    vector = np.array([1.0, 0.0], dtype=np.float32)
    index.put(memory("User drinks green tea."), vector)
    assert found(index) == [("m1", None)]
    assert found(index, frozenset({Status.PENDING})) == []
    # a status change is seen by the next search of either status
    index.put(memory("User drinks green tea.", Status.PENDING), vector)
    assert found(index) == []
    assert found(index, frozenset({Status.PENDING})) == [("m1", None)]
    # a project's memory: only in that project's searches, before and after one of them
    scoped = memory("User drinks mate at work.").model_copy(update={"memory_id": "m2", "scope": Scope.PROJECT,
                                                                     "project_id": "p1"})
    index.put(scoped, vector, np.array([[0.6, 0.8]], dtype=np.float32))
    assert found(index, frozenset({Status.ACTIVE}), "p2") == []
    assert found(index, frozenset({Status.ACTIVE}), "p1") == [("m2", 0.6000000238418579)]
    assert found(index, frozenset({Status.ACTIVE})) == []
    # expiry is the request's time, not the index's
    index.put(memory("User drinks green tea.").model_copy(update={"expires_at": NOW + timedelta(hours=1)}), vector)
    assert found(index) == [("m1", None)]
    later = SearchRequest(vector=vector, terms=[], limit=10, now=NOW + timedelta(hours=2))
    assert index.search(later) == []


def test_a_write_waits_for_a_search_under_way_in_another_thread() -> None:
    """A worker with --threads serves a search and a write at once: the write must not rebuild the arrays
    the search is reading (it raised IndexError, or cached a filter of the old arrays that broke every later
    search of the user)."""
    index = UserIndex(2, 1, 1.2, 0.75)
    vector = np.array([1.0, 0.0], dtype=np.float32)
    index.put(memory("User drinks green tea."), vector)
    inside, release = threading.Event(), threading.Event()
    score = index._bm25.score_array

    def slow_score(query_terms: list[str], numbering: dict[str, int],
                   size: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
        inside.set()
        release.wait(5)
        return score(query_terms, numbering, size)

    index._bm25.score_array = slow_score  # type: ignore[method-assign]
    results: list[list[tuple[str, float | None]]] = []
    searching = threading.Thread(target=lambda: results.append(found(index)))
    searching.start()
    assert inside.wait(5)
    other = memory("User drinks black coffee.").model_copy(update={"memory_id": "m2"})
    writing = threading.Thread(target=index.put, args=(other, vector))
    writing.start()
    writing.join(0.2)
    assert writing.is_alive()  # the write waits for the search under way
    release.set()
    searching.join(5)
    writing.join(5)
    assert results == [[("m1", None)]]
    index._bm25.score_array = score  # type: ignore[method-assign]
    assert sorted(found(index)) == [("m1", None), ("m2", None)]
