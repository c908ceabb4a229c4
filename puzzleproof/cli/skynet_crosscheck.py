"""``crosscheck skynet``: proved verdicts next to bots and programs, and the breakers'
evidence confirmed as known findings."""

from __future__ import annotations

from pathlib import Path

import click

from puzzleproof.cli.legacy import (Exit, check_output, crosscheck_group, force_option,
                                    init_timeout_option, jobs_option, json_option,
                                    method_option, move_timeout_option, out, output_option,
                                    quiet_option, resume_option, split_names,
                                    time_limit_option)
from puzzleproof.errors import InputError


@crosscheck_group.command(name="skynet")
@click.argument("inputs", nargs=-1, required=True)
@method_option("skynet", None, multiple=True)
@click.option("--bot-cmd", "bot_cmds", multiple=True, metavar="NAME=CMD",
              help="An external program to judge (CodinGame's protocol), repeatable, each "
                   "named; played against the agent models of --agent.")
@click.option("--agent", "agent_names", default="article,nearest", show_default=True,
              help="With --bot-cmd: the agent models the programs play against; worst is "
                   "the adversary (every agent line searched; the program rerun per line, or "
                   "forked where lines branch for a Python script).")
@click.option("--max-replays", type=click.IntRange(1), default=None,
              help="The worst-case agent's most lines per bot and start; UNKNOWN beyond.")
@click.option("--per-line", is_flag=True,
              help="The worst-case agent judges every line on its own (no merging of lines "
                   "that reach the same position).")
@click.option("--no-fork", is_flag=True,
              help="Worst-case agent: run a program afresh from the start for every line. "
                   "By default a Python script (python3 bot.py) runs under a small host that "
                   "forks it where lines branch, so lines share the run of their common "
                   "prefix; a line lost in a forked run is confirmed by a fresh run.")
@click.option("--rule", type=click.Choice(("ep1", "ep2")), default=None,
              help="The rule of every game (default: the rule of a map's evidence file, "
                   "else ep2).")
@click.option("--all-starts", is_flag=True, help="Every start node of each map.")
@output_option("JSONL file that receives one record per instance and method as soon as it "
               "exists, and the disagreements.")
@force_option
@resume_option
@jobs_option
@time_limit_option(60.0, "per map, start and method")
@move_timeout_option
@init_timeout_option
@click.option("--memory-limit", type=click.IntRange(16), default=768, show_default=True,
              help="MB an external program may use.")
