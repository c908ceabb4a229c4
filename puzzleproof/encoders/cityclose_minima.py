"""City closing: the least Wiener number of a connected set of each size, by branch and bound.

For sizes ``lo .. hi``, :func:`min_wiener_by_size` gives the exact least Wiener number of a
connected set of that many cities where its search finishes, and a lower bound on it where
the search runs out of nodes or time. The exact layered DP
(:mod:`puzzleproof.encoders.cityclose_exact`) takes these as per-size lower bounds: every map
of the closing sequence is such a set.

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
that adds least), or a known set's (the incumbent order's maps) when lower. A size that runs
out of nodes or time still gives a lower bound: the least bound over the nodes left open
(the stack and the roots not started), since every set of that size lies below one of them.

Sets are rows of 64-bit words (:mod:`puzzleproof.encoders.cityclose_rows`), one word on maps
of up to 63 cities: the search's time goes to the bound's distance sums, which do not care
how a set is stored, so one version serves every map.
"""

from __future__ import annotations

import time
from typing import Collection

import numpy as np

from puzzleproof.clock import Deadline
from puzzleproof.encoders.cityclose_bits import _DEBRUIJN, _ctz, _popcount, njit
from puzzleproof.encoders.cityclose_bounds import distance_matrix
from puzzleproof.encoders.cityclose_rows import to_rows, wiener_pref, words

__all__ = ["min_wiener_by_size", "search_tables"]

_HUGE = np.int64(1) << 60


