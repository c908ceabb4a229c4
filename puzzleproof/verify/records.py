"""The cross-check record: one typed object per instance and method, built in one place.

Every run that judges methods (``crosscheck`` of any puzzle, ``skynet referee`` batches)
writes these as JSON lines (``"type": "record"``), with their puzzle, so that ``report``
and ``--resume`` read the puzzle from the records themselves. Records written before they
named their puzzle (schema version 1) still read: their ``puzzle`` is None.

Example:
    >>> r = Record(puzzle="hashi", instance="a.txt", method="sat", exact=True,
    ...            status="UNIQUE")
    >>> Record.from_dict(r.to_dict()) == r
    True
    >>> Record.from_dict({"type": "record", "instance": "x", "method": "m",
    ...                   "status": "SOLVED"}).puzzle is None
    True
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

__all__ = ["SCHEMA_VERSION", "Record", "Disagreement"]

#: 2: records name their puzzle (1: they did not)
SCHEMA_VERSION = 2


@dataclass
class Record:
    """What one method answered on one instance, and the harness's own rule check of it.

    ``check_ok`` and ``violations`` are the harness's verdict on ``answer`` (it does not
    trust the method's); ``effort`` is the method's effort statistic; ``error`` says why a
    method gave no answer (its exception, or a judged program's verdict in words)."""

    puzzle: str | None
    instance: str
    method: str
    exact: bool
    status: str
    answer: Any = None
    check_ok: bool = True
    violations: list = field(default_factory=list)
    wall_time: float = 0.0
    stats: dict = field(default_factory=dict)
    effort: Any = None
    certificate: Any = None
    solver: str = ""
    error: str | None = None
    schema_version: int = SCHEMA_VERSION
    type: str = "record"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if d["error"] is None:
            del d["error"]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Record":
        """A record as written (by this version or an earlier one; unknown fields are
        ignored, missing optional ones take their defaults)."""
        names = {f.name for f in fields(cls)}
        kept = {k: v for k, v in d.items() if k in names}
        kept.setdefault("puzzle", None)
        kept.setdefault("exact", False)
        kept.setdefault("schema_version", 1)
        return cls(**kept)


@dataclass
class Disagreement:
    """Two answers that cannot both be right, or one that breaks a rule, with evidence."""

    puzzle: str | None
    instance: str
    kind: str
    methods: list[str]
    evidence: dict[str, Any]
    schema_version: int = SCHEMA_VERSION
    type: str = "disagreement"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- one run's counts, as the terminal says them and the report shows them ------------------
# Whoever makes a run's summary record gives it its ``"counts"`` ({name: number}); a record
# of several parts (``"parts"``) adds theirs up. The words of the names the harness uses
# are here; a puzzle's own names have their words in its plugin (``ReportSpec.count_words``).

#: the harness's counts, in the order they are shown, with their words
WORDS = {"instances": "instances", "games": "games", "disagreements": "disagreements",
         "failed_checks": "failed checks", "unknown": "unknown", "not_sent": "not sent",
         "findings_confirmed": "known findings confirmed",
         "findings_broken": "findings broken"}
#: always said, even when 0 (a run that found nothing says so)
ALWAYS = ("disagreements", "failed_checks")


def program_stderr(record: dict) -> str:
    """What a judged program wrote on stderr in the run of ``record`` (capped when it ran):
    a solver's in its stats, a game's in its game record; "" for our own methods."""
    answer = record.get("answer")
    game = answer.get("record") if isinstance(answer, dict) else None
    for place in (record, record.get("stats"), answer, game):
        if isinstance(place, dict) and isinstance(place.get("stderr"), str) \
                and place["stderr"].strip():
            return place["stderr"]
    return ""


def summary_counts(record: dict) -> dict[str, int]:
    """The counts of a run from its ``--json`` summary (its ``counts``, or its parts'
    added up): the one function the terminal's last line and the report's summary both
    come from, so they cannot tell two stories."""
    counts: dict[str, int] = {}
    for part in record.get("parts") or [record]:
        for name, n in (part.get("counts") or {}).items():
            counts[name] = counts.get(name, 0) + int(n)
    for name in ALWAYS:
        counts.setdefault(name, 0)
    return {k: v for k, v in counts.items() if v or k in ALWAYS}


def harness_counts(record: dict) -> dict[str, int]:
    """The counts of a cross-check by the harness (one summary row a method)."""
    rows = record.get("summary") or []
    return {"instances": int(record.get("instances") or 0),
            "disagreements": len(record.get("disagreements") or []),
            "failed_checks": sum(int(r.get("failed") or 0) for r in rows),
            "unknown": sum(int(r.get("unknown") or 0) for r in rows),
            "not_sent": sum(int(r.get("not_sent") or 0) for r in rows),
            "findings_confirmed": len(record.get("confirmed_findings") or []),
            "findings_broken": len(record.get("broken_findings") or [])}


def counts_text(counts: dict[str, int], exit_status: int | None = None,
                words: dict[str, str] | None = None) -> str:
    """The counts in one line: ``games 24, lost 3, ...; exit 1`` (``words``: a puzzle's
    own names in words)."""
    said = {**WORDS, **(words or {})}
    text = ", ".join(f"{said.get(k, k.replace('_', ' '))} {v}" for k, v in counts.items())
    return text + ("" if exit_status is None else f"; exit {exit_status}")


def run_summary(puzzle: str, verb: str, record: dict, exit_status: int) -> dict:
    """The last line of a run's JSONL file: what the command said, and how it exited."""
    return {"type": "run-summary", "schema_version": SCHEMA_VERSION, "puzzle": puzzle,
            "verb": verb, "exit_status": exit_status, "counts": summary_counts(record),
            "summary": record}


def append_run_summary(path: Path, line: dict) -> None:
    """End the JSONL file at ``path`` with ``line``, in place of a run summary already
    ending it: a resumed run's file ends in one summary of the whole run, and a resume
    with nothing left to do leaves the file as it was."""
    with open(path, "rb+") as fh:
        size = fh.seek(0, 2)
        fh.seek(max(0, size - (1 << 20)))  # a summary line is far below 1 MiB
        tail = fh.read()
        cut = tail.rstrip(b"\n").rfind(b"\n") + 1
        if b'"type": "run-summary"' in tail[cut:cut + 64]:
            fh.truncate(size - len(tail) + cut)
        fh.seek(0, 2)
        fh.write((json.dumps(line) + "\n").encode("utf-8"))
