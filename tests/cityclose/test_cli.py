"""City closing's commands end to end, through ``puzzleproof.cli.main``: solve, check, render,
convert, crosscheck, generate and plot, with their rules options, exit codes and files.

Kept fast: the exact method runs only on maps of at most 14 cities (europe30's proof takes
25-35 s and is measured by benchmarks/cityclose.py, not here); on europe30 only the
heuristics and a one-second UNKNOWN run.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from puzzleproof.formats.cityclose import read_map
from tests.conftest import INSTANCES, run, shared_path

GENERATED = INSTANCES / "cityclose"
RING = str(GENERATED / "ring14-s1-0.json")  # optimum 1315, greedy and beam 1397


def shared(name: str) -> str:
    return str(shared_path(f"instances/cityclose/{name}"))


def evidence(path) -> dict:
    return json.loads(open(path).read())["evidence"]


# -- solve --------------------------------------------------------------------------------

class TestSolve:
    def test_each_generated_map_is_proved_at_its_evidence(self, capsys):
        code, out, err = run(capsys, "solve", "cityclose", GENERATED, "--json", "-q")
        assert code == 0, err
        recs = json.loads(out)
        assert len(recs) == 6
        for r in recs:
            ev = evidence(GENERATED / f"{r['name']}.json")
            assert r["status"] == "OPTIMAL" and r["check"]["ok"]
            assert r["answer"]["total"] == ev["optimum"]
            assert r["reference"] == f"= reference optimum {ev['optimum']}"
            assert r["wall_time"] >= 0 and r["peak_rss_mb"] > 0
        # the table: one row per map
        code, out, _ = run(capsys, "solve", GENERATED, "-q")
        assert code == 0 and out.count("OPTIMAL") >= 6 and "6 OPTIMAL" in out

    def test_jsonl_records_carry_the_bounds_json_and_output_carry(self, capsys, tmp_path):
        """A stream of records says what a single one says: the certificate with both
        bounds (issue 32: --jsonl of a folder dropped it)."""
        code, out, _ = run(capsys, "solve", "cityclose", GENERATED, "--json", "-q")
        full = {r["name"]: r for r in json.loads(out)}
        code, out, _ = run(capsys, "solve", "cityclose", GENERATED, "--jsonl", "-q")
        lines = [json.loads(ln) for ln in out.splitlines()]
        records = tmp_path / "records.jsonl"
        assert run(capsys, "solve", "cityclose", GENERATED, "-q", "-o", records)[0] == 0
        written = [json.loads(ln) for ln in records.read_text().splitlines()]
        assert code == 0 and len(lines) == len(written) == len(full) == 6
        for rec in lines + written:
            cert = rec["certificate"]
            assert cert["lower_bound"] == cert["upper_bound"] == rec["answer"]["total"]
            assert cert == full[rec["name"]]["certificate"]
        # an UNKNOWN keeps what was proved: both bounds, in the stream too
        africa = shared_path("instances/cityclose-world/africa-land-borders.json")
        code, out, _ = run(capsys, "solve", "cityclose", africa,
                           GENERATED / "ring14-s1-0.json", "--time-limit", "1", "--jsonl",
                           "-q")
        got = next(json.loads(ln) for ln in out.splitlines() if "africa" in ln)
        assert got["status"] == "UNKNOWN"
        assert got["certificate"]["lower_bound"] < got["certificate"]["upper_bound"]

    def test_one_map_prints_order_wiener_numbers_total(self, capsys):
        code, out, _ = run(capsys, "solve", "cityclose", RING)
        assert code == 0
        assert "ring14-s1-0: OPTIMAL, total 1315" in out
        assert "= reference optimum 1315" in out and "legal, re-scored by the rules" in out
        rows = re.findall(r"^\s+(\d+)\s+(\S+)\s+(\d+)\s+(\d+)$", out, re.M)
        assert len(rows) == 14 and rows[0][1] == "-"
        assert sum(int(r[3]) for r in rows) == 1315
        # the puzzle is inferred from the file
        code, out2, _ = run(capsys, "solve", RING, "--method", "greedy")
        assert code == 0 and "SOLVED, total 1397" in out2 and "heuristic" in out2

    def test_roundabout(self, capsys):
        rb = shared("two-spies-roundabout.json")
        code, out, _ = run(capsys, "solve", "cityclose", rb)
        assert code == 0 and "Roundabout: OPTIMAL, total 372" in out
        code, out, _ = run(capsys, "solve", "cityclose", rb, "--method", "dp")
        assert code == 0 and "OPTIMAL, total 372" in out
        code, out, _ = run(capsys, "solve", "cityclose", rb, "--method", "greedy")
        assert code == 0 and "SOLVED, total 374" in out
        # a map beyond the plain DP: said so, not as a limit that ran out
        eu41 = INSTANCES / "cityclose-europe" / "europe41-land-borders.json"
        code, out, _ = run(capsys, "solve", "cityclose", eu41, "--method", "dp")
        assert code == 0 and "beyond its reach: the plain DP stops at 26 cities" in out
        # the large cities and starts kept: closing down to one city is impossible (exit 1)
        code, out, _ = run(capsys, "solve", "cityclose", rb, "--keep-marked")
        assert code == 1 and "INFEASIBLE" in out and "keep Berlin, Geneva" in out
        assert "5 cities are kept but the map closes down to 1: add --final-size 5" in out
        # ... but five may be left, as the marked cities, and no line of 4 on the way
        code, out, _ = run(capsys, "solve", "cityclose", rb, "--keep-marked", "--final-size",
                           "5", "--no-paths", "--json")
        rec = json.loads(out)
        assert code == 0 and rec["status"] == "OPTIMAL" and rec["answer"]["total"] == 373
        assert sorted(rec["answer"]["left"]) == ["Berlin", "Geneva", "London", "Paris",
                                                 "Venice"]
        assert rec["rules"] == {"final_size": 5, "keep": ["Berlin", "Geneva", "London",
                                                          "Paris", "Venice"],
                                "no_paths": 4, "final_not_path": False}

    def test_article_heuristics_on_europe30(self, capsys):
        e30 = shared("europe30.json")
        for method, extra, total in (("greedy", [], 13343), ("greedy", ["--tiebreak", "first"],
                                                              13352),
                                     ("beam", [], 13254), ("merged-beam", [], 13239)):
            code, out, _ = run(capsys, "solve", "cityclose", e30, "--method", method, *extra,
                               "--json")
            rec = json.loads(out)
            assert code == 0 and rec["status"] == "SOLVED" and rec["check"]["ok"]
            assert rec["answer"]["total"] == total, (method, extra)

    def test_a_limit_gives_unknown_with_both_bounds(self, capsys):
        # (Africa's 49 countries: europe30 is now proved within 0.3 s at times)
        africa = str(shared_path("instances/cityclose-world/africa-land-borders.json"))
        code, out, _ = run(capsys, "solve", "cityclose", africa, "--time-limit", "0.3")
        assert code == 0
        first = out.splitlines()[0]
        # an order no better than the optimum 63562 (the widened merged beam's, or greedy's
        # 63926 when the beam ran out of its share)
        best = re.match(r"africa-land-borders: UNKNOWN: best order (\d+),", first)
        assert best and 63562 <= int(best.group(1)) <= 63926, first
        assert "proved lower bound" in first and "the time limit of 0.3 s ran out" in first
        code, out, _ = run(capsys, "solve", "cityclose", africa, "--time-limit", "0.3", "--json")
        rec = json.loads(out)
        lb, ub = rec["certificate"]["lower_bound"], rec["certificate"]["upper_bound"]
        assert rec["status"] == "UNKNOWN" and lb < ub == rec["answer"]["total"]

    def test_rules_options(self, capsys, tmp_path):
        order = tmp_path / "o.json"
        code, out, _ = run(capsys, "solve", "cityclose", RING, "--final-size", "3",
                           "--final-not-path", "--no-paths=5", "-o", order)
        assert code == 0 and "final size 3; no paths of 5+ cities; the last map no path" in out
        doc = json.loads(order.read_text())
        assert doc["rules"] == {"final_size": 3, "keep": [], "no_paths": 5,
                                "final_not_path": True}
        assert len(doc["left"]) == 3 and doc["status"] == "OPTIMAL"
        # check reads the rules from the file (no options), and the DP re-proves the optimum
        code, out, _ = run(capsys, "check", "cityclose", RING, order)
        assert code == 0 and "(from the order file)" in out
        assert "optimal: the independent DP proves" in out
        # the same order under the default rules ends on the wrong number of cities
        code, out, err = run(capsys, "check", "cityclose", RING, order, "--final-size", "1")
        assert code == 1 and "wrong-final-size" in out and "replace the rules" in err
        # misuse: a city not on the map, a final size beyond the map
        code, _, err = run(capsys, "solve", "cityclose", RING, "--keep", "Atlantis")
        assert code == 2 and "no city 'Atlantis' on the map" in err
        code, _, err = run(capsys, "solve", "cityclose", RING, "--final-size", "99")
        assert code == 2 and "exceeds the map's 14 cities" in err
        code, _, err = run(capsys, "solve", "cityclose", RING, "--no-paths=2")
        assert code == 2
        # K is optional: a map right after --no-paths is not taken silently for K
        code, _, err = run(capsys, "solve", "cityclose", "--no-paths", RING)
        assert code == 2 and "put it after the map (MAP --no-paths)" in err
        # an illegal order's claimed total is not a second report of the same fault
        wrong = tmp_path / "twice.json"
        wrong.write_text(json.dumps({"order": ["c03", "c03"], "total": 5}))
        code, out, _ = run(capsys, "check", "cityclose", RING, wrong)
        assert code == 1 and "closed-twice" in out and "wrong-total" not in out
        # kept cities are never closed
        code, out, _ = run(capsys, "solve", "cityclose", RING, "--keep", "C03", "--keep",
                           "c04", "--final-size", "2", "--json")
        rec = json.loads(out)
        assert code == 0 and sorted(rec["answer"]["left"]) == ["c03", "c04"]
        # two cities that are not linked cannot be the last two: proved INFEASIBLE, exit 1
        code, out, _ = run(capsys, "solve", "cityclose", RING, "--keep", "c03", "--keep",
                           "c07", "--final-size", "2")
        assert code == 1 and "INFEASIBLE: proved" in out

    @pytest.mark.slow
    def test_the_methods_agree_on_a_small_map(self, capsys, tmp_path):
        small = tmp_path / "small.edges"
        small.write_text("a b\nb c\nc d\nd e\ne a\na c\nc f\nf g\ng d\n")
        totals = {}
        for method in ("exact", "ilp", "ilp-scip", "ilp-highs", "dp", "merged-beam", "beam",
                       "greedy"):
            code, out, _ = run(capsys, "solve", "cityclose", small, "--method", method,
                               "--json", "--time-limit", "60")
            rec = json.loads(out)
            assert code == 0 and rec["check"]["ok"]
            totals[method] = (rec["status"], rec["answer"]["total"])
        exact = ("exact", "ilp", "ilp-scip", "ilp-highs", "dp")
        assert {totals[m] for m in exact} == {("OPTIMAL", 86)}, totals
        assert all(t >= 86 and st == "SOLVED" for m, (st, t) in totals.items()
                   if m not in exact)


# -- check --------------------------------------------------------------------------------

class TestCheck:
    def test_blog_orders_rescored(self, capsys):
        e30, blog = shared("europe30.json"), shared("europe30-blog-orders.json")
        code, out, _ = run(capsys, "check", "cityclose", e30, blog, "--key", "greedy")
        assert code == 0 and "a legal order on europe30" in out and "total 13343" in out
        code, out, _ = run(capsys, "check", e30, blog, "--key", "beam_width_10", "--optimum",
                           "13208")
        assert code == 0 and "total 13254, 46 above the optimum 13208 (0.348 %)" in out
        assert "not re-verified" in out
        code, out, _ = run(capsys, "check", "cityclose", e30, blog, "--key", "greedy",
                           "--json")
        rec = json.loads(out)
        assert rec["ok"] and rec["total"] == 13343 and rec["left"] == ["Venice"]
        # several orders in one file and no key: exit 2 naming them
        code, _, err = run(capsys, "check", "cityclose", e30, blog)
        assert code == 2 and "--key" in err

    def test_order_of_names_one_a_line_with_broken_rules(self, capsys, tmp_path):
        order = tmp_path / "order.txt"
        order.write_text("# mine\nc03\nc03\nAtlantis\n")
        code, out, _ = run(capsys, "check", "cityclose", RING, order)
        assert code == 1 and "does NOT hold" in out
        for kind in ("closed-twice", "unknown-city", "wrong-final-size"):
            assert kind in out

    def test_certificates_written_by_solve_and_tampered(self, capsys, tmp_path):
        rb = shared("two-spies-roundabout.json")
        cert = tmp_path / "order.json"
        assert run(capsys, "solve", "cityclose", rb, "-o", cert)[0] == 0
        doc = json.loads(cert.read_text())
        assert doc["type"] == "cityclose-order" and doc["status"] == "OPTIMAL"
        assert doc["total"] == 372 and doc["bounds"]["lower_bound"] == 372
        assert doc["proof"]["method"] == "exact-dp" and doc["proof"]["states"] > 0
        code, out, _ = run(capsys, "check", "cityclose", rb, cert)
        assert code == 0 and "optimal: the independent DP proves 372" in out

        def tampered(name, **change):
            t = tmp_path / name
            t.write_text(json.dumps(dict(doc, **change)))
            return run(capsys, "check", "cityclose", rb, t)

        swapped = doc["order"][:]
        swapped[0], swapped[1] = swapped[1], swapped[0]
        code, out, _ = tampered("swapped.json", order=swapped)
        assert code == 1 and "wrong-total" in out
        code, out, _ = tampered("total.json", total=371)
        assert code == 1 and "claims total 371; the order scores 372" in out
        # a consistent forgery: a worse legal order with its own numbers, still "OPTIMAL"
        from puzzleproof.models.cityclose import score_order

        m = read_map(open(rb).read(), rb)
        for i in range(len(doc["order"]) - 1):
            o = doc["order"][:]
            o[i], o[i + 1] = o[i + 1], o[i]
            c = score_order(m, o)
            if c.ok and c.total > 372:
                break
        code, out, _ = tampered("forged.json", order=o, wiener=c.wiener, total=c.total,
                                left=c.left)
        assert code == 1 and "not-optimal" in out and "the optimum is 372" in out
        # a certificate for another map is refused as input (exit 2)
        code, _, err = run(capsys, "check", "cityclose", RING, cert)
        assert code == 2 and "written for another map" in err

    def test_optimum_claim_on_a_large_map_is_not_reverified(self, capsys, tmp_path):
        e30, blog = shared("europe30.json"), shared("europe30-blog-orders.json")
        order = json.loads(open(blog).read())["beam_width_10"]["order"]
        claim = tmp_path / "claim.json"
        claim.write_text(json.dumps({"type": "cityclose-order", "order": order,
                                     "status": "OPTIMAL", "method": "someone"}))
        code, out, _ = run(capsys, "check", "cityclose", e30, claim)
        assert code == 0
        assert "optimality rests on someone's proof and was not re-verified" in out


# -- bad input ----------------------------------------------------------------------------

BAD_MAPS = {
    "self.txt": ("# cityclose\nParis Lyon\nLyon Lyon\n", ":3: link Lyon-Lyon joins a city "
                                                         "to itself"),
    "split.edges": ("Paris Lyon\nNice Marseille\n", ":2: the map is disconnected"),
    "unknown.json": ('{"cities": ["a", "b"],\n "edges": [["a", "b"],\n  ["a", "zz"]]}',
                     ":3:3: edges[1]: unknown city 'zz'"),
    "twice.json": ('{"cities": ["Rome", "ROME"], "edges": []}', ":1:21: cities[1]: city "
                                                                "'ROME' appears twice"),
    "syntax.json": ('{"cities": ["a"],\n "edges": [,]}', ":2:12: bad JSON"),
    "empty.edges": ("# nothing\n", ":1: empty map"),
}


@pytest.mark.parametrize("name", sorted(BAD_MAPS))
def test_a_bad_map_is_one_line_with_file_and_line(name, capsys, tmp_path):
    text, expected = BAD_MAPS[name]
    bad = tmp_path / name
    bad.write_text(text)
    for verb in (["solve", "cityclose"], ["render", "cityclose"], ["crosscheck", "cityclose"]):
        code, out, err = run(capsys, *verb, bad)
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert code == 2, (verb, err)
        assert len(lines) == 1 and lines[0].startswith(f"puzzleproof: error: {bad}")
        assert expected in lines[0], lines[0]
        assert "Traceback" not in err


def test_bad_orders_exit_2(capsys, tmp_path):
    for text, expected in (('{"order": ["c03", 3]}', ":1:19: order[1]: expected a city name"),
                           ('{"order": ["c03",\n ]}', ":1:17: bad JSON: Illegal trailing "
                                                       "comma before end of array"),
                           ("", "empty order")):
        f = tmp_path / "o.json"
        f.write_text(text)
        code, _, err = run(capsys, "check", "cityclose", RING, f)
        assert code == 2 and expected in err, err


# -- render, convert, plot ----------------------------------------------------------------

def test_render_svg_png_and_text(capsys, tmp_path):
    e30, blog = shared("europe30.json"), shared("europe30-blog-orders.json")
    svg = tmp_path / "greedy.svg"
    code, _, _ = run(capsys, "render", "cityclose", e30, "--order", blog, "--key", "greedy",
                     "-o", svg)
    text = svg.read_text()
    assert code == 0 and text.startswith("<svg") and "europe30: total 13343" in text
    assert "Dublin (1)" in text and "Venice (left)" in text
    png = tmp_path / "beam.png"
    code, _, err = run(capsys, "render", e30, "--solve", "--method", "beam", "-o", png)
    assert code == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "13254" in err
    code, out, _ = run(capsys, "render", "cityclose", shared("two-spies-roundabout.json"))
    assert code == 0 and "Roundabout: 11 cities, 19 links, Wiener number 104" in out
    assert "Berlin" in out and "-o FILE.svg" in out
    code, out, _ = run(capsys, "render", "cityclose", RING, "--format", "svg")
    assert code == 0 and out.startswith("<svg")
    # a wrong order is drawn, with the title saying so
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("c03\nc03\n")
    code, out, err = run(capsys, "render", "cityclose", RING, "--order", wrong, "--format",
                         "svg")
    assert code == 1 and "NOT a legal order" in out and "breaks the rules" in err
    # an order for another map is not drawn at all
    other = tmp_path / "other.txt"
    other.write_text("Dublin\nLisbon\n")
    code, out, err = run(capsys, "render", "cityclose", RING, "--order", other, "-o",
                         tmp_path / "other.svg")
    assert code == 2 and "not an order for" in err and "no city 'Dublin'" in err
    assert not (tmp_path / "other.svg").exists()
    code, _, err = run(capsys, "render", "cityclose", RING, "--format", "png")
    assert code == 2 and "-o FILE.png" in err


@pytest.mark.parametrize("fmt", ["json", "edges", "graphml", "gml"])
def test_convert_round_trips(fmt, capsys, tmp_path):
    e30 = shared("europe30.json")
    m = read_map(open(e30).read(), e30)
    target = tmp_path / f"europe30.{fmt}"
    code, _, err = run(capsys, "convert", "cityclose", e30, "--format", fmt, "-o", target)
    assert code == 0 and f"wrote {target}" in err
    back = read_map(target.read_text(), str(target))
    assert back.names == m.names and set(back.links) == set(m.links)
    if fmt != "edges":
        assert back.coords == m.coords
    # the converted file is a city map for every verb: greedy's ties follow the city order
    code, out, _ = run(capsys, "solve", target, "--method", "greedy", "--json")
    assert code == 0 and json.loads(out)["answer"]["total"] == 13343


def test_plot_writes_a_png(capsys, tmp_path):
    target = tmp_path / "steps.png"
    code, out, err = run(capsys, "plot", "cityclose", shared("europe30.json"), "--method",
                         "greedy,beam", "-o", target)
    assert code == 0 and target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "greedy       SOLVED   total 13343" in out and "(greedy - beam: +89)" in out
    code, out, _ = run(capsys, "plot", RING, "--method", "greedy,exact", "-o",
                       tmp_path / "ring.svg", "--json")
    rec = json.loads(out)
    assert code == 0 and [r["total"] for r in rec["methods"]] == [1397, 1315]
    assert (tmp_path / "ring.svg").read_text().lstrip().startswith(("<?xml", "<svg"))
    code, _, err = run(capsys, "plot", "cityclose", RING)
    assert code == 2 and "-o" in err


# -- crosscheck ---------------------------------------------------------------------------

def test_crosscheck_of_the_shipped_maps(capsys, tmp_path):
    runs = tmp_path / "runs.jsonl"
    code, out, err = run(capsys, "crosscheck", "cityclose", GENERATED, "-q", "-j", "1", "-o",
                         runs)
    assert code == 0, out + err
    assert "Cross-check of 6 instances" in out and "no disagreement" in out
    assert "Totals and gaps to the proved optimum, per map" in out
    row = next(ln for ln in out.splitlines() if "ring14-s1-0" in ln and "1315" in ln)
    assert row.count("1397 (+6.24 %)") == 3  # merged beam, beam and greedy all miss it
    assert "mean gap over the 6 maps with a proved optimum" in out
    recs = [json.loads(ln) for ln in runs.read_text().splitlines()]
    assert sum(r["type"] == "record" for r in recs) == 24
    # resumed: nothing to do, the same table
    code, out, _ = run(capsys, "crosscheck", "cityclose", GENERATED, "-q", "-j", "1", "-o",
                       runs, "--resume", "--json")
    obj = json.loads(out)
    assert code == 0 and len(obj["maps"]) == 6 and not obj["disagreements"]
    by = {r["map"]: r for r in obj["maps"]}
    assert by["grid14-s1-32"]["optimum"] == 1258 == by["grid14-s1-32"]["reference"]
    assert by["grid14-s1-32"]["methods"]["beam"]["gap"] == pytest.approx(13 / 1258)


def test_crosscheck_exact_unknown_is_no_disagreement(capsys):
    # (Africa's 49 countries: europe30 is now proved within 0.3 s at times)
    africa = str(shared_path("instances/cityclose-world/africa-land-borders.json"))
    code, out, err = run(capsys, "crosscheck", "cityclose", africa, "-q",
                         "-j", "1", "--method", "exact,greedy", "--time-limit", "0.3")
    assert code == 0, out + err
    assert "UNKNOWN: africa-land-borders exact" in out and "no disagreement" in out
    row = next(ln for ln in out.splitlines() if ln.startswith("│ africa"))
    # the exact method's bounds around its incumbent (the widened merged beam's, or greedy's
    # 63926 when the beam ran out of its share of the limit), greedy's total beside them
    bounds = re.search(r"(\d+)\.\.(\d+)", row)
    assert bounds and int(bounds.group(1)) <= 63562 <= int(bounds.group(2)) <= 63926
    assert "63926 (<= +" in row


def test_missed_solution_switch_is_per_kind():
    """Hashi flags every UNKNOWN beside a checked solution; for city closing an UNKNOWN whose
    limit ran out is an open question, an exact method's and a heuristic's alike (issue 32:
    "merged-beam says UNKNOWN but beam found a checked solution" was no disagreement); a
    heuristic stuck at a dead end beside a legal order is still a miss."""
    from puzzleproof.verify.cityclose_methods import open_unknown
    from puzzleproof.verify.crosscheck import Instance, PuzzleKind, find_disagreements

    def rec(method, exact, status, **stats):
        return {"method": method, "exact": exact, "status": status, "stats": stats,
                "answer": {"total": 5} if status != "UNKNOWN" or exact else None,
                "check_ok": True, "violations": []}

    def kinds(kind, recs):
        return [d["kind"] for d in find_disagreements(kind, Instance("x", None), recs)]

    plain = PuzzleKind("hashi", {}, lambda d, a: [], lambda a: a)
    city = PuzzleKind("cityclose", {}, lambda d, a: [], lambda a: a, open_unknown=open_unknown)
    exact_open = [rec("exact", True, "UNKNOWN"), rec("greedy", False, "SOLVED")]
    assert kinds(plain, exact_open) == ["missed-solution"]
    assert kinds(city, exact_open) == []
    timed_out = [rec("merged-beam", False, "UNKNOWN", reason="time limit before closing 35"),
                 rec("beam", False, "SOLVED")]
    assert kinds(plain, timed_out) == ["missed-solution"]
    assert kinds(city, timed_out) == []
    hung = [rec("merged-beam", False, "UNKNOWN", limit="hang limit"), rec("beam", False,
                                                                         "SOLVED")]
    assert kinds(city, hung) == []
    stuck = [rec("greedy", False, "UNKNOWN", stuck_at_step=3), rec("exact", True, "OPTIMAL")]
    assert kinds(city, stuck) == ["missed-solution"]


def test_a_heuristic_out_of_time_beside_an_order_is_no_disagreement(capsys):
    """The merged beam at a width it cannot finish in the limit, beside greedy's order: an
    open question (UNKNOWN naming the limit), not a missed solution; exit 0."""
    code, out, err = run(capsys, "crosscheck", "cityclose", shared("europe30.json"), "-q",
                         "-j", "1", "--method", "merged-beam,greedy", "--beam-width", "3000",
                         "--time-limit", "0.1", "--json")
    obj = json.loads(out)
    row = obj["maps"][0]["methods"]
    assert row["merged-beam"]["status"] == "UNKNOWN" and row["greedy"]["total"] == 13343
    assert code == 0 and obj["disagreements"] == [], err


def test_crosscheck_fails_on_a_wrong_reference_optimum(capsys, tmp_path):
    data = json.loads((GENERATED / "grid14-s1-40.json").read_text())
    data["evidence"]["optimum"] = 1384
    bad = tmp_path / "grid-wrong-ref.json"
    bad.write_text(json.dumps(data))
    code, out, _ = run(capsys, "crosscheck", "cityclose", bad, "-q", "-j", "1", "--method",
                       "exact,greedy")
    assert code == 1 and "reference-optimum-mismatch [exact]" in out
    assert "exact proves 1383; the shipped reference optimum is 1384" in out
    code, out, err = run(capsys, "solve", "cityclose", bad)
    assert code == 1 and "DIFFERS from the reference optimum 1384" in out


# -- generate -----------------------------------------------------------------------------

def test_generate_then_solve(capsys, tmp_path):
    one = tmp_path / "one.json"
    code, _, err = run(capsys, "generate", "cityclose", "--kind", "ring", "--cities", "10",
                       "-n", "1", "--seed", "3", "-o", one)
    assert code == 0 and "optimum 349 (dp), greedy 380 (+8.88 %)" in err
    ev = evidence(one)
    assert ev["seed"] == 3 and ev["optimum"] == 349 and ev["greedy"] == 380
    code, out, _ = run(capsys, "solve", one, "--json")
    rec = json.loads(out)
    assert code == 0 and rec["answer"]["total"] == 349 and rec["reference"].startswith("=")
    # a folder of several; the same seed gives the same maps
    folder = tmp_path / "maps"
    code, _, err = run(capsys, "generate", "cityclose", "--kind", "ring", "--cities", "10",
                       "-n", "2", "--seed", "3", "-o", folder, "-q")
    assert code == 0 and sorted(p.name for p in folder.iterdir()) == ["ring10-s3-0.json",
                                                                      "ring10-s3-1.json"]
    assert (folder / "ring10-s3-0.json").read_text() == one.read_text()
    code, _, err = run(capsys, "generate", "cityclose", "--kind", "ring", "--cities", "10",
                       "-n", "2", "--seed", "3", "-o", folder, "-q")
    assert code == 2 and "exists" in err and "--force" in err
    code, out, _ = run(capsys, "crosscheck", "cityclose", folder, "-q", "-j", "1")
    assert code == 0 and "no disagreement" in out
    code, _, err = run(capsys, "generate", "cityclose", "-n", "2")
    assert code == 2 and "-o FOLDER" in err


def test_a_short_generation_says_why_its_maps_were_dropped(capsys):
    """Fewer maps than asked: exit 1, with the count of maps dropped for each reason and the
    option that would keep more (the time limit, or the gap asked)."""
    code, _, err = run(capsys, "generate", "cityclose", "--kind", "ring", "--cities", "10",
                       "--min-gap", "5", "--max-attempts", "3", "-j", "1", "-q")
    assert code == 1 and "dropped: 3 with greedy and beam within --min-gap 5" in err
    assert "only 0 of 1 after 3 attempts" in err
    code, _, err = run(capsys, "generate", "cityclose", "--cities", "30", "--min-gap", "0",
                       "--time-limit", "0.01", "--max-attempts", "2", "-j", "1", "-q")
    assert code == 1 and "dropped: 2 with optimum not proved within --time-limit 0.01 s" in err
    assert "--min-gap" not in err


# -- the option vocabulary ----------------------------------------------------------------

WRITERS = [
    (["solve", "cityclose", RING, "--method", "greedy"], ".json"),
    (["render", "cityclose", RING], ".svg"),
    (["convert", "cityclose", RING, "--format", "edges"], ".edges"),
    (["crosscheck", "cityclose", RING, "--method", "greedy", "-q", "-j", "1"], ".jsonl"),
    (["generate", "cityclose", "--kind", "ring", "--cities", "8", "--min-gap", "0", "-q"],
     ".json"),
    (["plot", "cityclose", RING, "--method", "greedy"], ".png"),
]


@pytest.mark.parametrize("argv,suffix", WRITERS, ids=lambda v: " ".join(v[:2])
                         if isinstance(v, list) else v)
def test_output_never_overwrites_without_force(argv, suffix, capsys, tmp_path):
    target = tmp_path / f"out{suffix}"
    target.write_text("precious\n")
    code, _, err = run(capsys, *argv, "-o", target)
    assert code == 2 and "--force" in err and target.read_text() == "precious\n"
    code, _, err = run(capsys, *argv, "-o", target, "--force")
    assert code == 0, err
    assert target.read_bytes() != b"precious\n"


@pytest.mark.parametrize("verb", ["solve", "check", "render", "convert", "crosscheck",
                                  "generate", "plot"])
def test_help_has_examples(verb, capsys):
    code, out, _ = run(capsys, verb, "cityclose", "--help")
    assert code == 0 and "Usage:" in out and "Examples:" in out
    assert "puzzleproof " + verb in out


def test_a_folder_of_several_puzzles_runs_cityclose_too(capsys, tmp_path):
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    shutil.copy(INSTANCES / "hashi/small-5x5.txt", mixed)
    shutil.copy(RING, mixed)
    code, out, err = run(capsys, "solve", mixed, "-q")
    assert code == 0, err
    assert "== Hashiwokakero ==" in out and "== City closing ==" in out
    assert "ring14-s1-0: OPTIMAL, total 1315" in out
