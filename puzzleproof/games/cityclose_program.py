"""A city-closing program: the protocol a user's solver speaks, and the harness method that
runs it.

**Input** (stdin, one JSON object, then the end of the input): the map as
the project writes it (:func:`puzzleproof.formats.cityclose.map_to_json`) with the rules of
the run beside it::

    {"type": "cityclose", "name": "europe30",
     "cities": ["Paris", {"name": "Rome", "lat": 41.9, "lng": 12.5}, ...],
     "edges": [["Paris", "Rome"], ...],
     "keep": ["Berlin"],                       (only when cities are kept)
     "rules": {"final_size": 1, "keep": ["Berlin"], "no_paths": null,
               "final_not_path": false}}

A city is its name, or an object with its name and coordinates. ``final_size`` is how many
cities are left at the end; ``keep`` may never be closed; ``no_paths: K`` forbids any map
of the sequence to be a line of K or more cities; ``final_not_path`` forbids the last one to
be a line.

**Output** (stdout): the cities to close, in order, one name a line; or the whole order on
one line, separated by blanks (when no name holds a blank); or a JSON list of names (or
``{"order": [...]}``). ``#`` starts a comment on a line of names. Debug output belongs on
stderr (its last lines are kept with every verdict).

**Judged** by the rules alone (:func:`puzzleproof.models.cityclose.score_order`: each step
leaves the map connected, and the rules hold), and its total against the proved optimum by
the cross-check (the gap). Outcomes: an order (``SOLVED``; the harness checks it); no answer
within the task's deadline, ``UNKNOWN``; a program that died or wrote no order, an
``ERROR`` naming the reason with its stderr's last lines.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from puzzleproof.clock import Deadline
from puzzleproof.errors import InputError
from puzzleproof.formats.cityclose import map_to_json, read_order
from puzzleproof.games.program import Program
from puzzleproof.games.runner import ProgramFailed, answer
from puzzleproof.method import Method
from puzzleproof.models.cityclose import CityMap, Rules, score_order
from puzzleproof.result import Result, Status

__all__ = ["program_input", "parse_order", "run_program", "external_method"]

#: how much of the stderr goes into an ERROR record's message
_ERROR_STDERR_CHARS = 2000


def program_input(m: CityMap, rules: Rules) -> str:
    """What the program reads: the map's JSON with the run's rules (see the module doc)."""
    obj = json.loads(map_to_json(m))
    obj["rules"] = rules.to_dict()
    return json.dumps(obj) + "\n"


def parse_order(text: str, m: CityMap) -> list[str]:
    """The order the program wrote (names as written; the rules judge them). One line
    holding several blank-separated words that are not, together, a city's name is the
    whole order on one line. ``InputError`` when the output holds no order at all."""
    stripped = text.strip()
    if not stripped:
        raise InputError("no order: the program wrote nothing on stdout")
    if stripped[0] in "[{":
        return [str(c) for c in read_order(stripped, "the program's output").order]
    lines = [ln.split("#", 1)[0].strip() for ln in stripped.splitlines()]
    lines = [ln for ln in lines if ln]
    known = {nm.casefold() for nm in m.names}
    if len(lines) == 1 and lines[0].casefold() not in known and len(lines[0].split()) > 1:
        return lines[0].split()
    return lines


def run_program(program: Program, rules: Rules, m: CityMap, *, deadline: Deadline) -> Result:
    """Run the program on one map (a method once bound by ``partial``) within the task's
    ``deadline``; the answer is its order, scored by the rules when it is legal."""
    done = answer(program, program_input(m, rules), deadline, close_input=True)
    reason = done.verdict[0] if done.verdict else "exited"
    stats = {"reason": reason, "detail": done.verdict[1] if done.verdict else None,
             "exit_code": done.exit.returncode, "max_rss_mb": done.exit.max_rss_mb,
             "stderr": done.stderr, "notes": done.exit.notes}
    params = {"command": list(program.command), "rules": rules.to_dict(),
              "time_limit": deadline.limit, "memory_limit": program.limits.memory_mb}
    tail = done.stderr[-_ERROR_STDERR_CHARS:].strip()
    if done.output.strip():
        try:
            order = parse_order(done.output, m)
        except InputError as exc:
            raise ProgramFailed(f"malformed output: {exc.message}"
                                + (f"\n--- stderr (last lines) ---\n{tail}" if tail else ""))
        return Result("cityclose", Status.SOLVED, _scored(m, order, rules), None,
                      solver=program.name, solver_version="external", params=params,
                      wall_time=done.seconds, stats=stats, instance=m.name)
    if reason == "timeout":
        note = {"note": "the time limit ran out before the program answered",
                "limit": "time-limit"}
        return Result("cityclose", Status.UNKNOWN, None, note, solver=program.name,
                      solver_version="external", params=params, wall_time=done.seconds,
                      stats=stats, instance=m.name)
    detail = stats["detail"] or "it wrote no order"
    raise ProgramFailed(f"{reason}: {detail}"
                        + (f"\n--- stderr (last lines) ---\n{tail}" if tail else ""))


def _scored(m: CityMap, order: list[str], rules: Rules) -> dict[str, Any]:
    """The program's order as an answer: with the Wiener numbers and total the rules give
    it when it is legal (the harness checks it again), the bare order when it is not."""
    chk = score_order(m, order, rules)
    if not chk.ok:
        return {"order": order}
    return {"order": chk.order, "left": chk.left, "wiener": chk.wiener, "total": chk.total}


def external_method(program: Program, rules: Rules) -> Method:
    """A harness method running ``program`` on every map under ``rules``."""
    return Method(program.name, "external", f"the program {program.text}",
                  run=partial(run_program, program, rules))
