"""City closing as a plugin (its verbs not yet on the shared verbs: their commands come from
:mod:`puzzleproof.cli.cityclose`)."""

from __future__ import annotations

from puzzleproof.method import Method
from puzzleproof.puzzles import cityclose_views as views
from puzzleproof.puzzles.base import Plugin, ReportSpec

__all__ = ["PLUGIN"]

PLUGIN = Plugin(
    name="cityclose", title="City closing", aliases=("city-closing", "twospies", "two-spies"),
    summary="City closing (Two Spies): the removal order with the least Wiener numbers, "
            "proved; the article's greedy and beam search judged",
    suffixes=(".json", ".txt", ".edges", ".graphml", ".gml"),
    reader="puzzleproof.formats.cityclose:read_instances",
    methods=(Method("exact", "exact", "layered dynamic program over connected sets "
                                       "(compiled with numba)"),
             Method("ilp", "exact", "integer program over removal orders (OR-Tools CP-SAT)"),
             Method("ilp-scip", "exact", "the same integer program solved by SCIP through "
                                          "MathOpt (stronger bounds, slower on small maps)"),
             Method("ilp-highs", "exact", "the same integer program solved by HiGHS through "
                                           "MathOpt"),
             Method("dp", "exact", "plain dynamic program over connected sets (small maps)"),
             Method("merged-beam", "heuristic", "beam search with states of the same open "
                                              "cities merged"),
             Method("beam", "heuristic", "the article's beam search (width 10)"),
             Method("greedy", "heuristic", "the article's greedy: the lowest Wiener number "
                                         "next")),
    default_methods=("exact", "merged-beam", "beam", "greedy"),
    report=ReportSpec(draw=views.draw_disagreement, sections=views.totals_sections,
                      size=views.size, size_name="cities"),
    commands="puzzleproof.cli.cityclose:GROUPS", rank=30, noun="map",
    written={"cityclose-order": "a city-closing order"},
)
