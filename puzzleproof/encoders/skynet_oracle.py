"""Who wins a Skynet position: the exact answers the worst-case adversary asks for.

The adversary (:mod:`puzzleproof.games.skynet_adversary`) asks, after every cut a bot
makes, whether the agent can now win; it asks about every position the bot's lines reach
(tens of thousands on the large official maps), so answers are memoised and most come from
a search that stops early:

- Episode 2: a memoised minimax over (agent node, links left) whose leaves are decided
  without search (:class:`Ep2Search`): the player wins when the *free turns* it gets before
  the agent can stand on each node with two or more gateway links cover the cuts those nodes
  need, earliest deadline first (the invariant proved in
  :mod:`puzzleproof.models.skynet_strategy`); the agent wins when some node with ``c``
  gateway links can be reached with fewer than ``c - 1`` free turns (it walks there: every
  other turn on the way forces the player's cut). Between the two, every cut of a gateway
  link the agent can reach is tried, forced cuts first.
- Episode 1, and Episode 2 beyond the search's budget: the explicit-state solver of
  :mod:`puzzleproof.encoders.skynet_explicit` with a small budget, then the SAT solver of
  :mod:`puzzleproof.encoders.skynet_sat` (one :class:`SolverCache` per map).

An answer is True (the player wins), False (the agent wins) or None (a limit ran out).
"""

from __future__ import annotations

import threading
import time

from puzzleproof.clock import Deadline
from puzzleproof.models.skynet import SkynetMap
from puzzleproof.models.skynet_board import Board, popcount

__all__ = ["Oracle", "Ep2Search", "oracle_for", "QUESTION_SECONDS"]

#: new positions of the Episode 2 search per question before the other solvers are asked
SEARCH_BUDGET = 20_000
#: explicit-state nodes per question before the SAT solver takes over
EXPLICIT_BUDGET = 400
#: the longest a question about a position the bot cut into may take (undecided: the
#: adversary goes on without the short cut)
QUESTION_SECONDS = 1.0
#: a question's limit when the asker gives no deadline (an agent choosing its move)
DEFAULT_SECONDS = 5.0


class _OutOfBudget(Exception):
    pass


class Ep2Search:
    """Episode 2 verdicts by memoised search over (agent, links mask), leaves decided by the
    free-turns count (see the module doc). The memo holds only positions decided in full, so
    a question cut short by its budget leaves it sound for the next."""

    def __init__(self, board: Board) -> None:
        self.b = board
        self.memo: dict[tuple[int, int], bool] = {}
        self.limit = 0
        self.deadline: Deadline | None = None

    def leaf(self, dist: dict[int, int], mask: int) -> bool | None:
        """True: the invariant holds (the player wins); False: a node needs more cuts than
        the free turns before the agent can reach it (the agent wins); None: search on."""
        gb = self.b.gate_bits
        need = []
        for u, f in dist.items():
            c = popcount(gb[u] & mask)
            if c >= 2:
                if f < c - 1:
                    return False
                need.append((f, c - 1))
        total = 0
        for f, c in sorted(need):
            total += c
            if total > f:
                return None
        return True

    def _cuts(self, dist: dict[int, int], mask: int) -> list[int]:
        gb = self.b.gate_bits
        ranked = []
        for u, f in dist.items():
            left = gb[u] & mask
            double = 0 if left & (left - 1) else 1
            while left:
                bit = left & -left
                left ^= bit
                ranked.append((double, f, bit))
        ranked.sort()
        return [bit for _, _, bit in ranked]

    def win(self, a: int, mask: int) -> bool:
        key = (a, mask)
        got = self.memo.get(key)
        if got is not None:
            return got
        if len(self.memo) >= self.limit or (self.deadline is not None
                                            and self.deadline.expired()):
            raise _OutOfBudget
        b = self.b
        own = b.gate_bits[a] & mask
        if own & (own - 1):
            got = False  # two gateway links at the agent: one cut cannot save both
        elif own:
            got = self._try(a, mask, [own])
        else:
            dist = b.free_turns(a, mask)  # the board's count, the checker's too
            got = self.leaf(dist, mask)
            if got is None:
                got = self._try(a, mask, self._cuts(dist, mask))
        self.memo[key] = got
        return got

    def _try(self, a: int, mask: int, cuts: list[int]) -> bool:
        b = self.b
        for bit in cuts:
            after = mask & ~bit
            if b.contained(a, after):
                return True
            if b.gate_bits[a] & after:
                continue  # the agent steps onto a gateway
            if all(self.win(w, after) for w in b.moves(a, after)):
                return True
        return not cuts and b.contained(a, mask)

    def decide(self, a: int, mask: int, deadline: Deadline, budget: int) -> bool | None:
        self.limit, self.deadline = len(self.memo) + budget, deadline
        try:
            return self.win(a, mask)
        except _OutOfBudget:
            return None


