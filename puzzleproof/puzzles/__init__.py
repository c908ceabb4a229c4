"""The registry of puzzles: one plugin object per puzzle, found by name, alias or by reading
a file.

Puzzles are found through the entry-point group ``puzzleproof.puzzles``: each entry names a
plugin object (``"package.module:PLUGIN"``). The built-in puzzles are listed there in the
project's own ``pyproject.toml``, exactly as a third-party distribution lists its own, so a
new puzzle is one installed plugin and no edit of this package (``docs/ADDING_A_PUZZLE.md``).
Plugins are loaded on first use; one that fails to load is said once on stderr and left out.

Every verb of the command and the Python API find a puzzle here.

Example:
    >>> get("bridges").name
    'hashi'
    >>> [p.name for p in all_puzzles()][:4]
    ['hashi', 'skynet', 'cityclose', 'deathrun']
"""

from __future__ import annotations

from puzzleproof.instance import Loaded
from puzzleproof.method import Method, load_ref
from puzzleproof.puzzles.base import Plugin, PuzzlePlugin
from puzzleproof.puzzles.classify import (Classified, classify_text, folder_suffixes,
                                          is_not_instance_name, written_kind)
from puzzleproof.puzzles.registry import (GROUP, all_puzzles, count_words, get, names, reload,
                                          suggest)

__all__ = ["GROUP", "Loaded", "Classified", "Method", "Plugin", "PuzzlePlugin", "get",
           "all_puzzles", "names", "classify_text", "written_kind", "folder_suffixes",
           "is_not_instance_name", "load_ref", "reload", "suggest", "count_words"]
