"""Hashiwokakero (Bridges; CodinGame "There Is No Spoon - Episode 2") as a plugin: its
reader, its methods (two exact back ends and the article's heuristic), and its part of every
shared verb. What a person sees is drawn in :mod:`puzzleproof.puzzles.hashi_views`."""

from __future__ import annotations

import json
from typing import Any, Sequence

from puzzleproof.clock import PerTask
from puzzleproof.errors import InputError, UsageError
from puzzleproof.instance import Loaded
from puzzleproof.puzzles import hashi_views as views
from puzzleproof.puzzles.base import (CheckSpec, ConvertSpec, CrosscheckSpec, GenerateSpec,
                                      Outcome, Params, Picture, Plugin, Reader, RenderSpec,
                                      ReportSpec, SolveSpec, Task, resolve_methods)
from puzzleproof.puzzles.options import (BOT_CMD, CONFLICTS, COUNT, MEMORY_LIMIT, METHOD,
                                         METHODS, SEED, TIME_LIMIT, WHERE, Opt)
from puzzleproof.result import Result

__all__ = ["PLUGIN"]

FORMATS = ("codingame", "grid", "has", "tatham", "puzzlink", "json", "jsonl")
WRITE_FORMATS = ("codingame", "grid", "has", "tatham", "puzzlink", "json")

from puzzleproof.verify.hashi_methods import METHODS as METHOD_LIST  # noqa: E402

EXACT = ("sat", "cpsat")

# -- options ---------------------------------------------------------------------------------

INPUT_FORMAT = Opt("input_format", ("--input-format",), "Format of the puzzle input; 'auto' detects it.",
                   kind="choice", choices=("auto",) + FORMATS, default="auto",
                   show_default=True)
MAX_BRIDGES = Opt("max_bridges", ("--max-bridges",), "Most bridges per pair, where the format "
                  "does not say (default 2).", kind="int", range=(1, 4))
UNIQUE = Opt("unique", ("--unique",), "Decide UNIQUE or MULTIPLE (shows two solutions).",
             kind="flag", default=False)
ALL = Opt("enumerate_all", ("--all",), "Enumerate connected solutions, up to -n.", kind="flag",
          default=False)
WORKERS = Opt("workers", ("--workers",), "CP-SAT worker threads (1 is deterministic, and "
              "fastest on these small re-solved models, above all on a busy machine).",
              kind="int", default=1, range=(1, 64), show_default=True)
SHOW = Opt("show", ("--show",), "For one puzzle: draw the solution, print its 'x1 y1 x2 y2 n' "
           "lines (CodinGame output), or nothing.", kind="choice",
           choices=("picture", "lines", "none"), default="picture", show_default=True)
ASCII = Opt("ascii_only", ("--ascii",), "Draw pictures with ASCII only.", kind="flag",
            default=False)
NODES = Opt("nodes", ("--nodes",), "Search nodes of the article's solver per puzzle "
            "(deterministic too).", kind="int", range=(1, None))


def _read(text: str, source: str, input_format: str | None = None,
          max_bridges: int | None = None) -> list[Loaded]:
    from puzzleproof.formats.hashi import read_instances

    return read_instances(text, source, None if input_format in (None, "auto") else
                          input_format, max_bridges)


def _suffixes() -> tuple[str, ...]:
    from puzzleproof.formats.hashi import SUFFIXES

    return SUFFIXES


# -- solve -----------------------------------------------------------------------------------

def _mode(p: Params) -> str:
    return "all" if p.enumerate_all else "unique" if p.unique else "solve"


def _solve_prepare(p: Params) -> None:
    p["method"] = (resolve_methods(PLUGIN, p.method or "sat") or ["sat"])
    if len(p["method"]) != 1:
        raise UsageError("solve takes one method; crosscheck compares several")
    p["method"] = p["method"][0]
    if p.method == "article" and _mode(p) != "solve":
        raise UsageError("the article's heuristic answers no uniqueness question; use "
                         "--method sat or cpsat with --unique/--all")
    p["mode"] = _mode(p)


def _solve_run(task: Task, p: Params, session: Any) -> Result:
    return PLUGIN.method(p.method).bind(p)(task.instance, deadline=p.deadline())


