"""What every puzzle's commands share: the verb groups, the option vocabulary, reading
inputs through the registry, output (JSON, files that are never overwritten by accident,
progress on stderr) and exit codes.

Exit codes, one rule for every command: 0 done, nothing wrong found; 1 the input was read
but the answer is "no" or "wrong" (a broken rule, a proved INFEASIBLE or LOSS, a lost game, a
disagreement); 2 the input could not be read or the command was misused.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import click
from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn,
                           TextColumn, TimeElapsedColumn, TimeRemainingColumn)
from rich.text import Text

from puzzleproof import puzzles as registry
from puzzleproof.errors import InputError
from puzzleproof.formats import read_source, write_atomic

err = Console(stderr=True, highlight=False)
#: tables on stdout: as wide as they need when piped (no cut at 80 columns)
out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 200)

EXIT_HELP = ("Exit codes: 0 done, nothing wrong found; 1 the input was read but the answer "
             "is 'no' or 'wrong' (a broken rule, a proved INFEASIBLE or LOSS, a lost game, a "
             "disagreement); 2 the input could not be read or the command was misused.")


def say(message: str) -> None:
    """One message for a person on stderr, never wrapped (a script may grep it)."""
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 turn``, ``2 turns``."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


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
    if not force and p.is_file():
        raise InputError("exists; pass --force to overwrite it, or choose another output",
                         output)


def deliver(text: str | bytes, output: str | None, force: bool = False,
            what: str = "") -> None:
    """Write ``text`` whole to ``output`` (atomically; never over an existing file without
    ``force``), or to stdout when there is none."""
    if output and output != "-":
        check_output(output, force)
        write_atomic(output, text)
        say(f"wrote {output}{what}")
    elif isinstance(text, bytes):
        sys.stdout.buffer.write(text)
    else:
        sys.stdout.write(text)


class RateColumn(ProgressColumn):
    """Tasks finished per second (per minute when slower)."""

    def render(self, task) -> Text:
        speed = task.finished_speed or task.speed
        if not speed:
            return Text("", style="progress.data.speed")
        text = f"{speed:.1f}/s" if speed >= 1 else f"{speed * 60:.1f}/min"
        return Text(text, style="progress.data.speed")


def progress_bar(disable: bool) -> Progress:
    """The progress bar every batch shows on stderr: done/total, rate, elapsed and time
    left."""
    return Progress(TextColumn("[progress.description]{task.description}"), BarColumn(),
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


def named_commands(values: tuple[str, ...], what: str) -> dict[str, list[str]]:
    """``--bot-cmd NAME=CMD`` (repeatable) -> ``{NAME: argv}``; a value without ``NAME=`` is
    named after its command. A command whose program cannot be found is a usage error."""
    import shlex
    import shutil

    outd: dict[str, list[str]] = {}
    for value in values:
        name, sep, cmd = value.partition("=")
        if sep and not name.strip():
            raise click.UsageError(f"{what} {value!r}: expected NAME=COMMAND, the name is "
                                   "empty")
        if not sep or " " in name.strip():
            name, cmd = "", value
        try:
            argv = shlex.split(cmd)
        except ValueError as exc:
            raise click.UsageError(f"{what} {value!r}: {exc}") from None
        if not argv:
            raise click.UsageError(f"{what} {value!r}: expected NAME=COMMAND")
        if shutil.which(argv[0]) is None:
            raise click.UsageError(f"{what} {value!r}: no program {argv[0]!r} (not on PATH, "
                                   "or not an executable file)")
        name = name.strip() or Path(argv[-1]).stem or argv[0]
        if name in outd:
            raise click.UsageError(f"{what}: the name {name!r} is given twice")
        outd[name] = argv
    return outd


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


def executor_for(jobs: int | None, ctx: click.Context | None = None):
    """The executor the options name (the one line at the edge where local processes or
    Dask is chosen): an :class:`~puzzleproof.executor.ExecutorSpec`."""
    from puzzleproof.executor import ExecutorSpec
    from puzzleproof.procs import cap_jobs

    ctx = ctx or click.get_current_context(silent=True)
    meta = ctx.meta if ctx is not None else {}
    scheduler = meta.get("puzzleproof.scheduler")
    workers = meta.get("puzzleproof.dask_workers")
    if scheduler and workers:
        raise click.UsageError("--scheduler and --dask exclude each other: use an existing "
                               "cluster or start one, not both")
    if scheduler and not str(scheduler).startswith(("tcp://", "tls://", "inproc://", "ws://",
                                                    "wss://", "ucx://")):
        scheduler = f"tcp://{scheduler}"
    # capped here too (the pool caps again), so what the run reports is what it runs
    return ExecutorSpec(jobs=cap_jobs(jobs or cores()), scheduler=scheduler,
                        dask_workers=workers)
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
    listing = "; ".join(f"{m.name} ({'exact' if m.exact else 'heuristic'}: {m.help})"
                        for m in info.methods)
    return _opt("--method", "--methods", "--solver", "method", default=default,
                show_default=default is not None, metavar="NAME[,NAME...]" if multiple else "NAME",
                help=("Methods by name, comma-separated: " if multiple else "Method: ") + listing
                + ".")


def count_option(default: int, what: str) -> Callable:
    return _opt("-n", "--count", type=click.IntRange(1), default=default, show_default=True,
                help=f"How many {what}.")


def cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


# -- reading inputs through the registry --------------------------------------------------

@dataclass
class Gathered:
    """Instances of one puzzle found in the inputs, the files skipped (with why), and the
    inputs that could not be read."""

    loaded: list[registry.Loaded] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    errors: list[tuple[str, InputError]] = field(default_factory=list)

    def say_skipped(self, quiet: bool = False) -> None:
        if self.skipped and not quiet:
            kinds: dict[str, int] = {}
            for _, why in self.skipped:
                kinds[why] = kinds.get(why, 0) + 1
            say("skipped " + ", ".join(f"{plural(n, 'file')} ({why})"
                                       for why, n in sorted(kinds.items())))


def _walk(folder: Path) -> list[Path]:
    suffixes = registry.folder_suffixes()
    return sorted(f for f in folder.rglob("*") if f.is_file() and f.suffix.lower() in suffixes
                  and not registry.is_not_instance_name(f)
                  and not any(part.startswith(".") for part in f.relative_to(folder).parts))


def _is_path(arg: str, test: str) -> bool:
    """``Path(arg).is_dir()`` (or ``is_file``, ``exists``), False for a string that cannot be
    a file name (a Tatham game ID longer than the system allows: ENAMETOOLONG)."""
    try:
        return getattr(Path(arg), test)()
    except (OSError, ValueError):
        return False


def _split_record(arg: str) -> tuple[str, int | None]:
    """``set.jsonl#3`` names the third record of ``set.jsonl`` (as tables print it)."""
    base, sep, k = arg.rpartition("#")
    if sep and k.isdigit() and k.isascii() and len(k) < 10 and _is_path(base, "is_file"):
        return base, int(k)
    return arg, None


