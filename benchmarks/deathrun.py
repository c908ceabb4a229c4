"""Death Run figures (not a test): engine speed, bound vs reality, strength of the bots, the
league and its targets.

    .venv/bin/python benchmarks/deathrun.py [--part speed|files|bound|strength|why|league|
        mixed|contest|all] [--games 1000] [--graphs 100] [--league-graphs 40] [--jobs 2] [--seed 0]
        [--out DIR]

- speed: ``--games`` games of fast built-in bots (criminals random/crowd/gap-toll, students
  random/greedy/cautious) on ``--jobs`` processes; games per second. Target: 1000 in 2 min.
- files: the same number of games with the contest-style files of instances/deathrun/bots
  (3 of the 10 seats) in worker processes. Target: 1000 in 5 min.
- bound: on ``--graphs`` contest graphs: the nominal shortest path, the exact integer-raise
  values for combined budgets 100 and 200 (the research's setting: about 97 and 137), the
  certified real-valued bound (upper table, step 1) and the model's lower bound for 200;
  then the realised cost of each student bot against each criminal (a pair of the same
  criminal, a mixed field of two of each student bot), ``planner`` next to ``robust``.
- strength: a tournament of every built-in bot (about ``--games`` games), its table.
- why: why the public gap-toll (the league file, written from its description) beats
  ``toll``: every ordered pair of {league gap-toll, toll, built-in gap-toll}, and each of
  them beside a partner that never tolls (league forced), facing a mixed field; per
  criminal: score, budget spent, raises, the share of the students at a raised link's tail
  who crossed it, the budget no student crossed that round, collisions (both criminals on
  one link in one round) and the budget in them, raises on forced links and their budget.
- league: head to head on ``--league-graphs`` contest graphs, seats swapped (each graph
  played twice). Students: 4 seats of ``planner`` and 4 of each other student (built-ins and
  league files), facing criminal pairs in rotation from the league; criminals: ``pricer``
  with each other criminal in both seat orders, facing a mixed field. Each line: both means,
  the paired difference over graphs with its 95 % t interval and p. Also the league's own
  conditions: the described gap-toll beats ``toll``, the minimax student beats ``robust``.
- mixed: a tournament in mixed fields (the tournament's seating) of the new bots with the
  league, on ``--league-graphs`` graphs.
- contest: the bots written to beat the public contest entries, against the league files
  written from those entries' descriptions, on ``--league-graphs`` graphs. Students:
  ``dodger`` x4 against each of minimax4, refuse, fewexit, planner, robust x4, seats swapped,
  facing forced-edge dumpers and full-gap tiers (one pair of ``CONTEST_PAIRS`` a graph), and
  a mixed field of dodger and the three public students (two seats each, two seat orders).
  Criminals: ``ambush`` with each of dumptie, dumpless, tier, patient, forced, pricer in
  both seat orders, and a mixed field (every ordered pair of ambush, dumptie, dumpless,
  tier), facing the public field (minimax4, refuse, fewexit, minimax; two seats each). Then
  the table of who beats whom (markdown, 95 % t intervals over graphs), as in the README.

Targets (printed PASS / FAIL): ``planner``'s mean cost below every other student's and
``pricer``'s mean score above every other criminal's (the league part), ``dodger``'s below
every rival's and ``ambush``'s above every rival's (the contest part), each difference
significant at 95 %, head to head and in mixed fields; 1000 built-in games in under 2
minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import time
from puzzleproof.processes import process_pool
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from puzzleproof.models.deathrun import generate_graph, nominal_distance  # noqa: E402
from puzzleproof.games.deathrun_tournament import (GameSpec, run_games,  # noqa: E402
                                                    run_tournament, plot_scores)

BOTS = ROOT / "instances" / "deathrun" / "bots"
LEAGUE = BOTS / "league"
L = {name: str(LEAGUE / f"{name}.py") for name in (
    "student_greedy", "student_trap", "student_minimax", "criminal_forced", "criminal_gaptoll",
    "criminal_crowd", "student_minimax4", "student_refuse", "student_fewexit",
    "criminal_dumptie", "criminal_dumpless", "criminal_tier", "criminal_patient")}
LEAGUE_STUDENTS = [L["student_greedy"], L["student_trap"], L["student_minimax"]]
LEAGUE_CRIMINALS = [L["criminal_forced"], L["criminal_gaptoll"], L["criminal_crowd"]]
#: the fixed mixed field criminals face (two seats each)
FIELD = ("robust", L["student_minimax"], L["student_trap"], "greedy")
#: the public contest field (the league files written from the public entries' descriptions)
PUBLIC_STUDENTS = [L["student_minimax4"], L["student_refuse"], L["student_fewexit"]]
#: the criminal pairs the students face in the contest part, one a graph in rotation:
#: forced-edge dumpers and full-gap tiers
CONTEST_PAIRS = [(L["criminal_dumptie"], L["criminal_dumptie"]),
                 (L["criminal_dumptie"], L["criminal_tier"]),
                 (L["criminal_tier"], L["criminal_dumpless"]),
                 (L["criminal_patient"], L["criminal_dumptie"]),
                 (L["criminal_forced"], L["criminal_tier"])]
#: the student field the criminals face in the contest part (two seats each)
CONTEST_FIELD = (L["student_minimax4"], L["student_refuse"], L["student_fewexit"],
                 L["student_minimax"])


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
    if not files:
        res["target"] = ("PASS" if wall < 120 * len(recs) / 1000 else "FAIL") + \
            " (1000 games in under 2 minutes, wall clock)"
    print(json.dumps(res), flush=True)
    return res


def _bound_one(i: int, seed: int) -> dict:
    from puzzleproof.encoders.deathrun_robust import integer_value, robust_table

    g = generate_graph(f"bound:{seed}:{i}")
    t = robust_table(g, 200, 1.0, lower=True, cache=False)
    return {"nominal": nominal_distance(g), "int100": integer_value(g, 100),
            "int200": integer_value(g, 200), "upper200": t.bound(),
            "lower200": t.lower_bound()}


def part_bound(args) -> dict:
    t0 = time.monotonic()
    with process_pool(args.jobs) as ex:
        rows = list(ex.map(_bound_one, range(args.graphs), [args.seed] * args.graphs))
    res = {"part": "bound", "graphs": len(rows),
           **{k: round(statistics.fmean(r[k] for r in rows), 2) for k in rows[0]},
           "seconds": round(time.monotonic() - t0, 1)}
    print(json.dumps(res), flush=True)
    crims = ["random", "crowd", "gap-toll", "toll", "pricer"]
    studs = ["random", "greedy", "cautious", "robust", "planner"]
    specs = []
    for c in crims:
        for i in range(args.graphs):
            g = generate_graph(f"bound:{args.seed}:{i}").to_json()
            rot = i % len(studs)
            order = tuple(studs[rot:] + studs[:rot])
            specs.append(GameSpec(f"{c}:{i}", "students", i, g, f"{args.seed}:{c}:{i}",
                                  (c, c), (order + order)[:8]))
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
    from puzzleproof.games.deathrun_tournament import graphs_for_games

    crims = ["random", "crowd", "gap-toll", "toll", "pricer", str(BOTS / "criminal.py")]
    studs = ["random", "greedy", "cautious", "robust", "planner", str(BOTS / "student.py")]
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


def _name(bot: str) -> str:
    return Path(bot).stem if bot.endswith(".py") else bot


def _per_graph(recs, role: str) -> dict[str, dict[int, float]]:
    """``{bot: {graph index: mean score of its seats there}}`` for one role."""
    acc: dict[str, dict[int, list[float]]] = {}
    for r in recs:
        nc = sum(1 for x in r["seats"] if x["role"] == "criminal")
        for x in r["seats"]:
            if (x["seat"] < nc) != (role == "criminals"):
                continue
            sc = (r["scores"]["criminals"][x["seat"]] if x["seat"] < nc
                  else r["scores"]["students"][x["seat"] - nc])
            acc.setdefault(x["bot"], {}).setdefault(r["graph_index"], []).append(sc)
    return {b: {g: statistics.fmean(v) for g, v in d.items()} for b, d in acc.items()}


def _duel(recs, role: str, ours: str, theirs: str, lower_better: bool) -> dict:
    from puzzleproof.games.tournament_stats import mean_interval, paired_test

    per = _per_graph(recs, role)
    a, b = per[ours], per[theirs]
    t = paired_test(a, b)
    ma, ha = mean_interval(list(a.values()))
    mb, hb = mean_interval(list(b.values()))
    better = (t.diff < 0) if lower_better else (t.diff > 0)
    return {"ours": _name(ours), "theirs": _name(theirs), "graphs": t.units,
            "games": len(recs), "mean_ours": round(ma, 2), "ci_ours": round(ha or 0, 2),
            "mean_theirs": round(mb, 2), "ci_theirs": round(hb or 0, 2),
            "diff": round(t.diff, 2), "ci95": round(t.ci95 or 0, 2),
            "p": None if t.p is None else float(f"{t.p:.3g}"),
            "target": "PASS" if better and t.significant else "FAIL"}


def _print_duels(title: str, rows: list[dict]) -> None:
    print(f"\n{title}")
    print(f"  {'ours':10s} {'against':18s} {'graphs':>6s} {'games':>5s} {'ours':>14s} "
          f"{'theirs':>14s} {'diff (95% t)':>16s} {'p':>8s}  target")
    for r in rows:
        print(f"  {r['ours']:10s} {r['theirs']:18s} {r['graphs']:6d} {r['games']:5d} "
              f"{r['mean_ours']:7.2f} ±{r['ci_ours']:5.2f} {r['mean_theirs']:7.2f} "
              f"±{r['ci_theirs']:5.2f} {r['diff']:+8.2f} ±{r['ci95']:5.2f} "
              f"{r['p'] if r['p'] is not None else '-':>8}  {r['target']}", flush=True)


def _graph_json(seed: int, i: int) -> dict:
    return generate_graph(f"league:{seed}:{i}").to_json()


def part_league(args, which: str = "both") -> dict:
    """Head to head, seats swapped (see the module docstring); ``which``: ``students``,
    ``criminals`` or ``both`` (and the league's own conditions)."""
    res: dict = {"part": "league", "graphs": args.league_graphs}
    if which in ("students", "both"):
        res["students"] = _league_students(args)
    if which in ("criminals", "both"):
        res["criminals"] = _league_criminals(args)
    if which == "both":
        res["league_conditions"] = _league_conditions(args)
    print(json.dumps(res), flush=True)
    return res


def _league_students(args) -> list[dict]:
    n = args.league_graphs
    crim_pairs = [(L["criminal_gaptoll"], "toll"), ("gap-toll", L["criminal_forced"]),
                  ("toll", L["criminal_crowd"]), (L["criminal_forced"], L["criminal_gaptoll"])]
    others = ["random", "greedy", "cautious", "robust"] + LEAGUE_STUDENTS
    specs = []
    for i in range(n):
        gj = _graph_json(args.seed, i)
        for o in others:
            for swap in (0, 1):
                seats = ("planner",) * 4 + (o,) * 4 if not swap else (o,) * 4 + ("planner",) * 4
                crim = crim_pairs[(i + swap) % len(crim_pairs)]
                gid = f"s:{_name(o)}:{i}:{swap}"
                specs.append(GameSpec(gid, "students", i, gj, f"{args.seed}:{gid}", crim,
                                      seats))
    t0 = time.monotonic()
    recs = run_games(specs, jobs=args.jobs)
    bad = sum(len(r["invalid_moves"]) for r in recs)
    students = [_duel([r for r in recs if r["game_id"].startswith(f"s:{_name(o)}:")],
                      "students", "planner", o, True) for o in others]
    _print_duels(f"students head to head: planner x4 against each x4 ({n} graphs x 2 seatings, "
                 f"{time.monotonic() - t0:.0f} s, {bad} invalid moves)", students)
    return students


def _league_criminals(args) -> list[dict]:
    n = args.league_graphs
    rivals = ["random", "crowd", "gap-toll", "toll"] + LEAGUE_CRIMINALS
    specs = []
    for i in range(n):
        gj = _graph_json(args.seed, i)
        rot = i % 4
        field = FIELD[rot:] + FIELD[:rot]
        for o in rivals:
            for swap in (0, 1):
                crim = ("pricer", o) if not swap else (o, "pricer")
                gid = f"c:{_name(o)}:{i}:{swap}"
                specs.append(GameSpec(gid, "criminals", i, gj, f"{args.seed}:{gid}", crim,
                                      field + field))
    t0 = time.monotonic()
    recs = run_games(specs, jobs=args.jobs)
    bad = sum(len(r["invalid_moves"]) for r in recs)
    criminals = [_duel([r for r in recs if r["game_id"].startswith(f"c:{_name(o)}:")],
                       "criminals", "pricer", o, False) for o in rivals]
    _print_duels(f"criminals head to head: pricer with each, both seat orders ({n} graphs, "
                 f"{time.monotonic() - t0:.0f} s, {bad} invalid moves)", criminals)
    return criminals


def _league_conditions(args) -> list[dict]:
    """A league bot counts only when it plays as described: the gap-toll file beats ``toll``
    and the minimax file beats ``robust``, head to head."""
    n = args.league_graphs
    specs = []
    for i in range(n):
        gj = _graph_json(args.seed, i)
        rot = i % 4
        field = FIELD[rot:] + FIELD[:rot]
        for swap in (0, 1):
            crim = (L["criminal_gaptoll"], "toll") if not swap else ("toll", L["criminal_gaptoll"])
            gid = f"lc:{i}:{swap}"
            specs.append(GameSpec(gid, "criminals", i, gj, f"{args.seed}:{gid}", crim,
                                  field + field))
            seats = ((L["student_minimax"],) * 4 + ("robust",) * 4 if not swap
                     else ("robust",) * 4 + (L["student_minimax"],) * 4)
            gid = f"ls:{i}:{swap}"
            specs.append(GameSpec(gid, "students", i, gj, f"{args.seed}:{gid}",
                                  (L["criminal_gaptoll"], "toll"), seats))
    recs = run_games(specs, jobs=args.jobs)
    rows = [_duel([r for r in recs if r["game_id"].startswith("lc:")], "criminals",
                  L["criminal_gaptoll"], "toll", False),
            _duel([r for r in recs if r["game_id"].startswith("ls:")], "students",
                  L["student_minimax"], "robust", True)]
    _print_duels("the league plays as described (head to head, seats swapped)", rows)
    return rows


def part_mixed(args) -> dict:
    """Mixed fields: the tournament's own seating, new bots among the league."""
    from puzzleproof.games.deathrun_tournament import run_tournament

    crims = ["pricer", "toll", L["criminal_gaptoll"], "gap-toll"]
    studs = ["planner", "robust", L["student_minimax"], L["student_trap"]]
    t0 = time.monotonic()
    rep = run_tournament(crims, studs, args.league_graphs, seed=f"mixed{args.seed}",
                         jobs=args.jobs, keep_records=False)
    out = {}
    for role, ours in (("students", "planner"), ("criminals", "pricer")):
        rows = rep.summary[role]
        print(f"\nmixed fields, {role} ({rep.games} games on {len(rep.tally.graphs)} graphs, "
              f"{time.monotonic() - t0:.0f} s)")
        for r in rows:
            nxt = "-" if r["vs_next"] is None else (
                f"{r['diff_next']:+.2f} ± {r['ci95_next'] or 0:.2f} vs {_name(r['vs_next'])}, "
                f"p {r['p_next'] if r['p_next'] is not None else '-':.3g}")
            print(f"  {r['rank']} {_name(r['bot']):18s} graphs {r['graphs']:3d} games "
                  f"{r['games']:4d} mean {r['mean']:7.2f} ± {r['ci95'] or 0:5.2f}  {nxt}")
        first = rows[0]
        ok = (first["bot"] == ours and bool(first["significant_next"]))
        print(f"  target ({ours} first, significantly): {'PASS' if ok else 'FAIL'}", flush=True)
        out[role] = [{k: (_name(v) if k in ("bot", "vs_next") and isinstance(v, str) else v)
                      for k, v in r.items()} for r in rows]
        out[role + "_target"] = "PASS" if ok else "FAIL"
    res = {"part": "mixed", **out}
    print(json.dumps(res), flush=True)
    return res


def part_why(args) -> dict:
    """Where each gap-style criminal spends and what the students it prices do."""
    gap, toll, builtin = L["criminal_gaptoll"], "toll", "gap-toll"
    # one seat order per pair: criminals act as if simultaneously, so the other order plays
    # the same game (measured: identical rows)
    pairs = [(gap, toll), (gap, builtin), (toll, builtin)]
    pairs += [(a, L["criminal_forced"]) for a in (gap, toll, builtin, "pricer")]
    pairs += [("pricer", gap), ("pricer", toll)]
    specs = []
    for i in range(args.league_graphs):
        gj = _graph_json(args.seed + 1, i)
        rot = i % 4
        field = FIELD[rot:] + FIELD[:rot]
        for k, pr in enumerate(pairs):
            gid = f"w{k}:{i}"
            specs.append(GameSpec(gid, "criminals", i, gj, f"{args.seed}:{gid}", pr,
                                  field + field))
    recs = run_games(specs, jobs=args.jobs)
    rows = []
    for pr in pairs:
        sub = [r for r in recs if tuple(x["bot"] for x in r["seats"][:2]) == pr]
        for c in (0, 1):
            rows.append({"criminal": _name(pr[c]), "partner": _name(pr[1 - c]),
                         **_spending(sub, c)})
    print("\nwhy (per game; stay = share of the students at a raised link's tail who crossed"
          " it that round)")
    print(f"  {'criminal':17s} {'partner':17s} {'score':>6s} {'spent':>6s} {'raises':>6s} "
          f"{'stay':>5s} {'unused':>6s} {'wasted':>6s} {'collide':>7s} {'in them':>7s} "
          f"{'forced':>6s} {'on them':>7s}")
    for r in rows:
        print(f"  {r['criminal']:17s} {r['partner']:17s} {r['score']:6.1f} {r['spent']:6.1f} "
              f"{r['raises']:6.1f} {r['stay']:5.2f} {100 - r['spent']:6.1f} {r['wasted']:6.1f} "
              f"{r['collisions']:7.2f} {r['collision_budget']:7.1f} {r['forced']:6.2f} "
              f"{r['forced_budget']:7.1f}", flush=True)
    res = {"part": "why", "graphs": args.league_graphs, "rows": rows}
    print(json.dumps(res), flush=True)
    return res


def _spending(recs, c: int) -> dict:
    """Seat ``c``'s spending in ``recs``, per game."""
    tot = {"score": 0.0, "spent": 0.0, "raises": 0, "waiting": 0, "crossed": 0, "wasted": 0.0,
           "collisions": 0, "collision_budget": 0.0, "forced": 0, "forced_budget": 0.0}
    for r in recs:
        outdeg: dict[int, int] = {}
        for u, _, _ in r["graph"]["edges"]:
            outdeg[u] = outdeg.get(u, 0) + 1
        tot["score"] += r["scores"]["criminals"][c]
        for rr in r["rounds"]:
            me, other = rr["criminals"][c], rr["criminals"][1 - c]
            if not me["valid"] or me["move"][2] <= 0:
                continue
            u, v, w = me["move"]
            tot["raises"] += 1
            tot["spent"] += w
            waiting = dict((a, n) for a, n in rr["criminal_view"]["counts"]).get(u, 0)
            crossed = sum(1 for s in rr["students"] if s["at"] == u and s["to"] == v)
            tot["waiting"] += waiting
            tot["crossed"] += crossed
            if not crossed:
                tot["wasted"] += w
            if other["valid"] and other["move"][2] > 0 and other["move"][:2] == [u, v]:
                tot["collisions"] += 1
                tot["collision_budget"] += w
            if outdeg.get(u) == 1:
                tot["forced"] += 1
                tot["forced_budget"] += w
    g = max(1, len(recs))
    out = {k: v / g for k, v in tot.items() if k not in ("waiting", "crossed")}
    out["stay"] = tot["crossed"] / max(1, tot["waiting"])
    out["games"] = len(recs)
    return {k: (round(v, 3) if isinstance(v, float) else v) for k, v in out.items()}


# --------------------------------------------------------------------------------------------
# The contest field: dodger and ambush against the public entries' strategies


def _verdict(r: dict, lower_better: bool) -> str:
    """Who beats whom in one duel row (significant at 95 % or not)."""
    if r["p"] is None or r["p"] >= 0.05:
        return "no significant difference"
    better = r["diff"] < 0 if lower_better else r["diff"] > 0
    return "beats" if better else "loses to"


def _mixed_duels(recs, role: str, ours: str, others, lower_better: bool) -> list[dict]:
    """``ours`` against each of ``others`` in the same mixed-field games, paired by graph."""
    return [_duel(recs, role, ours, o, lower_better) for o in others]


def _contest_students(args) -> list[dict]:
    """``dodger`` x4 against each rival x4 (head to head), seats swapped, one criminal pair
    of :data:`CONTEST_PAIRS` a graph (the same for both seatings); then a mixed field of
    dodger and the three public students (two seats each), two seat orders a graph."""
    n = args.league_graphs
    rivals = PUBLIC_STUDENTS + ["planner", "robust"]
    mixed = ["dodger"] + PUBLIC_STUDENTS
    specs = []
    for i in range(n):
        gj = _graph_json(args.seed, i)
        crim = CONTEST_PAIRS[i % len(CONTEST_PAIRS)]
        for o in rivals:
            for swap in (0, 1):
                seats = ("dodger",) * 4 + (o,) * 4 if not swap else (o,) * 4 + ("dodger",) * 4
                gid = f"cs:{_name(o)}:{i}:{swap}"
                specs.append(GameSpec(gid, "students", i, gj, f"{args.seed}:{gid}", crim,
                                      seats))
        for k, order in enumerate((mixed[i % 4:] + mixed[:i % 4], mixed[::-1])):
            gid = f"cm:{i}:{k}"
            specs.append(GameSpec(gid, "students", i, gj, f"{args.seed}:{gid}", crim,
                                  tuple(order) * 2))
    t0 = time.monotonic()
    recs = run_games(specs, jobs=args.jobs)
    bad = sum(len(r["invalid_moves"]) for r in recs)
    rows = [_duel([r for r in recs if r["game_id"].startswith(f"cs:{_name(o)}:")],
                  "students", "dodger", o, True) for o in rivals]
    _print_duels(f"contest students head to head: dodger x4 against each x4 ({n} graphs x 2 "
                 f"seatings, {time.monotonic() - t0:.0f} s, {bad} invalid moves)", rows)
    field = _mixed_duels([r for r in recs if r["game_id"].startswith("cm:")], "students",
                         "dodger", PUBLIC_STUDENTS, True)
    _print_duels("contest students, mixed field (dodger, minimax4, refuse, fewexit, two seats "
                 "each; two seat orders a graph)", field)
    for r in rows:
        r["field"] = "head to head"
    for r in field:
        r["field"] = "mixed"
    return rows + field


def _contest_criminals(args) -> list[dict]:
    """``ambush`` with each rival in both seat orders (head to head), then a mixed field of
    ambush and the forced-edge dumpers and full-gap tiers (every ordered pair), facing
    :data:`CONTEST_FIELD`."""
    n = args.league_graphs
    rivals = [L["criminal_dumptie"], L["criminal_dumpless"], L["criminal_tier"],
              L["criminal_patient"], L["criminal_forced"], "pricer"]
    pool = ["ambush", L["criminal_dumptie"], L["criminal_dumpless"], L["criminal_tier"]]
    specs = []
    for i in range(n):
        gj = _graph_json(args.seed, i)
        rot = i % 4
        field = CONTEST_FIELD[rot:] + CONTEST_FIELD[:rot]
        for o in rivals:
            for swap in (0, 1):
                crim = ("ambush", o) if not swap else (o, "ambush")
                gid = f"cc:{_name(o)}:{i}:{swap}"
                specs.append(GameSpec(gid, "criminals", i, gj, f"{args.seed}:{gid}", crim,
                                      field + field))
        for k, pr in enumerate(itertools.permutations(pool, 2)):
            gid = f"cx:{i}:{k}"
            specs.append(GameSpec(gid, "criminals", i, gj, f"{args.seed}:{gid}", pr,
                                  field + field))
    t0 = time.monotonic()
    recs = run_games(specs, jobs=args.jobs)
    bad = sum(len(r["invalid_moves"]) for r in recs)
    rows = [_duel([r for r in recs if r["game_id"].startswith(f"cc:{_name(o)}:")],
                  "criminals", "ambush", o, False) for o in rivals]
    _print_duels(f"contest criminals head to head: ambush with each, both seat orders ({n} "
                 f"graphs, {time.monotonic() - t0:.0f} s, {bad} invalid moves)", rows)
    field = _mixed_duels([r for r in recs if r["game_id"].startswith("cx:")], "criminals",
                         "ambush", pool[1:], False)
    _print_duels("contest criminals, mixed field (every ordered pair of ambush, dumptie, "
                 "dumpless, tier)", field)
    for r in rows:
        r["field"] = "head to head"
    for r in field:
        r["field"] = "mixed"
    return rows + field


def part_contest(args) -> dict:
    """The contest field's figures and the table of who beats whom (markdown, with the
    95 % t intervals over graphs), as the README shows it."""
    res = {"part": "contest", "graphs": args.league_graphs,
           "students": _contest_students(args), "criminals": _contest_criminals(args)}
    print("\n| ours | rival | field | graphs | ours (95 % t) | rival (95 % t) | "
          "difference (95 % t) | p | verdict |")
    print("|---|---|---|---|---|---|---|---|---|")
    for role, lower in (("students", True), ("criminals", False)):
        for r in res[role]:
            r["verdict"] = _verdict(r, lower)
            print(f"| {r['ours']} | {r['theirs']} | {r['field']} | {r['graphs']} | "
                  f"{r['mean_ours']:.2f} ± {r['ci_ours']:.2f} | "
                  f"{r['mean_theirs']:.2f} ± {r['ci_theirs']:.2f} | "
                  f"{r['diff']:+.2f} ± {r['ci95']:.2f} | "
                  f"{'-' if r['p'] is None else format(r['p'], '.2g')} | "
                  f"{r['ours']} {r['verdict']} {r['theirs']} |")
    print(json.dumps(res), flush=True)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", default="all",
                    choices=["speed", "files", "bound", "strength", "why", "league",
                             "league-students", "league-criminals", "mixed", "contest",
                             "all"])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--graphs", type=int, default=100)
    ap.add_argument("--league-graphs", type=int, default=40)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="/tmp")
    args = ap.parse_args()
    parts = (["speed", "files", "bound", "strength", "why", "league", "mixed", "contest"]
             if args.part == "all" else [args.part])
    table = {"speed": lambda: part_speed(args, False), "files": lambda: part_speed(args, True),
             "bound": lambda: part_bound(args), "strength": lambda: part_strength(args),
             "why": lambda: part_why(args), "league": lambda: part_league(args),
             "league-students": lambda: part_league(args, "students"),
             "league-criminals": lambda: part_league(args, "criminals"),
             "mixed": lambda: part_mixed(args), "contest": lambda: part_contest(args)}
    for p in parts:
        table[p]()


if __name__ == "__main__":
    main()
