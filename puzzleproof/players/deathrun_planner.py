"""Death Run's ``planner`` student: it identifies the two criminals' strategies from what they
did, plans three rounds ahead against their predicted raises and the crowd it can see, and
keeps the robust policy's certificate within a fixed slack.

**What it infers.** The criminals' *combined* remaining budget is exact: every raise is shown
to every student in the round it is made, so it is ``2 x 100`` minus the sum of every update
seen (:attr:`PlannerStudent.left`). Which strategy each criminal follows is learned: the
common strategies (:mod:`puzzleproof.players.deathrun_criminal_models`: the gap-toll of the public
description, the built-in gap-toll, all in on a forced link, the crowd criminals, the
single-round toll optimum, doing nothing) are run on the state the criminals saw at the
start of each round (the weights before the round's raises and the vertex counts then,
rebuilt from what the student saw) and scored on whether they predicted a raise that was
made. The two best-scoring models stand for the two criminals. How the combined budget
splits between them is an *estimate* (:attr:`PlannerStudent.split`): each raise is charged
to the criminal whose model predicted it (else to the one holding more), never below zero.

**What it plans against.** For each of its paths three moves deep it predicts, round by
round, where the other students stand (one still to move this round takes its cheapest
link; the others follow their cheapest paths), runs the two models on those counts with
itself on the path, and pays the predicted raises on the links it would cross, choosing
at each vertex the cheapest continuation after the raise (a dynamic program over (round,
vertex)). Beyond the horizon it counts the cheapest path on the current weights. Raises it
cannot explain (its models are unsure: after 4 raises, under a quarter predicted) make it
fall back to the robust move. The plan's cost is blended with the worst case over the
plausible strikes at its own vertex (weight ``caution``, 0.3), so a wrong model costs little.

**The certificate it keeps.** The robust student's guarantee ``cost so far + U(here, held
budget)`` (:mod:`puzzleproof.encoders.deathrun_robust`) never increases under the robust
policy. The planner takes a move whose guarantee is above the robust move's only while the
sum of those increases stays within ``slack`` (default 60); so its realised cost is at most
the robust bound + ``slack`` against *any* criminals.
"""

from __future__ import annotations

import math
import random

from puzzleproof.encoders.deathrun_robust import (DEFAULT_BUDGET, DEFAULT_STEP, robust_choice,
                                                   robust_table)
from puzzleproof.models.deathrun import BaseStudent, Graph, distances_to_ends, make_graph
from puzzleproof.players.deathrun_criminal_models import Move, View, partner_models

__all__ = ["PlannerStudent"]


