"""A bot that plays a checked Skynet player strategy (a ``skynet-player-strategy``
certificate, :mod:`puzzleproof.models.skynet_strategy`) move by move.

The judge of a lost game shows the game our side wins from the same start. The solver has
proved that start won and its certificate has been replayed against every agent move, so
playing the certificate wins against any agent model, with no second search: each turn is
a lookup in the certificate's table. At an invariant node the bot follows the invariant's
rule as the checker states it (cut the agent's gateway link when it has one, else a
gateway link of a node keeping two or more, the one the agent reaches in the fewest free
turns), which the checker proved wins from every position that reaches that node.
"""

from __future__ import annotations

import copy
from typing import Any

from puzzleproof.models.skynet import Link, SkynetMap, norm
from puzzleproof.models.skynet_board import Board, popcount
from puzzleproof.players.skynet_bots import Bot

__all__ = ["CertificateBot"]


class CertificateBot(Bot):
    """Plays ``strategy`` (a player strategy whose root is the game's start); at an
    invariant node, and off the table (which a checked strategy never is), the invariant's
    rule. With no node keeping two gateway links that rule needs only the agent's own
    gateway link cut, so any other cut is the bots' common :meth:`Bot.fallback`."""

    name = "certificate"

    def __init__(self, strategy: dict[str, Any], rule: str = "ep2") -> None:
        self.strategy, self.rule = strategy, rule
        self.nodes: dict[str, Any] = strategy.get("nodes") or {}

    def reset(self, m: SkynetMap) -> None:
        super().reset(m)
        self.board = Board(m, self.rule)
        self.mask = self.board.full
        self.at: Any = self.strategy.get("root")  # the node that answers this turn
        self.next: dict[str, Any] | None = None  # the last node's answers to agent moves
        self.invariant = False

    def cut(self, agent: int) -> Link:
        link = super().cut(agent)
        self.mask &= ~(1 << self.board.index[norm(*link)])
        return link

    def choose(self, agent: int) -> Link:
        if not self.invariant:
            if self.next is not None:
                self.at = self.next.get(str(agent))
            node = self.nodes.get(self.at) if self.at is not None else None
            if isinstance(node, dict) and node.get("agent") == agent:
                if "cut" in node:
                    self.next = node.get("next") or {}
                    return int(node["cut"][0]), int(node["cut"][1])
                self.invariant = "invariant" in node
            self.at = self.next = None
        return self._rule(agent)

    def _rule(self, agent: int) -> Link:
        """The invariant's rule at (``agent``, links left)."""
        bd, mask = self.board, self.mask
        own = bd.gate_bits[agent] & mask
        if own:
            return bd.link(own & -own)
        doubles = [(f, u) for u, f in bd.free_turns(agent, mask).items()
                   if popcount(bd.gate_bits[u] & mask) >= 2]
        if doubles:
            bits = bd.gate_bits[min(doubles)[1]] & mask
            return bd.link(bits & -bits)
        return self.fallback(agent)

    def __deepcopy__(self, memo: dict) -> "CertificateBot":
        # the worst-case agent copies bots at every branch: the strategy and the board are
        # never changed, so they are shared; the graph and the place in the table are copied
        new = copy.copy(self)
        new.graph = [list(x) for x in self.graph]
        memo[id(self)] = new
        return new
