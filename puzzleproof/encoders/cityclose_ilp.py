"""City closing as an integer program over removal orders (OR-Tools CP-SAT, or SCIP or HiGHS
through OR-Tools MathOpt).

Variables and constraints, for a map of ``n`` cities, ``T = n - k`` closings and the maps
``t = 0..T`` (``s_t = n - t`` open cities):

- ``x[v, t]``: city ``v`` open after ``t`` closings; ``x[v, 0] = 1``, ``x[v, t] <= x[v, t-1]``,
  ``sum_v x[v, t] = s_t``; kept cities stay open.
- Connectivity, by the closing-neighbour constraint: a city closed at step ``t`` has an open
  neighbour right after: ``x[v, t-1] - x[v, t] <= sum_{u in N(v)} x[u, t]``. With a connected
  final map this makes every map connected; the final map's connectivity (needed for
  ``k >= 2``) comes from the distance model below, which requires every open pair to be
  within the distance bound.
- Distances in the shrinking map, exactly, by the recursive "distance at most l" formulation
  of Veremyev, Prokopyev & Pasiliao (Networks 2015): ``p[u, v, t] = x[u, t] AND x[v, t]``;
  ``y[l, u, v, t] <= p`` says "``u`` and ``v`` are open and at most ``l`` apart", with
  ``y[l, u, v, t] <= y[l-1, u, v, t] + sum_{w in N(u)} y[l-1, w, v, t]`` (``y[0, v, v] =
  x[v]``). Minimisation pushes each ``y`` up to the truth, so the distance of an open pair is
  ``D_t - sum_{l < D_t} y[l]`` and ``W_t = sum_pairs (D_t p - sum_{l=1}^{D_t-1} y[l])``, with
  ``y[D_t] = p`` (every open pair within ``D_t``). ``y[l]`` is fixed to 0 below the pair's
  distance in the full map (closing cities never shortens a path).
- The distance bound of the shrinking map ``D_t`` is not the full map's diameter (distances
  grow as cities close): ``D_t = s_t - 1``, lowered when an incumbent of total ``UB`` is known:
  a shortest path of ``d`` links alone contributes ``C(d+2, 3)`` to ``W_t``, and the other maps
  need at least ``s(s-1)/2`` each, so ``C(D_t+2, 3) <= UB - sum_{t' != t} s_t'(s_t'-1)/2``.
  Orders worse than the incumbent may be cut off; the incumbent itself stays feasible.
- ``no_paths`` / ``final_not_path``: a map of ``s >= K`` cities is not a path: it has ``s``
  links or more, or a city with three open neighbours (one Boolean each, an OR over them;
  for a MIP solver the enforced ``sum >= s`` is ``sum >= s * many``).
- Warm start: the incumbent order (the caller's: the command passes its merged beam; without
  one the compiled greedy order) as a complete hint (``x``, ``p``, ``y`` and the path-rule
  Booleans; a solution hint for MathOpt).

The formulation is written once (``build_model``) against a small adapter: new Boolean,
linear constraint, fixed value, implication, OR of literals, enforced ``>=``, objective,
hint; ``_CpSatModel`` and ``_MathOptModel`` implement it. ``solve(backend=...)`` takes
``"cp-sat"`` (result method ``ilp-cpsat``), ``"scip"`` (``ilp-scip``) or ``"highs"``
(``ilp-highs``). Under a time limit a MathOpt solve runs in a forked process killed at the
limit (the solvers' own limit was passed by up to a second on 14-city maps; the solver's
bound is then lost and the trivial one reported).

Why CP-SAT stays the default: it is an order of magnitude quicker on the small maps the
cross-checks run in bulk, while the MIP solvers' linear relaxation with their cuts gives a
bound where CP-SAT's bound search gets nowhere (on maps like the 11-city roundabout its bound
stays at the trivial ``sum s(s-1)/2``). Neither back end is better everywhere, so
``backend="scip"`` (``--method ilp-scip``) is the one to use for a bound, or a proof on maps
like the roundabout; ``benchmarks/cityclose.py`` (ILP section) compares them. Building the
model is Python and grows as ``n^2 * T * D`` (seconds on a map of 30 cities), so a short
time limit on a large map ends while building (UNKNOWN with the warm start and the trivial
bound, or OPTIMAL when the trivial bound meets the warm start).

A map whose model would exceed :data:`MAX_VARIABLES` Booleans (counted before building) is
refused at once with UNKNOWN, the warm start and the trivial bound: the formulation does not
reach that far (europe41 is within it, the world's 157 countries a hundred times over).

Statuses, the same for every back end: OPTIMAL when the proved bound (the solver's, rounded
up with a 1e-6 tolerance, never below the trivial one) meets the order, re-scored by the
model, whatever stopped the solve; the certificate's ``closed_by`` names the bound
(:data:`SOLVER_BOUND` or :data:`TRIVIAL_BOUND`). Otherwise a time limit gives UNKNOWN with
the best order (the solver's, or the warm start) and both bounds and the gap; INFEASIBLE
only when there was no warm start.
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

from puzzleproof.models.cityclose import (CityMap, Rules, answer_of, forbidden_shape, prepare,
                                          score_order, wiener_mask)
from puzzleproof.clock import Deadline
from puzzleproof.result import Result, Status

__all__ = ["solve", "build_model", "model_size", "BACKENDS", "MAX_VARIABLES"]


def _full_distances(m: CityMap) -> list[list[int]]:
    n = m.n
    inf = n + 1
    dist = [[inf] * n for _ in range(n)]
    for s in range(n):
        dist[s][s] = 0
        frontier = [s]
        d = 0
        while frontier:
            d += 1
            nxt = []
            for u in frontier:
                for w in m.neighbours(u):
                    if dist[s][w] == inf:
                        dist[s][w] = d
                        nxt.append(w)
            frontier = nxt
    return dist


def _distance_bounds(n: int, closings: int, ub: int | None) -> list[int]:
    sizes = [n - t for t in range(closings + 1)]
    out = []
    lbs = [s * (s - 1) // 2 for s in sizes]
    total_lb = sum(lbs)
    for t, s in enumerate(sizes):
        d = max(s - 1, 0)
        if ub is not None:
            room = ub - (total_lb - lbs[t])
            dd = 0
            while math.comb(dd + 3, 3) <= room:
                dd += 1
            d = min(d, max(dd, 1))
        out.append(d)
    return out


class _OutOfTime(Exception):
    pass


#: the most Booleans a model may have (about 1 KB of memory each while it is built)
MAX_VARIABLES = 1_000_000


def model_size(m: CityMap, rules: Rules, ub: int | None) -> int:
    """The number of ``x``, ``p`` and ``y`` Booleans :func:`build_model` would make (counted,
    not built), so that a map too large for the formulation is refused before memory is
    spent on it. When the ``x`` alone (one per city and step) pass :data:`MAX_VARIABLES`,
    their count is returned at once: the distances would take minutes on thousands of
    cities."""
    from collections import Counter

    closings = m.n - rules.final_size
    if m.n * (closings + 1) > MAX_VARIABLES:
        return m.n * (closings + 1)
    dist = _full_distances(m)
    pairs = Counter(max(dist[u][v], 1) for u in range(m.n) for v in range(u + 1, m.n))
    total = m.n * (closings + 1)
    for t, D in enumerate(_distance_bounds(m.n, closings, ub)):
        if t == 0 or m.n - t <= 1:
            continue
        total += sum(c * (1 + max(0, D - d)) for d, c in pairs.items() if d <= D) + sum(
            c for d, c in pairs.items() if d > D)
    return total


#: the back ends by name: (the name in results, the MathOpt solver or None for CP-SAT)
BACKENDS = {"cp-sat": "ilp-cpsat", "scip": "ilp-scip", "highs": "ilp-highs"}


@dataclass
class _Outcome:
    """What a back end's solve gives the common code: a solution's values (``value(var)``,
    0 or 1), the proved lower bound on the objective (or None), or "infeasible"."""

    kind: str  # "solution", "infeasible" or "none"
    value: Callable[[Any], int] | None
    bound: float | None
    stats: dict[str, Any]


class _CpSatModel:
    """The operations ``build_model`` uses, for CP-SAT: literals, linear constraints,
    implications, ORs of literals, an enforced ``>=``, the objective and the hint."""

    def __init__(self) -> None:
        from ortools.sat.python import cp_model

        self.model = cp_model.CpModel()

    def new_bool(self, name: str) -> Any:
        return self.model.new_bool_var(name)

    def neg(self, var: Any) -> Any:
        return var.Not()

    def add(self, constraint: Any) -> None:
        self.model.add(constraint)

    def fix(self, var: Any, value: int) -> None:
        self.model.add(var == value)

    def implication(self, a: Any, b: Any) -> None:
        self.model.add_implication(a, b)

    def at_least_one(self, literals: list[Any]) -> None:
        self.model.add_bool_or(literals)

    def at_least_if(self, terms: list[Any], rhs: int, lit: Any) -> None:
        self.model.add(sum(terms) >= rhs).only_enforce_if(lit)

    def minimize(self, terms: list[Any], offset: int) -> None:
        self.model.minimize(sum(terms) + offset)

    def hint(self, var: Any, value: bool) -> None:
        self.model.add_hint(var, value)

    def size(self) -> dict[str, int]:
        return {"variables": len(self.model.proto.variables),
                "constraints": len(self.model.proto.constraints)}

    def solve(self, deadline: Deadline, workers: int, seed: int) -> _Outcome:
        from ortools.sat.python import cp_model

        limit = deadline.left()
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = workers
        solver.parameters.random_seed = seed
        timer = None
        if limit is not None:
            # CP-SAT may pass its own limit by a few tenths of a second on a loaded machine
            # (its presolve checks the clock rarely): it gets a smaller share, and a timer
            # stops it at the limit whatever it is doing
            solver.parameters.max_time_in_seconds = max(0.01, limit - min(0.3, 0.15 * limit))
            timer = threading.Timer(max(0.0, limit), solver.stop_search)
            timer.daemon = True
            timer.start()
        try:
            code = solver.solve(self.model)
        finally:
            if timer is not None:
                timer.cancel()
        stats = {"cpsat_status": solver.status_name(code), "conflicts": solver.num_conflicts,
                 "branches": solver.num_branches}
        if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return _Outcome("solution", lambda v: int(solver.value(v)),
                            solver.best_objective_bound, stats)
        return _Outcome("infeasible" if code == cp_model.INFEASIBLE else "none", None, None,
                        stats)


@dataclass(frozen=True)
class _Neg:
    var: Any


class _MathOptModel:
    """The same operations for a MIP solver through OR-Tools MathOpt: a negated literal is
    ``1 - var``, an OR of literals a sum ``>= 1``, an enforced ``sum >= rhs`` the big-M form
    ``sum >= rhs * lit`` (the sum is never negative)."""

    def __init__(self, backend: str) -> None:
        from ortools.math_opt.python import mathopt

        self.mathopt = mathopt
        self.backend = backend
        self.model = mathopt.Model(name="cityclose")
        self.hints: dict[Any, float] = {}
        self.constraints = 0

    def new_bool(self, name: str) -> Any:
        return self.model.add_binary_variable(name=name)

    def neg(self, var: Any) -> Any:
        return _Neg(var)

    def add(self, constraint: Any) -> None:
        self.model.add_linear_constraint(constraint)
        self.constraints += 1

    def fix(self, var: Any, value: int) -> None:
        var.lower_bound = var.upper_bound = value

    def implication(self, a: Any, b: Any) -> None:
        self.add(a - b <= 0)

    def at_least_one(self, literals: list[Any]) -> None:
        pos = [lt for lt in literals if not isinstance(lt, _Neg)]
        neg = [lt.var for lt in literals if isinstance(lt, _Neg)]
        fs = self.mathopt.fast_sum
        self.add(fs(pos) - fs(neg) >= 1 - len(neg))

    def at_least_if(self, terms: list[Any], rhs: int, lit: Any) -> None:
        self.add(self.mathopt.fast_sum(terms) - rhs * lit >= 0)

    def minimize(self, terms: list[Any], offset: int) -> None:
        self.model.minimize(self.mathopt.fast_sum(terms) + offset)

    def hint(self, var: Any, value: bool) -> None:
        self.hints[var] = 1.0 if value else 0.0

    def size(self) -> dict[str, int]:
        return {"variables": self.model.get_num_variables(), "constraints": self.constraints}

    def solve(self, deadline: Deadline, workers: int, seed: int) -> _Outcome:
        """Solve; under a time limit in a forked process that is killed at the limit: the
        solvers' own limit is passed by a second on 14-city maps (HiGHS in its root LP, SCIP
        with a warm start), and neither honours an interrupter here (HiGHS ignores it,
        SCIP's logs an error on every solve)."""
        if deadline.at is None:
            return self._solve(deadline, workers, seed)
        # a bare fork, not multiprocessing: a daemonic worker (a Dask worker) may not have
        # multiprocessing children
        import pickle
        import select

        parent = os.getpid()
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: solve, send the answer, leave without cleaning up
            code = 1
            try:
                os.close(rfd)
                from puzzleproof import processes

                processes.die_with_parent(parent)  # a judge killed outright takes it along
                out = self._solve(deadline, workers, seed)
                values = None
                if out.value is not None:
                    values = {v.id: 1.0 for v in self.model.variables() if out.value(v)}
                data = memoryview(pickle.dumps((out.kind, values, out.bound, out.stats)))
                while data:
                    data = data[os.write(wfd, data):]
                code = 0
            finally:
                os._exit(code)
        os.close(wfd)
        chunks: list[bytes] = []
        try:
            while True:
                left = deadline.left() or 0.0
                if left <= 0 or not select.select([rfd], [], [], left)[0]:
                    break
                chunk = os.read(rfd, 1 << 16)
                if not chunk:  # the whole answer, or a child that died without one
                    try:
                        kind, values, bound, stats = pickle.loads(b"".join(chunks))
                    except Exception:  # nothing, or a torn answer: no answer
                        break
                    else:
                        return _Outcome(kind, None if values is None else
                                        (lambda v: int(values.get(v.id, 0.0) > 0.5)),
                                        bound, stats)
                chunks.append(chunk)
        finally:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
            os.close(rfd)
        return _Outcome("none", None, None, {"mathopt_termination": "stopped at the limit"})

    def _solve(self, deadline: Deadline, workers: int, seed: int) -> _Outcome:
        import datetime

        mo = self.mathopt
        kind = mo.SolverType.GSCIP if self.backend == "scip" else mo.SolverType.HIGHS
        # the objective is integral: a gap below one proves the optimum (the default
        # relative gap of 1e-4 would stop short of it on large totals)
        params = mo.SolveParameters(absolute_gap_tolerance=0.5, relative_gap_tolerance=0.0,
                                    random_seed=seed)
        if self.backend == "scip":
            params.threads = workers  # HiGHS takes no thread count through MathOpt
        limit = deadline.left()
        if limit is not None:
            # a share of the limit, so that the solver's own answer (and its bound) usually
            # comes before the kill
            params.time_limit = datetime.timedelta(
                seconds=max(0.01, limit - min(1.5, 0.2 * limit)))
        model_params = None
        if self.hints:
            model_params = mo.ModelSolveParameters(
                solution_hints=[mo.SolutionHint(variable_values=self.hints)])
        res = mo.solve(self.model, kind, params=params, model_params=model_params)
        reason = res.termination.reason
        stats = {"mathopt_termination": reason.name, "nodes": res.solve_stats.node_count,
                 "simplex_iterations": res.solve_stats.simplex_iterations}
        if res.has_primal_feasible_solution():
            values = res.variable_values()
            return _Outcome("solution", lambda v: int(values[v] > 0.5), res.dual_bound(),
                            stats)
        infeasible = reason == mo.TerminationReason.INFEASIBLE
        return _Outcome("infeasible" if infeasible else "none", None, None, stats)


def _method(backend: str) -> str:
    """The result name of ``backend``; a ValueError for an unknown one."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown ILP back end {backend!r}: one of {', '.join(BACKENDS)}")
    return BACKENDS[backend]


def _import_backend(backend: str) -> None:
    """Import the back end's library (OR-Tools' CP-SAT or MathOpt)."""
    if backend == "cp-sat":
        from ortools.sat.python import cp_model  # noqa: F401
    else:
        from ortools.math_opt.python import mathopt  # noqa: F401


def _new_model(backend: str) -> Any:
    _method(backend)
    return _CpSatModel() if backend == "cp-sat" else _MathOptModel(backend)


class Built(NamedTuple):
    """A built formulation: the model (a back end's adapter), the variables ``x``, ``p``,
    ``y``, the distance bounds, the number of closings and the path-rule Booleans
    ``shapes[t] = (many, {v: deg3})``."""

    model: Any
    x: dict
    p: dict
    y: dict
    dbound: list[int]
    closings: int
    shapes: dict


def build_model(m: CityMap, rules: Rules, ub: int | None = None,
                deadline: Deadline | None = None, backend: str = "cp-sat") -> Built:
    """The formulation of the module docstring for ``backend`` (``"cp-sat"``, ``"scip"`` or
    ``"highs"``); raises ``_OutOfTime`` once ``deadline`` passes (None: no limit)."""
    n = m.n
    closings = n - rules.final_size
    sizes = [n - t for t in range(closings + 1)]
    dist = _full_distances(m)
    dbound = _distance_bounds(n, closings, ub)
    deadline = deadline if deadline is not None else Deadline(None)
    model = _new_model(backend)
    x = _order_vars(model, m, rules, closings)
    p: dict[tuple[int, int, int], Any] = {}
    y: dict[tuple[int, int, int, int], Any] = {}
    shapes: dict[int, tuple[Any, dict[int, Any]]] = {}
    objective: list[Any] = []
    offset = 0
    for t in range(closings + 1):
        s = sizes[t]
        if s <= 1:
            continue
        if t == 0:
            offset += wiener_mask(m.adj, m.full_mask) or 0
            continue
        _pair_vars(model, m, x, p, y, dist, dbound[t], t, deadline)
        objective += _distance_recursion(model, m, x, p, y, dist, dbound[t], t, deadline)
        if rules.no_paths is not None and s >= rules.no_paths or \
                (t == closings and rules.final_not_path and s >= 3):
            shapes[t] = _not_a_path(model, m, p, t, s)
    model.minimize(objective, offset)
    return Built(model, x, p, y, dbound, closings, shapes)


def _order_vars(model, m: CityMap, rules: Rules, closings: int) -> dict:
    """``x[v, t]`` (city ``v`` open after ``t`` closings), the sizes, kept cities and the
    closing-neighbour constraint."""
    n = m.n
    keep = rules.keep_mask(m)
    x = {(v, t): model.new_bool(f"x{v}_{t}") for v in range(n) for t in range(closings + 1)}
    for v in range(n):
        model.fix(x[v, 0], 1)
        if keep >> v & 1:
            model.fix(x[v, closings], 1)
        for t in range(1, closings + 1):
            model.implication(x[v, t], x[v, t - 1])
    for t in range(closings + 1):
        model.add(sum(x[v, t] for v in range(n)) == n - t)
    for t in range(1, closings + 1):
        for v in range(n):
            model.add(x[v, t - 1] - x[v, t] <= sum(x[u, t] for u in m.neighbours(v)))
    return x


def _pair_vars(model, m: CityMap, x, p, y, dist, D: int, t: int, deadline) -> None:
    """``p[u, v, t]`` (both open) and ``y[l, u, v, t]`` for the levels ``l`` from the pair's
    distance in the full map to ``D - 1``."""
    n = m.n
    for u in range(n):
        if deadline.expired():
            raise _OutOfTime
        for v in range(u + 1, n):
            puv = model.new_bool(f"p{u}_{v}_{t}")
            model.implication(puv, x[u, t])
            model.implication(puv, x[v, t])
            model.at_least_one([puv, model.neg(x[u, t]), model.neg(x[v, t])])
            p[u, v, t] = puv
            if dist[u][v] > D:
                # the pair can never be within the bound: both may not stay open
                model.fix(puv, 0)
                continue
            for lv in range(max(dist[u][v], 1), D):
                var = model.new_bool(f"y{lv}_{u}_{v}_{t}")
                y[lv, u, v, t] = var
                model.implication(var, puv)


def _distance_recursion(model, m: CityMap, x, p, y, dist, D: int, t: int, deadline
                        ) -> list[Any]:
    """``y[l,u,v] <= y[l-1,u,v] + sum_{w in N(u)} y[l-1,w,v]`` (level ``D`` is ``p`` itself);
    returns map ``t``'s objective terms, ``D p - sum_{l=1}^{D-1} y[l]`` per pair."""
    def yv(lv: int, a: int, b: int) -> Any:
        if a == b:
            return x[a, t]
        key = (lv, min(a, b), max(a, b), t)
        if lv >= D:
            return p.get((min(a, b), max(a, b), t), 0)
        return y.get(key, 0)

    objective: list[Any] = []
    n = m.n
    for u in range(n):
        if deadline.expired():
            raise _OutOfTime
        for v in range(u + 1, n):
            if dist[u][v] > D:
                continue
            for lv in range(max(dist[u][v], 1), D + 1):
                lhs = yv(lv, u, v)
                if isinstance(lhs, int):
                    continue
                for a, b in ((u, v), (v, u)):
                    terms = [yv(lv - 1, w, b) for w in m.neighbours(a)]
                    prev = yv(lv - 1, a, b) if lv - 1 >= 1 else 0
                    rhs = [tm for tm in terms + [prev] if not isinstance(tm, int)]
                    const = sum(tm for tm in terms + [prev] if isinstance(tm, int))
                    if const >= 1:
                        continue
                    model.add(lhs <= sum(rhs))
            objective.append(D * p[u, v, t])
            for lv in range(max(dist[u][v], 1), D):
                objective.append(-y[lv, u, v, t])
    return objective


def _not_a_path(model, m: CityMap, p, t: int, s: int) -> tuple[Any, dict[int, Any]]:
    """The map after ``t >= 1`` closings (``s`` cities, connected) is not a path: ``s`` open
    links or more, or a city with three open neighbours. The full map is checked before
    solving."""
    def edge(u: int, v: int):
        return p[min(u, v), max(u, v), t]

    many = model.new_bool(f"many_links_{t}")
    model.at_least_if([edge(u, v) for u, v in m.links], s, many)
    deg3 = {}
    for v in range(m.n):
        if len(m.neighbours(v)) >= 3:
            g = model.new_bool(f"deg3_{v}_{t}")
            model.at_least_if([edge(v, u) for u in m.neighbours(v)], 3, g)
            deg3[v] = g
    model.at_least_one([many] + list(deg3.values()))
    return many, deg3


def _open_distances(m: CityMap, mk: int) -> dict[int, dict[int, int]]:
    """The distances within the map of the open cities ``mk`` (BFS from each)."""
    d = {}
    for s in (v for v in range(m.n) if mk >> v & 1):
        seen = {s: 0}
        fr = [s]
        while fr:
            nx_ = []
            for u in fr:
                for w in m.neighbours(u):
                    if mk >> w & 1 and w not in seen:
                        seen[w] = seen[u] + 1
                        nx_.append(w)
            fr = nx_
        d[s] = seen
    return d


def _hint(built: Built, m: CityMap, order: list[int], deadline: Deadline) -> None:
    """The order as a complete solution hint: ``x``, ``p``, ``y`` at their true values and the
    path-rule Booleans at what the maps satisfy; raises ``_OutOfTime`` past ``deadline``
    (the clock is read every few thousand variables)."""
    model = built.model
    mask = m.full_mask
    masks = [mask]
    for v in order:
        mask &= ~(1 << v)
        masks.append(mask)

    def tick(i: int) -> None:
        if i % 4096 == 0 and deadline.expired():
            raise _OutOfTime

    for t, mk in enumerate(masks):
        tick(0)
        for v in range(m.n):
            model.hint(built.x[v, t], bool(mk >> v & 1))
        if t in built.shapes:
            many, deg3 = built.shapes[t]
            open_links = sum(1 for a, b in m.links if mk >> a & 1 and mk >> b & 1)
            model.hint(many, open_links >= bin(mk).count("1"))
            for v, g in deg3.items():
                model.hint(g, bool(mk >> v & 1) and sum(
                    1 for u in m.neighbours(v) if mk >> u & 1) >= 3)
    for i, ((u, v, t), var) in enumerate(built.p.items()):
        tick(i)
        model.hint(var, bool(masks[t] >> u & 1 and masks[t] >> v & 1))
    dists: dict[int, dict[int, dict[int, int]]] = {}
    for i, ((lv, u, v, t), var) in enumerate(built.y.items()):
        tick(i)
        mk = masks[t]
        both = bool(mk >> u & 1 and mk >> v & 1)
        if both and t not in dists:
            dists[t] = _open_distances(m, mk)
        model.hint(var, both and dists[t][u].get(v, 10**9) <= lv)


#: how the result names the proof of an optimum, by the bound that closed it
TRIVIAL_BOUND = "trivial bound (a map of s cities has a Wiener number of at least s(s-1)/2)"
SOLVER_BOUND = "the solver's bound"


class _Finish:
    """Makes the result of one solve: the answer re-scored by the model, both bounds, the
    gap. An order whose total meets the proved bound is OPTIMAL whatever stopped the solve
    (the clock, the model's size), with the bound that closed it named (``closed_by``)."""

    def __init__(self, m: CityMap, rules: Rules, method: str, params: dict, seed: int,
                 t0: float) -> None:
        self.m, self.rules, self.method = m, rules, method
        self.params, self.seed, self.t0 = params, seed, t0
        #: the trivial bound, once computed: a bound no higher is that one
        self.trivial: int | None = None

    def __call__(self, status: Status, order, lb, stats, reason=None,
                 closed_by: str | None = None) -> Result:
        import ortools

        m = self.m
        answer = None
        total = None
        if order is not None:
            chk = score_order(m, order, self.rules)
            answer = answer_of(m, order, [int(w) for w in chk.wiener])  # type: ignore[misc]
            total = answer["total"]
        meets = total is not None and lb is not None and lb >= total
        if closed_by is None and status in (Status.UNKNOWN, Status.OPTIMAL) and meets:
            trivial = self.trivial is not None and lb <= self.trivial
            closed_by = TRIVIAL_BOUND if trivial else SOLVER_BOUND
            if status == Status.UNKNOWN and reason:
                stats = {**stats, "stopped": reason}
            status, lb, reason = Status.OPTIMAL, total, None
        gap = None if total is None or lb is None or total == 0 else (total - lb) / total
        cert = {"method": self.method, "lower_bound": lb, "upper_bound": total, "gap": gap}
        if closed_by:
            cert["closed_by"] = closed_by
        if reason:
            stats = {**stats, "reason": reason}
        return Result("cityclose", status, answer, cert, solver=self.method,
                      solver_version=ortools.__version__, params=self.params, seed=self.seed,
                      wall_time=time.monotonic() - self.t0, stats=stats, instance=m.name)


def _read_solution(m: CityMap, rules: Rules, built: Built, out: _Outcome, ub_order, ub,
                   trivial: int, stats: dict, finish: _Finish) -> Result:
    """The result of a solve that found a solution: its order (or the warm start's when the
    solver's is worse or breaks a rule) and the solver's bound, never below the trivial one."""
    value = out.value
    assert value is not None
    order = []
    for t in range(1, built.closings + 1):
        for v in range(m.n):
            if value(built.x[v, t - 1]) and not value(built.x[v, t]):
                order.append(v)
    bound = out.bound if out.bound is not None and math.isfinite(out.bound) else -math.inf
    # a map of s cities has W >= s(s-1)/2: never report a weaker bound than that
    lb = max(int(math.ceil(bound - 1e-6)) if math.isfinite(bound) else trivial, trivial)
    chk = score_order(m, order, rules)
    if not chk.ok or (ub is not None and chk.total > ub):
        order = ub_order
    total = None if order is None else score_order(m, order, rules).total
    if total is not None and lb >= total:  # the solver's proof (or the trivial bound)
        return finish(Status.OPTIMAL, order, lb, stats)
    return finish(Status.UNKNOWN, order, lb, stats, "time limit")


def _brought_forward(dl: Deadline, keep: float, margin: float) -> Deadline:
    """``dl`` brought forward to ``keep`` of the time left less ``margin`` seconds: the time
    after it is kept for what follows (the solver after building, the answer after
    solving)."""
    left = dl.left()
    if left is None:
        return dl
    return Deadline(dl.limit, at=time.monotonic() + max(0.0, keep * left - margin))


def solve(m: CityMap, rules: Rules | None = None, *, deadline: Deadline | None = None,
          seed: int = 0, workers: int = 1, incumbent: Any = None,
          backend: str = "cp-sat") -> Result:
    """Solve by the integer program (see the module docstring) with ``backend``: ``"cp-sat"``
    (the default), or a MIP solver through MathOpt, ``"scip"`` or ``"highs"``. ``incumbent``
    is the warm start: an order (city indices), or a callable given the deadline of its
    share (half the time left) that returns one; the compiled greedy order otherwise.
    ``deadline`` (made when the task started; None: no limit) bounds everything: the warm
    start, model building and the hint are counted, and the solver gets what is left. An
    order whose total meets a proved bound (the solver's, or the trivial one) is OPTIMAL
    whenever the clock stops the solve."""
    from puzzleproof.encoders.cityclose_exact import first_order, wiener_sequence

    t0 = time.monotonic()
    dl = deadline if deadline is not None else Deadline(None)
    method = _method(backend)  # refused before any work
    _import_backend(backend)  # seconds on a first call: before the shares of the time left
    rules = rules or Rules()
    keep, closings = prepare(m, rules)
    params: dict[str, Any] = {"rules": rules.to_dict(), "time_limit": dl.limit,
                              "workers": workers, "seed": seed, "backend": backend}
    finish = _Finish(m, rules, method, params, seed, t0)
    ub_order, ub = first_order(m, rules, incumbent, dl)
    if forbidden_shape(m.adj, m.full_mask, rules, final=closings == 0):
        return finish(Status.INFEASIBLE, None, None, {}, "the full map breaks a shape rule")
    if closings == 0:
        return finish(Status.OPTIMAL, [], score_order(m, [], rules).total, {},
                      closed_by="the only order (nothing to close)")
    trivial = wiener_sequence(m, [])[0] + sum(
        (m.n - t) * (m.n - t - 1) // 2 for t in range(1, closings + 1))
    finish.trivial = trivial
    size = model_size(m, rules, ub)
    if size > MAX_VARIABLES:
        return finish(Status.UNKNOWN, ub_order, trivial, {"variables": size},
                      f"the model would have {size:,} Booleans or more (at most "
                      f"{MAX_VARIABLES:,})")
    building = _brought_forward(dl, 0.9, 0.1)  # the rest is for the solver and the answer
    try:
        built = build_model(m, rules, ub, building, backend)
        if ub_order is not None:
            _hint(built, m, ub_order, building)
    except _OutOfTime:
        return finish(Status.UNKNOWN, ub_order, trivial, {},
                      "the time limit ran out while building the model")
    build = time.monotonic() - t0
    solving = _brought_forward(dl, 0.95, 0.05)
    if solving.at is not None and (solving.left() or 0.0) <= 0.01:
        return finish(Status.UNKNOWN, ub_order, trivial, {"build_time": round(build, 3)},
                      "the time limit ran out while building the model")
    out = built.model.solve(solving, workers, seed)
    stats = {"build_time": round(build, 3), **built.model.size(),
             "distance_bounds": built.dbound, **out.stats}
    if out.kind == "solution":
        return _read_solution(m, rules, built, out, ub_order, ub, trivial, stats, finish)
    if out.kind == "infeasible":
        if ub_order is not None:  # the bound from the incumbent is only valid with one
            return finish(Status.UNKNOWN, ub_order, None, stats, "solver said infeasible")
        return finish(Status.INFEASIBLE, None, None, stats)
    return finish(Status.UNKNOWN, ub_order, trivial if ub_order else None, stats, "time limit")
