"""``generate PUZZLE``, written once: the puzzle's
:class:`~puzzleproof.puzzles.base.GenerateSpec` yields the instances it keeps; they are
written as they come (a stream on stdout, a file of lines written whole, or a folder of
files, never over an existing file without ``--force``), with progress on stderr. Exit 0
when the asked number was kept, 1 when fewer, 130 interrupted (what was kept is written)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from puzzleproof.command.output import (Exit, check_output, executor_for, named_commands,
                                        plural, progress_bar, say, stdout_carries_data)
from puzzleproof.command.build import make_command, rows_for
from puzzleproof.errors import InputError, UsageError
from puzzleproof.formats import write_atomic
from puzzleproof.puzzles.base import Generated, Params
from puzzleproof.puzzles.options import (BOT_CMD, FORCE, INIT_TIMEOUT, MEMORY_LIMIT,
                                         MOVE_TIMEOUT, OUTPUT, QUIET, TIME_LIMIT, WHERE,
                                         program_limits)

__all__ = ["build"]


#: the rows of a hunt (``--bot-cmd``), for a puzzle that hunts
HUNT_ROWS = (BOT_CMD.but(multiple=False, help="Hunt for the smallest instances on which this "
                         "program fails, NAME=COMMAND: seeded random instances of growing "
                         "size, each failure re-run, then shrunk; each kept with its "
                         "evidence (-o FOLDER: the instance and NAME.breaker.json). Exit 1 "
                         "when one is found, 0 when none."),
             TIME_LIMIT.but(default=60.0, show_default=True, help="Seconds the hunt may "
                            "take; it stops with what it found."),
             INIT_TIMEOUT, MOVE_TIMEOUT, MEMORY_LIMIT)


def build(plugin: Any) -> click.Command:
    spec = plugin.generate
    hunt = HUNT_ROWS if spec.hunts_programs else HUNT_ROWS[1:]  # [0]: --bot-cmd
    shared = (OUTPUT.but(kind="str", metavar="PATH", help=spec.output_help
                         + " Never overwrites an existing file unless --force."),
              FORCE, QUIET, *(hunt + WHERE if spec.hunter is not None else ()))
    rows = rows_for(shared, spec.options)
    return make_command(plugin.name, spec.help, [], rows, lambda p, ctx: run(plugin, p, ctx))


class _Writer:
    """Where kept instances go, as the layout says."""

    def __init__(self, layout: str, p: Params) -> None:
        self.layout, self.force = layout, bool(p.force)
        self.target = Path(p.output) if p.output else None
        self.lines: list[str] = []
        if layout == "lines" and self.target is None:
            stdout_carries_data()  # the instances' lines: every note goes to stderr
        if layout in ("folder", "file") and self.target is None:
            what = "FOLDER" if layout == "folder" else "FILE"
            raise UsageError(f"these instances need -o {what}")
        if layout in ("lines", "file") and self.target is not None:
            check_output(p.output, p.force)
        if layout == "folder":
            if self.target.exists() and not self.target.is_dir():
                raise InputError("is a file, not a folder", str(self.target))
            if not self.target.parent.exists():
                raise InputError("cannot write the output: its folder does not exist",
                                 str(self.target))

    def put(self, g: Generated) -> str:
        """Write one instance; where it went."""
        if self.layout == "lines":
            if self.target is None:
                sys.stdout.write((g.line or "") + "\n")
                sys.stdout.flush()
                return "stdout"
            self.lines.append((g.line or "") + "\n")
            return str(self.target)
        if self.layout == "file":
            write_atomic(self.target, next(iter(g.files.values())))
            return str(self.target)
        self.target.mkdir(exist_ok=True)
        paths = [self.target / name for name in g.files]
        for path in paths:
            if path.exists() and not self.force:
                raise InputError("exists; pass --force to overwrite it, or choose another "
                                 "folder or seed", str(path))
        for path, text in zip(paths, g.files.values()):
            write_atomic(path, text)
        return str(paths[0])

    def close(self) -> None:
        if self.layout == "lines" and self.target is not None and self.lines:
            write_atomic(self.target, "".join(self.lines))


def run(plugin: Any, p: Params, ctx: click.Context) -> None:
    spec = plugin.generate
    if p.get("bot_cmds"):
        p["program"] = next(iter(named_commands((p.bot_cmds,), "--bot-cmd",
                                                limits=program_limits(p)).values()))
    hunter = spec.hunter(p) if spec.hunter is not None else None
    if hunter is not None:
        from click.core import ParameterSource

        if ctx.get_parameter_source("count") in (ParameterSource.DEFAULT, None):
            p["count"] = 1  # a hunt keeps one breaker unless -n asks for more
        return _hunt(plugin, hunter, p, ctx)
    if spec.prepare is not None:
        spec.prepare(p)
    writer = _Writer(spec.layout(p), p)
    expected = spec.expected(p)
    kept, attempts, interrupted = 0, [0], False
    try:
        with progress_bar(p.quiet) as progress:
            bar = progress.add_task(spec.what, total=expected)

            def on_attempt(n: int, k: int) -> None:
                attempts[0] = max(attempts[0], n)
                progress.update(bar, completed=k, description=f"{spec.what} of "
                                f"{plural(attempts[0], 'attempt')}")

            for g in spec.generate(p, executor_for(p.jobs, ctx), on_attempt):
                if isinstance(g, str):
                    say(g)
                    continue
                where = writer.put(g)
                kept += 1
                progress.update(bar, completed=kept)
                if g.note and not p.quiet:
                    say(g.note.replace("{path}", where))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        writer.close()
    _finish(spec, p, kept, attempts[0], expected, writer, interrupted)


def _finish(spec: Any, p: Params, kept: int, attempts: int, expected: int | None,
            writer: _Writer, interrupted: bool) -> None:
    where = f" -> {writer.target}" if writer.target is not None and kept else ""
    say(f"{spec.what} {kept}" + (f" of {plural(attempts, 'attempt')}" if attempts else "")
        + where + ("; interrupted, what was kept is written" if interrupted else ""))
    if interrupted:
        raise Exit(130)
    if expected is not None and kept < expected:
        say(f"puzzleproof: only {kept} of {expected} after {plural(attempts, 'attempt')}; "
            f"{spec.shortfall}")
        raise Exit(1)
    raise Exit(0)


def _hunt(plugin: Any, hunter: Any, p: Params, ctx: click.Context) -> None:
    """The hunt for the program's breakers, the same for every puzzle (see
    :mod:`puzzleproof.generate.hunt`): written as they are found, exit 1 when one is."""
    import json
    import time

    from puzzleproof.clock import Deadline
    from puzzleproof.generate.hunt import breaker_document, breaker_name, hunt

    program = p.program
    writer = _Writer("folder" if p.output else "lines", p)
    t0, kept, attempts = time.monotonic(), 0, [0]
    who = ({"name": program.name, "command": list(program.command),
            "limits": {"first": program.limits.first, "turn": program.limits.turn,
                       "memory_mb": program.limits.memory_mb}} if program is not None
           else {"name": Path(hunter.bot.split(":")[0]).stem, "file": hunter.bot})
    try:
        with progress_bar(p.quiet) as progress:
            bar = progress.add_task("breakers", total=p.count or 1)

            def on_attempt(n: int, k: int) -> None:
                attempts[0] = n
                progress.update(bar, completed=k,
                                description=f"breakers of {plural(n, 'attempt')}")

            for b in hunt(hunter, count=p.count or 1, seed=p.seed or 0,
                          deadline=Deadline(60.0 if p.time_limit is None else p.time_limit),
                          max_attempts=getattr(hunter, "max_attempts", None),
                          jobs=executor_for(p.jobs, ctx), on_attempt=on_attempt):
                kept += 1
                name = breaker_name(plugin.name, who["name"], b, kept)
                text, ending = hunter.files(b.instance, name)
                doc = breaker_document(hunter, b, who, name, name + ending)
                where = writer.put(Generated(name, doc, line=json.dumps(
                    {**doc, "instance_text": text}), files={name + ending: text,
                    name + ".breaker.json": json.dumps(doc, indent=1) + "\n"}))
                if not p.quiet:
                    say(_breaker_line(where, b, plugin.noun))
    except KeyboardInterrupt:
        writer.close()
        say(f"interrupted after {plural(attempts[0], 'attempt')}; "
            f"{plural(kept, 'breaker')} written")
        raise Exit(130)
    writer.close()
    took = time.monotonic() - t0
    if kept:
        say(f"breakers {kept} of {plural(attempts[0], 'attempt')} in {took:.1f} s"
            + (f" -> {writer.target}" if writer.target is not None else ""))
        raise Exit(1)
    say(f"no breaker: {who['name']} held on every one of {plural(attempts[0], 'instance')} "
        f"tried in {took:.1f} s")
    raise Exit(0)


def _breaker_line(where: str, b: Any, noun: str) -> str:
    shrunk = (f"shrunk from {b.original_size} in {plural(b.shrink_steps, 'step')}"
              + ("" if b.locally_minimal else ", the time ran out before it was minimal")
              if not b.intermittent else
              f"INTERMITTENT: it failed {b.failures} of {b.runs} runs, not shrunk")
    return f"{where}: {b.failure.kind}: {b.failure.summary} (size {b.size}; {shrunk})"
