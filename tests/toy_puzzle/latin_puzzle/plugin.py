"""The Latin square as a puzzleproof plugin: one object, found through the entry point
``latin = latin_puzzle.plugin:PLUGIN`` in the group ``puzzleproof.puzzles``."""

from __future__ import annotations

import json
import random

import click

from puzzleproof.plugin import (COUNT, METHOD, METHODS, OUTPUT, SEED, TIME_LIMIT, CheckSpec,
                                ConvertSpec, CrosscheckSpec, Deadline, Exit, Generated,
                                GenerateSpec, Instance, Loaded, Method, Opt, Outcome, Page,
                                PerTask, Picture, Plugin, PuzzleGroup, PuzzleKind, Reader,
                                RenderSpec, ReportSpec, SolveSpec, Table, UsageError, inputs_of,
                                make_command, resolve_methods, run_harness, say)

from latin_puzzle.model import Square, read, violations, write

# -- reading and the methods -----------------------------------------------------------------


def read_instances(text: str, source: str) -> list[Loaded]:
    return [Loaded(source, read(text, source))]


def looks_like_mine(text: str, source: str) -> bool:
    return text.lstrip().startswith("latin ")


LATIN_METHODS = (
    Method("brute", "exact", "every completion enumerated",
           run="latin_puzzle.methods:exact"),
    Method("smallest", "heuristic", "the smallest number each cell allows",
           run="latin_puzzle.methods:smallest_first"),
)

# -- solve -------------------------------------------------------------------------------------


def solve_one(task, p, session):
    method = resolve_methods(PLUGIN, p.method or "brute")[0]
    return PLUGIN.method(method).bind(p)(task.instance, deadline=p.deadline())


def record(task, res, p, full):
    return {**res.to_dict(), "name": task.name}


def grid_text(grid) -> str:
    return "".join(" ".join(map(str, row)) + "\n" for row in grid)


def show_one(task, res, p) -> Page:
    page = Page().line(f"{task.name}: {res.status.value} ({res.solver})")
    return page.raw(grid_text(res.answer)) if res.answer else page


def table(rows, p, errors) -> Page:
    from rich.table import Table as RichTable

    t = RichTable(title="Latin squares")
    for col in ("square", "n", "status"):
        t.add_column(col)
    for task, res in rows:
        t.add_row(task.name, str(task.instance.n), res.status.value)
    return Page().table(t)


SOLVE = SolveSpec(help="Complete Latin squares; --method brute proves uniqueness.",
                  options=(METHOD.but(default="brute"), TIME_LIMIT),
                  run=solve_one, table=table, record=record, show_one=show_one)

# -- check, render ------------------------------------------------------------------------------


def check(args, p, inputs) -> Outcome:
    sq = inputs.one(args[0], PLUGIN, {}, "check").instance
    text, source = inputs.text(args[1])
    answer = json.loads(text)
    bad = violations(sq, answer)
    page = Page().line(f"{source}: " + ("solves the square" if not bad else
                                        f"does NOT solve the square: {bad[0]['message']}"))
    return Outcome(not bad, {"ok": not bad, "violations": bad}, page)


def render(arg, kind, p, inputs) -> Picture:
    sq = inputs.one(arg, PLUGIN, {}, "render").instance
    return Picture(grid_text(sq.cells).replace("0", "."), kind)

def convert(arg, fmt, p, inputs) -> tuple[str, str]:
    sq = inputs.one(arg, PLUGIN, {}, "convert").instance
    if fmt == "json":
        return json.dumps({"n": sq.n, "cells": sq.cells}) + "\n", ""
    return write(sq), ""


# -- crosscheck ---------------------------------------------------------------------------------


def canon(answer) -> str:
    return json.dumps(answer)


def crosscheck(loaded, p, env) -> Outcome:
    # the kind goes to worker processes: its functions are top-level ones
    kind = PuzzleKind("latin", {m.name: m for m in LATIN_METHODS}, check=violations,
                      canon=canon)
    chosen = resolve_methods(PLUGIN, p.method, default=("brute", "smallest"))
    instances = [Instance(ld.name, ld.instance) for ld in loaded]
    columns = (("solved", "solved"), ("unique", "unique"), ("unknown", "unknown"),
               ("failed", "failed"))
    _, outcome = run_harness("latin", kind, instances, chosen, env, PerTask(p.time_limit),
                             Table(columns, what="square"))
    return outcome

