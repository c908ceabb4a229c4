"""The layout a generated Hashi puzzle is made from, and the moves that repair it.

A :class:`Network` is a connected set of islands and bridges on a grid: a solution. Its
puzzle gives each island its bridge count as clue (:meth:`Network.puzzle`), so the network
is always one solution of its own puzzle. When the exact solver finds another solution,
:func:`repair` changes the network where the two differ, so that the other solution breaks a
rule of the new puzzle while the network stays a solution of it:

- ``raise``: one more bridge on a pair the other solution uses more than the network (the
  two end clues go up by one: the other solution's counts there no longer add up);
- ``lower``: one bridge less on a pair the network uses more (the clues go down by one;
  never a pair whose removal would disconnect the network);
- ``split``: a new island on a cell a bridge of the other solution passes over (that bridge
  is no longer possible). When a bridge of the network crosses it there, the island is put
  into that bridge (``u - c - v``, clue twice the bridge's count: the clues of ``u`` and ``v``
  do not change); else the island is joined to the first island it sees over open water.

Each differing region of the two solutions (a group of pairs with islands in common) gets one
move, so one round answers every place where the puzzle was ambiguous. No move of a round
changes the clue of an island another move of it changed, so that every change stands: after
a round with a move, the other solution breaks a rule of the new puzzle.
"""

from __future__ import annotations

import random
from typing import Iterator, Sequence

from puzzleproof.clock import Deadline
from puzzleproof.models.hashi import Island, Puzzle

__all__ = ["Network", "grow", "repair", "MOVES", "OutOfTime"]


class OutOfTime(Exception):
    """The deadline passed while a network was grown (a 200 x 200 grid takes seconds)."""

Cell = tuple[int, int]
Pair = tuple[Cell, Cell]

#: the repair moves, in the order a differing pair tries them (shuffled per pair)
MOVES = ("raise", "lower", "split")

_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def _pair(a: Cell, b: Cell) -> Pair:
    return (a, b) if a < b else (b, a)


def _between(a: Cell, b: Cell) -> list[Cell]:
    """The cells strictly between two cells of one row or column."""
    (x1, y1), (x2, y2) = a, b
    if y1 == y2:
        lo, hi = sorted((x1, x2))
        return [(x, y1) for x in range(lo + 1, hi)]
    lo, hi = sorted((y1, y2))
    return [(x1, y) for y in range(lo + 1, hi)]


class Network:
    """Islands and bridges on a ``width`` x ``height`` grid (at most ``max_bridges`` a pair):
    ``bridges`` maps a pair of island cells (sorted) to its count, ``under`` a water cell to
    the pair whose bridge passes over it. Bridges never cross and never pass over an island.
    """

    def __init__(self, width: int, height: int, max_bridges: int) -> None:
        self.width, self.height, self.max_bridges = width, height, max_bridges
        self.islands: dict[Cell, None] = {}  # insertion-ordered: reproducible choices
        self.bridges: dict[Pair, int] = {}
        self.under: dict[Cell, Pair] = {}

    def inside(self, c: Cell) -> bool:
        return 0 <= c[0] < self.width and 0 <= c[1] < self.height

    def degree(self) -> dict[Cell, int]:
        deg = dict.fromkeys(self.islands, 0)
        for (a, b), n in self.bridges.items():
            deg[a] += n
            deg[b] += n
        return deg

    def add_bridge(self, a: Cell, b: Cell, n: int) -> None:
        """``n`` more bridges between islands ``a`` and ``b`` (the path must be free)."""
        key = _pair(a, b)
        if key not in self.bridges:
            for c in _between(a, b):
                self.under[c] = key
        self.bridges[key] = self.bridges.get(key, 0) + n

    def lower(self, key: Pair) -> None:
        """One bridge less on ``key``; the pair's water is free again when none is left."""
        self.bridges[key] -= 1
        if not self.bridges[key]:
            del self.bridges[key]
            for c in _between(*key):
                del self.under[c]

    def look(self, c: Cell, step: tuple[int, int]) -> Cell | None:
        """The first island seen from ``c`` towards ``step`` over water no bridge uses."""
        x, y = c[0] + step[0], c[1] + step[1]
        while self.inside((x, y)):
            if (x, y) in self.islands:
                return (x, y)
            if (x, y) in self.under:
                return None
            x, y = x + step[0], y + step[1]
        return None

    def puzzle(self, name: str | None = None) -> Puzzle:
        """The puzzle whose clues are this network's bridge counts."""
        deg = self.degree()
        return Puzzle(self.width, self.height,
                      tuple(Island(x, y, deg[(x, y)]) for x, y in self.islands),
                      self.max_bridges, name)

    def counts(self, puzzle: Puzzle) -> list[int]:
        """This network as bridge counts on ``puzzle``'s candidates."""
        out = []
        for br in puzzle.candidates:
            a, b = puzzle.islands[br.a], puzzle.islands[br.b]
            out.append(self.bridges.get(_pair((a.x, a.y), (b.x, b.y)), 0))
        return out

    def connected_without(self, key: Pair) -> bool:
        """Whether the islands stay one group when the pair ``key`` has no bridge."""
        adj: dict[Cell, list[Cell]] = {c: [] for c in self.islands}
        for a, b in self.bridges:
            if (a, b) != key:
                adj[a].append(b)
                adj[b].append(a)
        start = next(iter(self.islands))
        seen, stack = {start}, [start]
        while stack:
            for v in adj[stack.pop()]:
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        return len(seen) == len(self.islands)


