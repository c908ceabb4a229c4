"""The Skynet referee: plays games between a bot (ours, or any program speaking CodinGame's
protocol) and an agent model, enforcing the rules and the time limits, and returns the full
game record (checked by :func:`puzzleproof.models.skynet.replay` in the tests).

An external program receives the initialisation block, then each turn the agent's node on one
line, and must answer one line ``C1 C2`` within its limits (:class:`~puzzleproof.games.program.
Limits`: the first turn's, start-up included, then each turn's). Verdicts: ``WIN`` (``contained``) or ``LOSS`` with
the reason ``agent-reached-gateway``, ``illegal-cut``, ``malformed-output`` or one of the
runner's reasons (:data:`puzzleproof.games.runner.REASONS`: ``init-timeout``, ``timeout``,
``crash``, ``memory-limit``, ``exited``, ``closed-stdout``, ...). The referee never hangs:
every exchange has a deadline, and the program's whole process group is killed at the end.
The program's stderr is kept in the record (``record.stderr``), capped.
"""

from __future__ import annotations

import time

from puzzleproof.clock import Deadline
from puzzleproof.formats.skynet import init_block
from puzzleproof.games import runner
from puzzleproof.games.program import Program
from puzzleproof.games.runner import STDERR_KEEP_BYTES, ProgramEnded
from puzzleproof.models.skynet import (GameRecord, SkynetMap, Turn, agent_moves, check_cut,
                                       outcome)
from puzzleproof.players.skynet_agents import Agent
from puzzleproof.players.skynet_bots import Bot

__all__ = ["play", "play_external", "BY_PLAY"]

#: the reasons a game is lost by play; any other (a crash, a timeout, an illegal or missing
#: cut) is the bot's own failure: a defect report, never a strategic finding
BY_PLAY = ("agent-reached-gateway",)



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
            if end.reason == "time-limit":  # the judge's clock, not the program's: no result
                record.result, record.reason, record.detail = None, end.reason, end.detail
                return record
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


def play_external(m: SkynetMap, rule: str, program: Program, agent: Agent,
                  start: int | None = None, *, deadline: Deadline | None = None,
                  stderr_keep: int = STDERR_KEEP_BYTES) -> GameRecord:
    """A game against a program speaking CodinGame's protocol, within its limits (the first
    turn's, start-up included, then each turn's) and the task's ``deadline`` (None: none).
    A game the deadline stops before it is over has no result (``reason`` ``time-limit``):
    the judge's clock ran out, not the program's. The program runs through
    :func:`puzzleproof.games.runner.start` (its own process group, killed with its children
    at the end); the record's ``stderr`` holds its stderr, capped at ``stderr_keep`` bytes."""
    s = m.start if start is None else start
    record = GameRecord(m, rule, s, bot=program.name, agent=agent.name)
    record.stderr = ""  # type: ignore[attr-defined]  (carried by record_to_json)
    clock = deadline or Deadline(None)
    try:
        prog = runner.start(program, stderr_keep=stderr_keep)
    except ProgramEnded as end:
        record.turns.append(Turn(s, None, None))
        record.result, record.reason, record.detail = "LOSS", end.reason, end.detail
        return record

    def get_cut(turn: int, node: int):
        first = turn == 1
        own = program.limits.first if first else program.limits.turn
        limit = clock.cap(own)
        why = ("init-timeout" if first else "timeout") if limit >= own else "time-limit"
        t0 = time.monotonic()
        try:
            prog.send((init_block(m) if first else "") + f"{node}\n", limit, reason=why)
            line, _ = prog.read_line(max(0.0, limit - (time.monotonic() - t0)), reason=why)
        except ProgramEnded as end:
            raise _Ended(end.reason, end.detail) from None
        return _parse_cut(line), time.monotonic() - t0

    try:
        record = _run(m, rule, s, agent, get_cut, record)
    finally:
        prog.close()
        record.stderr = prog.stderr  # type: ignore[attr-defined]
        if prog.notes:
            record.detail = "; ".join(filter(None, [record.detail, *prog.notes]))
    return record


def _parse_cut(line: str) -> tuple[int, int]:
    parts = line.split()
    if len(parts) != 2 or not all(p.lstrip("-").isdigit() and len(p) < 12 for p in parts):
        raise _Ended("malformed-output", f"expected 'C1 C2' (two node ids), got {line[:200]!r}")
    return int(parts[0]), int(parts[1])
