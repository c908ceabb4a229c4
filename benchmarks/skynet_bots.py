"""Figures for Skynet: the articles' bots against the agent models on the official maps, and
how well each agent model reproduces CodinGame's logged agent moves.

Prints, per bot x agent model x map (official Episode 2 maps from their given starts, and the
forum map): win or loss, cuts used, the longest turn (ms, in process); then every bot through
the real protocol (``puzzleproof skynet play`` in a subprocess, refereed with the 150 ms limit)
with its longest turn; then the traces table.

Usage:
    python benchmarks/skynet_bots.py
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from puzzleproof.formats.skynet import read_map
from puzzleproof.models.skynet import replay
from puzzleproof.verify.skynet_agents import AGENTS, make_agent, measure_traces
from puzzleproof.verify.skynet_bots import BOTS, make_bot
from puzzleproof.verify.skynet_referee import play, play_external

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "instances" / "skynet"


def load_maps():
    files = sorted((SHARED / "ep2").glob("*.txt")) + [SHARED / "custom" / "forum-12-nodes.txt"]
    return [read_map(f.read_text(), f.stem) for f in files]


def main() -> int:
    if not SHARED.is_dir():
        sys.exit(f"{SHARED} is absent: outside data lives in ../shared/instances/skynet/")
    maps = load_maps()
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}\n")
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

    print("\n2. Through the protocol: 'python -m puzzleproof skynet play --bot B' refereed "
          "against the article agent, 150 ms a turn after the first (1 s for start-up).")
    print(f"{'bot':12} | " + " | ".join(f"{n:>16}" for n in names))
    for b in BOTS:
        rule = make_bot(b).rule
        cells = []
        for m in maps:
            r = play_external(m, rule, [sys.executable, "-m", "puzzleproof", "skynet", "play",
                                        "--bot", b], make_agent("article"))
            later = r.turn_seconds[1:] or [0.0]
            cells.append(f"{r.result[0]} {r.reason[:7]:7} {max(later) * 1000:5.1f}")
        print(f"{b:12} | " + " | ".join(f"{c:>16}" for c in cells))
    print("   (cell: result, reason, longest turn after the first in ms, pipe round trip "
          "included)")

    print("\n3. Agent models against CodinGame's logs (ep2-observed-traces.json): logged agent "
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
