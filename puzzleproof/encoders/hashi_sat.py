"""Exact Hashi with python-sat: one incremental SAT solver, connectivity cuts added as clauses.

Variables come from an ``IDPool`` keyed ``("b", e, k)`` ("at least k bridges on candidate e");
clue equalities are cardinality encodings (``CardEnc.equals``) over the order literals of an
island's candidates; crossings are binary clauses. Each connectivity cut, each blocking clause
is added to the same solver, so what it learnt in earlier rounds is kept.

Limits: the solver runs in chunks of ``chunk_conflicts`` conflicts (``solve_limited`` with a
conflict budget) and the clock is checked between chunks, so the limit works for every
python-sat solver, CaDiCaL included (it ignores ``interrupt``).
"""

from __future__ import annotations

import time
from typing import Sequence

import pysat
from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

from puzzleproof.encoders.cuts import LIMIT, SAT, UNSAT
from puzzleproof.encoders.hashi_common import solve_with, upper_bounds
from puzzleproof.models.hashi import Puzzle
from puzzleproof.result import Result

__all__ = ["SatHashi", "solve", "DEFAULT_SAT_SOLVER"]

DEFAULT_SAT_SOLVER = "cd19"


class SatHashi:
    """The python-sat master problem of the Hashi cut loop.

    Args:
        puzzle: the puzzle.
        solver_name: a python-sat solver name (``cd19`` CaDiCaL 1.9.5, ``g4`` Glucose 4, ...).
        conflict_budget: total conflicts allowed over all solves (None: no budget).
        chunk_conflicts: conflicts per ``solve_limited`` call between clock checks.
    """

    name = "sat"
    version = f"python-sat {pysat.__version__}"

    def __init__(self, puzzle: Puzzle, solver_name: str = DEFAULT_SAT_SOLVER,
                 conflict_budget: int | None = None, chunk_conflicts: int = 20000) -> None:
        self.puzzle = puzzle
        self.solver_name = solver_name
        self.conflict_budget = conflict_budget
        self.chunk = chunk_conflicts
        self.pool = IDPool()
        ub = upper_bounds(puzzle)
        self.levels = [[self.pool.id(("b", e, k)) for k in range(1, u + 1)]
                       for e, u in enumerate(ub)]
        clauses: list[list[int]] = []
        for lv in self.levels:
            clauses.extend([-hi, lo] for lo, hi in zip(lv, lv[1:]))
        for i, isl in enumerate(puzzle.islands):
            lits = [lit for e in puzzle.incident[i] for lit in self.levels[e]]
            if isl.clue is not None:
                if isl.clue > len(lits):
                    clauses.append([])
                    continue
                enc = CardEnc.equals(lits=lits, bound=isl.clue, vpool=self.pool,
                                     encoding=EncType.seqcounter if len(lits) > 1
                                     else EncType.pairwise)
                clauses.extend(enc.clauses)
            elif len(puzzle.islands) > 1:
                clauses.append([lv[0] for e in puzzle.incident[i] if (lv := self.levels[e])])
        for h, v in puzzle.crossings:
            if self.levels[h] and self.levels[v]:
                clauses.append([-self.levels[h][0], -self.levels[v][0]])
        self._infeasible = any(not c for c in clauses)
        self.solver = Solver(name=solver_name, bootstrap_with=[c for c in clauses if c])
        self._stats = {"solves": 0, "conflicts": 0, "decisions": 0, "propagations": 0,
                       "variables": self.pool.top, "clauses": len(clauses),
                       "sat_solver": solver_name}
        self._conflicts_used = 0

    def add_cuts(self, cuts: Sequence[tuple[int, ...]]) -> None:
        for cut in cuts:
            lits = [self.levels[e][0] for e in cut if self.levels[e]]
            if not lits:
                self._infeasible = True
            else:
                self.solver.add_clause(lits)

    def block(self, counts: Sequence[int]) -> None:
        lits = []
        for lv, c in zip(self.levels, counts):
            if c < len(lv):
                lits.append(lv[c])
            if c >= 1:
                lits.append(-lv[c - 1])
        if not lits:
            self._infeasible = True
        else:
            self.solver.add_clause(lits)

    def solve(self, deadline: float | None) -> tuple[str, list[int] | None]:
        if self._infeasible:
            return UNSAT, None
        self._stats["solves"] += 1
        while True:
            budget = self.chunk
            if self.conflict_budget is not None:
                budget = min(budget, self.conflict_budget - self._conflicts_used)
                if budget <= 0:
                    return LIMIT, None
            if deadline is None and self.conflict_budget is None:
                res = self.solver.solve()
            else:
                self.solver.conf_budget(budget)
                res = self.solver.solve_limited()
            acc = self.solver.accum_stats() or {}
            used = acc.get("conflicts", 0)
            self._conflicts_used = used
            for k in ("conflicts", "decisions", "propagations"):
                self._stats[k] = acc.get(k, 0)
            if res is True:
                model = self.solver.get_model()
                val = set(lit for lit in model if lit > 0)
                return SAT, [sum(1 for lit in lv if lit in val) for lv in self.levels]
            if res is False:
                return UNSAT, None
            if deadline is not None and time.monotonic() >= deadline:
                return LIMIT, None

    def stats(self) -> dict:
        return dict(self._stats)

    def close(self) -> None:
        self.solver.delete()


def solve(puzzle: Puzzle, *, mode: str = "solve", max_solutions: int = 2,
          time_limit: float | None = None, solver_name: str = DEFAULT_SAT_SOLVER,
          conflict_budget: int | None = None, seed: int | None = None, on_round=None) -> Result:
    """Solve ``puzzle`` exactly with python-sat; see :func:`hashi_common.solve_with`."""
    made: list[SatHashi] = []

    def make(p: Puzzle) -> SatHashi:
        made.append(SatHashi(p, solver_name, conflict_budget))
        return made[-1]

    try:
        return solve_with(puzzle, make, mode=mode, max_solutions=max_solutions,
                          time_limit=time_limit,
                          params={"sat_solver": solver_name, "conflict_budget": conflict_budget},
                          seed=seed, on_round=on_round)
    finally:
        for m in made:
            m.close()
