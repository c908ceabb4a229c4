"""The option vocabulary: every option a verb takes, defined once, with its range.

An :class:`Opt` says what a person types (``--time-limit``), the Python name the value
arrives under (``time_limit``), its type and range, its default and its help. The command
turns each into a Click option (one place, :mod:`puzzleproof.command.options`) and the Python API
checks keyword arguments against the same rows, so a value the command refuses is refused by
the API too, with the same message.

The rows shared by several puzzles are the constants below (the README's option table); a
puzzle's own options are rows of its plugin. :meth:`Opt.but` gives a row another default or
help phrase for one verb ("per puzzle" instead of "per instance") without making it another
option.

Example:
    >>> TIME_LIMIT.convert("2.5")
    2.5
    >>> TIME_LIMIT.convert("0")
    Traceback (most recent call last):
    ...
    ValueError: expected seconds, a number in the range above 0 to 1,000,000, found '0'
    >>> COUNT.but(default=5).default
    5
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from puzzleproof.games.program import DEFAULT_LIMITS, Limits

__all__ = ["Opt", "MAX_SECONDS", "OUTPUT", "FORCE", "FORMAT", "METHOD", "METHODS", "COUNT",
           "JOBS", "SCHEDULER", "SCHEDULER_FILE", "DASK", "WHERE", "TIME_LIMIT", "MOVE_TIMEOUT",
           "INIT_TIMEOUT", "MEMORY_LIMIT", "BOT_CMD", "SEED", "JSON", "JSONL", "QUIET", "RESUME", "CONFLICTS",
           "program_limits"]

#: The longest time limit or timeout the options take: about 11.6 days (a larger one is a
#: typo, or a way to switch the limit off that the tool does not offer).
MAX_SECONDS = 1e6
#: The largest whole number an option takes unless its row says less: beyond it a count is a
#: typo, and work that grows with it must not be attempted.
MAX_INT = 10**9


@dataclass(frozen=True)
class Opt:
    """One option. ``kind`` is ``"flag"``, ``"int"``, ``"float"``, ``"seconds"``, ``"str"``,
    ``"choice"`` or ``"path"``; numbers carry their inclusive range ``(low, high)`` (either
    may be None for no bound), choices their ``choices``. ``parse`` converts a custom value
    (it raises ValueError with the message a person reads). ``flag_value`` makes the value
    optional (``--no-paths`` alone means 4). ``multiple`` collects repeated uses into a
    tuple. ``expose`` False: the value is kept by the command (``--scheduler``) and does not
    reach the puzzle."""

    name: str
    flags: tuple[str, ...]
    help: str
    kind: str = "str"
    default: Any = None
    range: tuple[Any, Any] | None = None
    open_low: bool = False
    choices: tuple[str, ...] | None = None
    multiple: bool = False
    metavar: str | None = None
    parse: Callable[[str], Any] | None = None
    flag_value: Any = None
    show_default: bool = False
    expose: bool = True
    aliases: tuple[str, ...] = field(default=())

    def but(self, **changes: Any) -> "Opt":
        """The same option with another default, help or range for one verb."""
        return replace(self, **changes)

    # -- values -----------------------------------------------------------------------------

    def convert(self, value: Any) -> Any:
        """``value`` (a string from the command line, or a Python value from the API) as
        this option's type, within its range; ValueError with a message otherwise."""
        if value is None or (self.multiple and isinstance(value, (list, tuple))
                             and not value):
            return value
        if self.multiple and isinstance(value, (list, tuple)):
            return tuple(self._one(v) for v in value)
        return self._one(value)

    def _one(self, value: Any) -> Any:
        if self.parse is not None and isinstance(value, str):
            value = self.parse(value)
            # a custom parse still answers to the row's range
            return self._number(value) if self.kind in ("int", "float", "seconds") else value
        kind = self.kind
        if kind == "flag":
            if isinstance(value, bool):
                return value
            raise ValueError(f"expected true or false, found {value!r}")
        if kind == "choice":
            if value in (self.choices or ()):
                return value
            raise ValueError(f"expected one of {', '.join(self.choices or ())}, found "
                             f"{value!r}")
        if kind in ("int", "float", "seconds"):
            return self._number(value)
        if not isinstance(value, str):
            raise ValueError(f"expected text, found {value!r}")
        return value

    def _number(self, value: Any) -> Any:
        what = {"int": "a whole number", "float": "a number", "seconds": "seconds, a number"}[
            self.kind]
        low, high = self.bounds()
        try:
            if self.kind == "int":
                if isinstance(value, bool) or isinstance(value, float):
                    raise ValueError
                text = str(value).strip()
                if isinstance(value, str) and (not text.lstrip("+-").isdigit()
                                               or not text.isascii() or len(text) > 30):
                    raise ValueError
                x: Any = int(text)
            else:
                if isinstance(value, bool):
                    raise ValueError
                x = float(value)
                if not math.isfinite(x):
                    raise ValueError
        except (TypeError, ValueError):
            raise ValueError(f"expected {what}{self._range_text()}, found {value!r}") from None
        if (low is not None and (x < low or (self.open_low and x == low))) or \
                (high is not None and x > high):
            raise ValueError(f"expected {what}{self._range_text()}, found {value!r}")
        return x

    def bounds(self) -> tuple[Any, Any]:
        """The inclusive range (seconds: above 0, at most :data:`MAX_SECONDS`; whole numbers
        at most :data:`MAX_INT` unless the row says otherwise)."""
        if self.kind == "seconds":
            low, high = self.range or (0, MAX_SECONDS)
            return low, high
        if self.kind == "int":
            low, high = self.range or (None, None)
            return low, MAX_INT if high is None else high
        return self.range or (None, None)

    def _range_text(self) -> str:
        low, high = self.bounds()
        if low is None and high is None:
            return ""
        lo = "any" if low is None else (f"above {_num(low)}" if self.open_low else _num(low))
        hi = "any" if high is None else _num(high)
        return f" in the range {lo} to {hi}"

    def range_help(self) -> str:
        """The range as the help shows it: ``[1 to 64]``."""
        low, high = self.bounds()
        if self.kind not in ("int", "float", "seconds"):
            return ""
        if low is None and high is None:
            return ""
        if high is None:
            return f"[above {_num(low)}]" if self.open_low else f"[{_num(low)} or more]"
        lo = "" if low is None else (f">{_num(low)}" if self.open_low else _num(low))
        return f"[{lo or '...'} to {_num(high)}]"


