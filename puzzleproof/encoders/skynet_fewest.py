"""The Skynet ``ep1`` value (fewest cuts that contain the agent) by exact bounded search.

"Can the player contain the agent within ``r`` cuts?" is an AND-OR search over positions
(agent node, links left as a bitmask over :class:`~puzzleproof.encoders.skynet_cegar.Reduced`'s
cuttable links), player to move, asked for ``r`` = 1, 2, ... (iterative deepening; the first
``r`` answered yes is the value). A transposition table keeps, per position, the largest
``r`` refuted and the smallest ``r`` won (with its cut), so each deepening reuses the last.

Every pruning is exact (a position is refuted only when no strategy exists), and each says
why in a comment where it is applied. In short:

- **forced cuts**: an agent next to two uncut gateway links wins; next to one, that link
  must be cut now (any other cut lets it step onto the gateway);
- **only links of the agent's component**: a link the agent cannot reach never changes
  what it can do (cutting it is a pass, and passing is never better than cutting: fewer
  links only take moves from the agent);
- **a tempo bound** (:meth:`FewestCuts.feasible`): if the player contains the agent within
  ``r`` cuts, the agent stands on some node ``x`` when the last cut falls, reached in at
  most ``r - 1`` moves, and the cut links separate ``x`` from every gateway, so ``x`` lies
  within distance ``r - 1`` and its minimum cut to the gateways is at most ``r``. No such
  node: refuted without search. (A minimum cut at the agent's *current* node is no bound:
  the agent must move, see the two-level star in the tests.)
- **the same bound one move ahead**: one cut lowers a minimum cut by at most one and never
  shortens a distance, so a neighbour ``w`` that fails the bound for ``r - 1`` cuts with
  one cut of slack fails it after any cut but the link to ``w``. Two such neighbours:
  refuted; one: cutting the link to it is forced (unless one cut contains the agent now).

What it proves: a "yes" comes with a position table (:meth:`FewestCuts.certificate`),
replayed by the rules-only checker before it counts; a "no" (value > ``r``) rests on this
search (its escape tree answers every cut and is not written), and the tests check both
against an independent brute force (:mod:`puzzleproof.verify.skynet_explicit`) on many
small random maps.

Measured (2 cores shared with other work, load 4-5, November 2026; search alone): the
official maps under ``ep1``: 01 and 02 value 4, 03 value 3, 06 value 5, each in 0.03 s
or less (with its escape); 04 refutes "within 7" in 2.3-5 s (SAT: about 7 s; the value,
8, needs the fence's strategy); the complex mesh (05) refutes 4 at 0.8 s, 5 at 1.2 s and
6 only at 40 s (93 s at load 5; about 100,000 positions), where SAT takes 0.1-1.3 s a
horizon: its many nodes of minimum cut 3-4 near the start leave the tempo bound weak. The Episode 1 set
(``instances/skynet/ep1``): 02-star value 11 in 0.03 s (SAT 4.3 s), 03-triple-star
refutes 7 in 1 s (SAT's record: 6 in 30 s), 04-double-star-ring refutes 6 in 10 s.
:mod:`.skynet_sat` asks it first and lets it go on only while its cost per horizon grows
slowly, then falls back to SAT. The table is keyed by the agent's node and the links of
its component (links it can no longer reach never matter); the reply that refuted the last
cut is tried first, and minimum cuts are remembered per position and read from the
positions above (a cut changes a minimum cut by at most one).
"""

from __future__ import annotations

import time
from typing import Any

__all__ = ["FewestCuts", "OutOfTime"]


class OutOfTime(Exception):
    """The deadline or the position budget of the running search was reached."""


