"""The articles' Skynet bots, ported from their descriptions, behind one small interface.

A bot is reset with the map as CodinGame gives it (nodes, links in input order, gateways in
input order) and then asked for one cut per turn given the agent's node. It keeps its own view
of the graph (it knows what it cut), exactly like a CodinGame program.

Episode 1 (``../shared/seeds/skynet-ep1-article.txt``):

- ``ep1-article``: the author's final JavaScript, step by step: cut a gateway link next to the
  agent; else, when the agent has exactly two neighbours, cut the link to the one with more
  neighbours (the second on a tie... as the code's ``<`` test gives: the first unless the
  second has strictly more); else the ring trap: list the neighbours of each gateway that have
  exactly 3 neighbours, take the first, and cut its link to another node of that list; if it has
  none, cut the agent's link to its first neighbour. The JavaScript reads ``graph[undefined]``
  (a TypeError) when no gateway neighbour has 3 neighbours; the author's text says what was
  meant ("it can happen that such a neighbour isn't present anymore. In this case we cut a
  random neighbour close to the agent"), so the port takes that branch then: the agent's
  link to its first neighbour (any remaining link when the agent has none). A crash of our
  own port would be our bug, not a finding about the strategy.
- ``ep1-path``: the plainer strategy the author lists: cut the last link of a shortest path
  from the agent to the nearest gateway.
- ``ep1-front``: the author's first two ideas, "encircle the agent", as people write them:
  cut the agent's gateway link if any, else the agent's link to its neighbour nearest a
  gateway (the first link of a shortest path; ties: smallest id).

Episode 2 (``../shared/seeds/skynet-ep2-dfs-article.txt``, pseudocode partly garbled):

- ``ep2-article``: cut a gateway link next to the agent when there is one. Otherwise compute
  ``connected_gw`` (gateway links per node), ``dist_closest_gw`` (BFS from the gateways) and the
  "shortest turn cost" from the agent (a BFS in which the first step costs 1 and a step onto a
  gateway-linked node after that costs 0: the article's ``parent >= 0`` test, reading its two
  garbled ``new_cost`` lines as the two branches of that test). Then the DFS from the agent
  through gateway-linked nodes, visiting neighbours from a priority queue (more linked
  gateways first, then nearer to a gateway, then smaller id), and flagging a node whose
  ``connected_gw`` exceeds its turn cost. The article stops at the flag; our reading of the
  decision: cut a gateway link of the first flagged node; with no flag, cut a gateway link of
  the double-gateway node with the smallest turn cost (then nearest, then smallest id); with no
  double-gateway node, the gateway link of the nearest gateway-linked node.
- ``ep2-slack``: the common public rule: cut the agent's gateway link if any; else a 0-1 BFS
  from the agent where entering a gateway-linked node costs 0 and any other node 1, and cut a
  link of the double-gateway node with the least slack (that distance; ties: smallest id);
  with no double-gateway node, the gateway link of the nearest gateway-linked node.

Bots as people write them (public Episode 2 solutions), each a plain rule:

- ``ep2-double``: cut the agent's gateway link if any; else a gateway link of the nearest
  node (BFS from the agent, not through gateways; ties: smallest id) linked to two or more
  gateways; else the gateway link nearest the agent.
- ``ep2-nearest``: cut the agent's gateway link if any; else the gateway link nearest the
  agent (the gateway link of the nearest gateway-linked node; ties: smallest id).
- ``ep2-pqdfs``: the priority-queue DFS as it is usually written from the article: a DFS
  from the agent through gateway-linked nodes only, visiting each node's unvisited
  neighbours from a priority queue (more linked gateways first, then nearer to a gateway,
  then smaller id); cut a gateway link of the first node it reaches that is linked to two or
  more gateways (the agent's most pressing threat); if it reaches none, a gateway link of
  the nearest double-gateway node; else the gateway link nearest the agent. It differs from
  ``ep2-article`` in that it does not weigh the turn cost at all.

Every bot is deterministic and decides from the position alone (the agent's node and the
links left, with the input's order of links and gateways).

Every bot ends with a fallback that cuts some remaining gateway link (or any link), so it
always answers while a link is left.
"""

