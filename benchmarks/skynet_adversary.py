"""Issue 32's adversary target on the large official maps, and what it takes.

The target: ``puzzleproof skynet referee ep2/05-*.txt ep2/06-*.txt --all-starts --agent worst
--time-limit 8 -- puzzleproof skynet play --bot exact``: every winnable start PROVED (25),
every unwinnable one said so, no UNKNOWN, the six official maps in at most 120 s.

Three sections, each printed beside the target:

1. ``--target`` runs the command as given (05 and 06) and prints, per map, the verdicts, the
   positions asked and the lines forked, the wall time, the CPU time of the whole process
   tree (the program's forked copies included) and the load average; every PROVED
   certificate is replayed again by the rules-only checker.
2. ``--cost`` measures what one position costs: the same program judged from one start for
   a few seconds, its process tree's CPU time over the positions it asked.
3. ``--needed`` counts the positions a PROVED certificate must hold from each winnable
   start: the exact bot asked in this process (the same code the command runs), every start
   of a map in turn with what earlier starts settled shared, as the command shares it. With
   section 2's cost it gives the CPU time each start needs, beside the 8 s it gets.

A PROVED certificate holds the program's own cut at every position its strategy reaches, so
section 3 is what any sound judge of this program must ask (see the module doc of
``puzzleproof.games.skynet_adversary`` for why no solver verdict may stand in for a question).

Wall times on a shared machine say little: the CPU time and the load are printed beside them.

Measured (November 2026, 2 cores shared with other jobs):

- section 1 as given, load 6.5: 0 PROVED, 25 BEATEN by ``init-timeout``, the 40 unwinnable
  starts said so; 60.5 s wall, 45.7 s CPU. The program's start-up and first turn take 0.74 to
  1.23 s alone on this machine (0.6 s of CPU; its command imports numpy through the puzzle
  registry; the same bot in a script importing only its own modules: 0.3 s), against the
  default limit of 1 s. With ``--init-timeout 5``, load 6.4 -> 9.0: 0 PROVED, 25 UNKNOWN,
  9,621 + 19,909 positions asked, 138.9 s wall, 148.6 s CPU.
- section 2: 05 start 5, 20 s: 2,476 positions, 1,467 forks, 11.3 s of CPU, 4.6 ms a
  position (load 5.5 -> 6.8). From 05 start 35 the search ends PROVED after 91 s (50.6 s of
  CPU for the whole process tree, load 4.9 -> 5.9) with 16,345 positions, the count section 3
  gives for that start.
- section 3: 05, 13 winnable starts, 16,345 to 46,012 positions each, 355,723 in all, none
  shared (the bot's cuts follow a plan made from its start); 06, 12 winnable starts, 4,680
  to 19,377 asked each, 122,780 in all (53,820 more taken over from earlier starts).

So at 3 to 4.6 ms of CPU a position, maps 05 and 06 need some 1,500 to 2,200 s of CPU, where
the target allows 240 (two cores for 120 s), and no start of 05 or 06 fits in 8 s (the
smallest, 06 start 48 after the others, needs about 15 s of CPU). A scheduler that forked
less (lines that go on through positions other lines found, instead of a copy for every
branch) could at best bring the forks down to the widest level of a start's position graph
(05 start 5: 2,218 of 10,277), still above 8 s a start; what a fork costs is the program's
size (4.4 ms for this one, 1.7 ms for the plain bot of ``skynet_slack_bot.py``).

    python benchmarks/skynet_adversary.py [--target] [--cost] [--needed] [--maps 05,06]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from skynet_bots import SHARED, run_measured, target_rows  # noqa: E402

from puzzleproof.clock import Deadline
from puzzleproof.formats.skynet import read_map  # noqa: E402

EXE = Path(sys.executable).parent / "puzzleproof"
PROGRAM = [str(EXE), "skynet", "play", "--bot", "exact"]
TARGET = "25 of 25 winnable starts PROVED, 0 UNKNOWN, <= 120 s for the six maps"


def map_files(keys: list[str]) -> list[Path]:
    return [f for k in keys for f in sorted((SHARED / "ep2").glob(f"{k}-*.txt"))]


def target(keys: list[str], limit: float, init_timeout: float | None) -> None:
    """Section 1: the target command as given (``init_timeout``: a longer first turn than
    the default 1 s, for a loaded machine), measured."""
    files = map_files(keys)
    print(f"1. skynet referee {' '.join(f.name for f in files)} --all-starts --agent worst "
          f"--time-limit {limit:g}" + (f" --init-timeout {init_timeout:g}" if init_timeout
                                        else "") + " -- puzzleproof skynet play --bot exact")
    print(f"   target: {TARGET}")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "games.jsonl"
        cmd = [str(EXE), "skynet", "referee", *map(str, files), "--all-starts", "--agent",
               "worst", "--time-limit", str(limit), "-q", "-o", str(out)]
        cmd += [] if init_timeout is None else ["--init-timeout", str(init_timeout)]
        cmd += ["--", *PROGRAM]
        run = run_measured(cmd)
        rows = target_rows(out)
    print(f"   {'map':28} {'PROVED':>6} {'BEATEN':>6} {'UNWIN':>6} {'UNKNOWN':>7} | "
          f"{'asked':>7} {'forks':>7} | {'max s':>5} {'re-checked':>10}")
    for key, c in rows.items():
        print(f"   {key[:28]:28} {c['PROVED']:>6} {c['BEATEN']:>6} {c['UNWINNABLE']:>6} "
              f"{c['UNKNOWN']:>7} | {c['asked']:>7} {c['forks']:>7} | {c['max_s']:5.1f} "
              f"{c['checked']:>10}")
        for what in c.get("beaten", []):
            print(f"      BEATEN from {what}")
    proved = sum(c["PROVED"] for c in rows.values())
    unknown = sum(c["UNKNOWN"] for c in rows.values())
    print(f"   {proved} PROVED, {unknown} UNKNOWN; {run['wall']:.1f} s wall, {run['cpu']:.1f} s "
          f"CPU (process tree), load {run['load'][0]:.1f} -> {run['load'][1]:.1f} on "
          f"{os.cpu_count()} cores; exit {run['exit']}")


def cost(key: str, start: int, seconds: float) -> float | None:
    """Section 2: CPU seconds per position asked, the program judged from one start."""
    path = map_files([key])[0]
    # a cost, not a verdict: the program's start-up gets time enough on a loaded machine
    cmd = [str(EXE), "skynet", "referee", str(path), "--start", str(start), "--agent",
           "worst", "--time-limit", str(seconds), "--init-timeout", "10", "--json", "--",
           *PROGRAM]
    with tempfile.TemporaryFile("w+") as fh:
        import subprocess

        from puzzleproof.processes import set_child_subreaper

        set_child_subreaper()
        before = os.times()
        load0, t0 = os.getloadavg()[0], time.monotonic()
        subprocess.run(cmd, stdout=fh, stderr=subprocess.DEVNULL)
        while True:  # the program's copies are reaped here too (subreaper)
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                break
        after = os.times()
        fh.seek(0)
        rec = json.loads(fh.read())
    cpu = (after.children_user - before.children_user) + (after.children_system
                                                          - before.children_system)
    if not rec["positions"]:
        print(f"2. {path.name} start {start}: {rec['verdict']} before any position was "
              f"asked ({rec['note']}); no cost measured")
        return None
    per = cpu / rec["positions"]
    print(f"2. {path.name} start {start}, {seconds:g} s: {rec['verdict']}, "
          f"{rec['positions']} positions, {rec['forks']} forks, "
          f"{time.monotonic() - t0:.1f} s wall, {cpu:.1f} s CPU (process tree): "
          f"{per * 1000:.2f} ms of CPU a position (load {load0:.1f} -> "
          f"{os.getloadavg()[0]:.1f})")
    return per


def needed(keys: list[str], per: float | None, limit: float) -> None:
    """Section 3: the positions each winnable start's certificate holds."""
    from puzzleproof.games.skynet_adversary import BotPlayer, adversary, oracle_for
    from puzzleproof.models.skynet_board import Board

    print("3. positions a PROVED certificate of the exact bot holds, per winnable start "
          "(asked in process; what earlier starts settled is shared)")
    for path in map_files(keys):
        m = read_map(path.read_text(), path.name)
        full = Board(m, "ep2").full
        oracle = oracle_for(m, "ep2")
        total = 0
        for st in [v for v in range(m.n) if v not in m.gateways]:
            if not oracle.wins(st, full, Deadline(30)):
                continue
            t0 = time.monotonic()
            r = adversary(m, "ep2", st, BotPlayer("exact"), deadline=Deadline(900))
            total += r.positions
            need = "" if per is None else (f", {r.positions * per:6.1f} s of CPU forked "
                                           f"(limit {limit:g} s)")
            print(f"   {path.stem[:28]:28} start {st:3}: {r.verdict} {r.positions:6} asked, "
                  f"{r.shared:6} shared ({time.monotonic() - t0:.1f} s in process){need}")
        print(f"   {path.stem[:28]:28} in all {total} positions to ask")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", action="store_true", help="Section 1: the command as given.")
    ap.add_argument("--cost", action="store_true", help="Section 2: CPU per position.")
    ap.add_argument("--needed", action="store_true", help="Section 3: positions per start.")
    ap.add_argument("--maps", default="05,06", help="Map numbers (default 05,06).")
    ap.add_argument("--limit", type=float, default=8.0, help="Seconds a start (default 8).")
    ap.add_argument("--init-timeout", type=float, default=None,
                    help="Section 1: the program's first turn (default: the command's 1 s).")
    ap.add_argument("--cost-start", default="05:5", help="MAP:START for section 2.")
    ap.add_argument("--cost-seconds", type=float, default=20.0)
    args = ap.parse_args(argv)
    keys = args.maps.split(",")
    every = not (args.target or args.cost or args.needed)
    if args.target or every:
        target(keys, args.limit, args.init_timeout)
    per = None
    if args.cost or every:
        key, start = args.cost_start.split(":")
        per = cost(key, int(start), args.cost_seconds)
    if args.needed or every:
        needed(keys, per, args.limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
