"""Death Run's commands: ``solve``, ``check``, ``render``, ``crosscheck`` and ``generate``
for ``deathrun`` on the shared verbs, and the game's own ``deathrun play`` and
``deathrun tournament``.

Bots are built-in names (students random, greedy, cautious, robust; criminals random,
crowd, gap-toll, toll) or contest files ``FILE.py[:Class]`` (the class defaults to
``BaseStudent`` / ``BaseCriminal``), run in worker processes with per-move limits so that a
bot that crashes, hangs or prints garbage gets a verdict and never takes the run down.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Sequence

import click
from rich.table import Table

from puzzleproof.cli.common import (FiniteRange, SECONDS,
                                    Exit, check_group, check_output, deliver, emit, force_option,
                                    gather, jobs_option,
                                    json_option, mixed, out,
                                    output_option, plural,
                                    progress_bar, quiet_option,
                                    render_group,
                                    resume_option, say, short,
                                    solve_group)
from puzzleproof.errors import InputError
from puzzleproof.formats import read_source

__all__ = ["GROUPS", "deathrun_group"]

#: The criminals' combined budget the robust bound is certified for (2 x 100).
TOTAL_BUDGET = 200.0
STEP = 1.0
DEFAULT_STUDENTS = ("robust", "greedy", "cautious", "random")
DEFAULT_CRIMINALS = ("toll", "gap-toll", "crowd")

BOTS_HELP = ("Built-in students: random, greedy, cautious, robust; built-in criminals: "
             "random, crowd, gap-toll, toll; or a contest file FILE.py[:Class] (class "
             "default BaseStudent / BaseCriminal).")

# the shared names, with Death Run's defaults in the help
move_timeout_option = click.option(
    "--move-timeout", "--turn-timeout", "move_timeout", type=SECONDS,
    default=1.0, show_default=True,
    help="Seconds a bot file has per move; a bot past it has this move and the rest of the "
         "game invalid (a criminal does nothing, a student moves at random).")
init_timeout_option = click.option(
    "--init-timeout", "--first-turn-timeout", "init_timeout",
    type=SECONDS, default=5.0, show_default=True,
    help="Seconds a bot file has to load and build its bot (__init__).")
memory_limit_option = click.option(
    "--memory-limit", "memory_limit", type=click.IntRange(16), default=768, show_default=True,
    help="MB a bot file's worker may use (as on CodinGame); a bot past it has its move and "
         "the rest of the game invalid, with the verdict 'memory limit'.")
count_games_option = click.option(
    "-n", "--count", "count", type=click.IntRange(1), default=None,
    help="About how many games in all (rounded to whole passes of the seating over the "
         "graphs).")


# -- reading ------------------------------------------------------------------------------

def _graphs(args: Sequence[str], strict: bool = True) -> list[tuple[str, Any, Any]]:
    """``(name, graph, evidence)`` for every Death Run graph in ``args``."""
    g = gather(args, "deathrun", strict=strict)
    if g.errors:
        raise g.errors[0][1]
    g.say_skipped()
    return [(ld.name, ld.instance, ld.reference) for ld in g.loaded]


def _seeded(seed: int | str) -> Any:
    from puzzleproof.models.deathrun import generate_graph

    return generate_graph(seed)


def _read_games(arg: str) -> tuple[list[dict], str]:
    """The game records in ``FILE``, or one of them: ``FILE#N`` (the N-th, from 1) or
    ``FILE#GAME_ID`` (a tournament's game id, such as ``g0:s0``)."""
    from puzzleproof.formats import deathrun as dfmt

    base, sep, pick = arg.rpartition("#")
    if not sep or not Path(base).is_file() or Path(arg).exists():
        base, pick = arg, ""
    text, source, _ = read_source(base)
    recs = dfmt.read_records(text, source)
    if not pick:
        return recs, source
    if pick.isdigit():
        k = int(pick)
        if not 1 <= k <= len(recs):
            raise InputError(f"record #{k} does not exist (the file holds {len(recs)})", source)
        return [recs[k - 1]], f"{source}#{k}"
    hits = [r for r in recs if str(r.get("game_id")) == pick]
    if not hits:
        raise InputError(f"no game with id {pick!r} (ids: "
                         f"{', '.join(str(r.get('game_id')) for r in recs[:6])}"
                         f"{', ...' if len(recs) > 6 else ''})", source)
    return hits[:1], f"{source}#{pick}"


