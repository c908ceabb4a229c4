"""How a Latin square is answered: an exact search that enumerates every completion (so it
proves uniqueness), and a trivial heuristic that fills each empty cell with the smallest
number its row and column allow (it gives up when it is stuck)."""

from __future__ import annotations

import time

from puzzleproof.plugin import Result, Status

from latin_puzzle.model import Square, violations


def _completions(sq: Square, limit: int, deadline) -> tuple[list, bool]:
    """Up to ``limit`` completions, and whether the search finished."""
    grid = [list(r) for r in sq.cells]
    found: list = []
    empty = [(i, j) for i in range(sq.n) for j in range(sq.n) if not grid[i][j]]

    def go(k: int) -> bool:
        if deadline.expired():
            return False
        if k == len(empty):
            found.append([row[:] for row in grid])
            return len(found) < limit
        i, j = empty[k]
        used = set(grid[i]) | {grid[r][j] for r in range(sq.n)}
        for v in range(1, sq.n + 1):
            if v not in used:
                grid[i][j] = v
                if not go(k + 1):
                    grid[i][j] = 0
                    return False
                grid[i][j] = 0
        return True

    finished = go(0) or len(found) >= limit
    return found, finished and not deadline.expired()


def exact(sq: Square, *, deadline) -> Result:
    t0 = time.monotonic()
    found, finished = _completions(sq, 2, deadline)
    if len(found) == 2:
        status = Status.MULTIPLE
    elif found and finished:
        status = Status.UNIQUE
    elif finished:
        status = Status.INFEASIBLE
    else:
        status = Status.UNKNOWN
    answer = found[0] if found else None
    res = Result("latin", status, answer, {"second": found[1]} if len(found) == 2 else None,
                 solver="brute force", wall_time=time.monotonic() - t0,
                 stats={"solutions": len(found)})
    if answer is not None:
        bad = violations(sq, answer)
        res.check = {"ok": not bad, "violations": bad}
    return res


def smallest_first(sq: Square, *, deadline) -> Result:
    grid = [list(r) for r in sq.cells]
    for i in range(sq.n):
        for j in range(sq.n):
            if not grid[i][j]:
                used = set(grid[i]) | {grid[r][j] for r in range(sq.n)}
                free = [v for v in range(1, sq.n + 1) if v not in used]
                if not free:
                    return Result("latin", Status.UNKNOWN, None, {"note": f"stuck at ({i}, {j})"},
                                  solver="smallest first")
                grid[i][j] = free[0]
    bad = violations(sq, grid)
    return Result("latin", Status.SOLVED, grid, None, solver="smallest first",
                  check={"ok": not bad, "violations": bad})
