"""The worst-case adversary: every agent reply searched against one bot, with a proof.

Against a bot (one of ours, any Python :class:`~puzzleproof.players.skynet_bots.Bot`, or an
external program speaking CodinGame's protocol) the adversary explores the agent's replies
exhaustively: after each cut the bot makes, every agent move
(:mod:`puzzleproof.games.skynet_adversary_search`). An in-process bot is copied at each branch; an
external program keeps state of its own, so each line is a run of the program from the
start (several lines at once with ``parallel``), except that a Python program is forked
where lines branch, so lines share the run of their common prefix
(:mod:`puzzleproof.games.skynet_sessions`; a line lost in a forked run is confirmed by a
fresh run, and forks that ever disagree with fresh runs are set aside).

The search is cut short the moment the bot cuts into a position the exact solver proves lost
for the cutter (:mod:`puzzleproof.encoders.skynet_oracle`, memoised per map): from there the
agent follows the proved winning line to a gateway. Three outcomes per (bot, map, start):

- ``BEATEN``: a line the bot loses on a start it could have won (or one not decided), as a
  game record (``skynet-game``, replayed by the rules);
- ``UNWINNABLE``: the same, on a start proved lost for every bot;
- ``PROVED``: every line ends with the agent contained. The bot's cuts then form a winning
  strategy, written as a ``skynet-player-strategy`` certificate keyed by position (agent
  node, links left) and checked by :func:`puzzleproof.models.skynet_strategy.
  check_player_strategy`, which uses the rules alone. Every cut in it is one the bot made;
- ``UNKNOWN``: the time limit or ``max_lines`` ran out; the counts say how far it got.

**Modes.** By default the bot is taken to decide from the position alone: each position is
explored once, by the first line that reaches it, and positions from which an earlier start
of the same map was won (same bot, same rule) end the lines of the next start too
(``share``). The assumption is checked wherever a line passes a position another line or
start found first (the bot must cut the same link there); a bot that does not is
*history-dependent*: its starts are no longer shared, and the search starts again line by
line (``per_line``, which never merges lines). The first line is played twice: a bot that
answers differently on the same line is *non-deterministic*; its lines are judged as played
and it is never PROVED. The second play is a fresh run of a program beside the search's own
lines: one that runs out of time there (a start-up on cores the forked lines keep busy) is
played again alone; one that fails is the program's loss as that run played it (BEATEN),
never a sign that its forks answer otherwise.

**Why the exact solver prunes no agent reply on the way to PROVED.** The solver ends a line
in one direction only: when the bot cuts into a position the solver proves lost for the
cutter, the agent follows the proved line, and the bot itself plays it (the loss is as
played, and a forked loss is confirmed by a fresh run). It may not stand in for the bot's
answers on the way to PROVED: PROVED says that the program, which may fail at any turn
(crash, time-out, an illegal or malformed cut) or spend each cut on any gateway link of the
map, contains every agent. From any position where the agent is not yet contained some
continuation of the program's own play loses (it cuts far-away links while the agent walks
to a gateway, or it fails), so whether it wins from there depends on its future cuts, and
only asking it tells. The positions from which the agent cannot win *whatever the program
does* are those where it is already contained, and the cut that contained it ended the game
before any question. So a PROVED certificate holds the bot's cut at every position its
strategy reaches: the questions are the certificate's positions, less those settled by
earlier starts (which rest on the same position assumption and its checks). Merging more
(positions reached by other orders of cuts, by a program that keeps a history) is not done.

What that costs: a winnable start of a large map needs the program's cut at every position
its strategy reaches, tens of thousands for the official complex mesh, each a fork of the
program (figures in ``benchmarks/skynet_adversary.py``).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from puzzleproof.clock import Deadline
from puzzleproof.models.skynet import GameRecord, SkynetMap, replay
from puzzleproof.models.skynet_strategy import CheckLimit, check_player_strategy
from puzzleproof.models.skynet_board import Board
from puzzleproof.games.skynet_settled import Knowledge, knowledge_for
from puzzleproof.encoders.skynet_oracle import Oracle, oracle_for
from puzzleproof.games.skynet_adversary_search import Item, Replay, Search, Stop, Switch
from puzzleproof.games.skynet_sessions import BotPlayer, ProgramPlayer

__all__ = ["AdversaryResult", "Oracle", "BotPlayer", "ProgramPlayer", "adversary",
           "oracle_for", "position_table", "VERDICTS"]

VERDICTS = ("PROVED", "BEATEN", "UNWINNABLE", "UNKNOWN")


@dataclass
class AdversaryResult:
    """What the adversary found for one bot, map, rule and start (see the module doc).
    ``positions`` counts the positions this search asked the bot about; ``shared`` the
    positions of the certificate settled by earlier starts."""

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
    shared: int = 0
    seconds: float = 0.0
    solver_seconds: float = 0.0

    @property
    def bot_result(self) -> str:
        """The bot's result against the worst-case agent: ``WIN`` (PROVED: every line
        contained), ``LOSS`` (a line beats it: :attr:`record`), ``UNKNOWN``."""
        return {"PROVED": "WIN", "BEATEN": "LOSS", "UNWINNABLE": "LOSS"}.get(self.verdict,
                                                                            "UNKNOWN")
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
        shared = f" (and {self.shared} settled by earlier starts)" if self.shared else ""
        forked = f" (and {self.forks} forked at a branch)" if self.forks else ""
        bits.append(f"; {self.positions} {what}{shared}, {self.lines} lines, "
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
                "shared": self.shared, "seconds": round(self.seconds, 3),
                "solver_seconds": round(self.solver_seconds, 3), "note": self.note,
                "record": None if self.record is None else record_to_json(self.record),
                "strategy": self.certificate}


def adversary(m: SkynetMap, rule: str, start: int, player, *, per_line: bool = False,
              deadline: Deadline | None = None, max_lines: int | None = None,
              oracle: Oracle | None = None, certificate: bool = True,
              share: bool = True, seek: bool = False) -> AdversaryResult:
    """Search every agent line against ``player`` (a :class:`BotPlayer` or a
    :class:`ProgramPlayer`) from ``start`` under ``rule``; see the module doc.

    ``max_lines`` bounds the lines played (for a program, each is a run from the start or a
    forked copy); ``deadline`` (None: none) the wall time, certificate included. Both give UNKNOWN
    with the counts explored. ``share=False`` neither uses nor keeps what earlier starts of
    the map found.

    ``seek=True`` searches for a loss only (a hunt's question): the first line is not played
    again in a fresh run, a forked line lost by play from a start proved lost stands as
    played (no bot wins it), and a search that loses no line ends UNKNOWN, never PROVED. A
    loss on any other start, and any failure of the program's own, is still confirmed by a
    fresh run.
    """
    return _Judge(m, rule, start, player, per_line, deadline or Deadline(None), max_lines,
                  oracle, share, seek).run(certificate)


class _Judge:
    """One adversary run: the searches (again line by line, or without shared positions,
    when the bot answers a position two ways), then the verdict and its evidence."""

    def __init__(self, m: SkynetMap, rule: str, start: int, player, per_line: bool,
                 clock: Deadline, max_lines: int | None, oracle: Oracle | None,
                 share: bool, seek: bool = False) -> None:
        self.t0 = time.monotonic()
        self.clock, self.deadline = clock, clock.at
        m.initial_state(start)  # validates the start
        self.m, self.rule, self.start, self.player = m, rule, start, player
        self.per_line, self.max_lines, self.seek = per_line, max_lines, seek
        self.board = Board(m, rule)
        self.oracle = oracle or oracle_for(m, rule)
        self.solver0 = self.oracle.seconds
        # the start's verdict: half the time left (at least 0.05 s, at most 30 s), 5 s
        # without a limit
        question = (Deadline(5.0) if clock.at is None else
                    Deadline(clock.limit, at=min(clock.share(1 / 2, at_least=0.05).at,
                                                 time.monotonic() + 30.0)))
        self.winnable = self.oracle.wins(start, self.board.full, question)
        ident = player.identity() if share and hasattr(player, "identity") else None
        self.knowledge: Knowledge | None = (None if per_line else
                                            knowledge_for(m, rule, ident))
        self.notes: dict[str, str] = {}
        self.totals = [0, 0, 0, 0]
        self.history = self.nondet = False
        self.saved_fork: bool | None = None
        self.forks0 = getattr(player, "forks", 0)

    def run(self, certificate: bool) -> AdversaryResult:
        s = self.search()
        res = AdversaryResult(
            "UNKNOWN", self.player.name, self.rule, self.start,
            "per-line" if self.per_line else "position", self.winnable,
            nondeterministic=s.nondeterministic or self.nondet,
            history_dependent=self.history, positions=len(s.table), lines=s.lines,
            replays=s.replays, checks=s.checks, rereached=s.rereached, plain=s.plain,
            forks=getattr(self.player, "forks", 0) - self.forks0)
        notes = [n for n in self.notes.values() if n]
        self.verdict(res, s, notes, certificate)
        res.note = "; ".join(notes)
        res.seconds = time.monotonic() - self.t0
        res.solver_seconds = self.oracle.seconds - self.solver0
        return res

    def search(self) -> Search:
        """Searches until one ends without a position answered two ways."""
        while True:
            s = Search(self.board, self.start, self.player, self.oracle, self.per_line,
                       self.deadline, self.max_lines, self.knowledge)
            s.lines, s.replays, s.checks, s.rereached = self.totals
            s.lost_as_played = self.seek and self.winnable is False
            try:
                self.one_pass(s)
            except Switch as sw:
                self.totals = [s.lines, s.replays, s.checks, s.rereached]
                self.on_switch(sw)
                continue
            finally:
                s.close_pending()
            return s

    def one_pass(self, s: Search) -> None:
        """The first line, then every other line while a fresh run plays the first line
        again (a program's start-up is a wait worth hiding). From a start proved lost the
        first line is the solver's winning line for the agent: one fresh run plays it (when
        seeking a loss, the usual run), its loss stands as played and ends the search."""
        try:  # the root is played even when an earlier start settled it (a check)
            s.run_item(Item((), s.root(), plain=self.winnable is False and not self.seek))
        except Stop:
            pass
        if s.lost is not None and self.winnable is False:
            return  # the start no bot wins was lost: nothing more to learn here
        if self.seek:
            if not s.stop:
                s.drive(max(1, getattr(self.player, "in_flight", 1)))
            return
        same = self.drive_beside_replay(s)
        if same is not None:
            self.judge_replay(s, same)

    def drive_beside_replay(self, s: Search) -> Replay | None:
        """Every other line, while a thread replays the first line in a fresh run; None
        when the time ran out before the replay said anything (UNKNOWN). A replay that
        failed, or answered otherwise while lines are forked (they are searched again with
        fresh runs), stops the lines at once; without forks they go on (a line the bot
        loses as played still beats it)."""
        again: list = []
        forking = getattr(self.player, "forking", False)

        def play_again() -> None:
            try:
                got = s.same_again()
            except BaseException as exc:  # noqa: BLE001 - raised below, in this thread
                got = exc
            again.append(got)
            if isinstance(got, Replay) and not got.timed_out and (
                    got.failure is not None or got.same is False and forking):
                s.stop = True

        check = threading.Thread(target=play_again, daemon=True)
        check.start()
        try:
            if not s.stop:
                s.drive(max(1, getattr(self.player, "in_flight", 1)))
        finally:
            check.join()
        same = again[0]
        if isinstance(same, BaseException) and not isinstance(same, Stop):
            raise same
        if not isinstance(same, Stop) and same.timed_out and s.lost is None:
            # out of time beside the search's own lines (forks and a start-up on two
            # cores): played again alone, and its failure then stands
            why = same.failure[1]
            try:
                same = s.same_again()
            except Stop as stop:
                same = stop
            else:
                self.notes["replay"] = ("the fresh replay of the first line ran out of time "
                                        f"({why}) beside the search's lines and was played "
                                        "again alone")
        if isinstance(same, Stop):  # out of time before the bot was seen to repeat itself
            s.limit, s.stop = s.limit or "time limit", True
            return None
        return same

    def judge_replay(self, s: Search, same: Replay) -> None:
        """A fresh run that failed on the first line lost it (BEATEN, as it played it); one
        that cut otherwise makes the forks suspect (the search starts again with fresh runs)
        or, without forks, the bot non-deterministic."""
        if same.failure is not None:
            s.stop = True
            if s.lost is None:
                s.lost = same.failure
            self.notes.pop("replay", None)
            return
        if same.same is not False:
            return
        if self.knowledge is not None:
            self.knowledge.forget()  # what it settled may have been shared already
            self.knowledge = s.knowledge = None
        if getattr(self.player, "forking", False):
            raise Switch("the first line, forked and fresh, was answered differently", "fork")
        s.nondeterministic = True

    def on_switch(self, sw: Switch) -> None:
        """What a position answered two ways means, and how the next search runs."""
        player = self.player
        if self.knowledge is not None:  # the bot is not position-determined across starts
            self.knowledge.forget()
            self.knowledge = None
            self.notes["share"] = f"{sw} (earlier starts of the map no longer shared)"
            if sw.kind == "start":
                return
        if getattr(player, "forking", False):
            # first, rule out the forking itself: fresh runs for every line
            self.saved_fork, player.fork_lines = player.fork_lines, False
            self.notes["fork"] = f"forked runs set aside ({sw}): every line run afresh"
            return
        if self.notes.pop("fork", None):  # fresh runs differ too: forks are faithful
            player.fork_lines = self.saved_fork
        same_line = sw.kind in ("line", "fork")
        what = "non-deterministic" if same_line else "history-dependent"
        self.notes["mode"] = f"{what}: {sw}; judged line by line"
        self.history = self.history or not same_line
        self.nondet = self.nondet or same_line
        self.per_line = True

    def verdict(self, res: AdversaryResult, s: Search, notes: list[str],
                certificate: bool) -> None:
        """BEATEN or UNWINNABLE with the losing line, PROVED with the checked certificate,
        or UNKNOWN with why."""
        if s.lost is not None:
            turns, reason, detail, stderr = s.lost
            record = GameRecord(self.m, self.rule, self.start, turns, "LOSS", reason,
                                bot=self.player.name, agent="worst", detail=detail)
            problems = replay(record)
            if problems:
                raise AssertionError(f"the adversary's line does not replay: {problems[0]}")
            res.record, res.stderr = record, stderr
            if stderr is not None:
                record.stderr = stderr  # type: ignore[attr-defined]
            res.verdict = "UNWINNABLE" if self.winnable is False else "BEATEN"
            if self.winnable is None:
                notes.append("the exact solver did not decide the start in its limit")
        elif s.limit is not None:
            notes.append(f"{s.limit} reached after {len(s.table)} positions, {s.lines} lines")
        elif res.nondeterministic:
            notes.append("the bot is non-deterministic: every line explored was won as "
                         "played, which proves nothing about its other runs")
        elif self.seek:
            notes.append("no line lost (a search for a loss: its runs were not compared "
                         "with a fresh run, which a proof needs)")
        else:
            self.proved(res, s, notes, certificate)
        if self.knowledge is not None and not res.nondeterministic:
            self.knowledge.learn(s.complete())

    def proved(self, res: AdversaryResult, s: Search, notes: list[str],
               certificate: bool) -> None:
        try:
            cert, settled = position_table(self.board, self.start, s, self.deadline)
            problems = check_player_strategy(self.m, self.rule, self.start, cert,
                                             deadline=self.clock)
        except CheckLimit:
            notes.append(f"every line was won ({len(s.table)} positions), but the time "
                         "limit ran out while the certificate was built and checked")
            return
        if problems:
            notes.append(f"the bot's cuts did not replay as a strategy: {problems[0]}")
            return
        res.verdict = "PROVED"
        res.certificate = cert if certificate else None
        res.shared = sum(1 for p in settled if p not in s.table)


def position_table(board: Board, start: int, s: Search, deadline: float | None = None
                   ) -> tuple[dict, list]:
    """The bot's cuts as a position -> cut table (``skynet-player-strategy``): one node per
    position the explored lines reach (per line: the first line's cut there), with the
    positions in it. Raises :class:`CheckLimit` past ``deadline``."""
    by_pos = _cuts_by_position(board, start, s, deadline)
    m = board.m
    nodes: dict[str, dict] = {}
    stack = [(start, board.full)]
    seen: set = set()
    ticks = 0
    while stack:
        ticks += 1
        if deadline is not None and ticks % 1024 == 0 and time.monotonic() > deadline:
            raise CheckLimit
        agent, mask = stack.pop()
        if (agent, mask) in seen:
            continue
        seen.add((agent, mask))
        bit = by_pos[(agent, mask)]
        after = mask & ~bit
        nxt: dict[str, str] = {}
        if not board.contained(agent, after):
            for v in board.moves(agent, after):
                nxt[str(v)] = f"{v}:{after:x}"
                if v not in m.gateways:
                    stack.append((v, after))
        nodes[f"{agent}:{mask:x}"] = {"agent": agent, "cut": list(board.link(bit)),
                                      "next": nxt}
    return ({"type": "skynet-player-strategy", "root": f"{start}:{board.full:x}",
             "nodes": nodes}, list(seen))


def _cuts_by_position(board: Board, start: int, s: Search, deadline: float | None) -> dict:
    """Position -> cut: this search's table, the settled positions of earlier starts, or
    (per line) the positions of every line replayed along the expansions."""
    if not s.per_line:
        known = {} if s.knowledge is None else s.knowledge.cuts
        return _Overlay({k: e.cut for k, e in s.table.items()}, known)
    by_pos: dict[tuple, int] = {}
    stack = [(start, board.full, 0)]
    ticks = 0
    while stack:
        ticks += 1
        if deadline is not None and ticks % 1024 == 0 and time.monotonic() > deadline:
            raise CheckLimit
        agent, mask, key = stack.pop()
        entry = s.table[key]
        if (agent, mask) in by_pos:
            continue
        by_pos[(agent, mask)] = entry.cut
        for v, ck in s.expanded.get((key, entry.cut), []):
            stack.append((v, mask & ~entry.cut, ck))
    return by_pos


class _Overlay(dict):
    """This search's cuts, falling back to the cuts settled by earlier starts."""

    def __init__(self, own: dict, below: dict) -> None:
        super().__init__(own)
        self.below = below

    def __missing__(self, key):
        return self.below[key]
