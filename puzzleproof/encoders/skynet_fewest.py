"""The Skynet ``ep1`` value (fewest cuts that contain the agent) by exact bounded search.

"Can the player contain the agent within ``r`` cuts?" is an AND-OR search over positions
(agent node, links left as a bitmask over the cuttable links of
:class:`~puzzleproof.encoders.skynet_reduced.Reduced`), player to move, asked for ``r`` = 1,
2, ... (iterative deepening; the first ``r`` answered yes is the value). A transposition
table keeps, per position, the largest ``r`` refuted and the smallest ``r`` won (with its
cut), so each deepening reuses the last.

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

- **refutations keep the links they rest on** (:attr:`FewestCuts.fwit`): fewer links
  never help the agent, so a position refuted on links ``W`` (a subset of the links left)
  is refuted on every set of links left that includes ``W``. Each refutation keeps such a
  ``W``: a path to a gateway (no cut left), two gateway links at the agent, the disjoint
  paths behind a tempo bound (with fewer links distances only grow), or, at a player's
  turn, the union over the cuts it answered of the reply's link and the reply's own
  ``W``. A cut outside one of those unions leaves that answer standing, so the search
  skips it: only cuts that touch every answer found so far are searched (on the
  complex mesh this takes the refutations of a horizon from about a million positions to
  thousands). The last RECENT refutations at each node are kept too: a position whose links
  left include one of their witnesses is refuted without a search, though its key differs.

Two more shortcuts, one on each side:

- **the gateway-link rule** (:meth:`FewestCuts._invariant_needs`): where no node of the
  agent's component keeps two gateway links and those links are no more than the cuts
  left, cutting the agent's gateway link when it has one, else any it can reach, contains
  it in time: the position is won without a search, and its certificate hands over to
  that rule (the checker proves the rule's invariant where it takes over);
- **forcing replies first** (:meth:`FewestCuts._replies`): the agent's moves onto nodes
  that keep a gateway link are tried first (the player's answer is forced, so a
  refutation made of them costs a few positions), those with more such neighbours first.
  On the double star with a ring "within 9" is refuted in 122 positions (178,282 on
  the map without its pockets in the other order), and the complex mesh's value, 15, is
  proved in about 40 s (``benchmarks/skynet_exact.py --only-ep1``).

What it proves: a "yes" comes with a position table (:meth:`FewestCuts.certificate`),
replayed by the rules-only checker before it counts; a "no" (value > ``r``) leaves, for
each refuted position, how it was refuted and on which links (:attr:`FewestCuts.proofs`),
which :mod:`.skynet_refutation` writes as an escape the checker proves node by node. The
tests check both against an independent brute force
(:mod:`puzzleproof.encoders.skynet_explicit`) on many small random maps.

:mod:`.skynet_sat` asks it first and lets it go on only while its cost per horizon grows
slowly (where many nodes of small minimum cut lie near the start the tempo bound is weak
and the cost grows fast), then falls back to the fence, containment and SAT searches. The
table is keyed by the agent's node and the links of its component (links it can no longer
reach never matter); the reply that refuted the last cut is tried first, and minimum cuts
are remembered per position and read from the positions above (a cut changes a minimum cut
by at most one). What every position asks of the graph (bounded maximum flows, the agent's
component, the nodes a tempo bound looks at, the order of cuts, the scan of recent
refutations) is answered in compiled code (:mod:`.unitflow`, :mod:`.skynet_recent`; the
same answers as the Python versions, checked by the tests). Figures:
``benchmarks/skynet_exact.py --only-ep1``.

What it remembers is bounded (TABLE_MAX, CUTS_MAX, PROOFS_MAX), so a long run's memory stops
growing (under 2 GB on every map measured): a position forgotten is searched again (speed
lost, never exactness), and proofs let go leave a refutation named but not written as an
escape.
"""

from __future__ import annotations

import gc
from collections import Counter
from contextlib import contextmanager
from typing import Any, Iterator

from puzzleproof.encoders.skynet_recent import Recent
from puzzleproof.encoders.unitflow import UnitNetwork
from puzzleproof.models.skynet import SkynetMap
from puzzleproof.models.skynet_strategy import INVARIANT

from puzzleproof.clock import Deadline

__all__ = ["FewestCuts", "OutOfTime", "pocket_nodes", "without", "kernels_cold"]


