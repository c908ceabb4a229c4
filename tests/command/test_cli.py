"""The command, end to end: outputs, exit codes, JSON, pictures, and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import COLD_CHECK, INSTANCES, ROOT, run, shared_path

FIVE = "p?hashi/5/5/4g2i3h23k3g1g3g4g3"
TWO = "3x3m2:3a3c2a2"  # two solutions


@pytest.mark.parametrize("solver", ["sat", "cpsat"])
def test_solve_one_puzzle_prints_status_and_picture(capsys, solver):
    code, out, err = run(capsys, "solve", FIVE, "--unique", "--method", solver)
    assert code == 0
    assert "UNIQUE" in out and "rule check: ok" in out
    assert "4═══2" in out


def test_solve_json_is_one_result_object(capsys):
    code, out, _ = run(capsys, "solve", FIVE, "--unique", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["type"] == "result" and data["status"] == "UNIQUE"
    assert data["check"]["ok"] is True and data["solver"] == "sat"
    assert {"solver_version", "params", "wall_time", "stats", "seed"} <= set(data)
    assert len(data["answer"]) == 9


def test_multiple_shows_two_different_solutions(capsys):
    code, out, _ = run(capsys, "solve", TWO, "--unique")
    assert code == 0 and "MULTIPLE" in out and "solution 2:" in out
    assert out.index("solution 1:") < out.index("solution 2:")
    code, out, _ = run(capsys, "solve", TWO, "--unique", "--json")
    d = json.loads(out)
    assert d["answer"] != d["certificate"]["second"]


def test_all_enumerates(capsys):
    code, out, _ = run(capsys, "solve", TWO, "--all", "-n", "5", "--json")
    d = json.loads(out)
    assert code == 0 and d["status"] == "MULTIPLE"
    assert d["certificate"]["count"] == 2 and d["certificate"]["complete"] is True
    code, out, _ = run(capsys, "solve", TWO, "--all", "-n", "1", "--json")
    d = json.loads(out)
    assert d["status"] == "SOLVED" and d["certificate"]["complete"] is False


def test_lines_output_is_codingame_output(capsys):
    code, out, err = run(capsys, "solve", FIVE, "--show", "lines")
    assert code == 0
    assert all(len(line.split()) == 5 for line in out.splitlines()) and len(out.splitlines()) == 9
    assert "SOLVED" in err


def test_impossible_puzzle_exit_1_names_the_island_once(capsys):
    code, out, err = run(capsys, "solve", "3x3m2:d5d")
    assert code == 1  # the input was read; the answer is a proved "no"
    assert "INFEASIBLE" in out and "(1, 1)" in out and out.count("(1, 1)") == 1
    code, out, err = run(capsys, "solve", "3x3m2:a1a2a2a1a")
    assert code == 1 and "no connected solution" in out


def test_time_limit_gives_unknown_not_infeasible(capsys):
    f = shared_path("instances/hashi/coelho2019/400/Hs_34_400_75_00_001.has")
    code, out, _ = run(capsys, "solve", str(f), "--time-limit", "1e-9", "--json")
    d = json.loads(out)
    assert code == 0 and d["status"] == "UNKNOWN"


@pytest.mark.parametrize("args", [
    ["solve", FIVE, "--time-limit"],
    ["skynet", "referee", "MAP", "--bot", "ep2-slack", "--move-timeout"],
    ["skynet", "referee", "MAP", "--bot", "ep2-slack", "--init-timeout"],
    ["deathrun", "play", "--move-timeout"],
    ["generate", "skynet", "--time-limit"],
])
@pytest.mark.parametrize("value", ["inf", "1e999", "nan", "-inf", "1e300", "0"])
def test_seconds_are_finite_positive_and_bounded(capsys, args, value):
    """A limit of ``inf`` switched it off (a sleeping program was waited for forever) and
    ``nan`` reached the code as an internal error: every option in seconds takes a finite
    number in (0, 1e6], else one line and exit 2, before anything runs."""
    args = [str(shared_path("instances/skynet/ep2/01-robust-double-gateways.txt"))
            if a == "MAP" else a for a in args]
    code, out, err = run(capsys, *args, value)
    assert code == 2 and out == ""
    assert "invalid value for" in err and ("not a finite number" in err or "range" in err)


@pytest.mark.parametrize("value,says", [
    ("=python3 bot.py", "the name is empty"),
    ("x=", "expected NAME=COMMAND"),
    ("mine=/no/such/program --flag", "no program '/no/such/program'"),
    ("no-such-program-xyz", "no program 'no-such-program-xyz'"),
])
def test_a_bot_command_that_cannot_name_or_start_a_program_is_misuse(capsys, value, says):
    """``--bot-cmd '=python3 bot.py'`` once started ``=python3``, and a missing program was
    judged as a lost game (exit 1): both are misuse, said in one line before anything runs."""
    m = str(shared_path("instances/skynet/ep2/01-robust-double-gateways.txt"))
    for cmd in (["skynet", "referee", m], ["crosscheck", "skynet", m]):
        code, out, err = run(capsys, *cmd, "--bot-cmd", value)
        assert code == 2 and out == "" and says in err, err


@pytest.mark.parametrize("args,says", [
    (["--nodes", "20", "--time-limit", "2"], "--time-limit applies to --ep1-set only"),
    (["--nodes", "5", "--gateways", "10"], "--gateways 10 needs more --nodes than 5"),
])
def test_generate_skynet_refuses_options_it_would_not_honour(capsys, tmp_path, args, says):
    """A breaker search once ignored --time-limit (ran on until killed) and drew 20 s of
    maps with more gateways than nodes before saying the attempts ran out."""
    code, out, err = run(capsys, "generate", "skynet", *args, "-o", str(tmp_path / "g"))
    assert code == 2 and out == "" and says in err
    assert not (tmp_path / "g").exists()


def test_batch_table_over_shipped_instances(capsys):
    code, out, err = run(capsys, "solve", str(INSTANCES / "hashi"), "--unique", "-q")
    assert code == 0
    assert "UNIQUE" in out and "MULTIPLE" in out and "ok (= ref)" in out
    files = [p for p in (INSTANCES / "hashi").iterdir() if p.suffix != ".md"]
    assert len(files) >= 6


def test_batch_jsonl_stream_and_reference_mismatch(capsys, tmp_path):
    good = json.dumps({"grid": ["2.2"], "solution": [[0, 0, 2, 0, 2]]})
    wrong = json.dumps({"grid": ["2.2", "...", "1.1"], "solution": [[0, 0, 2, 0, 2]]})
    (tmp_path / "set.jsonl").write_text(good + "\n" + wrong + "\n")
    code, out, _ = run(capsys, "solve", str(tmp_path / "set.jsonl"), "--unique", "--jsonl")
    recs = [json.loads(x) for x in out.splitlines()]
    assert [r["type"] for r in recs] == ["result", "result"]
    assert recs[0]["failed"] is False and recs[1]["failed"] is True
    assert code == 1


def test_batch_with_a_bad_file_reports_it_and_goes_on(capsys, tmp_path):
    (tmp_path / "a.txt").write_text("3\n1\n2.2\n")
    (tmp_path / "b.txt").write_text("3\n2\n2.2\n1.\n")
    code, out, err = run(capsys, "solve", str(tmp_path), "-q")
    assert code == 2
    assert "b.txt:4:3: row 2 has 2 cells, expected 3" in err
    assert "SOLVED" in out and "BAD INPUT" in out


def test_check_valid_and_invalid_solutions(capsys, tmp_path):
    puzzle = tmp_path / "p.txt"
    puzzle.write_text("3\n3\n2.2\n...\n2.2\n")
    good = tmp_path / "good.txt"
    good.write_text("0 0 2 0 1\n0 0 0 2 1\n2 0 2 2 1\n0 2 2 2 1\n")
    assert run(capsys, "check", str(puzzle), str(good))[0] == 0
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("0 0 2 0 2\n0 2 2 2 2\n")
    code, out, _ = run(capsys, "check", str(puzzle), str(wrong))
    assert code == 1 and "disconnected" in out
    code, out, _ = run(capsys, "check", str(puzzle), str(wrong), "--json")
    assert json.loads(out)["violations"][0]["kind"] == "disconnected"


def test_check_solution_referencing_water_is_a_broken_rule_with_location(capsys, tmp_path):
    puzzle = tmp_path / "p.txt"
    puzzle.write_text("3\n3\n2.2\n...\n2.2\n")
    sol = tmp_path / "sol.txt"
    sol.write_text("0 0 2 0 1\n0 0 1 0 1\n")
    code, out, err = run(capsys, "check", str(puzzle), str(sol))
    assert code == 1  # read, but it names an island the puzzle lacks: a broken rule
    assert f"{sol}:2:" in out and "(1, 0)" in out and "water" in out
    assert "Traceback" not in err


def test_a_verb_given_nothing_shows_its_help(capsys):
    """'puzzleproof', 'puzzleproof solve' alone: the help, as --help shows it (on stdout, not
    as an error message), exit 2 (nothing was done; click before 8.2 prints the help itself
    and exits 0)."""
    import click

    nothing = 2 if hasattr(click.exceptions, "NoArgsIsHelpError") else 0
    for argv in ([], ["solve"], ["skynet"]):
        code, out, err = run(capsys, *argv)
        assert code == nothing and out.startswith("Usage: puzzleproof"), argv
        assert "error" not in err, argv


def test_a_batch_shows_the_effort_its_method_counts(capsys):
    """The article's search counts assumptions, the exact solvers cut rounds: the batch
    table's effort column is the one the method fills."""
    folder = str(INSTANCES / "hashi")
    code, out, _ = run(capsys, "solve", folder, "--method", "article")
    row = next(ln for ln in out.splitlines() if "adjacent-islands-6x6" in ln)
    assert code == 0 and "assumptions" in out and "cut rounds" not in out
    assert row.split("│")[-3].strip().isdigit()
    code, out, _ = run(capsys, "solve", folder)
    assert code == 0 and "cut rounds" in out


