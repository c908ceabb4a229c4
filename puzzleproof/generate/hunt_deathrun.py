"""Hunting a Death Run bot file: the smallest graph on which a student file pays well above
what the robust student is certified never to pay, or on which a bot file fails.

A candidate is a contest-shaped graph (:func:`puzzleproof.models.deathrun.generate_graph`)
of ``size`` layers and 2 to 8 vertices a layer. The student file sits in the eight student
seats of a game against the criminals named (bot files run in worker processes, under their
limits); it fails when a seat pays at least ``min_excess`` above the robust student's
certified bound on the graph (``above-bound``: a bound no criminal play can push the robust
student past, :mod:`puzzleproof.encoders.deathrun_robust`), or when it makes an invalid
move (a crash, a time-out, a move that is not a link: ``invalid-move``). A criminal file sits
in both criminal seats against a field of greedy students, and fails by an invalid move
only (what a criminal should have earned is not proved). The evidence is the game (replayed
by the rules), the seat, its cost and the bound.

Shrinking removes a link, a vertex (not the begin) or the last layer (its predecessors
become the ends), while the graph stays one the rules accept.
"""

from __future__ import annotations

import random
from typing import Any, Iterator, Sequence

from puzzleproof.clock import Deadline
from puzzleproof.encoders.deathrun_robust import robust_table
from puzzleproof.errors import InputError
from puzzleproof.generate.hunt import UNDECIDED, Failure
from puzzleproof.models.deathrun import Graph, generate_graph, make_graph

__all__ = ["DeathrunHunter", "from_evidence"]

#: the criminals' combined budget and the bound's grid step (the contest's, the project's)
BUDGET, STEP = 200.0, 1.0


class DeathrunHunter:
    """The hunt's Death Run part for one bot file (``role``: student or criminal) against
    the other role's bots."""

    puzzle = "deathrun"

    def __init__(self, bot: str, others: Sequence[str], min_excess: float = 20.0, *,
                 role: str = "student", move_timeout: float = 1.0,
                 init_timeout: float = 5.0, memory_limit: int = 768,
                 sizes: tuple[int, ...] = tuple(range(2, 16)),
                 max_attempts: int | None = None) -> None:
        self.bot, self.others, self.role, self.min_excess = bot, tuple(others), role, min_excess
        self.limits = (move_timeout, init_timeout, memory_limit)
        self.sizes, self.max_attempts = sizes, max_attempts

    def candidate(self, rng: random.Random, size: int) -> Graph | None:
        return generate_graph(f"hunt:{rng.random()}", layers=size,
                              height=rng.randint(2, 8))

    def judge(self, g: Graph, deadline: Deadline) -> Failure | None:
        from puzzleproof.verify.deathrun_methods import play_one

        if deadline.expired():
            return UNDECIDED
        crims, studs = (([self.bot] * 2, list(self.others) * 8) if self.role == "criminal"
                        else (list(self.others), [self.bot] * 8))
        rec = play_one(g, crims, studs, 0, *self.limits)
        seats = [s for s in rec["scoreboard"] if s["role"] == self.role]
        bad = [s for s in seats if s["invalid_moves"]]
        evidence: dict[str, Any] = {"game": rec}
        if bad:
            why = _first_invalid(rec, bad[0]["seat"])
            return Failure("invalid-move", f"seat {bad[0]['seat']}: {why}", evidence)
        if self.role == "criminal":
            return None
        bound = robust_table(g, BUDGET, STEP, lower=False).bound()
        worst = max(seats, key=lambda s: s["score"])
        excess = worst["score"] - bound
        if excess < self.min_excess:
            return None
        return Failure("above-bound", f"seat {worst['seat']} pays {worst['score']:.2f}, "
                       f"{excess:.2f} above the robust bound {bound:.2f}",
                       {**evidence, "seat": worst["seat"], "cost": worst["score"],
                        "bound": bound, "excess": round(excess, 6)})

    def smaller(self, g: Graph) -> Iterator[Graph]:
        ends = set(g.ends)
        last = [u for u, v, _ in g.edges if v in ends]
        got = _graph([e for e in g.edges if e[1] not in ends], g.begin, sorted(set(last)))
        if got is not None:
            yield got
        for x in reversed(g.vertices):
            if x == g.begin:
                continue
            got = _graph([e for e in g.edges if x not in e[:2]], g.begin,
                         [e for e in g.ends if e != x])
            if got is not None:
                yield got
        for e in g.edges:
            got = _graph([f for f in g.edges if f != e], g.begin, list(g.ends))
            if got is not None:
                yield got

    def size(self, g: Graph) -> int:
        return len(g.vertices)

    def key(self, g: Graph) -> str:
        return repr((g.edges, g.begin, g.ends))

    def files(self, g: Graph, name: str) -> tuple[str, str]:
        from puzzleproof.formats.deathrun import write_graph

        return write_graph(g), ".json"

    def describe(self) -> dict[str, Any]:
        return {self.role: self.bot, "against": list(self.others), "min_excess":
                self.min_excess, "budget": BUDGET, "step": STEP}


def _graph(edges: list, begin: int, ends: list[int]) -> Graph | None:
    """The graph when the rules accept it (every vertex has a way out, every end is
    reached), else None."""
    if not ends or not edges:
        return None
    try:
        return make_graph(edges, begin, ends)
    except InputError:
        return None


def _first_invalid(rec: dict, seat: int) -> str:
    for rnd in rec.get("rounds", []):
        for s in rnd.get("students", []) + rnd.get("criminals", []):
            if s.get("seat") == seat and not s.get("valid", True):
                return str(s.get("reason") or s.get("error") or "an invalid move")
    return "an invalid move"


def from_evidence(settings: dict, who: dict, text: str, source: str) -> tuple[Any, Any]:
    """The hunter and the instance of a kept breaker, from its evidence's settings and
    program and the instance file's text (:func:`puzzleproof.generate.hunt.rejudge`)."""
    from puzzleproof.formats.deathrun import read_graph

    role = "student" if "student" in settings else "criminal"
    return (DeathrunHunter(settings[role], settings["against"], settings["min_excess"],
                           role=role), read_graph(text, source))
