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


FREE_TURNS_CACHE = 1024  # free-turn searches kept per region (a few tens of kB each)


def free_turns(red: Reduced, a: int, mask: int) -> tuple[dict[int, int], dict[int, int]]:
    """The solver's own count of free turns (the checker has its own): for every region
    node ``d`` the fewest turns on which the player is free (the agent's node has no
    gateway link left) before the agent can stand on ``d``, and a parent for each node on
    such a walk (0-1 breadth-first search). The answer depends on ``mask`` only through
    the nodes left without a gateway link and the region's links left, so it is kept per
    region under that key (the searches ask again and again after cuts that change
    neither); callers must not change it."""
    cache = red.scratch.setdefault("free_turns", {})
    key = (a, _shape(red, mask))
    got = cache.get(key)
    if got is None:
        if len(cache) >= FREE_TURNS_CACHE:
            cache.pop(next(iter(cache)))
        got = cache[key] = _free_turns(red, a, mask)
    return got


def _shape(red: Reduced, mask: int) -> tuple[int, int]:
    """What a free-turn search reads of ``mask``: which nodes with gateway links have none
    left (a bit per such node), and the region's own links left (none under ``ep2``)."""
    bare = 0
    for i, bits in enumerate(red.own_bits):
        if not mask & bits:
            bare |= 1 << i
    return bare, mask & red.move_bits


def _free_turns(red: Reduced, a: int, mask: int) -> tuple[dict[int, int], dict[int, int]]:
    own, moves = red.own_mask, red.moves
    dist = {a: 0}
    parent: dict[int, int] = {}
    todo = deque([a])
    far = 1 << 30
    while todo:
        u = todo.popleft()
        step = 0 if own[u] & mask else 1
        du = dist[u] + step
        for w, j in moves[u]:
            if du < dist.get(w, far) and (j is None or mask >> j & 1):
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
    own = red.own_mask
    seen: set[int] = set()
    total = 0
    for i, v in enumerate(path):
        if v not in seen:  # a node seen before adds nothing: the prefix only got longer
            seen.add(v)
            total += (own[v] & mask).bit_count()
            if total > i + 1:
                return True
    return False


def _stale_legs(red: Reduced) -> dict[int, list[tuple[int, int, list[int]]]]:
    """The legs of :func:`chain_path` with every link there, kept for the region."""
    return red.scratch.setdefault("stale_legs", {})


def chain_path(red: Reduced, a: int, mask: int, depth: int = 4,
               deadline: float | None = None, stale: bool = False) -> list[int] | None:
    """A fixed agent path through several nodes with two or more gateway links, each
    reached from the last over the fewest free turns, whose count wins
    (:func:`path_count`); None when no chain of up to ``depth`` such nodes does. A search
    over orders of those nodes, cut off when even the best remaining nodes cannot make the
    count win.

    ``stale``: the legs between those nodes follow their free-turn searches with every
    link there (one search per node for the whole region, not one per position). Cuts only
    make walks cost more free turns, so those distances are too low, never too high: the
    cut-off stays sound, and every path found is counted again on ``mask``; a chain whose
    legs would need other walks may be missed."""
    if red.rule != "ep2" or not red.doubles:
        return None
    dist, parent = free_turns(red, a, mask)
    needs = _needs(red, dist, mask)
    if not needs:
        return None
    gain = {d: c for _, c, d in needs}
    best_gain = max(gain.values())

    def walk(src_parent: dict[int, int], src: int, dst: int) -> list[int]:
        out = [dst]
        while out[-1] != src:
            out.append(src_parent[out[-1]])
        return out[::-1]

    legs_of = _stale_legs(red) if stale else {}

    def legs(last: int) -> list[tuple[int, int, list[int]]]:
        """(free turns, double, the walk there) from ``last`` to every double, nearest
        first."""
        if last not in legs_of:
            dl, pl = free_turns(red, last, (1 << red.K) - 1 if stale else mask)
            legs_of[last] = sorted((dl[d], d, walk(pl, last, d)[1:]) for d in red.doubles
                                   if d in dl and d != last)
        return legs_of[last]

    own = red.own_mask
    seen: set[int] = set()

    def count(leg: list[int], start: int, total: int) -> tuple[int, bool, list[int]]:
        """The path's count after ``leg`` (its nodes from index ``start`` on), whether
        some prefix won, and the nodes newly seen (to forget on the way back)."""
        new = []
        for i, v in enumerate(leg, start):
            if v not in seen:
                seen.add(v)
                new.append(v)
                total += (own[v] & mask).bit_count()
                if total > i + 1:
                    return total, True, new
        return total, False, new

    def extend(seq: list[int], path: list[int], score: int, total: int) -> list[int] | None:
        if len(seq) >= depth or score + (depth - len(seq)) * best_gain <= 0:
            return None
        if deadline is not None and time.monotonic() > deadline:
            return None
        for f, d, leg in legs(seq[-1]):
            if d in seq or d not in gain:
                continue
            nxt = score - f + gain[d]
            if nxt + (depth - len(seq) - 1) * best_gain <= 0:
                break  # sorted by free turns: the rest cost more
            t2, won, new = count(leg, len(path), total)
            got = path + leg if won else extend(seq + [d], path + leg, nxt, t2)
            seen.difference_update(new)
            if got is not None:
                return got
        return None

    for f, c, d in needs:
        first = walk(parent, a, d)
        total, won, new = count(first, 0, 0)
        got = first if won else extend([d], first, c - f, total)
        seen.difference_update(new)
        if got is not None:
            return got
    return None
