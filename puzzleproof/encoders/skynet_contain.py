"""Upper bounds for the Skynet value: a containment search guided by minimum cuts.

The value of an ``ep1`` game (fewest cuts that contain the agent whatever it does) is
bracketed by the SAT solver (:mod:`.skynet_sat`): a refuted "contain within H cuts?" proves
value > H. The other side needs a player strategy that contains the agent within H cuts;
the verdict strategy gives one, but it is built to keep the agent off the gateways, not to
contain it fast, and proving a tight H by CEGAR means covering every agent line with the
proposer's tree, which is slow beyond a few cuts.

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

from collections import deque
from typing import Any

from puzzleproof.clock import Deadline
from puzzleproof.encoders.maxflow import Network

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
        # the flow network (:mod:`.maxflow`): the gateways merged into one sink; links
        # 0..K-1 are the cuttable ones (as in the masks), then those that cannot be cut,
        # whose capacity is the flow's limit (no cut of at most that many crosses them)
        K = red.K
        gates = red.m.gateways
        ends = [(SINK if u in gates else u, SINK if v in gates else v) for u, v in red.cuttable]
        ends += [(u, w) for u in red.region for w, k in red.moves[u] if k is None and u < w]
        self.net = Network(ends, sink=SINK)
        self.fixed = ((1 << len(ends)) - 1) & ~((1 << K) - 1)  # the links that stay
        self.caps: dict[int, list[int]] = {}  # limit -> capacities
        self.full = (1 << K) - 1

    # -- minimum cuts between the agent and the gateways -------------------------------

    def _mincut(self, a: int, mask: int, limit: int) -> tuple[int, tuple[int, ...]]:
        """(the size of a minimum cut between ``a`` and the gateways, capped at ``limit``;
        the live links of the source-side and the sink-side minimum cuts, when the cut is
        below the limit). Links that cannot be cut have capacity ``limit``."""
        key = (a, mask)
        got = self.flow_memo.get(key)
        if got is not None and (got[0] < got[2] or got[2] >= limit):  # exact, or capped
            return got[0], got[1]
        cap = self.caps.get(limit)
        if cap is None:
            K = self.red.K
            cap = self.caps[limit] = [1 if i < K else limit
                                      for i in range(len(self.net.ends))]
        f = self.net.flow(a, mask | self.fixed, limit, cap)
        cands: list[int] = []
        if f.value < limit:
            seen: set[int] = set()
            adj, K = self.net.adj, self.red.K
            for side in (f.source_side(), f.sink_side()):
                inside = set(side)
                for u in side:
                    for w, k, _ in adj.get(u, ()):
                        if k < K and mask >> k & 1 and k not in seen and w not in inside:
                            seen.add(k)
                            cands.append(k)
        self.flow_memo[key] = (f.value, tuple(cands), limit)
        return f.value, tuple(cands)

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
