"""Death Run's ``toll`` criminal: each round the exact single-round toll optimum
(:func:`puzzleproof.encoders.deathrun_tolls.best_single_raise`) against cheapest-path
students, with a partner model and a budget plan."""

from __future__ import annotations

import random

from puzzleproof.encoders.deathrun_tolls import best_single_raise
from puzzleproof.models.deathrun import BaseCriminal, make_graph

__all__ = ["TollCriminal"]

class TollCriminal(BaseCriminal):
    """Each round: the exact single-round toll optimum against cheapest-path students,
    with (1) a partner model: the other criminal's last move is the combined updates minus
    its own; if it raised the same link, the gap is shared; (2) a budget plan: this round
    may spend at most ``budget * max(share of students served, 2.5 / rounds left)``."""

    bot_name = "toll"
    rounds = 15

    def __init__(self, edge_list, begin, ends):
        super().__init__(edge_list, begin, ends)
        self.rng = random.Random(random.getrandbits(64))
        self.g = make_graph(edge_list, begin, ends)
        self.weight = dict(self.g.weight)
        self.added: dict[tuple[int, int], float] = {}
        self.last: tuple[tuple[int, int], float] | None = None
        self.partner_mirrors = False
        self.round = 0
        self.students = 0

    def strategy(self, edge_updates, vertex_count, budget):
        self.round += 1
        for e, x in edge_updates.items():
            if x:
                self.weight[e] = self.weight.get(e, 0) + x
        if self.last is not None:
            e, mine = self.last
            other = {f: x for f, x in edge_updates.items() if x}
            if e in other:
                other[e] -= mine
            self.partner_mirrors = bool(other.get(e, 0) > 1e-9)
        self.students = max(self.students, sum(vertex_count.values()))
        rounds_left = max(1, self.rounds - self.round + 1)
        cap = budget * max(2.5 / rounds_left, 0.0)
        opt = best_single_raise(self.g, self.weight, vertex_count, budget, self.added,
                                share=0.5 if self.partner_mirrors else 1.0)
        if opt.edge is None or opt.toll <= 0:
            self.last = None
            u, v, _ = self.g.edges[0]
            return u, v, 0
        share = opt.users / max(1, self.students)
        t = min(opt.toll, budget * max(share, 0.0) if share >= 0.75 else cap, budget)
        t = max(t, min(opt.toll, cap, budget))
        self.added[opt.edge] = self.added.get(opt.edge, 0) + t
        self.last = (opt.edge, t)
        return opt.edge[0], opt.edge[1], t