def _record(task: Task, res: Result, p: Params, full: bool) -> dict:
    d = res.to_dict()
    verdict, failed = views.verdict(task.reference, res)
    puzzle = task.instance
    d.update(name=task.name, reference=None if task.reference is None else verdict,
             failed=failed, islands=len(puzzle.islands), size=f"{puzzle.width}x{puzzle.height}")
    if res.answer is not None:
        d["bridge_lines"] = len(res.answer)
        d["bridges"] = sum(line[4] for line in res.answer)
    return d


def _write(task: Task, res: Result, p: Params) -> tuple[str, str] | None:
    from pathlib import Path

    from puzzleproof.formats import hashi as hfmt

    if res.answer is None:
        return None
    kind = p.out_format or {".svg": "svg", ".json": "json"}.get(Path(p.output).suffix.lower(),
                                                                "lines")
    if kind == "svg":
        return hfmt.render_svg(task.instance, res.answer, title=task.instance.name), ""
    if kind == "ascii":
        return hfmt.render_ascii(task.instance, res.answer, unicode=not p.ascii_only), ""
    return hfmt.write_solution(res.answer, "json" if kind == "json" else "codingame"), ""


def _failed(task: Task, res: Result, p: Params) -> bool:
    from puzzleproof.result import Status

    return views.verdict(task.reference, res)[1] or res.status is Status.INFEASIBLE


SOLVE = SolveSpec(
    help=views.SOLVE_HELP,
    options=(METHOD.but(default="sat", show_default=True, help=views.method_help(METHOD_LIST)),
             UNIQUE, ALL, COUNT.but(default=10, help="How many solutions to list with --all."),
             TIME_LIMIT.but(help="Seconds per puzzle; when they run out the answer is "
                                 "UNKNOWN, naming the limit."),
             CONFLICTS.but(help="SAT conflict budget per puzzle (method sat); UNKNOWN naming "
                                "it when spent."),
             WORKERS, SEED, SHOW, ASCII,
             Opt("output", ("-o", "--output"), "One puzzle: its solution (.svg a picture, "
                 ".json JSON, anything else CodinGame lines). Several: one JSON record a line "
                 "per puzzle. Never overwrites an existing file unless --force.", kind="path"),
             Opt("out_format", ("--format",), "What -o holds (default: from its extension).",
                 kind="choice", choices=("svg", "json", "lines", "ascii"))),
    run=_solve_run, table=views.solve_table, record=_record, prepare=_solve_prepare,
    show_one=views.solve_one, write=_write, failed=_failed,
    describe=lambda t, p: f"{t.name} ({p.method})", inputs_name="PUZZLES...",
    task_noun="puzzle")


# -- check, render, convert ------------------------------------------------------------------

def _reader_opts(p: Params) -> dict[str, Any]:
    return {"input_format": p.input_format, "max_bridges": p.max_bridges}


def _check(args: Sequence[str], p: Params, inputs: Any) -> Outcome:
    from puzzleproof.formats import hashi as hfmt
    from puzzleproof.models.hashi import check_solution

    ld = inputs.one(args[0], PLUGIN, _reader_opts(p), "check")
    text, source = inputs.text(args[1])
    lines = hfmt.read_solution(text, source)
    violations = check_solution(ld.instance, [ln.bridge for ln in lines])
    record = {"name": ld.instance.name, "ok": not violations, "bridge_lines": len(lines),
              "bridges": sum(ln.bridge[4] for ln in lines),
              "violations": [v.to_dict() for v in violations]}
    return Outcome(not violations, record,
                   views.check_page(ld.instance, source, lines, violations))


def _render(arg: str, kind: str, p: Params, inputs: Any) -> Picture:
    from puzzleproof.formats import hashi as hfmt

    ld = inputs.one(arg, PLUGIN, _reader_opts(p), "render")
    if p.solution_arg and p.do_solve:
        raise UsageError("give --solution or --solve, not both")
    answer, notes, wrong = None, [], False
    if p.solution_arg:
        answer, notes, wrong = views.drawn_solution(ld.instance, p.solution_arg)
    elif p.do_solve:
        answer, why = views.solved_for_drawing(ld, p)
        if answer is None:
            return Picture(None, kind, ok=False, notes=[why])
    title = ld.name + (" - NOT a solution" if wrong else "")
    if kind == "svg":
        data = hfmt.render_svg(ld.instance, answer, title=title)
    else:
        data = hfmt.render_ascii(ld.instance, answer, unicode=not p.ascii_only) + \
            (f"NOT a solution: {p.solution_arg} breaks the rules\n" if wrong else "")
    return Picture(data, kind, ok=not wrong, notes=notes)


