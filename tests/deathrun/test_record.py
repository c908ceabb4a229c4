"""Death Run game records that cannot be read: every field of the format, corrupted one at a
time, is an unreadable file for ``check deathrun`` (exit 2, one line naming the file, the JSON
path and what was expected), never a Python exception's text; a well-formed record that
breaks a rule of the game still exits 1, and a sound one 0."""

from __future__ import annotations

import copy
import json
import re

import pytest

from puzzleproof.cli import main
from puzzleproof.errors import InputError
from puzzleproof.formats.deathrun import read_records, write_record
from puzzleproof.models.deathrun import (BaseCriminal, BaseStudent, InProcessPlayer,
                                         generate_graph, play_game)
from puzzleproof.models.deathrun_replay import replay
from puzzleproof.models.deathrun_record import check_record_shape
from puzzleproof.players.deathrun_bots import builtin_player


class Nowhere(BaseStudent):
    def strategy(self, edge_updates, vertex_count, current_vertex):
        return "nowhere"  # invalid: the engine draws a seeded random link


class NoEdge(BaseCriminal):
    def strategy(self, edge_updates, vertex_count, budget):
        return 0, 0, 1  # invalid: not an edge


@pytest.fixture(scope="module")
def record() -> dict:
    """A sound record with valid and invalid moves of both roles (and every optional field
    that 'deathrun play' and 'tournament' write)."""
    g = generate_graph(4, layers=6, height=4)
    rec = play_game(g, [builtin_player("toll", "criminal"), InProcessPlayer(NoEdge, "noedge")],
                    [InProcessPlayer(Nowhere, "nowhere")] + [builtin_player("greedy", "student")
                                                            for _ in range(7)], seed=4)
    rec["scoreboard"] = [{"seat": 0, "role": "criminal", "bot": "toll", "score": 1.0,
                          "invalid_moves": 0}]
    rec.update(game_id="g0:s0", judged="students", graph_index=0, wall_time=0.5)
    rec = json.loads(json.dumps(rec))
    assert replay(rec) == []
    assert any(not c["valid"] for rr in rec["rounds"] for c in rr["criminals"])
    assert any(not s["valid"] for rr in rec["rounds"] for s in rr["students"])
    assert any(c["valid"] for rr in rec["rounds"] for c in rr["criminals"])
    return rec


def _set(path: str, value):
    """A corruption: set the value at ``path`` (``a.b[0].c``); ``DEL`` removes it."""
    keys = [int(k) if k.lstrip("-").isdigit() else k for k in re.findall(r"[^.\[\]]+", path)]

    def apply(rec):
        at = rec
        for k in keys[:-1]:
            at = at[k]
        if value is DEL:
            del at[keys[-1]]
        else:
            at[keys[-1]] = copy.deepcopy(value)
    return apply


DEL = object()

