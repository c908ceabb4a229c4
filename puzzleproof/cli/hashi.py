"""Hashiwokakero's commands: ``solve``, ``check``, ``render``, ``convert``, ``crosscheck`` and
``generate`` for ``hashi``, registered on the shared verbs."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from puzzleproof.cli.common import (FiniteRange,
                                    Exit, check_group, check_output, convert_group,
                                    count_option, crosscheck_group, deliver, emit, err, force_option,
                                    gather, generate_group, jobs_option, json_option,
                                    jsonl_option, method_option, out, output_option, plural,
                                    progress_bar, quiet_option, read_arg, render_group,
                                    resume_option, say, seed_option, short, solve_group,
                                    split_names, time_limit_option)
from puzzleproof.errors import InputError
from puzzleproof.formats import read_source, write_atomic
from puzzleproof.formats import hashi as hfmt
from puzzleproof.models.hashi import GEOMETRY_KINDS, Puzzle, check_solution
from puzzleproof.result import Result, Status

INPUT_FORMAT_OPT = click.option("--input-format", "fmt", type=click.Choice(("auto",) + hfmt.FORMATS),
                                default="auto", show_default=True,
                                help="Format of the puzzle input; 'auto' detects it.")
MAXB_OPT = click.option("--max-bridges", type=click.IntRange(1, 4), default=None,
                        help="Most bridges per pair, where the format does not say (default 2).")


def _opts(fmt: str | None, max_bridges: int | None) -> dict[str, Any]:
    return {"fmt": None if fmt in (None, "auto") else fmt, "max_bridges": max_bridges}


def _records(args, fmt, max_bridges, strict: bool = True):
    """``[(name or argument, HashiRecord or InputError)]`` over every input."""
    g = gather(args, "hashi", _opts(fmt, max_bridges), strict=strict)
    g.say_skipped()
    rows: list[tuple[str, Any]] = [(arg, exc) for arg, exc in g.errors]
    rows += [(ld.name, hfmt.HashiRecord(ld.instance, ld.name, ld.reference)) for ld in g.loaded]
    return rows


def _one(puzzle: str, fmt, max_bridges, verb: str) -> hfmt.HashiRecord:
    c = read_arg(puzzle, "hashi", {"hashi": _opts(fmt, max_bridges)})
    if len(c.loaded) != 1:
        raise InputError(f"holds {len(c.loaded)} puzzles; {verb} takes exactly one (name one "
                         f"as {puzzle}#N)", puzzle)
    ld = c.loaded[0]
    return hfmt.HashiRecord(ld.instance, ld.name, ld.reference)


# -- solve --------------------------------------------------------------------------------

def _solve_fn(method: str, mode: str, max_solutions: int, time_limit, conflicts, workers,
              seed):
    from puzzleproof.encoders import hashi_solver

    if method == "article":
        if mode != "solve":
            raise click.UsageError("the article's heuristic answers no uniqueness question; "
                                   "use --method sat or cpsat with --unique/--all")
        from puzzleproof.verify import hashi_heuristic

        return lambda p, on_round=None: hashi_heuristic.solve(p, time_limit=time_limit)
    kwargs: dict[str, Any] = {"mode": mode, "max_solutions": max_solutions,
                              "time_limit": time_limit}
    if method == "cpsat":
        kwargs.update(workers=workers, seed=seed)
    else:
        kwargs.update(conflict_budget=conflicts)
    fn = hashi_solver(method)
    return lambda p, on_round=None: fn(p, on_round=on_round, **kwargs)


@solve_group.command(name="hashi")
@click.argument("puzzles", nargs=-1, required=True)
@method_option("hashi", "sat")
@click.option("--unique", is_flag=True, help="Decide UNIQUE or MULTIPLE (shows two solutions).")
@click.option("--all", "enumerate_all", is_flag=True,
              help="Enumerate connected solutions, up to -n.")
@count_option(10, "solutions to list with --all")
@INPUT_FORMAT_OPT
@MAXB_OPT
@time_limit_option(None, "per puzzle")
@click.option("--conflicts", type=click.IntRange(1), default=None,
              help="SAT conflict budget per puzzle (method sat); UNKNOWN naming it when spent.")
@click.option("--workers", type=click.IntRange(1), default=1, show_default=True,
              help="CP-SAT worker threads (1 is deterministic).")
@seed_option
@json_option
@jsonl_option
@click.option("--show", type=click.Choice(("picture", "lines", "none")), default="picture",
              show_default=True, help="For one puzzle: draw the solution, print its "
                                      "'x1 y1 x2 y2 n' lines (CodinGame output), or nothing.")
@click.option("--ascii", "ascii_only", is_flag=True, help="Draw pictures with ASCII only.")
@output_option("One puzzle: its solution (.svg a picture, .json JSON, anything else CodinGame "
               "lines). Several: one JSON record a line per puzzle.")
@click.option("--format", "out_format", type=click.Choice(("svg", "json", "lines", "ascii")),
              default=None, help="What -o holds (default: from its extension).")
@force_option
@quiet_option
def solve(puzzles: tuple[str, ...], method: str, unique: bool, enumerate_all: bool,
          count: int, fmt: str, max_bridges: int | None, time_limit: float | None,
          conflicts: int | None, workers: int, seed: int, as_json: bool, as_jsonl: bool,
          show: str, ascii_only: bool, output: str | None, out_format: str | None,
          force: bool, quiet: bool) -> None:
    """Solve Hashi puzzles exactly, check every answer by the rules, and report.

    \b
    One puzzle: its status (SOLVED, UNIQUE, MULTIPLE, INFEASIBLE or UNKNOWN), a
    picture of the solution and the solver's effort. Several puzzles (or a folder,
    or a JSONL file): a table, one row per puzzle, and a summary; a puzzle that
    ships a reference solution is compared with it when the answer is UNIQUE.

    \b
    Every solution is re-checked by the rule checker in puzzleproof.models, which
    shares no code with the solvers. A limit that runs out gives UNKNOWN, never
    INFEASIBLE. Exit 0 solved, 1 proved INFEASIBLE or a failed check, 2 bad input.

    \b
    Examples:
      puzzleproof solve instances/hashi/small-5x5.txt --unique
      puzzleproof solve 3x3m2:3a3c2a2 --all -n 5
      puzzleproof solve puzzle.txt --show lines          # CodinGame's output
      puzzleproof solve instances/hashi/ --unique -o results.jsonl
    """
    method = method or "sat"
    split_names(method, ("sat", "cpsat", "article"), "method")
    if "," in method:
        raise click.UsageError("solve takes one method; crosscheck compares several")
    mode = "all" if enumerate_all else "unique" if unique else "solve"
    check_output(output, force)
    solve_fn = _solve_fn(method, mode, count, time_limit, conflicts, workers, seed)
    inputs = _records(puzzles, fmt, max_bridges, strict=True)
    records = [(a, r) for a, r in inputs if isinstance(r, hfmt.HashiRecord)]
    if not records:
        # nothing could be read: one line an input (as for every puzzle), no table of
        # BAD INPUT rows repeating it, and no empty -o file left behind
        for _, exc in inputs:
            say(f"puzzleproof: error: {exc}")
        raise Exit(2)
    if len(inputs) == 1 and records and not as_jsonl:
        rec = records[0][1]
        if quiet or not err.is_terminal or as_json:
            res = solve_fn(rec.puzzle)
        else:
            with err.status(f"solving {rec.name} ({method})") as status:
                def on_round(rounds: int, cuts: int) -> None:
                    status.update(f"solving {rec.name} ({method}): {plural(rounds, 'cut round')}"
                                  f", {plural(cuts, 'cut')}")
                res = solve_fn(rec.puzzle, on_round=on_round)
        raise Exit(_report_one(rec, res, as_json, show, ascii_only, output, out_format, force))

    rows: list[tuple[hfmt.HashiRecord | None, str, Result | InputError]] = []
    interrupted = False
    sink = open(output, "w" if force else "x", encoding="utf-8") if output else None
    try:
        with progress_bar(quiet or as_json) as progress:
            task = progress.add_task(f"solving ({method})", total=len(records))
            try:
                for arg, rec in inputs:
                    if isinstance(rec, InputError):
                        rows.append((None, arg, rec))
                        say(f"puzzleproof: error: {rec}")
                        if as_jsonl:
                            emit({"type": "error", "input": arg, "message": str(rec)})
                        continue
                    progress.update(task, description=f"solving ({method}) {short(rec.name, 30)}")
                    res = solve_fn(rec.puzzle)
                    rows.append((rec, arg, res))
                    progress.advance(task)
                    if as_jsonl:
                        emit(_result_record(rec, res))
                    if sink:
                        sink.write(json.dumps(_result_record(rec, res)) + "\n")
                        sink.flush()
            except KeyboardInterrupt:
                interrupted = True
    finally:
        if sink:
            sink.close()
            say(f"wrote {output} ({plural(sum(isinstance(x, Result) for _, _, x in rows), 'record')})")
    if as_json:
        emit([_result_record(r, x) if isinstance(x, Result) else
              {"type": "error", "input": a, "message": str(x)} for r, a, x in rows])
    elif not as_jsonl:
        _print_table(rows, method, mode)
    if interrupted:
        say(f"interrupted after {sum(isinstance(x, Result) for _, _, x in rows)} of "
            f"{len(records)} puzzles; the results above are complete for those")
        raise Exit(130)
    if any(isinstance(x, InputError) for _, _, x in rows):
        raise Exit(2)
    failed = any(isinstance(x, Result) and (_verdict(r, x)[1] or x.status is Status.INFEASIBLE)
                 for r, _, x in rows)
    raise Exit(1 if failed else 0)


def _verdict(rec: hfmt.HashiRecord | None, res: Result) -> tuple[str, bool]:
    """(what the check says, whether it is a failure) for a result and its reference."""
    if not res.check_ok:
        return "FAILED", True
    if rec is not None and rec.solution is not None and res.status is Status.UNIQUE:
        same = sorted(map(_norm, rec.solution)) == sorted(map(_norm, res.answer))
        return ("ok (= ref)", False) if same else ("DIFFERS from ref", True)
    return ("ok" if res.check is not None else "-"), False


def _norm(line) -> tuple:
    x1, y1, x2, y2, n = line
    return (min((x1, y1), (x2, y2)), max((x1, y1), (x2, y2)), n)


def _result_record(rec: hfmt.HashiRecord, res: Result) -> dict:
    d = res.to_dict()
    verdict, failed = _verdict(rec, res)
    d["name"] = rec.name
    d["reference"] = None if rec.solution is None else verdict
    d["failed"] = failed
    d["islands"] = len(rec.puzzle.islands)
    d["size"] = f"{rec.puzzle.width}x{rec.puzzle.height}"
    if res.answer is not None:
        d["bridge_lines"] = len(res.answer)
        d["bridges"] = sum(line[4] for line in res.answer)
    return d


def _print_table(rows, method: str, mode: str) -> None:
    from rich.table import Table

    table = Table(title=f"Hashi, method '{method}', question: {mode}", title_justify="left")
    for col, just in (("puzzle", "left"), ("size", "right"), ("islands", "right"),
                      ("status", "left"), ("check", "left"), ("cut rounds", "right"),
                      ("time (s)", "right")):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    counts: dict[str, int] = {}
    times = []
    for rec, arg, res in rows:
        if isinstance(res, InputError):
            table.add_row(short(arg), "", "", "BAD INPUT", short(str(res.message), 60), "", "")
            counts["BAD INPUT"] = counts.get("BAD INPUT", 0) + 1
            continue
        verdict, _ = _verdict(rec, res)
        counts[res.status.value] = counts.get(res.status.value, 0) + 1
        times.append(res.wall_time)
        table.add_row(short(rec.name), f"{rec.puzzle.width}x{rec.puzzle.height}",
                      str(len(rec.puzzle.islands)), _limit_short(res), verdict,
                      str(res.stats.get("cut_rounds", "")), f"{res.wall_time:.3f}")
    out.print(table)
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    if times:
        summary += (f"; time mean {sum(times) / len(times):.3f} s, max {max(times):.3f} s, "
                    f"total {sum(times):.2f} s")
    out.print(summary, markup=False)
    unknown = [(rec, res) for rec, _, res in rows
               if isinstance(res, Result) and res.status is Status.UNKNOWN]
    for rec, res in unknown[:10]:
        out.print(f"  UNKNOWN: {rec.name}: {_unknown_note(res)}", markup=False)
    if len(unknown) > 10:
        out.print(f"  ... and {len(unknown) - 10} more UNKNOWN (their notes are in --json / -o "
                  "records)", markup=False)


def _unknown_note(res: Result) -> str:
    """Which limit ran out, in words (an UNKNOWN always says it)."""
    cert = res.certificate if isinstance(res.certificate, dict) else {}
    note = cert.get("note")
    if note:
        return str(note)
    limit = (res.params or {}).get("time_limit")
    return f"the time limit ({limit:g} s) ran out" if limit is not None else "a limit ran out"


def _status_text(res: Result) -> str:
    """The status, and for UNKNOWN the limit that ran out."""
    if res.status is Status.UNKNOWN:
        return f"UNKNOWN: {_unknown_note(res)}"
    return res.status.value


def _limit_short(res: Result) -> str:
    """A table cell's status: UNKNOWN names its limit briefly (``UNKNOWN (time limit)``)."""
    if res.status is not Status.UNKNOWN:
        return res.status.value
    cert = res.certificate if isinstance(res.certificate, dict) else {}
    limit = cert.get("limit")
    return f"UNKNOWN ({str(limit).replace('-', ' ')})" if limit and limit != "limit" else \
        "UNKNOWN (limit)"