@json_option
@quiet_option
def crosscheck_skynet(inputs, method, bot_cmds, agent_names, max_replays, per_line, no_fork,
                      rule,
                      all_starts, output, force,
                      resume, jobs, time_limit, move_timeout, init_timeout, memory_limit,
                      as_json, quiet) -> None:
    """Prove each start's verdict exactly and judge bots against the worst-case agent.

    \b
    Exact methods (sat, explicit) prove WIN or LOSS with a replayed certificate; each of
    our bots plays the worst-case agent, which searches every agent line for one that
    beats it: a bot that loses a start an exact method proved winnable is a
    'loses-winnable-game' disagreement, with the agent's winning line as a game record
    ('puzzleproof render skynet MAP --game RECORDS.jsonl' draws it). External programs
    (--bot-cmd) play the agent models of --agent; a lost game on a proved-winnable
    start is reported with the program's stderr. With --agent worst a program meets
    the same adversary (rerun from the start for each line, or forked where lines
    branch for a Python script; --no-fork): per start PROVED,
    BEATEN (with the line), lost because unwinnable, or UNKNOWN at the limits.

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
    from puzzleproof.cli.batch import run_and_report
    from puzzleproof.cli.skynet import _maps, _referee_batch
    from puzzleproof.cli.legacy import mixed, named_commands, one_json
    from puzzleproof.verify.skynet_bots import BOTS
    from puzzleproof.verify.skynet_methods import game_instances, verdict_kind

    with one_json({"type": "crosscheck", "schema_version": 1, "puzzle": "skynet"},
                  as_json):
        maps = _maps(inputs, strict=not mixed())
        from puzzleproof.cli.skynet_generate import cuts_record_of, ep1_cuts_table
        ep1_maps = [m for m in maps if cuts_record_of(m) is not None]  # Episode 1 cut records
        maps = [m for m in maps if cuts_record_of(m) is None]
        externals = named_commands(bot_cmds, "--bot-cmd")
        evidence = {m.name: _evidence_of(m) for m in maps}
        groups: dict[str, list] = {}
        for m in maps:
            ev = evidence[m.name]
            groups.setdefault(rule or (ev or {}).get("rule") or _evidence_rule(ev), []).append(m)
        check_output(output, force or resume)
        if len(groups) > 1 and output:
            raise click.UsageError("these maps need two rules (their evidence says so): "
                                   "cross-check them in two runs, or give --rule")
        worst = 0
        runs = []  # (rule, maps): without -o, maps with evidence run apart, with their bots
        for the_rule, group in sorted(groups.items()):
            with_ev = [m for m in group if evidence[m.name]]
            if output or method or not with_ev or len(with_ev) == len(group):
                runs.append((the_rule, group))
            else:
                runs += [(the_rule, [m for m in group if not evidence[m.name]]),
                         (the_rule, with_ev)]
        for the_rule, group in runs:
            default = (["sat", "ep2-article", "ep2-slack"] if the_rule == "ep2"
                       else ["sat", "ep1-article", "ep1-path"])
            for m in group:
                ev = evidence[m.name]
                for b in (ev or {}).get("lost_by", []):
                    if b in BOTS and b not in default and not method:
                        default.append(b)
            chosen = split_names(method, list(BOTS) + ["sat", "explicit"], "method") \
                if method else default
            exact = [c for c in chosen if c in ("sat", "explicit")] or (["sat"] if externals
                                                                         else [])
            kind = verdict_kind([c for c in chosen if c in BOTS], exact, the_rule,
                                per_line=per_line, max_lines=max_replays)
            chosen = exact + [c for c in chosen if c in BOTS]
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
            instances = game_instances(group, starts)
            if len(runs) > 1 and not as_json:
                out.print(f"-- rule {the_rule}"
                          + (", maps shipped with evidence" if evidence[group[0].name] else "")
                          + " --", markup=False)
            code = run_and_report("skynet", kind, instances, chosen, output, force, resume, jobs,
                                  time_limit, as_json, quiet,
                                  findings={m.name: evidence[m.name] for m in group
                                            if evidence[m.name]})
            worst = max(worst, code)
            if externals:
                from puzzleproof.verify.skynet_agents import AGENTS

                agents = split_names(agent_names, AGENTS, "agent")
                if not as_json:
                    out.print(f"External programs against agents {', '.join(agents)}:",
                              markup=False)
                limits = {"move_timeout": move_timeout or 0.150,
                          "init_timeout": init_timeout or 1.0, "memory_limit": memory_limit}
                # the programs' games go to the same -o file, after the exact methods' (an
                # existing record of theirs is kept, as with --resume)
                code = _referee_batch(group, starts, [], agents, "low", 0, the_rule,
                                      Path(output) if output else None, bool(output),
                                      jobs, as_json, quiet, externals, limits,
                                      time_limit=time_limit,
                                      worst={"per_line": per_line, "max_lines": max_replays,
                                             "time_limit": time_limit, "fork": not no_fork})
                worst = max(worst, code)
            if the_rule == "ep1":  # Episode 1: the bots' cuts against the fewest, per start
                bots = [c for c in chosen if c in BOTS and not c.startswith("exact")]
                worst = max(worst, ep1_cuts_table(group, starts, bots, time_limit, as_json))
        if ep1_maps:
            if not as_json:
                out.print("-- Episode 1 maps with their cut records --", markup=False)
            ep1_starts = {m.name or "": ([v for v in range(m.n) if v not in m.gateways]
                                         if all_starts else [cuts_record_of(m)["start"]])
                          for m in ep1_maps}
            bots = [c for c in split_names(method, list(BOTS) + ["sat", "explicit"], "method")
                    if c in BOTS and not c.startswith("exact")] if method else None
            worst = max(worst, ep1_cuts_table(ep1_maps, ep1_starts, bots, time_limit, as_json))
        raise Exit(worst)


def _evidence_of(m) -> dict | None:
    """The breaker evidence shipped beside a map file (NAME.evidence.json), if any."""
    from puzzleproof.cli.skynet_generate import sidecar

    return sidecar(m, ".evidence.json", "skynet-breaker", "evidence")


def _evidence_rule(ev: dict | None) -> str:
    if not ev:
        return "ep2"
    game = ev.get("game") if isinstance(ev.get("game"), dict) else {}
    rule = ev.get("rule") or game.get("rule")
    return rule if rule in ("ep1", "ep2") else "ep2"
