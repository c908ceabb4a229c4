"""Every method of every puzzle, timed on its puzzle's hardest shipped instance under a time
limit, in a fresh process: shared by ``tests/command/test_limits_table.py`` (a generous bound) and
``benchmarks/limits.py`` (the tight one). The table is read from the registry, so a new
method or puzzle is timed without editing either."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

#: A method's run in a fresh process: the plugin's solve spec makes the task from the
#: sample (its option defaults), the method runs under one Deadline made when it starts,
#: and the process ends as the ``puzzleproof`` command does.
_RUNNER = r"""
import json, sys, time
from puzzleproof import puzzles
from puzzleproof.api import _rows, params_for
from puzzleproof.clock import Deadline
from puzzleproof.puzzles.inputs import Inputs
puzzle, method, path, limit = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
options = json.loads(sys.argv[5])
plugin = puzzles.get(puzzle)
spec = plugin.solve
loaded = Inputs().read(path, plugin.name).loaded
p = params_for(_rows(plugin, spec), options, "solve")
if limit != "none":
    p["time_limit"] = float(limit)
task = spec.tasks(loaded, p)[0]
with spec.session(p) as session:
    p["cache"] = session
    t0 = time.monotonic()
    res = plugin.method(method).bind(p)(task.instance, deadline=p.deadline())
    took = time.monotonic() - t0
print(json.dumps({"status": res.status.value, "seconds": took}))
from puzzleproof._entry import _leave
_leave(0)  # the command's own way out
"""


def cases() -> list[tuple[str, str, str]]:
    """``(puzzle, method, hardest sample)`` for every method a program does not play."""
    from puzzleproof import puzzles

    out = []
    for p in puzzles.all_puzzles():
        hardest = p.reader.samples.get("hardest")
        if hardest and p.solve is not None:
            path = hardest if isinstance(hardest, str) else hardest["path"]
            out += [(p.name, m.name, path) for m in p.methods if m.kind != "external"]
    return out


def options_of(puzzle: str) -> dict:
    """The options the hardest sample is solved with (``{"rule": "ep1", ...}``)."""
    from puzzleproof import puzzles

    hardest = puzzles.get(puzzle).reader.samples.get("hardest")
    return {} if isinstance(hardest, str) else dict(hardest.get("options") or {})


def sample_path(rel: str) -> Path:
    return SHARED / "instances" / rel[len("shared/"):] if rel.startswith("shared/") \
        else ROOT / rel


def timed(puzzle: str, method: str, rel: str, limit: float | None,
          timeout: float = 300.0) -> dict:
    """Run one method in a fresh process; its wall time (start-up included), the method's
    own seconds and its status (``"HUNG"`` past ``timeout``)."""
    argv = [sys.executable, "-c", _RUNNER, puzzle, method, str(sample_path(rel)),
            "none" if limit is None else str(limit), json.dumps(options_of(puzzle))]
    t0 = time.monotonic()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"status": "HUNG", "wall": time.monotonic() - t0, "seconds": None}
    wall = time.monotonic() - t0
    if proc.returncode != 0:
        return {"status": "ERROR", "wall": wall, "seconds": None,
                "error": proc.stderr[-600:]}
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"status": got["status"], "wall": wall, "seconds": got["seconds"]}


def start_up() -> float:
    """The seconds a fresh process takes to import the package and load the plugins."""
    t0 = time.monotonic()
    subprocess.run([sys.executable, "-c", "import puzzleproof.api; from puzzleproof import "
                    "puzzles; puzzles.all_puzzles()"], check=True, cwd=ROOT)
    return time.monotonic() - t0