def _report_one(rec: hfmt.HashiRecord, res: Result, as_json: bool, show: str,
                ascii_only: bool, output: str | None, out_format: str | None,
                force: bool) -> int:
    verdict, failed = _verdict(rec, res)
    if output and res.answer is not None:
        _write_solution_file(rec.puzzle, res.answer, output, out_format, ascii_only, force)
    elif output:
        say(f"nothing written to {output}: the answer is {res.status.value}, with no solution")
    if as_json:
        emit(_result_record(rec, res))
    else:
        _print_result(rec, res, verdict, show, ascii_only)
    if failed:
        say(f"puzzleproof: check failed for {rec.name}: {verdict}")
        for v in (res.check or {}).get("violations", []):
            say(f"  {v['kind']}: {v['message']}")
        return 1
    return 1 if res.status is Status.INFEASIBLE else 0


def _print_result(rec: hfmt.HashiRecord, res: Result, verdict: str, show: str,
                  ascii_only: bool) -> None:
    p = rec.puzzle
    st = res.stats or {}
    effort = (f"{plural(st.get('cut_rounds', 0), 'cut round')}, "
              f"{plural(st.get('cuts', 0), 'cut')}, {res.wall_time:.3f} s"
              if "cut_rounds" in st else
              f"{plural(st['assumptions'], 'assumption')}, {res.wall_time:.3f} s"
              if "assumptions" in st else f"{res.wall_time:.3f} s")
    who = f"{res.solver} {res.solver_version}".strip()
    head = (f"{rec.name}: {_status_text(res)} ({who}; {effort}); rule check: {verdict}")
    cert = res.certificate or {}
    if show == "lines":
        if res.answer is not None:
            sys.stdout.write(hfmt.write_solution(res.answer, "codingame"))
        say(head)
        if res.status is Status.INFEASIBLE:
            for reason in cert.get("reasons", [cert.get("proof")]):
                say(f"  no solution: {reason}")
        return
    out.print(head, markup=False)
    if show == "none":
        return
    if res.status is Status.INFEASIBLE:
        for reason in cert.get("reasons", [cert.get("proof")]):
            out.print(f"  no solution: {reason}", markup=False)
        return
    if res.answer is not None:
        if res.status is Status.MULTIPLE:  # numbered like the others that follow it
            out.print("solution 1:", markup=False)
        out.print(hfmt.render_ascii(p, res.answer, unicode=not ascii_only), end="",
                  markup=False)
    if res.status is Status.MULTIPLE:
        others = ([cert["second"]] if "second" in cert else cert.get("solutions", [])[1:])
        for k, sol in enumerate(others, start=2):
            out.print(f"solution {k}:", markup=False)
            out.print(hfmt.render_ascii(p, sol, unicode=not ascii_only), end="", markup=False)
    if res.status is Status.UNIQUE and "count" in cert:
        out.print("  enumeration complete: exactly one solution", markup=False)
    elif "count" in cert:
        out.print(f"  {plural(cert['count'], 'solution')} listed"
                  + ("; that is all of them" if cert.get("complete") else
                     "; there may be more (raise -n)"), markup=False)


