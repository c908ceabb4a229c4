"""The worst-case agent: the agent a proof can rely on, and the search that beats a bot.

- :func:`beating_line`: for a deterministic bot, a depth-first search over every agent move
  for a line that beats it (the bot is replayed on each branch). Positions already searched
  are remembered, which is exact for bots whose choice depends only on the position (the
  agent's node and the links left): the four ported bots keep no other state. A line found is
  a complete game record, replayed by the rules before it is returned.
- :class:`WorstAgent` (registered as ``worst``): moves to a position the player cannot win
  from when one exists (decided by the explicit-state solver), otherwise towards the node
  with the most gateway links (nearest first). It beats every strategy that can be beaten
  from the positions it reaches.
"""

from __future__ import annotations

import copy
import time
from typing import Callable

from puzzleproof.models.skynet import (GameRecord, SkynetMap, State, Turn, agent_moves,
                                       check_cut, outcome, replay)
from puzzleproof.verify.skynet_agents import Agent, NearestAgent, register_agent
from puzzleproof.verify.skynet_bots import Bot

__all__ = ["beating_line", "WorstAgent"]


def beating_line(m: SkynetMap, rule: str, start: int, bot_factory: Callable[[], Bot],
                 max_positions: int = 200_000, time_limit: float | None = None
                 ) -> tuple[str, GameRecord | None, int]:
    """``("LOSS", record, positions)``: an agent line that beats the bot (the record ends
    with the agent on a gateway, or the bot crashing or cutting illegally);
    ``("WIN", None, n)``: no line beats it; ``("UNKNOWN", None, n)``: budget spent."""
    deadline = None if time_limit is None else time.monotonic() + time_limit
    bot = bot_factory()
    bot.reset(m)
    seen: set = set()
    count = 0

    class Budget(Exception):
        pass

    def search(state: State, bot: Bot, turns: list[Turn]) -> tuple[list[Turn], str] | None:
        nonlocal count
        key = (state.agent, state.links)
        if key in seen:
            return None
        seen.add(key)
        count += 1
        if count > max_positions or (deadline is not None and count % 256 == 0
                                     and time.monotonic() > deadline):
            raise Budget
        try:
            cut = bot.cut(state.agent)
        except Exception:  # a crashing bot loses
            return turns + [Turn(state.agent, None, None)], "crash"
        if check_cut(m, state, cut, rule) is not None:
            return turns + [Turn(state.agent, tuple(cut), None)], "illegal-cut"
        after = state.cut(cut)
        if outcome(after) == "WIN":
            return None
        moves = agent_moves(after)
        for v in sorted(moves, key=lambda v: v not in m.gateways):
            line = turns + [Turn(state.agent, tuple(cut), v)]
            if v in m.gateways:
                return line, "agent-reached-gateway"
            found = search(after.move(v), copy.deepcopy(bot), line)
            if found is not None:
                return found
        return None

    try:
        found = search(m.initial_state(start), bot, [])
    except Budget:
        return "UNKNOWN", None, count
    if found is None:
        return "WIN", None, count
    turns, reason = found
    record = GameRecord(m, rule, start, turns, "LOSS", reason, bot=bot.name, agent="worst")
    problems = replay(record)
    if problems:
        raise AssertionError(f"beating line does not replay: {problems[0]}")
    return "LOSS", record, count


class WorstAgent(Agent):
    """Moves into a position the player cannot win from, when there is one."""

    name = "worst"

    def reset(self, m: SkynetMap, rule: str) -> None:
        from puzzleproof.verify.skynet_explicit import ExplicitSolver

        super().reset(m, rule)
        self.solver = ExplicitSolver(m, rule, max_nodes=None)
        self.fallback = NearestAgent(self.tiebreak)
        self.fallback.reset(m, rule)

    def move(self, state: State) -> int:
        moves = agent_moves(state)
        gate = self._gateway_now(state)
        if gate is not None:
            return gate
        g = self.solver.g
        mask = sum(1 << k for k, l in enumerate(g.cuttable) if l in state.links)
        for v in moves:
            if not self.solver.win(v, mask):
                return v
        return self.fallback.move(state)


register_agent("worst", WorstAgent)
