"""The cross-check harness: planted wrong methods are caught; interrupted runs resume exactly."""

from __future__ import annotations

import json
import shutil

import pytest

from puzzleproof.cli import main
from puzzleproof.result import Result, Status
from puzzleproof.method import Method
from puzzleproof.formats.jsonl import load_records
from puzzleproof.verify.crosscheck import run_crosscheck
from puzzleproof.verify.hashi_methods import hashi_kind, load_hashi_instances
from tests.conftest import INSTANCES, shared_path


def corrupting_solver(puzzle, *, deadline):
    """A test double: solves exactly, then drops one bridge from the answer."""
    from puzzleproof.encoders.hashi_sat import solve
    res = solve(puzzle, mode="unique")
    res.answer = res.answer[1:]
    res.solver = "corrupting"
    return res


def giving_up_solver(puzzle, *, deadline):
    return Result("hashi", Status.INFEASIBLE, solver="defeatist")


def crashing_solver(puzzle, *, deadline):
    raise RuntimeError("boom")


def instances():
    return load_hashi_instances([str(INSTANCES / "hashi" / "examples.jsonl"),
                                 str(INSTANCES / "hashi" / "generated" / "7x7.jsonl")])


@pytest.mark.parametrize("jobs", [1, 2])
def test_planted_wrong_methods_are_disagreements(jobs):
    kind = hashi_kind({"corrupt": Method("corrupt", "heuristic", run=corrupting_solver),
                       "defeatist": Method("defeatist", "heuristic", run=giving_up_solver),
                       "crash": Method("crash", "heuristic", run=crashing_solver)})
    insts = instances()
    rep = run_crosscheck(kind, insts, ["sat", "cpsat", "article", "corrupt", "defeatist",
                                       "crash"], jobs=jobs)
    assert rep.exit_code == 1
    by_kind = {}
    for d in rep.disagreements:
        by_kind.setdefault(d["kind"], set()).update(d["methods"])
    assert "corrupt" in by_kind["invalid-answer"]
    assert {"defeatist", "crash"} <= by_kind["missed-solution"]
    assert not ({"sat", "cpsat", "article"} & by_kind["invalid-answer"])
    n = len(insts)
    assert sum(d["kind"] == "invalid-answer" for d in rep.disagreements) == n
    crash = [r for r in rep.records if r["method"] == "crash"]
    assert all(r["status"] == "ERROR" and "boom" in r["error"] for r in crash)
    summary = {row["method"]: row for row in rep.summary()}
    assert summary["corrupt"]["failed"] == n and summary["sat"]["failed"] == 0


def test_honest_methods_agree_and_reference_mismatch_is_caught(tmp_path):
    rep = run_crosscheck(hashi_kind(), instances(), ["sat", "cpsat", "article"], jobs=2)
    assert rep.exit_code == 0 and not rep.disagreements
    bad = tmp_path / "bad.jsonl"
    rec = json.loads((INSTANCES / "hashi" / "examples.jsonl").read_text().splitlines()[0])
    rec["solution"][0][4] = 3 - rec["solution"][0][4]  # a wrong reference
    bad.write_text(json.dumps(rec) + "\n")
    rep = run_crosscheck(hashi_kind(), load_hashi_instances([str(bad)]), ["sat"], jobs=1)
    assert [d["kind"] for d in rep.disagreements] == ["reference-mismatch"]


def key(r):
    return (r["instance"], r["method"], r["status"], json.dumps(r["answer"]))


def test_resume_after_interruption_reproduces_records_without_duplicates(tmp_path):
    insts = instances()
    full = tmp_path / "full.jsonl"
    rep = run_crosscheck(hashi_kind(), insts, ["sat", "article"], full, jobs=2)
    full_recs = [r for r in load_records(full) if r["type"] == "record"]
    assert len(full_recs) == 2 * len(insts)
    # an interrupted run: the first 7 lines, and a torn last line
    part = tmp_path / "part.jsonl"
    lines = full.read_text().splitlines()
    part.write_text("\n".join(lines[:7]) + "\n" + lines[7][:20])
    with pytest.raises(FileExistsError):
        run_crosscheck(hashi_kind(), insts, ["sat", "article"], part, jobs=2)
    rep2 = run_crosscheck(hashi_kind(), insts, ["sat", "article"], part, resume=True, jobs=2)
    got = [r for r in load_records(part) if r["type"] == "record"]
    assert sorted(map(key, got)) == sorted(map(key, full_recs))
    assert len({(r["instance"], r["method"]) for r in got}) == len(got)
    done = [r for r in load_records(part) if r["type"] == "instance-done"]
    assert sorted(d["instance"] for d in done) == sorted(i.id for i in insts)
    assert rep2.new_records < len(full_recs)
    # resuming a finished run does nothing more
    before = part.read_text()
    rep3 = run_crosscheck(hashi_kind(), insts, ["sat", "article"], part, resume=True, jobs=2)
    assert rep3.new_records == 0 and part.read_text() == before
    assert rep.exit_code == rep2.exit_code == rep3.exit_code == 0