def grow(rng: random.Random, width: int, height: int, max_bridges: int, density: float,
         loops: float, deadline: Deadline | None = None) -> Network:
    """A random connected network: from a random island, extend straight bridges of random
    length to empty cells (never over a bridge or an island, mostly not next to another
    island) up to ``density`` x cells islands, 1 to ``max_bridges`` bridges each; then an
    extra bridge with probability ``loops`` between islands that see each other (cycles).
    Raises :class:`OutOfTime` past ``deadline`` (read every 1,024 tries)."""
    net = Network(width, height, max_bridges)
    target = max(2, int(density * width * height))
    start = (rng.randrange(width), rng.randrange(height))
    net.islands[start] = None
    order, fails, tries = [start], 0, 0
    while len(net.islands) < target and fails < 40 * target:
        tries += 1
        if deadline is not None and tries % 1024 == 0 and deadline.expired():
            raise OutOfTime
        x, y = rng.choice(order)
        dx, dy = rng.choice(_STEPS)
        length = rng.randint(2, max(2, min(width, height) // 2)) if rng.random() < 0.85 else 1
        end = (x + dx * length, y + dy * length)
        path = [(x + dx * k, y + dy * k) for k in range(1, length)]
        if not net.inside(end) or end in net.islands or end in net.under \
                or any(c in net.islands or c in net.under for c in path) \
                or _touches(net, end, (x, y), rng):
            fails += 1
            continue
        net.islands[end] = None
        order.append(end)
        net.add_bridge((x, y), end, rng.randint(1, max_bridges))
    if len(net.islands) < 2:
        raise ValueError("no room for a second island")
    shape = net.puzzle()
    for br in shape.candidates:
        a, b = shape.islands[br.a], shape.islands[br.b]
        key = _pair((a.x, a.y), (b.x, b.y))
        if key in net.bridges or rng.random() >= loops or any(c in net.under for c in br.cells):
            continue
        net.add_bridge(*key, rng.randint(1, max_bridges))
    return net


def _touches(net: Network, cell: Cell, origin: Cell, rng: random.Random) -> bool:
    """Mostly keep new islands off the cells next to other islands (adjacent islands make
    trivial pairs); allow it now and then, since the rules allow it."""
    x, y = cell
    near = any((x + dx, y + dy) in net.islands and (x + dx, y + dy) != origin
               for dx, dy in _STEPS)
    return near and rng.random() < 0.9


def repair(net: Network, puzzle: Puzzle, other: Sequence[int], rng: random.Random) -> int:
    """Change ``net`` (whose puzzle is ``puzzle``) so that ``other``, a second solution of
    ``puzzle`` given as counts on its candidates, is no solution of the new puzzle: one move
    (see the module docstring) in each region where the two differ. Returns the moves made
    (0: no move fits, the network cannot be repaired here)."""
    mine = net.counts(puzzle)
    made = 0
    changed: set[Cell] = set()  # islands whose clue a move of this round changed
    for region in _regions(puzzle, mine, other):
        rng.shuffle(region)
        for e, move in _tries(region, rng):
            if _apply(net, puzzle, e, move, mine[e], other[e], rng, changed):
                made += 1
                break
    return made


def _tries(region: list[int], rng: random.Random) -> Iterator[tuple[int, str]]:
    for e in region:
        for move in rng.sample(MOVES, len(MOVES)):
            yield e, move


def _regions(puzzle: Puzzle, mine: Sequence[int], other: Sequence[int]) -> list[list[int]]:
    """The differing candidates, grouped by the islands they share."""
    diff = [e for e, (s, t) in enumerate(zip(mine, other)) if s != t]
    parent = {e: e for e in diff}

    def find(e: int) -> int:
        while parent[e] != e:
            parent[e] = parent[parent[e]]
            e = parent[e]
        return e

    by_island: dict[int, int] = {}
    for e in diff:
        br = puzzle.candidates[e]
        for i in (br.a, br.b):
            if i in by_island:
                parent[find(e)] = find(by_island[i])
            else:
                by_island[i] = e
    groups: dict[int, list[int]] = {}
    for e in diff:
        groups.setdefault(find(e), []).append(e)
    return list(groups.values())


def _apply(net: Network, puzzle: Puzzle, e: int, move: str, s: int, t: int,
           rng: random.Random, changed: set[Cell]) -> bool:
    """Make ``move`` on candidate ``e`` of ``puzzle`` (the network has ``s`` bridges there,
    the other solution ``t``) if it still fits the network and leaves the islands in
    ``changed`` alone; whether it was made (the islands it changed join ``changed``)."""
    br = puzzle.candidates[e]
    a = (puzzle.islands[br.a].x, puzzle.islands[br.a].y)
    b = (puzzle.islands[br.b].x, puzzle.islands[br.b].y)
    key = _pair(a, b)
    if a not in net.islands or b not in net.islands \
            or any(c in net.islands for c in br.cells):
        return False  # an earlier move of this round put an island in the way
    have = net.bridges.get(key, 0)
    if move in ("raise", "lower") and (a in changed or b in changed):
        return False
    if move == "raise" and t > s and have < net.max_bridges \
            and (have or not any(c in net.under for c in br.cells)):
        net.add_bridge(a, b, 1)
    elif move == "lower" and t < s and have and (have > 1 or net.connected_without(key)):
        net.lower(key)
    elif move == "split" and t > 0 and s == 0 and br.cells:
        return _split(net, rng.choice(br.cells), rng, changed)
    else:
        return False
    changed.update((a, b))
    return True


def _split(net: Network, c: Cell, rng: random.Random, changed: set[Cell]) -> bool:
    """A new island at water cell ``c``: inside the bridge over it if there is one (no clue
    changes), else joined by 1 to ``max_bridges`` bridges to the first island it sees (a
    random direction that has one, whose clue no other move changed); False when none."""
    key = net.under.get(c)
    if key is not None:
        n = net.bridges[key]
        for _ in range(n):
            net.lower(key)
        net.islands[c] = None
        net.add_bridge(key[0], c, n)
        net.add_bridge(c, key[1], n)
        return True
    for step in rng.sample(_STEPS, len(_STEPS)):
        seen = net.look(c, step)
        if seen is not None and seen not in changed:
            net.islands[c] = None
            net.add_bridge(c, seen, rng.randint(1, net.max_bridges))
            changed.update((c, seen))
            return True
    return False
