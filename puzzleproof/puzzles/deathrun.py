"""Death Run (CMIMC 2024) as a plugin: its reader, its methods (the exact bounds and the
bots, listed in :mod:`puzzleproof.verify.deathrun_methods`), its part of every shared verb,
and the option rows of its own game verbs (``deathrun play``, ``deathrun tournament``, in
:mod:`puzzleproof.puzzles.deathrun_commands`). Its cross-check is a tournament judged against the exact
bounds (:mod:`puzzleproof.verify.deathrun_judge`), not the one-answer harness. What a person
sees is drawn in :mod:`puzzleproof.puzzles.deathrun_views`."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Sequence

from puzzleproof.errors import InputError, UsageError
from puzzleproof.sizes import LIFT_HINT, limit, over_limit
from puzzleproof.instance import Loaded
from puzzleproof.puzzles import deathrun_views as views
from puzzleproof.puzzles.deathrun_commands import COMMANDS
from puzzleproof.puzzles.deathrun_games import (BOT_LIMITS, BUDGET, CRIMINAL_POOL, INIT, MEMORY,
                                               MOVE, STEP_ROW,
                                               STUDENT_POOL, graphs_for_run, play_tournament,
                                               read_games, record_graph)
from puzzleproof.puzzles.base import (CheckSpec, CrosscheckSpec, Generated, GenerateSpec,
                                      Outcome, Page, Params, Picture, Plugin, Reader, RenderSpec,
                                      ReportSpec, SolveSpec, Task)
from puzzleproof.puzzles.options import (COUNT, OUTPUT, SEED, TIME_LIMIT, WHERE, Opt)
from puzzleproof.result import Result
from puzzleproof.verify.deathrun_methods import (DEFAULT_CRIMINALS, DEFAULT_STUDENTS, METHODS,
                                                 bot_list, levels)

__all__ = ["PLUGIN"]

#: The robust DP's budget levels (``--budget / --step``) at most (times ``--max-size``): its
#: work grows with their square (2,000 levels take about 7 s on one core); ``--time-limit``
#: cuts it wherever it stands.
MAX_LEVELS = 2000

# -- solve -----------------------------------------------------------------------------------

def _solve_prepare(p: Params) -> None:
    if p.inputs and p.seed is not None:
        raise UsageError("give GRAPH files or --seed, not both")
    too_many = over_limit(levels(p.budget, p.step), MAX_LEVELS,
                          f"--step {p.step:g}: the robust DP's budget levels (--budget / "
                          "--step)")
    if too_many:
        raise UsageError(too_many.replace(f"; {LIFT_HINT}", f" (the smallest --step for "
                                          f"--budget {p.budget:g} is {_finest(p.budget):g}); "
                                          f"{LIFT_HINT}"))


def _finest(budget: float) -> float:
    """The smallest ``--step`` within the levels' limit for ``budget``, rounded up to three
    significant digits (so that it is itself allowed)."""
    top = limit(MAX_LEVELS)
    unit = 10.0 ** (math.floor(math.log10(budget / top)) - 2)
    k = math.ceil(budget / top / unit)
    while levels(budget, float(f"{k * unit:g}")) > top:
        k += 1
    return float(f"{k * unit:g}")


def _solve_tasks(loaded: Sequence[Loaded], p: Params) -> list[Task]:
    from puzzleproof.models.deathrun import generate_graph

    if loaded and p.seed is not None:
        raise UsageError("give GRAPH files or --seed, not both")
    if loaded:
        return [Task(ld.name, ld.instance, ld) for ld in loaded]
    if p.seed is None:
        raise UsageError("give GRAPH files, or --seed N for the contest generator's graph")
    return [Task(f"seed {p.seed}", generate_graph(p.seed))]


def _solve_run(task: Task, p: Params, session: Any) -> Result:
    res = PLUGIN.method("robust").bind(p)(task.instance, deadline=p.deadline())
    res.instance = task.name
    return res


SOLVE = SolveSpec(
    help=views.SOLVE_HELP,
    options=(SEED.but(default=None, show_default=False, help="Solve the contest generator's "
                      "graph of this seed (instead of files)."), BUDGET, STEP_ROW,
             TIME_LIMIT),
    run=_solve_run, table=views.solve_table, record=lambda t, r, p, full: r.to_dict(),
    tasks=_solve_tasks, prepare=_solve_prepare, show_one=views.solve_one,
    failed=lambda t, r, p: r.answer is not None and not r.check_ok, inputs_optional=True, inputs_name="[GRAPHS]...",
    task_noun="graph")


# -- check, render ---------------------------------------------------------------------------

def _check(args: Sequence[str], p: Params, inputs: Any) -> Outcome:
    """Each record replayed by the rules (and, with GRAPH, played on it)."""
    from puzzleproof.formats import deathrun as dfmt
    from puzzleproof.models.deathrun import scoreboard
    from puzzleproof.models.deathrun_replay import replay

    graph = None
    if len(args) == 2:
        text, source = inputs.text(args[0])
        graph = dfmt.read_graph(text, source)
    recs, source = read_games(args[-1], inputs)
    verdicts = []
    for k, rec in enumerate(recs):
        problems = []
        if graph is not None:
            try:
                mine = record_graph(rec)
            except (InputError, KeyError, TypeError):
                mine = None
            if mine is None or mine.fingerprint() != graph.fingerprint():
                # a "no" in one line: replayed on GRAPH every round would break its rules
                problems.append(f"the record was played on another graph than {args[0]}")
        problems += replay(rec, None if problems else graph)
        name = source if len(recs) == 1 else f"{source}#{rec.get('game_id', k + 1)}"
        verdicts.append((name, rec, problems))
    bad = [v for v in verdicts if v[2]]
    record = {"ok": not bad, "records": len(recs),
              "problems": [{"record": n, "problems": pr} for n, _, pr in bad],
              **({"scoreboard": scoreboard(recs[0])} if len(recs) == 1 and not bad else {})}
    return Outcome(not bad, record, views.check_page(verdicts, source))


def _file_of(arg: str) -> str:
    """The file of ``FILE#N`` (the argument itself when no such file part exists)."""
    return arg.rpartition("#")[0] if "#" in arg and not Path(arg).exists() else arg


