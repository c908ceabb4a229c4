"""City closing at scale: the wide-set kernels against the word-set kernels, maps of 64 to 80
cities against the independent DP and closed forms, ties and twins, and random small maps
against brute force. Every answer is re-scored by the model's own scorer."""

from __future__ import annotations

import math
import random

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzleproof.clock import Deadline
from puzzleproof.encoders import cityclose_exact as E
from puzzleproof.models.cityclose import CityMap, Rules, score_order
from puzzleproof.result import Status
from puzzleproof.players import cityclose_article as H
from puzzleproof.encoders import cityclose_dp as D
from tests.cityclose.test_exact import RULES, _total, atlas_maps, brute_force


def _named(n: int, links) -> CityMap:
    return CityMap(tuple(f"c{i}" for i in range(n)), tuple(links))


def path(n: int) -> CityMap:
    return _named(n, [(i, i + 1) for i in range(n - 1)])


def cycle(n: int) -> CityMap:
    return _named(n, [(i, (i + 1) % n) for i in range(n)])


def core_with_legs(core: list[tuple[int, int]], core_n: int, legs: list[tuple[int, int]]
                   ) -> CityMap:
    """A small core (``core_n`` cities, ``core`` links) with paths hanging from it: ``legs``
    holds ``(core city, length)``."""
    links = list(core)
    n = core_n
    for at, length in legs:
        prev = at
        for _ in range(length):
            links.append((prev, n))
            prev = n
            n += 1
    return _named(n, links)


def _checked(m: CityMap, rules: Rules, res) -> int | None:
    """The total of an OPTIMAL answer after the model re-scores it (None for INFEASIBLE)."""
    if res.status == Status.INFEASIBLE:
        return None
    assert res.status == Status.OPTIMAL, (res.status, res.stats.get("reason"))
    chk = score_order(m, res.answer["order"], rules)
    assert chk.ok, chk.violations
    assert chk.total == res.answer["total"] == res.certificate["lower_bound"]
    return chk.total


class TestWideAgainstWord:
    @pytest.mark.slow
    def test_every_graph_up_to_6_and_a_share_of_7(self):
        maps = [m for m in atlas_maps(7) if m.n <= 6] + [m for m in atlas_maps(7)
                                                        if m.n == 7][::7]
        runs = 0
        for m in maps:
            for rules in RULES:
                if rules.final_size > m.n:
                    continue
                word = E.solve(m, rules, engine="word")
                wide = E.solve(m, rules, engine="wide")
                assert word.status == wide.status, (m.links, rules)
                assert _checked(m, rules, word) == _checked(m, rules, wide), (m.links, rules)
                runs += 1
        assert runs > 600

    def test_random_maps_and_the_shipped_europe(self):
        from tests.cityclose.test_exact import _random_maps

        rng = random.Random(5)
        for m in _random_maps(25, 9, 16):
            rules = rng.choice([Rules(), Rules(final_size=3), Rules(no_paths=5),
                                Rules(final_size=2, final_not_path=True),
                                Rules(keep=frozenset({m.names[rng.randrange(m.n)]}))])
            word = E.solve(m, rules, engine="word")
            wide = E.solve(m, rules, engine="wide")
            assert _checked(m, rules, word) == _checked(m, rules, wide), (m.links, rules)
            assert word.certificate["root_bound"] == wide.certificate["root_bound"]


    @pytest.mark.parametrize("name", ["cityclose/europe41-land-borders.json",
                                      "cityclose-world/asia-land-borders.json"])
    def test_real_maps(self, name):
        from puzzleproof.formats.cityclose import read_map
        from tests.conftest import shared_path

        p = shared_path(f"instances/{name}")
        m = read_map(p.read_text(), str(p))
        word = E.solve(m, engine="word")
        wide = E.solve(m, engine="wide")
        assert _checked(m, Rules(), word) == _checked(m, Rules(), wide)
        for key in ("root_bound", "states", "pruned"):
            assert word.certificate[key] == wide.certificate[key], key


