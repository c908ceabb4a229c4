"""A Hashi solver program speaking CodinGame's protocol, as a cross-check harness method.

The program reads the puzzle on stdin (CodinGame's input: the width, the height, then one
line per row, ``.`` for water and a digit for a clue; then the end of the input, which a
program reading line by line, as on CodinGame, never meets, and one reading to the end
needs) and writes one bridge per line, ``x1 y1 x2 y2 n``, then exits. Its output is
complete when it exits (or closes its output), or when the per-puzzle time limit is
reached: CodinGame's solvers print every line and then end, but one that keeps running is
read at the limit (``reason: timeout`` in the record's stats says so). Lines are read as ``check hashi`` reads a solution file: blank
lines and ``#`` comments are passed over, every other line must be five integers. A line that
is not (debug output on stdout, a number too big) is no bridge and no answer: the program's
output is *malformed*, a verdict naming the first bad line (debug output belongs on stderr,
as on CodinGame). The bridges become the harness's answer form ``[[x1, y1, x2, y2, n], ...]``
and are judged by the rules (:func:`puzzleproof.models.hashi.check_solution`, through the
Hashi kind's check), so a wrong answer is an ``invalid-answer`` disagreement.

Outcomes: an answer (``SOLVED``, as claimed; the harness checks it); no answer within the
limit, ``UNKNOWN`` with ``stats["reason"] == "timeout"``; a program that died without an
answer (``crash``, ``memory-limit``, ``cannot-start``, ``output-too-long``) or whose output
is malformed (``malformed-output``), an ``ERROR`` record whose ``error`` names the reason
(``crash: exit code 3``; ``malformed output: line 2: ...``) and ends with its stderr's last
lines. Every record of the program carries ``stats["reason"]`` and its capped stderr in
``stats["stderr"]``.

Example (merge into the Hashi kind)::

    kind = hashi_kind({"mine": external_method(Program.parse("mine=python3 solver.py"))})
"""

from __future__ import annotations

from functools import partial

from puzzleproof.formats.hashi import write_puzzle
from puzzleproof.clock import Deadline
from puzzleproof.method import Method
from puzzleproof.models.hashi import Puzzle
from puzzleproof.result import Result, Status
from puzzleproof.games.program import Program
from puzzleproof.games.runner import ProgramFailed, answer

__all__ = ["external_method", "run_solver", "parse_bridges"]

#: how much of the stderr goes into an ERROR record's message
_ERROR_STDERR_CHARS = 2000


#: bad lines named in a verdict (parsing stops counting beyond them: a program that floods
#: its output with garbage is judged as fast as one that writes one bad line)
_BAD_SHOWN = 3


class NotSent(RuntimeError):
    """The puzzle cannot be put to the program: CodinGame's input holds only puzzles with at
    most 2 bridges per pair. A limit of the protocol, not a fault of the program: the
    harness records it ``NOT-SENT`` and the program is not charged."""

    is_verdict = True
    not_sent = True


def parse_bridges(text: str) -> tuple[list[list[int]], list[str]]:
    """The ``x1 y1 x2 y2 n`` lines of ``text`` and the first bad ones, each as ``line N:
    'TEXT': WHAT WAS EXPECTED`` (blank lines and ``#`` comments are neither, as in
    ``check hashi``); past a few bad lines the rest is not read (the output is malformed
    whatever it holds)."""
    from puzzleproof.errors import InputError
    from puzzleproof.formats.hashi import read_solution

    bridges, bad = [], []
    for k, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            # one line at a time, as a solution file's line (JSON is no CodinGame output)
            if stripped.startswith(("[", "{")):
                raise InputError("expected 'x1 y1 x2 y2 n' (5 integers), found JSON")
            (sol,) = read_solution(line)
        except (InputError, ValueError) as exc:
            why = exc.message if isinstance(exc, InputError) else str(exc)
            shown = line if len(line) <= 80 else line[:77] + "..."
            bad.append(f"line {k}: {shown!r}: {why}")
            if len(bad) >= _BAD_SHOWN:
                bad.append(f"(the output is not read beyond line {k})")
                break
            continue
        bridges.append(list(sol.bridge))
    return bridges, bad


def run_solver(program: Program, puzzle: Puzzle, *, deadline: Deadline) -> Result:
    """Run the program on one puzzle (a method once bound by ``partial``), within the
    task's ``deadline`` (:func:`puzzleproof.games.runner.answer`)."""
    from puzzleproof.errors import InputError

    try:
        text = write_puzzle(puzzle, "codingame")
    except InputError:  # what CodinGame's input cannot hold is not sent
        raise NotSent(f"not sent: the protocol holds at most 2 bridges per pair (this puzzle "
                      f"allows {puzzle.max_bridges})") from None
    done = answer(program, text, deadline, close_input=True)
    bridges, bad = parse_bridges(done.output)
    reason = done.verdict[0] if done.verdict else "exited"
    stats = {"reason": reason, "detail": done.verdict[1] if done.verdict else None,
             "bridge_lines": len(bridges), "bad_lines": len(bad),
             "bad_examples": bad[:3], "exit_code": done.exit.returncode,
             "max_rss_mb": done.exit.max_rss_mb, "stderr": done.stderr,
             "notes": done.exit.notes}
    limit = deadline.limit if deadline.at is not None else program.limits.first
    params = {"command": list(program.command), "time_limit": limit,
              "memory_limit": program.limits.memory_mb}
    tail = done.stderr[-_ERROR_STDERR_CHARS:].strip()
    if bad:
        # garbage on stdout is a verdict, never skipped: the first bad line is named
        more = (f" (and {len(bad) - 1} more bad line(s))" if 1 < len(bad) <= _BAD_SHOWN
                else " (and more bad lines)" if len(bad) > _BAD_SHOWN else "")
        ended = f"; the program then ended by {reason}: {stats['detail']}" \
            if done.verdict else ""
        raise ProgramFailed(f"malformed output: {bad[0]}{more}{ended}"
                                   + (f"\n--- stderr (last lines) ---\n{tail}" if tail else ""))
    answered = bool(bridges) or (done.finished and bool(done.output.strip()))
    if answered or (done.verdict is None and done.finished):
        # an answer (even an empty or partial one) is judged by the rules
        return Result("hashi", Status.SOLVED, bridges, None, solver=program.name,
                      solver_version="external", params=params, wall_time=done.seconds,
                      stats=stats)
    if reason == "timeout":
        note = {"note": f"time limit ({limit:g} s) ran out before the program answered",
                "limit": "time-limit"}
        return Result("hashi", Status.UNKNOWN, None, note, solver=program.name,
                      solver_version="external", params=params, wall_time=done.seconds,
                      stats=stats)
    raise ProgramFailed(f"{reason}: {stats['detail']}"
                               + (f"\n--- stderr (last lines) ---\n{tail}" if tail else ""))


def external_method(program: Program) -> Method:
    """A harness method running ``program`` as a CodinGame-protocol Hashi solver (the
    task's deadline is its time; its memory limit holds)."""
    return Method(program.name, "external", f"the program {program.text}",
                  run=partial(run_solver, program))