def _render(arg: str, kind: str, p: Params, inputs: Any) -> Picture:
    """The graph (or a record's), with a game drawn on it; a game that breaks the rules is
    drawn with its title saying so."""
    from puzzleproof.formats import deathrun as dfmt
    from puzzleproof.models.deathrun_replay import replay

    record, notes = None, []
    given = inputs.given_instance(arg)
    text, source = ("", arg) if given is not None else inputs.text(_file_of(arg))
    if given is not None:
        g = given.instance
    elif dfmt.kind_of(text) == "record":
        record = read_games(arg, inputs)[0][0]
        g = record_graph(record)
    else:
        g = dfmt.read_graph(text, source)
    if p.game:
        recs, gsource = read_games(p.game)
        if len(recs) > 1:
            notes.append(f"note: {gsource} holds {len(recs)} games; drawing the first (FILE#N "
                         "picks another)")
        record = recs[0]
        if record_graph(record).fingerprint() != g.fingerprint():
            raise InputError("the game record was played on another graph", gsource)
    problems = replay(record, g) if record is not None else []
    title = f"NOT a valid game: {problems[0]}"[:200] if problems else None
    if problems:
        notes.append(f"note: the game record breaks the rules: {problems[0]}")
    draw = dfmt.render_png if kind == "png" else dfmt.render_svg
    return Picture(draw(g, record, title=title), kind, ok=not problems, notes=notes)


RENDER = RenderSpec(
    help=views.RENDER_HELP,
    options=(Opt("game", ("--game",), "A game record to draw on the graph (its raises and "
                 "each student's path); FILE#N or FILE#GAME_ID picks one from a JSONL.",
                 metavar="RECORD"),),
    render=_render, kinds=("svg", "png"), default_kind="svg", argument="GRAPH")


# -- crosscheck ------------------------------------------------------------------------------

def _values(x: Any) -> list[str]:
    """A repeatable option's values (the API may give one string)."""
    return [x] if isinstance(x, str) else list(x or ())


def _crosscheck_prepare(p: Params) -> None:
    """The bots, checked before any work (an unknown name or a missing file: exit 2)."""
    p["student_bots"] = list(dict.fromkeys(bot_list(_values(p.students) or DEFAULT_STUDENTS,
                                                    "student")))
    p["criminal_bots"] = list(dict.fromkeys(bot_list(_values(p.criminals) or
                                                     DEFAULT_CRIMINALS, "criminal")))


