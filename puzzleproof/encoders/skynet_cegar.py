"""The CEGAR proper for Skynet Revolution: the proposer, the refuter and one bounded game
decided (:func:`decide`), over the reduced map of :mod:`.skynet_reduced` and the tree of
agent lines of :mod:`.skynet_tree` (both importable from here too).

How the pieces fit, and the questions asked of them, are told in
:mod:`puzzleproof.encoders.skynet_sat`; the certificates written from a decision are in
:mod:`puzzleproof.encoders.skynet_certify`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from pysat.card import CardEnc, EncType
from pysat.solvers import Solver

from puzzleproof.clock import Deadline
from puzzleproof.encoders.cegar import (LIMIT, SAT, UNSAT, Budget, CegarOutcome, cegar_loop,
                                        limited_solve)
from puzzleproof.encoders.skynet_forks import ForkSearch
from puzzleproof.encoders.skynet_policy import PolicyCheck
from puzzleproof.encoders.skynet_reduced import Reduced
from puzzleproof.encoders.skynet_table import TableSearch
from puzzleproof.encoders.skynet_tree import TNode
from puzzleproof.models.skynet import SkynetMap, norm

__all__ = ["Reduced", "Proposer", "Refuter", "PolicyCheck", "TNode", "Decision", "SolverCache",
           "decide", "DEFAULT_SOLVER"]

LEMMA_AFTER = 300  # conflicts a refuter call may spend before the lemma is switched on
VALUE_EXPAND = 2  # "contain within H?": the first two levels of the tree take every reply
DEFAULT_SOLVER = "g4"  # Glucose 4: the cheapest per call for these many small solves


# -- the proposer: a strategy over the prefix tree of agent sequences --------------------

class _Vars:
    def __init__(self) -> None:
        self.top = 0

    def new(self) -> int:
        self.top += 1
        return self.top


def _amo(lits: list[int], vars_: _Vars) -> list[list[int]]:
    if len(lits) <= 5:
        return [[-a, -b] for i, a in enumerate(lits) for b in lits[i + 1:]]
    cnf = CardEnc.atmost(lits=lits, bound=1, top_id=vars_.top, encoding=EncType.seqcounter)
    vars_.top = max(vars_.top, cnf.nv)
    return cnf.clauses


class Proposer:
    """The player's side: a strategy over the tree of agent lines seen so far.

    ``expand``: every node of depth below it that a new line passes through gets all its
    agent replies as children, not only the line's own (value questions use 2: without it
    the proposer tailors its first cuts to the few replies it has seen, and refuting
    "contain within H" takes one to two orders of magnitude more rounds).
    Any tree of real agent lines is sound: a refutation on it is a refutation."""

    def __init__(self, red: Reduced, horizon: int, value: bool, solver: str,
                 min_cuts: dict[int, int] | None, expand: int = 0) -> None:
        self.red, self.H, self.value = red, horizon, value
        self.expand = expand
        self.min_cuts = min_cuts or {}
        self.v = _Vars()
        self.s = Solver(name=solver)
        self.TRUE = self.v.new()
        self.s.add_clause([self.TRUE])
        self.nodes: list[TNode] = []
        self.deadline: Deadline | None = None  # new nodes past it raise BuildLimit
        self.root = self._node(red.start, None)

    def _node(self, pos: int, parent: TNode | None) -> TNode:
        if self.deadline is not None and self.deadline.expired():
            raise BuildLimit  # a node costs milliseconds when many links matter
        red, v, s = self.red, self.v, self.s
        x = TNode(len(self.nodes), 0 if parent is None else parent.depth + 1, pos, parent)
        self.nodes.append(x)
        x.c = [v.new() for _ in range(red.K)]
        x.r = [v.new() for _ in range(red.K)]
        rp = parent.r if parent else [self.TRUE] * red.K
        for k in range(red.K):
            c, r, p = x.c[k], x.r[k], rp[k]
            s.add_clause([-c, p])
            s.add_clause([-r, p])
            s.add_clause([-r, -c])
            s.add_clause([r, -p, c])
        for cl in _amo(x.c, v):
            s.add_clause(cl)
        x.alive = v.new()
        if parent is None:
            s.add_clause([x.alive])
        else:  # alive(x) <-> alive(parent) and not contained and the move's link is there
            ok = [] if (k := self._link(parent.pos, pos)) is None else [parent.r[k]]
            s.add_clause([-x.alive, parent.alive])
            s.add_clause([-x.alive, -parent.cont])
            for o in ok:
                s.add_clause([-x.alive, o])
            s.add_clause([x.alive, -parent.alive, parent.cont] + [-o for o in ok])
        x.cont = v.new()
        for k in red.own[pos]:  # a gateway link left next to the agent: it steps through
            s.add_clause([-x.alive, x.cont, -x.r[k]])
        if not self.value or x.depth + 1 < self.min_cuts.get(pos, 0):
            s.add_clause([-x.cont])  # too few cuts so far to separate the agent
        else:
            self._containment(x)
        if self.value and x.depth == self.H - 1:
            s.add_clause([-x.alive, x.cont])
        return x

    def _link(self, u: int, w: int) -> int | None:
        for nb, k in self.red.moves[u]:
            if nb == w:
                return k
        raise ValueError(f"no link {u}-{w} in the agent's region")

    def _containment(self, x: TNode) -> None:
        """cont(x) -> a region R holds the agent, has no gateway, and every uncut link
        leaving R is cut (links that cannot be cut keep R closed)."""
        red, s = self.red, self.s
        if red.rule == "ep2":  # R is the whole region: every gateway link must be cut
            for k in range(red.K):
                s.add_clause([-x.cont, -x.r[k]])
            return
        R = {u: self.v.new() for u in red.region}
        s.add_clause([-x.cont, R[x.pos]])
        for u in red.region:
            for w, k in red.moves[u]:
                s.add_clause([-R[u], R[w]] + ([] if k is None else [-x.r[k]]))
            for _, k in red.gate_links[u]:
                s.add_clause([-R[u], -x.r[k]])

    def add_sequence(self, seq: list[int]) -> bool:
        """Add an agent sequence p0 = start, p1, ... (ending on a gateway, or after H
        moves). Returns whether the tree grew."""
        grew = self._add_line(seq)
        return self._expand(seq) or grew

    def _add_line(self, seq: list[int]) -> bool:
        gates = self.red.m.gateways
        x = self.root
        grew = False
        for t in range(1, len(seq)):
            q = seq[t]
            if q in gates:
                k = self.red.kindex[norm(x.pos, q)]
                if q not in x.gate_moves:
                    x.gate_moves.add(q)
                    self.s.add_clause([-x.alive, x.cont, -x.r[k]])
                    grew = True
                return grew
            if t >= self.H:
                return grew
            y = x.children.get(q)
            if y is None:
                y = self._node(q, x)
                x.children[q] = y
                grew = True
            x = y
        return grew

    def _expand(self, seq: list[int]) -> bool:
        """Give the line's nodes above depth ``expand`` every agent reply as a child (after
        the line itself: the order of the new nodes matters to the solver's speed)."""
        grew = False
        x = self.root
        for q in seq[1:]:
            if x.depth >= self.expand or x.depth + 1 >= self.H or q not in x.children:
                break
            for w, _ in self.red.moves[x.pos]:
                if w not in x.children:
                    x.children[w] = self._node(w, x)
                    grew = True
            x = x.children[q]
        return grew

    def propose(self, budget: Budget) -> tuple[str, dict | None]:
        res = limited_solve(self.s, [], budget)
        if res is None:
            return LIMIT, None
        if res is False:
            return UNSAT, None
        model = self.s.get_model()
        val = bytearray(len(model) + 2)
        for lit in model:
            if lit > 0:
                val[lit] = 1
        cand = {}
        for x in self.nodes:
            if not val[x.alive]:
                continue
            k = next((k for k, c in enumerate(x.c) if val[c]), None)
            cand[x.id] = (k, bool(val[x.cont]))
        return SAT, cand


