"""The worst-case adversary: every agent reply searched against one bot, with a proof.

Against a bot (one of ours, any Python :class:`~puzzleproof.verify.skynet_bots.Bot`, or an
external program speaking CodinGame's protocol) the adversary explores the agent's replies
exhaustively: after each cut the bot makes, every agent move. An in-process bot is copied at
each branch; an external program keeps state of its own, so each line is a run of the program
from the start (several lines at once with ``parallel``), except that a Python script is
forked where lines branch, so lines share the run of their common prefix
(:mod:`puzzleproof.verify.skynet_sessions`; a line lost in a forked run is confirmed by a fresh
run, and forks that ever disagree with fresh runs are set aside).

The search is cut short the moment the bot cuts into a position the exact solver proves lost
for the cutter (:class:`Oracle`: the explicit-state solver for small residual games, the SAT
solver of :mod:`puzzleproof.encoders.skynet_sat` beyond, memoised): from there the agent
follows the proved winning line to a gateway. Three outcomes per (bot, map, start):

- ``BEATEN``: a line the bot loses on a start it could have won (or one not decided), as a
  game record (``skynet-game``, replayed by the rules);
- ``UNWINNABLE``: the same, on a start proved lost for every bot;
- ``PROVED``: every line ends with the agent contained. The bot's cuts then form a winning
  strategy, written as a ``skynet-player-strategy`` certificate keyed by position (agent
  node, links left) and checked by :func:`puzzleproof.models.skynet_strategy.
  check_player_strategy`, which uses the rules alone;
- ``UNKNOWN``: the time limit or ``max_lines`` ran out; the counts say how far it got.

**Modes.** By default the bot is taken to decide from the position alone: each position is
explored once, by the first line that reaches it. The assumption is checked wherever a
line passes a position another line found first (the bot must cut the same link there); a bot
that does not is *history-dependent*, and the search starts again line by line
(``per_line``, which never merges lines). The first line is played twice: a bot that answers
differently on the same line is *non-deterministic*; its lines are judged as played and it is
never PROVED.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from puzzleproof.models.skynet import (GameRecord, Link, SkynetMap, State, Turn, agent_moves,
                                       check_cut, norm, outcome, replay)
from puzzleproof.models.skynet_strategy import CheckLimit, check_player_strategy
from puzzleproof.verify.skynet_sessions import (BotPlayer, ProgramPlayer, _Failed,
                                                _Session)

__all__ = ["AdversaryResult", "Oracle", "BotPlayer", "ProgramPlayer", "adversary", "VERDICTS"]

VERDICTS = ("PROVED", "BEATEN", "UNWINNABLE", "UNKNOWN")
#: new positions of the table search per question (Episode 2) before the others are asked
TABLE_BUDGET = 20_000
#: explicit-state nodes per question before the SAT solver takes over
EXPLICIT_BUDGET = 400
#: the SAT solver's time per question about a position the bot cut into (undecided: the
#: search goes on without the short cut)
QUESTION_SECONDS = 1.0


# -- the exact solver, asked about positions -------------------------------------------------

class Oracle:
    """Who wins from a position (agent node, links left) with the player to cut: True (the
    player), False (the agent), None (the solver's limit ran out). Memoised; one per map and
    rule can serve every start and every bot.

    Fewer links never hurt the player (a strategy for more links still wins: where it would
    cut a link already gone, any other cut only takes moves from the agent), so a win with
    links L answers every subset of L, and a loss every superset: both are looked up before
    any solver runs. Under Episode 2 the table search of the exact solver answers first (its
    memo serves every later question: on map 05 from start 2 against ``ep2-article``, 73,710
    questions took 4.9 s instead of 21 s with the explicit search), then the explicit search
    with a small budget, then the SAT solver."""

    def __init__(self, m: SkynetMap, rule: str) -> None:
        from puzzleproof.encoders.skynet_sat import SolverCache
        from puzzleproof.verify.skynet_explicit import ExplicitSolver

        self.m, self.rule = m, rule
        self.explicit = ExplicitSolver(m, rule, max_nodes=0)
        self.index = {l: k for k, l in enumerate(self.explicit.g.cuttable)}
        #: links the explicit search takes as always there (ep2: those touching no gateway)
        self.fixed = frozenset(l for l in m.links if l not in self.index)
        self.memo: dict[tuple[int, frozenset], bool] = {}
        self.cache = SolverCache()
        self.lock = threading.Lock()
        self.seconds = 0.0
        self.questions = 0
        self.bits = {l: 1 << k for k, l in enumerate(m.links)}
        self.won: dict[int, list[int]] = {}
        self.lost: dict[int, list[int]] = {}
        self.tables: dict[int, Any] = {}

    def player_wins(self, agent: int, links: frozenset, time_limit: float = 5.0
                    ) -> bool | None:
        from puzzleproof.verify.skynet_explicit import _Budget

        key = (agent, links)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        bits = self.bits
        have = sum(bits[l] for l in links)
        if any(have & ~w == 0 for w in self.won.get(agent, ())):
            self.memo[key] = True
            return True
        if any(w & ~have == 0 for w in self.lost.get(agent, ())):
            self.memo[key] = False
            return False
        with self.lock:
            t0 = time.monotonic()
            self.questions += 1
            got = self._table(agent, links, t0 + time_limit / 2)
            if got is not None:
                self.seconds += time.monotonic() - t0
                self.memo[key] = got
                (self.won if got else self.lost).setdefault(agent, []).append(have)
                return got
            ex = self.explicit
            mask = sum(1 << k for l, k in self.index.items() if l in links)
            ex.max_nodes = ex.nodes + EXPLICIT_BUDGET
            ex.deadline = t0 + time_limit / 2
            try:
                if not self.fixed <= links:  # not a position of this rule's games
                    raise _Budget
                got: bool | None = ex.win(agent, mask)
            except _Budget:
                left = time_limit - (time.monotonic() - t0)
                got = self._sat(agent, links, left) if left > 0.01 else None
            self.seconds += time.monotonic() - t0
        if got is not None:
            self.memo[key] = got
            (self.won if got else self.lost).setdefault(agent, []).append(have)
        return got

    def _table(self, agent: int, links: frozenset, deadline: float) -> bool | None:
        """Episode 2: the table search of the exact solver (:mod:`.skynet_table`, leaves
        decided by the free-turns invariant and fixed paths), one per region of the map, its
        memo kept for every later question; None beyond its budget."""
        if self.rule != "ep2" or not self.fixed <= links:
            return None
        from puzzleproof.encoders.skynet_cegar import Reduced
        from puzzleproof.encoders.skynet_table import OutOfBudget, TableSearch

        table = self.tables.get(agent)
        if table is None:
            table = TableSearch(Reduced(self.m, "ep2", agent))
            for u in table.red.region:
                self.tables[u] = table
        red = table.red
        mask = sum(1 << k for k, l in enumerate(red.cuttable) if l in links)
        table.deadline, table.limit = deadline, len(table.memo) + TABLE_BUDGET
        try:
            return table._win(agent, mask)
        except OutOfBudget:
            return None

    def _sat(self, agent: int, links: frozenset, time_limit: float) -> bool | None:
        from puzzleproof.encoders.skynet_sat import solve

        m = self.m
        sub = SkynetMap(m.n, tuple(l for l in m.links if l in links), m.gateways, agent,
                        None, m.name, m.gateway_order)
        res = solve(sub, self.rule, agent, certificate=False, time_limit=time_limit,
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


# -- the search ------------------------------------------------------------------------------

@dataclass
class AdversaryResult:
    """What the adversary found for one bot, map, rule and start (see the module doc)."""

    verdict: str
    bot: str
    rule: str
    start: int
    mode: str = "position"
    winnable: bool | None = None
    record: GameRecord | None = None
    certificate: dict | None = None
    nondeterministic: bool = False
    history_dependent: bool = False
    positions: int = 0
    lines: int = 0
    replays: int = 0
    checks: int = 0
    rereached: int = 0
    plain: bool = False
    forks: int = 0
    seconds: float = 0.0
    solver_seconds: float = 0.0
    note: str = ""
    stderr: str | None = None

    def summary(self) -> str:
        """One line: the verdict, the mode and how much was explored."""
        bits = [self.verdict]
        if self.verdict == "PROVED":
            bits.append(f"({self.mode} mode: the bot's cuts contain every agent)")
            if self.mode == "position" and self.plain:
                bits.append("; position-determined by construction (the bot keeps no state "
                            "beyond its view of the links)")
            elif self.mode == "position" and self.rereached:
                bits.append(f"; {self.checks} of {self.rereached} arrivals at a position "
                            "another line found checked")
        elif self.record is not None:
            bits.append(f"({self.record.reason} after {len(self.record.turns)} turn(s))")
        flags = [f for f, on in (("non-deterministic", self.nondeterministic),
                                 ("history-dependent", self.history_dependent)) if on]
        if flags:
            bits.append("; the bot is " + " and ".join(flags))
        what = "positions" if self.mode == "position" else "line nodes"
        forked = f" (and {self.forks} forked at a branch)" if self.forks else ""
        bits.append(f"; {self.positions} {what}, {self.lines} lines, "
                    f"{self.replays} runs from the start{forked}, {self.seconds:.2f} s")
        if self.note:
            bits.append(f"; {self.note}")
        return " ".join(bits).replace(" ;", ";")

    def to_json(self) -> dict:
        from puzzleproof.formats.skynet import record_to_json

        return {"type": "skynet-adversary", "verdict": self.verdict, "bot": self.bot,
                "rule": self.rule, "start": self.start, "mode": self.mode,
                "winnable": self.winnable, "nondeterministic": self.nondeterministic,
                "history_dependent": self.history_dependent, "positions": self.positions,
                "lines": self.lines, "replays": self.replays, "checks": self.checks,
                "rereached": self.rereached, "plain": self.plain, "forks": self.forks,
                "seconds": round(self.seconds, 3),
                "solver_seconds": round(self.solver_seconds, 3), "note": self.note,
                "record": None if self.record is None else record_to_json(self.record),
                "strategy": self.certificate}


class _Switch(Exception):
    """A position answered two ways: judge the bot line by line. ``same_line``: on the same
    line (the bot is non-deterministic), else on two lines (history-dependent)."""

    def __init__(self, message: str, same_line: bool) -> None:
        super().__init__(message)
        self.same_line = same_line


class _Stop(Exception):
    pass


@dataclass
class _Item:
    moves: tuple[int, ...]  # agent moves from the start; the last enters the target
    key: Any  # the target's key
    fork: tuple | None = None  # a copy to continue: (session, state, turns, line key)
    plain: bool = False  # run afresh, not forked (a line lost in a forked run, confirmed)


@dataclass
class _Entry:
    cut: Link
    line: tuple[int, ...]


class _Search:
    def __init__(self, m: SkynetMap, rule: str, start: int, player, oracle: Oracle,
                 per_line: bool, deadline: float | None, max_lines: int | None) -> None:
        self.m, self.rule, self.start, self.player = m, rule, start, player
        self.oracle, self.per_line = oracle, per_line
        self.deadline, self.max_lines = deadline, max_lines
        self.bit = {l: 1 << k for k, l in enumerate(m.links)}
        self.table: dict[Any, _Entry] = {}
        self.expanded: dict[tuple, list[tuple[int, Any]]] = {}
        self.claimed: set = set()
        self.ids: dict[tuple, int] = {}
        self.pending: list[_Item] = []
        self.lock = threading.RLock()
        self.stop = False
        self.limit: str | None = None
        self.lost: tuple[list[Turn], str, str | None, str | None] | None = None
        self.first_line: list[Turn] | None = None
        self.nondeterministic = False
        self.lines = self.replays = self.checks = self.rereached = 0
        self.plain = False
        self.known: list = []
        self.walk_turn: dict[tuple, int] = {}

    # keys: a position (agent, links left) in position mode, a line id in per-line mode
    def key(self, state: State, parent: Any, cut: Link | None, move: int | None) -> Any:
        if not self.per_line:
            return (state.agent, state.links)
        if parent is None:
            return 0
        with self.lock:
            return self.ids.setdefault((parent, cut, move), len(self.ids) + 1)

    def _limits(self) -> None:
        if self.stop:
            raise _Stop
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.limit = self.limit or "time limit"
            self.stop = True
            raise _Stop

    def run_item(self, item: _Item) -> None:
        """Play one line: replay ``item.moves`` (or continue a copy), then explore."""
        with self.lock:
            try:
                self._limits()
                if self.max_lines is not None and self.lines >= self.max_lines:
                    self.limit = self.limit or f"--max-replays {self.max_lines}"
                    self.stop = True
                    raise _Stop
            except _Stop:
                if item.fork is not None:
                    item.fork[0].close()
                raise
            self.lines += 1
        if item.fork is not None:
            sess, state, turns, key = item.fork
            plan = deque(item.moves[len(turns):])
        else:
            with self.lock:
                self.replays += 1
            sess = self.player.open(self.m, plain=item.plain) if item.plain \
                else self.player.open(self.m)
            state, turns, key, plan = self.m.initial_state(self.start), [], None, deque(item.moves)
        try:
            self._play(sess, state, turns, key, plan)
        finally:
            sess.close()
            if self.lost is not None and self.lost[0] is turns and sess.stderr is not None:
                self.lost = (*self.lost[:3], sess.stderr)

    def close_pending(self) -> None:
        """Stop the copies still waiting in the queue (forked programs are processes)."""
        with self.lock:
            items, self.pending = self.pending, []
        for item in items:
            if item.fork is not None:
                item.fork[0].close()

    def _play(self, sess: _Session, state: State, turns: list[Turn], key: Any,
              plan: deque) -> None:
        m, rule = self.m, self.rule
        forced = checking = False
        if key is None:
            key = self.key(state, None, None, None)
        line = tuple(t.agent_moved_to for t in turns)
        while True:
            self._limits()
            if checking and key not in self.table:
                return self._line_done(turns, partial=True)  # not a check after all
            try:
                cut, _secs = sess.ask(state.agent)
            except _Failed as f:
                turns.append(Turn(state.agent, None, None))
                return self._beaten(turns, f.reason, f.detail, sess)
            why = check_cut(m, state, cut, rule)
            if why:
                turns.append(Turn(state.agent, cut, None))
                return self._beaten(turns, "illegal-cut", why, sess)
            cut = norm(*cut)
            with self.lock:
                entry = self.table.get(key)
                if entry is None:
                    self.table[key] = _Entry(cut, line)
                elif entry.cut != cut:
                    same = entry.line == line or self.per_line
                    self.nondeterministic = self.nondeterministic or same
                    if not self.per_line:
                        raise _Switch(f"at agent {state.agent} it cut {entry.cut[0]}-"
                                      f"{entry.cut[1]} on one line and {cut[0]}-{cut[1]} on "
                                      + ("the same line again" if same else "another"), same)
                elif entry.line != line:
                    self.checks += 1
            after = state.cut(cut)
            if checking:
                turns.append(Turn(state.agent, cut, None))
                return self._line_done(turns, partial=True)
            if outcome(after) == "WIN":
                turns.append(Turn(state.agent, cut, None))
                return self._line_done(turns)
            moves = agent_moves(after)
            gate = next((v for v in moves if v in m.gateways), None)
            if gate is not None:
                turns.append(Turn(state.agent, cut, gate))
                return self._beaten(turns, "agent-reached-gateway",
                                    f"the agent reached gateway {gate}", sess)
            with self.lock:
                self.known = []
                children, fresh, lost = self._expand(key, cut, state, after, moves, forced)
                known = self.known
            checked = (bool(known) and not self.per_line and lost is None
                       and self._check_known(sess, known))
            if lost is not None:
                forced, v = True, lost
                plan.clear()
            elif plan and plan[0] in moves:
                v = plan.popleft()
                fresh = [c for c in fresh if c[0] != v]
            elif fresh:
                plan.clear()
                v = fresh.pop(0)[0]
            elif not self.per_line and children and not forced and not checking \
                    and not checked:
                # one step more, into a position another line found: a check of the
                # position-determined assumption, at the cost of one more cut
                plan.clear()
                checking = True
                with self.lock:
                    k = self.walk_turn.get((key, cut), 0)
                    self.walk_turn[(key, cut)] = k + 1
                v = children[k % len(children)][0]
            else:
                turns.append(Turn(state.agent, cut, None))
                return self._line_done(turns, partial=True)
            turns.append(Turn(state.agent, cut, v))
            if fresh:
                self._push(sess, after, turns, key, cut, fresh)
            child = after.move(v)
            key = self.key(child, key, cut, v)
            state, line = child, line + (v,)

    def _expand(self, key, cut, state, after, moves, forced):
        """Children of (key, cut): their keys, those newly claimed, and a move into a position
        the solver proves lost for the player (then nothing else is claimed)."""
        ek = (key, cut)
        if ek in self.expanded and not forced:
            return self.expanded[ek], [], None
        left = None if self.deadline is None else self.deadline - time.monotonic()
        limit = QUESTION_SECONDS if left is None else max(0.05, min(QUESTION_SECONDS, left))
        for v in moves:
            if self.oracle.player_wins(v, after.links, limit) is False:
                return [], [], v
        children = [(v, self.key(after.move(v), key, cut, v)) for v in moves]
        self.expanded[ek] = children
        fresh, self.known = [], []
        for v, ck in children:
            if ck not in self.claimed and ck not in self.table:
                self.claimed.add(ck)
                fresh.append((v, ck))
            else:
                self.rereached += 1
                if ck in self.table:
                    self.known.append((v, ck))
        return children, fresh, None

    def _check_known(self, sess: _Session, known: list) -> bool:
        """An in-process bot, copied, asked at each position this line reaches that another
        line found first: the same cut, or the bot is history-dependent. (A program would
        need a run from the start for each: its lines check where they pass.)"""
        if sess.plain:  # its cut is a function of the position: nothing to check
            self.plain = True
            return True
        if not sess.copy_checks:
            return False
        for v, ck in known:
            other = sess.fork()
            if other is None:
                return False
            try:
                cut, _ = other.ask(v)
            except _Failed:
                cut = None
            finally:
                other.close()
            with self.lock:
                entry = self.table[ck]
                self.checks += 1
                if cut is None or norm(*cut) != entry.cut:
                    said = "no cut" if cut is None else f"{cut[0]}-{cut[1]}"
                    raise _Switch(f"at agent {v} it cut {entry.cut[0]}-{entry.cut[1]} on one "
                                  f"line and {said} on another", False)
        return True

    def _push(self, sess, after, turns, key, cut, fresh) -> None:
        base = tuple(t.agent_moved_to for t in turns[:-1])
        items = []
        for v, ck in fresh:
            fork = None
            other = sess.fork()
            if other is not None:
                fork = (other, after.move(v), turns[:-1] + [Turn(after.agent, cut, v)], ck)
            items.append(_Item(base + (v,), ck, fork))
        with self.lock:
            self.pending.extend(reversed(items))

    def _line_done(self, turns: list[Turn], partial: bool = False) -> None:
        with self.lock:
            if self.first_line is None and not partial:
                self.first_line = list(turns)

    def _beaten(self, turns: list[Turn], reason: str, detail: str | None,
                sess: _Session | None = None) -> None:
        if sess is not None and not sess.authoritative:
            # lost in a forked run: a fresh run of the program replays the line for the record
            moves = tuple(t.agent_moved_to for t in turns[:-1])
            with self.lock:
                self.pending.append(_Item(moves, None, None, plain=True))
            return
        with self.lock:
            if self.first_line is None:
                self.first_line = list(turns)
            if self.lost is None:
                self.lost = (turns, reason, detail, None)
            self.stop = True

    def next_item(self) -> _Item | None:
        with self.lock:
            while self.pending:
                item = self.pending.pop()
                if not self.per_line and item.key in self.table:
                    if item.fork is not None:
                        item.fork[0].close()
                    continue  # found meanwhile by another line
                return item
        return None

    def drive(self, parallel: int) -> None:
        """Every pending line, ``parallel`` at a time, until none is left or one is lost."""
        if parallel <= 1:
            while not self.stop:
                item = self.next_item()
                if item is None:
                    return
                try:
                    self.run_item(item)
                except _Stop:
                    return
            return
        with ThreadPoolExecutor(parallel) as pool:
            running: set = set()
            try:
                while True:
                    while len(running) < parallel and not self.stop:
                        item = self.next_item()
                        if item is None:
                            break
                        running.add(pool.submit(self.run_item, item))
                    if not running:
                        return
                    done, running = wait(running, return_when=FIRST_COMPLETED)
                    for f in done:
                        exc = f.exception()
                        if exc is not None and not isinstance(exc, _Stop):
                            raise exc
            finally:
                self.stop = self.stop or bool(running)
                wait(running)

    def same_again(self) -> bool | None:
        """Replay the first line: does the bot answer the same? (None: no line was played.)"""
        first = self.first_line
        if not first:
            return None
        self.replays += 1
        sess = self.player.open(self.m, plain=True)
        try:
            for t in first:
                try:
                    cut, _ = sess.ask(t.agent_at)
                except _Failed:
                    return t.cut is None
                if t.cut is None or norm(*cut) != norm(*t.cut):
                    return False
                if t.agent_moved_to is None:
                    return True
        finally:
            sess.close()
        return True


def adversary(m: SkynetMap, rule: str, start: int, player, *, per_line: bool = False,
              time_limit: float | None = 60.0, max_lines: int | None = None,
              oracle: Oracle | None = None, certificate: bool = True) -> AdversaryResult:
    """Search every agent line against ``player`` (a :class:`BotPlayer` or a
    :class:`ProgramPlayer`) from ``start`` under ``rule``; see the module doc.

    ``max_lines`` bounds the lines played (for a program, each is a run from the start);
    ``time_limit`` the wall time. Both give UNKNOWN with the counts explored.
    """
    t0 = time.monotonic()
    deadline = None if time_limit is None else t0 + time_limit
    m.initial_state(start)  # validates the start
    oracle = oracle or oracle_for(m, rule)
    solver0 = oracle.seconds
    budget = 5.0 if time_limit is None else max(0.05, min(30.0, time_limit / 2))
    winnable = oracle.player_wins(start, frozenset(m.links), budget)
    mode_note = fork_note = ""
    totals = [0, 0, 0, 0]
    history = nondet = False
    forks0 = getattr(player, "forks", 0)
    while True:
        forking = getattr(player, "forking", False)
        s = _Search(m, rule, start, player, oracle, per_line, deadline, max_lines)
        s.lines, s.replays, s.checks, s.rereached = totals
        s.pending.append(_Item((), s.key(m.initial_state(start), None, None, None)))
        try:
            first = s.next_item()
            try:
                s.run_item(first)  # type: ignore[arg-type]
            except _Stop:
                pass
            same = s.same_again()
            if same is False and forking:
                raise _Switch("the first line, forked and fresh, was answered differently",
                              False)
            if same is False:
                s.nondeterministic = True
            if not s.stop:
                s.drive(max(1, getattr(player, "parallel", 1)))
        except _Switch as sw:
            totals = [s.lines, s.replays, s.checks, s.rereached]
            s.close_pending()
            if forking:  # first, rule out the forking itself: fresh runs for every line
                saved, player.fork_lines = player.fork_lines, False
                fork_note = f"forked runs set aside ({sw}): every line run afresh"
                continue
            if fork_note:  # fresh runs differ too: the bot's own doing; forks are faithful
                player.fork_lines, fork_note = saved, ""
            what = "non-deterministic" if sw.same_line else "history-dependent"
            mode_note = f"{what}: {sw}; judged line by line"
            history = history or not sw.same_line
            nondet = nondet or sw.same_line
            per_line = True
            continue
        finally:
            s.close_pending()
        break
    res = AdversaryResult("UNKNOWN", player.name, rule, start,
                          "per-line" if per_line else "position", winnable,
                          nondeterministic=s.nondeterministic or nondet,
                          history_dependent=history, positions=len(s.table),
                          lines=s.lines, replays=s.replays, checks=s.checks,
                          rereached=s.rereached, plain=s.plain,
                          forks=getattr(player, "forks", 0) - forks0)
    notes = [n for n in (fork_note, mode_note) if n]
    if s.lost is not None:
        turns, reason, detail, stderr = s.lost
        record = GameRecord(m, rule, start, turns, "LOSS", reason, bot=player.name,
                            agent="worst", detail=detail)
        problems = replay(record)
        if problems:
            raise AssertionError(f"the adversary's line does not replay: {problems[0]}")
        res.record, res.stderr = record, stderr
        if stderr is not None:
            record.stderr = stderr  # type: ignore[attr-defined]
        res.verdict = "UNWINNABLE" if winnable is False else "BEATEN"
        if winnable is None:
            notes.append("the exact solver did not decide the start in its limit")
    elif s.limit is not None:
        notes.append(f"{s.limit} reached after {len(s.table)} positions, {s.lines} lines")
    elif res.nondeterministic:
        notes.append("the bot is non-deterministic: every line explored was won as played, "
                     "which proves nothing about its other runs")
    else:
        try:
            cert = position_table(m, rule, start, s, deadline)
            problems = check_player_strategy(m, rule, start, cert, deadline=deadline)
        except CheckLimit:
            problems = None
            notes.append(f"every line was won ({len(s.table)} positions), but the time "
                         "limit ran out while the certificate was built and checked")
        if problems is None:
            pass
        elif problems:
            notes.append(f"the bot's cuts did not replay as a strategy: {problems[0]}")
        else:
            res.verdict = "PROVED"
            res.certificate = cert if certificate else None
    res.note = "; ".join(notes)
    res.seconds = time.monotonic() - t0
    res.solver_seconds = oracle.seconds - solver0
    return res


def position_table(m: SkynetMap, rule: str, start: int, s: _Search,
                   deadline: float | None = None) -> dict:
    """The bot's cuts as a position -> cut table (``skynet-player-strategy``): one node per
    position the explored lines reach, its cut the bot's there (the first line's, per line).
    Raises :class:`CheckLimit` past ``deadline``."""
    ticks = 0

    def tick() -> None:
        nonlocal ticks
        ticks += 1
        if deadline is not None and ticks % 1024 == 0 and time.monotonic() > deadline:
            raise CheckLimit

    by_pos: dict[tuple, Link] = {}
    if s.per_line:  # positions of every line, replayed along the expansions
        state0 = m.initial_state(start)
        stack = [(state0, 0)]
        while stack:
            tick()
            state, key = stack.pop()
            entry = s.table[key]
            pos = (state.agent, state.links)
            if pos in by_pos:
                continue
            by_pos[pos] = entry.cut
            for v, ck in s.expanded.get((key, entry.cut), []):
                stack.append((state.cut(entry.cut).move(v), ck))
    else:
        by_pos = {k: e.cut for k, e in s.table.items()}
    index = {l: k for k, l in enumerate(m.links)}
    masks: dict[frozenset, str] = {}

    def nid(agent: int, links: frozenset) -> str:
        mask = masks.get(links)
        if mask is None:
            mask = masks[links] = f"{sum(1 << index[l] for l in links):x}"
        return f"{agent}:{mask}"

    nodes: dict[str, dict] = {}
    stack2 = [(start, frozenset(m.links))]
    while stack2:
        tick()
        agent, links = stack2.pop()
        name = nid(agent, links)
        if name in nodes:
            continue
        cut = by_pos[(agent, links)]
        after = State(m, agent, links).cut(cut)
        nxt: dict[str, str] = {}
        if outcome(after) != "WIN":
            for v in agent_moves(after):
                nxt[str(v)] = nid(v, after.links)
                stack2.append((v, after.links))
        nodes[name] = {"agent": agent, "cut": list(cut), "next": nxt}
    return {"type": "skynet-player-strategy", "root": nid(start, frozenset(m.links)),
            "nodes": nodes}
