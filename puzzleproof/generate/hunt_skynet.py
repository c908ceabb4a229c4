"""Hunting a Skynet program: the smallest map and start it loses while the player could win.

A candidate is a random connected map of ``size`` nodes (a spanning tree and extra links,
about a quarter of the nodes gateways; Episode 1's maps link each node to one gateway at
most) with a random start. The program plays it against the agent named (``article`` or
``nearest``: one game; ``worst``: the adversary, every agent reply searched). It fails when

- it loses the game by play on a start the exact solver proves winnable
  (``loses-winnable-start``; the evidence holds its game, its stderr's last lines and the
  player's winning strategy, checked by the rules), or
- it fails on its own, winnable start or not: an illegal or malformed cut, a crash, a
  time-out (the kind is the referee's reason: ``illegal-cut``, ``crash``, ``timeout``...).

Against the worst-case agent the adversary searches for a loss only (``seek``: no proof of
a win is asked for), and a Python program's games are copies of one run of it kept waiting
for its input (:mod:`~puzzleproof.games.forking`): a map costs a few
forks, about 25 ms for our Episode 2 bots as programs on maps of 12 nodes, where a run from
the start costs about 0.5 s. Every loss found in a copy is confirmed by a fresh run, whose
game and stderr are the evidence.

Shrinking removes a node (not the start; a gateway while another is left) or a link.
"""

from __future__ import annotations

import random
from typing import Any, Iterator

from puzzleproof.clock import Deadline
from puzzleproof.formats.skynet import record_to_json, write_map
from puzzleproof.games.program import Program
from puzzleproof.games.skynet_referee import BY_PLAY, play_external
from puzzleproof.generate.hunt import UNDECIDED, Failure, Undecided, program_of
from puzzleproof.generate.skynet import SkyParams, _random_map, _smaller, _won
from puzzleproof.models.skynet import SkynetMap
from puzzleproof.players.skynet_agents import make_agent

__all__ = ["SkynetHunter", "from_evidence"]

#: the last lines of the program's stderr an evidence keeps
STDERR_LINES = 20


class SkynetHunter:
    """The hunt's Skynet part for one program, rule and agent model."""

    puzzle = "skynet"

    def __init__(self, program: Program, rule: str = "ep2", agent: str = "article",
                 sizes: tuple[int, ...] = tuple(range(4, 13)),
                 max_attempts: int | None = None) -> None:
        self.program, self.rule, self.agent, self.sizes = program, rule, agent, sizes
        self.max_attempts = max_attempts

    def candidate(self, rng: random.Random, size: int) -> SkynetMap | None:
        p = SkyParams(nodes=size, extra=rng.choice((0.3, 0.6, 1.0)),
                      gateways=max(1, min(size - 1, round(size / 4) + rng.randrange(2))),
                      style=self.rule)
        return _random_map(rng, p)

    def judge(self, m: SkynetMap, deadline: Deadline) -> Failure | Undecided | None:
        if deadline.expired():
            return UNDECIDED
        if self.agent == "worst":
            return self._judge_worst(m, deadline)
        game = play_external(m, self.rule, self.program, make_agent(self.agent), m.start,
                             deadline=deadline)
        if game.result is None:
            return UNDECIDED  # the hunt's clock stopped the game
        if game.result != "LOSS":
            return None
        rec = record_to_json(game)
        evidence = {"game": rec, "stderr": _tail(getattr(game, "stderr", ""))}
        if game.reason not in BY_PLAY:
            return Failure(game.reason or "defect", game.detail or "", evidence)
        strategy = _won(m, self.rule)
        if strategy is None:
            return None  # a start the player cannot win: no fault of the program
        return Failure("loses-winnable-start",
                       f"loses start {m.start} (the agent reaches a gateway after "
                       f"{len(game.turns)} turns) though the player wins it",
                       {**evidence, "strategy": strategy})

    def _judge_worst(self, m: SkynetMap, deadline: Deadline) -> Failure | None:
        from puzzleproof.games.skynet_adversary import ProgramPlayer, adversary

        player = ProgramPlayer(self.program, parallel=1)
        res = adversary(m, self.rule, m.start, player, deadline=deadline, certificate=False,
                        share=False, seek=True)
        if res.record is None or res.verdict not in ("BEATEN", "UNWINNABLE"):
            return None
        evidence = {"game": record_to_json(res.record), "stderr": _tail(res.stderr or "")}
        if res.record.reason not in BY_PLAY:
            return Failure(res.record.reason or "defect", res.record.detail or "", evidence)
        strategy = _won(m, self.rule) if res.verdict == "BEATEN" else None
        if strategy is None:
            return None
        return Failure("loses-winnable-start",
                       f"the worst-case agent beats it from start {m.start} though the "
                       "player wins it", {**evidence, "strategy": strategy})

    def smaller(self, m: SkynetMap) -> Iterator[SkynetMap]:
        for s in _smaller(m):
            if self.rule != "ep1" or not s.ep1_problems():
                yield s

    def size(self, m: SkynetMap) -> int:
        return m.n

    def key(self, m: SkynetMap) -> str:
        return write_map(m)

    def files(self, m: SkynetMap, name: str) -> tuple[str, str]:
        """The map file (CodinGame's block and the start) and its ending."""
        named = SkynetMap(m.n, m.links, m.gateways, m.start, name=name,
                          gateway_order=m.gateway_order)
        return write_map(named), ".txt"

    def describe(self) -> dict[str, Any]:
        return {"rule": self.rule, "agent": self.agent}


def _tail(text: str) -> list[str]:
    return text.splitlines()[-STDERR_LINES:]


def from_evidence(settings: dict, who: dict, text: str, source: str) -> tuple[Any, Any]:
    """The hunter and the instance of a kept breaker, from its evidence's settings and
    program and the instance file's text (:func:`puzzleproof.generate.hunt.rejudge`)."""
    from puzzleproof.formats.skynet import read_map

    return (SkynetHunter(program_of(who), settings["rule"], settings["agent"]),
            read_map(text, source))