def expand(args: tuple[str, ...] | list[str]) -> list[tuple[str, bool]]:
    """Arguments -> ``(path or literal, came from a folder walk)``: folders are walked
    (sorted), glob patterns expanded."""
    import glob

    found: list[tuple[str, bool]] = []
    for arg in args:
        if arg == "":
            raise InputError("an empty argument; expected a file, a folder or a puzzle")
        p = Path(arg)
        if any(ch in arg for ch in "*[") and not _is_path(arg, "exists"):
            hits = sorted(h for h in glob.glob(arg, recursive=True) if Path(h).is_file())
            if not hits:
                raise InputError("the pattern matches no file", arg)
            found += [(h, False) for h in hits]
        elif _is_path(arg, "is_dir"):
            files = _walk(p)
            if not files:
                raise InputError("the folder holds no puzzle files (looked for "
                                 f"{', '.join(registry.folder_suffixes())})", arg)
            found += [(str(f), True) for f in files]
        else:
            found.append((arg, False))
    return found


def read_arg(arg: str, only: str | None, options: dict | None = None
             ) -> registry.Classified:
    """Read one argument (file, ``-``, literal, ``file#N``) and classify it."""
    base, record = _split_record(arg)
    text, source, _ = read_source(base)
    c = registry.classify_text(text, source, only, options)
    if record is not None:
        if not c.is_instance:
            raise InputError(f"is {c.what}, not a set of instances", base)
        if not 1 <= record <= len(c.loaded):
            raise InputError(f"record #{record} does not exist (the file holds "
                             f"{len(c.loaded)}, numbered from 1)", base)
        c.loaded = [c.loaded[record - 1]]
    return c


