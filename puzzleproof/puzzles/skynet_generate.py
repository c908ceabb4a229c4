"""``generate skynet``: breakers (winnable maps that bots lose by play, shrunk), Episode 1
maps where bots spend the most cuts beyond the fewest, the Episode 1 map set, and maps at
CodinGame's limits. Each map is written with its evidence into the -o folder."""

from __future__ import annotations

import json
from typing import Any, Iterator

from puzzleproof.clock import PerTask
from puzzleproof.errors import UsageError
from puzzleproof.puzzles.base import GenerateSpec, Generated, Params
from puzzleproof.puzzles.options import COUNT, SEED, TIME_LIMIT, WHERE, Opt
from puzzleproof.puzzles.skynet_options import RULE, stamp_certificate

__all__ = ["GENERATE", "EP1_SET_COMMAND"]

EP1_SET_COMMAND = "puzzleproof generate skynet --ep1-set --seed 1 -o instances/skynet/ep1"
#: the agent models a hunt for a program's breakers plays
HUNT_AGENTS = ("article", "nearest", "worst")

EP1_SET_SECONDS = 60.0  # each search of --ep1-set without --time-limit

HELP = """Make maps that break bots or your program.

\b
With --bot-cmd NAME=CMD (a program speaking CodinGame's protocol): hunt for the
smallest maps and starts it loses though the player could win them (or on which
it cuts illegally, crashes or times out), against one --agent (article, nearest,
or worst: every agent reply searched), maps of 4 nodes up to --nodes, each failure
re-run and shrunk; each kept with its evidence: the program's game, its stderr's
last lines and the proved winning strategy. Exit 1 when one is found.

Without it: maps that break our bots: winnable (proved, the player's strategy replayed and
written) but lost by at least --min-beaten bots by play against the agent model, then
shrunk to a locally minimal map (no node or link can be removed while the same bots
still lose). A crash or illegal cut of a bot is a defect report, never a breaker.

\b
Episode 1 (--rule ep1): every node links to at most one gateway, so any bot that
cuts the agent's gateway link wins; the maps kept are those where the bots' worst
case uses the most cuts beyond the proved fewest.

\b
Example:
  puzzleproof generate skynet --nodes 12 --agent article,worst -n 3 -o breakers/
  puzzleproof crosscheck skynet breakers/
  puzzleproof generate skynet --bot-cmd 'mine=python3 bot.py' --agent article -o found/
"""


def _map_text(m: Any) -> str:
    from puzzleproof.formats import skynet as sfmt

    return sfmt.write_map(m, "codingame")


def _hunter(p: Params) -> Any:
    """With --bot-cmd: the hunt for the maps the program loses (one agent model)."""
    if p.program is None:
        return None
    from puzzleproof.generate.hunt_skynet import SkynetHunter

    agents = [a.strip() for a in (p.agents or "worst").split(",") if a.strip()]
    if len(agents) != 1 or agents[0] not in HUNT_AGENTS:
        raise UsageError(f"--agent: a hunt plays one agent model, one of "
                         f"{', '.join(HUNT_AGENTS)}")
    return SkynetHunter(p.program, rule=p.rule or "ep2", agent=agents[0],
                        sizes=tuple(range(4, max(4, p.nodes) + 1)),
                        max_attempts=p.max_attempts)


def _prepare(p: Params) -> None:
    from puzzleproof.players.skynet_bots import BOTS

    if not p.ep1_set and p.time_limit is not None:
        raise UsageError("--time-limit applies to --ep1-set only (per map); bound a breaker "
                         "search with --max-attempts")
    if not (p.ep1_set or p.codingame_limits) and p.gateways >= p.nodes:
        raise UsageError(f"--gateways {p.gateways} needs more --nodes than {p.nodes}: the "
                         "start is a node that is not a gateway")
    if p.bots:
        bad = [b.strip() for b in p.bots.split(",") if b.strip() not in BOTS]
        if bad:
            raise UsageError(f"unknown bot(s) {', '.join(bad)}; expected {', '.join(BOTS)}")
    from puzzleproof.generate.skynet import AGENT_MODELS

    models = [a.strip() for a in (p.agents or "").split(",") if a.strip()]
    if not models or any(a not in AGENT_MODELS for a in models):
        raise UsageError(f"--agent: expected some of {', '.join(AGENT_MODELS)}")
    p["models"] = models


