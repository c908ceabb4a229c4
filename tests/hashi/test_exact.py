"""Both exact back ends against the brute-force enumerator, the sgt-bridges set, and Coelho."""

from __future__ import annotations

import random

import pytest

from puzzleproof.clock import Deadline
from puzzleproof.encoders import hashi_cpsat, hashi_sat
from puzzleproof.encoders import hashi_common
from puzzleproof.formats.hashi import read_puzzles
from puzzleproof.models.hashi import Puzzle, check_solution
from puzzleproof.result import Status
from puzzleproof.encoders.hashi_brute import enumerate_solutions
from tests.conftest import shared_path
from tests.hashi.tiny import tiny_puzzle

#: the exact back ends by name
SOLVERS = {"cpsat": hashi_cpsat.solve, "sat": hashi_sat.solve}


def canon(lines):
    out = []
    for x1, y1, x2, y2, n in lines:
        a, b = sorted([(x1, y1), (x2, y2)])
        out.append((a, b, n))
    return sorted(out)


def exact_solutions(name, puzzle, cap=500):
    res = SOLVERS[name](puzzle, mode="all", max_solutions=cap)
    assert res.status is not Status.UNKNOWN
    if res.status is Status.INFEASIBLE:
        return [], res
    assert res.check_ok, res.check
    sols = res.certificate["solutions"]
    assert res.certificate["complete"], "raise the cap"
    return sols, res


def tiny_cases():
    rng = random.Random(20261121)
    cases = []
    for m, count in ((2, 70), (1, 25), (3, 25), (4, 25)):
        for _ in range(count):
            cases.append(tiny_puzzle(rng, 5, m, adjacent=rng.random() < 0.6))
    for _ in range(20):  # hidden clues: many solutions
        cases.append(tiny_puzzle(rng, 4, 2, unknown=0.4))
    cases.append(Puzzle.from_rows(["4.4.2", ".....", "4.4.2"]))
    cases.append(Puzzle.from_rows(["?.?", "...", "?.?"]))  # 48 solutions
    return cases


TINY = tiny_cases()


@pytest.mark.parametrize("solver", tuple(SOLVERS))
def test_every_solution_counted_against_brute_force(solver):
    """Count every connected solution of 167 tiny puzzles (up to 5x5, adjacent islands,
    max bridges 1 to 4, hidden clues) with the back end and with the independent brute force."""

    stats = {"infeasible": 0, "unique": 0, "multiple": 0}
    for p in TINY:
        brute = enumerate_solutions(p)
        for sol in brute:
            assert check_solution(p, sol) == []
        sols, res = exact_solutions(solver, p)
        assert sorted(map(canon, sols)) == sorted(map(canon, brute)), p.to_rows()
        if not brute:
            assert res.status is Status.INFEASIBLE
        else:
            assert res.status is (Status.UNIQUE if len(brute) == 1 else Status.MULTIPLE)
        stats["infeasible" if not brute else "unique" if len(brute) == 1 else "multiple"] += 1
    # the generator must exercise all three outcomes, or this test proves little
    assert min(stats.values()) >= 5, stats


def test_tiny_set_covers_the_hard_cases():
    assert any(any(len(b.cells) == 0 for b in p.candidates) for p in TINY)
    assert {p.max_bridges for p in TINY} == {1, 2, 3, 4}
    assert max(len(enumerate_solutions(p)) for p in TINY) >= 3


@pytest.mark.parametrize("solver", tuple(SOLVERS))
def test_unique_mode_matches_brute_force(solver):
    for p in TINY[:60]:
        n = len(enumerate_solutions(p, limit=2))
        res = SOLVERS[solver](p, mode="unique")
        want = {0: Status.INFEASIBLE, 1: Status.UNIQUE, 2: Status.MULTIPLE}[n]
        assert res.status is want, p.to_rows()
        if want is Status.MULTIPLE:
            assert canon(res.answer) != canon(res.certificate["second"])
            assert check_solution(p, res.certificate["second"]) == []


def _sgt_records():
    path = shared_path("instances/hashi/sgt-bridges/bridges_sample.jsonl")
    return read_puzzles(path.read_text(), str(path))


@pytest.mark.slow
@pytest.mark.parametrize("solver", tuple(SOLVERS))
def test_sgt_bridges_sample_unique_and_equal_to_given(solver):
    recs = _sgt_records()
    assert len(recs) == 220
    solve = SOLVERS[solver]
    for rec in recs:
        res = solve(rec.puzzle, mode="unique")
        assert res.status is Status.UNIQUE, rec.name
        assert res.check_ok
        assert canon(res.answer) == canon(rec.solution), rec.name


