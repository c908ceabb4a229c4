"""City closing, exact methods: the DP, the compiled layered DP and the integer program against
brute force over all orders on every connected graph of up to 7 nodes."""

from __future__ import annotations

import time
from functools import lru_cache

import networkx as nx
import pytest

from puzzleproof.clock import Deadline
from puzzleproof.encoders import cityclose_exact, cityclose_ilp
from puzzleproof.encoders.cityclose_bits import _DEBRUIJN
from puzzleproof.encoders.cityclose_layers import root_h
from puzzleproof.formats.cityclose import read_map
from puzzleproof.models.cityclose import CityMap, Rules, score_order
from puzzleproof.result import Status
from puzzleproof.encoders import cityclose_dp as D
from puzzleproof.verify.cityclose_methods import merged_beam_incumbent
from tests.conftest import shared_path, spread

RULES = [Rules(), Rules(final_size=2), Rules(final_size=3), Rules(no_paths=4),
         Rules(no_paths=3, final_size=3), Rules(final_size=3, final_not_path=True)]


@lru_cache(maxsize=None)
def atlas_maps(max_nodes: int) -> tuple[CityMap, ...]:
    out = []
    for g in nx.graph_atlas_g()[1:]:
        if g.number_of_nodes() > max_nodes:
            break
        if nx.is_connected(g):
            out.append(CityMap(tuple(f"v{i}" for i in g.nodes), tuple(g.edges)))
    return tuple(out)


def brute_force(m: CityMap, rules: Rules) -> int | None:
    """The least total over every order (a walk through all of them), each map's Wiener
    number by Floyd-Warshall on the open cities (independent of the model's bitmask BFS), the
    rules by plain degree counts."""
    n = m.n
    edges = {frozenset(e) for e in m.links}
    closings = n - rules.final_size
    keep = {m.index(c) for c in rules.keep}
    inf = 10 ** 6

    def shape(open_: frozenset) -> tuple[int | None, bool]:
        """(Wiener number or None when disconnected, is a path)"""
        nodes = sorted(open_)
        d = {(a, b): 0 if a == b else (1 if frozenset((a, b)) in edges else inf)
             for a in nodes for b in nodes}
        for k in nodes:
            for a in nodes:
                for b in nodes:
                    if d[a, k] + d[k, b] < d[a, b]:
                        d[a, b] = d[a, k] + d[k, b]
        total = sum(d[a, b] for a in nodes for b in nodes if a < b)
        if total >= inf:
            return None, False
        deg = [sum(1 for b in nodes if frozenset((a, b)) in edges) for a in nodes]
        links = sum(deg) // 2
        return total, links == len(nodes) - 1 and max(deg, default=0) <= 2

    @lru_cache(maxsize=None)
    def w(open_: frozenset) -> int | None:
        total, is_path = shape(open_)
        if total is None:
            return None
        if rules.no_paths is not None and len(open_) >= rules.no_paths and is_path:
            return None
        return total

    best = None

    def walk(open_: frozenset, total: int, left: int) -> None:
        nonlocal best
        if left == 0:
            if rules.final_not_path and len(open_) >= 3 and shape(open_)[1]:
                return
            if best is None or total < best:
                best = total
            return
        for v in sorted(open_):
            if v in keep:
                continue
            nxt = open_ - {v}
            wv = w(nxt)
            if wv is not None:
                walk(nxt, total + wv, left - 1)

    w0 = w(frozenset(range(n)))
    if w0 is None:
        return None
    walk(frozenset(range(n)), w0, closings)
    return best


def _total(res) -> int | None:
    if res.status == Status.OPTIMAL:
        return res.answer["total"]
    assert res.status == Status.INFEASIBLE, res.status
    return None


def _dp_and_exact_wrong(cases: list) -> list:
    """Each ``(map, rules)`` on which the plain DP or the exact method differs from brute
    force (its total, its order's score, its lower bound)."""
    wrong = []
    for m, rules in cases:
        ref = brute_force(m, rules)
        for res in (D.dp(m, rules), cityclose_exact.solve(m, rules)):
            ok = _total(res) == ref
            if ok and ref is not None:
                chk = score_order(m, res.answer["order"], rules)
                ok = chk.ok and chk.total == ref and res.certificate["lower_bound"] == ref
            if not ok:
                wrong.append((m.links, rules, res.solver, _total(res), ref))
    return wrong


def _ilp_wrong(cases: list) -> list:
    """Each ``(map, rules)`` on which the ILP's status, total or order differs from the
    plain DP's."""
    wrong = []
    for m, rules in cases:
        ref = D.dp(m, rules)
        res = cityclose_ilp.solve(m, rules, workers=1)
        ok = res.status == ref.status and _total(res) == _total(ref)
        if ok and res.answer is not None:
            ok = score_order(m, res.answer["order"], rules).total == _total(ref)
        if not ok:
            wrong.append((m.links, rules, res.status, _total(res), _total(ref)))
    return wrong


