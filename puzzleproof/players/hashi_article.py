"""The article's Hashi solver: intersection search plus elimination search.

A faithful port of the solver described in ``../shared/seeds/hashi-tins-ep2-article.txt``
(CodinGame "There Is No Spoon – Episode 2"), in this project's own code. It is what the exact
back ends are cross-checked against, and what the generator measures difficulty with.

State (the article's *Node* and *Grid*): for each island its clue ("power") and what is left
of it, its neighbour in each of the four directions (or none), and the bridges drawn on each
candidate pair. Helpers:

- ``valid``: no island whose remaining clue exceeds what its open directions can still take
  (the article's "5 with four saturated 1s" example), and no island *isolated*. Reading of
  "isolated" (the article shows ``2 = 2``): a group of islands joined by drawn bridges, all of
  whose members are saturated, while other islands exist. Such a group can never be joined to
  the rest.
- ``draw``: add bridges on a pair, update both islands, and the first time a pair is used, cut
  every candidate pair that would cross it (the article's "neighbour becomes -1").
- ``clone`` / ``revert``: states are copied before an assumption and dropped on contradiction.

**Intersection search.** For an island with remaining clue ``N``, let ``p_d`` be the most
bridges that can still be added in direction ``d`` (the pair's room below the maximum, the
neighbour's remaining clue, zero when the pair is cut) and ``S`` the sum of ``p_d``. Then
``magicVal = N - S + p_d``; when it is positive, that many more bridges are sure in direction
``d``. (The article's "S" text says "the maximum between this neighbour's power and 2", where
it means the smaller, as its own examples show; we take the smaller, and count bridges already
drawn, so the rule applies after draws too.) Run over every island and direction until nothing
changes, checking ``valid`` after each pass.

**Elimination search.** When no sure bridge is left and the grid is not solved: assume one
more bridge on a pair (reading: the first unsaturated island in row-major order, its first open
direction in the order right, down, left, up), clone, rerun the intersection search and recurse.
If that branch fails, revert and record the assumption as wrong (the article's "anti-draw":
no more bridges may be added on that pair in this state), then go on with the intersection
search. A state fails when it becomes invalid or no assumption is left. The search is complete,
so "no solution" from it is a claim the cross-check can test; a time or node limit gives
UNKNOWN. Every solution is re-checked by :func:`puzzleproof.models.hashi.check_solution`.

Effort reported: sure bridges placed (by the intersection search), assumptions made, wrong
assumptions reverted, maximum assumption depth, intersection passes, time.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from puzzleproof.clock import Deadline
from puzzleproof.models.hashi import Puzzle, check_solution, counts_to_lines
from puzzleproof.result import Result, Status

__all__ = ["solve", "Effort", "NAME"]

NAME = "article"
VERSION = "tins-ep2 article, puzzleproof port 1"

# direction order: right, down, left, up
_DIRS = ((1, 0), (0, 1), (-1, 0), (0, -1))


@dataclass
class Effort:
    sure_bridges: int = 0
    assumptions: int = 0
    wrong_assumptions: int = 0
    max_depth: int = 0
    intersection_passes: int = 0
    nodes: int = 0  # states explored (assumptions + the root)


class _Limit(Exception):
    pass


class _Grid:
    """Mutable search state. ``count[e]`` bridges drawn on candidate ``e``; ``cap[e]`` the most
    it may still reach (lowered by crossings and wrong assumptions); ``left[i]`` island i's
    remaining clue (``None`` for a hidden clue)."""

    __slots__ = ("count", "cap", "left", "static")

    def __init__(self, static: "_Static") -> None:
        self.static = static
        self.count = [0] * len(static.ends)
        self.cap = [static.m] * len(static.ends)
        self.left = list(static.clue)

    def clone(self) -> "_Grid":
        g = _Grid.__new__(_Grid)
        g.static = self.static
        g.count = self.count[:]
        g.cap = self.cap[:]
        g.left = self.left[:]
        return g

    def room(self, e: int, i: int) -> int:
        """Most bridges that can still be added on candidate ``e`` seen from island ``i``."""
        r = self.cap[e] - self.count[e]
        if r <= 0:
            return 0
        a, b = self.static.ends[e]
        j = b if a == i else a
        for k in (i, j):
            lk = self.left[k]
            if lk is not None and lk < r:
                r = lk
        return max(r, 0)

    def draw(self, e: int, k: int) -> None:
        st = self.static
        first = self.count[e] == 0
        self.count[e] += k
        a, b = st.ends[e]
        for i in (a, b):
            if self.left[i] is not None:
                self.left[i] -= k
        if first:
            for f in st.crossing[e]:
                self.cap[f] = min(self.cap[f], self.count[f])

    def valid(self) -> bool:
        st = self.static
        for i in range(st.n):
            need = self.left[i]
            if need is None:
                continue
            if need < 0:
                return False
            if need > 0 and sum(self.room(e, i) for e in st.dirs[i] if e is not None) < need:
                return False
        # isolated groups: joined by drawn bridges, none of their islands can take more
        group = self._groups()
        roots = set(group)
        if len(roots) > 1:
            open_roots = {group[i] for i in range(st.n) if self._can_grow(i)}
            if roots - open_roots:
                return False
        return True

    def _groups(self) -> list[int]:
        """For each island, a representative of its group of islands joined by drawn bridges."""
        parent = list(range(self.static.n))

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for e, c in enumerate(self.count):
            if c:
                a, b = self.static.ends[e]
                parent[find(a)] = find(b)
        return [find(i) for i in range(self.static.n)]

    def _can_grow(self, i: int) -> bool:
        left = self.left[i]
        if left is not None:
            return left > 0
        return any(self.room(e, i) > 0 for e in self.static.dirs[i] if e is not None)

    def solved(self) -> bool:
        st = self.static
        if any(v is not None and v != 0 for v in self.left):
            return False
        if any(self.left[i] is None and not any(self.count[e] for e in st.dirs[i] if e is not None)
               for i in range(st.n)):
            return False
        return len(set(self._groups())) == 1


class _Static:
    """What does not change during the search."""

    def __init__(self, puzzle: Puzzle) -> None:
        self.n = len(puzzle.islands)
        self.m = puzzle.max_bridges
        self.ends = [(b.a, b.b) for b in puzzle.candidates]
        self.clue = [i.clue for i in puzzle.islands]
        self.dirs: list[list[int | None]] = [[None] * 4 for _ in range(self.n)]
        for e, br in enumerate(puzzle.candidates):
            if br.horizontal:
                self.dirs[br.a][0], self.dirs[br.b][2] = e, e
            else:
                self.dirs[br.a][1], self.dirs[br.b][3] = e, e
        self.crossing: list[list[int]] = [[] for _ in self.ends]
        for h, v in puzzle.crossings:
            self.crossing[h].append(v)
            self.crossing[v].append(h)


class _Search:
    def __init__(self, puzzle: Puzzle, deadline: float | None, max_nodes: int | None) -> None:
        self.static = _Static(puzzle)
        self.deadline = deadline
        self.max_nodes = max_nodes
        self.effort = Effort()

    def _tick(self) -> None:
        self.effort.nodes += 1
        if self.max_nodes is not None and self.effort.nodes > self.max_nodes:
            raise _Limit("node-budget")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _Limit("time-limit")

    def intersection(self, g: _Grid, count_sure: bool) -> bool:
        """Place sure bridges to a fixpoint; False when the grid becomes invalid."""
        st = self.static
        changed = True
        while changed:
            changed = False
            self.effort.intersection_passes += 1
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise _Limit("time-limit")
            for i in range(st.n):
                need = g.left[i]
                if not need:  # saturated, or a hidden clue (no sure count)
                    continue
                rooms = [(e, g.room(e, i)) for e in st.dirs[i] if e is not None]
                total = sum(r for _, r in rooms)
                if total < need:
                    return False
                for e, p in rooms:
                    magic = need - total + p
                    if magic > 0:
                        g.draw(e, magic)
                        if count_sure:
                            self.effort.sure_bridges += magic
                        changed = True
                        break  # the island's numbers changed: recompute them
            if not g.valid():
                return False
        return True

    def elimination(self, g: _Grid, depth: int) -> _Grid | None:
        """Solve from ``g`` (already through the intersection search); None if no solution."""
        st = self.static
        self.effort.max_depth = max(self.effort.max_depth, depth)
        while True:
            if g.solved():
                return g
            choice = None
            for i in range(st.n):
                if g.left[i] == 0:
                    continue
                for e in st.dirs[i]:
                    if e is not None and g.room(e, i) > 0:
                        choice = e
                        break
                if choice is not None:
                    break
            if choice is None:
                return None  # nothing left to assume and not solved
            self._tick()
            self.effort.assumptions += 1
            trial = g.clone()
            trial.draw(choice, 1)
            if trial.valid() and self.intersection(trial, count_sure=True):
                found = self.elimination(trial, depth + 1)
                if found is not None:
                    return found
            # revert and anti-draw: no more bridges on this pair in this state
            self.effort.wrong_assumptions += 1
            g.cap[choice] = g.count[choice]
            if not (g.valid() and self.intersection(g, count_sure=True)):
                return None


def solve(puzzle: Puzzle, *, deadline: Deadline | None = None, max_nodes: int | None = None,
          mode: str = "solve") -> Result:
    """Run the article's solver within ``deadline`` (None: no limit). Status SOLVED,
    INFEASIBLE (its complete search found nothing: a claim, for the cross-check to test) or
    UNKNOWN (a limit ran out)."""
    if mode != "solve":
        raise ValueError("the article's solver answers only 'solve' (it cannot prove uniqueness)")
    start = time.monotonic()
    clock = deadline or Deadline(None)
    search = _Search(puzzle, clock.at, max_nodes)
    params = {"time_limit": clock.limit, "max_nodes": max_nodes}
    answer = None
    status = Status.UNKNOWN
    try:
        search._tick()
        root = _Grid(search.static)
        ok = len(puzzle.islands) > 1 and root.valid() and search.intersection(root, True)
        found = search.elimination(root, 0) if ok else None
        if found is not None:
            answer = counts_to_lines(puzzle, found.count)
            status = Status.SOLVED
        else:
            status = Status.INFEASIBLE
    except _Limit as exc:
        status = Status.UNKNOWN
        limit = exc.args[0] if exc.args else "limit"
    check = None
    if answer is not None:
        violations = [v.to_dict() for v in check_solution(puzzle, answer)]
        check = {"ok": not violations, "violations": violations, "checked": 1,
                 "by": "puzzleproof.models.hashi.check_solution"}
    e = search.effort
    stats = {"sure_bridges": e.sure_bridges, "assumptions": e.assumptions,
             "wrong_assumptions": e.wrong_assumptions, "max_depth": e.max_depth,
             "intersection_passes": e.intersection_passes, "nodes": e.nodes}
    cert = None
    if status is Status.INFEASIBLE:
        cert = {"claim": "the elimination search found no solution (not a proof by the rules; "
                         "cross-check it)"}
    elif status is Status.UNKNOWN:
        which = (f"node budget ({max_nodes})" if limit == "node-budget" else
                 f"time limit ({clock.limit:g} s)" if limit == "time-limit" else "limit")
        cert = {"note": f"{which} ran out after {e.assumptions} assumptions", "limit": limit}
    return Result("hashi", status, answer, cert, solver=NAME, solver_version=VERSION,
                  params=params, wall_time=time.monotonic() - start, stats=stats, check=check,
                  instance=puzzle.name)
