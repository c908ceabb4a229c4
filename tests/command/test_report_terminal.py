"""Judging your own program, one story from terminal to report (issue 30): for every kind of
run, the counts the command prints (``--json``) and its exit status are the ones its report
states, read back from the HTML; and the programs a user would write are judged as they
should be (an Episode 2 rule breaker, a bot that prints to stderr and crashes at a known
line, a Death Run student that walks into traps, a Hashi solver not sent what CodinGame's
input cannot carry)."""

from __future__ import annotations

import html
import json
import re
import sys
import textwrap
from pathlib import Path

import pytest

from puzzleproof.verify.records import summary_counts
from tests.conftest import INSTANCES, run, shared_path

PY = sys.executable

SKYNET_RULE_BREAKER = """\
    # cuts the first link it read, gateway or not: under Episode 2 only a link that touches
    # a gateway may be cut
    n, l, e = map(int, input().split())
    links = [input().split() for _ in range(l)]
    gates = [input() for _ in range(e)]
    while True:
        input()
        print(*links.pop(0))
"""

DEATHRUN_CRASHER = """\
    import sys


    class BaseStudent:
        def __init__(self, edges, begin, ends):
            self.out = {}
            for u, v, w in edges:
                self.out.setdefault(u, []).append(v)

        def strategy(self, edge_updates, vertex_count, current_vertex):
            print("at", current_vertex, file=sys.stderr)
            if current_vertex > 60:
                raise RuntimeError("oops, my bug")
            return self.out[current_vertex][0]
"""
#: the line of the raise above, as the file is written
CRASH_LINE = next(k for k, ln in enumerate(textwrap.dedent(DEATHRUN_CRASHER).splitlines(), 1)
                  if "raise" in ln)

DEATHRUN_TRAP_WALKER = """\
    class BaseStudent:
        # always the cheapest link now, blind to the criminals and to traps
        def __init__(self, edges, begin, ends):
            self.w = {(u, v): w for u, v, w in edges}

        def strategy(self, edge_updates, vertex_count, current_vertex):
            nxt = [(w + edge_updates.get((u, v), 0), v) for (u, v), w in self.w.items()
                   if u == current_vertex]
            return min(nxt)[1]
"""

HASHI_NEVER_3 = """\
    import sys
    w = int(input()); h = int(input()); rows = [input() for _ in range(h)]
    print("thinking about", w, "x", h, file=sys.stderr)
    print("0 0 1 0 1")
"""

HASHI_CRASHER = """\
    import sys
    w = int(input())
    print("read the width", w, file=sys.stderr)
    raise SystemExit("cannot read this grid")
"""


def _file(folder: Path, name: str, body: str) -> str:
    path = folder / name
    path.write_text(textwrap.dedent(body))
    return str(path)


def _report_counts(jsonl: Path, tmp: Path, capsys) -> dict[str, str]:
    """The report's "Run summary" table, read back from the HTML."""
    page = tmp / "report.html"
    assert run(capsys, "report", jsonl, "-o", page, "--force")[0] == 0
    text = page.read_text()
    section = text.split("<h2>Run summary</h2>", 1)[1].split("<h2>", 1)[0]
    rows = re.findall(r"<tr><td>(.*?)</td><td[^>]*>(.*?)</td></tr>", section)
    return {html.unescape(k): html.unescape(v) for k, v in rows}


def _summary_table(page: Path) -> list[dict[str, str]]:
    """The report's per-method "Summary" table, read back from the HTML, a dict a row."""
    section = page.read_text().split("<h2>Summary</h2>", 1)[1].split("<h2>", 1)[0]
    head = [html.unescape(h) for h in re.findall(r"<th>(.*?)</th>", section)]
    rows = [[html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr)]
            for tr in re.findall(r"<tr>(<td.*?)</tr>", section)]
    return [dict(zip(head, row)) for row in rows]


def _same_table(json_out: str, page: Path, keys: dict[str, str]) -> None:
    """The report's table has the terminal's rows: each ``keys`` column (report title:
    summary key) equals the ``--json`` summary's count for every method."""
    rows = {row["method"]: row for row in json.loads(json_out)["summary"]}
    shown = {row["method"]: row for row in _summary_table(page)}
    assert set(shown) == set(rows)
    for method, row in rows.items():
        for title, key in keys.items():
            assert shown[method][title] == str(row[key]), (method, title)


def _same_story(json_out: str, code: int, jsonl: Path, tmp: Path, capsys) -> dict:
    """The terminal's --json counts and exit status equal the report's."""
    record = json.loads(json_out)
    counts = summary_counts(record)
    shown = _report_counts(jsonl, tmp, capsys)
    assert shown.pop("exit status") == str(code)
    for key in ("agents", "rules"):
        shown.pop(key, None)
    assert {k.replace(" ", "_"): int(v) for k, v in shown.items()} == counts
    return counts


