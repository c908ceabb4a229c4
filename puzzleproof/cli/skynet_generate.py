"""``generate skynet``: breakers (winnable maps that bots lose by play, shrunk), Episode 1
maps where bots spend the most cuts beyond the fewest, and the Episode 1 map set."""

from __future__ import annotations

import json
from pathlib import Path

import click

from puzzleproof.cli.legacy import (FiniteRange, SECONDS,
                                    Exit, executor_for, force_option, generate_group,
                                    jobs_option, quiet_option, say,
                                    seed_option)
from puzzleproof.errors import InputError
from puzzleproof.formats import write_atomic

EP1_SET_COMMAND = "puzzleproof generate skynet --ep1-set --seed 1 -o instances/skynet/ep1"


def _bot_help() -> str:
    from puzzleproof.verify.skynet_bots import bot_list

    return ("Comma-separated bots to break (default: every Episode 2 bot but the exact one: "
            f"{bot_list('ep2').replace('exact, ', '')}; with --rule ep1 every bot but the "
            "exact ones).")


@generate_group.command(name="skynet")
@click.option("--nodes", type=click.IntRange(3, 500), default=12, show_default=True,
              help="Nodes of each random map before shrinking.")
@click.option("--extra", type=FiniteRange(0), default=0.6, show_default=True,
              help="Extra links per node beyond a spanning tree.")
@click.option("--gateways", type=click.IntRange(1, 20), default=3, show_default=True,
              help="Gateways of each random map.")
@click.option("--rule", "--style", "rule", type=click.Choice(("ep1", "ep2")), default="ep2",
              show_default=True,
              help="ep2: breakers (maps with double-gateway nodes that bots lose). ep1: at "
                   "most one gateway link per node, where no correct bot can lose: maps "
                   "where the bots use the most cuts beyond the proved fewest.")
@click.option("--bots", default=None, help="Comma-separated bots (see 'skynet play --help').")
@click.option("--agent", "agents", default="worst", show_default=True,
              help="Agent model(s) the bots must lose to, comma-separated, each searched on "
                   "its own: article (the Episode 2 article's agent, one game), worst (the "
                   "worst-case adversary: every agent line searched).")
@click.option("--min-beaten", type=click.IntRange(1), default=2, show_default=True,
              help="A breaker beats at least this many of the bots (capped at their number).")
@click.option("--all-bots", is_flag=True, help="Keep only maps that every chosen bot loses.")
@click.option("-n", "--count", type=click.IntRange(1), default=1, show_default=True,
              help="How many maps to keep (per agent model).")
@seed_option
@click.option("--max-attempts", type=click.IntRange(1), default=None,
              help="Random maps to try at most (default 20000; 200 with --rule ep1).")
@click.option("--no-shrink", is_flag=True, help="Keep the maps as drawn.")
@click.option("--ep1-set", is_flag=True,
              help="Write the Episode 1 set in the shape of CodinGame's tests (line, star, "
                   "triple star, double star with a ring, meshes of 100, 250 and 500 nodes) "
                   "from --seed, each with its fewest cuts (proved, or bounds) and the bots' "
                   f"cuts. The shipped set: {EP1_SET_COMMAND}")
@click.option("--codingame-limits", is_flag=True,
              help="Write -n seeded maps at CodinGame's limits (500 nodes, 1000 links, 20 "
                   "gateways each linked to 3-10 nodes, 100-140 gateway links), seeds --seed "
                   "and up; no search.")
@click.option("--time-limit", type=SECONDS, default=60.0,
              show_default=True, help="With --ep1-set (only): seconds per map for the fewest "
                                      "cuts and per bot for its worst case.")
@click.option("-o", "--output", "out_dir", type=click.Path(file_okay=False), required=True,
              help="Folder for NAME.txt (CodinGame map with the start) and its evidence "
                   "(NAME.evidence.json and NAME.strategy.json for a breaker, NAME.cuts.json "
                   "for an Episode 1 map). Files are never overwritten without --force.")
