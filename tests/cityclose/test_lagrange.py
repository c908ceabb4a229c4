"""City closing: the Lagrangian lower bound on the least Wiener number of each size, against
enumeration, against the branch and bound's exact minima, and evaluated exactly."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import numpy as np
import pytest

from puzzleproof.clock import Deadline
from puzzleproof.encoders import cityclose_exact
from puzzleproof.encoders.cityclose_bounds import distance_matrix
from puzzleproof.encoders.cityclose_minima import min_wiener_by_size
from puzzleproof.encoders.cityclose_lagrange import pair_sum_bound, pair_sum_bounds
from puzzleproof.formats.cityclose import read_map
from puzzleproof.models.cityclose import CityMap, Rules
from tests.conftest import shared_path
from tests.cityclose.test_exact import _connected_subsets, _random_maps, atlas_maps


def _floyd(m: CityMap) -> list[list[int]]:
    """All distances of the whole map by Floyd-Warshall on its links (not the package's
    bit-set BFS)."""
    n, inf = m.n, 10 ** 6
    d = [[0 if a == b else inf for b in range(n)] for a in range(n)]
    for a, b in m.links:
        d[a][b] = d[b][a] = 1
    for k in range(n):
        for a in range(n):
            for b in range(n):
                if d[a][k] + d[k][b] < d[a][b]:
                    d[a][b] = d[a][k] + d[k][b]
    return d


def _least_wiener_by_size(m: CityMap) -> dict[int, int]:
    """The least Wiener number of a connected set of each size, by enumeration, each set's
    distances by Floyd-Warshall inside it."""
    best: dict[int, int] = {}
    for s in _connected_subsets(m):
        nodes = [v for v in range(m.n) if s >> v & 1]
        sub = CityMap(tuple(f"c{v}" for v in nodes),
                      tuple((nodes.index(a), nodes.index(b)) for a, b in m.links
                            if s >> a & 1 and s >> b & 1))
        d = _floyd(sub)
        w = sum(d[a][b] for a in range(sub.n) for b in range(a + 1, sub.n))
        best[len(nodes)] = min(best.get(len(nodes), w), w)
    return best


class TestAgainstEnumeration:
    def test_never_above_the_least_wiener_number(self):
        maps = _random_maps(10, 8, 12) + [m for m in atlas_maps(7) if m.n == 7][::40]
        compared = 0
        for m in maps:
            best = _least_wiener_by_size(m)
            dist = distance_matrix(m.adj)
            for upper in (None, np.array([best.get(k, -1) for k in range(m.n + 1)])):
                bounds, info = pair_sum_bounds(dist, range(2, m.n + 1), upper)
                assert info["sizes"] == m.n - 1
                for k in range(2, m.n + 1):
                    assert 0 < bounds[k] <= best[k], (m.links, k, bounds[k], best[k])
                    compared += 1
        assert compared > 200

    def test_every_antisymmetric_matrix_gives_a_bound_on_the_pair_sum(self):
        # the bound holds for every set of i cities, connected or not, with the whole map's
        # distances: brute force over every subset, random matrices of any scale
        rng = random.Random(5)
        for m in _random_maps(6, 7, 9):
            d = _floyd(m)
            dist = np.array(d, dtype=np.int64)
            for i in range(2, m.n + 1):
                least = min(sum(d[a][b] for a, b in itertools.combinations(t, 2))
                            for t in itertools.combinations(range(m.n), i))
                for scale in (0.0, 0.3, 2.0, 50.0, 1e12):
                    mat = np.array([[rng.uniform(-scale, scale) for _ in range(m.n)]
                                    for _ in range(m.n)])
                    assert pair_sum_bound(dist, i, mat) <= least

    def test_reaches_the_minimum_where_the_relaxation_is_tight(self):
        # a star: the best set of i cities is the centre and i - 1 leaves, (i - 1)^2, and
        # the bound of M = 0 already says so
        star = CityMap(tuple(f"s{v}" for v in range(12)), tuple((0, v) for v in range(1, 12)))
        bounds, _ = pair_sum_bounds(distance_matrix(star.adj), range(2, 13))
        assert [int(bounds[i]) for i in range(2, 13)] == [(i - 1) ** 2 for i in range(2, 13)]

    def test_the_steps_improve_on_the_plain_bound(self):
        # a path: the best set is consecutive cities, (i^3 - i) / 6; M = 0 (each city's
        # nearest i - 1, whether or not they are chosen together) falls short of it, and the
        # steps close part of the difference without passing the optimum
        path = CityMap(tuple(f"p{v}" for v in range(14)), tuple((v, v + 1) for v in range(13)))
        dist = distance_matrix(path.adj)
        upper = np.array([-1] + [(i ** 3 - i) // 6 for i in range(1, 15)])
        bounds, _ = pair_sum_bounds(dist, range(2, 15), upper)
        plain = [pair_sum_bound(dist, i, np.zeros((14, 14))) for i in range(2, 15)]
        steps = [int(bounds[i]) for i in range(2, 15)]
        assert all(p <= s <= u for p, s, u in zip(plain, steps, upper[2:]))
        assert sum(steps) > sum(plain)


class TestExactness:
    def test_evaluated_in_exact_arithmetic(self):
        # entries on the 1 / 2^21 grid are used as they are: the bound equals the one
        # computed with fractions, rounded up (and 0 when it is negative)
        rng = random.Random(9)
        m = _random_maps(1, 10, 10)[0]
        d = _floyd(m)
        dist = np.array(d, dtype=np.int64)
        grid = 1 << 21
        for i in (2, 5, 9):
            up = {(a, b): Fraction(rng.randrange(-3 * grid, 3 * grid), grid)
                  for a in range(m.n) for b in range(a + 1, m.n)}
            full = {}
            for (a, b), v in up.items():
                full[a, b], full[b, a] = v, -v
            rows = sorted(sum(sorted(Fraction(d[u][v], 2) + full[u, v]
                                     for v in range(m.n) if v != u)[:i - 1])
                          for u in range(m.n))
            expect = max(0, -((-sum(rows[:i])).__floor__()))  # no Wiener number is negative
            mat = np.zeros((m.n, m.n))
            for (a, b), v in up.items():
                mat[a, b] = float(v)
            assert pair_sum_bound(dist, i, mat) == expect

    def test_a_matrix_with_nan_or_infinities_still_gives_a_bound(self):
        m = _random_maps(1, 9, 9)[0]
        dist = distance_matrix(m.adj)
        least = min(sum(int(dist[a, b]) for a, b in itertools.combinations(t, 2))
                    for t in itertools.combinations(range(m.n), 5))
        bad = np.zeros((m.n, m.n))
        bad[0, 1], bad[2, 3], bad[4, 5] = np.nan, np.inf, -np.inf
        assert 0 <= pair_sum_bound(dist, 5, bad) <= least

    def test_rejects_a_size_larger_than_the_map(self):
        with pytest.raises(ValueError, match="no set of 5 cities"):
            pair_sum_bound(np.zeros((4, 4), dtype=np.int64), 5, np.zeros((4, 4)))

    def test_a_deadline_already_past_bounds_nothing(self):
        m = _random_maps(1, 10, 10)[0]
        bounds, info = pair_sum_bounds(distance_matrix(m.adj), range(2, 11),
                                       deadline=Deadline(0.0))
        assert info["sizes"] == 0 and not bounds.any()


def test_below_the_exact_minima_of_europe30():
    # the branch and bound finishes every size of europe30: an independent exact value
    p = shared_path("instances/cityclose/europe30.json")
    m = read_map(p.read_text(), str(p))
    exact, _, _ = min_wiener_by_size(m.adj, 2, m.n)
    bounds, _ = pair_sum_bounds(distance_matrix(m.adj), range(2, m.n + 1), exact)
    for k in range(2, m.n + 1):
        assert bounds[k] <= exact[k], k
    assert bounds[m.n] == exact[m.n]  # the whole map: nothing to choose


def test_the_exact_method_uses_it_for_sizes_left_unfinished(monkeypatch):
    # the branch and bound given no nodes finishes nothing; the Lagrangian bound then fills
    # every size, and the bound tables stay below the least Wiener numbers
    m = _random_maps(1, 11, 11)[0]
    best = _least_wiener_by_size(m)
    E = cityclose_exact
    real = E.min_wiener_by_size
    monkeypatch.setattr(E, "min_wiener_by_size",
                        lambda adj, lo, hi, **kw: real(adj, lo, hi, **kw, cap=0))
    _, _, lbmin, stats = E._bound_tables(m, Rules(), True, None)
    assert stats["lagrange"]["sizes"] == m.n - 3  # sizes 1 and 2 need no search
    for k in range(2, m.n):
        assert 0 < lbmin[k] <= best[k]
