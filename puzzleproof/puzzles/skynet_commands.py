"""Skynet Revolution's own verbs: ``skynet play`` (speak CodinGame's protocol with one of
our bots) and ``skynet referee`` (bots and programs against agent models). The shared verbs
are the plugin's (:mod:`puzzleproof.puzzles.skynet`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from puzzleproof.command.output import (Exit, cores, deliver, emit, executor_for,
                                    named_commands, progress_bar, say, show)
from puzzleproof.command.options import option
from puzzleproof.command.build import inputs_of, usage_errors
from puzzleproof.command.runs import finish, prepare_output
from puzzleproof.errors import InputError
from puzzleproof.games.program import Program
from puzzleproof.puzzles.base import Page, Params
from puzzleproof.puzzles.options import (BOT_CMD, FORCE, INIT_TIMEOUT, JSON, MEMORY_LIMIT,
                                         program_limits,
                                         MOVE_TIMEOUT, OUTPUT, QUIET, RESUME, SEED, TIME_LIMIT,
                                         WHERE, Opt)
from puzzleproof.puzzles.skynet_options import (AGENTS, ALL_STARTS, MAX_REPLAYS, NO_FORK,
                                                PER_LINE, RULE, START, TIEBREAK,
                                                split_names, starts_of,
                                                stamp_certificate, worst_options)

__all__ = ["COMMANDS", "skynet"]


def _bot_summaries() -> dict[str, str]:
    """Our bots by name with one line each (help texts list them)."""
    from puzzleproof.players.skynet_bots import BOTS, SUMMARIES

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
    from puzzleproof.players.skynet_bots import BOTS, make_bot

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


REFEREE_ROWS = (
    AGENTS,
    Opt("bot_names", ("--bot",), "Our bot(s), comma-separated: " + ", ".join(_bot_summaries())
        + " ('skynet play --help' says what each does; exact plays the proved strategy)."),
    BOT_CMD.but(help="An external program speaking CodinGame's protocol, in any language; "
                     "repeatable, each named ('mine=python3 bot.py'). '-- CMD' gives one "
                     "unnamed program."),
    RULE.but(default=None, show_default=False, help="Rules (default: the rule of the map's "
             "set, as an Episode 1 set's SET.json says; else the bot's episode, and ep2 for "
             "external programs). ep2: only links that touch a gateway may be cut; ep1: any "
             "link."),
    START, ALL_STARTS.but(help="Play from every non-gateway node."), TIEBREAK, SEED,
    MOVE_TIMEOUT.but(help="Seconds an external program has per move (default 0.15, as "
                          "CodinGame)."),
    INIT_TIMEOUT.but(help="Seconds for an external program's start-up and first move "
                          "(default 1)."),
    MEMORY_LIMIT.but(help="MB an external program may use (CodinGame: 768)."),
    TIME_LIMIT.but(default=60.0, show_default=True, help="Seconds per bot and start for the "
                   "worst-case agent's search; when they run out the start is UNKNOWN."),
    MAX_REPLAYS, PER_LINE, NO_FORK, JSON,
    OUTPUT.but(help="One game: its record (JSON); against the worst-case agent, the losing "
                    "line, or the bot's strategy certificate when it is PROVED. A batch: JSONL "
                    "records, one per game as it ends (each holds the full game record and "
                    "the program's stderr). Never overwrites an existing file unless --force."),
    FORCE, RESUME, *WHERE, QUIET)


def _rows(f: Any) -> Any:
    for row in reversed(REFEREE_ROWS):
        f = option(row)(f)
    return f


@skynet.command(name="referee")
@click.argument("maps", nargs=-1, required=True)
@_rows
@usage_errors
def skynet_referee(maps: tuple[str, ...], **values: Any) -> None:
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
    Under ep2 a cut must be a link that touches a gateway (CodinGame's rule for
    Episode 2); a program that cuts another link loses at once (illegal cut).

    \b
    Examples:
      puzzleproof skynet referee map.txt --agent article -- python3 mybot.py
      puzzleproof skynet referee maps/ --all-starts --agent article,nearest \\
          --bot-cmd 'mine=python3 mybot.py' --bot ep2-slack -j 2
    """
    from puzzleproof.players.skynet_agents import AGENTS as KNOWN_AGENTS
    from puzzleproof.players.skynet_bots import BOTS

    p = Params(values, maps=maps)
    bots = split_names(p.bot_names, BOTS, "bot") if p.bot_names else []
    externals = _externals(p, bots)
    agents = split_names(p.agent_names, KNOWN_AGENTS, "agent")
    prepare_output(p, "skynet", "skynet referee")
    loaded, starts = _maps_and_starts(p, bots)
    games = [(m, st, who, a) for m in loaded for st in starts[m.name or ""]
             for who in bots + list(externals) for a in agents]
    if len(games) > 1:
        raise Exit(_batch(p, loaded, starts, bots, agents, externals))
    m, st, who, a = games[0]
    if a == "worst":
        raise Exit(_worst_one(p, m, st, who, externals))
    raise Exit(_one_game(p, m, st, who, a, externals))


