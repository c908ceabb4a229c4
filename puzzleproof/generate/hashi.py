"""Seeded generator of Hashi puzzles, unique by construction, with measured difficulty.

Each attempt ``k`` of a run with seed ``s`` draws from its own random stream (``s:k``), so a
run is reproducible whatever the number of worker processes, and attempts can be spread over
processes. An attempt:

1. grows a random connected network of bridges on the grid
   (:func:`puzzleproof.generate.hashi_network.grow`), and gives each island its bridge count
   as clue, so that the network is a solution of its puzzle;
2. asks the exact back end whether the puzzle has *another* solution (the network is handed
   over as a known solution, blocked before the search: one question). When it has, the
   network is changed where the two solutions differ
   (:func:`~puzzleproof.generate.hashi_network.repair`: a bridge raised or lowered, or an
   island put on the other solution's bridge) and the question is asked again, up to
   ``max_repairs`` rounds. A random network of 30x30 is almost never unique by chance, and
   the repaired ones are harder for the article's solver than the few that are
   (``benchmarks/hashi_generate.py``);
3. measures difficulty: the article's solver's effort (sure bridges, assumptions, wrong
   assumptions, depth; under a node limit) and keeps the puzzle if it needs at least
   ``min_assumptions`` assumptions and reaches depth ``min_depth``;
4. proves the kept puzzle unique again with the back end's standard question (find a
   solution, then another), whose cut rounds and conflicts are the record's exact measures,
   and rule-checks the solution.

Limits: every search of an attempt has a deterministic budget (:data:`PROOF_CONFLICTS`,
:data:`PROOF_DETERMINISTIC_SECONDS`, the article's node limit), so that a seed gives the same
puzzles on any machine and with any number of jobs. The run's clock (``generate
--time-limit``) bounds them all as well: the attempt it cuts short ends the run, which keeps
what the attempts before it kept, a prefix of what the seed gives without a limit.

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
from puzzleproof.encoders.hashi_common import counts_of
from puzzleproof.generate.hashi_network import Network, OutOfTime as GrowOutOfTime, grow, repair
from puzzleproof.models.hashi import BridgeLine, Puzzle, counts_to_lines
from puzzleproof.players import hashi_article
from puzzleproof.result import Result, Status

__all__ = ["GenParams", "Generated", "generate", "attempt", "make_unique", "unique_question",
           "TIMED_OUT", "MAX_REPAIRS",
           "PROOF_CONFLICTS", "PROOF_DETERMINISTIC_SECONDS", "STEADY_CHUNK"]

#: Repair rounds an attempt may take before it is given up. On 30x30 grids the rounds
#: needed run from 1 to about 15 (each round makes one move per ambiguous region); 0 keeps
#: only the networks that happen to be unique (the generator without repair).
MAX_REPAIRS = 60
#: Conflict budget of one uniqueness question of the sat back end (a proof of 30x30 uses a
#: few hundred to a few thousand); a question that spends it gives the attempt up.
PROOF_CONFLICTS = 1_000_000
#: Conflicts of each of the sat back end's calls between two looks at the clock: fixed, so
#: that the search takes the same steps on any machine (a rate-sized chunk would not).
STEADY_CHUNK = 20_000
#: Deterministic time of each CP-SAT solve of a uniqueness question (``--method cpsat``).
PROOF_DETERMINISTIC_SECONDS = 60.0


class _TimedOut:
    """What an attempt returns when the run's clock ran out during it."""

    def __repr__(self) -> str:
        return "TIMED_OUT"

    def __reduce__(self) -> str:
        return "TIMED_OUT"  # one object in every process: a worker's answer is ``is`` it


#: the run's clock ran out during the attempt (the run ends there)
TIMED_OUT = _TimedOut()


@dataclass(frozen=True)
class GenParams:
    width: int = 15
    height: int = 15
    density: float = 0.25  # islands per cell, at most (before repairs add a few)
    max_bridges: int = 2
    loops: float = 0.15  # chance of an extra bridge between islands that see each other
    count: int = 10
    seed: int = 0
    min_assumptions: int = 0  # keep puzzles the article's solver needs >= K assumptions for
    solver: str = "sat"  # exact back end proving uniqueness
    article_node_limit: int = 200_000
    max_attempts: int | None = None  # give up after this many attempts (None: 1000 x count)
    min_depth: int = 0  # keep puzzles whose assumptions nest at least this deep
    max_repairs: int = MAX_REPAIRS  # repair rounds per attempt (0: keep only unique luck)

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
        if self.solver not in ("sat", "cpsat"):
            raise ValueError("the exact back end must be sat or cpsat")
        if self.max_repairs < 0 or self.min_depth < 0 or self.min_assumptions < 0:
            raise ValueError("repairs, depth and assumptions cannot be negative")


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


def unique_question(p: GenParams, puzzle: Puzzle, clock: Deadline,
                    known: list[BridgeLine] | None = None) -> Result:
    """Whether ``puzzle`` has one solution, by ``p.solver`` under the deterministic budgets
    and ``clock`` (``known``: a solution in hand, so that one search asks for another)."""
    if p.solver == "sat":
        return hashi_sat.solve(puzzle, mode="unique", deadline=clock, known=known,
                               conflict_budget=PROOF_CONFLICTS, steady_chunks=STEADY_CHUNK)
    return hashi_cpsat.solve(puzzle, mode="unique", deadline=clock, known=known,
                             deterministic_limit=PROOF_DETERMINISTIC_SECONDS)