@force_option
@jobs_option
@quiet_option
def generate_skynet(nodes, extra, gateways, rule, bots, agents, min_beaten, all_bots, count,
                    seed, max_attempts, no_shrink, ep1_set, codingame_limits, time_limit,
                    out_dir, force, jobs, quiet) -> None:
    """Make maps that break bots: winnable (proved, the player's strategy replayed and
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
    """
    from puzzleproof.verify.skynet_bots import BOTS

    folder = Path(out_dir)
    ctx = click.get_current_context()
    if not ep1_set and ctx.get_parameter_source("time_limit") == \
            click.core.ParameterSource.COMMANDLINE:
        raise click.UsageError("--time-limit applies to --ep1-set only (per map); bound a "
                               "breaker search with --max-attempts")
    if not (ep1_set or codingame_limits) and gateways >= nodes:
        raise click.UsageError(f"--gateways {gateways} needs more --nodes than {nodes}: the "
                               "start is a node that is not a gateway")
    if codingame_limits:
        raise Exit(_write_large(folder, seed, count, force, quiet))
    if ep1_set:
        raise Exit(_write_ep1_set(folder, seed, time_limit, force, quiet))
    if rule == "ep1":
        from puzzleproof.generate.skynet_ep1 import EP1_BOTS
        default: tuple[str, ...] = EP1_BOTS
    else:
        from puzzleproof.generate.skynet import DEFAULT_EP2_BOTS
        default = DEFAULT_EP2_BOTS
    chosen = tuple(b.strip() for b in bots.split(",")) if bots else default
    bad = [b for b in chosen if b not in BOTS]
    if bad:
        raise click.UsageError(f"unknown bot(s) {', '.join(bad)}; expected {', '.join(BOTS)}")
    models = [a.strip() for a in agents.split(",") if a.strip()]
    from puzzleproof.generate.skynet import AGENT_MODELS
    if not models or any(a not in AGENT_MODELS for a in models):
        raise click.UsageError(f"--agent: expected some of {', '.join(AGENT_MODELS)}")
    folder.mkdir(parents=True, exist_ok=True)
    if rule == "ep1":
        raise Exit(_write_gap_maps(folder, nodes, extra, gateways, chosen, count, seed,
                                   max_attempts or 200, force, quiet))
    made = 0
    kept: set[int] = set()  # a map kept under one agent model is not kept again
    for agent in models:
        made += _write_breakers(folder, nodes, extra, gateways, chosen, agent, min_beaten,
                                all_bots, count, seed, max_attempts or 20_000, no_shrink,
                                force, quiet, kept, executor_for(jobs))
    raise Exit(0 if made else 1)


def _fresh(paths: list[Path], force: bool) -> None:
    for path in paths:
        if path.exists() and not force:
            raise InputError("exists; choose another folder or seed (or --force)", str(path))


def _write_breakers(folder, nodes, extra, gateways, chosen, agent, min_beaten, all_bots,
                    count, seed, max_attempts, no_shrink, force, quiet, kept, jobs=1) -> int:
    from puzzleproof.formats import skynet as sfmt
    from puzzleproof.generate.skynet import Defect, SkyParams, generate as gen

    params = SkyParams(nodes=nodes, extra=extra, gateways=gateways, style="ep2",
                       bots=chosen, all_bots=all_bots, count=count, seed=seed,
                       max_attempts=max_attempts, shrink=not no_shrink, agent=agent,
                       min_beaten=min_beaten, skip=frozenset(kept))
    made = 0
    try:
        for b in gen(params, jobs):
            if isinstance(b, Defect):
                say(f"defect report (not a breaker): {b.bot} against agent {b.agent} on "
                    f"attempt {b.attempt} ended by '{b.reason}': "
                    f"{json.dumps(b.record)[:300]}")
                continue
            base = folder / (b.map.name or f"breaker-{made}")
            txt, ev_path = base.with_suffix(".txt"), Path(f"{base}.evidence.json")
            strat_path = Path(f"{base}.strategy.json")
            _fresh([txt, ev_path, strat_path], force)
            map_obj = json.loads(sfmt.write_map(b.map, "json"))
            rule = b.record.get("rule", "ep2")
            strategy = {"schema_version": 1, **(b.strategy or {}), "rule": rule,
                        "start": b.start, "map": map_obj}
            evidence = {
                "type": "skynet-breaker", "schema_version": 2, "map": b.map.name,
                "rule": rule, "start": b.start, "agent": agent, "lost_by": b.bots,
                "beaten": [{"bot": bot, "agent": agent, "by": "play",
                            "reason": rec.get("reason"), "turns": len(rec.get("turns", []))}
                           for bot, rec in b.games.items()],
                "tried": list(chosen),
                "proved": "WIN (explicit-state search, the player's strategy replayed "
                          "against every agent move)",
                "strategy": strat_path.name, "locally_minimal": not no_shrink,
                "attempt": b.attempt, "seed": seed,
                "drawn": {"nodes": b.original_nodes, "links": b.original_links},
                "game": b.record, "games": b.games}
            write_atomic(txt, sfmt.write_map(b.map, "codingame"))
            write_atomic(strat_path, json.dumps(strategy) + "\n")
            write_atomic(ev_path, json.dumps(evidence, indent=1) + "\n")
            made += 1
            kept.add(b.attempt)
            if not quiet:
                say(f"{txt}: {b.map.n} nodes, {len(b.map.links)} links (drawn "
                    f"{b.original_nodes}/{b.original_links}), start {b.start}, lost by "
                    f"{', '.join(b.bots)} against agent {agent}")
    except KeyboardInterrupt:
        say(f"interrupted; {made} map(s) kept in {folder}")
        raise Exit(130)
    say(f"{made} map(s) in {folder} (agent {agent})" + ("" if made == count else
                                                         f" (attempts ran out before {count})"))
    return made