def _chosen(p: Params) -> tuple[str, ...]:
    if p.bots:
        return tuple(b.strip() for b in p.bots.split(","))
    if p.rule == "ep1":
        from puzzleproof.verify.skynet_ep1_cuts import EP1_BOTS

        return EP1_BOTS
    from puzzleproof.generate.skynet import DEFAULT_EP2_BOTS

    return DEFAULT_EP2_BOTS


def _breakers(p: Params, executor: Any, on_attempt: Any) -> Iterator[Any]:
    from puzzleproof.generate.skynet import Defect, SkyParams, generate as gen

    kept: set[int] = set()  # a map kept under one agent model is not kept again
    for agent in p.models:
        params = SkyParams(nodes=p.nodes, extra=p.extra, gateways=p.gateways, style="ep2",
                           bots=_chosen(p), all_bots=p.all_bots, count=p.count, seed=p.seed,
                           max_attempts=p.max_attempts or 20_000, shrink=not p.no_shrink,
                           agent=agent, min_beaten=p.min_beaten, skip=frozenset(kept))
        for b in gen(params, executor, on_attempt):
            if isinstance(b, Defect):
                yield (f"defect report (not a breaker): {b.bot} against agent {b.agent} on "
                       f"attempt {b.attempt} ended by '{b.reason}': "
                       f"{json.dumps(b.record)[:300]}")
                continue
            kept.add(b.attempt)
            yield _breaker(b, agent, p)


def _breaker(b: Any, agent: str, p: Params) -> Generated:
    name = b.map.name or f"breaker-{b.attempt}"
    rule = b.record.get("rule", "ep2")
    strategy = stamp_certificate(b.strategy or {}, b.map, rule, b.start)
    evidence = {
        "type": "skynet-breaker", "schema_version": 2, "map": b.map.name, "rule": rule,
        "start": b.start, "agent": agent, "lost_by": b.bots,
        "beaten": [{"bot": bot, "agent": agent, "by": "play", "reason": rec.get("reason"),
                    "turns": len(rec.get("turns", []))} for bot, rec in b.games.items()],
        "tried": list(_chosen(p)),
        "proved": "WIN (explicit-state search, the player's strategy replayed against every "
                  "agent move)",
        "strategy": f"{name}.strategy.json", "locally_minimal": not p.no_shrink,
        "attempt": b.attempt, "seed": p.seed,
        "drawn": {"nodes": b.original_nodes, "links": b.original_links},
        "game": b.record, "games": b.games}
    return Generated(name, evidence, files={
        f"{name}.txt": _map_text(b.map),
        f"{name}.strategy.json": json.dumps(strategy) + "\n",
        f"{name}.evidence.json": json.dumps(evidence, indent=1) + "\n"},
        note=f"{{path}}: {b.map.n} nodes, {len(b.map.links)} links (drawn {b.original_nodes}/"
             f"{b.original_links}), start {b.start}, lost by {', '.join(b.bots)} against "
             f"agent {agent}")


def _cuts_record(m: Any, report: dict, extra: dict) -> dict:
    fewest = {k: v for k, v in report["fewest"].items() if k not in ("strategy", "escape")}
    return {"type": "skynet-ep1-cuts", "schema_version": 1, "map": m.name, "rule": "ep1",
            "start": m.start, "nodes": m.n, "links": len(m.links),
            "gateways": len(m.gateways), "fewest": fewest, "bots": report["bots"],
            **extra}


#: an escape larger than this is not shipped with the Episode 1 set (the record says why)
SHIPPED_ESCAPE_BYTES = 1 << 20


