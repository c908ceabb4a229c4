"""Finding the puzzles: every plugin the entry-point group ``puzzleproof.puzzles`` names,
loaded on first use, by name or alias (see :mod:`puzzleproof.puzzles`)."""

from __future__ import annotations

from importlib import metadata
from typing import Any

from puzzleproof.processes import note
from puzzleproof.puzzles.base import PuzzlePlugin

__all__ = ["GROUP", "get", "all_puzzles", "names", "reload", "suggest", "count_words"]

#: The entry-point group every puzzle (built-in or not) registers under.
GROUP = "puzzleproof.puzzles"

_plugins: dict[str, PuzzlePlugin] | None = None
_aliases: dict[str, str] = {}


def _load() -> dict[str, PuzzlePlugin]:
    global _plugins
    if _plugins is not None:
        return _plugins
    found: list[PuzzlePlugin] = []
    for ep in metadata.entry_points(group=GROUP):
        try:
            obj = ep.load()
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not take the tool down
            note(f"the puzzle plugin {ep.name!r} ({ep.value}) "
                             f"cannot be loaded: {type(exc).__name__}: {exc}")
            continue
        problem = _problem(obj)
        if problem:
            note(f"the puzzle plugin {ep.name!r} ({ep.value}) "
                             f"is left out: {problem}")
            continue
        found.append(obj)
    if not found:
        note(f"no puzzle is installed (the entry-point group "
                         f"{GROUP!r} is empty): reinstall puzzleproof, e.g. "
                         f"'pip install -e .' in its checkout")
    plugins: dict[str, PuzzlePlugin] = {}
    aliases: dict[str, str] = {}
    for p in sorted(found, key=lambda p: (p.rank, p.name)):
        keys = (p.name, *p.aliases)
        taken = [k for k in keys if k in aliases]
        if taken:
            note(f"the puzzle plugin {p.name!r} is left out: "
                             f"the name {taken[0]!r} is taken by {aliases[taken[0]]!r}")
            continue
        for key in keys:
            aliases[key.lower()] = p.name
        plugins[p.name] = p
    _plugins = plugins
    _aliases.clear()
    _aliases.update(aliases)
    return plugins


def _problem(obj: Any) -> str | None:
    """Why ``obj`` is not a puzzle plugin, or None."""
    if not isinstance(obj, PuzzlePlugin):
        missing = [a for a in [*PuzzlePlugin.__annotations__, "read", "sniff", "method"]
                   if not hasattr(obj, a)]
        return "it lacks " + ", ".join(sorted(missing)[:6])
    if not obj.name or not obj.name.replace("-", "").isalnum() or obj.name != obj.name.lower():
        return f"its name {obj.name!r} is not a lower-case word"
    return None


def reload() -> None:
    """Forget the loaded plugins (after installing one in a running process)."""
    global _plugins
    _plugins = None
    metadata.entry_points.cache_clear() if hasattr(metadata.entry_points, "cache_clear") \
        else None


def get(name: str) -> PuzzlePlugin:
    """The puzzle called ``name`` (or one of its aliases); KeyError naming the known ones
    (and the likeliest one meant)."""
    plugins = _load()
    key = _aliases.get(str(name).lower())
    if key is None:
        hint = suggest(name)
        raise KeyError(f"unknown puzzle {name!r}; "
                       + (f"did you mean {hint!r}? " if hint else "")
                       + f"expected one of {', '.join(plugins)}")
    return plugins[key]


def names() -> list[str]:
    return list(_load())


def all_puzzles() -> list[PuzzlePlugin]:
    return list(_load().values())


def suggest(word: str) -> str | None:
    """The puzzle name (or alias) closest to a mistyped ``word``, if one is close."""
    import difflib

    _load()
    hit = difflib.get_close_matches(str(word).lower(), list(_aliases), n=1, cutoff=0.75)
    return _aliases[hit[0]] if hit else None


def count_words(puzzle: object) -> dict[str, str]:
    """A puzzle's own counts in words (its plugin's), none for an unknown puzzle."""
    try:
        plugin = get(str(puzzle))
    except KeyError:
        return {}
    return dict(plugin.report.count_words) if plugin.report is not None else {}
