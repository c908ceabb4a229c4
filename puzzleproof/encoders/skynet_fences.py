"""Upper bounds for the Skynet ``ep1`` value: fences, each decided as an Episode 2 game.

A *fence* is a connected set ``R`` of non-gateway nodes holding the agent's start; its
boundary is every link with one end in ``R`` (links to gateways included). Containing the
agent inside ``R`` is the Episode 2 game on the *fenced map*: the links touching ``R``, with
every node just outside ``R`` turned into a gateway. Only boundary links can be cut there,
the agent roams ``R`` freely, and when the player wins, every boundary link has been cut and
nothing else: so a fence whose Episode 2 game is won gives a player strategy for the real
map (under ``ep1`` any link may be cut, and the agent inside ``R`` sees exactly the links it
sees on the fenced map) that contains the agent within ``|boundary|`` cuts. The fence made of
the whole region is the real map under ``ep2`` rules; smaller fences trade boundary for the
player's room to react.

:class:`FenceSearch` looks for a small winning fence by simulated annealing. It starts
from the best won of a few seeds (the whole region, the start's side of a minimum cut, the
balls of radius 1 to 3 around the start), then flips one to three nodes in or out (keeping
the start's component); a move is taken only if the new fence's Episode 2 game is won, and
only if it does not grow the boundary (or, with the usual annealing chance, if it does).
The Episode 2 verdicts come from the caller (the SAT solver of :mod:`.skynet_sat`); what the
search returns is a candidate only: the caller writes its strategy out and replays it on the
real map with the rules-only checker before it counts. Nothing here is a lower bound: a
fence strategy never reacts by cutting inside ``R``, so the value can be far below every
fence. The search is seeded, so it repeats itself when it is not stopped by the clock.
"""

from __future__ import annotations

import math
import random
import time
from collections import deque
from typing import Callable

from puzzleproof.models.skynet import SkynetMap

from puzzleproof.clock import Deadline
from puzzleproof.encoders.maxflow import Network

__all__ = ["fenced_map", "boundary", "FenceSearch", "source_side"]

_SINK = -1  # every gateway, merged


def source_side(cap: dict[tuple[int, int], int], s: int, t: int) -> set[int]:
    """The ``s`` side of the minimum ``s``-``t`` cut nearest ``t`` in the undirected graph
    whose edges ``(a, b)`` (``a < b``) have capacity ``cap[(a, b)]``: every node that cannot
    reach ``t`` in the residual network of a maximum flow (the same set for every maximum
    flow; :mod:`.maxflow`)."""
    edges = list(cap)
    net = Network(edges, [cap[e] for e in edges], sink=t)
    return set(net.adj) - set(net.flow(s).sink_side())


def boundary(m: SkynetMap, fence: frozenset[int]) -> int:
    """The number of links with exactly one end in ``fence``."""
    return sum((u in fence) != (v in fence) for u, v in m.links)


def fenced_map(m: SkynetMap, fence: frozenset[int], start: int) -> SkynetMap:
    """The Episode 2 game of keeping the agent inside ``fence``: the links touching it, with
    the nodes just outside made gateways (numbering kept, so strategies carry over)."""
    outside: set[int] = set()
    links = []
    for u, v in m.links:
        a, b = u in fence, v in fence
        if a or b:
            links.append((u, v))
            if not a:
                outside.add(u)
            if not b:
                outside.add(v)
    name = f"{m.name or 'map'} fenced at {len(fence)} nodes"
    return SkynetMap(m.n, tuple(links), frozenset(outside), start=start, name=name)


