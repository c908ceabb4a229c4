"""Unit-capacity maximum flows and searches over a set of links left, compiled: the Skynet
exact search's inner loop.

The exact fewest-cuts search (:mod:`.skynet_fewest`) asks, at almost every position, how many
link-disjoint paths join a node to the gateways over the links left (a bit mask), stopped
at a small limit, and which links those paths use; which nodes the agent reaches and how
far they are; which nodes near it a tempo bound must look at; and, to order its cuts, the
minimum cut nearest the agent. :class:`~.maxflow.Network` answers the flow questions for
any capacities in Python; :class:`UnitNetwork` answers all of them for capacity 1 in
compiled code (the same shortest augmenting paths, the same breadth-first orders), five to
ten times faster, so the search spends its time searching. The answers are the same: the
tests check them against the Python versions.

Links are numbered ``0..K-1`` as in the masks; a mask crosses into compiled code as its
little-endian bytes.

Example:
    >>> net = UnitNetwork([(0, 1), (1, 2), (0, 2), (2, -1), (1, -1)], sink=-1)
    >>> net.paths(0, 0b11111, 5)
    (2, 29)
    >>> net.paths(0, 0b11111, 1)[0], sorted(net.nearest_cut(0, 0b11111))
    (1, [0, 2])
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from puzzleproof.encoders.cityclose_bits import njit

__all__ = ["UnitNetwork", "warm"]


class UnitNetwork:
    """Links ``ends[k] = (u, v)``, each of capacity 1 both ways; ``sink`` is where flows go
    (node numbers are any integers; the sink is usually -1, every gateway merged)."""

    def __init__(self, ends: Sequence[tuple[int, int]], sink: int = -1) -> None:
        nodes = sorted({x for e in ends for x in e} | {sink})
        self.index = {x: i for i, x in enumerate(nodes)}
        self.ids = np.array(nodes, dtype=np.int64)  # index -> node
        self.level_ids = np.zeros(len(nodes), dtype=np.int64)  # BFS order, as nodes
        self.level = np.zeros(len(nodes), dtype=np.int64)  # and their distances
        self.sink = self.index[sink]
        n, K = len(nodes), len(ends)
        self.K = K
        self.nbytes = max(1, (K + 7) // 8)
        adj: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
        for k, (u, v) in enumerate(ends):
            iu, iv = self.index[u], self.index[v]
            adj[iu].append((iv, k, 1))
            adj[iv].append((iu, k, -1))
        self.indptr = np.zeros(n + 1, dtype=np.int64)
        flat = [e for row in adj for e in row]
        for i, row in enumerate(adj):
            self.indptr[i + 1] = self.indptr[i] + len(row)
        self.nbr = np.array([e[0] for e in flat] or [0], dtype=np.int64)
        self.lid = np.array([e[1] for e in flat] or [0], dtype=np.int64)
        self.sgn = np.array([e[2] for e in flat] or [0], dtype=np.int64)
        self.own = np.array([i for i, row in enumerate(adj) for _ in row] or [0],
                            dtype=np.int64)  # the node each entry leaves from
        # scratch, reused by every call: flow per link, the search's marks and parents
        self.through = np.zeros(max(1, K), dtype=np.int64)
        self.mark = np.zeros(n, dtype=np.int64)
        self.prev = np.zeros(n, dtype=np.int64)
        self.queue = np.zeros(n, dtype=np.int64)
        self.out = np.zeros(self.nbytes, dtype=np.uint8)
        self.keys = np.zeros(max(1, K), dtype=np.int64)
        self.last: tuple[int, np.ndarray] = (-1, np.zeros(self.nbytes, dtype=np.uint8))

    def _bytes(self, mask: int) -> np.ndarray:
        """``mask`` as the kernels read it (the last one kept: callers ask several
        questions about the same links in a row)."""
        if mask != self.last[0]:
            self.last = (mask, np.frombuffer(mask.to_bytes(self.nbytes, "little"),
                                             dtype=np.uint8))
        return self.last[1]

    def paths(self, source: int, mask: int, limit: int) -> tuple[int, int]:
        """(link-disjoint paths from ``source`` to the sink over ``mask``, at most
        ``limit``; the links they use, as a mask)."""
        value = _flow(self.indptr, self.nbr, self.lid, self.sgn, self.own, self._bytes(mask),
                      self.index[source], self.sink, limit, self.through, self.mark,
                      self.prev, self.queue, self.out, 0)
        return value, int.from_bytes(self.out.tobytes(), "little")

    def touching(self, a: int, mask: int) -> tuple[bool, int, bool]:
        """Over links left, never through the sink: whether a link left joins ``a``'s
        component to the sink, the links left touching that component (a mask), and
        whether some node of it keeps two or more links to the sink."""
        i = self.index.get(a)
        if i is None:
            return False, 0, False
        flags = _touching(self.indptr, self.nbr, self.lid, self._bytes(mask), i, self.sink,
                          self.mark, self.prev, self.queue, self.out)
        return bool(flags & 1), int.from_bytes(self.out.tobytes(), "little"), bool(flags & 2)

    def forcing_moves(self, a: int, mask: int, first: int | None) -> list[tuple[int, int]]:
        """The moves from ``a`` over links left, not to the sink, as (node, link): those
        onto a node that keeps a link to the sink first, then those whose node has more
        neighbours that keep one, then ``first``, then by node and link (the exact
        search's order of the agent's replies,
        :meth:`.skynet_fewest.FewestCuts._replies`)."""
        count = _forcing_moves(self.indptr, self.nbr, self.lid, self._bytes(mask),
                               self.index[a], self.sink, self.index.get(first, -1),
                               self.ids, self.keys, self.level_ids, self.level)
        return list(zip(self.level_ids[:count].tolist(), self.level[:count].tolist()))

    def crowded(self, a: int, mask: int, depth: int, limit: int) -> list[int] | None:
        """None when a node within ``depth`` links of ``a`` (over links left, not through
        the sink) has at most ``limit`` links left; otherwise those nodes, fewest links
        first (then by name): the nodes whose minimum cuts a tempo bound must look at."""
        i = self.index.get(a)
        if i is None:
            return None  # ``a`` has no link at all: 0 <= limit
        count = _crowded(self.indptr, self.nbr, self.lid, self._bytes(mask), i, self.sink,
                         depth, limit, self.mark, self.prev, self.queue, self.out,
                         self.ids, self.level_ids, self.level)
        if count < 0:
            return None
        return self.level_ids[:count].tolist()

    def cut_order(self, a: int, mask: int) -> list[int]:
        """Every link left touching ``a``'s component (as :meth:`touching` finds it), the
        minimum cut nearest ``a`` first, then by the distance of the link's nearer end,
        links to the sink first at the same distance, then by number: the exact search's
        order of cuts (:meth:`.skynet_fewest.FewestCuts._ordered`)."""
        count = _cut_order(self.indptr, self.nbr, self.lid, self.sgn, self.own,
                           self._bytes(mask), self.index[a], self.sink, self.through,
                           self.mark, self.prev, self.queue, self.out, self.keys)
        return self.keys[:count].tolist()

    def nearest_cut(self, source: int, mask: int) -> set[int]:
        """The links of the minimum cut nearest ``source`` (the residual side of
        ``source`` after a maximum flow)."""
        _flow(self.indptr, self.nbr, self.lid, self.sgn, self.own, self._bytes(mask),
              self.index[source], self.sink, self.K + 1, self.through, self.mark,
              self.prev, self.queue, self.out, 1)
        cut = int.from_bytes(self.out.tobytes(), "little")
        out = set()
        while cut:
            low = cut & -cut
            out.add(low.bit_length() - 1)
            cut ^= low
        return out


def warm() -> None:
    """Compile (or load from numba's cache) every kernel here, on a network of three
    links: the ``prepare`` verb calls it so no first search pays for it."""
    net = UnitNetwork([(0, 1), (1, -1), (0, -1)], sink=-1)
    net.paths(0, 0b111, 2)
    net.nearest_cut(0, 0b111)
    net.cut_order(0, 0b111)
    net.crowded(0, 0b111, 1, 1)
    net.touching(0, 0b111)
    net.forcing_moves(0, 0b111, None)


@njit(cache=True)
def _flow(indptr, nbr, lid, sgn, own, mask, src, sink, limit, through, mark, prev, queue,
          out, want_cut):
    """Shortest augmenting paths from ``src`` until ``limit`` units or none is left. ``out``
    receives the links the flow uses (``want_cut`` 0) or the links of the minimum cut
    nearest ``src`` (``want_cut`` 1, ``limit`` above the maximum)."""
    through[:] = 0
    value = 0
    stamp = 0
    mark[:] = 0
    reached = False
    while value < limit:
        stamp += 1
        mark[src] = stamp
        queue[0] = src
        head, tail = 0, 1
        reached = False
        while head < tail and not reached:
            u = queue[head]
            head += 1
            for e in range(indptr[u], indptr[u + 1]):
                w = nbr[e]
                if mark[w] == stamp:
                    continue
                k = lid[e]
                if not (mask[k >> 3] >> (k & 7)) & 1:
                    continue
                if through[k] == sgn[e]:  # this way is full
                    continue
                mark[w] = stamp
                prev[w] = e
                if w == sink:
                    reached = True
                    break
                queue[tail] = w
                tail += 1
        if not reached:
            break
        w = sink
        while w != src:
            e = prev[w]
            through[lid[e]] += sgn[e]
            w = own[e]
        value += 1
    out[:] = 0
    if want_cut == 0:
        for k in range(through.shape[0]):
            if through[k] != 0:
                out[k >> 3] |= np.uint8(1 << (k & 7))
        return value
    # the last search failed (limit above the maximum): its marks are the source side
    for u in range(indptr.shape[0] - 1):
        if mark[u] != stamp:
            continue
        for e in range(indptr[u], indptr[u + 1]):
            k = lid[e]
            if mark[nbr[e]] != stamp and (mask[k >> 3] >> (k & 7)) & 1:
                out[k >> 3] |= np.uint8(1 << (k & 7))
    return value



@njit(cache=True)
def _keeps(indptr, nbr, lid, mask, sink, u):
    """Whether node ``u`` keeps a link to the sink in ``mask``."""
    for e in range(indptr[u], indptr[u + 1]):
        k = lid[e]
        if nbr[e] == sink and (mask[k >> 3] >> (k & 7)) & 1:
            return True
    return False


@njit(cache=True)
def _forcing_moves(indptr, nbr, lid, mask, a, sink, first, ids, keys, qw, qk):
    """:meth:`UnitNetwork.forcing_moves` into ``qw`` (names) and ``qk`` (links)."""
    count = 0
    for e in range(indptr[a], indptr[a + 1]):
        k = lid[e]
        w = nbr[e]
        if w == sink or not (mask[k >> 3] >> (k & 7)) & 1:
            continue
        follow = 0
        for f in range(indptr[w], indptr[w + 1]):
            j = lid[f]
            x = nbr[f]
            if x != sink and (mask[j >> 3] >> (j & 7)) & 1 and _keeps(indptr, nbr, lid,
                                                                       mask, sink, x):
                follow += 1
        loose = 0 if _keeps(indptr, nbr, lid, mask, sink, w) else 1
        other = 0 if w == first else 1
        keys[count] = ((((loose << 16 | (65535 - follow)) << 1 | other) << 20
                        | (ids[w] + (1 << 19))) << 20) | k
        count += 1
    keys[:count] = np.sort(keys[:count])
    for i in range(count):
        qk[i] = keys[i] & 0xFFFFF
        qw[i] = ((keys[i] >> 20) & 0xFFFFF) - (1 << 19)
    return count


@njit(cache=True)
def _touching(indptr, nbr, lid, mask, src, sink, mark, dist, queue, out):
    """:meth:`UnitNetwork.touching`: the links in ``out``; 1 set when the component
    reaches the sink, 2 when a node of it keeps two links to the sink."""
    tail = _bfs(indptr, nbr, lid, mask, src, sink, mark, dist, queue, out)
    flags = 1 if dist[sink] else 0
    for i in range(tail):
        u = queue[i]
        to_sink = 0
        for e in range(indptr[u], indptr[u + 1]):
            k = lid[e]
            if nbr[e] == sink and (mask[k >> 3] >> (k & 7)) & 1:
                to_sink += 1
        if to_sink >= 2:
            return flags | 2
    return flags


@njit(cache=True)
def _crowded(indptr, nbr, lid, mask, src, sink, depth, limit, mark, dist, queue, out, ids,
             qid, qdeg):
    """:meth:`UnitNetwork.crowded`: -1, or the number of nodes within ``depth`` (their
    names in ``qid``, fewest links first)."""
    tail = _bfs(indptr, nbr, lid, mask, src, sink, mark, dist, queue, out)
    count = 0
    for i in range(tail):
        u = queue[i]
        if dist[u] > depth:
            break  # breadth-first: the rest are farther
        deg = 0
        for e in range(indptr[u], indptr[u + 1]):
            k = lid[e]
            if (mask[k >> 3] >> (k & 7)) & 1:
                deg += 1
        if deg <= limit:
            return -1
        qdeg[count] = deg * (1 << 32) + ids[u] + (1 << 31)
        count += 1
    qdeg[:count] = np.sort(qdeg[:count])
    for i in range(count):
        qid[i] = (qdeg[i] & ((1 << 32) - 1)) - (1 << 31)
    return count


@njit(cache=True)
def _bfs(indptr, nbr, lid, mask, src, sink, mark, dist, queue, out):
    """Breadth-first search from ``src`` over the links in ``mask``, never through ``sink``:
    ``mark`` 1 on the nodes reached, in order in ``queue`` (their number returned), their
    distances in ``dist``, ``dist[sink]`` 1 when a link left reaches the sink, ``out`` the
    links left touching them."""
    mark[:] = 0
    out[:] = 0
    dist[sink] = 0
    mark[src] = 1
    dist[src] = 0
    queue[0] = src
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        for e in range(indptr[u], indptr[u + 1]):
            k = lid[e]
            if not (mask[k >> 3] >> (k & 7)) & 1:
                continue
            out[k >> 3] |= np.uint8(1 << (k & 7))
            w = nbr[e]
            if w == sink:
                dist[sink] = 1
            elif mark[w] == 0:
                mark[w] = 1
                dist[w] = dist[u] + 1
                queue[tail] = w
                tail += 1
    return tail


@njit(cache=True)
def _cut_order(indptr, nbr, lid, sgn, own, mask, src, sink, through, mark, prev, queue, out,
               keys):
    """:meth:`UnitNetwork.cut_order` into ``keys`` (their number returned)."""
    _flow(indptr, nbr, lid, sgn, own, mask, src, sink, keys.shape[0] + 1, through, mark,
          prev, queue, out, 1)
    near = out.copy()
    dist = prev  # the flow is done with them: reused for distances
    _bfs(indptr, nbr, lid, mask, src, sink, mark, dist, queue, out)
    # mark[u] == 1: u in the component; out: the links left touching it
    best = np.full(keys.shape[0], 1 << 40, dtype=np.int64)
    gate = np.zeros(keys.shape[0], dtype=np.int64)
    for u in range(indptr.shape[0] - 1):
        if u == sink or mark[u] != 1:
            continue
        for e in range(indptr[u], indptr[u + 1]):
            k = lid[e]
            if (mask[k >> 3] >> (k & 7)) & 1:
                if dist[u] < best[k]:
                    best[k] = dist[u]
                if nbr[e] == sink:
                    gate[k] = 1
    count = 0
    for k in range(keys.shape[0]):
        if best[k] < (1 << 40):
            far = 0 if (near[k >> 3] >> (k & 7)) & 1 else 1
            keys[count] = (((far << 22 | best[k]) << 1 | (1 - gate[k])) << 20) + k
            count += 1
    keys[:count] = np.sort(keys[:count])
    for i in range(count):
        keys[i] = keys[i] & 0xFFFFF
    return count
