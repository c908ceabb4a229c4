"""The one place where an option row (:class:`puzzleproof.puzzles.options.Opt`) becomes a
Click option: its type and range checked when it is read (one line and exit 2 otherwise),
its range shown in ``--help``.

Example:
    >>> from puzzleproof.puzzles.options import TIME_LIMIT
    >>> import click
    >>> @click.command()
    ... @option(TIME_LIMIT)
    ... def cmd(time_limit): print(time_limit)
    >>> cmd.main(["--time-limit", "2"], standalone_mode=False)
    2.0
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import click

from puzzleproof.puzzles.options import Opt

__all__ = ["OptType", "option", "options"]


class OptType(click.ParamType):
    """A Click type that converts and range-checks through its row."""

    def __init__(self, opt: Opt) -> None:
        self.opt = opt
        self.name = opt.kind.upper() if opt.kind != "seconds" else "SECONDS"

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None or not isinstance(value, str):
            return value
        try:
            return self.opt._one(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


def _keep(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """An option the command keeps for itself (``--scheduler``): in ``ctx.meta``."""
    if value is not None:
        ctx.meta[f"puzzleproof.{param.name}"] = value
    return value


def option(opt: Opt) -> Callable:
    """The Click decorator of one row."""
    help_text = opt.help
    rng = opt.range_help()
    if rng and not (opt.kind == "seconds" and opt.range is None):
        help_text += f" {rng}"
    kw: dict[str, Any] = {"help": help_text, "show_default": opt.show_default}
    if opt.default is not None:  # Click 8.2+ takes default=None for a given value: a
        kw["default"] = opt.default  # required option would then never be missing
    if opt.metavar:
        kw["metavar"] = opt.metavar
    if not opt.expose:
        kw.update(expose_value=False, callback=_keep)
    if opt.kind == "flag":
        return click.option(*opt.flags, opt.name, is_flag=True, **kw)
    if opt.kind == "choice":
        kw["type"] = click.Choice(opt.choices or ())
    elif opt.kind == "path":
        kw["type"] = click.Path(dir_okay=False)
    else:
        kw["type"] = OptType(opt)
    if opt.multiple:
        kw["multiple"] = True
        kw["default"] = ()
    if opt.flag_value is not None:
        kw.update(is_flag=False, flag_value=opt.flag_value)
    return click.option(*opt.flags, opt.name, **kw)


def options(rows: Sequence[Opt]) -> Callable:
    """Every row as a decorator, in the order given (the help lists them so)."""
    def apply(f: Callable) -> Callable:
        for opt in reversed(list(rows)):
            f = option(opt)(f)
        return f

    return apply