def ep1_proof_files(m: Any, fewest: dict) -> tuple[dict[str, str], dict[str, str]]:
    """The certificates behind an Episode 1 map's fewest cuts, as files ``check skynet``
    replays: ``NAME.upper.strategy.json`` (the player's strategy reaching the upper bound)
    and ``NAME.lower.strategy.json`` (the agent's escape from one cut fewer than the lower
    bound); and, for an escape above SHIPPED_ESCAPE_BYTES, what the record says instead of
    the file (its size and how it is written). The cuts record names both
    (``fewest["certificates"]``, ``fewest["certificates_not_shipped"]``)."""
    name = m.name or "map"
    files, not_shipped = {}, {}
    for key, suffix in (("strategy", "upper"), ("escape", "lower")):
        if fewest.get(key) is None:
            continue
        cert = stamp_certificate(fewest[key], m, "ep1", m.start)
        text = json.dumps(cert, separators=(",", ":")) + "\n"
        if suffix == "lower" and len(text) > SHIPPED_ESCAPE_BYTES:
            how = ("the test suite writes and replays it" if fewest.get("value") is not None
                   else f"`puzzleproof solve skynet {name}.txt --rule ep1 --min-cuts --json` "
                        "returns it as answer.lower_bound.escape")
            not_shipped[suffix] = (f"the agent's escape from {cert['horizon']} cuts: "
                                   f"{len(cert['nodes']):,} nodes, "
                                   f"{round(len(text) / 1e6)} MB; {how}")
            continue
        files[f"{name}.{suffix}.strategy.json"] = text
    return files, not_shipped


def _gap_maps(p: Params, executor: Any, on_attempt: Any) -> Iterator[Generated]:
    from puzzleproof.generate.skynet_ep1 import GapParams, search_gap

    for g in search_gap(GapParams(nodes=p.nodes, extra=p.extra, gateways=p.gateways,
                                  bots=_chosen(p), count=p.count, seed=p.seed,
                                  attempts=p.max_attempts or 200), on_attempt):
        name = g.map.name or f"ep1-gap-{g.attempt}"
        rec = _cuts_record(g.map, g.report, {"seed": p.seed, "attempt": g.attempt,
                                             "excess": g.excess, "most_excess": g.worst_bots})
        yield Generated(name, rec, files={f"{name}.txt": _map_text(g.map),
                                          f"{name}.cuts.json": json.dumps(rec, indent=1) + "\n"},
                        note=f"{{path}}: fewest cuts {g.report['fewest']['value']}; "
                             f"{', '.join(g.worst_bots)} "
                             f"{'uses' if len(g.worst_bots) == 1 else 'use'} {g.excess} more "
                             "in the worst case")


def _large(p: Params, executor: Any, on_attempt: Any) -> Iterator[Generated]:
    """Maps at CodinGame's limits (:mod:`puzzleproof.generate.skynet_large`)."""
    from puzzleproof.generate.skynet_large import codingame_limits_map

    for k in range(p.count):
        m = codingame_limits_map(p.seed + k)
        yield Generated(m.name, {"map": m.name}, files={f"{m.name}.txt": _map_text(m)},
                        note=f"{{path}}: {m.n} nodes, {len(m.links)} links, "
                             f"{len(m.gateways)} gateways, start {m.start}")


def _ep1_set(p: Params, executor: Any, on_attempt: Any) -> Iterator[Generated]:
    from puzzleproof.generate.skynet_ep1 import ep1_set
    from puzzleproof.verify.skynet_ep1_cuts import EP1_BOTS, cut_report, fewest_text

    limit = p.time_limit if p.time_limit is not None else EP1_SET_SECONDS
    for m in ep1_set(p.seed):
        # each search (the fewest cuts, each bot's worst case) gets the limit afresh
        rep = cut_report(m, m.start, list(EP1_BOTS), each=PerTask(limit))
        proofs, not_shipped = ep1_proof_files(m, rep["fewest"])
        rec = _cuts_record(m, rep, {"seed": p.seed, "command": EP1_SET_COMMAND,
                                    "time_limit": limit})
        rec["fewest"]["certificates"] = sorted(proofs)
        if not_shipped:
            rec["fewest"]["certificates_not_shipped"] = not_shipped
        name = m.name or "map"
        yield Generated(name, rec, files={f"{name}.txt": _map_text(m),
                                          f"{name}.cuts.json": json.dumps(rec, indent=1) + "\n",
                                          **proofs},
                        note=f"{{path}}: {m.n} nodes, {len(m.links)} links, "
                             f"{len(m.gateways)} gateways; fewest cuts "
                             f"{fewest_text(rep['fewest'])}")


