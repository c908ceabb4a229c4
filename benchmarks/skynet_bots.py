"""Figures for Skynet: the articles' bots against the agent models on the official maps, and
how well each agent model reproduces CodinGame's logged agent moves.

Prints, per bot x agent model x map (official Episode 2 maps from their given starts, and the
forum map): win or loss, cuts used, the longest turn (ms, in process); then every bot through
the real protocol (``puzzleproof skynet play`` in a subprocess, refereed with the 150 ms limit)
with its longest turn; then the traces table.

Section 4 (``--adversary``): the worst-case adversary
(:mod:`puzzleproof.games.skynet_adversary`) per official map, every start, for the articles'
bots, the common rule and our exact bot: PROVED / BEATEN / lost because unwinnable / UNKNOWN,
next to the article-agent and nearest-agent games, with the time and lines per start. Section 5
(``--target``): issue 32's target, ``skynet referee ep2/*.txt --all-starts --agent worst
--time-limit 8 -- puzzleproof skynet play --bot exact`` over the six official Episode 2 maps
in one batch (and the same with the plain Python bot ``benchmarks/skynet_slack_bot.py``),
printed beside the target: every winnable start PROVED, no UNKNOWN, <= 120 s. It gives the
whole process tree's CPU time (program copies included) and the load average, because
wall times on a shared machine say little, and replays every PROVED certificate again with
the rules-only checker.

Measured before issue 32 (2 cores shared with four other jobs): section 4 at 15 s a start:
maps 01-04 every bot PROVED on every winnable start (3, 1, 3, 3), the rest lost because
unwinnable, <= 2 s a start; maps 05-06 all winnable starts UNKNOWN at 15 s (600-3,000
lines); the exact bot at 90 s a start: 05 6 PROVED, 7 UNKNOWN, 06 all 12 PROVED. Section 5
(the plain bot, forked): maps 01-04 in 12.5-18 s; 8 s a start on maps 05-06, all 25 winnable
starts UNKNOWN (150.5 s in all); 90 s a start, 13 of 25 PROVED (970 s).

Section 5 measured with what each start settles shared by the next (November 2026, 2 cores
shared with other jobs, load average 5 to 15, so wall times are several times a quiet
machine's):

- the exact bot (``puzzleproof skynet play --bot exact``, now forked as a console script),
  8 s a start, the target command as given: maps 01-04 all 10 winnable starts PROVED, 27
  unwinnable; maps 05-06 0 of 25 PROVED, 24 UNKNOWN, 1 BEATEN (init-timeout: the
  program's start-up and first turn past the default 1 s under the load); 13,222 + 30,353
  positions asked; 143.7 s wall, 148.7 s CPU (load 5.7 -> 10.0). A fork of this program
  costs about 4.4 ms of CPU, and a winnable start of maps 05-06 needs 10,000-46,000
  positions (about 0.6 forks each; 150,000 + 102,000 over all starts of each map): the
  target is out of reach for it by a factor of ten or more.
- the plain bot, 8 s a start: the same on maps 01-04; 05-06 2 of 25 PROVED, 23 UNKNOWN
  (32,933 + 65,659 positions asked, 18,406 taken over from earlier starts), 110.9 s wall,
  150.1 s CPU (load 10.0 -> 9.7).
- the plain bot, 90 s a start and ``--init-timeout 5`` (the issue measured 13 of 25 PROVED
  in 970 s): 24 of 25
  PROVED, 1 UNKNOWN, 465 s wall, 367 s CPU (load 7-15); later starts of a map ended on the
  positions earlier ones settled (158,805 + 106,481 positions taken over, 136,546 + 105,217
  asked).

Usage:
    python benchmarks/skynet_bots.py                    # sections 1-3
    python benchmarks/skynet_bots.py --adversary [--limit S] [--bots B,B] [--maps 05,06]
    python benchmarks/skynet_bots.py --target [--program exact,slack] [--far-limit S]
                                     [--init-timeout S] [--no-fork]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from puzzleproof.games.program import Program
from puzzleproof.clock import Deadline
from puzzleproof.formats.skynet import read_map
from puzzleproof.models.skynet import replay
from puzzleproof.players.skynet_agents import AGENTS, make_agent, measure_traces
from puzzleproof.players.skynet_bots import BOTS, make_bot
from puzzleproof.games.skynet_referee import play, play_external

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "instances" / "skynet"


def load_maps():
    files = sorted((SHARED / "ep2").glob("*.txt")) + [SHARED / "custom" / "forum-12-nodes.txt"]
    return [read_map(f.read_text(), f.stem) for f in files]


def _adversary_task(args):
    from puzzleproof.games.skynet_adversary import BotPlayer, adversary

    m, bot, start, limit = args
    rule = make_bot(bot).rule
    r = adversary(m, rule, start, BotPlayer(bot), deadline=Deadline(limit), certificate=False)
    games = {a: play(m, rule, make_bot(bot), make_agent(a, "low", 0), start).result
             for a in ("article", "nearest")}
    return m.name, bot, start, r.verdict, r.seconds, r.lines, r.positions, games


def adversary_table(limit: float, jobs: int = 2, bots=("ep2-article", "ep2-slack", "exact"),
                    only: tuple[str, ...] = ()) -> None:
    """Section 4: every start of every official map, each bot against the adversary."""
    from puzzleproof.processes import process_pool

    maps = [read_map(f.read_text(), f.stem) for f in sorted((SHARED / "ep2").glob("*.txt"))
            if not only or f.stem[:2] in only]
    tasks = [(m, b, s, limit) for m in maps for b in bots
             for s in range(m.n) if s not in m.gateways]
    print(f"4. The worst-case adversary, every start, {limit:g} s per start, {jobs} processes "
          "(PROVED / BEATEN / lost: unwinnable / UNKNOWN; the article and nearest agents' "
          "games: starts lost; time and lines per start: mean / max)")
    print(f"{'map':32} {'bot':12} {'starts':>6} {'PRV':>4} {'BEAT':>4} {'UNW':>4} {'UNK':>4} | "
          f"{'art.lost':>8} {'near.lost':>9} | {'s mean':>7} {'s max':>7} | {'lines mean':>10} "
          f"{'lines max':>9}")
    rows: dict = {}
    with process_pool(jobs) as pool:
        for name, bot, start, verdict, secs, lines, _pos, games in pool.map(
                _adversary_task, tasks, chunksize=1):
            row = rows.setdefault((name, bot), {"starts": 0, "PROVED": 0, "BEATEN": 0,
                                                "UNWINNABLE": 0, "UNKNOWN": 0, "art": 0,
                                                "near": 0, "secs": [], "lines": []})
            row["starts"] += 1
            row[verdict] += 1
            row["art"] += games["article"] == "LOSS"
            row["near"] += games["nearest"] == "LOSS"
            row["secs"].append(secs)
            row["lines"].append(lines)
    for (name, bot), r in rows.items():
        print(f"{name[:32]:32} {bot:12} {r['starts']:>6} {r['PROVED']:>4} {r['BEATEN']:>4} "
              f"{r['UNWINNABLE']:>4} {r['UNKNOWN']:>4} | {r['art']:>8} {r['near']:>9} | "
              f"{sum(r['secs']) / len(r['secs']):7.2f} {max(r['secs']):7.2f} | "
              f"{sum(r['lines']) / len(r['lines']):10.1f} {max(r['lines']):9}")


TARGET = ("every winnable start PROVED (25 on maps 05-06), every unwinnable one said so, "
          "no UNKNOWN, the six maps in <= 120 s")
PROGRAMS = {"exact": "{puzzleproof} skynet play --bot exact",
            "slack": "{python} " + str(Path(__file__).resolve().parent / "skynet_slack_bot.py")}


def run_measured(cmd: list[str]) -> dict:
    """Run ``cmd``; its wall time and the CPU time of its whole process tree (this process
    becomes a child subreaper, so every descendant that outlives its parent is reaped and
    counted here), with the load average before and after."""
    import resource
    import subprocess
    import time

    from puzzleproof.processes import set_child_subreaper

    set_child_subreaper()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load0, t0 = os.getloadavg()[0], time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    code = None
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        if pid == proc.pid:
            code = os.waitstatus_to_exitcode(status)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"wall": time.monotonic() - t0, "exit": code, "load": (load0, os.getloadavg()[0]),
            "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)}


def target_rows(out: Path) -> dict:
    """Per map, from the batch's records: verdicts, lines, runs, forks, positions asked and
    taken from earlier starts, and every PROVED certificate replayed again here by the
    rules-only checker."""
    from puzzleproof.models.skynet_strategy import check_player_strategy

    maps = {f.stem: read_map(f.read_text(), f.stem) for f in (SHARED / "ep2").glob("*.txt")}
    rows: dict = {}
    for line in out.read_text().splitlines():
        r = json.loads(line) if line.strip() else {}
        if r.get("type") != "record":
            continue
        key, start = Path(r["instance"].split("@")[0]).stem, int(r["instance"].split("@")[1])
        a = r.get("answer") or {}
        row = rows.setdefault(key, {"PROVED": 0, "BEATEN": 0, "UNWINNABLE": 0, "UNKNOWN": 0,
                                    "lines": 0, "runs": 0, "forks": 0, "asked": 0,
                                    "shared": 0, "checked": 0, "max_s": 0.0})
        row[a.get("adversary") or "UNKNOWN"] += 1
        for k, field in (("lines", "lines"), ("runs", "replays"), ("forks", "forks"),
                         ("asked", "positions"), ("shared", "shared")):
            row[k] += a.get(field) or 0
        row["max_s"] = max(row["max_s"], a.get("seconds") or 0.0)
        if a.get("adversary") == "BEATEN":
            rec = a.get("record") or {}
            row.setdefault("beaten", []).append(f"{start}: {rec.get('reason')} after "
                                                f"{len(rec.get('turns') or [])} turn(s)")
        if a.get("adversary") == "PROVED" and a.get("strategy"):
            ok = check_player_strategy(maps[key], a.get("rule", "ep2"), start,
                                       a["strategy"]) == []
            row["checked"] += ok
            assert ok, f"{key}@{start}: a PROVED certificate fails the rules"
    return dict(sorted(rows.items()))


def external_target(program: str, limit: float, fork: bool = True,
                    init_timeout: float | None = None) -> None:
    """Section 5: the issue's target, an external program judged with ``--agent worst``
    over every start of the six official maps in one batch."""
    import tempfile

    exe = Path(sys.executable).parent / "puzzleproof"
    command = PROGRAMS[program].format(puzzleproof=exe, python=sys.executable)
    files = sorted((SHARED / "ep2").glob("*.txt"))
    print(f"5. {command!r} judged with --agent worst over every start of the six maps, "
          f"--time-limit {limit:g}" + ("" if fork else ", --no-fork (a fresh run a line)")
          + (f", --init-timeout {init_timeout:g}" if init_timeout else ""))
    print(f"   target: {TARGET}")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "games.jsonl"
        cmd = [str(exe), "skynet", "referee", *map(str, files), "--all-starts", "--agent",
               "worst", "--time-limit", str(limit), "-q", "-o", str(out)]
        cmd += ([] if fork else ["--no-fork"])
        cmd += ([] if init_timeout is None else ["--init-timeout", str(init_timeout)])
        run = run_measured(cmd + ["--", *command.split()])
        rows = target_rows(out)
    print(f"{'map':32} {'PRV':>4} {'BEAT':>4} {'UNW':>4} {'UNK':>4} | {'lines':>7} "
          f"{'runs':>5} {'forks':>7} | {'asked':>7} {'shared':>7} | {'max s':>5} "
          f"{'re-checked':>10}")
    for key, c in rows.items():
        print(f"{key[:32]:32} {c['PROVED']:>4} {c['BEATEN']:>4} {c['UNWINNABLE']:>4} "
              f"{c['UNKNOWN']:>4} | {c['lines']:>7} {c['runs']:>5} {c['forks']:>7} | "
              f"{c['asked']:>7} {c['shared']:>7} | {c['max_s']:5.1f} {c['checked']:>10}")
    for key, c in rows.items():
        for what in c.get("beaten", []):
            print(f"   BEATEN {key} from {what}")
    far = [c for k, c in rows.items() if k[:2] in ("05", "06")]
    print(f"   maps 05-06: {sum(c['PROVED'] for c in far)} PROVED of 25 winnable, "
          f"{sum(c['UNKNOWN'] for c in far)} UNKNOWN, {sum(c['BEATEN'] for c in far)} BEATEN "
          "(target 25, 0, 0)")
    print(f"   six maps: {run['wall']:.1f} s wall (target <= 120 s), {run['cpu']:.1f} s CPU "
          f"for the whole process tree, load average {run['load'][0]:.1f} -> "
          f"{run['load'][1]:.1f} on {os.cpu_count()} cores; exit {run['exit']}")


def in_process_games(maps) -> None:
    """Section 1."""
    print("1. In-process games from each map's given start (agent ties: lowest id; the "
          "random agent with seed 0). Cell: W/L, cuts, longest turn in ms; "
          "ep1 bots play ep1 rules, ep2 bots ep2 rules.")
    names = [m.name[:14] for m in maps]
    print(f"{'bot':12} {'agent':8} | " + " | ".join(f"{n:>16}" for n in names))
    for b in BOTS:
        for a in AGENTS:
            cells = []
            for m in maps:
                bot = make_bot(b)
                r = play(m, bot.rule, bot, make_agent(a, "low", 0))
                assert replay(r) == [], (b, a, m.name)
                tag = r.result[0] if r.reason != "crash" else "C"
                cells.append(f"{tag} {r.cuts:>2} {max(r.turn_seconds, default=0) * 1000:7.2f}")
            print(f"{b:12} {a:8} | " + " | ".join(f"{c:>16}" for c in cells))
    print("   (C = the ported program fails: the article's JavaScript would throw there)")


def protocol_games(maps) -> None:
    """Section 2."""
    names = [m.name[:14] for m in maps]
    print("2. Through the protocol: 'python -m puzzleproof skynet play --bot B' refereed "
          "against the article agent, 150 ms a turn after the first (1 s for start-up).")
    print(f"{'bot':12} | " + " | ".join(f"{n:>16}" for n in names))
    for b in BOTS:
        rule = make_bot(b).rule
        cells = []
        for m in maps:
            r = play_external(m, rule, Program.of([sys.executable, "-m", "puzzleproof", "skynet",
                                                   "play", "--bot", b]), make_agent("article"))
            later = r.turn_seconds[1:] or [0.0]
            cells.append(f"{r.result[0]} {r.reason[:7]:7} {max(later) * 1000:5.1f}")
        print(f"{b:12} | " + " | ".join(f"{c:>16}" for c in cells))
    print("   (cell: result, reason, longest turn after the first in ms, pipe round trip "
          "included)")


def traces_table() -> None:
    """Section 3."""
    print("3. Agent models against CodinGame's logs (ep2-observed-traces.json): logged agent "
          "moves reproduced")
    traces = json.loads((SHARED / "ep2-observed-traces.json").read_text())
    by_key = {}
    for key in traces:
        stem = key.split("(")[0].replace("_", "-")
        by_key[key] = read_map((SHARED / "ep2" / f"{stem}.txt").read_text(), key)
    table = measure_traces(traces, by_key)
    models = sorted({k for row in table.values() for k in row["models"]})
    print(f"{'log':34} {'moves':>5} | " + " ".join(f"{k:>14}" for k in models) + " | best")
    for key, row in table.items():
        if "skipped" in row:
            print(f"{key[:34]:34} {'-':>5} | skipped: {row['skipped']}")
            continue
        print(f"{key[:34]:34} {row['moves']:>5} | "
              + " ".join(f"{row['models'][k]:>14}" for k in models)
              + f" | {row['best']}/{row['moves']} by {', '.join(row['best_models'][:3])}")
    total = sum(r["moves"] for r in table.values())
    for k in models:
        got = sum(r["models"].get(k, 0) for r in table.values())
        print(f"   {k:14} reproduces {got}/{total} logged moves in all")


def main() -> int:
    if not SHARED.is_dir():
        sys.exit(f"{SHARED} is absent: outside data lives in ../shared/instances/skynet/")
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--adversary", action="store_true",
                    help="section 4 alone: the worst-case adversary per map and start")
    ap.add_argument("--limit", type=float, default=60.0,
                    help="section 4: seconds per (bot, start) (default 60)")
    ap.add_argument("--bots", default="ep2-article,ep2-slack,exact",
                    help="section 4: bots, comma-separated (default: %(default)s)")
    ap.add_argument("--maps", default="",
                    help="section 4: only these maps by number (01,05), "
                         "comma-separated (default: all six)")
    ap.add_argument("--target", action="store_true",
                    help="section 5 alone: an external program over the six official maps")
    ap.add_argument("--program", default="exact,slack",
                    help="section 5: exact (the issue's 'puzzleproof skynet play --bot exact'),"
                         " slack (benchmarks/skynet_slack_bot.py), comma-separated "
                         "(default: %(default)s)")
    ap.add_argument("--far-limit", type=float, default=8.0,
                    help="section 5: --time-limit, seconds per start (default 8)")
    ap.add_argument("--init-timeout", type=float, default=None,
                    help="section 5: --init-timeout for the program (default: the referee's)")
    ap.add_argument("--no-fork", action="store_true",
                    help="section 5: run the program afresh for every line")
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}\n")
    if args.adversary or args.target:
        if args.adversary:
            adversary_table(args.limit, bots=tuple(args.bots.split(",")),
                            only=tuple(x for x in args.maps.split(",") if x))
        for program in (args.program.split(",") if args.target else []):
            external_target(program, args.far_limit, fork=not args.no_fork,
                            init_timeout=args.init_timeout)
        return 0
    maps = load_maps()
    in_process_games(maps)
    print()
    protocol_games(maps)
    print()
    traces_table()
    return 0


if __name__ == "__main__":
    sys.exit(main())
