"""Maximum flows and minimum cuts in small undirected graphs, for the Skynet solvers.

A :class:`Network` is an undirected multigraph with integer link capacities and one *sink*
node (the Skynet solvers merge every gateway into it). Links are numbered; a set of links
left is a bit mask over those numbers (a link outside the mask is gone), so one network
serves every position of a search. :meth:`Network.flow` augments along shortest paths
(Edmonds-Karp), one unit at a time, and stops at ``limit`` units when asked: the flows
asked for here are small (at most a node's degree), an augmenting path usually reaches the
sink within a few steps, and the last search of a maximum flow explores only the source's
side of the cut, so this is far cheaper on these graphs than a general flow library.

What callers read off a :class:`Flow`: its value; the links it uses (disjoint paths, so on
any links left that include them the minimum cut is at least the value); and the two sides
of a minimum cut, :meth:`Flow.source_side` (reachable from the source in the residual
network: the cut nearest the source) and :meth:`Flow.sink_side` (the nodes that reach the
sink: the cut nearest the sink).

Example:
    >>> net = Network([(0, 1), (1, 2), (0, 2), (2, -1), (1, -1)], sink=-1)
    >>> f = net.flow(0)
    >>> f.value, f.source_side(), f.sink_side()
    (2, [0], [-1])
    >>> f.cut(f.source_side()), f.cut(f.sink_side())
    ([0, 2], [3, 4])
    >>> net.flow(0, limit=1).value, net.flow(0, mask=0b11011).value
    (1, 1)
"""

from __future__ import annotations

from collections import deque
from typing import Sequence

__all__ = ["Network", "Flow"]


class Network:
    """Links ``ends[i] = (u, v)`` of capacity ``capacity[i]`` (1 when not given) each way;
    ``sink`` is the node flows go to."""

    def __init__(self, ends: Sequence[tuple[int, int]], capacity: Sequence[int] | None = None,
                 sink: int = -1) -> None:
        self.ends = list(ends)
        self.cap = [1] * len(self.ends) if capacity is None else list(capacity)
        self.sink = sink
        #: node -> [(the other end, link, 1 when the node is the link's first end else -1)]
        self.adj: dict[int, list[tuple[int, int, int]]] = {}
        for i, (u, v) in enumerate(self.ends):
            self.adj.setdefault(u, []).append((v, i, 1))
            self.adj.setdefault(v, []).append((u, i, -1))

    def flow(self, source: int, mask: int | None = None, limit: int | None = None,
             capacity: Sequence[int] | None = None) -> "Flow":
        """A maximum flow from ``source`` to the sink over the links in ``mask`` (every
        link when None), stopped at ``limit`` units; ``capacity`` replaces the network's
        capacities for this flow."""
        f = Flow(self, source, mask, self.cap if capacity is None else capacity)
        while limit is None or f.value < limit:
            if not f.augment():
                break
        return f


class Flow:
    """A flow of a :class:`Network` from ``source`` (``through[i]``: units along
    ``ends[i]``, negative against it)."""

    def __init__(self, net: Network, source: int, mask: int | None, cap: Sequence[int]) -> None:
        self.net, self.source, self.mask, self.cap = net, source, mask, cap
        self.value = 0
        self.through: dict[int, int] = {}
        #: the nodes the last search reached (after a failed one: the source side)
        self.reached: dict[int, tuple[int, int] | None] = {source: None}
        self.maximal = False

    def augment(self) -> bool:
        """One more unit along a shortest augmenting path; False when there is none (the
        flow is maximal and :attr:`reached` is the source side of a minimum cut)."""
        sink, adj = self.net.sink, self.net.adj
        mask, cap, through = self.mask, self.cap, self.through
        if mask is None:
            mask = -1  # every bit set
        prev: dict[int, tuple[int, int, int] | None] = {self.source: None}
        queue = [self.source]
        found = False
        for u in queue:  # breadth first: the list grows while it is read
            for w, i, sign in adj.get(u, ()):
                if w in prev or not mask >> i & 1 or cap[i] - sign * through.get(i, 0) <= 0:
                    continue
                prev[w] = (u, i, sign)
                if w == sink:
                    found = True
                    break
                queue.append(w)
            if found:
                break
        self.reached = prev
        if not found:
            self.maximal = True
            return False
        w = sink
        while (step := prev[w]) is not None:
            u, i, sign = step
            f = through.get(i, 0) + sign
            if f:
                through[i] = f
            else:
                del through[i]
            w = u
        self.value += 1
        return True

    def links(self) -> int:
        """The links the flow uses, as a bit mask."""
        out = 0
        for i in self.through:
            out |= 1 << i
        return out

    def source_side(self) -> list[int]:
        """The nodes reachable from the source in the residual network, nearest first (of
        the maximal flow, which this completes: the source's side of the minimum cut
        nearest the source)."""
        while not self.maximal:
            self.augment()
        return list(self.reached)

    def sink_side(self) -> list[int]:
        """The nodes that reach the sink in the residual network, nearest first (of the
        maximal flow, which this completes: the sink's side of the minimum cut nearest the
        sink)."""
        while not self.maximal:
            self.augment()
        adj, sink, cap, through = self.net.adj, self.net.sink, self.cap, self.through
        mask = -1 if self.mask is None else self.mask
        seen = {sink: None}
        queue = deque([sink])
        while queue:
            w = queue.popleft()
            for u, i, sign in adj.get(w, ()):
                # the link from u to w: u's sign is the opposite of w's
                if u not in seen and mask >> i & 1 and cap[i] + sign * through.get(i, 0) > 0:
                    seen[u] = None
                    queue.append(u)
        return list(seen)

    def cut(self, side: list[int] | set[int]) -> list[int]:
        """The links left with exactly one end in ``side``, in link order."""
        inside = set(side)
        mask, ends = self.mask, self.net.ends
        return [i for i, (u, v) in enumerate(ends)
                if (mask is None or mask >> i & 1) and (u in inside) != (v in inside)]
