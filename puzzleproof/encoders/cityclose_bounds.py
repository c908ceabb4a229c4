"""City closing: the least Wiener number of a connected set of each size, by branch and bound.

``min_wiener_by_size`` gives, for sizes ``lo .. hi``, the exact least Wiener number of a
connected set of that many cities (``-1`` where a size was not finished within its budget).
The exact layered DP (:mod:`puzzleproof.encoders.cityclose_exact`) takes these as per-size
lower bounds: every map of the closing sequence is such a set.

The search grows connected sets from their lowest city (each set once: a city passed over
is banned below that branch). A grown set ``F`` that must reach ``i`` cities ``T`` (``F``
inside ``T``, the rest ``X`` among the cities not banned) is cut when a lower bound on
``W(T)`` reaches the best Wiener number known. The bound uses the distances ``d`` of the full
map (``d_T >= d``): ``W(T) >= d(F, F) + sum over x in X of (d(x, F) + half the sum of the
``|X| - 1`` least distances from ``x`` to the other cities that may still join)``, and the
``|X|`` least such terms are taken. ``d(x, F)`` is kept up to date city by city as ``F``
grows; the least distances to the cities that may still join (neither banned nor in ``F``)
are counted ring by ring from precomputed masks of the cities at each distance from ``x``.
The first best value is the Wiener number of a set grown greedily from every city (the city
that adds least), or a known set's (the incumbent order's maps) when lower.

Measured (2 cores, shared): every size of europe30 in about 0.1 s (0.08 million nodes),
every size of europe41 in about 0.4 s (0.35 million nodes; sizes 24 to 34 the dearest),
where europe41 has more than 10^10 connected sets. A first version took the partners' least
distances over all cities (those in ``F`` and banned ones too): 0.6 and 26.7 million nodes,
about 1 s and 10-15 s. Plain enumeration of europe30's connected sets up to 14 cities alone
took about 2 s.
"""

from __future__ import annotations

import time

import numpy as np

from puzzleproof.encoders.cityclose_bits import _DEBRUIJN, _ctz, _popcount, _wiener, njit

__all__ = ["min_wiener_by_size", "distance_matrix"]


def distance_matrix(adj: list[int] | tuple[int, ...]) -> np.ndarray:
    """All shortest-path lengths of a connected map given as neighbour masks (BFS)."""
    n = len(adj)
    d = np.zeros((n, n), dtype=np.int64)
    for s in range(n):
        seen = 1 << s
        frontier = seen
        k = 0
        while frontier:
            k += 1
            nb = 0
            f = frontier
            while f:
                low = f & -f
                nb |= adj[low.bit_length() - 1]
                f ^= low
            frontier = nb & ~seen
            seen |= frontier
            f = frontier
            while f:
                low = f & -f
                d[s, low.bit_length() - 1] = k
                f ^= low
    return d


@njit(cache=True)
def _greedy_upper(adj, dist, n, size, db):
    """The least Wiener number among sets grown greedily (the city closest in total to the
    set joins next) from every city: an upper bound on the least of ``size`` cities."""
    best = np.int64(1) << 60
    sumf = np.zeros(n, dtype=np.int64)
    for r in range(n):
        s = np.uint64(1) << np.uint64(r)
        for x in range(n):
            sumf[x] = dist[x, r]
        for _ in range(size - 1):
            nb = np.uint64(0)
            rest = s
            while rest != np.uint64(0):
                low = rest & (~rest + np.uint64(1))
                rest ^= low
                nb |= adj[_ctz(low, db)]
            cand = nb & ~s
            bx = -1
            bv = np.int64(1) << 60
            while cand != np.uint64(0):
                low = cand & (~cand + np.uint64(1))
                cand ^= low
                x = _ctz(low, db)
                if sumf[x] < bv:
                    bv = sumf[x]
                    bx = x
            s |= np.uint64(1) << np.uint64(bx)
            for x in range(n):
                sumf[x] += dist[x, bx]
        w = _wiener(adj, s, db)
        if w < best:
            best = w
    return best


