"""What a Latin square puzzle IS: an n x n grid with some cells given; a solution fills
every cell with 1..n so that each row and each column holds each number once. The rules
are checked here, with no solver code."""

from __future__ import annotations

from dataclasses import dataclass

from puzzleproof.plugin import InputError


@dataclass(frozen=True)
class Square:
    n: int
    cells: tuple[tuple[int, ...], ...]  # 0 for an empty cell
    name: str = ""

    def givens(self) -> int:
        return sum(v != 0 for row in self.cells for v in row)


def read(text: str, source: str) -> Square:
    """One digit (or '.') a cell, one row a line; the first line is 'latin N'."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines or not lines[0].startswith("latin "):
        raise InputError("expected 'latin N' on the first line", source, 1)
    try:
        n = int(lines[0].split()[1])
    except (IndexError, ValueError):
        raise InputError("expected 'latin N' with N a whole number", source, 1) from None
    if not 1 <= n <= 9:
        raise InputError(f"N is {n}; expected 1 to 9", source, 1)
    if len(lines) != n + 1:
        raise InputError(f"expected {n} rows, found {len(lines) - 1}", source)
    rows = []
    for k, ln in enumerate(lines[1:], start=2):
        if len(ln) != n or any(c not in ".123456789"[:n + 1] for c in ln):
            raise InputError(f"expected {n} cells of '.' or 1..{n}", source, k)
        rows.append(tuple(0 if c == "." else int(c) for c in ln))
    return Square(n, tuple(rows), source)


def write(sq: Square) -> str:
    return f"latin {sq.n}\n" + "".join(
        "".join("." if v == 0 else str(v) for v in row) + "\n" for row in sq.cells)


def violations(sq: Square, answer: list[list[int]]) -> list[dict]:
    """Every rule the answer breaks (empty: it solves the puzzle)."""
    out = []
    if len(answer) != sq.n or any(len(r) != sq.n for r in answer):
        return [{"kind": "shape", "message": f"expected {sq.n} rows of {sq.n} numbers"}]
    full = set(range(1, sq.n + 1))
    for i in range(sq.n):
        for j in range(sq.n):
            if sq.cells[i][j] and answer[i][j] != sq.cells[i][j]:
                out.append({"kind": "given", "message": f"cell ({i}, {j}) is given as "
                            f"{sq.cells[i][j]}, the answer has {answer[i][j]}"})
        if set(answer[i]) != full:
            out.append({"kind": "row", "message": f"row {i} does not hold 1..{sq.n} once"})
        if {answer[k][i] for k in range(sq.n)} != full:
            out.append({"kind": "column", "message": f"column {i} does not hold 1..{sq.n} once"})
    return out
