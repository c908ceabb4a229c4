"""Death Run through the Python API and its plugin: solve (the robust bound), check (a game
record), render, crosscheck (a tournament judged against the bounds) and generate, each the
same plugin the command runs; and the methods listed once (exact bounds against brute force
on tiny graphs, bots whose games replay by the rules)."""

from __future__ import annotations

import itertools
import json

import pytest

import puzzleproof
from puzzleproof.errors import InputError, UsageError
from puzzleproof.formats.deathrun import read_instances, write_graph
from puzzleproof.clock import Deadline
from puzzleproof.models.deathrun import generate_graph, make_graph, play_game
from puzzleproof.puzzles import PuzzlePlugin, get
from puzzleproof.result import Status

from tests.conftest import ROOT
GAP = "instances/deathrun/graphs/gap-s1-1.json"
PLUGIN = get("deathrun")


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.fixture(scope="module")
def game_files(tmp_path_factory):
    """A graph, a game played on it, a tampered copy of the game and another graph."""
    from puzzleproof.players.deathrun_bots import builtin_player

    folder = tmp_path_factory.mktemp("deathrun")
    g = generate_graph(4)
    crims, studs = ["toll", "gap-toll"], ["robust", "greedy", "cautious", "random"] * 2
    rec = play_game(g, [builtin_player(c, "criminal") for c in crims],
                    [builtin_player(s, "student") for s in studs], seed=4,
                    names=crims + studs)
    files = {"graph": folder / "graph.json", "game": folder / "game.json",
             "tampered": folder / "tampered.json", "other": folder / "other.json"}
    files["graph"].write_text(write_graph(g))
    files["game"].write_text(json.dumps(rec))
    bad = json.loads(json.dumps(rec))
    bad["rounds"][2]["students"][0]["paid"] += 1
    files["tampered"].write_text(json.dumps(bad))
    files["other"].write_text(write_graph(generate_graph(5)))
    return {k: str(v) for k, v in files.items()} | {"record": rec}


def test_the_plugin_implements_every_verb():
    assert isinstance(PLUGIN, PuzzlePlugin)
    for verb in ("solve", "check", "render", "crosscheck", "generate", "report"):
        assert getattr(PLUGIN, verb) is not None, verb
    assert get("death-run") is PLUGIN and get("cmimc") is PLUGIN


class TestSolve:
    def test_the_robust_bound_of_a_shipped_graph(self):
        from puzzleproof.encoders.deathrun_robust import robust_table

        res = puzzleproof.solve(GAP)
        g = read_instances((ROOT / GAP).read_text(), GAP)[0].instance
        a = res.answer
        assert res.status is Status.SOLVED and res.check == {"ok": True, "violations": []}
        assert a["upper_bound"] == pytest.approx(robust_table(g, 200, 1.0).bound())
        assert a["nominal"] <= a["lower_bound"] <= a["upper_bound"]
        assert a["first_moves"][0]["to"] == a["first_move"] == 7  # the README's 0->7
        assert a["first_moves"][0]["guarantee"] == pytest.approx(140.70, abs=0.005)
        assert res.instance == "gap-s1-1"

    def test_model_objects_seeds_and_options(self):
        g = generate_graph(1)
        by_object = puzzleproof.solve(g, budget=100)
        by_file = puzzleproof.solve(GAP, budget=100)
        assert by_object.answer["upper_bound"] < puzzleproof.solve(g).answer["upper_bound"]
        assert by_file.params == {"budget": 100.0, "step": 1.0}
        with pytest.raises(UsageError, match="budget"):
            puzzleproof.solve(GAP, budget=-1)
        with pytest.raises(UsageError, match="not both"):
            puzzleproof.solve(GAP, seed=3)
        with pytest.raises(UsageError, match="budget levels"):
            puzzleproof.solve(GAP, step=0.01)
        with pytest.raises(TypeError, match="takes no option 'method'"):
            puzzleproof.solve(GAP, method="fh-lp")


