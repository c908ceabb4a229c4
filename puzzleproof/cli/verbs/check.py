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
    if len(p.args) == 1 and _is_breaker(p.args[0]):
        return _rejudge(plugin, p)
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



def _is_breaker(arg: str) -> bool:
    return arg.endswith(".breaker.json")


def _rejudge(plugin: Any, p: Params) -> None:
    """``check BREAKER.breaker.json``: the program of a kept breaker run again on it, and
    the exact solver asked again (:func:`puzzleproof.generate.hunt.rejudge`). Exit 1 while
    it still fails (the finding holds), 0 once it gets the instance right."""
    from puzzleproof.generate.hunt import rejudge
    from puzzleproof.method import load_ref
    from puzzleproof.puzzles.base import Outcome, Page

    rebuild = plugin.generate.rebuild if plugin.generate is not None else None
    if rebuild is None:
        raise UsageError(f"{plugin.title} keeps no breakers to check")
    doc, failure = rejudge(p.args[0], load_ref(rebuild))
    name = doc["program"].get("name")
    was = doc["failure"]
    page = Page().line(f"{p.args[0]}: {name} "
                       + (f"still fails: {failure.kind}: {failure.summary}" if failure else
                          f"no longer fails (it was {was.get('kind')}: "
                          f"{was.get('summary')})"))
    record = {"breaker": p.args[0], "program": name, "recorded": was,
              "still_fails": failure is not None,
              "now": None if failure is None else {"kind": failure.kind,
                                                   "summary": failure.summary}}
    outcome = Outcome(failure is None, record, page)
    if p.as_json:
        emit({"type": "check", "schema_version": 1, "puzzle": plugin.name, **outcome.record})
    else:
        show(outcome.page)
    raise Exit(outcome.exit_code)
