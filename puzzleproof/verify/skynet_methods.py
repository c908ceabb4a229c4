"""Skynet games for the cross-check harness: an instance is a map and a start, a method is a
bot playing against an agent model, and the harness's own check replays each game record
against the rules (:func:`puzzleproof.models.skynet.replay`).

A bot is one of ours (:data:`puzzleproof.players.skynet_bots.BOTS`) or an external program
speaking CodinGame's protocol (``games_kind(..., external={"mine": Program.parse("mine=python3
bot.py")})``),
played through :func:`puzzleproof.games.skynet_referee.play_external` in the harness's worker
processes; its game records keep its capped stderr (``answer["stderr"]``).
:func:`judge_lost_games` then says, for every lost game, whether its start is proved winnable
by the exact SAT solver (:func:`puzzleproof.encoders.skynet_sat.solve`), with the evidence.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any, Callable, Sequence

from puzzleproof.formats.skynet import record_from_json, record_to_json
from puzzleproof.models.skynet import SkynetMap, replay
from puzzleproof.models.skynet_strategy import certificate_kind
from puzzleproof.result import Result, Status
from puzzleproof.clock import Deadline, PerTask
from puzzleproof.method import Method
from puzzleproof.verify.crosscheck import Instance, PuzzleKind
from puzzleproof.players.skynet_agents import make_agent
from puzzleproof.players.skynet_bots import Bot, make_bot
from puzzleproof.games.program import Program
from puzzleproof.games.skynet_referee import BY_PLAY, play, play_external

__all__ = ["games_kind", "game_instances", "run_game", "run_external_game", "judge_lost_games",
           "lost_game_lines"]


def run_game(bot: str, agent: str, tiebreak: str, seed: int, rule: str | None,
             data: tuple[SkynetMap, int], *, deadline: Deadline) -> Result:
    """One game of one of our bots (in this process; its turns take milliseconds)."""
    m, start = data
    b = make_bot(bot)
    r = play(m, rule or m.rule or b.rule, b, make_agent(agent, tiebreak, seed), start)
    return _game_result(r, f"{bot} vs {agent}", tiebreak, seed, {})


def run_external_game(program: Program, agent: str, tiebreak: str, seed: int,
                      rule: str | None, data: tuple[SkynetMap, int], *,
                      deadline: Deadline) -> Result:
    """One game of a program (a harness method, bound by :func:`functools.partial` up to
    ``data``), within its limits and the task's ``deadline``: a game the deadline stops is
    UNKNOWN."""
    m, start = data
    r = play_external(m, rule or m.rule or "ep2", program, make_agent(agent, tiebreak, seed),
                      start, deadline=deadline)
    return _game_result(r, f"{program.name} vs {agent}", tiebreak, seed,
                        {"command": list(program.command), "first": program.limits.first,
                         "turn": program.limits.turn, "memory_mb": program.limits.memory_mb},
                        stderr=len(getattr(r, "stderr", "") or ""))


def _game_result(r: Any, solver: str, tiebreak: str, seed: int, params: dict,
                 stderr: int | None = None) -> Result:
    status = {"WIN": Status.WIN, "LOSS": Status.LOSS}.get(r.result, Status.UNKNOWN)
    stats = {"cuts": r.cuts, "reason": r.reason, "turns": len(r.turns),
             "max_turn_ms": round(max(r.turn_seconds, default=0) * 1000, 3),
             "tiebreak": tiebreak, "seed": seed}
    if stderr is not None:
        stats["stderr_chars"] = stderr
    cert = {"note": r.detail, "limit": "time-limit"} if status is Status.UNKNOWN else None
    return Result("skynet", status, record_to_json(r), cert, solver=solver,
                  params={"rule": r.rule, "tiebreak": tiebreak, "seed": seed, **params},
                  seed=seed, wall_time=sum(r.turn_seconds), stats=stats)


def check(data: Any, answer: Any) -> list[dict]:
    if isinstance(answer, dict) and answer.get("type") == "skynet-adversary":
        return check_verdict(data, answer)
    try:
        record = record_from_json(json.dumps(answer))
    except Exception as exc:  # a record that does not even parse is a failed check
        return [{"kind": "malformed", "message": str(exc), "line": None, "island": None}]
    return [{"kind": "rules", "message": p, "line": None, "island": None}
            for p in replay(record)]


def canon(answer: Any) -> str:
    if answer.get("type") == "skynet-adversary":
        return str(answer.get("adversary"))
    return json.dumps(answer.get("turns"), sort_keys=True)


def games_kind(bots: list[str], agents: list[str], tiebreak: str = "low", seed: int = 0,
               rule: str | None = None, *, external: dict[str, Program] | None = None,
               per_line: bool = False, max_lines: int | None = None,
               fork_lines: bool = True) -> PuzzleKind:
    """Games of ``bots`` (ours, by name) and ``external`` programs (by name) against each
    of ``agents``; a method is named ``BOT/AGENT``. Programs play under ``rule`` (default
    ep2) within their limits. The agent ``worst`` is the adversary (every agent line
    searched; ``per_line``, ``max_lines`` as in :func:`.skynet_adversary.adversary`;
    ``fork_lines`` False runs a program afresh for every line, see
    :class:`.skynet_sessions.ProgramPlayer`): its record holds the verdict, the losing line
    or the bot's certificate."""
    methods = {}
    for b in bots:
        for a in agents:
            run = (partial(run_worst_case, b, rule, per_line=per_line, max_lines=max_lines)
                   if a == "worst" else partial(run_game, b, a, tiebreak, seed, rule))
            methods[f"{b}/{a}"] = Method(f"{b}/{a}", "heuristic", run=run,
                                         effort="lines" if a == "worst" else "cuts")
    for name, program in (external or {}).items():
        if name in bots:
            raise ValueError(f"external program {name!r} has the name of one of our bots; "
                             "name it differently")
        for a in agents:
            run = (partial(run_adversary_program, program, rule, per_line, max_lines,
                           fork_lines=fork_lines) if a == "worst" else
                   partial(run_external_game, program, a, tiebreak, seed, rule))
            methods[f"{name}/{a}"] = Method(f"{name}/{a}", "external", run=run,
                                            effort="lines" if a == "worst" else "cuts")
    return PuzzleKind("skynet", methods, check, canon, warm=warm_games)


