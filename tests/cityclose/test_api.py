"""City closing through the Python API (``puzzleproof.solve / check / render / crosscheck /
generate``): the same plugin as the command, the same answers, options checked by the same
rows. Kept fast: maps of at most 14 cities."""

from __future__ import annotations

import itertools
import json

import pytest

import puzzleproof
from puzzleproof.errors import UsageError
from puzzleproof.models.cityclose import CityMap, Rules, score_order
from puzzleproof.result import Status
from tests.conftest import INSTANCES

RING = str(INSTANCES / "cityclose" / "ring14-s1-0.json")  # optimum 1315, greedy 1397


def _brute_force(m: CityMap, rules: Rules) -> int | None:
    """The least total over every order of closings (independent of every solver)."""
    best = None
    closable = [c for c in m.names if c not in rules.keep]
    for order in itertools.permutations(closable, m.n - rules.final_size):
        chk = score_order(m, list(order), rules)
        if chk.ok and (best is None or chk.total < best):
            best = chk.total
    return best


SMALL = CityMap(("a", "b", "c", "d", "e", "f"),
                ((0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (2, 4), (4, 5), (5, 3)))


class TestSolve:
    def test_a_shipped_map_is_proved_at_its_evidence(self):
        res = puzzleproof.solve(RING)
        assert res.status is Status.OPTIMAL and res.check["ok"]
        assert res.answer["total"] == 1315 == res.certificate["lower_bound"]
        assert res.check["checked_by"] == "puzzleproof.models.cityclose.score_order"
        greedy = puzzleproof.solve(RING, method="greedy")
        assert greedy.status is Status.SOLVED and greedy.answer["total"] == 1397

    @pytest.mark.parametrize("method", ["exact", "dp", "ilp"])
    @pytest.mark.parametrize("rules", [{}, {"final_size": 2}, {"keep": ["c"], "final_size": 2},
                                       {"no_paths": 4}])
    def test_exact_methods_match_brute_force_on_a_model_object(self, method, rules):
        res = puzzleproof.solve(SMALL, method=method, time_limit=60, **rules)
        keep = frozenset(rules.get("keep", ()))
        best = _brute_force(SMALL, Rules(rules.get("final_size", 1), keep,
                                         rules.get("no_paths")))
        assert res.status is Status.OPTIMAL and res.check["ok"], res.stats
        assert res.answer["total"] == best
        assert not set(res.answer["order"]) & keep

    def test_options_are_checked_by_the_commands_rows(self):
        with pytest.raises(UsageError, match="no_paths: expected a whole number in the "
                                             "range 3"):
            puzzleproof.solve(RING, no_paths=2)
        with pytest.raises(UsageError, match="solve takes one method"):
            puzzleproof.solve(RING, method="beam,greedy")
        with pytest.raises(UsageError, match="unknown method nope"):
            puzzleproof.solve(RING, method="nope")
        with pytest.raises(TypeError, match="takes no option 'colour'"):
            puzzleproof.solve(RING, colour="red")
        from puzzleproof.errors import InputError

        with pytest.raises(InputError, match="no city 'Atlantis' on the map"):
            puzzleproof.solve(RING, keep=["Atlantis"])

    def test_a_limit_gives_unknown_with_bounds(self):
        res = puzzleproof.solve(str(INSTANCES / "cityclose" / "ring14-s1-1.json"),
                                method="dp", time_limit=1e-6)
        # stopped before its first layer: the trivial bound, and greedy's order from the top
        lb, ub = res.certificate["lower_bound"], res.certificate["upper_bound"]
        assert res.status is Status.UNKNOWN and lb < ub == res.answer["total"]
        assert res.check["ok"] and "time limit" in res.stats["reason"]


class TestCheck:
    def test_a_solved_order_holds_and_a_tampered_one_does_not(self):
        res = puzzleproof.solve(RING, method="beam")
        out = puzzleproof.check(RING, res.answer)
        assert out.ok and out.record["total"] == res.answer["total"]
        assert out.record["map"] == "ring14-s1-0" and out.exit_code == 0
        out = puzzleproof.check(RING, dict(res.answer, total=res.answer["total"] - 1))
        assert not out.ok and out.exit_code == 1
        assert [v["kind"] for v in out.record["violations"]] == ["wrong-total"]

    def test_a_list_of_names_under_the_options_rules(self):
        m = SMALL
        order = ["f", "e", "a", "b"]
        assert not puzzleproof.check(m, order).ok  # the default rules close down to one
        out = puzzleproof.check(m, order, final_size=2)
        assert out.ok and out.record["left"] == ["c", "d"]
        assert out.record["total"] == score_order(m, order, Rules(2)).total

    def test_a_claimed_optimum_is_reproved(self):
        res = puzzleproof.solve(RING)
        claim = dict(res.answer, type="cityclose-order", status="OPTIMAL", method="exact")
        assert puzzleproof.check(RING, claim).record["optimality"] == "proved-by-dp"
        worse = puzzleproof.solve(RING, method="greedy").answer
        out = puzzleproof.check(RING, dict(worse, type="cityclose-order", status="OPTIMAL"))
        assert not out.ok and "not-optimal" in [v["kind"] for v in out.record["violations"]]


def test_render_draws_the_map_and_an_order(tmp_path):
    pic = puzzleproof.render(RING)
    assert pic.kind == "svg" and pic.ok and pic.data.startswith("<svg")
    text = puzzleproof.render(RING, kind="text").data
    assert text.startswith("ring14-s1-0: 14 cities, 16 links, Wiener number 291")
    solved = puzzleproof.render(RING, kind="text", do_solve=True, method="greedy")
    assert "ring14-s1-0: SOLVED 1397 (greedy)" in solved.data and "closed at step 1" in \
        solved.data
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("c03\nc03\n")
    pic = puzzleproof.render(RING, order_arg=str(wrong))
    assert not pic.ok and "NOT a legal order" in pic.data and "breaks the rules" in \
        pic.notes[0]


def test_crosscheck_returns_the_summary_with_the_gaps(tmp_path):
    runs = tmp_path / "runs.jsonl"
    out = puzzleproof.crosscheck([RING], method="dp,greedy", output=str(runs))
    assert out.ok and out.record["puzzle"] == "cityclose" and out.record["disagreements"] == []
    row = out.record["maps"][0]
    assert row["optimum"] == 1315 == row["reference"] and row["proved_by"] == "dp"
    assert row["methods"]["greedy"]["gap"] == pytest.approx((1397 - 1315) / 1315)
    recs = [json.loads(ln) for ln in runs.read_text().splitlines()]
    assert sum(r["type"] == "record" for r in recs) == 2
    assert {r["puzzle"] for r in recs if r["type"] == "record"} == {"cityclose"}


def test_generate_yields_maps_whose_evidence_holds(tmp_path):
    got = list(puzzleproof.generate("cityclose", kind="ring", cities=10, count=2, seed=3))
    assert [g.name for g in got] == ["ring10-s3-0", "ring10-s3-1"]
    for g in got:
        ev = g.record["evidence"]
        assert ev["optimum"] < ev["greedy"] and ev["seed"] == 3
        path = tmp_path / f"{g.name}.json"
        path.write_text(g.files[f"{g.name}.json"])
        res = puzzleproof.solve(str(path), method="dp")
        assert res.status is Status.OPTIMAL and res.answer["total"] == ev["optimum"]
    with pytest.raises(UsageError, match="--keep is for solving a given map"):
        list(puzzleproof.generate("cityclose", keep=["c00"]))
