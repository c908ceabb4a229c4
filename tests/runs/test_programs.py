"""External programs: the runner's verdicts, limits and process hygiene; external Skynet bots
judged as a batch against the exact solver; external Hashi solvers in the harness."""

from __future__ import annotations

import os
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import INSTANCES, shared_path
from puzzleproof.formats.skynet import read_map, record_from_json, record_to_json
from puzzleproof.models.skynet import replay
from puzzleproof.verify.crosscheck import run_crosscheck
from puzzleproof.clock import Deadline, PerTask
from puzzleproof.games.program import Limits, Program
from puzzleproof.games.runner import ExternalProgram, ProgramEnded, answer
from puzzleproof.players.skynet_agents import make_agent
from puzzleproof.verify.skynet_methods import game_instances, games_kind, judge_lost_games
from puzzleproof.games.skynet_referee import play_external

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="process groups and RLIMIT_AS are tested on Linux")

PY = sys.executable

READ_MAP = """\
import sys
n, l, e = map(int, input().split())
links = [tuple(map(int, input().split())) for _ in range(l)]
gates = {int(input()) for _ in range(e)}
"""

#: cuts the agent's own gateway link if it has one, else the first gateway link left
SMART = READ_MAP + """\
print("smart bot ready", file=sys.stderr)
while True:
    si = int(input())
    left = [(a, b) for a, b in links if a in gates or b in gates]
    near = [(a, b) for a, b in left if si in (a, b)]
    a, b = (near or left)[0]
    links.remove((a, b))
    print(f"agent at {si}, cut {a} {b}", file=sys.stderr)
    print(a, b, flush=True)
"""

#: the smart bot, a quarter of a second a turn: a game of many turns outlasts a short clock
SLOW_SMART = SMART.replace("    print(a, b, flush=True)", "    time.sleep(0.25)\n    print(a, b, flush=True)").replace(
    "while True:", "import time\nwhile True:", 1)

#: always the first gateway link left: loses games that are winnable
FIRST = READ_MAP + """\
while True:
    si = int(input())
    a, b = [(a, b) for a, b in links if a in gates or b in gates][0]
    links.remove((a, b))
    print(f"agent at {si}, cut {a} {b}", file=sys.stderr)
    print(a, b, flush=True)
"""

CRASH = READ_MAP + """\
si = int(input())
print("about to divide by zero", file=sys.stderr)
1 / 0
"""

#: answers the first turn, then hangs
HANG = READ_MAP + """\
si = int(input())
a, b = [(a, b) for a, b in links if a in gates or b in gates][0]
print(a, b, flush=True)
print("now sleeping", file=sys.stderr)
import time
time.sleep(60)
"""

#: forks a child that sleeps (its command line carries the marker), then hangs itself
FORK = READ_MAP + """\
import subprocess
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(100)", sys.argv[1]])
print("forked a sleeper", file=sys.stderr, flush=True)
import time
time.sleep(100)
"""

GREEDY = READ_MAP + """\
print("allocating", file=sys.stderr, flush=True)
hoard = []
while True:
    hoard.append(bytearray(10 ** 7))
"""

CLOSE_STDOUT = READ_MAP + """\
import os, time
os.close(1)
print("closed my stdout", file=sys.stderr, flush=True)
time.sleep(100)
"""

#: writes ~8 MB to stderr, then plays the smart bot
NOISY = READ_MAP + """\
chunk = "x" * 1023 + "\\n"
for _ in range(8 * 1024):
    sys.stderr.write(chunk)
sys.stderr.write("END OF NOISE\\n")
while True:
    si = int(input())
    left = [(a, b) for a, b in links if a in gates or b in gates]
    near = [(a, b) for a, b in left if si in (a, b)]
    a, b = (near or left)[0]
    links.remove((a, b))
    print(a, b, flush=True)
"""


