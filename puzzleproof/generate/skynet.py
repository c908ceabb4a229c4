"""Seeded Skynet maps that break bots: winnable (proved) but lost by a bot, then shrunk.

Attempt ``k`` of a run with seed ``s`` draws from its own stream (``s:k``): a random
connected map of ``nodes`` nodes (a random spanning tree plus ``extra`` random links),
``gateways`` gateways, and an agent start that is not a gateway. Episode 1 style keeps at
most one gateway link per node; Episode 2 style links some nodes to two gateways.

A map is kept when the exact verdict (explicit-state search, its certificate replayed) is
WIN from the start and the worst-case agent finds a line that beats the bot (every chosen
bot, with ``all_bots``). It is then **shrunk**: nodes, then links, are removed one at a time
(nodes are renumbered) while the map stays winnable and the bot still loses, until no
single removal keeps both. The evidence is the agent's winning line, a replayable game
record.

Example:
    >>> from puzzleproof.generate.skynet import SkyParams, generate
    >>> got = next(generate(SkyParams(nodes=9, bots=("ep2-article",), seed=3)))
    >>> got.map.n <= 9 and got.record["result"] == "LOSS"
    True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterator

from puzzleproof.formats.skynet import record_to_json
from puzzleproof.models.skynet import SkynetMap, norm
from puzzleproof.models.skynet_strategy import check_player_strategy
from puzzleproof.verify.skynet_bots import make_bot
from puzzleproof.verify.skynet_explicit import solve as explicit_solve
from puzzleproof.verify.skynet_worst import beating_line

__all__ = ["SkyParams", "Breaker", "generate", "breaks", "shrink"]


@dataclass
class SkyParams:
    nodes: int = 12
    extra: float = 0.6  # extra links per node, beyond a spanning tree
    gateways: int = 3
    style: str = "ep2"  # ep1: at most one gateway link per node; ep2: doubles allowed
    bots: tuple[str, ...] = ("ep2-article", "ep2-slack")
    all_bots: bool = False
    count: int = 1
    seed: int = 0
    max_attempts: int = 20_000
    shrink: bool = True


@dataclass
class Breaker:
    map: SkynetMap
    start: int
    bots: list[str]  # the bots that lose it
    record: dict  # the agent's winning line against the first of them
    attempt: int
    original_nodes: int
    original_links: int


def _random_map(rng: random.Random, p: SkyParams) -> SkynetMap | None:
    n = p.nodes
    links: set[tuple[int, int]] = set()
    order = list(range(n))
    rng.shuffle(order)
    for i in range(1, n):
        links.add(norm(order[i], order[rng.randrange(i)]))
    for _ in range(int(p.extra * n)):
        u, v = rng.sample(range(n), 2)
        links.add(norm(u, v))
    gates = set(rng.sample(range(n), min(p.gateways, n - 1)))
    if p.style == "ep1":
        keep = set()
        used: set[int] = set()
        for u, v in sorted(links):
            g = u in gates, v in gates
            if g[0] != g[1]:
                x = v if g[0] else u
                if x in used:
                    continue
                used.add(x)
            keep.add((u, v))
        links = keep
    starts = [v for v in range(n) if v not in gates]
    if not starts:
        return None
    return SkynetMap(n, tuple(sorted(links)), frozenset(gates), rng.choice(starts),
                     gateway_order=tuple(sorted(gates)))


def _rule(bot: str) -> str:
    return make_bot(bot).rule


def breaks(m: SkynetMap, bots: tuple[str, ...], all_bots: bool) -> tuple[list[str], dict] | None:
    """The bots that lose this winnable map from its start, with the first one's losing game
    (None when the map is not a proved WIN or no chosen bot loses it)."""
    rules = {_rule(b) for b in bots}
    for rule in rules:
        res = explicit_solve(m, rule, m.start, max_nodes=200_000)
        if res.status.value != "WIN" or check_player_strategy(m, rule, m.start,
                                                              res.certificate):
            return None
    losers, first = [], None
    for b in bots:
        verdict, record, _ = beating_line(m, _rule(b), m.start, lambda b=b: make_bot(b),
                                          max_positions=100_000)
        if verdict == "LOSS":
            losers.append(b)
            first = first or record_to_json(record)  # type: ignore[arg-type]
        elif all_bots:
            return None
    return (losers, first) if losers else None


def _without_node(m: SkynetMap, x: int) -> SkynetMap | None:
    if x == m.start or (x in m.gateways and len(m.gateways) == 1):
        return None
    new = {v: i for i, v in enumerate(v for v in range(m.n) if v != x)}
    links = tuple(sorted(norm(new[u], new[v]) for u, v in m.links if x not in (u, v)))
    gates = frozenset(new[g] for g in m.gateways if g != x)
    return SkynetMap(m.n - 1, links, gates, new[m.start],
                     gateway_order=tuple(new[g] for g in m.gateway_order if g != x))


def shrink(m: SkynetMap, bots: tuple[str, ...], all_bots: bool) -> SkynetMap:
    """Remove nodes, then links, while the map stays a breaker (greedy, to a fixpoint)."""
    changed = True
    while changed:
        changed = False
        for x in reversed(range(m.n)):
            smaller = _without_node(m, x)
            if smaller is not None and breaks(smaller, bots, all_bots):
                m, changed = smaller, True
        for link in list(m.links):
            smaller = SkynetMap(m.n, tuple(l for l in m.links if l != link), m.gateways,
                                m.start, gateway_order=m.gateway_order)
            if breaks(smaller, bots, all_bots):
                m, changed = smaller, True
    return m


def generate(p: SkyParams) -> Iterator[Breaker]:
    """Breakers, in attempt order, until ``count`` are found or attempts run out."""
    found = 0
    for k in range(p.max_attempts):
        if found >= p.count:
            return
        rng = random.Random(f"{p.seed}:{k}")
        m = _random_map(rng, p)
        if m is None or not breaks(m, p.bots, p.all_bots):
            continue
        n0, l0 = m.n, len(m.links)
        if p.shrink:
            m = shrink(m, p.bots, p.all_bots)
        losers, record = breaks(m, p.bots, p.all_bots)  # type: ignore[misc]
        name = f"breaker-{p.style}-n{n0}-s{p.seed}-{k}"
        m = SkynetMap(m.n, m.links, m.gateways, m.start, name=name,
                      gateway_order=m.gateway_order)
        record["map"]["name"] = name
        found += 1
        yield Breaker(m, m.start, losers, record, k, n0, l0)  # type: ignore[arg-type]