RENDER = RenderSpec(
    help=views.RENDER_HELP,
    options=(Opt("solution_arg", ("--solution",), "Draw this solution (CodinGame lines or "
                 "JSON); it is rule-checked first and a wrong one is drawn with its faults "
                 "marked (exit 1).", metavar="FILE"),
             Opt("do_solve", ("--solve",), "Solve the puzzle and draw the solution.",
                 kind="flag", default=False),
             Opt("time_limit", ("--time-limit",), "Seconds for --solve; when they run out "
                 "there is nothing to draw.", kind="seconds", open_low=True),
             Opt("ascii_only", ("--ascii",), "ASCII characters only.", kind="flag",
                 default=False)),
    render=_render, kinds=("svg", "ascii", "text"), default_kind="ascii", argument="PUZZLE")


def _convert(arg: str, fmt: str, p: Params, inputs: Any) -> tuple[str, str]:
    from puzzleproof.formats import hashi as hfmt
    from puzzleproof.puzzles.inputs import plural

    c = inputs.read(arg, "hashi", {"hashi": _reader_opts(p)})
    if fmt == "json" and len(c.loaded) > 1 and p.output and p.output.lower().endswith(".json"):
        raise UsageError(f"{len(c.loaded)} puzzles in JSON are JSON Lines (one object a line), "
                         f"not one JSON document: name the output .jsonl, not {p.output}")
    parts = []
    for ld in c.loaded:
        try:
            text = hfmt.write_puzzle(ld.instance, fmt, ld.reference if fmt == "json" else None)
        except InputError as exc:
            raise exc.located(ld.name) from None
        if fmt == "json" and len(c.loaded) > 1:
            text = json.dumps(json.loads(text))
        parts.append(text if text.endswith("\n") else text + "\n")
    return "".join(parts), f" ({plural(len(c.loaded), 'puzzle')})"


CONVERT = ConvertSpec(help=views.CONVERT_HELP, options=(), formats=WRITE_FORMATS,
                      write=_convert, argument="PUZZLE")


# -- crosscheck ------------------------------------------------------------------------------

def _crosscheck(loaded: Sequence[Loaded], p: Params, env: Any) -> Outcome:
    from puzzleproof.puzzles.harness import Table, run_harness
    from puzzleproof.verify.crosscheck import Instance
    from puzzleproof.games.hashi_program import external_method
    from puzzleproof.verify.hashi_methods import hashi_kind

    extra = {name: external_method(program) for name, program in (p.externals or {}).items()}
    chosen = resolve_methods(PLUGIN, p.method, default=("sat", "cpsat", "article"))
    chosen += [n for n in extra if n not in chosen]
    kind = hashi_kind(extra, conflicts=p.conflicts, nodes=p.nodes)
    seen: dict[str, int] = {}
    instances = []
    for ld in loaded:
        seen[ld.name] = seen.get(ld.name, -1) + 1
        key = ld.name if not seen[ld.name] else f"{ld.name}@{seen[ld.name]}"
        instances.append(Instance(key, ld.instance, ld.reference))
    columns = (("solved", "solved"), ("unique", "unique"), ("multiple", "multiple"),
               ("infeasible", "infeasible"), ("failed", "failed"), ("unknown", "unknown"))
    if extra:  # a program is not sent what CodinGame's input cannot hold
        columns += (("not sent", "not_sent"),)
    table = Table(columns,
                  note="effort: cut rounds for exact solvers, assumptions for the article's "
                       "solver")
    _, outcome = run_harness("hashi", kind, instances, chosen, env,
                             PerTask(p.time_limit), table)
    return outcome


