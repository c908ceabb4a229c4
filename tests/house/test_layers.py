"""The house's shape: imports go down the layers only, with no cycle, and no function is
longer than a screen. Built from the source with ``ast`` (lazy imports inside functions
count: they run too)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "puzzleproof"

#: from the bottom: the base modules; models; encoders and formats; the players judged; how
#: games and programs run; verify; generate; the puzzle plugins; api and report; the
#: command; the package's face
LAYERS = {
    "result": 0, "errors": 0, "clock": 0, "sizes": 0, "processes": 0, "executor": 0,
    "instance": 0, "method": 0,
    "models": 1,
    "encoders": 2, "formats": 2,
    "players": 3,
    "games": 4,
    "verify": 5,
    "generate": 6,
    "puzzles": 7, "plugin": 7, "command": 7,
    "api": 8, "report": 8,
    "cli": 9,
    "__init__": 10, "__main__": 10, "_entry": 10,
}
#: the longest function (lines from its ``def`` to its last line)
MAX_FUNCTION_LINES = 80


def _modules() -> dict[str, Path]:
    mods = {}
    for p in PACKAGE.rglob("*.py"):
        name = ".".join(p.relative_to(ROOT).with_suffix("").parts)
        mods[name[:-len(".__init__")] if name.endswith(".__init__") else name] = p
    return mods


#: a string that names a module (``"puzzleproof.a.b"``) or an object in one
#: (``"puzzleproof.a.b:attr"``): a link as real as an import (it is imported when used)
_NAMED = re.compile(r"puzzleproof(\.[A-Za-z_][A-Za-z0-9_]*)+(:[A-Za-z_][A-Za-z0-9_.]*)?")


def _imports(name: str, path: Path, mods: dict[str, Path]) -> set[str]:
    """The package's modules ``name`` imports (``from puzzleproof import x`` names module x
    when x is a module), and those it names in a string (``"puzzleproof.a:f"``)."""
    tree = ast.parse(path.read_text())
    pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = pkg.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                       for a in node.names]
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and _NAMED.fullmatch(node.value) \
                and not name.startswith(node.value.partition(":")[0] + "."):
            targets = [node.value.partition(":")[0]]  # (its own package: an entry-point group)
        for t in targets:
            while t and t not in mods:
                t = t.rsplit(".", 1)[0] if "." in t else ""
            if t and t != name and t != "puzzleproof":
                found.add(t)
    return found


def _layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS[parts[1] if len(parts) > 1 else "__init__"]


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    return {name: _imports(name, path, mods) for name, path in mods.items()}


def test_every_module_has_a_layer():
    unknown = sorted(m for m in _modules() if len(m.split(".")) > 1
                     and m.split(".")[1] not in LAYERS)
    assert not unknown, f"modules outside every layer: {unknown}"


def test_imports_go_down_the_layers():
    """A module never imports one of a higher layer (an incumbent from a heuristic is
    passed in; a reader's result type is a base module; the registry is above the
    readers)."""
    upward = sorted(f"{a} -> {b}" for a, targets in _graph().items() for b in targets
                    if _layer(b) > _layer(a))
    assert not upward, "imports that go up the layers:\n  " + "\n  ".join(upward)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle():
    cycles = _cycles(_graph())
    assert not cycles, "import cycles:\n  " + "\n  ".join(" <-> ".join(c) for c in cycles)


def test_a_link_named_in_a_string_is_seen(tmp_path):
    """``"module:function"`` strings (methods, readers) are links: the layer test reads them."""
    mods = {"puzzleproof.a": tmp_path / "a.py", "puzzleproof.b.c": tmp_path / "c.py"}
    mods["puzzleproof.a"].write_text('RUN = "puzzleproof.b.c:solve"\nHELP = "see puzzleproof"\n')
    assert _imports("puzzleproof.a", mods["puzzleproof.a"], mods) == {"puzzleproof.b.c"}


def test_the_cycle_finder_finds_a_planted_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_no_function_is_longer_than_a_screen():
    long = []
    for p in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    long.append(f"{p.relative_to(ROOT)}:{node.lineno} {node.name} ({n} lines)")
    assert not long, "functions over a screen:\n  " + "\n  ".join(long)


# -- one way to start a program ------------------------------------------------------------

#: every place the package starts a process, and why; a judged program's process is started
#: in one place only, puzzleproof.games.runner.launch
PROCESS_STARTS = {
    ("puzzleproof.games.runner", "launch", "subprocess.Popen"): "every judged program",
    ("puzzleproof.processes", "_guardian_fd", "subprocess.Popen"): "the guardian (ours)",
    ("puzzleproof.executor", "guarded_call", "os.fork"): "a task's worker (ours)",
    ("puzzleproof.encoders.cityclose_ilp", "solve", "os.fork"):
        "the ILP solver set apart (ours)",
    ("puzzleproof.games.fork_host", "_on_fork", "os.fork"):
        "a judged program copying itself, inside the process launch started",
}
_STARTERS = {"subprocess.Popen", "subprocess.run", "subprocess.call", "subprocess.check_call",
             "subprocess.check_output", "os.fork", "os.forkpty", "os.posix_spawn",
             "os.posix_spawnp", "os.system", "os.popen", "multiprocessing.Process",
             "os.execv", "os.execvp", "os.execve", "os.spawnv"}


def _process_starts() -> set[tuple[str, str, str]]:
    found = set()
    for name, path in _modules().items():
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and isinstance(node.func.value, ast.Name):
                    call = f"{node.func.value.id}.{node.func.attr}"
                    if call in _STARTERS:
                        found.add((name, fn.name, call))
    return found


def test_a_judged_program_is_started_in_one_place():
    """Every route that runs a user's program (one game, the worst-case agent, a batch, a
    hunt, a Death Run bot file's worker) starts it through games.runner.launch."""
    assert _process_starts() == set(PROCESS_STARTS)


def test_tests_mirror_the_package():
    """Every test module lives in an area's folder (a package, so that two areas may each
    have a ``test_cli.py``), none at the top of ``tests/``, and no area is empty."""
    tests = ROOT / "tests"
    assert not sorted(p.name for p in tests.glob("test_*.py"))
    areas = [d for d in tests.iterdir() if d.is_dir() and (d / "__init__.py").exists()]
    assert {d.name for d in areas} >= {"house", "command", "runs", "hashi", "skynet",
                                       "cityclose", "deathrun"}
    for d in areas:
        assert list(d.glob("test_*.py")), f"{d} holds no tests"
    stray = [p for p in tests.rglob("test_*.py")
             if not (p.parent / "__init__.py").exists() and "toy_puzzle" not in p.parts]
    assert not stray, stray
