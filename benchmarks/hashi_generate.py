"""Benchmark: the Hashi generator, unique by construction, beside issue 41's targets.

Each grade runs the generator (``generate`` with the run's clock, as ``puzzleproof generate
hashi --time-limit`` does) for ``--seconds`` on ``--jobs`` processes and prints the puzzles
kept per minute beside the target:

- ``>= 10 assumptions`` of the article's solver on 30x30: target >= 10 a minute on 2 cores.
  Printed beside the same grade without repair (``max_repairs=0``: a layout that is not
  unique by chance is thrown away whole, as the generator did before), which issue 41
  measured at 3 kept of 1,024 attempts in 103 s on one core;
- the grade above, ``>= 30 assumptions`` and ``depth >= 6`` (no target: the rate reached).

For each run: attempts, kept, wall seconds, kept per minute, the kept puzzles' assumptions
and depth (median, max), the repair rounds per kept puzzle, and the load average before and
after (other work on the machine slows every figure).

Usage:
    python benchmarks/hashi_generate.py                    # about 5 minutes
    python benchmarks/hashi_generate.py --seconds 30 --grades 10 30
    python benchmarks/hashi_generate.py --no-baseline --jobs 1
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from puzzleproof.clock import Deadline
from puzzleproof.generate.hashi import GenParams, generate

#: issue 41's figure before this generator: kept, attempts, seconds, cores
BEFORE = (3, 1024, 103.0, 1)
#: kept per minute on 2 cores, 30x30, >= 10 assumptions
TARGET_PER_MINUTE = 10.0


def run(params: GenParams, seconds: float, jobs: int) -> dict:
    """Generate for ``seconds`` (the run's clock); what was kept and how fast."""
    attempts = [0]
    load = os.getloadavg()[0]
    began = time.monotonic()
    kept = list(generate(params, jobs=jobs, deadline=Deadline(seconds),
                         on_attempt=lambda n, k: attempts.__setitem__(0, max(attempts[0], n))))
    wall = time.monotonic() - began
    arts = [g.measures["article"] for g in kept]
    return {"kept": len(kept), "attempts": attempts[0], "wall": wall,
            "per_minute": 60.0 * len(kept) / wall,
            "assumptions": [a["assumptions"] for a in arts],
            "depth": [a["max_depth"] for a in arts],
            "repairs": [g.measures["generator"]["repair_rounds"] for g in kept],
            "load": (load, os.getloadavg()[0])}


def line(label: str, r: dict, target: float | None) -> str:
    def spread(xs: list[int]) -> str:
        return f"{statistics.median(xs):g}/{max(xs)}" if xs else "-"

    goal = (f"  target >= {target:g}/min: {'MET' if r['per_minute'] >= target else 'NOT MET'}"
            if target is not None else "")
    return (f"{label:34} {r['kept']:>5} {r['attempts']:>8} {r['wall']:>7.1f} "
            f"{r['per_minute']:>8.1f} {spread(r['assumptions']):>13} {spread(r['depth']):>9} "
            f"{(statistics.mean(r['repairs']) if r['repairs'] else 0):>8.1f} "
            f"{r['load'][0]:>5.1f}/{r['load'][1]:<5.1f}{goal}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="the clock of each run")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes")
    ap.add_argument("--size", default="30x30")
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--density", type=float, default=0.25)
    ap.add_argument("--loops", type=float, default=0.1)
    ap.add_argument("--grades", type=int, nargs="+", default=[10, 30],
                    help="least assumptions of each grade (depth 6 is run as well)")
    ap.add_argument("--no-depth", action="store_true", help="skip the depth >= 6 grade")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip the run without repair")
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.lower().split("x"))

    def params(**kw) -> GenParams:
        return GenParams(w, h, density=args.density, loops=args.loops, count=10 ** 6,
                         seed=args.seed, max_attempts=10 ** 7, **kw)

    runs: list[tuple[str, GenParams, float | None]] = []
    for k in args.grades:
        target = TARGET_PER_MINUTE if k == 10 and (w, h) == (30, 30) else None
        runs.append((f">= {k} assumptions", params(min_assumptions=k), target))
        if k == 10 and not args.no_baseline:
            runs.append((">= 10 assumptions, no repair", params(min_assumptions=k,
                                                                max_repairs=0), None))
    if not args.no_depth:
        runs.append(("depth >= 6", params(min_depth=6), None))
    print(f"Hashi generator, {args.size}, density {args.density}, loops {args.loops}, seed "
          f"{args.seed}, {args.jobs} process(es), {args.seconds:g} s a run, {os.cpu_count()} "
          "cores")
    print(f"{'grade':34} {'kept':>5} {'attempts':>8} {'wall s':>7} {'kept/min':>8} "
          f"{'assum. med/max':>13} {'depth m/M':>9} {'repairs':>8} {'load before/after':>17}")
    for label, p, target in runs:
        print(line(label, run(p, args.seconds, args.jobs), target), flush=True)
    kept, attempts, secs, cores = BEFORE
    print(f"\nissue 41 before (no repair, >= 10 assumptions): {kept} kept of {attempts} attempts "
          f"in {secs:g} s on {cores} core: {60 * kept / secs:.1f} a minute")
    return 0


if __name__ == "__main__":
    sys.exit(main())
