"""Death Run built-in bots, each a few lines of idea, with the contest's interface.

Criminals: ``random``, ``crowd`` (spends on the crowded link its students cannot avoid),
``gap-toll`` (raises the link the crowd will take by just less than the detour that would
divert it), and ``toll`` (:mod:`puzzleproof.encoders.deathrun_tolls`: the single-round
toll optimum with a budget plan) and ``pricer`` (:mod:`puzzleproof.players.deathrun_pricer`:
tolls on the links the students it models will take, at what each still pays, with its
partner's predicted raise weighed in), ``ambush``
(:mod:`puzzleproof.players.deathrun_ambush`: the whole budget on a forced link where students
stand, tolls at the gaps this game's students pay, beside its partner). Students: ``random``,
``greedy`` (current shortest path), ``cautious`` (shortest path with a penalty for
out-degree-1 trap vertices ahead), ``robust`` (:mod:`puzzleproof.encoders.deathrun_robust`:
the worst-case DP's policy) and ``planner`` (:mod:`puzzleproof.players.deathrun_planner`:
plans against the criminals it identified, within a slack of the robust certificate) and
``dodger`` (:mod:`puzzleproof.players.deathrun_dodger`: forced vertices priced at the money
left to the end of the course, and next round's strike predicted from who stands where).

Each bot draws its randomness from ``self.rng``, seeded from Python's ``random`` module when
the bot is built (the engine seeds that with ``f"{seed}:{seat}"``), so games replay exactly.

>>> sorted(STUDENT_BOTS), sorted(CRIMINAL_BOTS)
(['cautious', 'dodger', 'greedy', 'planner', 'random', 'robust'], ['ambush', 'crowd', 'gap-toll', 'pricer', 'random', 'toll'])
"""

from __future__ import annotations

import math
import random
from typing import Any

from puzzleproof.models.deathrun import BaseCriminal, BaseStudent, InProcessPlayer

__all__ = ["Tracker", "RandomCriminal", "RandomStudent", "GreedyStudent", "CautiousStudent",
           "CrowdCriminal", "GapTollCriminal", "STUDENT_BOTS", "CRIMINAL_BOTS", "bot_class",
           "builtin_player"]


class Tracker:
    """What a bot can know: the graph, the current weights (base plus every update seen),
    the round, and shortest distances to the ends."""

    def __init__(self, edge_list, begin, ends) -> None:
        self.base = {(u, v): w for u, v, w in edge_list}
        self.weight = dict(self.base)
        self.out: dict[int, list[int]] = {}
        verts = {begin, *ends}
        for u, v, _ in edge_list:
            self.out.setdefault(u, []).append(v)
            verts.update((u, v))
        for v in verts:
            self.out.setdefault(v, [])
        for u in self.out:
            self.out[u].sort()
        self.begin = begin
        self.ends = set(ends)
        self.order = self._topo(verts)
        self.spent = 0.0
        self.calls = 0
        first = min(self.base) if self.base else (begin, begin)
        self.noop = (first[0], first[1], 0)  # a valid move that raises nothing

    def _topo(self, verts) -> list[int]:
        indeg = {v: 0 for v in verts}
        for u in self.out:
            for v in self.out[u]:
                indeg[v] += 1
        stack = [v for v in verts if indeg[v] == 0]
        order = []
        while stack:
            u = stack.pop()
            order.append(u)
            for v in self.out[u]:
                indeg[v] -= 1
                if indeg[v] == 0:
                    stack.append(v)
        return order

    def see(self, edge_updates: dict) -> None:
        self.calls += 1
        for e, w in edge_updates.items():
            if w:
                self.weight[e] = self.weight.get(e, 0) + w
                self.spent += w

    def dist(self, weight: dict | None = None, vertex_cost: dict | None = None
             ) -> dict[int, float]:
        """Cheapest cost from each vertex to an end (plus ``vertex_cost`` of vertices entered)."""
        wt = self.weight if weight is None else weight
        d: dict[int, float] = {}
        for u in reversed(self.order):
            if u in self.ends or not self.out[u]:
                d[u] = 0.0 if u in self.ends else math.inf
                continue
            d[u] = min(wt[(u, v)] + d[v] + (vertex_cost.get(v, 0) if vertex_cost else 0)
                       for v in self.out[u])
        return d

    def best_next(self, at: int, d: dict[int, float], vertex_cost: dict | None = None) -> int:
        return min(self.out[at], key=lambda v: (self.weight[(at, v)] + d[v]
                                                 + (vertex_cost.get(v, 0) if vertex_cost
                                                    else 0), v))


class _Bot:
    bot_name = "?"

    def __init__(self, edge_list, begin, ends):
        super().__init__(edge_list, begin, ends)  # type: ignore[call-arg]
        self.rng = random.Random(random.getrandbits(64))
        self.t = Tracker(edge_list, begin, ends)


