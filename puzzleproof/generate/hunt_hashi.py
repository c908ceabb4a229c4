"""Hunting a Hashi solver program: the smallest puzzle with a unique solution that it answers
wrongly, or not at all.

A candidate is a random connected bridge network (:mod:`puzzleproof.generate.
hashi_network`) whose clues make the puzzle, repaired until the exact back end proves it
UNIQUE (:func:`puzzleproof.generate.hashi.make_unique`: so that there is one right answer
to hold the program to). The
program reads it in CodinGame's input and answers ``x1 y1 x2 y2 n`` lines (:mod:`puzzleproof.
games.hashi_program`); it fails when its answer breaks a rule (``wrong-answer``: the first
rule broken, by :func:`puzzleproof.models.hashi.check_solution`), when it writes lines that
are not bridges (``malformed-output``), answers nothing, crashes or runs out of time. The
evidence holds its answer, the rules it breaks, its stderr's last lines and the unique
solution.

Shrinking keeps the unique solution as the network: it removes an island (with its bridges,
while the rest stays connected) or one bridge of a pair, recomputes the clues from what is
left, crops the grid, and keeps the result when it is still UNIQUE and the program still
fails on it.
"""

from __future__ import annotations

import random
from typing import Any, Iterator

from puzzleproof.clock import Deadline
from puzzleproof.encoders import hashi_sat
from puzzleproof.errors import InputError
from puzzleproof.formats.hashi import write_puzzle
from puzzleproof.games.hashi_program import parse_bridges
from puzzleproof.games.program import Program
from puzzleproof.games.runner import Completion
from puzzleproof.generate.hunt import UNDECIDED, Failure, judged_answer, program_of
from puzzleproof.models.hashi import BridgeLine, Island, Puzzle, check_solution
from puzzleproof.result import Status

__all__ = ["HashiHunter", "Solved", "from_evidence"]

#: the last lines of the program's stderr an evidence keeps
STDERR_LINES = 20
#: seconds the exact back end may take to prove a candidate unique
UNIQUE_SECONDS = 10.0


class Solved:
    """A puzzle with its unique solution (the hunt's instance)."""

    def __init__(self, puzzle: Puzzle, solution: list[BridgeLine]) -> None:
        self.puzzle, self.solution = puzzle, solution


def unique_solution(puzzle: Puzzle) -> list[BridgeLine] | None:
    """The solution of ``puzzle`` when it is proved unique (and checked), else None."""
    res = hashi_sat.solve(puzzle, mode="unique", deadline=Deadline(UNIQUE_SECONDS))
    if res.status is not Status.UNIQUE or not res.check_ok:
        return None
    return [tuple(b) for b in res.answer]  # type: ignore[misc]