CROSSCHECK = CrosscheckSpec(
    help=views.CROSSCHECK_HELP,
    options=(METHODS.but(help=views.method_help(METHOD_LIST, several=True)),
             BOT_CMD.but(help="An external solver to "
                         "judge, speaking CodinGame's protocol (grid on stdin, 'x1 y1 x2 y2 n' "
                         "lines on stdout); repeatable, each named."),
             TIME_LIMIT.but(default=60.0, show_default=True, help="Seconds per instance and "
                            "method; when they run out the answer is UNKNOWN, naming the "
                            "limit."),
             CONFLICTS.but(help="Conflict budget of the sat method per puzzle (a "
                                "deterministic limit: the same records on any machine and "
                                "executor)."),
             NODES, MEMORY_LIMIT),
    run=_crosscheck)


# -- generate --------------------------------------------------------------------------------

def _hunter(p: Params) -> Any:
    """With --bot-cmd: the hunt for the unique puzzles the program answers wrongly."""
    if p.program is None:
        return None
    from puzzleproof.generate.hunt_hashi import HashiHunter

    return HashiHunter(p.program, max_attempts=p.max_attempts)


#: the side of a generated grid when neither --size nor --width / --height says
DEFAULT_SIDE = 15


def _gen_prepare(p: Params) -> None:
    if (p.method or "sat") not in EXACT:
        raise UsageError("uniqueness is proved by an exact method: --method sat or cpsat")
    if p.size:
        both = [o for o in ("width", "height") if p.get(o) is not None]
        if both:
            raise UsageError(f"--size and --{both[0]}: give the grid's size one way")
        try:
            p["width"], p["height"] = (int(v) for v in p.size.lower().split("x"))
        except ValueError:
            raise UsageError(f"--size: expected WxH such as 15x15, found {p.size!r}") from None
        if not (2 <= p.width <= 200 and 2 <= p.height <= 200):
            raise UsageError(f"--size: expected sides from 2 to 200, found {p.size!r}")
    for side in ("width", "height"):
        if p.get(side) is None:
            p[side] = DEFAULT_SIDE


def _generate(p: Params, executor: Any, on_attempt: Any):
    from puzzleproof.formats import hashi as hfmt
    from puzzleproof.generate.hashi import MAX_REPAIRS, GenParams
    from puzzleproof.generate.hashi import generate as gen
    from puzzleproof.puzzles.base import Generated

    try:
        params = GenParams(p.width, p.height, p.density, p.max_bridges, p.loops, p.count,
                           p.seed, p.min_assumptions, p.method or "sat",
                           max_attempts=p.max_attempts, min_depth=p.min_depth or 0,
                           max_repairs=MAX_REPAIRS if p.max_repairs is None else p.max_repairs)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    ext = {"codingame": ".txt", "grid": ".txt", "has": ".has", "json": ".json"}
    clock, kept = p.deadline(), 0
    for g in gen(params, jobs=executor, on_attempt=on_attempt, deadline=clock):
        kept += 1
        if p.out_fmt in ("jsonl", "tatham", "puzzlink"):
            line = (json.dumps(g.to_record()) if p.out_fmt == "jsonl"
                    else hfmt.write_puzzle(g.puzzle, p.out_fmt).strip())
            yield Generated(g.puzzle.name, g.to_record(), line=line)
        else:
            yield Generated(g.puzzle.name, g.to_record(), files={
                f"{g.puzzle.name}{ext[p.out_fmt]}": hfmt.write_puzzle(g.puzzle, p.out_fmt,
                                                                      g.solution)})
    if kept < p.count and clock.expired():
        yield (f"the time limit ({p.time_limit:g} s) ran out; the attempt it cut short is "
               "not counted")


