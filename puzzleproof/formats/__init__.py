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

__all__ = ["read_source", "read_stdin", "write_atomic", "expand_inputs"]


def read_source(arg: str) -> tuple[str, str, bool]:
    """Return ``(text, source_name, is_file)`` for a path, ``-`` (stdin) or a literal string.

    A string that is not an existing path is taken as the puzzle itself (a Tatham game ID or
    a puzz.link URL, say).
    """
    if arg == "-":
        return read_stdin(), "<stdin>", False
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


#: [the stream read, its text or why it is not text]: the standard input, read once
_stdin_text: list = []


def read_stdin() -> str:
    """The whole standard input as text, read once and kept: the command may look at it
    more than once (working out which puzzle it is, then reading it as that puzzle), and a
    second read of a pipe would find it empty. Bytes that are not UTF-8 are an input error
    naming the byte, as for a file."""
    if _stdin_text and _stdin_text[0] is not sys.stdin:  # replaced (tests, embedding)
        _stdin_text.clear()
    if not _stdin_text:
        stream = getattr(sys.stdin, "buffer", None)
        raw = stream.read() if stream is not None else sys.stdin.read()
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                raw = InputError(f"not a text file ({exc.reason} at byte {exc.start})",
                                 "<stdin>")
        _stdin_text[:] = [sys.stdin, raw]
    got = _stdin_text[1]
    if isinstance(got, InputError):
        raise InputError(got.message, got.source) from None
    return got


def expand_inputs(args: list[str], suffixes: tuple[str, ...]) -> list[str]:
    """Expand folders into the files they hold that end in one of ``suffixes`` (sorted)
    and glob patterns (``'*.has'``, ``'sets/**/*.jsonl'``) into the files they match; keep
    other arguments as given."""
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
                           and f.suffix in suffixes and not f.name.startswith("."))
            files = [f for f in files if f.name not in ("result.txt",) and "LICENSE" not in f.name]
            if not files:
                raise InputError("the folder holds no puzzle files "
                                 f"(looked for {', '.join(suffixes)})", arg)
            out.extend(str(f) for f in files)
        else:
            out.append(arg)
    return out


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: str | os.PathLike, text: str | bytes) -> None:
    """Write a whole file or nothing: write a temporary file beside it, then rename.

    A symbolic link is written through (its target is replaced, the link stays), and a
    path that is not a regular file (a FIFO, ``/dev/stdout``, a device) is written into
    directly: renaming over it would replace the device or pipe itself. A path that cannot
    be written is an :class:`InputError` (exit 2) naming it and the reason."""
    try:
        _write_atomic(path, text)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if isinstance(exc, (FileExistsError, NotADirectoryError)):
            reason = "a part of the path is a file, not a folder"
        where = exc.filename if isinstance(exc.filename, str) and not Path(
            exc.filename).name.startswith(".") else str(path)
        raise InputError(f"cannot write the output: {reason}"
                         + ("" if where == str(path) else f" ({where})"), str(path)) from None


def _write_atomic(path: str | os.PathLike, text: str | bytes) -> None:
    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    mode = "wb" if isinstance(text, bytes) else "w"
    if target.exists() and not target.is_file():
        if target.is_dir():
            raise IsADirectoryError(21, "is a folder", str(path))
        with open(target, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as fh:
            fh.write(text)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
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
