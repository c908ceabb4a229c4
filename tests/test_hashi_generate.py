"""The generator: reproducible, every puzzle unique (checked by the other back end), measured."""

from __future__ import annotations

import json

from puzzleproof.cli import main
from puzzleproof.encoders.hashi_cpsat import solve as cpsat_solve
from puzzleproof.formats.hashi import read_puzzles
from puzzleproof.generate.hashi import GenParams, generate
from puzzleproof.models.hashi import check_solution
from puzzleproof.result import Status
from tests.conftest import INSTANCES
from tests.test_hashi_exact import canon


def test_same_seed_same_puzzles_whatever_the_jobs():
    p = GenParams(10, 10, count=6, seed=11)
    a = [g.to_record() for g in generate(p, jobs=1)]
    b = [g.to_record() for g in generate(p, jobs=2)]
    strip = [{k: v for k, v in r.items() if k != "measures"} for r in a]
    assert strip == [{k: v for k, v in r.items() if k != "measures"} for r in b]
    other = [g.to_record()["grid"] for g in generate(GenParams(10, 10, count=6, seed=12))]
    assert other != [r["grid"] for r in a]


def test_every_generated_puzzle_is_unique_by_the_other_back_end():
    for size, m in ((7, 1), (12, 2), (9, 3), (9, 4)):
        for g in generate(GenParams(size, size, max_bridges=m, count=4, seed=size + m)):
            assert g.measures["exact"]["solver"] == "sat"
            res = cpsat_solve(g.puzzle, mode="unique")
            assert res.status is Status.UNIQUE
            assert canon(res.answer) == canon(g.solution)
            assert check_solution(g.puzzle, g.solution) == []


def test_min_assumptions_keeps_only_puzzles_hard_for_the_heuristic():
    got = list(generate(GenParams(12, 12, density=0.3, loops=0.2, count=2, seed=3,
                                  min_assumptions=4)))
    assert len(got) == 2
    assert all(g.measures["article"]["assumptions"] >= 4 for g in got)


def test_max_attempts_stops_early():
    got = list(generate(GenParams(8, 8, count=5, seed=1, min_assumptions=10 ** 6,
                                  max_attempts=16)))
    assert got == []


def test_shipped_generated_set_is_unique_and_as_measured():
    files = sorted((INSTANCES / "hashi" / "generated").glob("*.jsonl"))
    assert {f.stem for f in files} >= {"7x7", "10x10", "15x15", "20x20", "30x30", "hard-15x15",
                                       "hard-30x30"}
    for f in files:
        for line, rec in zip(f.read_text().splitlines(), read_puzzles(f.read_text(), str(f))):
            measures = json.loads(line)["measures"]
            assert measures["exact"]["status"] == "UNIQUE"
            assert check_solution(rec.puzzle, rec.solution) == []
            if f.stem.startswith("hard-"):
                assert measures["article"]["assumptions"] >= measures["generator"][
                    "min_assumptions"] > 0


def test_generate_command(capsys, tmp_path):
    out = tmp_path / "g.jsonl"
    code = main(["generate", "hashi", "--size", "7x7", "-n", "3", "--seed", "4", "-o", str(out),
                 "-q"])
    assert code == 0
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(recs) == 3 and all("measures" in r and r["solution"] for r in recs)
    assert main(["generate", "hashi", "--size", "7x7", "-n", "1", "-o", str(out), "-q"]) == 2
    assert "exists" in capsys.readouterr().err
    code = main(["generate", "hashi", "--size", "7x7", "-n", "2", "--seed", "4", "--format",
                 "tatham", "-q"])
    lines = capsys.readouterr().out.split()
    assert code == 0 and len(lines) == 2 and lines[0].startswith("7x7m2:")
    folder = tmp_path / "has"
    code = main(["generate", "hashi", "--size", "7x7", "-n", "2", "--format", "has", "-o",
                 str(folder), "-q"])
    assert code == 0 and len(list(folder.glob("*.has"))) == 2
    assert main(["generate", "hashi", "--format", "has", "-q"]) == 2
    assert main(["generate", "hashi", "--size", "7by7", "-q"]) == 2
    code = main(["generate", "hashi", "--size", "6x6", "-n", "2", "--min-assumptions", "1000",
                 "--max-attempts", "8", "-q"])
    assert code == 1 and "only 0 of 2" in capsys.readouterr().err
