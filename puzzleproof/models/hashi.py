"""Hashiwokakero: what a puzzle is, and the rules as plain Python.

Islands sit on a ``width`` x ``height`` grid at ``(x, y)`` (x = column, y = row, both from
0). Bridges run straight between two islands, cross no other bridge and no island, at most
``max_bridges`` join a pair, every island with a clue has exactly its clue in bridges, and all
islands form one connected group. Islands in adjacent cells may be joined (a bridge of length
zero). An island's clue may be ``None`` (puzz.link's ``.``: a clue not given), in which case
any positive number of bridges fits it.

This module imports no solver. :func:`check_solution` is the judge of every answer any
solver gives: it recomputes the geometry from raw coordinates and shares nothing with the
encoders beyond the :class:`Puzzle` itself.

Example:
    >>> p = Puzzle.from_rows(["2.2", "...", "..."])
    >>> [(b.a, b.b) for b in p.candidates]
    [(0, 1)]
    >>> check_solution(p, [(0, 0, 2, 0, 2)])
    []
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from typing import Sequence

from puzzleproof.errors import InputError

__all__ = [
    "MAX_BRIDGES_LIMIT",
    "Island",
    "Bridge",
    "Puzzle",
    "BridgeLine",
    "Violation",
    "GEOMETRY_KINDS",
    "check_solution",
    "counts_to_lines",
    "impossibility_reasons",
]

#: Tatham's Bridges allows up to 4 bridges between a pair; Hashi and CodinGame use 2.
MAX_BRIDGES_LIMIT = 4

#: A bridge as users write it: ``(x1, y1, x2, y2, n)``.
BridgeLine = tuple[int, int, int, int, int]


@dataclass(frozen=True)
class Island:
    x: int
    y: int
    clue: int | None


@dataclass(frozen=True)
class Bridge:
    """A candidate bridge between islands ``a < b`` (indices into ``Puzzle.islands``).

    ``cells`` are the water cells it passes over (empty for adjacent islands).
    """

    a: int
    b: int
    horizontal: bool
    cells: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Puzzle:
    """A Hashiwokakero puzzle.

    Args:
        width, height: grid size in cells.
        islands: the islands; stored sorted row by row (y, then x).
        max_bridges: most bridges allowed between one pair (1 to 4; 2 in standard Hashi).
        name: an optional label (file name, record id) carried for reports.
    """

    width: int
    height: int
    islands: tuple[Island, ...]
    max_bridges: int = 2
    name: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.width < 1 or self.height < 1:
            raise InputError(f"grid size must be at least 1x1, found {self.width}x{self.height}")
        if not 1 <= self.max_bridges <= MAX_BRIDGES_LIMIT:
            raise InputError(f"max bridges per pair must be 1 to {MAX_BRIDGES_LIMIT}, "
                             f"found {self.max_bridges}")
        ordered = tuple(sorted(self.islands, key=lambda i: (i.y, i.x)))
        object.__setattr__(self, "islands", ordered)
        seen: set[tuple[int, int]] = set()
        top = self.max_clue
        for isl in ordered:
            if not (0 <= isl.x < self.width and 0 <= isl.y < self.height):
                raise InputError(f"island at ({isl.x}, {isl.y}) lies outside the "
                                 f"{self.width}x{self.height} grid")
            if (isl.x, isl.y) in seen:
                raise InputError(f"two islands at ({isl.x}, {isl.y})")
            seen.add((isl.x, isl.y))
            if isl.clue is not None and not 1 <= isl.clue <= top:
                raise InputError(f"clue of island at ({isl.x}, {isl.y}) must be 1 to {top} "
                                 f"(max bridges {self.max_bridges}), found {isl.clue}")

    # -- construction helpers -------------------------------------------------------------
    @classmethod
    def from_rows(cls, rows: Sequence[str], max_bridges: int = 2,
                  name: str | None = None) -> "Puzzle":
        """Build from rows of ``.`` (water), ``1``-``9``, ``A``-``G`` (10-16), ``?`` (no clue)."""
        if not rows:
            raise InputError("a puzzle needs at least one row")
        width = len(rows[0])
        islands = []
        for y, row in enumerate(rows):
            if len(row) != width:
                raise InputError(f"row {y + 1} has {len(row)} cells, expected {width}")
            for x, ch in enumerate(row):
                if ch == ".":
                    continue
                islands.append(Island(x, y, clue_from_char(ch)))
        return cls(width, len(rows), tuple(islands), max_bridges, name)

    def to_rows(self) -> list[str]:
        grid = [["."] * self.width for _ in range(self.height)]
        for isl in self.islands:
            grid[isl.y][isl.x] = clue_to_char(isl.clue)
        return ["".join(r) for r in grid]

    # -- derived structure ----------------------------------------------------------------
    @property
    def max_clue(self) -> int:
        return 4 * self.max_bridges

    @cached_property
    def index(self) -> dict[tuple[int, int], int]:
        """Island index by ``(x, y)``."""
        return {(isl.x, isl.y): i for i, isl in enumerate(self.islands)}

    @cached_property
    def candidates(self) -> tuple[Bridge, ...]:
        """Every pair of islands that a bridge could join: nearest island right and below."""
        out = []
        for i, isl in enumerate(self.islands):
            for dx, dy in ((1, 0), (0, 1)):
                x, y = isl.x + dx, isl.y + dy
                cells = []
                while 0 <= x < self.width and 0 <= y < self.height:
                    j = self.index.get((x, y))
                    if j is not None:
                        out.append(Bridge(i, j, dy == 0, tuple(cells)))
                        break
                    cells.append((x, y))
                    x, y = x + dx, y + dy
        return tuple(out)

    @cached_property
    def incident(self) -> tuple[tuple[int, ...], ...]:
        """For each island, the indices of the candidate bridges touching it."""
        inc: list[list[int]] = [[] for _ in self.islands]
        for k, br in enumerate(self.candidates):
            inc[br.a].append(k)
            inc[br.b].append(k)
        return tuple(tuple(v) for v in inc)

    @cached_property
    def crossings(self) -> tuple[tuple[int, int], ...]:
        """Pairs ``(h, v)`` of candidate indices (horizontal, vertical) that cross."""
        horiz_at: dict[tuple[int, int], int] = {}
        for k, br in enumerate(self.candidates):
            if br.horizontal:
                for c in br.cells:
                    horiz_at[c] = k
        out = []
        for k, br in enumerate(self.candidates):
            if not br.horizontal:
                for c in br.cells:
                    h = horiz_at.get(c)
                    if h is not None:
                        out.append((h, k))
        return tuple(out)

    def bridge_line(self, k: int, n: int) -> BridgeLine:
        br = self.candidates[k]
        a, b = self.islands[br.a], self.islands[br.b]
        return (a.x, a.y, b.x, b.y, n)


def clue_from_char(ch: str) -> int | None:
    """``1``-``9`` -> 1-9, ``A``-``G`` -> 10-16, ``?`` -> no clue; anything else raises."""
    if ch == "?":
        return None
    if len(ch) == 1 and ch in "0123456789":  # ASCII only: not '²' nor Arabic-Indic digits
        return int(ch)
    if len(ch) == 1 and "A" <= ch <= "G":
        return 10 + ord(ch) - ord("A")
    raise InputError(f"expected '.', a clue 1-9 or A-G, or '?', found {ch!r}")


def clue_to_char(clue: int | None) -> str:
    if clue is None:
        return "?"
    return str(clue) if clue < 10 else chr(ord("A") + clue - 10)


# -- solutions ----------------------------------------------------------------------------

def counts_to_lines(puzzle: Puzzle, counts: Sequence[int]) -> list[BridgeLine]:
    """Turn one count per candidate bridge into ``(x1, y1, x2, y2, n)`` lines (n > 0 only)."""
    return [puzzle.bridge_line(k, n) for k, n in enumerate(counts) if n > 0]


@dataclass(frozen=True)
class Violation:
    """One broken rule.

    ``kind`` is one of ``not-island``, ``same-island``, ``not-straight``, ``through-island``,
    ``count``, ``too-many``, ``crossing``, ``clue``, ``disconnected``. ``line`` is the 0-based
    index of the offending bridge line in the input, when one line is to blame; ``island`` the
    island concerned, when one is.
    """

    kind: str
    message: str
    line: int | None = None
    island: tuple[int, int] | None = None

    def to_dict(self) -> dict:
        return {"kind": self.kind, "message": self.message, "line": self.line,
                "island": list(self.island) if self.island else None}


#: Violations that make a line meaningless as a bridge (bad input rather than a wrong answer).
GEOMETRY_KINDS = frozenset({"not-island", "same-island", "not-straight", "through-island",
                            "count"})


def check_solution(puzzle: Puzzle, lines: Sequence[BridgeLine]) -> list[Violation]:
    """Check bridge lines against every rule; return every violation found (empty = solved).

    Recomputes each bridge's cells from its end points, so it trusts nothing an encoder built.
    The violations come in this order: each line's own (in line order), pairs joined by too
    many bridges, crossings (by cell), clues (island by island, row by row), disconnection.
    """
    layout = _Layout(puzzle)
    for ln, line in enumerate(lines):
        layout.place(ln, line)
    return (layout.out + layout.too_many() + layout.crossings() + layout.clues()
            + layout.disconnection())


class _Layout:
    """The bridges of an answer laid on the grid, one line at a time, and the rules that
    need all of them (the steps of :func:`check_solution`)."""

    def __init__(self, puzzle: Puzzle) -> None:
        self.puzzle = puzzle
        self.islands = {(isl.x, isl.y): isl for isl in puzzle.islands}
        self.out: list[Violation] = []
        self.pair_total: dict[tuple[tuple[int, int], tuple[int, int]], int] = defaultdict(int)
        self.pair_first_line: dict[tuple[tuple[int, int], tuple[int, int]], int] = {}
        # cell -> (orientation, pair, line) of the bridges passing over it
        self.over: dict[tuple[int, int], list[tuple[bool, tuple, int]]] = defaultdict(list)

    def place(self, ln: int, line: BridgeLine) -> None:
        """Check one line's own geometry; when it is a real bridge, lay it down."""
        x1, y1, x2, y2, n = line
        p, q = (x1, y1), (x2, y2)
        if self._malformed(ln, p, q, n):
            return
        horizontal = y1 == y2
        lo, hi = min(p, q), max(p, q)
        cells = ([(x, y1) for x in range(lo[0] + 1, hi[0])] if horizontal
                 else [(x1, y) for y in range(lo[1] + 1, hi[1])])
        blocked = [c for c in cells if c in self.islands]
        if blocked:
            self.out.append(Violation("through-island", f"bridge ({x1}, {y1})-({x2}, {y2}) "
                                      f"passes over the island at ({blocked[0][0]}, "
                                      f"{blocked[0][1]})", ln))
            return
        pair = (lo, hi)
        self.pair_total[pair] += n
        self.pair_first_line.setdefault(pair, ln)
        if self.pair_total[pair] - n == 0:
            for c in cells:
                self.over[c].append((horizontal, pair, ln))

    def _malformed(self, ln: int, p: tuple[int, int], q: tuple[int, int], n) -> bool:
        """Record what makes line ``ln`` no bridge at all; True when something does."""
        puzzle, bad = self.puzzle, False
        for end in (p, q):
            if end not in self.islands:
                what = ("outside the grid" if not (0 <= end[0] < puzzle.width
                                                   and 0 <= end[1] < puzzle.height)
                        else "on water")
                self.out.append(Violation("not-island", f"bridge end ({end[0]}, {end[1]}) is "
                                          f"{what}, expected an island", ln))
                bad = True
        if p == q:
            self.out.append(Violation("same-island", f"bridge joins island ({p[0]}, {p[1]}) "
                                      "to itself", ln))
            bad = True
        elif p[0] != q[0] and p[1] != q[1]:
            self.out.append(Violation("not-straight", f"bridge ({p[0]}, {p[1]})-({q[0]}, "
                                      f"{q[1]}) is neither horizontal nor vertical", ln))
            bad = True
        if not isinstance(n, int) or not 1 <= n <= puzzle.max_bridges:
            self.out.append(Violation("count", f"bridge ({p[0]}, {p[1]})-({q[0]}, {q[1]}) has "
                                      f"{n} bridges, expected 1 to {puzzle.max_bridges}", ln))
            bad = True
        return bad

    def too_many(self) -> list[Violation]:
        top = self.puzzle.max_bridges
        return [Violation("too-many", f"{total} bridges join ({ax}, {ay}) and ({bx}, {by}), "
                          f"at most {top} allowed", self.pair_first_line[pair])
                for pair, total in self.pair_total.items() if total > top
                for (ax, ay), (bx, by) in [pair]]

    def crossings(self) -> list[Violation]:
        out, reported = [], set()
        for cell, uses in sorted(self.over.items()):
            hs = [u for u in uses if u[0]]
            vs = [u for u in uses if not u[0]]
            for _, hp, hl in hs:
                for _, vp, vl in vs:
                    if (hp, vp) in reported:
                        continue
                    reported.add((hp, vp))
                    out.append(Violation("crossing", f"bridges {_pair_str(hp)} and "
                                         f"{_pair_str(vp)} cross at ({cell[0]}, {cell[1]})", vl))
        return out

    def _degrees(self) -> dict[tuple[int, int], int]:
        degree: dict[tuple[int, int], int] = defaultdict(int)
        for (a, b), total in self.pair_total.items():
            degree[a] += total
            degree[b] += total
        return degree

    def clues(self) -> list[Violation]:
        out, degree = [], self._degrees()
        for pos, isl in sorted(self.islands.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            if isl.clue is not None and degree[pos] != isl.clue:
                out.append(Violation("clue", f"island ({pos[0]}, {pos[1]}) has {degree[pos]} "
                                     f"bridges, its clue is {isl.clue}", island=pos))
            elif isl.clue is None and degree[pos] == 0 and len(self.islands) > 1:
                out.append(Violation("clue", f"island ({pos[0]}, {pos[1]}) has no bridge",
                                     island=pos))
        return out

    def disconnection(self) -> list[Violation]:
        if not self.islands:
            return []
        adj: dict[tuple[int, int], list[tuple[int, int]]] = defaultdict(list)
        for a, b in self.pair_total:
            adj[a].append(b)
            adj[b].append(a)
        groups = _components(list(self.islands), adj)
        if len(groups) <= 1:
            return []
        sizes = sorted((len(g) for g in groups), reverse=True)
        firsts = [min(g, key=lambda c: (c[1], c[0])) for g in groups[:4]]
        reps = ", ".join(f"({x}, {y})" for x, y in firsts)
        return [Violation("disconnected", f"islands form {len(groups)} separate groups "
                          f"(sizes {sizes[:6]}{'...' if len(sizes) > 6 else ''}; "
                          f"groups containing {reps}{'...' if len(groups) > 4 else ''})")]


def _pair_str(pair: tuple) -> str:
    (ax, ay), (bx, by) = pair
    return f"({ax}, {ay})-({bx}, {by})"


def _components(nodes: list, adj: dict) -> list[list]:
    seen: set = set()
    groups = []
    for start in nodes:
        if start in seen:
            continue
        seen.add(start)
        stack, group = [start], []
        while stack:
            u = stack.pop()
            group.append(u)
            for v in adj.get(u, ()):
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        groups.append(group)
    return groups


def impossibility_reasons(puzzle: Puzzle) -> list[str]:
    """Reasons, visible without search, why the puzzle has no solution (empty if none found).

    Each reason names the island concerned. These are quick proofs; a puzzle with no reason
    here may still be impossible, which only a solver can prove.
    """
    reasons = []
    n = len(puzzle.islands)
    if n == 0:
        return ["the puzzle has no island"]
    if n == 1:
        isl = puzzle.islands[0]
        return [f"the only island ({isl.x}, {isl.y}) cannot have any bridge"]
    for i, isl in enumerate(puzzle.islands):
        room = puzzle.max_bridges * len(puzzle.incident[i])
        if not puzzle.incident[i]:
            reasons.append(f"island ({isl.x}, {isl.y}) has no island in line of sight, so it "
                           "cannot be connected")
        elif isl.clue is not None and isl.clue > room:
            reasons.append(f"island ({isl.x}, {isl.y}) has clue {isl.clue} but its "
                           f"{len(puzzle.incident[i])} neighbour(s) can take at most {room}")
    if all(i.clue is not None for i in puzzle.islands):
        total = sum(i.clue for i in puzzle.islands)  # type: ignore[misc]
        if total % 2:
            reasons.append(f"the clues add up to {total}, an odd number, but every bridge "
                           "counts at both of its ends")
        elif total // 2 < n - 1:
            reasons.append(f"the clues allow {total // 2} bridges, too few to connect "
                           f"{n} islands")
    return reasons
