"""City closing: the article's greedy and beam search, and the merged beam.

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

Greedy and the beams compute Wiener numbers in compiled code
(:mod:`puzzleproof.encoders.cityclose_graph`) and skip the closings that cannot be among the
best: closing ``v`` never shortens a path, so ``W(S - v) >= W(S) - status_S(v)``, and a
city whose bound exceeds the best value kept (the ``width``-th best for a beam) cannot enter;
the answers are those of trying every city (the same orders on the shipped and random maps),
at a fraction of the cost on maps of hundreds of cities. Every function honours
:class:`~puzzleproof.models.cityclose.Rules` (final size, kept cities, no paths of K or
more, no path at the end) and returns a
:class:`~puzzleproof.result.Result` whose ``answer`` is ``{"order", "left", "wiener",
"total"}`` (city names) and whose status is SOLVED for heuristics, OPTIMAL or INFEASIBLE
(proved) for the DP, UNKNOWN when a heuristic is stuck or a limit ran out.

Example:
    >>> from puzzleproof.models.cityclose import CityMap, Rules
    >>> ring = CityMap(tuple("abcdef"), tuple((i, (i + 1) % 6) for i in range(6)))
    >>> greedy(ring, Rules()).answer["total"]
    62
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from puzzleproof.clock import Deadline
from puzzleproof.models.cityclose import (CityMap, Rules, answer_of, forbidden_shape, prepare)
from puzzleproof.result import Result, Status

__all__ = ["greedy", "beam", "merged_beam", "TIEBREAKS"]

TIEBREAKS = ("last", "first")


def _start_ok(m: CityMap, rules: Rules, closings: int) -> bool:
    return forbidden_shape(m.adj, m.full_mask, rules, final=closings == 0) is None


def _result(m: CityMap, rules: Rules, solver: str, status: Status, answer, t0: float,
            params: dict[str, Any], stats: dict[str, Any], certificate=None) -> Result:
    return Result("cityclose", status, answer, certificate, solver=solver,
                  params={"rules": rules.to_dict(), **params}, wall_time=time.monotonic() - t0,
                  stats=stats, instance=m.name)


def greedy(m: CityMap, rules: Rules | None = None, *, tiebreak: str = "last",
           deadline: Deadline | None = None) -> Result:
    """The article's greedy closing (see the module docstring for ``tiebreak``); UNKNOWN when
    ``deadline`` passes first (read before each Wiener number)."""
    rules = rules or Rules()
    if tiebreak not in TIEBREAKS:
        raise ValueError(f"tiebreak must be one of {TIEBREAKS}, found {tiebreak!r}")
    dl = deadline if deadline is not None else Deadline(None)
    t0 = time.monotonic()
    keep, closings = prepare(m, rules)
    mask = m.full_mask
    params = {"tiebreak": tiebreak}
    if not _start_ok(m, rules, closings):
        return _result(m, rules, "greedy", Status.UNKNOWN, None, t0, params,
                       {"stuck_at_step": 0})
    kids = _Children(m, rules)
    w0, _ = kids.bounds(mask)  # compiled: the model's BFS takes 40 s on 5,000 cities
    wseq, order = [w0], []
    for step in range(1, closings + 1):
        best_w, best_v = None, None
        # cities by the bound W(S) - status(v) on W(S - v), least first: past a bound above
        # the best value found no city can win or tie
        w_s, status = kids.bounds(mask)
        cities = sorted((w_s - int(status[v]), v) for v in range(m.n)
                        if mask >> v & 1 and not keep >> v & 1)
        for lb_w, v in cities:
            if best_w is not None and lb_w > best_w:
                break
            if dl.expired():
                return _result(m, rules, "greedy", Status.UNKNOWN, None, t0, params,
                               {"stopped_at_step": step,
                                "reason": f"time limit while closing {step}"})
            w = kids.wiener(mask & ~(1 << v), step == closings)
            if w is None:
                continue
            if best_w is None or w < best_w or (w == best_w and (
                    v > best_v if tiebreak == "last" else v < best_v)):
                best_w, best_v = w, v
        if best_v is None:
            return _result(m, rules, "greedy", Status.UNKNOWN, None, t0, params,
                           {"stuck_at_step": step})
        mask &= ~(1 << best_v)
        order.append(best_v)
        wseq.append(best_w)
    return _result(m, rules, "greedy", Status.SOLVED, answer_of(m, order, wseq), t0, params,
                   {"steps": closings})


class _Children:
    """The Wiener numbers of the maps a beam step can reach, each computed once, in compiled
    code (:mod:`puzzleproof.encoders.cityclose_graph`), and lower bounds that spare most of
    them: closing ``v`` never shortens a path, so ``W(S - v) >= W(S) - status_S(v)``."""

    def __init__(self, m: CityMap, rules: Rules) -> None:
        from puzzleproof.encoders.cityclose_graph import csr

        self.m, self.rules = m, rules
        self.indptr, self.indices = csr(m)
        self.queue = np.empty(m.n, dtype=np.int64)
        self.dist = np.empty(m.n, dtype=np.int64)
        self.cache: dict[int, int | None] = {}
        self.nbytes = (m.n + 7) // 8

    def alive(self, mask: int) -> np.ndarray:
        bits = np.unpackbits(np.frombuffer(mask.to_bytes(self.nbytes, "little"), np.uint8),
                             bitorder="little")
        return bits[:self.m.n].astype(np.bool_)

    def bounds(self, mask: int) -> tuple[int, np.ndarray]:
        """``W(mask)`` and every city's status in it."""
        from puzzleproof.encoders.cityclose_graph import statuses

        status = np.zeros(self.m.n, dtype=np.int64)
        w = statuses(self.indptr, self.indices, self.alive(mask), self.queue, self.dist,
                     status)
        return int(w), status

    def wiener(self, child: int, final: bool) -> int | None:
        """The Wiener number of ``child`` when it is connected and allowed, else None."""
        from puzzleproof.encoders.cityclose_graph import wiener_open

        if child in self.cache:
            return self.cache[child]
        w: int | None = int(wiener_open(self.indptr, self.indices, self.alive(child),
                                        self.queue, self.dist))
        if w < 0:
            w = None
        elif (self.rules.no_paths is not None or (final and self.rules.final_not_path)) and \
                forbidden_shape(self.m.adj, child, self.rules, final):
            w = None
        self.cache[child] = w
        return w


