"""Death Run, the student's side solved exactly: a worst-case dynamic program over
(vertex, adversary budget left) and its certified upper bound (the ``robust`` bot,
:mod:`puzzleproof.players.deathrun_robust`, plays from it).

**The model.** One student walks from the begin; before each of its moves an adversary
holding the criminals' combined budget (200 at the start) may raise any links. Raising a
link ahead early never helps the adversary: it could hold the money and raise the same link
when the student stands at its tail, with the student then knowing less. So the adversary
spends ``s`` on the out-links of the student's vertex ``v`` just before the move, the student
takes the cheapest continuation, and the value is

    V(v, b) = max over s in [0, b] of  water(s; c(b - s)),    c_e(r) = w_e + V(head(e), r)

where ``water(s; c)`` is the continuous water-filling level: raising the cheapest
continuations to a common level ``L`` with ``sum(max(0, L - c_e)) = s``, equivalently
``min over m of (s + sum of the m smallest c) / m``. Real criminals (two links a round, all
students at once) are weaker than this adversary, so ``V`` bounds the student's cost
against *any* criminal play.

**Discretisation, in the safe direction.** The budget axis is cut into levels ``k*h``.
The upper table ``U(v, k)`` covers every real remainder ``r`` in ``((j-1)h, jh]`` by the
level ``j`` and lets the adversary spend one more step, ``(k-j+1)h``, than the grid would
(``water`` increases with ``s``; ``V`` increases with ``r``); so ``V(v, b) <= U(v, ceil(b/h))``
for every real ``b`` and every real-valued split. The lower table restricts the adversary to
spending multiples of ``h`` (any real split of them): an adversary strategy in the model, so
a lower bound of the model's value. ``integer_value`` is the exact value when every raise is
a whole number of units (the research's setting): the same recursion with the integer
water level ``floor(water)`` on integer weights.

**The robust student** (:class:`~puzzleproof.players.deathrun_robust.RobustStudent`) plays from ``U`` computed once on the base
weights. At vertex ``v`` it knows the remaining budget ``b`` (200 minus every update it has
seen), the raises ``x_e`` already on its out-links, and ``D(u)``, the raises already on the
links reachable from ``u``; it treats ``D(u)`` as budget still held (by the argument above
that is never better for the adversary) and moves to the ``u`` minimising
``w_e + x_e + U(u, ceil((b + D(u))/h))``. Then ``cost so far + U(v, ceil((b + D(v))/h))``
never increases, so the realised cost is at most ``U(begin, ceil(B/h))``: the certified
bound, for every criminal play, real-valued raises included.

>>> from puzzleproof.models.deathrun import make_graph
>>> g = make_graph([(0, 1, 1), (0, 2, 3), (1, 3, 1), (2, 3, 1)], 0, [3])
>>> t = robust_table(g, budget=4, step=1.0)  # the value is 6; the upper table pays one step
>>> float(t.bound()), float(t.lower_bound()), integer_value(g, 4)
(7.0, 6.0, 6)
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from puzzleproof.errors import InputError
from puzzleproof.clock import Deadline
from puzzleproof.sizes import over_limit
from puzzleproof.models.deathrun import Graph, nominal_distance
from puzzleproof.result import Result, Status

__all__ = ["RobustTable", "TableOutOfTime", "out_of_time", "robust_table", "integer_value", "water_level", "solve",
           "robust_choice", "grid_levels", "DEFAULT_BUDGET", "DEFAULT_STEP",
           "MAX_LEVELS"]

DEFAULT_BUDGET = 200.0
DEFAULT_STEP = 1.0
#: The most budget levels (``budget/step + 1``) a table may have (``--max-size`` lifts it):
#: the tables hold vertices x levels floats, and the time grows with links x levels^2
#: (2,001 levels: about 7 s on the 121-vertex sample graph, one core).
MAX_LEVELS = 2001
#: The cells (level x remainder) of one block of a vertex's DP work: about 2 MB per array,
#: a few milliseconds between two readings of the deadline, whatever the step.
BLOCK = 1 << 18


def grid_levels(budget: float, step: float) -> int:
    """``K``, the top level of the budget grid (``K + 1`` levels), checked against
    :data:`MAX_LEVELS` before anything is allocated: an :class:`InputError` naming the
    limit for a grid it cannot hold, a ``ValueError`` for a step or budget out of range.

    >>> grid_levels(200, 1.0)
    200
    >>> grid_levels(1e308, 1.0)
    Traceback (most recent call last):
    ...
    puzzleproof.errors.InputError: the budget grid (budget / step + 1 levels) is 1e+308, above the limit of 2,001; lift the limits deliberately with 'puzzleproof --max-size FACTOR ...' (or PUZZLEPROOF_MAX_SIZE=FACTOR)
    """
    if not (math.isfinite(step) and step > 0) or not (math.isfinite(budget) and budget >= 0):
        raise ValueError("step must be positive and budget non-negative, both finite")
    ratio = budget / step
    what = "the budget grid (budget / step + 1 levels)"
    if not math.isfinite(ratio) or ratio > 1e15:
        msg = over_limit(10**16, MAX_LEVELS, what)
        assert msg is not None
        raise InputError(msg.replace(f"{10**16:,}", f"{ratio + 1:.3g}"))
    K = math.ceil(ratio - 1e-12)
    msg = over_limit(K + 1, MAX_LEVELS, what)
    if msg:
        raise InputError(msg)
    return K


def water_level(s: float, costs: list[float]) -> float:
    """The continuous water level: the largest achievable minimum of ``costs`` after adding
    ``s`` in total (split freely).

    >>> water_level(3, [1, 2, 10])
    3.0
    """
    cs = sorted(costs)
    best = math.inf
    acc = 0.0
    for m, c in enumerate(cs, 1):
        acc += c
        best = min(best, (s + acc) / m)
    return best


class TableOutOfTime(Exception):
    """The deadline passed while a table was being filled (``done`` of ``total`` vertices):
    there is no bound."""

    def __init__(self, done: int, total: int) -> None:
        super().__init__(f"the time limit ran out with {done:,} of {total:,} vertices' "
                         f"tables filled")
        self.done, self.total = done, total


def _levels(g: Graph, K: int, step: float, kind: str,
            weight: dict[tuple[int, int], float] | None = None,
            deadline: Deadline | None = None) -> dict[int, np.ndarray]:
    """One DP table: ``kind`` is ``"upper"``, ``"lower"`` or ``"integer"`` (step 1, floor).
    The work is about links x levels^2 / 2, minutes on a large graph or a fine step: each
    vertex's (level k, remainder j <= k) work is done in blocks of about :data:`BLOCK` cells,
    so that memory stays vertices x levels whatever the step, and ``deadline`` is read before
    every block (:class:`TableOutOfTime` when it has passed)."""
    wt = g.weight if weight is None else weight
    table: dict[int, np.ndarray] = {}
    zeros = np.zeros(K + 1)
    rows = max(1, BLOCK // (K + 1))
    # each block's spends (the same at every vertex): kept while they are small
    keep = (K + 1) * (K + 2) // 2 <= 8 * BLOCK
    kept: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def spends(k0: int, k1: int) -> tuple[np.ndarray, np.ndarray]:
        if k0 in kept:
            return kept[k0]
        k_idx = np.arange(k0, k1)[:, None]
        j_idx = np.arange(k1)[None, :]  # j <= k < k1: the rest is never spent
        if kind == "upper":
            spend = np.where(j_idx == 0, k_idx, k_idx - j_idx + 1) * step
        else:
            spend = (k_idx - j_idx) * step
        valid = j_idx <= k_idx
        out = (np.where(valid, spend, 0.0), valid)
        if keep:
            kept[k0] = out
        return out

    for n, v in enumerate(reversed(g.topo)):
        outs = g.out[v]
        if v in g.end_set or not outs:
            table[v] = zeros if v in g.end_set else np.full(K + 1, np.inf)
            continue
        c = np.stack([wt[(v, u)] + table[u] for u, _ in outs])  # (d, K+1) by remainder j
        c.sort(axis=0)
        pref = np.cumsum(c, axis=0)  # (d, K+1)
        row = np.empty(K + 1)
        for k0 in range(0, K + 1, rows):
            if deadline is not None and deadline.expired():
                raise TableOutOfTime(n, len(g.topo))
            k1 = min(K + 1, k0 + rows)
            spend, valid = spends(k0, k1)
            best = spend + pref[0][None, :k1]  # (k by level, j by remainder): m = 1
            lvl = np.empty_like(best)
            for m in range(1, len(outs)):
                np.add(spend, pref[m][None, :k1], out=lvl)
                lvl /= m + 1
                np.minimum(best, lvl, out=best)
            if kind == "integer":
                best = np.floor(best + 1e-9)
            best[~valid] = -np.inf
            row[k0:k1] = best.max(axis=1)
        table[v] = row
    return table


@dataclass
class RobustTable:
    """The DP tables of one graph: ``upper[v][k]`` bounds the student's worst-case cost from
    ``v`` with ``k*step`` adversary budget left (certified); ``lower`` (if computed) is a
    lower bound of the model's value."""

    graph: Graph
    budget: float
    step: float
    K: int
    upper: dict[int, np.ndarray]
    lower: dict[int, np.ndarray] | None = None
    reach: dict[int, frozenset[int]] = field(default_factory=dict)

    def level(self, r: float) -> int:
        """The level covering remaining budget ``r`` (rounded up: the safe side)."""
        if r <= 0:
            return 0
        k = math.ceil(r / self.step)
        if k > self.K:
            if r <= self.K * self.step * (1 + 1e-12) + 1e-9:  # float noise only
                return self.K
            raise ValueError(f"remaining budget {r} exceeds the table's {self.budget}")
        return k

    def value(self, v: int, r: float) -> float:
        return float(self.upper[v][self.level(r)])

    def bound(self) -> float:
        return float(self.upper[self.graph.begin][self.K])

    def lower_bound(self) -> float | None:
        return None if self.lower is None else float(self.lower[self.graph.begin][self.K])


