"""What a person sees of Death Run: the help of each verb, the robust bound's table, a
check's verdict, a game's scoreboard, a tournament's and a cross-check's tables, and the
report's sections of a tournament or cross-check's games."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Sequence

from puzzleproof.errors import InputError
from puzzleproof.formats.document import Figure, Section, Table
from puzzleproof.models.deathrun import MAX_EDGES, MAX_VERTICES
from puzzleproof.puzzles.base import Page, Params, Task
from puzzleproof.puzzles.inputs import plural
from puzzleproof.result import Result

MAX_DRAWN = 24

LIMITS = f"Death Run <= {MAX_VERTICES:,} vertices, {MAX_EDGES:,} links"

BOTS_HELP = ("Built-in students: random, greedy, cautious, robust, planner, dodger; built-in "
             "criminals: random, crowd, gap-toll, toll, pricer, ambush; or a contest file "
             "FILE.py[:Class], such as the sparring partners in instances/deathrun/bots/league/ "
             "(class "
             "default BaseStudent / BaseCriminal).")

SOLVE_HELP = """The robust student's certified bound on each graph: no criminal play with the
combined budget can make it pay more. Prints the bound, the model's lower bound
(the grid's gap), the nominal shortest path, and the policy's first moves from
the start with the guarantee of each. Exit 0 solved, 1 if a check fails.

\b
Examples:
  puzzleproof solve deathrun instances/deathrun/graphs/
  puzzleproof solve deathrun --seed 7 --budget 100
  puzzleproof solve deathrun graph.json --json
"""

CHECK_HELP = """Replay Death Run game records by the rules: every criminal move and its budget,
what each bot was shown, every student move (an invalid one must be the engine's
seeded random link), every amount paid, the scores and the invariant (the students
pay the base weights plus the criminals' scores). With GRAPH the record must have
been played on it. RECORD may be a JSONL of games (a tournament's -o); FILE#N or
FILE#GAME_ID picks one. Exit 0 if every record replays, 1 with the first broken
rule if one does not, 2 if a file cannot be read.

\b
Examples:
  puzzleproof deathrun play --criminal toll --student robust*8 -o game.json
  puzzleproof check deathrun game.json
  puzzleproof check deathrun graph.json game.json
  puzzleproof check deathrun games.jsonl#g0:s0
"""

RENDER_HELP = """Draw a Death Run graph: vertices in layers, links with their weights, trap
vertices (one way out) in red, ends in green; with a game, the criminals' raises
and each student's path in its own colour. GRAPH may itself be a game record.
A game that breaks the rules is drawn with its title saying so (exit 1).

\b
Examples:
  puzzleproof render deathrun graph.json -o graph.svg
  puzzleproof render deathrun graph.json --game game.json -o game.png
  puzzleproof render deathrun games.jsonl#g0:s0 -o game.svg
"""

CROSSCHECK_HELP = """Judge Death Run bots against the exact bounds, game by game.

\b
Students: each bot's realised cost, in mixed fields against the criminal pairs,
next to the robust bound of the graph (what our robust student is guaranteed
never to exceed against ANY criminals with the combined budget). A game where a
bot paid more than that bound is flagged 'exploitable', with the game as
evidence. The robust student itself paying more than its certified bound, ever,
is a failed check (exit 1, with the record).
Criminals: each bot's revenue next to the sum over rounds of the single-round
toll optimum (the most one raise could earn that round against cheapest-path
students, from the state the criminal saw).
Every record is also replayed by the rules (a record that does not replay is a
failure). A graph shipped with evidence (from 'generate deathrun') is a known
finding: its greedy game is replayed and must still pay more than the bound.

\b
Seating: as 'deathrun tournament' (every pairing on the same graphs). Without
GRAPHS, seeded contest graphs. Exit 0 when nothing failed (exploitable bots are
findings, not failures), 1 if a check failed.

\b
Examples:
  puzzleproof crosscheck deathrun instances/deathrun/
  puzzleproof crosscheck deathrun -n 70 --seed 3 -j 2 -o runs.jsonl
  puzzleproof crosscheck deathrun graphs/ --students student.py,robust,greedy \\
      --criminals criminal.py,toll
  puzzleproof render deathrun runs.jsonl#g0:s0 -o game.svg    # a flagged game
"""

GENERATE_HELP = """Make Death Run graphs where greedy play is punished hardest: among seeded
contest graphs, those where a field of greedy students pays the most above the
robust student's certified bound (greedy cost - bound, widest first), each written
with its evidence (the bound, the greedy cost, the game's seed and criminals) under
an "evidence" key; 'crosscheck deathrun' replays that game as a known finding.

\b
Examples:
  puzzleproof generate deathrun -n 3 --seed 1 -o graphs/
  puzzleproof generate deathrun --seed 4 > graph.json
  puzzleproof solve deathrun graphs/
"""

#: how a contest bot file is written (the contest's interface), for every verb that takes one
BOT_FILE_HELP = """\b
A bot file is a contest entry, run unchanged: a Python file whose class
BaseStudent (or BaseCriminal; FILE.py:Class picks another) has
  __init__(self, edge_list, begin, ends)   edges as (u, v, weight) tuples
  student:  strategy(self, edge_updates, vertex_count, current_vertex) -> v
  criminal: strategy(self, edge_updates, vertex_count, budget) -> (u, v, w)
edge_updates maps every edge (u, v) to what the criminals added to it this
round (a criminal sees last round's); vertex_count maps every vertex to the
students on it. A student returns the next vertex, one link out of where it
stands; a criminal a link and how much to add, at most its budget left. A
crash, a timeout or an answer that breaks these rules makes that move invalid
(a criminal does nothing, a student moves at random) and is said with its
round and why. Example: instances/deathrun/bots/student.py.
"""

GROUP_HELP = """Death Run (CMIMC 2024): play games and tournaments of bots, built-in or contest files.

\b
The shared verbs work on Death Run graphs too:
  puzzleproof solve deathrun GRAPH            the robust student's certified bound
  puzzleproof check deathrun RECORD           replay a game record by the rules
  puzzleproof render deathrun GRAPH --game RECORD -o game.svg
  puzzleproof crosscheck deathrun GRAPHS      bots next to the exact bounds
  puzzleproof generate deathrun -n 3 -o DIR   graphs where greedy play is punished
"""

PLAY_HELP = """Play one game of Death Run: 2 criminals and 8 students on one graph, by the
contest's rules. Prints the scoreboard and the invalid moves (bot, round, why);
writes the game record with -o. Exit 0 when the game was played, 1 when a bot
file of yours crashed, ran out of time or moved invalidly (each said on stderr),
2 on a bad graph or bot.

\b
Examples:
  puzzleproof deathrun play --criminal toll --criminal gap-toll --student robust*8
  puzzleproof deathrun play --criminal crowd --student robust,greedy,cautious,random \\
      --seed 7 -o game.json
  puzzleproof deathrun play --criminal instances/deathrun/bots/criminal.py \\
      --criminal toll --student instances/deathrun/bots/student.py*4 --student greedy*4
  puzzleproof check deathrun game.json
"""

TOURNAMENT_HELP = """Run a Death Run tournament: a table of mean score with its 95% confidence interval
and rank per bot, per role (students: cost, lower is better; criminals: score,
higher is better). Records are appended to -o as games finish; --resume continues a
killed run with nothing lost or repeated. Exit 0 when the tournament ran.

\b
Seating (every pairing plays on the same graphs):
  students are judged in mixed fields: each game seats two of each of four
  student bots under test (the groups of four rotate through every 4-bot
  combination of the pool; a pool under four is repeated to four), in a seat
  order rotated from graph to graph, facing criminal pairs drawn in rotation
  from the ordered pairs of the criminal pool;
  criminals are judged in pairs of two different bots, in both seat orders,
  each pair facing the same fixed mixed student field (two of each of the
  first four student bots).

\b
Examples:
  puzzleproof deathrun tournament --criminals toll,gap-toll,crowd \\
      --students robust,greedy,cautious,random -n 70 --seed 1 -j 2 -o games.jsonl
  puzzleproof deathrun tournament --criminals toll,gap-toll,crowd \\
      --students robust,greedy,cautious,random -n 70 --seed 1 -o games.jsonl --resume
  puzzleproof deathrun tournament --criminals criminal.py,toll \\
      --students student.py,robust,greedy -n 30 --plot scores.png
"""


# -- small words --------------------------------------------------------------------------

def label(bot: str) -> str:
    """A bot's name for a table: a file by its last folder and name."""
    if ".py" not in bot:
        return bot
    path, cls = (bot.split(".py:", 1)[0] + ".py", bot.split(".py:", 1)[1]) if ".py:" in bot \
        else (bot, "")
    return "/".join(Path(path).parts[-2:]) + (f":{cls}" if cls else "")


def short(name: str, width: int = 48) -> str:
    """``name`` cut from the left with an ellipsis, so its end stays readable."""
    return name if len(name) <= width else "…" + name[-(width - 1):]


def num(x: float | None, digits: int = 2) -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and math.isinf(x):
        return "inf"
    return f"{x:.{digits}f}".rstrip("0").rstrip(".") if isinstance(x, float) else str(x)


def rounds_text(rounds: list[int]) -> str:
    """``[0, 1, 2, 3, 5]`` -> ``"init, rounds 1-3, 5"``."""
    parts, rs = [], sorted(set(r for r in rounds if r))
    k = 0
    while k < len(rs):
        j = k
        while j + 1 < len(rs) and rs[j + 1] == rs[j] + 1:
            j += 1
        parts.append(str(rs[k]) if j == k else f"{rs[k]}-{rs[j]}")
        k = j + 1
    text = ("round " if len(rs) == 1 else "rounds ") + ", ".join(parts) if rs else ""
    return ", ".join(x for x in ("init" if 0 in rounds else "", text) if x)


def _table(title: str | None, cols: Sequence[str], left: Sequence[str]) -> Any:
    from rich.table import Table as RichTable

    table = RichTable(title=title, title_justify="left")
    for col in cols:
        table.add_column(col, justify="left" if col in left else "right")
    return table


# -- solve --------------------------------------------------------------------------------

def _bounds_table(rows: list[tuple[Task, Result]], p: Params, errors: list) -> Any:
    """One row a graph (a BAD INPUT row for a file that could not be read)."""
    table = _table(f"robust student against a combined criminal budget of {p.budget:g} "
                   f"(step {p.step:g})",
                   ("graph", "nominal", "robust bound", "lower bound", "status", "first move",
                    "check", "seconds"), ("graph", "status", "check"))
    for arg, exc in errors:
        table.add_row(short(arg, 36), "", "", "", "BAD INPUT", "",
                      short(str(getattr(exc, "message", exc)), 60), "")
    for task, r in rows:
        a = r.answer
        if a is None:  # the time limit ran out: no bound
            table.add_row(short(task.name, 36), "", "", "", r.status.value, "",
                          short((r.certificate or {}).get("note", ""), 60),
                          f"{r.wall_time:.2f}")
            continue
        table.add_row(short(task.name, 36), str(a["nominal"]), f"{a['upper_bound']:.2f}",
                      num(a["lower_bound"]), r.status.value,
                      f"{task.instance.begin}->{a['first_move']}",
                      "ok" if r.check_ok else "FAILED", f"{r.wall_time:.2f}")
    return table


def _failed_checks(rows: list[tuple[Task, Result]]) -> Page:
    page = Page()
    for task, r in rows:
        for problem in (r.check or {}).get("violations", [])[:3]:
            page.line(f"{task.name}: check failed: {problem}")
    return page


def solve_table(rows: list[tuple[Task, Result]], p: Params, errors: list) -> Page:
    """The robust bound of each graph, and the checks that failed."""
    return Page().table(_bounds_table(rows, p, errors)).extend(_failed_checks(rows))


def solve_one(task: Task, res: Result, p: Params) -> Page:
    """One graph: its row, the policy's first moves with their guarantees, the policy's
    path beside the nominal shortest path, and the checks that failed."""
    from puzzleproof.verify.deathrun_methods import path_cost

    g, a = task.instance, res.answer
    page = Page().table(_bounds_table([(task, res)], p, []))
    if a is None:
        return page
    page.line(f"first moves from {g.begin} (guarantee if nothing is raised before the move: "
              "the link's weight plus the worst case after it; the bound also covers raises "
              "on the first link):")
    for m in a["first_moves"][:8]:
        mark = "  <- the policy's move" if m["to"] == a["first_move"] else ""
        page.line(f"  {g.begin}->{m['to']}  weight {m['weight']:>2}  guarantee "
                  f"{m['guarantee']:.2f}{mark}")
    if len(a["first_moves"]) > 8:
        page.line(f"  ... and {len(a['first_moves']) - 8} more")
    path = a["path_if_nothing_raised"]
    page.line(f"policy path if nothing is raised: {' '.join(map(str, path))} (cost "
              f"{path_cost(g, path)})")
    npath = a["nominal_path"]
    page.line(f"nominal shortest path:            {' '.join(map(str, npath))} (cost "
              f"{path_cost(g, npath)})")
    return page.extend(_failed_checks([(task, res)]))


# -- check --------------------------------------------------------------------------------

def scoreboard_table(rows: list[dict], title: str | None = None, ranks: bool = False) -> Any:
    cols = ("seat", "role", "bot", "score") + (("rank",) if ranks else ()) + ("invalid moves",)
    table = _table(title, cols, ("role", "bot"))
    for r in rows:
        rank = (str(_rank(rows, r)),) if ranks else ()
        table.add_row(str(r["seat"]), r["role"], short(label(r["bot"]), 40),
                      f"{r['score']:.2f}", *rank, str(r["invalid_moves"] or ""))
    return table


def _rank(rows: list[dict], r: dict) -> int:
    same = [x["score"] for x in rows if x["role"] == r["role"]]
    better = [x for x in same if (x > r["score"] + 1e-9 if r["role"] == "criminal"
                                  else x < r["score"] - 1e-9)]
    return 1 + len(better)


def check_page(verdicts: list[tuple[str, dict, list[str]]], source: str) -> Page:
    """One record: whether it replays (its scoreboard, or its broken rules); several: how
    many replay and the first problem of each that does not."""
    from puzzleproof.models.deathrun import scoreboard

    page = Page()
    bad = [v for v in verdicts if v[2]]
    if len(verdicts) != 1:
        page.line(f"{source}: {len(verdicts) - len(bad)} of {plural(len(verdicts), 'game')} "
                  "replay by the rules")
        for name, _, problems in bad[:20]:
            page.line(f"  {name}: {problems[0]}")
        return page
    name, rec, problems = verdicts[0]
    if problems:
        page.line(f"{name}: the game does NOT replay by the rules: {problems[0]}")
        for problem in problems[1:10]:
            page.line(f"  and: {problem}")
        return page
    page.line(f"{name}: the game replays by the rules ({plural(len(rec['rounds']), 'round')}, "
              f"seed {rec['seed']})")
    return page.table(scoreboard_table(scoreboard(rec)))


# -- a game, a tournament ----------------------------------------------------------------

def game_page(rec: dict, where: str, g: Any, bound: float) -> Page:
    """One game: the scoreboard with ranks, the robust bound beside what the students paid,
    and the invalid moves."""
    from puzzleproof.models.deathrun import nominal_distance, scoreboard

    rows = scoreboard(rec)
    nc = sum(1 for r in rows if r["role"] == "criminal")
    page = Page().table(scoreboard_table(
        rows, f"Death Run on {where}: {plural(len(rec['rounds']), 'round')}, seed "
              f"{rec['seed']}", ranks=True))
    page.line(f"nominal shortest path {nominal_distance(g)}; robust bound {bound:.2f} (combined "
              f"budget {rec['budget'] * nc:g}: a robust student never pays more); students paid "
              f"{sum(rec['scores']['students']):.2f} = base {rec['base_crossed']:.2f} + criminals "
              f"{sum(rec['scores']['criminals']):.2f}")
    return page.extend(invalid_page(rec.get("invalid_moves", [])))


def invalid_page(moves: list[dict], limit: int = 20, game: bool = False) -> Page:
    """The invalid moves, one line per game, seat and reason with the rounds it held in."""
    page = Page()
    if not moves:
        return page
    groups: dict[tuple, list[int]] = {}
    stderr: dict[tuple, str] = {}
    for m in moves:
        key = (m.get("game_id") if game else None, m["seat"], m["bot"], m["reason"])
        groups.setdefault(key, []).append(m.get("round", 0))
        if m.get("stderr"):
            stderr[key] = m["stderr"]
    page.line(f"{plural(len(moves), 'invalid move')}:")
    for key, rounds in list(groups.items())[:limit]:
        gid, seat, bot, reason = key
        where = f"game {gid}, " if gid is not None else ""
        page.line(f"  {where}seat {seat} ({label(bot)}), {rounds_text(rounds)}: {reason}")
        for ln in stderr.get(key, "").splitlines():
            page.line(f"    stderr| {short(ln, 100)}")
    if len(groups) > limit:
        page.line(f"  ... and {len(groups) - limit} more")
    return page


def tournament_page(report: Any, n_graphs: int, seed: int) -> Page:
    """A tournament: how many games judged which role, then per role the table of mean
    score with its interval and rank, then the invalid moves."""
    judged = {"students": 0, "criminals": 0, **report.tally.judged}
    page = Page().line(
        f"{plural(report.games, 'game')} on {plural(n_graphs, 'graph')} "
        f"({judged['students']} judging students, {judged['criminals']} judging "
        f"criminals), seed {seed}; {report.wall_time:.1f} s")
    for role, what in (("students", "cost, lower is better"),
                       ("criminals", "score, higher is better")):
        rows = report.summary.get(role) or []
        if not rows:
            continue
        table = _table(f"{role} ({what}); mean over graphs, 95% t interval over graphs; 'vs "
                       "next': paired t test against the next bot on common graphs",
                       ("rank", "bot", "graphs", "games", "seat-games", "mean", "95% CI",
                        "vs next", "min", "max", "invalid moves"), ("bot", "vs next"))
        for r in rows:
            ci = r["ci95"]
            table.add_row(str(r["rank"]), short(label(r["bot"]), 40), str(r["graphs"]),
                          str(r["games"]), str(r["n"]), f"{r['mean']:.2f}",
                          "-" if ci is None else f"± {ci:.2f}", _vs_next(r),
                          f"{r['min']:.2f}", f"{r['max']:.2f}", str(r["invalid_moves"] or ""))
        page.table(table)
    return page.extend(invalid_page(report.invalid, limit=10, game=True))


def _vs_next(r: dict) -> str:
    """``"+3.10 ± 2.05, p 0.004, significant"`` (this bot minus the next), or ``"-"``."""
    if r.get("vs_next") is None or r.get("diff_next") is None:
        return "-"
    if r.get("p_next") is None:
        return f"{r['diff_next']:+.2f} (one common graph: no test)"
    verdict = "significant" if r["significant_next"] else "not significant"
    return f"{r['diff_next']:+.2f} ± {r['ci95_next']:.2f}, p {r['p_next']:.3g}, {verdict}"


def resumed_note(report: Any, output: Any) -> str | None:
    if output and report.skipped:
        return (f"resumed {output}: {report.skipped} game(s) already there, "
                f"{report.new_games} played now")
    return None


def interrupted_note(output: Any) -> str:
    return "interrupted" + (f"; the finished games are in {output}: rerun with --resume to "
                            "finish" if output else "")


# -- crosscheck ---------------------------------------------------------------------------

def crosscheck_page(summary: dict, report: Any, output: Any) -> Page:
    """The cross-check: the students' and criminals' tables, the exploitable games, the
    known findings, the failed checks and the invalid moves."""
    page = Page().line(f"Death Run: {plural(summary['games'], 'game')} on "
                       f"{plural(summary['graphs'], 'graph')}, seed {summary['seed']}; "
                       f"{report.wall_time:.1f} s")
    page.table(_students_table(summary)).table(_criminals_table(summary))
    page.extend(_exploitable(summary, output)).extend(_findings(summary["known_findings"]))
    for f in summary["failures"][:10]:
        if f["kind"] == "robust-above-bound":
            page.line(f"FAILED: the robust student paid {f['cost']:.4f} > its certified bound "
                      f"{f['bound']:.4f} in game {f['game_id']} (graph {f['graph']}, seed "
                      f"{f['seed']}); the record is in the summary"
                      + (f" and in {output}" if output else ""))
        elif f["kind"] == "record-does-not-replay":
            page.line(f"FAILED: game {f['game_id']} does not replay by the rules: "
                      f"{f['problem']}")
    page.extend(invalid_page(report.invalid, limit=5, game=True))
    page.extend(_program_findings(summary["program_findings"], output))
    return page.line("no check failed" if not summary["failures"] else
                     f"{plural(len(summary['failures']), 'check')} FAILED")


def _program_findings(found: list[dict], output: Any) -> Page:
    """A judged student file that paid more than the robust bound: a finding against it,
    each game its evidence (``render deathrun FILE#GAME`` draws it)."""
    page = Page()
    if not found:
        return page
    page.line(f"FINDING: {plural(len(found), 'game')} where a judged student file paid more "
              "than the robust bound (a student following the robust policy pays at most the "
              "bound whatever the criminals do):")
    for f in found[:10]:
        page.line(f"  {label(f['bot'])} paid {f['cost']:.2f} > bound {f['bound']:.2f} in game "
                  f"{f['game_id']} (graph {f['graph']}, criminals "
                  f"{'+'.join(f['criminals'])})")
    if len(found) > 10:
        page.line(f"  ... and {len(found) - 10} more")
    if output:
        page.line(f"  the games are in {output}: render deathrun '{output}#GAME' draws one")
    return page


def _students_table(summary: dict) -> Any:
    from puzzleproof.verify.deathrun_methods import TOTAL_BUDGET

    worst = summary["worst_criminals"]
    table = _table("students: realised cost next to the robust bound (combined budget "
                   f"{TOTAL_BUDGET:g})", ("bot", "seat-games", "mean cost", "mean bound",
                                           "above bound", "worst against", "verdict"),
                   ("bot", "worst against", "verdict"))
    for s in sorted(summary["students"], key=lambda x: x["mean_cost"]):
        w = worst.get(s["bot"], {})
        verdict = ("FAILED: above its certified bound" if s["bot"] == "robust"
                   and s["above_bound"] else "within its certified bound"
                   if s["bot"] == "robust" else
                   f"exploitable in {plural(s['above_bound'], 'seat-game')}"
                   if s["above_bound"] else "never above the bound")
        table.add_row(short(label(s["bot"]), 36), str(s["games"]), f"{s['mean_cost']:.2f}",
                      f"{s['mean_bound']:.2f}", str(s["above_bound"]),
                      f"{'+'.join(w.get('criminals', []))} ({w.get('mean_cost', 0):.2f})",
                      verdict)
    return table


def _criminals_table(summary: dict) -> Any:
    table = _table("criminals: revenue next to the single-round toll optimum (summed over "
                   "rounds)", ("bot", "seat-games", "mean revenue", "mean single-round optima",
                               "ratio"), ("bot",))
    for c in sorted(summary["criminals"], key=lambda x: -x["mean_revenue"]):
        opt = c["mean_single_round_optimum_sum"]
        table.add_row(short(label(c["bot"]), 36), str(c["games"]), f"{c['mean_revenue']:.2f}",
                      f"{opt:.2f}", "-" if not opt else f"{c['mean_revenue'] / opt:.2f}")
    return table


def _exploitable(summary: dict, output: Any) -> Page:
    page = Page()
    flags = [f for f in summary["exploitable"] if f["bot"] != "robust"]
    if not flags:
        return page
    games = {f["game_id"] for f in flags}
    page.line(f"exploitable: {plural(len(flags), 'seat')} in {plural(len(games), 'game')} "
              "paid more than the robust bound (worst first):")
    for f in sorted(flags, key=lambda x: x["bound"] - x["cost"])[:8]:
        page.line(f"  {label(f['bot'])} paid {f['cost']:.2f} > bound {f['bound']:.2f} in game "
                  f"{f['game_id']} (graph {f['graph']}, criminals "
                  f"{'+'.join(f['criminals'])}, seat {f['seat']})")
    if len(flags) > 8:
        page.line(f"  ... and {len(flags) - 8} more")
    first = min(flags, key=lambda x: x["bound"] - x["cost"])
    if output:
        page.line(f"  evidence: the games are in {output}; e.g. puzzleproof render "
                  f"deathrun '{output}#{first['game_id']}' -o game.svg")
    else:
        page.line("  evidence: rerun with -o runs.jsonl to keep every game record")
    return page


def _findings(findings: list[dict]) -> Page:
    page = Page()
    claims = [x for x in findings if x.get("claim", True)]
    held = [x for x in claims if x["holds"]]
    if claims:
        page.line(f"{len(held)} of {plural(len(claims), 'known finding')} confirmed "
                  "(graphs shipped with evidence: greedy still pays more than the robust "
                  "bound):")
    for x in findings:
        if not x.get("claim", True):
            page.line(f"  {x['graph']}: {x['student']} paid {x['cost']:.2f} <= bound "
                      f"{x['bound']:.2f} against {'+'.join(x['criminals'])} (a measurement, "
                      "not a finding)")
        elif "cost" in x:
            page.line(f"  {x['graph']}: {x['student']} paid {x['cost']:.2f} "
                      f"{'>' if x['holds'] else '<='} bound {x['bound']:.2f} against "
                      f"{'+'.join(x['criminals'])}" + ("" if x["holds"] else "  NO LONGER HOLDS"))
        else:
            page.line(f"  {x['graph']}: {x['detail']}")
    return page


# -- generate -----------------------------------------------------------------------------

def gap_note(where: str, ev: dict) -> str:
    return (f"{where}: greedy paid {ev['greedy_cost']:.2f}, robust bound "
            f"{ev['robust_bound']:.2f} (gap {ev['gap']:.2f}), nominal {ev['nominal']}")


def no_gap_note(names: list[str]) -> str:
    return (f"note: greedy stayed within the robust bound on {', '.join(names)} (its evidence "
            "is a measurement, not a finding); more --candidates find wider gaps")


# -- report -------------------------------------------------------------------------------

def game_sections(recs: list[dict], path: str = "") -> list[Section]:
    from puzzleproof.formats.deathrun import graph_from_obj, render_svg
    from puzzleproof.games.deathrun_tournament import plot_scores, summarise

    games = [r for r in recs if r["type"] == "deathrun-game"]
    summary = summarise(games)
    sections = [Section("Summary", [f"{len(games)} game(s)."])]
    for role, rows in summary.items():
        if not rows:
            continue
        keys = [k for k in rows[0] if not isinstance(rows[0][k], (list, dict))]
        sections[0].blocks.append(Table(keys, [[_fmt(row[k]) for k in keys] for row in rows],
                                        f"{role}: mean with its 95 % confidence interval"))
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scores.png"
        plot_scores(games, path)
        sections.append(Section("Score distributions", [
            Figure("scores", "png", path.read_bytes(), "Scores per bot and role")]))
    failed = [r for r in recs if r["type"] == "deathrun-game-error"]
    if failed:
        sections.append(Section("Games that failed", [Table(
            ["game", "error"], [[r.get("game_id"), r.get("error")] for r in failed])]))
    judged = next((r for r in reversed(recs) if r["type"] == "deathrun-crosscheck"), None)
    if judged is not None:
        sections.append(_bound_section(judged))
    bad = [g for g in games if g.get("invalid_moves")]
    if bad:
        sections.append(_invalid_section(bad))
    shown = bad[:MAX_DRAWN // 4] or games[:1]
    drawn = Section("Games drawn", ["Games with invalid moves are drawn; without any, the "
                                    "first game."])
    for g in shown:
        try:
            graph = graph_from_obj(g.get("graph"), None, None, "the record's graph")
        except InputError as exc:
            drawn.blocks.append(f"(game {g.get('game_id')} cannot be drawn: {exc})")
            continue
        drawn.blocks.append(Figure(f"game-{g.get('game_id')}".replace("/", "-"), "svg",
                                   render_svg(graph, g),
                                   f"game {g.get('game_id')}: each student's path in its own "
                                   "colour, raised links marked"))
    sections.append(drawn)
    return sections


def _bound_section(judged: dict) -> Section:
    """A cross-check's students against the robust bound, and the games above it (a judged
    student file's are findings against it)."""
    rows = [[s["bot"], s["games"], _fmt(s["mean_cost"]), _fmt(s["mean_bound"]),
             s["above_bound"]] for s in judged.get("students") or []]
    games = [[f["game_id"], f["bot"], _fmt(f["cost"]), _fmt(f["bound"]), f.get("graph"),
              "+".join(f.get("criminals") or []),
              "finding (a judged program)" if ".py" in str(f["bot"]) else "known (built-in)"]
             for f in judged.get("exploitable") or []]
    return Section("Against the robust bound", [
        "A student following the robust policy pays at most the bound, whatever the "
        "criminals do with their combined budget: a student that paid more was exploitable.",
        Table(["student", "seat-games", "mean cost", "mean bound", "above bound"], rows,
              "Each student's realised cost next to the robust bound"),
        Table(["game", "student", "cost", "bound", "graph", "criminals", "what"], games[:200],
              "The games above the bound (the evidence)")])


def _invalid_section(bad: list[dict]) -> Section:
    """Each invalid move with its reason, and the bot's last stderr lines."""
    rows = [[g.get("game_id"), m["seat"], m["bot"], m.get("round"), m["reason"],
             m.get("stderr", "")] for g in bad for m in g["invalid_moves"]][:300]
    return Section("Invalid moves", [Table(
        ["game", "seat", "bot", "round", "why", "its stderr (last lines)"], rows)])


def _fmt(v: Any) -> Any:
    return f"{v:.2f}" if isinstance(v, float) else v