def _candidates(kids: _Children, beams, keep: int, merged: bool, deadline: Deadline
                ) -> list[list] | None:
    """Every child of the beams in the article's order (beam by beam, cities in listed
    order), merged by open set when asked: ``[lower bound of the total, position, child,
    beam, city]``, the bound the least parent total plus the largest bound on the child's
    Wiener number. None when ``deadline`` passed (read before each beam)."""
    cands: list[list] = []
    where: dict[int, int] = {}
    for bi, (total, mask, _order, _wseq) in enumerate(beams):
        if deadline.expired():
            return None
        w_s, status = kids.bounds(mask)
        rest = mask & ~keep
        while rest:
            low = rest & -rest
            rest ^= low
            v = low.bit_length() - 1
            child = mask ^ low
            lb_w = w_s - int(status[v])
            j = where.get(child) if merged else None
            if j is None:
                if merged:
                    where[child] = len(cands)
                cands.append([total + lb_w, len(cands), child, bi, v, total, lb_w])
            else:
                c = cands[j]
                c[6] = max(c[6], lb_w)
                if total < c[5]:  # the least parent total wins (the first on ties)
                    c[5], c[3], c[4] = total, bi, v
                c[0] = c[5] + c[6]
    return cands


def _best_children(kids: _Children, beams, keep: int, merged: bool, width: int, final: bool,
                   deadline: Deadline) -> list[tuple[int, int, int, int]] | None:
    """The ``width`` best children ``(total, position, beam, city)`` by total, earlier
    positions first on ties (the article's stable sort), computing Wiener numbers least
    bound first and stopping once no bound can beat the ``width``-th; None when the
    deadline passed."""
    import heapq

    cands = _candidates(kids, beams, keep, merged, deadline)
    if cands is None or deadline.expired():
        return None
    cands.sort(key=lambda c: (c[0], c[1]))
    if deadline.expired():
        return None
    top: list[tuple[int, int, int, int]] = []  # a max-heap of (-total, -position, ...)
    for i, c in enumerate(cands):
        if len(top) >= width and c[0] > -top[0][0]:
            break
        if deadline.expired():  # a clock read is cheap beside a Wiener number
            return None
        w = kids.wiener(c[2], final)
        if w is None:
            continue
        item = (-(c[5] + w), -c[1], c[3], c[4])
        if len(top) < width:
            heapq.heappush(top, item)
        elif item > top[0]:
            heapq.heapreplace(top, item)
    return sorted(((-t, -p, b, v) for t, p, b, v in top))


