"""Where to draw the nodes of a graph that gives no coordinates: networkx's seeded spring
layout on small graphs, and from 500 nodes on (where networkx's needs scipy, and where a
spring layout of a star or a mesh is an unreadable blot anyway) rings by distance from a
root, in pure Python and linear time. Skynet maps and city maps are drawn with it.

Example:
    >>> pos = layout(4, [(0, 1), (1, 2), (2, 3)], root=0)
    >>> sorted(pos) == [0, 1, 2, 3]
    True
"""

from __future__ import annotations

import math
from typing import Iterable

__all__ = ["layout", "ring_layout", "SPRING_LIMIT"]

#: from this many nodes on, the ring layout
SPRING_LIMIT = 500


def ring_layout(n: int, links: Iterable[tuple[int, int]], root: int = 0
                ) -> dict[int, tuple[float, float]]:
    """Nodes on rings by their distance from ``root``, each ring in the order its nodes were
    reached; unreached nodes on an outer ring."""
    nbrs: list[list[int]] = [[] for _ in range(n)]
    for u, v in links:
        nbrs[u].append(v)
        nbrs[v].append(u)
    dist = {root: 0}
    order = [root]
    for u in order:
        for v in nbrs[u]:
            if v not in dist:
                dist[v] = dist[u] + 1
                order.append(v)
    outer = max(dist.values()) + 1
    order += [v for v in range(n) if v not in dist]
    rings: dict[int, list[int]] = {}
    for v in order:
        rings.setdefault(dist.get(v, outer), []).append(v)
    pos = {}
    for r, members in rings.items():
        for k, v in enumerate(members):
            angle = 2 * math.pi * k / len(members)
            pos[v] = (r * math.cos(angle), r * math.sin(angle))
    return pos


def layout(n: int, links: Iterable[tuple[int, int]], root: int = 0, seed: int = 1
           ) -> dict[int, tuple[float, float]]:
    """A drawing position for every node ``0..n-1`` (deterministic for a seed)."""
    links = list(links)
    if n >= SPRING_LIMIT:
        return ring_layout(n, links, root)
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(links)
    return {k: (float(x), float(y)) for k, (x, y) in nx.spring_layout(g, seed=seed).items()}