# (what is changed, the new value, the path the message must name, words it must hold)
CORRUPT = [
    ("rounds", "x", "rounds", 'a list of rounds, found a string ("x")'),
    ("seats", "x", "seats", 'found a string ("x")'),
    ("rounds[0]", 5, "rounds[0]", "an object (a round), found the integer 5"),
    ("graph", None, "graph", "found null"),
    ("seed", "abc", "seed", 'an integer, or a string'),
    ("seed", 1.5, "seed", "found the number 1.5"),
    ("seed", True, "seed", "found true"),
    ("seed", None, "seed", "found null"),
    ("schema_version", True, "schema_version", "expected 1"),
    ("schema_version", "1", "schema_version", "expected 1"),
    ("schema_version", DEL, "", "missing field 'schema_version'"),
    ("schema_version", 2, "schema_version", "expected 1"),
    ("budget", "100", "budget", "a number"),
    ("budget", -1, "budget", "a number >= 0"),
    ("budget", DEL, "", "missing field 'budget'"),
    ("rounds", DEL, "", "missing field 'rounds'"),
    ("scores", DEL, "", "missing field 'scores'"),
    ("seed", DEL, "", "missing field 'seed'"),
    ("graph.edges", "x", "graph.edges", "a list"),
    ("graph.edges[0]", [0, 1], "graph.edges[0]", "a list [u, v, w]"),
    ("graph.edges[0][2]", 1.5, "graph.edges[0][2]", "an integer"),
    ("graph.edges[0][0]", None, "graph.edges[0][0]", "found null"),
    ("graph.begin", "0", "graph.begin", "an integer"),
    ("graph.begin", DEL, "graph", "missing field 'begin'"),
    ("graph.ends", None, "graph.ends", "a list"),
    ("graph.ends[0]", True, "graph.ends[0]", "found true"),
    ("seats[0]", None, "seats[0]", "an object"),
    ("seats[1].seat", 7, "seats[1].seat", "expected 1"),
    ("seats[0].seat", "0", "seats[0].seat", "an integer"),
    ("seats[0].role", "judge", "seats[0].role", '"criminal" or "student"'),
    ("seats[3].role", "criminal", "seats[3].role", "the criminals take the first seats"),
    ("seats[0].bot", 3, "seats[0].bot", "a string"),
    ("seats[0].bot", DEL, "seats[0]", "missing field 'bot'"),
    ("rounds[0].round", "1", "rounds[0].round", "an integer"),
    ("rounds[0].criminal_view", None, "rounds[0].criminal_view", "an object"),
    ("rounds[1].criminal_view.updates", "x", "rounds[1].criminal_view.updates", "a list"),
    ("rounds[0].criminal_view.counts[0]", [0], "rounds[0].criminal_view.counts[0]",
     "[vertex, count]"),
    ("rounds[0].criminal_view.counts[0][1]", 8.5, "rounds[0].criminal_view.counts[0][1]",
     "an integer"),
    ("rounds[0].criminals", {}, "rounds[0].criminals", "a list"),
    ("rounds[0].criminals[0]", 5, "rounds[0].criminals[0]", "an object"),
    ("rounds[0].criminals[0].valid", "yes", "rounds[0].criminals[0].valid", "true or false"),
    ("rounds[0].criminals[0].budget", None, "rounds[0].criminals[0].budget", "a number"),
    ("rounds[0].criminals[0].seat", None, "rounds[0].criminals[0].seat", "an integer"),
    ("rounds[0].criminals[0].move", DEL, "rounds[0].criminals[0]", "missing field 'move'"),
    ("rounds[0].criminals[0].move", [1, 2], "rounds[0].criminals[0].move", "[u, v, w]"),
    ("rounds[0].criminals[0].move[2]", "3", "rounds[0].criminals[0].move[2]", "a number"),
    ("rounds[0].criminals[1].reason", 5, "rounds[0].criminals[1].reason", "a string"),
    ("rounds[0].criminals[1].output", None, "rounds[0].criminals[1].output", "a string"),
    ("rounds[0].updates", {}, "rounds[0].updates", "a list"),
    ("rounds[0].updates[0]", [1, 2], "rounds[0].updates[0]", "[u, v, w]"),
    ("rounds[0].updates[0][2]", None, "rounds[0].updates[0][2]", "a number"),
    ("rounds[0].students", None, "rounds[0].students", "a list"),
    ("rounds[0].students[0]", "x", "rounds[0].students[0]", "an object"),
    ("rounds[0].students[0].at", "0", "rounds[0].students[0].at", "an integer"),
    ("rounds[0].students[0].to", None, "rounds[0].students[0].to", "an integer"),
    ("rounds[0].students[0].to", DEL, "rounds[0].students[0]", "missing field 'to'"),
    ("rounds[0].students[0].paid", "1", "rounds[0].students[0].paid", "a number"),
    ("rounds[0].students[0].valid", 1, "rounds[0].students[0].valid", "true or false"),
    ("rounds[0].students[0].counts", 8, "rounds[0].students[0].counts", "a list"),
    ("rounds[0].students[0].reason", [], "rounds[0].students[0].reason", "a string"),
    ("scores", None, "scores", "an object"),
    ("scores.criminals", DEL, "scores", "missing field 'criminals'"),
    ("scores.students", [1.0] * 7, "scores.students", "8 numbers (one per student seat)"),
    ("scores.criminals[0]", "x", "scores.criminals[0]", "a number"),
    ("note", 5, "note", "a string"),
    ("init", {}, "init", "a list"),
    ("init[0].ok", "yes", "init[0].ok", "true or false"),
    ("init[0].seat", None, "init[0].seat", "an integer"),
    ("base_crossed", "x", "base_crossed", "a number"),
    ("final_budgets", [1.0], "final_budgets", "2 numbers (one per criminal seat)"),
    ("final_budgets", None, "final_budgets", "a list"),
    ("invalid_moves", "x", "invalid_moves", "a list"),
    ("invalid_moves[0].round", "1", "invalid_moves[0].round", "an integer"),
    ("invalid_moves[0].reason", DEL, "invalid_moves[0]", "missing field 'reason'"),
    ("scoreboard", {}, "scoreboard", "a list"),
    ("scoreboard[0].score", None, "scoreboard[0].score", "a number"),
    ("game_id", 5, "game_id", "a string"),
    ("judged", None, "judged", "a string"),
    ("graph_index", "0", "graph_index", "an integer"),
    ("wall_time", "x", "wall_time", "a number"),
]