def _next_beams(beams, best, deadline: Deadline) -> list | None:
    """The beams of the next step from the chosen children; None when ``deadline`` passed
    (a huge width makes this long too)."""
    new = []
    for i, (total, _pos, bi, v) in enumerate(best):
        if i % 4096 == 0 and deadline.expired():
            return None
        parent_total, mask, order, wseq = beams[bi]
        new.append((total, mask & ~(1 << v), order + [v], wseq + [total - parent_total]))
    return new


def _beam_search(m: CityMap, rules: Rules, width: int, merged: bool, name: str,
                 deadline: Deadline) -> Result:
    if width < 1:
        raise ValueError(f"the beam width must be at least 1, found {width}")
    t0 = time.monotonic()
    keep, closings = prepare(m, rules)
    params = {"width": width}
    if not _start_ok(m, rules, closings):
        return _result(m, rules, name, Status.UNKNOWN, None, t0, params, {"stuck_at_step": 0})
    kids = _Children(m, rules)
    w0, _ = kids.bounds(m.full_mask)  # compiled: the model's BFS takes 40 s on 5,000 cities
    # a beam: (sum of Wiener numbers, mask, order, wiener sequence)
    beams: list[tuple[int, int, list[int], list[int]]] = [(w0, m.full_mask, [], [w0])]
    for step in range(1, closings + 1):
        best = _best_children(kids, beams, keep, merged, width, step == closings, deadline)
        new = [] if best is None else _next_beams(beams, best, deadline)
        if new is None or best is None:
            return _result(m, rules, name, Status.UNKNOWN, None, t0, params,
                           {"stopped_at_step": step, "evaluated": len(kids.cache),
                            "reason": f"time limit while closing {step}"})
        if not best:
            return _result(m, rules, name, Status.UNKNOWN, None, t0, params,
                           {"stuck_at_step": step, "evaluated": len(kids.cache)})
        beams = new
        if len(kids.cache) > 200_000:
            kids.cache.clear()
    total, mask, order, wseq = beams[0]
    return _result(m, rules, name, Status.SOLVED, answer_of(m, order, wseq), t0, params,
                   {"evaluated": len(kids.cache)})


def beam(m: CityMap, rules: Rules | None = None, *, width: int = 10,
         deadline: Deadline | None = None) -> Result:
    """The article's beam search (width 10 by default), within ``deadline`` (None: no
    limit)."""
    dl = deadline if deadline is not None else Deadline(None)
    return _beam_search(m, rules or Rules(), width, False, "beam", dl)


def merged_beam(m: CityMap, rules: Rules | None = None, *, width: int = 10,
                deadline: Deadline | None = None) -> Result:
    """Beam search with sequences that reach the same open set merged, within ``deadline``
    (None: no limit)."""
    dl = deadline if deadline is not None else Deadline(None)
    return _beam_search(m, rules or Rules(), width, True, "merged-beam", dl)
