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
ignores ``interrupt``). A chunk can still take seconds on a large formula, so where the
solver honours ``interrupt`` (Glucose, MiniSat and their kin) an alarm thread also
interrupts the call at the deadline, and at least once a second so that a Ctrl-C (which
python-sat cannot see while the call runs with the GIL released) is acted on between
slices.
"""

from __future__ import annotations

import os
import threading
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

    def expire(self) -> None:
        """The time is up now (a SAT call was stopped for the deadline a little before it,
        :data:`INTERRUPT_LEAD`)."""
        now = time.monotonic()
        self.deadline = now if self.deadline is None else min(self.deadline, now)


def limited_solve(solver: Any, assumptions: Sequence[int], budget: Budget) -> bool | None:
    """``solver.solve(assumptions)`` within ``budget``: True, False, or None (budget spent).
    Conflicts used are added to ``budget.used``."""
    budget.calls += 1
    if budget.deadline is None and budget.conflicts is None:
        return solver.solve(assumptions=assumptions)
    alarm = _alarm() if budget.deadline is not None and _interruptible(solver) else None
    while True:
        if budget.spent():
            return None
        final = None if alarm is None else budget.deadline - _lead(solver)  # type: ignore[operator]
        if final is not None and time.monotonic() >= final:
            budget.expire()
            return None
        chunk = budget.chunk
        if budget.conflicts is not None:
            chunk = min(chunk, budget.conflicts - budget.used)
        before = (solver.accum_stats() or {}).get("conflicts", 0)
        solver.conf_budget(max(1, chunk))
        stopped = False
        if alarm is None:
            res = solver.solve_limited(assumptions=assumptions)
        else:
            res, stopped = alarm.call(solver, assumptions, final)  # type: ignore[arg-type]
        budget.used += (solver.accum_stats() or {}).get("conflicts", 0) - before
        if stopped:
            budget.expire()
            return None
        if res is not None:
            return res


SLICE = 1.0  # seconds at most per interruptible SAT call between checks for signals
# Glucose acts on an interrupt at its next restart only, which can be a long way off when a
# search makes few conflicts (a refuter of a long horizon on a large map makes hundreds of
# thousands of decisions between restarts): the alarm rings before the deadline by the
# largest lag seen on that solver (from its slices), at least INTERRUPT_LEAD and at most
# MAX_LEAD seconds
INTERRUPT_LEAD = 0.15
MAX_LEAD = 0.5
_LAGS: dict[int, float] = {}  # id(solver) -> the largest lag seen after an interrupt


def _lead(solver: Any) -> float:
    return min(MAX_LEAD, max(INTERRUPT_LEAD, _LAGS.get(id(solver), 0.0)))


def _note_lag(solver: Any, lag: float) -> None:
    if len(_LAGS) > 1000:
        _LAGS.clear()  # estimates only: forget those of solvers long deleted
    _LAGS[id(solver)] = max(lag, _LAGS.get(id(solver), 0.0))


def _interruptible(solver: Any) -> bool:
    """Whether the solver honours ``interrupt`` (found once per back end: CaDiCaL and
    Lingeling raise NotImplementedError)."""
    kind = type(getattr(solver, "solver", solver))
    known = _INTERRUPTIBLE.get(kind)
    if known is None:
        try:
            solver.interrupt()
            solver.clear_interrupt()
            known = True
        except NotImplementedError:
            known = False
        _INTERRUPTIBLE[kind] = known
    return known


_INTERRUPTIBLE: dict[type, bool] = {}


class _Alarm:
    """A daemon thread that interrupts the armed solver at the armed instant. One per
    thread that makes SAT calls (:func:`_alarm`), started on first use."""

    def __init__(self) -> None:
        self.cv = threading.Condition()
        self.solver: Any = None
        self.at = 0.0
        self.fired: float | None = None  # when the armed call was interrupted
        self.thread: threading.Thread | None = None

    def call(self, solver: Any, assumptions: Sequence[int], final: float
             ) -> tuple[bool | None, bool]:
        """One interruptible ``solve_limited``: interrupted after SLICE seconds (so that a
        Ctrl-C is acted on between slices) or, in the last slice (up to 1.5 SLICE, so that
        no slice ends just before the deadline), at ``final``. The answer, and whether the
        call was stopped at ``final``."""
        now = time.monotonic()
        at = final if final - now < 1.5 * SLICE else now + SLICE
        self.arm(solver, at)
        try:
            res = solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
        finally:
            fired = self.disarm()
            if fired is not None:
                solver.clear_interrupt()
                _note_lag(solver, time.monotonic() - fired)
        return res, fired is not None and at == final

    def arm(self, solver: Any, at: float) -> None:
        with self.cv:
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._watch, name="sat-alarm",
                                               daemon=True)
                self.thread.start()
            self.solver, self.at, self.fired = solver, at, None
            self.cv.notify()

    def disarm(self) -> float | None:
        """Disarm; when the alarm fired (the solver's interrupt flag is then set), when."""
        with self.cv:
            self.solver = None
            return self.fired

    def _watch(self) -> None:
        with self.cv:
            while True:
                if self.solver is None:
                    self.cv.wait()
                    continue
                left = self.at - time.monotonic()
                if left > 0:
                    self.cv.wait(left)
                    continue
                self.solver.interrupt()
                self.fired = time.monotonic()
                self.solver = None


_local = threading.local()


def _alarm() -> _Alarm:
    alarm = getattr(_local, "alarm", None)
    if alarm is None:
        alarm = _local.alarm = _Alarm()
    return alarm


def _forget_alarms() -> None:
    """In a forked child the parent's alarm thread is gone and its lock may be held."""
    global _local
    _local = threading.local()


os.register_at_fork(after_in_child=_forget_alarms)


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
