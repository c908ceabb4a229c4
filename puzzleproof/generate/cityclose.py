"""Seeded city maps on which the article's greedy or beam search ends far from the optimum.

Shapes (``kind``):

- ``delaunay``: random points in the unit square joined by a greedy planar triangulation
  (shortest links first, a link kept when it crosses none kept before: planar and
  Delaunay-like, without scipy);
- ``grid``: a grid with holes (cells removed at random while the grid stays connected);
- ``ring``: a ring of cities with a few short chords, the points jittered.

:func:`generate` draws maps until ``count`` are kept: a map is kept when greedy or beam (width
10) ends at least ``min_gap`` (a fraction) above the proved optimum (the DP up to 18 cities,
the compiled exact DP beyond). Each kept map carries its evidence: both totals, the gaps, the
optimum and an optimal order. Everything follows from ``seed``.

Example:
    >>> maps = generate("ring", 9, count=1, seed=3, min_gap=0.0)
    >>> maps[0].evidence["optimum"] <= maps[0].evidence["greedy"]
    True
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from typing import Any

from puzzleproof.clock import Deadline, PerTask
from puzzleproof.models.cityclose import CityMap, Rules, is_connected_mask
from puzzleproof.result import Status

__all__ = ["KINDS", "Generated", "random_map", "generate", "to_json"]

KINDS = ("delaunay", "grid", "ring")


@dataclass
class Generated:
    map: CityMap
    evidence: dict[str, Any]


def _cross(p, q, r, s) -> bool:
    def orient(a, b, c):
        v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
        return (v > 1e-12) - (v < -1e-12)
    if len({p, q, r, s}) < 4:
        return False  # links sharing a city do not cross
    return orient(p, q, r) * orient(p, q, s) < 0 and orient(r, s, p) * orient(r, s, q) < 0


def _planar(points: list[tuple[float, float]]) -> list[tuple[int, int]]:
    n = len(points)
    pairs = sorted(((math.dist(points[i], points[j]), i, j) for i in range(n)
                    for j in range(i + 1, n)))
    kept: list[tuple[int, int]] = []
    for _, i, j in pairs:
        if all(not _cross(points[i], points[j], points[a], points[b]) for a, b in kept):
            kept.append((i, j))
    return kept


def random_map(kind: str, n: int, rng: random.Random) -> CityMap:
    """One random map of about ``n`` cities of the given shape."""
    if kind == "delaunay":
        pts = [(round(rng.random(), 4), round(rng.random(), 4)) for _ in range(n)]
        links = _planar(pts)
        coords = tuple((y * 10, x * 10) for x, y in pts)
    elif kind == "grid":
        cols = max(2, round(math.sqrt(n * 1.4)))
        rows = max(2, math.ceil(n * 1.4 / cols))
        cells = [(r, c) for r in range(rows) for c in range(cols)]
        alive = set(cells)
        order = cells[:]
        rng.shuffle(order)
        for cell in order:
            if len(alive) <= n:
                break
            trial = alive - {cell}
            if _grid_connected(trial):
                alive = trial
        cells = sorted(alive)
        index = {c: i for i, c in enumerate(cells)}
        links = [(index[(r, c)], index[(r + dr, c + dc)]) for r, c in cells
                 for dr, dc in ((0, 1), (1, 0)) if (r + dr, c + dc) in index]
        coords = tuple((-float(r), float(c)) for r, c in cells)
    elif kind == "ring":
        pts = []
        for i in range(n):
            a = 2 * math.pi * i / n
            rad = 1 + rng.uniform(-0.25, 0.25)
            pts.append((rad * math.cos(a), rad * math.sin(a)))
        links = [(i, (i + 1) % n) for i in range(n)]
        for _ in range(max(1, n // 5)):
            i = rng.randrange(n)
            j = (i + rng.choice((2, 3))) % n
            key = (min(i, j), max(i, j))
            if key not in links and (key[1], key[0]) not in links:
                links.append(key)
        coords = tuple((y, x) for x, y in pts)
    else:
        raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    names = tuple(f"c{i:02d}" for i in range(len(coords)))
    norm = sorted({(min(a, b), max(a, b)) for a, b in links})
    return CityMap(names, tuple(norm), coords)


def _grid_connected(cells: set[tuple[int, int]]) -> bool:
    if not cells:
        return False
    start = next(iter(cells))
    seen = {start}
    stack = [start]
    while stack:
        r, c = stack.pop()
        for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if nb in cells and nb not in seen:
                seen.add(nb)
                stack.append(nb)
    return len(seen) == len(cells)


def _optimum(m: CityMap, rules: Rules, deadline: Deadline):
    from puzzleproof.encoders.cityclose_dp import dp

    if m.n <= 18:
        return dp(m, rules, deadline=deadline)
    from puzzleproof.verify.cityclose_methods import run, warm_exact

    warm_exact()  # compile outside the time limit (see warm_exact)
    return run("exact", m, rules, deadline=deadline)


def _judge(m: CityMap, rules: Rules, per_map: PerTask) -> dict | str:
    """Greedy's and beam's totals against the proved optimum on one drawn map (else why
    not: ``"disconnected"``, or ``"unproved"`` when its optimum is not proved); the judging
    runs against ``per_map``'s deadline, started here."""
    from puzzleproof.players import cityclose_article as H

    deadline = per_map.start()
    if not is_connected_mask(m.adj, m.full_mask):
        return "disconnected"
    g = H.greedy(m, rules, deadline=deadline)
    b = H.beam(m, rules, deadline=deadline)
    opt = _optimum(m, rules, deadline)
    if opt.status != Status.OPTIMAL or g.answer is None or b.answer is None:
        return "unproved"
    best = opt.answer["total"]
    return {"greedy": g.answer, "beam": b.answer, "optimum": best,
            "optimal_order": opt.answer["order"], "optimum_by": opt.solver}


