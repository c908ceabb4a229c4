"""What every shared verb's command is made of: the puzzle's rows and the verb's own rows as
Click options (a puzzle's row replaces the verb's row of the same name), the arguments, the
inputs read once per command, and the values handed on as :class:`Params`."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import click

from puzzleproof.command.options import options
from puzzleproof.command.output import stdout_carries_data
from puzzleproof.errors import UsageError
from puzzleproof.puzzles.base import Params
from puzzleproof.puzzles.inputs import Inputs
from puzzleproof.puzzles.options import Opt

__all__ = ["rows_for", "make_command", "inputs_of", "reader_options", "usage_errors"]


def rows_for(shared: Sequence[Opt], own: Sequence[Opt], reader: Sequence[Opt] = ()
             ) -> list[Opt]:
    """The options of one command: the puzzle's own rows in their order, then the verb's
    shared rows the puzzle does not replace, then the reader's rows."""
    names = {o.name for o in own}
    rows = list(own) + [o for o in shared if o.name not in names]
    names |= {o.name for o in shared}
    return rows + [o for o in reader if o.name not in names]


def inputs_of(ctx: click.Context | None = None) -> Inputs:
    """The command's reader of inputs, shared by the verb group (which reads the inputs to
    find their puzzles) and the puzzle's command (which reads them as that puzzle)."""
    ctx = ctx or click.get_current_context()
    meta = ctx.find_root().meta
    if "puzzleproof.inputs" not in meta:
        meta["puzzleproof.inputs"] = Inputs()
    return meta["puzzleproof.inputs"]


def reader_options(plugin: Any, p: Params) -> dict[str, Any]:
    """The reader's keyword options from the values of its rows."""
    return {o.name: p.get(o.name) for o in plugin.reader.options}


def usage_errors(f: Callable) -> Callable:
    """A command callback whose :class:`UsageError` (from any layer) becomes Click's usage
    error (exit 2, shown as Click shows its own), and whose ``--json``, ``--jsonl`` or
    ``-o -`` keeps stdout for data (:func:`~puzzleproof.command.output.people`)."""
    import functools

    @functools.wraps(f)
    def wrapped(*args: Any, **kw: Any) -> Any:
        _data_mode(kw)
        try:
            return f(*args, **kw)
        except UsageError as exc:
            raise click.UsageError(str(exc), click.get_current_context(silent=True)) from None

    return wrapped


def _data_mode(values: dict[str, Any]) -> None:
    if values.get("as_json") or values.get("as_jsonl") or values.get("output") == "-":
        stdout_carries_data()


def make_command(name: str, help_text: str, arguments: Sequence[Callable],
                 rows: Sequence[Opt], run: Callable[[Params, click.Context], None]
                 ) -> click.Command:
    """A command (``arguments``: ``click.argument`` decorators, first first) whose callback
    turns its values into :class:`Params` and calls ``run``."""

    def callback(**values: Any) -> None:
        ctx = click.get_current_context()
        _data_mode(values)
        try:
            run(Params(values), ctx)
        except UsageError as exc:
            raise click.UsageError(str(exc), ctx) from None

    f: Callable = options(rows)(callback)
    for arg in reversed(list(arguments)):
        f = arg(f)
    return click.command(name, help=help_text,
                         context_settings={"help_option_names": ["-h", "--help"]})(f)
