"""One interface for every puzzle: the :class:`PuzzlePlugin` protocol and the pieces a plugin
is made of.

A puzzle is one object. It says who it is (name, title, aliases), how to recognise and read
its files, which methods answer it (callables, each exact, heuristic or external, with the
options it takes), and, per shared verb, the puzzle's part of that verb: a
:class:`SolveSpec` for ``solve``, a :class:`CheckSpec` for ``check``, and so on. Each verb
itself (reading the inputs, options, progress, records, output files, JSON, exit codes) is
written once, in :mod:`puzzleproof.cli.verbs`, over these specs, and the Python API
(:mod:`puzzleproof.api`) calls the same specs; a puzzle without a verb leaves its spec None.

Built-in and third-party puzzles are found the same way, through the entry-point group
``puzzleproof.puzzles`` (see :mod:`puzzleproof.puzzles` and ``docs/ADDING_A_PUZZLE.md``).

A spec's callables receive a :class:`Params` (the verb's option values by Python name, as the
command or the API gave them, converted and range-checked by the rows of
:mod:`puzzleproof.puzzles.options`) and return plain data: a :class:`~puzzleproof.result.Result`,
a record (a JSON-able dict), or a :class:`Page` of lines and tables for a person, which the
command prints (stdout for data, stderr for notes).
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import (TYPE_CHECKING, Any, Callable, ContextManager, Iterable, Iterator, Mapping,
                    Protocol, Sequence, runtime_checkable)

import click

from puzzleproof.errors import InputError, UsageError
from puzzleproof.clock import Deadline
from puzzleproof.instance import Loaded
from puzzleproof.method import KINDS, Method, load_ref
from puzzleproof.puzzles.options import Opt
from puzzleproof.result import Result, Status

if TYPE_CHECKING:
    from puzzleproof.executor import ExecutorSpec

__all__ = ["KINDS", "Method", "Params", "Task", "Page", "Outcome", "Picture", "Generated",
           "SolveSpec", "CheckSpec", "RenderSpec", "ConvertSpec", "CrosscheckEnv",
           "CrosscheckSpec",
           "GenerateSpec", "ReportSpec", "PuzzlePlugin", "Plugin", "Reader", "load_ref"]

class Inputs(Protocol):
    """What a verb hands a spec to read its arguments with, so that each file is read once
    (:class:`puzzleproof.puzzles.inputs.Inputs`, or objects the Python API gives)."""

    def one(self, arg: str, puzzle: "PuzzlePlugin", options: dict | None,
            verb: str) -> Loaded:
        """The one instance ``arg`` holds, read by ``puzzle``'s reader, else an
        :class:`~puzzleproof.errors.InputError` naming it."""

    def text(self, arg: str) -> tuple[str, str]:
        """The text of the file ``arg`` (an answer, a record) and the name to call it by."""


class Params(dict):
    """Option values by Python name (``p.time_limit`` or ``p["time_limit"]``); a name the
    verb does not have reads as None."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self.get(name)

    def deadline(self) -> Deadline:
        """A new deadline from ``--time-limit`` (made when a task starts)."""
        return Deadline(self.get("time_limit"))


@dataclass
class Task:
    """One unit of a verb's work: an instance (a Skynet map *and a start*), named as tables
    and records show it. ``source`` is the Loaded it came from."""

    name: str
    instance: Any
    source: Loaded | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def reference(self) -> Any:
        return None if self.source is None else self.source.reference


