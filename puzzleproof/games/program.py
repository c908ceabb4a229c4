"""What a player program is: one description for every puzzle and every verb.

A user's program (a Skynet bot, a Hashi or city-closing solver) is a :class:`Program`: a
name (it names records and files), the command that starts it, where it runs and with
which environment, and its :class:`Limits` (start-up and first answer, each later answer,
memory). Every route that runs one (a single game, the worst-case agent, a batch, a hunt
for the instance that breaks it) takes this description and starts it through
:mod:`puzzleproof.games.runner`, the one place a program's process is started.

The defaults are CodinGame's, written here once: 1 s for start-up and the first answer,
150 ms for each later one, 768 MB of memory. A puzzle whose programs live by other limits
(Death Run's bot files: 5 s to load, 1 s a move) says so in its own option rows.

Example:
    >>> p = Program.parse("mine=python3 bot.py --fast", check_exists=False)
    >>> p.name, p.command, p.limits.turn
    ('mine', ('python3', 'bot.py', '--fast'), 0.15)
    >>> Program.parse("python3 solver.py", check_exists=False).name
    'solver'
"""

from __future__ import annotations

import re
import shlex
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping, Sequence

__all__ = ["Limits", "Program", "DEFAULT_LIMITS", "NAME_PATTERN"]

#: a program's name: a word that can name a record, a table column and a file
NAME_PATTERN = r"\w[\w.+-]{0,63}"


@dataclass(frozen=True)
class Limits:
    """How long a program may take and how much memory it may use: ``first`` seconds for
    start-up and its first answer, ``turn`` for each later answer (a game's turn), and
    ``memory_mb`` megabytes of address space (None: no limit). A program that answers a
    puzzle once has the task's own deadline, capped by nothing here but memory."""

    first: float = 1.0
    turn: float = 0.150
    memory_mb: float | None = 768

    def __post_init__(self) -> None:
        for what, value in (("the first answer's limit", self.first),
                            ("the limit per answer", self.turn)):
            if not value > 0:
                raise ValueError(f"{what} must be a positive number of seconds, "
                                 f"found {value!r}")
        if self.memory_mb is not None and not self.memory_mb > 0:
            raise ValueError(f"the memory limit must be a positive number of MB, found "
                             f"{self.memory_mb!r}")


#: CodinGame's limits, the defaults of every program
DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class Program:
    """A program to judge (see the module docstring). ``env`` adds to (or replaces names
    of) the judge's own environment."""

    name: str
    command: tuple[str, ...]
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    limits: Limits = DEFAULT_LIMITS

    def __post_init__(self) -> None:
        if not self.command:
            raise ValueError(f"program {self.name!r}: an empty command")
        if not re.fullmatch(NAME_PATTERN, self.name):
            raise ValueError(f"the name {self.name!r} must be a word of letters, digits and "
                             ". _ + - (at most 64; no '/' or space)")

    @classmethod
    def parse(cls, value: str, limits: Limits = DEFAULT_LIMITS, *,
              check_exists: bool = True) -> "Program":
        """``NAME=COMMAND`` (or a bare ``COMMAND``, named after its last word's stem) as a
        program; ValueError with the message a person reads when it is not one (an empty
        name or command, a name that is not a word, a program that is not on the PATH)."""
        name, sep, cmd = value.partition("=")
        if sep and not name.strip():
            raise ValueError(f"{value!r}: expected NAME=COMMAND, the name is empty")
        if not sep or " " in name.strip():
            name, cmd = "", value
        try:
            argv = shlex.split(cmd)
        except ValueError as exc:
            raise ValueError(f"{value!r}: {exc}") from None
        if not argv:
            raise ValueError(f"{value!r}: expected NAME=COMMAND")
        if check_exists and shutil.which(argv[0]) is None:
            raise ValueError(f"{value!r}: no program {argv[0]!r} (not on PATH, or not an "
                             "executable file)")
        name = name.strip() or Path(argv[-1]).stem or argv[0]
        try:
            return cls(name, tuple(argv), limits=limits)
        except ValueError as exc:
            raise ValueError(f"{value!r}: {exc}") from None

    @classmethod
    def of(cls, command: str | Sequence[str], name: str | None = None,
           limits: Limits = DEFAULT_LIMITS) -> "Program":
        """A program from its command (a list of arguments, or a string split as a POSIX
        shell would), named ``name`` or after the command."""
        argv = tuple(shlex.split(command) if isinstance(command, str) else map(str, command))
        if not argv:
            raise ValueError("an empty command")
        return cls(name or re.sub(r"[^\w.+-]", "_", Path(argv[-1]).stem or "program")[:64],
                   argv, limits=limits)

    def with_limits(self, limits: Limits) -> "Program":
        return replace(self, limits=limits)

    @property
    def text(self) -> str:
        """The command as a person would type it."""
        return " ".join(shlex.quote(a) for a in self.command)
