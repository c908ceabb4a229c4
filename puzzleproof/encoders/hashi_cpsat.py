"""Exact Hashi with OR-Tools CP-SAT and lazy connectivity cuts.

CP-SAT has no lazy-constraint callback, so the cut loop re-solves: after each solve every
connected group that does not hold all islands gets an at-least-one cut over the candidates
leaving it, and the next solve starts from a full hint (the last solution). The model is the
0/1 order encoding described in :mod:`puzzleproof.encoders.hashi_common`.

What makes the loop short is the search, not the model. Each solve first runs a *guided*
search: decide the "bridge used" literals in breadth-first order from the first island,
trying "used" first, so that a proposal grows one connected network rather than many small
closed groups. Measured on the Coelho 400-island set, the worst puzzles need about 7 rounds
instead of 40-95. The guided search is fragile on a few puzzles (it can wander), so it gets a
small deterministic budget (:attr:`CpSatHashi.GUIDE_BUDGET`); when it runs out the same round
is solved by CP-SAT's own search (with "used" as the preferred polarity), and after such a
miss the puzzle stays with CP-SAT's own search. Both searches are complete: an
INFEASIBLE from either is a proof.
"""

from __future__ import annotations

import time
from typing import Sequence

from collections import deque

import ortools
from ortools.sat.python import cp_model, cp_model_helper

from puzzleproof.encoders.cuts import LIMIT, SAT, UNSAT
from puzzleproof.encoders.hashi_common import blocking_clause, solve_with, upper_bounds
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
    #: Deterministic-time budget of the guided search in one round (see the module docstring).
    GUIDE_BUDGET = 0.05
    #: Consecutive guided misses after which a puzzle stays with CP-SAT's own search.
    GUIDE_MISSES = 1

    def __init__(self, puzzle: Puzzle, workers: int = 1, seed: int = 0,
                 deterministic_limit: float | None = None, guided: bool = True) -> None:
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
        self._misses = 0 if guided else self.GUIDE_MISSES
        if guided:
            order = [lv[0] for e in self._bfs_order() if (lv := self.levels[e])]
            self.model.add_decision_strategy(order, cp_model.CHOOSE_FIRST,
                                             cp_model.SELECT_MAX_VALUE)
        self._stats = {"solves": 0, "conflicts": 0, "branches": 0, "deterministic_time": 0.0,
                       "solver_seconds": 0.0, "guided_solves": 0, "guided_misses": 0}

    def _bfs_order(self) -> list[int]:
        """Candidate indices in breadth-first order from island 0, then the rest."""
        p = self.puzzle
        order: list[int] = []
        taken: set[int] = set()
        seen = {0}
        queue = deque([0]) if p.islands else deque()
        while queue:
            u = queue.popleft()
            for e in p.incident[u]:
                if e not in taken:
                    taken.add(e)
                    order.append(e)
                    br = p.candidates[e]
                    v = br.b if br.a == u else br.a
                    if v not in seen:
                        seen.add(v)
                        queue.append(v)
        return order + [e for e in range(len(p.candidates)) if e not in taken]

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
        lits = blocking_clause(self.levels, counts, lambda lit: ~lit)
        if not lits:
            self._infeasible = True
        else:
            self.model.add_bool_or(lits)

    def solve(self, deadline: float | None) -> tuple[str, list[int] | None]:
        if self._infeasible:
            return UNSAT, None
        if self._hint is not None:
            self.model.clear_hints()
            for lv, c in zip(self.levels, self._hint):
                for k, lit in enumerate(lv):
                    self.model.add_hint(lit, k < c)
        solver, status = None, cp_model.UNKNOWN
        if self._misses < self.GUIDE_MISSES:
            solver, status = self._run(deadline, guided=True)
            self._stats["guided_solves"] += 1
            if status == cp_model.UNKNOWN:
                self._misses += 1
                self._stats["guided_misses"] += 1
            else:
                self._misses = 0
        if status == cp_model.UNKNOWN and (deadline is None or time.monotonic() < deadline):
            solver, status = self._run(deadline, guided=False)
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            counts = [sum(1 for lit in lv if solver.boolean_value(lit)) for lv in self.levels]
            self._hint = counts
            return SAT, counts
        if status == cp_model.INFEASIBLE:
            return UNSAT, None
        if status == cp_model.MODEL_INVALID:  # a bug in this encoder, not in the input
            raise RuntimeError(f"CP-SAT rejected the model: {self.model.validate()}")
        return LIMIT, None

    def _run(self, deadline: float | None, guided: bool):
        solver = cp_model.CpSolver()
        p = solver.parameters
        p.num_workers = self.workers
        p.random_seed = self.seed
        for key, value in self.TUNING.items():
            setattr(p, key, value)
        if deadline is not None:
            p.max_time_in_seconds = max(0.0, deadline - time.monotonic())
        limit = self.deterministic_limit
        if guided:
            p.search_branching = cp_model_helper.SatParameters.FIXED_SEARCH
            limit = self.GUIDE_BUDGET if limit is None else min(limit, self.GUIDE_BUDGET)
        else:
            p.initial_polarity = cp_model_helper.SatParameters.POLARITY_TRUE
        if limit is not None:
            p.max_deterministic_time = limit
        status = solver.solve(self.model)
        st = self._stats
        st["solves"] += 1
        st["conflicts"] += solver.num_conflicts
        st["branches"] += solver.num_branches
        st["deterministic_time"] += solver.deterministic_time
        st["solver_seconds"] += solver.wall_time
        return solver, status

    def stats(self) -> dict:
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in self._stats.items()}


def solve(puzzle: Puzzle, *, mode: str = "solve", max_solutions: int = 2,
          time_limit: float | None = None, workers: int = 1, seed: int = 0,
          deterministic_limit: float | None = None, guided: bool = True,
          on_round=None) -> Result:
    """Solve ``puzzle`` exactly with CP-SAT; see :func:`hashi_common.solve_with` for ``mode``."""
    return solve_with(
        puzzle, lambda p: CpSatHashi(p, workers, seed, deterministic_limit, guided), mode=mode,
        max_solutions=max_solutions, time_limit=time_limit,
        params={"workers": workers, "deterministic_limit": deterministic_limit,
                "guided": guided}, seed=seed,
        on_round=on_round)
