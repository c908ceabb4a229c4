"""What every command shares: output (pages for people on stdout, notes on stderr, JSON for
scripts, files that are never overwritten by accident, progress on stderr), exit codes, and
where a batch runs.

Exit codes, one rule for every command: 0 done, nothing wrong found; 1 the input was read
but the answer is "no" or "wrong" (a broken rule, a proved INFEASIBLE or LOSS, a lost game, a
disagreement, a program broken); 2 the input could not be read or the command was misused;
3 an internal error (a bug of ours); 130 interrupted.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import click
from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn,
                           TextColumn, TimeElapsedColumn, TimeRemainingColumn)
from rich.text import Text

from puzzleproof.errors import InputError
from puzzleproof.games.program import DEFAULT_LIMITS, Limits, Program
from puzzleproof.formats import write_atomic
from puzzleproof.puzzles.inputs import plural  # noqa: F401 - the commands' word-counter

err = Console(stderr=True, highlight=False)
#: tables on stdout: as wide as they need when piped (no cut at 80 columns)
out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 200)

EXIT_HELP = ("Exit codes: 0 done, nothing wrong found; 1 the input was read but the answer "
             "is 'no' or 'wrong' (a broken rule, a proved INFEASIBLE or LOSS, a lost game, a "
             "disagreement, a program broken); 2 the input could not be read or the command "
             "was misused; 3 an internal error (a bug of ours: please report it); 130 "
             "interrupted.")
#: the exit code of an internal error (a bug of ours), apart from every answer's
INTERNAL_ERROR = 3


#: whether stdout carries data (``-o -``, ``--json``, ``--jsonl``, a converted instance):
#: then every line for a person goes to stderr, and a script can parse stdout as it is
_stdout_is_data = [False]


def stdout_carries_data(on: bool = True) -> None:
    """Say that this command's stdout carries data (see :func:`people`)."""
    _stdout_is_data[0] = on


def people() -> Console:
    """Where lines and tables for a person go: stdout, or stderr when stdout carries
    data."""
    return err if _stdout_is_data[0] else out


def say(message: str) -> None:
    """One message for a person on stderr, never wrapped (a script may grep it)."""
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


class Exit(Exception):
    """Leave the command with a code, after output has been written."""

    def __init__(self, code: int) -> None:
        self.code = code


_parts: list[list[Any]] = []  # the objects held by open one_json() blocks


def emit(obj: Any) -> None:
    """One JSON value on stdout, on one line (held back inside :func:`one_json`)."""
    if _parts:
        _parts[-1].append(obj)
        return
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


@contextlib.contextmanager
def one_json(head: dict[str, Any], active: bool = True) -> Iterator[None]:
    """``--json`` promises one object: the objects a command's parts emit in the block are
    printed as one when it ends, however it ends - the only one as it is, several as
    ``{**head, "parts": [...]}`` in their order. Inactive (``active=False``): a no-op."""
    if not active:
        yield
        return
    parts: list[Any] = []
    _parts.append(parts)
    try:
        yield
    finally:
        _parts.pop()
        if len(parts) == 1:
            emit(parts[0])
        elif parts:
            emit({**head, "parts": parts})


def short(name: str, width: int = 48) -> str:
    """``name`` cut from the left with an ellipsis, so the file's end stays readable."""
    return name if len(name) <= width else "…" + name[-(width - 1):]


def check_output(output: str | None, force: bool) -> None:
    """Refuse an existing output file unless ``--force`` (say so before any work). A
    folder is refused always; a FIFO or device (``-o /dev/null``) is written into, never
    replaced, so it needs no ``--force``."""
    if not output or output == "-":
        return
    p = Path(output)
    if p.is_dir():
        raise InputError("is a folder; expected a file to write", output)
    if not p.parent.is_dir():
        raise InputError("cannot write the output: its folder does not exist", output)
    if not force and p.is_file():
        raise InputError("exists; pass --force to overwrite it, or choose another output",
                         output)


def deliver(text: str | bytes | Iterable[str], output: str | None, force: bool = False,
            what: str = "") -> None:
    """Write ``text`` whole to ``output`` (atomically; never over an existing file without
    ``force``), or to stdout when there is none. ``text`` may come in chunks (an iterable
    of strings), written as they come."""
    if output and output != "-":
        check_output(output, force)
        write_atomic(output, text)
        say(f"wrote {output}{what}")
    elif isinstance(text, bytes):
        sys.stdout.buffer.write(text)
    elif isinstance(text, str):
        sys.stdout.write(text)
    else:
        for chunk in text:
            sys.stdout.write(chunk)


class RateColumn(ProgressColumn):
    """Tasks finished per second (per minute when slower)."""

    def render(self, task) -> Text:
        speed = task.finished_speed or task.speed
        if not speed:
            return Text("", style="progress.data.speed")
        text = f"{speed:.1f}/s" if speed >= 1 else f"{speed * 60:.1f}/min"
        return Text(text, style="progress.data.speed")


class _Bar(Progress):
    """rich's progress bar, silent when disabled: before rich 15 a bar ended with an empty
    line on a console that is not a terminal, even a disabled one (stderr must stay empty
    when there is nothing to say)."""

    def stop(self) -> None:
        if self.disable:
            self.live.stop()
            return
        super().stop()


def progress_bar(disable: bool) -> Progress:
    """The progress bar every batch shows on stderr (a terminal's): done/total, rate,
    elapsed and time left."""
    return _Bar(TextColumn("[progress.description]{task.description}"), BarColumn(),
                    MofNCompleteColumn(), RateColumn(), TimeElapsedColumn(),
                    TimeRemainingColumn(), console=err,
                    disable=disable or not err.is_terminal, transient=True)


