"""The Python API is shaped for Python and judges what the command judges: methods as a
list, model objects (instances and answers) taken without a temporary file, the executor
a parameter, a program judged by crosscheck() as by 'crosscheck --bot-cmd', the same
records and exit codes, and every option named and explained."""

from __future__ import annotations

import json
import sys
import tempfile

import pytest

import puzzleproof
from puzzleproof.cli import main
from tests.conftest import INSTANCES

PY = sys.executable
HASHI = str(INSTANCES / "hashi" / "small-5x5.txt")
SKYNET = str(INSTANCES / "skynet" / "breakers" / "breaker-ep2-n12-s1-864.txt")
CITY = str(INSTANCES / "cityclose" / "ring14-s1-0.json")
GRAPH = str(INSTANCES / "deathrun" / "graphs" / "gap-s1-1.json")


@pytest.fixture
def no_temporary_files(monkeypatch):
    """Call it, and from then on any temporary file or folder made fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("the API wrote a temporary file")

    def start() -> None:
        for name in ("mkstemp", "mkdtemp", "NamedTemporaryFile", "TemporaryDirectory",
                     "TemporaryFile"):
            monkeypatch.setattr(tempfile, name, refuse)

    return start


def test_methods_as_a_list_or_a_string():
    a = puzzleproof.solve(HASHI, method=["sat"], unique=True)
    b = puzzleproof.solve(HASHI, method="sat", unique=True)
    assert a.status == b.status and a.answer == b.answer and a.check_ok
    out = puzzleproof.crosscheck([HASHI], method=["sat", "article"])
    assert [row["method"] for row in out.record["summary"]] == ["sat", "article"]


def test_terminal_only_options_are_not_api_options():
    with pytest.raises(TypeError, match="takes no option 'as_json'"):
        puzzleproof.solve(HASHI, as_json=True)
    names = {o["name"] for o in puzzleproof.options("solve", "hashi")}
    assert {"method", "unique", "time_limit"} <= names
    assert not names & puzzleproof.api.CLI_ONLY


@pytest.mark.parametrize("verb, puzzle", [(v, p) for p in ("hashi", "skynet", "cityclose",
                                                            "deathrun")
                                          for v in ("solve", "check", "crosscheck",
                                                    "generate")])
def test_every_api_option_is_named_and_explained(verb, puzzle):
    for o in puzzleproof.options(verb, puzzle):
        assert o["name"].isidentifier() and o["flag"].startswith("-") and o["help"].strip()


def test_model_objects_are_checked_drawn_and_converted_without_a_temporary_file(
        no_temporary_files):
    from puzzleproof.formats.cityclose import read_map as read_city
    from puzzleproof.formats.hashi import read_puzzles
    from puzzleproof.formats.skynet import read_map as read_sky

    puzzle = read_puzzles(open(HASHI).read())[0].puzzle
    sky = read_sky(open(SKYNET).read())
    city = read_city(open(CITY).read())
    res = puzzleproof.solve(puzzle)
    strategy = puzzleproof.solve(sky).certificate
    order = puzzleproof.solve(city, method="greedy").answer
    no_temporary_files()  # the solvers' own imports (numba's cache) are not the API's
    assert puzzleproof.check(puzzle, res.answer).ok
    wrong = res.answer[:-1]
    assert not puzzleproof.check(puzzle, wrong).ok
    assert puzzleproof.render(puzzle).data.lstrip().startswith("<svg")
    assert json.loads(puzzleproof.convert(puzzle, "json"))["type"] == "hashi"
    assert puzzleproof.check(sky, strategy).ok
    assert puzzleproof.check(city, order).ok
    assert puzzleproof.check(city, {"order": order["order"][:3]}).ok is False
    assert "cities" in json.loads(puzzleproof.convert(city, "json"))


WRONG_HASHI = "import sys\nsys.stdin.read()\nprint('0 0 0 2 1')\n"
WRONG_CITY = ("import json, sys\nm = json.load(sys.stdin)\n"
              "first = m['cities'][0]\nname = first if isinstance(first, str) else first['name']\n"
              "print(name)\nprint(name)\n")
WRONG_SKYNET = ("n, l, e = map(int, input().split())\nlinks = [input() for _ in range(l)]\n"
                "gates = [input() for _ in range(e)]\nwhile True:\n    input()\n"
                "    print(0, 0)\n")


def _records(path):
    keep = ("instance", "method", "status", "check_ok", "violations")
    return sorted(json.dumps({k: r.get(k) for k in keep}, sort_keys=True)
                  for r in map(json.loads, path.read_text().splitlines())
                  if r["type"] == "record")


@pytest.mark.parametrize("source, code, options", [
    (HASHI, WRONG_HASHI, {"method": "sat"}),
    (CITY, WRONG_CITY, {"method": "exact,greedy"}),
    (SKYNET, WRONG_SKYNET, {"method": "sat", "agent_names": "article"}),
])
def test_the_api_judges_a_program_as_the_command_does(tmp_path, capsys, source, code,
                                                      options):
    prog = tmp_path / "prog.py"
    prog.write_text(code)
    api_out, cli_out = tmp_path / "api.jsonl", tmp_path / "cli.jsonl"
    got = puzzleproof.crosscheck([source], programs={"mine": f"{PY} {prog}"},
                                 output=str(api_out), **options)
    flags = []
    for name, value in options.items():
        flags += [{"method": "--method", "agent_names": "--agent"}[name], value]
    code_cli = main(["crosscheck", source, "--bot-cmd", f"mine={PY} {prog}", "-o",
                     str(cli_out), "-q", "--json", *flags])
    summary = json.loads(capsys.readouterr().out)
    assert got.exit_code == code_cli == 1
    assert _records(api_out) == _records(cli_out)
    assert len(got.record["disagreements"]) == len(summary["disagreements"]) >= 1


def test_the_executor_is_a_parameter():
    from puzzleproof.executor import ExecutorSpec

    a = puzzleproof.crosscheck([HASHI], method="sat", executor=1)
    b = puzzleproof.crosscheck([HASHI], method="sat", executor=ExecutorSpec(jobs=2))
    assert a.record["summary"] == [dict(r, mean_time=a.record["summary"][0]["mean_time"],
                                        max_time=a.record["summary"][0]["max_time"])
                                   for r in b.record["summary"]]


def test_a_hunt_from_python(tmp_path):
    prog = tmp_path / "first.py"
    prog.write_text(WRONG_CITY)
    (doc,) = list(puzzleproof.hunt("cityclose", f"first={PY} {prog}", time_limit=60))
    assert doc["type"] == "breaker" and doc["failure"]["kind"] == "illegal-order"