class TestBeyondAWord:
    """Maps of 64 to 80 cities, where the plain DP is feasible (few connected sets)."""

    @pytest.mark.slow
    @pytest.mark.parametrize("n", [64, 71, 80])
    def test_paths_and_cycles_closed_forms(self, n):
        r = E.solve(path(n))
        assert _checked(path(n), Rules(), r) == math.comb(n + 2, 4)
        c = cycle(n)
        w = n ** 3 // 8 if n % 2 == 0 else (n ** 3 - n) // 8
        assert _checked(c, Rules(), E.solve(c)) == w + math.comb(n + 1, 4)

    @pytest.mark.slow
    @pytest.mark.parametrize("m", [
        core_with_legs([(0, 1), (1, 2), (2, 3), (3, 0)], 4, [(0, 62)]),          # tadpole, 66
        core_with_legs([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)], 4,
                       [(0, 33), (2, 31)]),                                       # lollipop, 68
        core_with_legs([(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (0, 2)], 5,
                       [(1, 30), (3, 30)]),                                       # 65
        core_with_legs([(0, 1), (1, 2), (2, 0)], 3, [(0, 22), (1, 21), (2, 18)]),  # spider, 64
    ], ids=["tadpole66", "lollipop68", "house65", "spider64"])
    def test_small_core_long_legs_against_dp(self, m):
        assert 64 <= m.n <= 80
        leaf = m.names[m.n - 1]
        for rules in (Rules(), Rules(keep=frozenset({leaf}), final_size=3)):
            ref = D.dp(m, rules, max_cities=80)
            assert ref.status == Status.OPTIMAL
            res = E.solve(m, rules)
            assert res.stats.get("layers") is not None
            assert _checked(m, rules, res) == _checked(m, rules, ref), (m.n, rules)

    @pytest.mark.slow
    def test_a_limit_gives_unknown_with_a_checked_order_and_bounds(self):
        from puzzleproof.formats.cityclose import read_map
        from tests.conftest import shared_path

        p = shared_path("instances/cityclose-world/world-land-borders.json")
        m = read_map(p.read_text(), str(p))
        E.solve(path(70))  # compiled before the clock starts
        r = E.solve(m, deadline=Deadline(3.0))
        assert r.status == Status.UNKNOWN and "limit" in r.stats["reason"]
        assert r.wall_time <= 2 * 3.0 + 5
        lb, ub = r.certificate["lower_bound"], r.certificate["upper_bound"]
        assert score_order(m, r.answer["order"]).total == ub and 0 < lb <= ub


class TestTiesAndTwins:
    def test_star_and_complete_map_of_30_are_a_line(self):
        star = _named(30, [(0, i) for i in range(1, 30)])
        full = _named(30, [(i, j) for i in range(30) for j in range(i + 1, 30)])
        for m, total in ((star, sum(j * j for j in range(1, 30))), (full, math.comb(31, 3))):
            r = E.solve(m)
            assert _checked(m, Rules(), r) == total
            assert r.certificate["states"] <= 30

    def test_twin_blocks(self):
        star = _named(4, [(0, 1), (0, 2), (0, 3)])
        assert E.twin_blocks(star) == [0, 0, 0b10, 0b110]
        assert E.twin_blocks(star, keep=0b100) == [0, 0, 0, 0b10]  # a kept city is apart
        tri = _named(3, [(0, 1), (1, 2), (0, 2)])
        assert E.twin_blocks(tri) == [0, 0b1, 0b11]
        assert E.twin_blocks(path(4)) == [0, 0, 0, 0]

    def test_twin_blocks_against_the_pairwise_definition(self):
        # twins: the same neighbours besides each other, neither kept; every connected graph
        # of up to 6 cities, with nothing kept and with a random set kept
        import random

        import networkx as nx

        rng = random.Random(4)
        for g in nx.graph_atlas_g()[1:209]:
            if not nx.is_connected(g):
                continue
            m = _named(g.number_of_nodes(), list(g.edges))
            for keep in (0, rng.randrange(1 << m.n)):
                want = [sum(1 << u for u in range(v)
                            if not (keep >> u | keep >> v) & 1
                            and m.adj[u] & ~(1 << v) == m.adj[v] & ~(1 << u))
                        for v in range(m.n)]
                assert E.twin_blocks(m, keep) == want, (g.edges, keep)

    def test_twins_with_rules_against_dp(self):
        # a hub with twin leaves and twin pairs, under every rule set: symmetry must not cut
        # the optimum when a kept city or a shape rule tells twins apart
        m = _named(8, [(0, 1), (0, 2), (0, 3), (0, 4), (4, 5), (4, 6), (5, 7), (6, 7)])
        for rules in RULES + [Rules(keep=frozenset({"c2"})), Rules(keep=frozenset({"c6"}),
                                                                    final_size=3)]:
            ref = D.dp(m, rules)
            for engine in ("word", "wide"):
                res = E.solve(m, rules, engine=engine)
                assert _total(res) == _total(ref), (rules, engine)


