"""The slot a request worker and its reserve process share (mnemo.write_reserve). flock locks belong to
an open file, so two SlotPairs in one process contend as two processes do."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mnemo.adapters.local.file_locks import hold_first_free
from mnemo.write_reserve import SlotPair


def test_processes_join_in_pairs_whatever_order_they_start_in(tmp_path: Path) -> None:
    members = [SlotPair(tmp_path, slots=2) for _ in range(4)]
    assert sorted(m.slot for m in members) == [0, 0, 1, 1]


def test_only_one_of_a_pair_holds_the_slot(tmp_path: Path) -> None:
    first, second = SlotPair(tmp_path, 1), SlotPair(tmp_path, 1)
    assert first.try_take()
    assert not second.try_take()


def test_a_write_hands_the_slot_to_the_partner_and_a_read_does_not_need_it_back(tmp_path: Path) -> None:
    worker, reserve = SlotPair(tmp_path, 1), SlotPair(tmp_path, 1)
    assert worker.try_take()
    assert worker.step_aside()  # a write: the reserve accepts meanwhile
    assert not worker.holding
    assert reserve.try_take()
    worker.back()
    assert not worker.try_take()  # the reserve holds it until it gives it back (ReserveWorker.run_for_one)


def test_a_holder_keeps_the_slot_while_its_partner_is_on_a_write(tmp_path: Path) -> None:
    worker, reserve = SlotPair(tmp_path, 1), SlotPair(tmp_path, 1)
    assert worker.try_take()
    assert worker.step_aside()
    assert reserve.try_take()
    # the reserve reads a write while the worker is still on its own: nobody would accept for the pair
    assert not reserve.step_aside()
    assert reserve.holding
    worker.back()
    assert reserve.step_aside()  # once the worker's write is answered, it can
    assert worker.try_take()


def test_a_process_not_holding_the_slot_does_not_step_aside(tmp_path: Path) -> None:
    lone = SlotPair(tmp_path, 1)
    assert not lone.step_aside()
    assert not lone.aside


def test_a_reserve_gives_the_slot_back_once_its_worker_is_back_from_its_write(tmp_path: Path) -> None:
    worker, reserve = SlotPair(tmp_path, 1), SlotPair(tmp_path, 1)
    assert not worker.reserve
    assert reserve.reserve
    assert worker.try_take()
    assert worker.step_aside()
    assert reserve.try_take()
    assert not reserve.worker_is_back()  # the write is still being served
    worker.back()
    assert reserve.worker_is_back()
    reserve.release()
    assert worker.try_take()
    assert not worker.worker_is_back()  # a worker keeps its slot


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts descriptors through /proc")
def test_a_process_past_the_places_takes_a_slot_of_its_own_and_leaks_no_descriptor(tmp_path: Path) -> None:
    # hold_first_free closes each place it could not lock: only the held places stay open
    members = [SlotPair(tmp_path / "pairs", slots=1) for _ in range(2)]  # the folder is made on the way
    before = len(os.listdir("/proc/self/fd"))
    assert hold_first_free(tmp_path / "pairs" / f"member-{place}" for place in range(2)) is None
    assert len(os.listdir("/proc/self/fd")) == before
    extra = SlotPair(tmp_path / "pairs", slots=1)
    assert extra.slot == 0
    assert not extra.reserve
    assert [m.reserve for m in members] == [False, True]
