"""Seeded tiny Hashi puzzles for tests: clues from a random bridge layout, sometimes perturbed."""

from __future__ import annotations

import random

from puzzleproof.models.hashi import Island, Puzzle


def tiny_puzzle(rng: random.Random, max_side: int = 5, max_bridges: int = 2,
                adjacent: bool = True, perturb: float = 0.25, unknown: float = 0.0) -> Puzzle:
    """A puzzle of at most ``max_side`` x ``max_side`` built by growing a random layout of
    bridges (so it has at least one solution), then with probability ``perturb`` one clue is
    changed (so some have none). Adjacent islands appear when ``adjacent``; each clue is
    hidden (``None``, puzz.link's ``.``) with probability ``unknown``."""
    w, h = rng.randint(2, max_side), rng.randint(2, max_side)
    start = (rng.randrange(w), rng.randrange(h))
    cells, water_used, deg = {start}, set(), {start: 0}
    target = rng.randint(2, max(2, (w * h) // 3))
    for _ in range(60):
        if len(cells) >= target:
            break
        x, y = rng.choice(sorted(cells))
        dx, dy = rng.choice(((1, 0), (-1, 0), (0, 1), (0, -1)))
        length = rng.randint(1 if adjacent else 2, max(w, h))
        end = (x + dx * length, y + dy * length)
        path = [(x + dx * k, y + dy * k) for k in range(1, length)]
        if not (0 <= end[0] < w and 0 <= end[1] < h) or end in cells or end in water_used:
            continue
        if any(c in cells or c in water_used for c in path):
            continue
        k = rng.randint(1, max_bridges)
        cells.add(end)
        water_used.update(path)
        deg[end] = k
        deg[(x, y)] += k
    if rng.random() < 0.15:  # an extra island in an empty cell, with a random clue
        free = [(x, y) for x in range(w) for y in range(h) if (x, y) not in cells
                and (x, y) not in water_used]
        if free:
            c = rng.choice(free)
            cells.add(c)
            deg[c] = rng.randint(1, 2 * max_bridges)
    clues = dict(deg)
    if rng.random() < perturb:
        c = rng.choice(sorted(clues))
        clues[c] = max(1, min(4 * max_bridges, clues[c] + rng.choice((-1, 1))))
    islands = tuple(Island(x, y, None if rng.random() < unknown else max(1, clues[(x, y)]))
                    for x, y in cells)
    return Puzzle(w, h, islands, max_bridges)
