"""Every method of every puzzle under a time limit, on its puzzle's hardest shipped instance
(issue 29): the wall time of a fresh process, start-up included, against the tight bound
``limit x 1.1 + 0.2 s + start-up``. The table is read from the registry.

Usage:
    python benchmarks/limits.py [--limits 1,5] [--only PUZZLE[,PUZZLE...]]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import limitslib  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limits", default="1,5", help="Time limits in seconds (default 1,5).")
    ap.add_argument("--only", default=None, help="Puzzles to time (default: all).")
    args = ap.parse_args(argv)
    limits = [float(x) for x in args.limits.split(",")]
    only = set(args.only.split(",")) if args.only else None
    start = min(limitslib.start_up() for _ in range(3))
    print(f"start-up (import and plugins, best of 3): {start:.2f} s")
    print(f"{'puzzle':<10} {'method':<12} {'limit':>6} {'status':<8} {'method s':>9} "
          f"{'wall s':>8} {'bound s':>8}  holds")
    over = 0
    for puzzle, method, rel in limitslib.cases():
        if only and puzzle not in only:
            continue
        for limit in limits:
            got = limitslib.timed(puzzle, method, rel, limit)
            bound = limit * 1.1 + 0.2 + start
            holds = got["wall"] <= bound
            over += not holds
            secs = "" if got["seconds"] is None else f"{got['seconds']:.2f}"
            print(f"{puzzle:<10} {method:<12} {limit:>6g} {got['status']:<8} {secs:>9} "
                  f"{got['wall']:>8.2f} {bound:>8.2f}  {'yes' if holds else 'NO'}", flush=True)
    print(f"{over} run(s) over the bound")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