from __future__ import annotations

import copy

import heapq
from abc import ABC, abstractmethod
from collections import deque
from typing import Callable

from puzzleproof.models.skynet import Link, SkynetMap

__all__ = ["Bot", "BotFailure", "BOTS", "SUMMARIES", "CUTS_AGENT_GATEWAY_LINK", "make_bot",
           "bot_list"]


class BotFailure(Exception):
    """The ported program would have failed here (the referee reports a crash)."""


class Bot(ABC):
    """One cut per turn: ``reset(map)`` once, then ``cut(agent_node)`` each turn."""

    name = "bot"
    rule = "ep2"

    def reset(self, m: SkynetMap) -> None:
        self.map = m
        self.gates = list(m.gateway_order)
        self.graph: list[list[int]] = [[] for _ in range(m.n)]
        for u, v in m.links:
            self.graph[u].append(v)
            self.graph[v].append(u)

    def _remove(self, u: int, v: int) -> None:
        self.graph[u] = [x for x in self.graph[u] if x != v]
        self.graph[v] = [x for x in self.graph[v] if x != u]

    def cut(self, agent: int) -> Link:
        u, v = self.choose(agent)
        self._remove(u, v)
        return (u, v)

    @abstractmethod
    def choose(self, agent: int) -> Link:
        """The link to cut this turn, given the agent's node."""

    # -- helpers shared by the bots --------------------------------------------------------
    def gate_links(self, x: int) -> list[int]:
        return [g for g in self.graph[x] if g in self.map.gateways]

    def forced_cut(self, agent: int) -> Link | None:
        """The agent's own gateway link, when it has one: every Episode 2 bot cuts it first."""
        gl = self.gate_links(agent)
        return (agent, gl[0]) if gl else None

    def gateway_link_counts(self) -> list[int]:
        """For each node, how many gateways it is still linked to (0 for gateways)."""
        return [0 if x in self.map.gateways else len(self.gate_links(x))
                for x in range(self.map.n)]

    def dist_to_gateway(self) -> list[float]:
        """BFS distance from every node to its closest gateway (not through gateways)."""
        inf = float("inf")
        dist = [inf] * self.map.n
        queue = deque()
        for g in self.gates:
            dist[g] = 0
            queue.append(g)
        while queue:
            u = queue.popleft()
            for v in self.graph[u]:
                if v not in self.map.gateways and dist[v] == inf:
                    dist[v] = dist[u] + 1
                    queue.append(v)
        return dist

    def fallback(self, agent: int) -> Link:
        for x in sorted(range(self.map.n), key=lambda y: (y != agent, y)):
            gl = self.gate_links(x)
            if gl and x not in self.map.gateways:
                return (x, gl[0])
        for u in range(self.map.n):
            if self.graph[u]:
                return (u, self.graph[u][0])
        raise BotFailure("no link left to cut")


class Ep1ArticleBot(Bot):
    name = "ep1-article"
    rule = "ep1"

    def choose(self, agent: int) -> Link:
        neighbours = self.graph[agent]
        gate = next((n for n in neighbours if n in self.map.gateways), None)
        if gate is not None:
            return (gate, agent)
        if len(neighbours) == 2:
            n0, n1 = neighbours
            return (n1 if len(self.graph[n0]) < len(self.graph[n1]) else n0, agent)
        gate_neighbours = [gn for g in self.map.gateway_order for gn in self.graph[g]
                           if len(self.graph[gn]) == 3]
        r2 = None
        if gate_neighbours:
            r1 = gate_neighbours[0]
            r2 = next((n for n in self.graph[r1] if n in gate_neighbours), None)
        if r2 is None:
            # the article: "it can happen that such a neighbour isn't present anymore. In
            # this case we cut a random neighbour close to the agent" (its code's
            # neighbours[0]); the code reached this only when the list was not empty
            if not neighbours:
                return self.fallback(agent)
            return (neighbours[0], agent)
        return (r1, r2)