def _write_solution_file(puzzle: Puzzle, answer, output: str, out_format: str | None,
                         ascii_only: bool, force: bool) -> None:
    suffix = Path(output).suffix.lower()
    kind = out_format or {".svg": "svg", ".json": "json"}.get(suffix, "lines")
    if kind == "svg":
        text = hfmt.render_svg(puzzle, answer, title=puzzle.name)
    elif kind == "ascii":
        text = hfmt.render_ascii(puzzle, answer, unicode=not ascii_only)
    elif kind == "json":
        text = hfmt.write_solution(answer, "json")
    else:
        text = hfmt.write_solution(answer, "codingame")
    deliver(text, output, force)


# -- check --------------------------------------------------------------------------------

@check_group.command(name="hashi")
@click.argument("puzzle")
@click.argument("solution")
@INPUT_FORMAT_OPT
@MAXB_OPT
@json_option
def check(puzzle: str, solution: str, fmt: str, max_bridges: int | None, as_json: bool) -> None:
    """Check a SOLUTION written by anything else (a CodinGame bot's output, say) against
    the rules of PUZZLE, and list every rule it breaks.

    \b
    SOLUTION holds one bridge a line, 'x1 y1 x2 y2 n' (CodinGame's output; a
    pair printed twice adds up), or JSON [[x1, y1, x2, y2, n], ...]. '-' reads it
    from stdin. Exit 0 if it solves the puzzle; 1 if it breaks a rule (clue,
    crossing, too many bridges, a bridge that is not between two islands in line,
    disconnection); 2 if it cannot be read (the file, line and column are given).
    """
    rec = _one(puzzle, fmt, max_bridges, "check")
    p = rec.puzzle
    text, source, _ = read_source(solution)
    lines = hfmt.read_solution(text, source)
    violations = check_solution(p, [ln.bridge for ln in lines])
    ok = not violations
    if as_json:
        emit({"type": "check", "schema_version": 1, "puzzle": "hashi", "name": p.name,
              "ok": ok, "bridge_lines": len(lines),
              "bridges": sum(ln.bridge[4] for ln in lines),
              "violations": [v.to_dict() for v in violations]})
    elif ok:
        out.print(f"{source}: solves {p.name}: every clue met, no crossing, connected "
                  f"({plural(len(lines), 'bridge line')})", markup=False)
    else:
        out.print(f"{source}: does NOT solve {p.name}: {plural(len(violations), 'violation')}"
                  + ("; the answer is empty" if not lines else ""), markup=False)
        for v in violations:
            where = ""
            if v.line is not None and lines[v.line].line is not None:
                sl = lines[v.line]
                where = f"{source}:{sl.line}"
                if sl.cols and v.kind in GEOMETRY_KINDS:
                    where += f":{sl.cols[4] if v.kind == 'count' else sl.cols[0]}"
                where += ": "
            out.print(f"  {where}{v.kind}: {v.message}", markup=False)
    raise Exit(0 if ok else 1)


