"""Seeded Skynet maps that break bots: winnable (proved) but lost by bots, then shrunk.

Attempt ``k`` of a run with seed ``s`` draws from its own stream (``s:k``): a random
connected map of ``nodes`` nodes (a random spanning tree plus ``extra`` random links),
``gateways`` gateways, and an agent start that is not a gateway. Episode 1 style keeps at
most one gateway link per node; Episode 2 style links some nodes to two gateways.

A map is a **breaker** for an agent model when the exact verdict (explicit-state search,
the player's strategy replayed against every agent move) is WIN from the start and at least
``min_beaten`` of the chosen bots lose it **by play** against that agent model:

- ``article``: one game against the Episode 2 article's agent model (low ties);
- ``worst``: the worst-case adversary (:mod:`puzzleproof.games.skynet_adversary`, through
  :func:`puzzleproof.games.skynet_adversary.adversary`): every agent line searched, cut short
  where the exact solver proves the bot's position lost; exact for bots that decide from the
  position alone, as ours do, and it checks that assumption where lines meet.

The two models are searched separately: a breaker's evidence says which one beat which bot.
A crash, an illegal cut or any other failure of a bot is a **defect** of the bot, never a
breaker: it is reported (:class:`Defect`) and that bot does not count for that map.

A breaker is then **shrunk**: nodes, then links, are removed one at a time (nodes are
renumbered) while the map stays winnable and the same bots still lose under the same agent
model, until no single removal keeps both (locally minimal). The evidence is the agent's
winning line against each bot, a replayable game record, and the player's winning strategy.

Example (the shipped ``breaker-ep2-n12-s1-864``; ``generate(SkyParams(...))`` draws new ones):
    >>> from puzzleproof.formats.skynet import read_map
    >>> m = read_map("9 11 3 0 1 0 3 0 4 1 2 1 5 2 3 3 6 3 8 4 5 4 6 4 7 0 2 8 7")
    >>> breaks(m, ("ep2-slack", "ep2-double"), True, "article")[0]
    ['ep2-slack', 'ep2-double']
    >>> locally_minimal(m, ("ep2-slack", "ep2-double"), "article")
    True
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Iterator

from puzzleproof.formats.skynet import record_to_json
from puzzleproof.models.skynet import SkynetMap, norm
from puzzleproof.models.skynet_strategy import check_player_strategy
from puzzleproof.players.skynet_agents import make_agent
from puzzleproof.players.skynet_bots import make_bot
from puzzleproof.encoders.skynet_explicit import solve as explicit_solve
from puzzleproof.games.skynet_referee import BY_PLAY
from puzzleproof.games.skynet_referee import play
from puzzleproof.games.skynet_adversary import BotPlayer, adversary

__all__ = ["SkyParams", "Breaker", "Defect", "generate", "breaks", "beaten_by", "shrink",
           "locally_minimal", "AGENT_MODELS", "DEFAULT_EP2_BOTS"]

#: the agent models a breaker is searched under, each on its own
AGENT_MODELS = ("article", "worst")
#: the Episode 2 bots searched by default: the articles' and the ones people write
DEFAULT_EP2_BOTS = ("ep2-article", "ep2-slack", "ep2-double", "ep2-nearest", "ep2-pqdfs")


@dataclass
class SkyParams:
    nodes: int = 12
    extra: float = 0.6  # extra links per node, beyond a spanning tree
    gateways: int = 3
    style: str = "ep2"  # ep1: at most one gateway link per node; ep2: doubles allowed
    bots: tuple[str, ...] = DEFAULT_EP2_BOTS
    all_bots: bool = False
    count: int = 1
    seed: int = 0
    max_attempts: int = 20_000
    shrink: bool = True
    agent: str = "worst"  # the agent model bots must lose to: article or worst
    min_beaten: int = 2  # at least this many bots (capped at the number of bots)
    skip: frozenset[int] = frozenset()  # attempts not to try (kept under another agent)


@dataclass
class Breaker:
    map: SkynetMap
    start: int
    bots: list[str]  # the bots that lose it by play
    record: dict  # the agent's winning line against the first of them
    attempt: int
    original_nodes: int
    original_links: int
    agent: str = "worst"
    games: dict = field(default_factory=dict)  # bot -> its lost game (JSON record)
    strategy: dict | None = None  # the player's winning strategy (checked by replay)
    defects: list = field(default_factory=list)


@dataclass
class Defect:
    """A bot that crashed, cut illegally or otherwise failed: its bug, not a finding."""

    map: SkynetMap
    bot: str
    agent: str
    reason: str
    record: dict
    attempt: int


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


def _won(m: SkynetMap, rule: str) -> dict | None:
    """The player's winning strategy from the start, checked by replay (None: not a WIN)."""
    res = explicit_solve(m, rule, m.start, max_nodes=200_000)
    if res.status.value != "WIN" or res.certificate is None:
        return None
    if check_player_strategy(m, rule, m.start, res.certificate):
        return None
    return res.certificate


