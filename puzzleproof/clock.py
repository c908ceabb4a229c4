"""The one clock a task runs against: :class:`Deadline`, made from ``--time-limit`` where a
task starts and handed down to every method and long-running function below the command;
and :class:`PerTask`, the limit each task of a batch starts its own deadline from."""

from __future__ import annotations

__all__ = ["Deadline", "PerTask"]


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


class PerTask:
    """The time limit every task of a batch has from its own start (a cross-check's
    ``--time-limit``: so many seconds for each instance and method, wherever and whenever
    the task runs). :meth:`start` gives the task its :class:`Deadline`.

    Example:
        >>> each = PerTask(30)
        >>> each.start().limit, PerTask(None).start().left() is None
        (30, True)
    """

    __slots__ = ("seconds",)

    def __init__(self, seconds: float | None) -> None:
        #: the seconds each task has, None for no limit
        self.seconds = seconds

    def start(self) -> Deadline:
        """The deadline of a task starting now."""
        return Deadline(self.seconds)

    def __repr__(self) -> str:
        return f"PerTask({self.seconds!r})"