@njit(cache=True)
def _greedy_upper(adj, dist, n, size, db):
    """The least Wiener number among sets grown greedily (the city closest in total to the
    set joins next) from every city."""
    w = adj.shape[1]
    best = _HUGE
    sumf = np.zeros(n, dtype=np.int64)
    s = np.zeros(w, dtype=np.uint64)
    pref = np.empty((size, size), dtype=np.int64)
    for r in range(n):
        for k in range(w):
            s[k] = 0
        s[r // 64] |= np.uint64(1) << np.uint64(r % 64)
        for x in range(n):
            sumf[x] = dist[x, r]
        members = np.zeros(n, dtype=np.bool_)
        members[r] = True
        for _ in range(size - 1):
            bx = -1
            bv = _HUGE
            for x in range(n):
                if members[x]:
                    continue
                linked = False
                for k in range(w):
                    if adj[x, k] & s[k]:
                        linked = True
                        break
                if linked and sumf[x] < bv:
                    bv = sumf[x]
                    bx = x
            members[bx] = True
            s[bx // 64] |= np.uint64(1) << np.uint64(bx % 64)
            for x in range(n):
                sumf[x] += dist[x, bx]
        wv = wiener_pref(adj, s, db, pref)
        if wv < best:
            best = wv
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
    """The word-set ``_grown_bound`` on rows: a lower bound on ``W(T)`` for ``T`` grown from
    ``F`` by ``q`` cities among ``allowed`` (``sumf[x] = d(x, F)``); huge when fewer than
    ``q`` can join."""
    w = allowed.shape[0]
    cnt = 0
    for j in range(w):
        rest = allowed[j]
        while rest != np.uint64(0):
            low = rest & (~rest + np.uint64(1))
            rest ^= low
            x = j * 64 + _ctz(low, db)
            need = q - 1
            part = np.int64(0)
            d = 1
            while need > 0 and d <= maxd:
                c = np.int64(0)
                ring = rings[x, d]
                for k in range(w):
                    c += _popcount(ring[k] & allowed[k])
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
        return _HUGE
    return (2 * pairs + _least_sum(keys, cnt, q) + 1) // 2


@njit(cache=True)
def _push_root(adj, r, stu, sti, w):
    for k in range(w):
        stu[0, 0, k] = 0
        stu[2, 0, k] = 0
    for k in range(r // 64):
        stu[2, 0, k] = ~np.uint64(0)
    low_bits = np.uint64(r % 64)
    below = (np.uint64(1) << low_bits) - np.uint64(1)
    root = np.uint64(1) << low_bits
    stu[0, 0, r // 64] = root
    stu[2, 0, r // 64] |= below | root
    for k in range(w):
        stu[1, 0, k] = adj[r, k] & ~stu[2, 0, k]
    sti[0, 0] = 0
    sti[1, 0] = 0
    sti[2, 0] = r


@njit(cache=True)
def _bnb(adj, dist, rings, maxd, n, size, best, cap, db, stu, sti, sumf, keys, ctl):
    """The resumable branch and bound of one size (see the word-set ``_bnb``): at most
    ``cap`` nodes a call. Returns (best, nodes, finished)."""
    w = adj.shape[1]
    nodes = np.int64(0)
    r = ctl[0]
    sp = ctl[1]
    allowed = np.zeros(w, dtype=np.uint64)
    scratch = np.zeros((3, w), dtype=np.uint64)  # _branch's copy of a node's set rows
    pref = np.empty((size, size), dtype=np.int64)
    while True:
        if sp == 0:
            if r >= n:
                ctl[0] = r
                ctl[1] = 0
                return best, nodes, True
            _push_root(adj, r, stu, sti, w)
            sp = 1
            r += 1
        if nodes >= cap:
            ctl[0] = r
            ctl[1] = sp
            return best, nodes, False
        sp -= 1
        pairs = sti[0, sp]
        dep = sti[1, sp]
        v = sti[2, sp]
        nodes += 1
        if dep == 0:
            for x in range(n):
                sumf[0, x] = dist[x, v]
        else:
            for x in range(n):
                sumf[dep, x] = sumf[dep - 1, x] + dist[x, v]
        f = dep + 1
        if f == size:
            wv = wiener_pref(adj, stu[0, sp], db, pref)
            if wv < best:
                best = wv
            continue
        for k in range(w):
            allowed[k] = ~stu[2, sp, k] & ~stu[0, sp, k]
        if n % 64:
            allowed[w - 1] &= (np.uint64(1) << np.uint64(n % 64)) - np.uint64(1)
        if _grown_bound(sumf[dep], rings, maxd, allowed, size - f, pairs, keys, db) >= best:
            continue
        sp = _branch(adj, stu, sti, sumf, sp, dep, pairs, w, db, scratch)


@njit(cache=True)
def _branch(adj, stu, sti, sumf, sp, dep, pairs, w, db, scratch):
    """Push the children of the node at ``sp`` (each extension city in turn, the earlier
    ones banned); returns the new stack height. ``scratch`` holds three rows."""
    s, e, banned = scratch[0], scratch[1], scratch[2]
    for k in range(w):
        s[k] = stu[0, sp, k]
        e[k] = stu[1, sp, k]
        banned[k] = stu[2, sp, k]
    for j in range(w):
        while e[j] != np.uint64(0):
            low = e[j] & (~e[j] + np.uint64(1))
            e[j] ^= low
            v = j * 64 + _ctz(low, db)
            banned[j] |= low
            for k in range(w):
                stu[0, sp, k] = s[k]
                stu[2, sp, k] = banned[k]
                stu[1, sp, k] = (e[k] | (adj[v, k] & ~banned[k])) & ~banned[k]
            stu[0, sp, j] |= low
            sti[0, sp] = pairs + sumf[dep, v]
            sti[1, sp] = dep + 1
            sti[2, sp] = v
            sp += 1
    return sp


@njit(cache=True)
def _node_bound(dist, rings, maxd, n, size, db, stu, sp, keys):
    """The bound of the open node at ``sp``: the pairs within its set ``F`` (full-map
    distances) plus what growing it by ``size - |F|`` allowed cities costs at least."""
    w = stu.shape[2]
    sumf = np.zeros(n, dtype=np.int64)
    allowed = np.zeros(w, dtype=np.uint64)
    f = 0
    pairs = np.int64(0)
    for j in range(w):
        rest = stu[0, sp, j]
        while rest != np.uint64(0):
            low = rest & (~rest + np.uint64(1))
            rest ^= low
            v = j * 64 + _ctz(low, db)
            pairs += sumf[v]
            for x in range(n):
                sumf[x] += dist[x, v]
            f += 1
    if f == size:
        return pairs
    for k in range(w):
        allowed[k] = ~stu[2, sp, k] & ~stu[0, sp, k]
    if n % 64:
        allowed[w - 1] &= (np.uint64(1) << np.uint64(n % 64)) - np.uint64(1)
    return _grown_bound(sumf, rings, maxd, allowed, size - f, pairs, keys, db)


@njit(cache=True)
def _open_bound(adj, dist, rings, maxd, n, size, best, db, stu, sti, keys, ctl):
    """A lower bound on the least Wiener number of a size whose search stopped: the least
    bound over the nodes still open (the stack and the roots not started), or ``best``.
    The last stack slot is scratch."""
    lb = best
    for sp in range(ctl[1]):
        b = _node_bound(dist, rings, maxd, n, size, db, stu, sp, keys)
        if b < lb:
            lb = b
    last = stu.shape[1] - 1
    for r in range(ctl[0], n):
        _push_root(adj, r, stu[:, last:], sti[:, last:], adj.shape[1])
        b = _node_bound(dist, rings, maxd, n, size, db, stu, last, keys)
        if b < lb:
            lb = b
    return lb


class _SizeSearch:
    """The resumable search of one size."""

    def __init__(self, n: int, w: int, size: int, upper: int) -> None:
        room = (size + 1) * n + n + 1
        self.size = size
        self.stu = np.zeros((3, room, w), dtype=np.uint64)
        self.sti = np.zeros((3, room), dtype=np.int64)
        self.sumf = np.zeros((size + 2, n), dtype=np.int64)
        self.keys = np.empty(n, dtype=np.int64)
        self.ctl = np.zeros(2, dtype=np.int64)
        self.best = upper
        self.nodes = 0
        self.seconds = 0.0
        self.done = False

    def run(self, tables: tuple, nodes: int) -> None:
        a, dist, rings, maxd, n = tables
        t0 = time.monotonic()
        best, spent, done = _bnb(a, dist, rings, maxd, n, self.size, self.best, nodes,
                                 _DEBRUIJN, self.stu, self.sti, self.sumf, self.keys, self.ctl)
        self.best = int(best)
        self.nodes += int(spent)
        self.seconds += time.monotonic() - t0
        self.done = bool(done)

    def lower(self, tables: tuple) -> int:
        """The exact least value when done, else the bound over the open nodes."""
        if self.done:
            return self.best
        a, dist, rings, maxd, n = tables
        return int(_open_bound(a, dist, rings, maxd, n, self.size, self.best, _DEBRUIJN,
                               self.stu, self.sti, self.keys, self.ctl))


def search_tables(adj: list[int] | tuple[int, ...]) -> tuple:
    """What the search reads: the neighbour rows, the distance matrix (``[1]``), each city's
    rings of cities by distance, the diameter and the size; made once for several calls of
    :func:`min_wiener_by_size`."""
    n = len(adj)
    w = words(n)
    a = to_rows(adj, w)
    dist = distance_matrix(adj)
    maxd = int(dist.max())
    rings = np.zeros((n, maxd + 1, w), dtype=np.uint64)  # rings[x, d]: at distance d of x
    ys = np.arange(n)
    bits = np.left_shift(np.uint64(1), (ys % 64).astype(np.uint64))
    for x in range(n):
        np.bitwise_or.at(rings[x], (dist[x], ys // 64), bits)
    return a, dist, rings, maxd, n


#: nodes between two looks at the clock
_CHUNK = 5_000
#: nodes of each size's first try
_FIRST_PASS = 60_000


def min_wiener_by_size(adj: list[int] | tuple[int, ...], lo: int, hi: int, *,
                            deadline: Deadline | None = None,
                            cap: int = 50_000_000, known: np.ndarray | None = None,
                            only: Collection[int] | None = None, tables: tuple | None = None
                            ) -> tuple[np.ndarray, np.ndarray, dict]:
    """For each size in ``lo .. hi``: the least Wiener number of a connected set of that
    many cities when its search finished, and always a lower bound on it (index = size).

    ``adj`` holds the neighbour masks of a connected map; ``cap`` bounds the nodes of each
    size's search, ``deadline`` (None: no limit) all of them: the clock is read every few
    thousand nodes. ``known`` (index = size) gives upper bounds already known (for example
    a heuristic order's Wiener numbers). Each size first gets a small share of nodes, and
    only the sizes left unfinished go on (where they stopped) with the rest, so that under a
    deadline one dear size does not starve the cheap ones. Returns ``(exact, lower,
    stats)``: ``exact[size]`` is -1 where the search did not finish, ``lower[size]`` a lower
    bound in every case, ``stats`` per size ``(nodes, seconds, finished)``. ``only``
    restricts the search to those sizes (the others get -1 and 0); ``tables`` are the map's
    :func:`search_tables` when the caller made them already.
    """
    n = len(adj)
    dl = deadline if deadline is not None else Deadline(None)
    tables = tables if tables is not None else search_tables(adj)
    exact = np.full(n + 1, -1, dtype=np.int64)
    lower = np.zeros(n + 1, dtype=np.int64)
    searches: dict[int, _SizeSearch] = {}
    for size in range(max(lo, 1), min(hi, n) + 1):
        if only is not None and size not in only:
            continue
        if size <= 2:
            exact[size] = lower[size] = size - 1
            continue
        if dl.expired():
            break
        upper = int(_greedy_upper(tables[0], tables[1], n, size, _DEBRUIJN))
        if known is not None and 0 <= known[size] < upper:
            upper = int(known[size])
        searches[size] = _SizeSearch(n, words(n), size, upper)
    for pass_cap in (min(cap, _FIRST_PASS), cap):
        for srch in searches.values():
            while not srch.done and srch.nodes < pass_cap and not dl.expired():
                srch.run(tables, min(_CHUNK, pass_cap - srch.nodes))
    for size, srch in searches.items():
        lower[size] = max(0, srch.lower(tables))
        if srch.done:
            exact[size] = srch.best
    stats = {size: (srch.nodes, round(srch.seconds, 3), srch.done)
             for size, srch in searches.items()}
    return exact, lower, stats