def _lost_game(m: SkynetMap, rule: str, bot: str, agent: str) -> dict | None:
    """The bot's lost game against ``agent`` from the start (None: it is not beaten)."""
    if agent == "article":
        r = play(m, rule, make_bot(bot), make_agent("article"), m.start)
        return record_to_json(r) if r.result == "LOSS" else None
    res = adversary(m, rule, m.start, BotPlayer(bot), max_lines=100_000,
                    certificate=False)
    return record_to_json(res.record) if res.bot_result == "LOSS" else None  # type: ignore[arg-type]


def beaten_by(m: SkynetMap, bots: tuple[str, ...], agent: str
              ) -> tuple[dict[str, dict], list[tuple[str, dict]]]:
    """``(games, defects)``: the lost game of every bot beaten by play under ``agent``, and
    ``(bot, record)`` for every bot whose game ended by its own failure (a defect)."""
    games, defects = {}, []
    for b in bots:
        rec = _lost_game(m, _rule(b), b, agent)
        if rec is None:
            continue
        if rec.get("reason") in BY_PLAY:
            games[b] = rec
        else:
            defects.append((b, rec))
    return games, defects


def _needed(bots: tuple[str, ...], all_bots: bool, min_beaten: int) -> int:
    return len(bots) if all_bots else max(1, min(min_beaten, len(bots)))


def breaks(m: SkynetMap, bots: tuple[str, ...], all_bots: bool, agent: str = "worst",
           min_beaten: int = 1) -> tuple[list[str], dict] | None:
    """The bots that lose this winnable map from its start by play under ``agent``, with
    the first one's losing game (None when the map is not a proved WIN or fewer than the
    needed bots lose it)."""
    got = _breaks(m, bots, all_bots, agent, min_beaten)
    if got is None:
        return None
    games = got[0]
    return list(games), next(iter(games.values()))


def _breaks(m: SkynetMap, bots: tuple[str, ...], all_bots: bool, agent: str,
            min_beaten: int) -> tuple[dict, dict, list] | None:
    games, defects = beaten_by(m, bots, agent)  # the bots' games first: most maps stop here
    if len(games) < _needed(bots, all_bots, min_beaten):
        return None
    strategies = {}
    for rule in {_rule(b) for b in bots}:
        strat = _won(m, rule)
        if strat is None:
            return None
        strategies[rule] = strat
    return games, strategies, defects


def _without_node(m: SkynetMap, x: int) -> SkynetMap | None:
    if x == m.start or (x in m.gateways and len(m.gateways) == 1):
        return None
    new = {v: i for i, v in enumerate(v for v in range(m.n) if v != x)}
    links = tuple(sorted(norm(new[u], new[v]) for u, v in m.links if x not in (u, v)))
    gates = frozenset(new[g] for g in m.gateways if g != x)
    return SkynetMap(m.n - 1, links, gates, new[m.start],
                     gateway_order=tuple(new[g] for g in m.gateway_order if g != x))


def _without_link(m: SkynetMap, link) -> SkynetMap:
    return SkynetMap(m.n, tuple(l for l in m.links if l != link), m.gateways, m.start,
                     gateway_order=m.gateway_order)


def _smaller(m: SkynetMap):
    """Every map one node or one link smaller (nodes first, last node first)."""
    for x in reversed(range(m.n)):
        smaller = _without_node(m, x)
        if smaller is not None:
            yield smaller
    for link in list(m.links):
        yield _without_link(m, link)


