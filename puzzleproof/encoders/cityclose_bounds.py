"""City closing: bounds on the Wiener numbers still to come, for the exact DP's ``h``.

For a map ``S`` of ``size`` cities and ``m`` links, every later map ``T`` of ``i`` cities
inside it (for each size ``i`` down to the last) has a least possible Wiener number; ``h(S)``
is the sum over the sizes of a lower bound on it, the largest of: the link counts (unlinked
pairs are 2 apart or more, pairs not within two links 3 or more), the least Wiener number of a
connected set of that size in the whole map (``lbmin``, from
:mod:`puzzleproof.encoders.cityclose_minima` and :mod:`puzzleproof.encoders.cityclose_lagrange`),
and two distance bounds read from ``S``'s own sorted distances (``d_T >= d_S``): see
:func:`_h_dist_links`. Also the map's distance matrix, which every bound starts from.
"""

from __future__ import annotations

import numpy as np

from puzzleproof.encoders.cityclose_bits import njit, sort_by_key

__all__ = ["distance_matrix"]


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
