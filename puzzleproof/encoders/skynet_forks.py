"""Episode 2 losses proved from the agent's side: a search over the agent's forks whose
leaves are fixed paths.

A position (agent node, gateway links left, the player to cut) is lost for the player when a
fixed path wins from it (:func:`~.skynet_leaves.fixed_path`, :func:`~.skynet_leaves.chain_path`:
a walk over links that cannot be cut where some prefix holds more gateway links than turns),
or when the agent answers every cut with a move to a lost position. The search deepens over
the number of such answers before a path takes over (the *forks*: the agent keeps two
threats, and one cut cannot stop both); a position where the player's invariant holds
(:func:`~.skynet_leaves.edf_holds`) is won by the player and ends the line.

Why a search of its own: the player's searches (:mod:`.skynet_table`, the CEGAR) must refute
every cut of a lost position one by one and follow the agent over the whole region; here a
cut that leaves the agent's path standing is answered at once by that path. On maps at
CodinGame's limits most lost starts are lost within one or two forks.

The strategy is written as a policy, not an unrolled tree (:meth:`ForkSearch.certificate`):
a node per position where the agent branches, with a reply for each cut that breaks its
plan and one ``"otherwise"`` reply (its move, then a path node) for every other cut, and
path nodes as leaves. The rules-only checker (:mod:`puzzleproof.models.skynet_strategy`)
replays it against every legal cut and proves each path where it is reached.
"""

from __future__ import annotations

from typing import Any

from puzzleproof.clock import Deadline
from puzzleproof.encoders.skynet_leaves import (chain_path, edf_holds, fixed_path, free_turns,
                                                path_count)
from puzzleproof.encoders.skynet_reduced import Reduced

__all__ = ["ForkSearch", "OutOfBudget"]

CHAIN_DEPTH = 5  # doubles a chain path may pass through at a position inside the search
ROOT_CHAIN_DEPTH = 8  # and at the start


class OutOfBudget(Exception):
    """The deadline or the position budget ran out: nothing is claimed."""


