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
  ``h(S)`` is a lower bound on the Wiener numbers still to come: for every later size ``i``,
  ``W >= i(i-1) - e`` (pairs not linked are at distance >= 2) and
  ``W >= 3 C(i,2) - 2e - p`` (pairs not within two links are at distance >= 3), with ``e`` at
  most ``m(S) - (|S| - i)`` links (every closing removes a link) and ``p`` at most the
  two-link paths of the ``i`` busiest cities; and the exact least Wiener number of a connected
  set of size ``i`` when the small sizes were enumerated first.
- Proof data: ``{"method": "exact-dp", "lower_bound", "upper_bound", "states",
  "pruned", "layer_peak"}``; OPTIMAL only when every layer was completed (the optimum is then
  the least ``f`` of the last layer, or the incumbent when everything better was pruned).
  A time limit or a state cap gives UNKNOWN with the incumbent order and the proved lower
  bound ``min(UB, min over the live layer of f(S) + h(S))``.

Measured (2 cores, ``benchmarks/cityclose.py``): ``europe30.json`` proved optimal at 13208
(merged beam width 100 finds it too; width 10 gives 13239) in 22-35 s and about 290 MB peak,
2.3 million states kept and 6.0 million pruned of its 27,165,108 connected sets; the time
goes to the Wiener BFS of the kept states (about half), the closable-city BFS and the hash
inserts. The first call of a fresh checkout also compiles the loops (about 20 s, cached on
disk afterwards). ``europe41-land-borders.json`` is NOT proved: the bounds above are too weak
for it (root bound 23917 against 32534; the layers grow past 25 million states by the ninth
closing, 2 GB), and the best proved gap measured is about 11.6 % after 180 s. The sum of the
exact least Wiener number of every size is within 0.45 % of the optimum on europe30, so a
cheaper way to get those per-size minima for the middle sizes is the way forward.
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


@njit(cache=True)
def _connected(adj, mask, db):
    if mask == np.uint64(0):
        return False
    seen = mask & (~mask + np.uint64(1))
    frontier = seen
    while frontier != np.uint64(0):
        nb = np.uint64(0)
        f = frontier
        while f != np.uint64(0):
            b = f & (~f + np.uint64(1))
            nb |= adj[_ctz(b, db)]
            f ^= b
        frontier = nb & mask & ~seen
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
            nb = np.uint64(0)
            f = frontier
            while f != np.uint64(0):
                b = f & (~f + np.uint64(1))
                nb |= adj[_ctz(b, db)]
                f ^= b
            frontier = nb & mask & ~seen
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
def _h(adj, mask, size, final_size, emax, p2max, lbmin, db):
    """Admissible lower bound on the Wiener numbers of the maps after ``mask`` (sizes
    final_size .. size-1)."""
    m = _edges(adj, mask, db)
    total = np.int64(0)
    for i in range(final_size, size):
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
               lbmin, db):
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


@njit(cache=True)
def _small_minima(adj, n, upto, db, cap):
    """The least Wiener number of a connected set of each size 1..upto (exact), by growing
    connected sets from each lowest city; stops (returns ok=False) past ``cap`` sets."""
    best = np.full(upto + 1, np.int64(1) << 60, dtype=np.int64)
    # stack-based enumeration of connected sets whose lowest city is r (each set once)
    stack_set = np.zeros(upto * 64 + 64, dtype=np.uint64)
    stack_ext = np.zeros(upto * 64 + 64, dtype=np.uint64)
    stack_ban = np.zeros(upto * 64 + 64, dtype=np.uint64)
    count = np.int64(0)
    for r in range(n):
        root = U1 << np.uint64(r)
        below = root - U1
        sp = 0
        stack_set[0] = root
        stack_ext[0] = adj[r] & ~below & ~root
        stack_ban[0] = below | root
        sp = 1
        while sp > 0:
            sp -= 1
            s = stack_set[sp]
            ext = stack_ext[sp]
            ban = stack_ban[sp]
            count += 1
            if count > cap:
                return best, False
            size = _popcount(s)
            w = _wiener(adj, s, db)
            if w < best[size]:
                best[size] = w
            if size == upto:
                continue
            # branch: take each extension city v (in turn), banning the earlier ones
            e = ext
            banned = ban
            while e != np.uint64(0):
                low = e & (~e + np.uint64(1))
                e ^= low
                v = _ctz(low, db)
                ns = s | low
                nban = banned | low
                next_ext = (e | (adj[v] & ~nban)) & ~nban
                stack_set[sp] = ns
                stack_ext[sp] = next_ext
                stack_ban[sp] = nban
                sp += 1
                banned = nban
    return best, True


#: states per second of :func:`_small_minima` on this kind of machine (europe41: 1.5 M/s),
#: taken low so that a deadline holds
_SMALL_RATE = 1.2e6


