"""Death Run's ``robust`` student: it follows the upper table of the worst-case DP
(:mod:`puzzleproof.encoders.deathrun_robust`), so its realised cost never exceeds the
certified bound, whatever the criminals do."""

from __future__ import annotations

from puzzleproof.encoders.deathrun_robust import (DEFAULT_BUDGET, DEFAULT_STEP, robust_choice,
                                                  robust_table)
from puzzleproof.models.deathrun import BaseStudent, make_graph

__all__ = ["RobustStudent"]

class RobustStudent(BaseStudent):
    """The robust student: follows the DP's upper table (see the module docstring).

    ``guarantee`` is ``cost so far + U(here, held budget)``; it never increases, and it
    starts at the certified bound. ``total_budget`` is the criminals' combined budget.
    """

    bot_name = "robust"
    total_budget = DEFAULT_BUDGET
    step = DEFAULT_STEP

    def __init__(self, edge_list, begin, ends):
        super().__init__(edge_list, begin, ends)
        self.g = make_graph(edge_list, begin, ends)
        self.table = robust_table(self.g, self.total_budget, self.step, lower=False)
        self.raised: dict[tuple[int, int], float] = {}
        self.spent = 0.0
        self.cost = 0.0
        self.bound = self.table.bound()
        self.guarantee = self.bound
        self.at = begin

    def strategy(self, edge_updates, vertex_count, current_vertex):
        for e, x in edge_updates.items():
            if x:
                self.raised[e] = self.raised.get(e, 0) + x
                self.spent += x
        if current_vertex != self.at:  # moved at random after an invalid move (never ours)
            self.at = current_vertex
        left = max(0.0, self.total_budget - self.spent)
        u, val = robust_choice(self.table, current_vertex, self.raised, left)
        self.guarantee = self.cost + val  # never above the previous guarantee
        self.cost += self.g.weight[(current_vertex, u)] + self.raised.get((current_vertex, u), 0)
        self.at = u
        return u
