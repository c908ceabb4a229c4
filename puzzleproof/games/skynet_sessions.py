"""The bot's side of the worst-case adversary: sessions, each playing one line.

- An in-process bot (:class:`BotPlayer`) is copied at each branch of the agent's replies.
- An external program (:class:`ProgramPlayer`) keeps state of its own, so a line is a run of
  the program from the start. Lines that share a prefix can share its run when the program
  allows it: a Python program (``python3 bot.py``, ``python3 -m bot``, or a script whose
  ``#!`` line names Python, as console scripts such as ``puzzleproof`` are) runs under
  :mod:`.fork_host`, which forks it between turns on request, so each branch costs one
  ``fork`` and one answer instead of a new interpreter and a replay of every earlier turn.
  Forked runs are fast, not authoritative: a line lost in one is confirmed by a fresh run of
  the program (whose standard error is kept for the record), the first line is compared with
  a fresh run, and the adversary falls back to fresh runs for every line when the two ever
  differ. ``fork_lines=False`` (``--no-fork``) always runs afresh; programs in other
  languages always do.
- A hunt judges thousands of small maps, each a game from the start: there the games
  themselves start as copies of one *pristine* run of the program (started once per process
  and left waiting for its input, within :func:`.forking.pristine_runs`), so a map costs
  forks, not an interpreter's start-up and the program's imports.

What a line costs (measured with ``perf stat`` on 2 cores under a load average of about 10,
so several times a quiet machine's figures): a fork of the plain bot of
``benchmarks/skynet_slack_bot.py`` (10 MB) about 1.5 ms of CPU in the bot's processes
(some 335 page faults: the copy-on-write of what the copy and its parent touch) and 0.2 ms
in the referee; of ``puzzleproof skynet play --bot exact`` (20 MB of heap) about 4.4 ms; a
fresh run of the latter 0.3 s of CPU. A search asks the program at every position its lines
reach (10,000 to 46,000 from one winnable start of maps 05 and 06), and forks at about 0.6
of them, so positions settled by earlier starts (:mod:`.skynet_settled`) are what makes
a whole map affordable.
"""

from __future__ import annotations

import copy
import os
import select
import signal
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from puzzleproof.games.forking import (PRISTINE_INPUT_BYTES, Family, fork_host_command, hosted,
                                       pristine_run, send_request, wait_born)
from puzzleproof.games.program import Program
from puzzleproof.models.skynet import Link, SkynetMap
from puzzleproof.players.skynet_bots import Bot, make_bot

__all__ = ["BotPlayer", "ProgramPlayer", "pristine_copy"]

#: live forked copies of one program at a time (beyond, lines start afresh; a search in
#: depth keeps about one copy per branch on its path, tens)
MAX_LIVE_FORKS = 256
#: lines of a forked program played at once, however few ``parallel`` asks for: a copy's
#: answer is a round trip through another process, and several in flight hide the wait
FORKED_IN_FLIGHT = 3
#: failed fork requests after which a program is run afresh for every line
MAX_FORK_FAILURES = 3


class _Failed(Exception):
    """The bot lost without a legal cut (crash, timeout, malformed output...)."""

    def __init__(self, reason: str, detail: str) -> None:
        self.reason, self.detail = reason, detail


class _Session:
    """One run of the bot, turn by turn."""

    stderr: str | None = None
    #: the bot keeps no state beyond its view of the links: equal positions, equal cuts
    plain: bool = False
    #: a line lost in this session stands as played (False: confirm it with a fresh run)
    authoritative: bool = True
    #: asking a copy of this session at a position another line found checks that the bot
    #: decides from the position (in-process bots; a program's lines check where they pass)
    copy_checks: bool = False

    def ask(self, agent: int) -> tuple[Link, float]:
        raise NotImplementedError

    def fork(self) -> "_Session | None":
        return None  # an external program cannot be copied: its lines are replayed

    def forks(self, n: int) -> "list[_Session | None]":
        """``n`` copies (None where one cannot be made)."""
        return [self.fork() for _ in range(n)]

    def close(self) -> None:
        pass


