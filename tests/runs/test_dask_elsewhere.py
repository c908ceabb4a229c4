"""Dask beyond one checkout: a real scheduler and two workers started in another folder than
the command's, as on a cluster. The command is given relative paths (maps, programs' scripts,
bot files) that mean nothing there, and the workers cannot see one folder of the client's at
all (each runs in a mount namespace of its own with an empty file system over it), as a
machine without a shared folder. Every run gives the records of local processes; a program
the workers cannot reach is refused in one line naming the worker; bot files travel with
their games; workers are prepared and checked for versions at connect; a scheduler with no
worker is said so and waited for a limited time; a missing Dask is one line."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from puzzleproof.executor import ExecutorSpec, open_pool
from puzzleproof.errors import ExecutorError
from tests.conftest import ROOT, pp, timeless

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="mount namespaces (unshare) are Linux's")

DASK = str(Path(sys.executable).parent / "dask")


def _can_hide() -> str | None:
    """Why a worker cannot be given a mount namespace here (None: it can)."""
    if shutil.which("unshare") is None:
        return "no unshare command"
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                            "mount -t tmpfs none /mnt"], capture_output=True, text=True)
    return None if probe.returncode == 0 else f"unshare -m failed: {probe.stderr.strip()}"


def _start(args: list[str], cwd: Path, hide: Path | None = None) -> subprocess.Popen:
    cmd = [DASK, *args]
    if hide is not None:  # an empty file system over the client's folder, for this one
        cmd = ["unshare", "-m", "--propagation", "private", "sh", "-c",
               f'mount -t tmpfs none "{hide}" && exec "$@"', "sh", *cmd]
    return subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def _stop(started: list[subprocess.Popen]) -> None:
    for proc in reversed(started):  # workers first, then the scheduler
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGTERM)
    for proc in reversed(started):
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture(scope="module")
def elsewhere(tmp_path_factory):
    """``(scheduler file, client, hidden folder)``: a scheduler and two single-threaded
    workers started in a folder of their own, the workers blind to ``hidden`` (a folder of
    the client's)."""
    why = _can_hide()
    if why is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(why)
        pytest.skip(why)
    from distributed import Client

    home = tmp_path_factory.mktemp("cluster-home")
    hidden = tmp_path_factory.mktemp("client-only")
    file = home / "scheduler.json"
    started = [_start(["scheduler", "--host", "127.0.0.1", "--port", "0",
                       "--dashboard-address", "127.0.0.1:0", "--scheduler-file", str(file)],
                      home)]
    client = None
    try:
        end = time.monotonic() + 60
        while not file.exists() and time.monotonic() < end:
            time.sleep(0.1)
        for _ in range(2):
            started.append(_start(["worker", "--scheduler-file", str(file), "--nthreads", "1",
                                   "--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0"],
                                  home, hide=hidden))
        client = Client(scheduler_file=str(file), timeout=60)
        client.wait_for_workers(2, timeout=90)
        seen = client.run(os.path.isdir, str(ROOT / "instances"))
        assert list(seen.values()) == [True, True]  # the checkout is there, the cwd is not it
        assert set(client.run(os.getcwd).values()) == {str(home)}
        assert client.run(os.listdir, str(hidden)) and not any(
            client.run(os.listdir, str(hidden)).values())
        yield file, client, hidden
    finally:
        if client is not None:
            client.close()
        _stop(started)


def _records(path: Path, kinds: tuple[str, ...]) -> list[str]:
    """The records of a run, without what may differ between runs (times, hosts, memory),
    sorted (completion order differs)."""
    out = []
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        if rec.get("type") not in kinds:
            continue
        out.append(json.dumps(timeless(rec), sort_keys=True))
    return sorted(out)


def _both(tmp_path: Path, args: list[str], file: Path, kinds: tuple[str, ...],
          out_name: str = "run.jsonl") -> tuple[list[str], list[str]]:
    """The records of ``args`` on two local processes and on the cluster."""
    local, dask = tmp_path / f"local-{out_name}", tmp_path / f"dask-{out_name}"
    a = pp(*args + ["-j", "2", "-o", local], timeout=300)
    b = pp(*args + ["--scheduler-file", file, "-o", dask], timeout=300)
    assert a.returncode == b.returncode, a.stderr + "\n---\n" + b.stderr
    assert a.returncode in (0, 1), a.stderr
    return _records(local, kinds), _records(dask, kinds)


@pytest.mark.slow
def test_skynet_referee_with_a_program(tmp_path, elsewhere):
    """A program given by a relative path (and a built-in bot), every start, two agents: the
    cluster plays the games of local processes, the program's stderr and all."""
    file, _, _ = elsewhere
    bot = f"first={sys.executable} instances/skynet/examples/first-link-bot.py"
    args = ["skynet", "referee", "instances/skynet/ep1/02-star.txt", "--all-starts",
            "--agent", "article,nearest", "--bot-cmd", bot, "--bot", "ep2-slack", "-q"]
    local, dask = _both(tmp_path, args, file, ("record",))
    assert local == dask and len(local) >= 8
    recs = [json.loads(r) for r in dask]
    assert {r["method"].split("/")[0] for r in recs} == {"first", "ep2-slack"}
    assert all("crash" not in json.dumps(r.get("answer")) for r in recs)


def test_a_program_the_workers_cannot_reach_is_refused(tmp_path, elsewhere):
    """The program's script lies in a folder the workers cannot see: the run is refused
    before any game, in one line naming the worker and the file, exit 2."""
    file, _, hidden = elsewhere
    script = hidden / "mybot.py"
    shutil.copy(ROOT / "instances/skynet/examples/first-link-bot.py", script)
    out = tmp_path / "run.jsonl"
    r = pp("skynet", "referee", "instances/skynet/ep1/02-star.txt", "--all-starts",
           "--bot-cmd", f"mine={sys.executable} {script}", "-q", "--scheduler-file", file,
           "-o", out, timeout=300)
    assert r.returncode == 2, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "Dask worker tcp://127.0.0.1:" in lines[0] and f"{script} is not there" in lines[0]
    assert "program 'mine'" in lines[0]
    assert not out.exists() or not [x for x in out.read_text().splitlines()
                                     if '"record"' in x]


@pytest.mark.slow
def test_deathrun_tournament_with_bot_files_the_workers_cannot_see(tmp_path, elsewhere):
    """Bot files in a folder of the client's that the workers cannot see: they travel with
    the games, which the cluster plays as local processes do."""
    file, _, hidden = elsewhere
    bots = hidden / f"bots-{tmp_path.name}"
    bots.mkdir()
    for name in ("student.py", "criminal.py"):
        shutil.copy(ROOT / "instances/deathrun/bots" / name, bots / name)
    args = ["deathrun", "tournament", "--criminals", f"toll,{bots / 'criminal.py'}",
            "--students", f"greedy,{bots / 'student.py'}", "-n", "6", "--seed", "2", "-q"]
    local, dask = _both(tmp_path, args, file, ("deathrun-game",))
    assert local == dask and len(local) == 6
    games = [json.loads(g) for g in dask]
    seats = {s["bot"] for g in games for s in g["seats"]}
    assert {str(bots / "student.py"), str(bots / "criminal.py")} <= seats
    assert not any(g.get("invalid_moves") for g in games), "a bot file failed on a worker"


@pytest.mark.slow
def test_cityclose_crosscheck_on_prepared_workers(tmp_path, elsewhere):
    """Relative map paths, every method: the records of local processes; and every worker
    was prepared at connect (both sets of compiled loops loaded, as 'puzzleproof prepare'
    does, where the cross-check alone needs one)."""
    file, client, _ = elsewhere
    args = ["crosscheck", "cityclose", "instances/cityclose/ring14-s1-0.json",
            "instances/cityclose/grid14-s1-32.json", "-q"]
    local, dask = _both(tmp_path, args, file, ("record", "disagreement", "instance-done"))
    assert local == dask and len([r for r in dask if '"record"' in r]) == 2 * 4

    def warmed() -> list[str]:
        from puzzleproof.verify import cityclose_methods

        return sorted(cityclose_methods._WARM)

    assert set(map(tuple, client.run(warmed).values())) == {("wide", "word")}


@pytest.mark.slow
def test_a_generator_on_the_cluster(tmp_path, elsewhere):
    """``generate hashi``: the same puzzles, whatever runs the attempts."""
    file, _, _ = elsewhere
    args = ["generate", "hashi", "--size", "9x9", "-n", "3", "--seed", "5", "-q"]
    local, dask = _both(tmp_path, args, file, ("hashi-puzzle", "puzzle", "generated"),
                        out_name="set.jsonl")
    a = (tmp_path / "local-set.jsonl").read_text().splitlines()
    b = (tmp_path / "dask-set.jsonl").read_text().splitlines()
    assert len(a) == len(b) >= 3
    assert [timeless(json.loads(x)) for x in a] == [timeless(json.loads(x)) for x in b]


def test_a_scheduler_without_workers_is_said_and_waited_for_a_limited_time(tmp_path):
    """No worker ever joins: the run says so at once (a note of the ``puzzleproof`` logger,
    which the command shows on stderr), waits the limit, then is refused in one line (exit 2
    from the command). The note is read from the logger itself: where it goes depends on
    whether an earlier test in this process ran the command line, which installs the
    command's handler."""
    said: list[str] = []
    hear = logging.Handler()
    hear.emit = lambda record: said.append(record.getMessage())  # type: ignore[method-assign]
    logging.getLogger("puzzleproof").addHandler(hear)
    home = tmp_path / "home"
    home.mkdir()
    file = home / "scheduler.json"
    started = [_start(["scheduler", "--host", "127.0.0.1", "--port", "0",
                       "--dashboard-address", "127.0.0.1:0", "--scheduler-file", str(file)],
                      home)]
    try:
        end = time.monotonic() + 60
        while not file.exists() and time.monotonic() < end:
            time.sleep(0.1)
        t0 = time.monotonic()
        with pytest.raises(ExecutorError, match="no Dask worker joined the scheduler at .* "
                                             "within 1.5 s"):
            with open_pool(ExecutorSpec(scheduler_file=str(file), wait_for_workers=1.5)):
                pass
        waited = time.monotonic() - t0
    finally:
        _stop(started)
        logging.getLogger("puzzleproof").removeHandler(hear)
    assert 1.5 <= waited < 30
    assert any("has no workers yet: waiting up to 1.5 s" in text for text in said), said


def test_an_unreadable_scheduler_file_is_one_line(tmp_path):
    bad = tmp_path / "scheduler.json"
    bad.write_text('{"no": "address"}')
    for f, words in ((bad, "not a Dask scheduler file"),
                     (tmp_path / "absent.json", "cannot read the scheduler file")):
        r = pp("crosscheck", "instances/hashi/small-5x5.txt", "--scheduler-file", f, "-q",
               timeout=300)
        assert r.returncode == 2 and words in r.stderr and str(f) in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr


class _Versions:
    """A client whose workers report the versions (and code digests) given, ``run`` and
    ``scheduler_info`` as distributed's."""

    def __init__(self, versions: dict[str, dict[str, str | None]]) -> None:
        self.versions = versions

    def scheduler_info(self):
        return {"workers": {w: {"nthreads": 1} for w in self.versions}}

    def run(self, fn, *args, on_error="raise"):
        from importlib.metadata import PackageNotFoundError

        if not args:  # code_digest
            return {w: v["code"] for w, v in self.versions.items()}
        return {w: v.get(args[0]) or PackageNotFoundError(args[0])
                for w, v in self.versions.items()}


def test_versions_that_differ_are_named_per_worker():
    from puzzleproof.executor import _installed, _ready, _version_problems, code_digest

    same = {d: _installed(d) for d in ("puzzleproof", "ortools", "python-sat", "numba")}
    same["code"] = code_digest()
    spec = ExecutorSpec(scheduler="tcp://127.0.0.1:1")
    _ready(_Versions({"tcp://a:1": same, "tcp://b:2": same}), spec, ())  # nothing to say
    edited = {**same, "code": "0" * 64}
    with pytest.raises(ExecutorError, match="tcp://b:2 runs other puzzleproof code than this "
                                            "process .the same version"):
        _ready(_Versions({"tcp://a:1": same, "tcp://b:2": edited}), spec, ())
    assert _version_problems(_Versions({"tcp://a:1": same, "tcp://b:2": same})) == []
    other = {**same, "ortools": "9.14.6206", "numba": None}
    found = _version_problems(_Versions({"tcp://a:1": same, "tcp://b:2": other}))
    assert found == [f"tcp://b:2 has OR-Tools 9.14.6206, this process {same['ortools']}",
                     f"tcp://b:2 has numba (not installed), this process {same['numba']}"]


def test_without_dask_the_options_that_need_it_are_one_line(tmp_path):
    """Dask is an extra: without it, --scheduler, --scheduler-file and --dask are refused in
    one line that says how to install it (exit 2)."""
    code = ("import sys; sys.modules['dask'] = sys.modules['distributed'] = None; "
            "from puzzleproof._entry import run; sys.argv[0] = 'puzzleproof'; run()")
    for opt in (["--dask", "2"], ["--scheduler", "tcp://127.0.0.1:1"]):
        r = subprocess.run([sys.executable, "-c", code, "crosscheck",
                            "instances/hashi/small-5x5.txt", "-q", *opt], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 2, r.stderr
        assert r.stderr.strip().splitlines() == [
            "puzzleproof: error: --scheduler, --scheduler-file and --dask need Dask, which is not "
            "installed: pip install 'puzzleproof[dask]'"], r.stderr