class ForkSearch:
    """The agent's side of an Episode 2 region (``red`` a :class:`Reduced` under ``ep2``):
    which positions it wins within a number of forks, with the plan that wins each.

    A plan is ``("path", path)`` or ``("fork", default, replies)`` (:meth:`_fork`):
    ``replies`` maps a cut (link index) to the agent's move, ``default`` answers the
    others."""

    def __init__(self, red: Reduced) -> None:
        if red.rule != "ep2":
            raise ValueError("the fork search plays Episode 2 rules only")
        self.red = red
        self.full = (1 << red.K) - 1
        self.plans: dict[tuple[int, int], tuple] = {}  # positions the agent wins
        self.held: set[tuple[int, int]] = set()  # positions the invariant gives the player
        self.failed: dict[tuple[int, int], int] = {}  # -> most forks searched in vain
        self.positions = 0
        self.deadline = Deadline(None)
        self.limit = 0

    # -- the search ----------------------------------------------------------------------

    def decide(self, start: int, deadline: Deadline, max_forks: int = 3,
               max_positions: int = 20_000) -> bool | None:
        """True when the agent wins from ``start`` within ``max_forks`` forks (its plan is
        kept), False when the player's invariant holds there, None otherwise (not found
        within the forks, the positions or the deadline)."""
        self.deadline, self.limit = deadline, self.positions + max_positions
        key = (start, self.full)
        if key not in self.plans and key not in self.held:
            # at the start only (a search per node with two gateway links): a chain path
            # through up to ROOT_CHAIN_DEPTH of them
            path = chain_path(self.red, start, self.full, ROOT_CHAIN_DEPTH, deadline=deadline)
            if path is not None:
                self.plans[key] = ("path", path)
        try:
            for forks in range(max_forks + 1):
                if self.lost(start, self.full, forks):
                    return True
                if (start, self.full) in self.held:
                    return False
        except OutOfBudget:
            return None
        return None

    def lost(self, a: int, mask: int, forks: int) -> bool:
        """Whether the agent wins from (``a``, ``mask``) within ``forks`` forks."""
        key = (a, mask)
        if key in self.plans:
            return True
        if key in self.held or self.failed.get(key, -1) >= forks:
            return False
        self.positions += 1
        if self.positions > self.limit or (self.positions % 8 == 0
                                           and self.deadline.expired()):
            raise OutOfBudget
        path = self.path_leaf(a, mask)
        if path is not None:
            self.plans[key] = ("path", path)
            return True
        if edf_holds(self.red, a, mask):
            self.held.add(key)
            return False
        plan = self._fork(a, mask, forks - 1) if forks > 0 else None
        if plan is None:
            self.failed[key] = forks
            return False
        self.plans[key] = plan
        return True

    def path_leaf(self, a: int, mask: int) -> list[int] | None:
        red = self.red
        return (fixed_path(red, a, mask)
                or chain_path(red, a, mask, CHAIN_DEPTH, deadline=self.deadline, stale=True))

    def _moves(self, a: int, mask: int) -> list[int]:
        """The agent's moves from ``a``, toward the nodes with two or more gateway links
        first (fewest free turns away)."""
        red = self.red
        dist, _ = free_turns(red, a, mask)
        near = min(((f, d) for d in red.doubles if d in dist
                    for f in [dist[d]]), default=None)
        moves = [w for w, j in red.moves[a] if j is None or mask >> j & 1]
        if near is None:
            return moves
        toward = free_turns(red, near[1], mask)[0]
        return sorted(moves, key=lambda w: toward.get(w, 1 << 30))

    def _fork(self, a: int, mask: int, forks: int) -> tuple | None:
        """The agent's answer to every cut at (``a``, ``mask``), each leading to a position
        it wins within ``forks`` forks; None when some cut has no such answer.

        The plan's ``default`` answers every cut not in ``replies``: ``("gate", g)`` (the
        agent steps onto gateway ``g``), ``("path", w, path)`` (it moves to ``w`` and walks
        ``path``, which the cut left winning) or ``("pos", w)`` (it moves to ``w``, whose
        position is lost with the links unchanged: only for cuts outside the region, which
        change nothing the agent can reach; every cut inside is then in ``replies``)."""
        red = self.red
        own = [k for k in red.own[a] if mask >> k & 1]
        if len(own) == 1:  # any other cut: the agent steps onto that gateway
            gate = next(g for g, k in red.gate_links[a] if k == own[0])
            w = self._reply(a, mask & ~(1 << own[0]), forks)
            return None if w is None else ("fork", ("gate", gate), {own[0]: w})
        default = self._default(a, mask)
        if default is None:
            w = self._reply(a, mask, forks)  # a cut outside the region: a pass
            if w is None:
                return None
            default = ("pos", w)
        replies: dict[int, int] = {}
        for k in self._cuts(mask, default):
            after = mask & ~(1 << k)
            if default[0] == "path" and path_count(red, after, default[2]):
                continue  # the default path still wins: the "otherwise" reply
            w = self._reply(a, after, forks)
            if w is None:
                return None
            replies[k] = w
        return ("fork", default, replies)

    def _reply(self, a: int, after: int, forks: int) -> int | None:
        """A move from ``a`` (the cut made, links ``after``) to a position the agent wins
        within ``forks`` forks."""
        return next((w for w in self._moves(a, after) if self.lost(w, after, forks)), None)

    def _default(self, a: int, mask: int) -> tuple | None:
        """``("path", w, path)``: a move and a path from there that win as long as the cut
        leaves the path's gateway links; None when no move leads to a path."""
        for w in self._moves(a, mask):
            path = self.path_leaf(w, mask)
            if path is not None:
                return "path", w, path
        return None

    def _cuts(self, mask: int, default: tuple) -> list[int]:
        """Every cut in the region, those on the default path's nodes first (they break
        it, and a cut with no answer ends the fork soonest)."""
        red = self.red
        first: set[int] = set()
        if default[0] == "path":
            for v in default[2]:
                first.update(k for k in red.own[v] if mask >> k & 1)
        rest = [k for k in range(red.K) if mask >> k & 1 and k not in first]
        return sorted(first) + rest

    # -- the certificate -----------------------------------------------------------------

    def certificate(self, start: int, deadline: Deadline) -> dict:
        """The agent's policy from a won ``start`` (``skynet-agent-strategy``): fork nodes
        keyed by position, path nodes as leaves, an ``"otherwise"`` reply for the cuts
        that leave the agent's plan standing. Raises :class:`OutOfBudget` past
        ``deadline``."""
        red = self.red
        gates = red.m.gateways
        nodes: dict[str, dict] = {}
        root = f"{start}:{self.full:x}"
        todo = [(start, self.full)]
        while todo:
            a, mask = todo.pop()
            nid = f"{a}:{mask:x}"
            if nid in nodes:
                continue
            if len(nodes) % 64 == 0 and deadline.expired():
                raise OutOfBudget
            plan = self.plans[(a, mask)]
            if plan[0] == "path":
                nodes[nid] = {"agent": a, "path": plan[1]}
                continue
            _, default, replies = plan
            node: dict[str, Any] = {"agent": a, "replies": {}}
            for k, w in replies.items():
                u, v = red.cuttable[k]
                after = mask & ~(1 << k)
                node["replies"][f"{u}-{v}"] = {"move": w, "next": None if w in gates
                                               else f"{w}:{after:x}"}
                if w not in gates:
                    todo.append((w, after))
            if default[0] == "gate":
                node["otherwise"] = {"move": default[1], "next": None}
            elif default[0] == "path":
                pid = f"p{default[1]}:{mask:x}"
                nodes[pid] = {"agent": default[1], "path": default[2]}
                node["otherwise"] = {"move": default[1], "next": pid}
            else:
                node["otherwise"] = {"move": default[1], "next": f"{default[1]}:{mask:x}"}
                todo.append((default[1], mask))
            nodes[nid] = node
        return {"type": "skynet-agent-strategy", "root": root, "nodes": nodes}
