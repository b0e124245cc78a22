"""A module-level name of the core is bound once: a second ``_THE_USER = ...`` further down a long module silently
changes what every function above it reads (two readings of screen.py did, and a home said of a boyfriend became
the user's; ruff flags a redefined function or import, not a constant)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import mnemo

ROOT = Path(mnemo.__file__).parent
MODULES = sorted(ROOT.rglob("*.py"))


def _bound_twice(path: Path) -> list[str]:
    seen: dict[str, int] = {}
    twice = []
    for node in ast.parse(path.read_text()).body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) and node.value is not None else [])
        for target in targets:
            # a constant's name: upper case, perhaps private ("_THE_USER", "SLOTS")
            if isinstance(target, ast.Name) and target.id.lstrip("_")[:1].isupper() and target.id.upper() == target.id:
                if target.id in seen:
                    twice.append(f"{target.id} (lines {seen[target.id]} and {node.lineno})")
                seen.setdefault(target.id, node.lineno)
    return twice


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_constant_is_bound_once(path: Path) -> None:
    assert _bound_twice(path) == []


def test_the_check_sees_a_constant_bound_twice(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("import re\n_THE_USER = re.compile('a')\nX = 1\n_THE_USER = re.compile('b')\n")
    assert _bound_twice(module) == ["_THE_USER (lines 2 and 4)"]