PYTHON_WORDS = ("NoneType", "Error", "Traceback", "'str' object", "'int' object", "None",
                "True", "False", "dict", "<class")


def _corrupted(record: dict, field: str, value) -> dict:
    rec = copy.deepcopy(record)
    _set(field, value)(rec)
    return rec


def _check(capsys, *files):
    code = main(["check", "deathrun", *map(str, files)])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


@pytest.mark.parametrize("field, value, path, words", CORRUPT,
                         ids=[f"{c[0]}={'DEL' if c[1] is DEL else json.dumps(c[1])}"
                              for c in CORRUPT])
def test_a_corrupted_field_exits_2_naming_it(capsys, tmp_path, record, field, value, path,
                                             words):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_corrupted(record, field, value), indent=1))
    code, out, err = _check(capsys, bad)
    assert code == 2, (out, err)
    line = err.strip()
    assert "\n" not in line and out == ""
    assert line.startswith(f"puzzleproof: error: {bad}: "), line
    msg = line[len(f"puzzleproof: error: {bad}: "):]
    assert msg.startswith(f"{path}: " if path else "missing field"), msg
    assert words in msg and ("expected" in msg or "missing field" in msg), msg
    for w in PYTHON_WORDS:
        assert w not in msg, msg


@pytest.mark.parametrize("field, value, path, words", CORRUPT[:12])
def test_replay_of_a_record_in_memory_names_the_field(record, field, value, path, words):
    rec = _corrupted(record, field, value)
    probs = replay(rec)
    assert len(probs) == 1 and probs[0].startswith("malformed record: "), probs
    assert words in probs[0]
    with pytest.raises(InputError, match=re.escape(words)):
        check_record_shape(rec)


def test_a_jsonl_names_the_line_and_path(capsys, tmp_path, record):
    bad = tmp_path / "games.jsonl"
    bad.write_text(write_record(record)
                   + write_record(_corrupted(record, "rounds[2].students[1].paid", None)))
    code, _, err = _check(capsys, bad)
    assert code == 2
    assert (f"{bad}:2: record on line 2: rounds[2].students[1].paid: expected a number, "
            "found null") in err


def test_a_sound_record_and_seeds_as_the_project_writes_them_pass(capsys, tmp_path, record):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(record))
    code, out, err = _check(capsys, good)
    assert code == 0 and "replays by the rules" in out and "seed 4" in out, (out, err)
    for seed in ("1:22", "0:g3:c1", "-5"):  # generate's and tournament's string seeds
        rec = dict(record, seed=seed)
        assert read_records(json.dumps(rec)) == [rec]
    # optional fields may be absent; a record holding only the required ones is read
    bare = {k: record[k] for k in ("type", "schema_version", "seed", "graph", "budget",
                                   "seats", "rounds", "scores")}
    assert read_records(json.dumps(bare)) == [bare] and replay(bare) == []


@pytest.mark.parametrize("field, value, words", [
    ("rounds[2].students[0].paid", 99, "paid 99"),
    ("scores.criminals[0]", 1e6, "recorded score"),
    ("rounds[0].criminals[0].move[2]", 1e9, "marked valid"),
    ("rounds[0].criminals[0].move[0]", 99999, "marked valid"),
    ("rounds[0].round", 7, "numbered 7"),
    ("rounds[0].students[0].to", 99999, ""),
    ("rounds[0].students[0].at", 3, "recorded at 3"),
    ("seed", 5, "seeded draw"),  # a well-formed seed, but not the one the game was played with
    ("budget", 50, "budget"),
    ("rounds[-1]", DEL, "before every student reached an end"),
])
def test_a_well_formed_record_that_breaks_a_rule_exits_1(capsys, tmp_path, record, field,
                                                          value, words):
    rec = _corrupted(record, field, value)
    bad = tmp_path / "rule.json"
    bad.write_text(json.dumps(rec))
    code, out, err = _check(capsys, bad)
    assert code == 1 and err == "", (out, err)
    assert "does NOT replay by the rules" in out and words in out, out
    assert "malformed" not in out, out
