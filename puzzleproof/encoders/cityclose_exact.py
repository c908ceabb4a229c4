"""City closing solved exactly: a layered DP over connected sets in compiled code, pruned.

The method (``--method exact``, the default of ``solve``):

- States are the connected sets of open cities; layer ``j`` holds the sets of ``n - j``
  cities that some legal sequence reaches, each with ``f(S)``, the least sum of Wiener numbers
  from the full map down to ``S`` (``S`` included). Layer ``j + 1`` is made from layer ``j``
  by closing every closable city (not kept, the map stays connected, no forbidden path
  shape); a child keeps the least ``f`` of its parents, then adds its own Wiener number. Only
  the layer being made and the one it is made from are hash tables; earlier layers are kept
  as sorted arrays of ``(set, f)`` to trace the optimal order back at the end.
- A set is one 64-bit word on maps of up to 63 cities and a row of ``ceil(n / 64)`` words
  beyond: no ceiling on the map's size. The kernels
  (:mod:`puzzleproof.encoders.cityclose_layers`) are written once and compiled for both
  (``engine="word"`` or ``"wide"`` forces one; the tests check them against each other).
  Connectivity and Wiener numbers are bit-set BFS in numba-compiled loops, in parallel over
  the states of a large layer.
- Symmetry: twins (cities with the same neighbours besides each other) are closed in index
  order (:func:`twin_blocks`): swapping twins maps every sequence onto one as good.
- Pruning (admissible, so the result stays exact): a state is dropped when
  ``f(S) + h(S) >= UB``, ties included (only a strictly better order matters), where ``UB``
  is the total of the incumbent order (the caller's: the command passes its merged beam,
  widened while it improves; without one the compiled greedy order) and ``h(S)`` is a lower
  bound on the Wiener numbers still to come (:mod:`puzzleproof.encoders.cityclose_bounds`),
  a sum over every later size ``i`` of the largest of these bounds on the least Wiener number
  of a connected ``T`` of ``i`` cities inside ``S``:

  * the least Wiener number of a connected set of ``i`` cities of the whole map, by branch
    and bound (:mod:`puzzleproof.encoders.cityclose_minima`, exact where it finishes, the
    least bound of its open nodes where not), raised for the sizes it does not finish by a
    Lagrangian relaxation of the pair sum (:mod:`puzzleproof.encoders.cityclose_lagrange`;
    see :func:`_bound_tables`). This is the bound that matters on large maps: summed over
    the sizes it is the root's bound, a fraction of a per cent below the optimum on the
    shipped maps (``benchmarks/cityclose.py --scale`` prints it beside the totals);
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
  "pruned", "layer_peak", "root_bound", "closed_by"}``. OPTIMAL when every layer was made
  (the optimum is the least ``f`` of the last layer), when everything better than the
  incumbent was pruned, or when the proved lower bound ``min(UB, min over the last complete
  layer of f(S) + h(S))`` (the root's bound before any layer) meets the incumbent, however
  the search stopped: ``closed_by`` names which (:data:`CLOSED_BY`). Otherwise a time limit
  or a state cap gives UNKNOWN with the incumbent order and that bound. The statistics
  carry the set-up times, the branch and bound's nodes and, per layer, the states kept,
  the seconds and the bound.
- Time: one :class:`~puzzleproof.clock.Deadline` bounds the whole run. The incumbent gets
  half of the time left, the compiled greedy fallback a quarter of what is left then, the
  bound tables half of what is left after that (their branch and bound reads the clock every
  few thousand nodes), and the layers the rest, made in slices of about 0.05 s with the clock
  read between them. A map proved in half a limit without one is therefore proved within the
  limit (each step gets at least what it took), and the search never stops while time is
  left.
"""

from __future__ import annotations

import resource
import time
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from puzzleproof.clock import Deadline
from puzzleproof.encoders.cityclose_bounds import distance_matrix
from puzzleproof.encoders.cityclose_graph import csr, greedy_order, wiener_open
from puzzleproof.encoders.cityclose_lagrange import pair_sum_bounds
from puzzleproof.encoders.cityclose_layers import Kernels
from puzzleproof.encoders.cityclose_minima import min_wiener_by_size, search_tables
from puzzleproof.encoders.cityclose_rows import words
from puzzleproof.models.cityclose import (CityMap, Rules, answer_of, forbidden_shape, prepare,
                                          score_order)
from puzzleproof.result import Result, Status

