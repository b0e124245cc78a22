"""A request that began before a user's erase and fills a cache of that user after the drop.

Each worker drops an erased user at the start of its next request (mnemo.services.user_caches). A request
already under way for that user (another request thread of the worker, the jobs process's other work) could
put the user's question, index or key in a cache after the drop, and nothing would drop it again: the erase
notice was counted as seen. Now the end of every request and job (``settle``) drops again the users erased
since it began."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mnemo.bootstrap import Mnemo, build_local
from mnemo.clock import ManualClock
from mnemo.ports import Embedder
from mnemo.settings import Settings
from tests.conftest import ApiClient

USER = ("t1", "ada")


@pytest.fixture
def two_workers(tmp_path: Path, embedder: Embedder) -> Iterator[tuple[Mnemo, Mnemo]]:
    """Two services on one data directory, as two worker processes of `mnemo serve` are."""
    settings = Settings(data_dir=tmp_path / "data")
    clock = ManualClock()
    workers = (build_local(settings, clock=clock, embedder=embedder),
               build_local(settings, clock=clock, embedder=embedder))
    yield workers
    for worker in workers:
        worker.close()


def in_another_thread(step: Callable[[], object]) -> None:
    """A step of another request thread of the same worker (its own thread, as gunicorn's are)."""
    thread = threading.Thread(target=step)
    thread.start()
    thread.join()


def remember(worker: Mnemo, content: str) -> None:
    assert ApiClient(worker, USER[0]).call("POST", f"/v1/users/{USER[1]}/memories", {"content": content})[0] == 201


def erase(worker: Mnemo) -> None:
    assert ApiClient(worker, USER[0]).call("DELETE", f"/v1/users/{USER[1]}")[0] == 204


def retrieve(worker: Mnemo) -> None:
    worker.retriever.retrieve(*USER, "What fruit do I like?", top_k=5, token_budget=500)


def test_a_request_under_way_when_another_worker_erased_its_user_keeps_nothing_of_them(
        two_workers: tuple[Mnemo, Mnemo]) -> None:
    mine, other = two_workers
    remember(other, "I like plums.")
    # given a request for the user under way on this worker (begun before the erase)
    mine.caches.drop_erased()
    # when the other worker erases the user, and another request thread of this one begins meanwhile
    # (it reads the notice: this worker held nothing of the user yet)
    erase(other)
    in_another_thread(lambda: (mine.caches.drop_erased(), mine.caches.settle()))
    # and the first request then fills its caches of the user, and ends
    retrieve(mine)
    assert USER in mine.caches.held()
    mine.caches.settle()
    # then the worker holds nothing of the user
    assert USER not in mine.caches.held()


def test_a_request_under_way_when_this_worker_erased_its_user_keeps_nothing_of_them(
        two_workers: tuple[Mnemo, Mnemo]) -> None:
    mine, _ = two_workers
    remember(mine, "I like plums.")
    mine.caches.drop_erased()
    in_another_thread(lambda: (mine.caches.drop_erased(), erase(mine), mine.caches.settle()))
    retrieve(mine)
    assert USER in mine.caches.held()
    mine.caches.settle()
    assert USER not in mine.caches.held()


def test_a_request_that_began_after_the_erase_keeps_what_it_cached(two_workers: tuple[Mnemo, Mnemo]) -> None:
    mine, other = two_workers
    remember(other, "I like plums.")
    erase(other)
    remember(other, "I like pears.")  # the same id, a new user
    mine.caches.drop_erased()
    retrieve(mine)
    mine.caches.settle()
    assert USER in mine.caches.held()
