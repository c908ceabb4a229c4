"""Skynet positions as integers, for searches and replays that visit hundreds of thousands.

A position is the agent's node and the links not cut yet, as a bitmask over the map's links
(bit ``i`` is ``m.links[i]``), with the player to cut. :class:`Board` answers the rules'
questions on such masks: where the agent may move, what it can reach and whether it is
contained, whether a cut is legal and what it leaves, and the free turns the player gets
before the agent can stand on each node. It is the same game as
:mod:`puzzleproof.models.skynet` (whose messages it uses for an illegal cut); the strategy
checkers (:mod:`puzzleproof.models.skynet_strategy`) replay on it, and the solvers that ask
about positions (the adversary's oracle) read it too.
"""

from __future__ import annotations

from collections import deque

from puzzleproof.models.skynet import Link, SkynetMap, State, check_cut, norm

__all__ = ["Board", "popcount"]


def popcount(x: int) -> int:
    return bin(x).count("1")


class Board:
    """The rules on bitmask positions of one map and rule (``ep1``/``ep2``)."""

    def __init__(self, m: SkynetMap, rule: str) -> None:
        self.m, self.rule = m, rule
        self.index = {l: i for i, l in enumerate(m.links)}
        self.full = (1 << len(m.links)) - 1
        gates = self.gates = m.gateways
        #: per node: (neighbour, bit) over every link at it
        self.inc = [[(v, 1 << self.index[norm(u, v)]) for v in m.neighbours[u]]
                    for u in range(m.n)]
        #: per node: the bits of its gateway links
        self.gate_bits = [sum(b for v, b in self.inc[u] if v in gates) for u in range(m.n)]
        #: every link that touches a gateway
        self.gateway_mask = sum(1 << i for i, (u, v) in enumerate(m.links)
                                if u in gates or v in gates)
        #: links a cut may take under the rule
        self.cuttable = self.gateway_mask if rule == "ep2" else self.full

    def link(self, bit: int) -> Link:
        return self.m.links[bit.bit_length() - 1]

    def mask(self, links) -> int:
        index = self.index
        return sum(1 << index[l] for l in links)

    def links(self, mask: int) -> frozenset[Link]:
        return frozenset(l for i, l in enumerate(self.m.links) if mask >> i & 1)

    def moves(self, a: int, mask: int) -> list[int]:
        """Where the agent may go: its neighbours over uncut links, or its own node."""
        out = [v for v, b in self.inc[a] if mask & b]
        return out or [a]

    def region(self, a: int, mask: int) -> list[int] | None:
        """The non-gateway nodes the agent on ``a`` can reach, or None when it can reach a
        gateway."""
        gates, inc = self.gates, self.inc
        seen = {a}
        todo = [a]
        while todo:
            u = todo.pop()
            for v, b in inc[u]:
                if mask & b and v not in seen:
                    if v in gates:
                        return None
                    seen.add(v)
                    todo.append(v)
        return list(seen)

    def contained(self, a: int, mask: int) -> bool:
        """The agent on ``a`` is off the gateways and can reach none of them."""
        return a not in self.gates and self.region(a, mask) is not None

    def cut(self, a: int, mask: int, cut: tuple[int, int]) -> tuple[str | None, int]:
        """Why ``cut`` is illegal at (``a``, ``mask``) (None: legal) and its bit."""
        u, v = cut
        i = self.index.get(norm(u, v)) if 0 <= u < self.m.n and 0 <= v < self.m.n else None
        bit = 0 if i is None else 1 << i
        if bit and mask & bit and self.cuttable & bit:
            return None, bit
        return self._why(a, mask, cut), bit

    def after(self, a: int, mask: int, cut: tuple[int, int]) -> tuple[str | None, int]:
        """Why ``cut`` is illegal at (``a``, ``mask``) (None: legal) and the links left
        after it (``mask`` when it is illegal)."""
        why, bit = self.cut(a, mask, cut)
        return (why, mask) if why else (None, mask & ~bit)

    def _why(self, a: int, mask: int, cut: tuple[int, int]) -> str:
        u, v = cut
        if not (0 <= u < self.m.n and 0 <= v < self.m.n):
            return f"link {u}-{v} names a node outside 0..{self.m.n - 1}"
        why = check_cut(self.m, self.state(a, mask), cut, self.rule)
        return why or f"link {u}-{v} may not be cut"

    def state(self, a: int, mask: int) -> State:
        """The position as a :class:`~puzzleproof.models.skynet.State`."""
        return State(self.m, a, self.links(mask))

    def legal(self, mask: int) -> list[Link]:
        """Every legal cut, as links ``(u, v)`` with ``u < v``, in order."""
        allowed = mask & self.cuttable
        return sorted(l for i, l in enumerate(self.m.links) if allowed >> i & 1)

    def free_turns(self, a: int, mask: int) -> dict[int, int]:
        """For every non-gateway node ``d`` the agent can reach: the fewest turns on which
        the player is free to cut anything before the agent stands on ``d``, over every
        walk ``a = p0, ..., pk = d``: the number of ``p0..p(k-1)`` with no uncut gateway
        link (on the others the player must cut that node's link or lose). 0-1 BFS."""
        gates, inc, gb = self.gates, self.inc, self.gate_bits
        dist = {a: 0}
        todo = deque([a])
        while todo:
            u = todo.popleft()
            step = 0 if gb[u] & mask else 1
            du = dist[u] + step
            for v, b in inc[u]:
                if mask & b and v not in gates and du < dist.get(v, 1 << 30):
                    dist[v] = du
                    if step:
                        todo.append(v)
                    else:
                        todo.appendleft(v)
        return dist
