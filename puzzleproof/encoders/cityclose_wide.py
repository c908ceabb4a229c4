"""City closing on maps of any size: the compiled kernels of the layered DP over sets wider
than a machine word.

A set of cities is a row of ``W = ceil(n / 64)`` 64-bit words (city ``v`` is bit ``v % 64``
of word ``v // 64``); a layer is an array of such rows. The kernels do what the word-set
kernels of :mod:`puzzleproof.encoders.cityclose_exact` do (which cities can close, the
children of a layer with their least parent value in an open-addressing table, each child's
Wiener number, shape rules and bound), row by row; the bounds themselves
(``_h_links``/``_h_dist_links``) are shared, since they read only a map's link count and
its sorted distances. :class:`puzzleproof.encoders.cityclose_exact._ExactRun` drives them
for maps of more than 63 cities (and for any map when asked to, which the tests use to
check them against the word-set code).
"""

from __future__ import annotations

import numpy as np

from puzzleproof.encoders.cityclose_bits import _DEBRUIJN, _ctz, _popcount, njit, prange
from puzzleproof.encoders.cityclose_bounds import _h_dist_links, _h_links
from puzzleproof.models.cityclose import CityMap, Rules

__all__ = ["WideKernels", "words", "to_rows", "row_of", "mask_of"]


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
            v = j * 64 + _ctz(b, db)
            for k in range(w):
                nb[k] |= adj[v, k]


@njit(cache=True)
def _connected(adj, s, db):
    w = s.shape[0]
    seen = np.zeros(w, dtype=np.uint64)
    frontier = np.zeros(w, dtype=np.uint64)
    nb = np.zeros(w, dtype=np.uint64)
    found = False
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
def _degree_stats(adj, s, db):
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
    seen = np.zeros(w, dtype=np.uint64)
    frontier = np.zeros(w, dtype=np.uint64)
    nb = np.zeros(w, dtype=np.uint64)
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
                for _ in range(c):
                    j += 1
                    acc += d
                    pref[a, j] = acc
            total += acc
            a += 1
    return total // 2


def _closable_py(adj, keys, keep, blocked, db):
    """For every state (row), the cities whose closing keeps it connected (kept cities
    excluded, and a twin while a twin of lower index is open)."""
    n_states, w = keys.shape
    out = np.zeros((n_states, w), dtype=np.uint64)
    for t in prange(n_states):
        s = keys[t].copy()
        for j in range(w):
            rest = s[j] & ~keep[j]
            while rest != np.uint64(0):
                b = rest & (~rest + np.uint64(1))
                rest ^= b
                v = j * 64 + _ctz(b, db)
                waits = False
                for k in range(w):
                    if s[k] & blocked[v, k]:
                        waits = True
                        break
                if waits:
                    continue
                s[j] ^= b
                if _connected(adj, s, db):
                    out[t, j] |= b
                s[j] ^= b
    return out


@njit(cache=True)
def _hash_row(row, shift):
    h = np.uint64(0x243F6A8885A308D3)
    for k in range(row.shape[0]):
        h = (h ^ row[k]) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64(h >> shift)


@njit(cache=True)
def _same(a, b):
    for k in range(a.shape[0]):
        if a[k] != b[k]:
            return False
    return True


@njit(cache=True)
def _grow(tkeys, tvals, used, bits):
    nb = bits + 1
    cap = np.int64(1) << nb
    nk = np.zeros((cap, tkeys.shape[1]), dtype=np.uint64)
    nv = np.zeros(cap, dtype=np.int64)
    nu = np.zeros(cap, dtype=np.bool_)
    sh = np.uint64(64 - nb)
    for q in range(tkeys.shape[0]):
        if used[q]:
            h = _hash_row(tkeys[q], sh)
            while nu[h]:
                h = (h + 1) & (cap - 1)
            nk[h] = tkeys[q]
            nv[h] = tvals[q]
            nu[h] = True
    return nk, nv, nu, nb


