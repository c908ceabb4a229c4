"""Death Run students as a criminal sees them: which common student strategies are in the
field, where each of them stands, and the largest toll each would still pay.

The common student strategies are deterministic functions of what every player sees (the
weights with every raise so far, the criminals' combined budget left), so a criminal that
replays them from the start knows where a student following each one stands. The models:

- ``greedy``: the first link of the cheapest path;
- ``trap``: the cheapest path where entering a vertex with one way out costs a penalty (8);
- ``robust``: the robust DP's policy (:func:`~puzzleproof.encoders.deathrun_robust.robust_choice`,
  the combined budget 200 held against the student).

:class:`Herd` advances each model by the move it would have made in the round just played
and keeps those whose predicted vertex is occupied (a model whose vertex is empty has no
student in the field). Students where no model stands are *unknown* and are taken as an
even mixture of the three. For a link ``(v, u)`` a model at ``v`` takes, the *threshold* is
the largest raise on it after which the model still takes it: the detour gap for the path
models (closed form), found by bisection for the robust one (a raise also lowers the budget
left, which changes its other options' values).
"""

from __future__ import annotations

import math

from puzzleproof.encoders.deathrun_robust import (DEFAULT_BUDGET, DEFAULT_STEP, robust_choice,
                                                   robust_table)
from puzzleproof.models.deathrun import Graph, distances_to_ends

__all__ = ["MODELS", "Scene", "Herd", "TRAP_PENALTY"]

MODELS = ("greedy", "trap", "robust")
TRAP_PENALTY = 8.0


class Scene:
    """The weights, raises and combined budget left that the students see, with the
    distances the path models need (computed once)."""

    def __init__(self, g: Graph, weight: dict, raised: dict, left: float) -> None:
        self.g, self.weight, self.raised, self.left = g, weight, raised, left
        self.dist = distances_to_ends(g, weight)
        self.pdist = self._penalised()

    def _trap(self, v: int) -> bool:
        return v not in self.g.end_set and len(self.g.out.get(v, ())) == 1

    def _penalised(self) -> dict[int, float]:
        d: dict[int, float] = {}
        for v in reversed(self.g.topo):
            if v in self.g.end_set or not self.g.out.get(v):
                d[v] = 0.0 if v in self.g.end_set else math.inf
                continue
            d[v] = min(self.weight[(v, u)] + d[u] + (TRAP_PENALTY if self._trap(u) else 0.0)
                       for u, _ in self.g.out[v])
        return d

    def routes(self, model: str, v: int, extra: tuple | None = None) -> list[tuple[float, int]]:
        """``(cost through u, u)`` for each out-link of ``v`` under a path model, cheapest
        first; ``extra = ((v, u), t)`` adds a raise on one link."""
        out = []
        for u, _ in self.g.out[v]:
            c = self.weight[(v, u)] + (extra[1] if extra and extra[0] == (v, u) else 0.0)
            if model == "greedy":
                c += self.dist[u]
            else:
                c += self.pdist[u] + (TRAP_PENALTY if self._trap(u) else 0.0)
            out.append((c, u))
        return sorted(out)


class Herd:
    """Where each student model stands and what it would pay (see the module docstring)."""

    def __init__(self, g: Graph, total: float = DEFAULT_BUDGET) -> None:
        self.g = g
        self.total = total
        self.table = robust_table(g, total, DEFAULT_STEP, lower=False)
        self.pos = {m: g.begin for m in MODELS}
        self.alive = set(MODELS)

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

    def groups(self, v: int) -> list[tuple[str, float]]:
        """``(model, share of the students at v)``: the models standing there, or an even
        mixture of every model when none does."""
        here = [m for m in MODELS if m in self.alive and self.pos[m] == v]
        ms = here or list(MODELS)
        return [(m, 1.0 / len(ms)) for m in ms]

    def threshold(self, model: str, link: tuple[int, int], scene: Scene, cap: float) -> float:
        """The largest raise (at most ``cap``) on ``link`` after which ``model`` at its tail
        still takes it; ``-1`` if it does not take it now."""
        v, u = link
        if self.choice(model, v, scene) != u:
            return -1.0
        if len(self.g.out[v]) == 1:
            return cap
        if model != "robust":
            r = scene.routes(model, v)
            other = min(c for c, x in r if x != u)
            mine = next(c for c, x in r if x == u)
            return max(0.0, min(cap, other - mine))
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