class TestAgainstBruteForce:
    @pytest.mark.slow
    def test_dp_and_exact_on_every_graph_up_to_7(self):
        """Every connected graph up to 7 nodes (every rule set up to 6 nodes, three on 7):
        the DP and the exact method give brute force's optimum, a legal order scoring it,
        and that lower bound (the cases shared by both cores)."""
        maps = atlas_maps(7)
        assert len(maps) == 1 + 1 + 2 + 6 + 21 + 112 + 853
        seven_rules = (RULES[0], RULES[4], RULES[5])
        cases = [(m, rules) for m in maps for rules in (RULES if m.n <= 6 else seven_rules)
                 if rules.final_size <= m.n]
        assert len(cases) > 3000
        wrong = spread(_dp_and_exact_wrong, cases)
        assert not wrong, wrong[:3]

    @pytest.mark.slow
    def test_ilp_on_every_graph_up_to_7(self):
        """Every connected graph up to 6 nodes under every rule set; every sixth graph of 7
        nodes under the plain rules and every sixteenth under two rule sets (all 853 graphs
        of 7 nodes take the ILP about a minute per rule set: the DP test covers them all, and
        ``benchmarks/cityclose.py --only-ilp`` runs the ILP on every one)."""
        maps = atlas_maps(7)
        seven = [m for m in maps if m.n == 7]
        cases = [(m, r) for m in maps if m.n <= 6 for r in RULES if r.final_size <= m.n]
        cases += [(m, Rules()) for m in seven[::6]]
        cases += [(m, r) for m in seven[::16] for r in (Rules(final_size=3, no_paths=4),
                                                        Rules(final_size=3, final_not_path=True))]
        assert len(cases) > 900
        wrong = spread(_ilp_wrong, cases)
        assert not wrong, wrong[:3]


class TestExactOnShippedMaps:
    @pytest.mark.slow
    def test_roundabout_all_methods(self):
        p = shared_path("instances/cityclose/two-spies-roundabout.json")
        m = read_map(p.read_text(), str(p))
        e = cityclose_exact.solve(m)
        i = cityclose_ilp.solve(m, deadline=Deadline(5), workers=2,
                                incumbent=merged_beam_incumbent(m, Rules(), 10))
        assert e.status == Status.OPTIMAL and e.answer["total"] == 372
        assert i.answer["total"] == 372
        assert i.status in (Status.OPTIMAL, Status.UNKNOWN)
        if i.status == Status.UNKNOWN:
            assert i.certificate["lower_bound"] <= 372

    @pytest.mark.slow
    def test_time_limits_give_unknown_with_bounds(self):
        p = shared_path("instances/cityclose/europe30.json")
        m = read_map(p.read_text(), str(p))
        t0 = time.monotonic()
        r = cityclose_ilp.solve(m, deadline=Deadline(2.0))
        wall = time.monotonic() - t0
        assert wall <= 2.0 * 1.1 + 0.2, wall
        assert r.status == Status.UNKNOWN
        assert r.certificate["lower_bound"] <= (r.certificate["upper_bound"] or 10 ** 9)
        p = shared_path("instances/cityclose/europe41-land-borders.json")
        m41 = read_map(p.read_text(), str(p))
        # the default method proves europe41 in seconds: the weak bounds alone do not
        r = cityclose_exact.solve(m41, deadline=Deadline(3.0), max_states=200_000, minima=False,
                                  bound="simple")
        assert r.status == Status.UNKNOWN
        lb, ub = r.certificate["lower_bound"], r.certificate["upper_bound"]
        assert lb <= ub and ub == score_order(m41, r.answer["order"]).total
        assert ub <= 32544

    def test_europe41_proved(self):
        p = shared_path("instances/cityclose/europe41-land-borders.json")
        m41 = read_map(p.read_text(), str(p))
        r = cityclose_exact.solve(m41)
        assert r.status == Status.OPTIMAL and r.answer["total"] == 32534
        assert r.certificate["lower_bound"] == 32534
        assert r.certificate["root_bound"] == 32514  # the sum of the per-size minima
        assert score_order(m41, r.answer["order"]).total == 32534

    def test_incumbent_and_infeasible(self):
        ring = CityMap(tuple("abcdef"), tuple((i, (i + 1) % 6) for i in range(6)))
        # after the first closing a ring is a path: no order avoids paths of 4
        for solve in (cityclose_exact.solve, cityclose_ilp.solve, D.dp):
            assert solve(ring, Rules(no_paths=4)).status == Status.INFEASIBLE
        r = cityclose_exact.solve(ring, incumbent=[0, 1, 2, 3, 4])
        assert r.status == Status.OPTIMAL and r.answer["total"] == 62


def _connected_subsets(m: CityMap) -> list[int]:
    from puzzleproof.models.cityclose import is_connected_mask

    return [s for s in range(1, 1 << m.n) if is_connected_mask(m.adj, s)]