def make_unique(net: Network, p: GenParams, rng: random.Random, clock: Deadline,
                name: str) -> tuple[Puzzle, int, int] | None | _TimedOut:
    """Repair ``net`` until its puzzle is proved unique: ``(puzzle, rounds, moves)``; None
    when a round finds no move, the rounds or a budget run out; :data:`TIMED_OUT`."""
    rounds = moves = 0
    while True:
        puzzle = net.puzzle(name)
        res = unique_question(p, puzzle, clock, counts_to_lines(puzzle, net.counts(puzzle)))
        if not res.check_ok:  # the network is a solution by construction: a bug if not
            raise RuntimeError(f"{name}: the generator's own layout breaks the rules: "
                               f"{res.check}")
        if res.status is Status.UNIQUE:
            return puzzle, rounds, moves
        if res.status is Status.UNKNOWN:
            return TIMED_OUT if clock.expired() else None
        if res.status is not Status.MULTIPLE or rounds >= p.max_repairs:
            return None
        made = repair(net, puzzle, counts_of(puzzle, res.certificate["second"]), rng)
        if not made:
            return None
        rounds += 1
        moves += made


def attempt(p: GenParams, k: int, deadline: Deadline | None = None
            ) -> Generated | None | _TimedOut:
    """Attempt ``k`` of the run: a kept puzzle, None (not made unique, or too easy), or
    :data:`TIMED_OUT` when ``deadline`` (the run's clock) ran out during it."""
    clock = deadline or Deadline(None)
    rng = random.Random(f"{p.seed}:{k}")
    try:
        net = grow(rng, p.width, p.height, p.max_bridges, p.density, p.loops, clock)
    except ValueError:
        return None
    except GrowOutOfTime:
        return TIMED_OUT
    name = f"hashi-{p.width}x{p.height}-m{p.max_bridges}-s{p.seed}-{k}"
    made = make_unique(net, p, rng, clock, name)
    if made is None or made is TIMED_OUT:
        return made
    puzzle, rounds, moves = made  # type: ignore[misc]
    art = hashi_article.solve(puzzle, deadline=clock, max_nodes=p.article_node_limit)
    if art.status is Status.UNKNOWN and clock.expired():
        return TIMED_OUT
    assumptions = art.stats["assumptions"]
    if art.status is not Status.SOLVED:
        assumptions = max(assumptions, p.article_node_limit)  # beyond the limit: hardest
    if assumptions < p.min_assumptions or art.stats["max_depth"] < p.min_depth:
        return None
    t0 = time.monotonic()
    res = unique_question(p, puzzle, clock)
    exact_time = time.monotonic() - t0
    if res.status is Status.UNKNOWN:
        return TIMED_OUT if clock.expired() else None
    if res.status is not Status.UNIQUE or not res.check_ok:
        raise RuntimeError(f"{name}: proved unique with its layout given, but the standard "
                           f"question answers {res.status.value} (check {res.check})")
    measures = {
        "islands": len(puzzle.islands),
        "article": {"status": art.status.value, **art.stats,
                    "seconds": round(art.wall_time, 4)},
        "exact": {"solver": p.solver, "status": res.status.value,
                  "cut_rounds": res.stats.get("cut_rounds"),
                  "conflicts": res.stats.get("conflicts"), "seconds": round(exact_time, 4),
                  "proof": res.certificate["proof"]},
        "generator": {**asdict(p), "attempt": k, "repair_rounds": rounds,
                      "repair_moves": moves},
    }
    return Generated(puzzle, res.answer, res, measures, k)


def _until(deadline: Deadline) -> float | None:
    """The run's end as a wall-clock instant, for workers in other processes (a monotonic
    instant means nothing on another machine)."""
    left = deadline.left()
    return None if left is None else time.time() + left


def _batch(args: tuple[GenParams, int, int, float | None]) -> list[tuple[int, Any]]:
    """Attempts ``lo..hi-1`` against the run's clock (what is left of it when the span
    starts); the first one the clock cuts short ends the span."""
    p, lo, hi, until = args
    clock = Deadline(None if until is None else max(0.0, until - time.time()))
    out: list[tuple[int, Any]] = []
    for k in range(lo, hi):
        out.append((k, attempt(p, k, clock)))
        if out[-1][1] is TIMED_OUT:
            break
    return out


def generate(p: GenParams, jobs: Any = 1, on_attempt=None,
             deadline: Deadline | None = None) -> Iterator[Generated]:
    """Yield ``p.count`` kept puzzles, in attempt order (reproducible for any ``jobs``).

    ``on_attempt(attempts, kept)`` is called as attempts finish, for progress reports.
    Stops early (yielding fewer) after ``p.max_attempts`` attempts, or when ``deadline``
    (the run's clock) runs out: then what was kept before the attempt it cut short.
    """
    clock = deadline or Deadline(None)
    limit = p.max_attempts if p.max_attempts is not None else 1000 * p.count
    kept = k = 0
    chunk = 8
    # local workers die with this process; SIGTERM kills them and raises SystemExit(143)
    # here, so the caller's ``finally`` writes what was kept (without a pool the default
    # stays: a Python handler would wait for the solver's C code). Rounds of spans go to the
    # executor; their results are taken in attempt order, so any executor gives the same
    # puzzles.
    with executor.open_pool(jobs) as pool:
        while kept < p.count and k < limit and not clock.expired():
            spans = []
            for _ in range(2 * pool.slots if pool.spec.parallel else 1):
                if k >= limit:
                    break
                spans.append((p, k, min(k + chunk, limit), _until(clock)))
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
                    if got is TIMED_OUT or kept >= p.count:
                        return  # progress counts the attempts the kept ones needed
                    if on_attempt:
                        on_attempt(idx + 1, kept + (got is not None))
                    if got is not None:
                        kept += 1
                        yield got
