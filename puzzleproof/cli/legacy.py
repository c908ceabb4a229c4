"""The commands of the puzzles not yet on the plugin verbs, as they were: their option
decorators, input helpers and verb groups (collectors the plugin verbs read). Removed when
the last puzzle's commands move to its plugin."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import click

from puzzleproof import puzzles as registry
from puzzleproof.cli.common import (Exit, check_output, cores, deliver, emit, err, executor_for,
                                    mixed, named_commands, one_json, out, plural, progress_bar,
                                    say, short, split_names)
from puzzleproof.errors import InputError
from puzzleproof.formats import read_source

# -- the option vocabulary ----------------------------------------------------------------

class FiniteRange(click.FloatRange):
    """A :class:`click.FloatRange` of finite numbers: ``inf`` would switch a limit off (a
    move timeout of ``inf`` waited for a sleeping program forever) and ``nan`` lies within
    every range (it reached the code as an internal error)."""

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        rv = super().convert(value, param, ctx)
        if not math.isfinite(rv):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return rv


#: The longest time limit or timeout the options take: about 11.6 days (a larger one is a
#: typo, or a way to switch the limit off that the tool does not offer).
MAX_SECONDS = 1e6
#: The type of every option in seconds: more than 0, at most :data:`MAX_SECONDS`.
SECONDS = FiniteRange(0, MAX_SECONDS, min_open=True)


def _opt(*decls, **kw) -> Callable:
    return click.option(*decls, **kw)


def output_option(help_text: str) -> Callable:
    return _opt("-o", "--output", type=click.Path(dir_okay=False), default=None,
                help=help_text + " Never overwrites an existing file unless --force.")


force_option = _opt("--force", is_flag=True, help="Overwrite the -o file if it exists.")
json_option = _opt("--json", "as_json", is_flag=True, help="Print one JSON object (scripts).")
jsonl_option = _opt("--jsonl", "as_jsonl", is_flag=True,
                    help="Print one JSON record a line, each with a 'type' field (scripts).")
quiet_option = _opt("-q", "--quiet", is_flag=True, help="No progress bar on stderr.")
resume_option = _opt("--resume", is_flag=True,
                     help="Continue the run recorded in -o: skip what is done, add the rest.")
seed_option = _opt("--seed", type=int, default=0, show_default=True,
                   help="Seed of every random choice (same seed, same output).")
_jobs = _opt("-j", "--jobs", type=click.IntRange(1), default=None,
             help="Local processes for a batch (default: the number of cores; at most 4 "
                  "per core and one per task).")


def _keep_executor(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    if value is not None:
        ctx.meta[f"puzzleproof.{param.name}"] = value
    return value


_scheduler = _opt("--scheduler", metavar="tcp://HOST:8786", default=None, expose_value=False,
                  callback=_keep_executor,
                  help="Run the batch on the Dask cluster whose scheduler is at this "
                       "address (started with 'dask scheduler' and 'dask worker').")
_dask = _opt("--dask", "dask_workers", type=click.IntRange(1), default=None,
             metavar="N", expose_value=False, callback=_keep_executor,
             help="Run the batch on a local Dask cluster of N worker processes, started "
                  "for it and torn down at its end.")


def jobs_option(f: Callable) -> Callable:
    """``-j/--jobs N``, ``--scheduler ADDRESS`` and ``--dask N``: where every batch runs
    (:func:`executor_for` reads them)."""
    return _jobs(_scheduler(_dask(f)))


move_timeout_option = _opt("--move-timeout", "--turn-timeout", "move_timeout",
                           type=SECONDS, default=None,
                           help="Seconds an external program or bot file has per move "
                                "(Skynet default 0.15, as CodinGame).")
init_timeout_option = _opt("--init-timeout", "--first-turn-timeout", "init_timeout",
                           type=SECONDS, default=None,
                           help="Seconds for an external program's start-up and first move "
                                "(Skynet default 1).")


def time_limit_option(default: float | None = None, what: str = "per instance") -> Callable:
    return _opt("--time-limit", type=SECONDS, default=default,
                show_default=default is not None,
                help=f"Seconds {what}; when they run out the answer is UNKNOWN, naming "
                     "the limit.")


def method_option(puzzle: str, default: str | None, multiple: bool = False) -> Callable:
    info = registry.get(puzzle)
    listing = "; ".join(f"{m.name} ({m.kind}: {m.summary})"
                        for m in info.methods)
    return _opt("--method", "--methods", "--solver", "method", default=default,
                show_default=default is not None, metavar="NAME[,NAME...]" if multiple else "NAME",
                help=("Methods by name, comma-separated: " if multiple else "Method: ") + listing
                + ".")


def count_option(default: int, what: str) -> Callable:
    return _opt("-n", "--count", type=click.IntRange(1), default=default, show_default=True,
                help=f"How many {what}.")




class _Verb:
    """Collects a verb's legacy commands by puzzle (``@solve_group.command(name=...)``)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.commands: dict[str, click.Command] = {}

    def command(self, name: str, **kw: Any) -> Callable:
        def deco(f: Callable) -> click.Command:
            cmd = click.command(name=name, **kw)(f)
            self.commands[name] = cmd
            return cmd
        return deco


solve_group = _Verb("solve")
check_group = _Verb("check")
render_group = _Verb("render")
crosscheck_group = _Verb("crosscheck")
generate_group = _Verb("generate")
convert_group = _Verb("convert")
VERBS = {v.name: v for v in (solve_group, check_group, render_group, crosscheck_group,
                             generate_group, convert_group)}


@dataclass
class Gathered:
    loaded: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    errors: list = field(default_factory=list)

    def say_skipped(self, quiet: bool = False) -> None:
        from puzzleproof.puzzles.inputs import Gathered as G

        text = G(self.loaded, self.skipped, self.errors).skipped_text()
        if text and not quiet:
            say(text)


def _inputs():
    from puzzleproof.cli.verbs.build import inputs_of

    ctx = click.get_current_context(silent=True)
    if ctx is None:
        from puzzleproof.puzzles.inputs import Inputs

        return Inputs()
    return inputs_of(ctx)


def gather(args, puzzle: str, options: dict | None = None, strict: bool = True) -> Gathered:
    g = _inputs().gather(args, registry.get(puzzle), options, strict)
    return Gathered(g.loaded, g.skipped, g.errors)


def read_arg(arg: str, only: str | None, options: dict | None = None):
    return _inputs().read(arg, only, options)
