"""The Skynet referee: plays games between a bot (ours, or any program speaking CodinGame's
protocol) and an agent model, enforcing the rules and the time limits, and returns the full
game record (checked by :func:`puzzleproof.models.skynet.replay` in the tests).

An external program receives the initialisation block, then each turn the agent's node on one
line, and must answer one line ``C1 C2`` within the limit (``first_turn`` for the first turn,
``per_turn`` after). Verdicts: ``WIN`` (``contained``) or ``LOSS`` with the reason
``agent-reached-gateway``, ``illegal-cut``, ``malformed-output``, ``timeout`` or ``crash``.
The referee never hangs: every read has a deadline and the program is killed at the end.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import tempfile
import time
from typing import Sequence

from puzzleproof.formats.skynet import init_block
from puzzleproof.models.skynet import (GameRecord, SkynetMap, Turn, agent_moves, check_cut,
                                       outcome)
from puzzleproof.verify.skynet_agents import Agent
from puzzleproof.verify.skynet_bots import Bot

__all__ = ["play", "play_external", "DEFAULT_TURN_SECONDS", "DEFAULT_FIRST_TURN_SECONDS"]

DEFAULT_TURN_SECONDS = 0.150
#: CodinGame gives a program's first turn more time (it starts up then); configurable.
DEFAULT_FIRST_TURN_SECONDS = 1.0


class _Ended(Exception):
    def __init__(self, reason: str, detail: str) -> None:
        self.reason, self.detail = reason, detail


def _run(m: SkynetMap, rule: str, start: int, agent: Agent, get_cut, record: GameRecord
         ) -> GameRecord:
    """The game loop shared by in-process and external bots. ``get_cut(turn, agent_node)``
    returns ``(cut, seconds)`` or raises :class:`_Ended`."""
    agent.reset(m, rule)
    state = m.initial_state(start)
    for turn in range(1, len(m.links) + 2):
        try:
            cut, secs = get_cut(turn, state.agent)
        except _Ended as end:
            record.turns.append(Turn(state.agent, None, None))
            record.result, record.reason, record.detail = "LOSS", end.reason, end.detail
            return record
        record.turn_seconds.append(secs)
        why = check_cut(m, state, cut, rule)
        if why:
            record.turns.append(Turn(state.agent, cut, None))
            record.result, record.reason, record.detail = "LOSS", "illegal-cut", why
            return record
        state = state.cut(cut)
        if outcome(state) == "WIN":
            record.turns.append(Turn(state.agent, cut, None))
            record.result, record.reason = "WIN", "contained"
            return record
        move = agent.move(state)
        if move not in agent_moves(state):
            raise RuntimeError(f"agent {agent.name} made an illegal move {state.agent}->{move}")
        record.turns.append(Turn(state.agent, cut, move))
        state = state.move(move)
        if outcome(state) == "LOSS":
            record.result, record.reason = "LOSS", "agent-reached-gateway"
            record.detail = f"the agent reached gateway {move}"
            return record
    record.result, record.reason = "LOSS", "turn-limit"  # unreachable: links run out first
    return record


def play(m: SkynetMap, rule: str, bot: Bot, agent: Agent, start: int | None = None
         ) -> GameRecord:
    """A game between one of our bots and an agent model, in this process."""
    s = m.start if start is None else start
    record = GameRecord(m, rule, s, bot=bot.name, agent=agent.name)
    bot.reset(m)

    def get_cut(turn: int, node: int):
        t0 = time.perf_counter()
        try:
            cut = bot.cut(node)
        except Exception as exc:  # a failing bot is a verdict
            raise _Ended("crash", f"{type(exc).__name__}: {exc}") from None
        return cut, time.perf_counter() - t0

    return _run(m, rule, s, agent, get_cut, record)


def play_external(m: SkynetMap, rule: str, command: Sequence[str], agent: Agent,
                  start: int | None = None, per_turn: float = DEFAULT_TURN_SECONDS,
                  first_turn: float = DEFAULT_FIRST_TURN_SECONDS) -> GameRecord:
    """A game against an external program speaking CodinGame's protocol."""
    s = m.start if start is None else start
    record = GameRecord(m, rule, s, bot=" ".join(command), agent=agent.name)
    errfile = tempfile.TemporaryFile()  # a bot's debug output never blocks it
    try:
        proc = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=errfile, bufsize=0)
    except OSError as exc:
        errfile.close()
        record.turns.append(Turn(s, None, None))
        record.result, record.reason = "LOSS", "crash"
        record.detail = f"cannot start {command[0]!r}: {exc.strerror}"
        return record
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
    buf = b""

    def send(text: str) -> None:
        try:
            proc.stdin.write(text.encode())  # type: ignore[union-attr]
            proc.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError):
            raise _Ended("crash", _exit_detail(proc, errfile, "closed its input")) from None

    def read_line(limit: float) -> tuple[str, float]:
        nonlocal buf
        t0 = time.perf_counter()
        deadline = t0 + limit
        while b"\n" not in buf:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise _Ended("timeout", f"no answer within {limit * 1000:.0f} ms")
            if not sel.select(left):
                continue
            chunk = os.read(proc.stdout.fileno(), 65536)  # type: ignore[union-attr]
            if not chunk:
                raise _Ended("crash", _exit_detail(proc, errfile, "exited without answering"))
            buf += chunk
        line, buf = buf.split(b"\n", 1)
        return line.decode(errors="replace").strip(), time.perf_counter() - t0

    def get_cut(turn: int, node: int):
        if turn == 1:
            send(init_block(m))
        send(f"{node}\n")
        line, secs = read_line(first_turn if turn == 1 else per_turn)
        parts = line.split()
        if len(parts) != 2 or not all(p.lstrip("-").isdigit() for p in parts):
            raise _Ended("malformed-output", f"expected 'C1 C2' (two node ids), got {line!r}")
        return (int(parts[0]), int(parts[1])), secs

    try:
        return _run(m, rule, s, agent, get_cut, record)
    finally:
        sel.close()
        if proc.poll() is None:
            proc.kill()
        try:
            proc.communicate(timeout=2)
        except (subprocess.TimeoutExpired, ValueError, OSError):
            pass
        errfile.close()


def _exit_detail(proc: subprocess.Popen, errfile, what: str) -> str:
    try:
        code = proc.wait(timeout=0.5)
    except subprocess.TimeoutExpired:
        return what
    err = b""
    try:
        errfile.seek(0, os.SEEK_END)
        errfile.seek(max(0, errfile.tell() - 400))
        err = errfile.read()
    except (OSError, ValueError):
        pass
    tail = err.decode(errors="replace").strip().splitlines()[-1:] if err else []
    return f"{what} (exit code {code}{'; ' + tail[0] if tail else ''})"
