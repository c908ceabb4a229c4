"""City closing: the compiled kernels of the layered DP over sets of one machine word (maps of
up to 63 cities): which cities of a state can close, the children of a layer with their
least parent value in an open-addressing table, each child's Wiener number (with its sorted
distances), shape rules and bound, and the trace back of the optimal order. The search
that drives them is :mod:`puzzleproof.encoders.cityclose_exact`; its kernels for wider sets
are :mod:`puzzleproof.encoders.cityclose_wide`.
"""

from __future__ import annotations

import numpy as np

from puzzleproof.encoders.cityclose_bits import (_DEBRUIJN, _connected, _ctz, _edges,
                                                _is_path, _wiener, _reach, _popcount, njit,
                                                prange)
from puzzleproof.encoders.cityclose_bounds import _h_dist_links, _h_links
from puzzleproof.models.cityclose import CityMap, Rules

__all__ = ["WordKernels"]


@njit(cache=True)
def _h(adj, mask, size, final_size, emax, p2max, lbmin, db):
    """:func:`_h_links` of the map ``mask``."""
    return _h_links(_edges(adj, mask, db), size, final_size, emax, p2max, lbmin)


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
            c = _popcount(frontier)
            for _ in range(c):
                j += 1
                acc += d
                pref[a, j] = acc
        total += acc
        a += 1
    return total // 2


@njit(cache=True)
def _h_dist(adj, mask, size, final_size, emax, p2max, lbmin, pref, order, key, order2, key2,
            w, db):
    """:func:`_h_dist_links` of the map ``mask``."""
    return _h_dist_links(_edges(adj, mask, db), size, final_size, emax, p2max, lbmin, pref,
                         order, key, order2, key2, w)


def _closable_py(adj, keys, keep, blocked, db):
    """For every state, the mask of cities whose closing keeps it connected (kept excluded,
    and a twin excluded while a twin of lower index is open: see :func:`twin_blocks`)."""
    out = np.zeros(keys.shape[0], dtype=np.uint64)
    for t in prange(keys.shape[0]):
        s = keys[t]
        rest = s & ~keep
        res = np.uint64(0)
        while rest != np.uint64(0):
            low = rest & (~rest + np.uint64(1))
            rest ^= low
            if s & blocked[_ctz(low, db)]:
                continue
            if _connected(adj, s ^ low, db):
                res |= low
        out[t] = res
    return out


@njit(cache=True)
def _hash(key, shift):
    return np.int64((key * np.uint64(0x9E3779B97F4A7C15)) >> shift)


@njit(cache=True)
def _insert_all(keys, vals, closable, tkeys, tvals, fill, bits):
    """Push every child of the layer (keys, vals) into the table (tkeys, tvals): a child keeps
    its least parent value. Returns (tkeys, tvals, fill, bits), grown as needed."""
    for t in range(keys.shape[0]):
        s = keys[t]
        f = vals[t]
        rest = closable[t]
        while rest != np.uint64(0):
            low = rest & (~rest + np.uint64(1))
            rest ^= low
            child = s ^ low
            cap = np.int64(1) << bits
            if 2 * (fill + 1) > cap:
                nb = bits + 1
                nk = np.zeros(np.int64(1) << nb, dtype=np.uint64)
                nv = np.zeros(np.int64(1) << nb, dtype=np.int64)
                mask_ = (np.int64(1) << nb) - 1
                sh = np.uint64(64 - nb)
                for q in range(cap):
                    k = tkeys[q]
                    if k != np.uint64(0):
                        h = _hash(k, sh)
                        while nk[h] != np.uint64(0):
                            h = (h + 1) & mask_
                        nk[h] = k
                        nv[h] = tvals[q]
                tkeys, tvals, bits = nk, nv, nb
                cap = np.int64(1) << bits
            msk = cap - 1
            h = _hash(child, np.uint64(64 - bits))
            while True:
                k = tkeys[h]
                if k == child:
                    if f < tvals[h]:
                        tvals[h] = f
                    break
                if k == np.uint64(0):
                    tkeys[h] = child
                    tvals[h] = f
                    fill += 1
                    break
                h = (h + 1) & msk
    return tkeys, tvals, fill, bits


def _finish_py(adj, keys, vals, size, final_size, no_paths, final_not_path, ub, emax, p2max,
               lbmin, db, use_dist):
    """Add each state's Wiener number, apply the shape rules and the bound: a state whose
    ``f + h`` reaches ``ub`` (the incumbent's total) is pruned, ties too, since only a
    strictly better order matters. Returns the new values (-1: dropped by a rule, -2: pruned
    by the bound) and each state's f + h."""
    n = keys.shape[0]
    out = np.empty(n, dtype=np.int64)
    est = np.empty(n, dtype=np.int64)
    final = size == final_size
    for t in prange(n):
        s = keys[t]
        bad = False
        if no_paths > 0 and size >= no_paths:
            if _is_path(adj, s, db):
                bad = True
        if final and final_not_path and size >= 3:
            if _is_path(adj, s, db):
                bad = True
        if bad:
            out[t] = -1
            est[t] = -1
            continue
        hh = _h(adj, s, size, final_size, emax, p2max, lbmin, db)
        # a cheap bound on the state's own Wiener number first: skip the BFS when it prunes
        wl = size * (size - 1) - _edges(adj, s, db)
        if lbmin[size] > wl:
            wl = lbmin[size]
        if vals[t] + wl + hh >= ub:
            out[t] = -2
            est[t] = vals[t] + wl + hh
            continue
        if use_dist:
            pref = np.empty((size, size), dtype=np.int64)
            order = np.empty(size, dtype=np.int64)
            key = np.empty(size, dtype=np.int64)
            order2 = np.empty(size, dtype=np.int64)
            key2 = np.empty(size, dtype=np.int64)
            w = _wiener_pref(adj, s, db, pref)
            v = vals[t] + w
            hh = _h_dist(adj, s, size, final_size, emax, p2max, lbmin, pref, order, key,
                         order2, key2, w, db)
        else:
            v = vals[t] + _wiener(adj, s, db)
        e = v + hh
        est[t] = e
        if e >= ub:
            out[t] = -2
        else:
            out[t] = v
    return out, est


