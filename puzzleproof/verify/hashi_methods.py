"""Hashi for the cross-check harness: its methods, its rule check, and how instances load.

Methods: ``cpsat`` and ``sat`` (exact, asked the uniqueness question) and ``article`` (the
article's intersection + elimination search, :mod:`puzzleproof.players.hashi_article`).
"""

from __future__ import annotations

from typing import Any

from puzzleproof.formats import expand_inputs, read_source
from puzzleproof.formats.hashi import SUFFIXES, read_puzzles
from puzzleproof.models.hashi import Puzzle, check_solution
from puzzleproof.result import Result
from puzzleproof.clock import Deadline
from puzzleproof.method import Method
from puzzleproof.verify.crosscheck import Instance, PuzzleKind

__all__ = ["METHODS", "hashi_kind", "load_hashi_instances", "canon", "run_sat", "run_cpsat",
           "run_article"]


def run_sat(puzzle: Puzzle, *, deadline: Deadline, mode: str = "solve", count: int = 2,
            conflicts: int | None = None, on_progress: Any = None) -> Result:
    """The SAT back end: ``mode`` solve, unique or all (up to ``count`` solutions)."""
    from puzzleproof.encoders import hashi_sat

    return hashi_sat.solve(puzzle, mode=mode, max_solutions=count,
                           deadline=deadline, conflict_budget=conflicts,
                           on_round=_rounds(on_progress))


def run_cpsat(puzzle: Puzzle, *, deadline: Deadline, mode: str = "solve", count: int = 2,
              workers: int = 1, seed: int = 0, on_progress: Any = None) -> Result:
    """The CP-SAT back end (one worker: deterministic)."""
    from puzzleproof.encoders import hashi_cpsat

    return hashi_cpsat.solve(puzzle, mode=mode, max_solutions=count,
                             deadline=deadline, workers=workers, seed=seed,
                             on_round=_rounds(on_progress))


def run_article(puzzle: Puzzle, *, deadline: Deadline, nodes: int | None = None) -> Result:
    """The article's intersection + elimination search (a heuristic: no uniqueness)."""
    from puzzleproof.players import hashi_article

    return hashi_article.solve(puzzle, deadline=deadline, max_nodes=nodes)


def _rounds(on_progress: Any) -> Any:
    """The back ends' per-round callback, as a line of progress for a person."""
    if on_progress is None:
        return None
    return lambda rounds, cuts: on_progress(f"{rounds} cut round{'s' if rounds != 1 else ''}"
                                            f", {cuts} cut{'s' if cuts != 1 else ''}")


def check(puzzle: Puzzle, answer: Any) -> list[dict]:
    try:
        lines = [tuple(int(v) for v in b) for b in answer]
        if any(len(b) != 5 for b in lines):
            raise ValueError
    except (TypeError, ValueError):
        what = f"not a list of [x1, y1, x2, y2, n]: {answer!r}"[:200]
        return [{"kind": "malformed", "message": what, "line": None, "island": None}]
    return [v.to_dict() for v in check_solution(puzzle, lines)]  # type: ignore[arg-type]


def canon(answer: Any) -> tuple:
    out = []
    for x1, y1, x2, y2, n in answer:
        a, b = sorted([(x1, y1), (x2, y2)])
        out.append((a, b, n))
    return tuple(sorted(out))


#: Hashi's methods: two exact back ends, asked what the verb asks (``mode``: solve,
#: unique or all), and the article's heuristic. The plugin lists these; the harness runs
#: them.
METHODS = (
    Method("sat", "exact", "python-sat with incremental connectivity cuts",
           run="puzzleproof.verify.hashi_methods:run_sat",
           options=("mode", "count", "conflicts", "on_progress"), effort="cut_rounds"),
    Method("cpsat", "exact", "OR-Tools CP-SAT, re-solved with hints after each cut",
           run="puzzleproof.verify.hashi_methods:run_cpsat",
           options=("mode", "count", "workers", "seed", "on_progress"), effort="cut_rounds"),
    Method("article", "heuristic", "the CodinGame article's intersection + elimination search",
           run="puzzleproof.verify.hashi_methods:run_article", options=("nodes",),
           effort="assumptions"),
)


def hashi_kind(extra: dict[str, Method] | None = None, *, conflicts: int | None = None,
               nodes: int | None = None) -> PuzzleKind:
    """The Hashi plug-in of the harness: every method asked the uniqueness question (CP-SAT
    on one worker), ``extra`` methods beside them (a user's program, a test double).
    ``conflicts``: the sat method's budget; ``nodes``: the article's (deterministic limits:
    the same answers on any machine and executor)."""
    values = {"mode": "unique", "workers": 1, "seed": 0, "conflicts": conflicts,
              "nodes": nodes}
    methods = {m.name: m.bind(values) for m in METHODS}
    methods.update(extra or {})
    return PuzzleKind("hashi", methods, check, canon, warm=_warm)


def _warm() -> None:
    """The back ends' libraries, loaded once per worker outside the tasks' time."""
    from puzzleproof.encoders import hashi_cpsat, hashi_sat  # noqa: F401
    from puzzleproof.players import hashi_article  # noqa: F401


def load_hashi_instances(args: list[str], fmt: str | None = None,
                         max_bridges: int | None = None) -> list[Instance]:
    """Instances from files, folders, globs or JSONL sets; ids are unique."""
    out: list[Instance] = []
    seen: dict[str, int] = {}
    for arg in expand_inputs(args, SUFFIXES):
        text, source, _ = read_source(arg)
        for rec in read_puzzles(text, source, fmt, max_bridges):
            base = key = rec.name
            if key in seen:
                seen[key] += 1
                key = f"{base}@{seen[base]}"
            else:
                seen[key] = 0
            out.append(Instance(key, rec.puzzle, rec.solution))
    return out
