"""The fast variant of tests/bench/close_load.py (400 conversations): a few dozen conversations closed
right after their turns against a real server, and not one of them left unextracted (issue 17)."""

from __future__ import annotations

from tests.bench.close_load import run


def test_conversations_closed_right_after_their_turns_are_all_extracted() -> None:
    report = run(conversations=30, turns=6, clients=15, workers=None, drain_seconds=120)
    assert report["errors"] == 0, report["error_samples"]
    assert report["jobs_left_in_queue"] == 0
    assert report["turns_buffered"] == 180
    assert (report["conversations_lost"], report["turns_never_extracted"]) == (0, 0), report["lost_samples"]
    assert report["server_counters"]['mnemo_extraction_turns_total{outcome="acknowledged_unextracted"}'] == 0