def game_instances(maps: list[SkynetMap], starts: dict[str, list[int]]) -> list[Instance]:
    return [Instance(f"{m.name}@{s}", (m.with_start(s), s)) for m in maps
            for s in starts[m.name or ""]]


# -- exact verdicts against bots under the worst-case agent ------------------------------

def run_exact(solver: str, rule: str, data: tuple[SkynetMap, int], *, deadline: Deadline
              ) -> Result:
    m, start = data
    if solver == "sat":
        from puzzleproof.encoders.skynet_sat import solve
        res = solve(m, rule, start, deadline=deadline)
    else:
        from puzzleproof.encoders.skynet_explicit import solve as esolve
        res = esolve(m, rule, start, max_nodes=None, deadline=deadline)
    answer = None
    if res.status in (Status.WIN, Status.LOSS):
        answer = {"verdict": res.status.value, "rule": rule, "strategy": res.certificate}
    return Result("skynet", res.status, answer, None, solver=res.solver,
                  solver_version=res.solver_version, params=res.params,
                  wall_time=res.wall_time, stats=res.stats)


def run_worst_case(bot: str, rule: str | None, data: tuple[SkynetMap, int], *,
                   deadline: Deadline, per_line: bool = False,
                   max_lines: int | None = None) -> Result:
    """One of our bots against the adversary (:mod:`puzzleproof.games.skynet_adversary`):
    WIN when PROVED (its cuts as a position -> cut certificate), LOSS when a line beats it
    (BEATEN, or UNWINNABLE on a start proved lost), UNKNOWN at a limit."""
    from puzzleproof.games.skynet_adversary import BotPlayer

    rule = rule or data[0].rule or make_bot(bot).rule
    # a bot that decides by search on its first turn (ours, playing the proved strategy)
    # decides by the task's deadline; when it gives up, the adversary's clock has run out
    # too, and the answer is UNKNOWN
    timed = deadline.at is not None and hasattr(make_bot(bot), "deadline")
    player = BotPlayer(bot, partial(_timed_bot, bot, deadline) if timed else None)
    return _adversary_result(player, rule, data, deadline, per_line, max_lines)


def _timed_bot(name: str, deadline: Deadline) -> Bot:
    """A bot that thinks (the exact bot), on the task's clock."""
    bot = make_bot(name)
    bot.deadline = deadline
    return bot


