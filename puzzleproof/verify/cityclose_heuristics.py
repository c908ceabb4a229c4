"""City closing: the article's greedy and beam search, merged beam, and an independent DP.

- :func:`greedy`: close the city whose closing keeps the map connected (and within the rules)
  and gives the lowest Wiener number. Ties matter: ``tiebreak="last"`` (default) lets the
  last-listed city win, which reproduces the article's 13343 on ``europe30.json``;
  ``tiebreak="first"`` gives 13352 there.
- :func:`beam`: the article's beam search: keep the ``width`` (10) best partial sequences
  scored by the average Wiener number along them, dropping sequences whose map is
  disconnected; gives the article's 13254 on ``europe30.json``. Candidates are expanded beam by
  beam, cities in listed order, and ranked by a stable sort (earlier candidates win ties).
- :func:`merged_beam`: the same, with sequences reaching the same set of open cities merged
  (the best one kept), so the beam holds ``width`` different maps.
- :func:`dp`: the exact dynamic program over connected sets of open cities, layer by layer
  from the full map, in plain Python: the ground truth of the tests (fine to ~18 cities).
  It shares nothing with the exact encoders but the rules of :mod:`models.cityclose`.

Every function honours :class:`~puzzleproof.models.cityclose.Rules` (final size, kept cities,
no paths of K or more, no path at the end) and returns a
:class:`~puzzleproof.result.Result` whose ``answer`` is ``{"order", "left", "wiener",
"total"}`` (city names) and whose status is SOLVED for heuristics, OPTIMAL or INFEASIBLE
(proved) for the DP, UNKNOWN when a heuristic is stuck or a limit ran out.

Example:
    >>> from puzzleproof.models.cityclose import CityMap, Rules
    >>> ring = CityMap(tuple("abcdef"), tuple((i, (i + 1) % 6) for i in range(6)))
    >>> greedy(ring, Rules()).answer["total"], dp(ring, Rules()).answer["total"]
    (62, 62)
"""

from __future__ import annotations

import time
from typing import Any, Sequence

from puzzleproof.models.cityclose import (CityMap, Rules, answer_of, forbidden_shape, prepare,
                                          wiener_mask)
from puzzleproof.limits import Deadline
from puzzleproof.result import Result, Status

__all__ = ["greedy", "beam", "merged_beam", "dp", "answer_of", "TIEBREAKS", "prepare",
           "DP_MAX_CITIES"]

TIEBREAKS = ("last", "first")
#: The plain-Python DP refuses larger maps (it would not finish).
DP_MAX_CITIES = 26


def _ok_child(m: CityMap, rules: Rules, child: int, final: bool) -> int | None:
    """The Wiener number of the map ``child`` when it is allowed, else None."""
    w = wiener_mask(m.adj, child)
    if w is None:
        return None
    if (rules.no_paths is not None or (final and rules.final_not_path)) and \
            forbidden_shape(m.adj, child, rules, final):
        return None
    return w


def _start_ok(m: CityMap, rules: Rules, closings: int) -> bool:
    return forbidden_shape(m.adj, m.full_mask, rules, final=closings == 0) is None


def _result(m: CityMap, rules: Rules, solver: str, status: Status, answer, t0: float,
            params: dict[str, Any], stats: dict[str, Any], certificate=None) -> Result:
    return Result("cityclose", status, answer, certificate, solver=solver,
                  params={"rules": rules.to_dict(), **params}, wall_time=time.monotonic() - t0,
                  stats=stats, instance=m.name)


def greedy(m: CityMap, rules: Rules | None = None, *, tiebreak: str = "last") -> Result:
    """The article's greedy closing (see the module docstring for ``tiebreak``)."""
    rules = rules or Rules()
    if tiebreak not in TIEBREAKS:
        raise ValueError(f"tiebreak must be one of {TIEBREAKS}, found {tiebreak!r}")
    t0 = time.monotonic()
    keep, closings = prepare(m, rules)
    mask = m.full_mask
    w0 = wiener_mask(m.adj, mask)
    wseq, order = [w0], []
    params = {"tiebreak": tiebreak}
    if not _start_ok(m, rules, closings):
        return _result(m, rules, "greedy", Status.UNKNOWN, None, t0, params,
                       {"stuck_at_step": 0})
    for step in range(1, closings + 1):
        best_w, best_v = None, None
        for v in range(m.n):
            if not mask >> v & 1 or keep >> v & 1:
                continue
            w = _ok_child(m, rules, mask & ~(1 << v), step == closings)
            if w is None:
                continue
            if best_w is None or w < best_w or (w == best_w and tiebreak == "last"):
                best_w, best_v = w, v
        if best_v is None:
            return _result(m, rules, "greedy", Status.UNKNOWN, None, t0, params,
                           {"stuck_at_step": step})
        mask &= ~(1 << best_v)
        order.append(best_v)
        wseq.append(best_w)
    return _result(m, rules, "greedy", Status.SOLVED, answer_of(m, order, wseq), t0, params,
                   {"steps": closings})


