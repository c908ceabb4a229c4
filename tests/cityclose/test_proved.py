"""Proved means proved: when a checked order's total meets a proved lower bound, city closing
answers OPTIMAL whatever stopped the search (the clock, a cap), with the proof named; every
bound a stopped method reports is checked against the plain DP's optimum."""

from __future__ import annotations

import itertools
import random

import networkx as nx
import pytest

from puzzleproof.clock import Deadline
from puzzleproof.encoders import cityclose_dp as D
from puzzleproof.encoders import cityclose_exact, cityclose_ilp
from puzzleproof.models.cityclose import CityMap, Rules, score_order
from puzzleproof.result import Result, Status
from puzzleproof.verify import cityclose_methods as CM


def star(k: int) -> CityMap:
    return CityMap(tuple(f"c{i}" for i in range(k)), tuple((0, i) for i in range(1, k)),
                   name=f"star{k}")


def complete(k: int) -> CityMap:
    return CityMap(tuple(f"c{i}" for i in range(k)),
                   tuple((i, j) for i in range(k) for j in range(i + 1, k)), name=f"k{k}")


def path(k: int) -> CityMap:
    return CityMap(tuple(f"c{i}" for i in range(k)), tuple((i, i + 1) for i in range(k - 1)))


class AfterCalls(Deadline):
    """A deadline that passes at its ``calls``-th look (a search stopped at a chosen step,
    whatever the machine's speed); unlimited until then."""

    def __init__(self, calls: int) -> None:
        super().__init__(None)
        self.calls = calls

    def expired(self) -> bool:
        self.calls -= 1
        return self.calls < 0

    def left(self) -> float | None:
        return 0.0 if self.calls < 0 else None

    def share(self, fraction: float, *, at_least: float = 0.0) -> Deadline:
        return self


def random_map(rng: random.Random, n: int) -> CityMap:
    while True:
        g = nx.gnp_random_graph(n, rng.uniform(0.25, 0.6), seed=rng.randrange(10**9))
        if nx.is_connected(g):
            return CityMap(tuple(f"v{i}" for i in range(n)), tuple(g.edges))


@pytest.fixture(scope="module", autouse=True)
def _warm():
    CM.warm_exact()  # compiled code loaded once: a test's clock starts after it


class TestExact:
    def test_the_root_bound_closes_the_star_whatever_the_clock(self):
        """The issue's case: a star of 30 under a limit that ran out before the first
        layer; the root's bound meets greedy's order, so it is OPTIMAL, the proof named."""
        r = cityclose_exact.solve(star(30), deadline=Deadline(0.0))
        assert r.status is Status.OPTIMAL and r.answer["total"] == 8555
        assert r.certificate["lower_bound"] == 8555 == score_order(
            star(30), [star(30).index(c) for c in r.answer["order"]]).total
        assert r.certificate["closed_by"] == cityclose_exact.CLOSED_BY["root"]
        assert "time limit" in r.stats["stopped"] and "reason" not in r.stats

    def test_a_gap_stays_unknown(self):
        m = path(14)
        opt = D.dp(m).answer["total"]
        r = cityclose_exact.solve(m, deadline=Deadline(0.0))
        assert r.status is Status.UNKNOWN and "closed_by" not in r.certificate
        assert r.certificate["lower_bound"] < opt == r.answer["total"]

    def test_every_stop_is_sound(self):
        """Stopped at every look at the clock in turn (without an incumbent, or with an
        optimal one): each OPTIMAL is the DP's optimum, and each UNKNOWN's bound at most it."""
        closed = set()
        for seed, calls, with_best in itertools.product(range(6), range(0, 40, 3), (0, 1)):
            rng = random.Random(seed)
            m = random_map(rng, rng.randint(7, 10))
            best = D.dp(m).answer
            opt = best["total"]
            incumbent = [m.index(c) for c in best["order"]] if with_best else None
            r = cityclose_exact.solve(m, deadline=AfterCalls(calls), incumbent=incumbent)
            lb = r.certificate["lower_bound"]
            closed.add(r.certificate.get("closed_by"))
            if r.status is Status.OPTIMAL:
                assert r.answer["total"] == opt == lb, (calls, r.certificate)
                assert r.certificate["closed_by"] in cityclose_exact.CLOSED_BY.values()
            else:
                assert r.status is Status.UNKNOWN and (lb is None or lb <= opt), calls
        # the stops meet bounds that close the search early, not only complete ones
        assert closed & {cityclose_exact.CLOSED_BY["root"], cityclose_exact.CLOSED_BY["layer"]}


