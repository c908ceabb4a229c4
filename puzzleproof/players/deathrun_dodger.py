"""Death Run's ``dodger`` student: it prices every vertex to the end of the course, predicts
where the criminals will strike next round from who stands where, and keeps off that vertex.

**What it knows exactly.** The criminals' combined remaining budget ``left``: every raise is
shown to every student in the round it is made, so it is ``200`` minus the sum of every
update seen. A vertex with one way out (a *forced* vertex) then has a known price: a criminal
may put all the money left on its only link, and the students standing there must cross it;
once the criminals are broke it costs nothing.

**The cost to go** (:meth:`DodgerStudent.to_go`), to the end of the course and not only a few
links ahead: a dynamic program on the current weights in which entering a forced vertex
costs ``left`` and leaving any other vertex by its cheapest exit (least weight) costs
``tie`` (1) times the gap to the second cheapest, the tie the public criminals make. So a
route that needs a forced vertex or a lone cheap link later is dear now.

**Where the criminals strike next round.** The criminals choose where to raise from the
vertex counts at the start of the round, which the students make: the students who moved
before this one stand on the next layer already (the counts show them), the others are
predicted by :class:`~puzzleproof.players.deathrun_student_models.Herd`, which replays the
common and public student strategies from the start and keeps those that explain where the
students stand (a group it cannot explain takes the cheapest continuation of the cost to
go). For each vertex it could move to, the student adds itself to those counts and runs the
two criminal strategies that best explain the raises seen so far
(:func:`~puzzleproof.players.deathrun_criminal_models.contest_models`, scored as a pair
on the links each round raised); it then pays, from there, the cheapest continuation after
their predicted raises. A predictable group (the public minimax student moves as a herd of
copies) makes its vertex the one worth tolling; this student stands elsewhere, or where the
toll misses the link it takes. The prediction is blended with the model-free cost to go
(weight ``caution``), more so while the models explain few raises.
"""

from __future__ import annotations

import itertools
import math
import random

from puzzleproof.encoders.deathrun_robust import DEFAULT_BUDGET
from puzzleproof.models.deathrun import BaseStudent, Graph, make_graph
from puzzleproof.players.deathrun_criminal_models import Move, View, contest_models
from puzzleproof.players.deathrun_student_models import PUBLIC_MODELS, Herd, Scene

__all__ = ["DodgerStudent", "priced_to_go"]


def priced_to_go(g: Graph, weight: dict, left: float, tie: float) -> dict[int, float]:
    """The cost to go of the module docstring: the cheapest cost from each vertex to an
    end where entering a forced vertex costs ``left`` and leaving any other vertex by its
    cheapest exit costs ``tie`` x the gap to the second cheapest."""
    price = max(0.0, left)
    val: dict[int, float] = {}
    for x in reversed(g.topo):
        outs = g.out[x]
        if x in g.end_set or not outs:
            val[x] = 0.0 if x in g.end_set else math.inf
            continue
        if len(outs) == 1:
            u = outs[0][0]
            val[x] = weight[(x, u)] + price + val[u]
            continue
        ws = sorted((weight[(x, u)], u) for u, _ in outs)
        gap, cheapest = ws[1][0] - ws[0][0], ws[0][1]
        val[x] = min(weight[(x, u)] + (tie * gap if u == cheapest else 0.0) + val[u]
                     for u, _ in outs)
    return val