# -- generate -----------------------------------------------------------------------------------


def generate(p, executor, on_attempt):
    """Seeded squares (a shifted base square, rows and symbols permuted) with cells
    removed while the brute force still proves the completion unique."""
    from latin_puzzle.methods import exact

    rng = random.Random(p.seed)
    for k in range(p.count):
        n = p.size
        symbols = rng.sample(range(1, n + 1), n)
        rows = rng.sample(range(n), n)
        cells = [[symbols[(r + c) % n] for c in range(n)] for r in rows]
        for i, j in rng.sample([(i, j) for i in range(n) for j in range(n)], n * n):
            keep, cells[i][j] = cells[i][j], 0
            if exact(Square(n, tuple(map(tuple, cells))), deadline=Deadline(5)).status.value \
                    != "UNIQUE":
                cells[i][j] = keep
        sq = Square(n, tuple(map(tuple, cells)), f"latin-{p.seed}-{k}")
        on_attempt(k + 1, k + 1)
        yield Generated(sq.name, {"givens": sq.givens()}, files={f"{sq.name}.latin": write(sq)},
                        line=json.dumps({"name": sq.name, "text": write(sq)}),
                        note=f"{{path}}: {sq.givens()} givens, unique")


GENERATE = GenerateSpec(
    help="Latin squares with a unique completion and few givens.",
    options=(COUNT, SEED, Opt("size", ("--size",), "Side of each square.", kind="int",
                              default=4, range=(2, 6), show_default=True)),
    generate=generate, layout=lambda p: "folder" if p.output else "lines")

# -- commands of its own -------------------------------------------------------------------------
# A group of the puzzle's own (``latin givens``), and a ``plot`` group that is merged with
# any other puzzle's ``plot`` (``plot latin``, ``plot cityclose``).


@click.group("latin", help="Latin squares: commands of the toy puzzle's own.")
def latin_group() -> None:
    pass


@latin_group.command("givens", help="Count the givens of a square: 'latin givens SQUARE'.")
@click.argument("square")
def givens(square: str) -> None:
    sq = inputs_of().one(square, PLUGIN, {}, "latin givens").instance
    click.echo(f"{sq.givens()} givens of {sq.n * sq.n}")
    raise Exit(0)


def plot_givens(p, ctx) -> None:
    """A text 'plot': the givens of each row as a bar."""
    if not p.output:
        raise UsageError("plot latin writes a file: give -o FILE")
    sq = inputs_of(ctx).one(p.square, PLUGIN, {}, "plot latin").instance
    bars = "".join(f"{k:>2} {'#' * sum(1 for c in row if c)}\n" for k, row in enumerate(sq.cells))
    with open(p.output, "w", encoding="utf-8") as fh:
        fh.write(bars)
    say(f"wrote {p.output}")
    raise Exit(0)


PLOT = PuzzleGroup("plot", help="Plot an instance: 'plot [PUZZLE] INPUT -o FILE'.")
PLOT.add_command(make_command("latin", "The givens of each row, as text bars.",
                              [click.argument("square")], (OUTPUT,),
                              plot_givens))

PLUGIN = Plugin(
    name="latin", title="Latin square", summary="fill a square so each row and column "
    "holds each number once",
    reader=Reader(read=read_instances, sniff=looks_like_mine, suffixes=(".latin",), write=write),
    methods=LATIN_METHODS, default_methods=("brute", "smallest"),
    solve=SOLVE,
    check=CheckSpec(help="Check a completion (JSON rows).", options=(), check=check,
                    arguments="SQUARE ANSWER"),
    render=RenderSpec(help="Draw a square as text.", options=(), render=render,
                      kinds=("text",), default_kind="text", argument="SQUARE"),
    convert=ConvertSpec(help="Write a square as text or JSON.", options=(),
                        formats=("latin", "json"), write=convert, argument="SQUARE"),
    crosscheck=CrosscheckSpec(help="Brute force beside the heuristic.",
                              options=(METHODS, TIME_LIMIT.but(default=10.0)), run=crosscheck),
    generate=GENERATE,
    report=ReportSpec(size=lambda inst, rec: getattr(inst, "n", None), size_name="n"),
    commands=(latin_group, PLOT))
