"""Pools under each start method as the interpreter's unset default (fork, forkserver,
Linux's default from Python 3.14, and spawn): the same records as one process, and workers
that die with their parent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, timeless
from tests.runs.proctree import kill_all, stat_of, tree_of, wait_gone

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="/proc, process groups and parent-death signals are "
                                       "tested on Linux")

PY = sys.executable

_AS_DEFAULT = """
import json, multiprocessing, sys, time
import multiprocessing.context as mpc

sys.path.insert(0, {root!r})
# {method} as the interpreter's own default, as a newer Python (forkserver, 3.14 on Linux)
# or another platform (spawn) has it: nothing chose a method, so get_start_method(allow_none=
# True) is None and the pool must resolve it itself
mpc._default_context._default_context = mpc._concrete_contexts[{method!r}]


def batch(jobs):
    from puzzleproof.executor import ExecutorSpec
    from puzzleproof.verify.crosscheck import run_crosscheck
    from puzzleproof.verify.hashi_methods import hashi_kind, load_hashi_instances

    inst = load_hashi_instances([{examples!r}])
    report = run_crosscheck(hashi_kind(), inst, ["sat", "article"], None,
                            jobs=ExecutorSpec(jobs=jobs))
    return sorted(json.dumps({{k: v for k, v in r.items() if "time" not in k and k != "stats"}},
                             sort_keys=True) for r in report.records)


if __name__ == "__main__":
    from puzzleproof import processes

    assert multiprocessing.get_start_method(allow_none=True) is None
    pooled = batch(2)
    print(json.dumps({{"same": pooled == batch(1), "records": len(pooled),
                      "method": multiprocessing.get_start_method()}}), flush=True)
    pool = processes.process_pool(2)
    futs = [pool.submit(time.sleep, 100) for _ in range(2)]
    end = time.monotonic() + 60
    while len(processes._rolled(pool)) < 2 and time.monotonic() < end:
        time.sleep(0.05)
    print(*[p.pid for p in processes._rolled(pool)], flush=True)
    time.sleep(100)
"""


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_every_pool_under_each_start_method_as_the_default(tmp_path, method):
    """Under ``fork``, ``forkserver`` (Linux's default from Python 3.14) and ``spawn`` (macOS,
    Windows), each as the interpreter's unset default: a cross-check batch on two workers
    gives the records of one process, and when the caller is killed with SIGKILL its pool's
    workers go with it (the kernel's parent-death signal; under ``forkserver`` they are the
    fork server's children and go with it), and so does every other process it started."""
    script = tmp_path / "parent.py"
    script.write_text(_AS_DEFAULT.format(root=str(ROOT), method=method,
                                         examples=str(ROOT / "instances/hashi/examples.jsonl")))
    err = open(tmp_path / "stderr.txt", "wb")
    proc = subprocess.Popen([PY, str(script)], stdout=subprocess.PIPE, stderr=err, text=True,
                            cwd=tmp_path)
    seen: set[tuple[int, int]] = set()
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert line, (tmp_path / "stderr.txt").read_text()
        batch = json.loads(line)
        pids = [int(x) for x in proc.stdout.readline().split()]  # type: ignore[union-attr]
        workers = {(p, stat_of(p)[2]) for p in pids if stat_of(p)}  # type: ignore[index]
        seen = tree_of(proc.pid)
    finally:
        proc.kill()
        proc.wait()
    assert batch == {"same": True, "records": 4, "method": method}
    assert len(workers) == 2 and workers <= seen
    left, took = wait_gone(workers)
    kill_all(left)
    assert not left and took < 1.0, f"{method}: workers alive {took:.2f} s after SIGKILL"
    left, _ = wait_gone(seen)
    kill_all(left)
    assert not left, f"{method}: {len(left)} of {len(seen)} descendants left"


_VERB_AS_DEFAULT = """
import multiprocessing.context as mpc, sys
sys.path.insert(0, {root!r})
mpc._default_context._default_context = mpc._concrete_contexts[sys.argv[1]]
if __name__ == "__main__":
    from puzzleproof.cli import main
    sys.exit(main(sys.argv[2:]))
"""

#: batch verbs whose tasks reach the pool in every way: a program, bot files, compiled
#: loops, a generator's attempts
_BATCHES = {
    "skynet-referee": ["skynet", "referee", "instances/skynet/ep1/02-star.txt", "--all-starts",
                       "--agent", "article", "--bot", "ep2-slack", "--bot-cmd",
                       f"first={PY} instances/skynet/examples/first-link-bot.py"],
    "deathrun-tournament": ["deathrun", "tournament", "--criminals",
                            "toll,instances/deathrun/bots/criminal.py", "--students",
                            "greedy,instances/deathrun/bots/student.py", "-n", "4"],
    "cityclose-crosscheck": ["crosscheck", "cityclose", "instances/cityclose/ring14-s1-0.json"],
    "hashi-generate": ["generate", "hashi", "--size", "7x7", "-n", "2", "--seed", "4"],
}


def _batch_records(path: Path) -> list[str]:
    return sorted(json.dumps(timeless(r), sort_keys=True)
                  for r in map(json.loads, path.read_text().splitlines())
                  if r.get("type") != "run-summary")


@pytest.mark.slow
@pytest.mark.parametrize("method", ["forkserver", "spawn"])
@pytest.mark.parametrize("batch", list(_BATCHES))
def test_every_batch_verb_under_each_start_method_as_the_default(tmp_path, method, batch):
    """The batch verbs on two pool workers, ``forkserver`` or ``spawn`` being the unset
    default: the records of one process (``-j 1``), and no task lost to what those methods
    must pickle (a program, bot files, a puzzle's kind, a generator's state)."""
    script = tmp_path / "verb.py"
    script.write_text(_VERB_AS_DEFAULT.format(root=str(ROOT)))
    runs = {}
    for jobs, how in (("1", "fork"), ("2", method)):
        out = tmp_path / f"{how}-{jobs}.jsonl"
        res = subprocess.run([PY, str(script), how, *_BATCHES[batch], "-q", "-j", jobs,
                              "-o", str(out)], cwd=ROOT, capture_output=True, text=True,
                             timeout=300)
        assert res.returncode in (0, 1), res.stderr
        assert "Traceback" not in res.stderr and "ERROR" not in out.read_text(), res.stderr
        runs[jobs] = (res.returncode, _batch_records(out))
    assert runs["1"] == runs["2"] and runs["1"][1]