def _crosscheck(loaded: Sequence[Loaded], p: Params, env: Any) -> Outcome:
    """A tournament on the graphs (or seeded contest graphs), judged against the bounds;
    its summary is the JSONL's last line and the ``--json`` record."""
    from puzzleproof.verify.deathrun_judge import SUMMARY_TYPE, judge

    studs, crims = p.student_bots, p.criminal_bots
    graphs, names, evidence = graphs_for_run(loaded, crims, studs, p.count, p.seed, 6)
    target = str(env.target) if env.target is not None else None
    try:
        report = play_tournament(crims, studs, graphs, p, env.executor, env.target, env.resume,
                                 env.progress, on_record=env.echo)
    except KeyboardInterrupt:
        return Outcome(False, {"type": SUMMARY_TYPE, "schema_version": 1, "interrupted": True},
                       Page().note(views.interrupted_note(target)), code=130)
    summary = judge(report.records, graphs, names, evidence, p.seed)
    if target:
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(summary) + "\n")
    page = Page()
    resumed = views.resumed_note(report, target)
    if resumed and not (env.quiet or p.as_json):
        page.note(resumed)
    page.extend(views.crosscheck_page(summary, report, target))
    code = 1 if not summary["ok"] or summary["program_findings"] else 0
    return Outcome(code == 0, summary, page, code)


CROSSCHECK = CrosscheckSpec(
    help=views.CROSSCHECK_HELP,
    options=(STUDENT_POOL.but(metavar="BOT,...", help="Student bots to judge, comma-separated "
                              "or repeated (default: robust, greedy, cautious, random). "
                              + views.BOTS_HELP),
             CRIMINAL_POOL.but(metavar="BOT,...", help="Criminal bots to judge and to judge "
                               "the students against (default: toll, gap-toll, crowd: the "
                               "strongest built-in criminals)."),
             COUNT.but(default=None, show_default=False, help="About how many games in all "
                       "(rounded to whole passes of the seating over the graphs)."),
             SEED.but(help="Seed of the games, and of the graphs when none are given."),
             OUTPUT.but(help="JSONL file that receives each game's record as it finishes, then "
                             "the cross-check summary (the evidence of every finding). An "
                             "existing file is refused unless --resume (continue that run) or "
                             "--force (start again)."),
             *BOT_LIMITS),
    run=_crosscheck, prepare=_crosscheck_prepare, inputs_optional=True)


# -- generate --------------------------------------------------------------------------------

def _hunter(p: Params) -> Any:
    """With --student FILE.py (or --criminal FILE.py): the hunt for the graphs on which the
    bot file fails."""
    if not (p.student or p.criminal):
        return None
    from puzzleproof.generate.hunt_deathrun import DeathrunHunter
    from puzzleproof.games.deathrun_workers import parse_bot

    if p.student and p.criminal:
        raise UsageError("hunt one bot file: --student or --criminal")
    role, bot = ("student", p.student) if p.student else ("criminal", p.criminal)
    if ".py" not in bot:
        raise UsageError(f"--{role}: expected a bot file, FILE.py[:Class]")
    parse_bot(bot, role)
    if role == "student":
        others = bot_list([p.criminals], "criminal")
        others = others * 2 if len(others) == 1 else others
    else:
        others = ["greedy"]
    return DeathrunHunter(bot, others, p.min_excess, role=role,
                          move_timeout=p.move_timeout or MOVE.default,
                          init_timeout=p.init_timeout or INIT.default,
                          memory_limit=p.memory_limit or MEMORY.default,
                          max_attempts=p.candidates)


def _gen_prepare(p: Params) -> None:
    crims = bot_list([p.criminals], "criminal")
    if len(crims) == 1:
        crims = crims * 2
    if len(crims) != 2 or any(".py" in c for c in crims):
        raise UsageError("--criminals: expected two built-in criminal bots")
    p["criminal_pair"] = tuple(crims)
    p["candidate_count"] = p.candidates or 10 * p.count
    if p.candidate_count < p.count:
        raise UsageError(f"--candidates {p.candidate_count} cannot give {p.count} graphs")


def _generate(p: Params, executor: Any, on_attempt: Any):
    """The widest-gap graphs of the candidates, each with its evidence."""
    from puzzleproof.formats import deathrun as dfmt
    from puzzleproof.generate.deathrun import generate

    made = generate(p.count, p.seed, candidates=p.candidate_count, criminals=p.criminal_pair,
                    jobs=executor, progress=lambda done, total: on_attempt(done, 0))
    command = (f"puzzleproof generate deathrun -n {p.count} --seed {p.seed}"
               + (f" --candidates {p.candidates}" if p.candidates else "")
               + (f" --criminals {p.criminals}" if p.criminals != "toll,toll" else ""))
    short_of = []
    for g, ev in made:
        ev = {"type": "deathrun-gap", "student": "greedy", "students": 8, **ev,
              "seed": p.seed, "candidates": p.candidate_count, "command": command}
        name = f"gap-s{p.seed}-{ev['graph_seed'].rsplit(':', 1)[-1]}"
        text = dfmt.write_graph(g, ev)
        if ev["gap"] <= 0:
            short_of.append(name)
        yield Generated(name, ev, line=text.rstrip("\n"), files={f"{name}.json": text},
                        note=views.gap_note("{path}" if p.output else name, ev))
    if short_of:
        yield views.no_gap_note(short_of)