@njit(cache=True)
def _grown_bound(sumf, rings, maxd, allowed, q, pairs, keys, db):
    """A lower bound on the Wiener number of a set ``T`` grown from ``F`` by ``q`` more cities
    among ``allowed`` (see the module docstring): the pairs within ``F`` (``pairs``) plus the
    ``q`` least terms ``d(x, F) + half the sum of the q - 1 nearest allowed cities of x``
    (``sumf[x] = d(x, F)``). A huge value when fewer than ``q`` cities can join."""
    rest = allowed
    cnt = 0
    while rest != np.uint64(0):
        low = rest & (~rest + np.uint64(1))
        rest ^= low
        x = _ctz(low, db)
        # the q - 1 nearest other allowed cities of x (its partners in X)
        need = q - 1
        part = np.int64(0)
        d = 1
        while need > 0 and d <= maxd:
            c = _popcount(rings[x, d] & allowed)
            if c > need:
                c = need
            part += c * d
            need -= c
            d += 1
        if need > 0:
            continue
        keys[cnt] = 2 * sumf[x] + part
        cnt += 1
    if cnt < q:
        return np.int64(1) << 60
    keys[:cnt].sort()
    lb2 = 2 * pairs
    for a in range(q):
        lb2 += keys[a]
    return (lb2 + 1) // 2


@njit(cache=True)
def _bnb(adj, dist, rings, maxd, n, size, best, cap, db):
    """Branch and bound for the least Wiener number of a connected set of ``size`` cities
    below ``best`` (returns ``best`` unchanged when none is lower). Returns (best, nodes,
    finished): ``finished`` is False when ``cap`` nodes were spent first."""
    depth_max = size + 1
    st_set = np.zeros(depth_max * n + n, dtype=np.uint64)
    st_ext = np.zeros(depth_max * n + n, dtype=np.uint64)
    st_ban = np.zeros(depth_max * n + n, dtype=np.uint64)
    st_pairs = np.zeros(depth_max * n + n, dtype=np.int64)
    st_depth = np.zeros(depth_max * n + n, dtype=np.int64)
    st_add = np.zeros(depth_max * n + n, dtype=np.int64)
    # d(x, F) for the sets on the current branch, one row per depth (F of depth + 1 cities):
    # depth-first, the rows above a node's depth belong to its ancestors
    sumf = np.zeros((depth_max + 1, n), dtype=np.int64)
    full = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    keys = np.empty(n, dtype=np.int64)
    nodes = np.int64(0)
    for r in range(n):
        root = np.uint64(1) << np.uint64(r)
        below = root - np.uint64(1)
        st_set[0] = root
        st_ext[0] = adj[r] & ~below & ~root
        st_ban[0] = below | root
        st_pairs[0] = 0
        st_depth[0] = 0
        st_add[0] = r
        sp = 1
        while sp > 0:
            sp -= 1
            s = st_set[sp]
            ext = st_ext[sp]
            ban = st_ban[sp]
            pairs = st_pairs[sp]
            dep = st_depth[sp]
            v = st_add[sp]
            nodes += 1
            if nodes > cap:
                return best, nodes, False
            # d(x, F) for this set: the parent's row plus the city added last
            if dep == 0:
                for x in range(n):
                    sumf[0, x] = dist[x, r]
            else:
                for x in range(n):
                    sumf[dep, x] = sumf[dep - 1, x] + dist[x, v]
            f = dep + 1
            if f == size:
                w = _wiener(adj, s, db)
                if w < best:
                    best = w
                continue
            # bound: pairs within F plus the q least terms over the allowed cities
            if _grown_bound(sumf[dep], rings, maxd, ~ban & ~s & full, size - f, pairs, keys,
                            db) >= best:
                continue
            # branch: take each extension city in turn, banning the earlier ones; a child's
            # pairs are its parent's plus the new city's distance to the parent's set
            e = ext
            banned = ban
            while e != np.uint64(0):
                low = e & (~e + np.uint64(1))
                e ^= low
                v = _ctz(low, db)
                nban = banned | low
                st_set[sp] = s | low
                st_ext[sp] = (e | (adj[v] & ~nban)) & ~nban
                st_ban[sp] = nban
                st_pairs[sp] = pairs + sumf[dep, v]
                st_depth[sp] = dep + 1
                st_add[sp] = v
                sp += 1
                banned = nban
    return best, nodes, True


