"""Death Run students as the other players see them: which common student strategies are in
the field, where each of them stands, and the largest toll each would still pay.

The common student strategies are deterministic functions of what every player sees (the
weights with every raise so far, the criminals' combined budget left), so a player that
replays them from the start knows where a student following each one stands. The models:

- ``greedy``: the first link of the cheapest path;
- ``trap``: the cheapest path where entering a vertex with one way out costs a penalty (8);
- ``robust``: the robust DP's policy (:func:`~puzzleproof.encoders.deathrun_robust.robust_choice`,
  the combined budget 200 held against the student);
- the public contest students (:data:`PUBLIC_MODELS`, the league files of the same names):
  ``minimax4`` (four of its moves against three rounds of modelled raises,
  :class:`FourMoves`), ``refuse`` (the cheapest path that never enters a vertex with one way
  out) and ``fewexit`` (small penalties, 3, 2, 1, for entering a vertex with 1, 2, 3 exits).

:class:`Herd` advances each model by the move it would have made in the round just played
and keeps those whose predicted vertex is occupied (a model whose vertex is empty has no
student in the field). Students where no model stands are *unknown* and are taken as an
even mixture of the models. For a link ``(v, u)`` a model at ``v`` takes, the *threshold* is
the largest raise on it after which the model still takes it: the detour gap for the path
models (closed form), found by bisection for the robust one and by a fixed point checked by
bisection for ``minimax4`` (a raise also lowers the budget left, which changes its other
options' values). :class:`LearningHerd` also learns, game by game, which models the students
it cannot place resemble.
"""

from __future__ import annotations

import math
from collections import OrderedDict

from puzzleproof.encoders.deathrun_robust import (DEFAULT_BUDGET, DEFAULT_STEP, robust_choice,
                                                   robust_table)
from puzzleproof.models.deathrun import Graph, distances_to_ends

__all__ = ["MODELS", "PUBLIC_MODELS", "Scene", "Herd", "LearningHerd", "FourMoves",
           "TRAP_PENALTY", "FEW_EXIT_PENALTY"]

MODELS = ("greedy", "trap", "robust")
#: the models of the public contest field (the league's students among them)
PUBLIC_MODELS = ("minimax4", "refuse", "fewexit", "greedy", "trap", "robust")
TRAP_PENALTY = 8.0
FEW_EXIT_PENALTY = {1: 3.0, 2: 2.0, 3: 1.0}


class FourMoves:
    """The public four-move minimax student (league ``student_minimax4.py``) on fixed
    weights: before each of its next three moves each criminal, at the student's vertex,
    passes, ties the cheapest exit (least weight) to the second (both tying: twice), or at a
    vertex with one way out dumps its budget (half the combined budget left each); the
    student's value is the worst case of its best reply, four links deep, nothing beyond.
    :meth:`of` shares one instance (and its memo) among scenes with the same weights."""

    moves = 4
    _shared: "OrderedDict[tuple, FourMoves]" = OrderedDict()

    def __init__(self, g: Graph, weight: dict) -> None:
        self.g, self.weight = g, weight
        self.memo: dict = {}
        self.exits: dict[int, tuple[list[tuple[int, float]], int, float]] = {}
        for x in g.vertices:
            outs = [(u, float(weight[(x, u)])) for u, _ in g.out[x]]
            if len(outs) >= 2:
                ws = sorted((w, u) for u, w in outs)
                self.exits[x] = (outs, ws[0][1], ws[1][0] - ws[0][0])
            elif outs:
                self.exits[x] = (outs, outs[0][0], math.inf)

    @classmethod
    def of(cls, g: Graph, weight: dict) -> "FourMoves":
        key = (g.fingerprint(), tuple(weight[e] for e in sorted(g.weight)))
        hit = cls._shared.get(key)
        if hit is None:
            hit = cls._shared[key] = cls(g, weight)
            while len(cls._shared) > 32:
                cls._shared.popitem(last=False)
        return hit

    def _replies(self, x: int, b1: float, b2: float) -> list[tuple[float, float, float]]:
        gap = self.exits[x][2]
        if gap == math.inf:  # one way out: each may dump its budget
            return [(0.0, b1, b2), (b1, 0.0, b2), (b2, b1, 0.0), (b1 + b2, 0.0, 0.0)]
        t1, t2 = min(gap, b1), min(gap, b2)
        return [(0.0, b1, b2), (t1, b1 - t1, b2), (t2, b1, b2 - t2),
                (t1 + t2, b1 - t1, b2 - t2)]

    def value(self, x: int, moves: int, b1: float, b2: float) -> float:
        """The worst-case cost of the next ``moves`` links from ``x``."""
        if moves <= 0 or x in self.g.end_set:
            return 0.0
        if b2 < b1:  # the two criminals play the same model: the value is symmetric
            b1, b2 = b2, b1
        key = (x, moves, round(b1, 6), round(b2, 6))
        got = self.memo.get(key)
        if got is not None:
            return got
        outs, cheapest, _ = self.exits[x]
        worst = -math.inf
        for extra, c1, c2 in self._replies(x, b1, b2):
            if extra == 0.0 and (c1, c2) != (b1, b2):
                continue  # a tie of nothing: the same as passing
            best = math.inf
            for u, w in outs:
                c = w + (extra if u == cheapest else 0.0) + self.value(u, moves - 1, c1, c2)
                if c < best:
                    best = c
            if best > worst:
                worst = best
        self.memo[key] = worst
        return worst

    def costs(self, v: int, left: float) -> list[tuple[float, int]]:
        """``(cost, u)`` of each out-link of ``v`` with ``left`` the combined budget."""
        half = max(0.0, left) / 2
        return [(w + self.value(u, self.moves - 1, half, half), u)
                for u, w in self.exits[v][0]]


