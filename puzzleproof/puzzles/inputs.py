"""Gathering a verb's inputs: files, folders, globs, ``-``, ``FILE#N`` and literal strings,
each read once and classified through the registry.

A :class:`Inputs` keeps what it has read, so the command that first works out which puzzles
its inputs hold (:meth:`Inputs.detect`) does not read them again when it runs each puzzle
(:meth:`Inputs.gather`). With the puzzle named, only that puzzle's reader runs on a file
(the others are asked only to say what a file it cannot read is).
"""

from __future__ import annotations

import glob
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from puzzleproof.errors import InputError
from puzzleproof.formats import read_source
from puzzleproof.instance import Loaded
from puzzleproof.puzzles.classify import (Classified, classify_text, folder_suffixes,
                                          is_not_instance_name)

__all__ = ["Gathered", "Inputs", "expand", "split_record", "article", "plural"]


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 turn``, ``2 turns``."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


@dataclass
class Gathered:
    """Instances of one puzzle found in the inputs, the files skipped (with why), and the
    inputs that could not be read."""

    loaded: list[Loaded] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    errors: list[tuple[str, InputError]] = field(default_factory=list)

    def skipped_text(self) -> str | None:
        """One line naming what was skipped, by reason (None when nothing was)."""
        if not self.skipped:
            return None
        kinds: dict[str, list[str]] = {}
        for arg, why in self.skipped:
            kinds.setdefault(why, []).append(arg)
        parts = []
        for why, args in sorted(kinds.items()):
            text = f"{plural(len(args), 'file')} ({why}"
            if why == "read by no puzzle":
                text += ": " + ", ".join(Path(a).name for a in args[:5]) + \
                    (f" and {len(args) - 5} more" if len(args) > 5 else "")
            parts.append(text + ")")
        return "skipped " + ", ".join(parts)


def _walk(folder: Path) -> list[Path]:
    suffixes = folder_suffixes()
    return sorted(f for f in folder.rglob("*") if f.is_file() and f.suffix.lower() in suffixes
                  and not is_not_instance_name(f)
                  and not any(part.startswith(".") for part in f.relative_to(folder).parts))


def _is_path(arg: str, test: str) -> bool:
    """``Path(arg).is_dir()`` (or ``is_file``, ``exists``), False for a string that cannot be
    a file name (a Tatham game ID longer than the system allows: ENAMETOOLONG)."""
    try:
        return getattr(Path(arg), test)()
    except (OSError, ValueError):
        return False


def split_record(arg: str) -> tuple[str, int | None]:
    """``set.jsonl#3`` names the third record of ``set.jsonl`` (as tables print it)."""
    base, sep, k = arg.rpartition("#")
    if sep and k.isdigit() and k.isascii() and len(k) < 10 and _is_path(base, "is_file"):
        return base, int(k)
    return arg, None


def could_be_input(arg: str) -> bool:
    """Whether ``arg`` names something a verb can read: a file, a folder, a glob that
    matches, ``-`` or ``FILE#N`` (a literal string is tried by the puzzles separately)."""
    if arg == "-" or _is_path(arg, "exists"):
        return True
    if any(ch in arg for ch in "*[") and glob.glob(arg, recursive=True):
        return True
    return split_record(arg)[1] is not None


def expand(args: Sequence[str]) -> list[tuple[str, bool]]:
    """Arguments -> ``(path or literal, came from a folder walk)``: folders are walked
    (sorted), glob patterns expanded."""
    found: list[tuple[str, bool]] = []
    for arg in args:
        if arg == "":
            raise InputError("an empty argument; expected a file, a folder or a puzzle")
        p = Path(arg)
        if any(ch in arg for ch in "*[") and not _is_path(arg, "exists"):
            hits = sorted(h for h in glob.glob(arg, recursive=True) if Path(h).is_file())
            if not hits:
                raise InputError("the pattern matches no file", arg)
            found += [(h, False) for h in hits]
        elif _is_path(arg, "is_dir"):
            files = _walk(p)
            if not files:
                raise InputError("the folder holds no puzzle files (looked for "
                                 f"{', '.join(folder_suffixes())})", arg)
            found += [(str(f), True) for f in files]
        else:
            found.append((arg, False))
    return found