class Page:
    """What a verb shows a person, in order: lines and tables for stdout, notes for stderr,
    and raw text written to stdout as it is (a solution in a program's format)."""

    def __init__(self) -> None:
        self.items: list[tuple[str, Any]] = []

    def line(self, text: str = "") -> "Page":
        self.items.append(("out", text))
        return self

    def table(self, table: Any) -> "Page":
        """A ``rich.table.Table`` (or any renderable the console prints)."""
        self.items.append(("table", table))
        return self

    def note(self, text: str) -> "Page":
        self.items.append(("err", text))
        return self

    def raw(self, text: str) -> "Page":
        self.items.append(("raw", text))
        return self

    def extend(self, other: "Page | None") -> "Page":
        if other is not None:
            self.items.extend(other.items)
        return self

    def notes_only(self) -> "Page":
        """The notes alone: what still goes to stderr when stdout holds a record (--json)."""
        kept = Page()
        kept.items = [(k, v) for k, v in self.items if k == "err"]
        return kept

    def text(self) -> str:
        """The stdout lines as plain text (tables rendered without colour), for tests and
        the API."""
        from rich.console import Console

        console = Console(width=200, record=True, color_system=None, file=_Null())
        for kind, item in self.items:
            if kind in ("out", "table"):
                console.print(item, markup=False) if kind == "out" else console.print(item)
            elif kind == "raw":
                console.print(item, end="", markup=False)
        return console.export_text()


class _Null:
    def write(self, _text: str) -> int:
        return 0

    def flush(self) -> None:
        pass


@dataclass
class Outcome:
    """What a check (or any verb that judges) found: ``ok``, the record scripts read (its
    ``type``, ``schema_version`` and ``puzzle`` are added by the verb), and the page a person
    reads. ``code`` overrides the exit code (0 when ok, else 1)."""

    ok: bool
    record: dict[str, Any]
    page: Page
    code: int | None = None

    @property
    def exit_code(self) -> int:
        return self.code if self.code is not None else (0 if self.ok else 1)


@dataclass
class Picture:
    """A drawing: ``data`` is text (SVG, a text picture) or bytes (PNG), None when there
    is nothing to draw (the notes say why); ``ok`` False when what is drawn breaks a rule
    (the title says so) or nothing is drawn: ``render`` then exits 1."""

    data: str | bytes | None
    kind: str
    ok: bool = True
    notes: list[str] = field(default_factory=list)


@dataclass
class Generated:
    """One generated instance: its name, the line a stream of them holds (JSONL, or one ID a
    line), the files a folder of them holds (``{file name: text}``: the instance and its
    evidence; the first is the instance), its record (the evidence of hardness) and the
    note said on stderr when it is kept (``{path}`` stands for where it was written)."""

    name: str
    record: dict[str, Any]
    line: str | None = None
    files: dict[str, str] = field(default_factory=dict)
    note: str = ""


# -- the verbs' puzzle parts --------------------------------------------------------------

def _one_task_each(loaded: Sequence[Loaded], p: Params) -> list[Task]:
    return [Task(ld.name, ld.instance, ld) for ld in loaded]


def _solve_failed(task: Task, res: Result) -> bool:
    return not res.check_ok or res.status in (Status.INFEASIBLE, Status.LOSS)


@dataclass
class SolveSpec:
    """``solve``: the tasks of the inputs, how one is solved (checked by the rules before it
    is returned), its record, and the pages that show one answer or a table of them.

    ``table(rows, p, errors)`` shows a batch (``errors``: the inputs that could not be
    read, each already said on stderr). ``show_one`` None: even a single answer is shown as
    a table. ``write`` gives the -o file
    of a single answer (``(text, what)``, or None with a reason said on stderr); a batch
    writes its records as JSONL. ``failed`` says which answers make the exit code 1."""

    help: str
    options: tuple[Opt, ...]
    run: Callable[[Task, Params, object], Result]
    table: Callable[[list[tuple[Task, Result]], Params, list], Page]
    record: Callable[[Task, Result, Params, bool], dict]
    tasks: Callable[[Sequence[Loaded], Params], list[Task]] = _one_task_each
    prepare: Callable[[Params], None] | None = None
    notes: Callable[[list[Task], Params], list[str]] | None = None
    session: Callable[[Params], ContextManager] = lambda p: nullcontext()
    show_one: Callable[[Task, Result, Params], Page] | None = None
    write: Callable[[Task, Result, Params],
                    tuple[str | bytes | Iterable[str], str] | None] | None = None
    failed: Callable[[Task, Result, Params], bool] = lambda t, r, p: _solve_failed(t, r)
    describe: Callable[[Task, Params], str] = lambda t, p: t.name
    #: inputs may be left out (Death Run's --seed names a generated graph)
    inputs_optional: bool = False
    inputs_name: str = "INPUTS"
    #: what one task is called in counts ("start" for a Skynet map and start)
    task_noun: str = ""
    #: what ``-o`` of one answer may hold (``--format``; the first is the default; ``write``
    #: reads ``p.out_format``)
    formats: tuple[str, ...] = ("json",)


