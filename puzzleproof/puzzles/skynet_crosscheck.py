"""Skynet's cross-check: each start's verdict proved exactly, our bots judged against the
worst-case agent, the breakers' evidence confirmed as known findings, external programs
refereed against agent models, and the Episode 1 table of cuts.

Maps are grouped by rule (a map's evidence says its rule; ``--rule`` overrides), and maps
shipped with evidence run apart from the others (each with the bots its evidence names).
"""

from __future__ import annotations

from typing import Any, Sequence

from puzzleproof.clock import PerTask
from puzzleproof.errors import InputError, UsageError
from puzzleproof.instance import Loaded
from puzzleproof.puzzles.base import CrosscheckEnv, CrosscheckSpec, Outcome, Page, Params
from puzzleproof.puzzles.options import (BOT_CMD, INIT_TIMEOUT, MEMORY_LIMIT, METHODS,
                                         MOVE_TIMEOUT, TIME_LIMIT)
from puzzleproof.puzzles.skynet_options import (AGENTS, ALL_STARTS, MAX_REPLAYS, NO_FORK,
                                                PER_LINE, RULE, split_names)

__all__ = ["CROSSCHECK"]

HELP = """Prove each start's verdict exactly and judge bots against the worst-case agent.

\b
Exact methods (sat, explicit) prove WIN or LOSS with a replayed certificate; each of
our bots plays the worst-case agent, which searches every agent line for one that
beats it: a bot that loses a start an exact method proved winnable is a
'loses-winnable-game' disagreement, with the agent's winning line as a game record
('puzzleproof render skynet MAP --game RECORDS.jsonl' draws it). External programs
(--bot-cmd) sit in the same table and meet the same agents as our bots (--agent,
worst by default: the program rerun from the start for each line, or forked where
lines branch for a Python script; --no-fork), judged by the same rule: a lost game
on a proved-winnable start is a disagreement, with the program's stderr.

\b
A map shipped with NAME.evidence.json (the breakers 'generate skynet' writes) is a
known finding: it is confirmed when its bots still lose it, and a finding that no
longer holds is a failure.

\b
--json prints one object: a run with several parts (the exact methods and our
bots, the external programs, the Episode 1 cuts table, each rule apart) has them
in order under "parts".

\b
Examples:
  puzzleproof crosscheck skynet instances/skynet/breakers/
  puzzleproof crosscheck skynet maps/ --all-starts --bot-cmd 'mine=python3 bot.py' -j 2
"""

EXACT = ("sat", "explicit")


def _known() -> list[str]:
    from puzzleproof.players.skynet_bots import BOTS

    return list(BOTS) + list(EXACT)


def _runs(maps: list, evidence: dict, p: Params) -> list[tuple[str, list]]:
    """``(rule, maps)`` runs: by rule, and without -o the maps with evidence apart."""
    from puzzleproof.formats.skynet_evidence import evidence_rule

    groups: dict[str, list] = {}
    for m in maps:
        ev = evidence[m.name]
        rule = p.rule or (ev or {}).get("rule") or m.rule or evidence_rule(ev)
        groups.setdefault(rule, []).append(m)
    if len(groups) > 1 and p.output:
        raise UsageError("these maps need two rules (their evidence says so): cross-check "
                         "them in two runs, or give --rule")
    runs = []
    for rule, group in sorted(groups.items()):
        with_ev = [m for m in group if evidence[m.name]]
        if p.output or p.method or not with_ev or len(with_ev) == len(group):
            runs.append((rule, group))
        else:
            runs += [(rule, [m for m in group if not evidence[m.name]]), (rule, with_ev)]
    return runs


def _chosen(rule: str, group: list, evidence: dict, p: Params) -> tuple[list[str], list[str]]:
    """The exact methods and bots of one run (the evidence's bots join the defaults)."""
    from puzzleproof.players.skynet_bots import BOTS

    default = (["sat", "ep2-article", "ep2-slack"] if rule == "ep2"
               else ["sat", "ep1-article", "ep1-path"])
    for m in group:
        for b in (evidence[m.name] or {}).get("lost_by", []):
            if b in BOTS and b not in default and not p.method:
                default.append(b)
    chosen = split_names(p.method, _known(), "method") if p.method else default
    exact = [c for c in chosen if c in EXACT] or (["sat"] if p.externals else [])
    return exact, [c for c in chosen if c in BOTS]


def _starts(group: list, evidence: dict, all_starts: bool) -> dict[str, list[int]]:
    starts = {}
    for m in group:
        ev = evidence[m.name]
        if all_starts:
            starts[m.name or ""] = [v for v in range(m.n) if v not in m.gateways]
        elif m.start is not None:
            starts[m.name or ""] = [m.start]
        elif ev and isinstance(ev.get("start"), int):
            starts[m.name or ""] = [ev["start"]]
        else:
            raise InputError("the map gives no start; pass --all-starts", m.name)
    return starts


