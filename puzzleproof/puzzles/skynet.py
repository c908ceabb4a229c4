"""Skynet Revolution Episodes 1 and 2 (CodinGame "Death First Search") as a plugin: its
reader, its methods (the exact verdicts and our bots), and its part of every shared verb.
The cross-check and the generator are in :mod:`.skynet_crosscheck` and
:mod:`.skynet_generate`; what a person sees in :mod:`.skynet_views`; the game's own verbs
(``skynet play``, ``skynet referee``) in :mod:`puzzleproof.puzzles.skynet_commands`."""

from __future__ import annotations

import itertools
import json
from contextlib import nullcontext
from typing import Any, Iterator, Sequence

from puzzleproof.errors import InputError, UsageError
from puzzleproof.instance import Loaded
from puzzleproof.puzzles import skynet_views as views
from puzzleproof.puzzles.skynet_commands import COMMANDS
from puzzleproof.puzzles.base import (CheckSpec, Outcome, Params, Picture, Plugin, Reader, RenderSpec,
                                      ReportSpec, SolveSpec, Task)
from puzzleproof.puzzles.options import CONFLICTS, TIME_LIMIT, Opt
from puzzleproof.puzzles.skynet_crosscheck import CROSSCHECK
from puzzleproof.puzzles.skynet_generate import GENERATE
from puzzleproof.puzzles.skynet_options import (ALL_STARTS, HORIZON, MIN_CUTS, RULE, SOLVER,
                                                START, stamp_certificate, starts_of)
from puzzleproof.result import Result
from puzzleproof.verify.skynet_methods import METHODS

__all__ = ["PLUGIN"]

# -- solve -----------------------------------------------------------------------------------

def _solve_prepare(p: Params) -> None:
    if p.horizon is not None and p.min_cuts:
        raise UsageError("--horizon and --min-cuts ask different questions; give one")
    if p.all_starts and p.start is not None:
        raise UsageError("--start and --all-starts do not go together")


def _tasks(loaded: Sequence[Loaded], p: Params) -> list[Task]:
    """Every map and start asked for, each with its rule: ``--rule``, else the one its set
    says (an Episode 1 set), else ep2."""
    return [Task(f"{ld.instance.name}@{s}", (ld.instance, s), ld,
                 {"start": s, "rule": p.rule or ld.instance.rule or "ep2"})
            for ld in loaded for s in starts_of(ld.instance, p.start, p.all_starts)]


def _notes(tasks: list[Task], p: Params) -> list[str]:
    maps = {id(t.instance[0]): t.instance[0] for t in tasks
            if t.extra["rule"] == "ep1"}.values()
    return [f"note: {m.name}: {prob}; an Episode 1 map has none (solving anyway)"
            for m in maps for prob in m.ep1_problems()[:1]]


def _session(p: Params) -> Any:
    if p.method != "sat":
        return nullcontext()
    from puzzleproof.encoders.skynet_sat import SolverCache

    return SolverCache()


def _run(task: Task, p: Params, session: Any) -> Result:
    values = Params(p, cache=session, rule=task.extra["rule"])
    return PLUGIN.method(p.method).bind(values)(task.instance, deadline=p.deadline())


def _record(task: Task, res: Result, p: Params, full: bool) -> dict:
    d = res.to_dict()
    if not full:
        d.pop("certificate", None)
    d["map"] = task.instance[0].name
    d["start"] = task.extra["start"]
    d["rule"] = task.extra["rule"]
    return {"type": "result", **d}


def _write(task: Task, res: Result, p: Params) -> tuple[Iterator[str], str] | None:
    """The winner's strategy for -o, in chunks as the encoder makes them (a table of a
    large map is never held whole as one string)."""
    if res.certificate is None:
        return None
    m, s = task.instance
    cert = stamp_certificate(res.certificate, m, task.extra["rule"], s)
    return itertools.chain(json.JSONEncoder().iterencode(cert), ("\n",)), ""