# -- the refuter: one agent sequence that beats the completed proposal -------------------

UPFRONT_VARS = 250_000  # the refuter's turn variables numbered before any clause (Refuter)

class BuildLimit(Exception):
    """The deadline passed while an encoding was being built."""


class Refuter:
    """The agent's side: one agent sequence of up to ``horizon`` turns that beats the
    completed proposal (the tree's cuts on the tree, :meth:`Reduced.policy` off it).

    The encoding is unrolled turn by turn (:meth:`_turn`), the clock read before each. The
    variables are numbered as the solver likes them best, every turn's positions first,
    then the gateway flags, the links left, the cuts and the off-tree flags (the numbering
    orders the solver's first decisions, and numbered turn by turn they lead it astray);
    above UPFRONT_VARS such variables (a long horizon on a large region: millions on a
    500-node map under ``ep1``, hundreds of megabytes before the first clause) each turn's
    are numbered with it, so a horizon costs only the turns built in time."""

    def __init__(self, red: Reduced, horizon: int, value: bool, solver: str,
                 deadline: Deadline | None = None) -> None:
        self.red, self.H = red, horizon
        v = self.v = _Vars()
        self.s = Solver(name=solver)
        self.pos: list[dict[int, int]] = []  # pos[t][u]: the agent on u after turn t
        self.D: list[int] = []  # on a gateway already
        self.rem: list[list[int]] = []  # rem[t][k]: link k still there after turn t
        self.cut: list[list[int]] = []  # cut[t][k]: the cut of turn t is k
        self.off: list[int] = []  # left the proposer's tree
        self.gm: list[dict[int, int]] = []  # gm[t][k]: onto a gateway over k at turn t
        K, turns = red.K, range(horizon + 1)
        self.upfront = (horizon + 1) * (len(red.region) + 2 * K + 2) <= UPFRONT_VARS
        if self.upfront:
            self.pos = [{u: v.new() for u in red.region} for _ in turns]
            self.D = [v.new() for _ in turns]
            self.rem = [[v.new() for _ in range(K)] for _ in turns]
            self.cut = [[v.new() for _ in range(K)] for _ in turns]
            self.off = [v.new() for _ in turns]
        # switches on the lemma of _policy; it is implied by the other clauses and only
        # helps the solver prove that no line exists, so it is assumed at the full horizon
        self.lemma = v.new()
        self.gate_k = [(u, k) for u in red.region for _, k in red.gate_links[u]]
        for t in range(horizon + 1):
            if deadline is not None and deadline.expired():
                self.s.delete()
                raise BuildLimit
            self._turn(t)
        # the verdict: only a sequence that reaches a gateway beats the player; it is asked
        # for by an assumption D[h], h growing up to H, because short lines are found fast
        self.verdict = not value
        self.h = min(horizon, 4)
        self.root: TNode | None = None
        self.on: dict[int, int] = {}
        self.act: dict[int, int] = {}
        self.nchild: dict[int, int] = {}
        self.sel: dict[tuple[int, int], int] = {}
        self.decl: dict[int, int] = {}
        self.check = PolicyCheck(red) if not value else None  # verdicts only
        self.use_check = True
        self.skip = self.wait = 0  # the abstract test's back-off
        self.quick_proofs = 0

    def _turn(self, t: int) -> None:
        """Turn ``t``'s variables and clauses: where the agent is, which links are left and
        which was cut, whether it reached a gateway or left the tree, and the policy's cut
        off the tree."""
        red, v, s = self.red, self.v, self.s
        K = red.K
        if not self.upfront:
            self.pos.append({u: v.new() for u in red.region})
            self.D.append(v.new())
            self.rem.append([v.new() for _ in range(K)])
            self.cut.append([v.new() for _ in range(K)])
            self.off.append(v.new())
        self.gm.append({})
        if t == 0:  # nothing reached, nothing left, nothing cut before the first turn
            s.add_clause([-self.D[0]])
            s.add_clause([-self.off[0]])
            for k in range(K):
                s.add_clause([self.rem[0][k]])
                s.add_clause([-self.cut[0][k]])
        lits = list(self.pos[t].values()) + [self.D[t]]
        s.add_clause(lits)
        for cl in _amo(lits, v):
            s.add_clause(cl)
        if t == 0:
            return
        s.add_clause([-self.D[t - 1], self.D[t]])
        s.add_clause([-self.off[t - 1], self.off[t]])
        for k in range(K):
            c, r, p = self.cut[t][k], self.rem[t][k], self.rem[t - 1][k]
            s.add_clause([-c, p])
            s.add_clause([-r, p])
            s.add_clause([-r, -c])
            s.add_clause([r, -p, c])
        for cl in _amo(self.cut[t], v):
            s.add_clause(cl)
        for u in red.region:  # a node is entered from a neighbour over a link still there
            s.add_clause([-self.pos[t][u]] + [self.pos[t - 1][w] for w, _ in red.moves[u]])
            for w, k in red.moves[u]:
                if k is not None:
                    s.add_clause([-self.pos[t - 1][w], -self.pos[t][u], self.rem[t][k]])
        entry = [-self.D[t], self.D[t - 1]]
        for u, k in self.gate_k:
            g = self.gm[t][k] = v.new()
            entry.append(g)
            s.add_clause([-g, self.pos[t - 1][u]])
            s.add_clause([-g, self.rem[t][k]])
        s.add_clause(entry)
        self._policy(t)

    def _policy(self, t: int) -> None:
        """Off the tree, the cut of turn ``t`` is :meth:`Reduced.policy` of the position at
        ``t - 1``: every way the policy can pick link k is a term, and the cut is k exactly
        when one of k's terms holds (no term: a pass)."""
        red, s, v = self.red, self.s, self.v
        pos, rem, off, cut = self.pos[t - 1], self.rem[t - 1], self.off[t - 1], self.cut[t]
        terms: dict[int, list[int]] = {k: [] for k in range(red.K)}

        def term(k: int, lits: list[int]) -> None:  # a fresh x <-> the conjunction of lits
            x = v.new()
            for lit in lits:
                s.add_clause([-x, lit])
            s.add_clause([x] + [-lit for lit in lits])
            terms[k].append(x)

        for u in red.region:  # the agent's own gateway link, the lowest one left
            own = red.own[u]
            for j, k in enumerate(own):
                term(k, [pos[u], rem[k]] + [-rem[i] for i in own[:j]])
        doubles = red.doubles
        if not doubles:  # the same lemma with nothing to wait for
            s.add_clause([-self.lemma, -off, self.D[t - 1], -self.D[t]])
        if doubles:
            free = v.new()  # the agent stands on a node with no gateway link left
            s.add_clause([-free, -self.D[t - 1]])
            for u in red.region:
                for k in red.own[u]:
                    s.add_clause([-free, -pos[u], -rem[k]])
                s.add_clause([free, -pos[u]] + [rem[k] for k in red.own[u]])
            dbl = {}
            for d in doubles:
                own = red.own[d]
                x = dbl[d] = v.new()  # d still has two gateway links
                for i in range(len(own)):
                    s.add_clause([-x] + [rem[k] for k in own if k != own[i]])
                for i, a in enumerate(own):
                    for b in own[i + 1:]:
                        s.add_clause([x, -rem[a], -rem[b]])
            # a redundant lemma for the solver: off the tree, once no node keeps two gateway
            # links, the policy cuts the agent's own link whenever it has one, so the agent
            # never steps onto a gateway again (safe at t-1 implies not on one at t)
            safe = v.new()  # <-> no double left
            s.add_clause([safe] + [dbl[d] for d in doubles])
            for d in doubles:
                s.add_clause([-safe, -dbl[d]])
            s.add_clause([-self.lemma, -off, -safe, self.D[t - 1], -self.D[t]])
            groups: dict[tuple[int, ...], list[int]] = {}
            for u in red.region:
                groups.setdefault(red.order[u], []).append(u)
            pick: dict[int, list[int]] = {d: [] for d in doubles}
            for order, us in groups.items():
                none = v.new()  # free, the agent on one of us, no double seen yet
                s.add_clause([-none, free])
                s.add_clause([-none] + [pos[u] for u in us])
                for u in us:
                    s.add_clause([none, -free, -pos[u]])
                for d in order:
                    here, nxt = v.new(), v.new()  # d is the first double; or not yet
                    s.add_clause([-here, none])
                    s.add_clause([-here, dbl[d]])
                    s.add_clause([here, -none, -dbl[d]])
                    s.add_clause([-nxt, none])
                    s.add_clause([-nxt, -dbl[d]])
                    s.add_clause([nxt, -none, dbl[d]])
                    pick[d].append(here)
                    none = nxt
            for d in doubles:
                own = red.own[d]
                p = v.new()  # the policy cuts at d
                for h in pick[d]:
                    s.add_clause([-h, p])
                s.add_clause([-p] + pick[d])
                for j, k in enumerate(own):
                    term(k, [p, rem[k]] + [-rem[i] for i in own[:j]])
        for k in range(red.K):
            for x in terms[k]:
                s.add_clause([-off, -x, cut[k]])
            s.add_clause([-off, -cut[k]] + terms[k])

    def _sync(self, nodes: list[TNode]) -> None:
        s, v = self.s, self.v
        if self.root is not nodes[0]:  # a new tree (another start): forget the old one's
            self.root = nodes[0]       # literals; its clauses stay, inactive
            self.on, self.act, self.nchild, self.sel, self.decl = {}, {}, {}, {}, {}
            self.h = min(self.H, 4)
            self.skip = self.wait = 0
        for x in nodes[len(self.on):]:  # new nodes come after their parents
            on = v.new()
            if x.parent is None:
                s.add_clause([on])
            else:
                p, q = self.on[x.parent.id], self.pos[x.depth][x.pos]
                s.add_clause([-on, p])
                s.add_clause([-on, q])
                s.add_clause([on, -p, -q])
            self.on[x.id] = on
        for x in nodes:
            if x.depth + 1 <= self.H and self.nchild.get(x.id) != len(x.children):
                # on(x) -> one of its children is on, or the play has left the tree
                old = self.act.get(x.id)
                if old is not None:
                    s.add_clause([-old])
                a = v.new()
                s.add_clause([-a, -self.on[x.id], self.off[x.depth + 1]]
                             + [self.on[y.id] for y in x.children.values()])
                self.act[x.id] = a
                self.nchild[x.id] = len(x.children)

    def _abstract_wins(self, nodes: list[TNode], cand: dict, deadline: Deadline) -> bool:
        won = self.check is not None and self.check.holds(nodes[0], cand, deadline)
        self.quick_proofs += won
        return won

    def refute(self, nodes: list[TNode], cand: dict, budget: Budget
               ) -> tuple[str, list[int] | None]:
        self._sync(nodes)
        assume = [self.pos[0][nodes[0].pos]] + list(self.act.values())
        for xid, (k, contained) in cand.items():
            x = nodes[xid]
            if k is not None and x.depth + 1 <= self.H:
                lit = self.sel.get((xid, k))
                if lit is None:
                    lit = self.sel[(xid, k)] = self.v.new()
                    self.s.add_clause([-self.on[xid], -lit, self.cut[x.depth + 1][k]])
                assume.append(lit)
            if contained:
                lit = self.decl.get(xid)
                if lit is None:
                    lit = self.decl[xid] = self.v.new()
                    self.s.add_clause([-self.on[xid], -lit])
                assume.append(lit)
        # the abstract test first (far cheaper than a SAT proof on big maps); after it
        # fails, it waits 1, 2, 4, ... 16 calls, but always runs before a long SAT call
        pending = self.check is not None and self.use_check
        if pending and self.wait > 0:
            self.wait -= 1
        elif pending:
            pending = False
            if self._abstract_wins(nodes, cand, budget_clock(budget)):
                self.skip = 0
                return UNSAT, None
            self.skip = self.wait = min(16, max(1, 2 * self.skip))
        while True:
            extra = [self.D[self.h]] if self.verdict else []
            # a short try without the lemma (faster on small regions), then with it
            quick = Budget(budget.deadline, LEMMA_AFTER if budget.conflicts is None else
                           min(LEMMA_AFTER, budget.conflicts - budget.used))
            res = limited_solve(self.s, assume + extra, quick)
            budget.used += quick.used
            budget.calls += quick.calls
            if res is None and pending:
                pending = False
                if self._abstract_wins(nodes, cand, budget_clock(budget)):
                    return UNSAT, None
            if res is None and not budget.spent():
                res = limited_solve(self.s, assume + extra + [self.lemma], budget)
            if res is None:
                return LIMIT, None
            if res is False and self.verdict and self.h < self.H:
                self.h = min(self.H, 2 * self.h)  # no line that short: look further
                continue
            break
        if res is False:
            return UNSAT, None
        model = self.s.get_model()
        val = set(l for l in model if l > 0)
        seq = [nodes[0].pos]
        for t in range(1, self.H + 1):
            if self.D[t] in val:
                k = next(k for k, g in self.gm[t].items() if g in val)
                a, b = self.red.cuttable[k]
                seq.append(a if a in self.red.m.gateways else b)
                break
            seq.append(next(u for u, p in self.pos[t].items() if p in val))
        return SAT, seq


