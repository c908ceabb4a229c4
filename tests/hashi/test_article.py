"""The article's solver: correct on the sgt sample, complete on tiny puzzles, honest on limits."""

from __future__ import annotations

import random

from puzzleproof.clock import Deadline
from puzzleproof.formats.hashi import read_puzzles
from puzzleproof.models.hashi import Puzzle, check_solution
from puzzleproof.result import Status
from puzzleproof.players import hashi_article
from puzzleproof.encoders.hashi_brute import enumerate_solutions
from tests.conftest import INSTANCES, shared_path
from tests.hashi.tiny import tiny_puzzle
from tests.hashi.test_exact import canon


def test_solves_every_sgt_bridges_puzzle_correctly():
    path = shared_path("instances/hashi/sgt-bridges/bridges_sample.jsonl")
    recs = read_puzzles(path.read_text(), str(path))
    hard_needed_guesses = 0
    for rec in recs:
        res = hashi_article.solve(rec.puzzle, deadline=Deadline(60))
        assert res.status is Status.SOLVED and res.check_ok, rec.name
        assert canon(res.answer) == canon(rec.solution)
        if rec.meta["difficulty"] == "easy":
            assert res.stats["assumptions"] == 0  # the intersection search alone solves easy
        hard_needed_guesses += res.stats["assumptions"] > 0
    assert hard_needed_guesses > 0


def test_agrees_with_brute_force_on_tiny_puzzles_and_answers_pass_the_rules():
    rng = random.Random(99)
    outcomes = {"solved": 0, "none": 0}
    for _ in range(250):
        p = tiny_puzzle(rng, 5, rng.choice((1, 2, 3, 4)), unknown=0.15 if rng.random() < 0.2 else 0)
        has = bool(enumerate_solutions(p, limit=1))
        res = hashi_article.solve(p)
        assert res.status is (Status.SOLVED if has else Status.INFEASIBLE), p.to_rows()
        if res.answer is not None:
            assert check_solution(p, res.answer) == []
        outcomes["solved" if has else "none"] += 1
    assert min(outcomes.values()) >= 20


def test_intersection_search_examples_from_the_article():
    # "1 with one neighbour": the bridge is sure, and it finishes this puzzle
    res = hashi_article.solve(Puzzle.from_rows(["1.2", "...", "..1"]))
    assert res.status is Status.SOLVED and res.stats["assumptions"] == 0
    assert res.stats["sure_bridges"] == 2
    # "3 with two neighbours" and "5 with three": a bridge is sure in every direction
    for rows in (["3.2", "...", "2.1"], ["2..", "...", "5.2", "...", "2.1"]):
        res = hashi_article.solve(Puzzle.from_rows(rows))
        assert res.status is Status.SOLVED and res.check_ok
        centre = res.answer
        big = max(Puzzle.from_rows(rows).islands, key=lambda i: i.clue)
        touching = [b for b in centre if (b[0], b[1]) == (big.x, big.y)
                    or (b[2], b[3]) == (big.x, big.y)]
        assert len(touching) == len(Puzzle.from_rows(rows).incident[
            Puzzle.from_rows(rows).index[(big.x, big.y)]])


def test_must_assume_and_backtrack():
    """Two puzzles of the shipped hard tier: the article's solver guesses, is wrong, reverts."""
    path = INSTANCES / "hashi" / "generated" / "hard-15x15.jsonl"
    for rec in read_puzzles(path.read_text(), str(path)):
        res = hashi_article.solve(rec.puzzle)
        assert res.status is Status.SOLVED and res.check_ok
        assert res.stats["assumptions"] >= 10 and res.stats["wrong_assumptions"] >= 1
        assert res.stats["max_depth"] >= 1
        assert canon(res.answer) == canon(rec.solution)
    # a tiny case too: two ways to start, one of them wrong
    rng = random.Random(5)
    found = False
    for _ in range(3000):
        p = tiny_puzzle(rng, 5, 2, perturb=0.0)
        res = hashi_article.solve(p)
        if res.stats["wrong_assumptions"] and len(enumerate_solutions(p)) == 1:
            assert res.status is Status.SOLVED and res.check_ok
            found = True
            break
    assert found


def test_limits_give_unknown():
    path = shared_path("instances/hashi/coelho2019/100/Hs_16_100_75_00_011.has")
    p = read_puzzles(path.read_text(), str(path))[0].puzzle
    res = hashi_article.solve(p, max_nodes=50)
    assert res.status is Status.UNKNOWN and res.answer is None
    assert "node budget (50) ran out" in res.certificate["note"]  # which limit, by name
    assert res.certificate["limit"] == "node-budget"
    res = hashi_article.solve(p, deadline=Deadline(1e-9))
    assert res.status is Status.UNKNOWN
    assert "time limit (1e-09 s) ran out" in res.certificate["note"]
    assert res.certificate["limit"] == "time-limit"
