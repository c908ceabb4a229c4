"""Death Run's ``pricer`` criminal: tolls on the links the students will really take, at the
largest raise each of them still pays, with its partner's predicted raise weighed in.

Why a toll on the cheapest link is weak: the careful students of a contest field do not take
the cheapest link (on 4 graphs of a mixed field of planner, robust, minimax and
trap-penalising students facing two tolling criminals, the robust students took it in 47 %
of their moves, the planner in 58 %), so a gap-toll on it is often wasted; and two
criminals aiming at one link together pass the gap and earn nothing. The pricer instead:

- **knows the students.** :class:`~puzzleproof.players.deathrun_student_models.Herd` replays the common
  student strategies (cheapest path, trap-penalising path, the robust policy) from the start
  and keeps those whose predicted vertex is occupied; at each occupied vertex it knows which
  link each of them takes and the largest raise after which it still takes it (its
  threshold). Students no model explains are an even mixture of the three.
- **predicts its partner.** The other criminal's move each round is the combined updates
  minus its own; the common criminal strategies
  (:func:`~puzzleproof.players.deathrun_criminal_models.partner_models`, the built-in crowd's
  :func:`crowd_builtin`, and for the built-in ``toll``, which keeps state, a copy of it fed
  what it sees) are scored on how well they predicted its link *and amount* (models that
  pick the same link differ in the amount, and the amount decides whether a raise on top
  passes the students' thresholds); the best one's prediction is applied before pricing.
- **prices, against its partner.** For each link a student group takes it tries each
  group's threshold less a hundredth (and, on the partner's link, each threshold plus a
  hundredth: a raise that pushes the students off it). A raise is worth its expected
  revenue (raise x the students still taking the link) minus ``rivalry`` (1) x what the
  partner's predicted raise then earns: criminals are ranked one by one, so a cheap raise
  that costs the partner its toll is worth making. On a vertex with one way out every
  student pays: the budget beyond a reserve of 2.5 per round left goes there.

Measured (``benchmarks/deathrun.py``, 10 graphs, mixed student field): rivalry 0 earned
79-89 but its partners ~100 (it never collided, so the partner's toll always paid);
rivalry 1 earns 46-61 against partners' 27-46.

Each move is a valid ``(u, v, w)`` with ``0 <= w <= budget`` (``(u, v, 0)`` when nothing pays).
"""

from __future__ import annotations

import random

from puzzleproof.players.deathrun_toll import TollCriminal
from puzzleproof.encoders.deathrun_robust import DEFAULT_BUDGET
from puzzleproof.models.deathrun import BaseCriminal, make_graph
from puzzleproof.players.deathrun_criminal_models import EPS, Move, View, partner_models, same
from puzzleproof.players.deathrun_student_models import Herd, Scene

__all__ = ["PricerCriminal", "crowd_builtin"]


def crowd_builtin(s: View) -> Move:
    """The built-in ``crowd`` criminal's move: everything in proportion on the only link out
    of the most crowded vertex with one way out, else on the link most students take next
    on their cheapest paths; ``budget x students / 8 / max(1, rounds left / 3)``."""
    forced = [(n, v) for v, n in s.occupied() if len(s.g.out[v]) == 1]
    if forced:
        n, v = max(forced)
        link = (v, s.g.out[v][0][0])
    else:
        use: dict[tuple[int, int], int] = {}
        for v, m in s.occupied():
            u = min(s.g.out[v], key=lambda t: (s.weight[(v, t[0])] + s.dist[t[0]], t[0]))[0]
            use[(v, u)] = use.get((v, u), 0) + m
        if not use:
            return None
        link, n = max(use.items(), key=lambda kv: (kv[1], kv[0]))
    left = max(1, 15 - s.rnd + 1)
    amount = min(s.budget, s.budget * n / 8 / max(1, left / 3))
    return (link, amount) if amount > 0 else None


def _fit(pred: Move, actual: Move) -> float:
    """How well a predicted move matched the partner's: 1 for the link and the amount (within
    2 %), 0.6 for the link only (models that pick the same link differ in the amount, and
    the amount decides whether a raise on top of it passes the students' thresholds)."""
    if not same(pred, actual):
        return 0.0
    if pred is None or actual is None:
        return 1.0
    return 1.0 if abs(pred[1] - actual[1]) <= 0.02 * max(1.0, actual[1]) else 0.6