def _connected_graph(data) -> CityMap:
    n = data.draw(st.integers(2, 7), label="n")
    edges = data.draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                              max_size=12), label="edges")
    g = nx.path_graph(n) if data.draw(st.booleans(), label="spine") else nx.star_graph(n - 1)
    g.add_edges_from((a, b) for a, b in edges if a != b)
    return _named(n, sorted(tuple(sorted(e)) for e in g.edges))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_small_maps_exact_dp_brute_force(data):
    m = _connected_graph(data)
    final_size = data.draw(st.integers(1, m.n), label="final_size")
    no_paths = data.draw(st.sampled_from([None, 3, 4, 5]), label="no_paths")
    keep = data.draw(st.sets(st.sampled_from(m.names), max_size=2), label="keep")
    rules = Rules(final_size=final_size, no_paths=no_paths, keep=frozenset(keep),
                  final_not_path=data.draw(st.booleans(), label="final_not_path"))
    if len(keep) > final_size:
        return
    ref = brute_force(m, rules)
    assert _total(D.dp(m, rules)) == ref
    for engine in ("word", "wide"):
        res = E.solve(m, rules, engine=engine)
        assert _total(res) == ref, (m.links, rules, engine)
        if ref is not None:
            assert score_order(m, res.answer["order"], rules).total == ref


def _reference_beam(m: CityMap, rules: Rules, width: int, merged: bool) -> list[str] | None:
    """The article's beam search as written: every city of every beam tried, the model's
    Wiener numbers, a stable sort (the heuristics skip closings by a bound: same orders)."""
    from puzzleproof.models.cityclose import forbidden_shape, wiener_mask

    keep = rules.keep_mask(m)
    beams = [(wiener_mask(m.adj, m.full_mask), m.full_mask, [])]
    closings = m.n - rules.final_size
    for step in range(1, closings + 1):
        cands: list = []
        seen: dict[int, int] = {}
        for total, mask, order in beams:
            for v in range(m.n):
                if not mask >> v & 1 or keep >> v & 1:
                    continue
                child = mask & ~(1 << v)
                w = wiener_mask(m.adj, child)
                if w is None or forbidden_shape(m.adj, child, rules, step == closings):
                    continue
                cand = (total + w, child, order + [v])
                if merged and child in seen:
                    if cand[0] < cands[seen[child]][0]:
                        cands[seen[child]] = cand
                    continue
                seen[child] = len(cands)
                cands.append(cand)
        if not cands:
            return None
        cands.sort(key=lambda c: c[0])
        beams = cands[:width]
    return [m.names[v] for v in beams[0][2]]


def test_heuristics_equal_trying_every_city():
    from tests.cityclose.test_exact import _random_maps

    rng = random.Random(8)
    for m in _random_maps(20, 6, 14):
        rules = rng.choice([Rules(), Rules(final_size=3, no_paths=4),
                            Rules(final_size=2, final_not_path=True)])
        for width in (1, 3):
            for merged, fn in ((False, H.beam), (True, H.merged_beam)):
                got = fn(m, rules, width=width).answer
                assert (got and got["order"]) == _reference_beam(m, rules, width, merged)
        ref = _reference_beam(m, rules, 1, False)  # width 1: greedy, earlier city on ties
        got = H.greedy(m, rules, tiebreak="first").answer
        assert (got and got["order"]) == ref


@pytest.mark.slow
def test_heuristics_answer_on_the_world_map_within_their_limit():
    from puzzleproof.formats.cityclose import read_map
    from tests.conftest import shared_path

    p = shared_path("instances/cityclose-world/world-land-borders.json")
    m = read_map(p.read_text(), str(p))
    for fn in (H.greedy, H.merged_beam, H.beam):
        r = fn(m) if fn is H.greedy else fn(m, width=10, deadline=Deadline(60))
        assert r.status == Status.SOLVED, fn
        assert score_order(m, r.answer["order"]).total == r.answer["total"]
    r = H.merged_beam(m, width=10**9, deadline=Deadline(0.5))
    assert r.status == Status.UNKNOWN and "time limit" in r.stats["reason"]
    assert r.wall_time < 0.5 * 2 + 5


