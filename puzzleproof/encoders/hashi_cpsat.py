"""Exact Hashi with OR-Tools CP-SAT and lazy connectivity cuts.

CP-SAT has no lazy-constraint callback, so the cut loop re-solves: after each solve every
connected group that does not hold all islands gets an at-least-one cut over the candidates
leaving it, and the model is solved again. The model is the 0/1 order encoding described in
:mod:`puzzleproof.encoders.hashi_common`.

A re-solve starts from nothing CP-SAT learnt before, so what decides the time is how many
rounds the loop takes and what each costs. Two searches keep both low:

- The first round runs a *guided* search: decide the "bridge used" literals in breadth-first
  order from the first island, trying "used" first, so that the first proposal is one large
  network rather than many small closed groups. It gets a small deterministic budget
  (:attr:`CpSatHashi.GUIDE_BUDGET`, it can wander on a few puzzles); when that runs out the
  round is solved by CP-SAT's own search with "used" as the preferred polarity.
- Every later round *repairs* the previous proposal: it is the solution hint, and CP-SAT
  follows it for up to :attr:`CpSatHashi.REPAIR_CONFLICTS` conflicts before its own search
  takes over. The new cuts touch a few groups, so the repaired proposal keeps the network
  already built and changes little. With CP-SAT's default of 10 conflicts the loop mostly
  rebuilds the proposal instead: on issue 32's 12 puzzles of 400 islands (solve and
  uniqueness) 7.4 rounds on average and 0.13 s of CPU, against 5.4 rounds and 0.08 s; with
  no hint at all, 14.2 rounds and 0.30 s (``benchmarks/hashi_exact.py --ablation``).

Both searches are complete: an INFEASIBLE from either is a proof. One worker is the
default and deterministic; on 2 cores a second worker races the first on the same easy
proposal and costs more than it saves (0.76 s of CPU on average on the same 12 puzzles), and
far more on a busy machine, where each worker waits for its time slice. With one worker the
search runs in the caller's thread (no thread is started per solve), so other work on the
machine slows it exactly as much as the SAT back end (``benchmarks/hashi_exact.py --twelve
--load`` times the two in turns).
"""

from __future__ import annotations

from collections import deque
from typing import Sequence

import ortools
from ortools.sat.python import cp_model, cp_model_helper

from puzzleproof.encoders.lazy_cuts import LIMIT, SAT, UNSAT
from puzzleproof.encoders.hashi_common import blocking_clause, check_clock, solve_with, upper_bounds
from puzzleproof.clock import Deadline
from puzzleproof.models.hashi import BridgeLine, Puzzle
from puzzleproof.result import Result

__all__ = ["CpSatHashi", "solve", "MAX_WORKERS"]

#: Most CP-SAT workers accepted. CP-SAT itself takes up to 10000 (one thread each, on any
#: machine) and answers MODEL_INVALID above; a solver of one puzzle needs no more than this.
MAX_WORKERS = 64

_PARAMS = cp_model_helper.SatParameters


def check_workers(workers: int) -> int:
    """``workers`` when it is a sane CP-SAT worker count, else a ValueError saying why."""
    if isinstance(workers, bool) or not isinstance(workers, int) \
            or not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"CP-SAT workers must be a whole number from 1 to {MAX_WORKERS}, "
                         f"found {workers!r}")
    return workers


