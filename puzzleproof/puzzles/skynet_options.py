"""Skynet's option rows, shared by its verbs and its game verbs (``skynet referee``), and
the two things every Skynet verb does with a map: the starts asked for, and a certificate
stamped with its map, rule and start."""

from __future__ import annotations

import json
from typing import Any

from puzzleproof.errors import InputError, UsageError
from puzzleproof.puzzles.options import Opt

RULE = Opt("rule", ("--rule",), "ep2: only links that touch a gateway may be cut; ep1: any "
           "link.", kind="choice", choices=("ep1", "ep2"), default="ep2", show_default=True)
START = Opt("start", ("--start",), "Agent start (default: the map's).", kind="int",
            range=(0, None))
ALL_STARTS = Opt("all_starts", ("--all-starts",), "Every start node of each map (every "
                 "node that is not a gateway).", kind="flag", default=False)
MIN_CUTS = Opt("min_cuts", ("--min-cuts",), "Also the value: the fewest cuts that contain "
               "the agent whatever it does.", kind="flag", default=False)
HORIZON = Opt("horizon", ("--horizon", "-H"), "Only ask: can the player contain the agent "
              "within H cuts? (A horizon beyond the map's links asks the verdict.)",
              kind="int", range=(0, 1_000_000))
SOLVER = Opt("method", ("--method",), "sat: CEGAR with two incremental SAT "
             "solvers; explicit: memoised minimax over (agent node, links left).",
             kind="choice", choices=("sat", "explicit"), default="sat", show_default=True)


def starts_of(m: Any, start: int | None, all_starts: bool) -> list[int]:
    """The starts asked for on map ``m``: every non-gateway node, the one given, or the
    map's; an :class:`InputError` naming the map when there is none or it is a gateway."""
    if all_starts:
        if start is not None:
            raise UsageError("--start and --all-starts do not go together")
        return [v for v in range(m.n) if v not in m.gateways]
    s = m.start if start is None else start
    if s is None:
        raise InputError("the map gives no start; pass --start or --all-starts", m.name)
    if not 0 <= s < m.n or s in m.gateways:
        raise InputError(f"start {s} must be a node 0..{m.n - 1} that is not a gateway", m.name)
    return [s]


def stamp_certificate(cert: dict, m: Any, rule: str, start: int) -> dict:
    """A certificate file says what it is, for which map, rule and start: ``check`` and
    ``render`` need no options to read it back."""
    from puzzleproof.formats import skynet as sfmt

    return {"schema_version": 1, **cert, "rule": rule, "start": start,
            "map": json.loads(sfmt.write_map(m, "json"))}


def _bot_names() -> str:
    from puzzleproof.players.skynet_bots import BOTS

    return ", ".join(BOTS)


AGENTS = Opt("agent_names", ("--agent",), "Agent model(s), comma-separated: article (the "
             "Episode 2 article's model), nearest (nearest gateway), random, worst (searches "
             "every agent line for one that beats the bot; a program is rerun per line, or "
             "forked where lines branch for a Python script).", default="article",
             show_default=True)
TIEBREAK = Opt("tiebreak", ("--tiebreak",), "How agent models break ties.", kind="choice",
               choices=("low", "high", "order"), default="low", show_default=True)
MAX_REPLAYS = Opt("max_replays", ("--max-replays",), "Worst-case agent: the most lines "
                  "played per bot and start (for a program, each is a run from the start); "
                  "UNKNOWN beyond.", kind="int", range=(1, None))
PER_LINE = Opt("per_line", ("--per-line",), "Worst-case agent: judge every line on its own "
               "instead of merging lines that reach the same position (for bots that decide "
               "from their history).", kind="flag", default=False)
NO_FORK = Opt("no_fork", ("--no-fork",), "Worst-case agent: run a program afresh from the "
              "start for every line. By default a Python script (python3 bot.py) runs under "
              "a small host that forks it where lines branch, so lines share the run of "
              "their common prefix; a line lost in a forked run is confirmed by a fresh run.",
              kind="flag", default=False)


def worst_options(p: Any) -> dict:
    """The worst-case agent's settings from the option values."""
    return {"per_line": bool(p.get("per_line")), "max_lines": p.get("max_replays"),
            "time_limit": p.get("time_limit"), "fork": not p.get("no_fork")}


def split_names(value: str | None, known: Any, what: str) -> list[str]:
    """``"a,b"`` -> ``["a", "b"]``, each one of ``known``, else a usage error."""
    names = [x.strip() for x in (value or "").split(",") if x.strip()]
    bad = [x for x in names if x not in known]
    if bad:
        raise UsageError(f"unknown {what} {', '.join(bad)}; expected one of "
                         f"{', '.join(known)}")
    return names
