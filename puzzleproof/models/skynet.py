"""Skynet Revolution (CodinGame, "Death First Search"): the map, the state and the rules.

An undirected graph of ``n`` nodes; some nodes are gateways; an agent starts at ``start``.
Each turn the player severs one link, then the agent moves along an uncut link to a neighbour
(it stays only when it has none). The agent wins on reaching a gateway; the player wins when no
gateway is reachable from the agent.

Rules, as a parameter:

- ``ep1``: any remaining link may be cut (Episode 1; maps have at most one gateway link per
  node, which :meth:`SkynetMap.ep1_problems` reports).
- ``ep2``: only a link that touches a gateway may be cut; cutting another loses (Episode 2).

Cutting a link that does not exist (or was cut already) loses under both rules.

Example:
    >>> m = SkynetMap(4, ((0, 1), (0, 2), (1, 3), (2, 3)), frozenset({3}), start=0)
    >>> s = m.initial_state()
    >>> check_cut(m, s, (1, 3), "ep1"), check_cut(m, s, (0, 1), "ep2")
    (None, 'link 0-1 touches no gateway (ep2 rule)')
    >>> s = s.cut((1, 3)); sorted(agent_moves(s))
    [1, 2]
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable

from puzzleproof.errors import InputError

__all__ = ["RULES", "Link", "SkynetMap", "State", "Turn", "GameRecord", "replay", "norm",
           "check_cut", "legal_cuts",
           "agent_moves", "outcome", "gateway_distance"]

RULES = ("ep1", "ep2")
Link = tuple[int, int]


def norm(u: int, v: int) -> Link:
    return (u, v) if u <= v else (v, u)


@dataclass(frozen=True)
class SkynetMap:
    """A map: ``n`` nodes ``0..n-1``, undirected ``links``, ``gateways``, the agent's ``start``
    (None when not given), optional drawing ``coords`` (one ``(x, y)`` per node)."""

    n: int
    links: tuple[Link, ...]
    gateways: frozenset[int]
    start: int | None = None
    coords: tuple[tuple[float, float], ...] | None = None
    name: str | None = field(default=None, compare=False)
    #: the gateways in the order the input listed them (bots iterate in that order)
    gateway_order: tuple[int, ...] = field(default=(), compare=False)
    #: the rule the map is played under by default ("ep1" for a map of an Episode 1 set:
    #: its folder's SET.json says so), None when the map does not say
    rule: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.n < 1:
            raise InputError(f"a map needs at least one node, found {self.n}")
        seen: set[Link] = set()
        links = []
        for u, v in self.links:
            for x in (u, v):
                if not 0 <= x < self.n:
                    raise InputError(f"link {u}-{v}: node {x} out of range 0..{self.n - 1}")
            if u == v:
                raise InputError(f"link {u}-{v} joins a node to itself")
            key = norm(u, v)
            if key in seen:
                raise InputError(f"link {u}-{v} appears twice")
            seen.add(key)
            links.append(key)
        object.__setattr__(self, "links", tuple(links))
        if not self.gateways:
            raise InputError("a map needs at least one gateway")
        for g in self.gateways:
            if not 0 <= g < self.n:
                raise InputError(f"gateway {g} out of range 0..{self.n - 1}")
        if self.start is not None:
            if not 0 <= self.start < self.n:
                raise InputError(f"start {self.start} out of range 0..{self.n - 1}")
            if self.start in self.gateways:
                raise InputError(f"the agent starts on gateway {self.start}")
        if not self.gateway_order or set(self.gateway_order) != set(self.gateways):
            object.__setattr__(self, "gateway_order", tuple(sorted(self.gateways)))
        if self.coords is not None and len(self.coords) != self.n:
            raise InputError(f"{len(self.coords)} coordinates for {self.n} nodes")

    def __deepcopy__(self, memo: dict) -> "SkynetMap":
        # immutable (its cached tables too): copies of bots and states share it, which
        # keeps the worst-case agent's copy of the bot at every branch cheap
        return self

    @cached_property
    def neighbours(self) -> tuple[tuple[int, ...], ...]:
        adj: list[list[int]] = [[] for _ in range(self.n)]
        for u, v in self.links:
            adj[u].append(v)
            adj[v].append(u)
        return tuple(tuple(a) for a in adj)

    @cached_property
    def incident(self) -> tuple[tuple[tuple[int, Link], ...], ...]:
        """Per node, (neighbour, the link to it) for every link at the node."""
        return tuple(tuple((v, norm(u, v)) for v in self.neighbours[u]) for u in range(self.n))

    @cached_property
    def gateway_links(self) -> frozenset[Link]:
        return frozenset(l for l in self.links if l[0] in self.gateways or l[1] in self.gateways)

    def ep1_problems(self) -> list[str]:
        """Nodes linked to more than one gateway (Episode 1 maps have none)."""
        out = []
        for x in range(self.n):
            if x in self.gateways:
                continue
            gs = sorted(g for g in self.neighbours[x] if g in self.gateways)
            if len(gs) > 1:
                out.append(f"node {x} is linked to {len(gs)} gateways ({', '.join(map(str, gs))})")
        return out

    def with_start(self, start: int) -> "SkynetMap":
        return SkynetMap(self.n, self.links, self.gateways, start, self.coords, self.name,
                         self.gateway_order, self.rule)

    def initial_state(self, start: int | None = None) -> "State":
        s = self.start if start is None else start
        if s is None:
            raise InputError("the map gives no start node; name one")
        if not 0 <= s < self.n or s in self.gateways:
            raise InputError(f"start {s} must be a node 0..{self.n - 1} that is not a gateway")
        return State(self, s, frozenset(self.links))


@dataclass(frozen=True)
class State:
    """The agent's node and the links not cut yet."""

    map: SkynetMap = field(repr=False)
    agent: int
    links: frozenset[Link]

    def cut(self, link: Link) -> "State":
        return State(self.map, self.agent, self.links - {norm(*link)})

    def move(self, node: int) -> "State":
        return State(self.map, node, self.links)

    def neighbours(self, node: int) -> list[int]:
        links = self.links
        return [v for v, link in self.map.incident[node] if link in links]