@njit(cache=True)
def insert_all(keys, vals, closable, tkeys, tvals, used, fill, bits, db):
    """Push every child of the layer (keys, vals) into the table: a child keeps its least
    parent value. Returns the table (grown as needed), its fill and its bits."""
    w = keys.shape[1]
    child = np.zeros(w, dtype=np.uint64)
    for t in range(keys.shape[0]):
        f = vals[t]
        for j in range(w):
            rest = closable[t, j]
            while rest != np.uint64(0):
                b = rest & (~rest + np.uint64(1))
                rest ^= b
                for k in range(w):
                    child[k] = keys[t, k]
                child[j] ^= b
                if 2 * (fill + 1) > (np.int64(1) << bits):
                    tkeys, tvals, used, bits = _grow(tkeys, tvals, used, bits)
                msk = (np.int64(1) << bits) - 1
                h = _hash_row(child, np.uint64(64 - bits))
                while True:
                    if not used[h]:
                        tkeys[h] = child
                        tvals[h] = f
                        used[h] = True
                        fill += 1
                        break
                    if _same(tkeys[h], child):
                        if f < tvals[h]:
                            tvals[h] = f
                        break
                    h = (h + 1) & msk
    return tkeys, tvals, used, fill, bits


def _finish_py(adj, keys, vals, size, final_size, no_paths, final_not_path, ub, emax, p2max,
               lbmin, db):
    """Each state's Wiener number, shape rules and bound, as the word-set ``_finish`` (ties
    with ``ub`` pruned). Returns the new values (-1: dropped by a rule, -2: pruned) and each
    state's f + h."""
    n_states = keys.shape[0]
    out = np.empty(n_states, dtype=np.int64)
    est = np.empty(n_states, dtype=np.int64)
    final = size == final_size
    for t in prange(n_states):
        s = keys[t]
        links, path = _degree_stats(adj, s, db)
        if path and ((no_paths > 0 and size >= no_paths)
                     or (final and final_not_path and size >= 3)):
            out[t] = -1
            est[t] = -1
            continue
        hh = _h_links(links, size, final_size, emax, p2max, lbmin)
        wl = size * (size - 1) - links
        if lbmin[size] > wl:
            wl = lbmin[size]
        if vals[t] + wl + hh >= ub:
            out[t] = -2
            est[t] = vals[t] + wl + hh
            continue
        pref = np.empty((size, size), dtype=np.int64)
        order = np.empty(size, dtype=np.int64)
        key = np.empty(size, dtype=np.int64)
        order2 = np.empty(size, dtype=np.int64)
        key2 = np.empty(size, dtype=np.int64)
        wv = wiener_pref(adj, s, db, pref)
        v = vals[t] + wv
        hh = _h_dist_links(links, size, final_size, emax, p2max, lbmin, pref, order, key,
                           order2, key2, wv)
        e = v + hh
        est[t] = e
        out[t] = -2 if e >= ub else v
    return out, est


_closable_par = njit(cache=True, parallel=True)(_closable_py)
_closable_ser = njit(cache=True)(_closable_py)
finish_par = njit(cache=True, parallel=True)(_finish_py)
finish_ser = njit(cache=True)(_finish_py)


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


def _closable(adj, keys, keep, blocked):
    f = _closable_par if keys.shape[0] >= 20_000 else _closable_ser
    return f(adj, keys, keep, blocked, _DEBRUIJN)


@njit(cache=True)
def _trace_step(adj, pk, pv, s, f, w_s, n):
    """A parent of ``s`` (value ``f``) in the sorted layer ``pk``: ``(city, parent index)``
    with ``pv[parent] + w_s == f``, or (-1, -1)."""
    p = s.copy()
    for v in range(n):
        j, b = v // 64, np.uint64(1) << np.uint64(v % 64)
        if s[j] & b:
            continue
        p[j] |= b
        pos = find_row(pk, p)
        p[j] ^= b
        if pos >= 0 and pv[pos] + w_s == f:
            return v, pos
    return -1, -1


