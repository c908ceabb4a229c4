"""The exact Hashi back ends under limits: one deadline bounds the model build, the cut loop,
the blocking re-solves and the rule check; a worker count out of range is refused; and every
search path the limits or the options select still counts solutions like the brute force."""

from __future__ import annotations

import time

import pytest

from puzzleproof.encoders import hashi_cpsat, hashi_sat
from puzzleproof.clock import Deadline
from puzzleproof.models.hashi import Puzzle, check_solution
from puzzleproof.result import Status
from puzzleproof.encoders.hashi_brute import enumerate_solutions
from tests.hashi.test_exact import TINY, canon

#: the exact back ends by name
SOLVERS = {"cpsat": hashi_cpsat.solve, "sat": hashi_sat.solve}



def lattice(side: int, extra: bool = False) -> Puzzle:
    """Islands without clues on every other cell of a ``side`` x ``side`` grid (so a great
    many connected layouts); with ``extra``, more islands between them."""
    rows = ["".join("?" if (x % 2 == 0 and y % 2 == 0) or (extra and x % 7 == 3 and y % 5 == 1)
                    else "." for x in range(side)) for y in range(side)]
    return Puzzle.from_rows(rows)


def all_solutions(res) -> list:
    return res.certificate["solutions"] if res.status is not Status.INFEASIBLE else []


@pytest.mark.slow
@pytest.mark.parametrize("solver", tuple(SOLVERS))
def test_enumeration_stops_at_the_time_limit_with_what_it_checked(solver):
    """A puzzle with far more solutions than time: the limit ends the enumeration (UNKNOWN,
    never MULTIPLE with a silent overshoot), and each solution it keeps passed the rules."""
    p = lattice(9)
    began = time.monotonic()
    res = SOLVERS[solver](p, mode="all", max_solutions=10**6, deadline=Deadline(1.0))
    took = time.monotonic() - began
    assert res.status is Status.UNKNOWN
    assert took < 1.0 * 1.1 + 0.2 + 1.5  # generous: the tight bound is the benchmark's
    sols = res.certificate["solutions"]
    assert len(sols) == res.certificate["solutions_found"] >= 2
    assert len({tuple(canon(s)) for s in sols}) == len(sols)
    assert res.check_ok and res.check["checked"] == len(sols)
    assert all(check_solution(p, s) == [] for s in sols)
    assert "time limit (1 s)" in res.certificate["note"]


@pytest.mark.parametrize("solver", tuple(SOLVERS))
def test_building_a_large_model_is_bounded_by_the_deadline(solver):
    p = lattice(150, extra=True)  # 6105 islands, no quick reason to refuse it
    _ = (p.incident, p.crossings)  # the geometry is the reader's work
    began = time.monotonic()
    res = SOLVERS[solver](p, deadline=Deadline(0.005))  # far below the build's ~0.05 s
    assert time.monotonic() - began < 0.005 * 1.1 + 0.2 + 1.0
    assert res.status is Status.UNKNOWN and res.answer is None
    assert "ran out while the model was built" in res.certificate["note"]
    assert res.solver == solver


@pytest.mark.parametrize("solver", tuple(SOLVERS))
def test_a_deadline_given_is_the_clock(solver):
    p = lattice(9)
    spent = Deadline(0.0)
    res = SOLVERS[solver](p, mode="unique", deadline=spent)
    assert res.status is Status.UNKNOWN and res.stats.get("cut_rounds", 0) == 0
    fresh = SOLVERS[solver](p, mode="unique", deadline=Deadline(60))
    assert fresh.status is Status.MULTIPLE and fresh.check_ok


@pytest.mark.parametrize("workers", [0, -1, 65, 100000, True, 2.5, "2"])
def test_a_worker_count_out_of_range_is_refused(workers):
    p = Puzzle.from_rows(["2.2", "...", "2.2"])
    with pytest.raises(ValueError, match="CP-SAT workers must be a whole number from 1 to 64"):
        hashi_cpsat.solve(p, workers=workers)


def test_two_workers_still_answer_exactly():
    for p in TINY[:40]:
        want = len(enumerate_solutions(p, limit=2))
        res = hashi_cpsat.solve(p, mode="unique", workers=2)
        assert res.status is {0: Status.INFEASIBLE, 1: Status.UNIQUE, 2: Status.MULTIPLE}[want]


@pytest.mark.parametrize("options", [{"guided": False}, {"repair_conflicts": 0},
                                     {"repair_conflicts": 10},
                                     {"tuning": {"cp_model_presolve": True}}])

def test_cpsat_search_options_count_like_brute_force(options):
    """The first-round guide, the repair of the last proposal (hints) and presolve change
    how CP-SAT searches, never what it proves."""
    for p in TINY[::3]:
        res = hashi_cpsat.solve(p, mode="all", max_solutions=500, **options)
        assert sorted(map(canon, all_solutions(res))) == \
            sorted(map(canon, enumerate_solutions(p))), p.to_rows()


def test_sat_under_a_deadline_counts_like_brute_force():
    """With a deadline the SAT back end solves in chunks, re-reading the clock between."""
    for p in TINY[::3]:
        res = hashi_sat.solve(p, mode="all", max_solutions=500, deadline=Deadline(600))
        assert sorted(map(canon, all_solutions(res))) == \
            sorted(map(canon, enumerate_solutions(p))), p.to_rows()