#: branch-and-bound nodes per second on this kind of machine, taken low so a deadline holds
_RATE = 1.0e6
#: nodes of each size's first try
_FIRST_PASS = 150_000


def min_wiener_by_size(adj: list[int] | tuple[int, ...], lo: int, hi: int, *,
                       deadline: float | None = None, cap: int = 50_000_000,
                       known: np.ndarray | None = None) -> tuple[np.ndarray, dict]:
    """The least Wiener number of a connected set of ``size`` cities, for each size in
    ``lo .. hi`` (index = size; ``-1`` where a size ran out of nodes or time).

    ``adj`` holds the neighbour masks of a connected map; ``cap`` bounds the nodes of each
    size's search, ``deadline`` (a ``time.monotonic()`` value) all of them. ``known`` (index =
    size) gives upper bounds already known (for example a heuristic order's Wiener numbers).
    Each size first gets a small share of nodes, and only the sizes left unfinished get the
    rest, so that under a deadline one dear size does not starve the cheap ones (on europe41
    this cost about 10 % more nodes when every size finishes, measured with the first, weaker
    bound). Returns the table and per-size statistics ``{size: (nodes, seconds, finished)}``.
    """
    n = len(adj)
    if n > 63:
        raise ValueError(f"at most 63 cities (sets are 64-bit masks), not {n}")
    a = np.array(adj, dtype=np.uint64)
    dist = distance_matrix(adj)
    maxd = int(dist.max())
    rings = np.zeros((n, maxd + 1), dtype=np.uint64)  # rings[x, d]: the cities at distance d
    for x in range(n):
        for y in range(n):
            rings[x, dist[x, y]] |= np.uint64(1 << y)
    out = np.full(n + 1, -1, dtype=np.int64)
    stats: dict[int, tuple[int, float, bool]] = {}
    upper: dict[int, int] = {}
    # two passes: every size with a small share of nodes first (most sizes finish there), then
    # the rest with the whole budget, so that one dear size cannot starve the cheap ones
    pending = list(range(max(lo, 1), min(hi, n) + 1))
    for pass_cap in (min(cap, _FIRST_PASS), cap):
        left = []
        for size in pending:
            t0 = time.monotonic()
            budget = pass_cap
            if deadline is not None:
                budget = int(min(pass_cap, max(0.0, deadline - t0) * _RATE))
                if budget < 1000:
                    left.append(size)
                    continue
            if size <= 2:
                out[size] = size - 1
                stats[size] = (0, 0.0, True)
                continue
            if size not in upper:
                upper[size] = int(_greedy_upper(a, dist, n, size, _DEBRUIJN))
                if known is not None and 0 <= known[size] < upper[size]:
                    upper[size] = int(known[size])
            # anything strictly below the upper bound (reached by a set already seen)
            best, nodes, done = _bnb(a, dist, rings, maxd, n, size, upper[size], budget,
                                     _DEBRUIJN)
            upper[size] = int(best)
            prev = stats.get(size, (0, 0.0, False))
            stats[size] = (prev[0] + int(nodes), round(prev[1] + time.monotonic() - t0, 3),
                           bool(done))
            if done:
                out[size] = best
            else:
                left.append(size)
        pending = left
        if not pending:
            break
    return out, stats