class Oracle:
    """Who wins from a position (agent node, links left) with the player to cut: True (the
    player), False (the agent), None (the solver's limit ran out). Memoised; one per map and
    rule serves every start and every bot (:func:`oracle_for`). Questions take either a set
    of links (:meth:`player_wins`) or a mask over ``m.links`` (:meth:`wins`)."""

    def __init__(self, m: SkynetMap, rule: str) -> None:
        from puzzleproof.encoders.skynet_sat import SolverCache

        self.m, self.rule = m, rule
        self.board = Board(m, rule)
        self.ep2 = Ep2Search(self.board) if rule == "ep2" else None
        self.explicit = None
        self.memo: dict[tuple[int, int], bool] = {}
        self.won: dict[int, list[int]] = {}
        self.lost: dict[int, list[int]] = {}
        self.cache = SolverCache()
        self.lock = threading.Lock()
        self.seconds = 0.0
        self.questions = 0

    def player_wins(self, agent: int, links: frozenset, deadline: Deadline | None = None
                    ) -> bool | None:
        return self.wins(agent, self.board.mask(links), deadline)

    def wins(self, agent: int, mask: int, deadline: Deadline | None = None) -> bool | None:
        """The answer within ``deadline`` (None: DEFAULT_SECONDS from now, a question's
        own limit when the asker has no clock)."""
        key = (agent, mask)
        hit = self.memo.get(key)
        if hit is None:
            hit = self._bounds(agent, mask)
        if hit is not None:
            return hit
        with self.lock:
            t0 = time.monotonic()
            self.questions += 1
            got = self._ask(agent, mask, deadline or Deadline(DEFAULT_SECONDS))
            self.seconds += time.monotonic() - t0
            if got is not None:
                self.memo[key] = got
                (self.won if got else self.lost).setdefault(agent, []).append(mask)
        return got

    def _bounds(self, agent: int, mask: int) -> bool | None:
        """Fewer links never hurt the player (where a strategy for more links would cut a
        link already gone, any other cut only takes moves from the agent): a position won
        with links L answers every subset of L, one lost every superset. Only answers the
        solvers gave are kept here, so the lists stay short."""
        for w in self.won.get(agent, ()):
            if mask & ~w == 0:
                self.memo[(agent, mask)] = True
                return True
        for w in self.lost.get(agent, ()):
            if w & ~mask == 0:
                self.memo[(agent, mask)] = False
                return False
        return None

    def _ask(self, agent: int, mask: int, deadline: Deadline) -> bool | None:
        b = self.board
        if agent in self.m.gateways:
            return False
        if b.contained(agent, mask):
            return True
        every = mask | b.cuttable == b.full  # every link the rule may not cut is there
        if self.ep2 is not None and every:
            got = self.ep2.decide(agent, mask, deadline.share(1 / 2), SEARCH_BUDGET)
            if got is not None:
                return got
        elif every:
            got = self._explicit(agent, mask, deadline.share(1 / 2))
            if got is not None:
                return got
        left = deadline.left()
        return self._sat(agent, mask, deadline) if left is None or left > 0.01 else None

    def _explicit(self, agent: int, mask: int, deadline: Deadline) -> bool | None:
        from puzzleproof.encoders.skynet_explicit import ExplicitSolver, _Budget

        if self.explicit is None:
            ex = self.explicit = ExplicitSolver(self.m, self.rule, max_nodes=0)
            self.local = [(1 << self.board.index[l], 1 << k)
                          for k, l in enumerate(ex.g.cuttable)]
        ex = self.explicit
        ex.max_nodes = ex.nodes + EXPLICIT_BUDGET
        ex.deadline = deadline
        try:
            return ex.win(agent, sum(lb for gb, lb in self.local if mask & gb))
        except _Budget:
            return None

    def _sat(self, agent: int, mask: int, deadline: Deadline) -> bool | None:
        from puzzleproof.encoders.skynet_sat import solve

        m = self.m
        sub = SkynetMap(m.n, tuple(l for i, l in enumerate(m.links) if mask >> i & 1),
                        m.gateways, agent, None, m.name, m.gateway_order)
        res = solve(sub, self.rule, agent, certificate=False, deadline=deadline,
                    cache=self.cache)
        return {"WIN": True, "LOSS": False}.get(res.status.value)

    def close(self) -> None:
        self.cache.close()


_ORACLES: dict[tuple, Oracle] = {}


def oracle_for(m: SkynetMap, rule: str) -> Oracle:
    """The oracle of this map and rule, kept for the next start (a pool worker judges many
    starts of one map in a row)."""
    key = (m.n, m.links, m.gateways, rule)
    if key not in _ORACLES:
        while len(_ORACLES) >= 4:
            _ORACLES.pop(next(iter(_ORACLES))).close()
        _ORACLES[key] = Oracle(m, rule)
    return _ORACLES[key]
