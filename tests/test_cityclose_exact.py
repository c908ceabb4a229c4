"""City closing, exact methods: the DP, the compiled layered DP and the integer program against
brute force over all orders on every connected graph of up to 7 nodes."""

from __future__ import annotations

import time
from functools import lru_cache

import networkx as nx
import pytest

from puzzleproof.encoders import cityclose_exact, cityclose_ilp
from puzzleproof.formats.cityclose import read_map
from puzzleproof.models.cityclose import CityMap, Rules, score_order
from puzzleproof.result import Status
from puzzleproof.verify import cityclose_heuristics as H
from tests.conftest import shared_path

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


class TestAgainstBruteForce:
    def test_dp_and_exact_on_every_graph_up_to_7(self):
        maps = atlas_maps(7)
        assert len(maps) == 1 + 1 + 2 + 6 + 21 + 112 + 853
        checked = 0
        seven_rules = (RULES[0], RULES[4], RULES[5])
        for m in maps:
            for rules in RULES if m.n <= 6 else seven_rules:
                if rules.final_size > m.n:
                    continue
                ref = brute_force(m, rules)
                d = H.dp(m, rules)
                e = cityclose_exact.solve(m, rules, width=1)
                assert _total(d) == ref, (m.links, rules)
                assert _total(e) == ref, (m.links, rules)
                for res in (d, e):
                    if ref is not None:
                        chk = score_order(m, res.answer["order"], rules)
                        assert chk.ok and chk.total == ref
                        assert res.certificate["lower_bound"] == ref
                checked += 1
        assert checked > 3000

    def test_ilp_on_every_graph_up_to_7(self):
        """Every connected graph up to 6 nodes under every rule set; every third graph of 7
        nodes under the plain rules and every eighth under two rule sets (all 853 graphs of 7
        nodes take the ILP about a minute per rule set: the DP test covers them all)."""
        maps = atlas_maps(7)
        seven = [m for m in maps if m.n == 7]
        cases = [(m, r) for m in maps if m.n <= 6 for r in RULES if r.final_size <= m.n]
        cases += [(m, Rules()) for m in seven[::3]]
        cases += [(m, r) for m in seven[::8] for r in (Rules(final_size=3, no_paths=4),
                                                       Rules(final_size=3, final_not_path=True))]
        for m, rules in cases:
            ref = H.dp(m, rules)
            res = cityclose_ilp.solve(m, rules, width=1, workers=1)
            assert res.status == ref.status, (m.links, rules)
            assert _total(res) == _total(ref), (m.links, rules)
            if res.answer is not None:
                assert score_order(m, res.answer["order"], rules).total == _total(ref)
        assert len(cases) > 900


class TestExactOnShippedMaps:
    def test_roundabout_all_methods(self):
        p = shared_path("instances/cityclose/two-spies-roundabout.json")
        m = read_map(p.read_text(), str(p))
        e = cityclose_exact.solve(m)
        i = cityclose_ilp.solve(m, time_limit=5, workers=2)
        assert e.status == Status.OPTIMAL and e.answer["total"] == 372
        assert i.answer["total"] == 372
        assert i.status in (Status.OPTIMAL, Status.UNKNOWN)
        if i.status == Status.UNKNOWN:
            assert i.certificate["lower_bound"] <= 372

    def test_time_limits_give_unknown_with_bounds(self):
        p = shared_path("instances/cityclose/europe30.json")
        m = read_map(p.read_text(), str(p))
        t0 = time.monotonic()
        r = cityclose_ilp.solve(m, time_limit=2.0)
        wall = time.monotonic() - t0
        assert wall <= 2.0 * 1.1 + 0.2, wall
        assert r.status == Status.UNKNOWN
        assert r.certificate["lower_bound"] <= (r.certificate["upper_bound"] or 10 ** 9)
        p = shared_path("instances/cityclose/europe41-land-borders.json")
        m41 = read_map(p.read_text(), str(p))
        r = cityclose_exact.solve(m41, time_limit=3.0, max_states=200_000)
        assert r.status == Status.UNKNOWN
        lb, ub = r.certificate["lower_bound"], r.certificate["upper_bound"]
        assert lb <= ub and ub == score_order(m41, r.answer["order"]).total
        assert ub <= 32544

    def test_incumbent_and_infeasible(self):
        ring = CityMap(tuple("abcdef"), tuple((i, (i + 1) % 6) for i in range(6)))
        # after the first closing a ring is a path: no order avoids paths of 4
        for solve in (cityclose_exact.solve, cityclose_ilp.solve, H.dp):
            assert solve(ring, Rules(no_paths=4)).status == Status.INFEASIBLE
        r = cityclose_exact.solve(ring, incumbent=[0, 1, 2, 3, 4])
        assert r.status == Status.OPTIMAL and r.answer["total"] == 62