class PricerCriminal(BaseCriminal):
    """The ``pricer`` criminal (see the module docstring)."""

    bot_name = "pricer"
    rounds = 15
    #: the budget kept back per round left from a raise on a vertex with one way out
    reserve_per_round = 2.5
    #: the weight of the partner's revenue in a raise's value (criminals are ranked one by
    #: one, so what the partner earns counts against this one)
    rivalry = 1.0

    def __init__(self, edge_list, begin, ends):
        super().__init__(edge_list, begin, ends)
        self.rng = random.Random(random.getrandbits(64))
        self.g = make_graph(edge_list, begin, ends)
        self.weight: dict[tuple[int, int], float] = dict(self.g.weight)
        self.raised: dict[tuple[int, int], float] = {}
        self.spent_all = 0.0
        self.rnd = 0
        self.start: float | None = None
        self.partner_spent = 0.0
        self.mine: Move = None
        self.models = partner_models()
        self.partner_name = "gap-toll (described)"
        self.predicted: dict[str, Move] = {}
        self.herd = Herd(self.g, DEFAULT_BUDGET)
        # the built-in toll keeps state (its raises, whether its partner mirrored it), so
        # its model is a copy of it fed what the partner sees, one call a round
        self.shadows = {"toll": TollCriminal(edge_list, begin, ends)}
        self.models["toll"] = self._shadow("toll")
        self.models["crowd (built-in)"] = crowd_builtin
        self._updates: dict = {}
        self.hits = {name: 0.0 for name in self.models}
        self.noop = (self.g.edges[0][0], self.g.edges[0][1], 0)

    # -- what last round showed

    def _absorb(self, edge_updates: dict) -> None:
        raised = {e: x for e, x in edge_updates.items() if x}
        theirs = dict(raised)
        if self.mine is not None and self.mine[1] > 0:
            e, x = self.mine
            theirs[e] = theirs.get(e, 0.0) - x
            if theirs[e] <= 1e-9:
                del theirs[e]
        partner: Move = None
        if theirs:
            e = max(theirs, key=lambda f: theirs[f])
            partner = (e, theirs[e])
        self.partner_spent += sum(theirs.values())
        for name, pred in self.predicted.items():
            self.hits[name] = 0.8 * self.hits[name] + _fit(pred, partner)
        for e, x in raised.items():
            self.weight[e] = self.weight.get(e, 0) + x
            self.raised[e] = self.raised.get(e, 0) + x
            self.spent_all += x

    def _scene(self, partner: Move = None) -> Scene:
        """What the students see: the weights so far, plus the partner's predicted raise."""
        left = max(0.0, DEFAULT_BUDGET - self.spent_all)
        if partner is None or partner[1] <= 0:
            return Scene(self.g, self.weight, self.raised, left)
        (e, x) = partner
        weight, raised = dict(self.weight), dict(self.raised)
        weight[e] = weight[e] + x
        raised[e] = raised.get(e, 0.0) + x
        return Scene(self.g, weight, raised, max(0.0, left - x))

    def _shadow(self, name: str):
        bot = self.shadows[name]

        def move(view: View) -> Move:
            u, v, w = bot.strategy(self._updates, view.counts, view.budget)
            return ((u, v), float(w)) if w > 0 else None
        return move

    def _predict_partner(self, view: View) -> Move:
        self.predicted = {name: model(view) for name, model in self.models.items()}
        self.partner_name = max(self.models, key=lambda m: (self.hits[m],
                                                            m == "gap-toll (described)"))
        return self.predicted[self.partner_name]

    # -- this round

    def _spare(self, budget: float) -> float:
        """What a raise on a vertex with one way out may take."""
        left = max(0, self.rounds - self.rnd)
        return max(0.0, budget - min(budget / 2, self.reserve_per_round * left))

    def _options(self, scene: Scene, counts: dict[int, int], budget: float, partner: Move
                 ) -> list[tuple[float, float, tuple[int, int], float]]:
        """``(expected revenue, the partner's expected revenue, link, raise)`` for the links
        the students will take (and, at the partner's vertex, raises that push them off its
        link)."""
        pv = partner[0][0] if partner is not None and partner[1] > 0 else None
        base = self._partner_revenue(scene, counts, partner, None)
        out = []
        for v, n in sorted(counts.items()):
            if not n or v in self.g.end_set or not self.g.out.get(v):
                continue
            if len(self.g.out[v]) == 1:
                amount = self._spare(budget)
                if amount > 0:
                    out.append((amount * n, base, (v, self.g.out[v][0][0]), amount))
                continue
            groups = self.herd.groups(v)
            links = {self.herd.choice(m, v, scene) for m, _ in groups}
            if v == pv:
                links.add(partner[0][1])
            for u in sorted(links):
                thr = [self.herd.threshold(m, (v, u), scene, budget) for m, _ in groups]
                amounts = {min(budget, t0 - EPS) for t0 in thr}
                if v == pv and u == partner[0][1]:
                    amounts |= {min(budget, t0 + EPS) for t0 in thr if t0 >= 0}
                for t in sorted(a for a in amounts if a >= EPS):
                    link = (v, u)
                    pay = sum(share for m, share in groups
                              if self.herd.choice(m, v, scene, (link, t)) == u)
                    theirs = (self._partner_revenue(scene, counts, partner, (link, t))
                              if v == pv else base)
                    out.append((t * n * pay, theirs, link, t))
        return out

    def _partner_revenue(self, scene: Scene, counts: dict[int, int], partner: Move,
                         mine: tuple | None) -> float:
        """What the partner's predicted raise earns this round, after this one's ``mine``."""
        if partner is None or partner[1] <= 0:
            return 0.0
        (v, u), x = partner
        n = counts.get(v, 0)
        if not n or not self.g.out.get(v):
            return 0.0
        if len(self.g.out[v]) == 1:
            return x * n
        pay = sum(share for m, share in self.herd.groups(v)
                  if self.herd.choice(m, v, scene, mine) == u)
        return x * n * pay

    def strategy(self, edge_updates, vertex_count, budget):
        self.rnd += 1
        if self.start is None:
            self.start = float(budget)
        self._absorb(edge_updates)
        self._updates = edge_updates
        counts = {v: int(n) for v, n in vertex_count.items() if n}
        if self.rnd > 1:
            self.herd.advance(self._scene(), counts)
        pb = max(0.0, self.start - self.partner_spent)
        partner = self._predict_partner(View(self.g, dict(self.weight), counts, pb, self.rnd))
        opts = self._options(self._scene(partner), counts, float(budget), partner)
        if not opts or budget <= 0:
            self.mine = None
            return self.noop
        lam = self.rivalry
        base = self._partner_revenue(self._scene(partner), counts, partner, None)
        value, theirs, (u, v), amount = max(opts, key=lambda o: (o[0] - lam * o[1], o[0],
                                                                  -o[3], o[2]))
        if value <= 0 and (lam <= 0 or theirs >= base):
            self.mine = None
            return self.noop
        amount = max(0.0, min(float(budget), amount))
        self.mine = ((u, v), amount)
        return u, v, amount
