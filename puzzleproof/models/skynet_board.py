"""Skynet positions as integers, for searches that visit hundreds of thousands of them.

A position is the agent's node and the links not cut yet, as a bitmask over the map's links
(bit ``i`` is ``m.links[i]``), with the player to cut. :class:`Board` answers the rules'
questions on such masks: where the agent may move, whether it is contained, whether a cut
is legal. It is the same game as :mod:`puzzleproof.models.skynet` (whose messages it uses for
an illegal cut); the answers that reach a user are replayed by that module's rules.
"""

from __future__ import annotations

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
        gates = m.gateways
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

    def contained(self, a: int, mask: int) -> bool:
        """No gateway is reachable from ``a`` (a node that is not a gateway)."""
        gates, inc = self.m.gateways, self.inc
        seen = {a}
        todo = [a]
        while todo:
            u = todo.pop()
            for v, b in inc[u]:
                if mask & b and v not in seen:
                    if v in gates:
                        return False
                    seen.add(v)
                    todo.append(v)
        return True

    def cut(self, a: int, mask: int, cut: tuple[int, int]) -> tuple[str | None, int]:
        """Why ``cut`` is illegal at (``a``, ``mask``) (None: legal) and its bit."""
        u, v = cut
        i = self.index.get(norm(u, v)) if 0 <= u < self.m.n and 0 <= v < self.m.n else None
        bit = 0 if i is None else 1 << i
        if bit and mask & bit and self.cuttable & bit:
            return None, bit
        why = check_cut(self.m, State(self.m, a, self.links(mask)), cut, self.rule)
        return why or f"link {u}-{v} may not be cut", bit