SOLVE = SolveSpec(
    help=views.SOLVE_HELP,
    options=(RULE.but(default=None, show_default=False, help="ep2: only links that touch a "
                      "gateway may be cut; ep1: any link (default: the rule of the map's set, "
                      "as an Episode 1 set's SET.json says, else ep2)."),
             START, ALL_STARTS, MIN_CUTS, HORIZON, SOLVER,
             TIME_LIMIT.but(help="Seconds per map and start (the bounds proved so far are "
                                 "kept); when they run out the answer is UNKNOWN, naming the "
                                 "limit."),
             CONFLICTS.but(help="SAT conflict budget per map and start (sat solver); UNKNOWN "
                                "when spent. It counts the SAT calls only: the exact search "
                                "of --min-cuts under ep1, the fence search and writing "
                                "certificates are bounded by --time-limit."),
             Opt("output", ("-o", "--output"), "Write the winner's strategy (JSON certificate "
                 "with its map, rule and start, replayable with 'check skynet MAP FILE') for "
                 "one map and start; a batch writes one JSON record a line. Never overwrites "
                 "an existing file unless --force.", kind="path")),
    run=_run, table=views.solve_table, record=_record, tasks=_tasks, prepare=_solve_prepare,
    notes=_notes, session=_session, write=_write,
    describe=lambda t, p: f"{_short(t.instance[0].name or '', 30)} start {t.extra['start']}",
    inputs_name="MAPS...", task_noun="start")


def _short(name: str, width: int) -> str:
    return name if len(name) <= width else "…" + name[-(width - 1):]


# -- check -----------------------------------------------------------------------------------

def _strategy_of(m: Any, text: str, source: str) -> dict:
    from puzzleproof.formats import skynet as sfmt

    data = sfmt.read_strategy(text, source, m)  # its shape and types; the replay judges it
    if isinstance(data, dict) and isinstance(data.get("map"), dict):
        recorded = sfmt.read_map(json.dumps(data["map"]), source)
        if recorded.links != m.links or recorded.gateways != m.gateways:
            raise InputError(f"the strategy was written for another map ({recorded.name})",
                             source)
    return data


def _check_start(m: Any, data: Any, p: Params, source: str) -> int:
    s = p.start
    if s is None and isinstance(data, dict) and type(data.get("start")) is int:
        s = data["start"]
    if s is None:
        s = m.start
    if s is None:
        raise InputError("neither the map nor the strategy gives a start; pass --start", source)
    if not 0 <= s < m.n or s in m.gateways:
        raise InputError(f"start {s} must be a node 0..{m.n - 1} that is not a gateway", source)
    return s


def _check(args: Sequence[str], p: Params, inputs: Any) -> Outcome:
    from puzzleproof.models.skynet_strategy import (certificate_kind, check_agent_escape,
                                                    check_agent_strategy,
                                                    check_player_strategy)

    m = inputs.one(args[0], PLUGIN, {}, "check").instance
    text, source = inputs.text(args[1])
    data = _strategy_of(m, text, source)
    kind = data.get("type") if isinstance(data, dict) else None
    rule = p.rule or (data.get("rule") if isinstance(data, dict) else None)
    rule = rule if rule in ("ep1", "ep2") else "ep2"
    s = _check_start(m, data, p, source)
    checks = {"skynet-player-strategy": ("player", check_player_strategy),
              "skynet-agent-strategy": ("agent", check_agent_strategy),
              "skynet-agent-escape": ("agent escape", check_agent_escape)}
    if kind not in checks:
        raise InputError("expected a strategy object with \"type\": \"skynet-player-strategy\", "
                         "\"skynet-agent-strategy\" or \"skynet-agent-escape\"", source)
    who, judge = checks[kind]
    problems = judge(m, rule, s, data)
    backed = certificate_kind(data)  # which kind of certificate backs the verdict
    record = {"strategy": who, "ok": not problems, "certificate": backed, "rule": rule,
              "start": s, "problems": problems}
    return Outcome(not problems, record,
                   views.check_page(source, who, m.name, rule, s, problems, backed))


CHECK = CheckSpec(
    help=views.CHECK_HELP,
    options=(RULE.but(default=None, show_default=False, help="The rule (default: the one the "
                      "strategy file records, else ep2)."),
             START.but(help="Agent start (default: the strategy file's, else the map's).")),
    check=_check, arguments="MAP STRATEGY")


# -- render ----------------------------------------------------------------------------------

def _fence(m: Any, text: str) -> frozenset[int]:
    fence = set()
    for item in text.replace(" ", "").split(","):
        if not item.lstrip("-").isdigit() or len(item) > 12:
            raise InputError(f"--fence: expected node numbers separated by commas, found "
                             f"{item!r}")
        v = int(item)
        if not 0 <= v < m.n:
            raise InputError(f"--fence: node {v} is not on the map (0..{m.n - 1})")
        if v in m.gateways:
            raise InputError(f"--fence: node {v} is a gateway; a fence holds only non-gateway "
                             "nodes")
        fence.add(v)
    return frozenset(fence)


