"""Benchmark: both exact Hashi back ends on the Coelho et al. (2019) set, uniqueness question.

For each size (100, 200, 300, 400 islands) and back end, every puzzle is solved with the
uniqueness question (stop at a second solution), every answer is rule-checked, and the mean
and max wall time per size are printed beside the published figures (PUZZLES.md section 1).
Target on a 2-core machine, 400 islands: mean <= 0.3 s and max <= 2 s for each back end.

Usage:
    python benchmarks/hashi_exact.py                      # everything (a few minutes)
    python benchmarks/hashi_exact.py --sizes 400 --step 4 # every 4th puzzle of size 400
    python benchmarks/hashi_exact.py --out runs.jsonl     # keep records; rerun resumes

Records (one JSON object per puzzle and back end, ``"type": "bench"``) are appended to
``--out`` as they are made, so an interrupted run loses nothing and a rerun skips them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from puzzleproof.encoders import HASHI_SOLVERS, hashi_solver
from puzzleproof.formats.hashi import read_puzzles

ROOT = Path(__file__).resolve().parent.parent
COELHO = ROOT.parent / "shared" / "instances" / "hashi" / "coelho2019"

PUBLISHED = {  # mean seconds per size (PUZZLES.md section 1)
    "Coelho 2019 branch-and-cut": {100: 0.16, 200: 1.13, 300: 6.32, 400: 36.94},
    "Gurobi lazy cuts, solve only": {100: 0.01, 200: 0.04, 300: 0.12, 400: 1.48},
    "python-sat loop, solve + 2nd": {400: 0.86},
}
PUBLISHED_MAX = {"python-sat loop, solve + 2nd": {400: 3.43}}
TARGET = {400: (0.3, 2.0)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", type=int, default=[100, 200, 300, 400])
    ap.add_argument("--solvers", nargs="+", choices=HASHI_SOLVERS, default=list(HASHI_SOLVERS))
    ap.add_argument("--step", type=int, default=1, help="take every STEP-th puzzle")
    ap.add_argument("--workers", type=int, default=1, help="CP-SAT workers (at most 2 here)")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per puzzle")
    ap.add_argument("--sat-propagator", action="store_true",
                    help="also run the sat back end with the IPASIR-UP propagator ('sat+prop')")
    ap.add_argument("--out", type=Path, default=None, help="JSONL file to append records to")
    args = ap.parse_args()
    if not COELHO.is_dir():
        sys.exit(f"{COELHO} is absent: the Coelho set lives in ../shared/instances/hashi/")

    done: dict[tuple[str, str], dict] = {}
    if args.out and args.out.exists():
        for line in args.out.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                done[(rec["solver"], rec["file"])] = rec
    sink = open(args.out, "a") if args.out else None

    runs = list(args.solvers) + (["sat+prop"] if args.sat_propagator else [])
    rows = []
    try:
        for solver in runs:
            solve = hashi_solver(solver.split("+")[0])
            extra = ({"workers": args.workers} if solver == "cpsat" else
                     {"propagator": True} if solver == "sat+prop" else {})
            for size in args.sizes:
                files = sorted((COELHO / str(size)).glob("*.has"))[::args.step]
                recs = []
                for k, f in enumerate(files):
                    key = (solver, f"{size}/{f.name}")
                    if key in done:
                        recs.append(done[key])
                        continue
                    p = read_puzzles(f.read_text(), str(f))[0].puzzle
                    t0 = time.perf_counter()
                    res = solve(p, mode="unique", time_limit=args.time_limit, **extra)
                    wall = time.perf_counter() - t0
                    if not res.check_ok:
                        raise SystemExit(f"RULE CHECK FAILED: {solver} on {f}: {res.check}")
                    rec = {"type": "bench", "solver": solver, "file": key[1], "size": size,
                           "status": res.status.value, "seconds": round(wall, 4),
                           "cut_rounds": res.stats.get("cut_rounds"),
                           "cuts": res.stats.get("cuts")}
                    recs.append(rec)
                    if sink:
                        sink.write(json.dumps(rec) + "\n")
                        sink.flush()
                    print(f"\r{solver} {size}: {k + 1}/{len(files)}", end="", file=sys.stderr,
                          flush=True)
                print("\r", end="", file=sys.stderr)
                rows.append(summarise(solver, size, recs))
    except KeyboardInterrupt:
        print("\ninterrupted; records so far are kept" + (f" in {args.out}" if args.out else ""),
              file=sys.stderr)
    finally:
        if sink:
            sink.close()
    report(rows)
    return 0


def summarise(solver: str, size: int, recs: list[dict]) -> dict:
    ts = [r["seconds"] for r in recs]
    statuses: dict[str, int] = {}
    for r in recs:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    worst = max(recs, key=lambda r: r["seconds"])
    return {"solver": solver, "size": size, "n": len(recs), "mean": statistics.mean(ts),
            "median": statistics.median(ts), "max": max(ts), "worst": worst["file"],
            "rounds_mean": statistics.mean(r["cut_rounds"] or 0 for r in recs),
            "rounds_max": max(r["cut_rounds"] or 0 for r in recs), "statuses": statuses}


def report(rows: list[dict]) -> None:
    print(f"\nHashi exact, Coelho et al. 2019 set, uniqueness question; machine: "
          f"{os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"{'solver':8} {'size':>5} {'n':>4} {'mean s':>8} {'median':>8} {'max s':>8} "
          f"{'rounds':>12}  statuses / worst puzzle")
    for r in rows:
        print(f"{r['solver']:8} {r['size']:>5} {r['n']:>4} {r['mean']:>8.3f} {r['median']:>8.3f} "
              f"{r['max']:>8.3f} {r['rounds_mean']:>6.1f}/{r['rounds_max']:<5}  "
              f"{r['statuses']} / {r['worst']}")
    print("\nPublished (mean s; max where given):")
    for name, per in PUBLISHED.items():
        cells = ", ".join(f"{s}: {v}" + (f" (max {PUBLISHED_MAX[name][s]})"
                                         if s in PUBLISHED_MAX.get(name, {}) else "")
                          for s, v in per.items())
        print(f"  {name:32} {cells}")
    for size, (mean_t, max_t) in TARGET.items():
        for r in rows:
            if r["size"] == size:
                ok = r["mean"] <= mean_t and r["max"] <= max_t
                print(f"target {size} islands, {r['solver']}: mean <= {mean_t} s and max <= "
                      f"{max_t} s: {'MET' if ok else 'NOT MET'} (mean {r['mean']:.3f}, "
                      f"max {r['max']:.3f})")


if __name__ == "__main__":
    sys.exit(main())
