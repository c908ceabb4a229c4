"""The Python API: the command's jobs as functions over the same puzzle plugins, answering
what the command answers.

Instances may be given as model objects (a :class:`~puzzleproof.models.hashi.Puzzle`, a
:class:`~puzzleproof.models.skynet.SkynetMap`, a :class:`~puzzleproof.models.cityclose.
CityMap`, a Death Run :class:`~puzzleproof.models.deathrun.Graph`) or as anything the
command reads (a path, a Tatham game ID, a puzz.link URL); the puzzle is inferred through
the registry when not named. Answers may be given as the objects a method returns (a list
of bridges, a strategy, an order) or as paths; nothing is written to disk for them.

Options are the command's, by their Python names, checked by the same rows (ranges,
choices): a value the command refuses is refused here. A list is welcome where the command
takes a comma-separated list (``method=["sat", "article"]``). What only a terminal needs
(``--json``, ``-q``, ``--show``, ``-o``, ``--force``) is not an option here. Where work
runs is ``executor=``: a number of local processes, the address of a Dask scheduler
(``"tcp://HOST:8786"``), or an :class:`~puzzleproof.executor.ExecutorSpec`.
:func:`options` lists every option of a verb for a puzzle, with its help.

Example:
    >>> import puzzleproof
    >>> res = puzzleproof.solve("3x3m2:3a3c2a2", unique=True)
    >>> res.status.value, res.check["ok"]
    ('MULTIPLE', True)
    >>> puzzleproof.check("3x3m2:3a3c2a2", res.answer).ok
    True
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator, Sequence

from puzzleproof import puzzles as registry
from puzzleproof.errors import InputError, UsageError
from puzzleproof.instance import Loaded
from puzzleproof.puzzles.base import CrosscheckEnv, Outcome, Params, Picture
from puzzleproof.result import Result

__all__ = ["load", "solve", "check", "render", "convert", "crosscheck", "generate", "hunt",
           "options", "params_for", "CLI_ONLY"]

#: the options only a terminal needs: the API has none of them
CLI_ONLY = frozenset({"as_json", "as_jsonl", "quiet", "show", "ascii_only", "output",
                      "out_format", "force", "resume", "jobs", "scheduler", "dask_workers",
                      "bot_cmds"})

_VERBS = ("solve", "check", "render", "convert", "crosscheck", "generate")


def load(source: Any, puzzle: str | None = None) -> tuple[str, list[Loaded]]:
    """``(puzzle name, instances)`` from a path or literal; a model object passes through
    (its puzzle is the one whose reader's type it is, or ``puzzle``)."""
    from puzzleproof.puzzles.inputs import Inputs

    if not isinstance(source, str):
        plugin = _plugin_of_object(source, puzzle)
        return plugin.name, [Loaded(getattr(source, "name", None) or plugin.noun, source)]
    c = Inputs().read(source, registry.get(puzzle).name if puzzle else None)
    if not c.is_instance or c.puzzle is None:
        raise InputError(f"is {c.what}, not an instance", source)
    return c.puzzle, c.loaded


def _plugin_of_object(obj: Any, puzzle: str | None) -> Any:
    from puzzleproof.method import load_ref

    if puzzle:
        return registry.get(puzzle)
    for p in registry.all_puzzles():
        kind = p.reader.instance_type
        if kind is not None and isinstance(obj, load_ref(kind)):
            return p
    raise TypeError(f"expected a path, a puzzle string or a model object, found "
                    f"{type(obj).__name__} (name the puzzle with puzzle=)")


def options(verb: str, puzzle: str) -> list[dict[str, Any]]:
    """Every option ``verb`` takes for ``puzzle`` in the API: its Python name, the command's
    flag, its default and its help."""
    plugin = registry.get(puzzle)
    return [{"name": o.name, "flag": o.flags[0], "default": o.default, "help": o.help}
            for o in _rows(plugin, _spec(plugin, verb))]


def params_for(rows: Sequence[Any], given: dict[str, Any], what: str) -> Params:
    """The option values of a verb from keyword arguments: each checked by its row (type,
    range, choices), the rows' defaults for the others; an unknown name is a TypeError
    naming the known ones. A list given for a comma-separated option is joined."""
    named = {o.name: o for o in rows}
    unknown = sorted(set(given) - set(named))
    if unknown:
        raise TypeError(f"{what} takes no option {', '.join(map(repr, unknown))}; it takes "
                        f"{', '.join(sorted(named))}")
    p = Params({name: o.default for name, o in named.items()})
    for name, value in given.items():
        row = named[name]
        if isinstance(value, (list, tuple)) and row.kind == "str" and not row.multiple:
            value = ",".join(map(str, value))
        try:
            p[name] = row.convert(value)
        except ValueError as exc:
            raise UsageError(f"{name}: {exc}") from None
    return p


def _rows(plugin: Any, spec: Any) -> list[Any]:
    """A verb's option rows for the API: the puzzle's own and its reader's, without what
    only a terminal needs."""
    rows: dict[str, Any] = {}
    for row in [*spec.options, *plugin.reader.options]:
        if row.name not in CLI_ONLY:
            rows.setdefault(row.name, row)
    return list(rows.values())


def _spec(plugin: Any, verb: str) -> Any:
    if verb not in _VERBS:
        raise ValueError(f"unknown verb {verb!r}; expected one of {', '.join(_VERBS)}")
    spec = {"solve": plugin.solve, "check": plugin.check, "render": plugin.render,
            "convert": plugin.convert, "crosscheck": plugin.crosscheck,
            "generate": plugin.generate}[verb]
    if spec is None:
        raise UsageError(f"{plugin.title} has no {verb}")
    return spec


def _given(source: Any, puzzle: str | None) -> tuple[Any, str, Any]:
    """``(plugin, the argument to hand the spec, inputs)``: a model object stands for its
    argument in the inputs, nothing written to disk."""
    from puzzleproof.puzzles.inputs import Inputs

    name, loaded = load(source, puzzle)
    plugin = registry.get(name)
    inputs = Inputs()
    if isinstance(source, str):
        return plugin, source, inputs
    inputs.give("<instance>", loaded[0], plugin.name)
    return plugin, "<instance>", inputs


def solve(source: Any, *, puzzle: str | None = None, **options: Any) -> Result:
    """Solve one instance (or one task: a Skynet map and its start) with the puzzle's
    ``solve`` (``method=`` a method by name, ``time_limit=`` seconds); the answer is checked
    by the rules before it is returned (``Result.check``)."""
    name, loaded = load(source, puzzle)
    plugin = registry.get(name)
    spec = _spec(plugin, "solve")
    p = params_for(_rows(plugin, spec), options, "solve")
    if spec.prepare is not None:
        spec.prepare(p)
    tasks = spec.tasks(loaded, p)
    if len(tasks) != 1:
        raise InputError(f"holds {len(tasks)} tasks; solve() answers one (name one with "
                         f"FILE#N, or pass start=)")
    with spec.session(p) as session:
        return spec.run(tasks[0], p, session)


def check(source: Any, answer: Any, *, puzzle: str | None = None, **options: Any) -> Outcome:
    """Judge ``answer`` on ``source`` by the rules: ``answer`` is a path, or the answer
    itself as the command's answer file holds it (a list of bridges, a strategy or an order
    as a dict or list). An :class:`~puzzleproof.puzzles.base.Outcome` (``ok``, the record,
    the page)."""
    plugin, arg, inputs = _given(source, puzzle)
    spec = _spec(plugin, "check")
    p = params_for(_rows(plugin, spec), options, "check")
    if isinstance(answer, str) and Path(answer).exists():
        ans = answer
    else:
        ans = "<answer>"
        inputs.give(ans, answer if isinstance(answer, str) else json.dumps(answer))
    return spec.check((arg, ans) if spec.nargs[1] >= 2 else (ans,), p, inputs)


def render(source: Any, *, puzzle: str | None = None, kind: str | None = None,
           **options: Any) -> Picture:
    """A picture of one instance (``kind``: one the puzzle draws, ``svg`` by default)."""
    plugin, arg, inputs = _given(source, puzzle)
    spec = _spec(plugin, "render")
    p = params_for(_rows(plugin, spec), options, "render")
    return spec.render(arg, kind or ("svg" if "svg" in spec.kinds else spec.default_kind),
                       p, inputs)


def convert(source: Any, fmt: str, *, puzzle: str | None = None, **options: Any) -> str:
    """The instance written in the format ``fmt`` (one the puzzle's ``convert`` writes)."""
    plugin, arg, inputs = _given(source, puzzle)
    spec = _spec(plugin, "convert")
    if fmt not in spec.formats:
        raise UsageError(f"format {fmt!r}: expected one of {', '.join(spec.formats)}")
    p = params_for(_rows(plugin, spec), options, "convert")
    return spec.write(arg, fmt, p, inputs)[0]


def _executor(executor: Any) -> Any:
    """An :class:`~puzzleproof.executor.ExecutorSpec` from a number of processes, a Dask
    scheduler's address, or a spec."""
    from puzzleproof.executor import ExecutorSpec, as_spec

    if isinstance(executor, str):
        address = executor if "://" in executor else f"tcp://{executor}"
        return ExecutorSpec(scheduler=address)
    return as_spec(executor)


def crosscheck(sources: Sequence[Any], *, puzzle: str | None = None, executor: Any = 1,
               output: str | None = None, programs: dict[str, str] | None = None,
               **options: Any) -> Outcome:
    """Cross-check the puzzle's methods (``method=[...]``) and ``programs`` (name ->
    command, each judged as ``--bot-cmd NAME=CMD`` judges it) on instances of one puzzle:
    an :class:`~puzzleproof.puzzles.base.Outcome` whose record is the ``--json`` summary and
    whose ``exit_code`` is the command's; ``output`` keeps the JSONL records."""
    from puzzleproof.games.program import Program
    from puzzleproof.puzzles.options import program_limits

    loaded: list[Loaded] = []
    names = set()
    for src in sources:
        n, ls = load(src, puzzle)
        names.add(n)
        loaded += ls
    if len(names) != 1:
        raise InputError(f"the instances belong to {len(names)} puzzles; cross-check one at "
                         "a time")
    plugin = registry.get(names.pop())
    spec = _spec(plugin, "crosscheck")
    p = params_for(_rows(plugin, spec), options, "crosscheck")
    limits = program_limits(p)
    p["externals"] = {name: Program.parse(f"{name}={cmd}", limits)
                      for name, cmd in (programs or {}).items()}
    if spec.prepare is not None:
        spec.prepare(p)
    env = CrosscheckEnv(_executor(executor), Path(output) if output else None)
    return spec.run(loaded, p, env)


def generate(puzzle: str, *, executor: Any = 1, **options: Any) -> Iterator[Any]:
    """Generated instances (:class:`~puzzleproof.puzzles.base.Generated`: the instance's
    files or line, and its record: the evidence of hardness), as the generator keeps them."""
    plugin = registry.get(puzzle)
    spec = _spec(plugin, "generate")
    p = params_for(_rows(plugin, spec), options, "generate")
    if spec.prepare is not None:
        spec.prepare(p)
    return (g for g in spec.generate(p, _executor(executor), lambda n, k: None)
            if not isinstance(g, str))


def hunt(puzzle: str, program: str, *, count: int = 1, seed: int = 0,
         time_limit: float = 60.0, executor: Any = 1, **options: Any
         ) -> Iterator[dict[str, Any]]:
    """The smallest instances on which ``program`` (``"NAME=COMMAND"``; for Death Run a
    bot file, ``student="FILE.py"``) fails, as ``generate --bot-cmd`` finds them: each a
    breaker's evidence (``NAME.breaker.json``'s object, with ``instance_text``)."""
    from puzzleproof.clock import Deadline
    from puzzleproof.games.program import Program
    from puzzleproof.generate.hunt import breaker_document, breaker_name
    from puzzleproof.generate.hunt import hunt as run_hunt

    plugin = registry.get(puzzle)
    spec = _spec(plugin, "generate")
    if spec.hunter is None:
        raise UsageError(f"{plugin.title} has no hunt")
    p = params_for(_rows(plugin, spec), options, "hunt")
    p["program"] = Program.parse(program) if program else None
    hunter = spec.hunter(p)
    if hunter is None:
        raise UsageError("name the program to hunt")
    who = {"name": p.program.name, "command": list(p.program.command)} if p.program else \
        {"name": Path(hunter.bot.split(":")[0]).stem, "file": hunter.bot}
    for k, b in enumerate(run_hunt(hunter, count=count, seed=seed,
                                   deadline=Deadline(time_limit),
                                   jobs=_executor(executor)), 1):
        name = breaker_name(plugin.name, who["name"], b, k)
        text, ending = hunter.files(b.instance, name)
        yield {**breaker_document(hunter, b, who, name, name + ending), "instance_text": text}
