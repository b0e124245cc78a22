"""A lock holder's raise that the system refuses (mnemo.adapters.local.priority)."""

from __future__ import annotations

import logging
import os

import pytest

from mnemo.adapters.local import priority


def test_a_refused_raise_runs_the_hold_as_the_thread_was_and_the_next_hold_tries_again(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    calls: list[int] = []

    def refused(_which: int, _who: int, nice: int) -> None:
        calls.append(nice)
        raise PermissionError("not permitted")

    monkeypatch.setattr(priority._policy, "own_nice", 10)
    monkeypatch.setattr(priority._policy, "write_nice", 0)  # a process that asked to be raised for writes
    monkeypatch.setattr(os, "setpriority", refused)
    levels: list[int] = []

    def hold_and_fail() -> None:
        with priority.raised(priority.WRITE_LOCK):
            levels.append(priority._held.level)
            raise KeyError("the caller's own error")

    with caplog.at_level(logging.WARNING, logger="mnemo.priority"), pytest.raises(KeyError) as raised_inside:
        hold_and_fail()
    assert levels == [0]  # not recorded as raised: it is not
    # the caller's error does not carry the refusal as its context
    assert raised_inside.value.__context__ is None
    assert "could not raise" in caplog.text
    assert priority._held.level == 0
    with priority.raised(priority.WRITE_LOCK):  # the policy stands: the next holder asks again
        pass
    assert calls == [0, 10, 0, 10]  # each time: the raise, then the undoing of what it half applied
