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

A program made from a command here (:meth:`Program.parse`, :meth:`Program.of`) is **pinned**
to this machine: its folder is this process's (absolute), and the files its command names
(``bot.py`` in ``python3 bot.py``, ``./solver``) are listed with their SHA-256. A batch that
runs it on Dask workers checks at connect that each worker sees the folder and the same
files at the same paths (:func:`reach_check`: a shared folder), and refuses the run naming
what a worker lacks; without that, a program whose script a worker cannot reach would be
judged by what it could not run.

Example:
    >>> p = Program.parse("mine=python3 bot.py --fast", check_exists=False)
    >>> p.name, p.command, p.limits.turn
    ('mine', ('python3', 'bot.py', '--fast'), 0.15)
    >>> Program.parse("python3 solver.py", check_exists=False).name
    'solver'
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shlex
import shutil
from dataclasses import dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

__all__ = ["Limits", "Program", "DEFAULT_LIMITS", "NAME_PATTERN", "programs_in", "reach_check"]

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
    of) the judge's own environment. ``files``: ``(absolute path, SHA-256)`` of the files
    its command names, as seen where it was pinned (:meth:`pinned`)."""

    name: str
    command: tuple[str, ...]
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    limits: Limits = DEFAULT_LIMITS
    files: tuple[tuple[str, str], ...] = ()

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
            return cls(name, tuple(argv), limits=limits).pinned()
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
                   argv, limits=limits).pinned()

    def pinned(self) -> "Program":
        """This program as this machine sees it: its folder made absolute (this process's
        when it has none) and the files its command names listed with their digests: an
        argument that is a file relative to the folder, and the command itself when it is
        a path (``./solver``), not a name found on the PATH."""
        cwd = os.path.abspath(self.cwd or os.getcwd())
        found = []
        for k, arg in enumerate(self.command):
            if k == 0 and os.sep not in arg:
                continue
            path = os.path.join(cwd, arg)
            if os.path.isfile(path):
                found.append((os.path.abspath(path), _digest(path)))
        return replace(self, cwd=cwd, files=tuple(found))

    def reach_problems(self) -> list[str]:
        """What keeps this program from running here as it was pinned: its folder absent,
        its command not found, a file it names absent or different (each in words)."""
        out = []
        if self.cwd is not None and not os.path.isdir(self.cwd):
            out.append(f"its folder {self.cwd} is not there")
        first = self.command[0]
        if os.sep in first:
            ok = os.access(os.path.join(self.cwd or os.getcwd(), first), os.X_OK)
        else:
            ok = shutil.which(first, path=(self.env.get("PATH") if self.env else None)) \
                is not None
        if not ok:
            out.append(f"its command {first!r} is not found (not on the PATH, or not an "
                       "executable file)")
        for path, digest in self.files:
            if not os.path.isfile(path):
                out.append(f"{path} is not there")
            elif _digest(path) != digest:
                out.append(f"{path} differs from the client's (another SHA-256)")
        return [f"program {self.name!r}: {p}" for p in out]

    def identity(self) -> tuple:
        """What makes two programs the same run: command, folder, environment, limits, and
        the size and time of each file the command names (an edited script is a new
        program)."""
        files = []
        for arg in self.command:
            try:
                st = os.stat(arg)
            except (OSError, ValueError):
                continue
            files.append((arg, st.st_size, st.st_mtime_ns))
        return (self.command, tuple(files), self.limits, self.cwd,
                tuple(sorted(self.env.items())))

    def with_limits(self, limits: Limits) -> "Program":
        return replace(self, limits=limits)

    @property
    def text(self) -> str:
        """The command as a person would type it."""
        return " ".join(shlex.quote(a) for a in self.command)


@functools.lru_cache(maxsize=256)
def _digest_of(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _digest(path: str) -> str:
    """The SHA-256 of a file (cached while its size and time stay)."""
    st = os.stat(path)
    return _digest_of(os.path.abspath(path), st.st_size, st.st_mtime_ns)


def programs_in(*objs: Any, depth: int = 4) -> list[Program]:
    """The programs inside ``objs``: a :class:`Program`, or one held by a method's ``run``,
    a ``functools.partial``'s arguments, a dataclass's fields, a list, tuple or dict's
    values (``depth`` levels down), each once, in the order met."""
    out: list[Program] = []

    def walk(x: Any, d: int) -> None:
        if isinstance(x, Program):
            if x not in out:
                out.append(x)
            return
        if d <= 0 or isinstance(x, (str, bytes, int, float)):
            return
        if isinstance(x, functools.partial):
            items: Iterable[Any] = [x.func, *x.args, *x.keywords.values()]
        elif isinstance(x, dict):
            items = x.values()
        elif isinstance(x, (list, tuple, set, frozenset)):
            items = x
        elif is_dataclass(x) and not isinstance(x, type):
            items = [getattr(x, f.name, None) for f in fields(x)]
        else:
            return
        for y in items:
            walk(y, d - 1)

    for obj in objs:
        walk(obj, depth)
    return out


def _unreachable(programs: tuple[Program, ...]) -> list[str]:
    return [p for program in programs for p in program.reach_problems()]


def reach_check(programs: Iterable[Program]) -> list[Any]:
    """The executor's checks (:func:`puzzleproof.executor.open_pool`) for ``programs``: on
    each Dask worker, what keeps one of them from running there as pinned here (empty
    when there is no program)."""
    progs = tuple(programs)
    return [functools.partial(_unreachable, progs)] if progs else []