def check_cut(m: SkynetMap, state: State, link: Iterable[int], rule: str) -> str | None:
    """Why cutting ``link`` is illegal now (None when it is legal)."""
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}")
    u, v = link
    if not (0 <= u < m.n and 0 <= v < m.n):
        return f"link {u}-{v} names a node outside 0..{m.n - 1}"
    key = norm(u, v)
    if key not in state.links:
        return (f"link {u}-{v} was cut already" if key in set(m.links)
                else f"there is no link {u}-{v}")
    if rule == "ep2" and u not in m.gateways and v not in m.gateways:
        return f"link {u}-{v} touches no gateway (ep2 rule)"
    return None


def legal_cuts(state: State, rule: str) -> list[Link]:
    m = state.map
    if rule == "ep2":
        return sorted(l for l in state.links if l in m.gateway_links)
    return sorted(state.links)


def agent_moves(state: State) -> list[int]:
    """Where the agent may go: its neighbours over uncut links, or its own node if none."""
    nb = state.neighbours(state.agent)
    return nb if nb else [state.agent]


def gateway_distance(state: State) -> int | None:
    """Links from the agent to the nearest gateway over uncut links (None: none reachable).
    Paths do not pass through a gateway (the game ends there)."""
    m = state.map
    if state.agent in m.gateways:
        return 0
    incident, links, gates = m.incident, state.links, m.gateways
    dist = {state.agent: 0}
    queue = deque([state.agent])
    while queue:
        u = queue.popleft()
        du = dist[u] + 1
        for v, link in incident[u]:
            if v in dist or link not in links:
                continue
            if v in gates:
                return du
            dist[v] = du
            queue.append(v)
    return None


