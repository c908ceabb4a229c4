"""Models of the Skynet agent (the second player), and how well they explain real logs.

CodinGame's agent code is not public. An agent here sees the state after the player's cut and
returns the node it moves to. Every model first steps onto an adjacent gateway when it can.

- ``article``: the Episode 2 article's model: head for the nearest node linked to more than
  one gateway; if none, the nearest node linked to one; if none, the nearest gateway; move one
  step along a shortest path to it. Distances run over uncut links and never through a
  gateway.
- ``nearest``: one step along a shortest path to the nearest gateway.
- ``random``: a seeded random move.
- ``worst``: into a position the player cannot win from, by the exact solver (a move rule).

Ties are broken by ``tiebreak``: ``low`` (smallest node id), ``high`` (largest), or ``order``
(the order links appear in the map). :func:`measure_traces` replays CodinGame's logs and
counts, for each model and tie-break, how many logged agent moves it reproduces.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections import deque
from typing import Callable

from puzzleproof.models.skynet import SkynetMap, State, agent_moves, check_cut

__all__ = ["Agent", "AGENTS", "TIEBREAKS", "make_agent", "measure_traces"]

TIEBREAKS = ("low", "high", "order")


def _pick(cands: list[int], tiebreak: str, order: list[int]) -> int:
    if tiebreak == "low":
        return min(cands)
    if tiebreak == "high":
        return max(cands)
    rank = {v: k for k, v in enumerate(order)}
    return min(cands, key=lambda v: rank.get(v, len(rank) + v))


class _View:
    """The uncut links as neighbour lists (in the map's order), kept from turn to turn: a
    turn removes a link or two, so the lists are updated by the links that went, not
    rebuilt (a game on a 500-node map asks hundreds of moves). Any other state (a position
    out of order, as a search asks) is built afresh."""

    def __init__(self, m: SkynetMap) -> None:
        self.map = m
        self.links: frozenset | None = None
        self.adj: list[list[int]] = []

    def of(self, state: State) -> list[list[int]]:
        links = state.links
        if links is self.links:
            return self.adj
        old = self.links
        if old is not None and len(links) <= len(old) and links <= old:
            adj = self.adj
            for u, v in old - links:
                adj[u].remove(v)
                adj[v].remove(u)
        else:
            self.adj = [[v for v, link in inc if link in links] for inc in self.map.incident]
        self.links = links
        return self.adj


def _bfs(adj: list[list[int]], gates: frozenset[int] | set[int], source: int
         ) -> dict[int, int]:
    """Distances from ``source`` over uncut links (``adj``); gateways are reached but not
    passed."""
    dist = {source: 0}
    queue = deque([source])
    while queue:
        u = queue.popleft()
        if u in gates and u != source:
            continue
        du = dist[u] + 1
        for v in adj[u]:
            if v not in dist:
                dist[v] = du
                queue.append(v)
    return dist


class Agent(ABC):
    """Base class: ``reset`` with the map, then ``move(state)`` once per turn."""

    name = "agent"

    def __init__(self, tiebreak: str = "low", seed: int | None = None) -> None:
        if tiebreak not in TIEBREAKS:
            raise ValueError(f"tiebreak must be one of {TIEBREAKS}")
        self.tiebreak = tiebreak
        self.seed = seed
        self.map: SkynetMap | None = None

    def reset(self, m: SkynetMap, rule: str) -> None:
        self.map = m
        self._view = _View(m)

    @abstractmethod
    def move(self, state: State) -> int:
        """The node the agent moves to from ``state`` (after the player's cut)."""

    def _adj(self, state: State) -> list[list[int]]:
        view = getattr(self, "_view", None)
        if view is None or view.map is not state.map:
            view = self._view = _View(state.map)
        return view.of(state)

    def _step_towards(self, state: State, target: int) -> int:
        """A first step on a shortest path from the agent to ``target``."""
        adj = self._adj(state)
        back = _bfs(adj, state.map.gateways, target)
        nbs = adj[state.agent]
        best = min(back.get(v, 10 ** 9) for v in nbs)
        cands = [v for v in nbs if back.get(v, 10 ** 9) == best]
        return _pick(cands, self.tiebreak, list(state.map.neighbours[state.agent]))

    def _gateway_now(self, state: State) -> int | None:
        gates = [v for v in self._adj(state)[state.agent] if v in state.map.gateways]
        return _pick(gates, self.tiebreak, list(state.map.neighbours[state.agent])) if gates else None


class ArticleAgent(Agent):
    name = "article"

    def move(self, state: State) -> int:
        g = self._gateway_now(state)
        if g is not None:
            return g
        adj = self._adj(state)
        if not adj[state.agent]:
            return state.agent
        m = state.map
        gates = m.gateways
        dist = _bfs(adj, gates, state.agent)
        links_to_gates = {v: sum(1 for w in adj[v] if w in gates)
                          for v in dist if v not in gates}
        for want in (lambda v: links_to_gates.get(v, 0) > 1,
                     lambda v: links_to_gates.get(v, 0) == 1,
                     lambda v: v in gates):
            targets = [v for v in dist if v != state.agent and want(v)]
            if targets:
                d = min(dist[v] for v in targets)
                target = _pick([v for v in targets if dist[v] == d], self.tiebreak,
                               list(range(m.n)))
                return self._step_towards(state, target)
        return _pick(list(adj[state.agent]), self.tiebreak, list(m.neighbours[state.agent]))


class NearestAgent(Agent):
    name = "nearest"

    def move(self, state: State) -> int:
        g = self._gateway_now(state)
        if g is not None:
            return g
        m = state.map
        adj = self._adj(state)
        dist = _bfs(adj, m.gateways, state.agent)
        gates = [v for v in dist if v in m.gateways]
        if not gates:
            moves = list(adj[state.agent]) or [state.agent]
            return _pick(moves, self.tiebreak, list(m.neighbours[state.agent]))
        d = min(dist[v] for v in gates)
        target = _pick([v for v in gates if dist[v] == d], self.tiebreak, list(range(m.n)))
        return self._step_towards(state, target)


class RandomAgent(Agent):
    name = "random"

    def reset(self, m: SkynetMap, rule: str) -> None:
        super().reset(m, rule)
        self.rng = random.Random(self.seed if self.seed is not None else 0)

    def move(self, state: State) -> int:
        g = self._gateway_now(state)
        if g is not None:
            return g
        return self.rng.choice(sorted(agent_moves(state)))


class WorstAgent(Agent):
    """Moves into a position the player cannot win from when the exact solver finds one,
    else towards the nearest gateway. A move rule, **not** the worst case for a bot (it does
    not search the bot's answers): ``skynet referee --agent worst`` and ``crosscheck skynet``
    judge a bot with the adversary (:mod:`puzzleproof.games.skynet_adversary`)."""

    name = "worst"

    def reset(self, m: SkynetMap, rule: str) -> None:
        from puzzleproof.encoders.skynet_oracle import oracle_for

        super().reset(m, rule)
        self.oracle = oracle_for(m, rule)
        self.fallback = NearestAgent(self.tiebreak)
        self.fallback.reset(m, rule)

    def move(self, state: State) -> int:
        gate = self._gateway_now(state)
        if gate is not None:
            return gate
        for v in agent_moves(state):
            if self.oracle.player_wins(v, state.links) is False:
                return v
        return self.fallback.move(state)


AGENTS: dict[str, Callable[..., Agent]] = {
    "article": ArticleAgent,
    "nearest": NearestAgent,
    "random": RandomAgent,
    "worst": WorstAgent,
}


def make_agent(name: str, tiebreak: str = "low", seed: int | None = None) -> Agent:
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; expected one of {', '.join(AGENTS)}")
    return AGENTS[name](tiebreak=tiebreak, seed=seed)


def measure_traces(traces: dict, maps: dict[str, SkynetMap],
                   agents: tuple[str, ...] = ("article", "nearest")) -> dict:
    """For each logged game and agent model × tie-break: logged agent moves reproduced.

    ``traces`` is the JSON of ``ep2-observed-traces.json``; ``maps`` maps its keys to maps
    (logs without cuts are reported as skipped).
    Returns ``{key: {"moves": n, "models": {"article/low": matched, ...}, "best": ...}}``.
    """
    out: dict = {}
    for key, log in traces.items():
        if "turns" not in log:  # e.g. positions logged without the cuts: cannot be replayed
            out[key] = {"moves": 0, "models": {}, "best": 0, "best_models": [],
                        "skipped": log.get("note", "no turns logged")}
            continue
        m = maps[key]
        turns = log["turns"]
        scores: dict[str, int] = {}
        total = sum(1 for t in turns if t.get("agent_moved_to") is not None)
        for name in agents:
            for tb in TIEBREAKS:
                agent = make_agent(name, tb)
                agent.reset(m, "ep2")
                state = m.initial_state(log.get("start", m.start))
                hit = 0
                for t in turns:
                    if t["agent_at"] != state.agent or check_cut(m, state, t["cut"], "ep2"):
                        break
                    state = state.cut(tuple(t["cut"]))
                    if t.get("agent_moved_to") is None:
                        break
                    hit += agent.move(state) == t["agent_moved_to"]
                    state = state.move(t["agent_moved_to"])
                scores[f"{name}/{tb}"] = hit
        best = max(scores.values()) if scores else 0
        out[key] = {"moves": total, "models": scores, "best": best,
                    "best_models": sorted(k for k, v in scores.items() if v == best)}
    return out