def _bots(values: Sequence[str], role: str) -> list[str]:
    """Bot specs from options: each value a name, ``FILE.py[:Class]``, ``BOT*K`` (K copies)
    or a comma-separated list of them; each is checked (unknown name, missing file, class
    not defined: an error naming it)."""
    from puzzleproof.verify.deathrun_workers import parse_bot

    found: list[str] = []
    for value in values:
        for item in (x.strip() for x in value.split(",")):
            if not item:
                continue
            name, star, k = item.rpartition("*")
            reps = 1
            if star and k.isdigit():
                item, reps = name.strip(), int(k)
                if not 1 <= reps <= 64:
                    raise click.UsageError(f"{value!r}: expected BOT*K with K from 1 to 64")
            parse_bot(item, role)
            found += [item] * reps
    return found


def _label(bot: str) -> str:
    """A bot's name for a table: a file by its last folder and name."""
    if ".py" not in bot:
        return bot
    path, cls = (bot.split(".py:", 1)[0] + ".py", bot.split(".py:", 1)[1]) if ".py:" in bot \
        else (bot, "")
    return "/".join(Path(path).parts[-2:]) + (f":{cls}" if cls else "")


def _robust_bound(g, total_budget: float = TOTAL_BUDGET, step: float = STEP) -> float:
    from puzzleproof.encoders.deathrun_student import robust_table

    return robust_table(g, total_budget, step, lower=False).bound()


def _num(x: float | None, digits: int = 2) -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and math.isinf(x):
        return "inf"
    return f"{x:.{digits}f}".rstrip("0").rstrip(".") if isinstance(x, float) else str(x)


# -- deathrun play ------------------------------------------------------------------------

@click.group(name="deathrun")
def deathrun_group() -> None:
    """Death Run (CMIMC 2024): play games and tournaments of bots, built-in or contest files.

    \b
    The shared verbs work on Death Run graphs too:
      puzzleproof solve deathrun GRAPH            the robust student's certified bound
      puzzleproof check deathrun RECORD           replay a game record by the rules
      puzzleproof render deathrun GRAPH --game RECORD -o game.svg
      puzzleproof crosscheck deathrun GRAPHS      bots next to the exact bounds
      puzzleproof generate deathrun -n 3 -o DIR   graphs where greedy play is punished
    """


@deathrun_group.command(name="play")
@click.option("--criminal", "criminals", multiple=True, required=True, metavar="BOT",
              help="A criminal, twice (seats 0 and 1), or once for both seats. " + BOTS_HELP)
@click.option("--student", "students", multiple=True, required=True, metavar="BOT",
              help="Students (seats 2..9): 8 in all, as repeated options, a comma-separated "
                   "list or BOT*K (K copies); 1, 2 or 4 bots are repeated to fill 8 seats.")
@click.option("--graph", "graph_file", default=None, metavar="FILE",
              help="The graph (JSON with edges, begin, ends; or a game record, whose graph "
                   "is used). Default: the contest generator's graph for --seed.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the game (the engine's random moves and each bot's 'random'), "
                   "and of the graph when --graph is not given.")
