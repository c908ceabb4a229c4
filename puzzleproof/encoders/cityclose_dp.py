"""City closing's exact dynamic program in plain Python: the ground truth of the tests.

Layer by layer from the full map, each connected set of open cities keeps its least sum of
Wiener numbers so far and the city closed to reach it. It shares nothing with the compiled
exact search (:mod:`puzzleproof.encoders.cityclose_exact`) but the rules of
:mod:`puzzleproof.models.cityclose`, so each checks the other on small maps (fine to about
18 cities; a larger map only when it has few connected sets: a path, a tree with a small
core).

Example:
    >>> from puzzleproof.models.cityclose import CityMap, Rules
    >>> ring = CityMap(tuple("abcdef"), tuple((i, (i + 1) % 6) for i in range(6)))
    >>> dp(ring, Rules()).answer["total"]
    62
"""

from __future__ import annotations

import time
from typing import Any

from puzzleproof.clock import Deadline
from puzzleproof.models.cityclose import (CityMap, Rules, answer_of, forbidden_shape, prepare,
                                          wiener_mask)
from puzzleproof.result import Result, Status

__all__ = ["dp", "DP_MAX_CITIES"]

#: The plain-Python DP refuses larger maps (it would not finish).
DP_MAX_CITIES = 26


def _start_ok(m: CityMap, rules: Rules, closings: int) -> bool:
    return forbidden_shape(m.adj, m.full_mask, rules, final=closings == 0) is None


def _result(m: CityMap, rules: Rules, status: Status, answer, t0: float,
            params: dict[str, Any], stats: dict[str, Any], certificate=None) -> Result:
    return Result("cityclose", status, answer, certificate, solver="dp",
                  params={"rules": rules.to_dict(), **params}, wall_time=time.monotonic() - t0,
                  stats=stats, instance=m.name)


def _dp_layer(m: CityMap, rules: Rules, layer: dict[int, int], keep: int, final: bool,
              deadline: Deadline) -> tuple[dict[int, int], dict[int, int]] | None:
    """The next layer of the plain DP: each allowed child's least value and the city closed
    to reach it; None when ``deadline`` passed (read every 1024 states)."""
    adj = m.adj
    check_shape = rules.no_paths is not None or rules.final_not_path
    nxt: dict[int, int] = {}
    par: dict[int, int] = {}
    wcache: dict[int, int | None] = {}
    for i, (mask, f) in enumerate(layer.items()):
        if i % 1024 == 0 and deadline.expired():
            return None
        rest = mask & ~keep
        while rest:
            low = rest & -rest
            rest ^= low
            child = mask ^ low
            if child in wcache:
                w = wcache[child]
            else:
                w = wiener_mask(adj, child)
                if w is not None and check_shape and forbidden_shape(adj, child, rules, final):
                    w = None
                wcache[child] = w
            if w is None:
                continue
            val = f + w
            old = nxt.get(child)
            if old is None or val < old:
                nxt[child] = val
                par[child] = low.bit_length() - 1
    return nxt, par


#: seconds a stopped DP may spend past its deadline completing its best state greedily (the
#: order its lower bound is measured against; milliseconds on the maps it takes)
_GRACE = 0.1
#: how an OPTIMAL result names its proof (the certificate's ``closed_by``)
CLOSED_BY = {"layers": "every layer made",
             "bound": "the last complete layer's least total, plus s(s-1)/2 for each map of s "
                      "cities still to come, meets the order's total"}