@dataclass
class CheckSpec:
    """``check``: judge an answer written by anything else. ``check(args, p, inputs)`` reads
    its arguments (``arguments`` names them for the help: ``INSTANCE ANSWER``, or game records
    that carry their instance) through ``inputs`` (:class:`~puzzleproof.puzzles.inputs.Inputs`,
    so an instance is read by the puzzle's reader once) and says what holds."""

    help: str
    options: tuple[Opt, ...]
    check: Callable[[Sequence[str], Params, Inputs], Outcome]
    arguments: str = "INSTANCE ANSWER"
    nargs: tuple[int, int] = (2, 2)


@dataclass
class RenderSpec:
    """``render``: a picture of one input (and what the options put on it), of one of
    ``kinds`` (``svg``, ``png``, ``text``, ``ascii``): the kind -o's ending or ``--format``
    asks for, else ``default_kind``."""

    help: str
    options: tuple[Opt, ...]
    render: Callable[[str, str, Params, Inputs], Picture]
    kinds: tuple[str, ...] = ("svg",)
    default_kind: str = "svg"
    argument: str = "INSTANCE"


@dataclass
class ConvertSpec:
    """``convert``: the instance(s) of one input written in one of ``formats``:
    ``write(arg, fmt, p, inputs) -> (text, what was written)``."""

    help: str
    options: tuple[Opt, ...]
    formats: tuple[str, ...]
    write: Callable[[str, str, Params, Inputs], tuple[str, str]]
    argument: str = "INSTANCE"


@dataclass
class CrosscheckEnv:
    """What the ``crosscheck`` verb hands a puzzle's cross-check: where tasks run
    (``executor``: a number of processes or an
    :class:`~puzzleproof.executor.ExecutorSpec`), the JSONL file records go to (checked
    before: absent, or ``resume``), and ``progress(done, total, label)`` for the display."""

    executor: Any
    target: Any = None
    resume: bool = False
    progress: Callable[[int, int | None, str], None] = lambda d, t, label: None
    quiet: bool = False
    #: every record the run appends, as it comes (``--jsonl``: on stdout too)
    echo: Callable[[dict], None] | None = None


@dataclass
class CrosscheckSpec:
    """``crosscheck``: the exact methods next to the heuristics and external programs.

    ``run(loaded, p, env)`` does the puzzle's part and returns an :class:`Outcome` (its
    record is the ``--json`` summary); ``env`` is the verb's :class:`CrosscheckEnv` (the
    executor, the progress display, the output file, the shared harness runner), so a
    puzzle whose methods answer one instance each plugs the harness in
    (:meth:`CrosscheckEnv.harness`) and a game puzzle runs its tournament."""

    help: str
    options: tuple[Opt, ...]
    run: Callable[[Sequence[Loaded], Params, CrosscheckEnv], Outcome]
    prepare: Callable[[Params], None] | None = None
    #: inputs may be left out (Death Run then plays on seeded contest graphs)
    inputs_optional: bool = False