def article(what: str) -> str:
    """``what`` with its article (``an instance``; plurals and phrases that have one kept)."""
    if what.startswith(("a ", "an ")):
        return what
    if what.endswith("s") and not what.endswith("ss") and " " in what:
        return what
    return ("an " if what[:1].lower() in "aeiou" else "a ") + what


class Inputs:
    """The inputs of one command, each read and classified at most once (see the module
    docstring)."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, str | None, str], Classified | InputError] = {}
        self._given: dict[str, Classified | str] = {}

    def give(self, arg: str, what: "Loaded | str", puzzle: str | None = None) -> None:
        """Stand ``what`` for the argument ``arg``: an instance already read (a model
        object the Python API was given, of ``puzzle``), or the text of a file (an answer
        as the API's caller wrote it): nothing is written to disk for it."""
        if isinstance(what, str):
            self._given[arg] = what
        else:
            self._given[arg] = Classified(puzzle, "instance", [what])

    def given_instance(self, arg: str) -> "Loaded | None":
        """The model object given for ``arg`` (:meth:`give`), or None."""
        got = self._given.get(arg)
        return got.loaded[0] if isinstance(got, Classified) else None

    def text(self, arg: str) -> tuple[str, str]:
        """The text of the file ``arg`` (or ``-``) and the name to call it by, or the text
        given for it (:meth:`give`)."""
        got = self._given.get(arg)
        if isinstance(got, str):
            return got, arg
        text, source, _ = read_source(arg)
        return text, source

    def read(self, arg: str, only: str | None = None, options: dict | None = None
             ) -> Classified:
        """Read one argument (file, ``-``, literal, ``file#N``) and classify it (only as
        ``only`` when given); an :class:`InputError` when it cannot be read."""
        given = self._given.get(arg)
        if isinstance(given, Classified):
            return Classified(given.puzzle, given.what, list(given.loaded))
        key = (arg, only, repr(sorted((options or {}).items())))
        got = self._seen.get(key)
        if got is None:
            try:
                got = self._read(arg, only, options)
            except InputError as exc:
                got = exc
            self._seen[key] = got
            if only is None and isinstance(got, Classified) and got.puzzle is not None:
                self._seen.setdefault((arg, got.puzzle, key[2]), got)
        if isinstance(got, InputError):
            raise got
        return Classified(got.puzzle, got.what, list(got.loaded))

    @staticmethod
    def _read(arg: str, only: str | None, options: dict | None) -> Classified:
        base, record = split_record(arg)
        text, source, _ = read_source(base)
        c = classify_text(text, source, only, options)
        if record is not None:
            if not c.is_instance:
                raise InputError(f"is {c.what}, not a set of instances", base)
            if not 1 <= record <= len(c.loaded):
                raise InputError(f"record #{record} does not exist (the file holds "
                                 f"{len(c.loaded)}, numbered from 1)", base)
            c.loaded = [c.loaded[record - 1]]
        return c

    def one(self, arg: str, puzzle: Any, options: dict | None, verb: str) -> Loaded:
        """The one instance of ``puzzle`` that ``arg`` holds (``check``, ``render``)."""
        c = self.read(arg, puzzle.name, {puzzle.name: dict(options or {})})
        if not c.is_instance:
            raise InputError(f"is {c.what}, not {article(puzzle.title + ' ' + puzzle.noun)}",
                             arg)
        if len(c.loaded) != 1:
            raise InputError(f"holds {plural(len(c.loaded), puzzle.noun)}; {verb} takes "
                             f"exactly one (name one as {arg}#N)", arg)
        return c.loaded[0]

    def gather(self, args: Sequence[str], puzzle: Any, options: dict | None = None,
               strict: bool = True) -> Gathered:
        """The instances of ``puzzle`` in ``args``. Files of other puzzles met in a folder
        walk are skipped and said; a file named on the command line that is not an instance
        of ``puzzle`` is an error (``strict``), or skipped (several puzzles in one run)."""
        g = Gathered()
        given = {k: v for k, v in (options or {}).items() if v is not None}
        opts = {puzzle.name: given} if given else None
        for arg, walked in expand(args):
            known = self._seen.get((arg, None, repr([])))
            if isinstance(known, Classified) and known.puzzle not in (None, puzzle.name) \
                    and known.is_instance:
                # detection read it as another puzzle's instance: not read again
                self._refused(g, arg, walked, strict, puzzle, None)
                continue
            try:
                c = self.read(arg, puzzle.name, opts)
            except InputError as exc:
                self._refused(g, arg, walked, strict, puzzle, exc)
                continue
            if c.is_instance and c.puzzle == puzzle.name:
                g.loaded += c.loaded
            else:  # a file the project wrote (evidence, records), not an instance
                self._other(g, arg, walked, strict, puzzle, c)
        return g

    def _refused(self, g: Gathered, arg: str, walked: bool, strict: bool, puzzle: Any,
                 own: InputError | None) -> None:
        """``puzzle``'s reader refused ``arg``: say what the file is instead (another
        puzzle's instance, a file the project wrote), or keep the puzzle's own complaint."""
        try:
            c = self.read(arg)
        except InputError as exc:
            mine = _claims(arg, puzzle) or getattr(exc, "guess", None) == puzzle.name
            if walked and not mine:
                g.skipped.append((arg, "read by no puzzle"))
            else:
                g.errors.append((arg, own if own is not None and (strict or mine) else exc))
            return
        if c.puzzle == puzzle.name and c.is_instance and own is not None:
            g.errors.append((arg, own))  # its options made the difference
            return
        self._other(g, arg, walked, strict, puzzle, c)

    @staticmethod
    def _other(g: Gathered, arg: str, walked: bool, strict: bool, puzzle: Any,
               c: Classified) -> None:
        """``arg`` is ``c``, not an instance of ``puzzle``: skipped in a folder walk or a
        mixed run (and said), an error when named on the command line."""
        if c.is_instance and c.puzzle is not None:
            from puzzleproof.puzzles.registry import get

            what = f"{get(c.puzzle).title} instances"
        else:
            what = c.what
        if walked or not strict:
            g.skipped.append((arg, what))
        else:
            g.errors.append((arg, InputError(f"is {article(what)}, not "
                                             f"{article(puzzle.title)} instance", arg)))

    def detect(self, args: Sequence[str]) -> tuple[list[str], list[str]]:
        """The puzzles of the instances in ``args`` (in registry order), and the problems met
        (inputs no puzzle reads), for inferring the puzzle of a verb. The files a folder
        walk met that are no puzzle's instance are kept in :attr:`skipped`."""
        from puzzleproof.puzzles.registry import names

        found: set[str] = set()
        problems: list[str] = []
        self.skipped: list[tuple[str, str]] = []
        for arg, walked in expand(args):
            try:
                c = self.read(arg)
            except InputError as exc:
                # a broken file that is most likely one puzzle's goes to that puzzle, whose
                # own reader then says precisely what is wrong
                owner = getattr(exc, "guess", None) or _owner(arg)
                if owner and not walked:
                    found.add(owner)
                elif not walked:
                    problems.append(str(exc))
                else:
                    self.skipped.append((arg, "read by no puzzle"))
                continue
            if c.puzzle and (c.is_instance or not walked):
                # an instance, or a file the project wrote for one puzzle named on the
                # command line (a game record, a strategy: 'check RECORD', 'render RECORD')
                found.add(c.puzzle)
            elif walked:
                self.skipped.append((arg, c.what))
        return [p for p in names() if p in found], problems

    def skipped_text(self) -> str | None:
        """The files :meth:`detect` found to be no instance, said once for a whole run."""
        return Gathered(skipped=list(getattr(self, "skipped", []))).skipped_text()


def _claims(path: str, puzzle: Any) -> bool:
    """A file whose ending only this puzzle uses (``.has``) is its, even when broken."""
    from puzzleproof.puzzles.registry import all_puzzles

    suffix = Path(path).suffix.lower()
    others = {s for p in all_puzzles() if p.name != puzzle.name for s in p.reader.suffixes}
    return suffix in puzzle.reader.suffixes and suffix not in others


def _owner(path: str) -> str | None:
    """The one puzzle whose files end like ``path`` (``.has``: hashi), if only one does."""
    from puzzleproof.puzzles.registry import all_puzzles

    suffix = Path(path).suffix.lower()
    owners = [p.name for p in all_puzzles() if suffix in p.reader.suffixes]
    return owners[0] if len(owners) == 1 else None