def _reach(g: Graph) -> dict[int, frozenset[int]]:
    r: dict[int, frozenset[int]] = {}
    for v in reversed(g.topo):
        acc = {v}
        for u, _ in g.out[v]:
            acc |= r[u]
        r[v] = frozenset(acc)
    return r


_CACHE: "OrderedDict[tuple, RobustTable]" = OrderedDict()


def robust_table(g: Graph, budget: float = DEFAULT_BUDGET, step: float = DEFAULT_STEP,
                 lower: bool = True, cache: bool = True,
                 deadline: Deadline | None = None) -> RobustTable:
    """The DP of the module docstring on ``g``'s base weights (``budget/step`` levels);
    :class:`TableOutOfTime` when ``deadline`` passes first."""
    key = (g.fingerprint(), budget, step, lower)
    if cache and key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    K = grid_levels(budget, step)
    up = _levels(g, K, step, "upper", deadline=deadline)
    lo = _levels(g, K, step, "lower", deadline=deadline) if lower else None
    t = RobustTable(g, budget, step, K, up, lo, _reach(g))
    if cache:
        _CACHE[key] = t
        while len(_CACHE) > 8:
            _CACHE.popitem(last=False)
    return t


def integer_value(g: Graph, budget_units: int, unit: float = 1.0) -> float:
    """The exact model value when every raise is a whole number of ``unit`` (weights must be
    whole multiples of ``unit``): adversary budget ``budget_units * unit``."""
    grid_levels(budget_units, 1.0)
    m = 1.0 / unit
    wt = {e: w * m for e, w in g.weight.items()}
    if any(abs(w - round(w)) > 1e-9 for w in wt.values()):
        raise ValueError("weights must be whole multiples of the unit")
    table = _levels(g, int(budget_units), 1.0, "integer", {e: round(w) for e, w in wt.items()})
    val = float(table[g.begin][int(budget_units)]) / m
    return int(val) if val.is_integer() else val