def run_adversary_program(program: Program, rule: str | None, per_line: bool,
                          max_lines: int | None, data: tuple[SkynetMap, int], *,
                          deadline: Deadline, fork_lines: bool = True) -> Result:
    """A program against the adversary: a run of the program per line, or, for a Python
    script, one run forked where lines branch (unless ``fork_lines`` is False)."""
    from puzzleproof.games.skynet_adversary import ProgramPlayer

    player = ProgramPlayer(program, parallel=1, fork_lines=None if fork_lines else False)
    return _adversary_result(player, rule or data[0].rule or "ep2", data, deadline, per_line,
                             max_lines, extra={"command": list(program.command)})


def _adversary_result(player, rule: str, data: tuple[SkynetMap, int], deadline: Deadline,
                      per_line: bool, max_lines: int | None,
                      extra: dict | None = None) -> Result:
    from puzzleproof.games.skynet_adversary import adversary

    m, start = data
    res = adversary(m, rule, start, player, per_line=per_line, deadline=deadline,
                    max_lines=max_lines)
    status = {"PROVED": Status.WIN, "BEATEN": Status.LOSS,
              "UNWINNABLE": Status.LOSS}.get(res.verdict, Status.UNKNOWN)
    answer = {**res.to_json(), "adversary": res.verdict, "verdict": status.value}
    if res.stderr is not None:
        answer["stderr"] = res.stderr
    rec = res.record
    return Result("skynet", status, answer, None, solver=f"{player.name} vs worst-case agent",
                  params={"rule": rule, "per_line": per_line, "max_lines": max_lines,
                          "time_limit": deadline.limit, **(extra or {})},
                  wall_time=res.seconds,
                  stats={"positions": res.positions, "lines": res.lines,
                         "replays": res.replays, "forks": res.forks,
                         "adversary": res.verdict,
                         "mode": res.mode, "winnable": res.winnable,
                         "solver_seconds": round(res.solver_seconds, 3),
                         "cuts": None if rec is None else rec.cuts,
                         "reason": None if rec is None else rec.reason,
                         "note": res.note})


def check_verdict(data: Any, answer: Any) -> list[dict]:
    """The harness's own check: a strategy is replayed against every opponent move, a game
    record by the rules; a bot's WIN (no beating line exists) carries no artefact."""
    from puzzleproof.models.skynet_strategy import check_agent_strategy, check_player_strategy

    m, start = data
    if not isinstance(answer, dict):
        return [{"kind": "malformed", "message": "expected an object", "line": None,
                 "island": None}]
    if answer.get("type") == "skynet-game":  # a game against an agent model
        return check(data, answer)
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
    return answer.get("verdict") or answer.get("result")


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
                game = r["answer"] if r["answer"].get("type") == "skynet-game" \
                    else r["answer"]["record"]
                out.append(("loses-winnable-game", [r["method"], proved[0]["method"]],
                            {"record": game, "proved_win_by": proved[0]["method"]}))
    if verdicts == {"LOSS"}:  # (an agent model may well let a player win a lost start)
        for r in recs:
            if r["method"] not in exact and r["status"] == "WIN" \
                    and (r["answer"] or {}).get("type") != "skynet-game":
                out.append(("verdict-mismatch", [r["method"], proved[0]["method"]],
                            {"claim": "no agent line beats the bot",
                             "proved_loss_by": proved[0]["method"]}))
    return out


def verdict_kind(bots: list[str], exact: list[str], rule: str, *,
                 agents: Sequence[str] = ("worst",), programs: dict[str, Program] | None = None,
                 per_line: bool = False, max_lines: int | None = None,
                 fork_lines: bool = True, tiebreak: str = "low", seed: int = 0) -> PuzzleKind:
    """Exact verdicts ('sat', 'explicit') beside our bots and the user's programs, every
    one of them against the same ``agents`` and judged by the same rule: one that loses a
    game an exact method proved winnable is a 'loses-winnable-game' disagreement, with the
    losing line as a replayable game record. Against ``worst`` (the adversary: every agent
    line searched) a player is named as it is; against an agent model, ``NAME/AGENT``."""
    methods = {e: Method(e, "exact", run=partial(run_exact, e, rule)) for e in exact}
    for a in agents:
        named = (lambda x: x) if list(agents) == ["worst"] else (lambda x: f"{x}/{a}")
        for b in bots:
            run = (partial(run_worst_case, b, rule, per_line=per_line, max_lines=max_lines)
                   if a == "worst" else partial(run_game, b, a, tiebreak, seed, rule))
            methods[named(b)] = Method(named(b), "heuristic", run=run,
                                       effort="positions" if a == "worst" else "cuts")
        for name, program in (programs or {}).items():
            run = (partial(run_adversary_program, program, rule, per_line, max_lines,
                           fork_lines=fork_lines) if a == "worst" else
                   partial(run_external_game, program, a, tiebreak, seed, rule))
            methods[named(name)] = Method(named(name), "external", run=run,
                                          effort="positions" if a == "worst" else "cuts")
    return PuzzleKind("skynet", methods, check_verdict, canon=verdict_canon,
                      extra=partial(verdict_disagreements, tuple(exact)), warm=warm_solver)