#: the attributes of a bot that keeps no state beyond its view of the graph
_PLAIN = frozenset({"map", "gates", "graph", "rule", "name"})


class _BotSession(_Session):
    copy_checks = True

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.plain = not hasattr(type(bot), "__deepcopy__") and set(vars(bot)) <= _PLAIN

    def ask(self, agent: int) -> tuple[Link, float]:
        t0 = time.perf_counter()
        try:
            cut = self.bot.cut(agent)
            cut = (int(cut[0]), int(cut[1]))
        except Exception as exc:  # a failing bot is a verdict
            raise _Failed("crash", f"{type(exc).__name__}: {exc}") from None
        return cut, time.perf_counter() - t0

    def fork(self) -> "_Session":
        bot = self.bot
        if self.plain:
            new = copy.copy(bot)  # a plain bot keeps only its view of the graph
            new.graph = [list(a) for a in bot.graph]
            return _BotSession(new)
        return _BotSession(copy.deepcopy(bot))


@dataclass
class BotPlayer:
    """An in-process bot: ``factory()`` makes a fresh one (default: ours by ``name``)."""

    name: str
    factory: Callable[[], Bot] | None = None
    parallel: int = 1

    def identity(self) -> tuple:
        """What makes two players the same bot (for sharing positions between starts)."""
        return ("bot", self.name, self.factory)

    def open(self, m: SkynetMap, plain: bool = False) -> _Session:
        bot = self.factory() if self.factory else make_bot(self.name)
        bot.reset(m)
        return _BotSession(bot)


class _ProgramSession(_Session):
    """A fresh run of the program from the start."""

    def __init__(self, player: "ProgramPlayer", m: SkynetMap,
                 argv: Sequence[str] | None = None, pass_fds: Sequence[int] = ()) -> None:
        from puzzleproof.games.runner import ProgramEnded, start

        self.m, self.player, self.turn = m, player, 0
        self.prog = None
        try:
            self.prog = start(player.program, argv=argv, pass_fds=pass_fds)
        except ProgramEnded as end:
            self.failed = end
        else:
            self.failed = None

    def ask(self, agent: int) -> tuple[Link, float]:
        from puzzleproof.formats.skynet import init_block
        from puzzleproof.games.runner import ProgramEnded

        if self.prog is None:
            raise _Failed(self.failed.reason, self.failed.detail)
        self.turn += 1
        first = self.turn == 1
        limit = self.player.program.limits.first if first else self.player.program.limits.turn
        why = "init-timeout" if first else "timeout"
        t0 = time.monotonic()
        try:
            self.prog.send((init_block(self.m) if first else "") + f"{agent}\n", limit,
                           reason=why)
            line, _ = self.prog.read_line(max(0.0, limit - (time.monotonic() - t0)),
                                          reason=why)
        except ProgramEnded as end:
            raise _Failed(end.reason, end.detail) from None
        return _parse_cut(line), time.monotonic() - t0

    def close(self) -> None:
        if self.prog is not None:
            self.prog.close()
            self.stderr = self.prog.stderr
            self.prog = None


def _parse_cut(line: str) -> Link:
    parts = line.split()
    if len(parts) != 2 or not all(p.lstrip("-").isdigit() and len(p) < 12 for p in parts):
        raise _Failed("malformed-output", f"expected 'C1 C2' (two node ids), got "
                                          f"{line[:200]!r}")
    return int(parts[0]), int(parts[1])


