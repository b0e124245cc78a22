"""What a newcomer's `make run` costs: the venv's size and the time to the first healthy /health.

In a fresh clone in a temporary directory (of this repository's HEAD: commit first), runs
`make install-run` (the install step of `make run`), measures the venv and the largest packages
in it, then starts `.venv/bin/mnemo serve` as `make run` does and times it to the first 200 from
/health, counting the warnings its log prints. Targets (issue 13): venv under 350 MB, first start
under 30 s, no warning. Prints the figures and writes tests/bench/results/install_footprint.json.
Standard library only: it runs before anything is installed.

    python3 tests/bench/install_footprint.py [--repo PATH] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).resolve().parent / "results"
TARGET_VENV_MB = 350
TARGET_FIRST_START_S = 30
# what only the aws extra or the dev group may bring; none may be in the core's venv
NOT_IN_THE_CORE = ("aws_cdk", "jsii", "boto3", "botocore", "opensearchpy", "moto", "onnx", "sympy", "pytest", "mypy")


def size_mb(path: Path) -> float:
    total = sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() or p.is_symlink())
    return round(total / 1e6, 1)


def largest(site: Path, count: int = 8) -> dict[str, float]:
    sizes = {entry.name: size_mb(entry) if entry.is_dir() else round(entry.stat().st_size / 1e6, 1)
             for entry in site.iterdir()}
    return dict(sorted(sizes.items(), key=lambda kv: -kv[1])[:count])


def first_start(clone: Path) -> dict[str, object]:
    data = clone / ".mnemo"
    log = clone / "serve.log"
    started = time.perf_counter()
    with log.open("w") as err:
        server = subprocess.Popen(
            [str(clone / ".venv" / "bin" / "mnemo"), "serve", "--host", "127.0.0.1", "--port", "0",
             "--data-dir", str(data)], cwd=clone, stdout=subprocess.PIPE, stderr=err, text=True,
            start_new_session=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        match = re.search(r"http://[\d.]+:\d+", line)
        if not match:
            raise RuntimeError(f"the server did not start: {line!r} {log.read_text()[-2000:]}")
        healthy = None
        deadline = time.monotonic() + 120
        while healthy is None and time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{match.group(0)}/health", timeout=5) as answer:
                    if answer.status == 200:
                        healthy = time.perf_counter() - started
            except OSError:
                time.sleep(0.1)
        time.sleep(3)  # the other workers finish booting: their start belongs to the start too
        started_lines = log.read_text().splitlines()
    finally:
        os.killpg(server.pid, signal.SIGINT)  # Ctrl-C on `make run`
        server.wait(timeout=60)
        if server.stdout:
            server.stdout.close()
    stop_lines = log.read_text().splitlines()[len(started_lines):]
    return {"first_healthy_s": round(healthy, 1) if healthy is not None else None,
            "log_lines": len(started_lines), "warning_lines": len(warnings(started_lines)),
            "warnings": warnings(started_lines)[:5], "warnings_on_stop": warnings(stop_lines)[:5]}


def warnings(lines: list[str]) -> list[str]:
    """Lines at WARNING or above, and anything not a JSON log line (a traceback, a library's print)."""
    return [line for line in lines if not line.startswith("{")
            or json.loads(line).get("level") in {"WARNING", "ERROR", "CRITICAL"}]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=ROOT, help="the repository to clone (default: this one)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary clone")
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="mnemo-footprint-"))
    clone = workdir / "mnemo"
    try:
        subprocess.run(["git", "clone", "--quiet", str(args.repo), str(clone)], check=True)
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone, check=True,
                                capture_output=True, text=True).stdout.strip()
        print(f"fresh clone of {args.repo} at {commit} in {clone}", flush=True)
        started = time.perf_counter()
        subprocess.run(["make", "install-run"], cwd=clone, check=True)
        install_s = round(time.perf_counter() - started, 1)
        venv = clone / ".venv"
        site = next((venv / "lib").glob("python3*/site-packages"))
        leaked = [name for name in NOT_IN_THE_CORE if (site / name).exists()]
        venv_mb = size_mb(venv)
        # the install is editable: the package's own files (the query twin, the tagger) stay in the clone
        package_mb = size_mb(clone / "shared" / "mnemo")
        start = first_start(clone)
        report = {
            "benchmark": "install_footprint", "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine(),
                        "cores": os.cpu_count()},
            "commit": commit, "install_s": install_s, "venv_mb": venv_mb, "package_mb": package_mb,
            "venv_plus_package_mb": round(venv_mb + package_mb, 1), "largest_mb": largest(site),
            "not_in_the_core_but_installed": leaked, **start,
            "targets": {"venv_mb": TARGET_VENV_MB, "first_start_s": TARGET_FIRST_START_S, "warning_lines": 0},
        }
        print(f"install (make install-run)   {install_s} s (pip's cache warm or cold as this machine has it)")
        print(f"venv                         {venv_mb} MB (+ {package_mb} MB of mnemo's own files in the clone; "
              f"target < {TARGET_VENV_MB} MB)")
        print(f"largest packages             {', '.join(f'{k} {v} MB' for k, v in report['largest_mb'].items())}")
        print(f"aws/dev packages installed   {', '.join(leaked) or 'none'}")
        print(f"first start to /health 200   {start['first_healthy_s']} s (target < {TARGET_FIRST_START_S} s)")
        print(f"warning lines on that start  {start['warning_lines']} of {start['log_lines']} log lines"
              f"{' (on Ctrl-C: ' + str(len(start['warnings_on_stop'])) + ')' if start['warnings_on_stop'] else ''}")
        RESULTS.mkdir(parents=True, exist_ok=True)
        out = RESULTS / "install_footprint.json"
        out.write_text(json.dumps(report, indent=2) + "\n")
        print(f"wrote {out}")
        healthy = start["first_healthy_s"]
        within = (venv_mb < TARGET_VENV_MB and not leaked and start["warning_lines"] == 0
                  and isinstance(healthy, float) and healthy < TARGET_FIRST_START_S)
        return 0 if within else 1
    finally:
        if args.keep:
            print(f"kept {clone}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
