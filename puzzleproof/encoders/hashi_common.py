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

from puzzleproof.encoders.cuts import LIMIT, SAT, UNSAT, lazy_cut_loop
from puzzleproof.models.hashi import Puzzle, check_solution, counts_to_lines, impossibility_reasons
from puzzleproof.result import Result, Status, limit_name, which_limit

__all__ = ["HashiBackend", "upper_bounds", "separate", "blocking_clause", "solve_with", "MODES"]

MODES = ("solve", "unique", "all")


class HashiBackend(Protocol):
    """An exact Hashi back end: a master problem for :func:`lazy_cut_loop`, plus blocking."""

    name: str
    version: str

    def solve(self, deadline: float | None) -> tuple[str, list[int] | None]: ...

    def add_cuts(self, cuts: Sequence[tuple[int, ...]]) -> None:
        """Each cut is a tuple of candidate indices of which at least one must be used."""

    def block(self, counts: Sequence[int]) -> None:
        """Forbid exactly this bridge-count vector."""

    def stats(self) -> dict: ...


def upper_bounds(puzzle: Puzzle) -> list[int]:
    """Most bridges each candidate can carry in any solution (see the module docstring)."""
    many = len(puzzle.islands) > 2
    out = []
    for br in puzzle.candidates:
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


def plural_rounds(n: int) -> str:
    return f"{n} cut round" + ("" if n == 1 else "s")


def solve_with(puzzle: Puzzle, make_backend: Callable[[Puzzle], HashiBackend], *,
               mode: str = "solve", max_solutions: int = 2, time_limit: float | None = None,
               params: dict | None = None, seed: int | None = None,
               on_round: Callable[[int, int], None] | None = None) -> Result:
    """Answer ``mode`` for ``puzzle`` with a back end; every solution is rule-checked.

    - ``solve``: SOLVED with a solution, INFEASIBLE, or UNKNOWN.
    - ``unique``: UNIQUE, MULTIPLE (two solutions), INFEASIBLE, or UNKNOWN (with the first
      solution, if one was found before the limit).
    - ``all``: enumerate up to ``max_solutions``; UNIQUE or MULTIPLE with all found solutions
      in the certificate, and whether the enumeration is complete.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}")
    start = time.monotonic()
    deadline = start + time_limit if time_limit is not None else None
    params = dict(params or {})
    params.update({"mode": mode, "time_limit": time_limit})
    if mode == "all":
        params["max_solutions"] = max_solutions

    reasons = impossibility_reasons(puzzle)
    if reasons:
        return Result("hashi", Status.INFEASIBLE, None, {"reasons": reasons},
                      solver="rules", params=params, seed=seed,
                      wall_time=time.monotonic() - start, instance=puzzle.name)

    backend = make_backend(puzzle)
    rounds = cuts = 0
    solutions: list[list[int]] = []
    limit_hit = False
    want = {"solve": 1, "unique": 2, "all": max(1, max_solutions)}[mode]

    def count_round(r: int, c: int) -> None:
        if on_round:
            on_round(rounds + r, cuts + c)

    while len(solutions) < want:
        out = lazy_cut_loop(backend, lambda cnt: separate(puzzle, cnt), deadline, count_round)
        rounds += out.rounds
        cuts += out.cuts
        if out.status == LIMIT:
            limit_hit = True
            break
        if out.status == UNSAT:
            break
        assert out.status == SAT and out.assignment is not None
        solutions.append(list(out.assignment))
        if len(solutions) < want:
            backend.block(out.assignment)

    lines = [counts_to_lines(puzzle, s) for s in solutions]
    violations = [v.to_dict() for sol in lines for v in check_solution(puzzle, sol)]
    check = {"ok": not violations, "violations": violations, "checked": len(lines),
             "by": "puzzleproof.models.hashi.check_solution"} if lines else None
    stats = {"cut_rounds": rounds, "cuts": cuts, **backend.stats()}

    certificate: dict | None = None
    if not solutions:
        status = Status.UNKNOWN if limit_hit else Status.INFEASIBLE
        if status is Status.INFEASIBLE:
            certificate = {"proof": f"{backend.name}: no connected solution after {rounds} "
                                    f"cut rounds and {cuts} cuts"}
        else:
            certificate = {"note": f"{which_limit(time_limit, deadline, params)} ran out "
                                   f"after {plural_rounds(rounds)}", "limit": limit_name(
                                       deadline, params)}
    elif mode == "solve":
        status = Status.SOLVED
    elif limit_hit:
        status = Status.UNKNOWN
        certificate = {"note": f"{len(solutions)} solution(s) found and checked; the "
                               f"{which_limit(time_limit, deadline, params)} ran out after "
                               f"{plural_rounds(rounds)} before the "
                               f"{'uniqueness' if mode == 'unique' else 'enumeration'} "
                               "question was settled",
                       "solutions_found": len(solutions),
                       "limit": limit_name(deadline, params)}
        if mode == "all":
            certificate["solutions"] = lines
    else:
        complete = len(solutions) < want  # the master ran out of solutions before the cap
        if len(solutions) >= 2:
            status = Status.MULTIPLE
        else:
            status = Status.UNIQUE if complete else Status.SOLVED
        if mode == "unique":
            certificate = ({"second": lines[1]} if status is Status.MULTIPLE else
                           {"proof": f"{backend.name}: no other connected solution after "
                                     f"blocking the first ({rounds} cut rounds)"})
        else:
            certificate = {"count": len(solutions), "complete": complete, "solutions": lines}
            if status is Status.UNIQUE:
                certificate["proof"] = f"{backend.name}: enumeration complete"
    return Result("hashi", status, lines[0] if lines else None, certificate,
                  solver=backend.name, solver_version=backend.version, params=params, seed=seed,
                  wall_time=time.monotonic() - start, stats=stats, check=check,
                  instance=puzzle.name)
