"""The adversary's search: every agent reply against one bot, each line a run of the bot.

A *line* is one run of the bot (a session of :mod:`puzzleproof.games.skynet_sessions`)
along one sequence of agent moves: it asks the bot for its cut at each position, and after
each cut moves the agent. Where the agent has several moves, the line follows one and leaves
the others as *items*, each with a copy of the session when the bot can be copied (an
in-process bot, a forked program) or as the moves to replay from the start otherwise.

**Position mode** (the default) takes the bot to decide from the position alone (agent
node, links left): a position is explored by the first line that reaches it, and a line
that reaches a position another line found stops there, after one more cut that checks the
assumption when it can (the bot must cut the same link; in-process bots are copied and
asked at every such position). A :class:`Knowledge` carries what a bot answered from one
start to the next on the same map: positions whose every line was won (*settled*) end the
lines of later starts like positions of their own, under the same assumption and the same
checks. **Per-line mode** merges nothing: every line is judged as played.

A position answered two ways raises :class:`Switch`: on the same line the bot is
non-deterministic, on two lines it depends on its history, on two starts it depends on the
start. The caller (:func:`puzzleproof.games.skynet_adversary.adversary`) decides what to do.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from puzzleproof.models.skynet import Turn, norm
from puzzleproof.models.skynet_board import Board
from puzzleproof.games.skynet_settled import Knowledge
from puzzleproof.clock import Deadline
from puzzleproof.encoders.skynet_oracle import QUESTION_SECONDS, Oracle
from puzzleproof.games.skynet_sessions import _Failed, _Session

__all__ = ["Search", "Switch", "Stop", "Item", "Replay", "SYNC_SECONDS", "TIME_REASONS"]

#: how often a search shares its settled positions with other processes (and takes theirs)
SYNC_SECONDS = 1.5
#: the failures that depend on the machine's load as much as on the program
TIME_REASONS = ("timeout", "init-timeout")


class Switch(Exception):
    """A position answered two ways. ``kind``: ``"line"`` (the same line: the bot is
    non-deterministic), ``"history"`` (two lines of one start), ``"start"`` (two starts),
    ``"fork"`` (a forked run and a fresh run of the first line)."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


class Stop(Exception):
    """The search stops: a line was lost, or a limit ran out."""


@dataclass
class Item:
    """A line to play: the agent's moves from the start (the last enters position ``key``)
    and, when the bot could be copied where the line branched, the copy to go on with:
    ``(session, agent, links mask, turns, key)``. ``plain``: a fresh run, to confirm a line
    lost in a forked one."""

    moves: tuple[int, ...]
    key: Any
    fork: tuple | None = None
    plain: bool = False


@dataclass
class _Entry:
    cut: int  # the bit of the link the bot cut
    line: tuple[int, ...]  # the agent's moves that first led here


