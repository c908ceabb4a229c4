"""``solve [PUZZLE] INPUTS...``, written once for every puzzle: the inputs are read, each
task solved and checked by the puzzle's :class:`~puzzleproof.puzzles.base.SolveSpec`, records
streamed (``--jsonl``, ``-o`` for a batch) as they come, and one answer shown in full or a
batch as a table. Exit 0 done, 1 a proved "no" or a failed check, 2 unreadable input, 130
interrupted (the answers so far are shown and kept)."""

from __future__ import annotations

import json
from typing import Any, TextIO

import click

from puzzleproof.command.output import (Exit, check_output, deliver, emit, err, mixed, plural,
                                    progress_bar, say, short, show)
from puzzleproof.command.build import inputs_of, make_command, reader_options, rows_for
from puzzleproof.errors import InputError, UsageError
from puzzleproof.puzzles.base import Params, Task
from puzzleproof.puzzles.options import FORCE, FORMAT, JSON, JSONL, OUTPUT, QUIET
from puzzleproof.result import Result

__all__ = ["build"]

SHARED = (OUTPUT.but(help="One answer: its file; several: one JSON record a line."), FORCE,
          JSON, JSONL, QUIET)


def build(plugin: Any) -> click.Command:
    spec = plugin.solve
    fmt = FORMAT.but(name="out_format", choices=spec.formats,
                     help="What -o holds for one answer: " + ", ".join(spec.formats)
                          + f" (default {spec.formats[0]}).")
    rows = rows_for((*SHARED, fmt), spec.options, plugin.reader.options)
    inputs = click.argument("inputs", nargs=-1, required=not spec.inputs_optional,
                            metavar=spec.inputs_name)
    return make_command(plugin.name, spec.help, [inputs], rows,
                        lambda p, ctx: run(plugin, p, ctx))


def run(plugin: Any, p: Params, ctx: click.Context) -> None:
    spec = plugin.solve
    if p.as_json and p.as_jsonl:
        raise UsageError("give --json or --jsonl, not both")
    if spec.prepare is not None:
        spec.prepare(p)
    check_output(p.output, p.force)
    tasks, errors = _tasks(plugin, p, ctx)
    for note in (spec.notes(tasks, p) if spec.notes else []):
        say(note)
    single = len(tasks) == 1 and not errors and not p.as_jsonl
    done, interrupted = _solve_all(plugin, tasks, p, single)
    if single and done:
        raise Exit(_one(plugin, *done[0], p))
    if p.as_json:
        emit([spec.record(t, r, p, True) for t, r in done]
             + [{"type": "error", "input": a, "message": str(e)} for a, e in errors])
    elif not p.as_jsonl:
        show(spec.table(done, p, errors))
    if interrupted:
        say(f"interrupted after {len(done)} of {plural(len(tasks), spec_noun(plugin))}; the "
            "answers above are complete for those")
        raise Exit(130)
    if errors:
        raise Exit(2)
    raise Exit(1 if any(spec.failed(t, r, p) for t, r in done) else 0)


def spec_noun(plugin: Any) -> str:
    return plugin.solve.task_noun or plugin.noun


def _tasks(plugin: Any, p: Params, ctx: click.Context) -> tuple[list[Task], list]:
    """The tasks of the inputs and the inputs that could not be read (each said once; when
    none could be read, exit 2 with nothing written)."""
    spec = plugin.solve
    if not p.inputs and spec.inputs_optional:
        return spec.tasks([], p), []
    g = inputs_of(ctx).gather(p.inputs, plugin, reader_options(plugin, p),
                              strict=not mixed(ctx))
    skipped = g.skipped_text()
    if skipped and not mixed(ctx):  # a mixed run says them once, for every puzzle
        say(skipped)
    for _, exc in g.errors:
        say(f"puzzleproof: error: {exc}")
    if not g.loaded:
        raise Exit(2)
    return spec.tasks(g.loaded, p), g.errors


def _solve_all(plugin: Any, tasks: list[Task], p: Params, single: bool
               ) -> tuple[list[tuple[Task, Result]], bool]:
    """Every task solved in turn, with progress on stderr; records streamed to ``--jsonl``
    and (a batch) to ``-o`` as each answer comes. Ctrl-C keeps what is done."""
    spec = plugin.solve
    done: list[tuple[Task, Result]] = []
    sink = _sink(p) if p.output and not single else None
    try:
        with progress_bar(p.quiet or p.as_json or p.as_jsonl or single) as progress, \
                spec.session(p) as session:
            bar = progress.add_task("solving", total=len(tasks))
            for task in tasks:
                progress.update(bar, description=f"solving {short(spec.describe(task, p), 40)}")
                res = _solve(plugin, task, p, session, single)
                done.append((task, res))
                progress.advance(bar)
                if p.as_jsonl:
                    emit(spec.record(task, res, p, False))
                if sink is not None:
                    sink.write(json.dumps(spec.record(task, res, p, True)) + "\n")
                    sink.flush()
    except KeyboardInterrupt:
        return done, True
    finally:
        if sink is not None:
            sink.close()
            say(f"wrote {p.output} ({plural(len(done), 'record')})")
    return done, False


def _sink(p: Params) -> TextIO:
    try:
        return open(p.output, "w" if p.force else "x", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write the output: {exc.strerror}", p.output) from None


def _solve(plugin: Any, task: Task, p: Params, session: Any, single: bool) -> Result:
    """One task; a single one shows what the solver is doing on a terminal."""
    spec = plugin.solve
    if not single or p.quiet or p.as_json or not err.is_terminal:
        return spec.run(task, p, session)
    with err.status(f"solving {spec.describe(task, p)}") as status:
        p["on_progress"] = lambda text: status.update(f"solving {spec.describe(task, p)}: "
                                                      f"{text}")
        try:
            return spec.run(task, p, session)
        finally:
            p.pop("on_progress", None)


def _one(plugin: Any, task: Task, res: Result, p: Params) -> int:
    """One answer in full: its file (-o), its record (--json) or its page; the exit code."""
    spec = plugin.solve
    if p.output:
        written = spec.write(task, res, p) if spec.write else \
            (json.dumps(spec.record(task, res, p, True)) + "\n", "")
        if written is None:
            say(f"nothing written to {p.output}: the answer is {res.status.value}, with "
                "nothing to write")
        else:
            deliver(written[0], p.output, p.force, written[1])
    if p.as_json:
        emit(spec.record(task, res, p, True))
    elif spec.show_one is not None:
        show(spec.show_one(task, res, p))
    else:
        show(spec.table([(task, res)], p, []))
    return 1 if spec.failed(task, res, p) else 0
