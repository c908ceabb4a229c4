"""City closing's own verb, ``plot cityclose MAP -o FILE.png``: the Wiener number after each
closing for several methods, and the advantage of each over the first, as the article draws
it. The work is :func:`puzzleproof.puzzles.cityclose_runs.plot`; this module reads the
options (the plugin's rows) and prints."""

from __future__ import annotations

from typing import Any

import click

from puzzleproof.command.output import Exit, check_output, emit, show
from puzzleproof.command.group import PuzzleGroup
from puzzleproof.command.build import inputs_of, make_command
from puzzleproof.puzzles import cityclose_views as views
from puzzleproof.puzzles.base import Params
from puzzleproof.puzzles.cityclose_rules import RULES, TIEBREAK, WIDTH
from puzzleproof.puzzles.cityclose_runs import plot, plot_prepare
from puzzleproof.puzzles.options import FORCE, JSON, METHODS, OUTPUT, TIME_LIMIT

__all__ = ["COMMANDS", "plot_group"]

ROWS = (METHODS.but(default="greedy,beam,exact", show_default=True,
                    help="Methods to draw, comma-separated, the first being the baseline of "
                         "the advantage lines: exact, ilp, dp, merged-beam, beam, greedy."),
        *RULES, WIDTH.but(help="Beam width (beam, merged-beam)."),
        TIEBREAK.but(help="Greedy's ties."),
        TIME_LIMIT.but(help="Seconds per method (an UNKNOWN exact method is drawn with its "
                            "best order); when they run out the answer is UNKNOWN, naming the "
                            "limit."),
        OUTPUT.but(help="The plot (.png or .svg); required. Never overwrites an existing file "
                        "unless --force."),
        FORCE, JSON)


def run(p: Params, ctx: click.Context) -> None:
    plot_prepare(p)
    check_output(p.output, p.force)
    outcome = plot(p.map_arg, p, inputs_of(ctx))
    if p.as_json and outcome.ok:
        emit({"type": "plot", "schema_version": 1, "puzzle": "cityclose", **outcome.record})
        show(outcome.page.notes_only())
    else:
        show(outcome.page)
    raise Exit(outcome.exit_code)



def _group() -> Any:
    group = PuzzleGroup("plot", help=views.PLOT_VERB_HELP)
    group.add_command(make_command("cityclose", views.PLOT_HELP,
                                   [click.argument("map_arg", metavar="MAP")], ROWS, run))
    return group


plot_group = _group()
COMMANDS = (plot_group,)
