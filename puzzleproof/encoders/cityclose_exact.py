"""City closing solved exactly: a layered DP over connected sets in compiled code, pruned.

The method (``--method exact``, the default of ``solve``):

- States are the connected sets of open cities, as 64-bit masks; layer ``j`` holds the sets
  of ``n - j`` cities that some legal sequence reaches, each with ``f(S)``, the least sum of
  Wiener numbers from the full map down to ``S`` (``S`` included). Layer ``j + 1`` is made
  from layer ``j`` by closing every closable city (not kept, the map stays connected, no
  forbidden path shape); a child keeps the least ``f`` of its parents, then adds its own
  Wiener number. Only the layer being made and the one it is made from are hash tables;
  earlier layers are kept as sorted arrays of ``(mask, f)`` (12 bytes a state) to trace the
  optimal order back at the end.
- Connectivity and Wiener numbers are bitmask BFS: the neighbours of a frontier are the OR of
  its cities' neighbour masks. They run in numba-compiled loops, in parallel over the states
  of a layer (``prange``, 2 threads here); inserting into the next layer's table is serial.
- Pruning (admissible, so the result stays exact): a state is dropped when
  ``f(S) + h(S) > UB``, where ``UB`` is the total of the incumbent order (the caller's: the
  command passes its merged beam; without one the compiled greedy order) and
  ``h(S)`` is a lower bound on the Wiener numbers still to come, a sum over every later size
  ``i`` of the largest of these bounds on the least Wiener number of a connected ``T`` of
  ``i`` cities inside ``S``:

  * the exact least Wiener number of a connected set of ``i`` cities of the whole map, found
    once by branch and bound (:mod:`puzzleproof.encoders.cityclose_bounds`). This is the
    bound that matters: the sum over the sizes is within 0.45 % of the optimum on europe30
    (13149 against 13208) and 0.06 % on europe41 (32514 against 32534);
  * distances (``bound="dist"``, the default): ``d_T >= d_S``, so each city of ``T`` is at
    total distance at least the sum of its ``i - 1`` nearest cities of ``S``, and ``W(T)`` is
    at least half the sum of the ``i`` least of these; and from the other side ``T`` is ``S``
    less ``r`` cities ``R``, so ``W(T) >= W(S) - sum_R status + (distances within R)``
    (exact for ``r = 1`` where the best city to close loses no shortcut). The distances come
    out of the BFS that computes ``W(S)``;
  * link counts: ``W >= i(i-1) - e`` and ``W >= 3 C(i,2) - 2e - p`` with ``e`` at most
    ``m(S) - (|S| - i)`` links and ``p`` at most the two-link paths of the ``i`` busiest
    cities (``bound="simple"`` keeps only these and the per-size minima).

  Every bound is checked against the true cost still to come on every connected set of
  every connected graph of up to 7 cities and of random maps up to 11 (the tests).
- Proof data: ``{"method": "exact-dp", "lower_bound", "upper_bound", "states",
  "pruned", "layer_peak", "root_bound"}``; OPTIMAL only when every layer was completed (the
  optimum is then the least ``f`` of the last layer, or the incumbent when everything better
  was pruned). A time limit or a state cap gives UNKNOWN with the incumbent order and the
  proved lower bound ``min(UB, min over the live layer of f(S) + h(S))``. The statistics
  carry the set-up times, the branch and bound's nodes and, per layer, the states kept, the
  seconds and the bound.

Measured (2 cores shared with other work, ``benchmarks/cityclose.py`` and single runs; the
load average was 2 to 7 while measuring, so times vary by a factor of about 1.5):

==================  ======================================  ==================================
map                 before (link counts + minima <= 14)     now (per-size minima + distances)
==================  ======================================  ==================================
europe30            OPTIMAL 13208, 33 s, 281 MB,            OPTIMAL 13208, 1.3-2.5 s, 150 MB,
                    2,296,901 states, root bound 10613      2,930 states, root bound 13149
europe41            UNKNOWN 26679..32534 after 180 s        OPTIMAL 32534, 3.7-5.4 s, 150 MB,
                    (gap ~11-18 %), root bound 23917        636 states, root bound 32514
==================  ======================================  ==================================

On europe41 the time now goes mostly to the merged-beam incumbent (1.5-3.5 s, 32535; the DP
finds 32534), then the per-size minima (all 40 sizes, 0.35 million branch-and-bound nodes,
about 0.4 s) and the DP itself (about 0.2 s; no layer holds more than 54 states). A first
version of the minima's bound took 26.7 million nodes and 10-15 s (see
:mod:`puzzleproof.encoders.cityclose_bounds`). What each part is worth on europe41: the
distance bounds alone (``minima=False``) raise the root bound from 23917 to 30610 and reach
31548..32535 (gap 3.0 %) after 62 s of a 120 s limit (closing 7, 233,585 states a layer, each
layer about 2.5 times the last and taking 3 times longer); the per-size minima with link
counts only (``bound="simple"``) prove the optimum with 1,499 states; both together with 636.
On europe30 the distance bounds alone prove it in about 3 s (9,328 states, root bound 12468).
networkx's karate club graph (34 cities) is proved optimal at 13616 in 2-4 s (merged beam
13643). The per-size minima were checked by plain enumeration for europe41's sizes 1-12 and
38-40, and for every size of europe30 up to 14.

With a time limit the set-up takes about half of it (the incumbent a quarter, the per-size
minima the rest of that half but at least an eighth, cheap sizes first). europe41 with a
limit of 1 s: UNKNOWN 31978..32543 (gap 1.7 %, the greedy order as incumbent, 25 sizes'
minima); with 3 s: OPTIMAL after 1.3 s.

Reach, on maps of ``generate.cityclose.random_map`` (seed = size, limit 120 s, load 5-7):
grids with holes of 45 and 55 cities are proved (6 s and 21 s); Delaunay maps of 45, 55 and
63 cities (2.7 links a city) are not: gaps of 0.51 % (all 44 sizes' minima, 213 thousand
states kept before the limit), 3.0 % and 4.4 % (the minima finish only up to size 35 and
32 within the set-up's 60 s: short distances make many sets look alike to their bound); a
perturbed ring of 55 cities keeps a gap of 12 % with every minimum known (the bound did not
rise above the sum of the minima; whether the incumbent or the bound is the weak side there
was not measured).

A fix that came with this: the time of the first layers used to include compiling the loops,
so a fresh checkout's first run predicted the next layer far past its time limit and stopped
at once (UNKNOWN after one closing of europe30 with 300 s to go). The loops are now compiled
(or loaded from the disk cache) before the first layer; and a layer's time is predicted from
the last layer's time per child and children per parent (the growth in kept states, used
before, overshot by an order of magnitude in the first layers).
"""