def _num(x: Any) -> str:
    """A bound as a person reads it: ``1,000,000``, ``0.5``."""
    if isinstance(x, int) or float(x).is_integer():
        return f"{int(x):,}"
    return f"{x:g}"


# -- the rows shared by the puzzles (the README's option table) ---------------------------

OUTPUT = Opt("output", ("-o", "--output"), "Where the result goes.", kind="path")
FORCE = Opt("force", ("--force",), "Overwrite the -o file if it exists.", kind="flag",
            default=False)
FORMAT = Opt("out_format", ("--format",), "What -o holds (default: from its extension).",
             kind="choice", choices=())
METHOD = Opt("method", ("--method",), "Method by name.",
             metavar="NAME")
METHODS = METHOD.but(help="Methods by name, comma-separated.", metavar="NAME[,NAME...]")
COUNT = Opt("count", ("-n", "--count"), "How many.", kind="int", default=1, range=(1, None),
            show_default=True)
JOBS = Opt("jobs", ("-j", "--jobs"), "Local processes for a batch (default: the number of "
           "cores; at most 4 per core and one per task).", kind="int", range=(1, 1024))
SCHEDULER = Opt("scheduler", ("--scheduler",), "Run the batch on the Dask cluster whose "
                "scheduler is at this address (started with 'dask scheduler' and 'dask "
                "worker').", metavar="tcp://HOST:8786", expose=False,
                parse=lambda text: _address(text))