class Scene:
    """The weights, raises and combined budget left that the students see, with the
    distances the path models need (each computed when first asked for)."""

    def __init__(self, g: Graph, weight: dict, raised: dict, left: float) -> None:
        self.g, self.weight, self.raised, self.left = g, weight, raised, left
        self.dist = distances_to_ends(g, weight)
        self._dists: dict[str, dict[int, float]] = {}
        self._four: FourMoves | None = None

    def forced(self, v: int) -> bool:
        """A vertex with one way out (not an end)."""
        return v not in self.g.end_set and len(self.g.out.get(v, ())) == 1

    def entry(self, model: str, v: int) -> float:
        """What ``model`` adds for entering ``v``."""
        if model == "trap":
            return TRAP_PENALTY if self.forced(v) else 0.0
        if model == "fewexit" and v not in self.g.end_set:
            return FEW_EXIT_PENALTY.get(len(self.g.out.get(v, ())), 0.0)
        if model == "refuse":
            return math.inf if self.forced(v) else 0.0
        return 0.0

    def penalised(self, model: str) -> dict[int, float]:
        """The cheapest cost to an end from each vertex, entries charged by ``model``."""
        if model == "greedy":
            return self.dist
        if model not in self._dists:
            d: dict[int, float] = {}
            for v in reversed(self.g.topo):
                if v in self.g.end_set or not self.g.out.get(v):
                    d[v] = 0.0 if v in self.g.end_set else math.inf
                    continue
                d[v] = min(self.weight[(v, u)] + d[u] + self.entry(model, u)
                           for u, _ in self.g.out[v])
            self._dists[model] = d
        return self._dists[model]

    def four(self) -> FourMoves:
        if self._four is None:
            self._four = FourMoves.of(self.g, self.weight)
        return self._four

    def routes(self, model: str, v: int, extra: tuple | None = None) -> list[tuple[float, int]]:
        """``(cost through u, u)`` for each out-link of ``v`` under a path model (or
        ``minimax4``), cheapest first; ``extra = ((v, u), t)`` adds a raise on one link."""
        def add(u: int) -> float:
            return extra[1] if extra and extra[0] == (v, u) else 0.0

        if model == "minimax4":
            left = self.left - (extra[1] if extra else 0.0)
            return sorted((round(c + add(u), 9), u) for c, u in self.four().costs(v, left))
        if model == "refuse":
            d = self.penalised("refuse")
            out = [(self.weight[(v, u)] + add(u) + d[u], u) for u, _ in self.g.out[v]
                   if not self.forced(u)]
            out = [o for o in out if o[0] < math.inf]
            if out:
                return sorted(out)
            model = "greedy"
        d = self.penalised(model)
        return sorted((self.weight[(v, u)] + add(u) + d[u] + self.entry(model, u), u)
                      for u, _ in self.g.out[v])