def _beam_search(m: CityMap, rules: Rules, width: int, merged: bool, name: str,
                 deadline: Deadline) -> Result:
    if width < 1:
        raise ValueError(f"the beam width must be at least 1, found {width}")
    t0 = time.monotonic()
    keep, closings = prepare(m, rules)
    w0 = wiener_mask(m.adj, m.full_mask)
    params = {"width": width}
    if not _start_ok(m, rules, closings):
        return _result(m, rules, name, Status.UNKNOWN, None, t0, params, {"stuck_at_step": 0})
    # a beam: (sum of Wiener numbers, mask, order, wiener sequence)
    beams: list[tuple[int, int, list[int], list[int]]] = [(w0, m.full_mask, [], [w0])]
    cache: dict[int, int | None] = {}
    expanded = 0
    for step in range(1, closings + 1):
        final = step == closings
        cands: list[tuple[int, int, list[int], list[int]]] = []
        best_of: dict[int, int] = {}
        for total, mask, order, wseq in beams:
            if deadline.expired():  # read between beams: a huge width cannot overrun it
                return _result(m, rules, name, Status.UNKNOWN, None, t0, params,
                               {"stopped_at_step": step, "expanded": expanded,
                                "reason": f"time limit while closing {step}"})
            for v in range(m.n):
                if not mask >> v & 1 or keep >> v & 1:
                    continue
                child = mask & ~(1 << v)
                if child in cache:
                    w = cache[child]
                else:
                    w = cache[child] = _ok_child(m, rules, child, final)
                expanded += 1
                if w is None:
                    continue
                cand = (total + w, child, order + [v], wseq + [w])
                if merged:
                    j = best_of.get(child)
                    if j is None:
                        best_of[child] = len(cands)
                        cands.append(cand)
                    elif cand[0] < cands[j][0]:
                        cands[j] = cand
                else:
                    cands.append(cand)
        if not cands:
            return _result(m, rules, name, Status.UNKNOWN, None, t0, params,
                           {"stuck_at_step": step, "expanded": expanded})
        # all beams have the same length: the average ranks as the sum (stable sort)
        cands.sort(key=lambda c: c[0])
        beams = cands[:width]
        del cands
        cache = {k: v for k, v in cache.items() if k in {b[1] for b in beams}} \
            if len(cache) > 200_000 else cache
    total, mask, order, wseq = beams[0]
    return _result(m, rules, name, Status.SOLVED, answer_of(m, order, wseq), t0, params,
                   {"expanded": expanded})


def beam(m: CityMap, rules: Rules | None = None, *, width: int = 10,
         time_limit: float | None = None, deadline: Deadline | None = None) -> Result:
    """The article's beam search (width 10 by default), within ``time_limit`` seconds or
    ``deadline``."""
    dl = deadline if deadline is not None else Deadline(time_limit)
    return _beam_search(m, rules or Rules(), width, False, "beam", dl)


def merged_beam(m: CityMap, rules: Rules | None = None, *, width: int = 10,
                time_limit: float | None = None, deadline: Deadline | None = None) -> Result:
    """Beam search with sequences that reach the same open set merged."""
    dl = deadline if deadline is not None else Deadline(time_limit)
    return _beam_search(m, rules or Rules(), width, True, "merged-beam", dl)


def dp(m: CityMap, rules: Rules | None = None, *, time_limit: float | None = None) -> Result:
    """The exact DP over connected sets of open cities (plain Python, small maps).

    OPTIMAL with the order and ``{"method": "dp", "lower_bound", "upper_bound", "states"}``;
    INFEASIBLE (proved) when no order keeps the rules; UNKNOWN when ``time_limit`` ran out or
    the map has more than :data:`DP_MAX_CITIES` cities.
    """
    rules = rules or Rules()
    t0 = time.monotonic()
    keep, closings = prepare(m, rules)
    if m.n > DP_MAX_CITIES:
        return _result(m, rules, "dp", Status.UNKNOWN, None, t0, {},
                       {"reason": f"the plain DP stops at {DP_MAX_CITIES} cities"})
    adj = m.adj
    w0 = wiener_mask(adj, m.full_mask)
    states = 1
    if not _start_ok(m, rules, closings):
        return _result(m, rules, "dp", Status.INFEASIBLE, None, t0, {}, {"states": states},
                       {"method": "dp", "states": states})
    layer: dict[int, int] = {m.full_mask: w0}  # mask -> best sum up to and including it
    parents: list[dict[int, int]] = []  # per step: child mask -> city closed to reach it
    check_shape = rules.no_paths is not None or rules.final_not_path
    for step in range(1, closings + 1):
        final = step == closings
        nxt: dict[int, int] = {}
        par: dict[int, int] = {}
        wcache: dict[int, int | None] = {}
        for mask, f in layer.items():
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
        states += len(nxt)
        if not nxt:
            return _result(m, rules, "dp", Status.INFEASIBLE, None, t0, {}, {"states": states},
                           {"method": "dp", "states": states,
                            "reason": f"no allowed map after {step} closings"})
        layer = nxt
        parents.append(par)
        if time_limit is not None and time.monotonic() - t0 > time_limit:
            return _result(m, rules, "dp", Status.UNKNOWN, None, t0, {"time_limit": time_limit},
                           {"states": states, "stopped_at_step": step,
                            "reason": f"time limit before closing {step + 1}"})
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
    return _result(m, rules, "dp", Status.OPTIMAL, answer_of(m, order, wseq), t0,
                   {"time_limit": time_limit} if time_limit else {}, {"states": states},
                   {"method": "dp", "lower_bound": best, "upper_bound": best,
                    "states": states})
