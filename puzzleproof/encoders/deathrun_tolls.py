"""Death Run, the criminals' side: the Fulkerson-Harding bound, the single-round toll
optimum (a MIP and an exact enumeration that agrees with it), and the ``toll`` bot.

**Fulkerson-Harding.** With total budget ``B`` spread over link raises ``x >= 0``, the
longest a shortest begin-end path can be made is the LP ``max pi_T`` subject to
``pi_v <= pi_u + w_e + x_e`` for every link, ``pi_T <= pi_end`` for every end,
``pi_begin = 0``, ``sum x <= B``. Its dual gives the k-path formula
``min over k of (B + L_k) / k``, ``L_k`` the cheapest ``k`` link-disjoint begin-end paths
(min-cost flow). :func:`fh_lp` returns the LP value with its raises (checked by a shortest
path on the raised weights: a primal certificate) and :func:`fh_formula` the formula (each
``(B + L_k)/k`` is a dual certificate: the k disjoint paths share at most ``B`` of raises).
This bounds what the criminals could do to a student who saw every raise before starting;
the round-by-round game is the student DP's business
(:mod:`puzzleproof.encoders.deathrun_robust`).

**Toll pricing (one round).** A criminal picks one link ``e`` and a raise ``t <= budget``;
the students then follow their cheapest paths (ties against the criminal). A student group
at ``p`` whose cheapest path uses ``e`` keeps it while ``t < g_p(e)`` (the detour gap: the
cheapest ``p``-end path avoiding ``e`` minus the cheapest) and diverts otherwise. The
criminal's revenue is everything it has added on the links its students will cross.
:func:`toll_mip` is the Stackelberg pricing model as a MIP (one binary per link chosen, one
per group kept, the revenue linearised; SCIP through OR-Tools); :func:`best_single_raise`
enumerates the same optimum exactly (the revenue is piecewise linear in ``t`` with breaks
at the gaps) and is what the bot uses.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from puzzleproof.clock import Deadline
from puzzleproof.models.deathrun import Graph, distances_to_ends
from puzzleproof.result import Result, Status

__all__ = ["fh_lp", "fh_formula", "shortest_with", "TollOption", "toll_state",
           "best_single_raise", "toll_mip", "EPS"]

#: How far below a detour gap a toll stays (students divert on ties).
EPS = 1e-3


def shortest_with(g: Graph, weight: dict[tuple[int, int], float], src: int | None = None
                  ) -> float:
    """The shortest path from ``src`` (the begin) to an end under ``weight``."""
    return distances_to_ends(g, weight)[g.begin if src is None else src]


def fh_lp(g: Graph, budget: float, weight: dict[tuple[int, int], float] | None = None,
          src: int | None = None) -> dict[str, Any]:
    """The Fulkerson-Harding LP (GLOP). Returns ``{"value", "raises": {(u, v): x},
    "check": shortest path on the raised weights}``."""
    from ortools.linear_solver import pywraplp

    wt = g.weight if weight is None else weight
    s = g.begin if src is None else src
    reach = {s}
    for u in g.topo:
        if u in reach:
            reach.update(v for v, _ in g.out[u])
    lp = pywraplp.Solver.CreateSolver("GLOP")
    inf = lp.infinity()
    pi = {v: lp.NumVar(0 if v == s else -inf, 0 if v == s else inf, f"pi{v}") for v in reach}
    x = {}
    for (u, v), w in wt.items():
        if u in reach:
            x[(u, v)] = lp.NumVar(0, inf, f"x{u}_{v}")
            lp.Add(pi[v] <= pi[u] + w + x[(u, v)])
    T = lp.NumVar(-inf, inf, "T")
    for e in g.ends:
        if e in reach:
            lp.Add(T <= pi[e])
    lp.Add(lp.Sum(list(x.values())) <= budget)
    lp.Maximize(T)
    st = lp.Solve()
    if st != pywraplp.Solver.OPTIMAL:
        raise RuntimeError(f"the LP did not solve (status {st})")
    raises = {e: var.solution_value() for e, var in x.items() if var.solution_value() > 1e-9}
    raised = dict(wt)
    for e, r in raises.items():
        raised[e] += r
    return {"value": T.solution_value(), "raises": raises,
            "check": shortest_with(g, raised, s)}


def fh_formula(g: Graph, budget: float, src: int | None = None) -> dict[str, Any]:
    """``min over k of (B + L_k)/k`` by min-cost flow (integer base weights). Returns
    ``{"value", "k", "L": [L_1, L_2, ...]}``."""
    from ortools.graph.python import max_flow, min_cost_flow

    s = g.begin if src is None else src
    idx = {v: i for i, v in enumerate(g.vertices)}
    sink = len(idx)
    big = len(g.edges) + len(g.ends) + 1

    def arcs(add):
        for u, v, w in g.edges:
            add(idx[u], idx[v], 1, w)
        for e in g.ends:
            add(idx[e], sink, big, 0)

    mf = max_flow.SimpleMaxFlow()
    arcs(lambda a, b, cap, _w: mf.add_arc_with_capacity(a, b, cap))
    mf.solve(idx[s], sink)
    kmax = mf.optimal_flow()
    Ls: list[int] = []
    best = (math.inf, 0)
    for k in range(1, kmax + 1):
        mcf = min_cost_flow.SimpleMinCostFlow()
        arcs(lambda a, b, cap, w: mcf.add_arc_with_capacity_and_unit_cost(a, b, cap, int(w)))
        mcf.set_node_supply(idx[s], k)
        mcf.set_node_supply(sink, -k)
        if mcf.solve() != mcf.OPTIMAL:
            raise RuntimeError("min-cost flow failed")
        Ls.append(mcf.optimal_cost())
        val = (budget + Ls[-1]) / k
        if val < best[0] - 1e-12:
            best = (val, k)
    return {"value": best[0], "k": best[1], "L": Ls}


# --------------------------------------------------------------------------------------------
# Toll pricing


@dataclass
class TollOption:
    edge: tuple[int, int] | None
    toll: float
    revenue: float  # the criminal's revenue from the students' cheapest paths after the raise
    gain: float  # revenue minus the revenue without raising
    users: int  # students who keep crossing the link


def _best_paths(g: Graph, weight, src: int, banned: tuple[int, int] | None = None
                ) -> tuple[float, list[int]]:
    """The cheapest path from ``src`` (ties: smallest next vertex), optionally avoiding a
    link. Restricted to what ``src`` reaches."""
    dist: dict[int, float] = {}
    nxt: dict[int, int] = {}
    for u in reversed(g.topo):
        if u in g.end_set:
            dist[u] = 0.0
            continue
        best, arg = math.inf, -1
        for v, _ in g.out[u]:
            if (u, v) == banned:
                continue
            c = weight[(u, v)] + dist[v]
            if c < best:
                best, arg = c, v
        dist[u], nxt[u] = best, arg
        if u == src:
            break
    path = [src]
    if dist.get(src, math.inf) < math.inf:
        while path[-1] not in g.end_set:
            path.append(nxt[path[-1]])
    return dist.get(src, math.inf), path


def toll_state(g: Graph, weight: dict[tuple[int, int], float], counts: dict[int, int],
               added: dict[tuple[int, int], float]) -> dict[str, Any]:
    """The followers' data for the toll models: per student group (vertex with students):
    its cheapest path, and for each link on it the detour gap and the criminal's revenue
    change if the group diverts."""
    groups = []
    for p, n in sorted(counts.items()):
        if not n or p in g.end_set:
            continue
        d, path = _best_paths(g, weight, p)
        links = list(zip(path, path[1:]))
        rev = sum(added.get(e, 0) for e in links)
        alt = {}
        for e in links:
            d2, p2 = _best_paths(g, weight, p, banned=e)
            alt_rev = sum(added.get(f, 0) for f in zip(p2, p2[1:])) if d2 < math.inf else 0.0
            alt[e] = (d2 - d, alt_rev - rev)
        groups.append({"at": p, "n": n, "cost": d, "links": links, "revenue": rev, "alt": alt})
    return {"groups": groups, "base_revenue": sum(gr["n"] * gr["revenue"] for gr in groups)}


def best_single_raise(g: Graph, weight: dict[tuple[int, int], float], counts: dict[int, int],
                      budget: float, added: dict[tuple[int, int], float] | None = None,
                      state: dict | None = None, eps: float = EPS, share: float = 1.0
                      ) -> TollOption:
    """The exact single-round optimum by enumeration (see the module docstring). With
    ``share < 1`` the link is expected to be raised by ``toll / share`` in all (a partner
    raising it too), so the students divert once ``toll / share`` reaches their gap."""
    added = added or {}
    st = state or toll_state(g, weight, counts, added)
    base = st["base_revenue"]
    best = TollOption(None, 0.0, base, 0.0, 0)
    cand: dict[tuple[int, int], list[tuple[float, int, float]]] = {}
    for gr in st["groups"]:
        for e, (gap, drev) in gr["alt"].items():
            cand.setdefault(e, []).append((gap, gr["n"], drev))
    for e, lst in sorted(cand.items()):
        tolls = {min(budget, max(0.0, (gap - eps) * share)) for gap, _, _ in lst
                 if gap < math.inf}
        tolls.add(budget)
        for t in sorted(tolls):
            rev, users = base, 0
            for gap, n, drev in lst:
                if t / share < gap:
                    rev += n * t
                    users += n
                else:
                    rev += n * drev
            if rev > best.revenue + 1e-9:
                best = TollOption(e, t, rev, rev - base, users)
    return best


def toll_mip(g: Graph, weight: dict[tuple[int, int], float], counts: dict[int, int],
             budget: float, added: dict[tuple[int, int], float] | None = None,
             eps: float = EPS, deadline: Deadline | None = None) -> TollOption:
    """The single-round toll-pricing model as a MIP (SCIP): binaries ``y_e`` (the link
    raised, at most one), ``z_pe`` (group ``p`` keeps link ``e``: only if ``t_e <= gap -
    eps``; diverting only if ``t_e >= gap``), revenue ``r_pe <= t_e``, ``r_pe <= B z_pe``.
    SCIP stops at ``deadline`` (None: no limit); short of its optimum it raises
    RuntimeError."""
    from ortools.linear_solver import pywraplp

    added = added or {}
    st = toll_state(g, weight, counts, added)
    mip = pywraplp.Solver.CreateSolver("SCIP")
    left = deadline.left() if deadline is not None else None
    if left is not None:
        mip.SetTimeLimit(max(1, int(left * 1000)))
    links = sorted({e for gr in st["groups"] for e in gr["alt"]})
    y = {e: mip.BoolVar(f"y{e}") for e in links}
    t = {e: mip.NumVar(0, budget, f"t{e}") for e in links}
    mip.Add(mip.Sum(list(y.values())) <= 1)
    obj = []
    for e in links:
        mip.Add(t[e] <= budget * y[e])
    for k, gr in enumerate(st["groups"]):
        for e, (gap, drev) in gr["alt"].items():
            z = mip.BoolVar(f"z{k}_{e}")
            r = mip.NumVar(0, budget, f"r{k}_{e}")
            mip.Add(z >= 1 - y[e])
            if gap < math.inf:
                big = budget + abs(gap) + 1
                mip.Add(t[e] <= gap - eps + big * (1 - z) + big * (1 - y[e]))
                mip.Add(t[e] >= gap * (1 - z))
            else:
                mip.Add(z == 1)
            mip.Add(r <= t[e])
            mip.Add(r <= budget * z)
            obj.append(gr["n"] * r)
            obj.append(gr["n"] * drev * (1 - z))
    mip.Maximize(mip.Sum(obj) + st["base_revenue"] if obj else st["base_revenue"])
    status = mip.Solve()
    if status not in (pywraplp.Solver.OPTIMAL,):
        raise RuntimeError(f"the toll MIP did not reach optimality (status {status})")
    chosen = [e for e in links if y[e].solution_value() > 0.5]
    rev = mip.Objective().Value()
    if not chosen:
        return TollOption(None, 0.0, rev, rev - st["base_revenue"], 0)
    e = chosen[0]
    users = sum(gr["n"] for gr in st["groups"] if e in gr["alt"]
                and t[e].solution_value() < gr["alt"][e][0] - eps / 2)
    return TollOption(e, t[e].solution_value(), rev, rev - st["base_revenue"], users)


def solve_round(g: Graph, weight, counts, budget, added=None, *,
                deadline: Deadline | None = None) -> Result:
    """The single-round toll optimum as a :class:`Result` (MIP, checked by enumeration)."""
    t0 = time.monotonic()
    opt = toll_mip(g, weight, counts, budget, added, deadline=deadline)
    ref = best_single_raise(g, weight, counts, budget, added)
    ok = abs(opt.revenue - ref.revenue) <= 1e-6 * max(1.0, abs(ref.revenue))
    return Result("deathrun", Status.OPTIMAL,
                  {"edge": list(opt.edge) if opt.edge else None, "toll": opt.toll,
                   "revenue": opt.revenue, "gain": opt.gain, "users": opt.users},
                  solver="scip (or-tools)", wall_time=time.monotonic() - t0,
                  check={"ok": ok, "violations": [] if ok else [
                      {"enumeration_revenue": ref.revenue}]})
