"""The end of a batch, the same for every command that runs one (a shared verb or a
puzzle's own: ``crosscheck``, ``skynet referee``, ``deathrun tournament``): the JSONL output
checked before any work, and the page, the counts and the run's summary line at the end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from puzzleproof.command.output import emit, people, show
from puzzleproof.errors import InputError, UsageError
from puzzleproof.puzzles.base import Params

__all__ = ["prepare_output", "finish"]


def prepare_output(p: Params) -> Path | None:
    """The JSONL target, refused before any work when it exists and neither ``--resume``
    nor ``--force`` says what to do with it."""
    if p.resume and not p.output:
        raise UsageError("--resume needs -o, the file of the run to continue")
    if not p.output:
        return None
    target = Path(p.output)
    if target.is_dir():
        raise InputError("is a folder; expected a file to write", str(target))
    if not target.parent.is_dir():
        raise InputError("cannot write the output: its folder does not exist", str(target))
    if target.exists() and target.stat().st_size and not p.resume:
        if not p.force:
            raise InputError("exists; pass --resume to continue that run, --force to start "
                             "it again, or choose another output", str(target))
        target.unlink()
    return target


def finish(puzzle: str, verb: str, record: dict, page: Any, code: int, target: Path | None,
           as_json: bool) -> None:
    """A batch's end, the same for every puzzle: the page (or the ``--json`` summary), the
    run's counts in one last line, and in the JSONL file a last ``run-summary`` line with
    the same counts and the exit status, which ``report`` states as they are."""
    from puzzleproof.verify.records import (append_run_summary, counts_text, run_summary,
                                            summary_counts)
    from puzzleproof.puzzles.registry import count_words

    if as_json:
        emit(record)
        show(page.notes_only())
    else:
        show(page)
        words = count_words(puzzle)
        people().print(counts_text(summary_counts(record), code, words), markup=False)
    if target is not None and target.exists():
        append_run_summary(target, run_summary(puzzle, verb, record, code))