class _Forkable(_Session):
    """A run that can be forked between turns (a host run or one of its copies)."""

    authoritative = False
    #: seconds of the first-turn limit spent before this run was made (a copy of a pristine
    #: run: the run's start-up)
    spent: float = 0.0
    family: Family
    ctrl: socket.socket
    pid: int
    player: "ProgramPlayer"
    m: SkynetMap
    turn: int

    def fork(self) -> "_Session | None":
        """A copy of this run, to be given a different agent move (None: cannot fork)."""
        return self.forks(1)[0]

    def forks(self, n: int) -> "list[_Session | None]":
        """``n`` copies of this run, asked for with one signal (the host serves every
        request waiting when it is signalled)."""
        out = [self._request() if self.alive() else None for _ in range(n)]
        if any(c is not None for c in out):
            try:
                os.kill(self.pid, signal.SIGUSR1)
            except OSError:  # gone: the copies never come (their first answer says so)
                pass
        return out

    def _request(self) -> "_ForkedSession | None":
        player = self.player
        if not player.take_fork():
            return None
        request = send_request(self.ctrl, self.family)
        if request is None:
            player.give_back_fork(failed=True)
            return None
        iw, orr, mine = request
        # the copy announces its process id on ``mine``; it is read before this run is given
        # its next input (the run must not read on before it has been copied), so several
        # copies are made at once
        child = _ForkedSession(self.family, self.pid, (iw, orr, mine), player, self.m,
                               self.turn)
        self.unborn.append(child)
        return child

    def settle(self) -> None:
        """Wait until every copy asked of this run exists."""
        for child in self.unborn:
            child.alive()
        self.unborn.clear()

    def alive(self) -> bool:
        return True


class _HostSession(_Forkable, _ProgramSession):
    """A run from the start, under the fork host."""

    def __init__(self, player: "ProgramPlayer", m: SkynetMap) -> None:
        with hosted(player.command, player.program.cwd) as (argv, fds, self.ctrl):
            _ProgramSession.__init__(self, player, m, argv, pass_fds=fds)
        self.unborn = []
        self.family = Family(self.prog)
        self.pid = self.prog.pid if self.prog is not None else 0

    def forks(self, n: int) -> "list[_Session | None]":
        return _Forkable.forks(self, n) if self.prog is not None else [None] * n

    def ask(self, agent: int) -> tuple[Link, float]:
        self.settle()
        return _ProgramSession.ask(self, agent)

    def close(self) -> None:
        self.settle()
        if self.prog is None:
            self.ctrl.close()
            return
        prog, self.prog = self.prog, None
        self.stderr = prog.stderr
        try:
            os.kill(self.pid, signal.SIGKILL)  # its copies live on until they are closed
        except OSError:
            pass
        self.ctrl.close()
        self.family.leave()


class _ForkedSession(_Forkable):
    """A copy of a run, forked between turns: it goes on from its parent's state."""

    def __init__(self, family: Family, parent_pid: int,
                 request: tuple[int, int, socket.socket], player: "ProgramPlayer",
                 m: SkynetMap, turn: int, spent: float = 0.0) -> None:
        self.player, self.m, self.turn, self.family = player, m, turn, family
        self.stdin_fd, self.stdout_fd, self.ctrl = request
        self.parent_pid, self.spent = parent_pid, spent
        self.pid = 0  # until the copy says it (see :meth:`alive`)
        self.unborn: list[_ForkedSession] = []
        self.lock = threading.Lock()
        self.buf = b""
        self.closed = False

    def alive(self) -> bool:
        """Wait for the copy's process id (once): False when it never came."""
        if self.pid > 0:
            return True
        with self.lock:  # its parent's thread and the thread that plays it may both ask
            return self._wait_born()

    def _wait_born(self) -> bool:
        if self.pid != 0 or self.closed:
            return self.pid > 0
        self.pid = wait_born(self.ctrl, self.parent_pid)
        if self.pid < 0:
            self.player.give_back_fork(failed=True)
        return self.pid > 0

    def ask(self, agent: int) -> tuple[Link, float]:
        from puzzleproof.formats.skynet import init_block

        first, opening = self.pid == 0, self.turn == 0
        text = (init_block(self.m) if opening else "") + f"{agent}\n"
        try:
            if first:  # the input waits in the pipe while the copy is made
                os.write(self.stdin_fd, text.encode())
        except OSError as exc:
            raise _Failed("crash", f"{exc}") from None
        if not self.alive():
            raise _Failed("crash", "the forked copy did not start")
        self.settle()
        self.turn += 1
        limits = self.player.program.limits
        limit, why = ((max(0.001, limits.first - self.spent), "init-timeout") if opening
                      else (limits.turn, "timeout"))
        t0 = time.monotonic()
        try:
            if not first:
                os.write(self.stdin_fd, text.encode())
            while b"\n" not in self.buf:
                left = limit - (time.monotonic() - t0)
                ready = select.select([self.stdout_fd], [], [], max(0.0, left))[0]
                if not ready:
                    raise _Failed(why, f"no answer within {limit * 1000:.0f} ms")
                chunk = os.read(self.stdout_fd, 65536)
                if not chunk:
                    raise _Failed("closed-stdout", "closed its output without answering")
                self.buf += chunk
                if len(self.buf) > 1 << 20:
                    raise _Failed("output-too-long", "a line longer than 1 MB")
        except OSError as exc:
            raise _Failed("crash", f"{exc}") from None
        line, _, self.buf = self.buf.partition(b"\n")
        return _parse_cut(line.decode(errors="replace").rstrip("\r")), time.monotonic() - t0

    def close(self) -> None:
        if self.closed:
            return
        self.settle()
        if self.alive():
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
            self.player.give_back_fork()
        self.closed = True
        for fd in (self.stdin_fd, self.stdout_fd):
            os.close(fd)
        self.ctrl.close()
        self.family.leave()