class FewestCuts:
    """Exact bounded search for the ``ep1`` value on the region of ``red`` (a
    :class:`~puzzleproof.encoders.skynet_cegar.Reduced` built with rule ``ep1``).

    Example:
        >>> from puzzleproof.models.skynet import SkynetMap
        >>> from puzzleproof.encoders.skynet_cegar import Reduced
        >>> m = SkynetMap(4, ((0, 1), (1, 2), (2, 3), (1, 3)), frozenset({3}), start=0)
        >>> fc = FewestCuts(Reduced(m, "ep1", 0))
        >>> fc.contains(0, fc.full, 1), fc.contains(0, fc.full, 2)
        (True, True)
    """

    def __init__(self, red: Any) -> None:
        if red.rule != "ep1":
            raise ValueError("the fewest-cuts search is for ep1 (any link may be cut)")
        self.red = red
        self.K = red.K
        self.full = (1 << self.K) - 1
        # region node -> [(region neighbour, link bit)], [gateway link bits]
        self.nb: dict[int, list[tuple[int, int]]] = {u: list(red.moves[u]) for u in red.region}
        self.gb: dict[int, list[int]] = {u: [k for _, k in red.gate_links[u]]
                                         for u in red.region}
        self.gmask = {u: sum(1 << k for k in self.gb[u]) for u in red.region}
        self.ends: list[tuple[int, int]] = list(red.cuttable)
        self.all_gates = sum(self.gmask.values())
        self.killer: dict[tuple[int, int], int] = {}  # (agent, r) -> the last refuting reply
        self.trail: list[int] = []  # the links left at the positions above the current one
        self.fail: dict[tuple[int, int], int] = {}  # position -> largest r refuted
        self.win: dict[tuple[int, int], tuple[int, int]] = {}  # -> (smallest r won, cut)
        self.positions = 0  # positions expanded (transposition hits not counted)
        self.flows = 0  # bounded max-flow calls
        # (node, links left) -> (paths found, exact?): the minimum cut to the gateways is
        # that number when exact, else more than it (siblings share their links left)
        self.cuts: dict[tuple[int, int], tuple[int, bool]] = {}
        self.deadline: float | None = None
        self.max_positions: int | None = None

    # -- graph helpers -----------------------------------------------------------------

    def component(self, a: int, mask: int) -> tuple[dict[int, int], bool]:
        """Distances from ``a`` over links left (non-gateway nodes only), and whether a
        gateway link leaves the component (False: the agent is contained)."""
        dist, threat, _ = self.reach(a, mask)
        return dist, threat

    def reach(self, a: int, mask: int) -> tuple[dict[int, int], bool, int]:
        """:meth:`component` and the links left that touch the component (a bitmask)."""
        dist = {a: 0}
        queue = [a]
        nb, gm = self.nb, self.gmask
        links = 0
        for u in queue:
            links |= gm[u]
            du = dist[u] + 1
            for w, k in nb[u]:
                if mask >> k & 1:
                    links |= 1 << k
                    if w not in dist:
                        dist[w] = du
                        queue.append(w)
        links &= mask
        return dist, bool(links & self.all_gates), links

    def _augment(self, x: int, mask: int, flow: dict[int, int]) -> tuple[bool, dict]:
        """One augmenting path from ``x`` to the gateways in the unit-capacity residual
        network of the links left (``flow[k]``: +1 along ``ends[k]``, -1 against); returns
        (found, the nodes reached when not found)."""
        nb, gb, ends = self.nb, self.gb, self.ends
        prev: dict[int, tuple[int, int] | None] = {x: None}
        queue = [x]
        found = None
        for u in queue:
            for k in gb[u]:
                if mask >> k & 1 and k not in flow:
                    found = (u, k)
                    break
            if found:
                break
            for w, k in nb[u]:
                if not mask >> k & 1 or w in prev:
                    continue
                f = flow.get(k, 0)
                if (f if ends[k][0] == u else -f) < 1:
                    prev[w] = (u, k)
                    queue.append(w)
        if found is None:
            return False, prev
        u, k = found
        flow[k] = 1
        while True:
            step = prev[u]
            if step is None:
                break
            p, k = step
            nf = flow.get(k, 0) + (1 if ends[k][0] == p else -1)
            if nf:
                flow[k] = nf
            else:
                del flow[k]
            u = p
        return True, prev

    def cut_at_most(self, x: int, mask: int, r: int) -> bool:
        """Is the minimum cut between ``x`` and the gateways (over links left) at most
        ``r``? Augmenting paths, stopped at the ``r + 1``-th; remembered per (node, links
        left)."""
        cuts = self.cuts
        known = cuts.get((x, mask))
        if known is not None:
            paths, exact = known
            if exact or paths > r:
                return paths <= r
        # the positions above on the search path, d cuts ago: the minimum cut was at most d
        # more (a cut removes one link, and links outside the component never count) and
        # never less (links are only removed)
        trail = self.trail
        for d in range(1, min(4, len(trail)) + 1):
            known = cuts.get((x, trail[-d]))
            if known is not None:
                if known[0] - d > r:
                    return False
                if known[1] and known[0] <= r:
                    return True
        self.flows += 1
        if len(self.cuts) > 2_000_000:
            self.cuts.clear()
        flow: dict[int, int] = {}
        for paths in range(r + 1):
            found, _side = self._augment(x, mask, flow)
            if not found:
                self.cuts[(x, mask)] = (paths, True)
                return True
        self.cuts[(x, mask)] = (r + 1, False)
        return False

    def near_cut(self, x: int, mask: int) -> set[int]:
        """The links of the minimum cut nearest ``x`` (the residual side of ``x`` after a
        maximum flow): a move-ordering hint only."""
        flow: dict[int, int] = {}
        while True:
            found, side = self._augment(x, mask, flow)
            if not found:
                break
        out = set()
        for u in side:
            out.update(k for k in self.gb[u] if mask >> k & 1)
            out.update(k for w, k in self.nb[u] if mask >> k & 1 and w not in side)
        return out

    def degree(self, x: int, mask: int) -> int:
        return (sum(1 for _, k in self.nb[x] if mask >> k & 1)
                + bin(self.gmask[x] & mask).count("1"))

    def feasible(self, dist: dict[int, int], mask: int, r: int, slack: int = 0) -> bool:
        """The tempo bound: is there a node within distance ``r - 1`` whose minimum cut to
        the gateways is at most ``r + slack``? (``dist`` from the agent's node.) A node's
        degree bounds its minimum cut, so low-degree nodes answer without a flow."""
        near = sorted((self.degree(x, mask), x) for x, d in dist.items() if d <= r - 1)
        limit = r + slack
        if near and near[0][0] <= limit:
            return True
        return any(self.cut_at_most(x, mask, limit) for _, x in near)

    # -- the search --------------------------------------------------------------------

    def contains(self, a: int, mask: int, r: int, deadline: float | None = None,
                 max_positions: int | None = None) -> bool:
        """Can the player (to move) contain the agent at ``a`` within ``r`` cuts, links
        ``mask`` left? Raises :class:`OutOfTime` at ``deadline`` / ``max_positions``
        (counted from this call); what was learnt stays in the table."""
        self.deadline = deadline
        self.max_positions = None if max_positions is None else self.positions + max_positions
        if not self.component(a, mask)[1]:
            return True  # contained before any cut
        return self._contains(a, mask, r)

    def key(self, a: int, mask: int) -> tuple[int, int]:
        """The table's key: links outside the agent's component can never be reached
        again (the component only shrinks), so positions differing only there are one."""
        return (a, self.reach(a, mask)[2])

    def _contains(self, a: int, mask: int, r: int) -> bool:
        dist, _, links = self.reach(a, mask)
        key = (a, links)
        if r <= self.fail.get(key, -1):
            return False
        won = self.win.get(key)
        if won is not None and won[0] <= r:
            return True
        self.positions += 1
        if self.positions & 255 == 0:
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise OutOfTime
        if self.max_positions is not None and self.positions > self.max_positions:
            raise OutOfTime
        self.trail.append(links)
        try:
            cut = self._expand(a, links, r, dist)
        finally:
            self.trail.pop()
        if cut is None:
            self.fail[key] = max(r, self.fail.get(key, -1))
            return False
        self.win[key] = cut
        return True

    def _expand(self, a: int, mask: int, r: int,
                dist: dict[int, int]) -> tuple[int, int] | None:
        """(r' <= r, the winning cut) or None; the agent at ``a`` is not contained."""
        if r <= 0:
            return None
        own = [k for k in self.gb[a] if mask >> k & 1]
        if len(own) >= 2:
            return None  # one cut leaves a gateway link: the agent steps on it
        if not self.feasible(dist, mask, r):
            return None  # the tempo bound (module docstring)
        # with a minimum cut of 2 or more at the agent no single cut contains it
        one = self.cut_at_most(a, mask, 1)
        if own:
            cands = own  # forced: any other cut lets the agent onto the gateway
        else:
            cands = self._second_order(a, mask, r, dist, one)
            if cands is None:
                return None
        for k in cands:
            after = mask & ~(1 << k)
            if one and not self.component(a, after)[1]:
                return (1, k)  # contained by this cut
            if r == 1:
                continue
            if self.gmask[a] & after:
                continue  # the agent steps onto a gateway
            moves = [w for w, j in self.nb[a] if after >> j & 1]
            kill = self.killer.get((a, r))
            if kill in moves:  # the reply that refuted the last cut first (an ordering only)
                moves.remove(kill)
                moves.insert(0, kill)
            for w in moves:
                if not self._contains(w, after, r - 1):
                    self.killer[(a, r)] = w
                    break
            else:
                return (r, k)
        return None

    def _second_order(self, a: int, mask: int, r: int, dist: dict[int, int],
                      one: bool) -> list[int] | None:
        """The cuts worth trying at ``a`` (no gateway link there), or None when the bound
        one move ahead refutes the position (``one``: one cut may contain the agent)."""
        if one:
            return self._ordered(a, mask, dist)  # one cut may contain the agent now
        # a neighbour w failing the tempo bound for r - 1 cuts with one cut of slack fails
        # it after any single cut f that leaves the link a-w: the cut lowers a minimum cut
        # by at most one and lengthens distances only; and the agent is not contained
        # after f (the minimum cut at a is 2 or more), so it may move to w
        bad = []
        for w, k in self.nb[a]:
            if not mask >> k & 1:
                continue
            if r == 1:
                bad.append(k)
            else:
                dw, _ = self.component(w, mask)
                if not self.feasible(dw, mask, r - 1, 1):
                    bad.append(k)
            if len(bad) >= 2:
                return None  # one cut keeps the agent from one of them only
        if bad:
            return bad  # the only cut that keeps the agent from that neighbour
        return self._ordered(a, mask, dist)

    def _ordered(self, a: int, mask: int, dist: dict[int, int]) -> list[int]:
        """Every link left in the agent's component (no other cut matters, module
        docstring), the minimum cut nearest the agent first, then nearer links first,
        gateway links before others at the same distance."""
        cands = set()
        for u in dist:
            cands.update(k for w, k in self.nb[u] if mask >> k & 1)
            cands.update(k for k in self.gb[u] if mask >> k & 1)
        near = self.near_cut(a, mask)
        gm = self.gmask

        def key(k: int) -> tuple:
            u, v = self.ends[k]
            d = min(dist.get(u, 1 << 20), dist.get(v, 1 << 20))
            gate = any(gm.get(x, 0) >> k & 1 for x in (u, v))
            return (k not in near, d, not gate, k)

        return sorted(cands, key=key)

    def value(self, a: int, lower: int = 1, upper: int | None = None,
              deadline: float | None = None,
              on_bound: Any = None) -> tuple[int, int | None]:
        """Iterative deepening from ``lower`` (a proved lower bound) below ``upper`` (a
        known strategy's cuts; default: one more than the links, as a won game needs at
        most one cut per link): (the smallest r not refuted, the value, or None when the
        deadline came first; ``upper`` when every r below it is refuted).
        ``on_bound(r, won)`` hears each answer."""
        r = max(1, lower)
        if not self.component(a, self.full)[1]:
            return 0, 0
        upper = self.K + 1 if upper is None else upper
        while r < upper:
            try:
                won = self.contains(a, self.full, r, deadline)
            except OutOfTime:
                return r, None
            if on_bound is not None:
                on_bound(r, won)
            if won:
                return r, r
            r += 1
        return r, upper

    # -- the certificate ---------------------------------------------------------------

    def certificate(self, a: int, mask: int | None = None) -> dict:
        """The player's strategy from a won position as a position table (checked by
        :func:`puzzleproof.models.skynet_strategy.check_player_strategy`)."""
        mask = self.full if mask is None else mask
        nodes: dict[str, dict] = {}
        todo = [(a, mask)]
        while todo:
            u, m = todo.pop()
            nid = f"{u}:{m:x}"
            if nid in nodes:
                continue
            _, k = self.win[self.key(u, m)]
            after = m & ~(1 << k)
            node: dict[str, Any] = {"agent": u, "cut": list(self.ends[k]), "next": {}}
            nodes[nid] = node
            if not self.component(u, after)[1]:
                continue  # contained by this cut
            for w, j in self.nb[u]:
                if after >> j & 1:
                    node["next"][str(w)] = f"{w}:{after:x}"
                    todo.append((w, after))
        return {"type": "skynet-player-strategy", "root": f"{a}:{mask:x}", "nodes": nodes}

    def escape(self, a: int, h: int, max_nodes: int | None = None,
               deadline: float | None = None) -> dict:
        """The agent's escape behind a refuted "contain within ``h`` cuts?" from ``a``
        (``skynet-agent-escape``, checked by
        :func:`puzzleproof.models.skynet_strategy.check_agent_escape`): a reply to every
        legal cut of the map, found by asking this search which move keeps the agent out
        of reach of the cuts left. A cut outside the region is answered as a pass would be
        (by monotonicity some move refutes the pass: the move refuting any one cut, since
        fewer links never help the agent). Raises :class:`OutOfTime` past ``deadline``
        or ``max_nodes`` positions (it answers every cut, so it grows fast with ``h``)."""
        self.deadline, self.max_positions = deadline, None
        links, kindex = self.red.m.links, self.red.kindex
        nodes: dict[str, dict] = {}
        todo = [(a, self.full, h)]
        while todo:
            u, mask, left = todo.pop()
            nid = f"{u}:{mask:x}:{left}"
            if nid in nodes:
                continue
            if max_nodes is not None and len(nodes) >= max_nodes:
                raise OutOfTime
            replies: dict[str, dict] = {}
            nodes[nid] = {"agent": u, "replies": replies}
            if left <= 1:
                continue  # the line ends after this cut: only "not contained" is checked
            for x, y in links:
                k = kindex.get((x, y))
                if k is not None and not mask >> k & 1:
                    continue  # cut already: not a legal cut
                after = mask if k is None else mask & ~(1 << k)
                gate = next((g for g, j in self.red.gate_links[u] if after >> j & 1), None)
                if gate is not None:
                    replies[f"{x}-{y}"] = {"move": gate, "next": None}
                    continue
                w = next((w for w, j in self.nb[u]
                          if after >> j & 1 and not self._contains(w, after, left - 1)), None)
                if w is None:
                    raise AssertionError(f"no escape from {u} after cut {x}-{y}")
                replies[f"{x}-{y}"] = {"move": w, "next": f"{w}:{after:x}:{left - 1}"}
                todo.append((w, after, left - 1))
        return {"type": "skynet-agent-escape", "horizon": h, "root": f"{a}:{self.full:x}:{h}",
                "nodes": nodes}
