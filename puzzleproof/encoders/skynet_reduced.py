"""The reduced Skynet game: the part of a map that can matter to one agent start.

Only the agent's region (non-gateway nodes it can reach without crossing a gateway) and the
links touching it matter; links between two gateways and links elsewhere are never worth
cutting. :class:`Reduced` numbers the links that may matter (``cuttable``, index ``k``, so a
set of links left is a bit mask), lists each region node's moves and gateway links, and
holds what every search over the reduced game asks again and again: the default cut off the
proposer's tree (:meth:`Reduced.policy`) and, for each region node, the fewest links that
separate it from every gateway (:meth:`Reduced.min_cuts`, a lower bound on the cuts that
contain an agent standing there).

Every Skynet encoder (:mod:`.skynet_cegar`, :mod:`.skynet_table`, :mod:`.skynet_fewest`,
:mod:`.skynet_contain`, :mod:`.skynet_certify`) reads the game through this one type.
"""

from __future__ import annotations

import copy
from collections import deque

from puzzleproof.clock import Deadline
from puzzleproof.encoders.maxflow import Network
from puzzleproof.models.skynet import SkynetMap, norm

__all__ = ["Reduced"]

SINK = -1  # every gateway, merged, in the flow network


class Reduced:
    """The agent's region (non-gateway nodes reachable from ``start`` without crossing a
    gateway), the links that may matter (``cuttable``, index ``k``), and adjacency."""

    def __init__(self, m: SkynetMap, rule: str, start: int) -> None:
        self.m, self.rule, self.start = m, rule, start
        gates = m.gateways
        seen = {start}
        queue = deque([start])
        while queue:
            u = queue.popleft()
            for v in m.neighbours[u]:
                if v not in gates and v not in seen:
                    seen.add(v)
                    queue.append(v)
        self.region = sorted(seen)
        self.in_region = seen
        cuttable: list[tuple[int, int]] = []
        for u, v in m.links:
            a, b = u in seen, v in seen
            if not (a or b):
                continue
            if a and b:  # a link inside the region: cuttable under ep1 only
                if rule == "ep1":
                    cuttable.append((u, v))
            elif (u in gates) != (v in gates):  # region to gateway
                cuttable.append((u, v))
        self.cuttable = cuttable
        self.kindex = {l: k for k, l in enumerate(cuttable)}
        # node -> [(neighbour in region, k or None when the link cannot be cut)]
        self.moves: dict[int, list[tuple[int, int | None]]] = {u: [] for u in self.region}
        # node -> [(gateway, k)]
        self.gate_links: dict[int, list[tuple[int, int]]] = {u: [] for u in self.region}
        for u in self.region:
            for v in m.neighbours[u]:
                k = self.kindex.get(norm(u, v))
                if v in gates:
                    self.gate_links[u].append((v, k))  # type: ignore[arg-type]
                else:
                    self.moves[u].append((v, k))
        self.threat = any(self.gate_links[u] for u in self.region)
        # the off-tree policy's data: each node's gateway links in index order, and for
        # each agent node the nodes that can hold two gateway links, nearest first
        self.own: dict[int, list[int]] = {u: sorted(k for _, k in self.gate_links[u])
                                          for u in self.region}
        #: per region node with gateway links, the bits of those links; and the bits of
        #: the links between region nodes (cuttable under ep1 only)
        self.own_mask = {u: sum(1 << k for k in self.own[u]) for u in self.region}
        self.own_bits = [b for b in self.own_mask.values() if b]
        self.move_bits = sum(1 << k for u in self.region for _, k in self.moves[u]
                             if k is not None)
        #: what searches over this region keep between calls (shared by every start)
        self.scratch: dict[str, dict] = {}
        doubles = self.doubles = [u for u in self.region if len(self.own[u]) >= 2]
        self.order: dict[int, tuple[int, ...]] = {}
        to = {d: self._free_turns_to(d) for d in doubles}  # one search per double
        for u in self.region:
            self.order[u] = tuple(sorted(doubles, key=lambda d: (to[d].get(u, 1 << 30), d)))

    def for_start(self, start: int) -> "Reduced":
        """The same reduction for another start in the same region (shares everything)."""
        if start not in self.in_region:
            raise ValueError(f"start {start} is not in this region")
        other = copy.copy(self)
        other.start = start
        return other

    def _free_turns(self, a: int) -> dict[int, int]:
        """Distances from ``a`` counting only steps onto nodes without gateway links (the
        steps that give the player a free cut); 0-1 breadth-first search."""
        dist = {a: 0}
        queue = deque([a])
        while queue:
            u = queue.popleft()
            for w, _ in self.moves[u]:
                d = dist[u] + (0 if self.own[w] else 1)
                if d < dist.get(w, 1 << 30):
                    dist[w] = d
                    if d == dist[u]:
                        queue.appendleft(w)
                    else:
                        queue.append(w)
        return dist

    def _free_turns_to(self, d: int) -> dict[int, int]:
        """:meth:`_free_turns` from every node to ``d`` (``result[u]`` is
        ``_free_turns(u)[d]``): the same 0-1 search, backwards from ``d``."""
        dist = {d: 0}
        queue = deque([d])
        while queue:
            w = queue.popleft()
            step = 0 if self.own[w] else 1  # the cost of stepping onto w
            for u, _ in self.moves[w]:
                du = dist[w] + step
                if du < dist.get(u, 1 << 30):
                    dist[u] = du
                    if step:
                        queue.append(u)
                    else:
                        queue.appendleft(u)
        return dist

    def policy(self, a: int, mask: int) -> int | None:
        """The default cut off the proposer's tree (``mask``: links that matter left): the
        agent's own gateway link (lowest index) when it has one, else the lowest link of the
        nearest node (fewest free turns away, :meth:`_free_turns`) that still has two
        gateway links, else a pass."""
        for k in self.own[a]:
            if mask >> k & 1:
                return k
        for d in self.order[a]:
            left = [k for k in self.own[d] if mask >> k & 1]
            if len(left) >= 2:
                return left[0]
        return None

    @property
    def K(self) -> int:
        return len(self.cuttable)


    def min_cuts(self, deadline: Deadline | None = None) -> dict[int, int] | None:
        """For each region node v, the fewest links whose removal separates v from every
        gateway (a lower bound on the cuts to contain an agent standing on v). Computed
        once per region; None when ``deadline`` passes
        first (nothing is kept then)."""
        if getattr(self, "_min_cuts", None) is None:
            if self.rule == "ep2":  # only gateway links can be cut: all of them, always
                self._min_cuts = {v: self.K for v in self.region}
            else:
                got = _MinCuts(self).all(deadline)
                if got is None:
                    return None
                self._min_cuts = got
        return dict(self._min_cuts)


class _MinCuts:
    """The minimum cut between each region node and the gateways (merged into one sink) in
    the region's graph, every link of capacity 1: one maximum flow per node
    (:mod:`.maxflow`); the clock is read between nodes."""

    def __init__(self, red: "Reduced") -> None:
        self.region = red.region
        ends = [(u, w) for u in red.region for w, _ in red.moves[u] if u < w]
        ends += [(u, SINK) for u in red.region for _ in red.gate_links[u]]
        self.net = Network(ends, sink=SINK)

    def all(self, deadline: Deadline | None) -> dict[int, int] | None:
        out: dict[int, int] = {}
        for v in self.region:
            if deadline is not None and deadline.expired():
                return None
            out[v] = self.net.flow(v).value
        return out