__all__ = ["solve", "first_order", "twin_blocks", "wiener_sequence", "MAX_WORD_CITIES",
           "Incumbent", "ENGINES"]

#: how an OPTIMAL result names its proof (the certificate's ``closed_by``): every layer made;
#: every state pruned by the bound against the incumbent; the root's bound (the per-size
#: bounds of the whole sequence) or the least bound of the last layer made meeting the
#: incumbent's total before the search ended
CLOSED_BY = {"layers": "every layer made (the least total of the last layer)",
             "pruned": "every state pruned: none can beat the incumbent",
             "root": "the root's lower bound meets the incumbent's total",
             "layer": "the last complete layer's lower bound meets the incumbent's total"}

#: the kernels ``solve(engine=...)`` runs on: word sets up to 63 cities and wide sets beyond
#: (``"auto"``), or either one on every map it can take
ENGINES = ("auto", "word", "wide")

#: the word-set kernels take maps of up to this many cities; wider maps use the wide-set ones
MAX_WORD_CITIES = 63

#: seconds the compiled greedy order may take past the incumbent's share (well within the
#: limit's promised slack of 0.2 s)
_GRACE = 0.05
#: the nodes each size's branch and bound gets first on a map wider than a word
_QUICK_NODES = 10_000
#: the largest maps the per-size branch and bound and the Lagrangian bound run on: their
#: tables grow as cities x diameter x words and as cities^2 (128 MB and 300 MB at these)
_SEARCH_MAX_CITIES = 1_000
_LAGRANGE_MAX_CITIES = 2_500
#: the root of the layers is made past the deadline up to this many cities (milliseconds)
_LATE_ROOT_MAX_CITIES = 1_000
#: the layers kept for the trace back hold at most this many times ``max_states`` states
_STORED = 4
#: states handled between two looks at the clock, at most
_SLICE = 1 << 17
#: seconds a slice should take
_SLICE_S = 0.05


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
            # the first slice is one state: on a map of thousands of cities one state's
            # bound takes up to a second
            size = 1 if self.per_state is None else int(_SLICE_S / max(self.per_state, 1e-9))
            hi = min(total, lo + max(1, min(size, _SLICE)))
            t = time.monotonic()
            yield lo, hi
            self.per_state = (time.monotonic() - t) / (hi - lo)
            lo = hi


