"""Seeded generator of Hashi puzzles with a proved unique solution and measured difficulty.

Each attempt ``k`` of a run with seed ``s`` draws from its own random stream (``s:k``), so a
run is reproducible whatever the number of worker processes, and attempts can be spread over
processes. An attempt:

1. grows a random connected network of bridges on the grid (from a random island, repeatedly
   extend a straight bridge of random length from a random island to an empty cell, never
   crossing or touching what is there), up to ``density`` x cells islands, with 1 to
   ``max_bridges`` bridges on each new pair; then adds extra bridges between islands that see
   each other with probability ``loops`` (cycles make puzzles less obvious);
2. sets each island's clue to its bridge count, so that network is a solution;
3. asks the exact solver whether the solution is **unique** (UNIQUE is kept, MULTIPLE
   discarded), and rule-checks it;
4. measures difficulty: the article's solver's effort (sure bridges, assumptions, wrong
   assumptions, depth; under a node limit) and the exact solver's effort (cut rounds,
   conflicts), and keeps the puzzle if it needs at least ``min_assumptions`` assumptions.

Example:
    >>> from puzzleproof.generate.hashi import GenParams, generate
    >>> got = list(generate(GenParams(width=7, height=7, count=2, seed=1)))
    >>> [g.result.status.value for g in got]
    ['UNIQUE', 'UNIQUE']
"""

from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Iterator

from puzzleproof import executor, processes
from puzzleproof.clock import Deadline
from puzzleproof.encoders import hashi_cpsat, hashi_sat
from puzzleproof.models.hashi import BridgeLine, Island, Puzzle
from puzzleproof.result import Result, Status
from puzzleproof.players import hashi_article

#: the exact back ends by name
SOLVERS = {"cpsat": hashi_cpsat.solve, "sat": hashi_sat.solve}

__all__ = ["GenParams", "Generated", "generate", "random_layout", "attempt"]


@dataclass(frozen=True)
class GenParams:
    width: int = 15
    height: int = 15
    density: float = 0.25  # islands per cell, at most
    max_bridges: int = 2
    loops: float = 0.15  # chance of an extra bridge between islands that see each other
    count: int = 10
    seed: int = 0
    min_assumptions: int = 0  # keep puzzles the article's solver needs >= K assumptions for
    solver: str = "sat"  # exact back end proving uniqueness
    article_node_limit: int = 200_000
    max_attempts: int | None = None  # give up after this many attempts (None: 1000 x count)

    def __post_init__(self) -> None:
        if not (2 <= self.width <= 200 and 2 <= self.height <= 200):
            raise ValueError("width and height must be 2 to 200")
        if not 0 < self.density <= 1:
            raise ValueError("density must be in (0, 1]")
        if not 1 <= self.max_bridges <= 4:
            raise ValueError("max bridges must be 1 to 4")
        if not 0 <= self.loops <= 1:
            raise ValueError("loops must be in [0, 1]")
        if self.count < 1:
            raise ValueError("count must be at least 1")


@dataclass
class Generated:
    """A kept puzzle, its unique solution and the evidence of its difficulty."""

    puzzle: Puzzle
    solution: list[BridgeLine]
    result: Result  # the exact solver's UNIQUE result
    measures: dict[str, Any] = field(default_factory=dict)
    attempt: int = 0

    def to_record(self) -> dict:
        return {"type": "hashi", "schema_version": 1, "name": self.puzzle.name,
                "width": self.puzzle.width,
                "height": self.puzzle.height, "max_bridges": self.puzzle.max_bridges,
                "grid": self.puzzle.to_rows(), "solution": [list(b) for b in self.solution],
                "measures": self.measures}