def test_sat_chunks_follow_the_measured_rate():
    s = hashi_sat.SatHashi(lattice(9))
    far = Deadline(600)
    assert s._chunk_budget(far) == hashi_sat.SatHashi.FIRST_CHUNK  # no rate measured yet
    s._conflicts_used, s._search_seconds = 100_000, 1.0  # 100k conflicts a second
    assert s._chunk_budget(far) == int(100_000 * hashi_sat.SatHashi.CHUNK_SECONDS)
    assert s._chunk_budget(Deadline(0.001)) == hashi_sat.SatHashi.MIN_CHUNK
    assert s._chunk_budget(Deadline(None)) is None
    s.close()


def test_steady_chunks_are_the_same_on_any_clock_and_count_like_brute_force():
    s = hashi_sat.SatHashi(lattice(9), steady_chunks=700)
    s._conflicts_used, s._search_seconds = 100_000, 1.0
    assert s._chunk_budget(Deadline(600)) == s._chunk_budget(Deadline(None)) == 700
    assert s._chunk_budget(Deadline(0.001)) == 700
    s.close()
    for p in TINY[::5]:
        res = hashi_sat.solve(p, mode="all", max_solutions=500, deadline=Deadline(600),
                              steady_chunks=3)
        assert sorted(map(canon, all_solutions(res))) == \
            sorted(map(canon, enumerate_solutions(p))), p.to_rows()


# -- proved means proved: a proof in hand is the answer, whatever the clock says ----------

class Stopwatch(Deadline):
    """A clock that never runs out until :meth:`stop` is called (then it has run out)."""

    def __init__(self) -> None:
        super().__init__(30.0)

    def stop(self) -> None:
        self.at = 0.0


def _rounds(solver, p, mode):
    return SOLVERS[solver](p, mode=mode, max_solutions=50).stats["cut_rounds"]


@pytest.mark.parametrize("solver", tuple(SOLVERS))
@pytest.mark.parametrize("mode", ["unique", "all"])
def test_a_proof_finished_as_the_clock_runs_out_is_the_proved_status(solver, mode):
    """The clock runs out at the very round whose search proved that no other solution
    exists: the answer is UNIQUE (``all``: the complete enumeration), never UNKNOWN."""
    checked = 0
    for p in TINY:
        if len(enumerate_solutions(p, limit=2)) != 1:
            continue
        last = _rounds(solver, p, mode)
        clock = Stopwatch()
        res = SOLVERS[solver](p, mode=mode, max_solutions=50, deadline=clock,
                              on_round=lambda r, c: clock.stop() if r >= last else None)
        assert clock.expired()
        assert res.status is Status.UNIQUE and res.check_ok, p.to_rows()
        assert res.stats["cut_rounds"] == last
        if mode == "all":
            assert res.certificate["complete"] and res.certificate["count"] == 1
        checked += 1
    assert checked >= 20


@pytest.mark.parametrize("solver", tuple(SOLVERS))
def test_a_cut_that_proves_infeasibility_is_kept_past_the_clock(solver):
    """Two groups of islands that cannot see each other: the first proposal's cut is
    empty, which proves there is no connected solution. The clock runs out right after
    that round; the proof is in hand, so the answer is INFEASIBLE, not UNKNOWN."""
    p = Puzzle.from_rows(["2.4.2.....", "..........", "..........", ".....2.4.2"])
    from puzzleproof.models.hashi import impossibility_reasons
    assert impossibility_reasons(p) == [] and enumerate_solutions(p) == []
    clock = Stopwatch()
    res = SOLVERS[solver](p, deadline=clock, on_round=lambda r, c: clock.stop())
    assert clock.expired()
    assert res.status is Status.INFEASIBLE and "no connected solution" in \
        res.certificate["proof"]


@pytest.mark.parametrize("solver", tuple(SOLVERS))
def test_a_known_solution_and_a_spent_clock_settle_nothing(solver):
    """A solution in hand proves nothing without a search: UNKNOWN on a spent clock; with
    time, the one question decides (the brute force agrees)."""
    for p in TINY[:60]:
        sols = enumerate_solutions(p, limit=2)
        if not sols:
            continue
        res = SOLVERS[solver](p, mode="unique", known=sols[0], deadline=Deadline(0.0))
        assert res.status is Status.UNKNOWN
        assert res.answer is None or canon(res.answer) == canon(sols[0]) and res.check_ok
        res = SOLVERS[solver](p, mode="unique", known=sols[0])
        assert res.status is (Status.UNIQUE if len(sols) == 1 else Status.MULTIPLE)
        assert canon(res.answer) == canon(sols[0])
        if len(sols) == 2:
            assert canon(res.certificate["second"]) != canon(sols[0])
            assert check_solution(p, res.certificate["second"]) == []
        assert res.stats["cut_rounds"] >= 1


def test_a_known_solution_that_breaks_the_rules_is_caught():
    p = Puzzle.from_rows(["2.2", "...", "2.2"])
    with pytest.raises(ValueError, match="breaks the rules: .*clue"):
        hashi_sat.solve(p, mode="unique", known=[(0, 0, 2, 0, 2)])
    with pytest.raises(ValueError, match="no pair of islands"):
        hashi_sat.solve(p, mode="unique", known=[(0, 0, 2, 2, 1)])
