"""The lazy-cut loop: a master proposes, a separation oracle refutes, refutations become cuts.

Solvers without a lazy-constraint callback (CP-SAT) and incremental SAT solvers both use it:
solve the master; ask ``separate`` for constraints the proposal violates; add them all and
solve again, until a proposal passes (FEASIBLE), the master has no proposal left (INFEASIBLE)
or the deadline or budget runs out (UNKNOWN, never INFEASIBLE).

The master is asked even when the deadline has passed: it answers LIMIT at once unless it
already holds a proof (a cut or a blocking clause that left nothing), and a proof in hand
is an answer, whatever the clock says.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Generic, Protocol, Sequence, TypeVar

from puzzleproof.clock import Deadline

__all__ = ["Master", "LoopOutcome", "lazy_cut_loop", "SAT", "UNSAT", "LIMIT"]

SAT, UNSAT, LIMIT = "sat", "unsat", "limit"

A = TypeVar("A")
C = TypeVar("C")


class Master(Protocol[A, C]):
    """What the loop needs of a master problem."""

    def solve(self, deadline: Deadline) -> tuple[str, A | None]:
        """Return ``(SAT, assignment)``, ``(UNSAT, None)`` or ``(LIMIT, None)`` (the deadline
        passed before a verdict). Called with a deadline already passed, it answers what it
        knows without searching (UNSAT when its constraints already leave nothing)."""

    def add_cuts(self, cuts: Sequence[C]) -> None:
        """Add constraints that every acceptable assignment satisfies."""


@dataclass
class LoopOutcome(Generic[A]):
    status: str  # SAT (a proposal passed separation), UNSAT, or LIMIT
    assignment: A | None
    rounds: int  # master solves
    cuts: int  # cuts added
    seconds: float


def lazy_cut_loop(master: Master[A, C], separate: Callable[[A], Sequence[C]],
                  deadline: Deadline | None = None,
                  on_round: Callable[[int, int], None] | None = None) -> LoopOutcome[A]:
    """Run the master/separation loop to a verdict or to ``deadline`` (None: no limit).

    ``separate(assignment)`` returns the violated cuts (empty: the assignment is acceptable).
    ``on_round(rounds, cuts)`` is called after each master solve, for progress reports.
    """
    start = time.monotonic()
    deadline = deadline if deadline is not None else Deadline(None)
    rounds = cuts = 0
    while True:
        if deadline.expired():  # only a proof already in hand is still an answer
            status, _ = master.solve(deadline)
            return LoopOutcome(UNSAT if status == UNSAT else LIMIT, None, rounds, cuts,
                               time.monotonic() - start)
        status, assignment = master.solve(deadline)
        rounds += 1
        if status != SAT:
            if on_round:
                on_round(rounds, cuts)
            return LoopOutcome(status, None, rounds, cuts, time.monotonic() - start)
        violated = separate(assignment)  # type: ignore[arg-type]
        if on_round:
            on_round(rounds, cuts + len(violated))
        if not violated:
            return LoopOutcome(SAT, assignment, rounds, cuts, time.monotonic() - start)
        master.add_cuts(violated)
        cuts += len(violated)
