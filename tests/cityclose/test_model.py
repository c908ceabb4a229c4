"""City closing: the model, the readers and writers, the article's heuristics, the checks."""

from __future__ import annotations

import json
import math

import pytest

from puzzleproof.errors import InputError
from puzzleproof.formats.cityclose import (order_json, read_map, read_order, render_svg,
                                           sniff, plot_steps, map_to_json)
from puzzleproof.models.cityclose import CityMap, Rules, score_order, wiener
from puzzleproof.result import Status
from puzzleproof.players import cityclose_article as H
from puzzleproof.encoders import cityclose_dp as D
from puzzleproof.verify.cityclose_methods import (check_answer, check_order, crosscheck_kind,
                                                  gaps, run)
from puzzleproof.method import Method
from puzzleproof.verify.crosscheck import Instance, run_crosscheck
from tests.conftest import shared_path
from tests.conftest import ROOT


def load(name: str) -> CityMap:
    p = shared_path(f"instances/cityclose/{name}")
    return read_map(p.read_text(), str(p))


def path_map(n: int) -> CityMap:
    return CityMap(tuple(f"c{i}" for i in range(n)), tuple((i, i + 1) for i in range(n - 1)))


def cycle_map(n: int) -> CityMap:
    return CityMap(tuple(f"c{i}" for i in range(n)), tuple((i, (i + 1) % n) for i in range(n)))


def star_map(m: int) -> CityMap:
    return CityMap(("hub",) + tuple(f"l{i}" for i in range(m)),
                   tuple((0, i + 1) for i in range(m)))


class TestClosedForms:
    @pytest.mark.parametrize("n", [2, 3, 5, 8])
    def test_path_closed_from_one_end(self, n):
        m = path_map(n)
        assert wiener(m) == math.comb(n + 1, 3)
        chk = score_order(m, [f"c{i}" for i in range(n - 1)])
        assert chk.ok and chk.total == math.comb(n + 2, 4)
        assert D.dp(m).answer["total"] == math.comb(n + 2, 4)
        # closing a middle city disconnects
        if n >= 3:
            bad = score_order(m, ["c1"] + [f"c{i}" for i in range(2, n)])
            assert [v["kind"] for v in bad.violations][0] == "disconnects"

    @pytest.mark.parametrize("n", [3, 4, 7, 10])
    def test_cycle(self, n):
        w = n ** 3 // 8 if n % 2 == 0 else (n ** 3 - n) // 8
        m = cycle_map(n)
        assert wiener(m) == w
        expected = w + math.comb(n + 1, 4)
        for res in (D.dp(m), H.greedy(m), H.beam(m), H.merged_beam(m)):
            assert res.answer["total"] == expected

    @pytest.mark.parametrize("k", [1, 3, 6])
    def test_star(self, k):
        m = star_map(k)
        assert wiener(m) == k * k
        res = D.dp(m)
        assert res.answer["total"] == sum(j * j for j in range(1, k + 1))
        assert res.answer["left"] == ["hub"]