GENERATE = GenerateSpec(
    help=views.GENERATE_HELP,
    options=(Opt("size", ("--size",), "Grid size, e.g. 15x15.", metavar="WxH"),
             Opt("width", ("--width",), f"Grid columns (or --size; default {DEFAULT_SIDE}).",
                 kind="int", range=(2, 200)),
             Opt("height", ("--height",), f"Grid rows (or --size; default {DEFAULT_SIDE}).",
                 kind="int", range=(2, 200)),
             Opt("density", ("--density",), "Most islands per cell.", kind="float",
                 default=0.25, range=(0, 1), open_low=True, show_default=True),
             Opt("loops", ("--loops",), "Chance of an extra bridge between two islands that "
                 "see each other (cycles; high values rarely give unique puzzles).",
                 kind="float", default=0.1, range=(0, 1), show_default=True),
             MAX_BRIDGES.but(default=2, show_default=True, help="Most bridges per pair "
                             "(Tatham's Bridges allows up to 4)."),
             COUNT.but(default=10, help="How many puzzles to keep."), SEED,
             Opt("min_assumptions", ("--min-assumptions",), "Keep only puzzles that need at "
                 "least K assumptions from the article's solver (hard for the heuristic, "
                 "still unique).", kind="int", default=0, range=(0, 10_000),
                 show_default=True),
             Opt("min_depth", ("--min-depth",), "Keep only puzzles whose assumptions (of the "
                 "article's solver) nest at least D deep.", kind="int", default=0,
                 range=(0, 10_000), show_default=True),
             METHOD.but(default="sat", show_default=True, help="The exact method that proves "
                        "each puzzle unique: sat or cpsat."),
             Opt("max_repairs", ("--max-repairs",), "Rounds of repair per attempt: where the "
                 "exact method finds a second solution, the layout is changed there and the "
                 "question asked again (default 60; 0 keeps only layouts unique by chance).",
                 kind="int", range=(0, 10_000)),
             Opt("max_attempts", ("--max-attempts",), "Stop after this many attempts "
                 "(default 1000 per puzzle asked).", kind="int", range=(1, None)),
             TIME_LIMIT.but(help="Seconds for the whole run: the attempt they run out in "
                                 "ends it, and the puzzles kept before it are written "
                                 "(fewer than asked: exit 1)."),
             *WHERE,
             Opt("out_fmt", ("--format",), "jsonl (puzzle, solution, measures), tatham and "
                 "puzzlink stream one puzzle a line; the others need -o FOLDER and write one "
                 "file a puzzle.", kind="choice", choices=("jsonl",) + WRITE_FORMATS,
                 default="jsonl", show_default=True)),
    generate=_generate, prepare=_gen_prepare, hunter=_hunter,
    rebuild="puzzleproof.generate.hunt_hashi:from_evidence",
    layout=lambda p: "lines" if p.out_fmt in ("jsonl", "tatham", "puzzlink") else "folder",
    what="kept", shortfall="lower --min-assumptions, --min-depth or --loops, or raise "
              "--max-attempts or --time-limit",
    output_help="A file (line formats) or a folder (one file a puzzle).")


def _write_json(puzzle: Any) -> str:
    from puzzleproof.formats.hashi import write_puzzle

    return write_puzzle(puzzle, "json")


READER = Reader(
    read=_read, suffixes=_suffixes(), options=(INPUT_FORMAT, MAX_BRIDGES), priority=1,
    limits=views.LIMITS, written={"hashi-generated": "a generated puzzle set"},
    instance_type="puzzleproof.models.hashi:Puzzle", write=_write_json,
    samples={"instances": ["instances/hashi/small-5x5.txt",
                           "instances/hashi/adjacent-islands-6x6.has",
                           "instances/hashi/four-bridges-7x7.tatham",
                           "instances/hashi/puzzlink-5x5.url", "instances/hashi/examples.jsonl",
                           "shared/hashi/coelho2019/100/Hs_16_100_25_00_001.has"],
             "check": [["instances/hashi/small-5x5.txt", "tests/fuzz_seeds/hashi-small-5x5.sol"]],
             "written": ["instances/hashi/generated/7x7.jsonl"],
             "hardest": "shared/hashi/coelho2019/400/Hs_34_400_25_00_001.has"})

PLUGIN = Plugin(
    name="hashi", title="Hashiwokakero", noun="puzzle",
    aliases=("bridges", "hashiwokakero", "hashikake"), rank=10,
    summary="Bridges (CodinGame 'There Is No Spoon - Episode 2'): exact solutions, "
            "uniqueness, the article's heuristic",
    reader=READER, methods=METHOD_LIST, default_methods=("sat", "cpsat", "article"),
    solve=SOLVE, check=CheckSpec(help=views.CHECK_HELP, options=(), check=_check,
                                 arguments="PUZZLE SOLUTION"),
    render=RENDER, convert=CONVERT, crosscheck=CROSSCHECK, generate=GENERATE,
    report=ReportSpec(draw=views.draw_disagreement, size=views.size, size_name="islands",
                      runs={"hashi": ("Generated Hashi puzzles", views.generated_sections)},
                      line_fields={"hashi": {"grid": list}}))
