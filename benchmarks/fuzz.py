"""The long fuzz run, before a release: every verb x puzzle on mutated inputs for N minutes.

The cases are the ones ``tests/command/test_fuzz.py`` draws (see ``tests/fuzzlib.py``): a shipped
instance (or a check's answer) mutated by truncation, byte flips, huge and negative numbers,
wrong JSON types, non-ASCII digits, deep nesting, duplicate keys...; each is run as
``python -m puzzleproof ...`` in a fresh folder with a timeout. A run fails when it exits
with anything but 0/1/2, hangs past the timeout, prints a traceback or an "internal error",
spreads an error over several lines, or leaves an output file half-written.

Prints the cases tried, per verb/puzzle counts (exit codes, failures, slowest run) and every
failure; each failure is saved as a corpus candidate in ``--save`` (default
``tests/fuzz_corpus/candidates/``): look at it, give it a name for what it found, and move
it to ``tests/fuzz_corpus/`` so that every test run replays it.

Usage:
    python benchmarks/fuzz.py --minutes 10 [--seed S] [--jobs 2] [--timeout 60]
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests import fuzzlib  # noqa: E402


def draw(rnd: random.Random) -> fuzzlib.Case | None:
    verb, puzzle = rnd.choice(sorted(fuzzlib.COMMANDS))
    seeds = fuzzlib.available_seeds(puzzle)
    if not seeds:
        return None
    names = rnd.sample(sorted(fuzzlib.MUTATORS), rnd.randint(1, 3))
    target = rnd.choice(["in", "ans"]) if verb == "check" else "in"
    return fuzzlib.make_case(verb, puzzle, rnd.choice(seeds), names, rnd.randrange(2**32),
                             target)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, required=True, help="How long to run.")
    ap.add_argument("--seed", type=int, default=0, help="Seed of the cases drawn.")
    ap.add_argument("--jobs", type=int, default=2, help="Runs at once (default 2).")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="Seconds a run may take before it counts as a hang (default 60).")
    ap.add_argument("--save", type=Path, default=fuzzlib.CORPUS / "candidates",
                    help="Folder for the failures' corpus candidates.")
    args = ap.parse_args(argv)

    rnd = random.Random(args.seed)
    end = time.monotonic() + args.minutes * 60
    t0 = time.monotonic()
    tried = 0
    codes: dict[tuple[str, str], Counter] = defaultdict(Counter)
    slowest: dict[tuple[str, str], float] = defaultdict(float)
    failures: list[tuple[fuzzlib.Case, fuzzlib.Outcome]] = []
    work = Path(tempfile.mkdtemp(prefix="puzzleproof-fuzz-"))

    def one(case: fuzzlib.Case, k: int) -> tuple[fuzzlib.Case, fuzzlib.Outcome]:
        folder = work / f"case{k}"
        try:
            return case, fuzzlib.run_case(case, folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    try:
        with ThreadPoolExecutor(args.jobs) as pool:
            running = set()
            k = 0
            while True:
                while len(running) < args.jobs and time.monotonic() < end:
                    case = draw(rnd)
                    if case is None:
                        continue
                    case.timeout = args.timeout
                    running.add(pool.submit(one, case, k))
                    k += 1
                if not running:
                    break
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for fut in done:
                    case, out = fut.result()
                    tried += 1
                    key = (case.verb, case.puzzle)
                    codes[key]["timeout" if out.code is None else str(out.code)] += 1
                    slowest[key] = max(slowest[key], out.seconds)
                    if out.problems:
                        codes[key]["FAILED"] += 1
                        failures.append((case, out))
                        print(f"FAIL {case.verb} {case.puzzle} ({case.note}): "
                              f"{'; '.join(out.problems)}", flush=True)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    elapsed = time.monotonic() - t0
    print(f"\n{tried} cases in {elapsed:.0f} s ({args.jobs} at once, seed {args.seed}), "
          f"{len(failures)} failures")
    print(f"{'verb':<11} {'puzzle':<10} {'cases':>6} {'exit 0':>7} {'exit 1':>7} {'exit 2':>7} "
          f"{'failed':>7} {'slowest s':>10}")
    for key in sorted(codes):
        c = codes[key]
        print(f"{key[0]:<11} {key[1]:<10} {sum(v for k, v in c.items() if k != 'FAILED'):>6} "
              f"{c['0']:>7} {c['1']:>7} {c['2']:>7} {c['FAILED']:>7} {slowest[key]:>10.1f}")
    if failures:
        args.save.mkdir(parents=True, exist_ok=True)
        for j, (case, out) in enumerate(failures, start=1):
            reason = out.problems[0].split(":")[0].replace(" ", "-")[:40]
            path = args.save / f"{case.verb}-{case.puzzle}-{reason}-s{args.seed}-{j}.json"
            case.expect = (0, 1, 2)
            case.note = f"{case.note}; found: {'; '.join(out.problems)}"[:600]
            path.write_text(case.to_json())
            print(f"  saved {path}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