from __future__ import annotations

import resource
import time
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from puzzleproof.encoders.cityclose_bits import (_DEBRUIJN, HAVE_NUMBA, U1, _connected,  # noqa: F401
                                                _ctz, _edges, _is_path, _popcount, _reach,
                                                _wiener, njit, prange)
from puzzleproof.encoders.cityclose_bounds import min_wiener_by_size
from puzzleproof.encoders.cityclose_graph import greedy_order
from puzzleproof.limits import Deadline
from puzzleproof.models.cityclose import (CityMap, Rules, answer_of, forbidden_shape, prepare,
                                          score_order)
from puzzleproof.result import Result, Status

__all__ = ["solve", "first_order", "MAX_EXACT_CITIES", "Incumbent"]

#: masks are 64-bit words
MAX_EXACT_CITIES = 63

@njit(cache=True, inline="always")
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
def _h(adj, mask, size, final_size, emax, p2max, lbmin, db):
    """Admissible lower bound on the Wiener numbers of the maps after ``mask`` (sizes
    final_size .. size-1)."""
    m = _edges(adj, mask, db)
    total = np.int64(0)
    for i in range(final_size, size):
        b = _size_bound(i, m, size, emax, p2max, lbmin)
        total += b
    return total


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
    """The bound of :func:`_h`, raised size by size by the distances of ``mask``
    (``pref`` as filled by :func:`_wiener_pref`): a connected ``T`` inside ``mask`` has
    ``d_T >= d_mask``, so a city of ``T`` (``i`` cities) is at total distance at least the sum
    of its ``i - 1`` nearest cities of ``mask`` from the others, and ``W(T)`` is at least
    half the sum of the ``i`` least such sums. And from the other side: ``T`` is ``mask``
    less a set ``R`` of ``r = size - i`` cities, so ``W(T) >= w - sum_R status(x) + (the
    distances within R)``, where ``w`` is the Wiener number of ``mask``, a city's status is
    its total distance and the distances within ``R`` are at least half the sum over ``x`` in
    ``R`` of its ``r - 1`` nearest: ``W(T) >= w - (the r largest of status(x) - half that)``.
    ``order``, ``key``, ``order2`` and ``key2`` are scratch arrays of ``size`` entries."""
    m = _edges(adj, mask, db)
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
        for a in range(1, size):
            ka = key[a]
            oa = order[a]
            q = a - 1
            while q >= 0 and key[q] > ka:
                key[q + 1] = key[q]
                order[q + 1] = order[q]
                q -= 1
            key[q + 1] = ka
            order[q + 1] = oa
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


