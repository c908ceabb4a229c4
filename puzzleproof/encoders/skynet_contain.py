"""Upper bounds for the Skynet value: a containment search guided by minimum cuts.

The value of an ``ep1`` game (fewest cuts that contain the agent whatever it does) is
bracketed by the SAT solver (:mod:`.skynet_sat`): a refuted "contain within H cuts?" proves
value > H. The other side needs a player strategy that contains the agent within H cuts;
the verdict strategy gives one, but it is built to keep the agent off the gateways, not to
contain it fast, and proving a tight H by CEGAR means covering every agent line with the
proposer's tree (slow: map 04 at H = 8 is not done in 200 s).

This module finds such strategies directly: a depth-bounded AND-OR search over
(agent, links left), asked one horizon at a time (:mod:`.skynet_sat` asks it at each
horizon before SAT; the memo carries over). The player tries the agent's own gateway link
when it has one (forced), else the links of the minimum cuts between the agent (and each
node it may move to) and the gateways first, then the links of nodes that still have two
gateway links, then every other link, nearest the agent first; a position is given up when
its minimum cut is larger than the cuts left. That is a pruning rule, not a theorem: it
can cut away real strategies (a two-level star with five spokes is contained in 3 cuts
although the agent's node has a minimum cut of 5), so the search may miss the value.
Whatever it finds is a real strategy - written out as a certificate and replayed by the
rules-only checker before it counts - so it is an upper bound on the value; not finding
one proves nothing, and is never reported as a bound (the lower side comes from the SAT
refutations).
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from puzzleproof.clock import Deadline

__all__ = ["ContainSearch", "contained"]

SINK = -1


def contained(red: Any, a: int, mask: int) -> bool:
    """No gateway link left within the agent's reach (``mask``: the links that matter
    still there; ``red`` a :class:`~puzzleproof.encoders.skynet_reduced.Reduced`)."""
    seen = {a}
    queue = deque([a])
    while queue:
        u = queue.popleft()
        if any(mask >> k & 1 for _, k in red.gate_links[u]):
            return False
        for w, k in red.moves[u]:
            if (k is None or mask >> k & 1) and w not in seen:
                seen.add(w)
                queue.append(w)
    return True


class _OutOfBudget(Exception):
    pass


class ContainSearch:
    """Searches for a player strategy that contains the agent within ``h`` cuts, for the
    region of a :class:`~puzzleproof.encoders.skynet_reduced.Reduced` (any rule; under ``ep2``
    only gateway links are cuttable). What is learnt is kept between calls (memo on
    (agent, links left)), so asking again with a larger ``h`` is cheap."""

    def __init__(self, red: Any) -> None:
        self.red = red
        self.good: dict[tuple[int, int], tuple[int, int]] = {}  # -> (depth bound, cut)
        self.bad: dict[tuple[int, int], int] = {}  # -> largest h known to fail
        # (agent, links left) -> (flow, the cuts' links, the limit it was computed under)
        self.flow_memo: dict[tuple[int, int], tuple[int, tuple[int, ...], int]] = {}
        self.deadline: Deadline | None = None  # of the running search
        self.max_positions = 0
        self.positions = 0
        # arcs: node -> [(other end, link index or None when it cannot be cut)]
        self.arcs: dict[int, list[tuple[int, int | None]]] = {}
        for u in red.region:
            self.arcs[u] = list(red.moves[u]) + [(SINK, k) for _, k in red.gate_links[u]]
        # the flow network: nodes 0..n-1 as on the map, the gateways merged into the sink
        # n; arcs in pairs (arc i ^ 1 is its reverse); an undirected link is one pair with
        # capacity 1 each way, a gateway link a pair u -> sink (1) and back (0)
        n = red.m.n
        self.sink = n
        self.head: list[int] = []
        self.cap0: list[int] = []  # capacity (before the limit for uncuttable links)
        self.link: list[int] = []  # the arc's link index, -1: cannot be cut
        self.out: list[list[int]] = [[] for _ in range(n + 1)]
        for u in red.region:
            for v, k in red.moves[u]:
                if u < v:
                    self._pair(u, v, -1 if k is None else k, 1, 1)
            for _, k in red.gate_links[u]:
                self._pair(u, n, k, 1, 0)

        self.full = (1 << red.K) - 1
        self.arcs_of: list[list[int]] = [[] for _ in range(red.K)]
        for i, k in enumerate(self.link):
            if k >= 0:
                self.arcs_of[k].append(i)
        self.base: dict[int, list[int]] = {}  # limit -> capacities with every link there

    def _pair(self, u: int, v: int, k: int, cu: int, cv: int) -> None:
        for x, y, c in ((u, v, cu), (v, u, cv)):
            self.out[x].append(len(self.head))
            self.head.append(y)
            self.cap0.append(c)
            self.link.append(k)

    # -- minimum cuts between the agent and the gateways -------------------------------

    def _mincut(self, a: int, mask: int, limit: int) -> tuple[int, tuple[int, ...]]:
        """(the size of a minimum cut between ``a`` and the gateways, capped at ``limit``;
        the live links of the source-side and the sink-side minimum cuts, when the cut is
        below the limit). Links that cannot be cut have capacity ``limit``."""
        key = (a, mask)
        got = self.flow_memo.get(key)
        if got is not None and (got[0] < got[2] or got[2] >= limit):  # exact, or capped
            return got[0], got[1]
        head, out, link, sink = self.head, self.out, self.link, self.sink
        base = self.base.get(limit)
        if base is None:
            base = self.base[limit] = [c if k >= 0 or c == 0 else limit
                                       for k, c in zip(link, self.cap0)]
        cap = base[:]
        dead = self.full & ~mask
        while dead:  # the links already cut (few: one per turn so far)
            low = dead & -dead
            for i in self.arcs_of[low.bit_length() - 1]:
                cap[i] = 0
            dead ^= low
        flow = 0
        while flow < limit:  # augmenting paths, breadth first
            prev = {a: -1}
            queue = deque([a])
            while queue and sink not in prev:
                u = queue.popleft()
                for i in out[u]:
                    v = head[i]
                    if cap[i] > 0 and v not in prev:
                        prev[v] = i
                        queue.append(v)
            if sink not in prev:
                break
            v = sink
            while v != a:
                i = prev[v]
                cap[i] -= 1
                cap[i ^ 1] += 1
                v = head[i ^ 1]
            flow += 1
        cands: list[int] = []
        if flow < limit:
            seen: set[int] = set()
            for side in (self._reach(a, cap, True), self._reach(sink, cap, False)):
                for u in side:
                    for i in out[u]:
                        k = link[i]
                        if k >= 0 and mask >> k & 1 and k not in seen and head[i] not in side:
                            seen.add(k)
                            cands.append(k)
        self.flow_memo[key] = (flow, tuple(cands), limit)
        return flow, tuple(cands)

    def _reach(self, s: int, cap: list[int], forward: bool) -> set[int]:
        """Nodes reachable from ``s`` in the residual network (``forward``), or that reach
        it (not ``forward``)."""
        head, out = self.head, self.out
        seen = {s}
        queue = deque([s])
        while queue:
            u = queue.popleft()
            for i in out[u]:
                v = head[i]
                if v not in seen and (cap[i] if forward else cap[i ^ 1]) > 0:
                    seen.add(v)
                    queue.append(v)
        return seen

    # -- the search ----------------------------------------------------------------------

    def _near(self, a: int, mask: int) -> list[int]:
        """Every live cuttable link, nearest the agent first (breadth-first order)."""
        out: list[int] = []
        got: set[int] = set()
        seen = {a}
        queue = deque([a])
        while queue:
            u = queue.popleft()
            for v, k in self.arcs[u]:
                if k is not None and mask >> k & 1 and k not in got:
                    got.add(k)
                    out.append(k)
                if v != SINK and v not in seen and (k is None or mask >> k & 1):
                    seen.add(v)
                    queue.append(v)
        return out

    def _wins(self, a: int, mask: int, h: int) -> bool:
        """A strategy from (agent on ``a``, player to cut) that contains the agent within
        ``h`` cuts (memoised: ``good`` holds the cut that works, ``bad`` the largest ``h``
        that did not)."""
        key = (a, mask)
        g = self.good.get(key)
        if g is not None and g[0] <= h:
            return True
        if self.bad.get(key, -1) >= h or h <= 0:
            return False
        self.positions += 1
        # the clock at every position: one can cost milliseconds on a 500-node map
        if self.positions >= self.max_positions or (
                self.deadline is not None and self.deadline.expired()):
            raise _OutOfBudget
        red = self.red
        own = [k for k in red.own[a] if mask >> k & 1]
        if len(own) >= 2:  # one cut cannot close both: the agent steps onto a gateway
            self.bad[key] = 1 << 30
            return False
        flow, cands = self._mincut(a, mask, h + 1)
        if flow > h:  # every line needs at least flow more cuts
            self.bad[key] = max(self.bad.get(key, -1), flow - 1)
            return False
        if own:
            tries = own
        else:
            tries = list(cands)
            for w, j in red.moves[a]:
                if j is None or mask >> j & 1:
                    for k in self._mincut(w, mask, h)[1]:
                        if k not in tries:
                            tries.append(k)
            for d in red.doubles:
                left = [k for k in red.own[d] if mask >> k & 1]
                if len(left) >= 2:
                    tries.extend(k for k in left if k not in tries)
            for k in self._near(a, mask):  # then every other link, nearest first
                if k not in tries:
                    tries.append(k)
        for k in tries:
            after = mask & ~(1 << k)
            if contained(self.red, a, after):
                self.good[key] = (1, k)
                return True
            if h == 1:
                continue
            if any(after >> j & 1 for j in red.own[a]):
                continue  # a gateway link is left next to the agent
            moves = [w for w, j in red.moves[a] if j is None or after >> j & 1]
            # the agent's most promising replies first: a failure there ends the cut early
            moves.sort(key=lambda w: -self._mincut(w, after, h)[0])
            if all(self._wins(w, after, h - 1) for w in moves):
                g = self.good.get(key)
                if g is None or g[0] > h:
                    self.good[key] = (h, k)
                return True
        self.bad[key] = max(self.bad.get(key, -1), h)
        return False

    def search(self, h: int, deadline: Deadline | None = None,
               max_positions: int = 200_000) -> bool | None:
        """True: a strategy containing the agent within ``h`` cuts was found (see
        :meth:`certificate`); False: none found (which proves nothing: the search prunes);
        None: out of budget."""
        self.deadline, self.max_positions = deadline, self.positions + max_positions
        try:
            return self._wins(self.red.start, self.full, h)
        except _OutOfBudget:
            return None

    def certificate(self, deadline: Deadline | None = None) -> dict | None:
        """The strategy found by the last successful :meth:`search` as a player certificate
        (``skynet-player-strategy``), one node per (agent, links left) it reaches; None
        when ``deadline`` passes first."""
        red = self.red
        nodes: dict[str, dict] = {}
        full = self.full
        stack = [(red.start, full)]
        while stack:
            a, mask = stack.pop()
            nid = f"c{a}:{mask:x}"
            if nid in nodes:
                continue
            if deadline is not None and deadline.expired():
                return None
            _, k = self.good[(a, mask)]
            after = mask & ~(1 << k)
            node: dict[str, Any] = {"agent": a, "cut": list(red.cuttable[k]), "next": {}}
            nodes[nid] = node
            if contained(self.red, a, after):
                continue
            for w, j in red.moves[a]:
                if j is None or after >> j & 1:
                    node["next"][str(w)] = f"c{w}:{after:x}"
                    stack.append((w, after))
        return {"type": "skynet-player-strategy", "root": f"c{red.start}:{full:x}",
                "nodes": nodes}
