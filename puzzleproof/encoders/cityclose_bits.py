"""City closing: the bit-set kernels the compiled engines share (one set of cities = one
64-bit word, city ``i`` = bit ``i``): the lowest set bit's index, popcount, the neighbours of a
set, connectivity, the Wiener number, the path test and the link count.

They sit in a module of their own so that the exact DP
(:mod:`puzzleproof.encoders.cityclose_exact`) and the per-size minima
(:mod:`puzzleproof.encoders.cityclose_bounds`) both import them, one way.
"""

from __future__ import annotations

import numpy as np

__all__ = ["njit", "prange", "HAVE_NUMBA", "U1", "_DEBRUIJN", "_ctz", "_popcount", "_reach",
           "_connected", "_wiener", "_is_path", "_edges", "sort_by_key"]

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
def _wiener(adj, mask, db):
    # Wiener number of a connected mask (sum over ordered pairs / 2)
    total = np.int64(0)
    rest = mask
    while rest != np.uint64(0):
        low = rest & (~rest + np.uint64(1))
        rest ^= low
        seen = low
        frontier = low
        d = np.int64(0)
        while frontier != np.uint64(0):
            d += 1
            frontier = _reach(adj, frontier, db) & mask & ~seen
            seen |= frontier
            total += d * _popcount(frontier)
    return total // 2


@njit(cache=True)
def _is_path(adj, mask, db):
    size = _popcount(mask)
    degsum = np.int64(0)
    rest = mask
    while rest != np.uint64(0):
        low = rest & (~rest + np.uint64(1))
        rest ^= low
        d = _popcount(adj[_ctz(low, db)] & mask)
        if d > 2:
            return False
        degsum += d
    return degsum // 2 == size - 1


@njit(cache=True)
def _edges(adj, mask, db):
    s = np.int64(0)
    rest = mask
    while rest != np.uint64(0):
        low = rest & (~rest + np.uint64(1))
        rest ^= low
        s += _popcount(adj[_ctz(low, db)] & mask)
    return s // 2


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