@dataclass
class GenerateSpec:
    """``generate``: ``generate(p, executor, on_attempt)`` yields :class:`Generated`
    instances as they are kept (and strings: notes for stderr, such as a defect found on the
    way); the verb writes them as ``layout(p)`` says: ``"lines"`` (stdout, or a file of
    lines written whole at the end), ``"folder"`` (-o FOLDER, each instance's files) or
    ``"file"`` (-o FILE, one instance). ``expected(p)`` is how many should be kept (fewer:
    exit 1 with ``shortfall``); None when the mode makes a fixed set."""

    help: str
    options: tuple[Opt, ...]
    generate: Callable[[Params, "ExecutorSpec | int", Callable[[int, int], None]],
                       Iterator[Generated | str]]
    layout: Callable[[Params], str] = lambda p: "lines"
    prepare: Callable[[Params], None] | None = None
    expected: Callable[[Params], int | None] = lambda p: p.count
    shortfall: str = "raise --max-attempts"
    what: str = "kept"
    output_help: str = "A file (a stream of lines) or a folder (one file an instance)."
    #: the hunt for instances that break a user's program (``--bot-cmd``): the puzzle's
    #: :class:`~puzzleproof.generate.hunt.Hunter` for the options' program (``p.program``),
    #: or None when the options ask for the puzzle's own generation instead
    hunter: Callable[[Params], Any] | None = None
    #: whether the hunt judges a program (``--bot-cmd NAME=CMD``); False where the puzzle
    #: hunts with its own options instead (Death Run's bot files, ``--student FILE.py``)
    hunts_programs: bool = True
    #: a kept breaker's hunter and instance from its evidence and instance file
    #: (``from_evidence(settings, program, text, source)``), so that ``check`` re-judges it
    rebuild: Callable[..., tuple[Any, Any]] | str | None = None


@dataclass
class ReportSpec:
    """``report``: the puzzle's sections of a cross-check report (drawn disagreements, its
    own tables), the size of an instance for the plots, and the word for that size."""

    sections: Callable[[list[dict], Any], list[Any]] | None = None
    draw: Callable[[dict, list[dict], Any, Any], list[Any]] | None = None
    size: Callable[[Any, dict], int | None] | None = None
    size_name: str = "size"
    #: how a record's instance name maps to the instance's own name (Skynet: map@start)
    instance_key: Callable[[str], str] = lambda name: name
    #: the puzzle's own kinds of run (Death Run games, generated sets): {record type:
    #: (title, sections(records, path))}
    runs: Mapping[str, tuple[str, Callable[[list[dict], str], list[Any]]]] = \
        field(default_factory=dict)
    #: the fields each line of the puzzle's own kinds of run must have: {record type:
    #: {field: type}} (a line without them is an unreadable run)
    line_fields: Mapping[str, Mapping[str, type | tuple]] = field(default_factory=dict)
    #: the puzzle's own counts of a run (its summary records' ``counts``) in words, as the
    #: terminal's last line and the report say them: {name: words}
    count_words: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Reader:
    """How a puzzle's files are recognised and read.

    ``read(text, source, **options) -> [Loaded]`` (a callable, or ``"module:function"``
    imported when first used) raises :class:`~puzzleproof.errors.InputError` naming the
    file, line and what was expected; ``options`` are the rows of its options (``--input-format``),
    given to every verb that reads. ``sniff(text, source)`` refuses at once a text that
    cannot be this puzzle's (None: every text is tried). A file's ending decides first
    (``suffixes``), then ``priority`` (higher wins) between two puzzles that both read a
    text.
    ``limits`` says the sizes the reader enforces, in words (for ``--max-size``'s help).
    ``written``: the kinds of file the project writes that verbs read back (``{kind: what
    it is}``). ``instance_type`` is the model type of an instance (the API takes such
    objects) and ``write(instance)`` its text as a file the reader reads back.
    ``samples`` names files that show what the puzzle reads, for the tests of hostile input
    and limits (paths from the project's root, ``shared/...`` for
    ``../shared/instances/...``): ``"instances"`` (one of each format), ``"check"``
    (``[instance or None, answer]`` pairs), ``"written"`` and ``"hardest"`` (the shipped
    instance every method is timed on)."""

    read: Callable[..., list[Loaded]] | str
    suffixes: tuple[str, ...] = (".json",)
    sniff: Callable[[str, str], bool] | None = None
    options: tuple[Opt, ...] = ()
    priority: int = 0
    limits: str = ""
    written: Mapping[str, str] = field(default_factory=dict)
    instance_type: type | str | None = None
    write: Callable[[Any], str] | None = None
    samples: Mapping[str, Any] = field(default_factory=dict)


