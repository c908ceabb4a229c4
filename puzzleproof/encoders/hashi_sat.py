"""Exact Hashi with python-sat: one incremental SAT solver, connectivity cuts added as clauses.

Variables come from an ``IDPool`` keyed ``("b", e, k)`` ("at least k bridges on candidate e");
clue equalities are cardinality encodings (``CardEnc.equals``) over the order literals of an
island's candidates; crossings are binary clauses. Each connectivity cut, each blocking clause
is added to the same solver, so what it learnt in earlier rounds is kept.

With ``propagator=True`` the cuts are added *inside* one CaDiCaL 1.9.5 search instead: a lazy
IPASIR-UP propagator (:class:`ConnectivityPropagator`) is shown every complete model, and when
the islands are not connected it hands back the cuts as external clauses. Measured on the
Coelho 400-island set it is no faster than re-solving (the incremental solver keeps what it
learnt either way, and the callback crosses into Python), so re-solving is the default; the
benchmark's ``--sat-propagator`` flag repeats the comparison.

Limits: under a deadline or a conflict budget the solver runs in chunks (``solve_limited`` with
a conflict budget, sized from the measured conflict rate to last about 0.05 s) and the clock
is checked between chunks, so the limit works for every python-sat solver, CaDiCaL included
(it ignores ``interrupt``).
"""

from __future__ import annotations

import time
from typing import Sequence

import pysat
from pysat.card import CardEnc, EncType
from pysat.engines import Propagator
from pysat.formula import IDPool
from pysat.solvers import Solver

from puzzleproof.encoders.lazy_cuts import LIMIT, SAT, UNSAT
from puzzleproof.encoders.hashi_common import (OutOfTime, blocking_clause, check_clock, separate,
                                               solve_with, upper_bounds)
from puzzleproof.clock import Deadline
from puzzleproof.models.hashi import BridgeLine, Puzzle
from puzzleproof.result import Result

__all__ = ["SatHashi", "ConnectivityPropagator", "solve", "DEFAULT_SAT_SOLVER"]

DEFAULT_SAT_SOLVER = "cd19"