class TestCheck:
    def test_a_game_record_replays_on_its_graph(self, game_files):
        out = puzzleproof.check(game_files["graph"], game_files["game"])
        assert out.ok and out.exit_code == 0 and out.record["records"] == 1
        assert [r["bot"] for r in out.record["scoreboard"]][:2] == ["toll", "gap-toll"]
        assert "replays by the rules" in out.page.text()
        # the record itself (a dict) is an answer too
        assert puzzleproof.check(game_files["graph"], game_files["record"]).ok

    def test_tampering_and_another_graph_are_found(self, game_files):
        out = puzzleproof.check(game_files["graph"], game_files["tampered"])
        assert not out.ok and out.exit_code == 1
        assert "round 3" in out.record["problems"][0]["problems"][0]
        out = puzzleproof.check(game_files["other"], game_files["game"])
        assert not out.ok and "another graph" in out.page.text()
        # said once: not followed by every round's weights broken on the other graph
        (problem,) = out.record["problems"][0]["problems"]
        assert problem.startswith("the record was played on another graph")

    def test_an_unreadable_record_is_an_input_error(self, tmp_path):
        bad = tmp_path / "broken.json"
        bad.write_text('{"type": "deathrun-game",\n "schema_version": 1,\n')
        with pytest.raises(InputError, match="broken.json"):
            puzzleproof.check(GAP, str(bad))


class TestRender:
    @pytest.mark.slow
    def test_svg_png_and_a_game_drawn(self, game_files):
        pic = puzzleproof.render(game_files["graph"])
        assert pic.ok and pic.kind == "svg" and pic.data.startswith("<svg")
        pic = puzzleproof.render(game_files["graph"], game=game_files["game"])
        assert pic.ok and "seat 2 robust" in pic.data and "NOT a valid game" not in pic.data
        png = puzzleproof.render(generate_graph(4), kind="png")
        assert png.data[:4] == b"\x89PNG"

    def test_a_game_that_breaks_the_rules_says_so(self, game_files):
        pic = puzzleproof.render(game_files["graph"], game=game_files["tampered"])
        assert not pic.ok and "NOT a valid game: round 3" in pic.data
        assert any("breaks the rules" in n for n in pic.notes)
        with pytest.raises(InputError, match="another graph"):
            puzzleproof.render(game_files["other"], game=game_files["game"])


def test_crosscheck_is_a_tournament_judged_against_the_bounds(tmp_path):
    runs = tmp_path / "runs.jsonl"
    out = puzzleproof.crosscheck([GAP], students="robust,greedy", criminals=["toll"], executor=1,
                                 output=str(runs))
    s = out.record
    assert out.ok and out.exit_code == 0 and s["type"] == "deathrun-crosscheck"
    assert s["graphs"] == 1 and s["games"] == 1 and s["failures"] == []
    assert {x["bot"] for x in s["students"]} == {"robust", "greedy"}
    robust = next(x for x in s["students"] if x["bot"] == "robust")
    assert robust["above_bound"] == 0 and robust["mean_cost"] <= robust["mean_bound"]
    finding, = s["known_findings"]
    assert finding["holds"] and finding["cost"] > finding["bound"]
    lines = [json.loads(x) for x in runs.read_text().splitlines()]
    assert [x["type"] for x in lines] == ["deathrun-game", "deathrun-crosscheck"]
    assert "1 of 1 known finding confirmed" in out.page.text()
    with pytest.raises(InputError, match="nobody"):
        puzzleproof.crosscheck([GAP], students="nobody", executor=1)


def test_generate_keeps_the_widest_gap_with_its_evidence():
    # puzzleproof.api.generate: the package attribute 'generate' is replaced by the
    # subpackage puzzleproof.generate once any generator module has been imported
    from puzzleproof.api import generate

    made = list(generate("deathrun", count=1, seed=2, candidates=4))
    assert len(made) == 1
    g = made[0]
    ev = g.record
    assert ev["type"] == "deathrun-gap" and ev["candidates"] == 4 and g.name == "gap-s2-0"
    (fname, text), = g.files.items()
    loaded = read_instances(text, fname)[0]
    assert loaded.reference == ev and g.line == text.rstrip("\n")
    res = puzzleproof.solve(loaded.instance)
    assert res.answer["upper_bound"] == pytest.approx(ev["robust_bound"])
    assert ev["gap"] == pytest.approx(ev["greedy_cost"] - ev["robust_bound"])
    with pytest.raises(UsageError, match="two built-in criminal bots"):
        list(generate("deathrun", criminals="toll,crowd,toll"))


# -- the methods, listed once ----------------------------------------------------------------

def _tiny(seed: int):
    return generate_graph(seed, layers=3, height=2 + seed % 2, wmin=1, wmax=5)


def _brute_fh(g, units: int) -> float:
    """The longest shortest path after ``units`` whole raises placed every way."""
    from puzzleproof.models.deathrun import distances_to_ends

    edges = sorted(g.weight)
    best = 0.0
    for combo in itertools.combinations_with_replacement(range(len(edges)), units):
        w = dict(g.weight)
        for i in combo:
            w[edges[i]] += 1
        best = max(best, distances_to_ends(g, w)[g.begin])
    return best