class HashiHunter:
    """The hunt's Hashi part for one program (CodinGame's protocol: 2 bridges a pair)."""

    puzzle = "hashi"

    def __init__(self, program: Program, sizes: tuple[int, ...] = tuple(range(3, 31)),
                 max_attempts: int | None = None) -> None:
        self.program, self.sizes, self.max_attempts = program, sizes, max_attempts

    def candidate(self, rng: random.Random, size: int) -> Solved | None:
        from puzzleproof.generate.hashi import GenParams, make_unique
        from puzzleproof.generate.hashi_network import grow

        side = max(3, round((size / 0.25) ** 0.5))
        p = GenParams(width=side, height=side, density=min(1.0, size / side ** 2),
                      max_bridges=2, loops=rng.choice((0.0, 0.15, 0.4)))
        try:
            net = grow(rng, p.width, p.height, p.max_bridges, p.density, p.loops)
        except ValueError:
            return None
        made = make_unique(net, p, rng, Deadline(UNIQUE_SECONDS), "hunt")
        if not isinstance(made, tuple):
            return None
        solution = unique_solution(made[0])
        return None if solution is None else Solved(made[0], solution)

    def judge(self, inst: Solved, deadline: Deadline) -> Failure | None:
        first = self.program.limits.first
        left = deadline.left()
        if left is not None and left < first:
            return UNDECIDED  # the hunt's clock would cut the program short
        return judged_answer(self.program, write_puzzle(inst.puzzle, "codingame"),
                             lambda done: self._verdict(inst, done))

    def _verdict(self, inst: Solved, done: Completion) -> Failure | None:
        bridges, bad = parse_bridges(done.output)
        evidence: dict[str, Any] = {
            "answer": bridges, "stderr": done.stderr.splitlines()[-STDERR_LINES:],
            "solution": [list(b) for b in inst.solution]}
        if bad:
            return Failure("malformed-output", bad[0], {**evidence, "bad_lines": bad})
        if not bridges and done.verdict is not None:
            reason, detail = done.verdict
            return Failure(reason, detail, evidence)
        violations = check_solution(inst.puzzle, [tuple(b) for b in bridges])  # type: ignore
        if not violations:
            return None
        return Failure("wrong-answer", violations[0].message,
                       {**evidence, "violations": [v.to_dict() for v in violations[:10]]})

    def smaller(self, inst: Solved) -> Iterator[Solved]:
        lines = list(inst.solution)
        cells = [(i.x, i.y) for i in inst.puzzle.islands]
        for cell in reversed(cells):  # an island and its bridges
            kept = [b for b in lines if cell not in ((b[0], b[1]), (b[2], b[3]))]
            got = _from_network(inst.puzzle, [c for c in cells if c != cell], kept)
            if got is not None:
                yield got
        for k, b in enumerate(lines):  # one bridge of a pair
            kept = lines[:k] + ([b[:4] + (b[4] - 1,)] if b[4] > 1 else []) + lines[k + 1:]
            got = _from_network(inst.puzzle, cells, kept)  # type: ignore[arg-type]
            if got is not None:
                yield got

    def size(self, inst: Solved) -> int:
        return len(inst.puzzle.islands)

    def key(self, inst: Solved) -> str:
        return "\n".join(inst.puzzle.to_rows())

    def files(self, inst: Solved, name: str) -> tuple[str, str]:
        return write_puzzle(inst.puzzle, "codingame"), ".txt"

    def describe(self) -> dict[str, Any]:
        return {"protocol": "codingame", "max_bridges": 2}


def _from_network(puzzle: Puzzle, cells: list[tuple[int, int]],
                  lines: list[BridgeLine]) -> Solved | None:
    """The puzzle whose clues are what ``lines`` give each of ``cells`` (the grid cropped to
    them), when that network connects them all and is the puzzle's unique solution."""
    if len(cells) < 2 or not _connected(cells, lines):
        return None
    x0, y0 = min(x for x, _ in cells), min(y for _, y in cells)
    x1, y1 = max(x for x, _ in cells), max(y for _, y in cells)
    degree = {c: 0 for c in cells}
    for b in lines:
        degree[(b[0], b[1])] += b[4]
        degree[(b[2], b[3])] += b[4]
    smaller = Puzzle(x1 - x0 + 1, y1 - y0 + 1,
                     tuple(Island(x - x0, y - y0, degree[(x, y)]) for x, y in cells),
                     puzzle.max_bridges)
    shifted = [(b[0] - x0, b[1] - y0, b[2] - x0, b[3] - y0, b[4]) for b in lines]
    if check_solution(smaller, shifted):  # type: ignore[arg-type]
        return None
    solution = unique_solution(smaller)
    return None if solution is None else Solved(smaller, solution)


def _connected(cells: list[tuple[int, int]], lines: list[BridgeLine]) -> bool:
    adj: dict[tuple[int, int], list[tuple[int, int]]] = {c: [] for c in cells}
    for b in lines:
        a, c = (b[0], b[1]), (b[2], b[3])
        if a in adj and c in adj:
            adj[a].append(c)
            adj[c].append(a)
    seen, todo = {cells[0]}, [cells[0]]
    while todo:
        for w in adj[todo.pop()]:
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return len(seen) == len(cells)


def from_evidence(settings: dict, who: dict, text: str, source: str) -> tuple[Any, Any]:
    """The hunter and the instance of a kept breaker, from its evidence's settings and
    program and the instance file's text (:func:`puzzleproof.generate.hunt.rejudge`)."""
    from puzzleproof.formats.hashi import read_puzzles

    puzzle = read_puzzles(text, source)[0].puzzle
    solution = unique_solution(puzzle)
    if solution is None:
        raise InputError("the puzzle is not proved unique: it is no breaker", source)
    return HashiHunter(program_of(who)), Solved(puzzle, solution)
