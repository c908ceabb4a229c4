"""The generator: unique by construction (checked by brute force on small sizes and by the
other back end on large ones), its repairs, its measures recomputed from the written file,
reproducible for any number of jobs, and bounded by the run's clock."""

from __future__ import annotations

import copy
import json
import random

import pytest

from puzzleproof.cli import main
from puzzleproof.clock import Deadline
from puzzleproof.encoders.hashi_brute import enumerate_solutions
from puzzleproof.encoders.hashi_common import counts_of
from puzzleproof.encoders.hashi_cpsat import solve as cpsat_solve
from puzzleproof.encoders.hashi_sat import solve as sat_solve
from puzzleproof.formats.hashi import read_puzzles
from puzzleproof.generate.hashi import GenParams, attempt, generate, unique_question
from puzzleproof.generate.hashi_network import grow, repair
from puzzleproof.models.hashi import check_solution, counts_to_lines
from puzzleproof.players import hashi_article
from puzzleproof.result import Status
from tests.conftest import INSTANCES
from tests.hashi.test_exact import canon


def _without_seconds(value):
    """A record with its wall times left out (the rest must be the same on every run)."""
    if isinstance(value, dict):
        return {k: _without_seconds(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [_without_seconds(v) for v in value]
    return value


def test_same_seed_same_puzzles_and_measures_whatever_the_jobs():
    p = GenParams(12, 12, count=6, seed=11, loops=0.2)
    a = [_without_seconds(g.to_record()) for g in generate(p, jobs=1)]
    b = [_without_seconds(g.to_record()) for g in generate(p, jobs=2)]
    assert a == b and len(a) == 6
    other = [g.to_record()["grid"] for g in generate(GenParams(12, 12, count=6, seed=12))]
    assert other != [r["grid"] for r in a]


def test_small_puzzles_are_unique_by_brute_force():
    """Every kept puzzle of small grids has exactly one solution, its recorded one, by the
    independent brute-force enumerator; most needed repairs to get there."""
    repaired = kept = 0
    for size, m, seed in ((5, 1, 1), (5, 2, 2), (6, 2, 3), (6, 3, 4), (5, 4, 5)):
        for g in generate(GenParams(size, size, max_bridges=m, density=0.35, loops=0.3,
                                    count=6, seed=seed)):
            sols = enumerate_solutions(g.puzzle)
            assert [canon(s) for s in sols] == [canon(g.solution)], g.puzzle.to_rows()
            kept += 1
            repaired += g.measures["generator"]["repair_rounds"] > 0
    assert kept == 30 and repaired >= 10


def test_repair_breaks_the_other_solution_and_keeps_the_network():
    """On tiny networks with several solutions (all of them known by brute force): after a
    round of repair the network is still a solution of its new puzzle and the other one is
    not."""
    rng = random.Random(41)
    rounds = 0
    while rounds < 60:
        net = grow(rng, rng.randint(3, 6), rng.randint(3, 6), rng.randint(1, 3), 0.4, 0.4)
        puzzle = net.puzzle()
        mine = canon(counts_to_lines(puzzle, net.counts(puzzle)))
        others = [s for s in enumerate_solutions(puzzle, limit=6) if canon(s) != mine]
        for other in others[:2]:
            fixed = copy.deepcopy(net)
            if not repair(fixed, puzzle, counts_of(puzzle, other), rng):
                continue
            rounds += 1
            after = fixed.puzzle()
            assert check_solution(after, counts_to_lines(after, fixed.counts(after))) == []
            assert check_solution(after, other) != [], (puzzle.to_rows(), other)


def test_large_puzzles_are_unique_by_the_other_back_end():
    for solver, other in (("sat", cpsat_solve), ("cpsat", sat_solve)):
        for g in generate(GenParams(30, 30, count=1, seed=5, solver=solver,
                                    min_assumptions=10)):
            assert g.measures["exact"]["solver"] == solver
            res = other(g.puzzle, mode="unique")
            assert res.status is Status.UNIQUE and res.check_ok
            assert canon(res.answer) == canon(g.solution)
            assert check_solution(g.puzzle, g.solution) == []
            assert g.measures["article"]["assumptions"] >= 10


def test_measures_recomputed_from_the_written_file(tmp_path):
    out = tmp_path / "g.jsonl"
    code = main(["generate", "hashi", "--size", "16x16", "-n", "3", "--seed", "2",
                 "--min-assumptions", "5", "--min-depth", "2", "-o", str(out), "-q"])
    assert code == 0
    lines = out.read_text().splitlines()
    recs = read_puzzles(out.read_text(), str(out))
    assert len(recs) == 3
    for line, rec in zip(lines, recs):
        meas = json.loads(line)["measures"]
        params = GenParams(**{k: v for k, v in meas["generator"].items()
                              if k not in ("attempt", "repair_rounds", "repair_moves")})
        art = hashi_article.solve(rec.puzzle, max_nodes=params.article_node_limit)
        assert {k: v for k, v in meas["article"].items() if k != "seconds"} == \
            {"status": art.status.value, **art.stats}
        assert art.stats["assumptions"] >= 5 and art.stats["max_depth"] >= 2
        ex = unique_question(params, rec.puzzle, Deadline(None))
        assert ex.status is Status.UNIQUE and meas["exact"]["status"] == "UNIQUE"
        assert (meas["exact"]["cut_rounds"], meas["exact"]["conflicts"]) == \
            (ex.stats["cut_rounds"], ex.stats["conflicts"])
        assert canon(ex.answer) == canon(rec.solution)
        assert meas["islands"] == len(rec.puzzle.islands)


def test_without_repairs_random_layouts_of_30x30_are_rarely_unique():
    """The reason for the repairs: the same attempts, discarded when not unique by chance."""
    p = GenParams(30, 30, count=3, seed=1, max_repairs=0, max_attempts=4)
    assert list(generate(p)) == []
    fixed = [attempt(GenParams(30, 30, seed=1), k) for k in range(4)]
    assert sum(g is not None for g in fixed) >= 3


def test_the_run_clock_gives_a_prefix_of_the_unlimited_run():
    p = GenParams(15, 15, count=5, seed=3)
    full = [g.to_record()["grid"] for g in generate(p)]
    assert list(generate(p, deadline=Deadline(0.0))) == []
    part = [g.to_record()["grid"] for g in generate(p, jobs=2, deadline=Deadline(0.6))]
    assert part == full[:len(part)]


def test_min_assumptions_keeps_only_puzzles_hard_for_the_heuristic():
    got = list(generate(GenParams(12, 12, density=0.3, loops=0.2, count=2, seed=3,
                                  min_assumptions=4)))
    assert len(got) == 2
    assert all(g.measures["article"]["assumptions"] >= 4 for g in got)


def test_max_attempts_stops_early():
    got = list(generate(GenParams(8, 8, count=5, seed=1, min_assumptions=10 ** 6,
                                  max_attempts=16)))
    assert got == []


@pytest.mark.parametrize("bad", [{"solver": "ilp"}, {"max_repairs": -1}, {"min_depth": -2}])
def test_bad_parameters_are_refused(bad):
    with pytest.raises(ValueError):
        GenParams(**bad)


def test_shipped_generated_set_is_unique_and_as_measured():
    files = sorted((INSTANCES / "hashi" / "generated").glob("*.jsonl"))
    assert {f.stem for f in files} >= {"7x7", "10x10", "15x15", "20x20", "30x30", "hard-15x15",
                                       "hard-30x30", "hard-30x30-a30d6"}
    for f in files:
        for line, rec in zip(f.read_text().splitlines(), read_puzzles(f.read_text(), str(f))):
            measures = json.loads(line)["measures"]
            assert measures["exact"]["status"] == "UNIQUE"
            assert check_solution(rec.puzzle, rec.solution) == []
            if f.stem.startswith("hard-"):
                assert measures["article"]["assumptions"] >= measures["generator"][
                    "min_assumptions"] > 0
                assert measures["article"]["max_depth"] >= measures["generator"]["min_depth"]
            assert measures["generator"]["repair_rounds"] >= 0


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
    assert main(["generate", "hashi", "--size", "5x5", "--width", "7", "-q"]) == 2
    assert "--size and --width" in capsys.readouterr().err
    code = main(["generate", "hashi", "--size", "6x6", "-n", "2", "--min-assumptions", "1000",
                 "--max-attempts", "8", "-q"])
    assert code == 1 and "only 0 of 2" in capsys.readouterr().err
    code = main(["generate", "hashi", "--size", "30x30", "-n", "1000", "--time-limit", "1",
                 "-q", "-j", "1"])
    assert code == 1 and "--time-limit" in capsys.readouterr().err


def test_the_time_limit_holds_on_the_largest_grid():
    """Growing a 200 x 200 network takes seconds: the clock is read while it grows, so the
    limit holds (a fresh process, a generous margin) and the shortfall says it ran out."""
    import time

    from tests.conftest import pp

    t0 = time.monotonic()
    done = pp("generate", "hashi", "--size", "200x200", "-n", "1", "-j", "1", "-q",
              "--time-limit", "1", timeout=60)
    took = time.monotonic() - t0
    assert done.returncode == 1 and "the time limit (1 s) ran out" in done.stderr
    assert took < 1 + 4, took
