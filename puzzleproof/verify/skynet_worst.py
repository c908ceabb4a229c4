"""The worst case for a bot, as the older callers ask for it.

- :func:`beating_line`: whether some agent line beats a bot, as ``("LOSS", record, n)``,
  ``("WIN", None, n)`` or ``("UNKNOWN", None, n)``. It is the adversary of
  :mod:`puzzleproof.verify.skynet_adversary` (every agent reply searched, cut short by the
  exact solver, a history-dependent bot judged line by line) with its answer in the old shape;
  ``n`` counts the positions explored.
- :class:`WorstAgent` (registered as ``worst`` for games played move by move, such as the
  referee's ``play``): moves into a position the player cannot win from when the exact solver
  finds one, else towards the nearest gateway. That is **not** the worst case for a bot (it
  does not search the bot's answers); ``skynet referee --agent worst`` and ``crosscheck
  skynet`` judge a bot with the adversary instead.
"""

from __future__ import annotations

from typing import Callable

from puzzleproof.models.skynet import GameRecord, SkynetMap, State, agent_moves
# the run's process removes the adversary's knowledge directory of the run when it exits
import puzzleproof.verify.skynet_knowledge  # noqa: F401
from puzzleproof.verify.skynet_agents import Agent, NearestAgent, register_agent
from puzzleproof.verify.skynet_bots import Bot

__all__ = ["beating_line", "WorstAgent"]


def beating_line(m: SkynetMap, rule: str, start: int, bot_factory: Callable[[], Bot],
                 max_positions: int = 200_000, time_limit: float | None = None
                 ) -> tuple[str, GameRecord | None, int]:
    """``("LOSS", record, positions)``: an agent line that beats the bot (a game record
    replayed by the rules, ending on a gateway or with the bot's failure); ``("WIN", None,
    n)``: no line beats it (the adversary proved it); ``("UNKNOWN", None, n)``: a limit ran
    out (``max_positions`` bounds the lines played)."""
    from puzzleproof.verify.skynet_adversary import BotPlayer, adversary

    name = getattr(bot_factory(), "name", "bot")
    res = adversary(m, rule, start, BotPlayer(name, bot_factory), time_limit=time_limit,
                    max_lines=max_positions, certificate=False)
    verdict = {"PROVED": "WIN", "BEATEN": "LOSS", "UNWINNABLE": "LOSS"}.get(res.verdict,
                                                                           "UNKNOWN")
    return verdict, res.record, res.positions


class WorstAgent(Agent):
    """Moves into a position the player cannot win from, when there is one (see the module
    doc: a move rule, not the adversary)."""

    name = "worst"

    def reset(self, m: SkynetMap, rule: str) -> None:
        from puzzleproof.verify.skynet_adversary import oracle_for

        super().reset(m, rule)
        self.oracle = oracle_for(m, rule)
        self.fallback = NearestAgent(self.tiebreak)
        self.fallback.reset(m, rule)

    def move(self, state: State) -> int:
        gate = self._gateway_now(state)
        if gate is not None:
            return gate
        for v in agent_moves(state):
            if self.oracle.player_wins(v, state.links) is False:
                return v
        return self.fallback.move(state)


register_agent("worst", WorstAgent)
