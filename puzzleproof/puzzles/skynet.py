"""Skynet Revolution as a plugin (its verbs not yet on the shared verbs: their commands come from
:mod:`puzzleproof.cli.skynet`)."""

from __future__ import annotations

from puzzleproof.method import Method
from puzzleproof.puzzles import skynet_views as views
from puzzleproof.puzzles.base import Plugin, ReportSpec

__all__ = ["PLUGIN"]

PLUGIN = Plugin(
    name="skynet", title="Skynet Revolution", aliases=("dfs", "death-first-search"),
    summary="Skynet Revolution Episodes 1 and 2 (CodinGame 'Death First Search'): proved "
            "verdicts and fewest cuts, bots judged against the worst-case agent",
    suffixes=(".txt", ".json"),
    reader="puzzleproof.formats.skynet:read_instances",
    methods=(Method("sat", "exact", "CEGAR over two incremental SAT solvers"),
             Method("explicit", "exact", "memoised minimax over (agent node, links left)"),
             Method("exact", "heuristic", "our bot playing the proved strategy"),
             Method("ep1-article", "heuristic", "the Episode 1 article's bot"),
             Method("ep1-path", "heuristic", "cut the link on the agent's shortest path"),
             Method("ep2-article", "heuristic", "the Episode 2 article's bot"),
             Method("ep2-slack", "heuristic", "the common 0-1 BFS least-slack rule"),
             Method("ep1-front", "heuristic", "cut the agent's gateway link, else its link "
                                            "toward the nearest gateway"),
             Method("ep2-double", "heuristic", "the agent's gateway link, else a link of the "
                                             "nearest double-gateway node"),
             Method("ep2-nearest", "heuristic", "the agent's gateway link, else the gateway "
                                              "link nearest the agent"),
             Method("ep2-pqdfs", "heuristic", "priority-queue DFS: the first double-gateway "
                                            "node it reaches")),
    default_methods=("sat", "ep2-article", "ep2-slack"),
    report=ReportSpec(draw=views.draw_disagreement, sections=views.lost_games,
                      size=lambda inst, rec: getattr(inst, "n", None), size_name="nodes",
                      instance_key=lambda name: name.rsplit("@", 1)[0]),
    commands="puzzleproof.cli.skynet:GROUPS", rank=20, noun="map",
    written={"skynet-breaker": "skynet breaker evidence", "skynet-game": "a skynet game record",
             "skynet-player-strategy": "a skynet strategy certificate",
             "skynet-agent-strategy": "a skynet strategy certificate",
             "skynet-agent-escape": "a skynet strategy certificate",
             "skynet-batch": "a skynet referee summary",
             "skynet-ep1-cuts": "a skynet Episode 1 cuts record"},
)
