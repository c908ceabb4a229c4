"""Death Run as a plugin (its verbs not yet on the shared verbs: their commands come from
:mod:`puzzleproof.cli.deathrun`)."""

from __future__ import annotations

from puzzleproof.method import Method
from puzzleproof.puzzles import deathrun_views as views
from puzzleproof.puzzles.base import Plugin, ReportSpec

__all__ = ["PLUGIN"]

PLUGIN = Plugin(
    name="deathrun", title="Death Run", aliases=("death-run", "cmimc"),
    summary="Death Run (CMIMC 2024): a faithful engine, certified bounds for students and "
            "criminals, bots judged in tournaments",
    suffixes=(".json",),
    reader="puzzleproof.formats.deathrun:read_instances",
    methods=(Method("robust", "exact", "worst-case dynamic program over (vertex, budget "
                                        "left): a certified bound on a student's cost, and "
                                        "the student bot that keeps it"),
             Method("toll-round", "exact", "single-round toll optimum (enumeration, checked "
                                            "by a MIP): what one raise could earn"),
             Method("fh-lp", "exact", "Fulkerson-Harding LP: how far a budget can lengthen a "
                                       "shortest path"),
             Method("greedy", "heuristic", "student on the current shortest path"),
             Method("cautious", "heuristic", "student avoiding trap vertices ahead"),
             Method("random", "heuristic", "a random student or criminal"),
             Method("toll", "heuristic", "criminal playing the single-round toll optimum with a "
                                       "budget plan"),
             Method("gap-toll", "heuristic", "criminal raising the crowded link just below the "
                                           "students' detour"),
             Method("crowd", "heuristic", "criminal spending on the crowded link students cannot "
                                        "avoid")),
    default_methods=("robust", "greedy", "cautious", "random", "toll", "gap-toll", "crowd"),
    report=ReportSpec(runs={"deathrun-game": ("Death Run games", views.game_sections)}),
    commands="puzzleproof.cli.deathrun:GROUPS", rank=40, noun="graph",
    written={"deathrun-game": "a Death Run game record",
             "deathrun-crosscheck": "a Death Run cross-check summary",
             "deathrun-tournament": "a Death Run tournament summary"},
)