class TestMinimaUnderLimits:
    """The per-size minima stay exact when their search is cut into slices, and a size left
    unfinished still gives a true lower bound."""

    def test_sliced_search_gives_the_same_minima(self, monkeypatch):
        from puzzleproof.encoders import cityclose_minima as M
        from tests.cityclose.test_exact import _random_maps

        maps = _random_maps(6, 10, 14)
        whole = [M.min_wiener_by_size(m.adj, 1, m.n)[0] for m in maps]
        monkeypatch.setattr(M, "_CHUNK", 7)
        monkeypatch.setattr(M, "_FIRST_PASS", 40)
        for m, ref in zip(maps, whole):
            table, _, _ = M.min_wiener_by_size(m.adj, 1, m.n)
            assert (table[1:] == ref[1:]).all()

    def test_minima_on_several_words_and_their_bounds_when_cut(self):
        """On a map wider than a word (a ring of 70) the search finds the known minima, and
        every size it leaves unfinished keeps a true lower bound (checked on maps of one word
        against the finished search)."""
        from puzzleproof.encoders.cityclose_minima import min_wiener_by_size
        from puzzleproof.formats.cityclose import read_map
        from puzzleproof.models.cityclose import wiener_mask
        from tests.conftest import shared_path
        from tests.cityclose.test_exact import _random_maps

        p = shared_path("instances/cityclose/europe30.json")
        for m in _random_maps(4, 9, 13) + [read_map(p.read_text(), str(p))]:
            ref, _, _ = min_wiener_by_size(m.adj, 1, m.n)
            exact, lower, stats = min_wiener_by_size(m.adj, 1, m.n, cap=30)
            assert all(lower[k] <= ref[k] for k in range(1, m.n + 1)), m.links
            assert all(exact[k] in (-1, ref[k]) for k in range(1, m.n + 1))
        n = 70  # a ring of 70: the least connected set of k cities is a path, W = C(k+1, 3)
        ring = CityMap(tuple(f"c{i}" for i in range(n)), tuple((i, (i + 1) % n) for i in range(n)))
        exact, lower, _ = min_wiener_by_size(ring.adj, 2, 12)
        for k in range(2, 13):
            assert exact[k] == lower[k] == math.comb(k + 1, 3) == wiener_mask(ring.adj,
                                                                             (1 << k) - 1)


def test_first_order_takes_an_order_a_callable_or_falls_back_to_greedy():
    from puzzleproof.clock import Deadline

    m = cycle(8)
    order, total = E.first_order(m, Rules(), [0, 1, 2, 3, 4, 5, 6], Deadline(None))
    assert order == [0, 1, 2, 3, 4, 5, 6] and total == score_order(m, order).total
    seen = []

    def heuristic(deadline):
        seen.append(deadline)
        return [7, 6, 5, 4, 3, 2, 1]
    order, _ = E.first_order(m, Rules(), heuristic, Deadline(10.0))
    assert order == [7, 6, 5, 4, 3, 2, 1] and seen[0].left() <= 5.0
    order, total = E.first_order(m, Rules(), [0, 2], Deadline(None))  # illegal: greedy
    assert score_order(m, order).ok and total == score_order(m, order).total


def test_ilp_refuses_a_model_too_large_before_building_it():
    from puzzleproof.encoders import cityclose_ilp
    from puzzleproof.formats.cityclose import read_map
    from tests.conftest import shared_path

    p = shared_path("instances/cityclose-world/world-land-borders.json")
    m = read_map(p.read_text(), str(p))
    assert cityclose_ilp.model_size(m, Rules(), None) > cityclose_ilp.MAX_VARIABLES
    r = cityclose_ilp.solve(m, deadline=Deadline(30))
    assert r.status == Status.UNKNOWN and "Booleans" in r.stats["reason"]
    assert r.wall_time < 30 and score_order(m, r.answer["order"]).total == r.answer["total"]
    small = cycle(6)
    built = cityclose_ilp.build_model(small, Rules())
    assert cityclose_ilp.model_size(small, Rules(), None) == len(built.x) + len(built.p) + \
        len(built.y)