def warm_games() -> None:
    """What games load, once per pool worker outside the tasks' time: a task runs in a
    child forked from the worker, so whatever the task imports itself dies with the child
    and the next task imports it again (``psutil``, which ends every judged program,
    took about 20 ms a game over the 1,064 games of the referee's benchmark)."""
    import psutil  # noqa: F401

    from puzzleproof.games import runner, skynet_adversary, skynet_referee  # noqa: F401
    from puzzleproof.players import skynet_agents, skynet_bots  # noqa: F401


def warm_solver() -> None:
    """:func:`warm_games` and the exact solver's stack (SAT back end, searches, the
    compiled inner loop of the fewest-cuts search)."""
    warm_games()
    from puzzleproof.encoders import skynet_recent, skynet_sat, unitflow  # noqa: F401
    from puzzleproof.players import skynet_certified  # noqa: F401

    unitflow.warm()
    skynet_recent.warm()


# -- lost games judged by the exact solver -----------------------------------------------

def lost_game_lines(record: dict) -> list[str]:
    """A game record's moves as short lines (``cut 3-5, agent 2->1``) for a summary."""
    out = []
    for k, t in enumerate(record.get("turns") or [], start=1):
        cut = "no cut" if t.get("cut") is None else f"cut {t['cut'][0]}-{t['cut'][1]}"
        moved = t.get("agent_moved_to")
        out.append(f"{k}. agent at {t['agent_at']}: {cut}"
                   + ("" if moved is None else f", agent -> {moved}"))
    return out


def proved_verdicts(records: list[dict], rule: str) -> dict[tuple[str, str], Result]:
    """The verdicts exact methods proved in a cross-check's ``records`` (checked WIN or
    LOSS), by (instance, rule): a later judging of lost games reuses them."""
    out: dict[tuple[str, str], Result] = {}
    for r in records:
        if r.get("exact") and r.get("status") in ("WIN", "LOSS") and r.get("check_ok"):
            answer = r.get("answer") or {}
            out.setdefault((r["instance"], answer.get("rule") or rule), Result(
                "skynet", Status(r["status"]), answer, answer.get("strategy"),
                solver=r.get("solver") or r["method"], wall_time=r.get("wall_time") or 0.0,
                check={"ok": True}))
    return out


def judge_lost_games(records: list[dict], instances: list[Instance], *,
                     each: PerTask = PerTask(30.0), strategy: bool = False,
                     known: dict[tuple[str, str], Result] | None = None,
                     executor: Any = None,
                     progress: Callable[[int, int, str], None] | None = None) -> list[dict]:
    """For every lost game among the harness ``records`` (``run_crosscheck(...).records``
    of a :func:`games_kind`), decide its start with the exact SAT solver (once per map,
    start and rule, each start on ``each``'s clock from its own start; in the pool of ``executor`` when given) and
    say what the loss means. One dict per lost game:

    - ``"verdict"``: ``"lost-proved-winnable"`` (the exact solver proved a strategy that
      contains every agent from this start: the bot lost a game it could have won),
      ``"lost-proved-lost"`` (no strategy wins against every agent; still, the evidence
      may show our exact bot winning against this agent model) or ``"lost-unproved"``
      (the solver's limit ran out);
    - ``"game"``, ``"method"``, ``"reason"``, ``"detail"``, ``"stderr"`` (the program's);
    - ``"defect"``: lost by the bot's own failure (a reason not in
      :data:`~.skynet_referee.BY_PLAY`);
    - ``"losing_line"``: the lost game's moves, in words (the record is in ``"record"``);
    - for a proved-winnable start, ``"winning_game"``: the solver's proved strategy
      (its checked certificate played move by move, else our exact bot) against the same
      agent model from the same start, a replayable record, and ``"strategy"`` (the solver's certificate, checked by replay
      against every agent move) when ``strategy`` is true; ``"solver"`` names the method.

    ``known``: verdicts already proved (:func:`proved_verdicts`), not solved again.
    """
    by_id = {i.id: i for i in instances}
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in records:
        if r.get("type", "record") == "record" and r.get("status") == "LOSS" \
                and r.get("instance") in by_id \
                and (r.get("answer") or {}).get("type") != "skynet-adversary":
            answer = r.get("answer") or {}
            rule = answer.get("rule") or (r.get("stats") or {}).get("rule") or "ep2"
            groups.setdefault((r["instance"], rule), []).append(r)
    # one task a map and rule: its starts share the solver's cache
    tasks: dict[tuple[str, str], list] = {}
    for (i, rule), recs in groups.items():
        m = by_id[i].data[0]
        tasks.setdefault((m.name or "", rule), []).append(
            (by_id[i].data, rule, recs, each, strategy, (known or {}).get((i, rule))))
    return _judge_all(list(tasks.values()), executor, each, progress)


