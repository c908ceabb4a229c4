"""Skynet games for the cross-check harness: an instance is a map and a start, a method is a
bot playing against an agent model, and the harness's own check replays each game record
against the rules (:func:`puzzleproof.models.skynet.replay`)."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from puzzleproof.formats.skynet import record_from_json, record_to_json
from puzzleproof.models.skynet import SkynetMap, replay
from puzzleproof.result import Result, Status
from puzzleproof.verify.crosscheck import Instance, Method, PuzzleKind
import puzzleproof.verify.skynet_worst  # noqa: F401  (registers the 'worst' agent)
from puzzleproof.verify.skynet_agents import make_agent
from puzzleproof.verify.skynet_bots import make_bot
from puzzleproof.verify.skynet_referee import play

__all__ = ["games_kind", "game_instances"]


def run_game(bot: str, agent: str, tiebreak: str, seed: int, rule: str | None,
             data: tuple[SkynetMap, int], time_limit: float | None) -> Result:
    m, start = data
    b = make_bot(bot)
    r = play(m, rule or b.rule, b, make_agent(agent, tiebreak, seed), start)
    status = Status.WIN if r.result == "WIN" else Status.LOSS
    return Result("skynet", status, record_to_json(r), None, solver=f"{bot} vs {agent}",
                  params={"rule": r.rule, "tiebreak": tiebreak, "seed": seed},
                  seed=seed, wall_time=sum(r.turn_seconds),
                  stats={"cuts": r.cuts, "reason": r.reason, "turns": len(r.turns),
                         "max_turn_ms": round(max(r.turn_seconds, default=0) * 1000, 3)})


def check(data: Any, answer: Any) -> list[dict]:
    try:
        record = record_from_json(json.dumps(answer))
    except Exception as exc:  # a record that does not even parse is a failed check
        return [{"kind": "malformed", "message": str(exc), "line": None, "island": None}]
    return [{"kind": "rules", "message": p, "line": None, "island": None}
            for p in replay(record)]


def canon(answer: Any) -> str:
    return json.dumps(answer.get("turns"), sort_keys=True)


def games_kind(bots: list[str], agents: list[str], tiebreak: str = "low", seed: int = 0,
               rule: str | None = None) -> PuzzleKind:
    methods = {f"{b}/{a}": Method(f"{b}/{a}", partial(run_game, b, a, tiebreak, seed, rule),
                                  exact=False, effort_key="cuts")
               for b in bots for a in agents}
    return PuzzleKind("skynet", methods, check, canon)


def game_instances(maps: list[SkynetMap], starts: dict[str, list[int]]) -> list[Instance]:
    return [Instance(f"{m.name}@{s}", (m.with_start(s), s)) for m in maps
            for s in starts[m.name or ""]]