def gather(args, puzzle: str, options: dict | None = None, strict: bool = True) -> Gathered:
    """The instances of ``puzzle`` in ``args``. Files of other puzzles met in a folder walk
    are skipped and said; a file named on the command line that is not an instance of
    ``puzzle`` is an error (``strict``), or skipped (several puzzles in one run)."""
    g = Gathered()
    info = registry.get(puzzle)
    opts = {info.name: dict(options or {})}
    for arg, walked in expand(args):
        try:
            c = read_arg(arg, None, opts)
        except InputError as exc:
            mine = _claims(arg, info) or getattr(exc, "guess", None) == info.name
            if walked and not mine:
                g.skipped.append((arg, "read by no puzzle"))
                continue
            try:  # name the puzzle's own complaint when the file is likely this puzzle's
                c = read_arg(arg, info.name, opts)
            except InputError as exc2:
                g.errors.append((arg, exc2 if strict else exc))
                continue
        if c.puzzle != info.name or not c.is_instance:
            if c.is_instance and c.puzzle is not None:
                what = f"{registry.get(c.puzzle).title} instances"
            else:
                what = c.what
            if walked or not strict:
                g.skipped.append((arg, what))
            else:
                g.errors.append((arg, InputError(f"is {_article(what)}, not "
                                                 f"{_article(info.title)} instance", arg)))
            continue
        g.loaded += c.loaded
    return g


def _claims(path: str, info: registry.PuzzleInfo) -> bool:
    """A file whose ending only this puzzle uses (``.has``) is its, even when broken."""
    suffix = Path(path).suffix.lower()
    others = {s for p in registry.all_puzzles() if p.name != info.name for s in p.suffixes}
    return suffix in info.suffixes and suffix not in others


def _owner(path: str) -> str | None:
    """The one puzzle whose files end like ``path`` (``.has``: hashi), if only one does."""
    suffix = Path(path).suffix.lower()
    owners = [p.name for p in registry.all_puzzles() if suffix in p.suffixes]
    return owners[0] if len(owners) == 1 else None


def _article(what: str) -> str:
    if what.startswith(("a ", "an ")):  # 'a skynet game record' already has its article
        return what
    if what.endswith("s") and not what.endswith("ss") and " " in what:
        return what
    return ("an " if what[:1].lower() in "aeiou" else "a ") + what


def detect_puzzles(args: list[str]) -> tuple[list[str], list[str]]:
    """The puzzles of the instances in ``args`` (in registry order), and the problems met
    (inputs no puzzle reads), for inferring the puzzle of a verb."""
    found: set[str] = set()
    problems: list[str] = []
    for arg, walked in expand(args):
        try:
            c = read_arg(arg, None)
        except InputError as exc:
            # a broken file that is most likely one puzzle's goes to that puzzle, whose own
            # reader then says precisely what is wrong
            owner = getattr(exc, "guess", None) or _owner(arg)
            if owner and not walked:
                found.add(owner)
            elif not walked:
                problems.append(str(exc))
            continue
        if c.puzzle and (c.is_instance or not walked):
            # an instance, or a file the project wrote for one puzzle named on the command
            # line (a game record, a strategy: 'check RECORD', 'render RECORD')
            found.add(c.puzzle)
    return [p for p in registry.names() if p in found], problems


def _options_for(cmd: click.Command, args: list[str], takes_value: set[str]
                 ) -> tuple[list[str], list[str]]:
    """``args`` without the options ``cmd`` does not know (each dropped with its value when
    the option takes one), and the names dropped: in a mixed run, ``--time-limit`` means
    nothing to a puzzle whose command has no such option."""
    known: set[str] = set()
    for param in cmd.params:
        if isinstance(param, click.Option):
            known.update(param.opts)
            known.update(param.secondary_opts)
    known.update(("-h", "--help"))
    kept: list[str] = []
    dropped: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a.startswith("-") and a != "-" and a != "--":
            name = a.split("=", 1)[0]
            if name not in known:
                dropped.append(name)
                skip = name in takes_value and "=" not in a
                continue
        kept.append(a)
    return kept, dropped


# -- verbs: 'VERB [PUZZLE] INPUTS...' -----------------------------------------------------

