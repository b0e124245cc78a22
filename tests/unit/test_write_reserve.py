"""The slot a request worker and its reserve process share (mnemo.write_reserve). flock locks belong to
an open file, so two SlotPairs in one process contend as two processes do."""

from __future__ import annotations

from pathlib import Path

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
