"""The vocabulary every solver speaks: one :class:`Status` enum and one :class:`Result` type.

A ``Result`` is plain data. It says what was found (``status`` and ``answer``), why it can be
believed (``certificate`` and ``check``), and how it was obtained (solver, version, parameters,
seed, wall time and solver statistics), so that it can be printed as one JSON object.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from puzzleproof.clock import Deadline


class Status(str, enum.Enum):
    """One status vocabulary for every puzzle and game.

    ``UNKNOWN`` means a limit ran out; it is never reported as ``INFEASIBLE`` or ``LOSS``.
    """

    SOLVED = "SOLVED"  # a checked solution; uniqueness not asked
    UNIQUE = "UNIQUE"  # a checked solution, and a proof that no other exists
    MULTIPLE = "MULTIPLE"  # two different checked solutions
    OPTIMAL = "OPTIMAL"  # a checked answer with a matching bound
    INFEASIBLE = "INFEASIBLE"  # proved: no solution exists
    WIN = "WIN"  # proved win for the player, with a strategy
    LOSS = "LOSS"  # proved loss for the player, with the opponent's strategy
    UNKNOWN = "UNKNOWN"  # a time, conflict or node limit ran out


@dataclass
class Result:
    """What one exact method answered for one instance.

    Attributes:
        puzzle: the puzzle kind, e.g. ``"hashi"``.
        status: the :class:`Status`.
        answer: the answer in plain JSON-able data (for Hashi, ``[[x1, y1, x2, y2, n], ...]``).
        certificate: evidence beyond the answer (for ``MULTIPLE``, a second solution; for
            ``UNIQUE``, how uniqueness was proved).
        solver: the solver's name, e.g. ``"cpsat"``.
        solver_version: the version of the underlying library.
        params: the parameters the method ran with (limits, workers...).
        seed: the random seed, if any.
        wall_time: seconds spent, model building included.
        stats: solver statistics (cut rounds, cuts, conflicts, deterministic time...).
        check: the independent rule check of the answer: ``{"ok": bool, "violations": [...]}``.
        instance: a name for the instance (file name, record number).
    """

    puzzle: str
    status: Status
    answer: Any = None
    certificate: Any = None
    solver: str = ""
    solver_version: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    wall_time: float = 0.0
    stats: dict[str, Any] = field(default_factory=dict)
    check: dict[str, Any] | None = None
    instance: str | None = None

    @property
    def check_ok(self) -> bool:
        """True when there is nothing to check or the independent check passed."""
        return self.check is None or bool(self.check.get("ok"))

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        data["type"] = "result"
        return data


def limit_name(deadline: "Deadline", params: dict) -> str:
    """Which limit stopped a run: ``"time-limit"`` when ``deadline`` has passed, else the
    budget the parameters name."""
    import time

    if deadline.at is not None and time.monotonic() >= deadline.at - 1e-3:
        return "time-limit"
    if params.get("conflict_budget") or params.get("conflicts"):
        return "conflict-budget"
    if params.get("max_nodes"):
        return "node-budget"
    return "time-limit" if deadline.at is not None else "limit"


def which_limit(deadline: "Deadline", params: dict) -> str:
    """The limit that stopped a run, in words for a note: ``time limit (0.5 s)``,
    ``conflict budget (1000)``, ``node budget (2000000)``."""
    name = limit_name(deadline, params)
    if name == "time-limit" and deadline.limit is not None:
        return f"time limit ({deadline.limit:g} s)"
    if name == "conflict-budget":
        return f"conflict budget ({params.get('conflict_budget') or params.get('conflicts')})"
    if name == "node-budget":
        return f"node budget ({params['max_nodes']})"
    return "limit"