def test_resume_refuses_a_run_of_another_puzzle_or_verb(capsys, tmp_path):
    """--resume continues only the run its file holds: another puzzle's records (with or
    without the run's summary line, as a killed run leaves them) or another verb's run is
    refused, exit 2 in one line naming the file, and the file is left as it was."""
    small = str(INSTANCES / "hashi" / "small-5x5.txt")
    ring = str(INSTANCES / "cityclose" / "ring14-s1-0.json")
    runs = tmp_path / "h.jsonl"
    assert main(["crosscheck", "hashi", small, "-q", "-j", "1", "-o", str(runs)]) == 0
    capsys.readouterr()
    killed = tmp_path / "killed.jsonl"
    killed.write_text("".join(ln + "\n" for ln in runs.read_text().splitlines()
                              if '"run-summary"' not in ln))
    for path, held in ((runs, "'crosscheck hashi' run"), (killed, "hashi records")):
        before = path.read_text()
        code = main(["crosscheck", "cityclose", ring, "-q", "-j", "1", "-o", str(path),
                     "--resume"])
        err = capsys.readouterr().err
        assert code == 2 and str(path) in err and held in err and "cityclose" in err, err
        assert len(err.strip().splitlines()) == 1 and path.read_text() == before
    # another verb of the same puzzle: a Skynet referee batch is not a Skynet cross-check
    ref = tmp_path / "ref.jsonl"
    skynet = str(INSTANCES / "skynet" / "ep1" / "01-line.txt")
    assert main(["skynet", "referee", skynet, "--bot", "ep1-path", "--agent",
                 "article,nearest", "-q", "-j", "1", "-o", str(ref)]) in (0, 1)
    capsys.readouterr()
    before = ref.read_text()
    code = main(["crosscheck", "skynet", skynet, "-q", "-j", "1", "-o", str(ref), "--resume"])
    err = capsys.readouterr().err
    assert code == 2 and "'skynet referee'" in err and ref.read_text() == before, err
    # the run's own file resumes as before
    assert main(["crosscheck", "hashi", small, "-q", "-j", "1", "-o", str(runs),
                 "--resume"]) == 0


@pytest.mark.slow
def test_crosscheck_command(capsys, tmp_path):
    out = tmp_path / "cc.jsonl"
    code = main(["crosscheck", str(INSTANCES / "hashi"), "-o", str(out), "-q"])
    cap = capsys.readouterr()
    assert code == 0 and "no disagreement" in cap.out and "article" in cap.out
    n = len([r for r in load_records(out) if r["type"] == "record"])
    assert n % 3 == 0 and n >= 3 * 50
    code = main(["crosscheck", str(INSTANCES / "hashi"), "-o", str(out), "-q"])
    assert code == 2 and "--resume" in capsys.readouterr().err
    code = main(["crosscheck", str(INSTANCES / "hashi"), "-o", str(out), "-q", "--resume",
                 "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["disagreements"] == [] and data["instances"] == n // 3
    code = main(["crosscheck", str(INSTANCES / "hashi"), "--method", "sat,nope"])
    assert code == 2


def test_agreeing_infeasible_answers_are_no_disagreement(capsys, tmp_path):
    src = tmp_path / "set"
    src.mkdir()
    shutil.copy(INSTANCES / "hashi" / "small-5x5.txt", src / "a.txt")
    (src / "b.jsonl").write_text('{"name": "closed", "grid": [".1.", "2.2", ".1."]}\n')
    code = main(["crosscheck", str(src), "-q", "--method", "sat,article", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["disagreements"] == []
    assert {row["method"]: row["infeasible"] for row in data["summary"]} == {"sat": 1,
                                                                             "article": 1}


def test_heuristic_giving_up_where_exact_solves_exits_1(capsys):
    """The article's solver explodes on this Coelho puzzle (over 10 000 assumptions)."""
    f = shared_path("instances/hashi/coelho2019/100/Hs_16_100_75_00_011.has")
    code = main(["crosscheck", str(f), "-q", "--method", "sat,article", "--time-limit", "0.5"])
    out = capsys.readouterr().out
    assert code == 1
    assert "missed-solution [article, sat] article says UNKNOWN but sat found a checked" in out
