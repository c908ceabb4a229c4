"""``crosscheck [PUZZLE] INPUTS...``, written once: the output file is checked before any
work (absent, or ``--resume`` / ``--force``), external programs' names and commands are
checked when the options are read, the inputs read, and the puzzle's cross-check run with a
progress display and the executor the options name; its page is printed (or its summary
under ``--json``) and its code is the exit code (1 a disagreement, 130 interrupted)."""

from __future__ import annotations

from typing import Any

import click

from puzzleproof.command.output import (Exit, emit, executor_for, mixed, named_commands,
                                        progress_bar, say, short)
from puzzleproof.command.build import inputs_of, make_command, reader_options, rows_for
from puzzleproof.command.runs import finish, prepare_output
from puzzleproof.errors import UsageError
from puzzleproof.puzzles.base import CrosscheckEnv, Params
from puzzleproof.puzzles.options import (FORCE, JSON, JSONL, OUTPUT, QUIET, RESUME, WHERE,
                                         program_limits)

__all__ = ["build"]

SHARED = (OUTPUT.but(help="JSONL file that receives one record per instance and method as "
                          "soon as it exists, and the disagreements."),
          FORCE, RESUME, *WHERE, JSON, JSONL.but(help="Stream every record on stdout as it "
                                                    "comes, then the summary, one JSON object "
                                                    "a line (scripts)."), QUIET)


def build(plugin: Any) -> click.Command:
    spec = plugin.crosscheck
    rows = rows_for(SHARED, spec.options, plugin.reader.options)
    inputs = click.argument("inputs", nargs=-1, required=not spec.inputs_optional)
    return make_command(plugin.name, spec.help, [inputs], rows,
                        lambda p, ctx: run(plugin, p, ctx))


def run(plugin: Any, p: Params, ctx: click.Context) -> None:
    spec = plugin.crosscheck
    if p.as_json and p.as_jsonl:
        raise UsageError("give --json or --jsonl, not both")
    if "bot_cmds" in p:
        p["externals"] = named_commands(tuple(p.bot_cmds or ()), "--bot-cmd",
                                        taken=[m.name for m in plugin.methods],
                                        limits=program_limits(p),
                                        puzzle=plugin.name if mixed(ctx) else None)
    if spec.prepare is not None:
        spec.prepare(p)
    target = prepare_output(p, plugin.name, "crosscheck")
    g = _gather(plugin, p, ctx)
    skipped = g.skipped_text()
    if skipped and not mixed(ctx):  # a mixed run says them once, for every puzzle
        say(skipped)
    for _, exc in g.errors:
        say(f"puzzleproof: error: {exc}")
    if not g.loaded and (p.inputs or not spec.inputs_optional):
        raise Exit(2)  # nothing could be read: no table, and no empty -o file left behind
    with progress_bar(p.quiet or p.as_json) as progress:
        bar = progress.add_task("cross-checking", total=None)

        def tick(done: int, total: int | None, label: str) -> None:
            progress.update(bar, completed=done, total=total,
                            description=f"cross-checking {short(label, 40)}")

        env = CrosscheckEnv(executor_for(p.jobs, ctx), target, bool(p.resume), tick,
                            bool(p.quiet), echo=emit if p.as_jsonl else None)
        outcome = spec.run(g.loaded, p, env)
    code = outcome.exit_code
    code = 130 if code == 130 else max(code, 2 if g.errors else 0)
    finish(plugin.name, "crosscheck", outcome.record, outcome.page, code, target,
           p.as_json or p.as_jsonl)
    raise Exit(code)


def _gather(plugin: Any, p: Params, ctx: click.Context) -> Any:
    """The instances of the inputs (none when they may be left out and are)."""
    from puzzleproof.puzzles.inputs import Gathered

    if not p.inputs and plugin.crosscheck.inputs_optional:
        return Gathered()
    return inputs_of(ctx).gather(p.inputs, plugin, reader_options(plugin, p),
                                 strict=not mixed(ctx))