def test_render_svg_and_ascii(capsys, tmp_path):
    target = tmp_path / "out.svg"
    code, _, err = run(capsys, "render", FIVE, "--solve", "-o", str(target))
    assert code == 0 and target.read_text().startswith("<svg")
    code, out, _ = run(capsys, "render", FIVE, "--ascii")
    assert code == 0 and out.splitlines()[0] == "4 . 2 . ."
    # a picture kind the puzzle does not draw, named by -o's ending: refused, nothing written
    code, _, err = run(capsys, "render", FIVE, "-o", str(tmp_path / "out.png"))
    assert code == 2 and "no PNG picture" in err and not (tmp_path / "out.png").exists()


def test_solve_writes_outputs_by_extension(capsys, tmp_path):
    for name, start in (("s.svg", "<svg"), ("s.json", "[["), ("s.txt", "0 0 ")):
        code, _, _ = run(capsys, "solve", FIVE, "-o", str(tmp_path / name), "--show", "none")
        assert code == 0 and (tmp_path / name).read_text().startswith(start)
    # the written CodinGame lines pass the checker
    assert run(capsys, "check", FIVE, str(tmp_path / "s.txt"))[0] == 0


def test_convert_round_trip(capsys, tmp_path):
    code, out, _ = run(capsys, "convert", FIVE, "--format", "tatham")
    assert out.strip() == "5x5m2:4a2c3b23e3a1a3a4a3"
    code, out, _ = run(capsys, "convert", out.strip(), "--format", "puzzlink")
    assert out.strip() == "https://puzz.link/p?hashi/5/5/4g2i3h23k3g1g3g4g3"
    code, _, err = run(capsys, "convert", "3x1m4:GaG", "--format", "codingame")
    assert code == 2 and "at most 2 bridges" in err
    ids = tmp_path / "ids.txt"
    ids.write_text("5x5m2:4a2c3b23e3a1a3a4a3\n3x1m2:2a2\n")
    code, _, err = run(capsys, "convert", "hashi", str(ids), "--format", "json", "-o",
                       str(tmp_path / "two.json"))  # two puzzles are no JSON document
    assert code == 2 and "name the output .jsonl" in err
    assert not (tmp_path / "two.json").exists()
    code, _, err = run(capsys, "convert", "hashi", str(ids), "--format", "json", "-o",
                       str(tmp_path / "two.jsonl"))
    assert code == 0, err
    code, out, _ = run(capsys, "solve", str(tmp_path / "two.jsonl"), "--json")
    assert code == 0 and [r["status"] for r in json.loads(out)] == ["SOLVED", "SOLVED"]


