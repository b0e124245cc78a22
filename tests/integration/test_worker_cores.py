"""Each `mnemo serve` worker keeps to a core no other worker holds (mnemo.serving.pin_to_a_free_core), and a
worker started after one was killed takes the core that one left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

CORES = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
pytestmark = pytest.mark.skipif(len(CORES) < 2, reason="needs two cores the process may run on")

# a worker in miniature: pin, say where, then stay alive (holding its core) until stdin closes
CHILD = """
import os, sys
from pathlib import Path
from mnemo.serving import pin_to_a_free_core
core = pin_to_a_free_core(Path(sys.argv[1]))
print(core, sorted(os.sched_getaffinity(0)), flush=True)
sys.stdin.read()
"""


def start(folder: Path) -> tuple[subprocess.Popen[str], str]:
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(folder)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    return child, child.stdout.readline().strip()


def stop(child: subprocess.Popen[str]) -> None:
    for stream in (child.stdin, child.stdout):
        if stream is not None:
            stream.close()
    child.wait(timeout=10)


def test_each_worker_keeps_to_a_core_of_its_own_and_a_killed_ones_core_is_taken_again(tmp_path: Path) -> None:
    children = []
    try:
        seen = []
        for _ in CORES:
            child, line = start(tmp_path)
            children.append(child)
            seen.append(line)
        # one core each, the one it names, all different
        assert sorted(seen) == sorted(f"{core} [{core}]" for core in CORES)
        # every core held: one more runs where the scheduler puts it
        extra, line = start(tmp_path)
        children.append(extra)
        assert line == f"None {CORES}"
        # kill -9 of a pinned one: its lock dies with it, and the next one takes its core
        killed = children[0]
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=10)
        again, line = start(tmp_path)
        children.append(again)
        assert line == seen[0]
    finally:
        for child in children:
            stop(child)