class CpSatHashi:
    """The CP-SAT master problem of the Hashi cut loop.

    Args:
        puzzle: the puzzle.
        workers: CP-SAT ``num_workers``, 1 to :data:`MAX_WORKERS` (1 is deterministic).
        seed: CP-SAT ``random_seed``.
        deterministic_limit: optional ``max_deterministic_time`` per solve, for tests.
        guided: run the guided search in the first round (see the module docstring).
        repair_conflicts: conflicts a later round spends following the previous proposal
            (CP-SAT's ``hint_conflict_limit``); 0 gives no hint at all.
        tuning: CP-SAT parameters to set over :attr:`TUNING` (for measurements).
        deadline: the task's clock; building past it raises :class:`OutOfTime`.
    """

    name = "cpsat"
    version = ortools.__version__

    #: The master is re-solved up to tens of times on large puzzles and each solve is easy,
    #: so the fixed cost of a solve dominates. Measured on issue 32's 12 puzzles (one
    #: worker): presolve alone makes the mean 0.20 s instead of 0.08 s, CP-SAT's defaults
    #: (presolve, probing, symmetry detection, the LP relaxation) 0.57 s.
    TUNING = {"cp_model_presolve": False, "linearization_level": 0, "symmetry_level": 0,
              "cp_model_probing_level": 0}
    #: Deterministic-time budget of the first round's guided search.
    GUIDE_BUDGET = 0.05
    #: Conflicts a later round spends repairing the previous proposal before CP-SAT's own
    #: search (measured on the Coelho 400-island set: 300 and 3000 are both worse on the
    #: slowest puzzles).
    REPAIR_CONFLICTS = 1000

    def __init__(self, puzzle: Puzzle, workers: int = 1, seed: int = 0,
                 deterministic_limit: float | None = None, guided: bool = True,
                 repair_conflicts: int | None = None, tuning: dict | None = None,
                 deadline: Deadline | None = None) -> None:
        self.puzzle = puzzle
        self.workers = check_workers(workers)
        self.seed = seed
        self.deterministic_limit = deterministic_limit
        self.guided = guided
        self.repair = self.REPAIR_CONFLICTS if repair_conflicts is None else repair_conflicts
        self.tuning = {**self.TUNING, **(tuning or {})}
        self.model = cp_model.CpModel()
        self.levels = self._add_bridges(deadline)
        self._add_rules(deadline)
        self._index = [[lit.index for lit in lv] for lv in self.levels]
        self._flat = [i for idx in self._index for i in idx]
        self._infeasible = False
        self._last: list[int] | None = None
        if guided:
            order = [lv[0] for e in self._bfs_order() if (lv := self.levels[e])]
            self.model.add_decision_strategy(order, cp_model.CHOOSE_FIRST,
                                             cp_model.SELECT_MAX_VALUE)
        self._stats = {"solves": 0, "conflicts": 0, "branches": 0, "deterministic_time": 0.0,
                       "solver_seconds": 0.0, "guided_solves": 0, "guided_misses": 0}

    def _add_bridges(self, deadline: Deadline | None) -> list[list[cp_model.IntVar]]:
        """``levels[e][k]``: "at least k+1 bridges on candidate e", ordered."""
        levels = []
        for e, u in enumerate(upper_bounds(self.puzzle, deadline)):
            check_clock(deadline, e)
            lits = [self.model.new_bool_var(f"b{e}_{k}") for k in range(1, u + 1)]
            for lo, hi in zip(lits, lits[1:]):
                self.model.add_implication(hi, lo)
            levels.append(lits)
        return levels

    def _add_rules(self, deadline: Deadline | None) -> None:
        """Clues (a clueless island needs one bridge) and crossings."""
        p = self.puzzle
        for i, isl in enumerate(p.islands):
            check_clock(deadline, i)
            lits = [lit for e in p.incident[i] for lit in self.levels[e]]
            if isl.clue is not None:
                self.model.add(sum(lits) == isl.clue)
            elif len(p.islands) > 1:
                self.model.add_bool_or([self.levels[e][0] for e in p.incident[i]
                                        if self.levels[e]])
        for h, v in p.crossings:
            if self.levels[h] and self.levels[v]:
                self.model.add_bool_or([~self.levels[h][0], ~self.levels[v][0]])

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

    def add_cuts(self, cuts: Sequence[tuple[int, ...]]) -> None:
        for cut in cuts:
            lits = [self.levels[e][0] for e in cut if self.levels[e]]
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

    def solve(self, deadline: Deadline) -> tuple[str, list[int] | None]:
        if self._infeasible:
            return UNSAT, None
        if deadline.expired():
            return LIMIT, None
        self._set_hint()
        solver, status = None, cp_model.UNKNOWN
        if self._last is None and self.guided:
            solver, status = self._run(deadline, guided=True)
            self._stats["guided_solves"] += 1
            if status == cp_model.UNKNOWN:
                self._stats["guided_misses"] += 1
        if status == cp_model.UNKNOWN and not deadline.expired():
            solver, status = self._run(deadline, guided=False)
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            values = solver.response_proto.solution
            self._last = [sum(values[i] for i in idx) for idx in self._index]
            return SAT, list(self._last)
        if status == cp_model.INFEASIBLE:
            return UNSAT, None
        if status == cp_model.MODEL_INVALID:  # a bug in this encoder, not in the input
            raise RuntimeError(f"CP-SAT rejected the model: {self.model.validate()}")
        return LIMIT, None

    def _set_hint(self) -> None:
        """Hint the last proposal (straight into the model's proto: one ``add_hint`` call
        per literal costs about as much as a short solve)."""
        self.model.clear_hints()
        if self._last is None or not self.repair:
            return
        hint = self.model.proto.solution_hint
        hint.vars.extend(self._flat)
        hint.values.extend([int(k < c) for idx, c in zip(self._index, self._last)
                            for k in range(len(idx))])

    def _run(self, deadline: Deadline, guided: bool):
        solver = cp_model.CpSolver()
        p = solver.parameters
        p.num_workers = self.workers
        p.random_seed = self.seed
        for key, value in self.tuning.items():
            setattr(p, key, value)
        left = deadline.left()
        if left is not None:
            p.max_time_in_seconds = left
        limit = self.deterministic_limit
        if guided:
            p.search_branching = _PARAMS.FIXED_SEARCH
            limit = self.GUIDE_BUDGET if limit is None else min(limit, self.GUIDE_BUDGET)
        else:
            p.initial_polarity = _PARAMS.POLARITY_TRUE
            if self.repair:
                p.hint_conflict_limit = self.repair
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
          deadline: Deadline | None = None,
          workers: int = 1, seed: int = 0, deterministic_limit: float | None = None,
          guided: bool = True, repair_conflicts: int | None = None,
          tuning: dict | None = None, on_round=None,
          known: Sequence[BridgeLine] | None = None) -> Result:
    """Solve ``puzzle`` exactly with CP-SAT; see :func:`hashi_common.solve_with` for ``mode``,
    ``deadline`` and ``known``. Raises ValueError for a worker count outside 1 to
    :data:`MAX_WORKERS`."""
    check_workers(workers)
    clock = deadline or Deadline(None)
    params = {"workers": workers, "deterministic_limit": deterministic_limit,
              "guided": guided}
    if repair_conflicts is not None:
        params["repair_conflicts"] = repair_conflicts
    if tuning:
        params["tuning"] = dict(tuning)
    return solve_with(
        puzzle, lambda p: CpSatHashi(p, workers, seed, deterministic_limit, guided,
                                     repair_conflicts, tuning, clock),
        mode=mode, max_solutions=max_solutions, deadline=clock,
        params=params, seed=seed, on_round=on_round,
        solver=(CpSatHashi.name, CpSatHashi.version), known=known)
