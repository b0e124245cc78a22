"""What a session PUT at its sizes costs the secret screen: characters passed to find_sensitive, and the time.

The body of tests/eval/test_hostile_round5.py::test_a_session_state_at_its_sizes_is_kept (every item at its
cap, all 50 task_progress keys), PUT through the API in the embedded home. The character count is exact; the
time is one machine's (run under `flock -x /tmp/mnemo-bench.lock`, and compare as ratios within one run).

    PYTHONPATH=shared:. .venv/bin/python tests/bench/session_put.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from mnemo.domain import sensitive

BODY = {"task_progress": {f"step{i}": "done " * 400 for i in range(50)},
        "confirmed_facts": ["I like tea. " * 166] * 40, "open_questions": ["Why? " * 400] * 20}


def main() -> None:
    from mnemo.bootstrap import build_local
    from mnemo.settings import Settings
    from tests.conftest import ApiClient

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    screened = [0]
    original = sensitive.find_sensitive

    def counted(text: str, depth: int = 0) -> list[sensitive.Finding]:
        if depth == 0:
            screened[0] += len(text)
        return original(text, depth)

    sensitive.find_sensitive = counted  # type: ignore[assignment]  # counts every caller's screen
    with tempfile.TemporaryDirectory() as folder:
        api = ApiClient(build_local(Settings(data_dir=Path(folder))))
        times = []
        for i in range(args.repeat):
            screened[0] = 0
            started = time.perf_counter()
            status, answer = api.call("PUT", f"/v1/users/bench/sessions/s{i}", BODY)
            times.append(time.perf_counter() - started)
            assert status == 200, answer
    body_chars = sum(len(t) for t in sensitive._texts(BODY))
    print(f"session PUT at its sizes: {body_chars:,} characters of text; find_sensitive read {screened[0]:,} "
          f"({screened[0] / body_chars:.2f}x); median {statistics.median(times) * 1000:.0f} ms over {args.repeat}")


if __name__ == "__main__":
    main()