class SatHashi:
    """The python-sat master problem of the Hashi cut loop.

    Args:
        puzzle: the puzzle.
        solver_name: a python-sat solver name (``cd19`` CaDiCaL 1.9.5, ``g4`` Glucose 4, ...).
        conflict_budget: total conflicts allowed over all solves (None: no budget).
        chunk_conflicts: most conflicts per ``solve_limited`` call between clock checks.
        propagator: add connectivity cuts from inside the search (CaDiCaL 1.9.5 only).
        deadline: the task's clock; building past it raises :class:`OutOfTime`.
        steady_chunks: conflicts per ``solve_limited`` call, with or without a deadline and
            whatever the machine's speed (None: sized from the measured rate under a
            deadline, see :meth:`_chunk_budget`).
    """

    name = "sat"
    version = f"python-sat {pysat.__version__}"

    #: Under a deadline, conflicts per ``solve_limited`` call: the first call's, and the
    #: fewest; later calls get what the measured rate fits in ``CHUNK_SECONDS`` (and in the
    #: time left), never more than ``chunk_conflicts``.
    FIRST_CHUNK = 1000
    MIN_CHUNK = 100
    CHUNK_SECONDS = 0.05
    #: Clauses handed to the solver per call while it is loaded (the clock is read between).
    LOAD_CHUNK = 20000

    def __init__(self, puzzle: Puzzle, solver_name: str = DEFAULT_SAT_SOLVER,
                 conflict_budget: int | None = None, chunk_conflicts: int = 20000,
                 propagator: bool = False, deadline: Deadline | None = None,
                 steady_chunks: int | None = None) -> None:
        if steady_chunks is not None and steady_chunks < 1:
            raise ValueError(f"steady chunks must be at least 1 conflict, found {steady_chunks}")
        self.steady = steady_chunks
        self.puzzle = puzzle
        self.solver_name = solver_name
        self.conflict_budget = conflict_budget
        self.chunk = chunk_conflicts
        self.pool = IDPool()
        self.levels = []
        for e, u in enumerate(upper_bounds(puzzle, deadline)):
            check_clock(deadline, e)
            self.levels.append([self.pool.id(("b", e, k)) for k in range(1, u + 1)])
        clauses = self._clauses(deadline)
        self._infeasible = any(not c for c in clauses)
        self.solver = Solver(name=solver_name)
        try:
            for k in range(0, len(clauses), self.LOAD_CHUNK):  # bounded by the deadline too
                check_clock(deadline, k // self.LOAD_CHUNK, every=1)
                self.solver.append_formula([c for c in clauses[k:k + self.LOAD_CHUNK] if c])
        except OutOfTime:
            self.solver.delete()
            raise
        self._stats = {"solves": 0, "conflicts": 0, "decisions": 0, "propagations": 0,
                       "variables": self.pool.top, "clauses": len(clauses),
                       "sat_solver": solver_name}
        self._conflicts_used = 0
        self._search_seconds = 0.0
        self.propagator: ConnectivityPropagator | None = None
        if propagator:
            if solver_name != "cd19":
                raise ValueError("the connectivity propagator needs CaDiCaL 1.9.5 ('cd19')")
            self.propagator = ConnectivityPropagator(puzzle, self.levels)
            self.solver.connect_propagator(self.propagator)
            for lv in self.levels:
                if lv:
                    self.solver.observe(lv[0])

    def _clauses(self, deadline: Deadline | None) -> list[list[int]]:
        """The order, clue and crossing clauses (an empty clause: a clue that cannot fit)."""
        puzzle = self.puzzle
        clauses: list[list[int]] = []
        for lv in self.levels:
            clauses.extend([-hi, lo] for lo, hi in zip(lv, lv[1:]))
        for i, isl in enumerate(puzzle.islands):
            check_clock(deadline, i)
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
        return clauses

    def add_cuts(self, cuts: Sequence[tuple[int, ...]]) -> None:
        for cut in cuts:
            lits = [self.levels[e][0] for e in cut if self.levels[e]]
            if not lits:
                self._infeasible = True
            else:
                self.solver.add_clause(lits)

    def block(self, counts: Sequence[int]) -> None:
        lits = blocking_clause(self.levels, counts, lambda lit: -lit)
        if not lits:
            self._infeasible = True
        else:
            self.solver.add_clause(lits)

    def solve(self, deadline: Deadline) -> tuple[str, list[int] | None]:
        if self._infeasible:
            return UNSAT, None
        if deadline.expired():
            return LIMIT, None
        self._stats["solves"] += 1
        while True:
            budget = self._chunk_budget(deadline)
            if budget is not None and budget <= 0:
                return LIMIT, None
            began = time.monotonic()
            if budget is None:
                res = self.solver.solve()
            else:
                self.solver.conf_budget(budget)
                res = self.solver.solve_limited()
            self._search_seconds += time.monotonic() - began
            self._count_stats()
            if res is True:
                model = self.solver.get_model()
                val = set(lit for lit in model if lit > 0)
                return SAT, [sum(1 for lit in lv if lit in val) for lv in self.levels]
            if res is False:
                return UNSAT, None
            if deadline.expired():
                return LIMIT, None

    def _chunk_budget(self, deadline: Deadline) -> int | None:
        """Conflicts for the next ``solve_limited`` call (None: solve without a limit; 0 or
        less: the conflict budget is spent). With a deadline the chunk is sized from the
        rate measured so far so that one chunk fits in the time left (CaDiCaL ignores
        ``interrupt``, so the clock is only seen between chunks)."""
        budget: int | None = None
        if self.conflict_budget is not None:
            budget = self.conflict_budget - self._conflicts_used
        left = deadline.left()
        if self.steady is not None:  # with or without a deadline: the same steps
            budget = self.steady if budget is None else min(budget, self.steady)
        elif left is not None:
            rate = self._conflicts_used / self._search_seconds if self._search_seconds else 0
            fit = int(rate * min(left, self.CHUNK_SECONDS)) if rate else self.FIRST_CHUNK
            step = max(self.MIN_CHUNK, min(self.chunk, fit))
            budget = step if budget is None else min(budget, step)
        return budget

    def _count_stats(self) -> None:
        acc = self.solver.accum_stats() or {}
        self._conflicts_used = acc.get("conflicts", 0)
        for k in ("conflicts", "decisions", "propagations"):
            self._stats[k] = acc.get(k, 0)

    def stats(self) -> dict:
        out = dict(self._stats)
        if self.propagator is not None:
            out["propagator_checks"] = self.propagator.checks
            out["propagator_cuts"] = self.propagator.cuts
        return out

    def close(self) -> None:
        if self.propagator is not None:
            self.solver.disconnect_propagator()
        self.solver.delete()


class ConnectivityPropagator(Propagator):
    """A lazy IPASIR-UP propagator: rejects disconnected models with connectivity cuts."""

    def __init__(self, puzzle: Puzzle, levels: list[list[int]]) -> None:
        super().__init__()
        self.is_lazy = True
        self.puzzle = puzzle
        self.levels = levels
        self.pending: list[list[int]] = []
        self.checks = 0
        self.cuts = 0

    def check_model(self, model: list[int]) -> bool:
        self.checks += 1
        true = set(lit for lit in model if lit > 0)
        used = [1 if lv and lv[0] in true else 0 for lv in self.levels]
        cuts = separate(self.puzzle, used)
        self.pending = [[self.levels[e][0] for e in cut if self.levels[e]] for cut in cuts]
        self.cuts += len(self.pending)
        return not self.pending

    def has_clause(self) -> bool:
        return bool(self.pending)

    def add_clause(self) -> list[int]:
        return self.pending.pop()  # an empty list is the empty clause: no connection possible

    def on_assignment(self, lit: int, fixed: bool = False) -> None:
        pass

    def on_new_level(self) -> None:
        pass

    def on_backtrack(self, to: int) -> None:
        pass

    def decide(self) -> int:
        return 0

    def propagate(self) -> list[int]:
        return []

    def provide_reason(self, lit: int) -> list[int]:
        return []


def solve(puzzle: Puzzle, *, mode: str = "solve", max_solutions: int = 2,
          deadline: Deadline | None = None,
          solver_name: str = DEFAULT_SAT_SOLVER, conflict_budget: int | None = None,
          propagator: bool = False, seed: int | None = None, on_round=None,
          steady_chunks: int | None = None,
          known: Sequence[BridgeLine] | None = None) -> Result:
    """Solve ``puzzle`` exactly with python-sat; see :func:`hashi_common.solve_with`
    (``deadline``: the task's clock, None for no limit; ``known``: a solution in hand).

    ``steady_chunks``: conflicts per ``solve_limited`` call, the same with or without a
    deadline and on every machine, so that a search that ends within its limits takes the
    same steps however fast the machine is (a seeded generator's proofs); None sizes the
    chunks from the measured conflict rate under a deadline instead."""
    clock = deadline or Deadline(None)
    made: list[SatHashi] = []

    def make(p: Puzzle) -> SatHashi:
        made.append(SatHashi(p, solver_name, conflict_budget, propagator=propagator,
                             deadline=clock, steady_chunks=steady_chunks))
        return made[-1]

    params = {"sat_solver": solver_name, "conflict_budget": conflict_budget,
              "propagator": propagator}
    if steady_chunks is not None:
        params["steady_chunks"] = steady_chunks
    try:
        return solve_with(puzzle, make, mode=mode, max_solutions=max_solutions,
                          deadline=clock, params=params, seed=seed, on_round=on_round,
                          solver=(SatHashi.name, SatHashi.version), known=known)
    finally:
        for m in made:
            m.close()
