"""An independent brute-force Hashi enumerator, for checking the exact back ends on tiny puzzles.

It shares nothing with the encoders: it finds the pairs of islands that can see each other by
its own scan of the grid, assigns 0..max bridges to each pair by depth-first search (pruning
only on clues: a running bridge count may not pass a clue, and must reach it once the island's
last pair is decided), rejects crossings as it goes, and keeps the assignments whose islands
form one group. Exponential; meant for puzzles of a few dozen cells.

Example:
    >>> from puzzleproof.models.hashi import Puzzle
    >>> len(enumerate_solutions(Puzzle.from_rows(["3.3", "...", "2.2"])))
    2
"""

from __future__ import annotations

from puzzleproof.models.hashi import BridgeLine, Puzzle

__all__ = ["enumerate_solutions", "count_solutions"]


def _pairs(puzzle: Puzzle) -> list[tuple[tuple[int, int], tuple[int, int], set]]:
    """``(p, q, cells)`` for every two islands in line of sight (p before q), by grid scan."""
    where = {(i.x, i.y) for i in puzzle.islands}
    out = []
    for (x, y) in sorted(where, key=lambda c: (c[1], c[0])):
        for dx, dy in ((1, 0), (0, 1)):
            cells = set()
            cx, cy = x + dx, y + dy
            while cx < puzzle.width and cy < puzzle.height:
                if (cx, cy) in where:
                    out.append(((x, y), (cx, cy), cells))
                    break
                cells.add((cx, cy))
                cx, cy = cx + dx, cy + dy
    return out


def enumerate_solutions(puzzle: Puzzle, limit: int | None = None) -> list[list[BridgeLine]]:
    """Every solution of ``puzzle`` (up to ``limit``), each as sorted bridge lines."""
    pairs = _pairs(puzzle)
    clue = {(i.x, i.y): i.clue for i in puzzle.islands}
    last_pair: dict = {}
    for k, (p, q, _) in enumerate(pairs):
        last_pair[p] = k
        last_pair[q] = k
    degree = {c: 0 for c in clue}
    counts = [0] * len(pairs)
    found: list[list[BridgeLine]] = []
    m = puzzle.max_bridges

    def crosses(k: int) -> bool:
        cells = pairs[k][2]
        if not cells:
            return False
        return any(counts[j] and pairs[j][2] & cells for j in range(k))

    def connected() -> bool:
        adj: dict = {c: [] for c in clue}
        for (p, q, _), n in zip(pairs, counts):
            if n:
                adj[p].append(q)
                adj[q].append(p)
        start = next(iter(clue))
        seen, stack = {start}, [start]
        while stack:
            for v in adj[stack.pop()]:
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        return len(seen) == len(clue)

    def ok_end(c: tuple[int, int], k: int) -> bool:
        want = clue[c]
        if want is not None and degree[c] > want:
            return False
        if last_pair.get(c) == k:  # this island is now decided
            return degree[c] == want if want is not None else degree[c] > 0
        return True

    def dfs(k: int) -> bool:
        if k == len(pairs):
            if all(c in last_pair for c in clue) and connected():
                found.append(sorted((p[0], p[1], q[0], q[1], n)
                                    for (p, q, _), n in zip(pairs, counts) if n))
                return limit is not None and len(found) >= limit
            return False
        p, q, _ = pairs[k]
        for n in range(m + 1):
            if n and crosses(k):
                break
            counts[k] = n
            degree[p] += n
            degree[q] += n
            stop = ok_end(p, k) and ok_end(q, k) and dfs(k + 1)
            degree[p] -= n
            degree[q] -= n
            counts[k] = 0
            if stop:
                return True
        return False

    if len(clue) == 1:
        return []
    dfs(0)
    return found


def count_solutions(puzzle: Puzzle) -> int:
    return len(enumerate_solutions(puzzle))
