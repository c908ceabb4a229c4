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

from puzzleproof.encoders.cityclose_bits import (_DEBRUIJN, _ctz, _popcount, _wiener, njit,
                                                sort_by_key)
from puzzleproof.clock import Deadline

__all__ = ["min_wiener_by_size", "distance_matrix"]


def distance_matrix(adj: list[int] | tuple[int, ...]) -> np.ndarray:
    """All shortest-path lengths of a connected map given as neighbour masks (a compiled BFS
    from every city: a map of 3,000 cities takes a fraction of a second)."""
    n = len(adj)
    indptr = np.zeros(n + 1, dtype=np.int64)
    nbrs: list[int] = []
    for v, mask in enumerate(adj):
        while mask:
            low = mask & -mask
            nbrs.append(low.bit_length() - 1)
            mask ^= low
        indptr[v + 1] = len(nbrs)
    return _all_pairs(indptr, np.array(nbrs, dtype=np.int64), n)


@njit(cache=True)
def _all_pairs(indptr, indices, n):
    d = np.full((n, n), -1, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    for s in range(n):
        row = d[s]
        row[s] = 0
        queue[0] = s
        head, tail = 0, 1
        while head < tail:
            v = queue[head]
            head += 1
            for j in range(indptr[v], indptr[v + 1]):
                u = indices[j]
                if row[u] < 0:
                    row[u] = row[v] + 1
                    queue[tail] = u
                    tail += 1
    return d


# -- bounds on the Wiener numbers still to come (the exact DP's h) ------------------------

@njit(cache=True)
def _size_bound(i, m, size, emax, p2max, lbmin):
    """The least Wiener number of a later map of ``i`` cities by its links alone (unlinked
    pairs are 2 apart or more, pairs not within two links 3 or more), or the exact least
    Wiener number of that size in ``lbmin``, whichever is larger."""
    pairs = i * (i - 1) // 2
    e = m - (size - i)
    if e > emax[i]:
        e = emax[i]
    if e > pairs:
        e = pairs
    if e < i - 1:
        e = i - 1
    b2 = 2 * pairs - e
    p = p2max[i]
    if p > pairs - e:
        p = pairs - e
    b3 = 3 * pairs - 2 * e - p
    b = b2 if b2 > b3 else b3
    if lbmin[i] > b:
        b = lbmin[i]
    return b


@njit(cache=True)
def _h_links(m, size, final_size, emax, p2max, lbmin):
    """Admissible lower bound on the Wiener numbers of the maps after a map of ``size``
    cities and ``m`` links (sizes final_size .. size-1)."""
    total = np.int64(0)
    for i in range(final_size, size):
        total += _size_bound(i, m, size, emax, p2max, lbmin)
    return total


@njit(cache=True)
def _h_dist_links(m, size, final_size, emax, p2max, lbmin, pref, order, key, order2, key2,
                  w):
    """The bound of :func:`_h_links` for a map ``mask`` of ``size`` cities and ``m`` links,
    raised size by size by its distances (``pref`` as filled by :func:`_wiener_pref`, ``w``
    its Wiener number): a connected ``T`` inside ``mask`` has
    ``d_T >= d_mask``, so a city of ``T`` (``i`` cities) is at total distance at least the sum
    of its ``i - 1`` nearest cities of ``mask`` from the others, and ``W(T)`` is at least
    half the sum of the ``i`` least such sums. And from the other side: ``T`` is ``mask``
    less a set ``R`` of ``r = size - i`` cities, so ``W(T) >= w - sum_R status(x) + (the
    distances within R)``, where ``w`` is the Wiener number of ``mask``, a city's status is
    its total distance and the distances within ``R`` are at least half the sum over ``x`` in
    ``R`` of its ``r - 1`` nearest: ``W(T) >= w - (the r largest of status(x) - half that)``.
    ``order``, ``key``, ``order2`` and ``key2`` are scratch arrays of ``size`` entries."""
    total = np.int64(0)
    for a in range(size):
        order[a] = a
        order2[a] = a
    for i in range(size - 1, final_size - 1, -1):
        b = _size_bound(i, m, size, emax, p2max, lbmin)
        # the i least of pref[., i - 1]: insertion sort from the last size's order (the order
        # barely changes from one size to the next)
        for a in range(size):
            key[a] = pref[order[a], i - 1]
        sort_by_key(key, order, size)
        sd = np.int64(0)
        for a in range(i):
            sd += key[a]
        bd = (sd + 1) // 2
        if bd > b:
            b = bd
        # the r largest of 2 status(x) - pref[x, r - 1] (doubled to stay in integers)
        r = size - i
        for a in range(size):
            x = order2[a]
            key2[a] = 2 * pref[x, size - 1] - pref[x, r - 1]
        for a in range(1, size):
            ka = key2[a]
            oa = order2[a]
            q = a - 1
            while q >= 0 and key2[q] < ka:
                key2[q + 1] = key2[q]
                order2[q + 1] = order2[q]
                q -= 1
            key2[q + 1] = ka
            order2[q + 1] = oa
        sc = 2 * w
        for a in range(r):
            sc -= key2[a]
        bc = (sc + 1) // 2
        if bc > b:
            b = bc
        total += b
    return total


# -- the least Wiener number of each size -----------------------------------------------

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
def _least_sum(keys, cnt, q):
    """The sum of the ``q`` least of ``keys[:cnt]`` (which it reorders): a quickselect,
    cheaper to compile than a sort and linear on average."""
    lo = 0
    hi = cnt - 1
    while lo < hi:
        pivot = keys[(lo + hi) // 2]
        i = lo
        j = hi
        while i <= j:
            while keys[i] < pivot:
                i += 1
            while keys[j] > pivot:
                j -= 1
            if i <= j:
                keys[i], keys[j] = keys[j], keys[i]
                i += 1
                j -= 1
        if q - 1 <= j:
            hi = j
        elif q - 1 >= i:
            lo = i
        else:
            break
    total = np.int64(0)
    for a in range(q):
        total += keys[a]
    return total


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
    return (2 * pairs + _least_sum(keys, cnt, q) + 1) // 2


@njit(cache=True)
def _bnb(adj, dist, rings, maxd, n, size, best, cap, db, stu, sti, sumf, keys, ctl):
    """Branch and bound for the least Wiener number of a connected set of ``size`` cities
    below ``best`` (returns ``best`` unchanged when none is lower), resumable: the search
    stack lives in ``stu`` (rows: set, extension, banned) and ``sti`` (rows: pairs within the
    set, depth, city added last), the next root and the stack's height in ``ctl``; a call
    spends at most ``cap`` nodes and the next call goes on where it stopped. Returns (best,
    nodes, finished)."""
    full = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    nodes = np.int64(0)
    r = ctl[0]
    sp = ctl[1]
    while True:
        if sp == 0:
            if r >= n:
                ctl[0] = r
                ctl[1] = 0
                return best, nodes, True
            root = np.uint64(1) << np.uint64(r)
            below = root - np.uint64(1)
            stu[0, 0] = root
            stu[1, 0] = adj[r] & ~below & ~root
            stu[2, 0] = below | root
            sti[0, 0] = 0
            sti[1, 0] = 0
            sti[2, 0] = r
            sp = 1
            r += 1
        if nodes >= cap:
            ctl[0] = r
            ctl[1] = sp
            return best, nodes, False
        sp -= 1
        s = stu[0, sp]
        ext = stu[1, sp]
        ban = stu[2, sp]
        pairs = sti[0, sp]
        dep = sti[1, sp]
        v = sti[2, sp]
        nodes += 1
        # d(x, F) for this set: the parent's row plus the city added last (depth-first, the
        # rows above a node's depth belong to its ancestors)
        if dep == 0:
            for x in range(n):
                sumf[0, x] = dist[x, v]
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
            stu[0, sp] = s | low
            stu[1, sp] = (e | (adj[v] & ~nban)) & ~nban
            stu[2, sp] = nban
            sti[0, sp] = pairs + sumf[dep, v]
            sti[1, sp] = dep + 1
            sti[2, sp] = v
            sp += 1
            banned = nban


class _SizeSearch:
    """The resumable branch and bound of one size: its stack, its best value so far, the
    nodes and seconds it spent."""

    def __init__(self, n: int, size: int, upper: int) -> None:
        room = (size + 1) * n + n
        self.size = size
        self.stu = np.zeros((3, room), dtype=np.uint64)
        self.sti = np.zeros((3, room), dtype=np.int64)
        self.sumf = np.zeros((size + 2, n), dtype=np.int64)
        self.keys = np.empty(n, dtype=np.int64)
        self.ctl = np.zeros(2, dtype=np.int64)
        self.best = upper
        self.nodes = 0
        self.seconds = 0.0
        self.done = False

    def run(self, tables: tuple, nodes: int) -> None:
        """Spend at most ``nodes`` more nodes."""
        a, dist, rings, maxd, n = tables
        t0 = time.monotonic()
        best, spent, done = _bnb(a, dist, rings, maxd, n, self.size, self.best, nodes,
                                 _DEBRUIJN, self.stu, self.sti, self.sumf, self.keys, self.ctl)
        self.best = int(best)
        self.nodes += int(spent)
        self.seconds += time.monotonic() - t0
        self.done = bool(done)


#: nodes of each size's first try
_FIRST_PASS = 150_000
#: nodes between two looks at the clock (well under 0.1 s)
_CHUNK = 20_000


def _tables(adj) -> tuple:
    n = len(adj)
    a = np.array(adj, dtype=np.uint64)
    dist = distance_matrix(adj)
    maxd = int(dist.max())
    rings = np.zeros((n, maxd + 1), dtype=np.uint64)  # rings[x, d]: the cities at distance d
    for x in range(n):
        for y in range(n):
            rings[x, dist[x, y]] |= np.uint64(1 << y)
    return a, dist, rings, maxd, n


def min_wiener_by_size(adj: list[int] | tuple[int, ...], lo: int, hi: int, *,
                       deadline: Deadline | None = None, cap: int = 50_000_000,
                       known: np.ndarray | None = None) -> tuple[np.ndarray, dict]:
    """The least Wiener number of a connected set of ``size`` cities, for each size in
    ``lo .. hi`` (index = size; ``-1`` where a size ran out of nodes or time).

    ``adj`` holds the neighbour masks of a connected map; ``cap`` bounds the nodes of each
    size's search, ``deadline`` (a :class:`~puzzleproof.clock.Deadline`; None: no limit)
    all of them: the clock is read every few thousand nodes. ``known`` (index =
    size) gives upper bounds already known (for example a heuristic order's Wiener numbers).
    Each size first gets a small share of nodes, and only the sizes left unfinished go on
    (where they stopped) with the rest, so that under a deadline one dear size does not
    starve the cheap ones. Returns the table and per-size statistics ``{size: (nodes,
    seconds, finished)}``.
    """
    n = len(adj)
    if n > 63:
        raise ValueError(f"at most 63 cities (sets are 64-bit masks), not {n}")
    dl = deadline if deadline is not None else Deadline(None)
    tables = _tables(adj)
    out = np.full(n + 1, -1, dtype=np.int64)
    searches: dict[int, _SizeSearch] = {}
    for size in range(max(lo, 1), min(hi, n) + 1):
        if size <= 2:
            out[size] = size - 1
            continue
        if dl.expired():
            break
        upper = int(_greedy_upper(tables[0], tables[1], n, size, _DEBRUIJN))
        if known is not None and 0 <= known[size] < upper:
            upper = int(known[size])
        searches[size] = _SizeSearch(n, size, upper)
    for pass_cap in (min(cap, _FIRST_PASS), cap):
        for size, srch in searches.items():
            while not srch.done and srch.nodes < pass_cap and not dl.expired():
                srch.run(tables, min(_CHUNK, pass_cap - srch.nodes))
            if srch.done:
                out[size] = srch.best
    stats = {size: (0, 0.0, True) for size in range(max(lo, 1), min(hi, n, 2) + 1)}
    stats.update({size: (srch.nodes, round(srch.seconds, 3), srch.done)
                  for size, srch in searches.items()})
    return out, stats