def outcome(state: State) -> str | None:
    """``"LOSS"`` (the agent is on a gateway), ``"WIN"`` (no gateway reachable) or None."""
    if state.agent in state.map.gateways:
        return "LOSS"
    if gateway_distance(state) is None:
        return "WIN"
    return None


@dataclass
class Turn:
    """One turn: where the agent was, the player's cut, where the agent went (None: the game
    ended before it moved)."""

    agent_at: int
    cut: Link | None
    agent_moved_to: int | None


@dataclass
class GameRecord:
    """A whole game, replayable: the map, the rule, the start, the turns and the verdict.

    ``result`` is ``WIN`` or ``LOSS`` (for the player); ``reason`` says why (``contained``,
    ``agent-reached-gateway``, ``illegal-cut``, ``malformed-output``, ``timeout``, ``crash``,
    ``turn-limit``...).
    """

    map: SkynetMap
    rule: str
    start: int
    turns: list[Turn] = field(default_factory=list)
    result: str | None = None
    reason: str | None = None
    bot: str | None = None
    agent: str | None = None
    detail: str | None = None
    turn_seconds: list[float] = field(default_factory=list)

    @property
    def cuts(self) -> int:
        return sum(1 for t in self.turns if t.cut is not None)


def replay(record: GameRecord) -> list[str]:
    """Check a game record against the rules; return every problem found (empty: it holds).

    Each turn must start where the last one left the agent, each cut must be legal (unless
    the record ends there on an ``illegal-cut`` loss), each move must be one the agent may
    make, and the recorded result must be what the rules say. A game the judge's clock
    stopped (no result, reason ``time-limit``) holds when its turns do.
    """
    m = record.map
    problems: list[str] = []
    stopped = record.result is None and record.reason == "time-limit"  # by the judge's clock
    try:
        state = m.initial_state(record.start)
    except InputError as exc:
        return [str(exc)]
    verdict: tuple[str, str] | None = None
    for k, t in enumerate(record.turns, start=1):
        if verdict is not None:
            problems.append(f"turn {k}: the game was already over ({verdict[0]})")
            break
        if t.agent_at != state.agent:
            problems.append(f"turn {k}: agent recorded at {t.agent_at}, the rules put it at "
                            f"{state.agent}")
            break
        if t.cut is None:
            verdict = ("LOSS", record.reason or "no-cut")
            break
        why = check_cut(m, state, t.cut, record.rule)
        if why:
            verdict = ("LOSS", "illegal-cut")
            if t.agent_moved_to is not None:
                problems.append(f"turn {k}: illegal cut ({why}) but the game went on")
            break
        state = state.cut(t.cut)
        if outcome(state) == "WIN":
            verdict = ("WIN", "contained")
            if t.agent_moved_to is not None:
                state = state.move(t.agent_moved_to)
            continue
        if t.agent_moved_to is None:
            if record.reason in ("timeout", "crash", "malformed-output", "turn-limit"):
                verdict = ("LOSS", record.reason)
            else:
                problems.append(f"turn {k}: the agent did not move but the game was not over")
            break
        if t.agent_moved_to not in agent_moves(state):
            problems.append(f"turn {k}: the agent cannot move from {state.agent} to "
                            f"{t.agent_moved_to}")
            break
        state = state.move(t.agent_moved_to)
        if outcome(state) == "LOSS":
            verdict = ("LOSS", "agent-reached-gateway")
    if verdict is None and not problems and not stopped:
        if record.reason in ("timeout", "crash", "malformed-output", "turn-limit"):
            verdict = ("LOSS", record.reason)
        else:
            problems.append("the record ends before the game does")
    if verdict is not None and record.result is not None and record.result != verdict[0]:
        problems.append(f"the record says {record.result}, the rules say {verdict[0]} "
                        f"({verdict[1]})")
    return problems
