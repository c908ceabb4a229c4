"""The ``puzzleproof`` command: thin over library functions that return plain dataclasses.

The root group and the verbs live in :mod:`puzzleproof.cli.common`; each puzzle's module
(:mod:`puzzleproof.cli.hashi`, :mod:`puzzleproof.cli.skynet`, ...) registers its own
subcommands on them, found through the registry (:mod:`puzzleproof.puzzles`).
"""

from __future__ import annotations

import inspect
import os
import sys

import click

from puzzleproof import __version__
from puzzleproof import puzzles as registry
from puzzleproof.cli.common import (FiniteRange, EXIT_HELP, Exit, check_group, convert_group,
                                    crosscheck_group, generate_group, render_group, say,
                                    solve_group)
from puzzleproof.cli import common as _common
from puzzleproof.errors import PuzzleproofError
from puzzleproof.formats.cityclose import MAX_LINKS as CITY_MAX_LINKS
from puzzleproof.formats.hashi import MAX_SIDE as HASHI_MAX_SIDE
from puzzleproof.formats.numbers import SIZE_ENV
from puzzleproof.models.cityclose import MAX_CITIES
from puzzleproof.models.deathrun import MAX_EDGES, MAX_VERTICES

__all__ = ["cli", "main"]


def _set_max_size(factor: float | None) -> None:
    """``--max-size``: every reader (and every worker process, through the environment)
    multiplies its size limits by ``factor``."""
    if factor is not None:
        os.environ[SIZE_ENV] = repr(factor)


def _puzzle_lines() -> str:
    return "\n".join(f"  {p.name:<10} {p.summary}" for p in registry.all_puzzles())


@click.group(context_settings={"help_option_names": ["-h", "--help"]},
             epilog=EXIT_HELP)
@click.version_option(__version__, prog_name="puzzleproof")
@click.option("--debug", is_flag=True, help="Show tracebacks instead of one-line errors.")
@click.option("--max-size", type=FiniteRange(min=1), default=None, metavar="FACTOR",
              expose_value=False, is_eager=True, callback=lambda _c, _p, v: _set_max_size(v),
              help="Lift the size limits deliberately: multiply them by FACTOR (or set "
                   f"{SIZE_ENV}=FACTOR). A declared size is checked before anything is "
                   "allocated: Skynet N <= 500 nodes, L <= 1000 links, E <= 20 gateways "
                   f"(CodinGame's); Hashi width and height <= {HASHI_MAX_SIDE}; city closing "
                   f"<= {MAX_CITIES:,} cities, {CITY_MAX_LINKS:,} links; Death Run <= "
                   f"{MAX_VERTICES:,} vertices, {MAX_EDGES:,} links.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Solve puzzles and small games exactly, prove the answers, and judge the heuristic
    solvers and bots people run.

    \b
    Every verb has the same shape: puzzleproof VERB [PUZZLE] INPUTS... (the puzzle is
    inferred from the inputs when it is not named; a folder may mix puzzles).
    Inputs are files, folders, globs, '-' for stdin, FILE#N for one record of a set,
    or a string such as a Tatham game ID or a puzz.link URL.

    \b
    Examples:
      puzzleproof crosscheck instances/                 # every shipped instance, judged
      puzzleproof solve instances/hashi/small-5x5.txt --unique
      puzzleproof solve skynet ../shared/instances/skynet/ep2/ --all-starts
      puzzleproof check puzzle.txt bot-output.txt       # judge a bot's answer
      puzzleproof skynet referee map.txt --all-starts --bot-cmd 'mine=python3 bot.py'
      puzzleproof render instances/hashi/small-5x5.txt --solve -o small.svg
    """
    ctx.obj = {**(ctx.obj or {}), "debug": debug}


for _verb in (solve_group, check_group, render_group, crosscheck_group, generate_group,
              convert_group):
    cli.add_command(_verb)

# each puzzle registers its own subcommands (and game-specific groups) on import
for _info in registry.all_puzzles():
    _module = registry.load_ref(_info.cli)
    for _group in getattr(_module, "GROUPS", ()):
        cli.add_command(_group)

from puzzleproof.cli.report import report_command  # noqa: E402 - every puzzle's runs

cli.add_command(report_command)

cli.help = inspect.cleandoc(cli.help or "") + "\n\n\b\nPuzzles:\n" + _puzzle_lines()


def _stdout_closed() -> None:
    """rich's answer to a reader that went away (``| head``) is ``SystemExit(1)``: the
    exit code would then depend on how much of the output was read. End as the other
    writes to a closed pipe do (:func:`main`'s ``BrokenPipeError``)."""
    raise BrokenPipeError


_common.out.on_broken_pipe = _stdout_closed  # type: ignore[method-assign]


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
        say(f"puzzleproof: error: {exc}")
        return 2
    except click.exceptions.Abort:
        say("interrupted")
        return 130
    except click.ClickException as exc:
        exc.show()
        return 2 if exc.exit_code == 2 else exc.exit_code
    except KeyboardInterrupt:
        say("interrupted")
        return 130
    except BrokenPipeError:
        try:  # stdout is gone: keep Python from complaining about it at exit
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        return 0
    except RecursionError:
        if debug:
            raise
        say("puzzleproof: error: the input is nested too deeply")
        return 2
    except Exception as exc:  # a bug of ours: one line, the traceback only with --debug
        if debug:
            raise
        say(f"puzzleproof: internal error: {type(exc).__name__}: {exc} (rerun with --debug "
            "for the traceback, and please report it)")
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
