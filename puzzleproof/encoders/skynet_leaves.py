"""The two leaf tests of the Skynet searches: positions decided without search.

A position is (agent node, links left, as a bit mask over :class:`~.skynet_reduced.Reduced`'s
links that matter), the player to cut.

- **The invariant** (:func:`edf_holds`, named
  :data:`~puzzleproof.models.skynet_strategy.INVARIANT` in certificates): the free turns the
  player gets (turns on which the agent stands on a node with no gateway link left) before
  the agent can stand on each node with two or more gateway links cover the cuts those
  nodes need, earliest deadline first. Then cutting the agent's gateway link, else a link
  of the nearest such node, wins: the player wins from here.
- **A fixed path** (:func:`fixed_path`, Episode 2 only: region links cannot be cut): a
  node with ``c`` gateway links left that the agent reaches with fewer than ``c - 1`` free
  turns on the way, or a chain through several such nodes (:func:`chain_path`): the agent
  wins from here whatever is cut.

These are the solver's own counts; the certificate checker
(:mod:`puzzleproof.models.skynet_strategy`) has its own and proves each leaf where it
stands. The table search (:mod:`.skynet_table`) ends lines at them, and the certificate
writers (:mod:`.skynet_certify`) write them as leaves.
"""

from __future__ import annotations

import time
from collections import deque

from puzzleproof.encoders.skynet_reduced import Reduced

__all__ = ["free_turns", "edf_holds", "fixed_path", "path_count", "chain_path"]


def free_turns(red: Reduced, a: int, mask: int) -> tuple[dict[int, int], dict[int, int]]:
    """The solver's own count of free turns (the checker has its own): for every region
    node ``d`` the fewest turns on which the player is free (the agent's node has no
    gateway link left) before the agent can stand on ``d``, and a parent for each node on
    such a walk (0-1 breadth-first search)."""
    own, moves = red.own, red.moves
    dist = {a: 0}
    parent: dict[int, int] = {}
    todo = deque([a])
    while todo:
        u = todo.popleft()
        step = 0 if any(mask >> k & 1 for k in own[u]) else 1
        du = dist[u] + step
        for w, j in moves[u]:
            if (j is None or mask >> j & 1) and du < dist.get(w, 1 << 30):
                dist[w] = du
                parent[w] = u
                if step:
                    todo.append(w)
                else:
                    todo.appendleft(w)
    return dist, parent


def _needs(red: Reduced, dist: dict[int, int], mask: int) -> list[tuple[int, int, int]]:
    """(free turns, cuts needed, node) for every reachable node keeping two or more
    gateway links, earliest first."""
    out = []
    for d in red.doubles:
        if d in dist:
            c = sum(mask >> k & 1 for k in red.own[d])
            if c >= 2:
                out.append((dist[d], c - 1, d))
    return sorted(out)


def edf_holds(red: Reduced, a: int, mask: int) -> bool:
    """Whether the free turns cover the cuts the doubles need, earliest deadline first (the
    invariant of :data:`INVARIANT`): then cutting the agent's gateway link, else a link of
    the nearest double, wins from (``a``, ``mask``), player to cut."""
    if not red.doubles:
        return True
    dist, _ = free_turns(red, a, mask)
    total = 0
    for f, c, _ in _needs(red, dist, mask):
        total += c
        if total > f:
            return False
    return True


def fixed_path(red: Reduced, a: int, mask: int) -> list[int] | None:
    """An agent path that wins whatever is cut (Episode 2 only: region links cannot be
    cut): to a node with ``c`` gateway links left that the agent reaches with fewer than
    ``c - 1`` free turns on the way; None when there is none."""
    if red.rule != "ep2" or not red.doubles:
        return None
    dist, parent = free_turns(red, a, mask)
    for f, c, d in _needs(red, dist, mask):
        if c > f:
            path = [d]
            while path[-1] != a:
                path.append(parent[path[-1]])
            return path[::-1]
    return None


def path_count(red: Reduced, mask: int, path: list[int]) -> bool:
    """The solver's own count for a fixed agent path (the checker has its own): some
    prefix ``p0..pi`` has more gateway links left on its distinct nodes than ``i + 1``."""
    seen: set[int] = set()
    total = 0
    for i, v in enumerate(path):
        if v not in seen:
            seen.add(v)
            total += sum(mask >> k & 1 for k in red.own[v])
        if total > i + 1:
            return True
    return False


def chain_path(red: Reduced, a: int, mask: int, depth: int = 4,
               deadline: float | None = None) -> list[int] | None:
    """A fixed agent path through several nodes with two or more gateway links, each
    reached from the last over the fewest free turns, whose count wins
    (:func:`path_count`); None when no chain of up to ``depth`` such nodes does. A search
    over orders of those nodes, cut off when even the best remaining nodes cannot make the
    count win."""
    if red.rule != "ep2" or not red.doubles:
        return None
    dist, parent = free_turns(red, a, mask)
    needs = _needs(red, dist, mask)
    if not needs:
        return None
    gain = {d: c for _, c, d in needs}
    best_gain = max(gain.values())
    trees: dict[int, tuple[dict[int, int], dict[int, int]]] = {}

    def tree(d: int) -> tuple[dict[int, int], dict[int, int]]:
        if d not in trees:
            trees[d] = free_turns(red, d, mask)
        return trees[d]

    def walk(src_parent: dict[int, int], src: int, dst: int) -> list[int]:
        out = [dst]
        while out[-1] != src:
            out.append(src_parent[out[-1]])
        return out[::-1]

    def extend(seq: list[int], path: list[int], score: int) -> list[int] | None:
        if score > 0 and path_count(red, mask, path):
            return path
        if len(seq) >= depth or score + (depth - len(seq)) * best_gain <= 0:
            return None
        if deadline is not None and time.monotonic() > deadline:
            return None
        last = seq[-1]
        dl, pl = tree(last)
        for f, c, d in sorted((dl[d], c, d) for d, c in gain.items()
                              if d not in seq and d in dl):
            nxt = score - f + c
            if nxt + (depth - len(seq) - 1) * best_gain <= 0:
                break  # sorted by free turns: the rest cost more
            got = extend(seq + [d], path + walk(pl, last, d)[1:], nxt)
            if got is not None:
                return got
        return None

    for f, c, d in needs:
        got = extend([d], walk(parent, a, d), c - f)
        if got is not None:
            return got
    return None
