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


def _module_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements that run at import: the body, and the bodies of its if / try / with blocks."""
    out: list[ast.stmt] = []
    for node in body:
        out.append(node)
        if isinstance(node, ast.If | ast.With):
            out.extend(_module_level(node.body + getattr(node, "orelse", [])))
        elif isinstance(node, ast.Try):
            out.extend(_module_level(node.body + node.orelse + node.finalbody
                                     + [s for h in node.handlers for s in h.body]))
    return out


def _names(target: ast.expr) -> list[ast.Name]:
    """The names a target binds: "A", or each of "A, B"."""
    if isinstance(target, ast.Name):
        return [target]
    if isinstance(target, ast.Tuple | ast.List):
        return [n for t in target.elts for n in _names(t)]
    return []


def _bound_twice(path: Path) -> list[str]:
    seen: dict[str, int] = {}
    twice = []
    for node in sorted(_module_level(ast.parse(path.read_text()).body), key=lambda n: n.lineno):
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) and node.value is not None else [])
        for target in (n for t in targets for n in _names(t)):
            # a constant's name: upper case, perhaps private ("_THE_USER", "SLOTS")
            if target.id.lstrip("_")[:1].isupper() and target.id.upper() == target.id:
                if target.id in seen:
                    twice.append(f"{target.id} (lines {seen[target.id]} and {node.lineno})")
                seen.setdefault(target.id, node.lineno)
    return twice


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_constant_is_bound_once(path: Path) -> None:
    assert _bound_twice(path) == []


@pytest.mark.parametrize(("source", "twice"), [
    ("import re\n_THE_USER = re.compile('a')\nX = 1\n_THE_USER = re.compile('b')\n", ["_THE_USER (lines 2 and 4)"]),
    ("try:\n    X = 1\nexcept ImportError:\n    pass\nX = 2\n", ["X (lines 2 and 5)"]),
    ("if True:\n    Y = 1\nY = 2\n", ["Y (lines 2 and 3)"]),
    ("A, B = 1, 2\nA = 3\n", ["A (lines 1 and 2)"]),
    ("def f():\n    X = 1\nX = 2\n", []),  # a function's own names are its own
])
def test_the_check_sees_a_constant_bound_twice(tmp_path: Path, source: str, twice: list[str]) -> None:
    module = tmp_path / "m.py"
    module.write_text(source)
    assert _bound_twice(module) == twice
