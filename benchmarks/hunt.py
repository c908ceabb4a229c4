"""Break my program: how fast a hunt finds a small breaker of a wrong program, per puzzle,
printed beside the targets (not a test; figures for the issue's note).

Targets (2 cores):

- Skynet Episode 2, a program that cuts the gateway link nearest the agent: a breaker of at
  most 8 nodes in at most 60 s; the article's Episode 2 bot and our other Episode 2 bots, run
  as programs (``puzzleproof skynet play --bot NAME``), a breaker each where one exists, in
  at most 2 minutes each;
- Hashi, a program that ignores crossings and one that follows the article's heuristic
  without guessing: a failing puzzle each in at most 60 s (the smallest the hunt finds);
- City closing, a program that closes the city of smallest degree, and the article's greedy
  as a program: a map with a gap of at least 5 % of at most 12 cities in at most 60 s;
- Death Run, a greedy student file: a graph where it pays at least 20 above the certified
  bound, shrunk, in at most 2 minutes.

Usage:
    python benchmarks/hunt.py [--part skynet|hashi|cityclose|deathrun|all] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.command.test_hunt import (CITY_SMALLEST_DEGREE, GREEDY_STUDENT,  # noqa: E402
                       HASHI_NO_CROSSING_RULE, SKYNET_NEAREST_LINK)

PY = sys.executable

#: the article's greedy as a program: the project's own greedy, through the Python API
CITY_GREEDY = """\
import sys
import puzzleproof
from puzzleproof.formats.cityclose import read_map
res = puzzleproof.solve(read_map(sys.stdin.read()), method="greedy")
print("\\n".join(res.answer["order"]))
"""

#: the article's solver without guessing (a budget of one search node: the intersection
#: search alone; it answers only when that solves the puzzle)
HASHI_NO_GUESS = """\
import sys
from puzzleproof.formats.hashi import read_puzzles
from puzzleproof.players import hashi_article
res = hashi_article.solve(read_puzzles(sys.stdin.read())[0].puzzle, max_nodes=1)
for line in res.answer or []:
    print(*line)
"""


def hunt(puzzle: str, label: str, command: str, target_s: float, extra: list[str],
         seed: int, size_target: int | None = None) -> dict:
    """One hunt, timed as a whole process; its breaker and the figures beside the target."""
    cmd = [PY, "-m", "puzzleproof", "generate", puzzle, "--bot-cmd", command, "--seed",
           str(seed), "--time-limit", str(target_s), "-q", *extra]
    load = os.getloadavg()[0]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.monotonic() - t0
    line = proc.stdout.strip().splitlines()[:1]
    doc = json.loads(line[0]) if line else None
    size = doc["hunt"]["size"] if doc else None
    ok = doc is not None and wall <= target_s + 15 and (size_target is None
                                                        or size <= size_target)
    found = (f"{doc['failure']['kind']}: {doc['failure']['summary'][:90]}; size {size} "
             f"(drawn {doc['hunt']['original_size']}, {doc['hunt']['shrink_steps']} shrink "
             f"steps)" if doc else "no breaker")
    print(f"{puzzle:<9} {label:<28} {wall:6.1f} s (target {target_s:.0f} s"
          + (f", size <= {size_target}" if size_target else "") + f") load {load:.1f}: "
          f"{found} -> {'PASS' if ok else 'FAIL'}", flush=True)
    return {"puzzle": puzzle, "program": label, "wall": wall, "doc": doc, "ok": ok}


def part_skynet(tmp: Path, seed: int) -> list[dict]:
    bot = tmp / "near.py"
    bot.write_text(textwrap.dedent(SKYNET_NEAREST_LINK))
    out = [hunt("skynet", "nearest gateway link", f"near={PY} {bot}", 60,
                ["--agent", "article", "--nodes", "8"], seed, size_target=8)]
    for name in ("ep2-article", "ep2-slack", "ep2-double", "ep2-nearest", "ep2-pqdfs"):
        out.append(hunt("skynet", name, f"{name}={PY} -m puzzleproof skynet play --bot {name}",
                        120, ["--agent", "worst", "--nodes", "12", "--init-timeout", "10"],
                        seed))
    return out


def part_hashi(tmp: Path, seed: int) -> list[dict]:
    cross = tmp / "cross.py"
    cross.write_text(textwrap.dedent(HASHI_NO_CROSSING_RULE))
    guess = tmp / "noguess.py"
    guess.write_text(HASHI_NO_GUESS)
    return [hunt("hashi", "ignores crossings", f"cross={PY} {cross}", 60,
                 ["--init-timeout", "5"], seed),
            hunt("hashi", "article without guessing", f"noguess={PY} {guess}", 60,
                 ["--init-timeout", "10"], seed)]


def part_cityclose(tmp: Path, seed: int) -> list[dict]:
    deg = tmp / "deg.py"
    deg.write_text(textwrap.dedent(CITY_SMALLEST_DEGREE))
    greedy = tmp / "greedy.py"
    greedy.write_text(CITY_GREEDY)
    return [hunt("cityclose", "smallest degree", f"deg={PY} {deg}", 60,
                 ["--min-gap", "0.05"], seed, size_target=12),
            hunt("cityclose", "the article's greedy", f"greedy={PY} {greedy}", 60,
                 ["--min-gap", "0.05", "--init-timeout", "10"], seed, size_target=12)]


def part_deathrun(tmp: Path, seed: int) -> list[dict]:
    student = tmp / "student.py"
    student.write_text(textwrap.dedent(GREEDY_STUDENT))
    cmd = [PY, "-m", "puzzleproof", "generate", "deathrun", "--student", str(student),
           "--seed", str(seed), "--time-limit", "120", "-q"]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.monotonic() - t0
    line = proc.stdout.strip().splitlines()[:1]
    doc = json.loads(line[0]) if line else None
    ok = doc is not None and doc["evidence"]["excess"] >= 20 and wall <= 135
    print(f"deathrun  greedy student file         {wall:6.1f} s (target 120 s): "
          + (f"{doc['failure']['summary']}; {doc['hunt']['size']} vertices (drawn "
             f"{doc['hunt']['original_size']}, {doc['hunt']['shrink_steps']} shrink steps)"
             if doc else "no breaker") + f" -> {'PASS' if ok else 'FAIL'}", flush=True)
    return [{"puzzle": "deathrun", "wall": wall, "doc": doc, "ok": ok}]


PARTS = {"skynet": part_skynet, "hashi": part_hashi, "cityclose": part_cityclose,
         "deathrun": part_deathrun}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", default="all", choices=["all", *PARTS])
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, part in PARTS.items():
            if args.part in ("all", name):
                results += part(Path(tmp), args.seed)
    passed = sum(r["ok"] for r in results)
    print(f"{passed} of {len(results)} targets met")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
