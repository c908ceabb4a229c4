"""How puzzles are solved exactly: encodings of a model and the loops they share.

Back ends are found by name (``--solver cpsat|sat``); each exposes
``solve(puzzle, *, mode, time_limit, ...) -> Result``.
"""

from __future__ import annotations

from typing import Callable

from puzzleproof.result import Result

__all__ = ["HASHI_SOLVERS", "hashi_solver"]

#: Exact Hashi back ends by name.
HASHI_SOLVERS = ("cpsat", "sat")


def hashi_solver(name: str) -> Callable[..., Result]:
    """Return the ``solve`` function of the Hashi back end called ``name``."""
    if name == "cpsat":
        from puzzleproof.encoders.hashi_cpsat import solve
    elif name == "sat":
        from puzzleproof.encoders.hashi_sat import solve
    else:
        raise ValueError(f"unknown Hashi solver {name!r}; expected one of {', '.join(HASHI_SOLVERS)}")
    return solve
