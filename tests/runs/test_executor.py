"""Batches on local processes and on a real Dask cluster (issue 19): the same records whatever
runs them, a worker killed mid-run loses no task, a run begun on Dask is finished locally, a
hung task is an UNKNOWN record and a task whose worker keeps dying an ERROR record."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from puzzleproof.executor import ExecutorSpec, TaskFailure, guarded_call, open_pool
from puzzleproof.result import Result, Status
from puzzleproof.method import Method
from puzzleproof.verify.crosscheck import Instance, PuzzleKind, run_crosscheck
from tests.conftest import PP, ROOT, pp, shared_path



def _coelho(n: int) -> list[str]:
    folder = shared_path("instances/hashi/coelho2019/100")
    return [str(p) for p in sorted(folder.glob("Hs_16_100_25_00_*.has"))[:n]]


def _records(path: Path) -> list[dict]:
    """The run's records; its summary line (with its exit status, said by the command that
    ran it) is not a record of a task."""
    return [r for r in (json.loads(x) for x in path.read_text().splitlines() if x.strip())
            if r.get("type") != "run-summary"]


def _comparable(rec: dict) -> dict:
    """A record without what may differ between runs: timings, memory used (and hosts)."""
    rec = {k: v for k, v in rec.items() if k not in ("wall_time", "host")}
    if isinstance(rec.get("stats"), dict):
        rec["stats"] = {k: v for k, v in rec["stats"].items()
                        if not any(w in k for w in ("time", "seconds", "rss"))}
    return rec


def _key(rec: dict) -> str:
    return json.dumps(rec, sort_keys=True)


def _dask(*args: str) -> subprocess.Popen:
    return subprocess.Popen([str(Path(sys.executable).parent / "dask"), *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A real Dask cluster on 127.0.0.1, started with Dask's own commands as a user would: a
    scheduler and two single-threaded workers (each under its nanny)."""
    from distributed import Client

    file = tmp_path_factory.mktemp("dask") / "scheduler.json"
    started = [_dask("scheduler", "--host", "127.0.0.1", "--port", "0",
                     "--dashboard-address", "127.0.0.1:0", "--scheduler-file", str(file))]
    client = None
    try:
        end = time.monotonic() + 60
        while not file.exists() and time.monotonic() < end:
            time.sleep(0.1)
        for _ in range(2):
            started.append(_dask("worker", "--scheduler-file", str(file), "--nthreads", "1",
                                 "--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0"))
        client = Client(scheduler_file=str(file), timeout=60)
        client.wait_for_workers(2, timeout=60)
        yield client.scheduler.address, client
    finally:
        if client is not None:
            client.close()
        for proc in reversed(started):  # workers first, then the scheduler
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in reversed(started):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@pytest.mark.slow
def test_dask_gives_the_records_of_local_processes(tmp_path, cluster):
    address, _ = cluster
    files = _coelho(4)
    local, dask = tmp_path / "local.jsonl", tmp_path / "dask.jsonl"
    # deterministic limits (a conflict budget, a node budget), small enough to run out
    common = ["crosscheck", "hashi", *files, "--method", "sat,article", "--conflicts", "10",
              "--nodes", "5", "-q"]
    a = pp(*common + ["-j", "2", "-o", str(local)])
    b = pp(*common + ["--scheduler", address, "-o", str(dask)])
    assert a.returncode == b.returncode and a.returncode in (0, 1), a.stderr + b.stderr
    ra = sorted(map(_key, map(_comparable, _records(local))))
    rb = sorted(map(_key, map(_comparable, _records(dask))))
    assert ra == rb
    recs = [r for r in _records(local) if r["type"] == "record"]
    assert len(recs) == 4 * 2
    statuses = {r["status"] for r in recs}
    assert "UNKNOWN" in statuses and statuses & {"UNIQUE", "MULTIPLE", "SOLVED"}, statuses
    def shown(out: str) -> list[str]:  # the table and disagreements (in completion order),
        # times and file names aside
        out = re.sub(r"\d+\.\d+", "", out.replace(str(local), "").replace(str(dask), ""))
        return sorted(out.splitlines())

    assert shown(a.stdout) == shown(b.stdout)


SLOW_SOLVER = """
import sys, time
width, height = int(input()), int(input())
rows = [input() for _ in range(height)]
time.sleep(1.0)
print("# no answer")  # a comment line: no bridge, not garbage
"""