@runtime_checkable
class PuzzlePlugin(Protocol):
    """What every puzzle provides, and everything the package reads of it (see the module
    docstring). Built-in puzzles are :class:`Plugin` objects; a third-party one may be any
    object with these members."""

    name: str
    title: str
    summary: str
    noun: str
    aliases: tuple[str, ...]
    rank: int
    reader: Reader
    methods: tuple[Method, ...]
    default_methods: tuple[str, ...]
    solve: SolveSpec | None
    check: CheckSpec | None
    render: RenderSpec | None
    convert: ConvertSpec | None
    crosscheck: CrosscheckSpec | None
    generate: GenerateSpec | None
    report: ReportSpec | None
    prepare: Callable[[], dict[str, Any]] | str | None
    commands: tuple[click.Command, ...]

    def read(self, text: str, source: str, **options: Any) -> list[Loaded]: ...

    def sniff(self, text: str, source: str) -> bool: ...

    def method(self, name: str) -> Method: ...


@dataclass
class Plugin:
    """A puzzle as one object (see :class:`PuzzlePlugin`): who it is (``name``, ``title``,
    ``summary``, ``noun``: what one instance is called, ``aliases``, ``rank``: its place in
    listings and mixed runs), how its files are read (:class:`Reader`), the methods that
    answer it, and its part of each verb (None: the puzzle has no such verb).

    ``prepare`` is what ``puzzleproof prepare`` does for the puzzle once after installing,
    so that no first run pays for it (compiling and caching code): ``() -> {"done": str,
    "seconds": float}``; ``commands`` are the puzzle's own verbs, as Click commands or
    groups (a group of a name another puzzle also gives, such as ``plot``, is merged)."""

    name: str
    title: str
    summary: str
    reader: Reader
    noun: str = "instance"
    aliases: tuple[str, ...] = ()
    rank: int = 100
    methods: tuple[Method, ...] = ()
    default_methods: tuple[str, ...] = ()
    solve: SolveSpec | None = None
    check: CheckSpec | None = None
    render: RenderSpec | None = None
    convert: ConvertSpec | None = None
    crosscheck: CrosscheckSpec | None = None
    generate: GenerateSpec | None = None
    report: ReportSpec | None = None
    prepare: Callable[[], dict[str, Any]] | str | None = None
    commands: tuple[click.Command, ...] = ()

    def read(self, text: str, source: str, **options: Any) -> list[Loaded]:
        return load_ref(self.reader.read)(text, source, **options)

    def sniff(self, text: str, source: str) -> bool:
        return True if self.reader.sniff is None else bool(self.reader.sniff(text, source))

    def method(self, name: str) -> Method:
        for m in self.methods:
            if m.name == name:
                return m
        raise KeyError(name)

    def method_names(self, kind: str | None = None) -> list[str]:
        return [m.name for m in self.methods if kind is None or m.kind == kind]


def resolve_methods(plugin: PuzzlePlugin, value: str | None, allowed: Sequence[str] | None = None,
                    default: Sequence[str] | None = None) -> list[str]:
    """``"a,b"`` -> ``["a", "b"]``, each a method of the puzzle (and of ``allowed``, when
    given), else a :class:`UsageError` naming the known ones."""
    known = list(allowed) if allowed is not None else [m.name for m in plugin.methods]
    names = [x.strip() for x in (value or "").split(",") if x.strip()]
    if not names:
        return list(default if default is not None else plugin.default_methods)
    bad = [x for x in names if x not in known]
    if bad:
        raise UsageError(f"unknown method {', '.join(bad)}; expected one of {', '.join(known)}")
    return list(dict.fromkeys(names))


def one_loaded(loaded: Sequence[Loaded], arg: str, verb: str, what: str = "instances"
               ) -> Loaded:
    """The one instance a verb that takes one was given, or an :class:`InputError`."""
    if len(loaded) != 1:
        raise InputError(f"holds {len(loaded)} {what}; {verb} takes exactly one (name one as "
                         f"{arg}#N)", arg)
    return loaded[0]
