"""The shared verbs: ``solve``, ``check``, ``render``, ``convert``, ``crosscheck`` and
``generate``, each written once over the puzzle plugins (one module a verb), and the group
that gives every verb the shape ``VERB [PUZZLE] INPUTS...``.

A verb's subcommand for a puzzle is built from the puzzle's spec of that verb the first time
it is asked for; a puzzle without the spec has no such subcommand. Without a puzzle name the
puzzle is inferred from the inputs (read once; :class:`~puzzleproof.puzzles.inputs.Inputs`),
and when they hold several puzzles each puzzle's command runs in turn on its own instances
(the exit code is the worst of theirs).
"""

from __future__ import annotations

from operator import attrgetter

from puzzleproof.cli.verbs import check, convert, crosscheck, generate, render, solve
from puzzleproof.command.group import PuzzleGroup

__all__ = ["VERBS", "verb_groups"]

#: verb -> its help (each verb's module builds a puzzle's subcommand from the puzzle's spec)
VERBS = {
    "solve": ("Solve exactly, with the answer checked: 'solve [PUZZLE] INPUTS...'.\n\n"
              "The puzzle is inferred from the inputs when it is not named. Exit 0 solved "
              "(or WIN), 1 a proved INFEASIBLE or LOSS or a failed check, 2 unreadable "
              "input."),
    "check": ("Check an answer written by anything else: 'check [PUZZLE] INSTANCE "
              "ANSWER'.\n\nHashi: a solution (CodinGame lines or JSON). Skynet: a strategy "
              "certificate (its rule and start are read from the file). City closing: an "
              "order. Death Run: a game record. Exit 0 it holds, 1 it breaks a rule, 2 it "
              "cannot be read."),
    "render": ("Draw an instance, alone or with an answer or game on it: 'render "
               "[PUZZLE] INPUT'.\n\nWith -o the picture goes to the file (.svg or .png); "
               "without, a text picture (Hashi, city maps) or the SVG (maps) goes to stdout."),
    "crosscheck": ("Run exact methods and heuristics on the same instances and "
                   "report every disagreement with its evidence: 'crosscheck [PUZZLE] "
                   "INPUTS...'.\n\nA folder may hold several puzzles: each gets its own "
                   "table. Exit 1 if any disagreement (or an unconfirmed finding) is found, 0 "
                   "if none."),
    "generate": ("Make new instances that are hard in a stated, measured way: "
                 "'generate PUZZLE'."),
    "convert": ("Convert an instance between formats: 'convert [PUZZLE] INPUT "
                "--format NAME'."),
}


_BUILDERS = {"solve": solve.build, "check": check.build, "render": render.build,
             "crosscheck": crosscheck.build, "generate": generate.build,
             "convert": convert.build}


def verb_groups() -> list[PuzzleGroup]:
    """One group a shared verb, in the order ``--help`` lists them."""
    return [PuzzleGroup(verb, VERBS[verb], build=_BUILDERS[verb], has=_has_spec(verb),
                        needs_puzzle=verb == "generate") for verb in _BUILDERS]


def _has_spec(verb: str):
    spec = attrgetter(verb)
    return lambda plugin: spec(plugin) is not None
