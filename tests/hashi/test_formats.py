"""Every Hashi format round-trips, is detected, and every bad input names file, line, column."""

from __future__ import annotations

import json
import random

import pytest

from puzzleproof.errors import InputError
from puzzleproof.formats.hashi import (detect_format, read_puzzles, read_solution, render_ascii,
                                       render_svg, write_puzzle, write_solution)
from puzzleproof.models.hashi import Puzzle
from tests.conftest import shared_path
from tests.hashi.tiny import tiny_puzzle


def same(a: Puzzle, b: Puzzle) -> bool:
    return (a.width, a.height, a.max_bridges, a.islands) == (b.width, b.height, b.max_bridges,
                                                             b.islands)


def random_puzzles():
    rng = random.Random(7)
    out = [tiny_puzzle(rng, rng.choice((3, 5, 9, 30)), rng.choice((1, 2, 3, 4)))
           for _ in range(120)]
    out.append(Puzzle.from_rows(["." * 45 + "1", "." * 46, "1" + "." * 45]))  # long runs
    return out


FORMATS_FOR = {
    "codingame": lambda p: p.max_bridges == 2,
    "grid": lambda p: p.max_bridges == 2,
    "has": lambda p: p.max_bridges == 2,
    "tatham": lambda p: True,
    "puzzlink": lambda p: p.max_bridges == 2,
    "json": lambda p: True,
}


@pytest.mark.parametrize("fmt", sorted(FORMATS_FOR))
def test_round_trip_and_detection(fmt):
    n = 0
    for p in random_puzzles():
        if not FORMATS_FOR[fmt](p) or any(i.clue is None for i in p.islands):
            continue
        text = write_puzzle(p, fmt)
        assert detect_format(text) == fmt
        back = read_puzzles(text, "<t>", max_bridges=None if fmt in ("tatham", "json") else 2)
        assert len(back) == 1 and same(back[0].puzzle, p), (fmt, text)
        n += 1
    assert n >= 20


def test_puzzlink_hidden_clues_and_big_clues_round_trip():
    p = Puzzle.from_rows(["?.3", "...", "2.?"])
    url = write_puzzle(p, "puzzlink")
    assert url == "https://puzz.link/p?hashi/3/3/.g3i2g."
    assert same(read_puzzles(url)[0].puzzle, p)
    for alias in ("hashikake", "bridges"):
        assert same(read_puzzles(url.replace("hashi", alias))[0].puzzle, p)
    # '-hh' clues (16 and up) decode; a 2-digit clue beyond m=2's range is rejected clearly
    with pytest.raises(InputError, match="clue 16 out of range"):
        read_puzzles("p?hashi/2/1/-10g")


def test_puzzles_md_example():
    p = read_puzzles("p?hashi/5/5/4g2i3h23k3g1g3g4g3")[0].puzzle
    assert p.to_rows() == ["4.2..", ".3..2", "3....", ".3.1.", "3.4.3"]


def test_tatham_parameters_and_m4():
    p = read_puzzles("7x7i30e10m2d2:2a4c3a1e1a3b2b3d3j1b2a2b1b")[0].puzzle
    assert p.max_bridges == 2 and len(p.islands) == 13
    q = read_puzzles("3x1m4:GaG")[0].puzzle
    assert q.max_bridges == 4 and [i.clue for i in q.islands] == [16, 16]
    assert write_puzzle(q, "tatham") == "3x1m4:GaG"


def test_jsonl_records_keep_reference_solutions():
    path = shared_path("instances/hashi/sgt-bridges/bridges_sample.jsonl")
    recs = read_puzzles(path.read_text(), str(path))
    assert detect_format(path.read_text()) == "jsonl"
    assert all(r.solution for r in recs)
    # the grid and the Tatham game ID of each record describe the same puzzle
    for r in recs[:40]:
        via_id = read_puzzles(r.meta["game_id"])[0].puzzle
        assert same(via_id, r.puzzle)
    again = read_puzzles(write_puzzle(recs[0].puzzle, "json", recs[0].solution))[0]
    assert again.solution == recs[0].solution


def test_coelho_has_files_read():
    root = shared_path("instances/hashi/coelho2019")
    for size in ("100", "400"):
        f = sorted((root / size).glob("*.has"))[0]
        p = read_puzzles(f.read_text(), str(f))[0].puzzle
        assert len(p.islands) == int(size)
        assert same(read_puzzles(write_puzzle(p, "has"))[0].puzzle, p)


def test_solution_formats_round_trip():
    lines = [(0, 0, 2, 0, 1), (2, 0, 2, 3, 2)]
    for fmt in ("codingame", "json"):
        assert [s.bridge for s in read_solution(write_solution(lines, fmt))] == lines
    parsed = read_solution("# bot output\n0 0 2 0 1\n\n  2 0 2 3 2\n")
    assert [(s.line, s.cols) for s in parsed] == [(2, (1, 3, 5, 7, 9)), (4, (3, 5, 7, 9, 11))]


