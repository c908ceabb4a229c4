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
  ``f(S) + h(S) > UB``, where ``UB`` is the total of the merged-beam order (the incumbent) and
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
from typing import Any

import numpy as np

from puzzleproof.models.cityclose import CityMap, Rules, score_order
from puzzleproof.result import Result, Status

__all__ = ["solve", "MAX_EXACT_CITIES"]

#: masks are 64-bit words
MAX_EXACT_CITIES = 63

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


@njit(cache=True, inline="always")
def _ctz(b, db):
    # index of the single set bit of b (b != 0, a power of two)
    return db[np.int64((b * np.uint64(0x03F79D71B4CB0A89)) >> np.uint64(58))]


@njit(cache=True, inline="always")
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
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


def _closable(adj, keys, keep, db):
    f = _closable_par if keys.shape[0] >= _PARALLEL_FROM else _closable_ser
    return f(adj, keys, keep, db)


def _finish(adj, keys, *args):
    f = _finish_par if keys.shape[0] >= _PARALLEL_FROM else _finish_ser
    return f(adj, keys, *args)


def _bound_tables(m: CityMap, rules: Rules, minima: bool, known: np.ndarray | None,
                  deadline: float | None = None
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
        from puzzleproof.encoders.cityclose_bounds import min_wiener_by_size

        table, stats = min_wiener_by_size(m.adj, max(1, rules.final_size), n - 1,
                                          deadline=deadline, known=known)
        lbmin = np.maximum(table, 0)
    return emax, p2max, lbmin, stats


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def solve(m: CityMap, rules: Rules | None = None, *, time_limit: float | None = None,
          incumbent: list[int] | None = None, width: int = 10, max_states: int = 12_000_000,
          minima: bool = True, bound: str = "dist", seed: int = 0) -> Result:
    """The proved optimal order of ``m`` under ``rules`` (see the module docstring).

    ``incumbent`` (city indices) replaces the merged beam of ``width`` as the first upper
    bound; ``max_states`` caps the states of one layer (memory: about 40 bytes a state while a
    layer is made); ``minima`` searches the exact least Wiener number of every size first;
    ``bound`` is ``"dist"`` (the distance bounds of the module docstring) or ``"simple"``
    (link counts and per-size minima only, as measured before). Returns OPTIMAL, INFEASIBLE
    (proved: no order keeps the rules) or UNKNOWN with the best order and both bounds.
    """
    from puzzleproof.verify.cityclose_heuristics import answer_of, greedy, merged_beam, prepare

    if bound not in ("dist", "simple"):
        raise ValueError(f"bound must be 'dist' or 'simple', not {bound!r}")
    use_dist = bound == "dist"
    extra: dict[str, Any] = {}

    rules = rules or Rules()
    t0 = time.monotonic()
    keep_mask, closings = prepare(m, rules)
    params: dict[str, Any] = {"rules": rules.to_dict(), "time_limit": time_limit,
                              "max_states": max_states, "width": width, "bound": bound,
                              "minima": minima}
    if m.n > MAX_EXACT_CITIES:
        return Result("cityclose", Status.UNKNOWN, None, None, solver="exact-dp",
                      params=params, stats={"reason": f"more than {MAX_EXACT_CITIES} cities"},
                      instance=m.name)
    # incumbent
    ub_order: list[int] | None = None
    ub = None
    if incumbent is not None:
        chk = score_order(m, list(incumbent), rules)
        if chk.ok:
            ub_order, ub = list(incumbent), chk.total
    # the set-up takes about half of a time limit: the incumbent a quarter, the bound tables
    # (the per-size minima: the bound that matters) the rest of that half
    share = None if time_limit is None else time_limit / 4
    if ub_order is None:
        mb = merged_beam(m, rules, width=width, time_limit=share)
        if mb.answer is None:  # out of its share: the greedy order (fast) as incumbent
            mb = greedy(m, rules)
        if mb.answer is not None:
            ub_order = [m.index(c) for c in mb.answer["order"]]  # type: ignore[misc]
            ub = mb.answer["total"]
    ub_val = ub if ub is not None else (1 << 62)
    extra["setup_s"] = {"incumbent": round(time.monotonic() - t0, 2)}
    known = None
    if ub_order is not None:  # the incumbent's maps are connected sets of every size
        known = np.full(m.n + 1, -1, dtype=np.int64)
        for t, w in enumerate(_wseq(m, ub_order)):
            known[m.n - t] = w
    minima_deadline = None
    if time_limit is not None:  # at least an eighth of the limit even after a slow incumbent
        minima_deadline = min(max(t0 + time_limit / 2, time.monotonic() + time_limit / 8),
                              t0 + 0.9 * time_limit)
    emax, p2max, lbmin, minima_stats = _bound_tables(m, rules, minima, known, minima_deadline)
    extra["minima"] = {"sizes_done": sum(1 for v in minima_stats.values() if v[2]),
                       "nodes": sum(v[0] for v in minima_stats.values())}
    extra["setup_s"]["bounds"] = round(time.monotonic() - t0, 2)
    db = _DEBRUIJN
    adj = np.array(m.adj, dtype=np.uint64)
    keep = np.uint64(keep_mask)
    k = rules.final_size
    no_paths = rules.no_paths or 0
    fnp = bool(rules.final_not_path)
    full = np.uint64(m.full_mask)
    w0 = int(_wiener(adj, full, db))
    states = 1
    pruned = 0
    layer_peak = 1
    layers: list[tuple[np.ndarray, np.ndarray]] = []
    # the full map's own shape
    from puzzleproof.models.cityclose import forbidden_shape
    if forbidden_shape(m.adj, m.full_mask, rules, final=closings == 0):
        return _done(m, rules, Status.INFEASIBLE, None, t0, params, states, 0, 1, None, None,
                     "the full map breaks a shape rule", extra=extra)
    keys = np.array([full], dtype=np.uint64)
    vals = np.array([w0], dtype=np.int64)
    # compile (or load) every loop now, so that no layer's time, which predicts the next
    # one's, includes compiling
    for cl, fi in ((_closable_ser, _finish_ser), (_closable_par, _finish_par)):
        cl(adj, keys, keep, db)
        fi(adj, keys, vals, m.n, k, no_paths, fnp, -1, emax, p2max, lbmin, db, use_dist)
    _insert_all(keys, vals, np.zeros(1, dtype=np.uint64), np.zeros(1 << 10, dtype=np.uint64),
                np.zeros(1 << 10, dtype=np.int64), 0, 10)
    h0 = _root_h(adj, full, m.n, k, emax, p2max, lbmin, db, use_dist)
    root_bound = w0 + h0
    layers.append((keys, vals))
    deadline = None if time_limit is None else t0 + time_limit
    stopped = None
    live_lb = None
    rate: float | None = None  # seconds per child state in the last layer
    fan = 1.0  # children per parent in the last layer
    trace: list[tuple[int, int, float, int]] = []  # per layer: closing, kept, seconds, bound
    extra["layers"] = trace
    prev_count = 1
    for step in range(1, closings + 1):
        size = m.n - step
        now = time.monotonic()
        # the next layer's time, predicted from the last one's time per child and children
        # per parent
        if deadline is not None and (now > deadline or (
                rate is not None and now + rate * fan * keys.shape[0] > deadline)):
            stopped = f"time limit before closing {step}"
            break
        layer_t0 = now
        closable = _closable(adj, keys, keep, db)
        bits = 10
        expect = int(min(max(keys.shape[0] * 2, 1024), max_states * 2))
        while (1 << bits) < 2 * expect:
            bits += 1
        tkeys = np.zeros(1 << bits, dtype=np.uint64)
        tvals = np.zeros(1 << bits, dtype=np.int64)
        tkeys, tvals, fill, bits = _insert_all(keys, vals, closable, tkeys, tvals, 0, bits)
        del closable
        occ = tkeys != 0
        ckeys = tkeys[occ]
        n_children = int(ckeys.shape[0])
        cvals = tvals[occ]
        del tkeys, tvals, occ
        newv, est = _finish(adj, ckeys, cvals, size, k, no_paths, fnp, ub_val, emax, p2max,
                            lbmin, db, use_dist)
        keepit = newv >= 0
        pruned += int(np.count_nonzero(newv == -2))
        keys = ckeys[keepit]
        vals = newv[keepit]
        live_est = est[keepit]
        del ckeys, cvals, newv, est, keepit
        states += int(keys.shape[0])
        layer_peak = max(layer_peak, int(keys.shape[0]))
        if keys.shape[0] == 0:
            break
        order_ix = np.argsort(keys)
        keys = keys[order_ix]
        vals = vals[order_ix]
        live_est = live_est[order_ix]
        layers.append((keys, vals))
        live_lb = int(live_est.min())
        spent = time.monotonic() - layer_t0
        trace.append((step, int(keys.shape[0]), round(spent, 2), min(live_lb, ub_val)))
        rate = spent / max(n_children, 1)
        fan = n_children / max(prev_count, 1)
        prev_count = int(keys.shape[0])
        if keys.shape[0] > max_states:
            stopped = f"layer {step} holds {keys.shape[0]} states (cap {max_states})"
            break
    if stopped is None and len(layers) == closings + 1 and keys.shape[0] > 0:
        # complete: the least f of the last layer (anything pruned was worse than ub)
        j = int(np.argmin(vals))
        best = int(vals[j])
        if ub is not None and ub <= best:
            order = ub_order
        else:
            order = _trace(adj, layers, j, db, m.n)
        assert order is not None
        wseq = _wseq(m, order)
        total = sum(wseq)
        return _done(m, rules, Status.OPTIMAL, answer_of(m, order, wseq), t0, params, states,
                     pruned, layer_peak, total, total, None, root_bound, extra=extra)
    if stopped is None:
        # every state died: pruned ones were worse than the incumbent, the rest broke rules
        if ub is not None:
            wseq = _wseq(m, ub_order)  # type: ignore[arg-type]
            return _done(m, rules, Status.OPTIMAL, answer_of(m, ub_order, wseq), t0, params,
                         states, pruned, layer_peak, ub, ub, None, root_bound, extra=extra)
        return _done(m, rules, Status.INFEASIBLE, None, t0, params, states, pruned,
                     layer_peak, None, None, "no order keeps the rules", root_bound, extra=extra)
    lb = root_bound if live_lb is None else min(live_lb, ub_val)
    lb = max(lb, root_bound) if live_lb is None else lb
    answer = None
    if ub_order is not None:
        answer = answer_of(m, ub_order, _wseq(m, ub_order))
    return _done(m, rules, Status.UNKNOWN, answer, t0, params, states, pruned, layer_peak,
                 lb, ub, stopped, root_bound, extra=extra)


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


def _done(m, rules, status, answer, t0, params, states, pruned, layer_peak, lb, ub, reason,
          root_bound=None, extra=None) -> Result:
    gap = None
    if lb is not None and ub is not None and ub > 0:
        gap = (ub - lb) / ub
    cert = {"method": "exact-dp", "lower_bound": lb, "upper_bound": ub, "gap": gap,
            "states": states, "pruned": pruned, "layer_peak": layer_peak,
            "root_bound": root_bound}
    stats = {"states": states, "pruned": pruned, "layer_peak": layer_peak,
             "peak_rss_mb": round(_peak_rss_mb(), 1)}
    if reason:
        stats["reason"] = reason
    stats.update(extra or {})
    return Result("cityclose", status, answer, cert, solver="exact-dp",
                  solver_version=_numba_version(), params=params,
                  wall_time=time.monotonic() - t0, stats=stats, instance=m.name)


def _numba_version() -> str:
    try:
        import numba
        return f"numba {numba.__version__}"
    except ImportError:  # pragma: no cover
        return "python"