def _bound_tables(m: CityMap, rules: Rules, small_upto: int, small_cap: int,
                  deadline: float | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Bound tables; the minimum Wiener numbers of small connected sets are searched within
    ``deadline`` (a ``time.monotonic()`` value): without them the bound is weaker, never
    wrong."""
    n = m.n
    deg = sorted((bin(a).count("1") for a in m.adj), reverse=True)
    emax = np.zeros(n + 1, dtype=np.int64)
    p2max = np.zeros(n + 1, dtype=np.int64)
    for i in range(n + 1):
        emax[i] = min(i * (i - 1) // 2, sum(deg[:i]) // 2, len(m.links))
        p2max[i] = sum(d * (d - 1) // 2 for d in deg[:i])
    lbmin = np.zeros(n + 1, dtype=np.int64)
    complete = False
    adj = np.array(m.adj, dtype=np.uint64)
    upto = min(small_upto, n)
    budget = None if deadline is None else max(0.0, deadline - time.monotonic()) * _SMALL_RATE
    while upto > 1 and not complete:
        cap = small_cap if budget is None else int(min(small_cap, budget))
        if cap < 1000:
            break
        best, complete = _small_minima(adj, n, upto, _DEBRUIJN, cap)
        if budget is not None:
            budget -= cap
        if complete:
            for i in range(1, upto + 1):
                if best[i] < (1 << 60):
                    lbmin[i] = best[i]
        else:
            upto -= 1
    return emax, p2max, lbmin, complete


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def solve(m: CityMap, rules: Rules | None = None, *, time_limit: float | None = None,
          incumbent: list[int] | None = None, width: int = 10, max_states: int = 12_000_000,
          small_upto: int = 14, seed: int = 0) -> Result:
    """The proved optimal order of ``m`` under ``rules`` (see the module docstring).

    ``incumbent`` (city indices) replaces the merged beam of ``width`` as the first upper
    bound; ``max_states`` caps the states of one layer (memory: about 40 bytes a state while a
    layer is made); ``small_upto`` enumerates connected sets up to that size first for exact
    per-size minima (capped at 3 million sets). Returns OPTIMAL, INFEASIBLE (proved: no order
    keeps the rules) or UNKNOWN with the best order and both bounds.
    """
    from puzzleproof.verify.cityclose_heuristics import answer_of, greedy, merged_beam, prepare

    rules = rules or Rules()
    t0 = time.monotonic()
    keep_mask, closings = prepare(m, rules)
    params: dict[str, Any] = {"rules": rules.to_dict(), "time_limit": time_limit,
                              "max_states": max_states, "width": width}
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
    # the set-up (incumbent, bound tables) takes at most half of a time limit, a quarter each
    share = None if time_limit is None else time_limit / 4
    if ub_order is None:
        mb = merged_beam(m, rules, width=width, time_limit=share)
        if mb.answer is None:  # out of its share: the greedy order (fast) as incumbent
            mb = greedy(m, rules)
        if mb.answer is not None:
            ub_order = [m.index(c) for c in mb.answer["order"]]  # type: ignore[misc]
            ub = mb.answer["total"]
    ub_val = ub if ub is not None else (1 << 62)
    emax, p2max, lbmin, small_complete = _bound_tables(
        m, rules, small_upto, 3_000_000,
        None if share is None else time.monotonic() + share)
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
                     "the full map breaks a shape rule")
    keys = np.array([full], dtype=np.uint64)
    vals = np.array([w0], dtype=np.int64)
    h0 = int(_h(adj, full, m.n, k, emax, p2max, lbmin, db))
    root_bound = w0 + h0
    layers.append((keys, vals))
    deadline = None if time_limit is None else t0 + time_limit
    stopped = None
    live_lb = None
    rate: float | None = None  # seconds per parent state in the last layer
    growth = 1.0
    prev_count = 1
    for step in range(1, closings + 1):
        size = m.n - step
        now = time.monotonic()
        if deadline is not None and (now > deadline or (rate is not None and
                                     now + rate * keys.shape[0] * growth > deadline)):
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
        cvals = tvals[occ]
        del tkeys, tvals, occ
        newv, est = _finish(adj, ckeys, cvals, size, k, no_paths, fnp, ub_val, emax, p2max,
                            lbmin, db)
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
        growth = max(1.0, keys.shape[0] / max(prev_count, 1))
        rate = spent / max(prev_count, 1)
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
                     pruned, layer_peak, total, total, None, root_bound)
    if stopped is None:
        # every state died: pruned ones were worse than the incumbent, the rest broke rules
        if ub is not None:
            wseq = _wseq(m, ub_order)  # type: ignore[arg-type]
            return _done(m, rules, Status.OPTIMAL, answer_of(m, ub_order, wseq), t0, params,
                         states, pruned, layer_peak, ub, ub, None, root_bound)
        return _done(m, rules, Status.INFEASIBLE, None, t0, params, states, pruned,
                     layer_peak, None, None, "no order keeps the rules", root_bound)
    lb = root_bound if live_lb is None else min(live_lb, ub_val)
    lb = max(lb, root_bound) if live_lb is None else lb
    answer = None
    if ub_order is not None:
        answer = answer_of(m, ub_order, _wseq(m, ub_order))
    return _done(m, rules, Status.UNKNOWN, answer, t0, params, states, pruned, layer_peak,
                 lb, ub, stopped, root_bound)


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
          root_bound=None) -> Result:
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
    return Result("cityclose", status, answer, cert, solver="exact-dp",
                  solver_version=_numba_version(), params=params,
                  wall_time=time.monotonic() - t0, stats=stats, instance=m.name)


def _numba_version() -> str:
    try:
        import numba
        return f"numba {numba.__version__}"
    except ImportError:  # pragma: no cover
        return "python"