class TestScoreOrder:
    def test_every_rule(self):
        m = path_map(6)
        chk = score_order(m, ["c0", "c0", "zz", "c2", True], Rules(keep=frozenset({"c2"})))
        kinds = [v["kind"] for v in chk.violations]
        assert kinds == ["closed-twice", "unknown-city", "kept-city", "disconnects",
                         "malformed", "wrong-final-size"]
        assert chk.total is None and not chk.ok

    def test_path_shapes(self):
        m = CityMap(tuple("abcde"), ((0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (0, 2)))
        chk = score_order(m, ["b"], Rules(final_size=4, no_paths=4))
        assert chk.ok  # a, c, d, e with a-c: a cycle
        chk = score_order(m, ["a", "b"], Rules(final_size=3, final_not_path=True))
        assert [v["kind"] for v in chk.violations] == ["final-path"]
        chk = score_order(m, ["a"], Rules(final_size=4, no_paths=4))
        assert [v["kind"] for v in chk.violations] == ["path-shape"]
        # the full map itself can break the rule
        assert score_order(path_map(4), ["c0"], Rules(final_size=3, no_paths=4)).violations[0][
            "step"] == 0

    def test_last_named_city(self):
        m = path_map(3)
        chk = score_order(m, ["c0", "c1", "c2"])
        assert chk.ok and chk.left == ["c2"] and chk.last_named == "c2"
        bad = score_order(m, ["c0", "c1", "c0"])
        assert not bad.ok

    def test_case_insensitive_and_codes(self):
        m = load("europe41-land-borders.json")
        assert m.index("albania") == m.index("ALB") == m.index("alb")

    def test_rules_validation(self):
        with pytest.raises(InputError):
            Rules(final_size=0)
        with pytest.raises(InputError):
            Rules(no_paths=2)
        with pytest.raises(InputError):
            Rules(keep=frozenset({"nowhere"})).keep_mask(path_map(3))


class TestArticle:
    def test_europe30_figures(self):
        m = load("europe30.json")
        assert m.n == 30 and len(m.links) == 47 and wiener(m) == 1463
        assert H.greedy(m).answer["total"] == 13343
        assert H.greedy(m, tiebreak="first").answer["total"] == 13352
        b = H.beam(m)
        assert b.answer["total"] == 13254 and b.status == Status.SOLVED
        assert H.merged_beam(m).answer["total"] <= 13254

    def test_blog_orders_rescored(self):
        m = load("europe30.json")
        text = shared_path("instances/cityclose/europe30-blog-orders.json").read_text()
        for key, total in (("greedy", 13343), ("beam_width_10", 13254)):
            o = read_order(text, key=key)
            v = check_order(m, o.order, claimed_wiener=o.claimed_wiener)
            assert v["ok"] and v["total"] == total, v["message"]
            assert v["optimality"] is None
        with pytest.raises(InputError, match="--key"):
            read_order(text)
        # the per-step file agrees with the re-scored orders
        steps = json.loads(shared_path(
            "instances/cityclose/europe30-blog-wiener-per-step.json").read_text())
        g = score_order(m, read_order(text, key="greedy").order)
        assert g.wiener[1:] == steps["greedy"][:29]

    def test_roundabout(self):
        m = load("two-spies-roundabout.json")
        assert m.n == 11 and {m.names[i] for i in m.marked} == {
            "London", "Berlin", "Geneva", "Paris", "Venice"}
        assert D.dp(m).answer["total"] == 372
        assert H.greedy(m).answer["total"] == 374
        # the three large cities are not linked to each other: no order can end on them
        apart = Rules(final_size=3, keep=frozenset({"London", "Berlin", "Geneva"}))
        assert run("dp", m, apart).status == Status.INFEASIBLE
        assert run("exact", m, apart).status == Status.INFEASIBLE
        keep = Rules(final_size=4, keep=frozenset({"London", "Berlin", "Geneva"}))
        r = run("dp", m, keep)
        assert r.status == Status.OPTIMAL and r.check["ok"]
        assert {"Berlin", "Geneva", "London"} < set(r.answer["left"])
        # heuristics honour the rules too
        for name in ("greedy", "beam", "merged-beam"):
            h = run(name, m, keep)
            assert h.answer is None or (h.check["ok"] and h.answer["total"] >= r.answer["total"])


BAD_MAPS = [
    ('{"cities": ["a", "b", "c"], "edges": [["a", "b"]]}', "disconnected"),
    ('{"cities": ["a", "b"], "edges": [["a", "x"]]}', "edges\\[0\\]: unknown city 'x'"),
    ('{"cities": ["a", "A"], "edges": [["a", "A"]]}', "appears twice"),
    ('{"cities": ["a", "b"], "edges": [["a", "a"]]}', "itself"),
    ('{"cities": [], "edges": []}', "empty"),
    ('{"cities": [1, 2], "edges": [[1, 2]]}', "cities\\[0\\]: expected a name"),
    ('{"cities": [{"name": "a", "lat": true, "lng": 1}], "edges": []}', "expected a number"),
    ('{"cities": ["a", "b"], "edges": [["a", "b"]', "bad JSON"),
    ('{"nodes": [{"code": "A", "name": "Aa"}, {"code": "A", "name": "Bb"}], "edges": []}',
     "already"),
    ('{"cities": ["a", "b"], "edges": [{"from": "a"}]}', "edges\\[0\\]"),
    ('{"cities": ["a", "b"], "edges": [["a", "b"]], "keep": ["zz"]}', "keep\\[0\\]"),
]


class TestReaders:
    @pytest.mark.parametrize("text,match", BAD_MAPS)
    def test_bad_json_maps(self, text, match):
        with pytest.raises(InputError, match=match) as err:
            read_map(text, "bad.json", "json")
        assert str(err.value).startswith("bad.json")
        assert "\n" not in str(err.value)

    def test_bad_edge_lists_name_the_line(self):
        with pytest.raises(InputError) as err:
            read_map("a b\n# c\nb c d\n", "m.txt", "edges")
        assert str(err.value).startswith("m.txt:3:")
        with pytest.raises(InputError, match="m.txt:2: link x-x"):
            read_map("a x\nx x\n", "m.txt", "edges")
        with pytest.raises(InputError, match="disconnected"):
            read_map("a b\nc d\n", "m.txt", "edges")
        with pytest.raises(InputError, match="empty"):
            read_map("# nothing\n", "m.txt", "edges")

    def test_huge_maps_refused_before_building(self):
        cities = json.dumps({"cities": [f"c{i}" for i in range(5001)], "edges": []})
        with pytest.raises(InputError, match="cities is 5,001, above the limit of 5,000"):
            read_map(cities, "big.json")
        big = "\n".join(f"x{i} x{i + 1}" for i in range(5001))
        with pytest.raises(InputError, match="cities is 5,001, above the limit of 5,000"):
            read_map(big, "big.txt", "edges")

    def test_formats_agree(self):
        import networkx as nx

        m = load("two-spies-roundabout.json")
        g = nx.Graph()
        g.add_edges_from((m.names[u], m.names[v]) for u, v in m.links)
        gml = "\n".join(nx.generate_gml(g))
        graphml = "\n".join(nx.generate_graphml(g))
        edges = "# cityclose\n" + "\n".join(f"{m.names[u]}\t{m.names[v]}" for u, v in m.links)
        for text in (gml, graphml, edges, map_to_json(m)):
            assert sniff(text)
            m2 = read_map(text, "x")
            assert wiener(m2) == wiener(m) and m2.n == m.n
        with pytest.raises(InputError, match="bad GML"):
            read_map("graph [ node [ id 1 ", "x.gml", "gml")

    def test_sniff_no_false_positives(self):
        root = shared_path("instances")
        seen = 0
        for sub in ("hashi", "skynet"):
            for p in sorted((root / sub).rglob("*"))[:200]:
                if p.is_file() and p.suffix in (".has", ".txt", ".json", ".jsonl", ""):
                    text = p.read_text(errors="replace")
                    if text.lstrip().startswith("{") and len(text) > 2_000_000:
                        continue
                    assert not sniff(text), p
                    seen += 1
        assert seen > 10
        for p in sorted((root / "cityclose").glob("*.json")):
            assert sniff(p.read_text()) == ("blog" not in p.name), p
        assert not sniff("7x7m2:a1b2")
        assert not sniff("3 2 1\n0 1\n1 2\n2\n")

    def test_order_round_trip(self, tmp_path):
        from puzzleproof.formats import write_atomic

        m = load("two-spies-roundabout.json")
        r = run("dp", m)
        path = tmp_path / "order.json"
        write_atomic(path, order_json(m, r, Rules()))
        doc = json.loads(path.read_text())
        assert doc["type"] == "cityclose-order" and doc["schema_version"] == 1
        assert doc["status"] == "OPTIMAL" and doc["total"] == 372
        o = read_order(path.read_text())
        assert check_order(m, o.order, claimed_total=o.claimed_total)["ok"]
        lines = read_order("\n".join(r.answer["order"]) + "\n")
        assert score_order(m, lines.order).total == 372
        with pytest.raises(InputError, match="order\\[0\\]"):
            read_order('{"order": [3]}')
        with pytest.raises(InputError, match="empty"):
            read_order("  \n")

    def test_pictures(self, tmp_path):
        m = load("europe30.json")
        ans = H.greedy(m).answer
        svg = render_svg(m, ans["order"])
        assert svg.startswith("<svg") and f"{ans['left'][0]} (left)" in svg
        assert "Dublin (1)" in svg
        plain = render_svg(cycle_map(5))  # no coordinates: a seeded layout
        assert plain == render_svg(cycle_map(5)) and plain.count("<circle") == 5
        pytest.importorskip("matplotlib")
        out = tmp_path / "steps.png"
        plot_steps({"greedy": H.greedy(m).answer["wiener"],
                    "beam": H.beam(m).answer["wiener"]}, str(out), "europe30")
        assert out.read_bytes()[:4] == b"\x89PNG"


class TestChecks:
    def test_tampered_certificate_fails(self):
        m = load("two-spies-roundabout.json")
        r = run("exact", m)
        assert r.status == Status.OPTIMAL and r.check["ok"]
        assert r.certificate["lower_bound"] == r.answer["total"] == 372
        bad = dict(r.answer, total=r.answer["total"] - 1)
        assert not check_answer(m, bad, Rules())["ok"]
        swapped = dict(r.answer, order=r.answer["order"][1:] + r.answer["order"][:1])
        assert not check_answer(m, swapped, Rules())["ok"]
        # an OPTIMAL claim on a worse order is caught by the independent DP
        g = H.greedy(m).answer["order"]
        v = check_order(m, g, claimed_status="OPTIMAL", claimed_method="exact")
        assert not v["ok"] and v["optimality"] == "not-optimal"
        v = check_order(m, r.answer["order"], claimed_status="OPTIMAL")
        assert v["ok"] and v["optimality"] == "proved-by-dp"
        v = check_order(m, g, optimum=372)
        assert v["ok"] and v["gap"] == pytest.approx(2 / 372)

    def test_a_given_optimum_disproved_is_a_failure(self):
        """A wrong --optimum is not taken on trust once disproved: below the DP's optimum
        (the gap then measured from the DP's, as the JSON says), or above a legal order's
        total on a map too large for the DP."""
        m = load("two-spies-roundabout.json")
        g = H.greedy(m).answer["order"]
        v = check_order(m, g, optimum=360)
        assert not v["ok"] and v["optimum"] == 372 and v["gap"] == pytest.approx(2 / 372)
        assert "2 above the optimum 372" in v["message"]
        assert [x["message"] for x in v["violations"]] == [
            "the given optimum 360 is not the optimum: the independent DP proves 372"]
        big = load("europe30.json")
        beam = H.beam(big).answer["order"]
        total = score_order(big, beam).total
        v = check_order(big, beam, optimum=total + 100)
        assert not v["ok"] and [x["kind"] for x in v["violations"]] == ["wrong-optimum"]
        assert "taken on trust" not in v["message"] and "below the given" in v["message"]
        assert f"this legal order scores {total}" in v["violations"][0]["message"]
        v = check_order(big, beam, optimum=total - 1)
        assert v["ok"] and "taken on trust" in v["message"]

    def test_large_map_is_not_reverified(self):
        m = load("europe30.json")
        v = check_order(m, H.beam(m).answer["order"], claimed_status="OPTIMAL",
                        claimed_method="exact")
        assert v["optimality"] == "not-re-verified" and "not re-verified" in v["message"]

    def test_crosscheck_finds_a_false_optimum(self):
        m = load("two-spies-roundabout.json")
        kind = crosscheck_kind(["dp", "greedy", "beam"])
        kind.methods["liar"] = Method("liar", "exact", run=_liar)
        kind.methods["cheat"] = Method("cheat", "heuristic", run=_cheat)
        rep = run_crosscheck(kind, [Instance("round", m)], ["dp", "greedy", "liar", "cheat"],
                             jobs=1)
        kinds = sorted(d["kind"] for d in rep.disagreements)
        assert "optimal-above-order" in kinds and "below-optimum" in kinds
        # the cheat's illegal order: once, as the harness's invalid answer
        assert kinds.count("invalid-answer") == 1 and "illegal-order" not in kinds
        g = gaps([r for r in rep.records if r["method"] != "liar"])
        assert g["dp"] == 0 and g["greedy"] == pytest.approx(2 / 372)


def _liar(m, *, deadline):
    res = H.greedy(m)  # 374, claimed optimal
    res.status = Status.OPTIMAL
    return res


def _cheat(m, *, deadline):
    res = H.greedy(m)
    res.answer = dict(res.answer, total=100)
    return res


class TestGenerated:
    def test_shipped_maps_keep_their_evidence(self):

        from puzzleproof.encoders import cityclose_exact

        folder = ROOT / "instances" / "cityclose"
        files = sorted(folder.glob("*.json"))
        assert len(files) == 6
        for p in files:
            text = p.read_text()
            assert sniff(text)
            m = read_map(text, str(p))
            ev = json.loads(text)["evidence"]
            assert H.greedy(m).answer["total"] == ev["greedy"]
            assert H.beam(m).answer["total"] == ev["beam"]
            assert cityclose_exact.solve(m).answer["total"] == ev["optimum"]
            assert score_order(m, ev["optimal_order"]).total == ev["optimum"]
            assert max(ev["greedy"], ev["beam"]) >= 1.01 * ev["optimum"]

    def test_generator_is_seeded_and_keeps_only_far_maps(self):
        from puzzleproof.generate.cityclose import generate, random_map
        import random

        a = generate("grid", 10, count=1, seed=5, min_gap=0.0)
        b = generate("grid", 10, count=1, seed=5, min_gap=0.0)
        assert a[0].map.links == b[0].map.links and a[0].evidence == b[0].evidence
        far = generate("ring", 12, count=1, seed=2, min_gap=0.03)
        ev = far[0].evidence
        assert max(ev["greedy_gap"], ev["beam_gap"]) >= 0.03
        d = random_map("delaunay", 12, random.Random(0))
        assert d.is_connected() and len(d.links) <= 3 * d.n - 6  # planar
