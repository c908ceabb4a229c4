"""Seeded Skynet maps at CodinGame's own limits: N = 500 nodes, L = 1000 links, E = 20
gateways, each gateway linked to 3-10 nodes (100-140 gateway links in all).

A map is drawn from its seed alone (:func:`codingame_limits_map`): nodes are points in the
unit square; the non-gateway nodes are joined by a random spanning tree of short links
(each node to one of its nearest earlier nodes), then by the shortest remaining links
between near neighbours until the map has its ``links``; each gateway is linked to its
``3..10`` nearest non-gateway nodes, the counts drawn so that they sum to a number in
``100..140``. Gateways that sit close together share nodes, which makes the nodes linked to
two or more gateways the Episode 2 game is about. The agent starts on a seeded non-gateway
node with no gateway link.

Example:
    >>> m = codingame_limits_map(1)
    >>> (m.n, len(m.links), len(m.gateways)) == (500, 1000, 20)
    True
    >>> m == codingame_limits_map(1)
    True
"""

from __future__ import annotations

import math
import random

from puzzleproof.models.skynet import SkynetMap, norm

__all__ = ["codingame_limits_map", "LIMITS"]

#: CodinGame's limits for Skynet Revolution, and the gateway links of the seeded set
LIMITS = {"nodes": 500, "links": 1000, "gateways": 20, "gateway_links": (100, 140),
          "per_gateway": (3, 10)}


def codingame_limits_map(seed: int, nodes: int = 500, links: int = 1000,
                         gateways: int = 20) -> SkynetMap:
    """The map of ``seed`` at CodinGame's limits (same seed, same map)."""
    rng = random.Random(f"skynet-large:{seed}")
    lo, hi = LIMITS["per_gateway"]
    glo, ghi = LIMITS["gateway_links"]
    if gateways * lo > ghi or gateways * hi < glo:
        raise ValueError(f"{gateways} gateways cannot have {glo}-{ghi} links of {lo}-{hi} each")
    pts = [(rng.random(), rng.random()) for _ in range(nodes)]
    gates = sorted(rng.sample(range(nodes), gateways))
    gate_set = set(gates)
    plain = [v for v in range(nodes) if v not in gate_set]
    # gateway link counts: 3..10 each, summing to a number in 100..140
    total = rng.randint(max(glo, gateways * lo), min(ghi, gateways * hi))
    counts = [lo] * gateways
    while sum(counts) < total:
        i = rng.randrange(gateways)
        if counts[i] < hi:
            counts[i] += 1
    edges: set[tuple[int, int]] = set()

    def dist(u: int, v: int) -> float:
        return math.dist(pts[u], pts[v])

    for g, c in zip(gates, counts):
        for v in sorted(plain, key=lambda v: (dist(g, v), v))[:c]:
            edges.add(norm(g, v))
    # a spanning tree of the plain nodes: each joins one of its 3 nearest earlier nodes
    order = plain[:]
    rng.shuffle(order)
    for i, v in enumerate(order[1:], start=1):
        near = sorted(order[:i], key=lambda u: (dist(u, v), u))[:3]
        edges.add(norm(rng.choice(near), v))
    # then the shortest missing links between near neighbours
    cands = sorted({norm(u, v) for u in plain
                    for v in sorted(plain, key=lambda w: (dist(u, w), w))[1:9]},
                   key=lambda e: (dist(*e), e))
    for e in cands:
        if len(edges) >= links:
            break
        edges.add(e)
    while len(edges) < links:  # not reached at the default sizes
        u, v = rng.sample(plain, 2)
        edges.add(norm(u, v))
    linked = {v for e in edges for v in e if e[0] in gate_set or e[1] in gate_set}
    starts = [v for v in plain if v not in linked]
    start = rng.choice(starts)
    coords = tuple((round(x * 1000, 1), round(y * 1000, 1)) for x, y in pts)
    return SkynetMap(nodes, tuple(sorted(edges)), frozenset(gates), start, coords,
                     f"codingame-limits-s{seed}", tuple(gates))