# -- render -------------------------------------------------------------------------------

@render_group.command(name="hashi")
@click.argument("puzzle")
@click.option("--solution", "solution_arg", default=None,
              help="Draw this solution (CodinGame lines or JSON); it is rule-checked first and "
                   "a wrong one is drawn with its faults marked.")
@click.option("--solve", "do_solve", is_flag=True, help="Solve the puzzle and draw the solution.")
@click.option("--format", "kind", type=click.Choice(("svg", "ascii")), default=None,
              help="Picture kind (default: from -o's extension, else a text picture).")
@output_option("Write the picture to a file instead of stdout.")
@force_option
@click.option("--ascii", "ascii_only", is_flag=True, help="ASCII characters only.")
@INPUT_FORMAT_OPT
@MAXB_OPT
def render_cmd(puzzle: str, solution_arg: str | None, do_solve: bool, kind: str | None,
               output: str | None, force: bool, ascii_only: bool, fmt: str,
               max_bridges: int | None) -> None:
    """Draw a puzzle, alone or with a solution, as SVG or text.

    \b
    Examples:
      puzzleproof render instances/hashi/small-5x5.txt --solve
      puzzleproof render puzzle.txt --solution bot.txt -o bot.svg
    """
    rec = _one(puzzle, fmt, max_bridges, "render")
    check_output(output, force)
    answer = None
    wrong = False
    if solution_arg and do_solve:
        raise click.UsageError("give --solution or --solve, not both")
    if solution_arg:
        text, source, _ = read_source(solution_arg)
        answer = [ln.bridge for ln in hfmt.read_solution(text, source)]
        violations = check_solution(rec.puzzle, answer)
        bad = [v for v in violations if v.kind in GEOMETRY_KINDS]
        if bad:
            answer = [b for k, b in enumerate(answer)
                      if not any(v.line == k for v in bad)]
            say(f"note: {len(bad)} line(s) of {source} are not bridges ({bad[0].message}); "
                "drawing the rest")
        if violations:
            wrong = True
            say(f"note: {source} does NOT solve the puzzle ({plural(len(violations), 'rule violation')}"
                f", first: {violations[0].message}); drawn with the title saying so")
    elif do_solve:
        from puzzleproof.encoders import hashi_solver

        res = hashi_solver("sat")(rec.puzzle)
        if res.answer is None:
            say(f"{rec.name}: {res.status.value}; nothing to draw")
            raise Exit(1)
        if not res.check_ok:
            say(f"puzzleproof: the solver's answer failed the rule check: {res.check}")
            raise Exit(1)
        answer = res.answer
    kind = kind or ("svg" if output and output.lower().endswith(".svg") else "ascii")
    title = rec.name + (" - NOT a solution" if wrong else "")
    text = (hfmt.render_svg(rec.puzzle, answer, title=title) if kind == "svg"
            else hfmt.render_ascii(rec.puzzle, answer, unicode=not ascii_only)
            + (f"NOT a solution: {solution_arg} breaks the rules\n" if wrong else ""))
    deliver(text, output, force)


