"""Benchmark: both exact Hashi back ends on the Coelho et al. (2019) set, uniqueness question.

Three modes:

- the sweep (default): for each size (100, 200, 300, 400 islands) and back end, every puzzle
  is solved with the uniqueness question (stop at a second solution), every answer is
  rule-checked, and the mean and max wall time per size are printed beside the published
  figures (PUZZLES.md section 1). Target on a 2-core machine, 400 islands: mean <= 0.3 s and
  max <= 2 s for each back end.
- ``--twelve``: issue 32's yardstick, exactly its 12 puzzles (the eighth file of each of the
  12 generator settings ``Hs_34_400_<a>_<b>``), both back ends, solve + uniqueness in this
  process (start-up excluded); CPU and wall mean/max beside the issues' figures and targets
  (CP-SAT <= 0.3 s mean and <= 1 s max; with a CPU-bound process on every core, no worse
  than 2x the SAT back end). ``--load`` runs one CPU burner per core alongside. The back ends
  take turns on each puzzle (A B, then B A, ``--repeat`` times; the median run of each is
  kept), so that load that comes and goes during the run (other work on the machine) weighs
  on both alike: timing one back end's twelve puzzles and then the other's measures the
  drift of the load as much as the back ends.
- ``--ablation``: where CP-SAT's time goes on those 12 (or ``--sample STEP``: every STEP-th
  400-island puzzle): the model build, the first solution and the uniqueness solve apart, and
  each choice of the encoder undone in turn (guided first round, repair of the last proposal,
  hints, presolve and CP-SAT's other defaults, a second worker), CPU and wall; with
  ``--load`` under one CPU burner per core.

Usage:
    python benchmarks/hashi_exact.py                      # the sweep (a few minutes)
    python benchmarks/hashi_exact.py --sizes 400 --step 4 # every 4th puzzle of size 400
    python benchmarks/hashi_exact.py --out runs.jsonl     # keep records; rerun resumes
    python benchmarks/hashi_exact.py --twelve [--load] [--repeat 3]
    python benchmarks/hashi_exact.py --ablation [--load] [--sample 6]

Sweep records (one JSON object per puzzle and back end, ``"type": "bench"``) are appended to
``--out`` as they are made, so an interrupted run loses nothing and a rerun skips them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from puzzleproof.clock import Deadline  # noqa: E402
from puzzleproof.encoders import hashi_cpsat, hashi_sat  # noqa: E402
from puzzleproof.formats.hashi import read_puzzles
from puzzleproof.models.hashi import Puzzle
from puzzleproof.result import Result

#: the exact back ends by name
SOLVERS = {"cpsat": hashi_cpsat.solve, "sat": hashi_sat.solve}

ROOT = Path(__file__).resolve().parent.parent
COELHO = ROOT.parent / "shared" / "instances" / "hashi" / "coelho2019"

PUBLISHED = {  # mean seconds per size (PUZZLES.md section 1)
    "Coelho 2019 branch-and-cut": {100: 0.16, 200: 1.13, 300: 6.32, 400: 36.94},
    "Gurobi lazy cuts, solve only": {100: 0.01, 200: 0.04, 300: 0.12, 400: 1.48},
    "python-sat loop, solve + 2nd": {400: 0.86},
}
PUBLISHED_MAX = {"python-sat loop, solve + 2nd": {400: 3.43}}
TARGET = {400: (0.3, 2.0)}

#: Issue 32 on the 12 puzzles: (mean s, max s) quiet, and mean s with CPU-bound load.
ISSUE_BEFORE = {"cpsat": {"quiet": (0.47, 2.12), "load": (3.4, 16.0)},
                "sat": {"quiet": (0.10, 0.25), "load": (0.18, None)}}
#: Issue 41 on the 12 puzzles, the rest of the machine busy (one back end timed after the
#: other, fastest of one run each): (mean s, max s).
ISSUE41_LOAD = {"cpsat": (1.02, 4.98), "sat": (0.19, 0.43)}
ISSUE_TARGET = {"mean": 0.3, "max": 1.0, "load_ratio": 2.0}


def twelve_files() -> list[Path]:
    """Issue 32's 12 puzzles: the eighth file of each generator setting of size 400."""
    return [COELHO / "400" / f"Hs_34_400_{a}_{b}_008.has"
            for a in ("25", "50", "75") for b in ("00", "05", "10", "15")]


def load_puzzle(path: Path) -> Puzzle:
    return read_puzzles(path.read_text(), str(path))[0].puzzle


