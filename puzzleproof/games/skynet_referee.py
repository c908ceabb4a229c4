"""The Skynet referee: plays games between a bot (ours, or any program speaking CodinGame's
protocol) and an agent model, enforcing the rules and the time limits, and returns the full
game record (checked by :func:`puzzleproof.models.skynet.replay` in the tests).

An external program receives the initialisation block, then each turn the agent's node on one
line, and must answer one line ``C1 C2`` within the limit (``init_timeout`` for the first turn,
start-up included; ``move_timeout`` after). Verdicts: ``WIN`` (``contained``) or ``LOSS`` with
the reason ``agent-reached-gateway``, ``illegal-cut``, ``malformed-output`` or one of the
runner's reasons (:data:`puzzleproof.games.programs.REASONS`: ``init-timeout``, ``timeout``,
``crash``, ``memory-limit``, ``exited``, ``closed-stdout``, ...). The referee never hangs:
every exchange has a deadline, and the program's whole process group is killed at the end.
The program's stderr is kept in the record (``record.stderr``), capped.
"""

from __future__ import annotations

import time
from typing import Sequence

from puzzleproof.formats.skynet import init_block
from puzzleproof.models.skynet import (GameRecord, SkynetMap, Turn, agent_moves, check_cut,
                                       outcome)
from puzzleproof.games.programs import (DEFAULT_MEMORY_LIMIT_MB, STDERR_KEEP_BYTES,
                                         ExternalProgram, ProgramEnded, parse_command)
from puzzleproof.players.skynet_agents import Agent
from puzzleproof.players.skynet_bots import Bot

__all__ = ["play", "play_external", "DEFAULT_TURN_SECONDS", "DEFAULT_FIRST_TURN_SECONDS",
           "DEFAULT_MEMORY_LIMIT_MB", "BY_PLAY"]

#: the reasons a game is lost by play; any other (a crash, a timeout, an illegal or missing
#: cut) is the bot's own failure: a defect report, never a strategic finding
BY_PLAY = ("agent-reached-gateway",)

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


def play_external(m: SkynetMap, rule: str, command: str | Sequence[str], agent: Agent,
                  start: int | None = None, per_turn: float | None = None,
                  first_turn: float | None = None, *, move_timeout: float | None = None,
                  init_timeout: float | None = None,
                  memory_limit: float | None = DEFAULT_MEMORY_LIMIT_MB,
                  name: str | None = None, stderr_keep: int = STDERR_KEEP_BYTES) -> GameRecord:
    """A game against an external program speaking CodinGame's protocol.

    ``move_timeout`` (alias ``per_turn``) is the limit per turn, ``init_timeout`` (alias
    ``first_turn``) the first turn's, start-up included; ``memory_limit`` is in megabytes
    (None: none). The program runs through :class:`puzzleproof.games.programs.ExternalProgram`
    (own process group, killed with its children at the end). The record's ``stderr``
    attribute (and its JSON's ``"stderr"``) holds the program's stderr, capped at
    ``stderr_keep`` bytes with a marker where cut; ``bot`` is ``name`` or the command.
    """
    move_timeout = _alias(move_timeout, per_turn, "move_timeout", "per_turn",
                          DEFAULT_TURN_SECONDS)
    init_timeout = _alias(init_timeout, first_turn, "init_timeout", "first_turn",
                          DEFAULT_FIRST_TURN_SECONDS)
    command = parse_command(command)
    s = m.start if start is None else start
    record = GameRecord(m, rule, s, bot=name or " ".join(command), agent=agent.name)
    record.stderr = ""  # type: ignore[attr-defined]  (carried by record_to_json)
    try:
        prog = ExternalProgram(command, memory_limit=memory_limit, stderr_keep=stderr_keep)
    except ProgramEnded as end:
        record.turns.append(Turn(s, None, None))
        record.result, record.reason, record.detail = "LOSS", end.reason, end.detail
        return record

    def get_cut(turn: int, node: int):
        first = turn == 1
        limit = init_timeout if first else move_timeout
        why = "init-timeout" if first else "timeout"
        t0 = time.monotonic()
        try:
            prog.send((init_block(m) if first else "") + f"{node}\n", limit, reason=why)
            line, _ = prog.read_line(max(0.0, limit - (time.monotonic() - t0)), reason=why)
        except ProgramEnded as end:
            raise _Ended(end.reason, end.detail) from None
        secs = time.monotonic() - t0
        parts = line.split()
        if len(parts) != 2 or not all(p.lstrip("-").isdigit() and len(p) < 12 for p in parts):
            raise _Ended("malformed-output",
                         f"expected 'C1 C2' (two node ids), got {line[:200]!r}")
        return (int(parts[0]), int(parts[1])), secs

    try:
        record = _run(m, rule, s, agent, get_cut, record)
    finally:
        prog.close()
        record.stderr = prog.stderr  # type: ignore[attr-defined]
        if prog.notes:
            record.detail = "; ".join(filter(None, [record.detail, *prog.notes]))
    return record


def _alias(new: float | None, old: float | None, new_name: str, old_name: str,
           default: float) -> float:
    if new is not None and old is not None and new != old:
        raise ValueError(f"give {new_name} or {old_name}, not both")
    value = new if new is not None else old if old is not None else default
    if not value > 0:
        raise ValueError(f"{new_name} must be positive, found {value}")
    return float(value)