def generate(kind: str, n: int, count: int = 1, seed: int = 0, min_gap: float = 0.01,
             rules: Rules | None = None, max_tries: int = 500,
             per_map: PerTask = PerTask(60.0), jobs: Any = 1,
             progress: Any = None, dropped: dict[str, int] | None = None
             ) -> list[Generated]:
    """Up to ``count`` maps where greedy or beam ends at least ``min_gap`` above the proved
    optimum (see the module docstring); fewer when ``max_tries`` draws run out.

    Each drawn map is judged against its own deadline, started from ``per_map`` when its
    judging starts (the default gives each map 60 s); a map whose optimum is not proved in
    it is dropped.

    Maps are drawn in order from ``seed`` and judged on ``jobs`` (local processes or an
    :class:`~puzzleproof.executor.ExecutorSpec`) a round at a time; the first ``count`` kept
    in draw order are returned, so any executor gives the same maps. ``progress(kept,
    draws)`` after each round; ``dropped`` counts the maps dropped by reason (``disconnected``;
    ``unproved``: its optimum not proved within ``per_map``; ``gap``: greedy and beam both
    within ``min_gap``), so that a short run can say why."""
    from puzzleproof import executor

    rules = rules or Rules()
    rng = random.Random(seed)
    out: list[Generated] = []
    attempt = 0
    with executor.open_pool(jobs) as pool:
        while len(out) < count and attempt < max_tries:
            batch = []
            for _ in range(2 * pool.slots if pool.spec.parallel else 1):
                if attempt >= max_tries:
                    break
                batch.append((attempt, random_map(kind, n, rng)))
                attempt += 1
            judged = {}
            for (k, m), res in pool.stream(_judge, batch, args=lambda t: (t[1], rules,
                                                                         per_map),
                                           name=lambda t: f"draw {t[0]}"):
                if isinstance(res, executor.TaskFailure):
                    raise RuntimeError(res.message)
                judged[k] = (m, res)
            for k in sorted(judged):
                m, res = judged[k]
                if len(out) >= count:
                    continue
                if isinstance(res, str):
                    _tally(dropped, res)
                    continue
                best = res["optimum"]
                g, b = res["greedy"], res["beam"]
                gg = (g["total"] - best) / best if best else 0.0
                gb = (b["total"] - best) / best if best else 0.0
                if max(gg, gb) < min_gap:
                    _tally(dropped, "gap")
                    continue
                name = f"{kind}{n}-s{seed}-{k}"
                m = CityMap(m.names, m.links, m.coords, name=name)
                out.append(Generated(m, {
                    "kind": kind, "cities": m.n, "seed": seed, "draw": k,
                    "rules": rules.to_dict(), "greedy": g["total"], "beam": b["total"],
                    "optimum": best, "greedy_gap": round(gg, 6), "beam_gap": round(gb, 6),
                    "optimal_order": res["optimal_order"], "optimum_by": res["optimum_by"],
                    "greedy_order": g["order"], "beam_order": b["order"]}))
            if progress:
                progress(len(out), attempt)
    return out


def _tally(dropped: dict[str, int] | None, why: str) -> None:
    if dropped is not None:
        dropped[why] = dropped.get(why, 0) + 1


def to_json(gen: Generated) -> str:
    """The map as a city-map JSON file (``cities`` with lat/lng, ``edges``) with its
    ``evidence``; the readers ignore the extra field."""
    m = gen.map
    obj: dict[str, Any] = {"type": "cityclose", "name": m.name,
                           "cities": [{"name": nm, "lat": m.coords[i][0], "lng": m.coords[i][1]}
                                      if m.coords else nm for i, nm in enumerate(m.names)],
                           "edges": [[m.names[u], m.names[v]] for u, v in m.links],
                           "evidence": gen.evidence}
    return json.dumps(obj, indent=1) + "\n"
