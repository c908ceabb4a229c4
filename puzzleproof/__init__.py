"""puzzleproof: exact, proved solvers for puzzles and small games, and a judge of heuristics.

Layers (see ``docs``/DESIGN): ``models`` says what a puzzle is and checks answers,
``encoders`` solves exactly, ``verify`` holds what answers are checked against,
``formats`` reads and writes what users bring, ``generate`` makes hard instances, and
``puzzles`` holds one plugin object per puzzle. ``puzzleproof.solve``, ``check``,
``render``, ``crosscheck`` and ``generate`` are the command's jobs as functions over the
same plugins (:mod:`puzzleproof.api`).
"""

__version__ = "0.2.0"

import importlib as _importlib

# the subpackage ``generate`` is loaded first: loading it later (``puzzleproof.generate.X``,
# from a generator's first run) would bind it over the function ``generate`` below
_importlib.import_module("puzzleproof.generate")

from puzzleproof.api import check, crosscheck, generate, load, render, solve  # noqa: E402

__all__ = ["solve", "check", "render", "crosscheck", "generate", "load", "__version__"]