class DodgerStudent(BaseStudent):
    """The ``dodger`` student (see the module docstring)."""

    bot_name = "dodger"
    total_budget = DEFAULT_BUDGET
    #: the tie the cost to go charges at every vertex, in gaps
    tie = 1.0
    #: the weight of the model-free cost to go beside the prediction (more while unsure)
    caution = 0.25
    #: how fast old rounds fade from the criminal models' scores
    fade = 0.85

    def __init__(self, edge_list, begin, ends):
        super().__init__(edge_list, begin, ends)
        self.rng = random.Random(random.getrandbits(64))
        self.g: Graph = make_graph(edge_list, begin, ends)
        self.weight: dict[tuple[int, int], float] = dict(self.g.weight)
        self.raised: dict[tuple[int, int], float] = {}
        self.spent = 0.0
        self.rnd = 0
        self.herd = Herd(self.g, self.total_budget, PUBLIC_MODELS)
        self.models = contest_models()
        self.pairs = list(itertools.combinations_with_replacement(sorted(self.models), 2))
        self.fit = {p: 0.0 for p in self.pairs}
        self.rounds_fitted = 0.0
        self.rounds_seen = 0.0
        self.last_counts: dict[int, int] = {}
        self.prev_left = self.total_budget

    @property
    def left(self) -> float:
        """The criminals' combined remaining budget (exact)."""
        return max(0.0, self.total_budget - self.spent)

    def identified(self) -> tuple[str, str]:
        """The pair of criminal models that best explains the raises seen."""
        return max(self.pairs, key=lambda p: (self.fit[p], p == ("dump-tie", "dump-tie"), p))

    # -- what the round showed

    def _round_start(self, counts: dict[int, int], here: int) -> dict[int, int]:
        """The counts at the start of this round: the students still to move stand where they
        started; those who moved before this one stood where the counts showed them at this
        student's last move (the seat order is fixed)."""
        d = self.g.depth[here]
        start = {v: n for v, n in counts.items() if n and self.g.depth[v] == d}
        for v, n in self.last_counts.items():
            if n and self.g.depth[v] == d:
                start[v] = start.get(v, 0) + n
        return start

    def _absorb(self, edge_updates: dict, counts: dict[int, int], here: int) -> None:
        raised = {e: x for e, x in edge_updates.items() if x}
        start = self._round_start(counts, here)
        if self.rnd > 1:  # the students' moves of the last round, on what they saw then
            self.herd.advance(Scene(self.g, self.weight, self.raised, self.prev_left), start)
        view = View(self.g, dict(self.weight), start, self.left / 2, self.rnd)
        preds = {name: _link(model(view)) for name, model in self.models.items()}
        seen = set(raised)
        for p in self.pairs:
            guess = {preds[p[0]], preds[p[1]]} - {None}
            hit = 1.0 if guess == seen else (0.5 if guess & seen else 0.0)
            self.fit[p] = self.fade * self.fit[p] + hit
        best = self.identified()
        self.rounds_seen = self.fade * self.rounds_seen + 1.0
        self.rounds_fitted = (self.fade * self.rounds_fitted
                              + (1.0 if {preds[best[0]], preds[best[1]]} - {None} == seen
                                 else 0.0))
        for e, x in raised.items():
            self.weight[e] = self.weight.get(e, 0) + x
            self.raised[e] = self.raised.get(e, 0) + x
            self.spent += x

    # -- the move

    def _predicted_counts(self, here: int, counts: dict[int, int], scene: Scene,
                          val: dict[int, float]) -> dict[int, int]:
        """The counts at the start of next round, without this student."""
        d = self.g.depth[here]
        nxt: dict[int, int] = {}
        for y, n in counts.items():
            if not n:
                continue
            if self.g.depth[y] != d or y in self.g.end_set:
                nxt[y] = nxt.get(y, 0) + n
                continue
            m = n - (1 if y == here else 0)
            if m <= 0:
                continue
            ms = self.herd.here(y)
            if ms:
                to = self.herd.choice(ms[0], y, scene)
            else:
                to = min(self.g.out[y], key=lambda t: (self.weight[(y, t[0])] + val[t[0]],
                                                       t[0]))[0]
            nxt[to] = nxt.get(to, 0) + m
        return nxt

    def _after(self, u: int, extra: dict, val: dict[int, float]) -> float:
        """The cost from ``u`` after the raises ``extra`` (a forced vertex keeps its price)."""
        if u in self.g.end_set:
            return 0.0
        outs = self.g.out[u]
        if len(outs) == 1:
            z = outs[0][0]
            return self.weight[(u, z)] + max(extra.get((u, z), 0.0), self.left) + val[z]
        return min(self.weight[(u, z)] + extra.get((u, z), 0.0) + val[z] for z, _ in outs)

    def _choose(self, here: int, counts: dict[int, int]) -> int:
        left = self.left
        val = priced_to_go(self.g, self.weight, left, self.tie)
        scene = Scene(self.g, self.weight, self.raised, left)
        nxt = self._predicted_counts(here, counts, scene, val)
        sure = self.rounds_fitted / self.rounds_seen if self.rounds_seen else 0.0
        lam = self.caution + (1 - self.caution) * (1 - sure) * 0.5
        pair = self.identified()
        scored = []
        for u, w in self.g.out[here]:
            c = dict(nxt)
            c[u] = c.get(u, 0) + 1
            view = View(self.g, self.weight, c, left / 2, self.rnd + 1)
            extra: dict[tuple[int, int], float] = {}
            for name in pair:
                mv = self.models[name](view)
                if mv is not None and mv[1] > 0:
                    extra[mv[0]] = extra.get(mv[0], 0.0) + mv[1]
            pred = self._after(u, extra, val)
            cost = self.weight[(here, u)] + (1 - lam) * pred + lam * val[u]
            scored.append((round(cost, 9), u))
        return min(scored)[1]

    def strategy(self, edge_updates, vertex_count, current_vertex):
        self.rnd += 1
        self._absorb(edge_updates, vertex_count, current_vertex)
        pick = self._choose(current_vertex, vertex_count)
        self.last_counts = dict(vertex_count)
        self.prev_left = self.left
        return pick


def _link(move: Move) -> tuple[int, int] | None:
    return None if move is None or move[1] <= 1e-9 else move[0]
