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


def dp(m: CityMap, rules: Rules | None = None, *, deadline: Deadline | None = None,
       max_cities: int = DP_MAX_CITIES) -> Result:
    """The exact DP over connected sets of open cities (plain Python, small maps).

    OPTIMAL with the order and ``{"method": "dp", "lower_bound", "upper_bound", "states"}``;
    INFEASIBLE (proved) when no order keeps the rules; UNKNOWN when ``deadline`` passed or
    the map has more than ``max_cities`` cities (:data:`DP_MAX_CITIES` by default: a larger
    map is within its reach only when it has few connected sets, a long path or a tree with
    a small core, which the tests use).
    """
    rules = rules or Rules()
    t0 = time.monotonic()
    keep, closings = prepare(m, rules)
    if m.n > max_cities:
        return _result(m, rules, Status.UNKNOWN, None, t0, {},
                       {"reason": f"the plain DP stops at {max_cities} cities"})
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
            return _result(m, rules, Status.UNKNOWN, None, t0, {"time_limit": deadline.limit},
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
    order: list[int] = []
    mask = end
    for par in reversed(parents):
        v = par[mask]
        order.append(v)
        mask |= 1 << v
    order.reverse()
    wseq = [w0]
    mask = m.full_mask
    for v in order:
        mask &= ~(1 << v)
        wseq.append(wiener_mask(adj, mask))  # type: ignore[arg-type]
    assert sum(wseq) == best
    return _result(m, rules, Status.OPTIMAL, answer_of(m, order, wseq), t0,
                   {"time_limit": deadline.limit} if deadline.limit else {}, {"states": states},
                   {"method": "dp", "lower_bound": best, "upper_bound": best,
                    "states": states})
