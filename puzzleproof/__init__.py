"""puzzleproof: exact, proved solvers for puzzles and small games, and a judge of heuristics.

``puzzleproof.solve``, ``check``, ``render``, ``convert``, ``crosscheck``, ``generate`` and
``hunt`` are the command's jobs as functions over the same puzzle plugins
(:mod:`puzzleproof.api`); ``puzzleproof.plugin`` is what a new puzzle is made of. The layers
of the code are told in the repository's ``docs/DESIGN.md``.
"""

__version__ = "0.2.0"

import importlib as _importlib

# the subpackage ``generate`` is loaded first: loading it later (``puzzleproof.generate.X``,
# from a generator's first run) would bind it over the function ``generate`` below
_importlib.import_module("puzzleproof.generate")

from puzzleproof.api import (check, convert, crosscheck, generate, hunt, load,  # noqa: E402
                             options, render, solve)

__all__ = ["solve", "check", "render", "convert", "crosscheck", "generate", "hunt", "load",
           "options", "__version__"]
