"""What the exact Hashi back ends share: the tightened model, connectivity separation, and the
driver that turns a back end into answers (solve, uniqueness, enumeration) checked by the rules.

Both back ends encode the same 0/1 model. For each candidate bridge ``e`` and ``k = 1..ub[e]``
a Boolean ``b[e][k]`` means "at least ``k`` bridges on ``e``" (``b[e][k] -> b[e][k-1]``); the
bridge is used when ``b[e][1]``; an island's bridge count is the number of true ``b`` of its
incident candidates and must equal its clue; crossing candidates are not both used.
Connectivity is not encoded: it is enforced lazily by :func:`separate`, which cuts every
connected group that does not hold all islands.

The model is tightened before the loop starts (``upper_bounds``): a pair never carries more
bridges than either clue, and two islands whose clues are equal and small enough to be filled
by each other alone (say ``1-1`` or ``2=2``) cannot be joined that fully when there are other
islands, since the pair would be closed off.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Protocol, Sequence

from puzzleproof.encoders.lazy_cuts import LIMIT, SAT, UNSAT, lazy_cut_loop
from puzzleproof.clock import Deadline
from puzzleproof.models.hashi import (BridgeLine, Puzzle, check_solution, counts_to_lines,
                                      impossibility_reasons)
from puzzleproof.result import Result, Status, limit_name, which_limit

__all__ = ["HashiBackend", "upper_bounds", "separate", "blocking_clause", "solve_with", "MODES",
           "OutOfTime", "check_clock", "counts_of"]

MODES = ("solve", "unique", "all")


class OutOfTime(Exception):
    """The deadline passed while a back end was being built: the answer is UNKNOWN."""


def check_clock(deadline: Deadline | None, step: int, every: int = 256) -> None:
    """Raise :class:`OutOfTime` when ``deadline`` has passed; a model builder calls it at
    each step (the clock is read every ``every`` steps), so that building the model of a
    large puzzle is bounded by the same deadline as the search."""
    if deadline is not None and step % every == 0 and deadline.expired():
        raise OutOfTime


class HashiBackend(Protocol):
    """An exact Hashi back end: a master problem for :func:`lazy_cut_loop`, plus blocking."""

    name: str
    version: str

    def solve(self, deadline: Deadline) -> tuple[str, list[int] | None]:
        """Solve the master within ``deadline``: ``(SAT, counts)``, ``(UNSAT, None)`` or
        ``(LIMIT, None)``; on a deadline already passed, UNSAT or LIMIT without searching."""

    def add_cuts(self, cuts: Sequence[tuple[int, ...]]) -> None:
        """Each cut is a tuple of candidate indices of which at least one must be used."""

    def block(self, counts: Sequence[int]) -> None:
        """Forbid exactly this bridge-count vector."""

    def stats(self) -> dict: ...


def upper_bounds(puzzle: Puzzle, deadline: Deadline | None = None) -> list[int]:
    """Most bridges each candidate can carry in any solution (see the module docstring);
    building past ``deadline`` raises :class:`OutOfTime`."""
    many = len(puzzle.islands) > 2
    out = []
    for e, br in enumerate(puzzle.candidates):
        check_clock(deadline, e)
        ca, cb = puzzle.islands[br.a].clue, puzzle.islands[br.b].clue
        ub = puzzle.max_bridges
        for c in (ca, cb):
            if c is not None:
                ub = min(ub, c)
        if many and ca is not None and ca == cb and ca <= puzzle.max_bridges:
            ub = min(ub, ca - 1)
        out.append(ub)
    return out


def blocking_clause(levels: Sequence[Sequence[Any]], counts: Sequence[int],
                    negate: Callable[[Any], Any]) -> list:
    """The clause that forbids exactly the count vector ``counts`` over order literals
    ``levels[e][k]`` ("at least k+1 bridges on e"): some candidate gets one bridge more
    (``levels[e][c]``) or one fewer (``negate(levels[e][c - 1])``). Empty: nothing else exists.
    """
    lits = []
    for lv, c in zip(levels, counts):
        if c < len(lv):
            lits.append(lv[c])
        if c >= 1:
            lits.append(negate(lv[c - 1]))
    return lits


def separate(puzzle: Puzzle, counts: Sequence[int]) -> list[tuple[int, ...]]:
    """Connectivity cuts violated by ``counts``: for each group of islands joined by used
    bridges, when there is more than one group, the candidates leaving that group.

    An empty tuple means a group has no candidate leaving it: no connected solution extends
    this master's constraints (the back end treats it as the empty clause).
    """
    n = len(puzzle.islands)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    groups = n
    for e, c in enumerate(counts):
        if c:
            br = puzzle.candidates[e]
            ra, rb = find(br.a), find(br.b)
            if ra != rb:
                parent[ra] = rb
                groups -= 1
    if groups <= 1:
        return []
    root = [find(i) for i in range(n)]
    leaving: dict[int, list[int]] = {r: [] for r in set(root)}
    for e, br in enumerate(puzzle.candidates):
        ra, rb = root[br.a], root[br.b]
        if ra != rb:
            leaving[ra].append(e)
            leaving[rb].append(e)
    cuts = {tuple(v) for v in leaving.values()}
    return sorted(cuts, key=len)


def counts_of(puzzle: Puzzle, lines: Sequence[BridgeLine]) -> list[int]:
    """The bridge count of each candidate in ``lines`` (``x1 y1 x2 y2 n``, either end first;
    a pair named twice adds up). A ValueError names a line that joins no candidate pair."""
    where = {}
    for e, br in enumerate(puzzle.candidates):
        a, b = puzzle.islands[br.a], puzzle.islands[br.b]
        where[(a.x, a.y, b.x, b.y)] = where[(b.x, b.y, a.x, a.y)] = e
    counts = [0] * len(puzzle.candidates)
    for x1, y1, x2, y2, n in lines:
        e = where.get((x1, y1, x2, y2))
        if e is None:
            raise ValueError(f"({x1}, {y1})-({x2}, {y2}) is no pair of islands in line of "
                             "sight")
        counts[e] += n
    return counts


def plural_rounds(n: int) -> str:
    return f"{n} cut round" + ("" if n == 1 else "s")


def solve_with(puzzle: Puzzle, make_backend: Callable[[Puzzle], HashiBackend], *,
               mode: str = "solve", max_solutions: int = 2,
               deadline: Deadline | None = None, params: dict | None = None,
               seed: int | None = None, on_round: Callable[[int, int], None] | None = None,
               solver: tuple[str, str] = ("", ""),
               known: Sequence[BridgeLine] | None = None) -> Result:
    """Answer ``mode`` for ``puzzle`` with a back end; every solution is rule-checked.

    - ``solve``: SOLVED with a solution, INFEASIBLE, or UNKNOWN.
    - ``unique``: UNIQUE, MULTIPLE (two solutions), INFEASIBLE, or UNKNOWN (with the first
      solution, if one was found before the limit).
    - ``all``: enumerate up to ``max_solutions``; UNIQUE or MULTIPLE with all found solutions
      in the certificate, and whether the enumeration is complete.

    One clock bounds it all: ``deadline`` (the task's :class:`Deadline`; None: no limit).
    The cut loop, the blocking re-solves of ``unique`` and
    ``all`` and the rule check of each solution (done as it is found) all run against it, so
    that an enumeration cut short by the limit is UNKNOWN with what it found and checked.
    ``solver`` (name, version) names the back end in an answer given before it is built.

    ``known``: a solution already in hand (a generator's own layout). It is rule-checked (a
    ValueError says what it breaks) and blocked before the search, so that ``unique`` asks
    one question (is there another?); it is the first solution of the answer.

    A proof in hand is an answer whatever the clock says: the master's UNSAT ends the search
    as UNIQUE (or a complete enumeration, or INFEASIBLE) even when the deadline passed as it
    was found or right after.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}")
    clock = deadline or Deadline(None)
    first = None
    if known is not None:
        first = counts_of(puzzle, known)
        broken = check_solution(puzzle, counts_to_lines(puzzle, first))
        if broken:
            raise ValueError(f"the known solution breaks the rules: {broken[0].message}")
    run = _Run(puzzle, mode, max_solutions, clock, params, seed, on_round, first)
    return run.result(make_backend, solver)