# -- convert ------------------------------------------------------------------------------

@convert_group.command(name="hashi")
@click.argument("puzzle")
@click.option("--format", "--to", "to_fmt", type=click.Choice(hfmt.WRITE_FORMATS),
              required=True, help="Format to write.")
@output_option("Write to a file instead of stdout.")
@force_option
@INPUT_FORMAT_OPT
@MAXB_OPT
def convert(puzzle: str, to_fmt: str, output: str | None, force: bool, fmt: str,
            max_bridges: int | None) -> None:
    """Convert Hashi puzzles between formats (CodinGame, .has, Tatham, puzz.link, JSON).

    A multi-puzzle input (JSONL, a file of game IDs) is written one puzzle after
    another (JSON: one object a line; Tatham and puzz.link: one ID a line; the
    grid formats: one after another). The reference solution, if any, is kept in JSON.
    """
    check_output(output, force)
    c = read_arg(puzzle, "hashi", {"hashi": _opts(fmt, max_bridges)})
    if to_fmt == "json" and len(c.loaded) > 1 and output and output.lower().endswith(".json"):
        raise click.UsageError(f"{len(c.loaded)} puzzles in JSON are JSON Lines (one object a "
                               f"line), not one JSON document: name the output .jsonl, not "
                               f"{output}")
    parts = []
    for ld in c.loaded:
        try:
            text = hfmt.write_puzzle(ld.instance, to_fmt,
                                     ld.reference if to_fmt == "json" else None)
        except InputError as exc:
            raise exc.located(ld.name) from None
        if to_fmt == "json" and len(c.loaded) > 1:
            text = json.dumps(json.loads(text))
        parts.append(text if text.endswith("\n") else text + "\n")
    deliver("".join(parts), output, force, f" ({plural(len(c.loaded), 'puzzle')})")