def _bound_tables(m: CityMap, rules: Rules, minima: bool, known: np.ndarray | None,
                  deadline: Deadline | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """Bound tables: link counts, two-link paths and a lower bound on the least Wiener number
    of a connected set of each size (the least over all connected sets bounds the least over
    the sets that the rules allow).

    The per-size minima come from two sources: the branch and bound of
    :mod:`puzzleproof.encoders.cityclose_bounds` (exact where it finishes) and the Lagrangian
    bound of :mod:`puzzleproof.encoders.cityclose_lagrange`. On word-set maps the branch and
    bound runs first, within half of ``deadline``: it is the stronger and quicker there and
    usually finishes every size; the sizes it leaves get the Lagrangian bound in the time
    left. On larger maps it finishes only the smallest and largest sizes (on the world's 157
    countries: up to 17 and from about 150), so it is tried briefly first
    (:func:`_wide_minima`).
    ``known`` (index = size) holds Wiener numbers of sets known, upper bounds both searches
    aim at. A size bounded by neither keeps 0: the bound is weaker, never wrong."""
    n = m.n
    dl = deadline if deadline is not None else Deadline(None)
    deg = np.array(sorted((bin(a).count("1") for a in m.adj), reverse=True), dtype=np.int64)
    sizes = np.arange(n + 1, dtype=np.int64)
    top = np.concatenate(([0], np.cumsum(deg)))  # top[i]: the degrees of the i busiest
    emax = np.minimum(np.minimum(sizes * (sizes - 1) // 2, top // 2), len(m.links))
    p2max = np.concatenate(([0], np.cumsum(deg * (deg - 1) // 2)))
    lbmin = np.zeros(n + 1, dtype=np.int64)
    stats: dict[int, tuple[int, float, bool]] = {}
    lagrange: dict[str, Any] = {}
    lo = max(1, rules.final_size)
    if minima and 2 <= n <= MAX_WORD_CITIES:
        exact, lbmin, stats = min_wiener_by_size(m.adj, lo, n - 1, deadline=dl.share(0.5),
                                                 known=known)
        lbmin = np.maximum(lbmin, 0)
        unfinished = [s for s in range(max(lo, 2), n) if exact[s] < 0]
        if unfinished and not dl.expired():
            lag, lagrange = _lagrange(distance_matrix(m.adj), unfinished, known, dl)
            lbmin = np.maximum(lbmin, lag)
    elif minima and n > MAX_WORD_CITIES:
        lbmin, stats, lagrange = _wide_minima(m, lo, known, dl)
    return emax, p2max, lbmin, {"sizes": stats, "lagrange": lagrange}


def _wide_minima(m: CityMap, lo: int, known: np.ndarray | None, dl: Deadline
                 ) -> tuple[np.ndarray, dict, dict[str, Any]]:
    """The per-size bounds of a map wider than a word: a quick branch and bound
    (:data:`_QUICK_NODES` nodes a size) settles the sizes that are easy (all of them on a
    path or a cycle), the Lagrangian bound the others, and the branch and bound goes on, in
    the time left, with the sizes whose bound is still below ``known``. On maps too large
    for their tables (:data:`_SEARCH_MAX_CITIES`, :data:`_LAGRANGE_MAX_CITIES`) the sizes
    keep 0: the bound is weaker, the memory bounded."""
    n = m.n
    lagrange: dict[str, Any] = {}
    if n > _LAGRANGE_MAX_CITIES:
        return np.zeros(n + 1, dtype=np.int64), {}, {"skipped": f"more than "
                                                     f"{_LAGRANGE_MAX_CITIES} cities"}
    searched = n <= _SEARCH_MAX_CITIES
    if searched:
        tables = search_tables(m.adj)  # once, for both searches and the Lagrangian bound
        dist = tables[1]
        exact, lower, stats = min_wiener_by_size(
            m.adj, lo, n - 1, known=known, deadline=dl.share(0.25), cap=_QUICK_NODES,
            tables=tables)
    else:
        dist = distance_matrix(m.adj)
        exact, lower, stats = np.full(n + 1, -1), np.zeros(n + 1, dtype=np.int64), {}
    open_sizes = [s for s in range(max(lo, 2), n) if exact[s] < 0]
    if open_sizes and not dl.expired():
        lag, lagrange = _lagrange(dist, open_sizes, known, dl.share(0.5))
        lower = np.maximum(lower, lag)
    left = {s for s in open_sizes if known is None or not 0 <= known[s] <= lower[s]}
    if left and searched and not dl.expired():
        _, more, more_stats = min_wiener_by_size(m.adj, lo, n - 1, deadline=dl, known=known,
                                                 only=left, tables=tables)
        lower = np.maximum(lower, more)
        stats.update(more_stats)
    return lower, stats, lagrange


def _lagrange(dist: np.ndarray, sizes, known: np.ndarray | None, deadline: Deadline
              ) -> tuple[np.ndarray, dict[str, Any]]:
    """The Lagrangian bounds of ``sizes`` (``dist``: the map's distance matrix) and their
    statistics (sizes bounded, seconds)."""
    t = time.monotonic()
    lag, info = pair_sum_bounds(dist, sizes, known, deadline=deadline)
    info["seconds"] = round(time.monotonic() - t, 2)
    return lag, info


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def twin_blocks(m: CityMap, keep: int = 0) -> list[int]:
    """Symmetry: per city, the twins of lower index it must wait for (a bit mask).

    Twins are cities with the same neighbours (besides each other): swapping two twins maps
    the map onto itself, and every sequence of maps onto an equally good one. So among a class
    of twins an optimal order may close them in index order, and a twin is not closed while
    a twin of lower index is still open. Kept cities are nobody's twins (the rule tells them
    apart); the shape rules do not (they look at shapes only). A star's leaves and a
    complete map's cities are such classes: their search becomes a line.

    >>> twin_blocks(CityMap(("hub", "a", "b", "c"), ((0, 1), (0, 2), (0, 3))))
    [0, 0, 2, 6]
    """
    # u and v are twins when they are not linked and have the same neighbours, or linked
    # and have the same neighbours counting themselves: one pass grouping by either key
    adj = m.adj
    groups: dict[tuple[bool, int], list[int]] = {}
    for v in range(m.n):
        if not keep >> v & 1:
            groups.setdefault((False, adj[v]), []).append(v)
            groups.setdefault((True, adj[v] | 1 << v), []).append(v)
    out = [0] * m.n
    for members in groups.values():
        lower = 0
        for v in members:  # in index order
            out[v] |= lower
            lower |= 1 << v
    return out


#: an incumbent: an order (city indices), or a callable given the deadline of its share of the
#: limit that returns one or None
Incumbent = Union[Sequence[int], Callable[[Deadline], Optional[Sequence[int]]], None]


def first_order(m: CityMap, rules: Rules, incumbent: Incumbent, deadline: Deadline
                ) -> tuple[list[int] | None, int | None]:
    """The first upper bound of an exact search and its total: the given order, else the
    callable's (given half the time left), else the compiled greedy order (within a quarter
    of what is left then, or :data:`_GRACE` seconds when that is less: it takes milliseconds
    on maps of tens of cities, and a limit that loading the code nearly used up would
    otherwise end with no order at all); ``(None, None)`` when none keeps the rules in
    time."""
    order = incumbent(deadline.share(0.5)) if callable(incumbent) else incumbent
    if order is not None:
        chk = score_order(m, list(order), rules)
        if chk.ok:
            return [int(v) for v in order], chk.total
    fallback = deadline.share(0.25)
    if fallback.at is not None:  # a short grace: an order says more than none
        fallback = Deadline(deadline.limit, at=max(fallback.at, time.monotonic() + _GRACE))
    order = greedy_order(m, rules, fallback)
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
    :class:`~puzzleproof.clock.Deadline`."""

    def __init__(self, m: CityMap, rules: Rules, deadline: Deadline, max_states: int,
                 minima: bool, bound: str, engine: str = "auto") -> None:
        if bound not in ("dist", "simple"):
            raise ValueError(f"bound must be 'dist' or 'simple', not {bound!r}")
        self.m, self.rules = m, rules
        self.t0 = time.monotonic()
        self.dl = deadline
        # a state of a wide map takes ceil(n / 64) words: the caps count words, not states
        self.max_states = max(1, max_states // words(m.n))
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
        wide = engine == "wide" or (engine == "auto" and m.n > MAX_WORD_CITIES)
        self.k = Kernels(m, rules, self.keep_mask, twin_blocks(m, self.keep_mask), rows=wide)
        #: keep only this many states a layer (the best by f + h): a heuristic, not a proof
        self.beam: int | None = None
        #: the layers kept, once the root is made
        self.layers: _Layers | None = None

    # -- set-up ------------------------------------------------------------------------------

    def incumbent(self, incumbent: Incumbent) -> None:
        """The first upper bound (:func:`first_order`)."""
        self.ub_order, self.ub = first_order(self.m, self.rules, incumbent, self.dl)
        self.extra["setup_s"] = {"incumbent": round(time.monotonic() - self.t0, 2)}

    def bound_tables(self) -> None:
        """The bound tables, within half the time left (so that a map proved in half a
        limit without one is proved within it: each step gets at least what it took then)."""
        m = self.m
        known = None
        if self.ub_order is not None:  # the incumbent's maps are connected sets of every size
            known = np.full(m.n + 1, -1, dtype=np.int64)
            for t, w in enumerate(wiener_sequence(m, self.ub_order)):
                known[m.n - t] = w
        self.emax, self.p2max, self.lbmin, stats = _bound_tables(
            m, self.rules, self.minima, known, self.dl.share(0.5))
        sizes = stats["sizes"]
        self.extra["minima"] = {"sizes_done": sum(1 for v in sizes.values() if v[2]),
                                "nodes": sum(v[0] for v in sizes.values()),
                                "lagrange": stats["lagrange"]}
        self.extra["setup_s"]["bounds"] = round(time.monotonic() - self.t0, 2)
        self.k.set_bounds(self.emax, self.p2max, self.lbmin, self.use_dist)

    # -- the layers --------------------------------------------------------------------------

    def children(self, keys: np.ndarray, vals: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray] | None:
        """Every child of the layer with its least parent value, made in slices between
        looks at the clock; None when the deadline passed first."""
        bits = 10
        expect = int(min(max(keys.shape[0] * 2, 1024), self.max_states * 2))
        while (1 << bits) < 2 * expect:
            bits += 1
        table = self.k.new_table(bits)
        for lo, hi in self.expand.slices(keys.shape[0], self.dl):
            table = self.k.insert(table, keys[lo:hi], vals[lo:hi])
        if self.dl.expired():
            return None
        return self.k.items(table)

    def layer(self, keys: np.ndarray, vals: np.ndarray, size: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int] | None:
        """The next layer of ``(keys, vals)``: its states (sorted), their ``f``, their
        ``f + h``, and the number of children; None when the deadline passed first."""
        made = self.children(keys, vals)
        if made is None:
            return None
        ckeys, cvals = made
        ub = self.ub if self.ub is not None else (1 << 62)  # ties with it are pruned
        parts = []
        for lo, hi in self.finish.slices(ckeys.shape[0], self.dl):
            parts.append(self.k.finish(ckeys[lo:hi], cvals[lo:hi], size, ub,
                                       parallel=hi - lo >= 2048))
        if self.dl.expired():
            return None
        newv = np.concatenate([p[0] for p in parts]) if parts else cvals
        est = np.concatenate([p[1] for p in parts]) if parts else cvals
        keepit = newv >= 0
        self.layers.pruned += int(np.count_nonzero(newv == -2))
        keys, vals, est = ckeys[keepit], newv[keepit], est[keepit]
        if self.beam is not None and keys.shape[0] > self.beam:
            best = np.argsort(est, kind="stable")[:self.beam]
            keys, vals, est = keys[best], vals[best], est[best]
        ix = self.k.order(keys)
        return keys[ix], vals[ix], est[ix], int(ckeys.shape[0])

    def root_too_late(self) -> bool:
        """Whether the deadline passed and the root's next step is dear: its steps take
        milliseconds and give the proved bound, so they are made even after the deadline,
        except on maps of more than :data:`_LATE_ROOT_MAX_CITIES` cities, where each takes
        a second or more."""
        return self.m.n > _LATE_ROOT_MAX_CITIES and self.dl.expired()

    def search(self) -> str | None:
        """Make the layers one by one; the reason it stopped early, or None."""
        m = self.m
        late = "time limit before the first layer"
        if self.root_too_late():
            return late
        keys, vals = self.k.root()
        if self.root_too_late():
            return late
        self.k.compile(keys, vals)
        if self.root_too_late():
            return late
        self.root_bound = int(vals[0]) + self.k.root_h()
        self.layers = L = _Layers(keys, vals)
        for step in range(1, self.closings + 1):
            now = time.monotonic()
            made = self.layer(keys, vals, m.n - step)
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
            if L.states > _STORED * self.max_states:
                return (f"the layers kept for the trace back hold {L.states} states (cap "
                        f"{_STORED * self.max_states})")
        return None

    # -- the result --------------------------------------------------------------------------

    def result(self, stopped: str | None) -> Result:
        """OPTIMAL when every layer was made, when everything better than the incumbent was
        pruned, or when the proved lower bound meets the incumbent however the search
        stopped; INFEASIBLE when every state broke a rule; else UNKNOWN with both bounds.
        The certificate names the proof (``closed_by``)."""
        m, L = self.m, self.layers
        if L is None:  # stopped before the root: no bound yet
            return self.done(Status.UNKNOWN, self.ub_order, None, self.ub, stopped)
        keys, vals = L.stored[-1]
        if stopped is None and len(L.stored) == self.closings + 1 and keys.shape[0] > 0:
            # complete: the least f of the last layer (anything pruned was worse than ub)
            j = int(np.argmin(vals))
            if self.ub is not None and self.ub <= int(vals[j]):
                order = self.ub_order
            else:
                order = self.k.trace(L.stored, j)
            total = sum(wiener_sequence(m, order))
            return self.done(Status.OPTIMAL, order, total, total, None,
                             closed_by=CLOSED_BY["layers"])
        if stopped is None:
            # every state died: pruned ones were worse than the incumbent, the rest broke rules
            if self.ub is not None:
                return self.done(Status.OPTIMAL, self.ub_order, self.ub, self.ub, None,
                                 closed_by=CLOSED_BY["pruned"])
            return self.done(Status.INFEASIBLE, None, None, None, "no order keeps the rules")
        ub_val = self.ub if self.ub is not None else (1 << 62)
        lb = self.root_bound if self.live_lb is None else min(self.live_lb, ub_val)
        if self.ub is not None and lb is not None and lb >= self.ub:
            # the bound meets a checked order: optimal, whatever stopped the search
            which = "root" if self.live_lb is None else "layer"
            return self.done(Status.OPTIMAL, self.ub_order, self.ub, self.ub, None,
                             closed_by=CLOSED_BY[which], stopped=stopped)
        return self.done(Status.UNKNOWN, self.ub_order, lb, self.ub, stopped)

    def done(self, status: Status, order: list[int] | None, lb: int | None, ub: int | None,
             reason: str | None, *, closed_by: str | None = None,
             stopped: str | None = None) -> Result:
        """The result; ``closed_by`` names the proof of an optimum, ``stopped`` what ended a
        search whose bound closed it anyway."""
        m = self.m
        L = self.layers or _Layers(np.zeros(0, np.uint64), np.zeros(0, np.int64))
        answer = None if order is None else answer_of(m, order, wiener_sequence(m, order))
        gap = None
        if lb is not None and ub is not None and ub > 0:
            gap = (ub - lb) / ub
        cert = {"method": "exact-dp", "lower_bound": lb, "upper_bound": ub, "gap": gap,
                "states": L.states, "pruned": L.pruned, "layer_peak": L.peak,
                "root_bound": self.root_bound}
        if closed_by:
            cert["closed_by"] = closed_by
        stats: dict[str, Any] = {"states": L.states, "pruned": L.pruned, "layer_peak": L.peak,
                                 "peak_rss_mb": round(_peak_rss_mb(), 1)}
        if reason:
            stats["reason"] = reason
        if stopped:
            stats["stopped"] = stopped
        stats.update(self.extra)
        stats["layers"] = L.trace
        return Result("cityclose", status, answer, cert, solver="exact-dp",
                      solver_version=_numba_version(), params=self.params,
                      wall_time=time.monotonic() - self.t0, stats=stats, instance=m.name)


def solve(m: CityMap, rules: Rules | None = None, *, deadline: Deadline | None = None,
          incumbent: Incumbent = None,
          max_states: int = 12_000_000, minima: bool = True, bound: str = "dist",
          engine: str = "auto", seed: int = 0) -> Result:
    """The proved optimal order of ``m`` under ``rules`` (see the module docstring).

    ``deadline`` (a :class:`~puzzleproof.clock.Deadline` made when the task started; None:
    no limit) bounds everything the run does. ``incumbent`` is the first upper
    bound: an order (city indices), or a callable that returns one (the caller's heuristic,
    given the deadline of its share: half the time left); without one, or when it
    fails, the compiled greedy order. ``max_states`` caps the states of one layer (divided by
    the words a state takes on a wide map; the layers kept hold at most four times that;
    about 40 bytes a state while a layer is made); ``minima`` searches the exact least Wiener
    number of every size first; ``bound`` is ``"dist"`` (the distance bounds of the module
    docstring) or ``"simple"`` (link counts and per-size minima only; the wide-set kernels
    always use the distances). ``engine`` picks the kernels (:data:`ENGINES`). Returns
    OPTIMAL, INFEASIBLE (proved: no order keeps the rules) or UNKNOWN with the best order and
    both bounds.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")
    if engine == "word" and m.n > MAX_WORD_CITIES:
        raise ValueError(f"the word-set kernels take at most {MAX_WORD_CITIES} cities")
    dl = deadline if deadline is not None else Deadline(None)
    run = _ExactRun(m, rules or Rules(), dl, max_states, minima, bound, engine)
    run.incumbent(incumbent)
    run.bound_tables()
    if forbidden_shape(m.adj, m.full_mask, run.rules, final=run.closings == 0):
        return run.done(Status.INFEASIBLE, None, None, None, "the full map breaks a shape rule")
    return run.result(run.search())


def wiener_sequence(m: CityMap, order: list[int]) -> list[int]:
    """The Wiener numbers of the maps along ``order`` (an order already checked), by the
    compiled BFS: the model's takes seconds a map on thousands of cities. The answer built
    from them is checked again by the model (:func:`~puzzleproof.models.cityclose.
    score_order`) where the method's result is."""
    indptr, indices = csr(m)
    alive = np.ones(m.n, dtype=np.bool_)
    queue = np.empty(m.n, dtype=np.int64)
    dist = np.empty(m.n, dtype=np.int64)
    out = [int(wiener_open(indptr, indices, alive, queue, dist))]
    for v in order:
        alive[v] = False
        out.append(int(wiener_open(indptr, indices, alive, queue, dist)))
    return out


def _numba_version() -> str:
    try:
        import numba
        return f"numba {numba.__version__}"
    except ImportError:  # pragma: no cover
        return "python"