def _closable_py(adj, keys, keep, db):
    """For every state, the mask of cities whose closing keeps it connected (kept excluded)."""
    out = np.zeros(keys.shape[0], dtype=np.uint64)
    for t in prange(keys.shape[0]):
        s = keys[t]
        rest = s & ~keep
        res = np.uint64(0)
        while rest != np.uint64(0):
            low = rest & (~rest + np.uint64(1))
            rest ^= low
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
    """Add each state's Wiener number, apply the shape rules and the bound. Returns the new
    values (-1: dropped by a rule, -2: pruned by the bound) and each state's f + h."""
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
        if vals[t] + wl + hh > ub:
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
        if e > ub:
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
#: states handled between two looks at the clock, at most
_SLICE = 1 << 17
#: seconds a slice should take
_SLICE_S = 0.05


def _closable(adj, keys, keep, db):
    f = _closable_par if keys.shape[0] >= _PARALLEL_FROM else _closable_ser
    return f(adj, keys, keep, db)


def _finish(adj, keys, *args, parallel: bool = False):
    f = _finish_par if parallel or keys.shape[0] >= _PARALLEL_FROM else _finish_ser
    return f(adj, keys, *args)


class _Slicer:
    """Slices of a layer sized so that each takes about :data:`_SLICE_S` seconds (measured on
    the slices before), so that the clock is read often whatever a state costs."""

    def __init__(self) -> None:
        self.per_state: float | None = None

    def slices(self, total: int, deadline: Deadline):
        """``(lo, hi)`` slices of ``range(total)``; stops early (the caller sees
        ``deadline.expired()``) when the deadline passes."""
        lo = 0
        while lo < total:
            if deadline.expired():
                return
            size = 256 if self.per_state is None else int(_SLICE_S / max(self.per_state, 1e-9))
            hi = min(total, lo + max(64, min(size, _SLICE)))
            t = time.monotonic()
            yield lo, hi
            self.per_state = (time.monotonic() - t) / (hi - lo)
            lo = hi


