"""City closing: the compiled kernels of the layered DP, written once for sets of one word and
sets of several.

A layer is an array of sets: one ``uint64`` per set on maps of up to 63 cities (a 1-D array),
a row of ``ceil(n / 64)`` words beyond (a 2-D array). The kernels (which cities of a state
can close, the children of a layer with their least parent value in an open-addressing
table, each child's shape rules, Wiener number and bound) are written once against a few
set primitives, and numba compiles each kernel for both kinds of set: the primitive that a
kernel calls is chosen by the type of the set at compile time (an ``@overload`` per
primitive), from :mod:`puzzleproof.encoders.cityclose_bits` for one word and
:mod:`puzzleproof.encoders.cityclose_rows` for rows. A kernel over rows of one word would
do the same work, but markedly slower: a word kept in a register against an array in memory
(``benchmarks/cityclose.py --kernels`` measures both).

The search that drives them is :mod:`puzzleproof.encoders.cityclose_exact`; the bounds they
add are :mod:`puzzleproof.encoders.cityclose_bounds`' (``_h_links``/``_h_dist_links``).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

from puzzleproof.encoders import cityclose_bits as B
from puzzleproof.encoders import cityclose_rows as R
from puzzleproof.encoders.cityclose_bits import _DEBRUIJN, njit, prange
from puzzleproof.encoders.cityclose_bounds import _h_dist_links, _h_links
from puzzleproof.models.cityclose import CityMap, Rules

__all__ = ["Kernels", "root_h"]


# -- the set primitives, chosen by the type of the set ----------------------------------------
# (declarations for numba's @overload: each name's body for a one-word set and for a row of
# words is compiled where it is used; Python never calls these, which is why they raise)

def set_has(s, v):  # pragma: no cover - compiled only
    """Whether city ``v`` is in ``s``."""
    raise NotImplementedError


def set_meets(a, b):  # pragma: no cover
    """Whether ``a`` and ``b`` share a city."""
    raise NotImplementedError


def set_toggled(s, v, tmp):  # pragma: no cover
    """``s`` with city ``v`` flipped (a row is written into ``tmp[0]``)."""
    raise NotImplementedError


def set_connected(adj, s, db, tmp):  # pragma: no cover
    """Whether ``s`` is connected (rows use ``tmp[1:4]``)."""
    raise NotImplementedError


def set_links_path(adj, s, db):  # pragma: no cover
    """(links within ``s``, whether ``s`` is a path given it is connected)."""
    raise NotImplementedError


def set_wiener_pref(adj, s, db, pref):  # pragma: no cover
    """The Wiener number of ``s`` and each city's sorted distance sums (see ``_wiener_pref``)."""
    raise NotImplementedError


def set_members(s, db, buf):  # pragma: no cover
    """The cities of ``s`` into ``buf`` in increasing order; returns how many."""
    raise NotImplementedError


def set_hash(s, shift):  # pragma: no cover
    """A hash of ``s`` for the layer's hash table (``shift`` as the table takes it)."""
    raise NotImplementedError


def set_same(a, b):  # pragma: no cover
    """Whether ``a`` and ``b`` hold the same cities."""
    raise NotImplementedError


def layer_add(out, t, v):  # pragma: no cover
    """Put city ``v`` into the set ``out[t]``."""
    raise NotImplementedError


def layer_store(keys, h, s):  # pragma: no cover
    """``keys[h] = s``."""
    raise NotImplementedError


def layer_new(keys, cap):  # pragma: no cover
    """An empty layer of ``cap`` sets like those of ``keys``."""
    raise NotImplementedError


def layer_scratch(keys):  # pragma: no cover
    """Scratch rows for :func:`set_toggled` and :func:`set_connected` on ``keys``' sets."""
    raise NotImplementedError


def _word(s) -> bool:
    return isinstance(s, types.Integer)


def _flat(keys) -> bool:
    return keys.ndim == 1


