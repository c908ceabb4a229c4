"""City closing: sets of cities as one 64-bit word (city ``i`` = bit ``i``, maps of up to 63
cities): the lowest set bit's index, popcount, the neighbours of a set, connectivity, the
Wiener number (with each city's sorted distances), the path test, the link count, hashing.

:mod:`puzzleproof.encoders.cityclose_rows` has the same primitives for rows of several words;
the layered DP's kernels (:mod:`puzzleproof.encoders.cityclose_layers`) are written once over
either kind of set, and this module is their fast path on maps that fit a word.
"""

from __future__ import annotations

import numpy as np

__all__ = ["njit", "prange", "HAVE_NUMBA", "U1", "_DEBRUIJN", "_ctz", "_popcount", "_reach",
           "_connected", "_degree_stats", "_wiener_pref", "record_ring", "_hash", "sort_by_key"]

try:  # numba is a declared dependency; the pure-numpy fallback would be far too slow
    from numba import njit, prange
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    HAVE_NUMBA = False

    def njit(*a, **k):  # type: ignore[no-redef]
        def wrap(f):
            return f
        return wrap(a[0]) if a and callable(a[0]) else wrap

    prange = range  # type: ignore[assignment]

U1 = np.uint64(1)
_DEBRUIJN = np.array([0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4, 62, 55, 59,
                      36, 53, 51, 43, 22, 45, 39, 33, 30, 24, 18, 12, 5, 63, 47, 56, 27, 60,
                      41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11, 46, 26, 40, 15, 34, 20, 31,
                      10, 25, 14, 19, 9, 13, 8, 7, 6], dtype=np.int64)
_DB_MAGIC = np.uint64(0x03F79D71B4CB0A89)


@njit(cache=True)
def _ctz(b, db):
    # index of the single set bit of b (b != 0, a power of two)
    return db[np.int64((b * np.uint64(0x03F79D71B4CB0A89)) >> np.uint64(58))]


@njit(cache=True)
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def _reach(adj, frontier, db):
    """The cities linked to some city of ``frontier`` (the OR of their neighbour masks)."""
    nb = np.uint64(0)
    f = frontier
    while f != np.uint64(0):
        b = f & (~f + np.uint64(1))
        nb |= adj[_ctz(b, db)]
        f ^= b
    return nb


@njit(cache=True)
def _connected(adj, mask, db):
    if mask == np.uint64(0):
        return False
    seen = mask & (~mask + np.uint64(1))
    frontier = seen
    while frontier != np.uint64(0):
        frontier = _reach(adj, frontier, db) & mask & ~seen
        seen |= frontier
    return seen == mask


@njit(cache=True)
def _degree_stats(adj, mask, db):
    """(links within ``mask``, whether ``mask`` is a path given it is connected)."""
    degsum = np.int64(0)
    over = False
    rest = mask
    while rest != np.uint64(0):
        low = rest & (~rest + np.uint64(1))
        rest ^= low
        d = _popcount(adj[_ctz(low, db)] & mask)
        if d > 2:
            over = True
        degsum += d
    links = degsum // 2
    return links, (not over) and links == _popcount(mask) - 1


@njit(cache=True)
def _wiener_pref(adj, mask, db, pref):
    """Wiener number of a connected mask by BFS from every city; fills ``pref[a, j]``, the
    sum of the ``j`` smallest distances from the ``a``-th city of ``mask`` (in bit order) to
    the other cities of ``mask`` (``j`` = 0 .. size - 1)."""
    total = np.int64(0)
    rest = mask
    a = 0
    while rest != np.uint64(0):
        low = rest & (~rest + np.uint64(1))
        rest ^= low
        seen = low
        frontier = low
        d = np.int64(0)
        j = 0
        acc = np.int64(0)
        pref[a, 0] = 0
        while frontier != np.uint64(0):
            d += 1
            frontier = _reach(adj, frontier, db) & mask & ~seen
            seen |= frontier
            j, acc = record_ring(pref, a, j, acc, d, _popcount(frontier))
        total += acc
        a += 1
    return total // 2


@njit(cache=True)
def record_ring(pref, a, j, acc, d, c):
    """``c`` more cities at distance ``d`` from the ``a``-th city: its running sums of the
    least distances (``pref[a, j]``) go on; returns the new ``(j, acc)``."""
    for _ in range(c):
        j += 1
        acc += d
        pref[a, j] = acc
    return j, acc


@njit(cache=True)
def _hash(key, shift):
    return np.int64((key * np.uint64(0x9E3779B97F4A7C15)) >> shift)


@njit(cache=True)
def sort_by_key(key, items, count):
    """Sort ``key[:count]`` ascending by insertion, moving ``items[:count]`` alongside: an
    order kept from the last call, which the keys barely change, is re-sorted in about
    linear time."""
    for j in range(1, count):
        kj, ij = key[j], items[j]
        h = j - 1
        while h >= 0 and key[h] > kj:
            key[h + 1] = key[h]
            items[h + 1] = items[h]
            h -= 1
        key[h + 1] = kj
        items[h + 1] = ij
