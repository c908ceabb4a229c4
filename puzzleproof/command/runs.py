"""The end of a batch, the same for every command that runs one (a shared verb or a
puzzle's own: ``crosscheck``, ``skynet referee``, ``deathrun tournament``): the JSONL output
checked before any work, and the page, the counts and the run's summary line at the end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from puzzleproof.command.output import emit, people, show
from puzzleproof.errors import InputError, UsageError
from puzzleproof.puzzles.base import Params

__all__ = ["prepare_output", "check_same_run", "finish"]


def prepare_output(p: Params, puzzle: str, verb: str) -> Path | None:
    """The JSONL target, refused before any work when it exists and neither ``--resume``
    nor ``--force`` says what to do with it, or when ``--resume`` would continue in it a
    run of another puzzle or verb (``verb`` as :func:`finish` writes it)."""
    if p.resume and not p.output:
        raise UsageError("--resume needs -o, the file of the run to continue")
    if not p.output:
        return None
    target = Path(p.output)
    if target.is_dir():
        raise InputError("is a folder; expected a file to write", str(target))
    if not target.parent.is_dir():
        raise InputError("cannot write the output: its folder does not exist", str(target))
    if target.exists() and target.stat().st_size:
        if p.resume:
            check_same_run(target, puzzle, verb)
        elif not p.force:
            raise InputError("exists; pass --resume to continue that run, --force to start "
                             "it again, or choose another output", str(target))
        else:
            target.unlink()
    return target


def check_same_run(target: Path, puzzle: str, verb: str) -> None:
    """Refuse (exit 2, naming the file) to resume in ``target`` a run of another puzzle or
    of another verb: its records would be mixed with this run's, and no report reads them
    apart. A record names its puzzle (``"puzzle"``) or its type belongs to one (a Death
    Run game); a run's summary line names its verb too. Records written before they named
    their puzzle say nothing, and are let be."""
    from puzzleproof.formats.jsonl import load_records
    from puzzleproof.puzzles.classify import written_type
    from puzzleproof.puzzles.registry import get

    def canonical(name: str) -> str:
        try:
            return get(name).name
        except KeyError:  # a puzzle not installed here: another puzzle all the same
            return name

    ours = _command(puzzle, verb)
    other, held = None, None  # another puzzle's (or verb's) records; that run's command
    for r in load_records(target):
        theirs = r.get("puzzle")
        if not isinstance(theirs, str):
            theirs = (written_type(r["type"]) or (None, ""))[0]
        if theirs is None:
            continue
        theirs = canonical(theirs)
        their_verb = r.get("verb") if r["type"] == "run-summary" else None
        if isinstance(their_verb, str):
            if (theirs, their_verb) != (puzzle, verb):
                other, held = theirs, _command(theirs, their_verb)
        elif theirs != puzzle and other is None:
            other = theirs
    if other is not None:
        what = f"a '{held}' run" if held else f"{other} records"
        raise InputError(f"holds {what}, not a '{ours}' run: --resume continues the run its "
                         "file holds; write this one to another file", str(target))


def _command(puzzle: str, verb: str) -> str:
    """The command words of a run: ``crosscheck hashi``, ``deathrun tournament``."""
    return verb if verb.split(" ", 1)[0] == puzzle else f"{verb} {puzzle}"


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

