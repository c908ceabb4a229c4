"""Errors a person reads: one line naming where (file, line, column) and what was expected."""

from __future__ import annotations


#: The longest message an error keeps (its middle is cut beyond it).
MAX_MESSAGE = 500


class PuzzleproofError(Exception):
    """Base class of every error that the command turns into one line and exit code 2."""


class InputError(PuzzleproofError):
    """Malformed or impossible input.

    Args:
        message: what was expected and what was found.
        source: the file name or ``"<string>"``/``"<stdin>"``.
        line: 1-based line, if known.
        col: 1-based column, if known.
    """

    def __init__(self, message: str, source: str | None = None, line: int | None = None,
                 col: int | None = None) -> None:
        if len(message) > MAX_MESSAGE:  # a pasted 5,000-digit token stays one readable line
            message = message[:MAX_MESSAGE - 100] + " [...] " + message[-93:]
        self.message = message
        self.source = source
        self.line = line
        self.col = col
        super().__init__(str(self))

    def located(self, source: str | None = None, line: int | None = None,
                col: int | None = None) -> "InputError":
        """Return the same error with missing location parts filled in."""
        return InputError(self.message, self.source or source,
                          self.line if self.line is not None else line,
                          self.col if self.col is not None else col)

    def __str__(self) -> str:
        where = self.source or ""
        if self.line is not None:
            where += f":{self.line}"
            if self.col is not None:
                where += f":{self.col}"
        return f"{where}: {self.message}" if where else self.message


class UsageError(PuzzleproofError):
    """The command or function was misused: options that exclude each other, a method that
    cannot answer the question asked. Raised by any layer; the command shows it as Click
    shows its own usage errors (exit 2)."""


class ExecutorError(PuzzleproofError):
    """Where a batch was to run cannot run it: Dask not installed, a Dask scheduler without
    workers, workers with other versions of the solvers, a program a worker cannot reach,
    a worker that failed to prepare. The command shows it in one line (exit 2)."""
