"""The Hashi model: candidates, crossings, and the rule checker's every violation."""

from __future__ import annotations

import pytest

from puzzleproof.errors import InputError
from puzzleproof.models.hashi import (Island, Puzzle, check_solution,
                                      impossibility_reasons)


def kinds(puzzle, lines):
    return sorted(v.kind for v in check_solution(puzzle, lines))


class TestStructure:
    def test_candidates_include_adjacent_islands_and_stop_at_first_island(self):
        p = Puzzle.from_rows(["12.1", "....", "1..."])
        pairs = {(p.islands[b.a].x, p.islands[b.a].y, p.islands[b.b].x, p.islands[b.b].y,
                  len(b.cells)) for b in p.candidates}
        # (0,0)-(1,0) adjacent (length zero), (1,0)-(3,0) over one cell, (0,0)-(0,2) vertical;
        # (0,0) does not see (3,0) past (1,0).
        assert pairs == {(0, 0, 1, 0, 0), (1, 0, 3, 0, 1), (0, 0, 0, 2, 1)}

    def test_crossings(self):
        p = Puzzle.from_rows([".1.", "1.1", ".1."])
        assert len(p.candidates) == 2
        assert len(p.crossings) == 1

    def test_clue_range_depends_on_max_bridges(self):
        Puzzle.from_rows(["G.1"], max_bridges=4)  # 16 is fine with m4
        with pytest.raises(InputError, match="must be 1 to 8"):
            Puzzle.from_rows(["9.1"], max_bridges=2)
        with pytest.raises(InputError, match="must be 1 to 4"):
            Puzzle.from_rows(["5.1"], max_bridges=1)

    def test_validation_errors(self):
        with pytest.raises(InputError, match="outside"):
            Puzzle(3, 3, (Island(3, 0, 1),))
        with pytest.raises(InputError, match="two islands"):
            Puzzle(3, 3, (Island(1, 0, 1), Island(1, 0, 2)))
        with pytest.raises(InputError, match="max bridges"):
            Puzzle(3, 3, (Island(1, 0, 1),), max_bridges=5)
        with pytest.raises(InputError, match="row 2 has 2 cells"):
            Puzzle.from_rows(["1.1", "..", "..."])


class TestChecker:
    P = Puzzle.from_rows(["2.2", "...", "2.2"])

    def test_valid_solution(self):
        lines = [(0, 0, 2, 0, 1), (0, 0, 0, 2, 1), (2, 0, 2, 2, 1), (0, 2, 2, 2, 1)]
        assert check_solution(self.P, lines) == []

    def test_reversed_and_repeated_lines_add_up(self):
        lines = [(2, 0, 0, 0, 1), (0, 0, 0, 2, 1), (2, 2, 2, 0, 1), (0, 2, 2, 2, 1)]
        assert check_solution(self.P, lines) == []
        p = Puzzle.from_rows(["2.2"])
        assert check_solution(p, [(0, 0, 2, 0, 1), (2, 0, 0, 0, 1)]) == []

    def test_clue_and_disconnection(self):
        lines = [(0, 0, 2, 0, 2), (0, 2, 2, 2, 2)]
        assert kinds(self.P, lines) == ["disconnected"]
        assert kinds(self.P, [(0, 0, 2, 0, 1)]) == ["clue", "clue", "clue", "clue",
                                                    "disconnected"]

    def test_too_many(self):
        p = Puzzle.from_rows(["3.3"], max_bridges=2)
        assert "too-many" in kinds(p, [(0, 0, 2, 0, 2), (0, 0, 2, 0, 1)])

    def test_crossing(self):
        p = Puzzle.from_rows([".1.", "1.1", ".1."])
        assert kinds(p, [(0, 1, 2, 1, 1), (1, 0, 1, 2, 1)]) == ["crossing", "disconnected"]

    def test_geometry(self):
        p = Puzzle.from_rows(["1.1", "...", "1.1"])
        v = check_solution(p, [(0, 0, 1, 0, 1)])
        assert v[0].kind == "not-island" and v[0].line == 0 and "(1, 0) is on water" in v[0].message
        assert check_solution(p, [(0, 0, 2, 2, 1)])[0].kind == "not-straight"
        assert check_solution(p, [(0, 0, 0, 0, 1)])[0].kind == "same-island"
        assert check_solution(p, [(0, 0, 2, 0, 3)])[0].kind == "count"
        assert check_solution(p, [(0, 0, 5, 0, 1)])[0].message.endswith(
            "is outside the grid, expected an island")
        q = Puzzle.from_rows(["1.2.1"])
        assert check_solution(q, [(0, 0, 4, 0, 1)])[0].kind == "through-island"

    def test_every_rule_in_its_documented_order(self):
        """Each line's own faults in line order, then too many, crossings, clues (row by
        row) and disconnection, each naming its line or island."""
        p = Puzzle.from_rows(["2.3.1", "3...1", "..2.."])
        lines = [(0, 1, 0, 0, 1), (0, 0, 4, 0, 1), (9, 9, 0, 0, 1), (2, 0, 2, 2, 2),
                 (0, 1, 4, 1, 1), (0, 0, 0, 1, 2), (1, 1, 1, 1, 1)]
        got = [(v.kind, v.line, v.island) for v in check_solution(p, lines)]
        assert got == [("through-island", 1, None), ("not-island", 2, None),
                       ("not-straight", 2, None), ("not-island", 6, None),
                       ("not-island", 6, None), ("same-island", 6, None),
                       ("too-many", 0, None), ("crossing", 3, None),
                       ("clue", None, (0, 0)), ("clue", None, (2, 0)), ("clue", None, (4, 0)),
                       ("clue", None, (0, 1)), ("disconnected", None, None)]
        assert "3 separate groups" in check_solution(p, lines)[-1].message


class TestImpossibility:
    def test_reasons_name_the_island(self):
        assert any("(1, 1) has clue 5" in r for r in
                   impossibility_reasons(Puzzle.from_rows(["...", ".5.", ".1."])))
        assert any("no island in line of sight" in r for r in
                   impossibility_reasons(Puzzle.from_rows(["1..", "...", "..1"])))
        assert any("odd" in r for r in impossibility_reasons(Puzzle.from_rows(["1.2"])))
        assert impossibility_reasons(Puzzle.from_rows(["2.2"])) == []
