"""``convert [PUZZLE] INPUT --format NAME``, written once: the puzzle's
:class:`~puzzleproof.puzzles.base.ConvertSpec` writes the input's instances in another
format, and the text is written whole (or to stdout)."""

from __future__ import annotations

from typing import Any

import click

from puzzleproof.command.output import Exit, check_output, deliver
from puzzleproof.command.build import inputs_of, make_command, rows_for
from puzzleproof.puzzles.base import Params
from puzzleproof.puzzles.options import FORCE, FORMAT, OUTPUT

__all__ = ["build"]


def build(plugin: Any) -> click.Command:
    spec = plugin.convert
    shared = (FORMAT.but(name="to_fmt", choices=spec.formats,
                         help="Format to write."),
              OUTPUT.but(help="Write to a file instead of stdout."), FORCE)
    rows = rows_for(shared, spec.options, plugin.reader.options)
    arg = click.argument("input_arg", metavar=spec.argument)
    cmd = make_command(plugin.name, spec.help, [arg], rows,
                       lambda p, ctx: run(plugin, p, ctx))
    for param in cmd.params:
        if param.name == "to_fmt":
            param.required = True
    return cmd


def run(plugin: Any, p: Params, ctx: click.Context) -> None:
    check_output(p.output, p.force)
    text, what = plugin.convert.write(p.input_arg, p.to_fmt, p, inputs_of(ctx))
    deliver(text, p.output, p.force, what)
    raise Exit(0)