class TestMethods:
    def test_every_method_is_listed_once_with_its_kind(self):
        from puzzleproof.verify import deathrun_methods as dm

        names = [m.name for m in PLUGIN.methods]
        assert [m.name for m in PLUGIN.methods if m.kind == "exact"] == \
            ["robust", "toll-round", "fh-lp"]
        assert PLUGIN.methods == dm.METHODS and len(names) == len(set(names))
        assert set(names) == {"robust", "toll-round", "fh-lp", *dm.bot_names("student"),
                              *dm.bot_names("criminal")}
        assert dict(PLUGIN.method("random").bound)["role"] == "student"
        assert PLUGIN.method("robust").kind == "exact"
        assert dm.bot_method("robust", "student").kind == "heuristic"
        assert dm.bot_method("random", "criminal").bound == (("bot", "random"),
                                                            ("role", "criminal"))

    def test_the_bots_listed_are_the_bots_the_engine_plays(self):
        """One list of names: the tournament's bots (verify.deathrun_bots) and the methods
        agree, role by role."""
        from puzzleproof.players.deathrun_bots import CRIMINAL_BOTS, STUDENT_BOTS
        from puzzleproof.verify.deathrun_methods import bot_names

        assert sorted(bot_names("student")) == sorted(STUDENT_BOTS)
        assert sorted(bot_names("criminal")) == sorted(CRIMINAL_BOTS)

    def test_robust_on_the_documented_graph(self):
        g = make_graph([(0, 1, 1), (0, 2, 3), (1, 3, 1), (2, 3, 1)], 0, [3])
        res = PLUGIN.method("robust").bind({"budget": 4.0})(g, deadline=Deadline(None))
        assert res.answer["upper_bound"] == 7.0 and res.answer["lower_bound"] == 6.0
        assert res.check["ok"] and res.answer["path_if_nothing_raised"] == [0, 1, 3]

    @pytest.mark.parametrize("seed", range(4))
    def test_fh_lp_against_brute_force(self, seed):
        g = _tiny(seed)
        for budget in (0, 1, 3):
            res = PLUGIN.method("fh-lp").bind({"budget": float(budget)})(g)
            assert res.status is Status.OPTIMAL and res.check["ok"]
            assert _brute_fh(g, budget) <= res.answer["value"] + 1e-9
            assert sum(x for _, _, x in res.answer["raises"]) <= budget + 1e-6
        assert PLUGIN.method("fh-lp").bind({"budget": 0.0})(g).answer["value"] == \
            pytest.approx(puzzleproof.solve(g).answer["nominal"])

    def test_fh_lp_two_disjoint_paths(self):
        """Paths of cost 1 and 3, budget 4: min((4 + 1) / 1, (4 + 1 + 3) / 2) = 4."""
        g = make_graph([(0, 1, 1), (1, 3, 0), (0, 2, 3), (2, 3, 0)], 0, [3])
        res = PLUGIN.method("fh-lp").bind({"budget": 4.0})(g)
        assert res.answer["value"] == pytest.approx(4.0) and res.answer["k"] == 2

    def test_toll_round_against_the_enumeration(self):
        from puzzleproof.encoders.deathrun_tolls import best_single_raise

        for seed in range(3):
            g = _tiny(seed)
            res = PLUGIN.method("toll-round")(g)
            counts = {v: 0 for v in g.vertices}
            counts[g.begin] = 8
            ref = best_single_raise(g, dict(g.weight), counts, 100)
            assert res.status is Status.OPTIMAL and res.check["ok"]
            assert res.answer["revenue"] == pytest.approx(ref.revenue)

    def test_toll_round_out_of_time_is_unknown(self):
        res = PLUGIN.method("toll-round")(generate_graph(1), deadline=Deadline(1e-9))
        assert res.status is Status.UNKNOWN and "time limit" in res.certificate["note"]

    def test_a_bots_game_replays_and_keeps_its_scores(self):
        from puzzleproof.verify.deathrun_methods import bot_method

        g = generate_graph(3)
        greedy = bot_method("greedy", "student").bind({"seed": 5})(g)
        assert greedy.check["ok"] and greedy.answer["criminals"] == ["toll", "toll"]
        assert greedy.answer["score"] == max(greedy.answer["scores"]["students"])
        robust = bot_method("robust", "student").bind({"seed": 5})(g)
        assert robust.answer["score"] <= robust.answer["bound"] + 1e-9  # its guarantee
        crowd = bot_method("crowd", "criminal")(g)
        assert crowd.check["ok"] and crowd.answer["students"][:4] == \
            ["robust", "greedy", "cautious", "random"]
        assert crowd.answer["score"] == min(crowd.answer["scores"]["criminals"])
