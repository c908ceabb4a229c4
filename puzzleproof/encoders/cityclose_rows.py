"""City closing: sets of cities as rows of 64-bit words, for maps of any size.

A set of cities is a row of ``W = ceil(n / 64)`` words (city ``v`` is bit ``v % 64`` of word
``v // 64``); a layer of the exact search is an array of such rows. These are the row
versions of :mod:`puzzleproof.encoders.cityclose_bits`' one-word primitives (the neighbours
of a set, connectivity, links and the path test, the Wiener number with each city's sorted
distances, hashing, equality, sorting and finding rows); the layered DP's kernels
(:mod:`puzzleproof.encoders.cityclose_layers`) are written once over either kind of set.
"""

from __future__ import annotations

import numpy as np

from puzzleproof.encoders.cityclose_bits import _ctz, _popcount, njit, record_ring

__all__ = ["words", "to_rows", "row_of", "mask_of", "connected", "degree_stats", "wiener_pref",
           "hash_row", "same", "find_row", "sort_rows"]


def words(n: int) -> int:
    """The words a set of ``n`` cities takes."""
    return max(1, (n + 63) // 64)


def row_of(mask: int, w: int) -> np.ndarray:
    """The row of ``w`` words of the set ``mask`` (a Python int)."""
    return np.array([(mask >> (64 * k)) & 0xFFFFFFFFFFFFFFFF for k in range(w)],
                    dtype=np.uint64)


def mask_of(row: np.ndarray) -> int:
    """The set of a row, as a Python int."""
    return sum(int(x) << (64 * k) for k, x in enumerate(row))


def to_rows(masks, w: int) -> np.ndarray:
    """One row per mask (Python ints): the neighbour masks of a map, say."""
    out = np.zeros((len(masks), w), dtype=np.uint64)
    for i, mk in enumerate(masks):
        out[i] = row_of(mk, w)
    return out


@njit(cache=True)
def _reach(adj, frontier, nb, db):
    """``nb`` = the cities linked to some city of ``frontier``."""
    w = frontier.shape[0]
    for k in range(w):
        nb[k] = 0
    for j in range(w):
        f = frontier[j]
        while f != np.uint64(0):
            b = f & (~f + np.uint64(1))
            f ^= b
            row = adj[j * 64 + _ctz(b, db)]
            for k in range(w):
                nb[k] |= row[k]


@njit(cache=True)
def connected(adj, s, db, scratch):
    """Whether the set ``s`` is connected (and not empty); ``scratch`` holds three rows."""
    w = s.shape[0]
    seen, frontier, nb = scratch[0], scratch[1], scratch[2]
    found = False
    for k in range(w):
        seen[k] = 0
        frontier[k] = 0
    for k in range(w):
        if s[k] != np.uint64(0):
            seen[k] = s[k] & (~s[k] + np.uint64(1))
            frontier[k] = seen[k]
            found = True
            break
    if not found:
        return False
    grew = True
    while grew:
        _reach(adj, frontier, nb, db)
        grew = False
        for k in range(w):
            fk = nb[k] & s[k] & ~seen[k]
            frontier[k] = fk
            seen[k] |= fk
            if fk != np.uint64(0):
                grew = True
    for k in range(w):
        if seen[k] != s[k]:
            return False
    return True


@njit(cache=True)
def _count(s):
    c = np.int64(0)
    for k in range(s.shape[0]):
        c += _popcount(s[k])
    return c


@njit(cache=True)
def degree_stats(adj, s, db):
    """(links within ``s``, whether ``s`` is a path given it is connected)."""
    w = s.shape[0]
    degsum = np.int64(0)
    over = False
    for j in range(w):
        rest = s[j]
        while rest != np.uint64(0):
            b = rest & (~rest + np.uint64(1))
            rest ^= b
            v = j * 64 + _ctz(b, db)
            d = np.int64(0)
            for k in range(w):
                d += _popcount(adj[v, k] & s[k])
            if d > 2:
                over = True
            degsum += d
    links = degsum // 2
    return links, (not over) and links == _count(s) - 1


@njit(cache=True)
def wiener_pref(adj, s, db, pref):
    """The Wiener number of the connected set ``s`` by BFS from every city; fills
    ``pref[a, j]``, the sum of the ``j`` least distances from the ``a``-th city of ``s`` (in
    bit order) to the others."""
    w = s.shape[0]
    scratch = np.empty((3, w), dtype=np.uint64)
    seen, frontier, nb = scratch[0], scratch[1], scratch[2]
    total = np.int64(0)
    a = 0
    for j0 in range(w):
        rest = s[j0]
        while rest != np.uint64(0):
            b = rest & (~rest + np.uint64(1))
            rest ^= b
            for k in range(w):
                seen[k] = 0
                frontier[k] = 0
            seen[j0] = b
            frontier[j0] = b
            d = np.int64(0)
            j = 0
            acc = np.int64(0)
            pref[a, 0] = 0
            grew = True
            while grew:
                d += 1
                _reach(adj, frontier, nb, db)
                c = np.int64(0)
                for k in range(w):
                    fk = nb[k] & s[k] & ~seen[k]
                    frontier[k] = fk
                    seen[k] |= fk
                    c += _popcount(fk)
                grew = c > 0
                j, acc = record_ring(pref, a, j, acc, d, c)
            total += acc
            a += 1
    return total // 2


@njit(cache=True)
def hash_row(row, shift):
    h = np.uint64(0x243F6A8885A308D3)
    for k in range(row.shape[0]):
        h = (h ^ row[k]) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64(h >> shift)


@njit(cache=True)
def same(a, b):
    for k in range(a.shape[0]):
        if a[k] != b[k]:
            return False
    return True


@njit(cache=True)
def find_row(keys, q):
    """The index of row ``q`` in ``keys`` (sorted by :func:`sort_rows`), or -1."""
    lo = 0
    hi = keys.shape[0]
    w = keys.shape[1]
    while lo < hi:
        mid = (lo + hi) // 2
        c = 0
        for k in range(w):
            if keys[mid, k] < q[k]:
                c = -1
                break
            if keys[mid, k] > q[k]:
                c = 1
                break
        if c == 0:
            return mid
        if c < 0:
            lo = mid + 1
        else:
            hi = mid
    return -1


def sort_rows(keys: np.ndarray) -> np.ndarray:
    """The order that sorts the rows word by word (word 0 first), as :func:`find_row`
    expects."""
    return np.lexsort(tuple(keys[:, k] for k in range(keys.shape[1] - 1, -1, -1)))