def _generate(p: Params, executor: Any, on_attempt: Any) -> Iterator[Any]:
    if p.codingame_limits:
        return _large(p, executor, on_attempt)
    if p.ep1_set:
        return _ep1_set(p, executor, on_attempt)
    if p.rule == "ep1":
        return _gap_maps(p, executor, on_attempt)
    return _breakers(p, executor, on_attempt)


def _expected(p: Params) -> int | None:
    if p.ep1_set:
        return None
    if p.codingame_limits or p.rule == "ep1":
        return p.count
    return p.count * len(p.models or [1])


GENERATE = GenerateSpec(
    help=HELP,
    options=(Opt("nodes", ("--nodes",), "Nodes of each random map before shrinking.",
                 kind="int", default=12, range=(3, 500), show_default=True),
             Opt("extra", ("--extra",), "Extra links per node beyond a spanning tree.",
                 kind="float", default=0.6, range=(0, 100), show_default=True),
             Opt("gateways", ("--gateways",), "Gateways of each random map.", kind="int",
                 default=3, range=(1, 20), show_default=True),
             RULE.but(help="ep2: breakers (maps with "
                      "double-gateway nodes that bots lose). ep1: at most one gateway link per "
                      "node, where no correct bot can lose: maps where the bots use the most "
                      "cuts beyond the proved fewest."),
             Opt("bots", ("--bots",), "Comma-separated bots to break (see 'skynet play "
                 "--help'; default: every Episode 2 bot but the exact one; with --rule ep1 "
                 "every bot but the exact ones)."),
             Opt("agents", ("--agent",), "Agent model(s) the bots must lose to, "
                 "comma-separated, each searched on its own: article (the Episode 2 "
                 "article's agent, one game), worst (the worst-case adversary: every agent "
                 "line searched).", default="worst", show_default=True),
             Opt("min_beaten", ("--min-beaten",), "A breaker beats at least this many of the "
                 "bots (capped at their number).", kind="int", default=2, range=(1, 100),
                 show_default=True),
             Opt("all_bots", ("--all-bots",), "Keep only maps that every chosen bot loses.",
                 kind="flag", default=False),
             COUNT.but(help="How many maps to keep (per agent model)."), SEED,
             Opt("max_attempts", ("--max-attempts",), "Random maps to try at most (default "
                 "20000; 200 with --rule ep1).", kind="int", range=(1, None)),
             Opt("no_shrink", ("--no-shrink",), "Keep the maps as drawn.", kind="flag",
                 default=False),
             Opt("ep1_set", ("--ep1-set",), "Write the Episode 1 set in the shape of "
                 "CodinGame's tests (line, star, triple star, double star with a ring, meshes "
                 "of 100, 250 and 500 nodes) from --seed, each with its fewest cuts (proved, or "
                 "bounds) and the bots' cuts. The shipped set: " + EP1_SET_COMMAND,
                 kind="flag", default=False),
             Opt("codingame_limits", ("--codingame-limits",), "Write -n seeded maps at "
                 "CodinGame's limits (500 nodes, 1000 links, 20 gateways each linked to 3-10 "
                 "nodes, 100-140 gateway links), seeds --seed and up; no search.", kind="flag",
                 default=False),
             TIME_LIMIT.but(help="With --bot-cmd: seconds the hunt may take (default 60). "
                                 "With --ep1-set: seconds per map for the fewest cuts and "
                                 "per bot for its worst case (default 60)."),
             *WHERE),
    generate=_generate, prepare=_prepare, layout=lambda p: "folder", expected=_expected,
    hunter=_hunter, rebuild="puzzleproof.generate.hunt_skynet:from_evidence",
    what="maps kept", shortfall="raise --max-attempts or --nodes, or lower --min-beaten",
    output_help="Folder for NAME.txt (CodinGame map with the start) and its evidence "
                "(NAME.evidence.json and NAME.strategy.json for a breaker, NAME.cuts.json for "
                "an Episode 1 map).")