def pocket_nodes(m: Any, start: int) -> tuple[int, ...]:
    """The map's *pockets*: nodes other than the start and the gateways with no gateway link
    and at most three links. An agent gains little there, and a node removed (with its
    links) never makes the agent harder to contain, so a refutation of "contain within
    ``r``" on the map without them refutes it on the full map, at a fraction of the cost
    (complex mesh: ten pockets, 56 of 81 links left)."""
    gates = m.gateways
    return tuple(u for u in range(m.n)
                 if u != start and u not in gates and len(m.neighbours[u]) <= 3
                 and not any(w in gates for w in m.neighbours[u]))


def without(m: Any, nodes: Any) -> Any:
    """``m`` with the links of ``nodes`` removed (the nodes stay, isolated: same numbers)."""
    drop = set(nodes)
    links = tuple(lk for lk in m.links if lk[0] not in drop and lk[1] not in drop)
    return SkynetMap(m.n, links, m.gateways, start=m.start,
                     name=f"{m.name} without nodes {sorted(drop)}")


def kernels_cold() -> bool:
    """Whether the search's compiled kernels (:mod:`.unitflow`, :mod:`.skynet_recent`)
    are neither compiled in this process nor in numba's cache (a fresh install before
    ``puzzleproof prepare``): the first search would then compile them, about 5 s that no
    clock can cut short. Judged by the index files of the kernels entered from Python;
    False when that cannot be told."""
    import os

    from puzzleproof.encoders import skynet_recent, unitflow

    kernels = (unitflow._flow, unitflow._touching, unitflow._crowded,
               unitflow._cut_order, skynet_recent._find)
    try:
        for fn in kernels:
            if fn.signatures:
                continue
            cache = getattr(fn, "_cache", None)
            path = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
            if path and not os.path.exists(path):
                return True
    except Exception:  # noqa: BLE001 - numba's internals moved: cannot be told
        return False
    return False


SINK = -1  # every gateway, merged, in the flow network
BY_INVARIANT = -1  # in FewestCuts.win: the gateway-link rule wins from here
RECENT = 200  # refutations remembered per node for the subset test (FewestCuts.recent)
# what the search remembers, bounded so that a long run's memory stops growing (peaks of
# 1.06 GB refuting 19 on the double-star ring, 7.6 million positions, where it took 11 GB
# unbounded; 1.6 and 1.8 GB for solve --min-cuts at 600 s on the meshes of 250 and 500
# nodes: benchmarks/skynet_exact.py --memory). On the 250-node mesh (575 links) an entry
# costs about 350 bytes per refuted position, 220 per won one, 300 per remembered minimum
# cut and 1 kB per refutation's proof. Past TABLE_MAX positions refuted (or won) the table
# keeps the half with the most cuts left (FewestCuts._forget: only speed is lost, a
# position forgotten is searched again; on the double-star ring, "within 17" after 13 and
# 15 with room for 100,000 takes 572,000 positions against 550,000 unbounded, 1.39 million
# when the table is cleared whole); past PROOFS_MAX proofs they are let go for good (the
# escape is then not written: at 400,000 nodes it would be too large to write anyway, see
# skynet_value.WITNESS_MAX_NODES)
TABLE_MAX = 1_000_000
CUTS_MAX = 1_000_000
PROOFS_MAX = 500_000


