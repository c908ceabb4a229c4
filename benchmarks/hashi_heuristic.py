"""Benchmark: the article's Hashi solver against the exact back ends, and the generator.

Prints:
1. the sgt-bridges sample (220 unique puzzles, Tatham's generator) by size and difficulty:
   solved, time and effort of the article's solver beside the exact back ends;
2. the Coelho et al. 2019 set with a per-puzzle limit: how often the article's solver finishes,
   and where its effort explodes (by the generator parameter a);
3. generator throughput: unique 15x15 puzzles per minute on all cores (target >= 100);
4. the hardest 30x30 puzzle the generator finds in a time budget (default 5 minutes), measured
   by the article solver's assumptions, beside Tatham's hard 30x30 puzzles of the sample.

Usage:
    python benchmarks/hashi_article.py                  # everything (about 10 minutes)
    python benchmarks/hashi_article.py --coelho-step 12 --hard-seconds 60   # quicker
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

from puzzleproof.clock import Deadline
from puzzleproof.encoders import hashi_cpsat, hashi_sat
from puzzleproof.formats.hashi import read_puzzles
from puzzleproof.generate.hashi import GenParams, generate
from puzzleproof.result import Status
from puzzleproof.players import hashi_article

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "instances" / "hashi"


def fmt_stats(xs: list[float]) -> str:
    return f"mean {statistics.mean(xs):.4f} max {max(xs):.4f}" if xs else "-"


def sgt_section() -> list:
    path = SHARED / "sgt-bridges" / "bridges_sample.jsonl"
    recs = read_puzzles(path.read_text(), str(path))
    groups: dict[tuple, list] = defaultdict(list)
    for r in recs:
        groups[(r.puzzle.width, r.meta["difficulty"])].append(r)
    print("1. sgt-bridges sample: the article's solver vs the exact back ends (uniqueness asked)")
    print(f"{'size':>7} {'diff':>6} {'n':>3} | {'article solved':>14} {'time mean/max s':>17} "
          f"{'assumptions mean/max':>21} {'wrong max':>9} | {'sat mean s':>10} "
          f"{'cpsat mean s':>12}")
    hard30 = []
    for (w, diff), rs in sorted(groups.items()):
        art = [hashi_article.solve(r.puzzle, deadline=Deadline(60)) for r in rs]
        sat = [hashi_sat.solve(r.puzzle, mode="unique") for r in rs]
        cps = [hashi_cpsat.solve(r.puzzle, mode="unique") for r in rs]
        ok = sum(a.status is Status.SOLVED and a.check_ok for a in art)
        ass = [a.stats["assumptions"] for a in art]
        if w == 30 and diff == "hard":
            hard30 = ass
        print(f"{w:>3}x{w:<3} {diff:>6} {len(rs):>3} | {ok:>14} "
              f"{statistics.mean(a.wall_time for a in art):>8.4f}/{max(a.wall_time for a in art):<8.4f} "
              f"{statistics.mean(ass):>10.2f}/{max(ass):<10} "
              f"{max(a.stats['wrong_assumptions'] for a in art):>9} | "
              f"{statistics.mean(s.wall_time for s in sat):>10.4f} "
              f"{statistics.mean(c.wall_time for c in cps):>12.4f}")
    return hard30


def coelho_section(step: int, limit: float) -> None:
    print(f"\n2. Coelho et al. 2019 set, every {step}th puzzle, article's solver limited to "
          f"{limit} s (sat solves each in well under a second)")
    print(f"{'islands':>7} {'a':>3} {'n':>3} | {'solved':>6} {'unknown':>7} "
          f"{'time median s':>13} {'assumptions median/max':>23}")
    for size in (100, 200, 300, 400):
        files = sorted((SHARED / "coelho2019" / str(size)).glob("*.has"))[::step]
        by_a: dict[str, list] = defaultdict(list)
        for f in files:
            by_a[f.name.split("_")[3]].append(f)
        for a, fs in sorted(by_a.items()):
            res = [hashi_article.solve(read_puzzles(f.read_text(), str(f))[0].puzzle,
                                       deadline=Deadline(limit)) for f in fs]
            solved = sum(r.status is Status.SOLVED and r.check_ok for r in res)
            unknown = sum(r.status is Status.UNKNOWN for r in res)
            ass = [r.stats["assumptions"] for r in res]
            print(f"{size:>7} {a:>3} {len(fs):>3} | {solved:>6} {unknown:>7} "
                  f"{statistics.median(r.wall_time for r in res):>13.3f} "
                  f"{statistics.median(ass):>11}/{max(ass):<11}")


def throughput_section(seconds: float, jobs: int) -> None:
    print(f"\n3. Generator throughput, unique 15x15 puzzles (density 0.25, loops 0.1), "
          f"{jobs} processes, {seconds:.0f} s")
    params = GenParams(15, 15, count=10 ** 6, seed=2026, max_attempts=10 ** 7)
    t0 = time.monotonic()
    kept = 0
    attempts = [0]
    for _ in generate(params, jobs=jobs, on_attempt=lambda a, k: attempts.__setitem__(0, a)):
        kept += 1
        if time.monotonic() - t0 >= seconds:
            break
    dt = time.monotonic() - t0
    print(f"   kept {kept} unique puzzles of {attempts[0]} attempts in {dt:.1f} s: "
          f"{kept / dt * 60:.0f} per minute (target >= 100)")


def hard_section(seconds: float, jobs: int, tatham: list[int]) -> None:
    print(f"\n4. Hardest unique 30x30 in {seconds:.0f} s ({jobs} processes; density 0.25, "
          "loops 0.05), by the article solver's assumptions")
    params = GenParams(30, 30, density=0.25, loops=0.05, count=10 ** 6, seed=30,
                       max_attempts=10 ** 7)
    t0 = time.monotonic()
    best = None
    kept = 0
    for g in generate(params, jobs=jobs):
        kept += 1
        a = g.measures["article"]
        if best is None or a["assumptions"] > best.measures["article"]["assumptions"]:
            best = g
        if time.monotonic() - t0 >= seconds:
            break
    if best is None:
        print("   no unique 30x30 puzzle found")
        return
    a = best.measures["article"]
    print(f"   {kept} unique puzzles; hardest {best.puzzle.name}: {a['assumptions']} assumptions, "
          f"{a['wrong_assumptions']} wrong, depth {a['max_depth']}, "
          f"{best.measures['islands']} islands")
    if tatham:
        print(f"   Tatham's hard 30x30 (sgt sample, {len(tatham)} puzzles): assumptions mean "
              f"{statistics.mean(tatham):.1f}, max {max(tatham)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--coelho-step", type=int, default=12)
    ap.add_argument("--coelho-limit", type=float, default=5.0)
    ap.add_argument("--gen-seconds", type=float, default=60.0)
    ap.add_argument("--hard-seconds", type=float, default=300.0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    if not SHARED.is_dir():
        sys.exit(f"{SHARED} is absent: outside data lives in ../shared/instances/hashi/")
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}\n")
    hard30 = sgt_section()
    coelho_section(args.coelho_step, args.coelho_limit)
    throughput_section(args.gen_seconds, args.jobs)
    hard_section(args.hard_seconds, args.jobs, hard30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