class Herd:
    """Where each student model stands and what it would pay (see the module docstring)."""

    def __init__(self, g: Graph, total: float = DEFAULT_BUDGET,
                 models: tuple[str, ...] = MODELS) -> None:
        self.g = g
        self.total = total
        self.models = tuple(models)
        self.table = robust_table(g, total, DEFAULT_STEP, lower=False)
        self.pos = {m: g.begin for m in self.models}
        self.alive = set(self.models)

    def choice(self, model: str, v: int, scene: Scene, extra: tuple | None = None) -> int:
        """The vertex ``model`` moves to from ``v`` (with ``extra``, one more raise)."""
        if model != "robust":
            return self.routes_choice(model, v, scene, extra)
        raised, left = scene.raised, scene.left
        if extra is not None:
            raised = dict(raised)
            raised[extra[0]] = raised.get(extra[0], 0.0) + extra[1]
            left = max(0.0, left - extra[1])
        return robust_choice(self.table, v, raised, left)[0]

    @staticmethod
    def routes_choice(model: str, v: int, scene: Scene, extra: tuple | None) -> int:
        r = scene.routes(model, v, extra)
        best = r[0][0]
        return min(u for c, u in r if c <= best + 1e-12)

    def advance(self, scene: Scene, counts: dict[int, int]) -> None:
        """Each model's move in the round just played (``scene``: what the students saw
        then); a model whose new vertex is empty leaves the field."""
        for m in list(self.alive):
            v = self.pos[m]
            if v in self.g.end_set or not self.g.out.get(v):
                continue
            self.pos[m] = self.choice(m, v, scene)
            if not counts.get(self.pos[m]):
                self.alive.discard(m)

    def here(self, v: int) -> list[str]:
        """The models standing on ``v``."""
        return [m for m in self.models if m in self.alive and self.pos[m] == v]

    def groups(self, v: int) -> list[tuple[str, float]]:
        """``(model, share of the students at v)``: the models standing there, or an even
        mixture of every model when none does."""
        ms = self.here(v) or list(self.models)
        return [(m, 1.0 / len(ms)) for m in ms]

    def threshold(self, model: str, link: tuple[int, int], scene: Scene, cap: float) -> float:
        """The largest raise (at most ``cap``) on ``link`` after which ``model`` at its tail
        still takes it; ``-1`` if it does not take it now."""
        v, u = link
        if self.choice(model, v, scene) != u:
            return -1.0
        if len(self.g.out[v]) == 1:
            return cap
        if model not in ("robust", "minimax4"):
            r = scene.routes(model, v)
            others = [c for c, x in r if x != u]
            if not others:  # refuse: the other exits enter vertices with one way out
                return cap
            mine = next(c for c, x in r if x == u)
            return max(0.0, min(cap, min(others) - mine))
        if model == "minimax4":
            t = self._fixed_point(link, scene, cap)
            if self.choice(model, v, scene, (link, t)) == u:
                return t
            cap = t
        if self.choice(model, v, scene, (link, cap)) == u:
            return cap
        lo, hi = 0.0, cap
        for _ in range(14):
            mid = (lo + hi) / 2
            if self.choice(model, v, scene, (link, mid)) == u:
                lo = mid
            else:
                hi = mid
        return lo

    @staticmethod
    def _fixed_point(link: tuple[int, int], scene: Scene, cap: float) -> float:
        """The gap of ``minimax4`` at ``link``'s tail, recomputed with the budget the raise
        leaves (a few rounds of the fixed point; the caller checks it)."""
        v, u = link
        t = 0.0
        for _ in range(3):
            costs = scene.four().costs(v, scene.left - t)
            mine = next(c for c, x in costs if x == u)
            other = min(c for c, x in costs if x != u)
            t = max(0.0, min(cap, other - mine))
        return t


class LearningHerd(Herd):
    """A :class:`Herd` that also learns, from this game's moves, which models the students
    it cannot place follow.

    A group standing where no model stands is priced as a mixture of the models, each
    weighted by how often it predicted such groups' moves this game (``(1 + hits)^2``, so
    every model keeps a share): after each round, for every vertex where such a group
    stood, each model's move from there (on what the students saw) is a hit when students
    arrived at that link's head (half a hit when another occupied vertex also leads there). So a field of
    cautious students makes the cautious models' thresholds (the gaps they respect) the ones
    that count, and a greedy field the greedy one's.
    """

    def __init__(self, g: Graph, total: float = DEFAULT_BUDGET,
                 models: tuple[str, ...] = PUBLIC_MODELS) -> None:
        super().__init__(g, total, models)
        self.hits = {m: 0.0 for m in self.models}
        self.trials = 0

    def shares(self) -> dict[str, float]:
        """Each model's share of a group no model explains."""
        total = sum((1.0 + h) ** 2 for h in self.hits.values())
        return {m: (1.0 + self.hits[m]) ** 2 / total for m in self.models}

    def groups(self, v: int) -> list[tuple[str, float]]:
        here = self.here(v)
        if here:
            return [(m, 1.0 / len(here)) for m in here]
        return sorted(self.shares().items())

    def observe(self, scene: Scene, counts_before: dict[int, int],
                counts_after: dict[int, int]) -> None:
        """Score the models on the round just played (call before :meth:`advance`):
        ``scene`` is what the students saw, the counts those at the round's start and end."""
        tails: dict[int, list[int]] = {}
        for (a, b) in self.g.weight:
            if counts_before.get(a) and a not in self.g.end_set:
                tails.setdefault(b, []).append(a)
        for v, n in sorted(counts_before.items()):
            if not n or v in self.g.end_set or not self.g.out.get(v) or self.here(v):
                continue
            for m in self.models:
                u = self.choice(m, v, scene)
                if counts_after.get(u, 0):
                    self.hits[m] += 1.0 if tails.get(u) == [v] else 0.5
            self.trials += 1
