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


# -- exact verdicts against bots under the worst-case agent ------------------------------

def run_exact(solver: str, rule: str, data: tuple[SkynetMap, int], time_limit: float | None
              ) -> Result:
    m, start = data
    if solver == "sat":
        from puzzleproof.encoders.skynet_sat import solve
        res = solve(m, rule, start, time_limit=time_limit)
    else:
        from puzzleproof.verify.skynet_explicit import solve as esolve
        res = esolve(m, rule, start, max_nodes=None, time_limit=time_limit)
    answer = None
    if res.status in (Status.WIN, Status.LOSS):
        answer = {"verdict": res.status.value, "rule": rule, "strategy": res.certificate}
    return Result("skynet", res.status, answer, None, solver=res.solver,
                  solver_version=res.solver_version, params=res.params,
                  wall_time=res.wall_time, stats=res.stats)


def run_worst_case(bot: str, rule: str | None, data: tuple[SkynetMap, int],
                   time_limit: float | None) -> Result:
    from puzzleproof.verify.skynet_worst import beating_line

    m, start = data
    b = make_bot(bot)
    verdict, record, positions = beating_line(m, rule or b.rule, start, lambda: make_bot(bot),
                                              time_limit=time_limit)
    answer = None if verdict == "UNKNOWN" else {
        "verdict": verdict, "rule": rule or b.rule, "record": None if record is None else record_to_json(record)}
    return Result("skynet", Status(verdict), answer, None, solver=f"{bot} vs worst-case agent",
                  params={"rule": rule or b.rule}, stats={"positions": positions})


def check_verdict(data: Any, answer: Any) -> list[dict]:
    """The harness's own check: a strategy is replayed against every opponent move, a game
    record by the rules; a bot's WIN (no beating line exists) carries no artefact."""
    from puzzleproof.models.skynet_strategy import check_agent_strategy, check_player_strategy

    m, start = data
    if not isinstance(answer, dict):
        return [{"kind": "malformed", "message": "expected an object", "line": None,
                 "island": None}]
    if answer.get("record") is not None:
        return check(data, answer["record"])
    strategy = answer.get("strategy")
    if strategy is None:
        return []
    checker = (check_player_strategy if answer.get("verdict") == "WIN"
               else check_agent_strategy)
    problems = checker(m, answer.get("rule", "ep2"), start, strategy)
    return [{"kind": "strategy", "message": p, "line": None, "island": None}
            for p in problems]


def verdict_canon(answer: Any) -> Any:
    return answer.get("verdict")


def verdict_disagreements(exact: tuple[str, ...], inst: Instance, recs
                          ) -> list[tuple[str, list[str], dict]]:
    """Skynet disagreements: exact verdicts that differ; a bot losing (a replayable agent
    line) a game proved winnable; a bot never beaten on a game proved lost."""
    out = []
    proved = [r for r in recs if r["method"] in exact and r["status"] in ("WIN", "LOSS")
              and r["check_ok"]]
    verdicts = {r["status"] for r in proved}
    if len(verdicts) > 1:
        out.append(("verdict-mismatch", [r["method"] for r in proved],
                    {r["method"]: r["status"] for r in proved}))
    if verdicts == {"WIN"}:
        for r in recs:
            if r["method"] not in exact and r["status"] == "LOSS" and r["check_ok"]:
                out.append(("loses-winnable-game", [r["method"], proved[0]["method"]],
                            {"record": r["answer"]["record"],
                             "proved_win_by": proved[0]["method"]}))
    if verdicts == {"LOSS"}:
        for r in recs:
            if r["method"] not in exact and r["status"] == "WIN":
                out.append(("verdict-mismatch", [r["method"], proved[0]["method"]],
                            {"claim": "no agent line beats the bot",
                             "proved_loss_by": proved[0]["method"]}))
    return out


def verdict_kind(bots: list[str], exact: list[str], rule: str) -> PuzzleKind:
    """Exact verdicts ('sat', 'explicit') and bots against the worst-case agent; a bot that
    loses a game an exact method proved winnable is a 'loses-winnable-game' disagreement
    with the agent's winning line as a replayable game record."""
    methods = {e: Method(e, partial(run_exact, e, rule), exact=True, effort_key=None)
               for e in exact}
    methods.update({b: Method(b, partial(run_worst_case, b, rule), exact=False,
                              effort_key="positions") for b in bots})
    return PuzzleKind("skynet", methods, check_verdict, canon=verdict_canon,
                      extra=partial(verdict_disagreements, tuple(exact)))