# -- crosscheck ---------------------------------------------------------------------------

@crosscheck_group.command(name="hashi")
@click.argument("inputs", nargs=-1, required=True)
@method_option("hashi", None, multiple=True)
@click.option("--solver-cmd", "solver_cmds", multiple=True, metavar="NAME=CMD",
              help="An external solver to judge, speaking CodinGame's protocol (grid on stdin, "
                   "'x1 y1 x2 y2 n' lines on stdout); repeatable, each named.")
@output_option("JSONL file that receives one record per instance and method as soon as it "
               "exists, and the disagreements.")
@force_option
@resume_option
@jobs_option
@time_limit_option(60.0, "per instance and method")
@click.option("--conflicts", type=click.IntRange(1), default=None,
              help="Conflict budget of the sat method per puzzle (a deterministic limit: "
                   "the same records on any machine and executor).")
@click.option("--nodes", type=click.IntRange(1), default=None,
              help="Search nodes of the article's solver per puzzle (deterministic too).")
@click.option("--memory-limit", type=click.IntRange(16), default=768, show_default=True,
              help="MB an external program may use.")
@INPUT_FORMAT_OPT
@MAXB_OPT
@json_option
@quiet_option
def crosscheck(inputs, method, solver_cmds, output, force, resume, jobs, time_limit,
               conflicts, nodes, memory_limit, fmt, max_bridges, as_json, quiet) -> None:
    """Run exact solvers and heuristics on the same Hashi puzzles and report where they
    disagree.

    \b
    For each puzzle and method: the answer, its status, this command's own rule
    check of the answer, effort and time. A disagreement is an answer that breaks a
    rule, a method that says unsolvable or gives up where another found a checked
    solution, two UNIQUE claims with different solutions, or a UNIQUE puzzle whose
    solution differs from the reference shipped with it. Exit 1 if there is any.

    \b
    Examples:
      puzzleproof crosscheck hashi instances/hashi/ --method sat,article
      puzzleproof crosscheck hashi puzzles/ --solver-cmd 'mine=python3 bot.py' -j 2
    """
    from puzzleproof.cli.common import named_commands
    from puzzleproof.cli.batch import run_and_report
    from puzzleproof.verify.crosscheck import Instance
    from puzzleproof.verify.hashi_methods import hashi_kind

    externals = named_commands(solver_cmds, "--solver-cmd")
    extra = {}
    if externals:
        from puzzleproof.verify.hashi_external import external_method

        extra = {name: external_method(name, argv, time_limit, memory_limit)
                 for name, argv in externals.items()}
    kind = hashi_kind(extra, conflicts=conflicts, nodes=nodes)
    chosen = split_names(method, kind.methods, "method") if method else \
        [m for m in ("sat", "cpsat", "article") if m in kind.methods]
    chosen += [n for n in extra if n not in chosen]
    rows = _records(inputs, fmt, max_bridges, strict=not _mixed())
    bad = [(a, r) for a, r in rows if isinstance(r, InputError)]
    for arg, exc in bad:
        say(f"puzzleproof: error: {exc}")
    seen: dict[str, int] = {}
    instances = []
    for _, rec in rows:
        if isinstance(rec, InputError):
            continue
        key = rec.name
        if key in seen:
            seen[key] += 1
            key = f"{rec.name}@{seen[rec.name]}"
        else:
            seen[key] = 0
        instances.append(Instance(key, rec.puzzle, rec.solution))
    if bad and not instances:
        raise Exit(2)  # nothing could be read: no table, and no empty -o file left behind
    code = run_and_report("hashi", kind, instances, chosen, output, force, resume, jobs,
                          time_limit, as_json, quiet)
    raise Exit(max(code, 2 if bad else 0))


