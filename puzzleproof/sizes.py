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

__all__ = ["SIZE_ENV", "LIFT_HINT", "size_factor", "limit", "over_limit"]

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
