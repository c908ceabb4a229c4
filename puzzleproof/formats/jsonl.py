"""Streams of JSON records (JSONL), as every batch writes them: one object a line, each with
a ``"type"``, appended the moment it exists, so that a run that is killed loses nothing and a
rerun resumes from what is there."""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["MAX_RUN_BYTES", "load_records", "trim_torn_tail"]

#: the largest run file read back (``--resume``, ``report``): 256 MiB, times --max-size
MAX_RUN_BYTES = 256 * 1024 * 1024


def load_records(path: Path) -> list[dict]:
    """The records of an earlier run (a torn last line, from a kill, is ignored). A file
    that is not a run the project wrote (not UTF-8, a line that is not a JSON object, a
    symbolic link loop, a FIFO, too large) is an :class:`~puzzleproof.errors.InputError`
    naming it."""
    from puzzleproof.errors import InputError
    from puzzleproof.formats import read_path
    from puzzleproof.sizes import limit

    if not path.exists() and not path.is_symlink():
        return []
    text = read_path(path, limit(MAX_RUN_BYTES), regular=True)
    out = []
    lines = text.split("\n")
    for k, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            if k == len(lines):
                continue  # torn by a kill
            raise InputError("expected a JSON record on each line", str(path), k) from None
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            raise InputError("expected a JSON object with a \"type\" (a record the project "
                             "wrote)", str(path), k)
        out.append(obj)
    return out


def trim_torn_tail(path: Path) -> None:
    """Drop a last line cut short by a kill, so that appended records start on a new line."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        with open(path, "r+b") as fh:
            fh.truncate(cut)