def test_crosscheck_hashi_with_a_solver_the_protocol_cannot_carry(tmp_path, capsys):
    solver = _file(tmp_path, "solver.py", HASHI_NEVER_3)
    jsonl = tmp_path / "run.jsonl"
    code, out, err = run(capsys, "crosscheck", "hashi", INSTANCES / "hashi/small-5x5.txt",
                         INSTANCES / "hashi/four-bridges-7x7.tatham", "--method", "sat",
                         "--bot-cmd", f"mine={PY} {solver}", "-q", "-o", jsonl, "--json")
    assert code == 1  # its answer to the 5x5 breaks the rules
    counts = _same_story(out, code, jsonl, tmp_path, capsys)
    assert counts["not_sent"] == 1 and counts["disagreements"] == 1
    record = json.loads(out)
    assert all("four-bridges" not in d["instance"] for d in record["disagreements"])
    _same_table(out, tmp_path / "report.html", {"solved": "solved", "failed": "failed",
                                                "not sent": "not_sent"})
    mine = next(row for row in record["summary"] if row["method"] == "mine")
    assert mine["solved"] == 0 and mine["failed"] == 1  # its one answer breaks the rules
    text = (tmp_path / "report.html").read_text()
    assert "mine&#x27;s stderr on" in text and "thinking about 5 x 5" in text


def test_a_crashing_hashi_solver_is_failed_with_its_stderr_in_the_report(tmp_path, capsys):
    solver = _file(tmp_path, "solver.py", HASHI_CRASHER)
    jsonl = tmp_path / "run.jsonl"
    code, out, _ = run(capsys, "crosscheck", "hashi", INSTANCES / "hashi/small-5x5.txt",
                       "--method", "sat", "--bot-cmd", f"mine={PY} {solver}", "-q", "-o",
                       jsonl, "--json")
    assert code == 1  # it misses a solution the exact solver found
    _same_story(out, code, jsonl, tmp_path, capsys)
    _same_table(out, tmp_path / "report.html", {"solved": "solved", "failed": "failed"})
    text = (tmp_path / "report.html").read_text()
    section = text.split("<h2>Unknown and failed</h2>", 1)[1]
    assert "ERROR" in section and "read the width 5" in section
    assert "cannot read this grid" in section


@pytest.mark.slow
def test_crosscheck_cityclose(tmp_path, capsys):
    jsonl = tmp_path / "run.jsonl"
    code, out, _ = run(capsys, "crosscheck", "cityclose", INSTANCES / "cityclose", "-q", "-o",
                       jsonl, "--json", "--time-limit", "30")
    assert code == 0
    _same_story(out, code, jsonl, tmp_path, capsys)


@pytest.mark.slow
def test_skynet_referee_of_a_rule_breaker(tmp_path, capsys):
    """A natural first bot that cuts a link that touches no gateway loses every Episode 2
    game at once: each a defect of the program, whatever the start; the report's agents
    are the ones it played."""
    bot = _file(tmp_path, "bot.py", SKYNET_RULE_BREAKER)
    jsonl = tmp_path / "run.jsonl"
    official = shared_path("instances/skynet/ep2/01-robust-double-gateways.txt")
    code, out, _ = run(capsys, "skynet", "referee", official, "--all-starts", "--agent",
                       "article,nearest", "--bot-cmd", f"mine={PY} {bot}", "-q", "-o", jsonl,
                       "--json")
    assert code == 1
    counts = _same_story(out, code, jsonl, tmp_path, capsys)
    assert counts["lost"] == counts["games"] == counts["defects"]
    record = json.loads(out)
    assert record["agents"] == ["article", "nearest"]
    assert all(j["reason"] == "illegal-cut" for j in record["judged"])
    text = (tmp_path / "report.html").read_text()
    assert "the agent model &#x27;article&#x27;" in text and "worst-case agent" not in text


def test_skynet_referee_report_draws_losses_on_winnable_starts_first(tmp_path, capsys):
    """Records come in the order the games finished (any order under -j): the report still
    draws the losses on starts proved winnable first, marked, then the rest."""
    bot = _file(tmp_path, "bot.py", SKYNET_RULE_BREAKER)
    jsonl = tmp_path / "run.jsonl"
    official = shared_path("instances/skynet/ep2/01-robust-double-gateways.txt")
    code, out, _ = run(capsys, "skynet", "referee", official, "--all-starts", "--agent",
                       "article", "--bot-cmd", f"mine={PY} {bot}", "-q", "-o", jsonl, "--json")
    counts = json.loads(out)["counts"]
    assert code == 1 and 0 < counts["lost_winnable"] < counts["lost"]
    lines = jsonl.read_text().splitlines()
    records = [ln for ln in lines if '"type": "record"' in ln]
    rest = [ln for ln in lines if '"type": "record"' not in ln]
    jsonl.write_text("\n".join(records[::-1] + rest) + "\n")  # the winnable ones last
    page = tmp_path / "report.html"
    assert run(capsys, "report", jsonl, "-o", page, "--force")[0] == 0
    section = page.read_text().split("<h2>Lost games</h2>", 1)[1].split("<h2>", 1)[0]
    heads = [html.unescape(h) for h in re.findall(r"<h3>(.*?)</h3>", section)]
    marked = ["LOST A WINNABLE GAME" in h for h in heads]
    assert marked == sorted(marked, reverse=True)  # every marked one before the others
    assert sum(marked) == counts["lost_winnable"] and len(heads) == counts["lost"]
    assert f"{counts['lost_winnable']} of them on starts proved winnable" in section


