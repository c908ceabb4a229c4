"""Episode 1 maps: a seeded set in the shape of CodinGame's Episode 1 tests, and a search for
maps where bots use the most cuts beyond the proved fewest.

Under Episode 1 every node links to at most one gateway, and then any bot that cuts the
agent's gateway link whenever it has one wins (:mod:`puzzleproof.verify.skynet_ep1_cuts`): an
Episode 1 map cannot break a correct bot, so the finding is the cuts a bot spends beyond
the fewest (``solve skynet --rule ep1 --min-cuts``).

:func:`ep1_set` draws, from one seed, the shapes of CodinGame's tests: a simple line, a star
(a gateway at the centre of a ring), a triple star, a double star with a ring, and meshes
(jittered grids with random diagonals) of 100, 250 and 500 nodes with 5, 10 and 20
gateways, at most 1000 links. :func:`search_gap` draws small random Episode 1 maps and
keeps those where some bot's worst-case cuts exceed the fewest the most.

Example:
    >>> maps = ep1_set(seed=1)
    >>> [m.name for m in maps][:4]
    ['01-line', '02-star', '03-triple-star', '04-double-star-ring']
    >>> all(not m.ep1_problems() for m in maps)
    True
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Iterator

from puzzleproof.clock import PerTask
from puzzleproof.models.skynet import SkynetMap, norm
from puzzleproof.verify.skynet_ep1_cuts import EP1_BOTS

WORST_SECONDS = 10.0  # each bot's worst-case search on a drawn map

__all__ = ["ep1_set", "line", "star", "multi_star", "mesh", "GapParams", "GapMap",
           "search_gap", "EP1_BOTS"]



def _finish(name: str, n: int, links: set, gates: list[int], start: int) -> SkynetMap:
    return SkynetMap(n, tuple(sorted(links)), frozenset(gates), start, name=name,
                     gateway_order=tuple(gates))


def line(rng: random.Random, n: int = 4, name: str = "01-line") -> SkynetMap:
    """A path of ``n`` nodes with the gateway at one end and the agent at the other."""
    order = list(range(n))
    rng.shuffle(order)
    links = {norm(order[i], order[i + 1]) for i in range(n - 1)}
    return _finish(name, n, links, [order[-1]], order[0])


def _star_links(centre: int, ring: list[int]) -> set:
    k = len(ring)
    links = {norm(centre, x) for x in ring}
    links |= {norm(ring[i], ring[(i + 1) % k]) for i in range(k)}
    return links


def star(rng: random.Random, ring: int = 11, name: str = "02-star") -> SkynetMap:
    """A gateway at the centre of a ring of ``ring`` nodes, each linked to it."""
    ids = list(range(ring + 1))
    rng.shuffle(ids)
    centre, nodes = ids[0], ids[1:]
    return _finish(name, ring + 1, _star_links(centre, nodes), [centre], rng.choice(nodes))


def multi_star(rng: random.Random, stars: int, ring: int, *, outer: bool, bridges: int,
               name: str) -> SkynetMap:
    """``stars`` stars (a gateway at each centre, a ring of ``ring`` nodes) joined by
    ``bridges`` links between consecutive rings through a node of no star, and with
    ``outer`` an outer ring of plain nodes, each linked to two ring nodes of the stars."""
    n = stars * (ring + 1)
    links: set = set()
    gates, rings = [], []
    for s in range(stars):
        base = s * (ring + 1)
        gates.append(base)
        nodes = list(range(base + 1, base + ring + 1))
        rings.append(nodes)
        links |= _star_links(base, nodes)
    hubs = []
    for s in range(stars):
        t = (s + 1) % stars
        if stars == 2 and s == 1:
            break
        for _ in range(bridges):
            hub = n
            n += 1
            hubs.append(hub)
            links.add(norm(hub, rng.choice(rings[s])))
            links.add(norm(hub, rng.choice(rings[t])))
    if outer:
        ring_all = [x for r in rings for x in r]
        outer_nodes = list(range(n, n + ring))
        n += ring
        for i, x in enumerate(outer_nodes):
            links.add(norm(x, outer_nodes[(i + 1) % ring]))
            for y in rng.sample(ring_all, 2):
                links.add(norm(x, y))
    starts = hubs or [x for r in rings for x in r]
    perm = list(range(n))
    rng.shuffle(perm)
    links = {norm(perm[u], perm[v]) for u, v in links}
    return _finish(name, n, links, [perm[g] for g in gates], perm[rng.choice(starts)])


def mesh(rng: random.Random, rows: int, cols: int, gateways: int, name: str,
         max_links: int = 1000) -> SkynetMap:
    """A ``rows`` x ``cols`` grid whose links right and down are kept with probability 0.9,
    plus random diagonals up to ``max_links`` links (made connected by a spanning tree
    first); ``gateways`` grid nodes at least 3 steps apart (so no node links to two), and
    the agent at least 2 steps from every gateway."""
    n = rows * cols

    def at(r: int, c: int) -> int:
        return r * cols + c

    grid = [norm(at(r, c), at(r, c + 1)) for r in range(rows) for c in range(cols - 1)]
    grid += [norm(at(r, c), at(r + 1, c)) for r in range(rows - 1) for c in range(cols)]
    rng.shuffle(grid)
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    links: set = set()
    for u, v in grid:  # a random spanning tree of the grid first
        if find(u) != find(v):
            parent[find(u)] = find(v)
            links.add((u, v))
    for l in grid:
        if l not in links and rng.random() < 0.9 and len(links) < max_links:
            links.add(l)
    diag = [norm(at(r, c), at(r + 1, c + d)) for r in range(rows - 1) for c in range(cols)
            for d in (-1, 1) if 0 <= c + d < cols]
    rng.shuffle(diag)
    for l in diag:
        if len(links) >= max_links:
            break
        if rng.random() < 0.3:
            links.add(l)
    gates: list[int] = []
    cells = list(range(n))
    rng.shuffle(cells)
    for x in cells:
        r, c = divmod(x, cols)
        if all(max(abs(r - gr), abs(c - gc)) >= 3 for gr, gc in (divmod(g, cols) for g in gates)):
            gates.append(x)
            if len(gates) == gateways:
                break
    starts = [x for x in range(n)
              if all(max(abs(x // cols - g // cols), abs(x % cols - g % cols)) >= 2
                     for g in gates)]
    return _finish(name, n, links, gates, rng.choice(starts))


def ep1_set(seed: int = 1) -> list[SkynetMap]:
    """The Episode 1 set, every map drawn from its own stream ``seed:name``."""
    def r(name: str) -> random.Random:
        return random.Random(f"{seed}:{name}")

    return [
        line(r("01-line")),
        star(r("02-star")),
        multi_star(r("03-triple-star"), 3, 10, outer=False, bridges=2,
                   name="03-triple-star"),
        multi_star(r("04-double-star-ring"), 2, 10, outer=True, bridges=2,
                   name="04-double-star-ring"),
        mesh(r("05-mesh-100"), 10, 10, 5, "05-mesh-100"),
        mesh(r("06-mesh-250"), 10, 25, 10, "06-mesh-250"),
        mesh(r("07-mesh-500"), 20, 25, 20, "07-mesh-500"),
    ]


# -- maps where the bots spend the most cuts beyond the fewest ----------------------------

@dataclass
class GapParams:
    nodes: int = 10
    extra: float = 0.6
    gateways: int = 2
    bots: tuple[str, ...] = EP1_BOTS
    count: int = 3
    seed: int = 0
    attempts: int = 200
    min_excess: int = 1


@dataclass
class GapMap:
    map: SkynetMap
    report: dict  # verify.skynet_ep1_cuts.cut_report
    excess: int  # the largest worst-case excess over the bots
    attempt: int
    worst_bots: list[str] = field(default_factory=list)


def _random_ep1(rng: random.Random, p: GapParams) -> SkynetMap | None:
    n = p.nodes
    order = list(range(n))
    rng.shuffle(order)
    links = {norm(order[i], order[rng.randrange(i)]) for i in range(1, n)}
    for _ in range(int(p.extra * n)):
        u, v = rng.sample(range(n), 2)
        links.add(norm(u, v))
    gates = set(rng.sample(range(n), min(p.gateways, n - 1)))
    keep, used = set(), set()
    for u, v in sorted(links):
        if (u in gates) != (v in gates):
            x = v if u in gates else u
            if x in used:
                continue
            used.add(x)
        keep.add((u, v))
    starts = [v for v in range(n) if v not in gates
              and not any(g in gates for g in (w for l in keep if v in l for w in l))]
    if not starts:
        return None
    return SkynetMap(n, tuple(sorted(keep)), frozenset(gates), rng.choice(starts),
                     gateway_order=tuple(sorted(gates)))


def search_gap(p: GapParams, on_attempt: Any = None) -> Iterator[GapMap]:
    """Draw ``attempts`` random Episode 1 maps (attempt ``k`` from stream ``seed:k``) and
    yield the ``count`` where a bot's worst-case cuts exceed the proved fewest the most (at
    least ``min_excess``), largest excess first (ties: earliest attempt).
    ``on_attempt(attempts, found)`` hears each map drawn."""
    from puzzleproof.verify.skynet_ep1_cuts import cut_report
    from puzzleproof.encoders.skynet_explicit import solve as explicit_solve

    found: list[GapMap] = []
    for k in range(p.attempts):
        if on_attempt is not None:
            on_attempt(k + 1, min(len(found), p.count))
        m = _random_ep1(random.Random(f"{p.seed}:{k}"), p)
        if m is None:
            continue
        res = explicit_solve(m, "ep1", m.start, value=True, max_nodes=300_000)
        if res.status.value != "WIN" or not (res.check or {}).get("ok"):
            continue
        fewest = {"value": int(res.answer["value"]), "solver": "explicit"}
        rep = cut_report(m, m.start, list(p.bots), fewest=fewest, each=PerTask(WORST_SECONDS))
        excess = {b: r["excess"] for b, r in rep["bots"].items() if r["excess"] is not None}
        if not excess:
            continue
        top = max(excess.values())
        if top >= p.min_excess:
            found.append(GapMap(m, rep, top, k, sorted(b for b, e in excess.items()
                                                       if e == top)))
    found.sort(key=lambda g: (-g.excess, g.attempt))
    for g in found[:p.count]:
        name = f"ep1-gap-n{p.nodes}-s{p.seed}-{g.attempt}"
        g.map = SkynetMap(g.map.n, g.map.links, g.map.gateways, g.map.start, name=name,
                          gateway_order=g.map.gateway_order)
        g.report["map"] = name
        yield g