class Ep1PathBot(Bot):
    name = "ep1-path"
    rule = "ep1"

    def choose(self, agent: int) -> Link:
        parent = {agent: -1}
        queue = deque([agent])
        while queue:
            u = queue.popleft()
            for v in sorted(self.graph[u]):
                if v in parent:
                    continue
                parent[v] = u
                if v in self.map.gateways:
                    return (u, v)
                queue.append(v)
        return self.fallback(agent)


class Ep1FrontBot(Bot):
    name = "ep1-front"
    rule = "ep1"

    def choose(self, agent: int) -> Link:
        gl = self.gate_links(agent)
        if gl:
            return (agent, gl[0])
        dist = self.dist_to_gateway()
        near = [v for v in self.graph[agent] if dist[v] != float("inf")]
        if near:
            v = min(near, key=lambda y: (dist[y], y))
            return (agent, v)
        return self.fallback(agent)


class Ep2ArticleBot(Bot):
    name = "ep2-article"
    rule = "ep2"

    def turn_cost(self, source: int, connected: list[int]) -> list[float]:
        inf = float("inf")
        cost = [inf] * self.map.n
        cost[source] = 0
        queue = deque([(source, -1)])
        while queue:
            cur, parent = queue.popleft()
            if cur in self.map.gateways:
                continue
            for i in self.graph[cur]:
                new = cost[cur] if connected[i] > 0 and parent >= 0 else cost[cur] + 1
                if new < cost[i]:
                    cost[i] = new
                    queue.append((i, cur))
        return cost

    def choose(self, agent: int) -> Link:
        """The Episode 2 bots differ only in the node whose gateway link they cut: the
        agent's own gateway link first, then a gateway link of the node :meth:`target`
        picks, else the gateway link nearest the agent."""
        forced = self.forced_cut(agent)
        if forced:
            return forced
        connected = self.gateway_link_counts()
        x = self.target(agent, connected)
        if x is not None:
            return (x, self.gate_links(x)[0])
        return self._nearest_gate_link(agent, connected)

    def target(self, agent: int, connected: list[int]) -> int | None:
        """The article's node: the first its priority-queue DFS flags (more gateway links
        than turns to reach it), else the double-gateway node of least turn cost."""
        n = self.map.n
        dist = self.dist_to_gateway()
        cost = self.turn_cost(agent, connected)
        flagged: list[int] = []
        seen = [False] * n

        def dfs(cur: int) -> None:
            seen[cur] = True
            pq: list[tuple] = []
            for i in self.graph[cur]:
                if not seen[i] and connected[i] > 0:
                    heapq.heappush(pq, (-connected[i], dist[i], i))
                    seen[i] = True
            while pq:
                _, _, node = heapq.heappop(pq)
                if connected[node] > cost[node]:
                    flagged.append(node)
                dfs(node)

        dfs(agent)
        if flagged:
            return flagged[0]
        doubles = [x for x in range(n) if connected[x] > 1 and cost[x] != float("inf")]
        return min(doubles, key=lambda y: (cost[y], dist[y], y)) if doubles else None

    def _nearest_gate_link(self, agent: int, connected: list[int]) -> Link:
        seen = {agent}
        queue = deque([agent])
        while queue:
            u = queue.popleft()
            if connected[u] > 0:
                return (u, self.gate_links(u)[0])
            for v in sorted(self.graph[u]):
                if v not in seen and v not in self.map.gateways:
                    seen.add(v)
                    queue.append(v)
        return self.fallback(agent)