def _script(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / f"{name}.py"
    p.write_text(textwrap.dedent(text))
    return p


def _live_with(marker: str) -> list[int]:
    """Pids of live (not zombie) processes whose command line holds ``marker``."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            cmd = Path(f"/proc/{d}/cmdline").read_bytes()
            stat = Path(f"/proc/{d}/stat").read_text()
        except OSError:
            continue
        state = stat.rsplit(")", 1)[-1].split()[0]
        if marker.encode() in cmd and state not in ("Z", "X"):
            out.append(int(d))
    return out


def _none_left(marker: str, within: float = 3.0) -> bool:
    end = time.monotonic() + within
    while _live_with(marker):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture(scope="module")
def ep2_maps():
    names = ["01-robust-double-gateways", "02-linked-double-gateways",
             "03-leading-up-to-double-gateway"]
    out = []
    for k in names:
        p = shared_path(f"instances/skynet/ep2/{k}.txt")
        out.append(read_map(p.read_text(), p.name))
    return out


class TestRunner:
    @pytest.mark.slow
    @pytest.mark.parametrize("code,reason", [
        ("import time; time.sleep(30)", "init-timeout"),
        ("import sys; print('bye', file=sys.stderr); sys.exit(3)", "crash"),
        ("pass", "exited"),
        ("import os, time; os.close(1); time.sleep(30)", "closed-stdout"),
        ("import os; os.kill(os.getpid(), 11)", "crash"),
    ])
    def test_each_ending_has_its_reason(self, code, reason):
        marker = uuid.uuid4().hex
        t0 = time.monotonic()
        with ExternalProgram([PY, "-c", code, marker]) as p:
            p.send("hello\n", 1.0)
            with pytest.raises(ProgramEnded) as exc:
                p.read_line(1.0, reason="init-timeout")
        assert exc.value.reason == reason, exc.value.detail
        assert time.monotonic() - t0 < 2.5
        assert _none_left(marker)

    def test_a_large_judge_does_not_make_a_crash_look_like_memory(self):
        # a forked child's kernel peak keeps the size of the judge it was copied from; with
        # the judge at 600 MB (over half the 768 MB limit) a crash was called memory-limit
        big = bytearray(600 * 1024 * 1024)
        big[::4096] = b"\x01" * len(big[::4096])
        try:
            with ExternalProgram([PY, "-c", "import os; os.kill(os.getpid(), 11)"]) as p:
                p.send("hello\n", 1.0)
                with pytest.raises(ProgramEnded) as exc:
                    p.read_line(2.0)
            assert exc.value.reason == "crash", exc.value.detail
            assert p.exit.max_rss_mb is None or p.exit.max_rss_mb < 300
        finally:
            del big

    def test_memory_limit_is_named(self):
        with ExternalProgram([PY, "-c", "a = []\nwhile True: a.append(bytearray(10**7))"],
                             memory_limit=200) as p:
            with pytest.raises(ProgramEnded) as exc:
                p.read_line(10.0)
        assert exc.value.reason == "memory-limit"
        assert "memory limit of 200 MB" in exc.value.detail
        assert "MemoryError" in p.stderr

    def test_stderr_is_capped_and_never_blocks(self):
        code = ("import sys\nfor _ in range(4096): sys.stderr.write('y' * 1023 + '\\n')\n"
                "sys.stderr.write('LAST\\n'); print(input())")
        t0 = time.monotonic()
        with ExternalProgram([PY, "-c", code], stderr_keep=8192) as p:
            p.send("echo\n", 2.0)
            assert p.read_line(5.0)[0] == "echo"
            err = p.stderr
        assert time.monotonic() - t0 < 5
        assert p.stderr_bytes > 4_000_000
        assert len(err) < 9000 and "bytes of stderr cut" in err and err.rstrip().endswith("LAST")

    def test_cannot_start(self):
        with pytest.raises(ProgramEnded) as exc:
            ExternalProgram(["/nonexistent/program-xyz"])
        assert exc.value.reason == "cannot-start"

    def test_an_answer_is_read_until_exit_or_the_deadline(self):
        done = answer(Program.of([PY, "-c", "print(input()); print('two')"]), "one\n",
                      Deadline(5.0))
        assert done.output.split() == ["one", "two"] and done.finished and done.verdict is None
        done = answer(Program.of([PY, "-c", "print('part', flush=True); input(); input()"]),
                      "", Deadline(0.5))
        assert done.output.strip() == "part" and not done.finished
        assert done.verdict[0] == "timeout"


class TestRefereeExternal:
    """One game each on map 01 from its start: every misbehaviour gets its verdict within its
    limit, its stderr is kept, and nothing of it is left running."""

    @pytest.mark.slow
    @pytest.mark.parametrize("name,script,reason,limit_s", [
        ("crash", CRASH, "crash", 3.0),
        ("hang", HANG, "timeout", 3.0),
        ("fork", FORK, "init-timeout", 3.0),
        ("greedy", GREEDY, "memory-limit", 8.0),
        ("close", CLOSE_STDOUT, "closed-stdout", 3.0),
    ])
    def test_misbehaving_bot(self, tmp_path, ep2_maps, name, script, reason, limit_s):
        m = ep2_maps[0]
        marker = f"pp-test-{uuid.uuid4().hex}"
        prog = _script(tmp_path, name, script)
        t0 = time.monotonic()
        r = play_external(m, "ep2", Program.of([PY, str(prog), marker],
                                               limits=Limits(first=1.5, turn=0.3,
                                                             memory_mb=200)),
                          make_agent("article"))
        took = time.monotonic() - t0
        assert (r.result, r.reason) == ("LOSS", reason), r.detail
        assert took < limit_s, took
        assert replay(r) == []
        assert r.stderr.strip(), "stderr kept"
        rec = record_to_json(r)
        assert rec["stderr"] == r.stderr
        assert record_from_json(__import__("json").dumps(rec)).stderr == r.stderr
        assert _none_left(marker), f"left running: {_live_with(marker)}"
        if name == "crash":
            assert "ZeroDivisionError" in r.stderr and "exit code 1" in r.detail
        if name == "fork":
            assert "forked a sleeper" in r.stderr
        if name == "greedy":
            assert "memory limit" in r.detail

    def test_noisy_bot_wins_and_its_stderr_is_capped(self, tmp_path, ep2_maps):
        m = ep2_maps[0]
        prog = _script(tmp_path, "noisy", NOISY)
        r = play_external(m, "ep2", Program.of([PY, str(prog)], limits=Limits(5.0, 1.0)),
                          make_agent("article"))
        assert (r.result, r.reason) == ("WIN", "contained"), r.detail
        assert len(r.stderr) < 70_000 and "bytes of stderr cut" in r.stderr
        assert "END OF NOISE" in r.stderr

    def test_the_task_deadline_stops_a_game_with_no_result(self, tmp_path, ep2_maps):
        """The judge's clock is not the program's: a game it stops is neither won nor lost,
        and its record still replays by the rules."""
        from puzzleproof.models.skynet import replay

        prog = _script(tmp_path, "slow", SLOW_SMART)
        r = play_external(ep2_maps[0], "ep2", Program.of([PY, str(prog)],
                                                         limits=Limits(5.0, 1.0)),
                          make_agent("article"), deadline=Deadline(0.6))
        assert r.result is None and r.reason == "time-limit" and replay(r) == []


class TestBatch:
    @pytest.mark.slow
    def test_external_bots_over_every_start(self, tmp_path, ep2_maps):
        """Built-in and external bots over every start of three maps, in parallel; the lost
        games are judged against the exact solver."""
        progs = {n: Program(n, (PY, str(_script(tmp_path, n, s))), limits=Limits(3.0, 0.4))
                 for n, s in (("smart", SMART), ("first", FIRST), ("crash", CRASH),
                              ("hang", HANG))}
        kind = games_kind(["ep2-slack"], ["article"], external=progs)
        starts = {m.name: [s for s in range(m.n) if s not in m.gateways] for m in ep2_maps}
        instances = game_instances(ep2_maps, starts)
        t0 = time.monotonic()
        report = run_crosscheck(kind, instances, list(kind.methods), tmp_path / "games.jsonl",
                                jobs=2)
        took = time.monotonic() - t0
        n_games = len(instances) * 5
        assert len(report.records) == n_games and took < 40
        assert all(r["check_ok"] for r in report.records), \
            [r["violations"] for r in report.records if not r["check_ok"]][:3]
        by = {}
        for r in report.records:
            by.setdefault(r["method"].split("/")[0], []).append(r)
        assert {r["stats"]["reason"] for r in by["crash"]} == {"crash"}
        hung = [r for r in by["hang"] if r["stats"]["reason"] == "timeout"]
        assert hung and all(r["stats"]["reason"] in ("timeout", "agent-reached-gateway")
                            for r in by["hang"])  # some starts are lost at once
        assert all("ZeroDivisionError" in r["answer"]["stderr"] for r in by["crash"])
        assert all("now sleeping" in r["answer"]["stderr"] for r in hung)
        assert any(r["status"] == "WIN" for r in by["smart"])
        assert all("smart bot ready" in r["answer"]["stderr"] for r in by["smart"])
        assert all("stderr" not in r["answer"] for r in by["ep2-slack"])

        lost = judge_lost_games(report.records, instances)
        assert len(lost) == sum(r["status"] == "LOSS" for r in report.records)
        winnable = [x for x in lost if x["method"] == "first/article"
                    and x["verdict"] == "lost-proved-winnable"]
        assert winnable, "the first-link bot loses a proved-winnable game"
        x = winnable[0]
        assert x["losing_line"] and x["stderr"] and "cut" in x["stderr"]
        win = record_from_json(__import__("json").dumps(x["winning_game"]))
        assert win.result == "WIN" and replay(win) == []
        for x in lost:  # every claim of a proved-winnable loss: the exact solver's WIN
            assert x["verdict"] in ("lost-proved-winnable", "lost-proved-lost")
        # the records went to the JSONL file as they came, stderr included
        text = (tmp_path / "games.jsonl").read_text()
        assert "ZeroDivisionError" in text


@pytest.fixture(scope="module")
def puzzle_and_solution():
    from puzzleproof.encoders import hashi_sat
    from puzzleproof.formats.hashi import read_puzzles

    path = INSTANCES / "hashi" / "small-5x5.txt"
    rec = read_puzzles(path.read_text(), str(path))[0]
    res = hashi_sat.solve(rec.puzzle, mode="unique", deadline=Deadline(30))
    assert res.answer
    return rec.puzzle, [list(b) for b in res.answer]


class TestHashiExternal:
    @pytest.mark.slow
    def test_right_wrong_and_hanging_solvers(self, tmp_path, puzzle_and_solution):
        from puzzleproof.verify.crosscheck import Instance
        from puzzleproof.games.hashi_program import external_method
        from puzzleproof.verify.hashi_methods import hashi_kind

        puzzle, sol = puzzle_and_solution
        lines = "\n".join(" ".join(map(str, b)) for b in sol)
        read = "w = int(input()); h = int(input()); rows = [input() for _ in range(h)]\n"
        right = _script(tmp_path, "right", read + "import sys\nprint('thinking', file=sys.stderr)"
                        f"\nprint('debug: not a bridge', file=sys.stderr)\nprint('''{lines}''')\n")
        wrong = _script(tmp_path, "wrong", read + "print('''"
                        + "\n".join(lines.splitlines()[:-1]) + "''')\n")
        marker = f"pp-test-{uuid.uuid4().hex}"
        hang = _script(tmp_path, "hang", read + "import sys, time\n"
                       "print('stuck', file=sys.stderr, flush=True)\ntime.sleep(60)\n")
        crash = _script(tmp_path, "crash", read + "raise SystemExit('no idea')\n")
        methods = {n: external_method(Program(n, (PY, str(p), marker)))
                   for n, p in (("right", right), ("wrong", wrong), ("hang", hang),
                                ("crash", crash))}
        kind = hashi_kind(methods)
        t0 = time.monotonic()
        report = run_crosscheck(kind, [Instance("small", puzzle)],
                                ["sat", "right", "wrong", "hang", "crash"], jobs=2,
                                each=PerTask(1.5))
        assert time.monotonic() - t0 < 20
        recs = {r["method"]: r for r in report.records}
        assert recs["right"]["status"] == "SOLVED" and recs["right"]["check_ok"]
        assert recs["right"]["stats"]["bad_lines"] == 0  # garbage on stdout: test_cli_hashi
        assert "thinking" in recs["right"]["stats"]["stderr"]
        assert recs["wrong"]["status"] == "SOLVED" and not recs["wrong"]["check_ok"]
        assert recs["hang"]["status"] == "UNKNOWN"
        assert recs["hang"]["stats"]["reason"] == "timeout"
        assert "stuck" in recs["hang"]["stats"]["stderr"]
        assert recs["crash"]["status"] == "ERROR" and "no idea" in recs["crash"]["error"]
        kinds = {(d["kind"], d["methods"][0]) for d in report.disagreements}
        assert ("invalid-answer", "wrong") in kinds
        assert ("missed-solution", "hang") in kinds
        assert _none_left(marker)
