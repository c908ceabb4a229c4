"""The ``puzzleproof`` command: thin over library functions that return plain dataclasses.

Exit codes: 0 ok; 1 a check failed or a disagreement was found; 2 bad usage, bad input or an
impossible puzzle. Data goes to stdout, progress and messages to stderr.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Iterator

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from puzzleproof import __version__
from puzzleproof.encoders import HASHI_SOLVERS, hashi_solver
from puzzleproof.errors import InputError, PuzzleproofError
from puzzleproof.formats import expand_inputs, read_source, write_atomic
from puzzleproof.formats import hashi as hfmt
from puzzleproof.models.hashi import GEOMETRY_KINDS, Puzzle, check_solution
from puzzleproof.result import Result, Status

err = Console(stderr=True, highlight=False)
out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 120)


def _say(message: str) -> None:
    """One message for a person on stderr, never wrapped (a script may grep it)."""
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


class Exit(Exception):
    """Leave the command with a code, after output has been written."""

    def __init__(self, code: int) -> None:
        self.code = code


class _DefaultHashi(click.Group):
    """``render PUZZLE`` means ``render hashi PUZZLE``; ``render skynet MAP`` draws a map."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["hashi"] + list(args)
        return super().parse_args(ctx, args)


# -- reading puzzles ----------------------------------------------------------------------

def _read_records(arg: str, fmt: str | None, max_bridges: int | None) -> list[hfmt.HashiRecord]:
    text, source, _ = read_source(arg)
    return hfmt.read_puzzles(text, source, None if fmt == "auto" else fmt, max_bridges)


def _iter_inputs(args: tuple[str, ...], fmt: str | None, max_bridges: int | None
                 ) -> Iterator[tuple[str, list[hfmt.HashiRecord] | InputError]]:
    """Yield ``(argument, records or the error reading it)`` for each puzzle source."""
    for arg in expand_inputs(list(args)):
        try:
            yield arg, _read_records(arg, fmt, max_bridges)
        except InputError as exc:
            yield arg, exc


# -- shared options -----------------------------------------------------------------------

FORMAT_OPT = click.option("--format", "fmt", type=click.Choice(("auto",) + hfmt.FORMATS),
                          default="auto", show_default=True,
                          help="Format of the puzzle input; 'auto' detects it.")
MAXB_OPT = click.option("--max-bridges", type=click.IntRange(1, 4), default=None,
                        help="Most bridges per pair, where the format does not say (default 2).")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="puzzleproof")
