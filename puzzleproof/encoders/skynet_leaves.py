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

from collections import deque

from puzzleproof.clock import Deadline
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


def _walk(parent: dict[int, int], src: int, dst: int) -> list[int]:
    """The walk from ``src`` to ``dst`` along a free-turn search's ``parent`` links."""
    out = [dst]
    while out[-1] != src:
        out.append(parent[out[-1]])
    return out[::-1]


def chain_path(red: Reduced, a: int, mask: int, depth: int = 4,
               deadline: Deadline | None = None, stale: bool = False) -> list[int] | None:
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
    chain = _Chain(red, mask, depth, deadline, stale, {d: c for _, c, d in needs})
    for f, c, d in needs:
        got = chain.first(_walk(parent, a, d), d, c - f)
        if got is not None:
            return got
    return None


class _Chain:
    """The search of :func:`chain_path`: orders of the nodes with two or more gateway
    links, the path's count kept as it grows (``seen``: its distinct nodes)."""

    def __init__(self, red: Reduced, mask: int, depth: int, deadline: Deadline | None,
                 stale: bool, gain: dict[int, int]) -> None:
        self.red, self.mask, self.depth, self.deadline = red, mask, depth, deadline
        self.gain, self.best = gain, max(gain.values())
        self.at = (1 << red.K) - 1 if stale else mask
        self.legs_of = red.scratch.setdefault("stale_legs", {}) if stale else {}
        self.seen: set[int] = set()

    def legs(self, last: int) -> list[tuple[int, int, list[int]]]:
        """(free turns, node, the walk there) from ``last`` to every node with two or more
        gateway links, nearest first."""
        if last not in self.legs_of:
            dl, pl = free_turns(self.red, last, self.at)
            self.legs_of[last] = sorted((dl[d], d, _walk(pl, last, d)[1:])
                                        for d in self.red.doubles if d in dl and d != last)
        return self.legs_of[last]

    def count(self, leg: list[int], start: int, total: int) -> tuple[int, bool, list[int]]:
        """The path's count after ``leg`` (its nodes from index ``start`` on), whether
        some prefix won, and the nodes newly seen (to forget on the way back)."""
        own, mask, seen = self.red.own_mask, self.mask, self.seen
        new = []
        for i, v in enumerate(leg, start):
            if v not in seen:
                seen.add(v)
                new.append(v)
                total += (own[v] & mask).bit_count()
                if total > i + 1:
                    return total, True, new
        return total, False, new

    def first(self, walk: list[int], d: int, score: int) -> list[int] | None:
        total, won, new = self.count(walk, 0, 0)
        got = walk if won else self.extend([d], walk, score, total)
        self.seen.difference_update(new)
        return got

    def extend(self, seq: list[int], path: list[int], score: int, total: int
               ) -> list[int] | None:
        depth, gain, best = self.depth, self.gain, self.best
        if len(seq) >= depth or score + (depth - len(seq)) * best <= 0:
            return None
        if self.deadline is not None and self.deadline.expired():
            return None
        for f, d, leg in self.legs(seq[-1]):
            if d in seq or d not in gain:
                continue
            nxt = score - f + gain[d]
            if nxt + (depth - len(seq) - 1) * best <= 0:
                break  # sorted by free turns: the rest cost more
            t2, won, new = self.count(leg, len(path), total)
            got = path + leg if won else self.extend(seq + [d], path + leg, nxt, t2)
            self.seen.difference_update(new)
            if got is not None:
                return got
        return None