@contextmanager
def _collector_off() -> Iterator[None]:
    """The garbage collector off meanwhile (see :meth:`FewestCuts.contains`)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _keep_above(horizons: list[int], room: int) -> int:
    """The least horizon such that the entries at it or above number at most ``room``
    (one more than the largest when even the largest alone do not fit)."""
    counts = Counter(horizons)
    kept = 0
    for r in sorted(counts, reverse=True):
        if kept + counts[r] > room:
            return r + 1
        kept += counts[r]
    return min(counts, default=0)


class OutOfTime(Exception):
    """The deadline or the position budget of the running search was reached."""


class FewestCuts:
    """Exact bounded search for the ``ep1`` value on the region of ``red`` (a
    :class:`~puzzleproof.encoders.skynet_reduced.Reduced` built with rule ``ep1``).

    Example:
        >>> from puzzleproof.models.skynet import SkynetMap
        >>> from puzzleproof.encoders.skynet_reduced import Reduced
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
        gates = red.m.gateways
        # the flow network of the minimum cuts: link k as in the masks, gateways merged
        ends = [(SINK if u in gates else u, SINK if v in gates else v) for u, v in self.ends]
        self.fast = UnitNetwork(ends, sink=SINK)
        self.all_gates = sum(self.gmask.values())
        self.killer: dict[tuple[int, int], int] = {}  # (agent, r) -> the last refuting reply
        self.trail: list[int] = []  # the links left at the positions above the current one
        self.fail: dict[tuple[int, int], int] = {}  # position -> largest r refuted
        self.win: dict[tuple[int, int], tuple[int, int]] = {}  # -> (smallest r won, cut)
        self.positions = 0  # positions expanded (transposition hits not counted)
        self.flows = 0  # bounded max-flow calls
        # (node, links left) -> (paths found, exact?, the links they use): the minimum cut
        # to the gateways is that number when exact, else more than it
        self.cuts: dict[tuple[int, int], tuple[int, bool, int]] = {}
        self.fwit: dict[tuple[int, int], int] = {}  # position -> links behind fail[]
        self.wit = 0  # the links behind the last refutation (see _contains)
        # (position, r) -> (its links, how it was refuted): the proof each refutation
        # leaves (:meth:`refutation` writes it out); ref: the last refutation's entry
        self.proofs: dict[tuple[tuple[int, int], int], tuple[int, tuple]] = {}
        self.spec: tuple = ()
        self.ref: tuple[tuple[int, int], int] = ((0, 0), 0)
        # node -> the last RECENT refutations there (horizon, links): a position whose
        # links left include one of them is refuted without a search
        self.recent = Recent(RECENT, self.K)
        self.deadline: Deadline | None = None
        self.max_positions: int | None = None
        self.roots: set[tuple[int, int]] = set()  # positions asked: never forgotten
        self.forgotten = 0  # times the table was halved (TABLE_MAX, _forget)
        self.proofs_kept = True  # False once the proofs were let go (PROOFS_MAX)

    # -- graph helpers -----------------------------------------------------------------

    def reaches_gateway(self, a: int, mask: int) -> bool:
        """Whether a gateway link leaves the agent's component over links left (False: the
        agent at ``a`` is contained)."""
        return self.fast.touching(a, mask)[0]

    def cut_at_most(self, x: int, mask: int, r: int) -> bool:
        """Is the minimum cut between ``x`` and the gateways (over links left) at most
        ``r``? Augmenting paths, stopped at the ``r + 1``-th; remembered per (node, links
        left). When it is not, :attr:`wit` holds links left (``mask``) that carry ``r + 1``
        disjoint paths (any links left that include them keep the cut above ``r``)."""
        cuts = self.cuts
        known = cuts.get((x, mask))
        if known is not None:
            paths, exact, links = known
            if exact or paths > r:
                self.wit = links
                return paths <= r
        # the positions above on the search path, d cuts ago: the minimum cut was at most d
        # more (a cut removes one link, and links outside the component never count) and
        # never less (links are only removed)
        trail = self.trail
        for d in range(1, min(4, len(trail)) + 1):
            known = cuts.get((x, trail[-d]))
            if known is not None:
                if known[0] - d > r:
                    # d cuts break at most d of those paths: the rest lie in the links left
                    self.wit = known[2] & mask
                    return False
                if known[1] and known[0] <= r:
                    return True
        self.flows += 1
        if len(self.cuts) > CUTS_MAX:
            self.cuts.clear()
        value, used = self.fast.paths(x, mask, r + 1)
        if value <= r:
            self.cuts[(x, mask)] = (value, True, used)
            return True
        self.wit = used
        self.cuts[(x, mask)] = (r + 1, False, self.wit)
        return False

    def feasible(self, a: int, mask: int, r: int, slack: int = 0) -> bool:
        """The tempo bound: is there a node within distance ``r - 1`` of ``a`` whose
        minimum cut to the gateways is at most ``r + slack``? A node's degree bounds its
        minimum cut, so low-degree nodes answer without a flow. When there is none,
        :attr:`wit` holds the links of their disjoint paths: with fewer links left
        distances only grow, so the bound fails on any links left that include them."""
        limit = r + slack
        near = self.fast.crowded(a, mask, r - 1, limit)
        if near is None:
            return True
        wit = 0
        for x in near:
            if self.cut_at_most(x, mask, limit):
                return True
            wit |= self.wit
        self.wit = wit
        return False

    def path(self, a: int, mask: int) -> int:
        """The links of a shortest path from ``a`` to a gateway (the agent is not
        contained on any links left that include them); 0 when there is none."""
        prev: dict[int, tuple[int, int] | None] = {a: None}
        queue = [a]
        nb, gb = self.nb, self.gb
        for u in queue:
            for k in gb[u]:
                if mask >> k & 1:
                    links = 1 << k
                    step = prev[u]
                    while step is not None:
                        u, k = step
                        links |= 1 << k
                        step = prev[u]
                    return links
            for w, k in nb[u]:
                if mask >> k & 1 and w not in prev:
                    prev[w] = (u, k)
                    queue.append(w)
        return 0

    # -- the search --------------------------------------------------------------------

    def contains(self, a: int, mask: int, r: int, deadline: Deadline | None = None,
                 max_positions: int | None = None) -> bool:
        """Can the player (to move) contain the agent at ``a`` within ``r`` cuts, links
        ``mask`` left? Raises :class:`OutOfTime` at ``deadline`` / ``max_positions``
        (counted from this call); what was learnt stays in the table. The garbage
        collector is off meanwhile: the search makes no cycles, and with a million
        entries in its tables each full collection walks them all (about a tenth of the
        time on the complex mesh)."""
        self.deadline = deadline
        self.max_positions = None if max_positions is None else self.positions + max_positions
        if not self.reaches_gateway(a, mask):
            return True  # contained before any cut
        self.roots.add(self.key(a, mask))
        with _collector_off():
            return self._contains(a, mask, r)

    def key(self, a: int, mask: int) -> tuple[int, int]:
        """The table's key: links outside the agent's component can never be reached
        again (the component only shrinks), so positions differing only there are one."""
        return (a, self.fast.touching(a, mask)[1])

    def _contains(self, a: int, mask: int, r: int) -> bool:
        _, links, doubled = self.fast.touching(a, mask)
        key = (a, links)
        if r <= self.fail.get(key, -1):
            self.wit = self.fwit[key]
            self.ref = (key, self.fail[key])
            return False
        won = self.win.get(key)
        if won is not None and won[0] <= r:
            return True
        needs = self._invariant_needs(doubled, links, r)
        if needs is not None:
            self.win[key] = (needs, BY_INVARIANT)
            return True
        seen = self.recent.find(a, r, links)  # refuted on part of these links: here too
        if seen is not None:
            self.wit = seen[1]
            self.ref = (seen[2], seen[0])
            return False
        self.positions += 1
        # the clock at every position: one can cost milliseconds on a 500-node map
        if self.deadline is not None and self.deadline.expired():
            raise OutOfTime
        if self.max_positions is not None and self.positions > self.max_positions:
            raise OutOfTime
        if len(self.fail) > TABLE_MAX or len(self.win) > TABLE_MAX:
            self._forget()
        self.trail.append(links)
        try:
            cut = self._expand(a, links, r)
        finally:
            self.trail.pop()
        if cut is None:
            if r > self.fail.get(key, -1):
                self.fail[key] = r
                self.fwit[key] = self.wit
            if self.proofs_kept:
                self.proofs[(key, r)] = (self.wit, self.spec)
                if len(self.proofs) > PROOFS_MAX:
                    self.proofs.clear()
                    self.proofs_kept = False
            self.ref = (key, r)
            self.recent.add(a, r, self.wit, key)
            return False
        self.win[key] = cut
        return True

    def _forget(self) -> None:
        """Let the table shrink to half of TABLE_MAX: of the refuted and of the won
        positions, those with the most cuts left stay (their searches were the largest;
        positions with few cuts left are many and cheap to search again), and the roots
        asked (their entries name the horizons proved, which the callers read). Every entry
        is a fact found by search, so forgetting one only means searching it again; the
        certificate (:meth:`certificate`) searches again any won position it no longer
        finds."""
        roots = [(k, self.fail.get(k), self.fwit.get(k), self.win.get(k)) for k in self.roots]
        least = _keep_above(list(self.fail.values()), TABLE_MAX // 2)
        self.fail = {k: r for k, r in self.fail.items() if r >= least}
        self.fwit = {k: self.fwit[k] for k in self.fail}
        least = _keep_above([won[0] for won in self.win.values()], TABLE_MAX // 2)
        self.win = {k: won for k, won in self.win.items() if won[0] >= least}
        for k, r, w, won in roots:
            if r is not None:
                self.fail[k], self.fwit[k] = r, w
            if won is not None:
                self.win[k] = won
        self.forgotten += 1

    def _invariant_needs(self, doubled: bool, links: int, r: int) -> int | None:
        """The cuts the gateway-link rule needs here, when it contains the agent within
        ``r`` of them (else None). With no node of the component keeping two gateway links
        (``doubled`` False; ``links``: the component's links left), cutting the agent's
        gateway link when it has one, else any gateway link it can reach, never lets it
        onto a gateway and contains it once the component's gateway links are cut: at most
        that many cuts (:data:`~puzzleproof.models.skynet_strategy.INVARIANT`, which the
        checker proves at every position that reaches it)."""
        needs = (links & self.all_gates).bit_count()
        return None if needs > r or doubled else needs

    def _expand(self, a: int, mask: int, r: int) -> tuple[int, int] | None:
        """(r' <= r, the winning cut) or None; the agent at ``a`` is not contained.
        On None, :attr:`wit` holds the links behind the refutation (module docstring)."""
        if r <= 0:
            self.wit, self.spec = self.path(a, mask), ("path",)  # no cut left, not contained
            return None
        own = [k for k in self.gb[a] if mask >> k & 1]
        if len(own) >= 2:
            self.wit, self.spec = 1 << own[0] | 1 << own[1], ("two",)
            return None  # one cut leaves a gateway link: the agent steps on it
        if not self.feasible(a, mask, r):
            self.spec = ("tempo",)
            return None  # the tempo bound (module docstring); it set the witness
        # with a minimum cut of 2 or more at the agent no single cut contains it
        one = self.cut_at_most(a, mask, 1)
        if own:
            cands = own  # forced: any other cut lets the agent onto the gateway
            base, kind = 1 << own[0], ("gate", own[0])
        else:
            found = self._second_order(a, mask, r, one)
            if found is None:
                return None  # it set the witness and the proof's kind
            cands, base, kind = found
        searched: list[tuple] = []  # (cut, the agent's answer) for the proof
        # each refuted cut k leaves the links refuting it (the reply's link and the
        # witness below); a cut outside one of those leaves that refutation standing, so
        # it is refuted without a search
        refuted: list[int] = []
        common = -1  # the links every refutation so far rests on
        for k in cands:
            bit = 1 << k
            if not common & bit:
                continue
            after = mask & ~bit
            if one and not self.reaches_gateway(a, after):
                return (1, k)  # contained by this cut
            if r == 1:
                refuted.append(self.path(a, after))  # not contained, and no cut left
                searched.append((k, ("path", refuted[-1])))
            elif gate := self.gmask[a] & after:
                refuted.append(gate & -gate)  # the agent steps onto a gateway
                searched.append((k, ("gate", (gate & -gate).bit_length() - 1)))
            else:
                for w, j in self._replies(a, after, self.killer.get((a, r))):
                    if not self._contains(w, after, r - 1):
                        self.killer[(a, r)] = w
                        refuted.append(self.wit | 1 << j)
                        searched.append((k, ("move", w, j, self.ref)))
                        break
                else:
                    return (r, k)
            common &= refuted[-1]
        for links in refuted:
            base |= links
        self.wit, self.spec = base, kind + (tuple(searched),)
        return None

    def _replies(self, a: int, after: int, kill: int | None) -> list[tuple[int, int]]:
        """The agent's moves from ``a`` (links ``after`` left), the most forcing first: a
        move onto a node that keeps a gateway link leaves the player one cut (the position
        below has a single branch), and a node with more such neighbours keeps the chain of
        forced cuts going. Refutations made of such chains are found in a few positions
        where the player's free cuts would each need a search. Ties: the reply that refuted
        the last cut here first (``kill``). An ordering only."""
        return self.fast.forcing_moves(a, after, kill)

    def _second_order(self, a: int, mask: int, r: int,
                      one: bool) -> tuple[list[int], int, tuple] | None:
        """The cuts worth trying at ``a`` (no gateway link there) and the links that
        refute every other cut, or None when the bound one move ahead refutes the position
        (its links in :attr:`wit`; ``one``: one cut may contain the agent)."""
        if one or r == 1:  # at r == 1 the tempo bound has refuted it unless ``one``
            return self._ordered(a, mask), 0, ("cuts",)  # one cut may contain it now
        # a neighbour w failing the tempo bound for r - 1 cuts with one cut of slack fails
        # it after any single cut f that leaves the link a-w: the cut lowers a minimum cut
        # by at most one and lengthens distances only; and the agent is not contained
        # after f (the minimum cut at a is 2 or more), so it may move to w
        bad: list[tuple[int, int, int]] = []  # (neighbour, its link, its tempo witness)
        wits = 0
        for w, k in self.nb[a]:
            if not mask >> k & 1:
                continue
            if not self.feasible(w, mask, r - 1, 1):
                bad.append((w, k, self.wit))
                wits |= self.wit | 1 << k
            if len(bad) >= 2:
                self.wit, self.spec = wits, ("bad", tuple(bad), ())
                return None  # one cut keeps the agent from one of them only
        if bad:  # the only cut that keeps the agent from that neighbour
            return [bad[0][1]], wits, ("bad", tuple(bad))
        return self._ordered(a, mask), 0, ("cuts",)

    def _ordered(self, a: int, mask: int) -> list[int]:
        """Every link left in the agent's component (no other cut matters, module
        docstring), the minimum cut nearest the agent first, then nearer links first,
        gateway links before others at the same distance (compiled:
        :meth:`.unitflow.UnitNetwork.cut_order`)."""
        return self.fast.cut_order(a, mask)

    def value(self, a: int, lower: int = 1, upper: int | None = None,
              deadline: Deadline | None = None,
              on_bound: Any = None) -> tuple[int, int | None]:
        """Iterative deepening from ``lower`` (a proved lower bound) below ``upper`` (a
        known strategy's cuts; default: one more than the links, as a won game needs at
        most one cut per link): (the smallest r not refuted, the value, or None when the
        deadline came first; ``upper`` when every r below it is refuted).
        ``on_bound(r, won)`` hears each answer."""
        r = max(1, lower)
        if not self.reaches_gateway(a, self.full):
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

    def certificate(self, a: int, mask: int | None = None,
                    deadline: Deadline | None = None) -> dict:
        """The player's strategy from a won position as a position table (checked by
        :func:`puzzleproof.models.skynet_strategy.check_player_strategy`). Raises
        :class:`OutOfTime` past ``deadline``."""
        mask = self.full if mask is None else mask
        self.deadline, self.max_positions = deadline, None
        nodes: dict[str, dict] = {}
        todo = [(a, mask, self.win[self.key(a, mask)][0])]
        while todo:
            u, m, left = todo.pop()
            nid = f"{u}:{m:x}"
            if nid in nodes:
                continue
            if deadline is not None and deadline.expired():
                raise OutOfTime
            r, k = self._won(u, m, left)
            if k == BY_INVARIANT:
                nodes[nid] = {"agent": u, "invariant": INVARIANT}
                continue
            after = m & ~(1 << k)
            node: dict[str, Any] = {"agent": u, "cut": list(self.ends[k]), "next": {}}
            nodes[nid] = node
            if not self.reaches_gateway(u, after):
                continue  # contained by this cut
            for w, j in self.nb[u]:
                if after >> j & 1:
                    node["next"][str(w)] = f"{w}:{after:x}"
                    todo.append((w, after, r - 1))
        return {"type": "skynet-player-strategy", "root": f"{a}:{mask:x}", "nodes": nodes}

    def _won(self, a: int, mask: int, left: int) -> tuple[int, int]:
        """The table's (horizon, cut) for a position won within ``left`` cuts, searched
        again when the table forgot it (:meth:`_forget`)."""
        key = self.key(a, mask)
        won = self.win.get(key)
        if won is None:
            with _collector_off():
                if not self._contains(a, mask, left):
                    raise AssertionError(f"a won position ({a}, {mask:x}) refuted on search")
            won = self.win[key]
        return won

    def escape(self, a: int, h: int, max_nodes: int | None = None,
               deadline: Deadline | None = None, links: Any = None) -> dict:
        """The agent's escape behind a refuted "contain within ``h`` cuts?" from ``a``
        (``skynet-agent-escape``, checked by
        :func:`puzzleproof.models.skynet_strategy.check_agent_escape`): a reply to every
        legal cut of the map, found by asking this search which move keeps the agent out
        of reach of the cuts left. A cut outside the region is answered as a pass would be
        (by monotonicity some move refutes the pass: the move refuting any one cut, since
        fewer links never help the agent). Raises :class:`OutOfTime` past ``deadline``
        or ``max_nodes`` positions (it answers every cut, so it grows fast with ``h``).
        ``links``: the cuts to answer (default: the searched map's); a map this one was cut
        from (:func:`without`) answers the links it lacks like cuts outside the region."""
        self.deadline, self.max_positions = deadline, None
        links = self.red.m.links if links is None else links
        kindex = self.red.kindex
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