def _judge_all(tasks: list[list], executor: Any, each: PerTask,
               progress: Any) -> list[dict]:
    from puzzleproof import executor as ex

    out: list[dict] = []
    if executor is None:
        for t in tasks:
            out += judge_map(t)
        return out
    hang = ex.hang_limit_for(PerTask(None if each.seconds is None else
                                     each.seconds * max(map(len, tasks))))
    done = 0
    with ex.open_pool(ex.as_spec(executor)) as pool:
        for task, items in pool.stream(judge_map, tasks, hang_limit=hang, warm=warm_solver,
                                       name=lambda t: f"judging {t[0][0][0].name}"):
            if isinstance(items, ex.TaskFailure):
                items = [_unjudged(start, r, items.message) for start in task
                         for r in start[2]]
            out += items
            done += 1
            if progress is not None:
                progress(done, len(tasks), f"judging lost games on {task[0][0][0].name}")
    return out


def judge_map(starts: list[tuple]) -> list[dict]:
    """The lost games of one map's starts under one rule (a pool task): the starts share
    the solver's cache."""
    from puzzleproof.encoders.skynet_sat import SolverCache

    out: list[dict] = []
    with SolverCache() as cache:
        for data, rule, lost, each, strategy, known in starts:
            # each start's clock starts when its judging does
            out += judge_start(data, rule, lost, each.start(), strategy, known, cache)
    return out


def _unjudged(task: tuple, r: dict, why: str) -> dict:
    (m, start), rule = task[0], task[1]  # one start's task: (data, rule, lost games, ...)
    return {"type": "lost-game", "game": r["instance"], "method": r["method"], "map": m.name,
            "start": start, "rule": rule, "verdict": "lost-unproved", "note": why}


def judge_start(data: tuple[SkynetMap, int], rule: str, lost: list[dict],
                deadline: Deadline, strategy: bool = False,
                known: Result | None = None, cache: Any = None) -> list[dict]:
    """The lost games of one start and rule, judged (see :func:`judge_lost_games`) within
    ``deadline``: the start's verdict solved once (or ``known``), then each game's item."""
    from puzzleproof.encoders.skynet_sat import solve

    m, start = data
    res = known if known is not None else solve(m, rule, start, deadline=deadline,
                                                 cache=cache)
    status = res.status.value if res.check_ok else "UNKNOWN"
    verdict = {"WIN": "lost-proved-winnable", "LOSS": "lost-proved-lost"}.get(
        status, "lost-unproved")
    out = []
    for r in lost:
        answer = r.get("answer") or {}
        reason = answer.get("reason") or (r.get("stats") or {}).get("reason")
        item: dict[str, Any] = {
            "type": "lost-game", "game": r["instance"], "method": r["method"],
            "map": m.name, "start": start, "rule": rule, "verdict": verdict,
            "reason": reason, "defect": reason not in BY_PLAY,  # whatever the start
            "detail": answer.get("detail") or r.get("error"),
            "stderr": answer.get("stderr"), "losing_line": lost_game_lines(answer),
            "record": answer or None,
            "solver": f"{res.solver} {res.solver_version}".strip(),
            "solver_seconds": round(res.wall_time, 3)}
        if verdict == "lost-proved-winnable":
            item.update(_winning_game(m, start, rule, r, deadline, res.certificate))
            if strategy:
                item["strategy"] = res.certificate
        elif verdict == "lost-unproved":
            item["note"] = f"the exact solver's limit ran out ({deadline.limit} s)"
        out.append(item)
    return out