def pristine_copy(player: "ProgramPlayer", m: SkynetMap) -> "_ForkedSession | None":
    """A game of ``m`` started as a copy of the program's pristine run
    (:func:`~puzzleproof.games.forking.pristine_run`): one fork instead of an interpreter's
    start-up and the program's imports. None when there is none, or the map is too large to
    be written ahead of the copy."""
    from puzzleproof.formats.skynet import init_block

    if len(init_block(m)) > PRISTINE_INPUT_BYTES:
        return None
    run = pristine_run(player.program)
    if run is None or not player.take_fork():
        return None
    request = run.request()
    if request is None:
        player.give_back_fork(failed=True)
        return None
    run.signal()
    return _ForkedSession(run.family, run.pid, request, player, m, 0,  # type: ignore[arg-type]
                          run.spent)


@dataclass
class ProgramPlayer:
    """A program (CodinGame's protocol) as the adversary plays it: a run from the start for
    each line, or, for a Python program (``fork_lines`` None or True), one run forked at
    each branch; within its :class:`~puzzleproof.games.program.Limits` each turn. Within
    :func:`~puzzleproof.games.forking.pristine_runs` (a hunt) a forked program's games start
    as copies of one run kept waiting for its input (:func:`pristine_copy`); fresh runs
    (``open(plain=True)``) still start afresh."""

    program: Program
    parallel: int = 2
    fork_lines: bool | None = None
    forks: int = 0
    fork_failures: int = 0
    _live: int = field(default=0, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def identity(self) -> tuple:
        """What makes two players the same program: its command (and the size and time of
        each file the command names, so that an edited script is a new program), its
        limits, and whether its lines are forked."""
        return ("program", *self.program.identity(), self.fork_lines)

    @property
    def name(self) -> str:
        return self.program.name

    @property
    def command(self) -> tuple[str, ...]:
        return self.program.command

    @property
    def in_flight(self) -> int:
        """Lines played at once: ``parallel``, and at least :data:`FORKED_IN_FLIGHT` for a
        forked program (its lines cost little more than the waits)."""
        return max(self.parallel, FORKED_IN_FLIGHT) if self.forking else self.parallel

    @property
    def forking(self) -> bool:
        return self.fork_lines is not False and \
            fork_host_command(self.command, cwd=self.program.cwd) is not None

    def open(self, m: SkynetMap, plain: bool = False) -> _Session:
        if plain or not self.forking:
            return _ProgramSession(self, m)
        first = pristine_copy(self, m)
        return first if first is not None else _HostSession(self, m)

    def take_fork(self) -> bool:
        with self._lock:
            if self._live >= MAX_LIVE_FORKS or self.fork_lines is False:
                return False
            self._live += 1
            self.forks += 1  # a failed request is given back with give_back_fork
            return True

    def give_back_fork(self, failed: bool = False) -> None:
        with self._lock:
            self._live -= 1
            if failed:
                self.forks -= 1
                self.fork_failures += 1
                if self.fork_failures >= MAX_FORK_FAILURES and self.fork_lines is None:
                    self.fork_lines = False  # it does not answer fork requests: fresh runs
