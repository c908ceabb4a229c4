"""The Python API: the command's jobs as functions over the same puzzle plugins, returning
the same data the command prints.

Instances may be given as model objects, or as anything the command reads (a path, a Tatham
game ID, a puzz.link URL); the puzzle is inferred through the registry when not named.
Options are the command's, by their Python names (``unique=True``, ``rule="ep1"``,
``time_limit=5``), checked against the same rows (ranges, choices): a value the command
refuses is refused here too.

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
import tempfile
from pathlib import Path
from typing import Any, Iterator, Sequence

from puzzleproof import puzzles as registry
from puzzleproof.errors import InputError, UsageError
from puzzleproof.instance import Loaded
from puzzleproof.puzzles.base import CrosscheckEnv, Outcome, Params, Picture
from puzzleproof.result import Result

__all__ = ["load", "solve", "check", "crosscheck", "generate", "render", "params_for"]


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
    if puzzle:
        return registry.get(puzzle)
    for p in registry.all_puzzles():
        kind = p.reader.instance_type
        if kind is not None and isinstance(obj, _load_type(kind)):
            return p
    raise TypeError(f"expected a path, a puzzle string or a model object, found "
                    f"{type(obj).__name__} (name the puzzle with puzzle=)")


def _load_type(ref: Any) -> Any:
    from puzzleproof.method import load_ref

    return load_ref(ref)


def params_for(options: Sequence[Any], given: dict[str, Any], what: str) -> Params:
    """The option values of a verb from keyword arguments: each checked by its row (type,
    range, choices), the rows' defaults for the others; an unknown name is a TypeError
    naming the known ones."""
    rows = {o.name: o for o in options}
    unknown = sorted(set(given) - set(rows))
    if unknown:
        raise TypeError(f"{what} takes no option {', '.join(map(repr, unknown))}; it takes "
                        f"{', '.join(sorted(rows))}")
    p = Params({name: o.default for name, o in rows.items()})
    for name, value in given.items():
        try:
            p[name] = rows[name].convert(value)
        except ValueError as exc:
            raise UsageError(f"{name}: {exc}") from None
    return p


def _rows(plugin: Any, spec: Any, shared: Sequence[Any]) -> list[Any]:
    """A verb's option rows as its command has them: the puzzle's own first (a row of the
    same name elsewhere does not replace it), then the shared ones and the reader's."""
    from puzzleproof.puzzles.options import JSON, QUIET

    rows: dict[str, Any] = {}
    for row in [*spec.options, *shared, *plugin.reader.options, QUIET.but(default=True), JSON]:
        rows.setdefault(row.name, row)
    return list(rows.values())


def _spec(plugin: Any, verb: str) -> Any:
    spec = {"solve": plugin.solve, "check": plugin.check, "render": plugin.render,
            "crosscheck": plugin.crosscheck, "generate": plugin.generate}[verb]
    if spec is None:
        raise UsageError(f"{plugin.title} has no {verb}")
    return spec


def solve(source: Any, *, puzzle: str | None = None, **options: Any) -> Result:
    """Solve one instance (or one task: a Skynet map and its start) with the puzzle's
    ``solve`` (``method=`` a heuristic by name, ``time_limit=`` seconds); the answer is
    checked by the rules before it is returned (``Result.check``)."""
    from puzzleproof.puzzles.options import OUTPUT

    name, loaded = load(source, puzzle)
    plugin = registry.get(name)
    spec = _spec(plugin, "solve")
    p = params_for(_rows(plugin, spec, (OUTPUT,)), options, "solve")
    if spec.prepare is not None:
        spec.prepare(p)
    tasks = spec.tasks(loaded, p)
    if len(tasks) != 1:
        raise InputError(f"holds {len(tasks)} tasks; solve() answers one (name one with "
                         f"FILE#N, or pass start=)")
    with spec.session(p) as session:
        return spec.run(tasks[0], p, session)


def check(source: Any, answer: Any, *, puzzle: str | None = None, **options: Any) -> Outcome:
    """Judge ``answer`` (a path, or the answer itself as the command's answer file would
    hold it: a list of bridges, a strategy or order as a dict) on ``source`` by the rules:
    an :class:`~puzzleproof.puzzles.base.Outcome` (``ok``, the record, the page)."""
    from puzzleproof.puzzles.inputs import Inputs

    name, loaded = load(source, puzzle)
    plugin = registry.get(name)
    spec = _spec(plugin, "check")
    p = params_for(_rows(plugin, spec, ()), options, "check")
    with tempfile.TemporaryDirectory() as tmp:
        inst = _as_file(source, loaded, plugin, Path(tmp) / "instance")
        ans = answer if isinstance(answer, str) and Path(answer).exists() else \
            _write(Path(tmp) / "answer.json", json.dumps(answer))
        return spec.check((inst, ans) if spec.nargs[1] >= 2 else (ans,), p, Inputs())


def _as_file(source: Any, loaded: list[Loaded], plugin: Any, path: Path) -> str:
    if isinstance(source, str):
        return source
    writer = plugin.reader.write
    if writer is None:
        raise TypeError(f"pass {plugin.title} instances as files or strings")
    return _write(path, writer(loaded[0].instance))


def _write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def render(source: Any, *, puzzle: str | None = None, kind: str | None = None,
           **options: Any) -> Picture:
    """A picture of one instance (``kind``: one the puzzle draws, ``svg`` by default)."""
    from puzzleproof.puzzles.inputs import Inputs

    name, loaded = load(source, puzzle)
    plugin = registry.get(name)
    spec = _spec(plugin, "render")
    p = params_for(_rows(plugin, spec, ()), options, "render")
    with tempfile.TemporaryDirectory() as tmp:
        arg = _as_file(source, loaded, plugin, Path(tmp) / "instance")
        return spec.render(arg, kind or ("svg" if "svg" in spec.kinds else spec.default_kind),
                           p, Inputs())


def crosscheck(sources: Sequence[Any], *, puzzle: str | None = None, jobs: int = 1,
               output: str | None = None, **options: Any) -> Outcome:
    """Cross-check the puzzle's methods (``method="a,b"``) on instances of one puzzle: an
    :class:`~puzzleproof.puzzles.base.Outcome` whose record is the ``--json`` summary
    (counts per method, disagreements, findings); ``output`` keeps the JSONL records."""
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
    p = params_for(_rows(plugin, spec, ()), options, "crosscheck")
    p.setdefault("externals", {})
    if spec.prepare is not None:
        spec.prepare(p)
    env = CrosscheckEnv(jobs, Path(output) if output else None)
    return spec.run(loaded, p, env)


def generate(puzzle: str, **options: Any) -> Iterator[Any]:
    """Generated instances (:class:`~puzzleproof.puzzles.base.Generated`: the instance's
    files or line, and its record: the evidence of hardness), as the generator keeps them."""
    plugin = registry.get(puzzle)
    spec = _spec(plugin, "generate")
    p = params_for(_rows(plugin, spec, ()), options, "generate")
    if spec.prepare is not None:
        spec.prepare(p)
    return (g for g in spec.generate(p, p.get("jobs") or 1, lambda n, k: None)
            if not isinstance(g, str))
