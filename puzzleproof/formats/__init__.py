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
from typing import Any, Iterable

from puzzleproof.errors import InputError

__all__ = ["read_source", "read_stdin", "read_path", "read_bounded", "write_atomic",
           "expand_inputs", "MAX_INPUT_BYTES"]


#: The most bytes read from one input before it is refused (16 MiB: the largest puzzle
#: anyone brings is a few hundred kB), times ``--max-size``.
MAX_INPUT_BYTES = 16 * 1024 * 1024


def max_input_bytes() -> int:
    from puzzleproof.sizes import limit

    return limit(MAX_INPUT_BYTES)


def _too_big(source: str, cap: int, size: int | None = None) -> InputError:
    from puzzleproof.sizes import LIFT_HINT

    found = f"is {size:,} bytes" if size is not None else f"holds more than {cap:,} bytes"
    return InputError(f"{found}, above the limit of {cap:,} bytes for one input; {LIFT_HINT}",
                      source)


def read_bounded(stream, source: str, cap: int | None = None) -> bytes:
    """At most ``cap`` bytes of a stream (a pipe, a device such as /dev/zero), read in
    chunks: more is an :class:`InputError` as soon as it is seen, before it is held."""
    cap = max_input_bytes() if cap is None else cap
    chunks, total = [], 0
    while True:
        chunk = stream.read(min(1 << 20, cap + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > cap:
            raise _too_big(source, cap)


def _decode(raw: bytes, source: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not a text file ({exc.reason} at byte {exc.start})",
                         source) from None


def read_path(path: Path, cap: int | None = None, *, regular: bool = False) -> str:
    """A file's text, refused before it is read when it is larger than the limit (a device
    or FIFO is read in bounded chunks; with ``regular`` it is refused: a run file is never
    a pipe, and reading one could block for ever)."""
    cap = max_input_bytes() if cap is None else cap
    try:
        if regular and path.is_symlink() and not path.exists():
            raise InputError("cannot read: a symbolic link to nothing (or a loop of links)",
                             str(path))
        if regular and not path.is_file():
            raise InputError("is not a regular file; expected a file the project wrote",
                             str(path))
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            import stat as st_mod

            if st_mod.S_ISREG(st.st_mode):
                if st.st_size > cap:
                    raise _too_big(str(path), cap, st.st_size)
                return _decode(fh.read(cap + 1), str(path))
            return _decode(read_bounded(fh, str(path), cap), str(path))
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", str(path)) from None


def read_source(arg: str) -> tuple[str, str, bool]:
    """Return ``(text, source_name, is_file)`` for a path, ``-`` (stdin) or a literal string.

    A string that is not an existing path is taken as the puzzle itself (a Tatham game ID or
    a puzz.link URL, say). Every input is bounded (:data:`MAX_INPUT_BYTES`, times
    ``--max-size``): a larger one is refused before it is held in memory.
    """
    if arg == "-":
        return read_stdin(), "<stdin>", False
    if len(arg) > 255 and "/" not in arg or len(arg) > 4000 or "\0" in arg:
        return arg, "<argument>", False  # too long to be a file name: the puzzle itself
    path = Path(arg)
    try:
        is_dir, exists = path.is_dir(), path.exists()
    except OSError as exc:  # a symbolic link loop, a name too long
        raise InputError(f"cannot read: {exc.strerror or exc}", arg) from None
    if is_dir:
        raise InputError("is a folder; expected a puzzle file", str(path))
    if path.is_symlink() and not exists:
        raise InputError("cannot read: a symbolic link to nothing (or a loop of links)", arg)
    if path.is_file() or (exists and arg.startswith("/dev/")):
        return read_path(path), str(path), True
    if arg == "":
        raise InputError("an empty argument; expected a file, a folder or a puzzle")
    looks_like_path = ("/" in arg or "\\" in arg or arg.endswith(
        (".txt", ".has", ".json", ".jsonl", ".sol", ".out"))) and "?" not in arg and ":" not in arg
    base, sep, k = arg.rpartition("#")
    if sep and Path(base).is_file():
        raise InputError(f"#{k}: a record of the file is named by its number, FILE#N "
                         "(1 for the first)", base)
    if looks_like_path or exists:
        raise InputError("no such file" if not exists else
                         "is not a regular file (a FIFO or socket); expected a puzzle file", arg)
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
        try:
            raw: Any = read_bounded(stream, "<stdin>") if stream is not None else \
                sys.stdin.read(max_input_bytes() + 1)
            if isinstance(raw, str) and len(raw) > max_input_bytes():
                raise _too_big("<stdin>", max_input_bytes())
            if isinstance(raw, bytes):
                raw = _decode(raw, "<stdin>")
        except InputError as exc:
            raw = exc
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


def write_atomic(path: str | os.PathLike, text: str | bytes | Iterable[str]) -> None:
    """Write a whole file or nothing: write a temporary file beside it, then rename.
    ``text`` may come in chunks (an iterable of strings, written as they come: a large
    certificate is never held whole as one string).

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


def _write_chunks(fh: Any, text: str | bytes | Iterable[str]) -> None:
    if isinstance(text, (str, bytes)):
        fh.write(text)
    else:
        for chunk in text:
            fh.write(chunk)


def _write_atomic(path: str | os.PathLike, text: str | bytes | Iterable[str]) -> None:
    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    mode = "wb" if isinstance(text, bytes) else "w"
    if target.exists() and not target.is_file():
        if target.is_dir():
            raise IsADirectoryError(21, "is a folder", str(path))
        with open(target, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as fh:
            _write_chunks(fh, text)
        return
    if not target.parent.is_dir():
        raise FileNotFoundError(2, "its folder does not exist", str(target.parent))
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as fh:
            _write_chunks(fh, text)
        # mkstemp makes the file 0600; a written file gets the mode any new file would get
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
