"""Lines that share a prefix share the run of a Python program (forked where lines branch):
the same verdicts, positions and certificates as fresh runs, losses confirmed by a fresh run,
fall-backs when a program cannot be forked, and nothing left running."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import pytest

from puzzleproof.games.program import Limits, Program
from puzzleproof.clock import Deadline
from puzzleproof.cli import main
from puzzleproof.formats.skynet import read_map
from puzzleproof.models.skynet import replay
from puzzleproof.models.skynet_strategy import check_player_strategy
from puzzleproof.games.skynet_adversary import ProgramPlayer, adversary
from puzzleproof.games.forking import fork_host_command
from tests.conftest import shared_path

# cut the agent's gateway link; else a gateway link of the double-gateway node nearest the
# agent; else the gateway link of the node nearest the agent (breadth-first, low ids first);
# it writes a debug line to stderr each turn, as CodinGame players do
GOOD = textwrap.dedent('''
    import sys
    from collections import deque
    n, l, e = map(int, input().split())
    adj = [set() for _ in range(n)]
    for _ in range(l):
        a, b = map(int, input().split()); adj[a].add(b); adj[b].add(a)
    gates = {int(input()) for _ in range(e)}
    def gl(v):
        return sorted(g for g in adj[v] if g in gates)
    while True:
        si = int(input())
        print("debug: agent at", si, file=sys.stderr)
        pick = None
        if gl(si):
            pick = (si, gl(si)[0])
        else:
            seen, queue, order = {si}, deque([si]), []
            while queue:
                v = queue.popleft(); order.append(v)
                for w in sorted(adj[v]):
                    if w not in seen and w not in gates:
                        seen.add(w); queue.append(w)
            doubles = [v for v in order if len(gl(v)) >= 2]
            singles = [v for v in order if gl(v)]
            v = (doubles or singles or [None])[0]
            if v is None:
                v = next(u for u in range(n) if gl(u))
            pick = (v, gl(v)[0])
        adj[pick[0]].discard(pick[1]); adj[pick[1]].discard(pick[0])
        print(*pick, flush=True)
''')

# cuts the agent's gateway link; else the first or the last gateway link in sorted order,
# depending on whether the agent last moved to a higher node: a bot with a history of its own
HISTORY = textwrap.dedent('''
    n, l, e = map(int, input().split())
    adj = [set() for _ in range(n)]
    for _ in range(l):
        a, b = map(int, input().split()); adj[a].add(b); adj[b].add(a)
    gates = {int(input()) for _ in range(e)}
    last = -1
    while True:
        si = int(input())
        near = sorted(g for g in adj[si] if g in gates)
        if near:
            pick = (si, near[0])
        else:
            links = sorted((u, g) for u in range(n) if u not in gates
                           for g in adj[u] if g in gates)
            pick = links[0] if si > last else links[-1]
        last = si
        adj[pick[0]].discard(pick[1]); adj[pick[1]].discard(pick[0])
        print(*pick, flush=True)
''')

# ignores the fork host's signal: every fork request goes unanswered
DEAF = "import signal\nsignal.signal(signal.SIGUSR1, signal.SIG_IGN)\n" + GOOD


def official(name: str):
    path = shared_path(f"instances/skynet/ep2/{name}.txt")
    return read_map(path.read_text(), path.name)


def player(path, fork: bool, name: str = "prog") -> ProgramPlayer:
    return ProgramPlayer(Program(name, tuple([sys.executable, str(path)]),
                                 limits=Limits(first=10, turn=5)),
                         parallel=2, fork_lines=None if fork else False)


def still_running(marker: str, seconds: float = 5.0) -> list[str]:
    """The processes of ``marker`` still there after ``seconds`` (a copy killed with SIGKILL
    may wait for the CPU a moment before it is gone, on a loaded machine)."""
    deadline = time.monotonic() + seconds
    while left_running(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left_running(marker)


def left_running(marker: str) -> list[str]:
    out = subprocess.run(["ps", "-ww", "-eo", "pid,stat,args"], capture_output=True, text=True).stdout
    return [ln for ln in out.splitlines() if marker in ln and " Z" not in ln
            and "ps -eo" not in ln]


def test_python_programs_are_forked_and_others_are_not(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(GOOD)
    assert fork_host_command(["python3", str(bot), "x"])[-2:] == [str(bot), "x"]
    assert fork_host_command(["/usr/bin/python3.11", "-u", str(bot)]) is not None
    assert fork_host_command([sys.executable, "-m", "bot", "x"])[-3:] == ["-m", "bot", "x"]
    # a script whose #! line names Python (console scripts such as puzzleproof), directly
    # or through env; the interpreter and the host run it
    for line in (f"#!{sys.executable}", "#!/usr/bin/env python3"):
        script = tmp_path / "mybot"
        script.write_text(line + "\n" + GOOD)
        script.chmod(0o755)
        argv = fork_host_command([str(script), "y"])
        assert argv is not None and argv[-2:] == [str(script), "y"]
        assert os.path.basename(argv[0]).startswith("python")
    script.chmod(0o644)  # not executable: the kernel would not run it, nor do we
    assert fork_host_command([str(script)]) is None
    shell = tmp_path / "bot.sh"
    shell.write_text("#!/bin/sh\nexec python3 bot.py\n")
    assert fork_host_command([str(shell)]) is None
    assert fork_host_command([sys.executable, "-c", "print(1)"]) is None
    assert fork_host_command([sys.executable, "-m", "-x"]) is None
    assert fork_host_command(["node", str(bot)]) is None
    assert fork_host_command(["python3", str(tmp_path / "missing.py")]) is None
    assert fork_host_command(["no-such-command-anywhere"]) is None


@pytest.mark.slow
def test_forked_lines_judge_exactly_like_fresh_runs(tmp_path):
    bot = tmp_path / "good_bot.py"
    bot.write_text(GOOD)
    for name in ("01-robust-double-gateways", "03-leading-up-to-double-gateway"):
        m = official(name)
        for start in [v for v in range(m.n) if v not in m.gateways][:6]:
            fresh = adversary(m, "ep2", start, player(bot, False), deadline=Deadline(120))
            forked = adversary(m, "ep2", start, player(bot, True), deadline=Deadline(120))
            assert forked.verdict == fresh.verdict != "UNKNOWN", (name, start)
            assert forked.positions == fresh.positions
            assert fresh.forks == 0
            if forked.verdict == "PROVED":
                if forked.lines > 1:
                    assert forked.forks > 0 and forked.replays < fresh.replays
                assert forked.certificate == fresh.certificate
                assert check_player_strategy(m, "ep2", start, forked.certificate) == []
            else:  # a loss found in a forked run stands as a fresh run played it
                assert replay(forked.record) == []
                assert forked.record.turns == fresh.record.turns
                assert "debug: agent at" in (forked.stderr or "")
    assert still_running(str(tmp_path)) == []


@pytest.mark.slow
def test_a_history_dependent_program_is_judged_line_by_line_with_forks(tmp_path):
    """Line by line, fresh runs of this program reach about 460 line nodes in 20 s on map 03
    start 8; forked, the whole search (about 2,500) ends PROVED in about 12 s."""
    bot = tmp_path / "history_bot.py"
    bot.write_text(HISTORY)
    m = official("03-leading-up-to-double-gateway")
    r = adversary(m, "ep2", 8, player(bot, True), deadline=Deadline(240))
    assert (r.verdict, r.mode, r.history_dependent) == ("PROVED", "per-line", True), \
        r.summary()
    assert r.forks > 1000 and r.replays < 100
    assert check_player_strategy(m, "ep2", 8, r.certificate) == []
    lost = adversary(m, "ep2", 11, player(bot, True), deadline=Deadline(240))
    assert lost.verdict == "BEATEN" and replay(lost.record) == []
    assert still_running(str(tmp_path)) == []


@pytest.mark.slow
def test_a_program_that_cannot_be_forked_is_run_afresh(tmp_path):
    bot = tmp_path / "deaf_bot.py"
    bot.write_text(DEAF)
    m = official("01-robust-double-gateways")
    p = player(bot, True)
    r = adversary(m, "ep2", m.start, p, deadline=Deadline(120))
    ref = adversary(m, "ep2", m.start, player(bot, False), deadline=Deadline(120))
    assert r.verdict == ref.verdict == "PROVED" and r.positions == ref.positions
    assert p.fork_lines is False and p.fork_failures >= 3
    assert still_running(str(tmp_path)) == []


@pytest.mark.slow
def test_cli_forks_by_default_and_not_with_no_fork(tmp_path, capsys):
    bot = tmp_path / "good_bot.py"
    bot.write_text(GOOD)
    path = shared_path("instances/skynet/ep2/03-leading-up-to-double-gateway.txt")
    args = ["skynet", "referee", str(path), "--agent", "worst", "--bot-cmd",
            f"good={sys.executable} {bot}"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "PROVED" in text and "forked at a branch" in text
    assert main(args + ["--no-fork"]) == 0
    text = capsys.readouterr().out
    assert "PROVED" in text and "forked at a branch" not in text
    assert still_running(str(tmp_path)) == []


def test_killing_the_referee_leaves_no_forked_copy(tmp_path):
    bot = tmp_path / "good_bot.py"
    bot.write_text(GOOD)
    path = shared_path("instances/skynet/ep2/05-complex-mesh.txt")
    proc = subprocess.Popen([sys.executable, "-m", "puzzleproof", "skynet", "referee",
                             str(path), "--agent", "worst", "--start", "34", "--bot-cmd",
                             f"good={sys.executable} {bot}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # the referee, the host and copies at work; copies come and go within milliseconds, so
    # the count that ended the wait is the one asserted (a second look once found only two)
    deadline, running = time.monotonic() + 60, []
    while time.monotonic() < deadline:
        running = left_running(str(bot))
        if len(running) >= 3:
            break
        time.sleep(0.05)
    assert len(running) >= 3, running
    os.kill(proc.pid, 9)
    proc.wait()
    deadline = time.monotonic() + 10
    while left_running(str(bot)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert left_running(str(bot)) == []


@pytest.mark.slow
def test_console_scripts_and_modules_are_forked_and_judged_alike(tmp_path, monkeypatch):
    """A script whose #! line names Python (as the console script ``puzzleproof`` is) and
    ``python -m module`` run under the fork host: forked where lines branch, with the same
    verdict, positions and certificate as fresh runs of the plain script."""
    script = tmp_path / "goodbot"
    script.write_text(f"#!{sys.executable}\n" + GOOD)
    script.chmod(0o755)
    (tmp_path / "goodmod.py").write_text(GOOD)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    m = official("03-leading-up-to-double-gateway")
    ref = adversary(m, "ep2", 8, player(tmp_path / "goodmod.py", False), deadline=Deadline(120),
                    share=False)
    assert ref.verdict == "PROVED" and ref.forks == 0
    for command in ([str(script)], [sys.executable, "-m", "goodmod"]):
        p = ProgramPlayer(Program("prog", tuple(command),
                                  limits=Limits(first=10, turn=5)), parallel=2)
        assert p.forking
        r = adversary(m, "ep2", 8, p, deadline=Deadline(120), share=False)
        assert r.verdict == "PROVED" and r.forks > 0, (command, r.summary())
        assert r.positions == ref.positions and r.certificate == ref.certificate
    assert still_running(str(tmp_path)) == []


@pytest.mark.slow
def test_a_forked_program_search_ends_at_its_time_limit(tmp_path):
    """Map 05 takes minutes from one start: the search stops at its limit (with a generous
    margin for the program's start-up on a loaded machine), UNKNOWN with its counts."""
    bot = tmp_path / "good_bot.py"
    bot.write_text(GOOD)
    m = official("05-complex-mesh")
    r = adversary(m, "ep2", 34, player(bot, True), deadline=Deadline(3), share=False)
    assert r.verdict == "UNKNOWN" and "time limit" in r.note and r.forks > 0
    assert r.seconds < 3 * 1.1 + 0.2 + 3
    assert still_running(str(tmp_path)) == []


def numbered(body: str, second_run: str) -> str:
    """``body`` run as a program that numbers its runs from the start (a file per run in
    the folder given as its argument) and does ``second_run`` first in its second one (the
    fresh replay of the first line; forked copies are not runs from the start)."""
    return textwrap.dedent(f'''
        import os, sys, time
        k = 1
        while True:
            try:
                os.close(os.open(os.path.join(sys.argv[1], f"run-{{k}}"),
                                 os.O_CREAT | os.O_EXCL))
                break
            except FileExistsError:
                k += 1
        if k == 2:
            {second_run}
    ''') + body


def numbered_player(tmp_path, second_run: str) -> ProgramPlayer:
    bot = tmp_path / "numbered_bot.py"
    bot.write_text(numbered(GOOD, second_run))
    runs = tmp_path / "runs"
    runs.mkdir()
    return ProgramPlayer(Program("prog", tuple([sys.executable, str(bot), str(runs)]),
                                 limits=Limits(first=2, turn=5)), parallel=2)


@pytest.mark.slow
def test_a_fresh_replay_out_of_time_beside_the_lines_is_played_again_alone(tmp_path):
    """The fresh replay of the first line runs beside the forked lines; when it runs out of
    time (here: the program's second run sleeps past the first turn's limit) it is no
    evidence that forks answer otherwise: it is played again alone, and the forked search
    stands (before, every line was run afresh)."""
    p = numbered_player(tmp_path, "time.sleep(6)")
    m = official("03-leading-up-to-double-gateway")
    r = adversary(m, "ep2", 8, p, deadline=Deadline(120), share=False)
    assert r.verdict == "PROVED", r.summary()
    assert "played again alone" in r.note and "set aside" not in r.note
    assert r.forks > 0 and r.replays == 3  # the first line, its replay, and again
    assert check_player_strategy(m, "ep2", 8, r.certificate) == []
    assert len(os.listdir(tmp_path / "runs")) == 3
    assert still_running(str(tmp_path)) == []


@pytest.mark.slow
def test_a_fresh_replay_that_fails_is_a_loss_as_it_played(tmp_path):
    """A fresh run from the start is the program as a user runs it: when the replay of the
    first line fails there (here: the second run exits at once), the start is BEATEN with
    that run's record and standard error, not judged again with fresh runs."""
    p = numbered_player(tmp_path, "sys.exit('the second run gives up')")
    m = official("03-leading-up-to-double-gateway")
    r = adversary(m, "ep2", 8, p, deadline=Deadline(120), share=False)
    assert r.verdict == "BEATEN", r.summary()
    assert r.record.reason not in ("agent-reached-gateway", "init-timeout", "timeout")
    assert r.record.turns[-1].cut is None and replay(r.record) == []
    assert "the second run gives up" in (r.stderr or "")
    assert "set aside" not in r.note
    assert still_running(str(tmp_path)) == []
