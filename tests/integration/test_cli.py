"""The `mnemo` command line (issue 13, item 7): --version, help on every option, the import file format
in `import --help` (its example imports as written), and the progress bar of long jobs, drawn only on a
terminal. What `mnemo serve` prints at start is checked against a real server in tests/e2e/test_server.py."""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
from pathlib import Path

import pytest

import mnemo
from mnemo.api.schemas import MemoryIn
from mnemo.bootstrap import Mnemo
from mnemo.cli import IMPORT_FORMAT, main, parser
from mnemo.domain.models import SourceKind
from mnemo.ports import Embedder
from mnemo.progress import ProgressBar
from mnemo.services.facts import fact_from_api
from mnemo.services.reembed import Reembedder


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def subcommands() -> dict[str, argparse.ArgumentParser]:
    (sub,) = [a for a in parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out.strip() == f"mnemo {mnemo.__version__}"


def test_every_option_of_every_subcommand_has_its_help() -> None:
    commands = subcommands()
    assert {"serve", "import", "consolidate", "reembed", "tune", "demo", "apikey", "bench"} <= set(commands)
    missing = [f"{name} {action.dest}" for name, command in commands.items() for action in command._actions
               if not isinstance(action, argparse._HelpAction) and not action.help]
    assert missing == []
    formatter = commands["serve"]._get_formatter()
    serve = {a.dest: formatter._expand_help(a) for a in commands["serve"]._actions}
    assert "loopback" in serve["host"]
    assert "8080" in serve["port"]
    assert "cores" in serve["workers"]
    assert "MNEMO_DATA_DIR" in serve["data_dir"]
    assert "supersede" in {a.dest: a.help or "" for a in commands["import"]._actions}["resolve_conflicts"]


def test_apikey_on_the_lean_install_says_what_to_install(capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # `make run` installs the core only: `mnemo apikey` then ended in a ModuleNotFoundError traceback
    monkeypatch.setitem(sys.modules, "boto3", None)  # any import of it raises ImportError, as without the extra
    assert main(["apikey", "create", "--tenant", "acme"]) == 2
    assert capsys.readouterr().err.strip() == (
        "mnemo: apikey is for the AWS home and needs the aws extra: pip install 'mnemo[aws]' (make install)")


def test_bench_refuses_a_name_it_does_not_know(capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # tests/bench/run_all.py ran every benchmark (a long run) when no name it was given was one it knew
    ran: list[object] = []
    monkeypatch.setattr("subprocess.run", lambda *a, **k: ran.append(a))
    with pytest.raises(SystemExit) as stopped:
        main(["bench", "latncy"])
    assert stopped.value.code == 2
    assert ran == []
    assert "unknown benchmark 'latncy'" in capsys.readouterr().err


def test_import_help_describes_the_file_and_its_example_imports(tmp_path: Path, embedder: Embedder,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    text = subcommands()["import"].format_help()
    for field in ("content", "user_id", "created_at", "scope", "metadata", '{"items": [...]}'):
        assert field in text
    example = "\n".join(line for line in IMPORT_FORMAT.splitlines() if line.lstrip().startswith(("[", "{")))
    path = tmp_path / "memories.json"
    path.write_text(example)
    assert main(["import", str(path), "--data-dir", str(tmp_path / "data")]) == 0
    out, err = capsys.readouterr()
    summary = json.loads(out)
    assert (summary["items"], summary["users"], summary["outcomes"]) == (2, 1, {"created": 2})
    assert "\r" not in err  # stderr is not a terminal here: no bar


def test_the_progress_bar_draws_on_a_terminal_only() -> None:
    terminal = Terminal()
    bar = ProgressBar("import", terminal)
    for done in range(0, 1001, 100):
        bar(done, 1000)
    bar.close()
    drawn = terminal.getvalue()
    assert drawn.startswith("\rimport [")
    assert re.search(r"\[#{28}\] 1000/1000 100%", drawn)
    assert drawn.endswith("\n")
    assert drawn.count("\r") < 11  # redraws are throttled, the last one always drawn

    piped = io.StringIO()
    quiet = ProgressBar("import", piped)
    quiet(5, 10)
    quiet.close()
    assert piped.getvalue() == ""


def test_reembedding_reports_progress_by_user(service: Mnemo) -> None:
    for user in ("u1", "u2", "u3"):
        fact = fact_from_api(MemoryIn(content=f"I live in city {user}."), service.ports.clock.now(),
                             SourceKind.USER_EXPLICIT, default_confidence=1.0, max_chars=2000)
        service.writer.write("t", user, [fact], actor="api")
    seen: list[tuple[int, int]] = []
    report = Reembedder(service.ports).run(progress=lambda done, total: seen.append((done, total)))
    assert report.users == 3
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_python_dash_m_mnemo_is_the_command() -> None:
    """`python -m mnemo serve` (a venv without its scripts on PATH) said "No module named
    mnemo.__main__"; it is the `mnemo` command now."""
    import subprocess

    done = subprocess.run([sys.executable, "-m", "mnemo", "--version"], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert mnemo.__version__ in done.stdout