# each loop twice: threads pay off on big layers, and cost ~10 ms a call on small ones
_closable_par = njit(cache=True, parallel=True)(_closable_py)
_closable_ser = njit(cache=True)(_closable_py)
_finish_par = njit(cache=True, parallel=True)(_finish_py)
_finish_ser = njit(cache=True)(_finish_py)
_PARALLEL_FROM = 20_000


def _closable(adj, keys, keep, blocked, db):
    f = _closable_par if keys.shape[0] >= _PARALLEL_FROM else _closable_ser
    return f(adj, keys, keep, blocked, db)


def _finish(adj, keys, *args, parallel: bool = False):
    f = _finish_par if parallel or keys.shape[0] >= _PARALLEL_FROM else _finish_ser
    return f(adj, keys, *args)



def _root_h(adj, mask, size, final_size, emax, p2max, lbmin, db, use_dist) -> int:
    if not use_dist:
        return int(_h(adj, mask, size, final_size, emax, p2max, lbmin, db))
    pref = np.empty((size, size), dtype=np.int64)
    w = _wiener_pref(adj, mask, db, pref)
    sc = [np.empty(size, dtype=np.int64) for _ in range(4)]
    return int(_h_dist(adj, mask, size, final_size, emax, p2max, lbmin, pref, *sc, w, db))



def _trace(adj, layers, j, db, n) -> list[int]:
    """The order reaching state ``j`` of the last layer, by walking back through the stored
    layers: a parent P of S has ``f(P) + W(S) == f(S)``."""
    keys, vals = layers[-1]
    s = int(keys[j])
    f = int(vals[j])
    order: list[int] = []
    for li in range(len(layers) - 2, -1, -1):
        pk, pv = layers[li]
        w = int(_wiener(adj, np.uint64(s), db))
        found = None
        for v in range(n):
            if s >> v & 1:
                continue
            p = s | (1 << v)
            pos = int(np.searchsorted(pk, np.uint64(p)))
            if pos < pk.shape[0] and int(pk[pos]) == p and int(pv[pos]) + w == f:
                found = (v, p, int(pv[pos]))
                break
        assert found is not None, "trace-back lost the path"
        v, s, f = found
        order.append(v)
    order.reverse()
    return order



class WordKernels:
    """The word-set kernels behind the interface the search drives (see
    :class:`puzzleproof.encoders.cityclose_wide.WideKernels` for the same on wider sets)."""

    def __init__(self, m: CityMap, rules: Rules, keep: int, blocked: list[int]) -> None:
        self.m = m
        self.adj = np.array(m.adj, dtype=np.uint64)
        self.keep = np.uint64(keep)
        self.blocked = np.array(blocked, dtype=np.uint64)
        self.rule_args = (rules.final_size, rules.no_paths or 0, bool(rules.final_not_path))

    def set_bounds(self, emax, p2max, lbmin, use_dist: bool) -> None:
        self.bounds = (emax, p2max, lbmin, _DEBRUIJN, use_dist)

    def root(self) -> tuple[np.ndarray, np.ndarray]:
        full = np.uint64(self.m.full_mask)
        return (np.array([full], dtype=np.uint64),
                np.array([int(_wiener(self.adj, full, _DEBRUIJN))], dtype=np.int64))

    def root_h(self) -> int:
        emax, p2max, lbmin, db, use_dist = self.bounds
        return _root_h(self.adj, np.uint64(self.m.full_mask), self.m.n, self.rule_args[0],
                       emax, p2max, lbmin, db, use_dist)

    def compile(self, keys, vals) -> None:
        """Compile (or load) every loop now, before the first layer."""
        for cl, fi in ((_closable_ser, _finish_ser), (_closable_par, _finish_par)):
            cl(self.adj, keys, self.keep, self.blocked, _DEBRUIJN)
            fi(self.adj, keys, vals, self.m.n, *self.rule_args, -1, *self.bounds)
        _insert_all(keys, vals, np.zeros(1, dtype=np.uint64),
                    np.zeros(1 << 10, dtype=np.uint64), np.zeros(1 << 10, dtype=np.int64), 0,
                    10)

    def new_table(self, bits: int) -> list:
        return [np.zeros(1 << bits, dtype=np.uint64), np.zeros(1 << bits, dtype=np.int64), 0,
                bits]

    def insert(self, table: list, keys, vals) -> list:
        closable = _closable(self.adj, keys, self.keep, self.blocked, _DEBRUIJN)
        return list(_insert_all(keys, vals, closable, *table))

    def items(self, table: list) -> tuple[np.ndarray, np.ndarray]:
        occ = table[0] != 0
        return table[0][occ], table[1][occ]

    def finish(self, keys, vals, size: int, ub: int, parallel: bool):
        return _finish(self.adj, keys, vals, size, *self.rule_args, ub, *self.bounds,
                       parallel=parallel)

    def order(self, keys) -> np.ndarray:
        return np.argsort(keys)

    def trace(self, stored, j: int) -> list[int]:
        return _trace(self.adj, stored, j, _DEBRUIJN, self.m.n)