class FenceSearch:
    """Simulated annealing over fences around ``start``; ``wins(fenced map)`` answers the
    Episode 2 verdict (True, False, or None when unknown: treated as not won)."""

    def __init__(self, m: SkynetMap, start: int, wins: Callable[[SkynetMap], bool | None],
                 seed: int = 0) -> None:
        self.m, self.start, self.wins = m, start, wins
        self.rng = random.Random(seed)
        self.adj: list[list[int]] = [[] for _ in range(m.n)]
        for u, v in m.links:
            self.adj[u].append(v)
            self.adj[v].append(u)
        self.memo: dict[frozenset[int], tuple[bool, int]] = {}
        self.evaluations = 0
        self.best: tuple[int, frozenset[int]] | None = None
        self.trail: list[tuple[float, int]] = []  # (seconds, boundary) at each improvement

    def component(self, nodes: set[int]) -> frozenset[int]:
        """The start's connected part of ``nodes`` (gateways never belong to a fence)."""
        gates = self.m.gateways
        seen = {self.start}
        queue = deque([self.start])
        while queue:
            u = queue.popleft()
            for v in self.adj[u]:
                if v in nodes and v not in gates and v not in seen:
                    seen.add(v)
                    queue.append(v)
        return frozenset(seen)

    def seeds(self) -> list[frozenset[int]]:
        """Where the annealing may start: the whole region (the real map under ``ep2``),
        the start's side of a minimum cut from the gateways (the smallest boundary of all),
        and the balls of radius 1 to 3 around the start."""
        whole = self.component(set(range(self.m.n)))
        out = [whole]
        cap: dict[tuple[int, int], int] = {}  # the links touching the region, gateways merged
        for u, v in self.m.links:
            a, b = (_SINK if x in self.m.gateways else x for x in (u, v))
            if a != b and (a in whole or b in whole):
                key = (a, b) if a < b else (b, a)
                cap[key] = cap.get(key, 0) + 1
        if any(_SINK in key for key in cap) and any(self.start in key for key in cap):
            out.append(self.component(source_side(cap, self.start, _SINK)))
        ball = {self.start}
        for _ in range(3):
            ball |= {v for u in ball for v in self.adj[u] if v not in self.m.gateways}
            out.append(self.component(ball))
        return list(dict.fromkeys(out))

    def evaluate(self, fence: frozenset[int]) -> tuple[bool, int]:
        got = self.memo.get(fence)
        if got is None:
            size = boundary(self.m, fence)
            if size == 0:  # nothing leaves the fence: contained before any cut
                got = self.memo[fence] = (True, 0)
                return got
            self.evaluations += 1
            won = self.wins(fenced_map(self.m, fence, self.start)) is True
            got = self.memo[fence] = (won, size)
        return got

    def run(self, deadline: Deadline | None, max_evaluations: int = 2000,
            patience: int = 400, floor: int = 0) -> tuple[int, frozenset[int]] | None:
        """Search until ``deadline``, ``max_evaluations`` new fences decided, ``patience``
        moves tried (new fences or seen ones) without a smaller boundary, or a boundary of
        ``floor`` (a known lower bound); the best won fence (boundary, nodes) or None."""
        t0 = time.monotonic()
        cur, cur_size = frozenset(), -1
        for seed in self.seeds():
            won, size = self.evaluate(seed)
            if won and (cur_size < 0 or size < cur_size):
                cur, cur_size = seed, size
        if cur_size < 0:
            return self.best
        if self.best is None or cur_size < self.best[0]:
            self.best = (cur_size, cur)
            self.trail.append((round(time.monotonic() - t0, 3), cur_size))
        temperature = 1.5
        since = 0
        start_evals = self.evaluations
        while (self.evaluations - start_evals < max_evaluations and since < patience
               and self.best[0] > floor
               and (deadline is None or not deadline.expired())):
            pool = sorted((cur - {self.start})
                          | {v for u in cur for v in self.adj[u]
                             if v not in cur and v not in self.m.gateways})
            if not pool:
                break
            flip = set(self.rng.sample(pool, min(len(pool), self.rng.choice((1, 1, 2, 3)))))
            cand = self.component(set(cur) ^ flip)
            won, size = self.evaluate(cand)
            since += 1
            if not won:
                continue
            if size <= cur_size or self.rng.random() < math.exp((cur_size - size)
                                                                / temperature):
                cur, cur_size = cand, size
                if size < self.best[0]:
                    self.best = (size, cand)
                    self.trail.append((round(time.monotonic() - t0, 3), size))
                    since = 0
            temperature = max(0.2, temperature * 0.995)
        return self.best