class WideKernels:
    """The wide-set kernels behind the interface the search drives (the same as
    :class:`puzzleproof.encoders.cityclose_word.WordKernels`)."""

    def __init__(self, m: CityMap, rules: Rules, keep: int, blocked: list[int]) -> None:
        self.m = m
        self.w = words(m.n)
        self.adj = to_rows(m.adj, self.w)
        self.keep = row_of(keep, self.w)
        self.blocked = to_rows(blocked, self.w)
        self.rule_args = (rules.final_size, rules.no_paths or 0, bool(rules.final_not_path))

    def set_bounds(self, emax, p2max, lbmin, use_dist: bool) -> None:
        self.bounds = (emax, p2max, lbmin, _DEBRUIJN)

    def root(self) -> tuple[np.ndarray, np.ndarray]:
        full = row_of(self.m.full_mask, self.w)[None, :]
        pref = np.empty((self.m.n, self.m.n), dtype=np.int64)
        return full, np.array([int(wiener_pref(self.adj, full[0], _DEBRUIJN, pref))],
                              dtype=np.int64)

    def root_h(self) -> int:
        n = self.m.n
        emax, p2max, lbmin, _ = self.bounds
        full = row_of(self.m.full_mask, self.w)
        pref = np.empty((n, n), dtype=np.int64)
        wv = wiener_pref(self.adj, full, _DEBRUIJN, pref)
        links, _ = _degree_stats(self.adj, full, _DEBRUIJN)
        sc = [np.empty(n, dtype=np.int64) for _ in range(4)]
        return int(_h_dist_links(links, n, self.rule_args[0], emax, p2max, lbmin, pref, *sc,
                                 wv))

    def compile(self, keys, vals) -> None:
        """Compile (or load) every loop now, before the first layer."""
        for cl, fi in ((_closable_ser, finish_ser), (_closable_par, finish_par)):
            cl(self.adj, keys, self.keep, self.blocked, _DEBRUIJN)
            fi(self.adj, keys, vals, self.m.n, *self.rule_args, -1, *self.bounds)
        self.insert(self.new_table(4), keys, vals)
        find_row(keys, keys[0])

    def new_table(self, bits: int) -> list:
        return [np.zeros((1 << bits, self.w), dtype=np.uint64),
                np.zeros(1 << bits, dtype=np.int64), np.zeros(1 << bits, dtype=np.bool_), 0,
                bits]

    def insert(self, table: list, keys, vals) -> list:
        closable = _closable(self.adj, keys, self.keep, self.blocked)
        return list(insert_all(keys, vals, closable, *table, _DEBRUIJN))

    def items(self, table: list) -> tuple[np.ndarray, np.ndarray]:
        return table[0][table[2]], table[1][table[2]]

    def finish(self, keys, vals, size: int, ub: int, parallel: bool):
        f = finish_par if parallel or keys.shape[0] >= 20_000 else finish_ser
        return f(self.adj, keys, vals, size, *self.rule_args, ub, *self.bounds)

    def order(self, keys) -> np.ndarray:
        return sort_rows(keys)

    def trace(self, stored, j: int) -> list[int]:
        """The order reaching row ``j`` of the last layer, walking back through the layers:
        a parent P of S has ``f(P) + W(S) == f(S)``."""
        keys, vals = stored[-1]
        s = keys[j].copy()
        f = int(vals[j])
        order: list[int] = []
        pref = np.empty((self.m.n, self.m.n), dtype=np.int64)
        for li in range(len(stored) - 2, -1, -1):
            pk, pv = stored[li]
            w_s = int(wiener_pref(self.adj, s, _DEBRUIJN, pref))
            v, pos = _trace_step(self.adj, pk, pv, s, f, w_s, self.m.n)
            assert v >= 0, "trace-back lost the path"
            order.append(int(v))
            s = pk[pos].copy()
            f = int(pv[pos])
        order.reverse()
        return order