class Search:
    """One search from one start (see the module doc); :meth:`drive` plays every item."""

    def __init__(self, board: Board, start: int, player, oracle: Oracle, per_line: bool,
                 deadline: float | None, max_lines: int | None,
                 knowledge: Knowledge | None) -> None:
        self.board, self.start, self.player, self.oracle = board, start, player, oracle
        self.per_line, self.deadline, self.max_lines = per_line, deadline, max_lines
        self.knowledge = None if per_line else knowledge
        self.table: dict[Any, _Entry] = {}
        self.expanded: dict[tuple, list[tuple[int, Any]]] = {}
        self.claimed: set = set()
        self.ids: dict[tuple, int] = {}
        self.pending: list[Item] = []
        self.lock = threading.RLock()
        self.stop = False
        self.limit: str | None = None
        self.lost: tuple[list[Turn], str, str | None, str | None] | None = None
        self.first_line: list[Turn] | None = None
        self.nondeterministic = False
        self.lines = self.replays = self.checks = self.rereached = 0
        self.plain = False
        #: a forked line lost by play stands as played (a start proved lost, and only a
        #: loss is sought: no bot wins it, so a fresh run would add nothing)
        self.lost_as_played = False
        self.walk_turn: dict[tuple, int] = {}
        self.synced = time.monotonic()
        self.sync_every = SYNC_SECONDS

    # -- positions -----------------------------------------------------------------------

    def key(self, agent: int, mask: int, parent: Any, cut: int | None, move: int | None
            ) -> Any:
        """A position (agent, links mask) in position mode, a line node's id per line."""
        if not self.per_line:
            return (agent, mask)
        if parent is None:
            return 0
        with self.lock:
            return self.ids.setdefault((parent, cut, move), len(self.ids) + 1)

    def root(self) -> Any:
        return self.key(self.start, self.board.full, None, None, None)

    def settled(self, key: Any) -> bool:
        k = self.knowledge
        return k is not None and key in k.settled

    def known(self, key: Any) -> bool:
        return key in self.table or self.settled(key)

    def limits(self) -> None:
        if self.stop:
            raise Stop
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.limit = self.limit or "time limit"
            self.stop = True
            raise Stop

    def record(self, key: Any, cut: int, line: tuple[int, ...], agent: int) -> None:
        """The bot cut ``cut`` at ``key``: kept, or compared with what was kept."""
        with self.lock:
            entry = self.table.get(key)
            if entry is None:
                self.table[key] = _Entry(cut, line)
                before = None if self.knowledge is None else self.knowledge.cuts.get(key)
                if before is not None and before != cut:
                    raise Switch(self._two_ways(agent, before, cut, "another start"), "start")
                self.checks += before is not None
            elif entry.cut != cut:
                same = entry.line == line or self.per_line
                self.nondeterministic = self.nondeterministic or same
                if not self.per_line:
                    raise Switch(self._two_ways(agent, entry.cut, cut, "the same line again"
                                                if same else "another"),
                                 "line" if same else "history")
            elif entry.line != line:
                self.checks += 1

    def _two_ways(self, agent: int, one: int, other: int, where: str) -> str:
        a, b = self.board.link(one), self.board.link(other)
        return f"at agent {agent} it cut {a[0]}-{a[1]} on one line and {b[0]}-{b[1]} on {where}"

    def expand(self, key: Any, cut: int, after: int, moves: list[int], forced: bool):
        """The children of (``key``, ``cut``): ``(children, fresh, lost, known)`` with the
        newly claimed children in ``fresh`` and, in ``lost``, a move into a position the
        solver proves lost for the player (then nothing is claimed)."""
        ek = (key, cut)
        if ek in self.expanded and not forced:
            return self.expanded[ek], [], None, []
        for v in moves:  # each question gets what is left of the deadline
            now = time.monotonic()
            question = (Deadline(QUESTION_SECONDS) if self.deadline is None else
                        Deadline(None, at=max(now + 0.01, min(now + QUESTION_SECONDS,
                                                              self.deadline))))
            if self.oracle.wins(v, after, question) is False:
                return [], [], v, []
        children = [(v, self.key(v, after, key, cut, v)) for v in moves]
        self.expanded[ek] = children
        fresh, known = [], []
        for v, ck in children:
            if ck in self.claimed or self.known(ck):
                self.rereached += 1
                if self.known(ck):
                    known.append((v, ck))
            else:
                self.claimed.add(ck)
                fresh.append((v, ck))
        return children, fresh, None, known

    def check_move(self, key: Any, cut: int, children: list) -> int:
        """The move of a line that takes one more cut into a known position, to check it
        (in turn over the children, lines that end at the same place check different ones)."""
        with self.lock:
            k = self.walk_turn.get((key, cut), 0)
            self.walk_turn[(key, cut)] = k + 1
        return children[k % len(children)][0]

    def check_known(self, sess: _Session, known: list) -> bool:
        """An in-process bot, copied, asked at each known position the line could enter:
        the same cut, or :class:`Switch`. (A program would need a run for each: its lines
        check where they pass.)"""
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
            why, bit = ("no cut", 0) if cut is None else self.board.cut(v, ck[1], cut)
            if why:
                raise Switch(f"at agent {v} it answered on one line and failed on another "
                             f"({why})", "history")
            self.record(ck, bit, (-1,), v)
        return True

    # -- lines ---------------------------------------------------------------------------

    def push(self, sess: _Session, after: int, turns: list[Turn], fresh: list) -> None:
        """Items for the other fresh children of the line's last position: copies of its
        session when it can be copied, else replays from the start."""
        base = tuple(t.agent_moved_to for t in turns[:-1])
        last = turns[-1]
        items = []
        for (v, ck), other in zip(fresh, sess.forks(len(fresh))):
            fork = None if other is None else (
                other, v, after, turns[:-1] + [Turn(last.agent_at, last.cut, v)], ck)
            items.append(Item(base + (v,), ck, fork))
        with self.lock:
            self.pending.extend(reversed(items))

    def line_done(self, turns: list[Turn], partial: bool = False) -> None:
        with self.lock:
            if self.first_line is None and not partial:
                self.first_line = list(turns)

    def beaten(self, turns: list[Turn], reason: str, detail: str | None,
               sess: _Session | None = None) -> None:
        if sess is not None and not sess.authoritative and not (
                self.lost_as_played and reason == "agent-reached-gateway"):
            # lost in a forked run: a fresh run of the program replays the line for the record
            moves = tuple(t.agent_moved_to for t in turns[:-1])
            with self.lock:
                self.pending.append(Item(moves, None, None, plain=True))
            return
        with self.lock:
            if self.first_line is None:
                self.first_line = list(turns)
            if self.lost is None:
                self.lost = (turns, reason, detail, None)
            self.stop = True

    def next_item(self) -> Item | None:
        with self.lock:
            while self.pending:
                item = self.pending.pop()
                if not self.per_line and item.key is not None and self.known(item.key):
                    if item.fork is not None:
                        item.fork[0].close()
                    continue  # found meanwhile by another line
                return item
        return None

    def run_item(self, item: Item) -> None:
        """Play one line: continue its copy, or replay its moves in a fresh run."""
        with self.lock:
            try:
                self.limits()
                if self.max_lines is not None and self.lines >= self.max_lines:
                    self.limit = self.limit or f"--max-replays {self.max_lines}"
                    self.stop = True
                    raise Stop
            except Stop:
                if item.fork is not None:
                    item.fork[0].close()
                raise
            self.lines += 1
        if item.fork is not None:
            sess, agent, mask, turns, key = item.fork
            plan = item.moves[len(turns):]
        else:
            with self.lock:
                self.replays += 1
            sess = self.player.open(self.board.m, plain=True) if item.plain \
                else self.player.open(self.board.m)
            agent, mask, turns, key, plan = self.start, self.board.full, [], None, item.moves
        try:
            _Line(self, sess, agent, mask, turns, key, plan).play()
        finally:
            sess.close()
            if self.lost is not None and self.lost[0] is turns and sess.stderr is not None:
                self.lost = (*self.lost[:3], sess.stderr)

    def close_pending(self) -> None:
        """Stop the copies still waiting (forked programs are processes)."""
        with self.lock:
            items, self.pending = self.pending, []
        for item in items:
            if item.fork is not None:
                item.fork[0].close()

    def drive(self, parallel: int) -> None:
        """Every pending item, ``parallel`` at a time, until none is left or one is lost."""
        if parallel <= 1:
            while not self.stop:
                self.sync()
                item = self.next_item()
                if item is None:
                    return
                try:
                    self.run_item(item)
                except Stop:
                    return
            return
        with ThreadPoolExecutor(parallel) as pool:
            running: set = set()
            try:
                while True:
                    self.sync()
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
                        if exc is not None and not isinstance(exc, Stop):
                            raise exc
            finally:
                self.stop = self.stop or bool(running)
                wait(running)

    def sync(self) -> None:
        """Every :data:`SYNC_SECONDS`, when knowledge is kept on disk: what this search has
        settled so far goes to the store, and what other processes settled (concurrent
        starts of the same map) comes in, to end this search's lines too. The walk over the
        positions is done on a copy, outside the lock the lines take, and spaced so that it
        takes at most a tenth of the time (0.2 s on 16,000 positions: every 1.5 s it would
        hold the lines back a seventh of the time, and more as the table grows)."""
        k = self.knowledge
        now = time.monotonic()
        if k is None or k.path is None or now < self.synced + self.sync_every:
            return
        with self.lock:
            table, expanded = dict(self.table), dict(self.expanded)
        done = self.complete(table, expanded)
        k.learn(done)
        k.refresh()
        self.synced = time.monotonic()
        self.sync_every = max(SYNC_SECONDS, 10 * (self.synced - now))

    def complete(self, table: dict | None = None, expanded: dict | None = None
                 ) -> list[tuple[tuple[int, int], int]]:
        """The positions of this search from which every line was won (the agent contained
        after the cut, or every child complete or settled), with the bot's cut at each:
        what later starts may take as settled (position mode only). ``table`` and
        ``expanded``: a copy of the search's own, taken under its lock."""
        if self.per_line:
            return []
        board = self.board
        table = self.table if table is None else table
        expanded = self.expanded if expanded is None else expanded
        done: dict = {}
        for root in table:
            stack = [(root, False)]
            while stack:
                key, ready = stack.pop()
                if key in done:
                    continue
                entry = table.get(key)
                if entry is None or self.settled(key):  # (a check enters settled ones)
                    done[key] = self.settled(key)
                    continue
                children = expanded.get((key, entry.cut))
                if children is None:
                    done[key] = board.contained(key[0], key[1] & ~entry.cut)
                elif ready:
                    done[key] = all(done.get(ck, False) for _, ck in children)
                else:
                    stack.append((key, True))
                    stack.extend((ck, False) for _, ck in children if ck not in done)
        return [(key, table[key].cut) for key, ok in done.items() if ok and key in table]

    def same_again(self) -> "Replay":
        """Replay the first line in a fresh run: does the bot answer the same? Raises
        :class:`Stop` past the deadline: nothing was learnt."""
        first = self.first_line
        if not first:
            return Replay(None)
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise Stop
        with self.lock:
            self.replays += 1
        sess = self.player.open(self.board.m, plain=True)
        try:
            got = self._replay(sess, first)
        finally:
            sess.close()
        if got.failure is not None:
            turns, reason, detail, _ = got.failure
            got.failure = (turns, reason, detail, sess.stderr)
        return got

    def _replay(self, sess: _Session, first: list[Turn]) -> "Replay":
        played: list[Turn] = []
        for t in first:
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise Stop
            try:
                cut, _ = sess.ask(t.agent_at)
            except _Failed as f:
                if t.cut is None:
                    return Replay(True)  # it failed there on the first line too
                played.append(Turn(t.agent_at, None, None))
                return Replay(False, (played, f.reason, f.detail, None))
            if t.cut is None or norm(*cut) != norm(*t.cut):
                return Replay(False)
            played.append(t)
            if t.agent_moved_to is None:
                return Replay(True)
        return Replay(True)