def _same_bots_lose(m: SkynetMap, bots: tuple[str, ...], agent: str) -> bool:
    """Winnable, and every one of ``bots`` still loses by play under ``agent``."""
    if not all((_lost_game(m, _rule(b), b, agent) or {}).get("reason") in BY_PLAY
               for b in bots):
        return False
    return all(_won(m, r) is not None for r in {_rule(b) for b in bots})


def shrink(m: SkynetMap, bots: tuple[str, ...], all_bots: bool = True,
           agent: str = "worst") -> SkynetMap:
    """Remove nodes, then links, while the map stays winnable and every one of ``bots``
    (the bots it breaks) still loses under ``agent`` (greedy, to a fixpoint: the result is
    locally minimal). ``all_bots`` is kept for callers of the older signature."""
    changed = True
    while changed:
        changed = False
        for x in reversed(range(m.n)):  # removing x keeps the ids below x: scan on
            smaller = _without_node(m, x) if x < m.n else None
            if smaller is not None and _same_bots_lose(smaller, bots, agent):
                m, changed = smaller, True
        for link in list(m.links):
            smaller = _without_link(m, link)
            if _same_bots_lose(smaller, bots, agent):
                m, changed = smaller, True
    return m


def locally_minimal(m: SkynetMap, bots: tuple[str, ...], agent: str = "worst") -> bool:
    """No single node or link can be removed while the map stays winnable and the same
    bots still lose under ``agent``."""
    return not any(_same_bots_lose(s, bots, agent) for s in _smaller(m))


def attempt(p: SkyParams, k: int) -> list["Breaker | Defect"]:
    """Attempt ``k`` on its own (its map is drawn from ``f"{seed}:{k}"``): the defect reports
    of the bots that failed on it, then the breaker when it is one (shrunk, re-judged)."""
    rng = random.Random(f"{p.seed}:{k}")
    m = _random_map(rng, p)
    if m is None:
        return []
    got = _breaks(m, p.bots, p.all_bots, p.agent, p.min_beaten)
    if got is None:
        return []
    out: list[Breaker | Defect] = [Defect(m, b, p.agent, rec.get("reason") or "?", rec, k)
                                   for b, rec in got[2]]
    n0, l0 = m.n, len(m.links)
    beaten = tuple(got[0])
    if p.shrink:
        m = shrink(m, beaten, agent=p.agent)
    tag = "" if p.agent == "article" else f"-{p.agent}"
    name = f"breaker-{p.style}{tag}-n{n0}-s{p.seed}-{k}"
    m = SkynetMap(m.n, m.links, m.gateways, m.start, name=name,
                  gateway_order=m.gateway_order)
    games, strategies, _ = _breaks(m, beaten, True, p.agent, len(beaten))  # type: ignore[misc]
    for rec in games.values():
        rec["map"]["name"] = name
    first = next(iter(games.values()))
    out.append(Breaker(m, m.start, list(games), first, k, n0, l0, agent=p.agent,  # type: ignore[arg-type]
                       games=games, strategy=strategies[_rule(beaten[0])]))
    return out


def generate(p: SkyParams, jobs: Any = 1,
             on_attempt: Any = None) -> Iterator["Breaker | Defect"]:
    """Breakers, in attempt order, until ``count`` are found or attempts run out; a
    :class:`Defect` is yielded (and the bot not counted) whenever a bot fails on a map.
    ``on_attempt(attempts, found)`` hears each round judged.

    Attempts are judged on ``jobs`` (local processes or an
    :class:`~puzzleproof.executor.ExecutorSpec`) a round at a time and yielded in attempt
    order, so every executor gives the same maps."""
    from puzzleproof import executor

    found = 0
    todo = (k for k in range(p.max_attempts) if k not in p.skip)
    with executor.open_pool(jobs) as pool:
        size = 2 * pool.slots if pool.spec.parallel else 1
        while found < p.count:
            batch = [k for _, k in zip(range(size), todo)]
            if not batch:
                return
            results: dict[int, list] = {}
            for k, res in pool.stream(attempt, batch, args=lambda k: (p, k),
                                      name=lambda k: f"attempt {k}"):
                if isinstance(res, executor.TaskFailure):
                    raise RuntimeError(res.message)
                results[k] = res
            for k in batch:
                for item in results[k]:
                    if found >= p.count:
                        return
                    if isinstance(item, Breaker):
                        found += 1
                    yield item
            if on_attempt is not None:
                on_attempt(batch[-1] + 1, found)