class RandomCriminal(_Bot, BaseCriminal):
    """A random link raised by a random amount (at most a fifth of what is left)."""

    bot_name = "random"

    def strategy(self, edge_updates, vertex_count, budget):
        self.t.see(edge_updates)
        u, v = self.rng.choice(sorted(self.t.base))
        return u, v, self.rng.randint(0, int(budget // 5))


class RandomStudent(_Bot, BaseStudent):
    """A random out-link."""

    bot_name = "random"

    def strategy(self, edge_updates, vertex_count, current_vertex):
        self.t.see(edge_updates)
        return self.rng.choice(self.t.out[current_vertex])


class GreedyStudent(_Bot, BaseStudent):
    """The first link of the current shortest path."""

    bot_name = "greedy"

    def strategy(self, edge_updates, vertex_count, current_vertex):
        self.t.see(edge_updates)
        return self.t.best_next(current_vertex, self.t.dist())


class CautiousStudent(_Bot, BaseStudent):
    """Shortest path where entering a vertex with one out-link ("trap": the criminals can
    toll its only exit) costs a penalty, larger while the criminals have much left."""

    bot_name = "cautious"
    penalty = 6.0

    def strategy(self, edge_updates, vertex_count, current_vertex):
        self.t.see(edge_updates)
        left = max(0.0, 200 - self.t.spent) / 200
        cost = {v: self.penalty * left for v, outs in self.t.out.items()
                if len(outs) == 1 and v not in self.t.ends}
        return self.t.best_next(current_vertex, self.t.dist(vertex_cost=cost), cost)


def _crowd_routes(t: Tracker, vertex_count: dict) -> dict[tuple[int, int], int]:
    """For each link, how many students take it next if they follow the current shortest
    path (students on an end are done)."""
    d = t.dist()
    use: dict[tuple[int, int], int] = {}
    for v, n in vertex_count.items():
        if n and v not in t.ends and t.out.get(v):
            e = (v, t.best_next(v, d))
            use[e] = use.get(e, 0) + n
    return use


class CrowdCriminal(_Bot, BaseCriminal):
    """Spends on the crowded link students cannot avoid: the only out-link of the most
    crowded vertex with one exit, else the link most students take next; a share of the
    budget that grows with the crowd."""

    bot_name = "crowd"

    def strategy(self, edge_updates, vertex_count, budget):
        self.t.see(edge_updates)
        rounds_left = max(1, 15 - self.t.calls + 1)
        forced = [(n, v) for v, n in vertex_count.items()
                  if n and v not in self.t.ends and len(self.t.out.get(v, ())) == 1]
        if forced:
            n, v = max(forced)
            u, w = v, self.t.out[v][0]
        else:
            use = _crowd_routes(self.t, vertex_count)
            if not use:
                return self.t.noop
            (u, w), n = max(use.items(), key=lambda kv: (kv[1], kv[0]))
        amount = min(budget, budget * n / 8 / max(1, rounds_left / 3))
        return u, w, amount


class GapTollCriminal(_Bot, BaseCriminal):
    """For each crowded vertex, the link its students take next and the detour gap (second
    cheapest continuation minus the cheapest); raise the link with the largest
    students x gap by just less than the gap."""

    bot_name = "gap-toll"

    def strategy(self, edge_updates, vertex_count, budget):
        self.t.see(edge_updates)
        d = self.t.dist()
        best = None
        for v, n in vertex_count.items():
            if not n or v in self.t.ends or not self.t.out.get(v):
                continue
            costs = sorted((self.t.weight[(v, x)] + d[x], x) for x in self.t.out[v])
            gap = (costs[1][0] - costs[0][0]) if len(costs) > 1 else 10.0
            toll = min(budget, max(0.0, gap - 0.01))
            if best is None or toll * n > best[0]:
                best = (toll * n, v, costs[0][1], toll)
        if best is None:
            return self.t.noop
        return best[1], best[2], best[3]


STUDENT_BOTS: dict[str, Any] = {"random": RandomStudent, "greedy": GreedyStudent,
                                "cautious": CautiousStudent, "robust": None, "planner": None,
                                "dodger": None}
CRIMINAL_BOTS: dict[str, Any] = {"random": RandomCriminal, "crowd": CrowdCriminal,
                                 "gap-toll": GapTollCriminal, "toll": None, "pricer": None,
                                 "ambush": None}


def bot_class(name: str, role: str) -> Any:
    """The class of a built-in bot by name and role (``"criminal"`` or ``"student"``)."""
    table = CRIMINAL_BOTS if role == "criminal" else STUDENT_BOTS
    if name not in table:
        raise KeyError(f"no built-in {role} bot {name!r}; expected one of {', '.join(table)}")
    cls = table[name]
    if cls is None:  # bots built on the exact tools live beside them
        if name == "robust":
            from puzzleproof.players.deathrun_robust import RobustStudent as cls
        elif name == "planner":
            from puzzleproof.players.deathrun_planner import PlannerStudent as cls
        elif name == "toll":
            from puzzleproof.players.deathrun_toll import TollCriminal as cls
        elif name == "pricer":
            from puzzleproof.players.deathrun_pricer import PricerCriminal as cls
        elif name == "dodger":
            from puzzleproof.players.deathrun_dodger import DodgerStudent as cls
        elif name == "ambush":
            from puzzleproof.players.deathrun_ambush import AmbushCriminal as cls
    return cls


def builtin_player(name: str, role: str) -> InProcessPlayer:
    """An engine player for a built-in bot."""
    return InProcessPlayer(bot_class(name, role), name)
