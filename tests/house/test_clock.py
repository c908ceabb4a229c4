"""One clock (docs/DESIGN.md, "The clock"): below the command, time comes as a
:class:`~puzzleproof.clock.Deadline` (one task) or a :class:`~puzzleproof.clock.PerTask`
(each task of a batch from its own start), never as loose seconds or instants beside them,
and nothing turns a deadline back into its full limit to start again.

The walk reads every function's parameters in the package. What may still take seconds is
listed here with the reason, so that a new exception is a decision, not an accident."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from tests.conftest import ROOT

PACKAGE = ROOT / "puzzleproof"

#: parameter names that carry time beside the clock
LOOSE = ("time_limit", "seconds", "until", "limit_seconds", "deadline_at")

#: where seconds are the right currency, and why
EXEMPT = {
    # the command line and the Python API read --time-limit / time_limit= and make the
    # clock from it (Params.deadline(), PerTask)
    "cli", "command", "api.py",
    # the clock itself is built from seconds
    "clock.py",
}
#: single functions exempt: (file, function) -> why
EXEMPT_FUNCTIONS = {
    ("games/runner.py", "_drain"): "a grace period to read a dead program's last output",
    ("games/runner.py", "_drain_quietly"): "the same grace period, errors ignored",
}


def _files() -> list[Path]:
    out = []
    for p in sorted(PACKAGE.rglob("*.py")):
        rel = p.relative_to(PACKAGE)
        if rel.parts[0] in EXEMPT or str(rel) in EXEMPT:
            continue
        out.append(p)
    return out


def _rel(p: Path) -> str:
    return str(p.relative_to(PACKAGE)) if p.is_relative_to(PACKAGE) else p.name


def _loose_parameters(p: Path) -> list[str]:
    rel = _rel(p)
    found = []
    for node in ast.walk(ast.parse(p.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            bad = [a.arg for a in args if a.arg in LOOSE]
            if bad and (rel, node.name) not in EXEMPT_FUNCTIONS:
                found.append(f"{rel}:{node.lineno} {node.name}({', '.join(bad)})")
    return found


def _restarts(p: Path) -> list[str]:
    """``Deadline(d.limit)``: a new clock with a task's full limit, started again."""
    rel = _rel(p)
    found = []
    for node in ast.walk(ast.parse(p.read_text())):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "Deadline" and node.args
                and isinstance(node.args[0], ast.Attribute) and node.args[0].attr == "limit"
                and not any(k.arg == "at" for k in node.keywords)):
            found.append(f"{rel}:{node.lineno} Deadline(<deadline>.limit) restarts a clock")
    return found


def test_time_comes_as_the_clock_only():
    found = [f for p in _files() for f in _loose_parameters(p)]
    assert not found, "time passed as seconds below the command:\n" + "\n".join(found)


def test_no_clock_is_restarted_with_its_full_limit():
    found = [f for p in _files() for f in _restarts(p)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("source,caught", [
    ("def solve(m, *, time_limit=None):\n    pass\n", 1),
    ("def solve(m, *, deadline):\n    return Deadline(deadline.limit)\n", 1),
    ("def solve(m, *, deadline):\n    return Deadline(deadline.limit, at=deadline.at)\n", 0),
    ("def solve(m, until, /):\n    pass\n", 1),
])
def test_the_walk_sees_what_it_bans(tmp_path, source, caught):
    """The walk is not blind: a loose parameter or a restart in a module is found."""
    p = tmp_path / "probe.py"
    p.write_text(source)
    assert len(_loose_parameters(p)) + len(_restarts(p)) == caught
