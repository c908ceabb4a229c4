"""Death Run figures (not a test): engine speed, bound vs reality, strength of the bots.

    .venv/bin/python benchmarks/deathrun.py [--part speed|files|bound|strength|all]
        [--games 1000] [--graphs 100] [--jobs 2] [--seed 0] [--out DIR]

- speed: ``--games`` games of fast built-in bots (criminals random/crowd/gap-toll, students
  random/greedy/cautious) on ``--jobs`` processes; games per second. Target: 1000 in 2 min.
- files: the same number of games with the contest-style files of instances/deathrun/bots
  (3 of the 10 seats) in worker processes. Target: 1000 in 5 min.
- bound: on ``--graphs`` contest graphs: the nominal shortest path, the exact integer-raise
  values for combined budgets 100 and 200 (the research's setting: about 97 and 137), the
  certified real-valued bound (upper table, step 1) and the model's lower bound for 200;
  then the realised cost of each student bot against each criminal (a pair of the same
  criminal, a mixed field of two of each student bot).
- strength: a tournament of every built-in bot (about ``--games`` games), its table.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from puzzleproof.models.deathrun import generate_graph, nominal_distance  # noqa: E402
from puzzleproof.verify.deathrun_tournament import (GameSpec, run_games,  # noqa: E402
                                                    run_tournament, plot_scores)

BOTS = ROOT / "instances" / "deathrun" / "bots"


def _specs(n: int, seed: int, crims, studs, files: bool) -> list[GameSpec]:
    out = []
    for i in range(n):
        g = generate_graph(f"bench:{seed}:{i % 50}").to_json()
        c = (crims[i % len(crims)], crims[(i + 1) % len(crims)])
        s = tuple(studs[(i + j) % len(studs)] for j in range(8))
        if files:
            c = (str(BOTS / "criminal.py"), c[1])
            s = (str(BOTS / "student.py"), str(BOTS / "student.py:DijkstraStudent")) + s[2:]
        out.append(GameSpec(f"b{i}", "students", i % 50, g, f"{seed}:{i}", c, s))
    return out


def part_speed(args, files: bool) -> dict:
    specs = _specs(args.games, args.seed, ["random", "crowd", "gap-toll"],
                   ["random", "greedy", "cautious"], files)
    t0 = time.monotonic()
    recs = run_games(specs, jobs=args.jobs)
    wall = time.monotonic() - t0
    inv = sum(len(r["invalid_moves"]) for r in recs)
    res = {"part": "files" if files else "speed", "games": len(recs), "jobs": args.jobs,
           "seconds": round(wall, 1), "games_per_second": round(len(recs) / wall, 2),
           "invalid_moves": inv}
    print(json.dumps(res), flush=True)
    return res


def _bound_one(i: int, seed: int) -> dict:
    from puzzleproof.encoders.deathrun_student import integer_value, robust_table

    g = generate_graph(f"bound:{seed}:{i}")
    t = robust_table(g, 200, 1.0, lower=True, cache=False)
    return {"nominal": nominal_distance(g), "int100": integer_value(g, 100),
            "int200": integer_value(g, 200), "upper200": t.bound(),
            "lower200": t.lower_bound()}


def part_bound(args) -> dict:
    t0 = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as ex:
        rows = list(ex.map(_bound_one, range(args.graphs), [args.seed] * args.graphs))
    res = {"part": "bound", "graphs": len(rows),
           **{k: round(statistics.fmean(r[k] for r in rows), 2) for k in rows[0]},
           "seconds": round(time.monotonic() - t0, 1)}
    print(json.dumps(res), flush=True)
    crims = ["random", "crowd", "gap-toll", "toll"]
    studs = ["random", "greedy", "cautious", "robust"]
    specs = []
    for c in crims:
        for i in range(args.graphs):
            g = generate_graph(f"bound:{args.seed}:{i}").to_json()
            rot = i % 4
            order = tuple(studs[rot:] + studs[:rot])
            specs.append(GameSpec(f"{c}:{i}", "students", i, g, f"{args.seed}:{c}:{i}",
                                  (c, c), order + order))
    recs = run_games(specs, jobs=args.jobs)
    table: dict = {}
    worst_gap = None
    bounds = {i: r["upper200"] for i, r in enumerate(rows)}
    for r in recs:
        c = r["seats"][0]["bot"]
        for s in r["seats"][2:]:
            cost = r["scores"]["students"][s["seat"] - 2]
            table.setdefault(s["bot"], {}).setdefault(c, []).append(cost)
            if s["bot"] == "robust":
                gap = bounds[r["graph_index"]] - cost
                worst_gap = gap if worst_gap is None else min(worst_gap, gap)
    res2 = {"part": "bound-vs-reality", "games": len(recs),
            "mean_cost": {b: {c: round(statistics.fmean(v), 2) for c, v in row.items()}
                          for b, row in table.items()},
            "max_cost": {b: {c: round(max(v), 2) for c, v in row.items()}
                         for b, row in table.items()},
            "robust_min_margin_below_its_bound": round(worst_gap, 2)}
    print(json.dumps(res2), flush=True)
    return {**res, **res2}


def part_strength(args) -> dict:
    from puzzleproof.verify.deathrun_tournament import graphs_for_games

    crims = ["random", "crowd", "gap-toll", "toll", str(BOTS / "criminal.py")]
    studs = ["random", "greedy", "cautious", "robust", str(BOTS / "student.py")]
    n = graphs_for_games(crims, studs, args.games)
    out = Path(args.out) / "deathrun-strength.jsonl"
    if out.exists():
        out.unlink()
    t0 = time.monotonic()
    rep = run_tournament(crims, studs, n, seed=args.seed, jobs=args.jobs, out_path=out)
    plot_scores(rep.records, Path(args.out) / "deathrun-strength.png")
    res = {"part": "strength", "graphs": n, "games": len(rep.records),
           "seconds": round(time.monotonic() - t0, 1), "invalid_moves": len(rep.invalid),
           "summary": {role: [{k: (round(v, 2) if isinstance(v, float) else v)
                               for k, v in row.items() if k in ("bot", "n", "mean", "ci95",
                                                                "rank")}
                              for row in rows] for role, rows in rep.summary.items()}}
    print(json.dumps(res), flush=True)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", default="all",
                    choices=["speed", "files", "bound", "strength", "all"])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--graphs", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="/tmp")
    args = ap.parse_args()
    parts = ["speed", "files", "bound", "strength"] if args.part == "all" else [args.part]
    for p in parts:
        if p == "speed":
            part_speed(args, False)
        elif p == "files":
            part_speed(args, True)
        elif p == "bound":
            part_bound(args)
        else:
            part_strength(args)


if __name__ == "__main__":
    main()