def test_crosscheck_skynet_judges_a_program_beside_the_bots_by_one_rule(tmp_path, capsys):
    """A program and our bots meet the same agent in one table, and a program's loss on a
    start proved winnable is a disagreement like a bot's."""
    bot = _file(tmp_path, "bot.py", SKYNET_RULE_BREAKER)
    jsonl = tmp_path / "run.jsonl"
    official = shared_path("instances/skynet/ep2/02-linked-double-gateways.txt")
    code, out, _ = run(capsys, "crosscheck", "skynet", official, "--bot-cmd",
                       f"mine={PY} {bot}", "--agent", "article", "-q", "-o", jsonl, "--json")
    assert code == 1
    counts = _same_story(out, code, jsonl, tmp_path, capsys)
    record = json.loads(out)
    assert counts["disagreements"] >= 1
    assert {row["method"] for row in record["summary"]} >= {"sat", "mine/article",
                                                              "ep2-slack/article"}
    assert any(d["kind"] == "loses-winnable-game" and d["methods"][0] == "mine/article"
               for d in record["disagreements"])


@pytest.mark.slow
def test_deathrun_crosscheck_of_a_crashing_and_a_trap_walking_student(tmp_path, capsys):
    """A student file's crash names its own line and its stderr is shown; a student file
    that pays more than the robust bound is a finding (exit 1) with its games as evidence,
    and the report shows the bound and those games."""
    crasher = _file(tmp_path, "crasher.py", DEATHRUN_CRASHER)
    walker = _file(tmp_path, "walker.py", DEATHRUN_TRAP_WALKER)
    jsonl = tmp_path / "run.jsonl"
    code, out, err = run(capsys, "crosscheck", "deathrun", INSTANCES / "deathrun/graphs",
                         "--students", f"{crasher},{walker},robust", "-q", "-o", jsonl,
                         "--json")
    assert code == 1
    counts = _same_story(out, code, jsonl, tmp_path, capsys)
    record = json.loads(out)
    assert counts["program_findings"] >= 1
    assert {f["bot"] for f in record["program_findings"]} <= {crasher, walker}
    games = [json.loads(x) for x in jsonl.read_text().splitlines()]
    moves = [m for g in games if g.get("type") == "deathrun-game"
             for m in g.get("invalid_moves", [])]
    crash = next(m for m in moves if "crash" in m["reason"])
    assert f"crasher.py:{CRASH_LINE} in strategy" in crash["reason"]
    assert "at " in crash["stderr"]
    text = (tmp_path / "report.html").read_text()
    assert "Against the robust bound" in text and "finding (a judged program)" in text
    assert "oops, my bug" in text


def test_deathrun_tournament(tmp_path, capsys):
    jsonl = tmp_path / "run.jsonl"
    code, out, _ = run(capsys, "deathrun", "tournament", "--criminals", "toll,gap-toll",
                       "--students", "robust,greedy", "-n", "6", "--seed", "2", "-q", "-o",
                       jsonl, "--json")
    assert code == 0 and json.loads(out)["games"] == 6
    _same_story(out, code, jsonl, tmp_path, capsys)


@pytest.mark.parametrize("args", [["solve", "skynnet", "x.txt"], ["crosscheck", "hashy", "y"]])
def test_a_mistyped_puzzle_is_one_line_with_a_suggestion(capsys, args):
    code, out, err = run(capsys, *args)
    assert code == 2 and f"unknown puzzle {args[1]!r}; did you mean" in err
    assert len([ln for ln in err.splitlines() if ln.strip()]) == 1, err  # one line


def test_a_puzzle_without_the_verb_says_so_not_did_you_mean(capsys):
    code, _, err = run(capsys, "convert", "skynet", "map.txt", "--format", "json")
    assert code == 2 and "convert does not apply to skynet (convert knows hashi" in err
    assert "did you mean" not in err


def test_no_installed_puzzle_is_said_not_an_internal_error(capsys, monkeypatch, tmp_path):
    """An install whose entry points are missing (an old editable install) reads no file:
    one clear note and one clear error, exit 2."""
    from puzzleproof.puzzles import registry

    monkeypatch.setattr(registry.metadata, "entry_points", lambda **kw: [])
    registry.reload()
    try:
        f = tmp_path / "map.json"
        f.write_text('{"cities": ["a", "b"], "roads": [["a", "b"]]}')
        code, _, err = run(capsys, "check", str(f))
    finally:
        monkeypatch.undo()
        registry.reload()
    assert code == 2 and "no puzzle is installed" in err
    assert "no installed puzzle reads it" in err and "internal error" not in err
