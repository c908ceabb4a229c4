"""Hashi's commands as a new user meets them: an UNKNOWN names its limit, a bad input is one
line, and a judged program's garbage or crash is a verdict in words."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import INSTANCES, run, shared_path

# 400 islands: 1 conflict is not enough
BIG = "instances/hashi/coelho2019/400/Hs_34_400_25_00_001.has"
SMALL = INSTANCES / "hashi" / "small-5x5.txt"
READ = "w = int(input()); h = int(input()); rows = [input() for _ in range(h)]\n"


# -- 1. an UNKNOWN says which limit ran out -------------------------------------------------

@pytest.mark.parametrize("show", ["picture", "lines", "none"])
def test_unknown_names_its_limit_on_the_status_line(capsys, show):
    big = shared_path(BIG)
    code, out, err = run(capsys, "solve", str(big), "--conflicts", "1", "--show", show)
    assert code == 0
    head = next(x for x in (out + err).splitlines() if "UNKNOWN" in x)
    assert "UNKNOWN: conflict budget (1) ran out" in head
    assert (out + err).count("conflict budget (1) ran out") == 1  # said once


def test_unknown_of_the_time_limit_names_it(capsys):
    big = shared_path(BIG)
    code, out, _ = run(capsys, "solve", str(big), "--time-limit", "0.001")
    assert code == 0 and "UNKNOWN: time limit (0.001 s) ran out" in out


def test_article_unknown_names_its_limit(capsys):
    big = shared_path(BIG)
    code, out, _ = run(capsys, "solve", str(big), "--method", "article", "--time-limit", "0.001")
    assert code == 0 and "UNKNOWN: time limit (0.001 s) ran out after" in out


def test_batch_table_names_the_limit_briefly_and_the_note_below(capsys):
    big = shared_path(BIG)
    code, out, _ = run(capsys, "solve", str(big), str(SMALL), "--conflicts", "1", "-q")
    assert code == 0
    assert "UNKNOWN (conflict budget)" in out
    assert "UNKNOWN: " in out and "conflict budget (1) ran out after" in out


# -- 2. a bad input: one line, no table -----------------------------------------------------

def _bad_inputs(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "bin.dat").write_bytes(bytes(range(256)) * 2)
    (tmp_path / "wide.txt").write_text("300\n2\n" + "." * 300 + "\n" + "." * 300 + "\n")
    return {"empty": str(tmp_path / "empty.txt"), "missing": str(tmp_path / "nope.txt"),
            "binary": str(tmp_path / "bin.dat"), "wide": str(tmp_path / "wide.txt"),
            "tatham": "3x3m2:3a3c2a"}


@pytest.mark.parametrize("which", ["empty", "missing", "binary", "wide", "tatham"])
def test_one_bad_input_is_one_line(capsys, tmp_path, which):
    arg = _bad_inputs(tmp_path)[which]
    for extra in ([], ["--json"], ["--unique"]):
        code, out, err = run(capsys, "solve", "hashi", arg, *extra)
        assert code == 2
        assert out == "" and "BAD INPUT" not in err
        lines = [x for x in err.splitlines() if x.strip()]
        assert len(lines) == 1 and lines[0].startswith("puzzleproof: error: ")


def test_every_input_bad_is_one_line_each_and_no_empty_output_file(capsys, tmp_path):
    bad = _bad_inputs(tmp_path)
    target = tmp_path / "runs.jsonl"
    code, out, err = run(capsys, "solve", "hashi", bad["empty"], bad["binary"], "-o",
                         str(target))
    assert code == 2 and out == "" and not target.exists()
    assert len([x for x in err.splitlines() if x.strip()]) == 2


def test_a_bad_input_among_good_ones_keeps_its_row(capsys, tmp_path):
    bad = _bad_inputs(tmp_path)
    code, out, err = run(capsys, "solve", "hashi", bad["empty"], str(SMALL), "-q")
    assert code == 2 and "BAD INPUT" in out and "SOLVED" in out
    assert "empty input" in err


# -- 3. a judged program: garbage and crashes are verdicts in words ---------------------------

def _solver(tmp_path: Path, name: str, body: str) -> str:
    p = tmp_path / f"{name}.py"
    p.write_text(READ + textwrap.dedent(body))
    return f"{name}={sys.executable} {p}"


def _crosscheck(capsys, tmp_path, *cmds):
    target = tmp_path / "run.jsonl"
    args = ["crosscheck", "hashi", str(SMALL), "--method", "sat", "-j", "1", "-q",
            "--time-limit", "20", "-o", str(target)]
    for c in cmds:
        args += ["--bot-cmd", c]
    code, out, err = run(capsys, *args)
    recs = [json.loads(x) for x in target.read_text().splitlines()]
    return code, out, {r["method"]: r for r in recs if r["type"] == "record"}, \
        [r for r in recs if r["type"] == "disagreement"]


def test_garbage_output_is_a_malformed_verdict_naming_the_first_bad_line(capsys, tmp_path):
    garbage = _solver(tmp_path, "garbage", """\
        print("0 0 99999999999999999999999999 0 1")
        print("banana")
        """)
    code, out, recs, dis = _crosscheck(capsys, tmp_path, garbage)
    assert code == 1
    r = recs["garbage"]
    assert r["status"] == "ERROR" and r["answer"] is None
    assert r["error"].startswith("malformed output: line 2: 'banana'") or \
        "malformed output: line 2: 'banana'" in r["error"]
    assert any(d["methods"][0] == "garbage" for d in dis)
    assert "malformed output: line 2: 'banana'" in out


def test_debug_text_on_stdout_is_malformed_even_with_a_right_answer(capsys, tmp_path):
    from puzzleproof.encoders import hashi_sat
    from puzzleproof.formats.hashi import read_puzzles

    rec = read_puzzles(SMALL.read_text(), str(SMALL))[0]
    sol = hashi_sat.solve(rec.puzzle).answer
    lines = "\\n".join(" ".join(map(str, b)) for b in sol)
    chatty = _solver(tmp_path, "chatty", f"""\
        print("thinking...")
        print("{lines}")
        """)
    code, _, recs, _ = _crosscheck(capsys, tmp_path, chatty)
    assert code == 1
    assert recs["chatty"]["status"] == "ERROR"
    assert "line 1: 'thinking...'" in recs["chatty"]["error"]


def test_an_out_of_grid_number_is_judged_by_the_rules(capsys, tmp_path):
    huge = _solver(tmp_path, "huge", 'print("0 0 99999999999999999999999999 0 1")\n')
    code, _, recs, dis = _crosscheck(capsys, tmp_path, huge)
    assert code == 1
    assert recs["huge"]["status"] == "SOLVED" and not recs["huge"]["check_ok"]
    assert any(d["kind"] == "invalid-answer" and d["methods"] == ["huge"] for d in dis)


def test_a_crash_is_reported_by_its_reason(capsys, tmp_path):
    crash = _solver(tmp_path, "crash", "raise SystemExit(3)\n")
    code, out, recs, _ = _crosscheck(capsys, tmp_path, crash)
    assert code == 1
    assert "crash: exit code 3" in recs["crash"]["error"]
    assert "crash: exit code 3" in out


def test_article_effort_is_its_assumptions_not_cut_rounds(capsys):
    code, out, _ = run(capsys, "solve", str(SMALL), "--method", "article")
    head = out.splitlines()[0]
    assert code == 0 and "assumption" in head and "cut round" not in head


def test_a_crash_shows_no_python_class_name(capsys, tmp_path):
    crash = _solver(tmp_path, "crash", "raise SystemExit(3)\n")
    _, out, recs, _ = _crosscheck(capsys, tmp_path, crash)
    assert "ExternalSolverFailed" not in out
    assert recs["crash"]["error"].startswith("crash: exit code 3")
