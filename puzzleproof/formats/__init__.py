"""Reading what users bring and writing what they take away.

Every reader raises :class:`puzzleproof.errors.InputError` naming the file, line and column
and what was expected. Every writer of a file goes through :func:`write_atomic`, so a failed
or interrupted run never leaves a half-written output file.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from puzzleproof.errors import InputError

__all__ = ["read_source", "write_atomic", "expand_inputs"]


def read_source(arg: str) -> tuple[str, str, bool]:
    """Return ``(text, source_name, is_file)`` for a path, ``-`` (stdin) or a literal string.

    A string that is not an existing path is taken as the puzzle itself (a Tatham game ID or
    a puzz.link URL, say).
    """
    if arg == "-":
        return sys.stdin.read(), "<stdin>", False
    if len(arg) > 255 and "/" not in arg or len(arg) > 4000 or "\0" in arg:
        return arg, "<argument>", False  # too long to be a file name: the puzzle itself
    path = Path(arg)
    if path.is_dir():
        raise InputError("is a folder; expected a puzzle file", str(path))
    if path.is_file() or (path.exists() and not path.is_dir() and arg.startswith("/dev/")):
        try:
            return path.read_text(encoding="utf-8-sig"), str(path), True
        except UnicodeDecodeError as exc:
            raise InputError(f"not a text file ({exc.reason} at byte {exc.start})",
                             str(path)) from None
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", str(path)) from None
    if arg == "":
        raise InputError("an empty argument; expected a file, a folder or a puzzle")
    looks_like_path = ("/" in arg or "\\" in arg or arg.endswith(
        (".txt", ".has", ".json", ".jsonl", ".sol", ".out"))) and "?" not in arg and ":" not in arg
    if looks_like_path:
        raise InputError("no such file", arg)
    return arg, "<argument>", False


#: File name endings a folder walk picks up.
PUZZLE_SUFFIXES = (".has", ".txt", ".json", ".jsonl", ".tatham", ".url")


def expand_inputs(args: list[str]) -> list[str]:
    """Expand folders into the puzzle files they hold (sorted) and glob patterns (``'*.has'``,
    ``'sets/**/*.jsonl'``) into the files they match; keep other arguments as given."""
    import glob

    out: list[str] = []
    for arg in args:
        p = Path(arg)
        if any(ch in arg for ch in "*[") and not p.exists():
            hits = sorted(h for h in glob.glob(arg, recursive=True) if Path(h).is_file())
            if not hits:
                raise InputError("the pattern matches no file", arg)
            out.extend(hits)
        elif p.is_dir():
            files = sorted(f for f in p.rglob("*") if f.is_file()
                           and f.suffix in PUZZLE_SUFFIXES and not f.name.startswith("."))
            files = [f for f in files if f.name not in ("result.txt",) and "LICENSE" not in f.name]
            if not files:
                raise InputError("the folder holds no puzzle files "
                                 f"(looked for {', '.join(PUZZLE_SUFFIXES)})", arg)
            out.extend(str(f) for f in files)
        else:
            out.append(arg)
    return out


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: str | os.PathLike, text: str | bytes) -> None:
    """Write a whole file or nothing: write a temporary file beside it, then rename."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = "wb" if isinstance(text, bytes) else "w"
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as fh:
            fh.write(text)
        # mkstemp makes the file 0600; a written file gets the mode any new file would get
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