# -- one bounded game ------------------------------------------------------------------

@dataclass
class Decision:
    status: str  # HOLDS (player wins within H), REFUTED (agent wins), LIMIT
    horizon: int
    proposer: Proposer | None  # None: the limit had come before anything was built
    candidate: dict | None
    iterations: int
    seconds: float


def budget_clock(budget: Budget) -> Deadline:
    """The SAT budget's deadline as a clock for the work around the SAT calls."""
    return Deadline(None, at=budget.deadline)


def _map_key(m: SkynetMap) -> tuple:
    return (m.n, tuple(m.links), tuple(sorted(m.gateways)))


class SolverCache:
    """Reductions and refuters shared by the questions on one map (``solve(..., cache=)``):
    every start in the same region gets the same reduction, and the refuter of a horizon
    is built once and reused, start given as an assumption, keeping what it has learnt
    (its learnt clauses follow from its permanent clauses alone). Close it when done, or
    use it in a ``with`` block."""

    def __init__(self) -> None:
        self.reduced: dict[tuple, Reduced] = {}
        self.refuters: dict[tuple, Refuter] = {}
        self.tables: dict[tuple, TableSearch] = {}
        self.fork_searches: dict[tuple, ForkSearch] = {}

    def reduce(self, m: SkynetMap, rule: str, start: int) -> Reduced:
        for (mid, r, _), red in self.reduced.items():
            if mid == _map_key(m) and r == rule and start in red.in_region:
                return red.for_start(start)
        red = Reduced(m, rule, start)
        self.reduced[(_map_key(m), rule, tuple(red.region))] = red
        return red

    def refuter(self, red: Reduced, horizon: int, value: bool, solver: str,
                deadline: Deadline | None = None) -> Refuter:
        key = (_map_key(red.m), red.rule, tuple(red.region), horizon, value, solver)
        if key not in self.refuters:
            self.refuters[key] = Refuter(red, horizon, value, solver, deadline)
        return self.refuters[key]

    def table(self, red: Reduced) -> TableSearch:
        """The Episode 2 table search of ``red``'s region (:mod:`.skynet_table`), its memo
        shared by every start in the region."""
        key = (_map_key(red.m), red.rule, tuple(red.region))
        if key not in self.tables:
            self.tables[key] = TableSearch(red)
        return self.tables[key]

    def forks(self, red: Reduced) -> ForkSearch:
        """The Episode 2 fork search of ``red``'s region (:mod:`.skynet_forks`), what it
        learnt shared by every start in the region."""
        key = (_map_key(red.m), red.rule, tuple(red.region))
        if key not in self.fork_searches:
            self.fork_searches[key] = ForkSearch(red)
        return self.fork_searches[key]

    def close(self) -> None:
        self.tables.clear()
        self.fork_searches.clear()
        for b in self.refuters.values():
            b.s.delete()
        self.refuters.clear()
        self.reduced.clear()

    def __enter__(self) -> "SolverCache":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def decide(red: Reduced, horizon: int, value: bool, budget: Budget,
           solver: str = DEFAULT_SOLVER, seeds: list[list[int]] | None = None,
           min_cuts: dict[int, int] | None = None,
           on_iteration: Callable[[int], None] | None = None,
           cache: SolverCache | None = None) -> Decision:
    """Can the player win within ``horizon`` turns (``value``: contain the agent; else: keep
    it off every gateway)? ``seeds`` are agent sequences to start the tree with."""
    t0 = time.monotonic()
    if budget.spent():  # nothing is built once the limit has come
        return Decision(LIMIT, horizon, None, None, 0, 0.0)
    A = Proposer(red, horizon, value, solver, min_cuts, VALUE_EXPAND if value else 0)
    A.deadline = budget_clock(budget)
    B: Refuter | None = None
    sequences: list[list[int]] = []

    def refine(seq: list[int]) -> None:
        sequences.append(seq)
        if not A.add_sequence(seq):  # the proposer's clauses exclude every tree sequence
            raise AssertionError(f"CEGAR: counterexample {seq} is already in the tree")

    try:
        B = (cache.refuter(red, horizon, value, solver, A.deadline) if cache is not None
             else Refuter(red, horizon, value, solver, A.deadline))
        for seq in seeds or []:
            A.add_sequence(seq)
        out = cegar_loop(lambda: A.propose(budget),
                         lambda cand: B.refute(A.nodes, cand, budget),  # type: ignore[union-attr]
                         refine, budget, on_iteration)
    except BuildLimit:  # an encoding (the refuter, the proposer's tree) not built in time
        out = CegarOutcome(LIMIT, None, len(sequences), len(sequences), 0.0)
    A.sequences = (seeds or []) + sequences  # type: ignore[attr-defined]
    A.s.delete()
    if cache is None and B is not None:
        B.s.delete()
    return Decision(out.status, horizon, A, out.candidate, out.iterations,
                    time.monotonic() - t0)