def _cost_to_go(m: CityMap, final_size: int) -> dict[int, int]:
    """The least sum of Wiener numbers of the maps after each connected set (itself
    excluded) down to ``final_size`` cities, by plain recursion over the model's own
    connectivity and Wiener functions (no numba)."""
    from puzzleproof.models.cityclose import is_connected_mask, wiener_mask

    memo: dict[int, int] = {}

    def go(s: int) -> int:
        if s in memo:
            return memo[s]
        if bin(s).count("1") <= final_size:
            memo[s] = 0
            return 0
        best = None
        for v in range(m.n):
            if s >> v & 1 and is_connected_mask(m.adj, s & ~(1 << v)):
                c = wiener_mask(m.adj, s & ~(1 << v)) + go(s & ~(1 << v))
                best = c if best is None else min(best, c)
        memo[s] = best
        return best

    for s in _connected_subsets(m):
        go(s)
    return memo


def _random_maps(count: int, lo: int, hi: int) -> list[CityMap]:
    import random

    out = []
    rng = random.Random(16)
    while len(out) < count:
        n = rng.randint(lo, hi)
        g = nx.gnp_random_graph(n, rng.choice((0.2, 0.3, 0.45)), seed=rng.randrange(10 ** 6))
        if nx.is_connected(g):
            out.append(CityMap(tuple(f"v{i}" for i in g.nodes), tuple(g.edges)))
    return out


class TestBounds:
    """The bound ``h(S)`` of the exact method never exceeds the true cost still to come."""

    @staticmethod
    def _check(m: CityMap, final_size: int) -> int:
        import numpy as np

        E = cityclose_exact
        emax, p2max, lbmin, _ = E._bound_tables(m, Rules(final_size=final_size), True, None)
        adj = np.array(m.adj, dtype=np.uint64)
        togo = _cost_to_go(m, final_size)
        checked = 0
        for s, g in togo.items():
            size = bin(s).count("1")
            if size < final_size:
                continue
            for use_dist in (True, False):
                h = root_h(adj, np.uint64(s), size, final_size, emax, p2max, lbmin,
                           _DEBRUIJN, use_dist)
                assert h <= g, (m.links, bin(s), final_size, use_dist, h, g)
            checked += 1
        return checked

    @pytest.mark.slow
    def test_admissible_on_every_graph_up_to_7(self):
        checked = 0
        for m in atlas_maps(7):
            for k in (1, 2, 3):
                if k <= m.n:
                    checked += self._check(m, k)
        assert checked > 40_000

    def test_admissible_on_random_maps(self):
        checked = sum(self._check(m, k) for m in _random_maps(12, 8, 11) for k in (1, 3))
        assert checked > 5_000

    def test_bound_is_tight_where_it_should_be(self):
        # one closing left: the complement side of the bound is exact (W(S) less the status
        # of the best city to close, plus nothing) on a cycle, and the per-size minima are
        # exact at the root of a path
        import numpy as np

        E = cityclose_exact
        ring = CityMap(tuple("abcdefgh"), tuple((i, (i + 1) % 8) for i in range(8)))
        emax, p2max, lbmin, _ = E._bound_tables(ring, Rules(final_size=7), True, None)
        h = root_h(np.array(ring.adj, dtype=np.uint64), np.uint64(ring.full_mask), 8, 7,
                   emax, p2max, lbmin, _DEBRUIJN, True)
        assert h == 56  # the path of 7: 1*6 + 2*5 + 3*4 + 4*3 + 5*2 + 6*1

    def test_min_wiener_by_size_against_enumeration(self):
        from puzzleproof.encoders.cityclose_minima import min_wiener_by_size
        from puzzleproof.models.cityclose import wiener_mask

        maps = _random_maps(10, 9, 13) + [m for m in atlas_maps(7) if m.n == 7][::50]
        for m in maps:
            best: dict[int, int] = {}
            for s in _connected_subsets(m):
                k = bin(s).count("1")
                w = wiener_mask(m.adj, s)
                best[k] = min(best.get(k, w), w)
            table, lower, stats = min_wiener_by_size(m.adj, 1, m.n)
            for k in range(1, m.n + 1):
                assert table[k] == lower[k] == best[k], (m.links, k)
                assert k <= 2 or stats[k][2]

    def test_min_wiener_by_size_out_of_nodes_says_so(self):
        from puzzleproof.encoders.cityclose_minima import min_wiener_by_size

        p = shared_path("instances/cityclose/europe30.json")
        m = read_map(p.read_text(), str(p))
        table, lower, stats = min_wiener_by_size(m.adj, 20, 20, cap=100)
        assert table[20] == -1 and not stats[20][2] and 0 < lower[20] <= 526
        table, lower, stats = min_wiener_by_size(m.adj, 20, 20)
        assert table[20] == lower[20] == 526 and stats[20][2]

    @pytest.mark.slow
    def test_both_bounds_prove_europe30(self):
        p = shared_path("instances/cityclose/europe30.json")
        m = read_map(p.read_text(), str(p))
        r = cityclose_exact.solve(m)
        assert r.status == Status.OPTIMAL and r.answer["total"] == 13208
        assert r.certificate["root_bound"] == 13149  # the sum of the per-size minima
        r = cityclose_exact.solve(m, bound="simple", minima=True)
        assert r.status == Status.OPTIMAL and r.answer["total"] == 13208
