"""Models of a Death Run criminal as the other players see it: what a criminal sees at the
start of a round (:class:`View`) and the moves the common strategies make from it.

A criminal's strategy is a function of what every player can see (the weights with every
raise so far, the vertex counts at the start of the round) and of its own budget, so a
player that knows which strategy a criminal follows can predict its next raise. The
``pricer`` criminal predicts its partner this way, and the ``planner`` student both
criminals. Each model returns ``((u, v), amount)`` or None (no raise).

>>> from puzzleproof.models.deathrun import make_graph
>>> g = make_graph([(0, 1, 1), (0, 2, 4), (1, 3, 1), (2, 3, 1)], 0, [3])
>>> view = View(g, dict(g.weight), {0: 8}, 100.0, 1)
>>> gap_described(view)  # the gap at 0 is 3: the cheapest link is raised just under it
((0, 1), 2.99)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from puzzleproof.encoders.deathrun_tolls import best_single_raise
from puzzleproof.models.deathrun import Graph, distances_to_ends

__all__ = ["View", "Move", "EPS", "gap_described", "gap_builtin", "forced", "crowd", "toll",
           "nothing", "partner_models", "same", "edge_tie", "dump_tie", "dump_less", "tier",
           "patient", "contest_models"]

#: How far below a gap a toll stays.
EPS = 0.01

Move = tuple[tuple[int, int], float] | None


@dataclass
class View:
    """What every criminal sees at the start of a round (the partner's budget inferred)."""

    g: Graph
    weight: dict[tuple[int, int], float]
    counts: dict[int, int]
    budget: float
    rnd: int
    dist: dict[int, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.dist:
            self.dist = distances_to_ends(self.g, self.weight)

    def routes(self, v: int) -> list[tuple[float, int]]:
        """``(cost to an end through u, u)`` for each out-link of ``v``, cheapest first."""
        return sorted((self.weight[(v, u)] + self.dist[u], u) for u, _ in self.g.out[v])

    def occupied(self) -> list[tuple[int, int]]:
        """``(vertex, students)`` where students wait to move, in vertex order."""
        return sorted((v, n) for v, n in self.counts.items()
                      if n and v not in self.g.end_set and self.g.out.get(v))




def gap_described(s: View) -> Move:
    best = None
    for v, n in s.occupied():
        r = s.routes(v)
        gap = r[1][0] - r[0][0] if len(r) > 1 else math.inf
        key = (gap * n, n, -v)
        if best is None or key > best[0]:
            best = (key, (v, r[0][1]), gap)
    if best is None or s.budget <= 0:
        return None
    return best[1], max(0.0, min(s.budget, best[2] - EPS))


def gap_builtin(s: View) -> Move:
    best = None
    for v, n in s.occupied():
        r = s.routes(v)
        gap = r[1][0] - r[0][0] if len(r) > 1 else 10.0
        toll = min(s.budget, max(0.0, gap - 0.01))
        if best is None or toll * n > best[0]:
            best = (toll * n, (v, r[0][1]), toll)
    return None if best is None else (best[1], best[2])


def forced(s: View) -> Move:
    best = None
    for v, n in s.occupied():
        if len(s.g.out[v]) == 1 and (best is None or (n, -v) > best[0]):
            best = ((n, -v), v)
    if best is None or s.budget <= 0:
        return None
    v = best[1]
    return (v, s.g.out[v][0][0]), s.budget


def crowd(s: View) -> Move:
    occ = s.occupied()
    if not occ or s.budget <= 0:
        return None
    v, n = max(occ, key=lambda x: (x[1], -x[0]))
    r = s.routes(v)
    left = max(1, 15 - s.rnd + 1)
    return (v, r[0][1]), min(s.budget, 2.0 * s.budget / left * n / max(1, sum(s.counts.values())))


def toll(s: View) -> Move:
    opt = best_single_raise(s.g, s.weight, s.counts, s.budget)
    return None if opt.edge is None or opt.toll <= 0 else (opt.edge, opt.toll)


def nothing(s: View) -> Move:
    return None


def _edge_gap(s: View, v: int) -> tuple[int, float]:
    """The cheapest exit of ``v`` by link weight (lowest vertex on a tie) and the gap to the
    second cheapest."""
    ws = sorted((s.weight[(v, u)], u) for u, _ in s.g.out[v])
    return ws[0][1], ws[1][0] - ws[0][0]


def _stays(s: View, v: int, u: int, x: float) -> bool:
    """Whether the cheapest route from ``v`` still starts with ``(v, u)`` after raising it by
    ``x`` (equal costs count as staying)."""
    mine = s.weight[(v, u)] + x + s.dist[u]
    return all(mine <= s.weight[(v, z)] + s.dist[z] for z, _ in s.g.out[v] if z != u)


def edge_tie(s: View, dump: bool = True, less: float = 0.0, pays: bool = False) -> Move:
    """The public criminals' plan (the league files ``criminal_dumptie``, ``_dumpless``,
    ``_tier``, ``_patient``): with ``dump``, the whole budget on the only link of the most
    crowded occupied vertex with one way out; otherwise, at the occupied vertex where
    students x gap is largest, the cheapest exit (by link weight) raised by the gap to the
    second cheapest less ``less``. With ``pays``, a tie counts only where the cheapest route
    still takes it after the raise, and is ranked by students x raise."""
    occ = s.occupied()
    if s.budget <= 0 or not occ:
        return None
    forced_at = [(n, -v) for v, n in occ if len(s.g.out[v]) == 1]
    if dump and forced_at:
        v = -max(forced_at)[1]
        return (v, s.g.out[v][0][0]), s.budget
    best = None
    for v, n in occ:
        if len(s.g.out[v]) < 2:
            continue
        u, gap = _edge_gap(s, v)
        x = min(s.budget, gap - less)
        if gap <= 0 or (pays and not _stays(s, v, u, x)):
            continue
        key = (n * x, n, -v) if pays else (n * gap, n, -v)
        if best is None or key > best[0]:
            best = (key, (v, u), max(0.0, x))
    return None if best is None else (best[1], best[2])


def dump_tie(s: View) -> Move:
    return edge_tie(s)


def dump_less(s: View) -> Move:
    return edge_tie(s, less=EPS)


def tier(s: View) -> Move:
    return edge_tie(s, dump=False)


def patient(s: View) -> Move:
    return edge_tie(s, pays=True)


def contest_models() -> dict[str, Callable[[View], Move]]:
    """:func:`partner_models` and the public contest criminals' plans (dump on a forced
    link, else tie the cheapest exit to the second: :func:`edge_tie` and its variants)."""
    return {**partner_models(), "dump-tie": dump_tie, "dump-tie less": dump_less,
            "tier": tier, "patient": patient}


def partner_models() -> dict[str, Callable[[View], Move]]:
    """The candidate models of the other criminal, by name (the first is the prior)."""
    return {"gap-toll (described)": gap_described, "gap-toll (built-in)": gap_builtin,
            "all-in on a forced link": forced, "crowd": crowd, "toll": toll,
            "nothing": nothing}


def same(a: Move, b: Move) -> bool:
    """Whether two moves raise the same link (a raise of nothing is no move)."""
    a = None if a is None or a[1] <= 1e-9 else a
    b = None if b is None or b[1] <= 1e-9 else b
    if a is None or b is None:
        return a is None and b is None
    return a[0] == b[0]
