"""The fast variant of the load test (tests/bench/load.py runs 2 minutes, 50 clients): a few seconds
of concurrent mixed traffic against a real server, with no error of any kind."""

from __future__ import annotations

from tests.bench.load import run


def test_a_short_burst_of_mixed_traffic_has_no_errors() -> None:
    report = run(duration=4, clients=8, users_per_client=3)
    assert report["errors"] == 0, report["error_samples"]
    assert report["requests"] > 100
    assert set(report["latency_ms"]) >= {"retrieve", "turns"}
    assert report["server_rss_mb"]["end"] > 0