def _render(arg: str, kind: str, p: Params, inputs: Any) -> Picture:
    from puzzleproof.formats import skynet as sfmt
    from puzzleproof.models.skynet import replay

    m = inputs.one(arg, PLUGIN, {}, "render").instance
    record, notes = None, []
    if p.game:
        record = views.game_record_of(p.game, m)
        if record.map.links != m.links or record.map.gateways != m.gateways:
            raise InputError("the game record was played on another map", p.game)
        problems = replay(record)
        if problems:
            notes.append(f"note: the game record breaks the rules: {problems[0]}")
    fence = _fence(m, p.fence_arg) if p.fence_arg is not None else None
    draw = sfmt.render_png if kind == "png" else sfmt.render_svg
    return Picture(draw(m, record, fence=fence or None), kind, ok=True, notes=notes)


RENDER = RenderSpec(
    help=views.RENDER_HELP,
    options=(Opt("game", ("--game",), "A game record (JSON from 'skynet referee -o'), or a "
                 "file holding games (a breaker's evidence, referee or crosscheck records): its "
                 "first lost game on this map, or with #K the file's K-th game. Cuts "
                 "numbered by turn, the agent's path.", metavar="FILE[#K]"),
             Opt("fence_arg", ("--fence",), "Comma-separated nodes to shade, their boundary "
                 "links drawn thick: the fence of an ep1 value's upper bound "
                 "('upper_bound.fence' in 'solve skynet --json').", metavar="NODES")),
    render=_render, kinds=("svg", "png"), default_kind="svg", argument="MAP")


def _map_text(m: Any) -> str:
    from puzzleproof.formats import skynet as sfmt

    return sfmt.write_map(m, "json")


READER = Reader(
    read="puzzleproof.formats.skynet:read_instances", suffixes=(".txt", ".json"),
    limits=views.LIMITS,
    written={"skynet-breaker": "skynet breaker evidence", "skynet-game": "a skynet game record",
             "skynet-player-strategy": "a skynet strategy certificate",
             "skynet-agent-strategy": "a skynet strategy certificate",
             "skynet-agent-escape": "a skynet strategy certificate",
             "skynet-batch": "a skynet referee summary",
             "skynet-ep1-cuts": "a skynet Episode 1 cuts record",
             "skynet-set": "a skynet set's description"},
    instance_type="puzzleproof.models.skynet:SkynetMap", write=_map_text,
    samples={"instances": ["shared/skynet/ep2/01-robust-double-gateways.txt",
                           "shared/skynet/custom/forum-12-nodes.txt",
                           "instances/skynet/breakers/breaker-ep2-n12-s1-864.txt"],
             "check": [["shared/skynet/ep2/01-robust-double-gateways.txt",
                        "tests/fuzz_seeds/skynet-01.strategy.json"],
                       ["instances/skynet/breakers/breaker-ep2-n12-s1-864.txt",
                        "instances/skynet/breakers/breaker-ep2-n12-s1-864.strategy.json"]],
             "written": ["instances/skynet/breakers/breaker-ep2-n12-s1-864.evidence.json",
                         "instances/skynet/ep1/03-triple-star.cuts.json"],
             "hardest": {"path": "instances/skynet/ep1/07-mesh-500.txt",
                         "options": {"rule": "ep1", "min_cuts": True}}})

def _prepare() -> dict:
    """``puzzleproof prepare``: compile the exact fewest-cuts search's kernels (maximum
    flows, components, the memory of refutations) into numba's cache."""
    from puzzleproof.encoders import skynet_recent, unitflow

    unitflow.warm()
    skynet_recent.warm()
    return {"done": "the exact fewest-cuts search's flows and scans compiled into numba's "
                    "cache"}


PLUGIN = Plugin(
    name="skynet", title="Skynet Revolution", noun="map", aliases=("dfs", "death-first-search"),
    rank=20,
    summary="Skynet Revolution Episodes 1 and 2 (CodinGame 'Death First Search'): proved "
            "verdicts and fewest cuts, bots judged against the worst-case agent",
    reader=READER, methods=METHODS, default_methods=("sat", "ep2-article", "ep2-slack"),
    solve=SOLVE, check=CHECK, render=RENDER, crosscheck=CROSSCHECK, generate=GENERATE,
    report=ReportSpec(draw=views.draw_disagreement, sections=views.lost_games,
                      size=lambda inst, rec: getattr(inst, "n", None), size_name="nodes",
                      instance_key=lambda name: name.rsplit("@", 1)[0],
                      count_words={"lost_winnable": "lost on winnable starts"}),
    prepare=_prepare, commands=COMMANDS)
