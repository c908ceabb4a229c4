"""Skynet Revolution's commands: ``solve``, ``check``, ``render``, ``crosscheck`` and
``generate`` for ``skynet`` on the shared verbs, and the game's own ``skynet play`` and
``skynet referee``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from rich.table import Table

from puzzleproof.cli.legacy import (Exit, check_group, check_output,
                                    deliver, emit, force_option, gather, generate_group,
                                    init_timeout_option, jobs_option, json_option,
                                    jsonl_option, move_timeout_option, out,
                                    output_option, plural, progress_bar, quiet_option,
                                    render_group, resume_option, say, seed_option,
                                    short, solve_group, split_names, time_limit_option)
from puzzleproof.errors import InputError
from puzzleproof.formats import read_source, write_atomic
from puzzleproof.result import Result


@solve_group.command(name="skynet")
@click.argument("maps", nargs=-1, required=True)
@click.option("--rule", type=click.Choice(("ep1", "ep2")), default="ep2", show_default=True,
              help="ep2: only gateway links may be cut; ep1: any link.")
@click.option("--start", type=int, default=None, help="Agent start (default: the map's).")
@click.option("--all-starts", is_flag=True, help="Decide every start node of each map.")
@click.option("--min-cuts", is_flag=True,
              help="Also the value: the fewest cuts that contain the agent whatever it does.")
@click.option("--horizon", "-H", type=click.IntRange(0), default=None,
              help="Only ask: can the player contain the agent within H cuts?")
@click.option("--method", "--solver", "solver", type=click.Choice(("sat", "explicit")),
              default="sat", show_default=True,
              help="sat: CEGAR with two incremental SAT solvers; explicit: memoised minimax "
                   "over (agent node, links left).")
@time_limit_option(None, "per map and start (the bounds proved so far are kept)")
@click.option("--conflicts", type=click.IntRange(1), default=None,
              help="SAT conflict budget per map and start (sat solver); UNKNOWN when spent. "
                   "It counts the SAT calls only: the exact search of --min-cuts under ep1, "
                   "the fence search and writing certificates are bounded by --time-limit.")
@output_option("Write the winner's strategy (JSON certificate with its map, rule and start, "
               "replayable with 'check skynet MAP FILE') for one map and start; a batch "
               "writes one JSON record a line.")
@force_option
@json_option
@jsonl_option
@quiet_option
def solve_skynet(maps, rule, start, all_starts, min_cuts, horizon, solver, time_limit,
                 conflicts, output, force, as_json, as_jsonl, quiet) -> None:
    """Decide Skynet Revolution exactly: can the player keep the agent from every
    gateway against EVERY agent, and how many cuts does it take?

    \b
    The answer is WIN or LOSS for the player (UNKNOWN if a limit ran out), with the
    winner's strategy as a certificate that is replayed against every opponent move
    by the rules alone before it is shown ('check' column). --min-cuts adds the
    value (fewest cuts to contain the agent); --horizon H asks only whether H cuts
    suffice. Under ep2 the value is the number of gateway links of the agent's
    component whenever the player wins (only those can be cut).

    \b
    Examples:
      puzzleproof solve skynet map.txt                     # verdict from the map's start
      puzzleproof solve skynet map.txt --all-starts        # every start node
      puzzleproof solve skynet map.txt --rule ep1 --min-cuts -o strategy.json
      puzzleproof check skynet map.txt strategy.json --rule ep1
    """

    if horizon is not None and min_cuts:
        raise click.UsageError("--horizon and --min-cuts ask different questions; give one")
    if all_starts and start is not None:
        raise click.UsageError("--start and --all-starts do not go together")
    check_output(output, force)
    loaded = _maps(maps)
    jobs = []
    for m in loaded:
        if all_starts:
            starts = [v for v in range(m.n) if v not in m.gateways]
        else:
            s = m.start if start is None else start
            if s is None:
                raise InputError("the map gives no start; pass --start or --all-starts", m.name)
            if not 0 <= s < m.n or s in m.gateways:
                raise InputError(f"start {s} must be a node 0..{m.n - 1} that is not a gateway",
                                 m.name)
            starts = [s]
        jobs += [(m, s) for s in starts]
    if rule == "ep1":
        for m in loaded:
            for p in m.ep1_problems()[:1]:
                say(f"note: {m.name}: {p}; an Episode 1 map has none (solving anyway)")
    results = []
    progress = progress_bar(quiet or as_json or as_jsonl)
    from puzzleproof.encoders.skynet_sat import SolverCache

    try:
        with progress, SolverCache() as cache:
            task = progress.add_task("solving", total=len(jobs))
            for m, s in jobs:
                progress.update(task, description=f"{short(m.name or '', 30)} start {s}")
                res = _solve_skynet_one(m, rule, s, min_cuts, horizon, solver, time_limit,
                                        conflicts, cache)
                results.append((m, s, res))
                if as_jsonl:
                    emit({"type": "result", **_skynet_record(m, s, res)})
                progress.advance(task)
    except KeyboardInterrupt:
        say(f"interrupted after {len(results)} of {len(jobs)} start(s); shown below")
    if as_json:
        objs = [_skynet_record(m, s, r, cert=True) for m, s, r in results]
        emit(objs[0] if len(objs) == 1 else objs)
    elif not as_jsonl:
        _print_skynet_results(results, rule)
    if output and len(jobs) > 1:
        deliver("".join(json.dumps({"type": "result", **_skynet_record(m, s, r, cert=True)})
                        + "\n" for m, s, r in results), output, force,
                f" ({plural(len(results), 'record')})")
    elif output and results:
        m, s, res = results[0]
        if res.certificate is None:
            say(f"nothing written to {output}: no certificate (the answer is "
                f"{res.status.value})")
        else:
            deliver(json.dumps(_stamp_certificate(res.certificate, m, rule, s)) + "\n",
                    output, force)
    bad = any(r.check is not None and not r.check.get("ok") for _, _, r in results)
    lost = any(r.status.value == "LOSS" for _, _, r in results)
    raise Exit(1 if bad or lost else 0)


def _maps(args, strict: bool = True):
    """Every Skynet map in ``args`` (files, folders, globs); others skipped and said."""
    g = gather(args, "skynet", strict=strict)
    if g.errors:
        raise g.errors[0][1]
    g.say_skipped()
    return [ld.instance for ld in g.loaded]


def _stamp_certificate(cert: dict, m, rule: str, start: int) -> dict:
    """A certificate file says what it is, for which map, rule and start: 'check' and
    'render' need no options to read it back."""
    return {"schema_version": 1, **cert, "rule": rule, "start": start,
            "map": _map_obj(m)}


def _map_obj(m) -> dict:
    from puzzleproof.formats import skynet as sfmt

    return json.loads(sfmt.write_map(m, "json"))


def _solve_skynet_one(m, rule, s, min_cuts, horizon, solver, time_limit, conflicts,
                      cache=None) -> Result:
    if solver == "sat":
        from puzzleproof.encoders.skynet_sat import solve as sat_solve

        return sat_solve(m, rule, s, value=min_cuts, horizon=horizon, time_limit=time_limit,
                         conflicts=conflicts, cache=cache)
    if horizon is not None:
        raise click.UsageError("--horizon is a question for the sat solver")
    if conflicts is not None:
        raise click.UsageError("--conflicts is a budget for the sat solver")
    from puzzleproof.verify.skynet_explicit import solve as explicit_solve

    return explicit_solve(m, rule, s, value=min_cuts, max_nodes=None, time_limit=time_limit)


def _skynet_record(m, s, res: Result, cert: bool = False) -> dict:
    d = res.to_dict()
    if not cert:
        d.pop("certificate", None)
    d["map"] = m.name
    d["start"] = s
    return d


def _print_skynet_results(results, rule: str) -> None:
    table = Table(title=None, show_lines=False)
    for col in ("map", "start", "verdict", "min cuts", "check", "solver", "seconds", "effort"):
        table.add_column(col, justify="right" if col in ("start", "seconds") else "left")

    def verdict(r) -> str:
        """The status, or the verdict when only the value ran out of time (its
        certificate checked)."""
        a = r.answer or {}
        if (r.status.value == "UNKNOWN" and a.get("verdict") in ("WIN", "LOSS")
                and "value_lower" in a and (r.check is None or r.check.get("ok"))):
            return a["verdict"]
        return r.status.value

    for m, s, r in results:
        a = r.answer or {}
        value = a.get("value")
        if value is None and "value_lower" in a:
            value = f"{a['value_lower']}..{a['value_upper']}"
        if "horizon" in a:
            value = f"<= {a['horizon']}: {a['verdict']}"
        chk = "-" if r.check is None else ("ok" if r.check.get("ok") else "FAILED")
        st = r.stats or {}
        effort = (f"{st.get('iterations', 0)} it / {st.get('tree_nodes', 0)} nodes"
                  if r.solver == "sat-cegar" else f"{st.get('states', 0)} states")
        if st.get("decided_by") and r.check is not None and "positions" in r.check:
            # decided without the CEGAR: the certificate's size (a table, by position)
            effort = f"table, {plural(r.check['positions'], 'position')}"

        table.add_row(short(Path(m.name or "").name, 32), str(s), verdict(r),
                      "" if value is None else str(value), chk, r.solver,
                      f"{r.wall_time:.3f}", effort)
    out.print(table)
    for m, s, r in results:
        a = r.answer or {}
        if r.check is not None and not r.check.get("ok"):
            for p in r.check.get("violations", [])[:3]:
                out.print(f"{m.name} start {s}: certificate problem: {p}", markup=False)
        if a.get("note") and len(results) == 1:
            out.print(f"note: {a['note']}", markup=False)
    won = sum(verdict(r) == "WIN" for _, _, r in results)
    lost = sum(verdict(r) == "LOSS" for _, _, r in results)
    open_values = sum(r.status.value == "UNKNOWN" and verdict(r) != "UNKNOWN"
                      for _, _, r in results)
    out.print(f"{len(results)} start(s), rule {rule}: {won} WIN, {lost} LOSS, "
              f"{len(results) - won - lost} UNKNOWN"
              + (f" ({open_values} of the verdicts with the value left open by the limit)"
                 if open_values else ""), markup=False)


# -- check --------------------------------------------------------------------------------

@check_group.command(name="skynet")
@click.argument("map_arg", metavar="MAP")
@click.argument("strategy")
@click.option("--rule", type=click.Choice(("ep1", "ep2")), default=None,
              help="The rule (default: the one the strategy file records, else ep2).")
@click.option("--start", type=int, default=None,
              help="Agent start (default: the strategy file's, else the map's).")
@json_option
def check_skynet(map_arg: str, strategy: str, rule: str | None, start: int | None,
                 as_json: bool) -> None:
    """Replay a Skynet strategy certificate against EVERY opponent move, with the rules only.

    \b
    A player strategy ("type": "skynet-player-strategy") must contain the agent
    whatever it does; an agent strategy ("skynet-agent-strategy") must reach a
    gateway whatever the player cuts; an agent escape ("skynet-agent-escape", with
    "horizon": H, written for "solve skynet -H H" answered LOSS) must leave the agent
    uncontained after each of the first H cuts. All are DAGs of positions:
    {"type", "root": id, "nodes": {id: {"agent", "cut", "next": {move: id}}}} for the
    player, {id: {"agent", "replies": {"u-v": {"move", "next": id | null}}}} for the
    agent. Exit 0 if it holds, 1 if not (the first problems are listed), 2 if malformed.
    """
    from puzzleproof.formats import skynet as sfmt
    from puzzleproof.verify.skynet_explicit import check_agent_strategy, check_player_strategy

    text, source, _ = read_source(map_arg)
    m = sfmt.read_map(text, source)
    stext, ssource, _ = read_source(strategy)
    data = sfmt.read_strategy(stext, ssource, m)  # its shape and types; the replay judges it
    kind = data.get("type") if isinstance(data, dict) else None
    if isinstance(data, dict) and isinstance(data.get("map"), dict):
        recorded = sfmt.read_map(json.dumps(data["map"]), ssource)
        if recorded.links != m.links or recorded.gateways != m.gateways:
            raise InputError(f"the strategy was written for another map ({recorded.name})",
                             ssource)
    if rule is None:
        rule = data.get("rule") if isinstance(data, dict) else None
        if rule not in ("ep1", "ep2"):
            rule = "ep2"
    s = start
    if s is None and isinstance(data, dict) and type(data.get("start")) is int:
        s = data["start"]
    if s is None:
        s = m.start
    if s is None:
        raise InputError("neither the map nor the strategy gives a start; pass --start", source)
    if not 0 <= s < m.n or s in m.gateways:
        raise InputError(f"start {s} must be a node 0..{m.n - 1} that is not a gateway", source)
    if kind == "skynet-player-strategy":
        problems = check_player_strategy(m, rule, s, data)
    elif kind == "skynet-agent-strategy":
        problems = check_agent_strategy(m, rule, s, data)
    elif kind == "skynet-agent-escape":
        from puzzleproof.models.skynet_strategy import check_agent_escape

        problems = check_agent_escape(m, rule, s, data)
    else:
        raise InputError("expected a strategy object with \"type\": \"skynet-player-strategy\", "
                         "\"skynet-agent-strategy\" or \"skynet-agent-escape\"", ssource)
    who = {"skynet-player-strategy": "player", "skynet-agent-strategy": "agent"}.get(
        kind, "agent escape")
    from puzzleproof.models.skynet_strategy import certificate_kind

    backed = certificate_kind(data)  # which kind of certificate backs the verdict
    leaves = ("" if "+" not in backed else " (a table by position whose leaves the checker "
              + ("proved by the invariant" if "invariant" in backed else
                 "proved by counting fixed agent paths") + ")")
    if as_json:
        emit({"type": "check", "schema_version": 1, "puzzle": "skynet", "strategy": who,
              "ok": not problems, "certificate": backed,
               "rule": rule, "start": s, "problems": problems})
    elif problems:
        out.print(f"{ssource}: the {who} strategy does NOT win on {m.name} ({rule}, start {s}):",
                  markup=False)
        for p in problems:
            out.print(f"  {p}", markup=False)
    else:
        out.print(f"{ssource}: the {who} strategy wins on {m.name} ({rule}, start {s}) against "
                  f"every opponent move{leaves}", markup=False)
    raise Exit(1 if problems else 0)


@render_group.command(name="skynet")
@click.argument("map_arg", metavar="MAP")
@click.option("--game", "game", default=None, metavar="FILE[#K]",
              help="A game record (JSON from 'skynet referee -o'), or a file holding games "
                   "(a breaker's evidence, referee or crosscheck records): its first lost "
                   "game, or with #K its K-th game. Cuts numbered by turn, the agent's path.")
@click.option("--fence", "fence_arg", default=None, metavar="NODES",
              help="Comma-separated nodes to shade, their boundary links drawn thick: the "
                   "fence of an ep1 value's upper bound ('upper_bound.fence' in 'solve "
                   "skynet --json').")
@output_option("Write the picture to a file (.svg, or .png) instead of SVG on stdout.")
@force_option
def render_skynet(map_arg: str, game: str | None, fence_arg: str | None,
                  output: str | None, force: bool) -> None:
    """Draw a Skynet map (gateways red, the agent's start blue) as SVG, with a game on it or
    a fence around the start.

    \b
    Examples:
      puzzleproof render skynet map.txt -o map.svg
      puzzleproof render skynet map.txt --game game.json -o game.svg
      puzzleproof render skynet map.txt --fence 1,2,3,4,5 -o fence.png
    """
    from puzzleproof.formats import skynet as sfmt
    from puzzleproof.models.skynet import replay

    check_output(output, force)
    text, source, _ = read_source(map_arg)
    m = sfmt.read_map(text, source)
    record = None
    if game:
        pick = None
        base, hash_, k = game.rpartition("#")
        if hash_ and k.isdigit() and not Path(game).exists():
            game, pick = base, int(k)  # FILE#K: the K-th game record of the file
        gtext, gsource, _ = read_source(game)
        record = sfmt.record_from_json(_game_of(gtext, gsource, pick), gsource)
        if record.map.links != m.links or record.map.gateways != m.gateways:
            raise InputError("the game record was played on another map", gsource)
        problems = replay(record)
        if problems:
            say(f"note: the game record breaks the rules: {problems[0]}")
    fence = None
    if fence_arg is not None:
        fence = set()
        for item in fence_arg.replace(" ", "").split(","):
            if not item.lstrip("-").isdigit():
                raise InputError(f"--fence: expected node numbers separated by commas, "
                                 f"found {item!r}")
            v = int(item)
            if not 0 <= v < m.n:
                raise InputError(f"--fence: node {v} is not on the map (0..{m.n - 1})")
            if v in m.gateways:
                raise InputError(f"--fence: node {v} is a gateway; a fence holds only "
                                 "non-gateway nodes")
            fence.add(v)
    draw = sfmt.render_png if output and output.lower().endswith(".png") else sfmt.render_svg
    deliver(draw(m, record, fence=frozenset(fence) if fence else None), output, force)


def _games_in(obj: object, depth: int = 0) -> list[dict]:
    """The game records (``"type": "skynet-game"``) in a JSON value the project wrote: the
    value itself, a breaker's "game", a record's answer, a disagreement's detail."""
    if depth > 4:
        return []
    if isinstance(obj, dict):
        if obj.get("type") == "skynet-game":
            return [obj]
        return [g for v in obj.values() for g in _games_in(v, depth + 1)]
    if isinstance(obj, list) and depth:
        return [g for v in obj for g in _games_in(v, depth + 1)]
    return []


def _game_of(text: str, source: str, pick: int | None = None) -> str:
    """The game record in a file the project wrote: a game record itself, a breaker's
    evidence (its "game"), or referee / cross-check records (JSONL) holding games - the
    ``pick``-th game of the file (1-based), by default the first lost one, else the first."""
    objs: list[object] = []
    try:
        objs = [json.loads(text)]
    except (ValueError, RecursionError):
        for line in text.splitlines():
            if line.strip():
                try:
                    objs.append(json.loads(line))
                except (ValueError, RecursionError):
                    objs = []
                    break
    games = [g for o in objs for g in _games_in(o)]
    if not objs or (len(objs) == 1 and games == [objs[0]] and pick in (None, 1)):
        return text  # not JSON (the record reader says what is wrong), or the record itself
    if not games:
        raise InputError("holds no game record; expected a game record (skynet referee -o), "
                         "a breaker's evidence, or referee / cross-check records with games",
                         source)
    if pick is not None:
        if not 1 <= pick <= len(games):
            raise InputError(f"#{pick}: the file holds {len(games)} game record(s), "
                             f"numbered 1..{len(games)}", source)
        return json.dumps(games[pick - 1])
    lost = [g for g in games if g.get("result") == "LOSS"]
    return json.dumps((lost or games)[0])


def _bot_summaries() -> dict[str, str]:
    """Our bots by name with one line each, from the registry (help texts list them)."""
    from puzzleproof.verify.skynet_bots import BOTS, SUMMARIES

    return {name: SUMMARIES.get(name, "") for name in BOTS}


@click.group(name="skynet")
def skynet() -> None:
    """Skynet Revolution (Death First Search): play the protocol, referee bots."""


@skynet.command(name="play")
@click.option("--bot", "bot_name", required=True,
              help="One of our bots: " + "; ".join(
                  f"{name}: {what}" for name, what in _bot_summaries().items()) + ".")
def skynet_play(bot_name: str) -> None:
    """Speak CodinGame's protocol on stdin/stdout with one of our bots.

    \b
    Reads the initialisation block (N L E, L links, E gateways), then each turn
    the agent's node, and prints one cut 'C1 C2' per turn. Paste-ready for
    CodinGame's logic, or drive it with any referee, e.g.
      puzzleproof skynet referee MAP --agent article -- puzzleproof skynet play --bot ep2-slack
    """
    from puzzleproof.models.skynet import SkynetMap
    from puzzleproof.verify.skynet_bots import BOTS, make_bot

    if bot_name not in BOTS:
        raise click.UsageError(f"unknown bot {bot_name!r}; expected one of {', '.join(BOTS)}")
    stdin = sys.stdin

    def ints(what: str) -> list[int]:
        line = stdin.readline()
        if not line:
            raise InputError(f"<stdin>: expected {what}, found the end of the input")
        try:
            return [int(x) for x in line.split()]
        except ValueError:
            raise InputError(f"<stdin>: expected {what}, found {line.strip()!r}") from None

    head = ints("'N L E'")
    if len(head) != 3:
        raise InputError(f"<stdin>:1: expected 'N L E', found {len(head)} numbers")
    n, l, e = head
    links = [tuple(ints(f"link {k + 1}")) for k in range(l)]
    gates = [ints(f"gateway {k + 1}")[0] for k in range(e)]
    m = SkynetMap(n, tuple(links), frozenset(gates), gateway_order=tuple(gates))  # type: ignore
    bot = make_bot(bot_name)
    bot.reset(m)
    lineno = 1 + l + e
    while True:
        line = stdin.readline()
        lineno += 1
        if not line.strip():
            if not line:
                break
            continue
        words = line.split()
        try:
            agent = int(words[0])
        except ValueError:
            agent = -1
        if len(words) != 1 or not 0 <= agent < n or agent in m.gateways:
            raise InputError(f"<stdin>:{lineno}: expected the agent's node (a non-gateway "
                             f"node, 0..{n - 1}), found {line.strip()!r}")
        u, v = bot.cut(agent)
        sys.stdout.write(f"{u} {v}\n")
        sys.stdout.flush()
    raise Exit(0)


@skynet.command(name="referee")
@click.argument("maps", nargs=-1, required=True)
@click.option("--agent", "agent_names", default="article", show_default=True,
              help="Agent model(s), comma-separated: article (the Episode 2 article's model), "
                   "nearest (nearest gateway), random, worst (searches every agent line for "
                   "one that beats the bot).")
@click.option("--bot", "bot_names", default=None,
              help="Our bot(s), comma-separated: " + ", ".join(_bot_summaries())
                   + " ('skynet play --help' says what each does; exact plays the proved "
                     "strategy).")
@click.option("--bot-cmd", "bot_cmds", multiple=True, metavar="NAME=CMD",
              help="An external program speaking CodinGame's protocol, in any language; "
                   "repeatable, each named ('mine=python3 bot.py'). '-- CMD' gives one "
                   "unnamed program.")
@click.option("--rule", type=click.Choice(("ep1", "ep2")), default=None,
              help="Rules (default: the bot's episode; ep2 for external programs).")
@click.option("--start", type=int, default=None, help="Agent start (default: the map's).")
@click.option("--all-starts", is_flag=True, help="Play from every non-gateway node.")
@click.option("--tiebreak", type=click.Choice(("low", "high", "order")), default="low",
              show_default=True, help="How agent models break ties.")
@seed_option
@move_timeout_option
@init_timeout_option
@click.option("--memory-limit", type=click.IntRange(16), default=768, show_default=True,
              help="MB an external program may use (CodinGame: 768).")
@time_limit_option(60.0, "per bot and start for the worst-case agent's search")
@click.option("--max-replays", type=click.IntRange(1), default=None,
              help="Worst-case agent: the most lines played per bot and start (for a "
                   "program, each is a run from the start); UNKNOWN beyond.")
@click.option("--per-line", is_flag=True,
              help="Worst-case agent: judge every line on its own instead of merging lines "
                   "that reach the same position (for bots that decide from their history).")
@click.option("--no-fork", is_flag=True,
              help="Worst-case agent: run a program afresh from the start for every line. "
                   "By default a Python script (python3 bot.py) runs under a small host that "
                   "forks it where lines branch, so lines share the run of their common "
                   "prefix; a line lost in a forked run is confirmed by a fresh run.")
@json_option
@output_option("One game: its record (JSON); against the worst-case agent, the losing line, "
               "or the bot's strategy certificate when it is PROVED. A batch: JSONL records, "
               "one per game as it ends (each holds the full game record and the program's "
               "stderr).")
@force_option
@resume_option
@jobs_option
@quiet_option
def skynet_referee(maps, agent_names, bot_names, bot_cmds, rule, start, all_starts, tiebreak,
                   seed, move_timeout, init_timeout, memory_limit, time_limit, max_replays,
                   per_line, no_fork, as_json, output, force, resume, jobs, quiet) -> None:
    """Referee Skynet games: our bots, or any programs speaking the protocol, against agent
    models, over maps x starts x agents. Exit 0 if every game is won, 1 if any is lost.

    \b
    --agent worst is the worst case: every agent reply is searched against the bot
    (a program is rerun from the start for each line; a Python script is forked
    where lines branch instead, see --no-fork), cut short where the exact
    solver proves the bot's position lost. Per bot and start: PROVED (no agent
    beats it; its cuts form a strategy certificate that 'check skynet' replays),
    BEATEN (a start it could win, lost: the line), UNWINNABLE (no bot wins there;
    not counted as a failure) or UNKNOWN (--time-limit, --max-replays; not a
    failure, said plainly). Exit 1 when a bot is BEATEN.

    \b
    External programs (any language) get 150 ms a turn (--move-timeout) and 1 s
    for start-up and the first turn (--init-timeout), and 768 MB; a silent, dead,
    slow, greedy or garbled program gets a verdict, never a hang, and its stderr is
    kept in the record and shown for a lost game.

    \b
    Examples:
      puzzleproof skynet referee map.txt --agent article -- python3 mybot.py
      puzzleproof skynet referee maps/ --all-starts --agent article,nearest \\
          --bot-cmd 'mine=python3 mybot.py' --bot ep2-slack -j 2
    """
    import puzzleproof.verify.skynet_worst  # noqa: F401  (registers the 'worst' agent)
    from puzzleproof.cli.legacy import named_commands
    from puzzleproof.formats import skynet as sfmt
    from puzzleproof.verify.skynet_agents import AGENTS, make_agent
    from puzzleproof.verify.skynet_bots import BOTS, make_bot
    from puzzleproof.verify.skynet_referee import play, play_external

    # main() takes what follows '--' off the command line before Click parses it
    command: list[str] = list((click.get_current_context().find_root().obj or {})
                              .get("external", []))
    externals = named_commands(bot_cmds, "--bot-cmd")
    if command:
        name = Path(command[-1]).stem if len(command) > 1 else command[0]
        externals.setdefault(name or "program", command)
    if not externals and not bot_names:
        raise click.UsageError("give --bot NAME(S), --bot-cmd NAME=CMD, or an external "
                               "program after '--'")
    agents = split_names(agent_names, AGENTS, "agent")
    bots = split_names(bot_names, BOTS, "bot") if bot_names else []
    clash = [n for n in externals if n in bots]
    if clash:
        raise click.UsageError(f"--bot-cmd name {clash[0]!r} is one of our bots' names; "
                               "choose another")
    check_output(output, force or resume)
    loaded = _maps(maps)
    games = []
    starts_of: dict[str, list[int]] = {}
    episode1 = rule == "ep1" or (rule is None and any(BOTS[b]().rule == "ep1" for b in bots))
    for m in loaded:
        problems = m.ep1_problems() if episode1 else []
        if problems:
            say(f"note: {m.name} is not an Episode 1 map ({problems[0]}"
                + (f", and {len(problems) - 1} more" if len(problems) > 1 else "")
                + "); ep1 rules are applied all the same")
        if all_starts:
            starts = [x for x in range(m.n) if x not in m.gateways]
        else:
            st = start if start is not None else m.start
            if st is None:
                raise InputError("the map gives no start; pass --start or --all-starts", m.name)
            if not 0 <= st < m.n or st in m.gateways:
                raise InputError(f"start {st} must be a node 0..{m.n - 1} that is not a "
                                 "gateway", m.name)
            starts = [st]
        starts_of[m.name or ""] = starts
        for st in starts:
            for who in bots + list(externals):
                for a in agents:
                    games.append((m, st, who, a))
    if resume and not output:
        raise click.UsageError("--resume needs -o, the file of the run to continue")
    target = Path(output) if output else None
    limits = {"move_timeout": move_timeout or 0.150, "init_timeout": init_timeout or 1.0,
              "memory_limit": memory_limit}
    worst = {"per_line": per_line, "max_lines": max_replays, "time_limit": time_limit,
             "fork": not no_fork}
    if len(games) > 1:
        raise Exit(_referee_batch(loaded, starts_of, bots, agents, tiebreak, seed, rule, target,
                                  resume, jobs, as_json, quiet, externals, limits, worst=worst))
    m, st, who, a = games[0]
    if a == "worst":
        from puzzleproof.cli.skynet_worst import referee_worst

        raise Exit(referee_worst(m, st, who, externals, rule, limits, worst, jobs, target,
                                 force, as_json))
    agent = make_agent(a, tiebreak, seed)
    if who in externals:
        r = play_external(m, rule or "ep2", externals[who], agent, st, name=who, **limits)
    else:
        bot = make_bot(who)
        r = play(m, rule or bot.rule, bot, agent, st)
    rec = {"schema_version": 1, **sfmt.record_to_json(r)}
    if target:
        deliver(json.dumps(rec) + "\n", str(target), force)
    if as_json:
        emit(rec)
    else:
        _print_game(r)
    raise Exit(0 if r.result == "WIN" else 1)


def _referee_batch(maps, starts_of, bots, agents, tiebreak, seed, rule, target, resume, jobs,
                   as_json, quiet, externals=None, limits=None, time_limit=30.0,
                   worst=None) -> int:
    """Many games through the cross-check harness: processes, JSONL records, resume. Games
    against the agent ``worst`` are the adversary's searches (``worst``: its per_line,
    max_lines and time_limit)."""
    from puzzleproof.verify.crosscheck import run_crosscheck
    from puzzleproof.verify.skynet_methods import game_instances, games_kind, lost_game_lines

    worst = worst or {}
    kind = games_kind(bots, agents, tiebreak, seed, rule, external=externals or {},
                      per_line=worst.get("per_line", False),
                      max_lines=worst.get("max_lines"), fork_lines=worst.get("fork", True),
                      **(limits or {}))
    instances = game_instances(maps, starts_of)
    progress = progress_bar(quiet or as_json)
    with progress:
        task = progress.add_task("refereeing", total=None)
        from puzzleproof.cli.legacy import executor_for

        report = run_crosscheck(kind, instances, list(kind.methods), target, resume=resume,
                                jobs=executor_for(jobs), progress=lambda d, t, label:
                                progress.update(task, completed=d, total=t),
                                time_limit=worst.get("time_limit", time_limit))
    searched = [r for r in report.records if r["method"].endswith("/worst")]
    lost = [r for r in report.records if r["status"] != "WIN"
            and not r["method"].endswith("/worst")]
    judged = []
    if lost and not report.interrupted:
        from puzzleproof.verify.skynet_methods import judge_lost_games

        judged = judge_lost_games(report.records, instances, time_limit=time_limit)
    winnable = [j for j in judged if j.get("verdict") == "lost-proved-winnable"]
    batch = {"type": "skynet-batch", "games": len(report.records), "summary": report.summary(),
             "lost": [{"game": r["instance"], "method": r["method"], "status": r["status"],
                       "reason": (r.get("stats") or {}).get("reason"), "error": r.get("error")}
                      for r in lost], "judged": judged, "disagreements": report.disagreements}
    if not as_json:
        table = Table(title=f"{len(instances)} map/start pairs x {len(kind.methods)} bot/agent "
                            "pairs", title_justify="left")
        for col in ("bot/agent", "games", "won", "lost", "check failed", "cuts mean",
                    "cuts max", "max turn ms"):
            table.add_column(col, justify="left" if col == "bot/agent" else "right")
        for row in report.summary():
            if row["method"].endswith("/worst"):
                continue  # the worst-case agent's searches have a table of their own
            recs = [r for r in report.records if r["method"] == row["method"]]
            worst = max(((r.get("stats") or {}).get("max_turn_ms", 0) for r in recs), default=0)
            eff = row["mean_effort"]
            table.add_row(row["method"], str(row["instances"]), str(row["won"]),
                          str(row["lost"]), str(row["failed"]),
                          "" if eff is None else f"{eff:.1f}", str(row["max_effort"] or ""),
                          f"{worst:.2f}")
        if table.row_count:
            out.print(table)
        for r in sorted(lost, key=lambda x: (x["instance"], x["method"]))[:40]:
            why = (r.get("stats") or {}).get("reason") or r.get("error")
            detail = (r.get("answer") or {}).get("detail") if isinstance(r.get("answer"), dict) \
                else None
            out.print(f"  lost: {r['instance']} {r['method']}: {why}"
                      + (f" ({detail})" if detail else ""), markup=False)
            stderr = (r.get("answer") or {}).get("stderr") if isinstance(r.get("answer"), dict) \
                else None
            if stderr:
                tail = [ln for ln in str(stderr).splitlines() if ln.strip()][-3:]
                for ln in tail:
                    out.print(f"    stderr| {short(ln, 100)}", markup=False)
        if len(lost) > 40:
            out.print(f"  ... and {len(lost) - 40} more lost games"
                      + (f" (all in {target})" if target else ""), markup=False)
        if winnable:
            out.print(f"{plural(len(winnable), 'lost game')} on starts proved winnable (the "
                      "exact solver's strategy contains every agent there):", markup=False)
            for j in winnable[:20]:
                out.print(f"  {j['game']} {j['method']}: lost by {j.get('reason')}; "
                          f"losing line: {_line_text(j.get('losing_line'))}",
                          markup=False)
        others = len(judged) - len(winnable)
        if others:
            out.print(f"{plural(others, 'other lost game')} on starts proved lost or left "
                      "open by the solver's limit (no strategy is known to win there)",
                      markup=False)
        defects = [j for j in judged if j.get("defect")]
        if defects:
            out.print(f"{plural(len(defects), 'lost game')} ended by the program's own "
                      "failure, a defect whatever the start: " + ", ".join(
                          f"{j['game']} {j['method']} ({j.get('reason')})"
                          for j in defects[:10]) + (" ..." if len(defects) > 10 else ""),
                      markup=False)
        if report.disagreements:
            out.print(f"{plural(len(report.disagreements), 'game record')} fail the rules "
                      "check", markup=False)
    beaten = [r for r in searched if (r.get("stats") or {}).get("adversary") == "BEATEN"]
    if searched and not as_json:
        from puzzleproof.cli.skynet_worst import print_worst_summary

        print_worst_summary(searched)
    elif searched:
        from puzzleproof.cli.skynet_worst import worst_counts

        batch["worst_case"] = {
            "summary": worst_counts(searched),
            "beaten": [{"game": r["instance"], "method": r["method"],
                        "line": lost_game_lines((r.get("answer") or {}).get("record") or {})}
                       for r in beaten]}
    if as_json:
        emit(batch)  # one object: the worst-case agent's searches under "worst_case"
    if report.interrupted:
        say("interrupted" + (f"; rerun with --resume to finish {target}" if target else ""))
        return 130
    if report.disagreements:
        return 1
    return 0 if not lost and not beaten else 1


def _print_game(r) -> None:
    out.print(f"{r.map.name}: {r.bot} vs agent {r.agent} ({r.rule}, start {r.start}): "
              f"{r.result} ({r.reason}) after {plural(len(r.turns), 'turn')}, "
              f"{plural(r.cuts, 'cut')}"
              + (f"; {r.detail}" if r.detail else ""), markup=False)
    for k, t in enumerate(r.turns, start=1):
        cut = "-" if t.cut is None else f"{t.cut[0]}-{t.cut[1]}"
        moved = "" if t.agent_moved_to is None else f", agent -> {t.agent_moved_to}"
        ms = f" ({r.turn_seconds[k - 1] * 1000:.1f} ms)" if k <= len(r.turn_seconds) else ""
        out.print(f"  turn {k}: agent at {t.agent_at}, cut {cut}{ms}{moved}", markup=False)
    stderr = getattr(r, "stderr", None)
    if stderr and r.result != "WIN":
        out.print("  the program's stderr (last lines):", markup=False)
        for ln in [x for x in str(stderr).splitlines() if x.strip()][-10:]:
            out.print(f"    | {ln}", markup=False)


def _line_text(line) -> str:
    if isinstance(line, (list, tuple)):
        return "; ".join(str(x) for x in line)
    return str(line or "")


# the cross-check command lives in its own module; importing it registers it
from puzzleproof.cli import skynet_crosscheck  # noqa: E402,F401
from puzzleproof.cli import skynet_generate  # noqa: E402,F401

GROUPS = (skynet,)
