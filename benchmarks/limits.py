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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests import limitslib  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limits", default="1,5", help="Time limits in seconds (default 1,5).")
    ap.add_argument("--only", default=None, help="Puzzles to time (default: all).")
    args = ap.parse_args(argv)
    limits = [float(x) for x in args.limits.split(",")]
    only = set(args.only.split(",")) if args.only else None
    start = min(limitslib.start_up() for _ in range(3))
    print(f"start-up (import and plugins, best of 3): {start:.2f} s")
    print("method s: from the method's call to its answer (bound limit x 1.1 + 0.2 s); wall s: "
          "the whole process (bound: that + start-up)")
    print(f"{'puzzle':<10} {'method':<12} {'limit':>6} {'status':<8} {'method s':>9} "
          f"{'bound':>6} {'wall s':>8} {'bound':>6}  holds")
    over = over_method = 0
    for puzzle, method, rel in limitslib.cases():
        if only and puzzle not in only:
            continue
        for limit in limits:
            got = limitslib.timed(puzzle, method, rel, limit)
            inner = limit * 1.1 + 0.2
            bound = inner + start
            holds = got["wall"] <= bound
            inner_holds = got["seconds"] is not None and got["seconds"] <= inner
            over += not holds
            over_method += not inner_holds
            secs = "" if got["seconds"] is None else f"{got['seconds']:.2f}"
            verdict = "yes" if holds else ("NO (wall)" if inner_holds else "NO")
            print(f"{puzzle:<10} {method:<12} {limit:>6g} {got['status']:<8} {secs:>9} "
                  f"{inner:>6.2f} {got['wall']:>8.2f} {bound:>6.2f}  {verdict}", flush=True)
    print(f"{over} run(s) over the wall bound; {over_method} over the method bound")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
