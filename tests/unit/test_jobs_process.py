"""The arbiter's wait for the jobs process: a lock file not yet written is "not running yet"."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from mnemo.jobs_process import JobsSupervisor
from mnemo.settings import Settings


class _Started:
    pid = os.getpid()


def test_an_empty_or_missing_lock_file_is_not_yet_running(tmp_path: Path) -> None:
    supervisor = JobsSupervisor(Settings(data_dir=tmp_path), tmp_path)
    supervisor._process = _Started()  # type: ignore[assignment]  # a started process, as _spawn leaves it
    assert supervisor.wait_until_running(0.05) is False  # no lock file
    (tmp_path / "jobs.lock").write_text("")  # created, its owner not written yet
    assert supervisor.wait_until_running(0.05) is False
    (tmp_path / "jobs.lock").write_text(f"{os.getpid()}\n")
    assert supervisor.wait_until_running(0.05) is True


def test_a_lock_held_by_another_process_is_not_ours(tmp_path: Path) -> None:
    supervisor = JobsSupervisor(Settings(data_dir=tmp_path), tmp_path)
    supervisor._process = _Started()  # type: ignore[assignment]
    other = subprocess.Popen(["sleep", "5"])
    try:
        (tmp_path / "jobs.lock").write_text(f"{other.pid}\n")
        assert supervisor.wait_until_running(0.05) is False
    finally:
        other.kill()
        other.wait()