class _Run:
    """One answer to one mode: the steps of :func:`solve_with`, each named."""

    def __init__(self, puzzle: Puzzle, mode: str, max_solutions: int, deadline: Deadline,
                 params: dict | None, seed: int | None,
                 on_round: Callable[[int, int], None] | None,
                 known: list[int] | None = None) -> None:
        self.start = time.monotonic()
        self.puzzle = puzzle
        self.mode = mode
        self.deadline = deadline
        self.seed = seed
        self.on_round = on_round
        self.params = dict(params or {})
        self.params.update({"mode": mode, "time_limit": deadline.limit})
        if mode == "all":
            self.params["max_solutions"] = max_solutions
        self.known = known
        if known is not None:
            self.params["known"] = True
        self.want = {"solve": 1, "unique": 2, "all": max(1, max_solutions)}[mode]
        self.rounds = self.cuts = 0
        self.solutions: list[list[int]] = []
        self.lines: list[list[BridgeLine]] = []
        self.violations: list[dict] = []
        self.limit_hit = False

    def result(self, make_backend: Callable[[Puzzle], HashiBackend],
               solver: tuple[str, str]) -> Result:
        reasons = impossibility_reasons(self.puzzle)
        if reasons:
            return Result("hashi", Status.INFEASIBLE, None, {"reasons": reasons},
                          solver="rules", params=self.params, seed=self.seed,
                          wall_time=time.monotonic() - self.start, instance=self.puzzle.name)
        try:
            backend = make_backend(self.puzzle)
        except OutOfTime:
            return Result("hashi", Status.UNKNOWN, None,
                          {"note": f"{self.limit_words()} ran out while the model was built",
                           "limit": self.limit_label()},
                          solver=solver[0], solver_version=solver[1], params=self.params,
                          seed=self.seed,
                          wall_time=time.monotonic() - self.start, instance=self.puzzle.name)
        self.collect(backend)
        status, certificate = self.verdict(backend.name)
        check = {"ok": not self.violations, "violations": self.violations,
                 "checked": len(self.lines),
                 "by": "puzzleproof.models.hashi.check_solution"} if self.lines else None
        return Result("hashi", status, self.lines[0] if self.lines else None, certificate,
                      solver=backend.name, solver_version=backend.version, params=self.params,
                      seed=self.seed, wall_time=time.monotonic() - self.start,
                      stats={"cut_rounds": self.rounds, "cuts": self.cuts, **backend.stats()},
                      check=check, instance=self.puzzle.name)

    def collect(self, backend: HashiBackend) -> None:
        """Run the cut loop until ``want`` solutions, no more, or the deadline; block each
        solution found (the known one first) and rule-check it at once (the check runs on
        the same clock). The loop asks the master even past the deadline, so that a proof
        already in hand (a blocking clause or a cut that left nothing) is not lost."""
        if self.known is not None:
            self.keep(list(self.known))
            if len(self.solutions) < self.want:
                backend.block(self.known)
        while len(self.solutions) < self.want:
            out = lazy_cut_loop(backend, lambda cnt: separate(self.puzzle, cnt),
                                self.deadline, self.count_round)
            self.rounds += out.rounds
            self.cuts += out.cuts
            if out.status == LIMIT:
                self.limit_hit = True
                return
            if out.status == UNSAT:
                return
            assert out.status == SAT and out.assignment is not None
            self.keep(list(out.assignment))
            if len(self.solutions) < self.want:
                backend.block(out.assignment)

    def count_round(self, r: int, c: int) -> None:
        if self.on_round:
            self.on_round(self.rounds + r, self.cuts + c)

    def keep(self, counts: list[int]) -> None:
        lines = counts_to_lines(self.puzzle, counts)
        self.solutions.append(counts)
        self.lines.append(lines)
        self.violations.extend(v.to_dict() for v in check_solution(self.puzzle, lines))

    def verdict(self, name: str) -> tuple[Status, dict | None]:
        """The status the search earned, and the certificate that says why."""
        if not self.solutions:
            if self.limit_hit:
                return Status.UNKNOWN, {"note": f"{self.limit_words()} ran out after "
                                                f"{plural_rounds(self.rounds)}",
                                        "limit": self.limit_label()}
            return Status.INFEASIBLE, {"proof": f"{name}: no connected solution after "
                                                f"{self.rounds} cut rounds and {self.cuts} cuts"}
        if self.mode == "solve":
            return Status.SOLVED, None
        if self.limit_hit:
            return Status.UNKNOWN, self.unsettled()
        complete = len(self.solutions) < self.want  # the master ran out before the cap
        if len(self.solutions) >= 2:
            status = Status.MULTIPLE
        else:
            status = Status.UNIQUE if complete else Status.SOLVED
        if self.mode == "unique":
            return status, ({"second": self.lines[1]} if status is Status.MULTIPLE else
                            {"proof": f"{name}: no other connected solution after blocking "
                                      f"the {'given' if self.known else 'first'} "
                                      f"({self.rounds} cut rounds)"})
        certificate = {"count": len(self.solutions), "complete": complete,
                       "solutions": self.lines}
        if status is Status.UNIQUE:
            certificate["proof"] = f"{name}: enumeration complete"
        return status, certificate

    def unsettled(self) -> dict:
        """The certificate of an UNKNOWN that found solutions before the limit."""
        question = "uniqueness" if self.mode == "unique" else "enumeration"
        certificate = {"note": f"{len(self.solutions)} solution(s) found and checked; the "
                               f"{self.limit_words()} ran out after "
                               f"{plural_rounds(self.rounds)} before the {question} question "
                               "was settled",
                       "solutions_found": len(self.solutions), "limit": self.limit_label()}
        if self.mode == "all":
            certificate["solutions"] = self.lines
        return certificate

    def limit_words(self) -> str:
        return which_limit(self.deadline, self.params)

    def limit_label(self) -> str:
        return limit_name(self.deadline, self.params)
