"""City closing as an integer program over removal orders (OR-Tools CP-SAT).

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
  links or more, or a city with three open neighbours (one Boolean each, an OR over them).
- Warm start: the merged-beam order as a complete hint (``x``, ``p``, ``y``).

Why CP-SAT rather than MathOpt with a MIP solver: CP-SAT was measured, MathOpt was not (not
yet: the comparison is open work). CP-SAT proves every connected graph of up to 7 cities in
about 0.06 s each (the tests run over 1,000 of them), takes the warm start as a full hint, and
encodes the path rule's OR directly; but it does not prove the 11-city roundabout (optimum 372)
in 60 s, and its bound stays near the trivial ``sum s(s-1)/2`` there: the LP relaxation of
this model is weak (every ``y`` can sit at its upper bound), which is what a MIP solver would
lean on, so MathOpt is not expected to reach much further. Building the model is Python and
grows as ``n^2 * T * D``: about 16 s for the 30-city map, so a short time limit on a large map
ends while building (UNKNOWN with the warm start and the trivial bound).

Statuses: OPTIMAL only when the solver's bound meets the order; a time limit gives UNKNOWN
with the best order (the solver's, or the warm start) and both bounds and the gap.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any

from puzzleproof.models.cityclose import CityMap, Rules, score_order, wiener_mask
from puzzleproof.result import Result, Status

__all__ = ["solve", "build_model"]


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


def build_model(m: CityMap, rules: Rules, ub: int | None = None,
                deadline: float | None = None):
    """The CP-SAT model, its variables ``(x, p, y)``, the distance bounds and the number of
    closings; raises ``_OutOfTime`` past ``deadline`` (a ``time.monotonic()`` value)."""
    from ortools.sat.python import cp_model

    n = m.n
    keep = rules.keep_mask(m)
    closings = n - rules.final_size
    sizes = [n - t for t in range(closings + 1)]
    dist = _full_distances(m)
    dbound = _distance_bounds(n, closings, ub)
    model = cp_model.CpModel()
    x = {(v, t): model.new_bool_var(f"x{v}_{t}") for v in range(n) for t in range(closings + 1)}
    for v in range(n):
        model.add(x[v, 0] == 1)
        if keep >> v & 1:
            model.add(x[v, closings] == 1)
        for t in range(1, closings + 1):
            model.add_implication(x[v, t], x[v, t - 1])
    for t in range(closings + 1):
        model.add(sum(x[v, t] for v in range(n)) == sizes[t])
    for t in range(1, closings + 1):
        if sizes[t] >= 1:
            for v in range(n):
                model.add(x[v, t - 1] - x[v, t] <= sum(x[u, t] for u in m.neighbours(v)))
    p: dict[tuple[int, int, int], Any] = {}
    y: dict[tuple[int, int, int, int], Any] = {}
    objective = []
    offset = 0
    for t in range(closings + 1):
        D = dbound[t]
        s = sizes[t]
        if s <= 1:
            continue
        if t == 0:
            offset += wiener_mask(m.adj, m.full_mask) or 0
            continue
        for u in range(n):
            if deadline is not None and time.monotonic() > deadline:
                raise _OutOfTime
            for v in range(u + 1, n):
                if t == 0:
                    puv: Any = 1
                else:
                    puv = model.new_bool_var(f"p{u}_{v}_{t}")
                    model.add_implication(puv, x[u, t])
                    model.add_implication(puv, x[v, t])
                    model.add_bool_or([puv, x[u, t].Not(), x[v, t].Not()])
                p[u, v, t] = puv
                if dist[u][v] > D:
                    # the pair can never be within the bound: both may not stay open
                    if t == 0:
                        model.add_bool_or([])  # infeasible bound (cannot happen for t = 0)
                    else:
                        model.add(puv == 0)
                    continue
                for lv in range(max(dist[u][v], 1), D):
                    var = model.new_bool_var(f"y{lv}_{u}_{v}_{t}")
                    y[lv, u, v, t] = var
                    if t == 0:
                        model.add(var == 1)
                    else:
                        model.add_implication(var, puv)
        # recursion: y[l,u,v] <= y[l-1,u,v] + sum_{w in N(u)} y[l-1,w,v]; level D is p itself
        def yv(lv: int, a: int, b: int) -> Any:
            if a == b:
                return x[a, t] if t > 0 else 1
            key = (lv, min(a, b), max(a, b), t)
            if lv >= D:
                return p.get((min(a, b), max(a, b), t), 0)
            return y.get(key, 0)

        for u in range(n):
            if deadline is not None and time.monotonic() > deadline:
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
                # W contribution: D p - sum_{l=1}^{D-1} y[l]
                puv = p[u, v, t]
                if isinstance(puv, int):
                    offset += D * puv
                else:
                    objective.append(D * puv)
                for lv in range(max(dist[u][v], 1), D):
                    var = y[lv, u, v, t]
                    objective.append(-var)
        if rules.no_paths is not None and s >= rules.no_paths or \
                (t == closings and rules.final_not_path and s >= 3):
            _not_a_path(model, m, x, p, t, s)
    model.minimize(sum(objective) + offset)
    return model, x, p, y, dbound, closings


def _not_a_path(model, m: CityMap, x, p, t: int, s: int) -> None:
    """The map after ``t`` closings (``s`` cities, connected) is not a path."""
    def edge(u: int, v: int):
        return p[min(u, v), max(u, v), t]

    if t == 0:
        return  # the full map is checked before solving
    many = model.new_bool_var(f"many_links_{t}")
    model.add(sum(edge(u, v) for u, v in m.links) >= s).only_enforce_if(many)
    options = [many]
    for v in range(m.n):
        if len(m.neighbours(v)) >= 3:
            g = model.new_bool_var(f"deg3_{v}_{t}")
            model.add(sum(edge(v, u) for u in m.neighbours(v)) >= 3).only_enforce_if(g)
            options.append(g)
    model.add_bool_or(options)


def _hint(model, m: CityMap, order: list[int], x, p, y, dbound, closings) -> None:
    mask = m.full_mask
    masks = [mask]
    for v in order:
        mask &= ~(1 << v)
        masks.append(mask)
    for t, mk in enumerate(masks):
        for v in range(m.n):
            model.add_hint(x[v, t], bool(mk >> v & 1))
        # distances in map t
        sub = [v for v in range(m.n) if mk >> v & 1]
        d = {}
        for s in sub:
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
        for (u, v, tt), var in p.items():
            if tt != t or isinstance(var, int):
                continue
            model.add_hint(var, bool(mk >> u & 1 and mk >> v & 1))
        for (lv, u, v, tt), var in y.items():
            if tt != t or t == 0:
                continue
            on = bool(mk >> u & 1 and mk >> v & 1 and d[u].get(v, 10**9) <= lv)
            model.add_hint(var, on)


def solve(m: CityMap, rules: Rules | None = None, *, time_limit: float | None = None,
          seed: int = 0, workers: int = 1, incumbent: list[int] | None = None,
          width: int = 10) -> Result:
    """Solve by the integer program (see the module docstring); ``incumbent`` (city indices)
    replaces the merged-beam warm start. Wall time stays within the limit: model building is
    counted, and the solver gets what is left."""
    t0 = time.monotonic()
    from ortools.sat.python import cp_model
    import ortools

    from puzzleproof.verify.cityclose_heuristics import answer_of, merged_beam, prepare

    rules = rules or Rules()
    keep, closings = prepare(m, rules)
    params: dict[str, Any] = {"rules": rules.to_dict(), "time_limit": time_limit,
                              "workers": workers, "seed": seed}
    ub_order = None
    ub = None
    if incumbent is not None and score_order(m, incumbent, rules).ok:
        ub_order = list(incumbent)
    if ub_order is None:
        mb = merged_beam(m, rules, width=width,
                         time_limit=None if time_limit is None else time_limit / 4)
        if mb.answer is not None:
            ub_order = [m.index(c) for c in mb.answer["order"]]
    if ub_order is not None:
        ub = score_order(m, ub_order, rules).total

    def finish(status: Status, order, lb, stats, reason=None) -> Result:
        answer = None
        total = None
        if order is not None:
            chk = score_order(m, order, rules)
            answer = answer_of(m, order, [int(w) for w in chk.wiener])  # type: ignore[misc]
            total = answer["total"]
        gap = None if total is None or lb is None or total == 0 else (total - lb) / total
        cert = {"method": "ilp-cpsat", "lower_bound": lb, "upper_bound": total, "gap": gap}
        if reason:
            stats = {**stats, "reason": reason}
        return Result("cityclose", status, answer, cert, solver="ilp-cpsat",
                      solver_version=ortools.__version__, params=params, seed=seed,
                      wall_time=time.monotonic() - t0, stats=stats, instance=m.name)

    from puzzleproof.models.cityclose import forbidden_shape
    if forbidden_shape(m.adj, m.full_mask, rules, final=closings == 0):
        return finish(Status.INFEASIBLE, None, None, {}, "the full map breaks a shape rule")
    if closings == 0:
        return finish(Status.OPTIMAL, [], score_order(m, [], rules).total, {})
    trivial = (wiener_mask(m.adj, m.full_mask) or 0) + sum(
        (m.n - t) * (m.n - t - 1) // 2 for t in range(1, closings + 1))
    deadline = None if time_limit is None else t0 + time_limit - 0.1
    try:
        model, x, p, y, dbound, closings = build_model(m, rules, ub, deadline)
        if ub_order is not None:
            _hint(model, m, ub_order, x, p, y, dbound, closings)
    except _OutOfTime:
        return finish(Status.UNKNOWN, ub_order, trivial, {},
                      "the time limit ran out while building the model")
    build = time.monotonic() - t0
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = seed
    if time_limit is not None:
        left = time_limit - (time.monotonic() - t0) - 0.05
        if left <= 0.01:
            return finish(Status.UNKNOWN, ub_order, trivial, {"build_time": round(build, 3)},
                          "the time limit ran out while building the model")
        # CP-SAT may pass its own limit by a few tenths of a second on a loaded machine (its
        # presolve checks the clock rarely): it gets a smaller share, and a timer stops it
        # at the limit whatever it is doing
        solver.parameters.max_time_in_seconds = max(0.01, left - min(0.3, 0.15 * left))
        timer = threading.Timer(max(0.0, left), solver.stop_search)
        timer.daemon = True
        timer.start()
    try:
        code = solver.solve(model)
    finally:
        if time_limit is not None:
            timer.cancel()
    stats = {"build_time": round(build, 3), "variables": len(model.proto.variables),
             "constraints": len(model.proto.constraints), "distance_bounds": dbound,
             "cpsat_status": solver.status_name(code), "conflicts": solver.num_conflicts,
             "branches": solver.num_branches}
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        order = []
        for t in range(1, closings + 1):
            for v in range(m.n):
                if solver.value(x[v, t - 1]) and not solver.value(x[v, t]):
                    order.append(v)
        lb = int(math.ceil(solver.best_objective_bound - 1e-6))
        # a map of s cities has W >= s(s-1)/2: never report a weaker bound than that
        lb = max(lb, trivial)
        chk = score_order(m, order, rules)
        if ub is not None and (not chk.ok or chk.total > ub):
            order = ub_order
        total = score_order(m, order, rules).total
        if code == cp_model.OPTIMAL or (total is not None and lb >= total):
            return finish(Status.OPTIMAL, order, total, stats)
        return finish(Status.UNKNOWN, order, lb, stats, "time limit")
    if code == cp_model.INFEASIBLE:
        if ub_order is not None:  # the bound from the incumbent is only valid with one
            return finish(Status.UNKNOWN, ub_order, None, stats, "solver said infeasible")
        return finish(Status.INFEASIBLE, None, None, stats)
    return finish(Status.UNKNOWN, ub_order, trivial if ub_order else None, stats, "time limit")