def test_missing_file_and_bad_usage(capsys):
    code, _, err = run(capsys, "solve", "no/such/file.txt")
    assert code == 2 and "no/such/file.txt: no such file" in err
    code, _, err = run(capsys, "solve", FIVE, "--method", "gurobi")
    assert code == 2


def test_failed_output_write_leaves_no_partial_file(capsys, tmp_path):
    blocker = tmp_path / "dir"
    blocker.mkdir()
    code, _, err = run(capsys, "solve", FIVE, "-o", str(blocker), "--show", "none")
    assert code == 2
    assert list(tmp_path.iterdir()) == [blocker] and list(blocker.iterdir()) == []


def test_installed_command_gives_one_line_error_and_no_traceback(tmp_path):
    bad = tmp_path / "bad.has"
    bad.write_text("2 2 1\n1 0\n0 x\n")
    proc = subprocess.run([sys.executable, "-m", "puzzleproof", "solve", str(bad)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (f"puzzleproof: error: {bad}:3:3: expected a clue or 0 "
                                   "(an integer), found 'x'")
    help_proc = subprocess.run([sys.executable, "-m", "puzzleproof", "solve", "hashi", "--help"],
                               capture_output=True, text=True)
    assert help_proc.returncode == 0 and "--unique" in help_proc.stdout


def test_glob_patterns_expand(capsys):
    code, out, _ = run(capsys, "solve", str(INSTANCES / "hashi" / "*.tatham"), "-q", "--jsonl")
    assert code == 0 and len(out.splitlines()) == 2
    code, _, err = run(capsys, "solve", str(INSTANCES / "nothing-*.has"))
    assert code == 2 and "the pattern matches no file" in err


def test_render_a_wrong_solution_warns(capsys, tmp_path):
    """A wrong solution is drawn, its title says so, and the exit code is 1: the input was
    read and the answer it holds is wrong."""
    sol = tmp_path / "wrong.txt"
    sol.write_text("0 0 2 0 2\n0 2 2 2 2\n")
    code, out, err = run(capsys, "render", TWO, "--solution", str(sol), "--ascii")
    assert code == 1 and "does NOT solve the puzzle" in err and out.startswith("3===3")
    assert "NOT a solution" in out


def test_prepare_lists_every_puzzle_and_does_city_closings_compiling(capsys):
    code, out, err = run(capsys, "prepare", "--json")
    assert code == 0, err
    got = json.loads(out)["prepared"]
    assert set(got) == {"hashi", "skynet", "cityclose", "deathrun"}
    assert "compiled" in got["cityclose"]["done"] and got["cityclose"]["seconds"] >= 0
    assert got["hashi"] == {"done": "nothing to prepare", "seconds": 0.0}
    code, out, err = run(capsys, "prepare", "cityclose")
    assert code == 0 and out.startswith("cityclose  the exact search") and "hashi" not in out


def test_prepare_of_an_unknown_puzzle_is_one_line(capsys):
    code, out, err = run(capsys, "prepare", "citycloze")
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and out == "" and len(lines) == 1
    assert lines[0].startswith("puzzleproof: error: unknown puzzle 'citycloze'; did you mean "
                               "'cityclose'?")


@pytest.mark.slow
def test_a_cold_compiled_cache_is_told(tmp_path):
    """With numba's cache empty (a fresh install not prepared) city closing knows it will
    compile, and says so before the pause; judged without compiling anything. That nothing
    the check looks at is missing after ``prepare`` is checked in the fresh clone of the
    README's quick start (tests/house/test_documents.py), where ``prepare`` compiles into an
    empty cache anyway."""
    env = {**__import__("os").environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    got = subprocess.run([sys.executable, "-c", COLD_CHECK], capture_output=True, text=True,
                         env=env, timeout=120)
    assert got.stdout.split() == ["True", "True", "True"], got.stderr[-500:]


def test_a_short_limit_on_an_unprepared_install_is_unknown_at_once(tmp_path):
    """Compiling cannot be cut short: with the compiled loops not cached and a limit
    shorter than compiling them, a method that needs them says so (UNKNOWN, naming the
    fix) instead of overrunning the limit; the plain DP, which compiles nothing, runs."""
    import os
    import time

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    ring = str(INSTANCES / "cityclose" / "ring14-s1-0.json")
    cmd = [sys.executable, "-m", "puzzleproof", "solve", "cityclose", ring, "--json",
           "--time-limit", "2"]
    t0 = time.monotonic()
    got = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    took = time.monotonic() - t0
    rec = json.loads(got.stdout)
    assert got.returncode == 0 and rec["status"] == "UNKNOWN", got.stderr[-500:]
    assert "puzzleproof prepare" in rec["stats"]["reason"]
    assert took < 2 * 2 + 5, took
    got = subprocess.run(cmd + ["--method", "dp"], capture_output=True, text=True, env=env,
                         timeout=120)
    assert json.loads(got.stdout)["status"] == "OPTIMAL", got.stderr[-500:]