def test_pictures():
    p = Puzzle.from_rows(["2.2", "...", "1.1"])
    sol = [(0, 0, 2, 0, 1), (0, 0, 0, 2, 1), (2, 0, 2, 2, 1)]
    assert render_ascii(p, sol, unicode=False).splitlines() == [
        "2---2", "|   |", "| . |", "|   |", "1 . 1"]
    assert render_ascii(p, [(0, 0, 2, 0, 2)]).splitlines()[0] == "2═══2"
    adj = Puzzle.from_rows(["12"])
    assert render_ascii(adj, [(0, 0, 1, 0, 1)], unicode=False).strip() == "1-2"
    # 3 and 4 bridges: glyphs of their own (never a clue digit in ASCII), named in a legend
    big = Puzzle.from_rows(["6.6", "...", "7.7"])
    heavy = [(0, 0, 2, 0, 3), (0, 0, 0, 2, 3), (2, 0, 2, 2, 3), (0, 2, 2, 2, 4)]
    uni, asc = render_ascii(big, heavy).splitlines(), render_ascii(big, heavy, unicode=False)
    assert uni[:2] == ["6≡≡≡6", "⦀   ⦀"] and uni[4] == "7≣≣≣7"
    assert uni[5] == "(≡ ⦀ 3 bridges, ≣ ┋ 4 bridges)"
    assert asc.splitlines()[:2] == ["6###6", "#   #"] and asc.splitlines()[4] == "7%%%7"
    assert not any(ch.isdigit() for row in asc.splitlines()[:5] for ch in row[1:-1])
    assert "bridges)" not in render_ascii(p, sol)  # no legend without heavy bridges
    svg = render_svg(p, sol, title="a <title>")
    assert svg.startswith("<svg") and svg.count("<circle") == 4 and "a &lt;title&gt;" in svg
    assert svg.count("<line") == 3 + 3 + 3  # grid lines, then one line per bridge


BAD = [
    # (text, message fragment, line, col)
    ("3\n2\n1.1\n2.\n", "row 2 has 2 cells, expected 3", 4, 3),
    ("3\n2\n1.1\n1x1\n", "found 'x'", 4, 2),
    ("3\n2\n1.9\n1.1\n", "clue 9 out of range", 3, 3),
    ("3\n3\n1.1\n1.1\n", "expected 3 grid rows", 5, 1),
    ("x\n2\n1.1\n", "cannot tell the format", 1, 1),
    ("3\nx\n1.1\n", "expected the height (an integer), found 'x'", 2, 1),
    ("2 3 2\n1 0 1\n0 0\n", "row 2 has 2 numbers, expected 3", 3, 3),
    ("2 3 3\n1 0 1\n0 0 0\n", "header announces 3 islands", 1, 5),
    ("1 3 2\n1 0 12\n", "clue 12 out of range", 2, 5),
    ("1 3 2\n1 0 a\n", "expected a clue or 0 (an integer), found 'a'", 2, 5),
    ("3x1m2:1a1b", "description runs past", 1, 10),
    ("3x1m2:1", "covers 1 cells, expected 3", 1, 8),
    ("3x1m2:1*1", "found '*'", 1, 8),
    ("p?hashi/3/1/1g1g", "body runs past", 1, 16),
    ("p?hashi/3/1/1g!", "found '!'", 1, 15),
    ('{"grid": ["1.1", "1."]}', "row 2 has 2 cells", None, None),
    ('{"grid": ["1.1"], "solution": [[0, 0, 2]]}', "expected [x1, y1, x2, y2, n]", None, None),
    ('{"width": 3,\n "grid": 5}', "'grid' must be a non-empty list", None, None),
    # at the trailing comma, on every Python (3.11 and 3.12 name the brace after it)
    ('{"grid": ["1.1"],}', "invalid JSON: Illegal trailing comma before end of object", 1, 17),
    ('{"grid": ["1.1"]}\n{"grid": ["1.1", "."]}\n', "row 2 has 1 cells", 2, None),
    ("hello world", "cannot tell the format", 1, 1),
    ("", "empty input", None, None),
]


@pytest.mark.parametrize("text,fragment,line,col", BAD)
def test_bad_input_names_where_and_what(text, fragment, line, col):
    with pytest.raises(InputError) as info:
        read_puzzles(text, "bad.txt")
    e = info.value
    assert fragment in e.message
    assert e.source == "bad.txt"
    assert (e.line, e.col) == (line, col)
    assert str(e).startswith("bad.txt" + (f":{line}" if line else ""))


@pytest.mark.parametrize("text,fragment,line,col", [
    ("0 0 2 0\n", "expected 'x1 y1 x2 y2 n' (5 integers), found 4 fields", 1, 7),
    ("0 0 2 0 1\n0 0 2 zero 1\n", "expected y2 (an integer), found 'zero'", 2, 7),
    ("[[0, 0, 2, 0]]", "bridge 1: expected [x1, y1, x2, y2, n]", None, None),
    ("[[0, 0", "invalid JSON", 1, 7),
])
def test_bad_solution_input(text, fragment, line, col):
    with pytest.raises(InputError) as info:
        read_solution(text, "sol.txt")
    assert fragment in info.value.message
    assert (info.value.source, info.value.line, info.value.col) == ("sol.txt", line, col)


def test_writers_refuse_what_a_format_cannot_hold():
    m4 = Puzzle.from_rows(["G.G"], max_bridges=4)
    for fmt in ("codingame", "has", "puzzlink"):
        with pytest.raises(InputError, match="at most 2 bridges"):
            write_puzzle(m4, fmt)
    hidden = Puzzle.from_rows(["?.1"])
    with pytest.raises(InputError, match="without a clue"):
        write_puzzle(hidden, "tatham")
    assert json.loads(write_puzzle(hidden, "json"))["grid"] == ["?.1"]