def _bound_tables(m: CityMap, rules: Rules, minima: bool, known: np.ndarray | None,
                  deadline: Deadline | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """Bound tables: link counts, two-link paths and the exact least Wiener number of a
    connected set of each size (:mod:`puzzleproof.encoders.cityclose_bounds`, searched
    within ``deadline``, a ``time.monotonic()`` value; a size not finished keeps 0, so the
    bound is weaker, never wrong). The least over all connected sets bounds the least over
    the sets that the rules allow."""
    n = m.n
    deg = sorted((bin(a).count("1") for a in m.adj), reverse=True)
    emax = np.zeros(n + 1, dtype=np.int64)
    p2max = np.zeros(n + 1, dtype=np.int64)
    for i in range(n + 1):
        emax[i] = min(i * (i - 1) // 2, sum(deg[:i]) // 2, len(m.links))
        p2max[i] = sum(d * (d - 1) // 2 for d in deg[:i])
    lbmin = np.zeros(n + 1, dtype=np.int64)
    stats: dict[int, tuple[int, float, bool]] = {}
    if minima and n >= 2:
        table, stats = min_wiener_by_size(m.adj, max(1, rules.final_size), n - 1,
                                          deadline=deadline, known=known)
        lbmin = np.maximum(table, 0)
    return emax, p2max, lbmin, stats


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


#: an incumbent: an order (city indices), or a callable given the deadline of its share of the
#: limit that returns one or None
Incumbent = Union[Sequence[int], Callable[[Deadline], Optional[Sequence[int]]], None]


def first_order(m: CityMap, rules: Rules, incumbent: Incumbent, deadline: Deadline
                ) -> tuple[list[int] | None, int | None]:
    """The first upper bound of an exact search and its total: the given order, else the
    callable's (given a quarter of the time left), else the compiled greedy order (within a
    quarter of what is left then); ``(None, None)`` when none keeps the rules in time."""
    order = incumbent(deadline.share(0.25)) if callable(incumbent) else incumbent
    if order is not None:
        chk = score_order(m, list(order), rules)
        if chk.ok:
            return [int(v) for v in order], chk.total
    order = greedy_order(m, rules, deadline.share(0.25))
    if order is not None:
        chk = score_order(m, order, rules)
        if chk.ok:
            return order, chk.total
    return None, None


class _Layers:
    """The layers kept to trace the optimal order back, and the counts the proof reports."""

    def __init__(self, keys: np.ndarray, vals: np.ndarray) -> None:
        self.stored: list[tuple[np.ndarray, np.ndarray]] = [(keys, vals)]
        self.states = 1
        self.pruned = 0
        self.peak = 1
        #: per layer: closing, states kept, seconds, bound
        self.trace: list[tuple[int, int, float, int]] = []


class _ExactRun:
    """One run of the layered DP (see the module docstring), in named steps: the incumbent,
    the bound tables, compiling, the layers, the result. Everything runs against one
    :class:`~puzzleproof.limits.Deadline`."""

    def __init__(self, m: CityMap, rules: Rules, deadline: Deadline, max_states: int,
                 minima: bool, bound: str) -> None:
        if bound not in ("dist", "simple"):
            raise ValueError(f"bound must be 'dist' or 'simple', not {bound!r}")
        self.m, self.rules = m, rules
        self.t0 = time.monotonic()
        self.dl = deadline
        self.max_states = max_states
        self.minima = minima
        self.use_dist = bound == "dist"
        self.keep_mask, self.closings = prepare(m, rules)
        self.params: dict[str, Any] = {"rules": rules.to_dict(), "time_limit": deadline.limit,
                                       "max_states": max_states, "bound": bound,
                                       "minima": minima}
        self.extra: dict[str, Any] = {}
        self.ub_order: list[int] | None = None
        self.ub: int | None = None
        self.root_bound: int | None = None
        self.live_lb: int | None = None
        self.expand, self.finish = _Slicer(), _Slicer()

    # -- set-up ------------------------------------------------------------------------------

    def incumbent(self, incumbent: Incumbent) -> None:
        """The first upper bound (:func:`first_order`)."""
        self.ub_order, self.ub = first_order(self.m, self.rules, incumbent, self.dl)
        self.extra["setup_s"] = {"incumbent": round(time.monotonic() - self.t0, 2)}

    def bound_tables(self) -> None:
        """The bound tables, within a third of the time left."""
        m = self.m
        known = None
        if self.ub_order is not None:  # the incumbent's maps are connected sets of every size
            known = np.full(m.n + 1, -1, dtype=np.int64)
            for t, w in enumerate(_wseq(m, self.ub_order)):
                known[m.n - t] = w
        self.emax, self.p2max, self.lbmin, stats = _bound_tables(
            m, self.rules, self.minima, known, self.dl.share(1 / 3))
        self.extra["minima"] = {"sizes_done": sum(1 for v in stats.values() if v[2]),
                                "nodes": sum(v[0] for v in stats.values())}
        self.extra["setup_s"]["bounds"] = round(time.monotonic() - self.t0, 2)

    def tables(self) -> tuple:
        """The bound arguments of :func:`_finish`, in its order."""
        return self.emax, self.p2max, self.lbmin, _DEBRUIJN, self.use_dist

    def compile(self, adj: np.ndarray, keys: np.ndarray, vals: np.ndarray) -> None:
        """Compile (or load) every loop now, before the first layer."""
        keep = np.uint64(self.keep_mask)
        for cl, fi in ((_closable_ser, _finish_ser), (_closable_par, _finish_par)):
            cl(adj, keys, keep, _DEBRUIJN)
            fi(adj, keys, vals, self.m.n, self.rules.final_size, self.rules.no_paths or 0,
               bool(self.rules.final_not_path), -1, *self.tables())
        _insert_all(keys, vals, np.zeros(1, dtype=np.uint64),
                    np.zeros(1 << 10, dtype=np.uint64), np.zeros(1 << 10, dtype=np.int64), 0,
                    10)

    # -- the layers --------------------------------------------------------------------------

    def children(self, adj: np.ndarray, keys: np.ndarray, vals: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray] | None:
        """Every child of the layer with its least parent value, made in slices between
        looks at the clock; None when the deadline passed first."""
        bits = 10
        expect = int(min(max(keys.shape[0] * 2, 1024), self.max_states * 2))
        while (1 << bits) < 2 * expect:
            bits += 1
        tkeys = np.zeros(1 << bits, dtype=np.uint64)
        tvals = np.zeros(1 << bits, dtype=np.int64)
        fill = 0
        keep = np.uint64(self.keep_mask)
        for lo, hi in self.expand.slices(keys.shape[0], self.dl):
            closable = _closable(adj, keys[lo:hi], keep, _DEBRUIJN)
            tkeys, tvals, fill, bits = _insert_all(keys[lo:hi], vals[lo:hi], closable,
                                                   tkeys, tvals, fill, bits)
        if self.dl.expired():
            return None
        occ = tkeys != 0
        return tkeys[occ], tvals[occ]

    def layer(self, adj: np.ndarray, keys: np.ndarray, vals: np.ndarray, size: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int] | None:
        """The next layer of ``(keys, vals)``: its states (sorted), their ``f``, their
        ``f + h``, and the number of children; None when the deadline passed first."""
        made = self.children(adj, keys, vals)
        if made is None:
            return None
        ckeys, cvals = made
        ub = self.ub if self.ub is not None else (1 << 62)
        parts = []
        for lo, hi in self.finish.slices(ckeys.shape[0], self.dl):
            parts.append(_finish(adj, ckeys[lo:hi], cvals[lo:hi], size,
                                 self.rules.final_size, self.rules.no_paths or 0,
                                 bool(self.rules.final_not_path), ub, *self.tables(),
                                 parallel=hi - lo >= 2048))
        if self.dl.expired():
            return None
        newv = np.concatenate([p[0] for p in parts]) if parts else cvals
        est = np.concatenate([p[1] for p in parts]) if parts else cvals
        keepit = newv >= 0
        self.layers.pruned += int(np.count_nonzero(newv == -2))
        keys, vals, est = ckeys[keepit], newv[keepit], est[keepit]
        ix = np.argsort(keys)
        return keys[ix], vals[ix], est[ix], int(ckeys.shape[0])

    def search(self) -> str | None:
        """Make the layers one by one; the reason it stopped early, or None."""
        m = self.m
        adj = np.array(m.adj, dtype=np.uint64)
        full = np.uint64(m.full_mask)
        keys = np.array([full], dtype=np.uint64)
        vals = np.array([int(_wiener(adj, full, _DEBRUIJN))], dtype=np.int64)
        self.compile(adj, keys, vals)
        self.root_bound = int(vals[0]) + _root_h(adj, full, m.n, self.rules.final_size,
                                                 self.emax, self.p2max, self.lbmin,
                                                 _DEBRUIJN, self.use_dist)
        self.layers = L = _Layers(keys, vals)
        for step in range(1, self.closings + 1):
            now = time.monotonic()
            made = self.layer(adj, keys, vals, m.n - step)
            if made is None:
                return f"time limit while closing {step}"
            keys, vals, est, _ = made
            L.states += int(keys.shape[0])
            L.peak = max(L.peak, int(keys.shape[0]))
            if keys.shape[0] == 0:
                return None
            L.stored.append((keys, vals))
            self.live_lb = int(est.min())
            L.trace.append((step, int(keys.shape[0]), round(time.monotonic() - now, 2),
                            min(self.live_lb, self.ub if self.ub is not None else 1 << 62)))
            if keys.shape[0] > self.max_states:
                return f"layer {step} holds {keys.shape[0]} states (cap {self.max_states})"
        return None

    # -- the result --------------------------------------------------------------------------

    def result(self, stopped: str | None) -> Result:
        """OPTIMAL when every layer was made (or everything better than the incumbent was
        pruned), INFEASIBLE when every state broke a rule, else UNKNOWN with both bounds."""
        m, L = self.m, self.layers
        keys, vals = L.stored[-1]
        if stopped is None and len(L.stored) == self.closings + 1 and keys.shape[0] > 0:
            # complete: the least f of the last layer (anything pruned was worse than ub)
            j = int(np.argmin(vals))
            if self.ub is not None and self.ub <= int(vals[j]):
                order = self.ub_order
            else:
                order = _trace(np.array(m.adj, dtype=np.uint64), L.stored, j, _DEBRUIJN, m.n)
            total = sum(_wseq(m, order))
            return self.done(Status.OPTIMAL, order, total, total, None)
        if stopped is None:
            # every state died: pruned ones were worse than the incumbent, the rest broke rules
            if self.ub is not None:
                return self.done(Status.OPTIMAL, self.ub_order, self.ub, self.ub, None)
            return self.done(Status.INFEASIBLE, None, None, None, "no order keeps the rules")
        ub_val = self.ub if self.ub is not None else (1 << 62)
        lb = self.root_bound if self.live_lb is None else min(self.live_lb, ub_val)
        return self.done(Status.UNKNOWN, self.ub_order, lb, self.ub, stopped)

    def done(self, status: Status, order: list[int] | None, lb: int | None, ub: int | None,
             reason: str | None) -> Result:
        m = self.m
        L = getattr(self, "layers", None) or _Layers(np.zeros(0, np.uint64),
                                                     np.zeros(0, np.int64))
        answer = None if order is None else answer_of(m, order, _wseq(m, order))
        gap = None
        if lb is not None and ub is not None and ub > 0:
            gap = (ub - lb) / ub
        cert = {"method": "exact-dp", "lower_bound": lb, "upper_bound": ub, "gap": gap,
                "states": L.states, "pruned": L.pruned, "layer_peak": L.peak,
                "root_bound": self.root_bound}
        stats: dict[str, Any] = {"states": L.states, "pruned": L.pruned, "layer_peak": L.peak,
                                 "peak_rss_mb": round(_peak_rss_mb(), 1)}
        if reason:
            stats["reason"] = reason
        stats.update(self.extra)
        stats["layers"] = L.trace
        return Result("cityclose", status, answer, cert, solver="exact-dp",
                      solver_version=_numba_version(), params=self.params,
                      wall_time=time.monotonic() - self.t0, stats=stats, instance=m.name)


def solve(m: CityMap, rules: Rules | None = None, *, time_limit: float | None = None,
          deadline: Deadline | None = None, incumbent: Incumbent = None,
          max_states: int = 12_000_000, minima: bool = True, bound: str = "dist",
          seed: int = 0) -> Result:
    """The proved optimal order of ``m`` under ``rules`` (see the module docstring).

    ``time_limit`` (seconds) or ``deadline`` (a :class:`~puzzleproof.limits.Deadline` made
    when the task started) bounds everything the run does. ``incumbent`` is the first upper
    bound: an order (city indices), or a callable that returns one (the caller's heuristic,
    given the deadline of its share: a quarter of the time left); without one, or when it
    fails, the compiled greedy order. ``max_states`` caps the states of one layer (memory:
    about 40 bytes a state while a layer is made); ``minima`` searches the exact least Wiener
    number of every size first; ``bound`` is ``"dist"`` (the distance bounds of the module
    docstring) or ``"simple"`` (link counts and per-size minima only). Returns OPTIMAL,
    INFEASIBLE (proved: no order keeps the rules) or UNKNOWN with the best order and both
    bounds.
    """
    dl = deadline if deadline is not None else Deadline(time_limit)
    run = _ExactRun(m, rules or Rules(), dl, max_states, minima, bound)
    if m.n > MAX_EXACT_CITIES:
        return run.done(Status.UNKNOWN, None, None, None, f"more than {MAX_EXACT_CITIES} cities")
    run.incumbent(incumbent)
    run.bound_tables()
    if forbidden_shape(m.adj, m.full_mask, run.rules, final=run.closings == 0):
        return run.done(Status.INFEASIBLE, None, None, None, "the full map breaks a shape rule")
    return run.result(run.search())


def _root_h(adj, mask, size, final_size, emax, p2max, lbmin, db, use_dist) -> int:
    if not use_dist:
        return int(_h(adj, mask, size, final_size, emax, p2max, lbmin, db))
    pref = np.empty((size, size), dtype=np.int64)
    w = _wiener_pref(adj, mask, db, pref)
    sc = [np.empty(size, dtype=np.int64) for _ in range(4)]
    return int(_h_dist(adj, mask, size, final_size, emax, p2max, lbmin, pref, *sc, w, db))


def _wseq(m: CityMap, order: list[int]) -> list[int]:
    chk = score_order(m, order, Rules(final_size=m.n - len(order)))
    return [int(w) for w in chk.wiener]  # type: ignore[arg-type]


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


def _numba_version() -> str:
    try:
        import numba
        return f"numba {numba.__version__}"
    except ImportError:  # pragma: no cover
        return "python"