GENERATE = GenerateSpec(
    help=views.GENERATE_HELP,
    options=(COUNT.but(help="How many graphs to keep."),
             SEED.but(help="Seed: candidate i is the contest generator's graph 'SEED:i'."),
             Opt("candidates", ("--candidates",), "Candidate graphs to measure (default: 10 x "
                 "count).", kind="int", range=(1, None)),
             Opt("criminals", ("--criminals",), "The criminal pair the greedy field (or the "
                 "hunted student file) plays against.", default="toll,toll",
                 show_default=True, metavar="BOT,BOT"),
             Opt("student", ("--student",), "Hunt for the smallest graphs on which this "
                 "student file (in all eight seats) pays at least --min-excess above the "
                 "robust student's certified bound, or moves invalidly; each kept with the "
                 "game and the bound. Exit 1 when one is found.", metavar="FILE.py"),
             Opt("criminal", ("--criminal",), "Hunt for the smallest graphs on which this "
                 "criminal file (both seats, against greedy students) moves invalidly.",
                 metavar="FILE.py"),
             Opt("min_excess", ("--min-excess",), "With --student: how far above the bound "
                 "a seat must pay.", kind="float", default=20.0, range=(0, None),
                 show_default=True),
             MOVE, INIT, MEMORY,
             TIME_LIMIT.but(default=120.0, show_default=True, help="With --student or "
                            "--criminal: seconds the hunt may take; it stops with what it "
                            "found."),
             *WHERE),
    generate=_generate, prepare=_gen_prepare, hunter=_hunter, hunts_programs=False,
    rebuild="puzzleproof.generate.hunt_deathrun:from_evidence",
    layout=lambda p: "folder" if p.output or p.count > 1 else "lines", what="kept",
    shortfall="raise --candidates",
    output_help="Folder for NAME.json (the graph with its evidence). Without it, one graph "
                "(-n 1) is printed on stdout.")


def _write_graph(g: Any) -> str:
    from puzzleproof.formats.deathrun import write_graph

    return write_graph(g)


READER = Reader(
    read="puzzleproof.formats.deathrun:read_instances", suffixes=(".json",),
    limits=views.LIMITS,
    written={"deathrun-game": "a Death Run game record",
             "deathrun-crosscheck": "a Death Run cross-check summary",
             "deathrun-tournament": "a Death Run tournament summary"},
    instance_type="puzzleproof.models.deathrun:Graph", write=_write_graph,
    samples={"instances": ["instances/deathrun/graphs/gap-s1-1.json"],
             "check": [[None, "tests/fuzz_seeds/deathrun-gap-s1-1.record.json"]],
             "written": ["tests/fuzz_seeds/deathrun-gap-s1-1.record.json"],
             "hardest": "instances/deathrun/graphs/gap-s1-1.json"})

PLUGIN = Plugin(
    name="deathrun", title="Death Run", noun="graph", aliases=("death-run", "cmimc"), rank=40,
    summary="Death Run (CMIMC 2024): a faithful engine, certified bounds for students and "
            "criminals, bots judged in tournaments",
    reader=READER, methods=METHODS, default_methods=(*DEFAULT_STUDENTS, *DEFAULT_CRIMINALS),
    solve=SOLVE, check=CheckSpec(help=views.CHECK_HELP, options=(), check=_check,
                                 arguments="[GRAPH] RECORD", nargs=(1, 2)),
    render=RENDER, crosscheck=CROSSCHECK, generate=GENERATE,
    report=ReportSpec(runs={"deathrun-game": ("Death Run games", views.game_sections)},
                      line_fields={"deathrun-game": {"game_id": str, "graph": dict,
                                                     "seats": list, "scores": dict}},
                      count_words={"above_bound": "seat-games above the robust bound",
                                   "invalid_moves": "invalid moves",
                                   "program_findings": "your program's seat-games above "
                                                       "the bound"}),
    commands=COMMANDS)