class PlannerStudent(BaseStudent):
    """The ``planner`` student (see the module docstring)."""

    bot_name = "planner"
    total_budget = DEFAULT_BUDGET
    step = DEFAULT_STEP
    depth = 3
    #: measured in a mixed field (planner, robust, minimax, trap students against the pricer,
    #: toll and the two gap-tolls): 30 left it level with the minimax student, 60 about 3.5
    #: ahead (100 no better)
    slack = 60.0
    #: the models are unsure when, after this many raises, fewer than ``min_fit`` of them
    #: were predicted
    min_raises = 4
    min_fit = 0.25
    #: the weight of the worst case in the plan (1 - it: the models' prediction)
    caution = 0.3

    def __init__(self, edge_list, begin, ends):
        super().__init__(edge_list, begin, ends)
        self.rng = random.Random(random.getrandbits(64))
        self.g: Graph = make_graph(edge_list, begin, ends)
        self.table = robust_table(self.g, self.total_budget, self.step, lower=False)
        self.bound = self.table.bound()
        self.weight: dict[tuple[int, int], float] = dict(self.g.weight)
        self.raised: dict[tuple[int, int], float] = {}
        self.spent = 0.0
        self.cost = 0.0
        self.guarantee = self.bound
        self.slack_used = 0.0
        self.models = partner_models()
        self.hits = {name: 0.0 for name in self.models}
        self.budgets = [self.total_budget / 2, self.total_budget / 2]
        self.raises_seen = 0
        self.raises_fitted = 0
        self.last_counts: dict[int, int] = {}
        self.last_depth = -1
        self.rnd = 0
        self.fallbacks = 0

    # -- what the student infers

    @property
    def left(self) -> float:
        """The criminals' combined remaining budget (exact)."""
        return max(0.0, self.total_budget - self.spent)

    @property
    def split(self) -> tuple[float, float]:
        """Each criminal's remaining budget: an estimate (see the module docstring)."""
        return self.budgets[0], self.budgets[1]

    def identified(self) -> list[str]:
        """The two models that best explain the raises seen, best first."""
        order = sorted(self.models, key=lambda m: (-self.hits[m], m != "gap-toll (described)",
                                                   m))
        return order[:2]

    def unsure(self) -> bool:
        return (self.raises_seen >= self.min_raises
                and self.raises_fitted < self.min_fit * self.raises_seen)

    def _round_start_counts(self, counts: dict[int, int], here: int) -> dict[int, int]:
        """The counts the criminals saw this round: the students still to move stand where
        they started; those who moved before this student started where they ended last
        round (the seat order is fixed), which this student saw then."""
        d = self.g.depth[here]
        start = {v: n for v, n in counts.items() if n and self.g.depth[v] == d}
        if self.last_depth >= 0:
            for v, n in self.last_counts.items():
                if n and self.g.depth[v] == d and v not in start:
                    start[v] = n
        return start

    def _absorb(self, edge_updates: dict, counts: dict[int, int], here: int) -> None:
        raised = {e: x for e, x in edge_updates.items() if x}
        before = dict(self.weight)
        for e, x in raised.items():
            self.weight[e] = self.weight.get(e, 0) + x
            self.raised[e] = self.raised.get(e, 0) + x
            self.spent += x
        start = self._round_start_counts(counts, here)
        order = self.identified()
        preds: dict[str, Move] = {}
        for name, model in self.models.items():
            b = max(self.budgets) if name in order[:1] else min(self.budgets)
            preds[name] = model(View(self.g, before, start, b, self.rnd))
            p = preds[name]
            if p is not None and p[1] <= 1e-9:
                p = preds[name] = None
            hit = (p is not None and p[0] in raised) or (p is None and not raised)
            self.hits[name] = 0.85 * self.hits[name] + (1.0 if hit else 0.0)
        self._charge(raised, preds, order)

    def _charge(self, raised: dict, preds: dict[str, Move], order: list[str]) -> None:
        """Share the round's raises between the two criminals (an estimate)."""
        free = [True, True]
        for e, x in sorted(raised.items(), key=lambda t: -t[1]):
            self.raises_seen += 1
            who = None
            for k, name in enumerate(order):
                p = preds.get(name)
                if p is not None and p[0] == e and free[k]:
                    who = k
                    break
            if who is not None:
                self.raises_fitted += 1
            else:
                cands = [k for k in (0, 1) if free[k]] or [0, 1]
                who = max(cands, key=lambda k: (self.budgets[k], -k))
            free[who] = False
            self.budgets[who] -= x
            if self.budgets[who] < 0:
                self.budgets[1 - who] = max(0.0, self.budgets[1 - who] + self.budgets[who])
                self.budgets[who] = 0.0
        total = sum(self.budgets)
        if total > 0 and abs(total - self.left) > 1e-6:
            self.budgets = [b * self.left / total for b in self.budgets]
        elif total <= 0:
            self.budgets = [self.left / 2, self.left / 2]

    # -- the plan

    def _crowd(self, here: int, counts: dict[int, int], dist: dict[int, float]
               ) -> list[dict[int, int]]:
        """The other students' predicted counts at the start of each of the next rounds."""
        d = self.g.depth[here]
        pos: list[int] = []
        for v, n in counts.items():
            pos += [v] * max(0, n - (1 if v == here else 0))

        def step(v: int) -> int:
            if v in self.g.end_set:
                return v
            return min(self.g.out[v], key=lambda t: (self.weight[(v, t[0])] + dist[t[0]],
                                                     t[0]))[0]

        out = []
        cur = [v if self.g.depth[v] > d else step(v) for v in pos]
        for _ in range(self.depth):
            c: dict[int, int] = {}
            for v in cur:
                c[v] = c.get(v, 0) + 1
            out.append(c)
            cur = [step(v) for v in cur]
        return out

    def _raises(self, k: int, v: int, crowd: list[dict[int, int]], dist) -> dict:
        """The predicted raises at the start of planned round ``k`` with this student on
        ``v`` (cached per (round, vertex))."""
        key = (k, v)
        if key in self._cache:
            return self._cache[key]
        counts = dict(crowd[k])
        counts[v] = counts.get(v, 0) + 1
        view_budgets = sorted(self.budgets, reverse=True)
        out: dict[tuple[int, int], float] = {}
        for name, b in zip(self.identified(), view_budgets):
            p = self.models[name](View(self.g, self.weight, counts, b, self.rnd + k + 1, dist))
            if p is not None and p[1] > 0:
                out[p[0]] = out.get(p[0], 0.0) + p[1]
        self._cache[key] = out
        return out

    def _value(self, k: int, v: int, crowd, dist) -> float:
        """Expected cost from ``v`` at the start of planned round ``k``."""
        if v in self.g.end_set:
            return 0.0
        if k >= self.depth:
            return dist[v]
        key = (k, v)
        if key in self._memo:
            return self._memo[key]
        extra = self._raises(k, v, crowd, dist)
        best = min(self.weight[(v, u)] + extra.get((v, u), 0.0)
                   + self._value(k + 1, u, crowd, dist) for u, _ in self.g.out[v])
        self._memo[key] = best
        return best

    def _worst(self, v: int, k: int, b: tuple[float, float], dist) -> float:
        """The cost from ``v`` when each criminal, before each of the student's moves, either
        does nothing or strikes the student's own vertex (everything on a forced link,
        else the cheapest link raised just under its gap): the worst case, ``depth`` moves
        deep, then the cheapest path."""
        if v in self.g.end_set:
            return 0.0
        key = (v, k, round(b[0], 6), round(b[1], 6))
        if key in self._wmemo:
            return self._wmemo[key]
        outs = self.g.out[v]
        routes = sorted((self.weight[(v, u)] + dist[u], u) for u, _ in outs)
        gap = routes[1][0] - routes[0][0] if len(routes) > 1 else math.inf
        worst = -math.inf
        for s1 in (False, True):
            for s2 in (False, True):
                extra, left = 0.0, [b[0], b[1]]
                for c, strike in enumerate((s1, s2)):
                    if not strike or left[c] <= 0:
                        continue
                    x = left[c] if gap == math.inf else min(left[c], max(0.0, gap - 0.01))
                    if gap == math.inf or extra + x < gap:
                        extra += x
                        left[c] -= x
                nb = (left[0], left[1])
                best = min(self.weight[(v, u)] + (extra if u == routes[0][1] else 0.0)
                           + (dist[u] if k + 1 >= self.depth else self._worst(u, k + 1, nb, dist))
                           for u, _ in outs)
                worst = max(worst, best)
        self._wmemo[key] = worst
        return worst

    def _choose(self, here: int, counts: dict[int, int]) -> int:
        dist = distances_to_ends(self.g, self.weight)
        crowd = self._crowd(here, counts, dist)
        self._cache: dict = {}
        self._memo: dict = {}
        self._wmemo: dict = {}
        lam = self.caution
        b = (self.budgets[0], self.budgets[1])
        scored = []
        for u, _ in self.g.out[here]:
            plan = self._value(0, u, crowd, dist) if lam < 1 else 0.0
            worst = self._worst(u, 1, b, dist) if lam > 0 else 0.0
            scored.append((self.weight[(here, u)] + (1 - lam) * plan + lam * worst, u))
        return min(scored)[1]

    def strategy(self, edge_updates, vertex_count, current_vertex):
        self.rnd += 1
        self._absorb(edge_updates, vertex_count, current_vertex)
        safe, safe_val = robust_choice(self.table, current_vertex, self.raised, self.left)
        pick = safe
        if self.unsure():
            self.fallbacks += 1
        else:
            pick = self._choose(current_vertex, vertex_count)
        val = safe_val
        if pick != safe:
            val = self._guarantee_of(current_vertex, pick)
            if val - safe_val > self.slack - self.slack_used + 1e-9:
                pick, val = safe, safe_val
                self.fallbacks += 1
            else:
                self.slack_used += max(0.0, val - safe_val)
        self.guarantee = self.cost + val
        self.cost += self.weight[(current_vertex, pick)]
        self.last_counts = dict(vertex_count)
        self.last_depth = self.g.depth[current_vertex]
        return pick

    def _guarantee_of(self, v: int, u: int) -> float:
        """What the robust table guarantees from ``v`` after moving to ``u``."""
        held = self.left + sum(x for (a, _b), x in self.raised.items()
                               if x and a in self.table.reach[u])
        return self.g.weight[(v, u)] + self.raised.get((v, u), 0) + self.table.value(u, held)