class Ep2SlackBot(Ep2ArticleBot):
    name = "ep2-slack"
    rule = "ep2"

    def target(self, agent: int, connected: list[int]) -> int | None:
        """The double-gateway node of least slack: nearest by a 0-1 BFS in which a node
        linked to a gateway costs no free turn."""
        n = self.map.n
        inf = float("inf")
        dist = [inf] * n
        dist[agent] = 0
        dq = deque([agent])
        while dq:
            u = dq.popleft()
            for v in self.graph[u]:
                if v in self.map.gateways:
                    continue
                w = 0 if connected[v] > 0 else 1
                if dist[u] + w < dist[v]:
                    dist[v] = dist[u] + w
                    (dq.appendleft if w == 0 else dq.append)(v)
        doubles = [x for x in range(n) if connected[x] > 1 and dist[x] < inf]
        return min(doubles, key=lambda y: (dist[y], y)) if doubles else None


class Ep2NearestBot(Ep2ArticleBot):
    name = "ep2-nearest"
    rule = "ep2"

    def target(self, agent: int, connected: list[int]) -> int | None:
        return None  # always the gateway link nearest the agent


class Ep2DoubleBot(Ep2ArticleBot):
    name = "ep2-double"
    rule = "ep2"

    def target(self, agent: int, connected: list[int]) -> int | None:
        return self.nearest_double(agent, connected)

    def nearest_double(self, agent: int, connected: list[int]) -> int | None:
        """The nearest node (BFS from the agent, not through gateways) with two or more
        gateway links; ties: smallest id."""
        dist = {agent: 0}
        queue = deque([agent])
        while queue:
            u = queue.popleft()
            for v in self.graph[u]:
                if v not in dist and v not in self.map.gateways:
                    dist[v] = dist[u] + 1
                    queue.append(v)
        doubles = [x for x in dist if connected[x] > 1]
        return min(doubles, key=lambda y: (dist[y], y)) if doubles else None


class Ep2PqDfsBot(Ep2DoubleBot):
    name = "ep2-pqdfs"
    rule = "ep2"

    def target(self, agent: int, connected: list[int]) -> int | None:
        """The first double-gateway node the priority-queue DFS reaches, else the
        nearest."""
        dist = self.dist_to_gateway()
        seen = {agent}
        stack: list[list[tuple]] = []

        def children(cur: int) -> list[tuple]:
            pq: list[tuple] = []
            for i in self.graph[cur]:
                if i not in seen and connected[i] > 0:
                    seen.add(i)
                    heapq.heappush(pq, (-connected[i], dist[i], i))
            return pq

        stack.append(children(agent))
        while stack:  # the DFS, iteratively (maps of 500 nodes nest deeply)
            pq = stack[-1]
            if not pq:
                stack.pop()
                continue
            _, _, node = heapq.heappop(pq)
            if connected[node] > 1:
                return node
            stack.append(children(node))
        return self.nearest_double(agent, connected)