def _cuts_record(m, report: dict, extra: dict) -> dict:
    return {"type": "skynet-ep1-cuts", "schema_version": 1, "map": m.name, "rule": "ep1",
            "start": m.start, "nodes": m.n, "links": len(m.links),
            "gateways": len(m.gateways), "fewest": report["fewest"], "bots": report["bots"],
            **extra}


def _write_gap_maps(folder, nodes, extra, gateways, chosen, count, seed, attempts, force,
                    quiet) -> int:
    from puzzleproof.formats import skynet as sfmt
    from puzzleproof.generate.skynet_ep1 import GapParams, search_gap

    made = 0
    for g in search_gap(GapParams(nodes=nodes, extra=extra, gateways=gateways, bots=chosen,
                                  count=count, seed=seed, attempts=attempts)):
        base = folder / (g.map.name or f"ep1-gap-{made}")
        txt, rec_path = base.with_suffix(".txt"), Path(f"{base}.cuts.json")
        _fresh([txt, rec_path], force)
        write_atomic(txt, sfmt.write_map(g.map, "codingame"))
        write_atomic(rec_path, json.dumps(_cuts_record(g.map, g.report, {
            "seed": seed, "attempt": g.attempt, "excess": g.excess,
            "most_excess": g.worst_bots}), indent=1) + "\n")
        made += 1
        if not quiet:
            say(f"{txt}: fewest cuts {g.report['fewest']['value']}; "
                f"{', '.join(g.worst_bots)} {'uses' if len(g.worst_bots) == 1 else 'use'} "
                f"{g.excess} more in the worst case")
    say(f"{made} Episode 1 map(s) in {folder}")
    return 0 if made else 1


def _write_large(folder: Path, seed: int, count: int, force: bool, quiet: bool) -> int:
    """Maps at CodinGame's limits (:mod:`puzzleproof.generate.skynet_large`)."""
    from puzzleproof.formats import skynet as sfmt
    from puzzleproof.generate.skynet_large import codingame_limits_map

    folder.mkdir(parents=True, exist_ok=True)
    for k in range(count):
        m = codingame_limits_map(seed + k)
        txt = folder / f"{m.name}.txt"
        _fresh([txt], force)
        write_atomic(txt, sfmt.write_map(m, "codingame"))
        if not quiet:
            say(f"{txt}: {m.n} nodes, {len(m.links)} links, {len(m.gateways)} gateways, "
                f"start {m.start}")
    return 0


def _write_ep1_set(folder: Path, seed: int, time_limit: float, force: bool,
                   quiet: bool) -> int:
    from puzzleproof.formats import skynet as sfmt
    from puzzleproof.generate.skynet_ep1 import EP1_BOTS, ep1_set
    from puzzleproof.verify.skynet_ep1 import cut_report, fewest_text

    folder.mkdir(parents=True, exist_ok=True)
    for m in ep1_set(seed):
        base = folder / (m.name or "map")
        txt, rec_path = base.with_suffix(".txt"), Path(f"{base}.cuts.json")
        _fresh([txt, rec_path], force)
        rep = cut_report(m, m.start, list(EP1_BOTS), time_limit=time_limit)
        write_atomic(txt, sfmt.write_map(m, "codingame"))
        write_atomic(rec_path, json.dumps(_cuts_record(m, rep, {
            "seed": seed, "command": EP1_SET_COMMAND, "time_limit": time_limit}),
            indent=1) + "\n")
        if not quiet:
            say(f"{txt}: {m.n} nodes, {len(m.links)} links, {len(m.gateways)} gateways; "
                f"fewest cuts {fewest_text(rep['fewest'])}")
    return 0


# -- the cross-check's Episode 1 table: cuts used against the fewest -----------------------