def split_names(value: str | None, known, what: str) -> list[str]:
    """``"a,b"`` -> ``["a", "b"]``, each one of ``known``, else a usage error."""
    names = [x.strip() for x in (value or "").split(",") if x.strip()]
    bad = [x for x in names if x not in known]
    if bad:
        raise click.UsageError(f"unknown {what} {', '.join(bad)}; expected one of "
                               f"{', '.join(known)}")
    return names


def named_commands(values: tuple[str, ...], what: str, taken: Sequence[str] = (),
                   limits: Limits = DEFAULT_LIMITS, puzzle: str | None = None
                   ) -> dict[str, Program]:
    """``--bot-cmd NAME=CMD`` (repeatable) -> ``{NAME: Program}``, each with ``limits``
    (:meth:`Program.parse`: a value without ``NAME=`` is named after its command). Checked
    when the options are read, before any work: a name must be a plain word (it names
    records and files), new, and not one of ``taken`` (the puzzle's own methods); the
    program must exist. ``PUZZLE:NAME=CMD`` gives the program to one puzzle only: when the
    command runs as one ``puzzle`` of several in the same inputs, a program not so named is
    refused (which puzzle it plays is not for the tool to guess)."""
    outd: dict[str, Program] = {}
    for value in _for_puzzle(values, what, puzzle):
        try:
            program = Program.parse(value, limits)
        except ValueError as exc:
            raise click.UsageError(f"{what} {exc}") from None
        if program.name in outd:
            raise click.UsageError(f"{what}: the name {program.name!r} is given twice")
        if program.name in taken:
            raise click.UsageError(f"{what} name {program.name!r} is one of the puzzle's own "
                                   "methods; choose another")
        outd[program.name] = program
    return outd


def _for_puzzle(values: tuple[str, ...], what: str, puzzle: str | None) -> list[str]:
    """The values meant for ``puzzle`` (``PUZZLE:NAME=CMD`` names it; ``puzzle`` None: the
    command runs for one puzzle only, and every value is its own)."""
    from puzzleproof import puzzles as registry

    out = []
    for value in values:
        head = value.split("=", 1)[0]
        target, sep, rest = head.partition(":")
        if sep:
            try:
                owner = registry.get(target).name
            except KeyError:
                raise click.UsageError(f"{what} {value!r}: {target!r} is no puzzle") from None
            if puzzle is None or owner == puzzle:
                out.append(value[len(target) + 1:])
        elif puzzle is None:
            out.append(value)
        else:
            raise click.UsageError(f"{what} {value!r}: the inputs hold several puzzles; say "
                                   f"which one the program plays: {what} {puzzle}:{value}")
    return out


def show(page) -> None:
    """Print a :class:`~puzzleproof.puzzles.base.Page`: lines and tables on stdout, notes on
    stderr, raw text as it is; when stdout carries data, everything on stderr."""
    if page is None:
        return
    for kind, item in page.items:
        if kind == "out":
            people().print(item, markup=False)
        elif kind == "table":
            people().print(item)
        elif kind == "raw" and not _stdout_is_data[0]:
            sys.stdout.write(item)
            sys.stdout.flush()
        elif kind == "raw":
            sys.stderr.write(item)
            sys.stderr.flush()
        else:
            say(item)



# -- where batches run ----------------------------------------------------------------

def executor_for(jobs: int | None, ctx: click.Context | None = None):
    """The executor the options name (the one line at the edge where local processes or
    Dask is chosen): an :class:`~puzzleproof.executor.ExecutorSpec`. On Dask every worker
    is prepared at connect as ``puzzleproof prepare`` prepares this machine
    (:func:`prepare_here`)."""
    from puzzleproof.executor import ExecutorSpec
    from puzzleproof.processes import cap_jobs

    ctx = ctx or click.get_current_context(silent=True)
    meta = ctx.meta if ctx is not None else {}
    scheduler = meta.get("puzzleproof.scheduler")
    scheduler_file = meta.get("puzzleproof.scheduler_file")
    workers = meta.get("puzzleproof.dask_workers")
    if sum(map(bool, (scheduler, scheduler_file, workers))) > 1:
        raise click.UsageError("--scheduler, --scheduler-file and --dask exclude each other: "
                               "use an existing cluster or start one, not both")
    if scheduler and not str(scheduler).startswith(("tcp://", "tls://", "inproc://", "ws://",
                                                    "wss://", "ucx://")):
        scheduler = f"tcp://{scheduler}"
    # capped here too (the pool caps again), so what the run reports is what it runs
    return ExecutorSpec(jobs=cap_jobs(jobs or cores()), scheduler=scheduler,
                        scheduler_file=scheduler_file, dask_workers=workers,
                        prepare=prepare_here)


def prepare_here() -> dict[str, Any]:
    """What ``puzzleproof prepare`` does, in this process (a Dask worker, at connect): each
    puzzle's one-off preparation (city closing's compiled loops loaded, or compiled into
    numba's cache where this worker has none yet). Per puzzle, what was done."""
    from puzzleproof import puzzles as registry
    from puzzleproof.method import load_ref

    return {p.name: dict(load_ref(p.prepare)()) for p in registry.all_puzzles()
            if p.prepare is not None}


def cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def mixed(ctx: click.Context | None = None) -> bool:
    """True when this command runs as one puzzle of several in the same inputs."""
    ctx = ctx or click.get_current_context()
    return bool(ctx.meta.get("puzzleproof.mixed"))