@dataclass
class Replay:
    """What a fresh run made of the first line: ``same`` True (the same cuts), False
    (another cut, or a failure where the first line had a cut), None (no line to replay);
    ``failure``: the fresh run's failure, as ``(turns, reason, detail, stderr)``: the line
    as it played it, a loss that stands (a fresh run is authoritative)."""

    same: bool | None
    failure: tuple | None = None

    @property
    def timed_out(self) -> bool:
        return self.failure is not None and self.failure[1] in TIME_REASONS


class _Line:
    """One run of the bot: the moves of its plan, then new positions, until the line is won,
    lost, or enters positions other lines explore."""

    def __init__(self, s: Search, sess: _Session, agent: int, mask: int, turns: list[Turn],
                 key: Any, plan) -> None:
        self.s, self.sess, self.agent, self.mask, self.turns = s, sess, agent, mask, turns
        self.key = s.root() if key is None else key
        self.plan = deque(plan)
        self.line = tuple(t.agent_moved_to for t in turns)
        self.forced = self.checking = False

    def play(self) -> None:
        s, board = self.s, self.s.board
        while True:
            s.limits()
            if self.checking and not s.known(self.key):
                return s.line_done(self.turns, partial=True)  # not a check after all
            bit = self.ask()
            if bit is None:
                return
            s.record(self.key, bit, self.line, self.agent)
            link = board.link(bit)
            after = self.mask & ~bit
            if self.checking or board.contained(self.agent, after):
                self.turns.append(Turn(self.agent, link, None))
                return s.line_done(self.turns, partial=self.checking)
            moves = board.moves(self.agent, after)
            gate = next((v for v in moves if v in board.m.gateways), None)
            if gate is not None:
                self.turns.append(Turn(self.agent, link, gate))
                return s.beaten(self.turns, "agent-reached-gateway",
                                f"the agent reached gateway {gate}", self.sess)
            v, fresh = self.choose(bit, after, moves)
            self.turns.append(Turn(self.agent, link, v))
            if fresh:
                s.push(self.sess, after, self.turns, fresh)
            if v is None:
                return s.line_done(self.turns, partial=True)
            self.key = s.key(v, after, self.key, bit, v)
            self.agent, self.mask, self.line = v, after, self.line + (v,)

    def ask(self) -> int | None:
        """The bot's cut at the line's position, as a bit (None: the line is lost)."""
        try:
            cut, _secs = self.sess.ask(self.agent)
        except _Failed as f:
            self.turns.append(Turn(self.agent, None, None))
            self.s.beaten(self.turns, f.reason, f.detail, self.sess)
            return None
        why, bit = self.s.board.cut(self.agent, self.mask, cut)
        if why:
            self.turns.append(Turn(self.agent, cut, None))
            self.s.beaten(self.turns, "illegal-cut", why, self.sess)
            return None
        return bit

    def choose(self, cut: int, after: int, moves: list[int]) -> tuple[int | None, list]:
        """The agent's next move on this line (None: the line ends) and the fresh children
        left to other lines."""
        s = self.s
        with s.lock:
            children, fresh, lost, known = s.expand(self.key, cut, after, moves, self.forced)
        checked = bool(known) and not s.per_line and lost is None \
            and s.check_known(self.sess, known)
        if lost is not None:
            self.forced = True
            self.plan.clear()
            return lost, []
        if self.plan and self.plan[0] in moves:
            v = self.plan.popleft()
            return v, [c for c in fresh if c[0] != v]
        self.plan.clear()
        if fresh:
            return fresh[0][0], fresh[1:]
        if not s.per_line and children and not self.forced and not checked:
            # one step more, into a position another line found: a check of the
            # position-determined assumption, at the cost of one more cut
            self.checking = True
            return s.check_move(self.key, cut, children), []
        return None, []
