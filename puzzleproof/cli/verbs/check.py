"""``check [PUZZLE] INSTANCE ANSWER``, written once: the puzzle's
:class:`~puzzleproof.puzzles.base.CheckSpec` judges an answer written by anything else (a
bot's output, a strategy certificate, an order, a game record) by the rules alone; the verdict
is printed, or under ``--json`` one record. Exit 0 it holds, 1 it breaks a rule, 2 it cannot
be read."""

from __future__ import annotations

from typing import Any

import click

from puzzleproof.command.output import Exit, emit, show
from puzzleproof.command.build import inputs_of, make_command, rows_for
from puzzleproof.errors import UsageError
from puzzleproof.puzzles.base import Params
from puzzleproof.puzzles.options import JSON

__all__ = ["build"]


def build(plugin: Any) -> click.Command:
    spec = plugin.check
    rows = rows_for((JSON,), spec.options, plugin.reader.options)
    low, high = spec.nargs
    args = click.argument("args", nargs=-1, required=low > 0, metavar=spec.arguments)
    return make_command(plugin.name, spec.help, [args], rows,
                        lambda p, ctx: run(plugin, p, ctx))


def run(plugin: Any, p: Params, ctx: click.Context) -> None:
    spec = plugin.check
    low, high = spec.nargs
    if not low <= len(p.args) <= high:
        raise UsageError(f"expected {spec.arguments}, found {len(p.args)} argument(s)")
    outcome = spec.check(tuple(p.args), p, inputs_of(ctx))
    if p.as_json:
        emit({"type": "check", "schema_version": 1, "puzzle": plugin.name, **outcome.record})
        show(outcome.page.notes_only())
    else:
        show(outcome.page)
    raise Exit(outcome.exit_code)

