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

#: the counts a run's summary states, in the order they are shown
COUNT_NAMES = ("instances", "games", "lost", "lost_winnable", "defects", "above_bound",
               "program_findings",
               "invalid_moves", "disagreements", "failed_checks", "unknown", "not_sent",
               "findings_confirmed", "findings_broken")


def summary_counts(record: dict) -> dict[str, int]:
    """The counts of a run from its ``--json`` summary (a cross-check, a referee batch, a
    run of several parts, a tournament): the one function the terminal's last line and the
    report's summary both come from, so they cannot tell two stories."""
    counts = dict.fromkeys(COUNT_NAMES, 0)
    for part in record.get("parts") or [record]:
        for name, n in _part_counts(part).items():
            counts[name] += n
    return {k: v for k, v in counts.items() if v or k in ("disagreements", "failed_checks")}


def _part_counts(part: dict) -> dict[str, int]:
    kind = part.get("type")
    if kind == "crosscheck":
        rows = part.get("summary") or []
        return {"instances": int(part.get("instances") or 0),
                "disagreements": len(part.get("disagreements") or []),
                "failed_checks": sum(int(r.get("failed") or 0) for r in rows),
                "unknown": sum(int(r.get("unknown") or 0) for r in rows),
                "not_sent": sum(int(r.get("not_sent") or 0) for r in rows),
                "findings_confirmed": len(part.get("confirmed_findings") or []),
                "findings_broken": len(part.get("broken_findings") or [])}
    if kind == "skynet-batch":
        judged = part.get("judged") or []
        worst = (part.get("worst_case") or {}).get("summary") or {}
        return {"games": int(part.get("games") or 0), "lost": len(part.get("lost") or [])
                + sum(int(r.get("BEATEN", 0)) for r in worst.values()),
                "lost_winnable": sum(j.get("verdict") == "lost-proved-winnable"
                                     for j in judged),
                "defects": sum(bool(j.get("defect")) for j in judged),
                "disagreements": len(part.get("disagreements") or []),
                "unknown": sum(int(r.get("UNKNOWN", 0)) for r in worst.values())}
    if kind == "skynet-ep1-cuts-table":
        return {"findings_broken": len(part.get("failures") or [])}
    if kind == "deathrun-crosscheck":
        known = part.get("known_findings") or []
        return {"games": int(part.get("games") or 0),
                "above_bound": len(part.get("exploitable") or []),
                "program_findings": len(part.get("program_findings") or []),
                "failed_checks": len(part.get("failures") or []),
                "findings_confirmed": sum(bool(k.get("holds")) for k in known),
                "findings_broken": sum(not k.get("holds") for k in known)}
    if kind == "deathrun-tournament":
        return {"games": int(part.get("games") or 0),
                "invalid_moves": len(part.get("invalid_moves") or [])}
    counts = part.get("counts")
    return dict(counts) if isinstance(counts, dict) else {}


def counts_text(counts: dict[str, int], exit_status: int | None = None) -> str:
    """The counts in one line: ``games 24, lost 3, ...; exit 1``."""
    words = {"lost_winnable": "lost on winnable starts", "failed_checks": "failed checks",
             "above_bound": "seat-games above the robust bound",
             "invalid_moves": "invalid moves",
             "program_findings": "your program's seat-games above the bound",
             "not_sent": "not sent", "findings_confirmed": "known findings confirmed",
             "findings_broken": "findings broken"}
    text = ", ".join(f"{words.get(k, k)} {v}" for k, v in counts.items())
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