def _wait_for(path: Path, n: int, proc: subprocess.Popen, limit: float = 60) -> None:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if path.exists() and sum(1 for x in path.read_text().splitlines()
                                 if '"record"' in x) >= n:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError(f"fewer than {n} records in {path} after {limit} s")


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_no_task(tmp_path, cluster):
    address, client = cluster
    files = _coelho(4)
    bot = tmp_path / "slow.py"
    bot.write_text(SLOW_SOLVER)
    target = tmp_path / "run.jsonl"
    proc = subprocess.Popen(PP + ["crosscheck", "hashi", *files, "--method", "article",
                                  "--bot-cmd", f"slow={sys.executable} {bot}", "-q",
                                  "--scheduler", address, "-o", str(target)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        _wait_for(target, 1, proc)
        busy = {w for w, keys in client.processing().items() if keys}
        while not busy:  # a slow task is running somewhere
            time.sleep(0.05)
            busy = {w for w, keys in client.processing().items() if keys}
        pids = client.run(os.getpid)
        victim = pids[sorted(busy)[0]]
        os.kill(victim, signal.SIGKILL)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    recs = [r for r in _records(target) if r["type"] == "record"]
    pairs = [(r["instance"], r["method"]) for r in recs]
    assert len(pairs) == len(set(pairs)) == 4 * 2, pairs
    assert proc.returncode in (0, 1), err
    # the killed task ran again on a worker: no task is an error
    assert all(r["status"] != "ERROR" for r in recs), recs
    client.wait_for_workers(2, timeout=60)  # the nanny restarts the killed worker


@pytest.mark.slow
def test_a_run_begun_on_dask_is_finished_by_local_processes(tmp_path, cluster):
    address, _ = cluster
    files = _coelho(6)
    bot = tmp_path / "slow.py"
    bot.write_text(SLOW_SOLVER.replace("1.0", "0.3"))
    target, whole = tmp_path / "run.jsonl", tmp_path / "whole.jsonl"
    common = ["crosscheck", "hashi", *files, "--method", "sat,article", "--bot-cmd",
              f"slow={sys.executable} {bot}", "-q"]
    proc = subprocess.Popen(PP + common + ["--scheduler", address, "-o", str(target)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        _wait_for(target, 4, proc)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 143, err
    first = [r for r in _records(target) if r["type"] == "record"]
    assert 4 <= len(first) < 6 * 3
    done = pp(*common + ["-j", "2", "--resume", "-o", str(target)])
    assert done.returncode == 1, done.stderr  # the slow program answers nothing: a disagreement
    recs = _records(target)
    tasks = [(r["instance"], r["method"]) for r in recs if r["type"] == "record"]
    assert len(tasks) == len(set(tasks)) == 6 * 3
    assert [r for r in recs if r["type"] == "record"][:len(first)] == first  # kept as written
    assert pp(*common + ["-j", "1", "-o", str(whole)]).returncode == 1
    assert sorted(map(_key, map(_comparable, recs))) == \
        sorted(map(_key, map(_comparable, _records(whole))))


# -- in this process: the hang limit and dying workers, on local processes --------------------

def _sleeps(data, *, deadline):
    time.sleep(60)  # ignores its limit


def _sleeps_plain(data):
    time.sleep(60)  # ignores its limit


def _answers(data, *, deadline):
    return Result("toy", Status.SOLVED, answer=[data], solver="echo")


def _kills_its_process(data, *, deadline):
    os.kill(os.getpid(), signal.SIGKILL)


def _no_violation(data, answer):
    return []


def _same(answer):
    return answer


def _kind(**methods) -> PuzzleKind:
    return PuzzleKind("toy", {n: Method(n, "heuristic", run=f) for n, f in methods.items()},
                      check=_no_violation, canon=_same)


def test_a_hung_task_is_an_unknown_record_naming_its_limit(tmp_path):
    kind = _kind(hangs=_sleeps, fine=_answers)
    t0 = time.monotonic()
    report = run_crosscheck(kind, [Instance("a", 1), Instance("b", 2)], ["hangs", "fine"],
                            tmp_path / "r.jsonl", jobs=2, hang_limit=0.5)
    assert time.monotonic() - t0 < 30
    by = {(r["instance"], r["method"]): r for r in report.records}
    assert len(by) == 4
    for inst in "ab":
        assert by[(inst, "hangs")]["status"] == "UNKNOWN"
        assert "hang limit of 0.5 s" in by[(inst, "hangs")]["error"]
        assert by[(inst, "fine")]["status"] == "SOLVED"


def test_a_task_whose_worker_keeps_dying_is_an_error_record(tmp_path):
    kind = _kind(dies=_kills_its_process, fine=_answers)
    target = tmp_path / "r.jsonl"
    report = run_crosscheck(kind, [Instance("a", 1), Instance("b", 2)], ["dies", "fine"],
                            target, jobs=ExecutorSpec(jobs=2, retries=1))
    recs = [r for r in _records(target) if r["type"] == "record"]
    assert sorted((r["instance"], r["method"]) for r in recs) == \
        [("a", "dies"), ("a", "fine"), ("b", "dies"), ("b", "fine")]
    dead = [r for r in report.records if r["method"] == "dies"]
    assert all(r["status"] == "ERROR" and "died 2 times" in r["error"] for r in dead)
    assert "task dies on a" in next(r for r in dead if r["instance"] == "a")["error"]
    assert all(r["status"] == "SOLVED" for r in report.records if r["method"] == "fine")


def test_guarded_call_returns_and_raises_as_the_function_does():
    assert guarded_call(divmod, (7, 2), 10.0) == (3, 1)
    with pytest.raises(ZeroDivisionError):
        guarded_call(divmod, (7, 0), 10.0)
    with open_pool(1) as pool:
        got = dict(pool.stream(_sleeps_plain, [1], args=lambda x: (x,), hang_limit=0.2))
    assert isinstance(got[1], TaskFailure) and got[1].kind == "timeout"


@pytest.mark.slow
def test_dask_n_starts_a_local_cluster_and_tears_it_down(tmp_path):
    from puzzleproof.verify.hashi_methods import hashi_kind, load_hashi_instances

    examples = str(ROOT / "instances" / "hashi" / "examples.jsonl")
    target = tmp_path / "run.jsonl"
    r = pp("crosscheck", "hashi", examples, "--method", "sat,article", "--dask", "2", "-q",
           "-o", str(target))
    assert r.returncode == 0, r.stderr
    here = run_crosscheck(hashi_kind(), load_hashi_instances([examples]), ["sat", "article"],
                          tmp_path / "here.jsonl", jobs=1)
    assert sorted(map(_key, map(_comparable, _records(target)))) == \
        sorted(map(_key, map(_comparable, _records(tmp_path / "here.jsonl"))))
    assert len(here.records) == 4
    # the cluster's processes went with the command (the session fixture checks the rest)