def _exact_part(rule: str, group: list, evidence: dict, starts: dict, p: Params,
                env: CrosscheckEnv) -> tuple[Any, Outcome]:
    from puzzleproof.puzzles.harness import Table, run_harness
    from puzzleproof.verify.skynet_methods import game_instances, verdict_kind

    from puzzleproof.players.skynet_agents import AGENTS as KNOWN_AGENTS

    exact, bots = _chosen(rule, group, evidence, p)
    agents = split_names(p.agent_names or "worst", KNOWN_AGENTS, "agent")
    kind = verdict_kind(bots, exact, rule, agents=agents, programs=p.externals,
                        per_line=p.per_line, max_lines=p.max_replays,
                        fork_lines=not p.no_fork)
    table = Table((("WIN", "won"), ("LOSS", "lost"), ("unknown", "unknown"),
                   ("failed check", "failed")), what="map/start pair",
                  note="exact methods: proved verdicts; bots: played against the worst-case "
                       "agent (LOSS: an agent line beats the bot); effort: positions searched")
    report, outcome = run_harness("skynet", kind, game_instances(group, starts),
                                  list(kind.methods),
                                  env, PerTask(p.time_limit), table,
                                  findings={m.name: evidence[m.name] for m in group
                                            if evidence[m.name]})
    return report, outcome


def _ep1_part(group: list, starts: dict, bots: list[str] | None, p: Params) -> Outcome:
    from puzzleproof.puzzles.skynet_views import ep1_page
    from puzzleproof.verify.skynet_ep1_cuts import EP1_BOTS, cuts_table

    rows, failures = cuts_table(group, starts, bots, PerTask(p.time_limit))
    record = {"type": "skynet-ep1-cuts-table", "rows": rows, "failures": failures,
              "counts": {"findings_broken": len(failures)}}
    return Outcome(not failures, record,
                   ep1_page(group, rows, failures, list(bots or EP1_BOTS)),
                   1 if failures else 0)


def run(loaded: Sequence[Loaded], p: Params, env: CrosscheckEnv) -> Outcome:
    """Every part in order; the outcome's record holds them under ``parts`` (one part: as
    it is), its code is the worst of theirs."""
    from puzzleproof.formats.skynet_evidence import cuts_record_of, evidence_of

    maps = [ld.instance for ld in loaded]
    ep1_maps = [m for m in maps if cuts_record_of(m) is not None]
    maps = [m for m in maps if cuts_record_of(m) is None]
    evidence = {m.name: evidence_of(m) for m in maps}
    runs = _runs(maps, evidence, p)
    parts: list[Outcome] = []
    for rule, group in runs:
        heading = Page()
        if len(runs) > 1:
            heading.line(f"-- rule {rule}" + (", maps shipped with evidence"
                                              if evidence[group[0].name] else "") + " --")
        starts = _starts(group, evidence, p.all_starts)
        report, exact = _exact_part(rule, group, evidence, starts, p, env)
        exact.page = heading.extend(exact.page)
        parts.append(exact)
        if rule == "ep1":
            _, bots = _chosen(rule, group, evidence, p)
            parts.append(_ep1_part(group, starts, [b for b in bots
                                                   if not b.startswith("exact")], p))
    if ep1_maps:
        parts.append(_ep1_maps_part(ep1_maps, p))
    return _joined(parts)


def _ep1_maps_part(ep1_maps: list, p: Params) -> Outcome:
    from puzzleproof.formats.skynet_evidence import cuts_record_of

    starts = {m.name or "": ([v for v in range(m.n) if v not in m.gateways]
                             if p.all_starts else [cuts_record_of(m)["start"]])
              for m in ep1_maps}
    bots = [c for c in split_names(p.method, _known(), "method")
            if c not in EXACT and not c.startswith("exact")] if p.method else None
    part = _ep1_part(ep1_maps, starts, bots, p)
    part.page = Page().line("-- Episode 1 maps with their cut records --").extend(part.page)
    return part


def _joined(parts: list[Outcome]) -> Outcome:
    page = Page()
    for part in parts:
        page.extend(part.page)
    codes = [part.exit_code for part in parts]
    code = 130 if 130 in codes else max(codes, default=0)
    record = parts[0].record if len(parts) == 1 else {
        "type": "crosscheck", "schema_version": 2, "puzzle": "skynet",
        "parts": [part.record for part in parts]}
    return Outcome(code == 0, record, page, code)


def _prepare(p: Params) -> None:
    if p.method:
        split_names(p.method, _known(), "method")


CROSSCHECK = CrosscheckSpec(
    help=HELP,
    options=(METHODS.but(help="Methods by name, comma-separated: sat, explicit (exact "
                              "verdicts) and our bots (played against the worst-case agent)."),
             BOT_CMD.but(help="An external program to judge (CodinGame's protocol), "
                              "repeatable, each named; played against the agent models of "
                              "--agent."),
             AGENTS.but(default="worst", help="The agents every bot and program plays, "
                        "comma-separated: worst (the adversary: every agent line searched; a "
                        "program rerun per line, or forked where lines branch for a Python "
                        "script), article, nearest; each bot or program meets each, judged "
                        "by the same rule against the proved verdicts."),
             MAX_REPLAYS, PER_LINE, NO_FORK,
             RULE.but(default=None, show_default=False, help="The rule of every game "
                      "(default: the rule of a map's evidence file, else ep2)."),
             ALL_STARTS,
             TIME_LIMIT.but(default=60.0, show_default=True, help="Seconds per map, start and "
                            "method; when they run out the answer is UNKNOWN, naming the "
                            "limit."),
             MOVE_TIMEOUT.but(help="Seconds an external program has per move (default 0.15, "
                                   "as CodinGame)."),
             INIT_TIMEOUT.but(help="Seconds for an external program's start-up and first "
                                   "move (default 1)."),
             MEMORY_LIMIT),
    run=run, prepare=_prepare)
