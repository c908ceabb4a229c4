"""Break my program: for every puzzle, a deliberately wrong program (written here as a user
would) is hunted down to a small, shrunk breaker whose evidence is judged again from its
files alone; a correct program (ours, run as a program) survives a short hunt (exit 0); a
program that fails one time in three is reported as intermittent; one that crashes, hangs
or floods its output yields a failure record, never a hang; the same seed gives the same
breakers."""

from __future__ import annotations

import json
import re
import sys
import textwrap
import time
from pathlib import Path

import pytest

from puzzleproof.generate.hunt import rejudge
from tests.conftest import run

PY = sys.executable


def _tried(err: str) -> int:
    """How many instances a hunt that found nothing says it tried."""
    m = re.search(r"on every one of (\d+) instances? tried", err)
    assert m, err
    return int(m.group(1))


def _file(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(textwrap.dedent(text))
    return path


def _breakers(folder: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.breaker.json"))]


def _rebuild(puzzle: str):
    from puzzleproof import puzzles as registry
    from puzzleproof.method import load_ref

    return load_ref(registry.get(puzzle).generate.rebuild)


# -- Skynet -----------------------------------------------------------------------------------

SKYNET_NEAREST_LINK = """\
    import sys
    n, l, e = map(int, input().split())
    links = [tuple(map(int, input().split())) for _ in range(l)]
    gates = {int(input()) for _ in range(e)}
    while True:
        si = int(input())
        gl = [lk for lk in links if lk[0] in gates or lk[1] in gates]
        # the gateway link whose other end is nearest the agent, by breadth-first search
        dist, todo = {si: 0}, [si]
        while todo:
            v = todo.pop(0)
            for a, b in links:
                w = b if a == v else a if b == v else None
                if w is not None and w not in dist and w not in gates:
                    dist[w] = dist[v] + 1
                    todo.append(w)
        cut = min(gl, key=lambda lk: dist.get(lk[0] if lk[1] in gates else lk[1], 99))
        links.remove(cut)
        print("agent at", si, file=sys.stderr)
        print(*cut)
"""


def test_a_skynet_program_that_cuts_the_nearest_link_is_broken_and_shrunk(tmp_path, capsys):
    bot = _file(tmp_path, "near.py", SKYNET_NEAREST_LINK)
    out = tmp_path / "found"
    code, _, err = run(capsys, "generate", "skynet", "--bot-cmd", f"near={PY} {bot}",
                       "--agent", "article", "--nodes", "9", "--seed", "1", "--time-limit",
                       "120", "-o", out, "-q")
    assert code == 1, err
    (doc,) = _breakers(out)
    assert doc["failure"]["kind"] == "loses-winnable-start"
    assert doc["hunt"]["runs"] == doc["hunt"]["failures"] == 3
    assert doc["hunt"]["locally_minimal"] and doc["hunt"]["size"] <= 9
    assert doc["evidence"]["stderr"][0].startswith("agent at")
    # the evidence holds by the rules: the game replays, the strategy wins every line
    from puzzleproof.formats.skynet import read_map, record_from_json
    from puzzleproof.models.skynet import replay
    from puzzleproof.models.skynet_strategy import check_player_strategy

    m = read_map((out / doc["instance"]).read_text())
    game = record_from_json(json.dumps(doc["evidence"]["game"]))
    assert replay(game) == [] and game.result == "LOSS"
    assert check_player_strategy(m, "ep2", m.start, doc["evidence"]["strategy"]) == []
    # judged again from the files alone: the program still loses it
    again, failure = rejudge(out / f"{doc['name']}.breaker.json", _rebuild("skynet"))
    assert failure is not None and failure.kind == "loses-winnable-start"
    code, text, _ = run(capsys, "check", out / f"{doc['name']}.breaker.json")
    assert code == 1 and "still fails" in text


@pytest.mark.slow
def test_our_exact_bot_as_a_program_survives_a_short_hunt(tmp_path, capsys):
    code, _, err = run(capsys, "generate", "skynet", "--bot-cmd",
                       f"exact={PY} -m puzzleproof skynet play --bot exact", "--agent",
                       "article", "--nodes", "7", "--init-timeout", "20", "--time-limit", "8",
                       "-q")
    assert code == 0 and "no breaker: exact held" in err and _tried(err) >= 3


FLAKY = """\
    import os, sys
    n, l, e = map(int, input().split())
    links = [tuple(map(int, input().split())) for _ in range(l)]
    gates = {int(input()) for _ in range(e)}
    count = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runs")
    k = int(open(count).read()) if os.path.exists(count) else 0
    open(count, "w").write(str(k + 1))
    while True:
        si = int(input())
        if k % 3 == 0:
            raise SystemExit("one run in three crashes")
        near = [lk for lk in links if si in lk and (lk[0] in gates or lk[1] in gates)]
        cut = (near or [lk for lk in links if lk[0] in gates or lk[1] in gates])[0]
        links.remove(cut)
        print(*cut)
"""


def test_a_program_that_fails_one_run_in_three_is_reported_as_intermittent(tmp_path,
                                                                           capsys):
    bot = _file(tmp_path, "flaky.py", FLAKY)
    # one run at a time: the program counts its runs in a file, which runs side by side
    # (a hunt judges a few draws at once) would both read before either writes
    code, out, err = run(capsys, "generate", "skynet", "--bot-cmd", f"flaky={PY} {bot}",
                         "--agent", "article", "--nodes", "5", "--time-limit", "60", "-j", "1")
    assert code == 1, err
    doc = json.loads(out.splitlines()[0])
    assert doc["failure"]["kind"] == "crash" and doc["hunt"]["intermittent"]
    assert doc["hunt"]["failures"] == 1 and doc["hunt"]["runs"] == 3
    assert doc["hunt"]["shrink_steps"] == 0 and "INTERMITTENT" in err


_DEFECTS = [
    ("input()\nraise SystemExit(3)", "crash"),
    ("raise SystemExit(3)", "crash"),  # before it reads anything (no copy waits for input)
    ("input()\nimport sys\nwhile True:\n    sys.stdout.write('x' * 65536)", "output-too-long"),
]
_HANG = ("input()\nimport time\ntime.sleep(30)", "init-timeout")


# a copy's time-out on its first answer: tests/skynet/test_pristine.py
@pytest.mark.parametrize("body, kind, agent", [(*d, a) for d in _DEFECTS
                                               for a in ("article", "worst")]
                         + [(*_HANG, "article")])
def test_a_program_that_crashes_hangs_or_floods_is_a_failure_not_a_hang(tmp_path, capsys,
                                                                        body, kind, agent):
    """Against the worst-case agent a Python program's games are copies of one run kept
    waiting for its input: its failures are the same, each confirmed by a fresh run."""
    bot = _file(tmp_path, "bad.py", body + "\n")
    t0 = time.monotonic()
    code, out, err = run(capsys, "generate", "skynet", "--bot-cmd", f"bad={PY} {bot}",
                         "--agent", agent, "--nodes", "4", "--time-limit", "60")
    assert code == 1 and time.monotonic() - t0 < 60, err
    doc = json.loads(out.splitlines()[0])
    assert doc["failure"]["kind"] == kind and doc["hunt"]["size"] <= 4


def test_the_same_seed_gives_the_same_breakers(tmp_path, capsys):
    bot = _file(tmp_path, "near.py", SKYNET_NEAREST_LINK)
    got = []
    for k in range(2):
        code, out, err = run(capsys, "generate", "skynet", "--bot-cmd", f"near={PY} {bot}",
                             "--agent", "article", "--nodes", "9", "--seed", "1",
                             "--time-limit", "120", "-q")
        assert code == 1, err
        doc = json.loads(out)
        got.append((doc["instance_text"], doc["hunt"]["attempt"]))
    assert got[0] == got[1]


# -- Hashi ------------------------------------------------------------------------------------

HASHI_NO_CROSSING_RULE = """\
    # fills the clues pair by pair, two bridges first, and never looks at crossings
    w = int(input()); h = int(input())
    rows = [input() for _ in range(h)]
    isl = [(x, y, int(c)) for y, r in enumerate(rows) for x, c in enumerate(r) if c != "."]
    at = {(x, y): i for i, (x, y, _) in enumerate(isl)}
    pairs = []
    for i, (x, y, _) in enumerate(isl):
        for dx, dy in ((1, 0), (0, 1)):
            nx, ny = x + dx, y + dy
            while 0 <= nx < w and 0 <= ny < h:
                if (nx, ny) in at:
                    pairs.append((i, at[(nx, ny)]))
                    break
                nx, ny = nx + dx, ny + dy
    need = [c for _, _, c in isl]
    count = [0] * len(pairs)
    def linked():
        adj = {i: [] for i in range(len(isl))}
        for k, (a, b) in enumerate(pairs):
            if count[k]:
                adj[a].append(b); adj[b].append(a)
        seen, todo = {0}, [0]
        while todo:
            for v in adj[todo.pop()]:
                if v not in seen:
                    seen.add(v); todo.append(v)
        return len(seen) == len(isl)
    def fill(k):
        if k == len(pairs):
            return not any(need) and linked()
        a, b = pairs[k]
        for n in (2, 1, 0):
            if need[a] >= n and need[b] >= n:
                need[a] -= n; need[b] -= n; count[k] = n
                if fill(k + 1):
                    return True
                need[a] += n; need[b] += n; count[k] = 0
        return False
    fill(0)
    for k, (a, b) in enumerate(pairs):
        if count[k]:
            print(isl[a][0], isl[a][1], isl[b][0], isl[b][1], count[k])
"""


def test_a_hashi_program_that_ignores_crossings_is_broken_and_shrunk(tmp_path, capsys):
    solver = _file(tmp_path, "cross.py", HASHI_NO_CROSSING_RULE)
    out = tmp_path / "found"
    code, _, err = run(capsys, "generate", "hashi", "--bot-cmd", f"cross={PY} {solver}",
                       "--init-timeout", "20", "--seed", "3", "--time-limit", "240",
                       "-o", out, "-q")
    assert code == 1, err
    (doc,) = _breakers(out)
    assert doc["failure"]["kind"] == "wrong-answer" and "cross" in doc["failure"]["summary"]
    assert doc["hunt"]["locally_minimal"] and doc["hunt"]["size"] < doc["hunt"]["original_size"]
    _, failure = rejudge(out / f"{doc['name']}.breaker.json", _rebuild("hashi"))
    assert failure is not None and failure.kind == "wrong-answer"


@pytest.mark.slow
def test_our_exact_hashi_solver_as_a_program_survives_a_short_hunt(tmp_path, capsys):
    code, _, err = run(capsys, "generate", "hashi", "--bot-cmd",
                       f"sat={PY} -m puzzleproof solve hashi - --show lines -q",
                       "--init-timeout", "10", "--time-limit", "8", "-q")
    assert code == 0 and "no breaker: sat held" in err and _tried(err) >= 3


# -- City closing -----------------------------------------------------------------------------

CITY_SMALLEST_DEGREE = """\
    import json, sys
    m = json.load(sys.stdin)
    names = [c if isinstance(c, str) else c["name"] for c in m["cities"]]
    adj = {v: set() for v in names}
    for a, b in m["edges"]:
        adj[a].add(b); adj[b].add(a)
    left = set(names)
    def connected(s):
        start = next(iter(s)); seen, todo = {start}, [start]
        while todo:
            for w in adj[todo.pop()] & s:
                if w not in seen:
                    seen.add(w); todo.append(w)
        return len(seen) == len(s)
    while len(left) > m["rules"]["final_size"]:
        v = min((len(adj[v] & left), v) for v in left if connected(left - {v}))[1]
        left.discard(v)
        print(v)
"""


def test_a_city_program_closing_the_smallest_degree_is_broken_by_a_small_map(tmp_path,
                                                                             capsys):
    prog = _file(tmp_path, "deg.py", CITY_SMALLEST_DEGREE)
    out = tmp_path / "found"
    code, _, err = run(capsys, "generate", "cityclose", "--bot-cmd", f"deg={PY} {prog}",
                       "--min-gap", "0.05", "--seed", "1", "--time-limit", "120", "-o", out,
                       "-q")
    assert code == 1, err
    (doc,) = _breakers(out)
    ev = doc["evidence"]
    assert doc["failure"]["kind"] == "gap" and ev["gap"] >= 0.05 and doc["hunt"]["size"] <= 12
    from puzzleproof.formats.cityclose import read_map
    from puzzleproof.models.cityclose import score_order

    m = read_map((out / doc["instance"]).read_text())
    assert score_order(m, ev["order"]).total == ev["total"]
    assert score_order(m, ev["optimal_order"]).total == ev["optimum"] < ev["total"]
    _, failure = rejudge(out / f"{doc['name']}.breaker.json", _rebuild("cityclose"))
    assert failure is not None and failure.kind == "gap"


def test_a_city_program_that_breaks_the_rules_is_an_illegal_order(tmp_path, capsys):
    prog = _file(tmp_path, "first.py", """\
        import json, sys
        m = json.load(sys.stdin)
        for c in m["cities"][:-1]:
            print(c if isinstance(c, str) else c["name"])
    """)
    code, out, err = run(capsys, "generate", "cityclose", "--bot-cmd", f"first={PY} {prog}",
                         "--time-limit", "60", "-q")
    assert code == 1, err
    doc = json.loads(out)
    assert doc["failure"]["kind"] == "illegal-order" and doc["hunt"]["size"] <= 4


CITY_EXACT = """\
    import json, sys
    import puzzleproof
    from puzzleproof.formats.cityclose import read_map
    m = read_map(sys.stdin.read())
    res = puzzleproof.solve(m, method="exact")
    print("\\n".join(res.answer["order"]))
"""


@pytest.mark.slow
def test_our_exact_city_solver_as_a_program_survives_a_short_hunt(tmp_path, capsys):
    prog = _file(tmp_path, "exact.py", CITY_EXACT)
    code, _, err = run(capsys, "generate", "cityclose", "--bot-cmd", f"exact={PY} {prog}",
                       "--init-timeout", "10", "--time-limit", "15", "-q")
    assert code == 0 and "no breaker: exact held" in err and _tried(err) >= 3


# -- Death Run --------------------------------------------------------------------------------

GREEDY_STUDENT = """\
    class BaseStudent:
        def __init__(self, edge_list, begin, ends):
            self.w = {(u, v): w for u, v, w in edge_list}
        def strategy(self, edge_updates, vertex_count, current_vertex):
            for e, x in edge_updates.items():
                self.w[e] += x
            return min((w, v) for (u, v), w in self.w.items() if u == current_vertex)[1]
"""


def test_a_greedy_student_file_is_broken_above_the_certified_bound(tmp_path, capsys):
    student = _file(tmp_path, "student.py", GREEDY_STUDENT)
    out = tmp_path / "found"
    code, _, err = run(capsys, "generate", "deathrun", "--student", student,
                       "--time-limit", "300", "-o", out, "-q")
    assert code == 1, err
    (doc,) = _breakers(out)
    ev = doc["evidence"]
    assert doc["failure"]["kind"] == "above-bound" and ev["excess"] >= 20
    from puzzleproof.models.deathrun_replay import replay

    assert replay(ev["game"]) == []
    _, failure = rejudge(out / f"{doc['name']}.breaker.json", _rebuild("deathrun"))
    assert failure is not None and failure.kind == "above-bound"


def test_death_run_hunts_bot_files_and_refuses_a_program(tmp_path, capsys):
    """Death Run's bots are Python classes hunted with --student / --criminal FILE.py: a
    --bot-cmd program is refused (exit 2) instead of being ignored by an ordinary
    generation that would exit 0, as if the program had held."""
    code, _, err = run(capsys, "generate", "deathrun", "--bot-cmd",
                       "mine=python3 student.py", "-o", tmp_path / "out", "-q")
    assert code == 2 and "--bot-cmd" in err and not (tmp_path / "out").exists()
    code, out, _ = run(capsys, "generate", "deathrun", "--help")
    assert code == 0 and "--student" in out and "--bot-cmd" not in out


@pytest.mark.slow
def test_the_robust_student_as_a_file_survives_a_short_hunt(tmp_path, capsys):
    student = _file(tmp_path, "robust.py", """\
        from puzzleproof.players.deathrun_robust import RobustStudent
        class BaseStudent(RobustStudent):
            pass
    """)
    code, _, err = run(capsys, "generate", "deathrun", "--student", student, "--min-excess",
                       "0.001", "--time-limit", "12", "-q")
    assert code == 0 and "no breaker: robust" in err and _tried(err) >= 3
