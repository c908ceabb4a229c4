"""The criminals' exact tools: Fulkerson-Harding LP vs its k-path formula vs brute force,
and the toll MIP vs the exact enumeration."""

from __future__ import annotations

import itertools
import random

import pytest

from puzzleproof.encoders.deathrun_tolls import (best_single_raise, fh_formula, fh_lp,
                                                    shortest_with, toll_mip)
from puzzleproof.models.deathrun import generate_graph, nominal_distance


def tiny(seed: int):
    return generate_graph(seed, layers=3, height=2 + seed % 2, wmin=1, wmax=5)


def brute_interdiction(g, units: int, q: float) -> float:
    """Max over every placement of ``units`` whole ``q``-units on the links of the
    shortest begin-end path."""
    edges = sorted(g.weight)
    best = 0.0
    for combo in itertools.combinations_with_replacement(range(len(edges)), units):
        w = dict(g.weight)
        for i in combo:
            w[edges[i]] += q
        best = max(best, shortest_with(g, w))
    return best


class TestFulkersonHarding:
    @pytest.mark.parametrize("seed", range(8))
    def test_lp_formula_and_brute_force(self, seed):
        g = tiny(seed)
        for budget in (0, 1, 2, 3, 4):
            lp = fh_lp(g, budget)
            f = fh_formula(g, budget)
            assert abs(lp["value"] - f["value"]) < 1e-6
            assert abs(lp["check"] - lp["value"]) < 1e-6  # the raises achieve it
            assert sum(lp["raises"].values()) <= budget + 1e-6
            assert brute_interdiction(g, budget, 1.0) <= lp["value"] + 1e-9
            if budget <= 2:
                assert brute_interdiction(g, 2 * budget, 0.5) <= lp["value"] + 1e-9
            # the dual certificates: every (B + L_k)/k bounds the value
            for k, L in enumerate(f["L"], 1):
                assert lp["value"] <= (budget + L) / k + 1e-9
        assert fh_lp(g, 0)["value"] == nominal_distance(g)

    def test_lp_equals_formula_on_contest_graphs(self):
        for seed in range(3):
            g = generate_graph(seed)
            for budget in (10, 100, 200):
                assert abs(fh_lp(g, budget)["value"] - fh_formula(g, budget)["value"]) < 1e-6


class TestToll:
    def _state(self, g, rng):
        counts = {v: 0 for v in g.vertices}
        layer = [v for v in g.vertices if g.depth[v] == 1]
        for _ in range(8):
            counts[rng.choice(layer)] += 1
        added = {e: rng.choice([0, 0, 0, 1, 2.5]) for e in g.weight}
        w = {e: x + added[e] + rng.choice([0, 0, 1]) for e, x in g.weight.items()}
        return w, counts, added

    @pytest.mark.parametrize("seed", range(6))
    def test_mip_agrees_with_enumeration(self, seed):
        g = generate_graph(seed, layers=4, height=3 + seed % 2, wmin=1, wmax=6)
        rng = random.Random(seed)
        for budget in (0.5, 3, 30):
            w, counts, added = self._state(g, rng)
            a = best_single_raise(g, w, counts, budget, added)
            b = toll_mip(g, w, counts, budget, added)
            assert abs(a.revenue - b.revenue) < 1e-6, (seed, budget, a, b)

    def test_enumeration_against_simulated_followers(self):
        # raise the chosen link and let every group take its cheapest path: the revenue
        # the enumeration claims is what the followers pay the criminal
        from puzzleproof.encoders.deathrun_tolls import _best_paths

        for seed in range(10):
            g = generate_graph(seed, layers=5, height=3, wmin=1, wmax=8)
            w, counts, added = self._state(g, random.Random(seed))
            opt = best_single_raise(g, w, counts, 20, added)
            w2, add2 = dict(w), dict(added)
            if opt.edge:
                w2[opt.edge] += opt.toll
                add2[opt.edge] = add2.get(opt.edge, 0) + opt.toll
            rev = 0.0
            for p, n in counts.items():
                if n and p not in g.end_set:
                    _, path = _best_paths(g, w2, p)
                    rev += n * sum(add2.get(e, 0) for e in zip(path, path[1:]))
            assert abs(rev - opt.revenue) < 1e-6
            # and no single raise on a grid of tolls does better
            for e in list(g.weight)[::3]:
                for t in (0.5, 1, 2, 4, 8):
                    w3, a3 = dict(w), dict(added)
                    w3[e] += t
                    a3[e] = a3.get(e, 0) + t
                    r3 = sum(n * sum(a3.get(f, 0) for f in zip(pa, pa[1:]))
                             for p, n in counts.items() if n
                             for pa in [_best_paths(g, w3, p)[1]])
                    assert r3 <= opt.revenue + 1e-6
