"""Shared test helpers: where the project and outside data live (and how the absence of
outside data is handled), the command run in this process or in a fresh one, and the check
that no test leaves a process behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
INSTANCES = ROOT / "instances"
#: the command as a fresh process runs it
PP = [sys.executable, "-m", "puzzleproof"]
#: prints whether numba's cache lacks city closing's loops (word, wide) and the Episode 1
#: search's kernels: "True True True" on an empty cache, "False False False" once prepared
COLD_CHECK = ("from puzzleproof.verify.cityclose_methods import _cache_cold; "
              "from puzzleproof.encoders.skynet_fewest import kernels_cold; "
              "print(_cache_cold('word'), _cache_cold('wide'), kernels_cold())")


def run(capsys, *args) -> tuple[int, str, str]:
    """The command in this process, as a user types it: ``(exit code, stdout, stderr)``."""
    from puzzleproof.cli import main

    code = main([str(a) for a in args])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def spread(fn, items, workers: int = 2) -> list:
    """``fn`` over every item (a list from each), on ``workers`` forked processes: a long
    property check over many seeds shares the machine's cores. ``fn`` is a module-level
    function (the children are forks: the test module is already loaded in them)."""
    import concurrent.futures
    import multiprocessing

    items = list(items)
    chunks = [items[k::workers] for k in range(workers)]
    ctx = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=ctx) as pool:
        return [x for part in pool.map(fn, chunks) for x in part]


def pp(*args, timeout: float = 120, cwd: Path = ROOT,
       env: dict | None = None) -> subprocess.CompletedProcess:
    """The command in a fresh process (text output captured), from the project's root."""
    return subprocess.run(PP + [str(a) for a in args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env=env)


def timeless(x):
    """``x`` without what may differ between runs: times (a city-closing search's layers
    carry seconds too), hosts, memory."""
    if isinstance(x, dict):
        return {k: timeless(v) for k, v in x.items()
                if k not in ("host", "layers") and not k.endswith(("_s", "_ms")) and not any(
                    w in k for w in ("time", "seconds", "rss"))}
    if isinstance(x, list):
        return [timeless(v) for v in x]
    return x


def shared_path(rel: str) -> Path:
    """A path under ``../shared``; skip when it is absent, but fail under ``CI=true``."""
    path = SHARED / rel
    if not path.exists():
        msg = (f"{path} is absent: outside data lives in ../shared beside the project "
               "(docs/DATA.md says what it holds and how to get it)")
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    return path


# --------------------------------------------------------------------------------------------
# No test leaves a process behind (issue 15): the test run's own descendants are compared at
# its start and end; a process that appeared and still lives after a grace period fails the
# session (it is then killed, so the failure itself leaves nothing running either).

_LEFT_BEHIND_GRACE = 5.0


def _live_descendants(root: int) -> dict[tuple[int, int], str]:
    """Live (not zombie) descendants of ``root`` by parent links: (pid, start time) -> cmd."""
    table: dict[int, tuple[int, int, str]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                f = fh.read().rsplit(b")", 1)[1].split()
            if f[0] in (b"Z", b"X"):
                continue
            with open(f"/proc/{name}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode(errors="replace").strip()
            table[int(name)] = (int(f[1]), int(f[19]), cmd[:160])
        except (OSError, IndexError, ValueError):
            continue
    kids: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        kids.setdefault(ppid, []).append(pid)
    out, todo = {}, list(kids.get(root, []))
    while todo:
        p = todo.pop()
        if p in table:
            out[(p, table[p][1])] = table[p][2]
        todo.extend(kids.get(p, []))
    return out


@pytest.fixture(scope="session", autouse=True)
def no_process_left_behind():
    if not sys.platform.startswith("linux"):
        yield
        return
    me = os.getpid()
    before = set(_live_descendants(me))
    yield
    from puzzleproof import processes

    def new() -> dict[tuple[int, int], str]:
        helpers = set(processes.helper_pids())  # the guardian lives as long as this process
        return {k: c for k, c in _live_descendants(me).items()
                if k not in before and k[0] not in helpers}

    end = time.monotonic() + _LEFT_BEHIND_GRACE
    left = new()
    while left and time.monotonic() < end:
        time.sleep(0.1)
        left = new()
    if left:
        for pid, _ in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        pytest.fail(f"{len(left)} process(es) started by the tests still alive at the end: "
                    + "; ".join(f"{p} {c}" for (p, _), c in sorted(left.items())[:10]),
                    pytrace=False)


@pytest.fixture
def starts(monkeypatch):
    """Counts the program processes started (every route goes through ``runner.start``)."""
    from puzzleproof.games import runner

    count = [0]
    real = runner.start

    def counted(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "start", counted)
    return count
