"""``render [PUZZLE] INPUT``, written once: the picture kind comes from ``--format``, else
from -o's ending, else the puzzle's default; the puzzle's
:class:`~puzzleproof.puzzles.base.RenderSpec` draws it, and it is written whole (or to
stdout). A picture of something that breaks a rule says so in its title and exits 1."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from puzzleproof.command.output import Exit, check_output, deliver, say
from puzzleproof.command.build import inputs_of, make_command, rows_for
from puzzleproof.errors import UsageError
from puzzleproof.puzzles.base import Params
from puzzleproof.puzzles.options import FORCE, FORMAT, OUTPUT

__all__ = ["build", "picture_kind"]

#: a picture kind by file ending
SUFFIXES = {".svg": "svg", ".png": "png", ".txt": "text"}


def build(plugin: Any) -> click.Command:
    spec = plugin.render
    shared = (FORMAT.but(choices=spec.kinds, help="Picture kind (default: from -o's "
                         f"extension, else {spec.default_kind})."),
              OUTPUT.but(help="Write the picture to a file (" + ", ".join(
                  f".{k}" for k in spec.kinds if k in ("svg", "png")) + ") instead of "
                  "stdout."), FORCE)
    rows = rows_for(shared, spec.options, plugin.reader.options)
    arg = click.argument("input_arg", metavar=spec.argument)
    return make_command(plugin.name, spec.help, [arg], rows,
                        lambda p, ctx: run(plugin, p, ctx))


def picture_kind(spec: Any, p: Params) -> str:
    """``--format``, else the kind -o's ending names (refused when the puzzle does not draw
    it: a PNG file of text would be worse than no file), else the puzzle's default; PNG
    needs a file."""
    kind = p.out_format
    if kind is None and p.output:
        kind = SUFFIXES.get(Path(p.output).suffix.lower())
        if kind is not None and kind not in spec.kinds:
            raise UsageError(f"-o {p.output}: this puzzle draws no {kind.upper()} picture "
                             f"(it draws {', '.join(spec.kinds)}); choose one with --format "
                             "or the file's ending")
    kind = kind or spec.default_kind
    if kind == "png" and not p.output:
        raise UsageError("PNG is binary: give -o FILE.png (or --format svg for stdout)")
    return kind


def run(plugin: Any, p: Params, ctx: click.Context) -> None:
    spec = plugin.render
    check_output(p.output, p.force)
    kind = picture_kind(spec, p)
    pic = spec.render(p.input_arg, kind, p, inputs_of(ctx))
    for note in pic.notes:
        say(note)
    if pic.data is None:  # nothing to draw (a solve that found no solution): a "no"
        raise Exit(1)
    deliver(pic.data, p.output, p.force)
    raise Exit(0 if pic.ok else 1)