def _externals(p: Params, bots: list[str]) -> dict[str, Program]:
    """The programs of --bot-cmd and after '--' (main() takes those off the command line
    before Click parses it), checked before any work."""
    command: list[str] = list((click.get_current_context().find_root().obj or {})
                              .get("external", []))
    limits = program_limits(p)
    externals = named_commands(tuple(p.bot_cmds or ()), "--bot-cmd", taken=bots, limits=limits)
    if command:
        program = Program.of(command, limits=limits)
        externals.setdefault(program.name, program)
    if not externals and not bots:
        raise click.UsageError("give --bot NAME(S), --bot-cmd NAME=CMD, or an external "
                               "program after '--'")
    return externals


def _maps_and_starts(p: Params, bots: list[str]) -> tuple[list, dict[str, list[int]]]:
    from puzzleproof import puzzles as registry
    from puzzleproof.players.skynet_bots import BOTS

    g = inputs_of().gather(p.maps, registry.get("skynet"))
    if g.errors:
        raise g.errors[0][1]
    if g.skipped_text():
        say(g.skipped_text())
    loaded = [ld.instance for ld in g.loaded]
    for m in loaded:
        episode1 = (p.rule or m.rule) == "ep1" or (p.rule is None and m.rule is None and any(
            BOTS[b]().rule == "ep1" for b in bots))
        problems = m.ep1_problems() if episode1 else []
        if problems:
            say(f"note: {m.name} is not an Episode 1 map ({problems[0]}"
                + (f", and {len(problems) - 1} more" if len(problems) > 1 else "")
                + "); ep1 rules are applied all the same")
    return loaded, {m.name or "": starts_of(m, p.start, p.all_starts) for m in loaded}


def _batch(p: Params, loaded: list, starts: dict, bots: list[str], agents: list[str],
           externals: dict) -> int:
    from puzzleproof.puzzles.skynet_views import batch_page
    from puzzleproof.verify.skynet_referee_batch import referee_batch

    target = Path(p.output) if p.output else None
    with progress_bar(p.quiet or p.as_json) as progress:
        bar = progress.add_task("refereeing", total=None)
        batch = referee_batch(loaded, starts, bots, agents, p.tiebreak, p.seed, p.rule, target,
                              bool(p.resume), executor_for(p.jobs), externals,
                              worst=worst_options(p),
                              progress=lambda d, t, label: progress.update(bar, completed=d,
                                                                           total=t))
    if batch.report.interrupted:
        say("interrupted" + (f"; rerun with --resume to finish {target}" if target else ""))
    finish("skynet", "skynet referee", batch.record(), batch_page(batch, target), batch.code,
           target, bool(p.as_json))
    return batch.code


def _worst_one(p: Params, m: Any, st: int, who: str, externals: dict) -> int:
    """One bot against the adversary from one start: the verdict, the line or the proof."""
    from puzzleproof.formats import skynet as sfmt
    from puzzleproof.puzzles.skynet_views import game_page
    from puzzleproof.verify.skynet_referee_batch import worst_one

    res, rule = worst_one(m, st, who, externals, p.rule, worst_options(p), p.jobs or cores())
    if p.output and res.record is not None:
        deliver(json.dumps({"schema_version": 1, **sfmt.record_to_json(res.record)}) + "\n",
                p.output, p.force)
    elif p.output and res.certificate is not None:
        deliver(json.dumps(stamp_certificate(res.certificate, m, rule, st)) + "\n",
                p.output, p.force)
    elif p.output:
        say(f"nothing written to {p.output}: the search is {res.verdict}")
    if p.as_json:
        emit({"schema_version": 1, **res.to_json(), "map": m.name})
    else:
        page = Page().line(f"{m.name}: {who} vs the worst-case agent ({rule}, start {st}): "
                           + res.summary())
        if res.record is not None:
            page.extend(game_page(res.record))
        show(page)
    return 1 if res.verdict == "BEATEN" else 0


def _one_game(p: Params, m: Any, st: int, who: str, a: str, externals: dict) -> int:
    from puzzleproof.formats import skynet as sfmt
    from puzzleproof.puzzles.skynet_views import game_page
    from puzzleproof.clock import Deadline
    from puzzleproof.verify.skynet_methods import games_kind

    # one game is a batch of one: the batch's own method plays it
    kind = games_kind([] if who in externals else [who], [a], p.tiebreak, p.seed, p.rule,
                      external={who: externals[who]} if who in externals else {})
    res = kind.methods[f"{who}/{a}"]((m.with_start(st), st), deadline=Deadline(None))
    r = sfmt.record_from_json(json.dumps(res.answer))
    r.stderr = res.answer.get("stderr", "")  # type: ignore[attr-defined]
    rec = {"schema_version": 1, **sfmt.record_to_json(r)}
    if p.output:
        deliver(json.dumps(rec) + "\n", p.output, p.force)
    if p.as_json:
        emit(rec)
    else:
        show(game_page(r))
    return 0 if r.result == "WIN" else 1


COMMANDS = (skynet,)
