"""Size limits every reader and model checks, and the one way to lift them deliberately.

Each puzzle has default limits on the sizes it accepts (checked before anything large is
allocated). ``puzzleproof --max-size FACTOR ...`` or ``PUZZLEPROOF_MAX_SIZE=FACTOR`` in the
environment (so worker processes see it too) multiplies every one of them.

Example:
    >>> limit(500)
    500
    >>> over_limit(600, 500, "N")
    "N is 600, above the limit of 500; lift the limits deliberately with 'puzzleproof --max-size FACTOR ...' (or PUZZLEPROOF_MAX_SIZE=FACTOR)"
"""

from __future__ import annotations

import math
import os

from puzzleproof.errors import InputError

__all__ = ["SIZE_ENV", "LIFT_HINT", "size_factor", "limit", "over_limit", "Deadline"]

#: The environment variable holding the size-limit factor (set by ``--max-size``).
SIZE_ENV = "PUZZLEPROOF_MAX_SIZE"
#: How a person lifts a limit, appended to every size error.
LIFT_HINT = (f"lift the limits deliberately with 'puzzleproof --max-size FACTOR ...' (or "
             f"{SIZE_ENV}=FACTOR)")


def size_factor() -> float:
    """The factor every size limit is multiplied by (``--max-size``, default 1)."""
    raw = os.environ.get(SIZE_ENV, "").strip()
    if not raw:
        return 1.0
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not math.isfinite(value) or value < 1:
        raise InputError(f"{SIZE_ENV}={raw!r}: expected a factor, a number >= 1")
    return value


def limit(base: int) -> int:
    """``base`` (a puzzle's default size limit) times :func:`size_factor`."""
    return int(base * size_factor())


def over_limit(value: int, base: int, what: str) -> str | None:
    """The message for ``what`` = ``value`` above its lifted limit, or None when it fits."""
    top = limit(base)
    if value <= top:
        return None
    return f"{what} is {value:,}, above the limit of {top:,}; {LIFT_HINT}"


# -- time ----------------------------------------------------------------------------------

class Deadline:
    """The one clock a task runs against: made from ``--time-limit`` when the task starts and
    handed to every method, which bounds with it everything it does for that instance
    (set-up, incumbents, bound tables, certificate checking), not only its main search.

    ``Deadline(None)`` never expires. :meth:`share` gives a part of what is left to a step
    (a heuristic incumbent, a bound table) so that it cannot eat the whole limit; the step's
    deadline is never later than its parent's.

    Example:
        >>> d = Deadline(10.0)
        >>> 9.0 < d.left() <= 10.0 and not d.expired()
        True
        >>> d.share(0.25).left() <= 2.5
        True
        >>> Deadline(None).left() is None
        True
    """

    __slots__ = ("limit", "at")

    def __init__(self, seconds: float | None, *, at: float | None = None) -> None:
        import time

        #: the seconds asked for (what an UNKNOWN names), None for no limit
        self.limit = seconds
        #: the ``time.monotonic()`` instant the time runs out, None for never
        self.at = at if at is not None else (
            None if seconds is None else time.monotonic() + float(seconds))

    @classmethod
    def of(cls, value: "Deadline | float | None") -> "Deadline":
        """A deadline from a deadline (itself) or a time limit in seconds (started now)."""
        return value if isinstance(value, Deadline) else cls(value)

    def left(self) -> float | None:
        """Seconds left (never below 0), None without a limit."""
        import time

        return None if self.at is None else max(0.0, self.at - time.monotonic())

    def expired(self) -> bool:
        import time

        return self.at is not None and time.monotonic() >= self.at

    def share(self, fraction: float, *, at_least: float = 0.0) -> "Deadline":
        """A deadline for one step: ``fraction`` of the time left (at least ``at_least``
        seconds, but never past this deadline)."""
        import time

        left = self.left()
        if left is None:
            return Deadline(None)
        part = min(left, max(left * fraction, at_least))
        return Deadline(self.limit, at=time.monotonic() + part)

    def cap(self, seconds: float | None) -> float | None:
        """``seconds`` capped by the time left (None when both are unlimited)."""
        left = self.left()
        if left is None:
            return seconds
        return left if seconds is None else min(seconds, left)

    def __repr__(self) -> str:
        return f"Deadline({self.limit!r}, left={self.left()!r})"