def _coelho_sample(per_size=3):
    root = shared_path("instances/hashi/coelho2019")
    out = []
    for size in ("100", "200", "300", "400"):
        files = sorted((root / size).glob("*.has"))
        assert len(files) == 360
        out.extend(files[::len(files) // per_size][:per_size])
    return out


@pytest.mark.parametrize("solver", tuple(SOLVERS))
def test_coelho_sample_solved_checked_and_not_unique(solver):
    """A few puzzles per size: solved, rule-checked, and (a fact of this set) not unique."""
    for f in _coelho_sample():
        p = read_puzzles(f.read_text(), str(f))[0].puzzle
        res = SOLVERS[solver](p, mode="unique", deadline=Deadline(120))
        assert res.status is Status.MULTIPLE, f.name
        assert res.check_ok and res.check["checked"] == 2
        assert canon(res.answer) != canon(res.certificate["second"])


def test_back_ends_agree_on_coelho_feasibility():
    for f in _coelho_sample(2):
        p = read_puzzles(f.read_text(), str(f))[0].puzzle
        a = SOLVERS["cpsat"](p)
        b = SOLVERS["sat"](p)
        assert a.status is b.status is Status.SOLVED


class TestLimits:
    def _hard(self):
        f = shared_path("instances/hashi/coelho2019/400/Hs_34_400_75_00_001.has")
        return read_puzzles(f.read_text(), str(f))[0].puzzle

    def test_cpsat_deterministic_limit_gives_unknown(self):
        res = SOLVERS["cpsat"](self._hard(), mode="unique", deterministic_limit=1e-5)
        assert res.status is Status.UNKNOWN
        assert "cut round" in res.certificate["note"]

    def test_sat_conflict_budget_gives_unknown_never_infeasible(self):
        res = SOLVERS["sat"](self._hard(), mode="unique", conflict_budget=1)
        assert res.status is Status.UNKNOWN
        assert res.stats["cut_rounds"] >= 1

    @pytest.mark.parametrize("solver", tuple(SOLVERS))
    def test_exhausted_time_limit_gives_unknown(self, solver):
        res = SOLVERS[solver](self._hard(), deadline=Deadline(1e-9))
        assert res.status is Status.UNKNOWN and res.answer is None

    def test_unknown_after_first_solution_keeps_it_checked(self):
        # budget enough to find a solution but not to settle uniqueness on a puzzle
        p = self._hard()
        first = SOLVERS["sat"](p)
        spent = first.stats["conflicts"]
        res = SOLVERS["sat"](p, mode="unique", conflict_budget=spent + 1)
        if res.status is Status.UNKNOWN and res.answer is not None:
            assert res.check_ok
        else:  # it may well settle within one more conflict; then it must be a proof
            assert res.status in (Status.MULTIPLE, Status.UNKNOWN)


def test_solver_proved_infeasible_is_infeasible_with_proof():
    # no quick reason applies (room for every clue, enough bridges), but the only layouts
    # close off the 2=2 pair or cross it
    p = Puzzle.from_rows([".1.", "2.2", ".1."])
    from puzzleproof.models.hashi import impossibility_reasons
    assert impossibility_reasons(p) == []
    for name in tuple(SOLVERS):
        res = SOLVERS[name](p)
        assert res.status is Status.INFEASIBLE
        assert name in res.certificate["proof"]


def test_a_wrong_solver_answer_is_caught_by_the_rule_check():
    """The driver checks every answer with the model's rules, not with the solver's logic."""
    p = Puzzle.from_rows(["2.2", "...", "2.2"])

    class Liar:
        name, version = "liar", "0"

        def solve(self, deadline):
            return "sat", [1] * len(p.candidates)

        def add_cuts(self, cuts):
            raise AssertionError("no cuts expected")

        def block(self, counts):
            pass

        def stats(self):
            return {}

    class WrongCounts(Liar):
        def solve(self, deadline):
            return "sat", [2] * len(p.candidates)  # every clue doubled: connected but wrong

    ok = hashi_common.solve_with(p, lambda q: Liar())
    assert ok.check_ok
    bad = hashi_common.solve_with(p, lambda q: WrongCounts())
    assert not bad.check_ok
    assert {v["kind"] for v in bad.check["violations"]} == {"clue"}


def test_sat_propagator_mode_counts_like_brute_force():
    """The IPASIR-UP variant (cuts from inside the search) against the brute force too."""
    from puzzleproof.encoders.hashi_sat import solve as sat_solve
    for p in TINY[::3]:
        brute = enumerate_solutions(p)
        res = sat_solve(p, mode="all", max_solutions=500, propagator=True)
        got = res.certificate["solutions"] if res.status is not Status.INFEASIBLE else []
        assert sorted(map(canon, got)) == sorted(map(canon, brute)), p.to_rows()
    f = shared_path("instances/hashi/coelho2019/300/Hs_29_300_75_00_001.has")
    p = read_puzzles(f.read_text(), str(f))[0].puzzle
    res = sat_solve(p, mode="unique", propagator=True)
    assert res.status is Status.MULTIPLE and res.check_ok
    assert res.stats["cut_rounds"] == 2 and res.stats["propagator_checks"] >= 2