class PuzzleVerb(click.Group):
    """A verb whose subcommands are puzzles. Without a puzzle name, the puzzle is inferred
    from the inputs; when they hold several puzzles, each puzzle's command runs in turn on
    its own instances (the exit code is the worst of theirs)."""

    #: verbs that take no inputs to infer from (generate) say so
    needs_puzzle = False

    def get_command(self, ctx: click.Context, name: str):  # aliases: 'solve bridges'
        try:
            name = registry.get(name).name
        except KeyError:
            pass
        return super().get_command(ctx, name)

    def _value_options(self) -> set[str]:
        takes: set[str] = set()
        for cmd in self.commands.values():
            for param in cmd.params:
                if isinstance(param, click.Option) and not param.is_flag and not param.count:
                    takes.update(param.opts)
                    takes.update(param.secondary_opts)
        return takes

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or args[0] in ("-h", "--help") or self.get_command(ctx, args[0]):
            return super().parse_args(ctx, args)
        if self.needs_puzzle:
            raise click.UsageError(f"name the puzzle: {ctx.command_path} "
                                   f"{{{','.join(self.commands)}}} ...", ctx)
        takes = self._value_options()
        inputs, skip = [], False
        for a in args:
            if skip:
                skip = False
            elif a.startswith("-") and a != "-":
                skip = a in takes and "=" not in a
            else:
                inputs.append(a)
        if not inputs:
            raise click.UsageError(f"give the puzzle and its inputs: {ctx.command_path} "
                                   f"{{{','.join(self.commands)}}} INPUTS...", ctx)
        found, problems = detect_puzzles(inputs[:1] if self.name in ("check", "render")
                                         else inputs)
        found = [p for p in found if p in self.commands]
        if not found:
            raise InputError(problems[0] if problems else
                             f"no instance of {', '.join(self.commands)} found in "
                             f"{' '.join(inputs)}; name the puzzle "
                             f"({ctx.command_path} PUZZLE ...)")
        ctx.meta["puzzleproof.several"] = found if len(found) > 1 else None
        return super().parse_args(ctx, [found[0], *args])

    def invoke(self, ctx: click.Context):
        several = ctx.meta.get("puzzleproof.several")
        if not several:
            return super().invoke(ctx)
        rest = list(ctx.protected_args[1:] + ctx.args) if hasattr(ctx, "protected_args") \
            else list(ctx.args[1:])
        worst = 0
        takes = self._value_options()
        # for scripts stdout holds JSON only: the puzzles' headers go to stderr, and --json
        # is still one object (each puzzle's under "parts")
        scripted = "--json" in rest or "--jsonl" in rest
        with one_json({"type": ctx.info_name, "puzzles": list(several)}, "--json" in rest):
            for k, name in enumerate(several):
                cmd = self.get_command(ctx, name)
                if k and not scripted:
                    out.print("")
                header = f"== {registry.get(name).title} =="
                say(header) if scripted else out.print(header, markup=False)
                args, dropped = _options_for(cmd, rest, takes)
                if dropped:
                    say(f"note: {', '.join(dict.fromkeys(dropped))} "
                        f"{'does' if len(set(dropped)) == 1 else 'do'} not apply to "
                        f"{registry.get(name).title}; ignored there")
                with ctx:
                    sub = cmd.make_context(name, args, parent=ctx)
                    sub.meta["puzzleproof.mixed"] = True
                    try:
                        with sub:
                            cmd.invoke(sub)
                        code = 0
                    except Exit as e:
                        code = e.code
                if code == 130:
                    raise Exit(130)
                worst = max(worst, code)
        raise Exit(worst)


def mixed(ctx: click.Context | None = None) -> bool:
    """True when this command runs as one puzzle of several in the same inputs."""
    ctx = ctx or click.get_current_context()
    return bool(ctx.meta.get("puzzleproof.mixed"))


@click.group(name="solve", cls=PuzzleVerb)
def solve_group() -> None:
    """Solve exactly, with the answer checked: 'solve [PUZZLE] INPUTS...'.

    The puzzle is inferred from the inputs when it is not named. Exit 0 solved (or WIN),
    1 a proved INFEASIBLE or LOSS or a failed check, 2 unreadable input.
    """


@click.group(name="check", cls=PuzzleVerb)
def check_group() -> None:
    """Check an answer written by anything else: 'check [PUZZLE] INSTANCE ANSWER'.

    Hashi: a solution (CodinGame lines or JSON). Skynet: a strategy certificate (its
    rule and start are read from the file). Exit 0 it holds, 1 it breaks a rule,
    2 it cannot be read.
    """


@click.group(name="render", cls=PuzzleVerb)
def render_group() -> None:
    """Draw an instance, alone or with an answer or game on it: 'render [PUZZLE] INPUT'.

    With -o the picture goes to the file (.svg or .png); without, a text picture (Hashi) or the
    SVG (maps) goes to stdout.
    """


@click.group(name="crosscheck", cls=PuzzleVerb)
def crosscheck_group() -> None:
    """Run exact methods and heuristics on the same instances and report every
    disagreement with its evidence: 'crosscheck [PUZZLE] INPUTS...'.

    A folder may hold several puzzles: each gets its own table. Exit 1 if any
    disagreement (or an unconfirmed finding) is found, 0 if none.
    """


@click.group(name="generate", cls=PuzzleVerb)
def generate_group() -> None:
    """Make new instances that are hard in a stated, measured way: 'generate PUZZLE'."""


generate_group.needs_puzzle = True  # type: ignore[attr-defined]


@click.group(name="convert", cls=PuzzleVerb)
def convert_group() -> None:
    """Convert an instance between formats: 'convert [PUZZLE] INPUT --format NAME'."""
