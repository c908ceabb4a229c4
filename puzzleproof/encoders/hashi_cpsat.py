"""Exact Hashi with OR-Tools CP-SAT and lazy connectivity cuts.

CP-SAT has no lazy-constraint callback, so the cut loop re-solves: after each solve every
connected group that does not hold all islands gets an at-least-one cut over the candidates
leaving it, and the next solve starts from a full hint (the last solution). The model is the
0/1 order encoding described in :mod:`puzzleproof.encoders.hashi_common`.
"""

from __future__ import annotations

import time
from typing import Sequence

import ortools
from ortools.sat.python import cp_model

from puzzleproof.encoders.cuts import LIMIT, SAT, UNSAT
from puzzleproof.encoders.hashi_common import solve_with, upper_bounds
from puzzleproof.models.hashi import Puzzle
from puzzleproof.result import Result

__all__ = ["CpSatHashi", "solve"]


class CpSatHashi:
    """The CP-SAT master problem of the Hashi cut loop.

    Args:
        puzzle: the puzzle.
        workers: CP-SAT ``num_workers`` (1 is deterministic).
        seed: CP-SAT ``random_seed``.
        deterministic_limit: optional ``max_deterministic_time`` per solve, for tests.
    """

    name = "cpsat"
    version = ortools.__version__

    #: The master is re-solved tens of times on large puzzles and each solve is easy, so the
    #: fixed cost of a solve dominates. Measured on the Coelho 400-island set (one worker):
    #: presolve, probing, symmetry detection and the LP relaxation cost more than they save
    #: (mean 0.87 s with defaults and 2 workers; about 0.3 s with these off).
    TUNING = {"cp_model_presolve": False, "linearization_level": 0, "symmetry_level": 0,
              "cp_model_probing_level": 0}

    def __init__(self, puzzle: Puzzle, workers: int = 1, seed: int = 0,
                 deterministic_limit: float | None = None) -> None:
        self.puzzle = puzzle
        self.workers = workers
        self.seed = seed
        self.deterministic_limit = deterministic_limit
        self.model = cp_model.CpModel()
        ub = upper_bounds(puzzle)
        self.levels: list[list[cp_model.IntVar]] = []
        for e, u in enumerate(ub):
            lits = [self.model.new_bool_var(f"b{e}_{k}") for k in range(1, u + 1)]
            for lo, hi in zip(lits, lits[1:]):
                self.model.add_implication(hi, lo)
            self.levels.append(lits)
        for i, isl in enumerate(puzzle.islands):
            lits = [lit for e in puzzle.incident[i] for lit in self.levels[e]]
            if isl.clue is not None:
                self.model.add(sum(lits) == isl.clue)
            elif len(puzzle.islands) > 1:
                self.model.add_bool_or([self.levels[e][0] for e in puzzle.incident[i]
                                        if self.levels[e]])
        for h, v in puzzle.crossings:
            if self.levels[h] and self.levels[v]:
                self.model.add_bool_or([~self.levels[h][0], ~self.levels[v][0]])
        self._infeasible = False
        self._hint: list[int] | None = None
        self._stats = {"solves": 0, "conflicts": 0, "branches": 0, "deterministic_time": 0.0,
                       "solver_seconds": 0.0}

    def _used(self, e: int):
        return self.levels[e][0] if self.levels[e] else None

    def add_cuts(self, cuts: Sequence[tuple[int, ...]]) -> None:
        for cut in cuts:
            lits = [self._used(e) for e in cut if self.levels[e]]
            if not lits:
                self._infeasible = True
            else:
                self.model.add_bool_or(lits)

    def block(self, counts: Sequence[int]) -> None:
        lits = []
        for e, c in enumerate(counts):
            lv = self.levels[e]
            if c < len(lv):
                lits.append(lv[c])  # one more bridge than now
            if c >= 1:
                lits.append(~lv[c - 1])  # one fewer bridge than now
        if not lits:
            self._infeasible = True
        else:
            self.model.add_bool_or(lits)

    def solve(self, deadline: float | None) -> tuple[str, list[int] | None]:
        if self._infeasible:
            return UNSAT, None
        solver = cp_model.CpSolver()
        p = solver.parameters
        p.num_workers = self.workers
        p.random_seed = self.seed
        for key, value in self.TUNING.items():
            setattr(p, key, value)
        if deadline is not None:
            p.max_time_in_seconds = max(0.0, deadline - time.monotonic())
        if self.deterministic_limit is not None:
            p.max_deterministic_time = self.deterministic_limit
        if self._hint is not None:
            self.model.clear_hints()
            for lv, c in zip(self.levels, self._hint):
                for k, lit in enumerate(lv):
                    self.model.add_hint(lit, k < c)
        status = solver.solve(self.model)
        st = self._stats
        st["solves"] += 1
        st["conflicts"] += solver.num_conflicts
        st["branches"] += solver.num_branches
        st["deterministic_time"] += solver.deterministic_time
        st["solver_seconds"] += solver.wall_time
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            counts = [sum(1 for lit in lv if solver.boolean_value(lit)) for lv in self.levels]
            self._hint = counts
            return SAT, counts
        if status == cp_model.INFEASIBLE:
            return UNSAT, None
        if status == cp_model.MODEL_INVALID:  # a bug in this encoder, not in the input
            raise RuntimeError(f"CP-SAT rejected the model: {self.model.validate()}")
        return LIMIT, None

    def stats(self) -> dict:
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in self._stats.items()}


def solve(puzzle: Puzzle, *, mode: str = "solve", max_solutions: int = 2,
          time_limit: float | None = None, workers: int = 1, seed: int = 0,
          deterministic_limit: float | None = None, on_round=None) -> Result:
    """Solve ``puzzle`` exactly with CP-SAT; see :func:`hashi_common.solve_with` for ``mode``."""
    return solve_with(
        puzzle, lambda p: CpSatHashi(p, workers, seed, deterministic_limit), mode=mode,
        max_solutions=max_solutions, time_limit=time_limit,
        params={"workers": workers, "deterministic_limit": deterministic_limit}, seed=seed,
        on_round=on_round)
