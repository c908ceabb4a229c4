"""Hashi for the cross-check harness: its methods, its rule check, and how instances load.

Methods: ``cpsat`` and ``sat`` (exact, asked the uniqueness question) and ``article`` (the
article's intersection + elimination search, :mod:`puzzleproof.verify.hashi_heuristic`).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from puzzleproof.encoders import hashi_cpsat, hashi_sat  # imported here, not timed in a task
from puzzleproof.formats import expand_inputs, read_source
from puzzleproof.formats.hashi import read_puzzles
from puzzleproof.models.hashi import Puzzle, check_solution
from puzzleproof.result import Result
from puzzleproof.verify import hashi_heuristic
from puzzleproof.verify.crosscheck import Instance, Method, PuzzleKind

__all__ = ["hashi_kind", "load_hashi_instances", "canon"]


def run_exact(name: str, puzzle: Puzzle, time_limit: float | None,
              conflicts: int | None = None) -> Result:
    kwargs: dict[str, Any] = {"mode": "unique", "time_limit": time_limit}
    if name == "cpsat":
        kwargs["workers"] = 1
    elif conflicts is not None:
        kwargs["conflict_budget"] = conflicts
    return (hashi_cpsat if name == "cpsat" else hashi_sat).solve(puzzle, **kwargs)


def run_article(puzzle: Puzzle, time_limit: float | None, nodes: int | None = None) -> Result:
    return hashi_heuristic.solve(puzzle, time_limit=time_limit, max_nodes=nodes)


def check(puzzle: Puzzle, answer: Any) -> list[dict]:
    try:
        lines = [tuple(int(v) for v in b) for b in answer]
        if any(len(b) != 5 for b in lines):
            raise ValueError
    except (TypeError, ValueError):
        return [{"kind": "malformed", "message": f"not a list of [x1, y1, x2, y2, n]: {answer!r}"[:200],
                 "line": None, "island": None}]
    return [v.to_dict() for v in check_solution(puzzle, lines)]  # type: ignore[arg-type]


def canon(answer: Any) -> tuple:
    out = []
    for x1, y1, x2, y2, n in answer:
        a, b = sorted([(x1, y1), (x2, y2)])
        out.append((a, b, n))
    return tuple(sorted(out))


def hashi_kind(extra: dict[str, Method] | None = None, *, conflicts: int | None = None,
               nodes: int | None = None) -> PuzzleKind:
    """The Hashi plug-in; ``extra`` adds methods (a test double, a user's bot).
    ``conflicts``: the sat method's conflict budget; ``nodes``: the article's search
    nodes (deterministic limits: the same answers on any machine and executor)."""
    methods = {
        "cpsat": Method("cpsat", partial(run_exact, "cpsat"), exact=True, effort_key="cut_rounds"),
        "sat": Method("sat", partial(run_exact, "sat", conflicts=conflicts), exact=True,
                      effort_key="cut_rounds"),
        "article": Method("article", partial(run_article, nodes=nodes), exact=False,
                          effort_key="assumptions"),
    }
    methods.update(extra or {})
    return PuzzleKind("hashi", methods, check, canon)


def load_hashi_instances(args: list[str], fmt: str | None = None,
                         max_bridges: int | None = None) -> list[Instance]:
    """Instances from files, folders, globs or JSONL sets; ids are unique."""
    out: list[Instance] = []
    seen: dict[str, int] = {}
    for arg in expand_inputs(args):
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