SCHEDULER_FILE = Opt("scheduler_file", ("--scheduler-file",), "Run the batch on the Dask "
                     "cluster whose scheduler wrote this file ('dask scheduler "
                     "--scheduler-file FILE'; dask-jobqueue and dask-mpi write one too).",
                     kind="path", metavar="FILE", expose=False)
DASK = Opt("dask_workers", ("--dask",), "Run the batch on a local Dask cluster of N worker "
           "processes, started for it and torn down at its end.", kind="int", range=(1, 256),
           metavar="N", expose=False)
TIME_LIMIT = Opt("time_limit", ("--time-limit",), "Seconds per instance; when they run out "
                 "the answer is UNKNOWN, naming the limit.", kind="seconds", open_low=True)
MOVE_TIMEOUT = Opt("move_timeout", ("--move-timeout",),
                   "Seconds an external program or bot file has per move.", kind="seconds",
                   open_low=True)
INIT_TIMEOUT = Opt("init_timeout", ("--init-timeout",),
                   "Seconds for an external program's start-up and first move.",
                   kind="seconds", open_low=True)
MEMORY_LIMIT = Opt("memory_limit", ("--memory-limit",), "MB an external program may use.",
                   kind="int", default=768, range=(16, 1 << 20), show_default=True)
BOT_CMD = Opt("bot_cmds", ("--bot-cmd",), "An external program to judge, "
              "NAME=COMMAND (repeatable, each named).", multiple=True, metavar="NAME=CMD")
SEED = Opt("seed", ("--seed",), "Seed of every random choice (same seed, same output).",
           kind="int", default=0, range=(0, 2**63 - 1), show_default=True)
JSON = Opt("as_json", ("--json",), "Print one JSON object (scripts).", kind="flag",
           default=False)
JSONL = Opt("as_jsonl", ("--jsonl",), "Print one JSON record a line, each with a 'type' "
            "field (scripts).", kind="flag", default=False)
QUIET = Opt("quiet", ("-q", "--quiet"), "No progress bar on stderr.", kind="flag",
            default=False)
RESUME = Opt("resume", ("--resume",), "Continue the run recorded in -o: skip what is done, "
             "add the rest.", kind="flag", default=False)
CONFLICTS = Opt("conflicts", ("--conflicts",), "SAT conflict budget; UNKNOWN naming it when "
                "spent (a deterministic limit: the same answer on any machine).", kind="int",
                range=(1, None))

#: where a batch runs: -j N local processes, or a Dask cluster
WHERE = (JOBS, SCHEDULER, SCHEDULER_FILE, DASK)

_SCHEMES = ("tcp://", "tls://", "inproc://", "ws://", "wss://", "ucx://")


def _address(text: str) -> str:
    """A Dask scheduler's address: ``HOST:PORT`` or ``SCHEME://HOST:PORT``."""
    text = text.strip()
    if not text or any(c.isspace() for c in text) or len(text) > 500:
        raise ValueError(f"expected a scheduler address such as tcp://HOST:8786, found "
                         f"{text!r}")
    if "://" in text and not text.startswith(_SCHEMES):
        raise ValueError(f"expected an address of scheme {', '.join(s[:-3] for s in _SCHEMES)}"
                         f", found {text!r}")
    rest = text.split("://", 1)[-1]
    host, sep, port = rest.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"expected HOST:PORT (a port from 1 to 65535), found {text!r}")
    return text if "://" in text else f"tcp://{text}"


def program_limits(p: Any, base: Limits | None = None) -> Limits:
    """A program's limits from a verb's options (``--init-timeout``, ``--move-timeout``,
    ``--memory-limit``), each left out falling back to ``base`` (CodinGame's by default:
    :data:`puzzleproof.games.program.DEFAULT_LIMITS`)."""
    base = base or DEFAULT_LIMITS
    return Limits(first=p.get("init_timeout") or base.first,
                  turn=p.get("move_timeout") or base.turn,
                  memory_mb=p.get("memory_limit") if "memory_limit" in p else base.memory_mb)
