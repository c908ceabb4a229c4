"""Everything a puzzle plugin is made of, in one import: ``from puzzleproof.plugin import ...``.

A plugin is one object (:class:`Plugin`, or any object meeting :class:`PuzzlePlugin`): who
the puzzle is, how its files are read (:class:`Reader`), the methods that answer it
(:class:`Method`, each ``run(instance, *, deadline, **options) -> Result``), and its part of
each shared verb (:class:`SolveSpec`, :class:`CheckSpec`, :class:`RenderSpec`,
:class:`ConvertSpec`, :class:`CrosscheckSpec`, :class:`GenerateSpec`, :class:`ReportSpec`),
with its own commands as Click objects. It is found through the entry-point group
``puzzleproof.puzzles`` of the distribution that installs it; ``docs/ADDING_A_PUZZLE.md``
walks through a whole one (the toy puzzle the tests install).

This module is the stable face for plugin authors; the modules behind it may move.

Example:
    >>> from puzzleproof.plugin import Method, Plugin, Reader
    >>> toy = Plugin(name="toy", title="Toy", summary="a toy",
    ...              reader=Reader(read=lambda text, source: []),
    ...              methods=(Method("m", "heuristic", run=lambda x, *, deadline: x),))
    >>> toy.method("m").kind
    'heuristic'
"""

from __future__ import annotations

from puzzleproof.clock import Deadline, PerTask
from puzzleproof.command.build import inputs_of, make_command
from puzzleproof.command.group import PuzzleGroup
from puzzleproof.command.output import Exit, emit, say, show
from puzzleproof.errors import InputError, UsageError
from puzzleproof.formats import read_source
from puzzleproof.instance import Loaded
from puzzleproof.method import KINDS, Method
from puzzleproof.puzzles.base import (CheckSpec, ConvertSpec, CrosscheckEnv, CrosscheckSpec,
                                      Generated, GenerateSpec, Inputs, Outcome, Page, Params,
                                      Picture, Plugin, PuzzlePlugin, Reader, RenderSpec,
                                      ReportSpec, SolveSpec, Task, resolve_methods)
from puzzleproof.puzzles.harness import Table, run_harness
from puzzleproof.puzzles.options import (COUNT, JSON, METHOD, METHODS, OUTPUT, SEED,
                                         TIME_LIMIT, Opt)
from puzzleproof.result import Result, Status
from puzzleproof.verify.crosscheck import Instance, PuzzleKind

__all__ = [
    # the plugin and its parts
    "Plugin", "PuzzlePlugin", "Reader", "Method", "KINDS",
    "SolveSpec", "CheckSpec", "RenderSpec", "ConvertSpec", "CrosscheckSpec", "GenerateSpec",
    "ReportSpec",
    # what the specs receive and return
    "Loaded", "Task", "Params", "Inputs", "Page", "Outcome", "Picture", "Generated",
    "CrosscheckEnv", "Result", "Status", "Deadline", "PerTask", "InputError", "UsageError",
    "resolve_methods", "read_source",
    # option rows (shared ones, and Opt for a puzzle's own)
    "Opt", "COUNT", "JSON", "METHOD", "METHODS", "OUTPUT", "SEED", "TIME_LIMIT",
    # the cross-check harness, for puzzles whose methods each answer one instance
    "Instance", "PuzzleKind", "Table", "run_harness",
    # a puzzle's own commands (Click)
    "PuzzleGroup", "make_command", "inputs_of", "Exit", "emit", "say", "show",
]