class TestIlp:
    def test_the_trivial_bound_closes_a_complete_map(self):
        """A complete map's every order scores the trivial bound: the ILP, stopped while
        building its model, still answers OPTIMAL and names the bound."""
        m = complete(9)
        r = cityclose_ilp.solve(m, deadline=Deadline(0.0))
        assert r.status is Status.OPTIMAL
        assert r.answer["total"] == r.certificate["lower_bound"] == sum(
            s * (s - 1) // 2 for s in range(1, 10))
        assert r.certificate["closed_by"] == cityclose_ilp.TRIVIAL_BOUND
        assert "stopped" in r.stats and "reason" not in r.stats

    def test_a_gap_stays_unknown(self):
        r = cityclose_ilp.solve(star(12), deadline=Deadline(0.0))
        assert r.status is Status.UNKNOWN
        assert r.certificate["lower_bound"] < r.answer["total"] == D.dp(star(12)).answer[
            "total"]

    def test_a_finished_solve_names_the_solvers_bound(self):
        r = cityclose_ilp.solve(star(6))
        assert r.status is Status.OPTIMAL
        assert r.certificate["closed_by"] in (cityclose_ilp.SOLVER_BOUND,
                                              cityclose_ilp.TRIVIAL_BOUND)


class TestDp:
    def test_a_stopped_dp_closes_a_complete_map(self):
        m = complete(12)
        r = D.dp(m, deadline=AfterCalls(2))
        assert r.status is Status.OPTIMAL and r.certificate["closed_by"] == D.CLOSED_BY["bound"]
        assert r.answer["total"] == r.certificate["lower_bound"] == D.dp(m).answer["total"]
        assert r.stats["stopped"].startswith("time limit")

    def test_a_gap_stays_unknown_with_an_order(self):
        m = path(12)
        r = D.dp(m, deadline=Deadline(0.0))
        assert r.status is Status.UNKNOWN
        assert score_order(m, [m.index(c) for c in r.answer["order"]]).ok
        assert r.certificate["lower_bound"] < r.answer["total"]

    @pytest.mark.parametrize("seed", range(8))
    def test_every_stop_is_sound(self, seed):
        rng = random.Random(100 + seed)
        m = random_map(rng, rng.randint(6, 10))
        rules = Rules(final_size=rng.choice([1, 1, 2, 3]))
        full = D.dp(m, rules)
        opt = full.answer["total"]
        for layers in range(m.n):
            r = D.dp(m, rules, deadline=AfterCalls(layers))
            lb = r.certificate["lower_bound"]
            assert lb <= opt, (layers, lb, opt)
            if r.status is Status.OPTIMAL:
                assert r.answer["total"] == opt


class TestChecked:
    """The method table's check: an UNKNOWN whose own bound meets its checked order is
    OPTIMAL for every method (a rule held once, past the methods' own)."""

    @staticmethod
    def fake(total_shift: int):
        def solver(m, rules, *, deadline, seed=0, width=None, tiebreak="last"):
            order = [m.index(c) for c in D.dp(m, rules).answer["order"]]
            chk = score_order(m, order, rules)
            answer = {"order": [m.names[v] for v in order], "wiener": chk.wiener,
                      "total": chk.total}
            return Result("cityclose", Status.UNKNOWN, answer,
                          {"method": "fake", "lower_bound": chk.total - total_shift},
                          solver="fake", stats={"reason": "time limit"})
        return solver

    def test_an_equal_bound_gives_optimal(self):
        r = CM.run_checked(self.fake(0), star(7), deadline=Deadline(None))
        assert r.status is Status.OPTIMAL and r.check["ok"]
        assert r.certificate["closed_by"] == CM.BOUND_MEETS_ORDER
        assert r.stats["stopped"] == "time limit"

    def test_a_lower_bound_stays_unknown(self):
        r = CM.run_checked(self.fake(1), star(7), deadline=Deadline(None))
        assert r.status is Status.UNKNOWN

    @pytest.mark.parametrize("name", CM.EXACT_METHODS)
    def test_each_exact_method_proves_the_star_at_a_spent_limit(self, name):
        """Through the method table, each exact method under a limit already spent: the
        ones whose bound meets their order say OPTIMAL, never UNKNOWN at a zero gap."""
        r = CM.run(name, complete(8), deadline=Deadline(0.0))
        cert = r.certificate or {}
        if r.answer is not None and cert.get("lower_bound") == r.answer["total"]:
            assert r.status is Status.OPTIMAL and cert.get("closed_by")
        assert r.status is not Status.UNKNOWN or cert.get("lower_bound") != (
            r.answer or {}).get("total")


def _rec(method: str, exact: bool, status: str, total: int | None, lb: int | None = None):
    return {"method": method, "exact": exact, "status": status, "check_ok": True,
            "violations": [], "stats": {},
            "answer": None if total is None else {"total": total, "order": ["a"]},
            "certificate": None if lb is None else {"lower_bound": lb}}


class TestCrosscheck:
    def test_a_bound_meeting_another_methods_order_proves_the_optimum(self):
        recs = [_rec("exact", True, "UNKNOWN", 110, lb=100),
                _rec("merged-beam", False, "SOLVED", 100), _rec("greedy", False, "SOLVED", 105)]
        opt, by = CM.proved_optimum(recs)
        assert opt == 100 and "exact" in by and "merged-beam" in by
        assert CM.gaps(recs) == {"exact": 0.1, "merged-beam": 0.0, "greedy": 0.05}

    def test_an_open_gap_proves_nothing(self):
        recs = [_rec("exact", True, "UNKNOWN", 110, lb=99), _rec("greedy", False, "SOLVED", 100)]
        assert CM.proved_optimum(recs) is None and CM.gaps(recs) == {}

    def test_a_bound_above_a_checked_order_is_a_disagreement(self):
        from puzzleproof.verify.crosscheck import Instance

        recs = [_rec("exact", True, "UNKNOWN", 110, lb=101), _rec("greedy", False, "SOLVED", 100)]
        found = CM.cityclose_disagreements(("exact",), Instance("x", None), recs)
        assert [k for k, _, _ in found] == ["bound-above-order"]

    def test_the_gap_table_shows_the_optimum(self):
        from puzzleproof.puzzles.cityclose_runs import gap_row

        recs = [_rec("exact", True, "UNKNOWN", 110, lb=100),
                _rec("merged-beam", False, "SOLVED", 100)]
        row = gap_row("x", star(4), None, recs, ["exact", "merged-beam"], Rules())
        assert row["optimum"] == 100 and "merged-beam" in row["proved_by"]


def test_the_command_says_optimal_for_the_star_at_a_tiny_limit(capsys, tmp_path):
    """``solve cityclose STAR30 --time-limit ...`` once printed UNKNOWN at a zero gap."""
    import json

    from puzzleproof.cli import main

    f = tmp_path / "star30.json"
    f.write_text(json.dumps({"type": "cityclose", "name": "star30",
                             "cities": [f"c{i}" for i in range(30)],
                             "edges": [["c0", f"c{i}"] for i in range(1, 30)]}))
    assert main(["solve", "cityclose", str(f), "--time-limit", "0.001"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("star30: OPTIMAL, total 8555") and "meets the incumbent" in out