def robust_choice(t: RobustTable, v: int, raised: dict[tuple[int, int], float],
                  left: float) -> tuple[int, float]:
    """The robust move at ``v``: ``(next vertex, the guarantee of that choice)``, given the
    raises on every link so far (``raised``) and the adversary budget left."""
    g = t.graph
    best = None
    for u, w in g.out[v]:
        held = sum(x for (a, _b), x in raised.items() if x and a in t.reach[u])
        val = w + raised.get((v, u), 0) + t.value(u, left + held)
        if best is None or val < best[1] - 1e-12:
            best = (u, val)
    assert best is not None
    return best


def held_budget(t: RobustTable, v: int, raised: dict[tuple[int, int], float],
                left: float) -> float:
    """The budget the adversary holds against a student at ``v``: what is left plus what
    already sits on links reachable from ``v``."""
    return left + sum(x for (a, _b), x in raised.items() if x and a in t.reach[v])


def solve(g: Graph, *, budget: float = DEFAULT_BUDGET, step: float = DEFAULT_STEP,
          seed: int | None = None, deadline: Deadline | None = None,
          table: RobustTable | None = None) -> Result:
    """The robust bound and policy from the start (``solve deathrun GRAPH``).

    ``answer``: the certified upper bound on a student's cost against any criminal play with
    combined budget ``budget``, the model's lower bound, the nominal shortest path, the
    robust first move and the path the policy takes if nothing is raised. Status OPTIMAL
    when the two bounds meet, else SOLVED (the bound is certified, the gap is the grid's);
    UNKNOWN when the deadline (None: no limit) passes first. ``table``:
    the graph's tables (with the lower one) when the caller made them already.
    """
    t0 = time.monotonic()
    clock = deadline if deadline is not None else Deadline(None)
    try:
        t = table or robust_table(g, budget, step, lower=True, cache=False, deadline=clock)
    except TableOutOfTime as stop:
        return out_of_time(stop, clock, budget, step, seed, t0)
    up, lo = t.bound(), t.lower_bound()
    path = [g.begin]
    v = g.begin
    while v not in g.end_set:
        v, _ = robust_choice(t, v, {}, budget)
        path.append(v)
    answer = {"upper_bound": up, "lower_bound": lo, "nominal": nominal_distance(g),
              "budget": budget, "step": step, "first_move": path[1],
              "path_if_nothing_raised": path}
    status = Status.OPTIMAL if lo is not None and up - lo <= 1e-9 else Status.SOLVED
    return Result("deathrun", status, answer,
                  certificate={"method": "worst-case DP over (vertex, budget level); upper "
                               "table rounds remainders up and spends one extra step",
                               "levels": t.K + 1},
                  solver="deathrun-robust-dp", solver_version="1",
                  params={"budget": budget, "step": step}, seed=seed,
                  wall_time=time.monotonic() - t0, stats={"vertices": len(g.vertices),
                                                          "levels": t.K + 1})


def out_of_time(stop: TableOutOfTime, clock: Deadline, budget: float, step: float,
                seed: int | None, t0: float) -> Result:
    """The UNKNOWN of a robust bound whose tables the deadline cut short."""
    return Result("deathrun", Status.UNKNOWN, None,
                  certificate={"note": f"time limit ({clock.limit:g} s) reached with "
                                       f"{stop.done:,} of {stop.total:,} vertices' tables "
                                       f"filled"},
                  solver="deathrun-robust-dp", solver_version="1",
                  params={"budget": budget, "step": step}, seed=seed,
                  wall_time=time.monotonic() - t0)