def random_layout(rng: random.Random, p: GenParams) -> Puzzle:
    """A random puzzle whose clues come from a random connected bridge network."""
    w, h = p.width, p.height
    target = max(2, int(p.density * w * h))
    start = (rng.randrange(w), rng.randrange(h))
    islands = {start}
    water: set[tuple[int, int]] = set()  # cells under a bridge
    bridges: dict[tuple, int] = {}
    order = [start]
    fails = 0
    while len(islands) < target and fails < 40 * target:
        x, y = rng.choice(order)
        dx, dy = rng.choice(((1, 0), (-1, 0), (0, 1), (0, -1)))
        length = rng.randint(2, max(2, min(w, h) // 2)) if rng.random() < 0.85 else 1
        ex, ey = x + dx * length, y + dy * length
        path = [(x + dx * k, y + dy * k) for k in range(1, length)]
        if not (0 <= ex < w and 0 <= ey < h) or (ex, ey) in islands or (ex, ey) in water \
                or any(c in islands or c in water for c in path) \
                or _touches(islands, (ex, ey), (x, y), rng):
            fails += 1
            continue
        islands.add((ex, ey))
        order.append((ex, ey))
        water.update(path)
        bridges[tuple(sorted([(x, y), (ex, ey)]))] = rng.randint(1, p.max_bridges)
    if len(islands) < 2:
        raise ValueError("no room for a second island")
    puzzle = Puzzle(w, h, tuple(Island(x, y, 1) for x, y in islands), p.max_bridges)
    # extra bridges between islands that see each other, over free water, make cycles
    for br in puzzle.candidates:
        a, b = puzzle.islands[br.a], puzzle.islands[br.b]
        key = tuple(sorted([(a.x, a.y), (b.x, b.y)]))
        if key in bridges or rng.random() >= p.loops:
            continue
        if any(c in water for c in br.cells):
            continue
        bridges[key] = rng.randint(1, p.max_bridges)
        water.update(br.cells)
    degree = {c: 0 for c in islands}
    for (u, v), n in bridges.items():
        degree[u] += n
        degree[v] += n
    return Puzzle(w, h, tuple(Island(x, y, degree[(x, y)]) for x, y in islands), p.max_bridges)


def _touches(islands: set, cell: tuple[int, int], origin: tuple[int, int],
             rng: random.Random) -> bool:
    """Mostly keep new islands off the cells next to other islands (adjacent islands make
    trivial pairs); allow it now and then, since the rules allow it."""
    x, y = cell
    near = any((x + dx, y + dy) in islands and (x + dx, y + dy) != origin
               for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))
    return near and rng.random() < 0.9


def attempt(p: GenParams, k: int) -> Generated | None:
    """Attempt ``k`` of the run: a kept puzzle or None (not unique, or too easy)."""
    rng = random.Random(f"{p.seed}:{k}")
    try:
        puzzle = random_layout(rng, p)
    except ValueError:
        return None
    name = f"hashi-{p.width}x{p.height}-m{p.max_bridges}-s{p.seed}-{k}"
    puzzle = Puzzle(puzzle.width, puzzle.height, puzzle.islands, puzzle.max_bridges, name)
    t0 = time.monotonic()
    res = SOLVERS[p.solver](puzzle, mode="unique", deadline=Deadline(60))
    exact_time = time.monotonic() - t0
    if res.status is not Status.UNIQUE or not res.check_ok:
        return None
    art = hashi_article.solve(puzzle, max_nodes=p.article_node_limit)
    assumptions = art.stats["assumptions"]
    if art.status is not Status.SOLVED:
        assumptions = max(assumptions, p.article_node_limit)  # beyond the limit: hardest
    if assumptions < p.min_assumptions:
        return None
    measures = {
        "islands": len(puzzle.islands),
        "article": {"status": art.status.value, **art.stats,
                    "seconds": round(art.wall_time, 4)},
        "exact": {"solver": p.solver, "status": res.status.value,
                  "cut_rounds": res.stats.get("cut_rounds"),
                  "conflicts": res.stats.get("conflicts"), "seconds": round(exact_time, 4)},
        "generator": {**asdict(p), "attempt": k},
    }

    return Generated(puzzle, res.answer, res, measures, k)


def _batch(args: tuple[GenParams, int, int]) -> list[tuple[int, Generated | None]]:
    p, lo, hi = args
    return [(k, attempt(p, k)) for k in range(lo, hi)]


def generate(p: GenParams, jobs: int = 1, on_attempt=None) -> Iterator[Generated]:
    """Yield ``p.count`` kept puzzles, in attempt order (reproducible for any ``jobs``).

    ``on_attempt(attempts, kept)`` is called as attempts finish, for progress reports.
    Stops early (yielding fewer) after ``p.max_attempts`` attempts.
    """
    limit = p.max_attempts if p.max_attempts is not None else 1000 * p.count
    kept = 0
    k = 0
    chunk = 8
    # local workers die with this process; SIGTERM kills them and raises SystemExit(143)
    # here, so the caller's ``finally`` writes what was kept (without a pool the default
    # stays: a Python handler would wait for the solver's C code). Rounds of spans go to the
    # executor; their results are taken in attempt order, so any executor gives the same
    # puzzles.
    with executor.open_pool(jobs) as pool:
        while kept < p.count and k < limit:
            spans = []
            for _ in range(2 * pool.slots if pool.spec.parallel else 1):
                if k >= limit:
                    break
                spans.append((p, k, min(k + chunk, limit)))
                k = min(k + chunk, limit)
            results: dict[int, list] = {}
            for span, batch in pool.stream(_batch, spans, name=lambda s: f"attempts "
                                           f"{s[1]}..{s[2] - 1}"):
                if isinstance(batch, executor.TaskFailure):
                    processes.note(f"{batch.message}; those attempts count as not kept")
                    batch = [(i, None) for i in range(span[1], span[2])]
                results[span[1]] = batch
            for lo in sorted(results):
                for idx, got in results[lo]:
                    if on_attempt:
                        on_attempt(idx + 1, kept + (got is not None))
                    if got is not None and kept < p.count:
                        kept += 1
                        yield got