def _winning_game(m: SkynetMap, start: int, rule: str, r: dict, deadline: Deadline,
                  strategy: Any = None) -> dict:
    """The proved strategy against the lost game's agent model from the same start: the
    replayable record of a game that is won. The checked player strategy ``strategy`` is
    played as it stands (a lookup a turn); without one our exact bot decides again, within
    what is left of ``deadline``."""
    from puzzleproof.players.skynet_bots import ExactBot
    from puzzleproof.players.skynet_certified import CertificateBot

    agent = r["method"].rsplit("/", 1)[-1]
    st = r.get("stats") or {}
    try:
        agent_model = make_agent(agent, st.get("tiebreak") or "low", st.get("seed", 0))
    except ValueError:  # an agent model this process does not know
        return {}
    if certificate_kind(strategy).startswith("position-table"):
        bot: Any = CertificateBot(strategy, rule)
    else:
        bot = ExactBot(rule)
        bot.deadline = deadline
    win = play(m, rule, bot, agent_model, start)
    if win.result != "WIN":
        return {}
    game = record_to_json(win)
    return {"winning_game": game, "winning_line": lost_game_lines(game)}


# -- Skynet's methods, as the plugin lists them and the verbs run them -----------------------

def solve_sat(data: tuple[SkynetMap, int], *, deadline: Deadline, rule: str = "ep2",
              min_cuts: bool = False, horizon: int | None = None, conflicts: int | None = None,
              cache: Any = None) -> Result:
    """The SAT CEGAR: the verdict from ``data``'s start (with the value under ``min_cuts``,
    or the bounded question ``horizon``), its certificate replayed."""
    from puzzleproof.encoders.skynet_sat import solve

    m, start = data
    return solve(m, rule, start, value=min_cuts, horizon=horizon, deadline=deadline,
                 conflicts=conflicts, cache=cache)


def solve_explicit(data: tuple[SkynetMap, int], *, deadline: Deadline, rule: str = "ep2",
                   min_cuts: bool = False, horizon: int | None = None,
                   conflicts: int | None = None) -> Result:
    """Memoised minimax over (agent node, links left): exponential in the links, an
    independent check of the SAT solver on small maps."""
    from puzzleproof.errors import UsageError
    from puzzleproof.encoders.skynet_explicit import solve

    if horizon is not None:
        raise UsageError("--horizon is a question for the sat solver")
    if conflicts is not None:
        raise UsageError("--conflicts is a budget for the sat solver")
    m, start = data
    return solve(m, rule, start, value=min_cuts, max_nodes=None, deadline=deadline)


def play_worst(bot: str, data: tuple[SkynetMap, int], *, deadline: Deadline,
               rule: str | None = None, per_line: bool = False,
               max_lines: int | None = None) -> Result:
    """One of our bots against the worst-case agent (a method once the bot is bound)."""
    return run_worst_case(bot, rule, data, deadline=deadline, per_line=per_line,
                          max_lines=max_lines)


def _methods() -> tuple[Method, ...]:
    from functools import partial

    from puzzleproof.players.skynet_bots import BOTS, SUMMARIES

    exact = (Method("sat", "exact", "CEGAR over two incremental SAT solvers",
                    run="puzzleproof.verify.skynet_methods:solve_sat",
                    options=("rule", "min_cuts", "horizon", "conflicts", "cache")),
             Method("explicit", "exact", "memoised minimax over (agent node, links left)",
                    run="puzzleproof.verify.skynet_methods:solve_explicit",
                    options=("rule", "min_cuts", "horizon", "conflicts")))
    bots = tuple(Method(b, "heuristic", SUMMARIES.get(b, ""), run=partial(play_worst, b),
                        options=("rule", "per_line", "max_lines"), effort="positions")
                 for b in BOTS)
    return exact + bots


#: Skynet's methods: the exact verdicts and every one of our bots (played against the
#: worst-case agent); the bots' list and summaries come from :mod:`.skynet_bots`
METHODS = _methods()