def _mixed() -> bool:
    from puzzleproof.cli.common import mixed

    return mixed()


# -- generate -----------------------------------------------------------------------------

@generate_group.command(name="hashi")
@click.option("--size", default=None, metavar="WxH", help="Grid size, e.g. 15x15.")
@click.option("--width", type=click.IntRange(2, 200), default=15, show_default=True,
              help="Grid columns (or --size).")
@click.option("--height", type=click.IntRange(2, 200), default=15, show_default=True,
              help="Grid rows (or --size).")
@click.option("--density", type=FiniteRange(0, 1, min_open=True), default=0.25,
              show_default=True, help="Most islands per cell.")
@click.option("--loops", type=FiniteRange(0, 1), default=0.1, show_default=True,
              help="Chance of an extra bridge between two islands that see each other "
                   "(cycles; high values rarely give unique puzzles).")
@click.option("--max-bridges", type=click.IntRange(1, 4), default=2, show_default=True,
              help="Most bridges per pair (Tatham's Bridges allows up to 4).")
@count_option(10, "puzzles to keep")
@seed_option
@click.option("--min-assumptions", type=click.IntRange(0), default=0, show_default=True,
              help="Keep only puzzles that need at least K assumptions from the article's "
                   "solver (hard for the heuristic, still unique).")
@method_option("hashi", "sat")
@click.option("--max-attempts", type=click.IntRange(1), default=None,
              help="Stop after this many attempts (default 1000 per puzzle asked).")
@jobs_option
@click.option("--format", "out_fmt", type=click.Choice(("jsonl",) + hfmt.WRITE_FORMATS),
              default="jsonl", show_default=True,
              help="jsonl (puzzle, solution, measures), tatham and puzzlink stream one "
                   "puzzle a line; the others need -o FOLDER and write one file a puzzle.")
