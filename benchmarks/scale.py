"""Benchmark: the same cross-check on 1 and 2 local processes and on a 2-worker Dask cluster.

The Coelho et al. (2019) Hashi set (../shared/instances/hashi/coelho2019/, 1,440 puzzles of
100 to 400 islands) is cross-checked by every method (sat, cpsat, article) through the one
executor interface (:mod:`puzzleproof.executor`) three times: on this process alone
(``-j 1``), on two local processes (``-j 2``), and on a local Dask cluster of two
single-threaded worker processes (started once before its run and timed apart, as an
existing cluster would be). For each run it prints the wall time, the throughput, the work
(sum of the tasks' own times) and the overhead per task: ``(wall x workers - work) / tasks``,
the time a worker slot spent on anything but a task. The Dask run is compared with the
two-process run on the same two cores: the target is at most 10 % more wall time for tasks of
0.1 s or more.

Every run's records are compared (without timings): the executors must agree.

Usage:
    python benchmarks/scale.py                          # the whole set (long: hours on 2 cores)
    python benchmarks/scale.py --sizes 400 --step 12    # every 12th puzzle of 400 islands
    python benchmarks/scale.py --methods sat --sizes 300,400 --step 8
    python benchmarks/scale.py --sizes 100,200 --step 8 --nodes 500   # deterministic limits
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from puzzleproof.clock import PerTask  # noqa: E402
from puzzleproof.executor import ExecutorSpec
from puzzleproof.formats.hashi import read_puzzles
from puzzleproof.verify.crosscheck import Instance, run_crosscheck
from puzzleproof.verify.hashi_methods import hashi_kind

ROOT = Path(__file__).resolve().parent.parent
COELHO = ROOT.parent / "shared" / "instances" / "hashi" / "coelho2019"


def load(sizes: list[int], step: int) -> list[Instance]:
    out = []
    for size in sizes:
        files = sorted((COELHO / str(size)).glob("*.has"))[::step]
        for f in files:
            rec = read_puzzles(f.read_text(), str(f))[0]
            out.append(Instance(f"{size}/{f.stem}", rec.puzzle, rec.solution))
    return out


def comparable(rec: dict) -> str:
    rec = {k: v for k, v in rec.items() if k != "wall_time"}
    if isinstance(rec.get("stats"), dict):
        rec["stats"] = {k: v for k, v in rec["stats"].items()
                        if not any(w in k for w in ("time", "seconds", "rss"))}
    return json.dumps(rec, sort_keys=True)


def run(label: str, spec: ExecutorSpec, workers: int, instances, methods, time_limit,
        budgets: dict) -> dict:
    t0 = time.perf_counter()
    report = run_crosscheck(hashi_kind(**budgets), instances, methods, None, jobs=spec,
                            each=PerTask(time_limit))
    wall = time.perf_counter() - t0
    work = sum(r["wall_time"] for r in report.records)
    n = len(report.records)
    print(f"  {label}: {n} tasks in {wall:.1f} s", flush=True)
    return {"label": label, "tasks": n, "wall": wall, "rate": n / wall, "work": work,
            "mean_task": work / n, "median_task": statistics.median(
                r["wall_time"] for r in report.records),
            "overhead_per_task": (wall * workers - work) / n,
            "records": sorted(map(comparable, report.records)),
            "statuses": {s: sum(r["status"] == s for r in report.records)
                         for s in sorted({r["status"] for r in report.records})}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100,200,300,400",
                    help="island counts of the set to run, comma-separated")
    ap.add_argument("--step", type=int, default=1, help="every STEP-th puzzle of each size")
    ap.add_argument("--methods", default="sat,cpsat,article")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--conflicts", type=int, default=None,
                    help="the sat method's conflict budget (deterministic)")
    ap.add_argument("--nodes", type=int, default=None,
                    help="the article's node budget (deterministic: with it and a time limit "
                         "that does not bind, the records must be identical)")
    ap.add_argument("--skip-serial", action="store_true", help="leave out the -j 1 run")
    args = ap.parse_args()
    if not COELHO.exists():
        print(f"{COELHO} is absent", file=sys.stderr)
        return 2
    instances = load([int(s) for s in args.sizes.split(",")], args.step)
    methods = args.methods.split(",")
    budgets = {"conflicts": args.conflicts, "nodes": args.nodes}
    print(f"{len(instances)} puzzles x {len(methods)} methods = "
          f"{len(instances) * len(methods)} tasks (sizes {args.sizes}, every {args.step})")
    rows = []
    if not args.skip_serial:
        rows.append(run("local -j 1", ExecutorSpec(jobs=1), 1, instances, methods,
                        args.time_limit, budgets))
    rows.append(run("local -j 2", ExecutorSpec(jobs=2), 2, instances, methods,
                    args.time_limit, budgets))
    from distributed import Client, LocalCluster

    t0 = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address="127.0.0.1:0", silence_logs=40)
    client = Client(cluster)
    client.wait_for_workers(2)
    start = time.perf_counter() - t0
    try:
        rows.append(run("Dask, 2 workers", ExecutorSpec(scheduler=cluster.scheduler_address),
                        2, instances, methods, args.time_limit, budgets))
    finally:
        client.close()
        cluster.close()
    print(f"\n{'executor':<16} {'tasks':>6} {'wall s':>8} {'tasks/s':>8} {'work s':>8} "
          f"{'mean task s':>11} {'median s':>9} {'overhead/task s':>16}")
    for r in rows:
        print(f"{r['label']:<16} {r['tasks']:>6} {r['wall']:>8.2f} {r['rate']:>8.2f} "
              f"{r['work']:>8.2f} {r['mean_task']:>11.3f} {r['median_task']:>9.3f} "
              f"{r['overhead_per_task']:>16.4f}")
    local2, dask = rows[-2], rows[-1]
    extra = (dask["wall"] - local2["wall"]) / local2["wall"]
    print(f"\nDask cluster start-up (not in its wall time): {start:.1f} s")
    print(f"Dask wall time against 2 local processes: {100 * extra:+.1f} % "
          f"(target <= +10 % for tasks >= 0.1 s; mean task here {dask['mean_task']:.3f} s)")
    same = all(r["records"] == rows[0]["records"] for r in rows)
    print("records identical across executors (timings aside): " + ("yes" if same else "NO")
          + ("" if same or args.nodes else " (a wall-clock limit ran out differently: give "
             "--nodes N for a deterministic limit)"))
    for r in rows:
        print(f"  {r['label']}: {r['statuses']}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
