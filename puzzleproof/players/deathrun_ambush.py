"""Death Run's ``ambush`` criminal: the whole budget on a forced link when students stand on
it, and otherwise tolls at the gap the students of this game have shown they pay, beside a
partner it works with rather than against.

It is the ``pricer`` (:mod:`puzzleproof.players.deathrun_pricer`: tolls priced student
group by student group at the largest raise each still pays, the partner's predicted raise
weighed in) with what the public contest field showed it lacked:

- **No reserve.** Where students stand on a vertex with one way out, every one of them must
  cross its only link: the whole budget goes there (the raise is worth budget x head count,
  the largest option whenever the vertex is occupied), and nothing is kept for later
  rounds. A partner dumping on the same link earns its own raise too (both pay).
- **Cooperation.** A raise is worth what it earns, not less what it costs the partner
  (``rivalry`` 0): it never spends to keep students off its partner's toll; a raise on top
  of the partner's is priced at what the students still pay after both.
- **The field's students.** :class:`~puzzleproof.players.deathrun_student_models.LearningHerd`
  replays the public contest students (the four-move minimax student, the one that refuses
  vertices with one way out, the few-exit penalties) beside the common ones and keeps those
  that explain where the students stand, each with its exact threshold (the gap it
  respects); a group no model explains is priced as a mixture of the models weighted by how
  often each predicted such groups' moves this game.
- **The partner's plan.** The public criminals' plans (dump on a forced link, else tie the
  cheapest exit to the second: :func:`~puzzleproof.players.deathrun_criminal_models.contest_models`)
  join the models its partner is recognised by.
"""

from __future__ import annotations

from puzzleproof.encoders.deathrun_robust import DEFAULT_BUDGET
from puzzleproof.players.deathrun_criminal_models import contest_models
from puzzleproof.players.deathrun_pricer import PricerCriminal
from puzzleproof.players.deathrun_student_models import LearningHerd, PUBLIC_MODELS

__all__ = ["AmbushCriminal"]


class AmbushCriminal(PricerCriminal):
    """The ``ambush`` criminal (see the module docstring)."""

    bot_name = "ambush"
    reserve_per_round = 0.0
    rivalry = 0.0

    def __init__(self, edge_list, begin, ends):
        super().__init__(edge_list, begin, ends)
        self.herd = LearningHerd(self.g, DEFAULT_BUDGET, PUBLIC_MODELS)
        for name, model in contest_models().items():
            self.models.setdefault(name, model)
        self.hits = {name: 0.0 for name in self.models}
        self._counts_now: dict[int, int] = {}
        self._counts_last: dict[int, int] = {}

    def _absorb(self, edge_updates: dict) -> None:
        super()._absorb(edge_updates)
        if self.rnd > 1:  # before the herd moves on: who stood where
            self.herd.observe(self._scene(), self._counts_last, self._counts_now)

    def strategy(self, edge_updates, vertex_count, budget):
        self._counts_now = {v: int(n) for v, n in vertex_count.items() if n}
        move = super().strategy(edge_updates, vertex_count, budget)
        self._counts_last = self._counts_now
        return move