def sidecar(m, suffix: str, kind: str, what: str) -> dict | None:
    """The record of type ``kind`` shipped beside a map file (NAME``suffix``), if any, read
    strictly (an unreadable one is an error naming it and ``what`` it is)."""
    from puzzleproof.formats.numbers import load_json

    name = m.name or ""
    candidate = Path(f"{Path(name).with_suffix('')}{suffix}")
    if not name or not candidate.is_file():
        return None
    try:
        text = candidate.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"unreadable {what}: {exc}", str(candidate)) from None
    try:
        obj = load_json(text, str(candidate))
    except InputError as exc:
        raise InputError(f"unreadable {what}: {exc.message}", str(candidate), exc.line) from None
    if not isinstance(obj, dict) or obj.get("type") != kind:
        return None
    obj["file"] = str(candidate)
    return obj


def cuts_record_of(m) -> dict | None:
    """The Episode 1 cuts record shipped beside a map file (NAME.cuts.json), if any."""
    return sidecar(m, ".cuts.json", "skynet-ep1-cuts", "cuts record")


#: a recorded worst case is searched again in a cross-check when it took at most this many
#: positions (the larger maps keep their recorded figure, said so)
RECHECK_POSITIONS = 5_000


def ep1_cuts_table(maps, starts: dict, bots: list[str] | None, time_limit: float | None,
                   as_json: bool) -> int:
    """For Episode 1 maps: every bot's cuts against the article's agent and in the worst
    case, next to the fewest cuts (recorded in NAME.cuts.json, or proved now within
    ``time_limit``). A recorded figure that no longer holds, or a bot that loses a map
    where every node links to at most one gateway, is a failure (exit 1)."""
    from rich.table import Table

    from puzzleproof.cli.legacy import emit, out
    from puzzleproof.generate.skynet_ep1 import EP1_BOTS
    from puzzleproof.verify.skynet_ep1 import (EP1_NOTE, article_cuts, cut_report, cuts_text,
                                               fewest_text, worst_cuts)

    names = list(bots or EP1_BOTS)
    rows, failures = [], []
    for m in maps:
        rec = cuts_record_of(m)
        for s in starts.get(m.name or "", []):
            if rec is not None and rec.get("start") == s:
                rep = {"map": m.name, "start": s, "fewest": rec["fewest"], "bots": {},
                       "recorded": rec["file"]}
                for b in names:
                    old = (rec.get("bots") or {}).get(b)
                    row = {"article": article_cuts(m, "ep1", s, b)}
                    worst = (old or {}).get("worst") or {}
                    if old is None or (worst.get("cuts") is not None
                                       and worst.get("positions", 0) <= RECHECK_POSITIONS):
                        worst = worst_cuts(m, "ep1", s, b, max_positions=RECHECK_POSITIONS * 2)
                    row["worst"] = worst
                    row["excess"] = (old or {}).get("excess")
                    if old is not None and (old["article"] != row["article"]
                                            or old["worst"].get("cuts") != worst.get("cuts")):
                        failures.append(f"{m.name}@{s}: {b} now {cuts_text(row)}, "
                                        f"recorded {cuts_text(old)} ({rec['file']})")
                    rep["bots"][b] = row
            else:
                rep = cut_report(m, s, names, time_limit=time_limit,
                                 max_positions=RECHECK_POSITIONS * 4)
            if not m.ep1_problems():
                for b, row in rep["bots"].items():
                    if row["article"]["result"] != "WIN" or row["worst"].get("lost"):
                        failures.append(f"{m.name}@{s}: {b} loses an Episode 1 map "
                                        f"({row['worst'].get('lost') or row['article']['reason']})")
            rows.append(rep)
    if as_json:
        emit({"type": "skynet-ep1-cuts-table", "rows": rows, "failures": failures})
        return 1 if failures else 0
    table = Table(title="Episode 1: cuts used (article agent / worst case) against the fewest",
                  title_justify="left")
    for col in ["map", "start", "fewest", *names]:
        table.add_column(col, justify="left" if col == "map" else "right")
    for rep in rows:
        table.add_row(str(rep["map"]).rsplit("/", 1)[-1], str(rep["start"]),
                      fewest_text(rep["fewest"]),
                      *[cuts_text(rep["bots"][b]) for b in names])
    out.print(table)
    out.print(EP1_NOTE + " '>=n': the worst-case search stopped at its budget; 'a..b': the "
              "fewest cuts' proved bounds.", markup=False)
    doubles = [m.name for m in maps if m.ep1_problems()]
    if doubles:
        out.print(f"not Episode 1 maps (a node links to two gateways), so bots may lose them: "
                  f"{', '.join(str(d) for d in doubles[:5])}", markup=False)
    for f in failures:
        out.print(f"FINDING NO LONGER HOLDS: {f}", markup=False)
    return 1 if failures else 0