@output_option("A file (line formats) or a folder (one file a puzzle).")
@force_option
@quiet_option
def generate_hashi(size, width, height, density, loops, max_bridges, count, seed,
                   min_assumptions, method, max_attempts, jobs, out_fmt, output, force,
                   quiet) -> None:
    """Generate Hashi puzzles with a unique solution, proved by an exact solver.

    \b
    Each puzzle comes from a random connected bridge network; it is kept only if the
    exact solver proves that network the only solution, and (with --min-assumptions)
    only if the article's solver needs enough guesses. The JSONL records carry the
    solution and the measures of difficulty: the article solver's sure bridges,
    assumptions, wrong assumptions and depth, and the exact solver's cut rounds.
    Same seed and options, same puzzles, whatever --jobs.

    \b
    Example (the project's shipped set is made this way):
      puzzleproof generate hashi --size 15x15 -n 5 --seed 1 -o set.jsonl
    """
    from puzzleproof.cli.common import executor_for
    from puzzleproof.generate.hashi import GenParams
    from puzzleproof.generate.hashi import generate as gen

    solver = method or "sat"
    if solver not in ("sat", "cpsat"):
        raise click.UsageError("uniqueness is proved by an exact method: --method sat or cpsat")
    jobs = executor_for(jobs)
    if size:
        try:
            width, height = (int(v) for v in size.lower().split("x"))
        except ValueError:
            raise click.BadParameter(f"expected WxH such as 15x15, found {size!r}",
                                     param_hint="--size") from None
        if not (2 <= width <= 200 and 2 <= height <= 200):
            raise click.BadParameter(f"expected sides from 2 to 200, found {size!r}",
                                     param_hint="--size")
    try:
        params = GenParams(width, height, density, max_bridges, loops, count, seed,
                           min_assumptions, solver, max_attempts=max_attempts)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    line_format = out_fmt in ("jsonl", "tatham", "puzzlink")
    target = Path(output) if output else None
    if not line_format and target is None:
        raise click.UsageError(f"--format {out_fmt} writes one file a puzzle: give -o FOLDER")
    if target is not None and line_format:
        check_output(output, force)
    if target is not None and not line_format:
        if target.exists() and any(target.iterdir()) and not force:
            raise InputError("the folder is not empty; choose another (or --force)", str(target))
        target.mkdir(parents=True, exist_ok=True)
    # line formats: written to a temporary file beside the target and renamed at the end (or
    # on interruption, with what was kept), so a killed run leaves no empty file behind
    lines: list[str] = []
    ext = {"codingame": ".txt", "grid": ".txt", "has": ".has", "json": ".json"}
    kept = 0
    attempts = [0]
    interrupted = False
    try:
        with progress_bar(quiet) as progress:
            task = progress.add_task("kept (unique, hard enough)", total=count)

            def on_attempt(n: int, k: int) -> None:
                attempts[0] = max(attempts[0], n)
                progress.update(task, description=f"kept of {attempts[0]} attempts")

            for g in gen(params, jobs=jobs, on_attempt=on_attempt):
                kept += 1
                progress.update(task, completed=kept)
                if line_format:
                    text = (json.dumps(g.to_record()) if out_fmt == "jsonl"
                            else hfmt.write_puzzle(g.puzzle, out_fmt).strip())
                    if target is not None:
                        lines.append(text + "\n")
                    else:
                        sys.stdout.write(text + "\n")
                        sys.stdout.flush()
                else:
                    write_atomic(target / f"{g.puzzle.name}{ext[out_fmt]}",  # type: ignore
                                 hfmt.write_puzzle(g.puzzle, out_fmt, g.solution))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if target is not None and line_format and lines:
            write_atomic(target, "".join(lines))
    say(f"kept {kept} of {plural(attempts[0], 'attempt')}"
        + (f" -> {target}" if target and (lines or not line_format) else "")
        + ("; interrupted, what was kept is written" if interrupted else ""))
    if interrupted:
        raise Exit(130)
    if kept < count:
        say(f"puzzleproof: only {kept} of {count} puzzles after {plural(attempts[0], 'attempt')}"
            "; lower --min-assumptions or --loops, or raise --max-attempts")
        raise Exit(1)
    raise Exit(0)