@overload(set_has)
def _set_has(s, v):
    if _word(s):
        return lambda s, v: (s >> np.uint64(v)) & np.uint64(1) != np.uint64(0)
    return lambda s, v: (s[v // 64] >> np.uint64(v % 64)) & np.uint64(1) != np.uint64(0)


@overload(set_meets)
def _set_meets(a, b):
    if _word(a):
        return lambda a, b: a & b != np.uint64(0)

    def rows(a, b):
        for k in range(a.shape[0]):
            if a[k] & b[k] != np.uint64(0):
                return True
        return False
    return rows


@overload(set_toggled)
def _set_toggled(s, v, tmp):
    if _word(s):
        return lambda s, v, tmp: s ^ (np.uint64(1) << np.uint64(v))

    def rows(s, v, tmp):
        row = tmp[0]
        for k in range(s.shape[0]):
            row[k] = s[k]
        row[v // 64] ^= np.uint64(1) << np.uint64(v % 64)
        return row
    return rows


@overload(set_connected)
def _set_connected(adj, s, db, tmp):
    if _word(s):
        return lambda adj, s, db, tmp: B._connected(adj, s, db)
    return lambda adj, s, db, tmp: R.connected(adj, s, db, tmp[1:])


@overload(set_links_path)
def _set_links_path(adj, s, db):
    if _word(s):
        return lambda adj, s, db: B._degree_stats(adj, s, db)
    return lambda adj, s, db: R.degree_stats(adj, s, db)


@overload(set_wiener_pref)
def _set_wiener_pref(adj, s, db, pref):
    if _word(s):
        return lambda adj, s, db, pref: B._wiener_pref(adj, s, db, pref)
    return lambda adj, s, db, pref: R.wiener_pref(adj, s, db, pref)


@overload(set_members)
def _set_members(s, db, buf):
    if _word(s):
        def word(s, db, buf):
            c = 0
            rest = s
            while rest != np.uint64(0):
                low = rest & (~rest + np.uint64(1))
                rest ^= low
                buf[c] = B._ctz(low, db)
                c += 1
            return c
        return word

    def rows(s, db, buf):
        c = 0
        for j in range(s.shape[0]):
            rest = s[j]
            while rest != np.uint64(0):
                low = rest & (~rest + np.uint64(1))
                rest ^= low
                buf[c] = j * 64 + B._ctz(low, db)
                c += 1
        return c
    return rows


@overload(set_hash)
def _set_hash(s, shift):
    if _word(s):
        return lambda s, shift: B._hash(s, shift)
    return lambda s, shift: R.hash_row(s, shift)


@overload(set_same)
def _set_same(a, b):
    if _word(a):
        return lambda a, b: a == b
    return lambda a, b: R.same(a, b)


@overload(layer_add)
def _layer_add(out, t, v):
    if _flat(out):
        def flat(out, t, v):
            out[t] |= np.uint64(1) << np.uint64(v)
        return flat

    def rows(out, t, v):
        out[t, v // 64] |= np.uint64(1) << np.uint64(v % 64)
    return rows


@overload(layer_store)
def _layer_store(keys, h, s):
    if _flat(keys):
        def flat(keys, h, s):
            keys[h] = s
        return flat

    def rows(keys, h, s):
        for k in range(keys.shape[1]):
            keys[h, k] = s[k]
    return rows


@overload(layer_new)
def _layer_new(keys, cap):
    if _flat(keys):
        return lambda keys, cap: np.zeros(cap, dtype=np.uint64)
    return lambda keys, cap: np.zeros((cap, keys.shape[1]), dtype=np.uint64)


@overload(layer_scratch)
def _layer_scratch(keys):
    if _flat(keys):
        return lambda keys: np.empty((4, 1), dtype=np.uint64)
    return lambda keys: np.empty((4, keys.shape[1]), dtype=np.uint64)


# -- the kernels ------------------------------------------------------------------------------

def _closable_py(adj, keys, keep, blocked, db, n):
    """For every state, the set of cities whose closing keeps it connected (kept cities
    excluded, and a twin while a twin of lower index is open: see ``twin_blocks``)."""
    out = np.zeros_like(keys)
    for t in prange(keys.shape[0]):
        s = keys[t]
        tmp = layer_scratch(keys)
        cities = np.empty(n, dtype=np.int64)
        for a in range(set_members(s, db, cities)):
            v = cities[a]
            if set_has(keep, v) or set_meets(s, blocked[v]):
                continue
            if set_connected(adj, set_toggled(s, v, tmp), db, tmp):
                layer_add(out, t, v)
    return out


@njit(cache=True)
def _grow(tkeys, tvals, used, bits):
    nb = bits + 1
    cap = np.int64(1) << nb
    nk = layer_new(tkeys, cap)
    nv = np.zeros(cap, dtype=np.int64)
    nu = np.zeros(cap, dtype=np.bool_)
    sh = np.uint64(64 - nb)
    for q in range(tkeys.shape[0]):
        if used[q]:
            h = set_hash(tkeys[q], sh)
            while nu[h]:
                h = (h + 1) & (cap - 1)
            layer_store(nk, h, tkeys[q])
            nv[h] = tvals[q]
            nu[h] = True
    return nk, nv, nu, nb


@njit(cache=True)
def _insert_all(keys, vals, closable, tkeys, tvals, used, fill, bits, n):
    """Push every child of the layer (keys, vals) into the table: a child keeps its least
    parent value. Returns the table (grown as needed), its fill and its bits."""
    tmp = layer_scratch(keys)
    cities = np.empty(n, dtype=np.int64)
    for t in range(keys.shape[0]):
        f = vals[t]
        s = keys[t]
        for a in range(set_members(closable[t], _DEBRUIJN, cities)):
            child = set_toggled(s, cities[a], tmp)
            if 2 * (fill + 1) > (np.int64(1) << bits):
                tkeys, tvals, used, bits = _grow(tkeys, tvals, used, bits)
            msk = (np.int64(1) << bits) - 1
            h = set_hash(child, np.uint64(64 - bits))
            while True:
                if not used[h]:
                    layer_store(tkeys, h, child)
                    tvals[h] = f
                    used[h] = True
                    fill += 1
                    break
                if set_same(tkeys[h], child):
                    if f < tvals[h]:
                        tvals[h] = f
                    break
                h = (h + 1) & msk
    return tkeys, tvals, used, fill, bits


@njit(cache=True)
def _with_distances(adj, s, size, final_size, emax, p2max, lbmin, db, links):
    """``(W(s), h(s))`` with the distance bounds of ``_h_dist_links``."""
    pref = np.empty((size, size), dtype=np.int64)
    order = np.empty(size, dtype=np.int64)
    key = np.empty(size, dtype=np.int64)
    order2 = np.empty(size, dtype=np.int64)
    key2 = np.empty(size, dtype=np.int64)
    w = set_wiener_pref(adj, s, db, pref)
    return w, _h_dist_links(links, size, final_size, emax, p2max, lbmin, pref, order, key,
                            order2, key2, w)


def _finish_py(adj, keys, vals, size, final_size, no_paths, final_not_path, ub, emax, p2max,
               lbmin, db, use_dist):
    """Add each state's Wiener number, apply the shape rules and the bound: a state whose
    ``f + h`` reaches ``ub`` (the incumbent's total) is pruned, ties too, since only a
    strictly better order matters. Returns the new values (-1: dropped by a rule, -2: pruned
    by the bound) and each state's f + h. ``use_dist``: the distance bounds, else the link
    counts and per-size minima alone."""
    n_states = keys.shape[0]
    out = np.empty(n_states, dtype=np.int64)
    est = np.empty(n_states, dtype=np.int64)
    final = size == final_size
    for t in prange(n_states):
        s = keys[t]
        links, path = set_links_path(adj, s, db)
        if path and ((no_paths > 0 and size >= no_paths)
                     or (final and final_not_path and size >= 3)):
            out[t] = -1
            est[t] = -1
            continue
        hh = _h_links(links, size, final_size, emax, p2max, lbmin)
        # a cheap bound on the state's own Wiener number first: skip the BFS when it prunes
        wl = size * (size - 1) - links
        if lbmin[size] > wl:
            wl = lbmin[size]
        if vals[t] + wl + hh >= ub:
            out[t] = -2
            est[t] = vals[t] + wl + hh
            continue
        if use_dist:
            w, hh = _with_distances(adj, s, size, final_size, emax, p2max, lbmin, db, links)
        else:
            w = set_wiener_pref(adj, s, db, np.empty((size, size), dtype=np.int64))
        e = vals[t] + w + hh
        est[t] = e
        out[t] = -2 if e >= ub else vals[t] + w
    return out, est


# each loop twice: threads pay off on big layers, and cost ~10 ms a call on small ones
_closable_par = njit(cache=True, parallel=True)(_closable_py)
_closable_ser = njit(cache=True)(_closable_py)
_finish_par = njit(cache=True, parallel=True)(_finish_py)
_finish_ser = njit(cache=True)(_finish_py)
_PARALLEL_FROM = 20_000


@njit(cache=True)
def root_h(adj, s, size, final_size, emax, p2max, lbmin, db, use_dist):
    """The bound on the Wiener numbers still to come after the map ``s`` of ``size`` cities
    (the one the kernels add): the exact search's root bound, and the tests' check of it."""
    links, _ = set_links_path(adj, s, db)
    if not use_dist:
        return _h_links(links, size, final_size, emax, p2max, lbmin)
    return _with_distances(adj, s, size, final_size, emax, p2max, lbmin, db, links)[1]


@njit(cache=True)
def _wiener(adj, s, size, db):
    return set_wiener_pref(adj, s, db, np.empty((size, size), dtype=np.int64))


@njit(cache=True)
def _trace_step(adj, pk, pv, s, f, w_s, n):
    """A parent of ``s`` (value ``f``) in the sorted layer of rows ``pk``: ``(city, parent
    index)`` with ``pv[parent] + w_s == f``, or (-1, -1)."""
    p = s.copy()
    for v in range(n):
        j, b = v // 64, np.uint64(1) << np.uint64(v % 64)
        if s[j] & b:
            continue
        p[j] |= b
        pos = R.find_row(pk, p)
        p[j] ^= b
        if pos >= 0 and pv[pos] + w_s == f:
            return v, pos
    return -1, -1


def _rows(keys: np.ndarray) -> np.ndarray:
    """A layer's sets as rows (a layer of one-word sets as rows of one word: a view)."""
    return keys.reshape(-1, 1) if keys.ndim == 1 else keys


class Kernels:
    """The kernels behind the interface the search drives, for one map: one-word sets on
    maps of up to 63 cities unless ``rows`` (then rows of ``ceil(n / 64)`` words, any map)."""

    def __init__(self, m: CityMap, rules: Rules, keep: int, blocked: list[int],
                 rows: bool) -> None:
        self.m = m
        self.w = R.words(m.n)
        self.row_adj = R.to_rows(m.adj, self.w)
        if rows:
            self.adj, self.keep = self.row_adj, R.row_of(keep, self.w)
            self.blocked = R.to_rows(blocked, self.w)
            self.full = R.row_of(m.full_mask, self.w)
        else:
            self.adj, self.keep = np.array(m.adj, dtype=np.uint64), np.uint64(keep)
            self.blocked = np.array(blocked, dtype=np.uint64)
            self.full = np.uint64(m.full_mask)
        self.rule_args = (rules.final_size, rules.no_paths or 0, bool(rules.final_not_path))

    def set_bounds(self, emax, p2max, lbmin, use_dist: bool) -> None:
        self.bounds = (emax, p2max, lbmin, _DEBRUIJN, use_dist)

    def root(self) -> tuple[np.ndarray, np.ndarray]:
        keys = np.array([self.full], dtype=np.uint64)
        return keys, np.array([int(_wiener(self.adj, self.full, self.m.n, _DEBRUIJN))],
                              dtype=np.int64)

    def root_h(self) -> int:
        emax, p2max, lbmin, db, use_dist = self.bounds
        return int(root_h(self.adj, self.full, self.m.n, self.rule_args[0], emax, p2max,
                          lbmin, db, use_dist))

    def compile(self, keys, vals) -> None:
        """Compile (or load) every loop now, before the first layer."""
        for cl, fi in ((_closable_ser, _finish_ser), (_closable_par, _finish_par)):
            cl(self.adj, keys, self.keep, self.blocked, _DEBRUIJN, self.m.n)
            fi(self.adj, keys, vals, self.m.n, *self.rule_args, -1, *self.bounds)
        self.insert(self.new_table(4), keys, vals)
        R.find_row(_rows(keys), _rows(keys)[0])

    def new_table(self, bits: int) -> list:
        keys = np.zeros((1 << bits,) + np.shape(self.full), dtype=np.uint64)
        return [keys, np.zeros(1 << bits, dtype=np.int64), np.zeros(1 << bits, dtype=np.bool_),
                0, bits]

    def insert(self, table: list, keys, vals) -> list:
        par = keys.shape[0] >= _PARALLEL_FROM
        closable = (_closable_par if par else _closable_ser)(self.adj, keys, self.keep,
                                                             self.blocked, _DEBRUIJN,
                                                             self.m.n)
        return list(_insert_all(keys, vals, closable, *table, self.m.n))

    def items(self, table: list) -> tuple[np.ndarray, np.ndarray]:
        return table[0][table[2]], table[1][table[2]]

    def finish(self, keys, vals, size: int, ub: int, parallel: bool):
        f = _finish_par if parallel or keys.shape[0] >= _PARALLEL_FROM else _finish_ser
        return f(self.adj, keys, vals, size, *self.rule_args, ub, *self.bounds)

    def order(self, keys) -> np.ndarray:
        return np.argsort(keys) if keys.ndim == 1 else R.sort_rows(keys)

    def trace(self, stored, j: int) -> list[int]:
        """The order reaching state ``j`` of the last layer, walking back through the stored
        layers (as rows): a parent P of S has ``f(P) + W(S) == f(S)``."""
        keys, vals = stored[-1]
        s = _rows(keys)[j].copy()
        f = int(vals[j])
        order: list[int] = []
        pref = np.empty((self.m.n, self.m.n), dtype=np.int64)
        for li in range(len(stored) - 2, -1, -1):
            pk, pv = stored[li]
            w_s = int(R.wiener_pref(self.row_adj, s, _DEBRUIJN, pref))
            v, pos = _trace_step(self.row_adj, _rows(pk), pv, s, f, w_s, self.m.n)
            assert v >= 0, "trace-back lost the path"
            order.append(int(v))
            s = _rows(pk)[pos].copy()
            f = int(pv[pos])
        order.reverse()
        return order