@move_timeout_option
@init_timeout_option
@memory_limit_option
@json_option
@output_option("Write the game record (JSON; 'check deathrun FILE' replays it).")
@force_option
def deathrun_play(criminals, students, graph_file, seed, move_timeout, init_timeout,
                  memory_limit, as_json, output, force) -> None:
    """Play one game of Death Run: 2 criminals and 8 students on one graph, by the
    contest's rules. Prints the scoreboard and the invalid moves (bot, round, why);
    writes the game record with -o. Exit 0 when the game was played (a bot's bad
    moves are verdicts, not errors), 2 on a bad graph or bot.

    \b
    Examples:
      puzzleproof deathrun play --criminal toll --criminal gap-toll --student robust*8
      puzzleproof deathrun play --criminal crowd --student robust,greedy,cautious,random \\
          --seed 7 -o game.json
      puzzleproof deathrun play --criminal instances/deathrun/bots/criminal.py \\
          --criminal toll --student instances/deathrun/bots/student.py*4 --student greedy*4
      puzzleproof check deathrun game.json
    """
    from puzzleproof.formats import deathrun as dfmt
    from puzzleproof.models.deathrun import CRIMINALS, STUDENTS, play_game
    from puzzleproof.verify.deathrun_workers import WorkerPool, make_player, parse_bot

    check_output(output, force)
    crims = _bots(criminals, "criminal")
    studs = _bots(students, "student")
    if len(crims) == 1:
        crims = crims * CRIMINALS
    if len(crims) != CRIMINALS:
        raise click.UsageError(f"a game has {CRIMINALS} criminals; {len(crims)} were given")
    if studs and STUDENTS % len(studs) == 0:
        studs = studs * (STUDENTS // len(studs))
    if len(studs) != STUDENTS:
        raise click.UsageError(f"a game has {STUDENTS} students; {len(studs)} were given (give "
                               "1, 2, 4 or 8 bots, or BOT*K)")
    if graph_file:
        text, source, _ = read_source(graph_file)
        g = dfmt.read_graph(text, source)
        where = source
    else:
        g = _seeded(seed)
        where = f"the contest graph of seed {seed}"
    with WorkerPool(move_timeout, init_timeout, memory_limit) as pool:
        players = ([make_player(parse_bot(c, "criminal"), "criminal", pool) for c in crims],
                   [make_player(parse_bot(s, "student"), "student", pool) for s in studs])
        try:
            rec = play_game(g, players[0], players[1], seed, names=crims + studs)
        except KeyboardInterrupt:
            say("interrupted")
            raise Exit(130)
    from puzzleproof.models.deathrun import scoreboard

    rec["scoreboard"] = scoreboard(rec)
    if output:
        deliver(json.dumps(rec) + "\n", output, force)
    if as_json:
        emit(rec)
        raise Exit(0)
    _print_game(rec, where, g)
    raise Exit(0)


def _print_game(rec: dict, where: str, g) -> None:
    from puzzleproof.models.deathrun import nominal_distance, scoreboard

    rows = scoreboard(rec)
    nc = sum(1 for r in rows if r["role"] == "criminal")
    table = Table(title=f"Death Run on {where}: {plural(len(rec['rounds']), 'round')}, seed "
                        f"{rec['seed']}", title_justify="left")
    for col in ("seat", "role", "bot", "score", "rank", "invalid moves"):
        table.add_column(col, justify="left" if col in ("role", "bot") else "right")

    def rank(r) -> int:
        same = [x["score"] for x in rows if x["role"] == r["role"]]
        better = [x for x in same if (x > r["score"] + 1e-9 if r["role"] == "criminal"
                                      else x < r["score"] - 1e-9)]
        return 1 + len(better)

    for r in rows:
        table.add_row(str(r["seat"]), r["role"], short(_label(r["bot"]), 40),
                      f"{r['score']:.2f}", str(rank(r)), str(r["invalid_moves"] or ""))
    out.print(table)
    bound = _robust_bound(g, rec["budget"] * nc)
    out.print(f"nominal shortest path {nominal_distance(g)}; robust bound {bound:.2f} (combined "
              f"budget {rec['budget'] * nc:g}: a robust student never pays more); students paid "
              f"{sum(rec['scores']['students']):.2f} = base {rec['base_crossed']:.2f} + criminals "
              f"{sum(rec['scores']['criminals']):.2f}", markup=False)
    _print_invalid(rec.get("invalid_moves", []))


def _rounds_text(rounds: list[int]) -> str:
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


def _print_invalid(moves: list[dict], limit: int = 20, game: bool = False) -> None:
    """The invalid moves, one line per game, seat and reason with the rounds it held in."""
    if not moves:
        return
    groups: dict[tuple, list[int]] = {}
    for m in moves:
        groups.setdefault((m.get("game_id") if game else None, m["seat"], m["bot"],
                           m["reason"]), []).append(m.get("round", 0))
    out.print(f"{plural(len(moves), 'invalid move')}:", markup=False)
    for (gid, seat, bot, reason), rounds in list(groups.items())[:limit]:
        where = f"game {gid}, " if gid is not None else ""
        out.print(f"  {where}seat {seat} ({_label(bot)}), {_rounds_text(rounds)}: {reason}",
                  markup=False)
    if len(groups) > limit:
        out.print(f"  ... and {len(groups) - limit} more", markup=False)


# -- deathrun tournament ------------------------------------------------------------------

def _game_graphs(files: Sequence[str], crims: Sequence[str], studs: Sequence[str],
                 count: int | None, seed: int, default_graphs: int,
                 strict: bool = True) -> tuple[list, list[str], list]:
    """The graphs of a run (each pass of the seating plays every graph once): the given
    files repeated to make about ``count`` games, or seeded contest graphs. Returns the
    graphs, their names and their evidence."""
    from puzzleproof.verify.deathrun_tournament import graphs_for_games, per_graph

    if files:
        found = _graphs(files, strict)
        if not found:
            raise InputError(f"no Death Run graph in {' '.join(files)}")
        reps = 1 if count is None else max(1, round(count / (len(found) * per_graph(crims,
                                                                                   studs))))
        found = found * reps
        return [g for _, g, _ in found], [n for n, _, _ in found], [e for _, _, e in found]
    n = default_graphs if count is None else graphs_for_games(crims, studs, count)
    graphs = [_seeded(f"{seed}:{i}") for i in range(n)]
    return graphs, [f"seed {seed}:{i}" for i in range(n)], [None] * n


def _prepare_output(output: str | None, force: bool, resume: bool) -> None:
    """Refuse an existing -o file unless --force (then it is emptied, after every input
    has been checked) or --resume."""
    if resume and not output:
        raise click.UsageError("--resume needs -o, the file of the run to continue")
    check_output(output, force or resume)
    if output and force and not resume and Path(output).exists():
        Path(output).write_text("")


def _run(crims, studs, graphs, seed, jobs, output, resume, move_timeout, init_timeout,
         quiet, what: str, memory_limit: int = 768, games: int | None = None,
         keep_records: bool = True):
    from puzzleproof.cli.common import executor_for
    from puzzleproof.verify.deathrun_tournament import run_tournament

    progress = progress_bar(quiet)
    try:
        with progress:
            task = progress.add_task(what, total=None)
            report = run_tournament(
                crims, studs, None if games is not None else len(graphs), seed, graphs=graphs,
                games=games, keep_records=keep_records, jobs=executor_for(jobs),
                out_path=output, resume=resume, move_timeout=move_timeout,
                init_timeout=init_timeout, memory_limit=memory_limit,
                progress=lambda d, t, label: progress.update(task, completed=d, total=t,
                                                             description=f"{what} {label}"))
    except KeyboardInterrupt:
        say("interrupted" + (f"; the finished games are in {output}: rerun with --resume to "
                             "finish" if output else ""))
        raise Exit(130)
    if output and report.skipped and not quiet:
        say(f"resumed {output}: {report.skipped} game(s) already there, {report.new_games} "
            "played now")
    return report


@deathrun_group.command(name="tournament")
@click.option("--criminals", "criminals", multiple=True, required=True, metavar="BOT,BOT,...",
              help="The criminal pool, comma-separated (repeatable). " + BOTS_HELP)
@click.option("--students", "students", multiple=True, required=True, metavar="BOT,BOT,...",
              help="The student pool, comma-separated (repeatable).")
@click.option("-n", "--count", "count", type=click.IntRange(1, 10**9), default=70,
              show_default=True,
              help="How many games (graph after graph, each holding every pairing; the last "
                   "graph may hold only its first games). Games stream: any count runs in "
                   "the same memory.")
@click.option("--graph", "graph_files", multiple=True, metavar="FILE",
              help="Play on these graphs (repeatable; folders too) instead of seeded contest "
                   "graphs.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the graphs (graph i is the contest generator's 'SEED:i') and of "
                   "every game.")
@jobs_option
@output_option("JSONL file that receives each game's record as it finishes.")
@force_option
@resume_option
@click.option("--plot", "plot", type=click.Path(dir_okay=False), default=None,
              help="Write box plots of the scores per bot and role (.png or .svg).")
@move_timeout_option
@init_timeout_option
@memory_limit_option
@json_option
@quiet_option
def deathrun_tournament(criminals, students, count, graph_files, seed, jobs, output, force,
                        resume, plot, move_timeout, init_timeout, memory_limit, as_json,
                        quiet) -> None:
    """Run a Death Run tournament: a table of mean score with its 95% confidence interval
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
    crims = list(dict.fromkeys(_bots(criminals, "criminal")))
    studs = list(dict.fromkeys(_bots(students, "student")))
    if plot:
        check_output(plot, force)
    graphs = None
    if graph_files:
        found = _graphs(graph_files)
        if not found:
            raise InputError(f"no Death Run graph in {' '.join(graph_files)}")
        graphs = [g for _, g, _ in found]
    _prepare_output(output, force, resume)
    report = _run(crims, studs, graphs, seed, jobs, output, resume, move_timeout,
                  init_timeout, quiet or as_json, "games", memory_limit, games=count,
                  keep_records=False)
    if plot:
        from puzzleproof.verify.deathrun_tournament import plot_scores

        plot_scores(report.tally, plot)
        say(f"wrote {plot}")
    judged = {"students": 0, "criminals": 0, **report.tally.judged}
    n_graphs = len(report.tally.graphs)
    if as_json:
        emit({"type": "deathrun-tournament", "schema_version": 1, "seed": seed,
              "criminals": crims, "students": studs, "graphs": n_graphs,
              "games": report.games, "new_games": report.new_games,
              "resumed_games": report.skipped, "summary": report.summary,
              "invalid_moves": report.invalid, "output": output})
        raise Exit(0)
    out.print(f"{plural(report.games, 'game')} on {plural(n_graphs, 'graph')} "
              f"({judged['students']} judging students, {judged['criminals']} judging "
              f"criminals), seed {seed}; {report.wall_time:.1f} s", markup=False)
    _print_summary(report.summary)
    _print_invalid(report.invalid, limit=10, game=True)
    raise Exit(0)


def _print_summary(summary: dict[str, list[dict]]) -> None:
    for role, what in (("students", "cost, lower is better"),
                       ("criminals", "score, higher is better")):
        rows = summary.get(role) or []
        if not rows:
            continue
        table = Table(title=f"{role} ({what}); mean over graphs, 95% t interval over graphs; "
                            "'vs next': paired t test against the next bot on common graphs",
                      title_justify="left")
        for col in ("rank", "bot", "graphs", "games", "seat-games", "mean", "95% CI",
                    "vs next", "min", "max", "invalid moves"):
            table.add_column(col, justify="left" if col in ("bot", "vs next") else "right")
        for r in rows:
            ci = r["ci95"]
            table.add_row(str(r["rank"]), short(_label(r["bot"]), 40), str(r["graphs"]),
                          str(r["games"]), str(r["n"]), f"{r['mean']:.2f}",
                          "-" if ci is None else f"± {ci:.2f}", _vs_next(r),
                          f"{r['min']:.2f}", f"{r['max']:.2f}", str(r["invalid_moves"] or ""))
        out.print(table)


def _vs_next(r: dict) -> str:
    """``"+3.10 ± 2.05, p 0.004, significant"`` (this bot minus the next), or ``"-"``."""
    if r.get("vs_next") is None or r.get("diff_next") is None:
        return "-"
    if r.get("p_next") is None:
        return f"{r['diff_next']:+.2f} (one common graph: no test)"
    ci = r["ci95_next"]
    verdict = "significant" if r["significant_next"] else "not significant"
    return f"{r['diff_next']:+.2f} ± {ci:.2f}, p {r['p_next']:.3g}, {verdict}"


# -- solve --------------------------------------------------------------------------------

@solve_group.command(name="deathrun")
@click.argument("graphs", nargs=-1)
@click.option("--seed", type=int, default=None,
              help="Solve the contest generator's graph of this seed (instead of files).")
@click.option("--budget", type=FiniteRange(0), default=TOTAL_BUDGET, show_default=True,
              help="The criminals' combined budget the bound holds against.")
@click.option("--step", type=FiniteRange(0, min_open=True), default=STEP,
              show_default=True,
              help="Grid step of the budget axis (the bound stays certified for real-valued "
                   "raises; a finer step tightens it and costs budget/step levels).")
@json_option
@quiet_option
def solve_deathrun(graphs, seed, budget, step, as_json, quiet) -> None:
    """The robust student's certified bound on each graph: no criminal play with the
    combined budget can make it pay more. Prints the bound, the model's lower bound
    (the grid's gap), the nominal shortest path, and the policy's first moves from
    the start with the guarantee of each. Exit 0 solved, 1 if a check fails.

    \b
    Examples:
      puzzleproof solve deathrun instances/deathrun/graphs/
      puzzleproof solve deathrun --seed 7 --budget 100
      puzzleproof solve deathrun graph.json --json
    """
    from puzzleproof.encoders.deathrun_student import robust_table, solve

    if seed is not None and graphs:
        raise click.UsageError("give GRAPH files or --seed, not both")
    if seed is None and not graphs:
        raise click.UsageError("give GRAPH files, or --seed N for the contest generator's graph")
    found = ([(f"seed {seed}", _seeded(seed), None)] if seed is not None
             else _graphs(graphs, strict=not mixed()))
    rows = []
    progress = progress_bar(quiet or as_json)
    with progress:
        task = progress.add_task("solving", total=len(found))
        for name, g, _ in found:
            res = solve(g, budget=budget, step=step, seed=seed)
            res.instance = name
            t = robust_table(g, budget, step, lower=False)
            moves = []
            for u, w in g.out[g.begin]:
                # nothing raised yet: the link's weight plus the worst case from its head
                moves.append({"to": u, "weight": w, "guarantee": w + t.value(u, budget)})
            moves.sort(key=lambda m: (m["guarantee"], m["to"]))
            res.answer["first_moves"] = moves
            res.answer["nominal_path"] = _nominal_path(g)
            res.check = _check_answer(g, res.answer)
            rows.append((name, g, res))
            progress.advance(task)
    bad = any(not r.check["ok"] for _, _, r in rows)
    if as_json:
        objs = [r.to_dict() for _, _, r in rows]
        emit(objs[0] if len(objs) == 1 else objs)
        raise Exit(1 if bad else 0)
    table = Table(title=f"robust student against a combined criminal budget of {budget:g} "
                        f"(step {step:g})", title_justify="left")
    for col in ("graph", "nominal", "robust bound", "lower bound", "status", "first move",
                "check", "seconds"):
        table.add_column(col, justify="left" if col in ("graph", "status", "check")
                         else "right")
    for name, g, r in rows:
        a = r.answer
        table.add_row(short(name, 36), str(a["nominal"]), f"{a['upper_bound']:.2f}",
                      _num(a["lower_bound"]), r.status.value, f"{g.begin}->{a['first_move']}",
                      "ok" if r.check["ok"] else "FAILED", f"{r.wall_time:.2f}")
    out.print(table)
    if len(rows) == 1:
        name, g, r = rows[0]
        a = r.answer
        out.print(f"first moves from {g.begin} (guarantee: the link's weight plus the worst "
                  "case after it):", markup=False)
        for m in a["first_moves"][:8]:
            mark = "  <- the policy's move" if m["to"] == a["first_move"] else ""
            out.print(f"  {g.begin}->{m['to']}  weight {m['weight']:>2}  guarantee "
                      f"{m['guarantee']:.2f}{mark}", markup=False)
        if len(a["first_moves"]) > 8:
            out.print(f"  ... and {len(a['first_moves']) - 8} more", markup=False)
        path = a["path_if_nothing_raised"]
        out.print(f"policy path if nothing is raised: {' '.join(map(str, path))} (cost "
                  f"{_path_cost(g, path)})", markup=False)
        npath = a["nominal_path"]
        out.print(f"nominal shortest path:            {' '.join(map(str, npath))} (cost "
                  f"{_path_cost(g, npath)})", markup=False)
    for name, _, r in rows:
        for p in r.check.get("violations", [])[:3]:
            out.print(f"{name}: check failed: {p}", markup=False)
    raise Exit(1 if bad else 0)


def _nominal_path(g) -> list[int]:
    from puzzleproof.models.deathrun import distances_to_ends

    d = distances_to_ends(g)
    path = [g.begin]
    while path[-1] not in g.end_set:
        v = path[-1]
        path.append(min(g.out[v], key=lambda x: (x[1] + d[x[0]], x[0]))[0])
    return path


def _path_cost(g, path: Sequence[int]) -> int:
    return sum(g.weight[(a, b)] for a, b in zip(path, path[1:]))


def _check_answer(g, a: dict) -> dict:
    """What can be checked of a bound without the solver: the path is a path to an end,
    and nominal <= lower bound <= upper bound <= the policy path's cost + budget."""
    problems = []
    path = a["path_if_nothing_raised"]
    if path[0] != g.begin or path[-1] not in g.end_set or any(
            (u, v) not in g.weight for u, v in zip(path, path[1:])):
        problems.append(f"the policy's path {path} is not a path from the begin to an end")
    lo, up = a["lower_bound"], a["upper_bound"]
    if lo is not None and not a["nominal"] <= lo + 1e-9:
        problems.append(f"the lower bound {lo} is below the nominal shortest path")
    if lo is not None and not lo <= up + 1e-9:
        problems.append(f"the lower bound {lo} is above the upper bound {up}")
    if not a["nominal"] <= up + 1e-9:
        problems.append(f"the bound {up} is below the nominal shortest path")
    return {"ok": not problems, "violations": problems}


# -- check --------------------------------------------------------------------------------

@check_group.command(name="deathrun")
@click.argument("files", nargs=-1, required=True, metavar="[GRAPH] RECORD")
@json_option
def check_deathrun(files, as_json) -> None:
    """Replay Death Run game records by the rules: every criminal move and its budget,
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
    from puzzleproof.formats import deathrun as dfmt
    from puzzleproof.models.deathrun import make_graph, replay, scoreboard

    if len(files) > 2:
        raise click.UsageError("expected [GRAPH] RECORD")
    graph = None
    if len(files) == 2:
        text, source, _ = read_source(files[0])
        graph = dfmt.read_graph(text, source)
    recs, source = _read_games(files[-1])
    verdicts = []
    for k, rec in enumerate(recs):
        problems = []
        if graph is not None:
            gj = rec["graph"]
            try:
                mine = make_graph(gj["edges"], gj["begin"], gj["ends"])
            except (InputError, KeyError, TypeError):
                mine = None
            if mine is None or mine.fingerprint() != graph.fingerprint():
                problems.append(f"the record was played on another graph than {files[0]}")
        problems += replay(rec, graph)
        name = source if len(recs) == 1 else f"{source}#{rec.get('game_id', k + 1)}"
        verdicts.append((name, rec, problems))
    bad = [v for v in verdicts if v[2]]
    if as_json:
        emit({"type": "check", "schema_version": 1, "puzzle": "deathrun", "ok": not bad,
              "records": len(recs),
              "problems": [{"record": n, "problems": p} for n, _, p in bad],
              **({"scoreboard": scoreboard(recs[0])} if len(recs) == 1 and not bad else {})})
        raise Exit(1 if bad else 0)
    if len(recs) == 1:
        name, rec, problems = verdicts[0]
        if problems:
            out.print(f"{name}: the game does NOT replay by the rules: {problems[0]}",
                      markup=False)
            for p in problems[1:10]:
                out.print(f"  and: {p}", markup=False)
        else:
            rounds = plural(len(rec["rounds"]), "round")
            out.print(f"{name}: the game replays by the rules ({rounds}, seed {rec['seed']})",
                      markup=False)
            table = Table(title=None)
            for col in ("seat", "role", "bot", "score", "invalid moves"):
                table.add_column(col, justify="left" if col in ("role", "bot") else "right")
            for r in scoreboard(rec):
                table.add_row(str(r["seat"]), r["role"], short(_label(r["bot"]), 40),
                              f"{r['score']:.2f}", str(r["invalid_moves"] or ""))
            out.print(table)
    else:
        out.print(f"{source}: {len(recs) - len(bad)} of {plural(len(recs), 'game')} replay "
                  "by the rules", markup=False)
        for name, _, problems in bad[:20]:
            out.print(f"  {name}: {problems[0]}", markup=False)
    raise Exit(1 if bad else 0)


# -- render -------------------------------------------------------------------------------

@render_group.command(name="deathrun")
@click.argument("graph_arg", metavar="GRAPH")
@click.option("--game", "game", default=None, metavar="RECORD",
              help="A game record to draw on the graph (its raises and each student's "
                   "path); FILE#N or FILE#GAME_ID picks one from a JSONL.")
@output_option("Write the picture to a file (.svg, or .png) instead of SVG on stdout.")
@force_option
def render_deathrun(graph_arg, game, output, force) -> None:
    """Draw a Death Run graph: vertices in layers, links with their weights, trap
    vertices (one way out) in red, ends in green; with a game, the criminals' raises
    and each student's path in its own colour. GRAPH may itself be a game record.

    \b
    Examples:
      puzzleproof render deathrun graph.json -o graph.svg
      puzzleproof render deathrun graph.json --game game.json -o game.png
      puzzleproof render deathrun games.jsonl#g0:s0 -o game.svg
    """
    from puzzleproof.formats import deathrun as dfmt
    from puzzleproof.models.deathrun import make_graph, replay

    check_output(output, force)
    record = None
    base = graph_arg.rpartition("#")[0] if "#" in graph_arg and not Path(graph_arg).exists() \
        else graph_arg
    text, source, _ = read_source(base)
    if dfmt.kind_of(text) == "record":
        recs, _ = _read_games(graph_arg)
        record = recs[0]
        gj = record["graph"]
        g = make_graph(gj["edges"], gj["begin"], gj["ends"])
    else:
        g = dfmt.read_graph(text, source)
    if game:
        recs, gsource = _read_games(game)
        if len(recs) > 1:
            say(f"note: {gsource} holds {len(recs)} games; drawing the first (FILE#N picks "
                "another)")
        record = recs[0]
        problems = replay(record, g)
        gj = record["graph"]
        if make_graph(gj["edges"], gj["begin"], gj["ends"]).fingerprint() != g.fingerprint():
            raise InputError("the game record was played on another graph", gsource)
        if problems:
            say(f"note: the game record breaks the rules: {problems[0]}")
    if output and output.lower().endswith(".png"):
        deliver(dfmt.render_png(g, record), output, force)
    else:
        deliver(dfmt.render_svg(g, record), output, force)


# the batch commands live in their own module; importing it registers them
from puzzleproof.cli import deathrun_batch  # noqa: E402,F401

GROUPS = (deathrun_group,)