def timed(fn: Callable[[], Result]) -> tuple[Result, float, float]:
    """Run ``fn``; return its result, CPU seconds of this process (every thread) and wall."""
    cpu, wall = time.process_time(), time.perf_counter()
    res = fn()
    return res, time.process_time() - cpu, time.perf_counter() - wall


@contextmanager
def burners(count: int) -> Iterator[list[int]]:
    """``count`` CPU-bound processes (pure Python loops) for the duration; stopped by pid."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        time.sleep(0.5)  # let them reach the run queue
        yield [p.pid for p in procs]
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait()


# -- the sweep ------------------------------------------------------------------------------

def sweep(args: argparse.Namespace) -> int:
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
            for size in args.sizes:
                recs = sweep_size(solver, size, args, done, sink)
                rows.append(summarise(solver, size, recs))
    except KeyboardInterrupt:
        print("\ninterrupted; records so far are kept" + (f" in {args.out}" if args.out else ""),
              file=sys.stderr)
    finally:
        if sink:
            sink.close()
    report(rows)
    return 0


def sweep_size(solver: str, size: int, args: argparse.Namespace,
               done: dict[tuple[str, str], dict], sink) -> list[dict]:
    solve = SOLVERS[solver.split("+")[0]]
    extra = ({"workers": args.workers} if solver == "cpsat" else
             {"propagator": True} if solver == "sat+prop" else {})
    files = sorted((COELHO / str(size)).glob("*.has"))[::args.step]
    recs = []
    for k, f in enumerate(files):
        key = (solver, f"{size}/{f.name}")
        if key in done:
            recs.append(done[key])
            continue
        p = load_puzzle(f)
        res, _, wall = timed(lambda: solve(p, mode="unique", deadline=Deadline(args.time_limit),
                                           **extra))
        if not res.check_ok:
            raise SystemExit(f"RULE CHECK FAILED: {solver} on {f}: {res.check}")
        rec = {"type": "bench", "solver": solver, "file": key[1], "size": size,
               "status": res.status.value, "seconds": round(wall, 4),
               "cut_rounds": res.stats.get("cut_rounds"), "cuts": res.stats.get("cuts")}
        recs.append(rec)
        if sink:
            sink.write(json.dumps(rec) + "\n")
            sink.flush()
        print(f"\r{solver} {size}: {k + 1}/{len(files)}", end="", file=sys.stderr, flush=True)
    print("\r", end="", file=sys.stderr)
    return recs


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


# -- issue 32's twelve puzzles --------------------------------------------------------------

def twelve(args: argparse.Namespace) -> int:
    puzzles = [(f.name, load_puzzle(f)) for f in twelve_files()]
    for _, p in puzzles:  # the geometry is the reader's work, not the solver's
        p.crossings
        p.incident
    solvers = {"cpsat": lambda p: hashi_cpsat.solve(p, mode="unique", workers=args.workers),
               "sat": lambda p: SOLVERS["sat"](p, mode="unique")}
    cores = os.cpu_count() or 1
    before = os.getloadavg()[0]
    with burners(cores if args.load else 0):
        figures = run_twelve(solvers, puzzles, args.repeat)
    print(f"\nIssue 32's 12 Coelho puzzles of 400 islands, solve + uniqueness, in-process "
          f"(start-up excluded); {cores} cores; CP-SAT workers {args.workers}; "
          + (f"{cores} CPU burner(s) running" if args.load else "no load added")
          + f"; load average {before:.1f} before, {os.getloadavg()[0]:.1f} after; the back "
          f"ends take turns, median of {args.repeat} per puzzle")
    for name, fig in figures.items():
        print(f"  {name:6} CPU mean {fig['cpu_mean']:.3f} s, max {fig['cpu_max']:.3f} s | "
              f"wall mean {fig['wall_mean']:.3f} s, max {fig['wall_max']:.3f} s | rounds "
              f"mean {fig['rounds_mean']:.1f}, max {fig['rounds_max']} | slowest {fig['worst']}")
    print_issue_comparison(figures, args.load)
    return 0


def run_twelve(solvers: dict[str, Callable[[Puzzle], Result]],
               puzzles: list[tuple[str, Puzzle]], repeat: int) -> dict[str, dict]:
    """Each puzzle solved by every back end in turn (the order reversed on every other
    repetition); per puzzle and back end the median run by wall time."""
    runs: dict[str, list[tuple[float, float, int]]] = {name: [] for name in solvers}
    for fname, p in puzzles:
        mine: dict[str, list[tuple[float, float, int]]] = {name: [] for name in solvers}
        for r in range(repeat):
            for name in (list(solvers) if r % 2 == 0 else list(solvers)[::-1]):
                res, cpu, wall = timed(lambda: solvers[name](p))
                if not res.check_ok or res.status.value not in ("MULTIPLE", "UNIQUE"):
                    raise SystemExit(f"{name} on {fname}: {res.status.value}, check "
                                     f"{res.check}")
                mine[name].append((wall, cpu, res.stats["cut_rounds"]))
        for name, got in mine.items():
            runs[name].append(sorted(got)[len(got) // 2])
        print(f"\r{len(runs[name])}/{len(puzzles)}", end="", file=sys.stderr, flush=True)
    print("\r", end="", file=sys.stderr)
    out = {}
    for name, got in runs.items():
        walls, cpus, rounds = zip(*got)
        out[name] = {"cpu_mean": statistics.mean(cpus), "cpu_max": max(cpus),
                     "wall_mean": statistics.mean(walls), "wall_max": max(walls),
                     "rounds_mean": statistics.mean(rounds), "rounds_max": max(rounds),
                     "worst": puzzles[walls.index(max(walls))][0]}
    return out


def print_issue_comparison(figures: dict, load: bool) -> None:
    case = "load" if load else "quiet"
    print(f"\nIssue 32's figures ({case}, wall):")
    for name, fig in figures.items():
        mean_b, max_b = ISSUE_BEFORE[name][case]
        before = f"mean {mean_b} s" + (f", max {max_b} s" if max_b is not None else "")
        print(f"  {name:6} before: {before:24} now: mean {fig['wall_mean']:.3f} s, max "
              f"{fig['wall_max']:.3f} s")
    if load:
        print("Issue 41's figures (the machine busy, back ends timed one after the other): "
              + "; ".join(f"{name} mean {m} s, max {x} s" for name, (m, x)
                          in ISSUE41_LOAD.items()))
    cp, sat = figures["cpsat"], figures["sat"]
    if not load:
        for kind in ("wall", "cpu"):
            ok = (cp[f"{kind}_mean"] <= ISSUE_TARGET["mean"]
                  and cp[f"{kind}_max"] <= ISSUE_TARGET["max"])
            print(f"target: CP-SAT mean <= {ISSUE_TARGET['mean']} s and max <= "
                  f"{ISSUE_TARGET['max']} s, {kind}"
                  + (" (one worker: the wall time of a quiet machine)" if kind == "cpu" else "")
                  + f": {'MET' if ok else 'NOT MET'} (mean {cp[f'{kind}_mean']:.3f}, max "
                  f"{cp[f'{kind}_max']:.3f})")
    ratio_mean = cp["wall_mean"] / sat["wall_mean"]
    ratio_max = cp["wall_max"] / sat["wall_max"]
    ok = max(ratio_mean, ratio_max) <= ISSUE_TARGET["load_ratio"]
    print(f"target: CP-SAT no worse than {ISSUE_TARGET['load_ratio']:g}x SAT"
          f"{' under load' if load else ' (the issue asks it under load: add --load)'}: "
          f"{'MET' if ok else 'NOT MET'} (mean {ratio_mean:.2f}x, max {ratio_max:.2f}x)")


# -- where CP-SAT's time goes ---------------------------------------------------------------

#: Each variant undoes one choice of the encoder (keyword arguments of hashi_cpsat.solve).
VARIANTS: list[tuple[str, dict]] = [
    ("as shipped (guided first round, repair 1000)", {}),
    ("no guided first round", {"guided": False}),
    ("repair 10 conflicts (CP-SAT's default)", {"repair_conflicts": 10}),
    ("no hint at all", {"repair_conflicts": 0}),
    ("presolve on", {"tuning": {"cp_model_presolve": True}}),
    ("CP-SAT defaults (presolve, probing, symmetry, LP)",
     {"tuning": {"cp_model_presolve": True, "linearization_level": 1, "symmetry_level": 2,
                 "cp_model_probing_level": 2}}),
    ("2 workers", {"workers": 2}),
]


def ablation(args: argparse.Namespace) -> int:
    files = (twelve_files() if not args.sample else
             sorted((COELHO / "400").glob("*.has"))[args.sample // 2::args.sample])
    puzzles = [(f.name, load_puzzle(f)) for f in files]
    for _, p in puzzles:
        p.crossings
        p.incident
    cores = os.cpu_count() or 1
    print(f"CP-SAT on {len(puzzles)} Coelho puzzles of 400 islands, solve + uniqueness; "
          f"CPU seconds of this process (every thread) and wall seconds; "
          + (f"{cores} CPU burner(s) running; " if args.load else "")
          + f"load average {os.getloadavg()[0]:.1f}\n")
    with burners(cores if args.load else 0):
        breakdown(puzzles)
        print(f"\n{'variant':52} {'CPU mean':>9} {'CPU max':>8} {'wall mean':>10} "
              f"{'wall max':>9} {'rounds mean/max':>16} {'solves':>7} {'wall/solve':>10}")
        for label, kwargs in VARIANTS:
            row = run_variant(puzzles, kwargs)
            print(f"{label:52} {row['cpu_mean']:>9.3f} {row['cpu_max']:>8.3f} "
                  f"{row['wall_mean']:>10.3f} {row['wall_max']:>9.3f} "
                  f"{row['rounds_mean']:>9.1f}/{row['rounds_max']:<6} {row['solves']:>7} "
                  f"{sum(row['walls']) / row['solves']:>10.4f}")
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")
    return 0


def breakdown(puzzles: list[tuple[str, Puzzle]]) -> None:
    """Mean CPU of the model build, the first solution, and the uniqueness question."""
    build, first, unique, inside = [], [], [], []
    for _, p in puzzles:
        cpu = time.process_time()
        hashi_cpsat.CpSatHashi(p)
        build.append(time.process_time() - cpu)
        one, cpu_one, _ = timed(lambda: hashi_cpsat.solve(p, mode="solve"))
        two, cpu_two, wall_two = timed(lambda: hashi_cpsat.solve(p, mode="unique"))
        first.append(cpu_one)
        unique.append(cpu_two - cpu_one)
        inside.append(two.stats["solver_seconds"] / max(wall_two, 1e-9))
    print(f"model build {statistics.mean(build):.3f} s; first solution (build included) "
          f"{statistics.mean(first):.3f} s; the uniqueness question after it "
          f"{statistics.mean(unique):.3f} s; share of the wall time inside CP-SAT's solve "
          f"calls {100 * statistics.mean(inside):.0f} % (the rest: the build, separation, "
          "hints, the rule check)")


def run_variant(puzzles: list[tuple[str, Puzzle]], kwargs: dict) -> dict:
    cpus, walls, rounds, solves = [], [], [], 0
    for fname, p in puzzles:
        res, cpu, wall = timed(lambda: hashi_cpsat.solve(p, mode="unique", **kwargs))
        if not res.check_ok or res.status.value not in ("MULTIPLE", "UNIQUE"):
            raise SystemExit(f"{kwargs} on {fname}: {res.status.value}, check {res.check}")
        cpus.append(cpu)
        walls.append(wall)
        rounds.append(res.stats["cut_rounds"])
        solves += res.stats["solves"]
    return {"cpu_mean": statistics.mean(cpus), "cpu_max": max(cpus), "wall_max": max(walls),
            "wall_mean": statistics.mean(walls), "walls": walls,
            "rounds_mean": statistics.mean(rounds), "rounds_max": max(rounds),
            "solves": solves}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--twelve", action="store_true", help="issue 32's 12 puzzles, both back ends")
    ap.add_argument("--load", action="store_true",
                    help="with --twelve or --ablation: run a CPU-burner process per core "
                         "alongside")
    ap.add_argument("--repeat", type=int, default=3,
                    help="with --twelve: runs per puzzle and back end, in turns; the median "
                         "kept")
    ap.add_argument("--ablation", action="store_true", help="where CP-SAT's time goes")
    ap.add_argument("--sample", type=int, default=0,
                    help="with --ablation: every SAMPLE-th 400-island puzzle, not the 12")
    ap.add_argument("--sizes", nargs="+", type=int, default=[100, 200, 300, 400])
    ap.add_argument("--solvers", nargs="+", choices=tuple(SOLVERS), default=list(SOLVERS))
    ap.add_argument("--step", type=int, default=1, help="take every STEP-th puzzle")
    ap.add_argument("--workers", type=int, default=1, help="CP-SAT workers")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per puzzle")
    ap.add_argument("--sat-propagator", action="store_true",
                    help="also run the sat back end with the IPASIR-UP propagator ('sat+prop')")

    ap.add_argument("--out", type=Path, default=None, help="JSONL file to append records to")
    args = ap.parse_args()
    if not COELHO.is_dir():
        sys.exit(f"{COELHO} is absent: the Coelho set lives in ../shared/instances/hashi/")
    if args.twelve:
        return twelve(args)
    if args.ablation:
        return ablation(args)
    return sweep(args)


if __name__ == "__main__":
    sys.exit(main())