@click.option("--debug", is_flag=True, help="Show tracebacks instead of one-line errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Solve puzzles exactly, prove the answers, and judge the heuristics people run.

    \b
    Hashiwokakero (Bridges, CodinGame "There Is No Spoon 2") is supported now.
    Puzzles may be files, folders, '-' for stdin, or a string such as a Tatham
    game ID ('7x7m2:2a4c3a1e...') or a puzz.link URL ('p?hashi/5/5/4g2i3h...').

    \b
    Examples:
      puzzleproof solve instances/hashi/ --unique      # every shipped puzzle, a table
      puzzleproof solve 'p?hashi/5/5/4g2i3h23k3g1g3g4g3' --unique
      puzzleproof solve puzzle.txt --solver sat --json
      puzzleproof check puzzle.txt bot-output.txt      # judge a bot's answer
      puzzleproof render puzzle.txt --solve -o puzzle.svg
    """
    ctx.obj = {**(ctx.obj or {}), "debug": debug}


# -- solve --------------------------------------------------------------------------------

@cli.group(name="solve", cls=_DefaultHashi)
def solve_group() -> None:
    """Solve exactly: 'solve [hashi] PUZZLES...', 'solve skynet MAPS...'."""


@solve_group.command(name="hashi")
@click.argument("puzzles", nargs=-1, required=True)
@click.option("--solver", type=click.Choice(HASHI_SOLVERS), default="sat", show_default=True,
              help="Exact back end: 'sat' (python-sat, incremental cuts) or 'cpsat' (OR-Tools "
                   "CP-SAT, re-solved with hints).")
@click.option("--unique", is_flag=True, help="Decide UNIQUE or MULTIPLE (shows two solutions).")
@click.option("--all", "enumerate_all", is_flag=True,
              help="Enumerate connected solutions, up to -n.")
@click.option("-n", "max_solutions", type=click.IntRange(1), default=10, show_default=True,
              help="With --all: most solutions to list.")
@FORMAT_OPT
@MAXB_OPT
@click.option("--time-limit", type=click.FloatRange(0, min_open=True), default=None,
              help="Seconds per puzzle; when it runs out the answer is UNKNOWN.")
@click.option("--conflicts", type=click.IntRange(1), default=None,
              help="SAT conflict budget per puzzle (sat solver only); UNKNOWN when spent.")
@click.option("--workers", type=click.IntRange(1), default=1, show_default=True,
              help="CP-SAT worker threads (1 is deterministic).")
@click.option("--seed", type=int, default=0, show_default=True, help="CP-SAT random seed.")
@click.option("--json", "as_json", is_flag=True, help="Print each result as one JSON object.")
@click.option("--jsonl", "as_jsonl", is_flag=True,
              help="Print one JSON record per line, with a 'type' field (for scripts).")
@click.option("--show", type=click.Choice(("picture", "lines", "none")), default="picture",
              show_default=True, help="For one puzzle: draw the solution, print its "
                                      "'x1 y1 x2 y2 n' lines (CodinGame output), or nothing.")
@click.option("--ascii", "ascii_only", is_flag=True, help="Draw pictures with ASCII only.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the solution to a file: .svg a picture, .json JSON, anything else "
                   "CodinGame lines. Written whole or not at all.")
@click.option("--render", type=click.Choice(("svg", "ascii")), default=None,
              help="With -o: force the picture kind instead of guessing from the extension.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or spinner on stderr.")
def solve(puzzles: tuple[str, ...], solver: str, unique: bool, enumerate_all: bool,
          max_solutions: int, fmt: str, max_bridges: int | None, time_limit: float | None,
          conflicts: int | None, workers: int, seed: int, as_json: bool, as_jsonl: bool,
          show: str, ascii_only: bool, output: str | None, render: str | None,
          quiet: bool) -> None:
    """Solve Hashi puzzles exactly, check every answer by the rules, and report.

    \b
    One puzzle: its status (SOLVED, UNIQUE, MULTIPLE, INFEASIBLE or UNKNOWN), a
    picture of the solution and the solver's effort. Several puzzles (or a folder,
    or a JSONL file): a table, one row per puzzle, and a summary; a puzzle that
    ships a reference solution is compared with it when the answer is UNIQUE.

    \b
    Every solution is re-checked by the rule checker in puzzleproof.models, which
    shares no code with the solvers. A limit that runs out gives UNKNOWN, never
    INFEASIBLE. Exit 0 ok, 1 a check failed or a reference differs, 2 bad input
    or an impossible puzzle.
    """
    mode = "all" if enumerate_all else "unique" if unique else "solve"
    solve_fn = hashi_solver(solver)
    kwargs: dict[str, Any] = {"mode": mode, "max_solutions": max_solutions,
                              "time_limit": time_limit}
    if solver == "cpsat":
        kwargs.update(workers=workers, seed=seed)
    else:
        kwargs.update(conflict_budget=conflicts)

    inputs = list(_iter_inputs(puzzles, fmt, max_bridges))
    total = sum(len(r) for _, r in inputs if isinstance(r, list))
    single = len(inputs) == 1 and isinstance(inputs[0][1], list) and len(inputs[0][1]) == 1
    if single and not as_jsonl:
        rec = inputs[0][1][0]  # type: ignore[index]
        if quiet or not err.is_terminal:
            res = solve_fn(rec.puzzle, **kwargs)
        else:
            with err.status(f"solving {rec.name} ({solver})") as status:
                def on_round(rounds: int, cuts: int) -> None:
                    status.update(f"solving {rec.name} ({solver}): {rounds} cut rounds, "
                                  f"{cuts} cuts")
                res = solve_fn(rec.puzzle, on_round=on_round, **kwargs)
        raise Exit(_report_one(rec, res, as_json, show, ascii_only, output, render))

    rows: list[tuple[hfmt.HashiRecord | None, str, Result | InputError]] = []
    progress = Progress(TextColumn("[progress.description]{task.description}"), BarColumn(),
                        MofNCompleteColumn(), TimeElapsedColumn(), console=err,
                        disable=quiet or as_json, transient=True)
    interrupted = False
    with progress:
        task = progress.add_task(f"solving ({solver})", total=total)
        try:
            for arg, recs in inputs:
                if isinstance(recs, InputError):
                    rows.append((None, arg, recs))
                    _say(f"puzzleproof: error: {recs}")
                    if as_jsonl:
                        _emit({"type": "error", "input": arg, "message": str(recs)})
                    continue
                for rec in recs:
                    progress.update(task, description=f"solving ({solver}) {_short(rec.name, 30)}")
                    res = solve_fn(rec.puzzle, **kwargs)
                    rows.append((rec, arg, res))
                    progress.advance(task)
                    if as_jsonl:
                        _emit(_result_record(rec, res))
        except KeyboardInterrupt:
            interrupted = True
    if as_json:
        _emit([_result_record(r, x) if isinstance(x, Result) else
               {"type": "error", "input": a, "message": str(x)} for r, a, x in rows])
    elif not as_jsonl:
        _print_table(rows, solver, mode)
    if interrupted:
        _say(f"interrupted after {sum(isinstance(x, Result) for _, _, x in rows)} of "
                  f"{total} puzzles; the results above are complete for those")
        raise Exit(130)
    failed = any(isinstance(x, Result) and _verdict(r, x)[1] for r, _, x in rows)
    bad = any(isinstance(x, InputError) or (isinstance(x, Result) and x.status is
                                           Status.INFEASIBLE) for _, _, x in rows)
    raise Exit(1 if failed else 2 if bad else 0)


def _deliver(text: str, output: str | None, what: str = "") -> None:
    """Write ``text`` whole to ``output`` (atomically), or to stdout when there is none."""
    if output:
        write_atomic(output, text)
        _say(f"wrote {output}{what}")
    else:
        sys.stdout.write(text)


def _emit(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


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
    d["reference"] = None if rec.solution is None else verdict
    d["failed"] = failed
    d["islands"] = len(rec.puzzle.islands)
    d["size"] = f"{rec.puzzle.width}x{rec.puzzle.height}"
    return d


def _print_table(rows, solver: str, mode: str) -> None:
    table = Table(title=f"Hashi, exact solver '{solver}', question: {mode}", title_justify="left")
    for col, just in (("puzzle", "left"), ("size", "right"), ("islands", "right"),
                      ("status", "left"), ("check", "left"), ("cut rounds", "right"),
                      ("time (s)", "right")):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    counts: dict[str, int] = {}
    times = []
    for rec, arg, res in rows:
        if isinstance(res, InputError):
            table.add_row(arg, "", "", "BAD INPUT", str(res.message)[:60], "", "")
            counts["BAD INPUT"] = counts.get("BAD INPUT", 0) + 1
            continue
        verdict, _ = _verdict(rec, res)
        counts[res.status.value] = counts.get(res.status.value, 0) + 1
        times.append(res.wall_time)
        table.add_row(_short(rec.name), f"{rec.puzzle.width}x{rec.puzzle.height}",
                      str(len(rec.puzzle.islands)), res.status.value, verdict,
                      str(res.stats.get("cut_rounds", "")), f"{res.wall_time:.3f}")
    out.print(table)
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    if times:
        summary += (f"; time mean {sum(times) / len(times):.3f} s, max {max(times):.3f} s, "
                    f"total {sum(times):.2f} s")
    out.print(summary, markup=False)


def _short(name: str, width: int = 48) -> str:
    return name if len(name) <= width else "…" + name[-(width - 1):]


def _report_one(rec: hfmt.HashiRecord, res: Result, as_json: bool, show: str,
                ascii_only: bool, output: str | None, render: str | None) -> int:
    verdict, failed = _verdict(rec, res)
    if output and res.answer is not None:
        _write_solution_file(rec.puzzle, res.answer, output, render, ascii_only)
    if as_json:
        _emit(_result_record(rec, res))
    else:
        _print_result(rec, res, verdict, show, ascii_only)
    if failed:
        _say(f"puzzleproof: check failed for {rec.name}: {verdict}")
        for v in (res.check or {}).get("violations", []):
            _say(f"  {v['kind']}: {v['message']}")
        return 1
    if res.status is Status.INFEASIBLE:
        reasons = (res.certificate or {}).get("reasons") or [(res.certificate or {}).get("proof")]
        _say(f"puzzleproof: error: {rec.name}: impossible puzzle: {reasons[0]}")
        return 2
    return 0


def _print_result(rec: hfmt.HashiRecord, res: Result, verdict: str, show: str,
                  ascii_only: bool) -> None:
    p = rec.puzzle
    effort = (f"{res.stats.get('cut_rounds', 0)} cut rounds, {res.stats.get('cuts', 0)} cuts, "
              f"{res.wall_time:.3f} s" if res.stats else f"{res.wall_time:.3f} s")
    who = f"{res.solver} {res.solver_version}".strip()
    head = (f"{rec.name}: {res.status.value} ({who}; {effort}); "
            f"rule check: {verdict}")
    if show == "lines":
        if res.answer is not None:
            sys.stdout.write(hfmt.write_solution(res.answer, "codingame"))
        _say(head)
        return
    out.print(head, markup=False)
    cert = res.certificate or {}
    if show == "none":
        return
    if res.status is Status.INFEASIBLE:
        for reason in cert.get("reasons", [cert.get("proof")]):
            out.print(f"  no solution: {reason}", markup=False)
        return
    if res.status is Status.UNKNOWN:
        out.print(f"  {cert.get('note', 'a limit was reached')}", markup=False)
    if res.answer is not None:
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
        out.print(f"  {cert['count']} solutions listed"
                  + ("; that is all of them" if cert.get("complete") else
                     "; there may be more (raise -n)"), markup=False)


def _write_solution_file(puzzle: Puzzle, answer, output: str, render: str | None,
                         ascii_only: bool) -> None:
    suffix = Path(output).suffix.lower()
    kind = render or {".svg": "svg", ".json": "json"}.get(suffix, "lines")
    if kind == "svg":
        text = hfmt.render_svg(puzzle, answer, title=puzzle.name)
    elif kind == "ascii":
        text = hfmt.render_ascii(puzzle, answer, unicode=not ascii_only)
    elif kind == "json":
        text = hfmt.write_solution(answer, "json")
    else:
        text = hfmt.write_solution(answer, "codingame")
    write_atomic(output, text)
    _say(f"wrote {output}")


@solve_group.command(name="skynet")
@click.argument("maps", nargs=-1, required=True)
@click.option("--rule", type=click.Choice(("ep1", "ep2")), default="ep2", show_default=True,
              help="ep2: only gateway links may be cut; ep1: any link.")
@click.option("--start", type=int, default=None, help="Agent start (default: the map's).")
@click.option("--all-starts", is_flag=True, help="Decide every start node of each map.")
@click.option("--min-cuts", is_flag=True,
              help="Also the value: the fewest cuts that contain the agent whatever it does.")
@click.option("--horizon", "-H", type=click.IntRange(0), default=None,
              help="Only ask: can the player contain the agent within H cuts?")
@click.option("--solver", type=click.Choice(("sat", "explicit")), default="sat",
              show_default=True, help="sat: CEGAR with two incremental SAT solvers; explicit: "
                                      "memoised minimax over (agent node, links left).")
@click.option("--time-limit", type=click.FloatRange(0, min_open=True), default=None,
              help="Seconds per map and start; then UNKNOWN (with the bounds proved).")
@click.option("--conflicts", type=click.IntRange(1), default=None,
              help="SAT conflict budget per map and start (sat solver); UNKNOWN when spent.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the winner's strategy (JSON certificate, replayable with 'check "
                   "skynet') for one map and start. Written whole or not at all.")
@click.option("--json", "as_json", is_flag=True, help="Print each result as one JSON object.")
@click.option("--jsonl", "as_jsonl", is_flag=True, help="One JSON record per line (scripts).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar on stderr.")
def solve_skynet(maps, rule, start, all_starts, min_cuts, horizon, solver, time_limit,
                 conflicts, output, as_json, as_jsonl, quiet) -> None:
    """Decide Skynet Revolution exactly: can the player keep the agent from every
    gateway against EVERY agent, and how many cuts does it take?

    \b
    The answer is WIN or LOSS for the player (UNKNOWN if a limit ran out), with the
    winner's strategy as a certificate that is replayed against every opponent move
    by the rules alone before it is shown ('check' column). --min-cuts adds the
    value (fewest cuts to contain the agent); --horizon H asks only whether H cuts
    suffice. Under ep2 the value is the number of gateway links of the agent's
    component whenever the player wins (only those can be cut).

    \b
    Examples:
      puzzleproof solve skynet map.txt                     # verdict from the map's start
      puzzleproof solve skynet map.txt --all-starts        # every start node
      puzzleproof solve skynet map.txt --rule ep1 --min-cuts -o strategy.json
      puzzleproof check skynet map.txt strategy.json --rule ep1
    """
    from puzzleproof.formats import skynet as sfmt

    if horizon is not None and min_cuts:
        raise click.UsageError("--horizon and --min-cuts ask different questions; give one")
    if all_starts and start is not None:
        raise click.UsageError("--start and --all-starts do not go together")
    loaded = []
    for arg in expand_inputs(list(maps)):
        text, source, _ = read_source(arg)
        loaded.append(sfmt.read_map(text, source))
    jobs = []
    for m in loaded:
        if all_starts:
            starts = [v for v in range(m.n) if v not in m.gateways]
        else:
            s = m.start if start is None else start
            if s is None:
                raise InputError("the map gives no start; pass --start or --all-starts", m.name)
            if not 0 <= s < m.n or s in m.gateways:
                raise InputError(f"start {s} must be a node 0..{m.n - 1} that is not a gateway",
                                 m.name)
            starts = [s]
        jobs += [(m, s) for s in starts]
    if output and len(jobs) != 1:
        raise click.UsageError("-o writes one certificate: give one map and one start")
    if rule == "ep1":
        for m in loaded:
            for p in m.ep1_problems()[:1]:
                _say(f"note: {m.name}: {p}; an Episode 1 map has none (solving anyway)")
    results = []
    progress = Progress(TextColumn("[progress.description]{task.description}"), BarColumn(),
                        MofNCompleteColumn(), TimeElapsedColumn(), console=err,
                        disable=quiet or as_json or as_jsonl, transient=True)
    from puzzleproof.encoders.skynet_sat import SolverCache

    try:
        with progress, SolverCache() as cache:
            task = progress.add_task("solving", total=len(jobs))
            for m, s in jobs:
                progress.update(task, description=f"{_short(m.name or '', 30)} start {s}")
                res = _solve_skynet_one(m, rule, s, min_cuts, horizon, solver, time_limit,
                                        conflicts, cache)
                results.append((m, s, res))
                if as_jsonl:
                    _emit({"type": "result", **_skynet_record(m, s, res)})
                progress.advance(task)
    except KeyboardInterrupt:
        _say(f"interrupted after {len(results)} of {len(jobs)} start(s); shown below")
    if as_json:
        objs = [_skynet_record(m, s, r, cert=True) for m, s, r in results]
        _emit(objs[0] if len(objs) == 1 else objs)
    elif not as_jsonl:
        _print_skynet_results(results, rule)
    if output and results:
        res = results[0][2]
        if res.certificate is None:
            raise InputError("no certificate to write (the answer is UNKNOWN or trivial)",
                             output)
        write_atomic(output, json.dumps(res.certificate) + "\n")
        _say(f"wrote {output}")
    bad = any(r.check is not None and not r.check.get("ok") for _, _, r in results)
    raise Exit(1 if bad else 0)


def _solve_skynet_one(m, rule, s, min_cuts, horizon, solver, time_limit, conflicts,
                      cache=None) -> Result:
    if solver == "sat":
        from puzzleproof.encoders.skynet_sat import solve as sat_solve

        return sat_solve(m, rule, s, value=min_cuts, horizon=horizon, time_limit=time_limit,
                         conflicts=conflicts, cache=cache)
    if horizon is not None:
        raise click.UsageError("--horizon is a question for the sat solver")
    if conflicts is not None:
        raise click.UsageError("--conflicts is a budget for the sat solver")
    from puzzleproof.verify.skynet_explicit import solve as explicit_solve

    return explicit_solve(m, rule, s, value=min_cuts, max_nodes=None, time_limit=time_limit)


def _skynet_record(m, s, res: Result, cert: bool = False) -> dict:
    d = res.to_dict()
    if not cert:
        d.pop("certificate", None)
    d["map"] = m.name
    d["start"] = s
    return d


def _print_skynet_results(results, rule: str) -> None:
    table = Table(title=None, show_lines=False)
    for col in ("map", "start", "verdict", "min cuts", "check", "solver", "seconds", "effort"):
        table.add_column(col, justify="right" if col in ("start", "seconds") else "left")

    def verdict(r) -> str:
        """The status, or the verdict when only the value ran out of time (its
        certificate checked)."""
        a = r.answer or {}
        if (r.status.value == "UNKNOWN" and a.get("verdict") in ("WIN", "LOSS")
                and "value_lower" in a and (r.check is None or r.check.get("ok"))):
            return a["verdict"]
        return r.status.value

    for m, s, r in results:
        a = r.answer or {}
        value = a.get("value")
        if value is None and "value_lower" in a:
            value = f"{a['value_lower']}..{a['value_upper']}"
        if "horizon" in a:
            value = f"<= {a['horizon']}: {a['verdict']}"
        chk = "-" if r.check is None else ("ok" if r.check.get("ok") else "FAILED")
        st = r.stats or {}
        effort = (f"{st.get('iterations', 0)} it / {st.get('tree_nodes', 0)} nodes"
                  if r.solver == "sat-cegar" else f"{st.get('states', 0)} states")
        table.add_row(_short(Path(m.name or "").name, 32), str(s), verdict(r),
                      "" if value is None else str(value), chk, r.solver,
                      f"{r.wall_time:.3f}", effort)
    out.print(table)
    for m, s, r in results:
        a = r.answer or {}
        if r.check is not None and not r.check.get("ok"):
            for p in r.check.get("violations", [])[:3]:
                out.print(f"{m.name} start {s}: certificate problem: {p}", markup=False)
        if a.get("note") and len(results) == 1:
            out.print(f"note: {a['note']}", markup=False)
    won = sum(verdict(r) == "WIN" for _, _, r in results)
    lost = sum(verdict(r) == "LOSS" for _, _, r in results)
    open_values = sum(r.status.value == "UNKNOWN" and verdict(r) != "UNKNOWN"
                      for _, _, r in results)
    out.print(f"{len(results)} start(s), rule {rule}: {won} WIN, {lost} LOSS, "
              f"{len(results) - won - lost} UNKNOWN"
              + (f" ({open_values} of the verdicts with the value left open by the limit)"
                 if open_values else ""), markup=False)


# -- check --------------------------------------------------------------------------------

@cli.group(name="check", cls=_DefaultHashi)
def check_group() -> None:
    """Check an answer written by anything else: 'check [hashi] PUZZLE SOLUTION',
    'check skynet MAP STRATEGY'."""


@check_group.command(name="skynet")
@click.argument("map_arg", metavar="MAP")
@click.argument("strategy")
@click.option("--rule", type=click.Choice(("ep1", "ep2")), default="ep2", show_default=True)
@click.option("--start", type=int, default=None, help="Agent start (default: the map's).")
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as one JSON object.")
def check_skynet(map_arg: str, strategy: str, rule: str, start: int | None,
                 as_json: bool) -> None:
    """Replay a Skynet strategy certificate against EVERY opponent move, with the rules only.

    \b
    A player strategy ("type": "skynet-player-strategy") must contain the agent
    whatever it does; an agent strategy ("skynet-agent-strategy") must reach a
    gateway whatever the player cuts; an agent escape ("skynet-agent-escape", with
    "horizon": H, written for "solve skynet -H H" answered LOSS) must leave the agent
    uncontained after each of the first H cuts. All are DAGs of positions:
    {"type", "root": id, "nodes": {id: {"agent", "cut", "next": {move: id}}}} for the
    player, {id: {"agent", "replies": {"u-v": {"move", "next": id | null}}}} for the
    agent. Exit 0 if it holds, 1 if not (the first problems are listed), 2 if malformed.
    """
    from puzzleproof.formats import skynet as sfmt
    from puzzleproof.verify.skynet_explicit import check_agent_strategy, check_player_strategy

    text, source, _ = read_source(map_arg)
    m = sfmt.read_map(text, source)
    s = m.start if start is None else start
    if s is None:
        raise InputError("the map gives no start; pass --start", source)
    stext, ssource, _ = read_source(strategy)
    try:
        data = json.loads(stext)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}", ssource, exc.lineno, exc.colno) from None
    kind = data.get("type") if isinstance(data, dict) else None
    if kind == "skynet-player-strategy":
        problems = check_player_strategy(m, rule, s, data)
    elif kind == "skynet-agent-strategy":
        problems = check_agent_strategy(m, rule, s, data)
    elif kind == "skynet-agent-escape":
        from puzzleproof.models.skynet_strategy import check_agent_escape

        problems = check_agent_escape(m, rule, s, data)
    else:
        raise InputError("expected a strategy object with \"type\": \"skynet-player-strategy\", "
                         "\"skynet-agent-strategy\" or \"skynet-agent-escape\"", ssource)
    who = {"skynet-player-strategy": "player", "skynet-agent-strategy": "agent"}.get(
        kind, "agent escape")
    if as_json:
        _emit({"type": "check", "puzzle": "skynet", "strategy": who, "ok": not problems,
               "rule": rule, "start": s, "problems": problems})
    elif problems:
        out.print(f"{ssource}: the {who} strategy does NOT win on {m.name} ({rule}, start {s}):",
                  markup=False)
        for p in problems:
            out.print(f"  {p}", markup=False)
    else:
        out.print(f"{ssource}: the {who} strategy wins on {m.name} ({rule}, start {s}) against "
                  "every opponent move", markup=False)
    raise Exit(1 if problems else 0)


@check_group.command(name="hashi")
@click.argument("puzzle")
@click.argument("solution")
@FORMAT_OPT
@MAXB_OPT
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as one JSON object.")
def check(puzzle: str, solution: str, fmt: str, max_bridges: int | None, as_json: bool) -> None:
    """Check a SOLUTION written by anything else (a CodinGame bot's output, say) against
    the rules of PUZZLE, and list every rule it breaks.

    \b
    SOLUTION holds one bridge a line, 'x1 y1 x2 y2 n' (CodinGame's output; a
    pair printed twice adds up), or JSON [[x1, y1, x2, y2, n], ...]. '-' reads it
    from stdin. Exit 0 if it solves the puzzle, 1 if it breaks a rule (clue,
    crossing, too many bridges, disconnection), 2 if it is malformed or names
    something that is not a bridge between two islands (the file, line and
    column are given).
    """
    recs = _read_records(puzzle, fmt, max_bridges)
    if len(recs) != 1:
        raise InputError(f"holds {len(recs)} puzzles; check takes exactly one", recs[0].name)
    p = recs[0].puzzle
    text, source, _ = read_source(solution)
    lines = hfmt.read_solution(text, source)
    violations = check_solution(p, [ln.bridge for ln in lines])
    geometry = [v for v in violations if v.kind in GEOMETRY_KINDS]
    if geometry:
        v = geometry[0]
        sl = lines[v.line] if v.line is not None else None
        col = None
        if sl is not None and sl.cols:
            col = sl.cols[4] if v.kind == "count" else sl.cols[0]
            if v.kind == "not-island" and "(" in v.message:
                x, y = sl.bridge[2], sl.bridge[3]
                if f"({x}, {y})" in v.message and f"({sl.bridge[0]}, {sl.bridge[1]})" not in v.message:
                    col = sl.cols[2]
        raise InputError(v.message + (f" (and {len(geometry) - 1} more such problems)"
                                      if len(geometry) > 1 else ""),
                         source, sl.line if sl else None, col)
    ok = not violations
    if as_json:
        _emit({"type": "check", "puzzle": p.name, "ok": ok, "bridges": len(lines),
               "violations": [v.to_dict() for v in violations]})
    else:
        if ok:
            out.print(f"{source}: solves {p.name}: every clue met, no crossing, connected "
                      f"({len(lines)} bridge lines)", markup=False)
        else:
            out.print(f"{source}: does NOT solve {p.name}: {len(violations)} violation(s)",
                      markup=False)
            for v in violations:
                where = ""
                if v.line is not None and lines[v.line].line is not None:
                    where = f"{source}:{lines[v.line].line}: "
                out.print(f"  {where}{v.kind}: {v.message}", markup=False)
    raise Exit(0 if ok else 1)


# -- render -------------------------------------------------------------------------------

@cli.group(name="render", cls=_DefaultHashi)
def render_group() -> None:
    """Draw a puzzle or a map as SVG or text: 'render [hashi] PUZZLE', 'render skynet MAP'."""


@render_group.command(name="hashi")
@click.argument("puzzle")
@click.option("--solution", "solution_arg", default=None,
              help="Draw this solution (CodinGame lines or JSON); it is rule-checked first.")
@click.option("--solve", "do_solve", is_flag=True, help="Solve the puzzle and draw the solution.")
@click.option("--to", "kind", type=click.Choice(("svg", "ascii")), default=None,
              help="Picture kind (default: from -o's extension, else ascii).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the picture to a file instead of stdout.")
@click.option("--ascii", "ascii_only", is_flag=True, help="ASCII characters only.")
@FORMAT_OPT
@MAXB_OPT
def render_cmd(puzzle: str, solution_arg: str | None, do_solve: bool, kind: str | None,
               output: str | None, ascii_only: bool, fmt: str, max_bridges: int | None) -> None:
    """Draw a puzzle, alone or with a solution, as SVG or text."""
    recs = _read_records(puzzle, fmt, max_bridges)
    if len(recs) != 1:
        raise InputError(f"holds {len(recs)} puzzles; render takes exactly one", recs[0].name)
    rec = recs[0]
    answer = None
    if solution_arg and do_solve:
        raise click.UsageError("give --solution or --solve, not both")
    if solution_arg:
        text, source, _ = read_source(solution_arg)
        answer = [ln.bridge for ln in hfmt.read_solution(text, source)]
        violations = check_solution(rec.puzzle, answer)
        bad = [v for v in violations if v.kind in GEOMETRY_KINDS]
        if bad:
            raise InputError(bad[0].message, source)
        if violations:
            _say(f"note: {source} does not solve the puzzle ({len(violations)} rule "
                 f"violation(s), first: {violations[0].message}); drawing it anyway")
    elif do_solve:
        res = hashi_solver("sat")(rec.puzzle)
        if res.answer is None:
            raise InputError(f"impossible puzzle ({res.status.value}); nothing to draw",
                             rec.name)
        if not res.check_ok:
            _say(f"puzzleproof: the solver's answer failed the rule check: {res.check}")
            raise Exit(1)
        answer = res.answer
    kind = kind or ("svg" if output and output.lower().endswith(".svg") else "ascii")
    text = (hfmt.render_svg(rec.puzzle, answer, title=rec.name) if kind == "svg"
            else hfmt.render_ascii(rec.puzzle, answer, unicode=not ascii_only))
    _deliver(text, output)


@render_group.command(name="skynet")
@click.argument("map_arg", metavar="MAP")
@click.option("--game", "game", default=None,
              help="A game record (JSON from 'skynet referee -o'): cuts numbered by turn, the "
                   "agent's path.")
@click.option("--fence", "fence_arg", default=None, metavar="NODES",
              help="Comma-separated nodes to shade, their boundary links drawn thick: the "
                   "fence of an ep1 value's upper bound ('upper_bound.fence' in 'solve "
                   "skynet --json').")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the SVG to a file instead of stdout.")
def render_skynet(map_arg: str, game: str | None, fence_arg: str | None,
                  output: str | None) -> None:
    """Draw a Skynet map (gateways red, the agent's start blue) as SVG, with a game on it or
    a fence around the start.

    \b
    Examples:
      puzzleproof render skynet map.txt -o map.svg
      puzzleproof render skynet map.txt --game game.json -o game.svg
      puzzleproof render skynet map.txt --fence 1,2,3,4,5 -o fence.svg
    """
    from puzzleproof.formats import skynet as sfmt
    from puzzleproof.models.skynet import replay

    text, source, _ = read_source(map_arg)
    m = sfmt.read_map(text, source)
    record = None
    if game:
        gtext, gsource, _ = read_source(game)
        record = sfmt.record_from_json(gtext, gsource)
        if record.map.links != m.links or record.map.gateways != m.gateways:
            raise InputError("the game record was played on another map", gsource)
        problems = replay(record)
        if problems:
            _say(f"note: the game record breaks the rules: {problems[0]}")
    fence = None
    if fence_arg is not None:
        fence = set()
        for item in fence_arg.replace(" ", "").split(","):
            if not item.lstrip("-").isdigit():
                raise InputError(f"--fence: expected node numbers separated by commas, "
                                 f"found {item!r}")
            v = int(item)
            if not 0 <= v < m.n:
                raise InputError(f"--fence: node {v} is not on the map (0..{m.n - 1})")
            if v in m.gateways:
                raise InputError(f"--fence: node {v} is a gateway; a fence holds only "
                                 "non-gateway nodes")
            fence.add(v)
    _deliver(sfmt.render_svg(m, record, fence=frozenset(fence) if fence else None), output)


# -- convert ------------------------------------------------------------------------------

@cli.command()
@click.argument("puzzle")
@click.option("--to", "to_fmt", type=click.Choice(hfmt.WRITE_FORMATS), required=True,
              help="Format to write.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write to a file instead of stdout.")
@FORMAT_OPT
@MAXB_OPT
def convert(puzzle: str, to_fmt: str, output: str | None, fmt: str,
            max_bridges: int | None) -> None:
    """Convert a Hashi puzzle between formats (CodinGame, .has, Tatham, puzz.link, JSON).

    A multi-puzzle input (JSONL) is written one puzzle after another (for json, one
    object per line). The reference solution, if any, is kept in JSON.
    """
    recs = _read_records(puzzle, fmt, max_bridges)
    parts = []
    for rec in recs:
        try:
            text = hfmt.write_puzzle(rec.puzzle, to_fmt,
                                     rec.solution if to_fmt == "json" else None)
        except InputError as exc:
            raise exc.located(rec.name) from None
        parts.append(text if text.endswith("\n") else text + "\n")
    _deliver("".join(parts), output, f" ({len(recs)} puzzle(s))")


# -- crosscheck ---------------------------------------------------------------------------

@cli.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("--puzzle", type=click.Choice(("hashi", "skynet")), default="hashi",
              show_default=True, help="Puzzle kind of the inputs.")
@click.option("--methods", default=None,
              help="Comma-separated methods to compare (default: all). Hashi: cpsat, sat "
                   "(exact, uniqueness question), article (the article's heuristic). Skynet: "
                   "sat, explicit (exact verdicts), and bots (ep2-article, ep2-slack, exact, "
                   "...) each against the worst-case agent; default sat, ep2-article, "
                   "ep2-slack (ep1-article, ep1-path with --rule ep1).")
@click.option("--rule", type=click.Choice(("ep1", "ep2")), default="ep2", show_default=True,
              help="Skynet: the rule of every game.")
@click.option("--all-starts", is_flag=True, help="Skynet: every start node of each map.")
@click.option("-o", "--out", "out_path", type=click.Path(dir_okay=False), default=None,
              help="JSONL file that receives one record per instance and method as soon as it "
                   "exists, and the disagreements. Never overwritten.")
@click.option("--resume", is_flag=True,
              help="Continue the run recorded in --out: skip what is done, add what is missing.")
@click.option("--jobs", "-j", type=click.IntRange(1), default=None,
              help="Local worker processes (default: the number of cores).")
@click.option("--time-limit", type=click.FloatRange(0, min_open=True), default=60.0,
              show_default=True, help="Seconds per instance and method (then UNKNOWN).")
@FORMAT_OPT
@MAXB_OPT
@click.option("--json", "as_json", is_flag=True,
              help="Print the summary and the disagreements as one JSON object.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def crosscheck(inputs: tuple[str, ...], puzzle: str, methods: str | None, rule: str,
               all_starts: bool, out_path: str | None,
               resume: bool, jobs: int | None, time_limit: float, fmt: str,
               max_bridges: int | None, as_json: bool, quiet: bool) -> None:
    """Run exact solvers and heuristics on the same instances and report where they disagree.

    \b
    INPUTS are files, folders, globs ('sets/*.has') or JSONL sets. For each instance
    and method: the answer, its status, this command's own rule check of the answer,
    effort and time. A disagreement is an answer that breaks a rule, a method that
    says unsolvable or gives up where another found a checked solution, two UNIQUE
    claims with different solutions, or a UNIQUE puzzle whose solution differs from
    the reference shipped with it. Exit 1 if there is any, 0 if none.

    \b
    \b
    Skynet (--puzzle skynet): INPUTS are maps; an instance is a map and a start.
    Exact methods prove the verdict (certificates replayed); each bot is played
    against the worst-case agent, which searches every agent line for one that
    beats it. A bot that loses a game an exact method proved winnable is a
    'loses-winnable-game' disagreement; its evidence is the agent's winning line
    as a game record ('puzzleproof render skynet MAP --game RECORD' draws it).

    With -o, records go to a JSONL file as they are made: an interrupted run loses
    nothing, and the same command with --resume finishes it without repeating work.
    """
    from puzzleproof.verify.crosscheck import run_crosscheck
    from puzzleproof.verify.hashi_methods import hashi_kind, load_hashi_instances

    if puzzle == "skynet":
        from puzzleproof.formats import skynet as sfmt
        from puzzleproof.verify.skynet_bots import BOTS
        from puzzleproof.verify.skynet_methods import game_instances, verdict_kind

        default = (["sat", "ep2-article", "ep2-slack"] if rule == "ep2"
                   else ["sat", "ep1-article", "ep1-path"])
        chosen = [m.strip() for m in methods.split(",")] if methods else default
        bad = [m for m in chosen if m not in BOTS and m not in ("sat", "explicit")]
        if bad:
            raise click.UsageError(f"unknown method(s) {', '.join(bad)}; expected sat, "
                                   f"explicit, {', '.join(BOTS)}")
        kind = verdict_kind([m for m in chosen if m in BOTS],
                            [m for m in chosen if m not in BOTS], rule)
        maps = []
        for arg in expand_inputs(list(inputs)):
            text, source, _ = read_source(arg)
            maps.append(sfmt.read_map(text, Path(source).name))
        starts = {}
        for m in maps:
            if all_starts:
                starts[m.name or ""] = [v for v in range(m.n) if v not in m.gateways]
            elif m.start is None:
                raise InputError("the map gives no start; pass --all-starts", m.name)
            else:
                starts[m.name or ""] = [m.start]
        instances = game_instances(maps, starts)
    else:
        kind = hashi_kind()
        chosen = [m.strip() for m in methods.split(",")] if methods else list(kind.methods)
    unknown = [m for m in chosen if m not in kind.methods]
    if unknown:
        raise click.UsageError(f"unknown method(s) {', '.join(unknown)}; expected "
                               f"{', '.join(kind.methods)}")
    if resume and not out_path:
        raise click.UsageError("--resume needs -o/--out, the file of the run to continue")
    target = Path(out_path) if out_path else None
    if target is not None and target.exists() and target.stat().st_size and not resume:
        raise InputError("exists; pass --resume to continue that run, or choose another "
                         "output", str(target))
    if puzzle == "hashi":
        instances = load_hashi_instances(list(inputs), None if fmt == "auto" else fmt,
                                         max_bridges)
    progress = Progress(TextColumn("[progress.description]{task.description}"), BarColumn(),
                        MofNCompleteColumn(), TimeElapsedColumn(), console=err,
                        disable=quiet or as_json, transient=True)
    with progress:
        task = progress.add_task("cross-checking", total=None)

        def tick(done: int, total: int, label: str) -> None:
            progress.update(task, completed=done, total=total,
                            description=f"cross-checking {_short(label, 40)}")

        report = run_crosscheck(kind, instances, chosen, target, resume=resume, jobs=jobs,
                                time_limit=time_limit, progress=tick)
    if as_json:
        _emit({"type": "crosscheck", "instances": len(instances), "methods": chosen,
               "summary": report.summary(), "disagreements": report.disagreements,
               "interrupted": report.interrupted})
    else:
        _print_crosscheck(report, len(instances), target, puzzle)
    if report.interrupted:
        _say(f"interrupted after {report.new_records} new records"
             + (f"; they are in {target}: rerun with --resume to finish" if target else ""))
        raise Exit(130)
    raise Exit(report.exit_code)


def _print_crosscheck(report, n_instances: int, target: Path | None,
                      puzzle: str = "hashi") -> None:
    if puzzle == "skynet":
        table = Table(title=f"Cross-check of {n_instances} map/start pair(s)",
                      title_justify="left")
        for col in ("method", "WIN", "LOSS", "unknown", "failed check", "mean s", "max s"):
            table.add_column(col, justify="left" if col == "method" else "right")
        for row in report.summary():
            table.add_row(row["method"], str(row["won"]), str(row["lost"]), str(row["unknown"]),
                          str(row["failed"] + sum(1 for r in report.records
                                                  if r["method"] == row["method"]
                                                  and not r["check_ok"])),
                          f"{row['mean_time']:.3f}", f"{row['max_time']:.3f}")
        out.print(table)
        out.print("exact methods: proved verdicts; bots: played against the worst-case agent "
                  "(LOSS: an agent line beats the bot)", markup=False)
    else:
        _print_hashi_table(report, n_instances)
    if not report.disagreements:
        out.print("no disagreement" + (f"; records in {target}" if target else ""), markup=False)
        return
    out.print(f"{len(report.disagreements)} disagreement(s):", markup=False)
    for d in report.disagreements:
        ev = d["evidence"]
        detail = ""
        if d["kind"] == "invalid-answer":
            detail = "; ".join(v["message"] for v in ev["violations"][:3])
        elif d["kind"] == "missed-solution":
            detail = (f"{d['methods'][0]} says {ev['claim']}"
                      + (f" ({ev['error']})" if ev.get("error") else "")
                      + f" but {ev['solution_by']} found a checked solution")
        elif d["kind"] == "unique-mismatch":
            detail = "both claim UNIQUE with different solutions"
        elif d["kind"] == "reference-mismatch":
            detail = f"answer differs from the shipped reference (UNIQUE by {ev['unique_by']})"
        elif d["kind"] == "loses-winnable-game":
            rec = ev["record"]
            line = " ".join(f"{t['cut'][0]}-{t['cut'][1]}>{t['agent_moved_to']}"
                            if t.get("cut") else "(no cut)" for t in rec["turns"])
            detail = (f"proved WIN by {ev['proved_win_by']}; the agent wins in "
                      f"{len(rec['turns'])} turn(s) ({rec['reason']}): cut>move {line}")
        elif d["kind"] == "verdict-mismatch":
            detail = json.dumps({k: v for k, v in ev.items()})
        out.print(f"  {d['instance']}: {d['kind']} [{', '.join(d['methods'])}] {detail}",
                  markup=False)
    if target:
        out.print(f"evidence (answers, game records) in {target}", markup=False)


def _print_hashi_table(report, n_instances: int) -> None:
    table = Table(title=f"Cross-check of {n_instances} instance(s)", title_justify="left")
    for col in ("method", "solved", "unique", "infeasible", "failed", "unknown", "mean s",
                "max s", "effort mean", "effort max"):
        table.add_column(col, justify="left" if col == "method" else "right")
    for row in report.summary():
        eff = row["mean_effort"]
        table.add_row(row["method"], str(row["solved"]), str(row["unique"]),
                      str(row["infeasible"]), str(row["failed"]), str(row["unknown"]),
                      f"{row['mean_time']:.3f}", f"{row['max_time']:.3f}",
                      "" if eff is None else f"{eff:.2f}",
                      "" if row["max_effort"] is None else str(row["max_effort"]))
    out.print(table)
    out.print("effort: cut rounds for exact solvers, assumptions for the article's solver",
              markup=False)


# -- generate -----------------------------------------------------------------------------

@cli.group()
def generate() -> None:
    """Make new instances that are hard in a stated, measured way."""


@generate.command(name="hashi")
@click.option("--size", default=None, metavar="WxH", help="Grid size, e.g. 15x15.")
@click.option("--width", type=click.IntRange(2, 200), default=15, show_default=True)
@click.option("--height", type=click.IntRange(2, 200), default=15, show_default=True)
@click.option("--density", type=click.FloatRange(0, 1, min_open=True), default=0.25,
              show_default=True, help="Most islands per cell.")
@click.option("--loops", type=click.FloatRange(0, 1), default=0.1, show_default=True,
              help="Chance of an extra bridge between two islands that see each other "
                   "(cycles; high values rarely give unique puzzles).")
@click.option("--max-bridges", type=click.IntRange(1, 4), default=2, show_default=True)
@click.option("--count", "-n", type=click.IntRange(1), default=10, show_default=True,
              help="Puzzles to keep.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Same seed and options, same puzzles (whatever --jobs).")
@click.option("--min-assumptions", type=click.IntRange(0), default=0, show_default=True,
              help="Keep only puzzles that need at least K assumptions from the article's "
                   "solver (hard for the heuristic, still unique).")
@click.option("--solver", type=click.Choice(HASHI_SOLVERS), default="sat", show_default=True,
              help="Exact back end that proves uniqueness.")
@click.option("--max-attempts", type=click.IntRange(1), default=None,
              help="Stop after this many attempts (default 1000 per puzzle asked).")
@click.option("--jobs", "-j", type=click.IntRange(1), default=1, show_default=True,
              help="Worker processes.")
@click.option("--format", "out_fmt", type=click.Choice(("jsonl",) + hfmt.WRITE_FORMATS),
              default="jsonl", show_default=True,
              help="jsonl (puzzle, solution, measures), tatham and puzzlink stream one "
                   "puzzle a line; the others need -o FOLDER and write one file a puzzle.")
@click.option("-o", "--output", type=click.Path(), default=None,
              help="A file (line formats) or a folder (one file a puzzle). Never overwritten.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def generate_hashi(size, width, height, density, loops, max_bridges, count, seed,
                   min_assumptions, solver, max_attempts, jobs, out_fmt, output, quiet) -> None:
    """Generate Hashi puzzles with a unique solution, proved by an exact solver.

    \b
    Each puzzle comes from a random connected bridge network; it is kept only if the
    exact solver proves that network the only solution, and (with --min-assumptions)
    only if the article's solver needs enough guesses. The JSONL records carry the
    solution and the measures of difficulty: the article solver's sure bridges,
    assumptions, wrong assumptions and depth, and the exact solver's cut rounds.

    \b
    Example (the project's shipped set is made this way):
      puzzleproof generate hashi --size 15x15 -n 5 --seed 1 -o set.jsonl
    """
    from puzzleproof.generate.hashi import GenParams
    from puzzleproof.generate.hashi import generate as gen

    if size:
        try:
            width, height = (int(v) for v in size.lower().split("x"))
        except ValueError:
            raise click.BadParameter(f"expected WxH such as 15x15, found {size!r}",
                                     param_hint="--size") from None
    try:
        params = GenParams(width, height, density, max_bridges, loops, count, seed,
                           min_assumptions, solver, max_attempts=max_attempts)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    line_format = out_fmt in ("jsonl", "tatham", "puzzlink")
    target = Path(output) if output else None
    if not line_format and target is None:
        raise click.UsageError(f"--format {out_fmt} writes one file a puzzle: give -o FOLDER")
    if target is not None and line_format and target.exists():
        raise InputError("exists; choose another output (generated sets are never "
                         "overwritten)", str(target))
    if target is not None and not line_format:
        if target.exists() and any(target.iterdir()):
            raise InputError("the folder is not empty; choose another", str(target))
        target.mkdir(parents=True, exist_ok=True)
    sink = open(target, "x", encoding="utf-8") if target is not None and line_format else None
    ext = {"codingame": ".txt", "grid": ".txt", "has": ".has", "json": ".json"}
    progress = Progress(TextColumn("[progress.description]{task.description}"), BarColumn(),
                        MofNCompleteColumn(), TimeElapsedColumn(), console=err,
                        disable=quiet, transient=True)
    kept = 0
    attempts = [0]
    interrupted = False
    try:
        with progress:
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
                    if sink:
                        sink.write(text + "\n")
                        sink.flush()
                    else:
                        sys.stdout.write(text + "\n")
                        sys.stdout.flush()
                else:
                    write_atomic(target / f"{g.puzzle.name}{ext[out_fmt]}",  # type: ignore
                                 hfmt.write_puzzle(g.puzzle, out_fmt, g.solution))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if sink:
            sink.close()
    _say(f"kept {kept} of {attempts[0]} attempts"
         + (f" -> {target}" if target else "")
         + ("; interrupted, what was kept is written" if interrupted else ""))
    if interrupted:
        raise Exit(130)
    if kept < count:
        _say(f"puzzleproof: only {kept} of {count} puzzles after {attempts[0]} attempts; "
             "lower --min-assumptions or --loops, or raise --max-attempts")
        raise Exit(1)
    raise Exit(0)


# -- skynet -------------------------------------------------------------------------------

@generate.command(name="skynet")
@click.option("--nodes", "-n", type=click.IntRange(3, 500), default=12, show_default=True,
              help="Nodes of each random map before shrinking.")
@click.option("--extra", type=click.FloatRange(0), default=0.6, show_default=True,
              help="Extra links per node beyond a spanning tree.")
@click.option("--gateways", type=click.IntRange(1, 20), default=3, show_default=True)
@click.option("--style", type=click.Choice(("ep1", "ep2")), default="ep2", show_default=True,
              help="ep1: at most one gateway link per node; ep2: nodes may have two.")
@click.option("--bots", default=None,
              help="Comma-separated bots to break (default: ep2-article,ep2-slack, or "
                   "ep1-article,ep1-path with --style ep1).")
@click.option("--all-bots", is_flag=True, help="Keep only maps that every chosen bot loses.")
@click.option("--count", type=click.IntRange(1), default=1, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--max-attempts", type=click.IntRange(1), default=20_000, show_default=True)
@click.option("--no-shrink", is_flag=True, help="Keep the maps as drawn.")
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False), required=True,
              help="Folder for NAME.txt (CodinGame map with the start) and "
                   "NAME.evidence.json (the agent's winning line). Files are never "
                   "overwritten.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
def generate_skynet(nodes, extra, gateways, style, bots, all_bots, count, seed, max_attempts,
                    no_shrink, out_dir, quiet) -> None:
    """Make maps that break bots: winnable (proved, certificate replayed) but lost by
    the bot against the worst-case agent, then shrunk to a small counterexample.

    \b
    Example:
      puzzleproof generate skynet --nodes 12 --bots ep2-slack --count 3 -o breakers/
      puzzleproof crosscheck --puzzle skynet breakers/*.txt
    """
    from puzzleproof.formats import skynet as sfmt
    from puzzleproof.generate.skynet import SkyParams, generate as gen
    from puzzleproof.verify.skynet_bots import BOTS

    default = ("ep2-article", "ep2-slack") if style == "ep2" else ("ep1-article", "ep1-path")
    chosen = tuple(b.strip() for b in bots.split(",")) if bots else default
    bad = [b for b in chosen if b not in BOTS]
    if bad:
        raise click.UsageError(f"unknown bot(s) {', '.join(bad)}; expected {', '.join(BOTS)}")
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    params = SkyParams(nodes=nodes, extra=extra, gateways=gateways, style=style, bots=chosen,
                       all_bots=all_bots, count=count, seed=seed, max_attempts=max_attempts,
                       shrink=not no_shrink)
    made = 0
    try:
        for b in gen(params):
            base = folder / (b.map.name or f"breaker-{made}")
            for path in (base.with_suffix(".txt"), Path(f"{base}.evidence.json")):
                if path.exists():
                    raise InputError("exists; choose another folder or seed", str(path))
            write_atomic(base.with_suffix(".txt"), sfmt.write_map(b.map, "codingame"))
            evidence = {"type": "skynet-breaker", "map": b.map.name, "start": b.start,
                        "lost_by": b.bots, "proved": "WIN (explicit-state search, strategy "
                        "replayed)", "attempt": b.attempt, "seed": seed,
                        "drawn": {"nodes": b.original_nodes, "links": b.original_links},
                        "game": b.record}
            write_atomic(Path(f"{base}.evidence.json"), json.dumps(evidence, indent=1) + "\n")
            made += 1
            if not quiet:
                _say(f"{base.with_suffix('.txt')}: {b.map.n} nodes, {len(b.map.links)} links "
                     f"(drawn {b.original_nodes}/{b.original_links}), start {b.start}, lost by "
                     f"{', '.join(b.bots)} in {len(b.record['turns'])} turn(s)")
    except KeyboardInterrupt:
        _say(f"interrupted; {made} map(s) kept in {folder}")
        raise Exit(130)
    _say(f"{made} map(s) in {folder}" + ("" if made == count else
                                          f" (attempts ran out before {count})"))
    raise Exit(0 if made else 1)


@cli.group()
def skynet() -> None:
    """Skynet Revolution (Death First Search): play the protocol, referee bots."""


@skynet.command(name="play")
@click.option("--bot", "bot_name", required=True,
              help="ep1-article, ep1-path (Episode 1), ep2-article, ep2-slack (Episode 2).")
def skynet_play(bot_name: str) -> None:
    """Speak CodinGame's protocol on stdin/stdout with one of our bots.

    \b
    Reads the initialisation block (N L E, L links, E gateways), then each turn
    the agent's node, and prints one cut 'C1 C2' per turn. Paste-ready for
    CodinGame's logic, or drive it with any referee, e.g.
      puzzleproof skynet referee MAP --agent article -- puzzleproof skynet play --bot ep2-slack
    """
    from puzzleproof.models.skynet import SkynetMap
    from puzzleproof.verify.skynet_bots import BOTS, make_bot

    if bot_name not in BOTS:
        raise click.UsageError(f"unknown bot {bot_name!r}; expected one of {', '.join(BOTS)}")
    stdin = sys.stdin

    def ints(what: str) -> list[int]:
        line = stdin.readline()
        if not line:
            raise InputError(f"<stdin>: expected {what}, found the end of the input")
        try:
            return [int(x) for x in line.split()]
        except ValueError:
            raise InputError(f"<stdin>: expected {what}, found {line.strip()!r}") from None

    head = ints("'N L E'")
    if len(head) != 3:
        raise InputError(f"<stdin>:1: expected 'N L E', found {len(head)} numbers")
    n, l, e = head
    links = [tuple(ints(f"link {k + 1}")) for k in range(l)]
    gates = [ints(f"gateway {k + 1}")[0] for k in range(e)]
    m = SkynetMap(n, tuple(links), frozenset(gates), gateway_order=tuple(gates))  # type: ignore
    bot = make_bot(bot_name)
    bot.reset(m)
    while True:
        line = stdin.readline()
        if not line.strip():
            if not line:
                break
            continue
        u, v = bot.cut(int(line.split()[0]))
        sys.stdout.write(f"{u} {v}\n")
        sys.stdout.flush()
    raise Exit(0)


def _split_names(value: str, known: dict, what: str) -> list[str]:
    names = [x.strip() for x in value.split(",") if x.strip()]
    bad = [x for x in names if x not in known]
    if bad:
        raise click.UsageError(f"unknown {what} {', '.join(bad)}; expected one of "
                               f"{', '.join(known)}")
    return names


@skynet.command(name="referee")
@click.argument("maps", nargs=-1, required=True)
@click.option("--agent", "agent_names", default="article", show_default=True,
              help="Agent model(s), comma-separated: article, nearest, random.")
@click.option("--bot", "bot_names", default=None,
              help="Our bot(s), comma-separated; or give an external program after '--'.")
@click.option("--rule", type=click.Choice(("ep1", "ep2")), default=None,
              help="Rules (default: the bot's episode; ep2 for external programs).")
@click.option("--start", type=int, default=None, help="Agent start (default: the map's).")
@click.option("--all-starts", is_flag=True, help="Play from every non-gateway node.")
@click.option("--tiebreak", type=click.Choice(("low", "high", "order")), default="low",
              show_default=True, help="How agent models break ties.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random agent.")
@click.option("--turn-timeout", type=click.FloatRange(0, min_open=True), default=0.150,
              show_default=True, help="Seconds an external program has per turn.")
@click.option("--first-turn-timeout", type=click.FloatRange(0, min_open=True), default=1.0,
              show_default=True, help="Seconds for the first turn (start-up included).")
@click.option("--json", "as_json", is_flag=True, help="Print game records as JSON (one a line).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="One game: its record (JSON). A batch: the harness's JSONL records, one per "
                   "game as it ends (each holds the full game record).")
@click.option("--resume", is_flag=True, help="Continue a batch recorded in -o.")
@click.option("--jobs", "-j", type=click.IntRange(1), default=1, show_default=True,
              help="Processes for a batch.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def skynet_referee(maps, agent_names, bot_names, rule, start, all_starts, tiebreak, seed,
                   turn_timeout, first_turn_timeout, as_json, output, resume, jobs,
                   quiet) -> None:
    """Referee Skynet games: our bots, or any program speaking the protocol, against agent
    models. Exit 0 if every game is won, 1 if any is lost.

    \b
    External program (any language), 150 ms a turn, a clear verdict for a silent,
    dead, slow or garbled bot (it never hangs):
      puzzleproof skynet referee map.txt --agent article -- python3 mybot.py
    Our bots, a batch over maps x starts x bots x agents, with a table:
      puzzleproof skynet referee maps/*.txt --bot ep2-article,ep2-slack \\
          --agent article,nearest --all-starts
    """
    from puzzleproof.formats import skynet as sfmt
    import puzzleproof.verify.skynet_worst  # noqa: F401  (registers the 'worst' agent)
    from puzzleproof.verify.skynet_agents import AGENTS, make_agent
    from puzzleproof.verify.skynet_bots import BOTS, make_bot
    from puzzleproof.verify.skynet_referee import play, play_external

    # main() takes what follows '--' off the command line before Click parses it
    command: list[str] = list((click.get_current_context().find_root().obj or {})
                              .get("external", []))
    map_args = list(maps)
    if bool(command) == bool(bot_names):
        raise click.UsageError("give --bot NAME(S), or an external program after '--' "
                               "(not both)")
    agents = _split_names(agent_names, AGENTS, "agent")
    bots = _split_names(bot_names, BOTS, "bot") if bot_names else []
    loaded = []
    for arg in expand_inputs(map_args):
        text, source, _ = read_source(arg)
        loaded.append(sfmt.read_map(text, source))
    games = []
    starts_of: dict[str, list[int]] = {}
    episode1 = rule == "ep1" or (rule is None and any(BOTS[b]().rule == "ep1" for b in bots))
    for m in loaded:
        problems = m.ep1_problems() if episode1 else []
        if problems:
            _say(f"note: {m.name} is not an Episode 1 map ({problems[0]}"
                 + (f", and {len(problems) - 1} more" if len(problems) > 1 else "")
                 + "); ep1 rules are applied all the same")
        if all_starts:
            starts = [x for x in range(m.n) if x not in m.gateways]
        else:
            st = start if start is not None else m.start
            if st is None:
                raise InputError("the map gives no start; pass --start or --all-starts", m.name)
            starts = [st]
        starts_of[m.name or ""] = starts
        for st in starts:
            for who in (bots or [" ".join(command)]):
                for a in agents:
                    games.append((m, st, who, a))
    if command and len(games) > 1:
        raise click.UsageError("an external program plays one game at a time: one map, one "
                               "start, one agent")
    if resume and not output:
        raise click.UsageError("--resume needs -o/--out, the file of the run to continue")
    target = Path(output) if output else None
    if target is not None and target.exists() and not resume:
        raise InputError("exists; choose another output (or --resume a batch)", str(target))
    if len(games) > 1:
        raise Exit(_referee_batch(loaded, starts_of, bots, agents, tiebreak, seed, rule, target,
                                  resume, jobs, as_json, quiet))
    m, st, who, a = games[0]
    agent = make_agent(a, tiebreak, seed)
    if command:
        r = play_external(m, rule or "ep2", command, agent, st, turn_timeout, first_turn_timeout)
    else:
        bot = make_bot(who)
        r = play(m, rule or bot.rule, bot, agent, st)
    rec = sfmt.record_to_json(r)
    if target:
        write_atomic(target, json.dumps(rec) + "\n")
    if as_json:
        _emit(rec)
    else:
        _print_game(r)
    raise Exit(0 if r.result == "WIN" else 1)


def _referee_batch(maps, starts_of, bots, agents, tiebreak, seed, rule, target, resume, jobs,
                   as_json, quiet) -> int:
    """Many games through the cross-check harness: processes, JSONL records, resume."""
    from puzzleproof.verify.crosscheck import run_crosscheck
    from puzzleproof.verify.skynet_methods import game_instances, games_kind

    kind = games_kind(bots, agents, tiebreak, seed, rule)
    instances = game_instances(maps, starts_of)
    progress = Progress(TextColumn("[progress.description]{task.description}"), BarColumn(),
                        MofNCompleteColumn(), TimeElapsedColumn(), console=err,
                        disable=quiet or as_json, transient=True)
    with progress:
        task = progress.add_task("refereeing", total=None)
        report = run_crosscheck(kind, instances, list(kind.methods), target, resume=resume,
                                jobs=jobs, progress=lambda d, t, label: progress.update(
                                    task, completed=d, total=t))
    lost = [r for r in report.records if r["status"] != "WIN"]
    if as_json:
        _emit({"type": "skynet-batch", "games": len(report.records), "summary": report.summary(),
               "lost": [{"game": r["instance"], "method": r["method"], "status": r["status"],
                         "reason": (r.get("stats") or {}).get("reason"), "error": r.get("error")}
                        for r in lost], "disagreements": report.disagreements})
    else:
        table = Table(title=f"{len(instances)} map/start pairs x {len(kind.methods)} bot/agent "
                            "pairs", title_justify="left")
        for col in ("bot/agent", "games", "won", "lost", "check failed", "cuts mean",
                    "cuts max", "max turn ms"):
            table.add_column(col, justify="left" if col == "bot/agent" else "right")
        for row in report.summary():
            recs = [r for r in report.records if r["method"] == row["method"]]
            worst = max(((r.get("stats") or {}).get("max_turn_ms", 0) for r in recs), default=0)
            eff = row["mean_effort"]
            table.add_row(row["method"], str(row["instances"]), str(row["won"]),
                          str(row["lost"]), str(row["failed"]),
                          "" if eff is None else f"{eff:.1f}", str(row["max_effort"] or ""),
                          f"{worst:.2f}")
        out.print(table)
        for r in sorted(lost, key=lambda x: (x["instance"], x["method"]))[:40]:
            why = (r.get("stats") or {}).get("reason") or r.get("error")
            out.print(f"  lost: {r['instance']} {r['method']}: {why}", markup=False)
        if len(lost) > 40:
            out.print(f"  ... and {len(lost) - 40} more lost games"
                      + (f" (all in {target})" if target else ""), markup=False)
        if report.disagreements:
            out.print(f"{len(report.disagreements)} game record(s) fail the rules check",
                      markup=False)
    if report.interrupted:
        _say("interrupted" + (f"; rerun with --resume to finish {target}" if target else ""))
        return 130
    if report.disagreements:
        return 1
    return 0 if not lost else 1



def _print_game(r) -> None:
    out.print(f"{r.map.name}: {r.bot} vs agent {r.agent} ({r.rule}, start {r.start}): "
              f"{r.result} ({r.reason}) after {len(r.turns)} turns, {r.cuts} cuts"
              + (f"; {r.detail}" if r.detail else ""), markup=False)
    for k, t in enumerate(r.turns, start=1):
        cut = "-" if t.cut is None else f"{t.cut[0]}-{t.cut[1]}"
        moved = "" if t.agent_moved_to is None else f", agent -> {t.agent_moved_to}"
        ms = f" ({r.turn_seconds[k - 1] * 1000:.1f} ms)" if k <= len(r.turn_seconds) else ""
        out.print(f"  turn {k}: agent at {t.agent_at}, cut {cut}{ms}{moved}", markup=False)


def _print_games(records) -> None:
    table = Table(title=f"{len(records)} Skynet games", title_justify="left")
    for col in ("map", "start", "bot", "agent", "rule", "result", "reason", "cuts",
                "max turn ms"):
        table.add_column(col, justify="right" if col in ("start", "cuts", "max turn ms")
                         else "left")
    for r in records:
        table.add_row(_short(str(r.map.name), 36), str(r.start), r.bot, r.agent, r.rule,
                      r.result, r.reason, str(r.cuts),
                      f"{max(r.turn_seconds, default=0) * 1000:.2f}")
    out.print(table)
    won = sum(r.result == "WIN" for r in records)
    out.print(f"{won} won, {len(records) - won} lost", markup=False)


# -- entry point --------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    """Run the command; return its exit code (never a traceback unless ``--debug``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    external: list[str] = []
    if "--" in args:  # an external program's command line ('skynet referee MAP -- prog ...')
        k = args.index("--")
        args, external = args[:k], args[k + 1:]
    debug = "--debug" in args
    try:
        cli.main(args=args, prog_name="puzzleproof", standalone_mode=False,
                 obj={"external": external})
        return 0
    except Exit as e:
        return e.code
    except PuzzleproofError as exc:
        if debug:
            raise
        _say(f"puzzleproof: error: {exc}")
        return 2
    except click.exceptions.Abort:
        _say("interrupted")
        return 130
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except KeyboardInterrupt:
        _say("interrupted")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug of ours: one line, the traceback only with --debug
        if debug:
            raise
        _say(f"puzzleproof: internal error: {type(exc).__name__}: {exc} (rerun with --debug "
             "for the traceback, and please report it)")
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