def _trivial(n: int, start: int, closings: int) -> int:
    """The least Wiener numbers of the maps after ``start`` closings up to the last: a
    connected map of ``s`` cities has at least ``s(s-1)/2`` (every pair at least 1 apart)."""
    return sum((n - t) * (n - t - 1) // 2 for t in range(start, closings + 1))


def _complete(m: CityMap, rules: Rules, mask: int, keep: int, steps: list[int], closings: int,
              grace: Deadline) -> list[int] | None:
    """The order ``steps`` (reaching ``mask``) completed greedily (the least Wiener number
    next, within the rules); None when greedy gets stuck or ``grace`` passes."""
    order = list(steps)
    for step in range(len(steps) + 1, closings + 1):
        if grace.expired():
            return None
        best = None
        rest = mask & ~keep
        while rest:
            low = rest & -rest
            rest ^= low
            w = wiener_mask(m.adj, mask ^ low)
            if w is None or forbidden_shape(m.adj, mask ^ low, rules, step == closings):
                continue
            if best is None or w < best[0]:
                best = (w, low)
        if best is None:
            return None
        mask ^= best[1]
        order.append(best[1].bit_length() - 1)
    return order


def _trace(parents: list[dict[int, int]], end: int) -> list[int]:
    """The order reaching ``end`` through the layers' parents."""
    order: list[int] = []
    mask = end
    for par in reversed(parents):
        v = par[mask]
        order.append(v)
        mask |= 1 << v
    order.reverse()
    return order


def _sequence(m: CityMap, order: list[int]) -> list[int]:
    mask = m.full_mask
    wseq = [wiener_mask(m.adj, mask)]
    for v in order:
        mask &= ~(1 << v)
        wseq.append(wiener_mask(m.adj, mask))
    return wseq  # type: ignore[return-value]


def _stopped(m: CityMap, rules: Rules, layer: dict[int, int], parents: list[dict[int, int]],
             keep: int, closings: int, t0: float, deadline: Deadline, stats: dict
             ) -> Result:
    """The result of a DP stopped by ``deadline`` after ``len(parents)`` complete layers: the
    proved lower bound (the least total so far plus the trivial bound of the maps to come)
    and the best state's order completed greedily; OPTIMAL when the two meet."""
    done = len(parents)
    end = min(layer, key=lambda k: (layer[k], k))
    lb = layer[end] + _trivial(m.n, done + 1, closings)
    order = _complete(m, rules, end, keep, _trace(parents, end), closings,
                      Deadline(_GRACE))
    params = {"time_limit": deadline.limit}
    if order is None:
        return _result(m, rules, Status.UNKNOWN, None, t0, params, stats,
                       {"method": "dp", "lower_bound": lb, "upper_bound": None,
                        "states": stats["states"]})
    wseq = _sequence(m, order)
    total = sum(wseq)
    cert = {"method": "dp", "lower_bound": lb, "upper_bound": total,
            "gap": (total - lb) / total if total else None, "states": stats["states"]}
    if lb >= total:  # the bound meets the order: optimal, whatever stopped the DP
        cert.update(lower_bound=total, gap=0.0, closed_by=CLOSED_BY["bound"])
        stats = dict(stats)
        stats["stopped"] = stats.pop("reason")
        return _result(m, rules, Status.OPTIMAL, answer_of(m, order, wseq), t0, params, stats,
                       cert)
    return _result(m, rules, Status.UNKNOWN, answer_of(m, order, wseq), t0, params, stats,
                   cert)


def dp(m: CityMap, rules: Rules | None = None, *, deadline: Deadline | None = None,
       max_cities: int = DP_MAX_CITIES) -> Result:
    """The exact DP over connected sets of open cities (plain Python, small maps).

    OPTIMAL with the order and ``{"method": "dp", "lower_bound", "upper_bound", "states",
    "closed_by"}``; INFEASIBLE (proved) when no order keeps the rules; UNKNOWN when the map
    has more than ``max_cities`` cities (:data:`DP_MAX_CITIES` by default: a larger map is
    within its reach only when it has few connected sets, a long path or a tree with a
    small core, which the tests use). When ``deadline`` passes, the proved lower bound of
    the layers made and the best state's order completed greedily: OPTIMAL when they meet,
    else UNKNOWN with both.
    """
    rules = rules or Rules()
    t0 = time.monotonic()
    keep, closings = prepare(m, rules)
    if m.n > max_cities:
        return _result(m, rules, Status.UNKNOWN, None, t0, {},
                       {"reason": f"the plain DP stops at {max_cities} cities",
                        "too_large": True})
    adj = m.adj
    w0 = wiener_mask(adj, m.full_mask)
    states = 1
    if not _start_ok(m, rules, closings):
        return _result(m, rules, Status.INFEASIBLE, None, t0, {}, {"states": states},
                       {"method": "dp", "states": states})
    layer: dict[int, int] = {m.full_mask: w0}  # mask -> best sum up to and including it
    parents: list[dict[int, int]] = []  # per step: child mask -> city closed to reach it
    deadline = deadline or Deadline(None)
    for step in range(1, closings + 1):
        final = step == closings
        made = _dp_layer(m, rules, layer, keep, final, deadline)
        if made is None:
            return _stopped(m, rules, layer, parents, keep, closings, t0, deadline,
                            {"states": states, "stopped_at_step": step - 1,
                             "reason": f"time limit while closing {step}"})
        nxt, par = made
        states += len(nxt)
        if not nxt:
            return _result(m, rules, Status.INFEASIBLE, None, t0, {}, {"states": states},
                           {"method": "dp", "states": states,
                            "reason": f"no allowed map after {step} closings"})
        layer = nxt
        parents.append(par)
    end = min(layer, key=lambda k: (layer[k], k))
    best = layer[end]
    order = _trace(parents, end)
    wseq = _sequence(m, order)
    assert sum(wseq) == best
    return _result(m, rules, Status.OPTIMAL, answer_of(m, order, wseq), t0,
                   {"time_limit": deadline.limit} if deadline.limit else {}, {"states": states},
                   {"method": "dp", "lower_bound": best, "upper_bound": best,
                    "states": states, "closed_by": CLOSED_BY["layers"]})
