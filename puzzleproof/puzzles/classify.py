"""Which puzzle a text is: recognising instances, and the files the project writes that are
not instances (evidence, records, strategies), so that a folder walk skips them and says so.

Example:
    >>> from puzzleproof import puzzles
    >>> classify_text('{"type": "skynet-breaker", "map": "m"}', "m.evidence.json").what
    'skynet breaker evidence'
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from puzzleproof.errors import InputError
from puzzleproof.instance import Loaded

__all__ = ["Classified", "GENERIC_WRITTEN", "NOT_INSTANCES", "classify_text", "written_kind",
           "written_type", "is_not_instance_name", "folder_suffixes"]

#: What the project writes that no puzzle reads as an instance.
GENERIC_WRITTEN = {
    "record": "cross-check records",
    "disagreement": "cross-check records",
    "crosscheck": "a cross-check summary",
    "result": "solver results",
    "check": "a check verdict",
    "error": "an error record",
    "run-summary": "a run's summary",
}

#: Files a folder walk never treats as instances.
NOT_INSTANCES = ("README", "LICENSE", "COPYING", "NOTICE", "CHANGELOG")


@dataclass
class Classified:
    """What a text is: ``puzzle`` (None when it belongs to no puzzle), ``what``
    ("instance" or a description of a non-instance file), and the instances read."""

    puzzle: str | None
    what: str
    loaded: list[Loaded] = field(default_factory=list)

    @property
    def is_instance(self) -> bool:
        return self.what == "instance"


def _json_type(text: str) -> str | None:
    """The ``type`` of the first JSON object in ``text`` (a file or a JSONL stream)."""
    s = text.lstrip()
    if not s.startswith("{"):
        return None
    first = s.split("\n", 1)[0] if "\n" in s else s
    for candidate in (first, s):
        try:
            obj = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict) and isinstance(obj.get("type"), str):
            return obj["type"]
        return None
    return None


def written_kind(text: str) -> tuple[str | None, str] | None:
    """``(puzzle, description)`` when ``text`` is a file the project writes that is not an
    instance (evidence, records, strategies), else None."""
    kind = _json_type(text)
    if kind is None:
        return None
    if kind == "breaker":  # a hunt's evidence names its puzzle
        try:
            puzzle = json.loads(text).get("puzzle")
        except (ValueError, RecursionError, AttributeError):
            puzzle = None
        return (puzzle if isinstance(puzzle, str) else None,
                "a breaker's evidence (check it to judge the program again)")
    return written_type(kind)


def written_type(kind: str) -> tuple[str | None, str] | None:
    """``(puzzle, description)`` of a record ``type`` the project writes (puzzle None for
    the types every puzzle writes, whose records name their puzzle), else None."""
    from puzzleproof.puzzles.registry import all_puzzles

    if kind in GENERIC_WRITTEN:
        return None, GENERIC_WRITTEN[kind]
    for p in all_puzzles():
        if kind in p.reader.written:
            return p.name, p.reader.written[kind]
    return None


def classify_text(text: str, source: str, only: str | None = None,
                  options: dict[str, dict[str, Any]] | None = None) -> Classified:
    """Say which puzzle ``text`` is an instance of, reading it (the instances come along).

    ``only`` restricts the candidates to one puzzle (its reader alone runs); ``options``
    gives each puzzle's reader its keyword options (``{"hashi": {"max_bridges": 4}}``). Files
    the project writes that are not instances (evidence, records) are recognised by their
    ``type``. A puzzle whose ``sniff`` refuses the text is not asked to read it. Raises
    InputError naming what each candidate expected when no puzzle can read the text.
    """
    from puzzleproof.puzzles.registry import all_puzzles, get

    written = written_kind(text)
    if written is not None:
        return Classified(written[0], written[1])
    suffix = Path(source).suffix.lower()
    if only:
        candidates = [get(only)]
    else:
        everyone = sorted(all_puzzles(), key=lambda p: -p.reader.priority)
        # a file whose ending some puzzles claim is read by those only ('.has' is Hashi's)
        owners = [p for p in everyone if suffix and suffix in p.reader.suffixes] or everyone
        candidates = [p for p in owners if p.sniff(text, source)] or owners
    errors: list[tuple[Any, InputError]] = []
    hits: list[tuple[Any, list[Loaded]]] = []
    for p in candidates:
        try:
            loaded = p.read(text, source, **((options or {}).get(p.name, {})))
        except InputError as exc:
            errors.append((p, exc))
            continue
        hits.append((p, loaded))
    if hits:
        # a file's ending decides between two puzzles that both read it
        hits.sort(key=lambda h: (suffix not in h[0].reader.suffixes, -h[0].reader.priority))
        p, loaded = hits[0]
        return Classified(p.name, "instance", loaded)
    raise _no_reader(text, source, errors)


def _no_reader(text: str, source: str, errors: list[tuple[Any, InputError]]) -> InputError:
    """The error when no candidate reads ``text``: the one candidate's own, or the error of
    the candidate that got furthest (the latest line), naming what each expected."""
    if len(errors) == 1:
        return errors[0][1]
    if not errors:
        return InputError("no installed puzzle reads it (none is installed)", source)

    def depth(e: InputError) -> tuple[int, int]:
        return (e.line or 0, e.col or 0)

    best = max(errors, key=lambda pe: depth(pe[1]))
    expected = ", ".join(f"a {p.title} {p.noun}" for p, _ in errors)
    if not text.strip():
        return InputError(f"empty (nothing but blank space); expected {expected}", source)
    exc = InputError(f"cannot tell which puzzle this is (expected {expected}); read as "
                     f"{best[0].name}: {best[1].message}", source, best[1].line, best[1].col)
    # the puzzle whose reader got past the first line is the likeliest author of the file
    exc.guess = best[0].name if depth(best[1]) > (1, 1) else None  # type: ignore[attr-defined]
    return exc


def is_not_instance_name(path: Path) -> bool:
    """READMEs, licences and other files that are never puzzles, by name."""
    stem = path.name.upper()
    return path.name.startswith(".") or any(stem.startswith(n) for n in NOT_INSTANCES) \
        or path.name == "result.txt"


def folder_suffixes() -> tuple[str, ...]:
    """Every file ending some puzzle reads (what a folder walk picks up)."""
    from puzzleproof.puzzles.registry import all_puzzles

    out: list[str] = []
    for p in all_puzzles():
        out += [s for s in p.reader.suffixes if s not in out]
    return tuple(out)
