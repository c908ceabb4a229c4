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

from dataclasses import asdict, dataclass, field, fields
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
