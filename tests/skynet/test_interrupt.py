"""Ctrl-C of a batch referee leaves no program behind, not even one its bot forked
(issue 29, item 8): pool workers leave Ctrl-C to the parent, and a program's process group
is listed with the guardian before the program runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from tests.conftest import shared_path

BOT = textwrap.dedent('''
    n, l, e = map(int, input().split())
    links = [tuple(map(int, input().split())) for _ in range(l)]
    gw = {int(input()) for _ in range(e)}
    cands = sorted(x for x in links if x[0] in gw or x[1] in gw)
    while True:
        si = int(input())
        x = ([c for c in cands if si in c] or cands)[0]
        cands.remove(x)
        print(*x, flush=True)
''')


def running(marker: str) -> list[str]:
    out = subprocess.run(["ps", "-ww", "-eo", "pid,stat,args"], capture_output=True,
                         text=True).stdout
    return [ln for ln in out.splitlines() if marker in ln and " Z" not in ln.split()[1]
            and "bash -c" not in ln and "ps -ww" not in ln]


def kill_all(lines: list[str]) -> None:
    for ln in lines:
        try:
            os.kill(int(ln.split()[0]), signal.SIGKILL)
        except (OSError, ValueError):
            pass


def test_a_program_forked_child_dies_when_its_runner_is_killed_before_registering():
    """The runner dies right after starting the program, before it could list the group
    itself: the program's own child (not reached by the parent-death signal) still goes."""
    marker = f"{os.getpid() % 1000 + 1000}.{int(time.time()) % 997}"
    code = textwrap.dedent(f'''
        import os, subprocess, time
        from puzzleproof import processes
        pre, _ = processes.child_setup(None)
        subprocess.Popen(["bash", "-c", "sleep {marker} & exec sleep {marker}1"],
                         start_new_session=True, preexec_fn=pre)
        time.sleep(0.5)  # bash has forked its sleep
        os._exit(0)  # no guardian_register, no clean-up
    ''')
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    deadline = time.monotonic() + 10
    while running(f"sleep {marker}") and time.monotonic() < deadline:
        time.sleep(0.1)
    left = running(f"sleep {marker}")
    kill_all(left)
    assert left == []


@pytest.mark.slow
def test_ctrl_c_of_a_batch_referee_leaves_nothing_running(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(BOT)
    maps = [str(shared_path(f"instances/skynet/ep2/{n}.txt"))
            for n in ("01-robust-double-gateways", "05-complex-mesh")]
    for k, delay in enumerate((1.0, 1.6, 2.2)):
        marker = f"{os.getpid() % 1000 + 2000 + k}"
        cmd = [sys.executable, "-m", "puzzleproof", "skynet", "referee", *maps,
               "--all-starts", "--agent", "article,nearest", "-q", "-j", "2", "--bot-cmd",
               f"b=bash -c 'sleep {marker} & exec {sys.executable} {bot}'"]
        proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C sends: the whole group
        proc.wait(timeout=60)
        deadline = time.monotonic() + 10
        while running(f"sleep {marker}") and time.monotonic() < deadline:
            time.sleep(0.2)
        left = running(f"sleep {marker}")
        kill_all(left)
        assert left == [], (delay, left)
