"""Death Run's command line end to end: play, tournament, solve, check, render, crosscheck and
generate through ``puzzleproof.cli.main``, with bot files that crash and hang, records that
are tampered with, and graphs that cannot be read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from puzzleproof.formats.deathrun import read_instances, write_graph
from puzzleproof.models.deathrun import generate_graph

from tests.conftest import ROOT, pp, run
BOTS = ROOT / "instances/deathrun/bots"
GRAPHS = ROOT / "instances/deathrun/graphs"
FIELD = "robust,greedy,cautious,random"


@pytest.fixture
def graph_file(tmp_path):
    path = tmp_path / "graph.json"
    path.write_text(write_graph(generate_graph(4)))
    return path


@pytest.fixture
def game(capsys, tmp_path):
    """A game record written by 'deathrun play -o' (seed 4: the graph of graph_file)."""
    path = tmp_path / "game.json"
    code, _, err = run(capsys, "deathrun", "play", "--criminal", "toll", "--criminal",
                       "gap-toll", "--student", FIELD, "--seed", 4, "-o", path)
    assert code == 0, err
    return path


class TestPlay:
    def test_builtin_bots_scoreboard(self, capsys):
        code, out, err = run(capsys, "deathrun", "play", "--criminal", "toll", "--criminal",
                             "crowd", "--student", FIELD, "--seed", 2)
        assert code == 0, err
        for word in ("seat", "toll", "crowd", "robust", "cautious", "robust bound",
                     "nominal shortest path"):
            assert word in out
        assert "invalid move:" not in out and "invalid moves:" not in out

    @pytest.mark.slow
    def test_bot_files_and_json(self, capsys):
        code, out, err = run(capsys, "deathrun", "play", "--criminal", BOTS / "criminal.py",
                             "--criminal", "toll", "--student", f"{BOTS / 'student.py'}*4",
                             "--student", "greedy*4", "--seed", 1, "--json")
        assert code == 0, err
        rec = json.loads(out)
        assert rec["type"] == "deathrun-game" and len(rec["rounds"]) == 15
        bots = [s["bot"] for s in rec["seats"]]
        assert bots[0].endswith("criminal.py") and bots[2].endswith("student.py")
        assert bots.count("greedy") == 4
        assert rec["invalid_moves"] == [] and len(rec["scoreboard"]) == 10

    @pytest.mark.slow
    def test_crashing_and_hanging_bots_get_a_verdict(self, capsys, tmp_path):
        crash = tmp_path / "crash.py"
        crash.write_text("class BaseStudent:\n"
                         "    def __init__(self, edge_list, begin, ends):\n"
                         "        self.n = 0\n"
                         "    def strategy(self, edge_updates, vertex_count, current_vertex):\n"
                         "        self.n += 1\n"
                         "        if self.n == 2:\n"
                         "            raise ZeroDivisionError('boom')\n"
                         "        return 'nowhere'\n")
        hang = tmp_path / "hang.py"
        hang.write_text("import time\n"
                        "class Sleepy:\n"
                        "    def __init__(self, edge_list, begin, ends):\n"
                        "        pass\n"
                        "    def strategy(self, edge_updates, vertex_count, budget):\n"
                        "        time.sleep(60)\n")
        code, out, err = run(capsys, "deathrun", "play", "--criminal", f"{hang}:Sleepy",
                             "--criminal", "toll", "--student", f"{crash}*2",
                             "--student", "greedy*6", "--move-timeout", "0.3")
        assert code == 1, err  # a verdict on the user's files, the game played out
        assert "seat 0 (" in err and "invalid move(s); the game shows why" in err
        assert "invalid move" in out
        # a crash names the line of the bot's own file it came from
        assert "crash.py), round 2: crash at crash.py:7 in strategy: ZeroDivisionError: boom" \
            in out
        assert "crash.py), rounds 1, 3-15: garbage output: 'nowhere'" in out
        assert "hang.py:Sleepy), round 1: timeout" in out  # then not running: rounds 2-15
        assert "hang.py:Sleepy), rounds 2-15: bot not running" in out

    def test_bad_bots_and_seat_counts_exit_2(self, capsys, tmp_path):
        code, _, err = run(capsys, "deathrun", "play", "--criminal", "nobody", "--student",
                           "greedy")
        assert code == 2 and "nobody" in err
        code, _, err = run(capsys, "deathrun", "play", "--criminal", "toll", "--student",
                           tmp_path / "missing.py")
        assert code == 2 and "missing.py" in err
        code, _, err = run(capsys, "deathrun", "play", "--criminal", "toll", "--student",
                           "greedy*3")
        assert code == 2 and "8 students" in err


class TestCheck:
    def test_record_replays(self, capsys, game, graph_file):
        code, out, err = run(capsys, "check", "deathrun", game)
        assert code == 0 and "replays by the rules" in out and "gap-toll" in out
        code, out, _ = run(capsys, "check", "deathrun", graph_file, game)
        assert code == 0, out
        code, out, _ = run(capsys, "check", "deathrun", game, "--json")
        assert code == 0 and json.loads(out)["ok"] is True

    def test_tampered_record_and_other_graph_exit_1(self, capsys, game, tmp_path):
        rec = json.loads(game.read_text())
        rec["rounds"][2]["students"][0]["paid"] += 1
        bad = tmp_path / "tampered.json"
        bad.write_text(json.dumps(rec))
        code, out, _ = run(capsys, "check", "deathrun", bad)
        assert code == 1 and "does NOT replay" in out and "round 3" in out
        other = tmp_path / "other.json"
        other.write_text(write_graph(generate_graph(5)))
        code, out, _ = run(capsys, "check", "deathrun", other, game)
        assert code == 1 and "another graph" in out

    def test_unreadable_record_exit_2(self, capsys, tmp_path):
        bad = tmp_path / "broken.json"
        bad.write_text('{"type": "deathrun-game",\n "schema_version": 1,\n')
        code, _, err = run(capsys, "check", "deathrun", bad)
        assert code == 2 and str(bad) in err


def test_tournament_resume_adds_nothing_and_plots(capsys, tmp_path):
    out_file, plot = tmp_path / "games.jsonl", tmp_path / "scores.png"
    args = ["deathrun", "tournament", "--criminals", "toll,gap-toll,crowd", "--students", FIELD,
            "-n", 7, "--seed", 3, "-j", 1, "-o", out_file]
    code, out, err = run(capsys, *args, "--plot", plot)
    assert code == 0, err
    lines = out_file.read_text().splitlines()
    games = [ln for ln in lines if '"deathrun-game"' in ln]
    assert len(games) == 7 and plot.stat().st_size > 1000
    assert json.loads(lines[-1])["type"] == "run-summary"  # what the terminal said
    for word in ("students (cost", "criminals (score", "95% CI", "rank", "robust", "toll"):
        assert word in out
    code, out2, err = run(capsys, *args, "--resume")
    assert code == 0 and "7 game(s) already there, 0 played now" in err
    again = out_file.read_text().splitlines()
    # no game played twice; the resumed run's summary in place of the first run's
    assert again[:-1] == lines[:-1] and json.loads(again[-1])["type"] == "run-summary"
    lines = again
    code, _, err = run(capsys, *args)  # no --resume, no --force: refused, file untouched
    assert code == 2 and "--force" in err and out_file.read_text().splitlines() == lines
    code, out, _ = run(capsys, "check", "deathrun", out_file)
    assert code == 0 and "7 of 7 games replay" in out


def test_crosscheck_resume_counts_each_game_once(capsys, tmp_path):
    """A resumed cross-check judges the games kept from the file and the new ones, each
    once: the same summary as one run of the same games; and --resume refuses a
    tournament's file (another verb) and the cross-check's file to a tournament."""
    runs, fresh = tmp_path / "runs.jsonl", tmp_path / "fresh.jsonl"
    args = ["crosscheck", "deathrun", "--seed", 3, "-j", 1, "-q", "--json"]
    code, _, err = run(capsys, *args, "-n", 4, "-o", runs)
    assert code == 0 and json.loads(_)["games"] == 7, err
    code, out, err = run(capsys, *args, "-n", 8, "-o", runs, "--resume")
    resumed = json.loads(out)
    code2, out, _ = run(capsys, *args, "-n", 8, "-o", fresh)
    whole = json.loads(out)
    assert code == code2 == 0 and resumed["games"] == whole["games"] == 14, err
    assert resumed["students"] == whole["students"]
    assert resumed["criminals"] == whole["criminals"]
    code, out, _ = run(capsys, *args, "-n", 8, "-o", runs, "--resume")  # nothing left to do
    assert code == 0 and json.loads(out)["games"] == 14
    lines = runs.read_text()
    code, _, err = run(capsys, "deathrun", "tournament", "--criminals", "toll,gap-toll,crowd",
                       "--students", FIELD, "-n", 14, "--seed", 3, "-j", 1, "-o", runs,
                       "--resume", "-q")
    assert code == 2 and str(runs) in err and "'crosscheck deathrun'" in err, err
    assert len(err.strip().splitlines()) == 1 and runs.read_text() == lines
    tour = tmp_path / "tour.jsonl"
    code, _, err = run(capsys, "deathrun", "tournament", "--criminals", "toll,gap-toll,crowd",
                       "--students", FIELD, "-n", 7, "--seed", 3, "-j", 1, "-o", tour, "-q")
    assert code == 0, err
    lines = tour.read_text()
    code, _, err = run(capsys, *args, "-n", 8, "-o", tour, "--resume")
    assert code == 2 and str(tour) in err and "'deathrun tournament'" in err, err
    assert tour.read_text() == lines


class TestSolve:
    def test_bound_from_a_seed_and_files(self, capsys):
        from puzzleproof.encoders.deathrun_robust import robust_table

        code, out, err = run(capsys, "solve", "deathrun", "--seed", 1, "--json")
        assert code == 0, err
        a = json.loads(out)["answer"]
        assert a["upper_bound"] == pytest.approx(robust_table(generate_graph(1), 200).bound())
        assert a["nominal"] <= a["lower_bound"] <= a["upper_bound"]
        assert a["first_moves"][0]["to"] == a["first_move"]
        code, out, _ = run(capsys, "solve", "deathrun", "--seed", 1)
        assert code == 0 and f"{a['upper_bound']:.2f}" in out and "nominal shortest path" in out
        code, out, _ = run(capsys, "solve", GRAPHS, "--budget", 100)  # the puzzle inferred
        assert code == 0 and out.count("gap-s1-") == 3

    def test_bad_graph_names_file_and_line(self, capsys, tmp_path):
        bad = tmp_path / "bad.json"
        bad.write_text('{"begin": 0, "ends": [2],\n "edges": [\n  [0, 1, 3],\n  [1, 2, -4]\n ]}\n')
        code, _, err = run(capsys, "solve", "deathrun", bad)
        assert code == 2 and f"{bad}:4:" in err and "weight" in err
        assert len(err.strip().splitlines()) == 1
        cyc = tmp_path / "cycle.json"
        cyc.write_text('{"begin": 0, "ends": [3],\n "edges": [[0, 1, 1], [1, 2, 1],\n'
                       ' [2, 1, 1], [2, 3, 1]]}\n')
        code, _, err = run(capsys, "solve", "deathrun", cyc)
        assert code == 2 and str(cyc) in err and "cycle" in err
        broken = tmp_path / "broken.json"
        broken.write_text('{"begin": 0, "ends": [2],\n "edges": [\n  [0, 1, 3],\n')
        code, _, err = run(capsys, "deathrun", "play", "--graph", broken, "--criminal", "toll",
                           "--student", "greedy")
        assert code == 2 and f"{broken}:4" in err


class TestRender:
    @pytest.mark.slow
    def test_svg_png_and_stdout(self, capsys, game, graph_file, tmp_path):
        svg = tmp_path / "g.svg"
        code, _, err = run(capsys, "render", "deathrun", graph_file, "--game", game, "-o", svg)
        assert code == 0, err
        text = svg.read_text()
        assert text.startswith("<svg") and "seat 2 robust" in text
        png = tmp_path / "g.png"
        code, _, err = run(capsys, "render", "deathrun", game, "-o", png)
        assert code == 0 and png.read_bytes()[:4] == b"\x89PNG"
        code, out, _ = run(capsys, "render", "deathrun", graph_file)
        assert code == 0 and out.startswith("<svg")

    def test_output_is_never_overwritten_without_force(self, capsys, graph_file, tmp_path):
        for argv in (["render", "deathrun", graph_file],
                     ["deathrun", "play", "--criminal", "crowd", "--student", "greedy"]):
            target = tmp_path / "precious.svg"
            target.write_text("precious\n")
            code, _, err = run(capsys, *argv, "-o", target)
            assert code == 2 and "--force" in err and target.read_text() == "precious\n"
            code, _, err = run(capsys, *argv, "-o", target, "--force")
            assert code == 0 and target.read_text() != "precious\n"


class TestCrosscheck:
    @pytest.mark.slow
    def test_shipped_graphs_pass_with_known_findings(self, capsys):
        code, out, err = run(capsys, "crosscheck", "deathrun", ROOT / "instances/deathrun",
                             "-j", 1)
        assert code == 0, out + err
        assert "3 of 3 known findings confirmed" in out
        assert "within its certified bound" in out and "no check failed" in out
        for bot in ("robust", "greedy", "cautious", "random", "toll", "gap-toll", "crowd"):
            assert bot in out

    @pytest.mark.slow
    def test_robust_above_its_bound_is_a_failed_check(self, capsys, monkeypatch, tmp_path):
        from puzzleproof.encoders import deathrun_robust

        # a bound that cannot hold: the check must catch the robust student above it
        monkeypatch.setattr(deathrun_robust.RobustTable, "bound", lambda self: 10.0)
        runs = tmp_path / "runs.jsonl"
        code, out, _ = run(capsys, "crosscheck", "deathrun", "-n", 7, "-j", 1, "--students",
                           "robust,greedy", "--criminals", "toll,crowd", "-o", runs)
        assert code == 1 and "FAILED: the robust student paid" in out
        last, summary = [json.loads(x) for x in runs.read_text().splitlines()][-2:]
        assert last["type"] == "deathrun-crosscheck" and not last["ok"]
        assert summary["type"] == "run-summary" and summary["exit_status"] == 1
        failed = [f for f in last["failures"] if f["kind"] == "robust-above-bound"]
        assert failed and failed[0]["record"]["type"] == "deathrun-game"

    @pytest.mark.slow
    def test_json_and_bot_files(self, capsys):
        code, out, err = run(capsys, "crosscheck", "deathrun", GRAPHS / "gap-s1-1.json",
                             "--students", f"{BOTS / 'student.py'},robust", "--criminals",
                             f"{BOTS / 'criminal.py'},toll", "-j", 1, "--json")
        assert code == 0, err
        s = json.loads(out)
        assert s["ok"] and s["games"] == 3 and len(s["known_findings"]) == 1
        assert {x["bot"] for x in s["students"]} == {str(BOTS / "student.py"), "robust"}


def test_generate_then_solve(capsys, tmp_path):
    folder = tmp_path / "gen"
    code, _, err = run(capsys, "generate", "deathrun", "-n", 1, "--seed", 2,
                       "--candidates", 4, "-o", folder)
    assert code == 0, err
    files = list(folder.glob("*.json"))
    assert len(files) == 1 and "greedy paid" in err
    loaded = read_instances(files[0].read_text(), str(files[0]))[0]
    ev = loaded.reference
    assert ev["type"] == "deathrun-gap" and ev["command"].startswith("puzzleproof generate")
    code, out, _ = run(capsys, "solve", "deathrun", files[0])
    assert code == 0 and f"{ev['robust_bound']:.2f}" in out
    code, _, err = run(capsys, "generate", "deathrun", "-n", 1, "--seed", 2,
                       "--candidates", 4, "-o", folder)
    assert code == 2 and "exists" in err


@pytest.mark.parametrize("path", [["deathrun", "play"], ["deathrun", "tournament"],
                                  ["solve", "deathrun"], ["check", "deathrun"],
                                  ["render", "deathrun"], ["crosscheck", "deathrun"],
                                  ["generate", "deathrun"]], ids=" ".join)
def test_help_has_examples(path, capsys):
    code, out, _ = run(capsys, *path, "--help")
    assert code == 0 and "Examples:" in out and "puzzleproof" in out


@pytest.mark.slow
def test_tournament_survives_a_crashing_bot_file(capsys, tmp_path):
    bad = tmp_path / "student.py"
    bad.write_text("class BaseStudent:\n"
                   "    def __init__(self, edge_list, begin, ends):\n"
                   "        raise RuntimeError('no start')\n")
    code, out, err = run(capsys, "deathrun", "tournament", "--criminals", "toll",
                         "--students", f"{bad},greedy", "-n", 2, "-j", 1)
    assert code == 0, err
    assert "2 games on 2 graphs" in out
    assert "student.py), init: init failed" in out or "student.py), init:" in out
    assert "RuntimeError" in out


@pytest.mark.slow
def test_memory_limit_is_an_option(capsys, tmp_path):
    """--memory-limit sets the bot workers' limit: a bot that allocates 300 MB per move is
    within the default 768 MB and past a 200 MB limit (verdict 'memory limit')."""
    hog = tmp_path / "hog.py"
    hog.write_text("class BaseStudent:\n"
                   "    def __init__(self, edge_list, begin, ends):\n"
                   "        self.edges = edge_list\n"
                   "    def strategy(self, edge_updates, vertex_count, current_vertex):\n"
                   "        block = bytearray(300 * 1024 * 1024)\n"
                   "        for u, v, w in self.edges:\n"
                   "            if u == current_vertex:\n"
                   "                return v + len(block) * 0\n")
    args = ("deathrun", "play", "--criminal", "toll", "--student", f"{hog}*2",
            "--student", "greedy*6")
    code, out, err = run(capsys, *args, "--memory-limit", 200)
    assert code == 1, err  # the user's file broke the limit: a verdict, not a crash
    assert "hog.py), round 1: memory limit" in out
    code, out, err = run(capsys, *args)
    assert code == 0, err
    assert "memory limit" not in out
    code, out, err = run(capsys, "deathrun", "tournament", "--criminals", "toll",
                         "--students", f"{hog},greedy", "-n", 2, "-j", 1,
                         "--memory-limit", 200)
    assert code == 0, err
    assert "hog.py), round 1: memory limit" in out


def _wide_graph(path: Path, n: int = 4000, fan: int = 10) -> None:
    """A legal course of ``n`` vertices and about ``n * fan`` links: the robust tables take
    tens of seconds on it."""
    import random

    rnd = random.Random(1)
    edges = [[i, j, rnd.randint(1, 9)] for i in range(n - 1)
             for j in sorted({rnd.randint(i + 1, min(n - 1, i + 30)) for _ in range(fan)})]
    path.write_text(json.dumps({"type": "deathrun-graph", "begin": 0, "ends": [n - 1],
                                "edges": edges}))


def test_solve_under_a_time_limit_is_unknown_not_a_wait(tmp_path, capsys):
    """The robust tables' work grows with links x levels^2: the limit cuts it, and what
    was filled is said."""
    import time

    f = tmp_path / "wide.json"
    _wide_graph(f)
    t0 = time.monotonic()
    code, out, err = run(capsys, "solve", "deathrun", str(f), "--time-limit", "0.5", "--json")
    took = time.monotonic() - t0
    got = json.loads(out)
    assert code == 0 and got["status"] == "UNKNOWN" and got["answer"] is None, err
    assert "time limit (0.5 s) reached with" in got["certificate"]["note"]
    assert took < 0.5 * 2 + 5, took
    code, out, err = run(capsys, "solve", "deathrun", str(f), "--time-limit", "0.5")
    assert code == 0 and "UNKNOWN" in out and "vertices' tables filled" in out


@pytest.mark.parametrize("step", [0.05, 0.005])
def test_a_fine_step_keeps_the_time_limit(step):
    """A fine step makes each vertex's table work grow with levels^2 (minutes, gigabytes
    for one vertex at 0.005): the limit still holds, whatever the step, in a fresh process."""
    import time

    t0 = time.monotonic()
    done = pp("--max-size", "100", "solve", "deathrun", GRAPHS / "gap-s1-1.json", "--step",
              step, "--time-limit", "1", "--json", timeout=60)
    took = time.monotonic() - t0
    got = json.loads(done.stdout)
    assert done.returncode == 0 and got["status"] == "UNKNOWN", done.stderr
    assert "time limit (1 s) reached with" in got["certificate"]["note"]
    assert took < 1 + 4, took


def test_a_step_too_fine_is_refused_before_any_work(capsys):
    code, out, err = run(capsys, "solve", "deathrun", GRAPHS / "gap-s1-1.json", "--step",
                         "0.005", "--time-limit", "1")
    assert code == 2 and not out and len(err.strip().splitlines()) == 1, err
    assert "--step 0.005" in err and "the smallest --step for --budget 200 is 0.1" in err
    assert "--max-size" in err
    code, out, err = run(capsys, "solve", "deathrun", GRAPHS / "gap-s1-1.json", "--step",
                         "0.1", "--time-limit", "0.2", "--json")
    assert code == 0 and json.loads(out)["status"] == "UNKNOWN", err


def test_solve_with_a_time_limit_it_meets_is_the_same_answer(capsys):
    g = GRAPHS / "gap-s1-1.json"
    free = json.loads(run(capsys, "solve", "deathrun", str(g), "--json")[1])
    timed = json.loads(run(capsys, "solve", "deathrun", str(g), "--json", "--time-limit",
                           "60")[1])
    assert free["answer"] == timed["answer"] and free["status"] == timed["status"]
