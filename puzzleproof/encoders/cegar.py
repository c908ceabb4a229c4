"""Counterexample-guided expansion for two-player games, and SAT calls under budgets.

A game "can the first player win?" is decided by two oracles, each usually an incremental
SAT solver:

- ``propose()`` gives a candidate strategy that beats every counterexample seen so far
  (``SAT``), or says none exists (``UNSAT``: the opponent wins, since every strategy fails
  on some counterexample already found);
- ``refute(candidate)`` gives an opponent play that beats the candidate (``SAT``), or says
  none exists (``UNSAT``: the candidate wins);
- ``refine(counterexample)`` adds the play to the proposer.

The loop stops on a verdict or when the deadline or a budget is spent (``LIMIT``; the caller
reports UNKNOWN, never a verdict). Nothing here knows the game; :mod:`.skynet_sat` plugs in
Skynet Revolution.

:func:`limited_solve` runs one SAT call under a deadline and a conflict budget, in chunks of
conflicts with a clock check between them, which works for every python-sat solver (CaDiCaL
ignores ``interrupt``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Sequence, TypeVar

__all__ = ["SAT", "UNSAT", "LIMIT", "HOLDS", "REFUTED", "Budget", "limited_solve",
           "CegarOutcome", "cegar_loop"]

SAT, UNSAT, LIMIT = "sat", "unsat", "limit"
HOLDS, REFUTED = "holds", "refuted"

Cand = TypeVar("Cand")
Cex = TypeVar("Cex")


@dataclass
class Budget:
    """Limits shared by every SAT call of one question: a wall-clock ``deadline``
    (``time.monotonic()``) and a total number of ``conflicts``; ``chunk`` conflicts per call
    between clock checks."""

    deadline: float | None = None
    conflicts: int | None = None
    chunk: int = 20_000
    used: int = 0
    calls: int = 0

    def spent(self) -> bool:
        return ((self.deadline is not None and time.monotonic() >= self.deadline)
                or (self.conflicts is not None and self.used >= self.conflicts))


def limited_solve(solver: Any, assumptions: Sequence[int], budget: Budget) -> bool | None:
    """``solver.solve(assumptions)`` within ``budget``: True, False, or None (budget spent).
    Conflicts used are added to ``budget.used``."""
    budget.calls += 1
    if budget.deadline is None and budget.conflicts is None:
        return solver.solve(assumptions=assumptions)
    while True:
        if budget.spent():
            return None
        chunk = budget.chunk
        if budget.conflicts is not None:
            chunk = min(chunk, budget.conflicts - budget.used)
        before = (solver.accum_stats() or {}).get("conflicts", 0)
        solver.conf_budget(max(1, chunk))
        res = solver.solve_limited(assumptions=assumptions)
        budget.used += (solver.accum_stats() or {}).get("conflicts", 0) - before
        if res is not None:
            return res


@dataclass
class CegarOutcome(Generic[Cand]):
    status: str  # HOLDS (the candidate survived refutation), REFUTED (no candidate), LIMIT
    candidate: Cand | None
    iterations: int
    counterexamples: int
    seconds: float
    log: list[dict] = field(default_factory=list)


def cegar_loop(propose: Callable[[], tuple[str, Cand | None]],
               refute: Callable[[Cand], tuple[str, Cex | None]],
               refine: Callable[[Cex], None], budget: Budget,
               on_iteration: Callable[[int], None] | None = None) -> CegarOutcome[Cand]:
    """Run propose / refute / refine to a verdict or until ``budget`` is spent."""
    t0 = time.monotonic()
    n = cex = 0
    while True:
        if budget.spent():
            return CegarOutcome(LIMIT, None, n, cex, time.monotonic() - t0)
        n += 1
        status, cand = propose()
        if status == UNSAT:
            return CegarOutcome(REFUTED, None, n, cex, time.monotonic() - t0)
        if status == LIMIT:
            return CegarOutcome(LIMIT, None, n, cex, time.monotonic() - t0)
        status, counter = refute(cand)  # type: ignore[arg-type]
        if status == UNSAT:
            return CegarOutcome(HOLDS, cand, n, cex, time.monotonic() - t0)
        if status == LIMIT:
            return CegarOutcome(LIMIT, None, n, cex, time.monotonic() - t0)
        refine(counter)  # type: ignore[arg-type]
        cex += 1
        if on_iteration is not None:
            on_iteration(n)
