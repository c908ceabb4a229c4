"""Skynet time limits: does ``puzzleproof solve skynet`` end within limit x 1.1 + 0.2 s plus
its start-up, whatever it is asked?

The cases of issue 29 (items 4 and 6) and a few like them, each command timed as a whole
in its own process: its wall time, its CPU time (user + system), its peak memory, the
solver's own reported wall time, and the bound (limit x 1.1 + 0.2 s + start-up, start-up
being the same command on a map answered at once, best of three). Before the deadline
covered everything (November 2026, 2 cores at load 6): ``-H 1000000000`` at 5 s reached
3.8 GB in 30 s, ``--rule ep1 -H 50`` at 5 s took 8.9 s, ``--min-cuts`` on 07-mesh-500 at 1 s
took 2.8-14.7 s.

Wall times measure the machine as much as the solver: run it on a quiet machine
(``uptime``; the load is printed beside each row).

    python benchmarks/skynet_limits.py [--repeat 3] [--limits 1,5]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EP1 = ROOT / "instances" / "skynet" / "ep1"
SHARED = ROOT.parent / "shared" / "instances" / "skynet" / "ep2"
MEMORY = 3 << 30  # each command's address space (a run that allocates per turn fails)

CASES = [  # (map, rule, question)
    (EP1 / "07-mesh-500.txt", "ep1", ["--min-cuts"]),
    (EP1 / "05-mesh-100.txt", "ep1", ["--min-cuts"]),
    (EP1 / "04-double-star-ring.txt", "ep1", ["-H", "50"]),
    (EP1 / "05-mesh-100.txt", "ep1", ["-H", "50"]),
    (EP1 / "07-mesh-500.txt", "ep1", ["-H", "50"]),
    (EP1 / "07-mesh-500.txt", "ep1", ["-H", "1000000000"]),
    (EP1 / "07-mesh-500.txt", "ep1", []),
    (SHARED / "05-complex-mesh.txt", "ep1", ["--min-cuts"]),
    (SHARED / "06-bobnet-core-network.txt", "ep1", ["--min-cuts"]),
]


def run(args: list[str]) -> dict:
    """One command in its own process: its wall time, CPU time and peak memory (from its
    own rusage), and its JSON answer."""
    cmd = [sys.executable, "-m", "puzzleproof", "solve", "skynet", *args, "--json"]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=err, preexec_fn=lambda:
                                resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY)))
        guard = threading.Timer(300, proc.kill)  # a hang is a finding, not a stall
        guard.start()
        _, status, use = os.wait4(proc.pid, 0)
        guard.cancel()
        wall = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        text, errors = out.read(), err.read()
    rc = os.waitstatus_to_exitcode(status)
    row = {"wall": wall, "rc": rc, "cpu": use.ru_utime + use.ru_stime,
           "peak_mb": use.ru_maxrss / 1024}
    try:
        obj = json.loads(text)
        obj = obj[0] if isinstance(obj, list) else obj
        row.update(status=obj["status"], solver=obj.get("wall_time"),
                   answer={k: v for k, v in (obj.get("answer") or {}).items()
                           if k in ("verdict", "value", "value_lower", "value_upper",
                                    "horizon")})
    except (ValueError, KeyError, IndexError):
        row.update(status=f"exit {rc}: {errors.strip()[-120:]}", solver=None, answer={})
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=1, help="runs per case and limit")
    ap.add_argument("--limits", default="1,5", help="time limits in seconds, comma-separated")
    args = ap.parse_args()
    limits = [float(x) for x in args.limits.split(",")]
    startup = min(run([str(EP1 / "01-line.txt"), "--rule", "ep1"])["wall"]
                  for _ in range(3))
    print(f"machine: {os.cpu_count()} cores; start-up {startup:.2f} s (01-line, best of 3); "
          f"load {os.getloadavg()[0]:.1f}")
    print("held: the command within limit x 1.1 + 0.2 s + start-up; solver: the solver's own "
          "wall time within limit x 1.1 + 0.2 s (what a loaded machine cannot blur)")
    print(f"{'map':28s} {'question':16s} {'limit':>5s} | {'command':>7s} {'cpu':>6s} "
          f"{'solver':>6s} {'bound':>6s} {'held':4s} {'solver':6s} | {'peak MB':>7s} | answer")
    held = solver_held = total = 0
    for path, rule, question in CASES:
        if not path.exists():
            print(f"{path.name:28s} absent (outside data lives in ../shared)")
            continue
        for limit in limits:
            for _ in range(args.repeat):
                row = run([str(path), "--rule", rule, *question, "--time-limit", f"{limit:g}"])
                bound = limit * 1.1 + 0.2 + startup
                ok = row["wall"] <= bound
                own = row["solver"] is not None and row["solver"] <= limit * 1.1 + 0.2
                held += ok
                solver_held += own
                total += 1
                solver = "-" if row["solver"] is None else f"{row['solver']:.2f}"
                print(f"{path.name:28s} {' '.join(question) or 'verdict':16s} {limit:5g} | "
                      f"{row['wall']:7.2f} {row['cpu']:6.2f} {solver:>6s} {bound:6.2f} "
                      f"{'yes' if ok else 'NO':4s} {'yes' if own else 'NO':6s} | "
                      f"{row['peak_mb']:7.0f} | {row['status']} {row['answer']}  "
                      f"(load {os.getloadavg()[0]:.1f})", flush=True)
    print(f"within limit x 1.1 + 0.2 s + start-up: {held} of {total} runs; the solver's own "
          f"time within limit x 1.1 + 0.2 s: {solver_held} of {total}")


if __name__ == "__main__":
    main()
