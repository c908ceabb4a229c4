"""Processes named by (pid, start time), read from /proc, so that a reused pid is not
mistaken for the one a test started: a process's state, a process tree, waiting for processes
to be gone (the process-hygiene tests of this folder)."""

from __future__ import annotations

import os
import signal
import time

GRACE = 5.0  # "none of its descendants survives 5 s later"



def stat_of(pid: int) -> tuple[str, int, int] | None:
    """(state, ppid, start time) of a process, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            f = fh.read().rsplit(b")", 1)[1].split()
        return f[0].decode(), int(f[1]), int(f[19])
    except (OSError, IndexError, ValueError):
        return None


def tree_of(root: int) -> set[tuple[int, int]]:
    """The live descendants of ``root``, by parent links, as (pid, start time)."""
    kids: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = stat_of(int(name))
            if st and st[0] not in ("Z", "X"):
                kids.setdefault(st[1], []).append(int(name))
    out, todo = set(), list(kids.get(root, []))
    while todo:
        p = todo.pop()
        st = stat_of(p)
        if st:
            out.add((p, st[2]))
        todo.extend(kids.get(p, []))
    return out


def alive(proc: tuple[int, int]) -> bool:
    st = stat_of(proc[0])
    return st is not None and st[2] == proc[1] and st[0] not in ("Z", "X")


def wait_gone(procs_: set[tuple[int, int]], within: float = GRACE) -> tuple[list, float]:
    """Wait until none of ``procs_`` lives; (the ones still alive, seconds waited)."""
    t0 = time.monotonic()
    while True:
        left = [p for p in procs_ if alive(p)]
        if not left or time.monotonic() - t0 > within:
            return left, time.monotonic() - t0
        time.sleep(0.02)


def kill_all(procs_) -> None:
    for pid, _ in procs_:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