class ExactBot(Ep2SlackBot):
    """Plays a proved strategy. On its first turn (when the protocol reveals the start) it
    decides the game by iterative SAT (:mod:`puzzleproof.encoders.skynet_sat`); when the
    player wins it keeps the solver's strategy (:class:`PlayerStrategy`: the proposal's
    cuts on its tree of agent lines, the default policy off it) and plays it move by move,
    so every later turn is a lookup. The same strategy, written out for every agent move,
    is what ``solve skynet`` replays as its certificate. From a lost position (no strategy
    wins against every agent) it plays the slack bot's cut and hopes the agent errs.

    Its cuts depend on the agent's history (the tree), not only on the position; the
    worst-case agent's search memoises positions, which stays exact here because from a won
    start every history is won and from a lost start the bot is the slack bot throughout."""

    name = "exact"

    def __init__(self, rule: str = "ep2") -> None:
        from puzzleproof.clock import Deadline

        self.rule = rule
        self.name = "exact" if rule == "ep2" else f"exact-{rule}"
        #: the clock of the task the bot is played in: its first turn decides by it, and
        #: past it the bot plays as from a lost position (the slack bot)
        self.deadline = Deadline(None)

    def reset(self, m: SkynetMap) -> None:
        super().reset(m)
        self.plan = None
        self.cuttable: list[Link] = []
        self.after: tuple | None = None
        self.proved: bool | None = None

    def choose(self, agent: int) -> Link:
        if self.proved is None:
            from puzzleproof.encoders.cegar import HOLDS, Budget
            from puzzleproof.encoders.skynet_sat import PlayerStrategy, Reduced, decide

            red = Reduced(self.map, self.rule, agent)
            if not red.threat:
                self.proved = True
                return super().choose(agent)
            d = decide(red, red.K, False, Budget(deadline=self.deadline.at))
            self.proved = d.status == HOLDS
            if self.proved:
                self.plan = PlayerStrategy(red, d.proposer, d.candidate or {})
                self.cuttable = red.cuttable
                pos = self.plan.start
        elif self.plan is not None:
            pos = self.plan.follow(self.after, agent)
        if self.plan is None:
            return super().choose(agent)
        k, self.after = self.plan.step(pos)
        return self.cuttable[k]

    def __deepcopy__(self, memo: dict) -> "ExactBot":
        # the worst-case agent copies bots at every branch: share the strategy (never
        # changed after the first turn) and the current position, copy the rest
        for shared in (self.plan, self.cuttable, self.after):
            memo[id(shared)] = shared
        new = self.__class__.__new__(self.__class__)
        memo[id(self)] = new
        for k, v in self.__dict__.items():
            setattr(new, k, copy.deepcopy(v, memo))
        return new


BOTS: dict[str, Callable[[], Bot]] = {
    "exact": ExactBot,
    "exact-ep1": lambda: ExactBot("ep1"),
    "ep1-article": Ep1ArticleBot,
    "ep1-path": Ep1PathBot,
    "ep1-front": Ep1FrontBot,
    "ep2-article": Ep2ArticleBot,
    "ep2-slack": Ep2SlackBot,
    "ep2-double": Ep2DoubleBot,
    "ep2-nearest": Ep2NearestBot,
    "ep2-pqdfs": Ep2PqDfsBot,
}

#: one line per bot, for help texts and the registry (kept beside the bots they describe)
SUMMARIES: dict[str, str] = {
    "exact": "our bot playing the proved strategy (ep2)",
    "exact-ep1": "our bot playing the proved strategy (ep1)",
    "ep1-article": "the Episode 1 article's bot",
    "ep1-path": "cut the last link of the agent's shortest path to a gateway",
    "ep1-front": "cut the agent's gateway link, else its link toward the nearest gateway",
    "ep2-article": "the Episode 2 article's bot (priority-queue DFS with turn costs)",
    "ep2-slack": "the common 0-1 BFS least-slack rule",
    "ep2-double": "the agent's gateway link, else a link of the nearest double-gateway node",
    "ep2-nearest": "the agent's gateway link, else the gateway link nearest the agent",
    "ep2-pqdfs": "priority-queue DFS: first double-gateway node the DFS reaches",
}

#: bots that cut the agent's own gateway link whenever it has one (so none of them can lose
#: a map where every node links to at most one gateway)
CUTS_AGENT_GATEWAY_LINK = ("ep1-article", "ep1-path", "ep1-front", "ep2-article",
                           "ep2-slack", "ep2-double", "ep2-nearest", "ep2-pqdfs")


def bot_list(rule: str | None = None) -> str:
    """Our bots' names, for help texts (from the registry, so a new bot shows up)."""
    names = [b for b in BOTS if rule is None or make_bot(b).rule == rule]
    return ", ".join(names)


def make_bot(name: str) -> Bot:
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r}; expected one of {', '.join(BOTS)}")
    return BOTS[name]()
