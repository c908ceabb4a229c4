"""The ``puzzleproof`` command: thin over the puzzle plugins and library functions that
return plain dataclasses.

The shared verbs are written once in :mod:`puzzleproof.cli.verbs`, over every plugin the
registry finds (:mod:`puzzleproof.puzzles`); a puzzle's own game verbs (``skynet play``,
``deathrun tournament``, ``plot``) come from the module its plugin names.
"""

from __future__ import annotations

import inspect
import logging
import os
import sys

import click

from puzzleproof import __version__
from puzzleproof import puzzles as registry
from puzzleproof.command import output as _common
from puzzleproof.command.output import (EXIT_HELP, INTERNAL_ERROR, Exit, say,
                                        stdout_carries_data)
from puzzleproof.cli.verbs import verb_groups
from puzzleproof.errors import PuzzleproofError
from puzzleproof.formats.numbers import SIZE_ENV

__all__ = ["cli", "main"]


class _Notes(logging.Handler):
    """The package's notes (warnings of the ``puzzleproof`` logger) as one line each on the
    stderr of the moment."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(f"puzzleproof: note: {record.getMessage()}\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass


def _show_notes() -> None:
    log = logging.getLogger("puzzleproof")
    if not any(isinstance(h, _Notes) for h in log.handlers):
        log.addHandler(_Notes())
        log.propagate = False


_show_notes()


def _set_max_size(factor: float | None) -> None:
    """``--max-size``: every reader (and every worker process, through the environment)
    multiplies its size limits by ``factor``."""
    if factor is not None:
        os.environ[SIZE_ENV] = repr(factor)


def _puzzle_lines() -> str:
    return "\n".join(f"  {p.name:<10} {p.summary}" for p in registry.all_puzzles())


def _limits_help() -> str:
    return "; ".join(p.reader.limits for p in registry.all_puzzles() if p.reader.limits)


def _max_size(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is None:
        return
    try:
        factor = float(value)
    except ValueError:
        factor = float("nan")
    if not (1 <= factor <= 1e6):  # nan and inf fail too
        raise click.BadParameter(f"expected a factor, a number in the range 1 to 1,000,000, "
                                 f"found {value!r}", ctx, param)
    _set_max_size(factor)


@click.group(context_settings={"help_option_names": ["-h", "--help"]},
             epilog=EXIT_HELP)
@click.version_option(__version__, prog_name="puzzleproof")
@click.option("--debug", is_flag=True, help="Show tracebacks instead of one-line errors.")
@click.option("--max-size", default=None, metavar="FACTOR",
              expose_value=False, is_eager=True, callback=_max_size,
              help="Lift the size limits deliberately: multiply them by FACTOR, from 1 to "
                   f"1,000,000 (or set {SIZE_ENV}=FACTOR). A declared size is checked before "
                   "anything is allocated: " + _limits_help() + ".")
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
      puzzleproof solve skynet instances/skynet/ep2/ --all-starts
      puzzleproof check puzzle.txt bot-output.txt       # judge a bot's answer
      puzzleproof skynet referee map.txt --all-starts --bot-cmd 'mine=python3 bot.py'
      puzzleproof render instances/hashi/small-5x5.txt --solve -o small.svg
    """
    ctx.obj = {**(ctx.obj or {}), "debug": debug}


for _verb in verb_groups():
    cli.add_command(_verb)


def add_puzzle_commands(root: click.Group, plugins: list) -> None:
    """Each puzzle's own verbs (skynet play/referee, deathrun play/tournament, plot) into
    ``root``. Two puzzles may each give a group of one name (``plot``): their subcommands
    are merged into the first; a plain command whose name is taken is said once and left
    out (a shared verb keeps its name)."""
    for plugin in plugins:
        for cmd in plugin.commands:
            have = root.commands.get(cmd.name)
            if have is None:
                root.add_command(cmd)
            elif isinstance(have, click.Group) and isinstance(cmd, click.Group) \
                    and have is not cmd:
                for sub in cmd.commands.values():
                    have.add_command(sub)
            elif have is not cmd:
                say(f"puzzleproof: note: the puzzle {plugin.name!r} gives a command "
                    f"{cmd.name!r}, a name already taken; it is left out")


add_puzzle_commands(cli, registry.all_puzzles())

from puzzleproof.cli.report import report_command  # noqa: E402 - every puzzle's runs

cli.add_command(report_command)

from puzzleproof.cli.prepare import prepare_command  # noqa: E402 - every puzzle's set-up

cli.add_command(prepare_command)

cli.help = inspect.cleandoc(cli.help or "") + "\n\n\b\nPuzzles:\n" + _puzzle_lines()


def _stdout_closed() -> None:
    """rich's answer to a reader that went away (``| head``) is ``SystemExit(1)``: the
    exit code would then depend on how much of the output was read. End as the other
    writes to a closed pipe do (:func:`main`'s ``BrokenPipeError``)."""
    raise BrokenPipeError


_common.out.on_broken_pipe = _stdout_closed  # type: ignore[method-assign]


def _lower_first(text: str) -> str:
    """Click's messages start a sentence ('No such option'); ours continue one."""
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


#: a command given nothing (click >= 8.2; before it the help is printed by click itself)
_NO_ARGS = getattr(click.exceptions, "NoArgsIsHelpError", ())


def main(argv: list[str] | None = None) -> int:
    """Run the command; return its exit code (never a traceback unless ``--debug``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    external: list[str] = []
    if "--" in args:  # an external program's command line ('skynet referee MAP -- prog ...')
        k = args.index("--")
        args, external = args[:k], args[k + 1:]
    debug = "--debug" in args
    stdout_carries_data(False)  # a command says so when it does (in-process runs: afresh)
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
    except _NO_ARGS as exc:  # nothing given: the help, as asked (click 8.2 raises it)
        if exc.ctx is not None:
            click.echo(exc.ctx.get_help())
        return 2
    except click.UsageError as exc:  # misuse: one line, and where the help is
        ctx = exc.ctx
        where = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        say(f"puzzleproof: error: {_lower_first(exc.format_message()).rstrip('.')}{where}")
        return 2
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
        return INTERNAL_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
