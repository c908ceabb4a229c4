"""Hunting the smallest instance on which a program fails, with the proof of what it should
have done: property-based testing for puzzle solvers and game bots, the exact solver as
the oracle.

A puzzle takes part through a :class:`Hunter`: it draws a seeded random instance of a
given size, judges the program on one (runs it, and asks the exact solver what the right
answer is: a :class:`Failure` with its evidence, or None), lists the instances one removal
smaller (a node, a link, an island, a city, a layer: each still well-formed), and writes an
instance and its evidence as files.

The hunt (:func:`hunt`) draws instances of growing size (``attempts_per_size`` of each),
seeded ``f"{seed}:{size}:{k}"`` so that the same seed gives the same instances. On a failure
it re-runs the judge ``confirm`` more times: a program that fails only some of the time is
kept as *intermittent*, with its rate, and not shrunk (a shrink step could not tell a
smaller failure from luck). A steady failure is **shrunk**: each removal is kept while the
failure remains (checked twice, so that one lucky run cannot make the instance smaller than
what fails), until no single removal keeps it, a *locally minimal* instance (the evidence
says whether the shrink finished or its time ran out). ``count`` distinct breakers are kept
(distinct by the hunter's canonical key); the hunt stops at its deadline with what it found.

Starting the program is most of what a judge costs. A Python program is therefore started
once per process and kept waiting for its input (a *pristine run*,
:mod:`puzzleproof.games.forking`), and each instance is given to a fork of it
(:func:`judged_answer`; Skynet's games, :mod:`.hunt_skynet`); only a fresh run's failure
is reported, so every failure a copy shows is played again from a real start.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Protocol, Sequence

from pathlib import Path

from puzzleproof.clock import Deadline
from puzzleproof.games.forking import pristine_runs
from puzzleproof.games.program import Limits, Program, programs_in, reach_check

__all__ = ["Failure", "Undecided", "UNDECIDED", "Hunter", "Breaker", "hunt", "shrink", "breaker_name", "breaker_document",
           "read_breaker", "rejudge", "program_of", "BREAKER_TYPE"]


@dataclass
class Failure:
    """What a program did wrong on one instance: ``kind`` (``loses-winnable-start``,
    ``wrong-answer``, ``gap``, ``crash``, ``timeout``...), one line for a person, and the
    evidence (JSON-able: what the program did, its last stderr lines, and what it should
    have done, proved)."""

    kind: str
    summary: str
    evidence: dict[str, Any] = field(default_factory=dict)


class Undecided:
    """A judge that could not tell (the hunt's clock would have cut the program short):
    neither a failure nor a pass."""

    def __repr__(self) -> str:
        return "UNDECIDED"


#: the one :class:`Undecided`
UNDECIDED = Undecided()


class Hunter(Protocol):
    """A puzzle's part of a hunt (see the module docstring)."""

    puzzle: str
    sizes: Sequence[int]

    def candidate(self, rng: random.Random, size: int) -> Any | None:
        """A random instance of about ``size`` (None: this draw made none)."""

    def judge(self, instance: Any, deadline: Deadline) -> Failure | Undecided | None:
        """Run the program on ``instance``: its failure, None when it is right (or the
        instance proves nothing: a start no one wins), :data:`UNDECIDED` when the hunt's
        clock would cut the program short."""

    def smaller(self, instance: Any) -> Iterator[Any]:
        """Every well-formed instance one removal smaller."""

    def size(self, instance: Any) -> int:
        """The instance's size, as the sizes count it."""

    def key(self, instance: Any) -> str:
        """A canonical text: two breakers with one key are the same."""


@dataclass
class Breaker:
    """A kept instance on which the program fails, and how it was found."""

    instance: Any
    failure: Failure
    size: int
    attempt: str
    runs: int
    failures: int
    shrink_steps: int = 0
    original_size: int = 0
    locally_minimal: bool = False
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        return self.failures / self.runs

    @property
    def intermittent(self) -> bool:
        return self.failures < self.runs

    def record(self) -> dict[str, Any]:
        """How the breaker was found (its evidence's ``hunt`` part)."""
        return {"attempt": self.attempt, "size": self.size,
                "original_size": self.original_size, "runs": self.runs,
                "failures": self.failures, "rate": round(self.rate, 4),
                "intermittent": self.intermittent, "shrink_steps": self.shrink_steps,
                "locally_minimal": self.locally_minimal,
                "seconds": round(self.seconds, 3)}


def _draws(sizes: Sequence[int], per_size: int) -> Iterator[tuple[int, int]]:
    """``(size, k)`` in the order a hunt draws them: ``per_size`` of each size, smallest
    first, then again from the smallest with the next ``k``, without end."""
    r = 0
    while True:
        for size in sizes:
            for k in range(r * per_size, (r + 1) * per_size):
                yield size, k
        r += 1


def hunt(hunter: Hunter, *, count: int = 1, seed: int = 0, deadline: Deadline,
         attempts_per_size: int = 20, max_attempts: int | None = None, confirm: int = 2,
         jobs: Any = 1, on_attempt: Callable[[int, int], None] | None = None
         ) -> Iterator[Breaker]:
    """Breakers of ``hunter``'s program, in the order they are found (see the module
    docstring), until ``count`` are kept, ``max_attempts`` instances were drawn or
    ``deadline`` passes (a hunt without either runs until it has found ``count``).

    Candidates are drawn and judged ``jobs`` at a time in worker processes (local ones or
    an :class:`~puzzleproof.executor.ExecutorSpec`; starting the program is most of a
    judge's time, and the runs overlap), and taken in draw order: whatever runs them, the
    same seed gives the same breakers."""
    from puzzleproof import executor

    seen: set[str] = set()
    attempts = 0
    draws = _draws(hunter.sizes, attempts_per_size)
    checks = reach_check(programs_in(getattr(hunter, "program", None)))  # on every Dask worker
    with executor.open_pool(jobs, checks) as pool, pristine_runs():
        width = 2 * pool.slots if pool.spec.parallel else 1
        while len(seen) < count and not deadline.expired():
            left = None if max_attempts is None else max_attempts - attempts
            batch = [next(draws) for _ in range(width if left is None else min(width, left))]
            if not batch:
                return
            t0 = time.monotonic()
            judged = _in_order(pool, _drawn, [(hunter, seed, s, k, deadline) for s, k in batch])
            for (size, k), (inst, failure) in zip(batch, judged):
                attempts += 1
                if on_attempt is not None:
                    on_attempt(attempts, len(seen))
                if not isinstance(failure, Failure) or len(seen) >= count:
                    continue
                found = _kept(pool, hunter, inst, failure, f"{seed}:{size}:{k}", confirm,
                              deadline)
                key = hunter.key(found.instance)
                if key in seen:
                    continue
                seen.add(key)
                found.seconds = time.monotonic() - t0
                yield found
                if on_attempt is not None:
                    on_attempt(attempts, len(seen))


def judged_answer(program: Program, text: str, verdict: Callable[[Any], Failure | None]
                  ) -> Failure | None:
    """The program's answer to ``text`` (its whole input; the one-answer protocol) judged by
    ``verdict``: first as a copy of its pristine run answers
    (:func:`~puzzleproof.games.forking.answer_from_copy`: a fork, not a start), and when
    that fails, or there is no copy, as a fresh run answers; only a fresh run's failure is
    reported (a copy has no stderr and no exit status)."""
    from puzzleproof.games.forking import answer_from_copy
    from puzzleproof.games.runner import answer

    first = program.limits.first
    quick = answer_from_copy(program, text, Deadline(first))
    if quick is not None and verdict(quick) is None:
        return None
    return verdict(answer(program, text, Deadline(first), close_input=True))


def _drawn(hunter: Hunter, seed: int, size: int, k: int, deadline: Deadline
           ) -> tuple[Any, Failure | Undecided | None]:
    """One draw, judged (a worker's task): ``(instance or None, what the judge said)``."""
    inst = hunter.candidate(random.Random(f"{seed}:{size}:{k}"), size)
    return inst, (None if inst is None else _judged(hunter, inst, deadline))


def _judged(hunter: Hunter, inst: Any, deadline: Deadline) -> Failure | Undecided | None:
    """A hunt's judge (a worker's task): the program's runs are copies of one (the worker
    keeps it for its next task)."""
    with pristine_runs(end=False):
        return hunter.judge(inst, deadline)


def _in_order(pool: Any, fn: Callable[..., Any], tasks: list[tuple]) -> list[Any]:
    """``fn(*task)`` for every task, on the pool, the results in the tasks' order (a task
    that gave none, its worker lost: :data:`UNDECIDED`)."""
    from puzzleproof import executor

    if len(tasks) == 1 or not pool.spec.parallel:
        return [fn(*task) for task in tasks]
    got: dict[int, Any] = {}
    for k, res in pool.stream(fn, range(len(tasks)), args=lambda k: tasks[k],
                              name=lambda k: f"hunt task {k}"):
        failed = isinstance(res, executor.TaskFailure)
        got[k] = ((None, UNDECIDED) if fn is _drawn else UNDECIDED) if failed else res
    return [got[k] for k in range(len(tasks))]


def _kept(pool: Any, hunter: Hunter, inst: Any, failure: Failure, attempt: str,
          confirm: int, deadline: Deadline) -> Breaker:
    """The failure re-run ``confirm`` times (runs the clock cut short are not counted),
    then shrunk when it is steady."""
    again = _in_order(pool, _judged, [(hunter, inst, deadline)] * confirm)
    runs = 1 + sum(f is not UNDECIDED for f in again)
    fails = 1 + sum(isinstance(f, Failure) for f in again)
    size = hunter.size(inst)
    b = Breaker(inst, failure, size, attempt, runs, fails, original_size=size)
    if fails < runs or runs < 1 + confirm:
        return b
    b.instance, b.failure, b.shrink_steps, b.locally_minimal = shrink(
        hunter, inst, failure, deadline, pool)
    b.size = hunter.size(b.instance)
    return b


def shrink(hunter: Hunter, inst: Any, failure: Failure, deadline: Deadline,
           pool: Any = None) -> tuple[Any, Failure, int, bool]:
    """Remove what can be removed while the failure remains (each step checked twice):
    ``(instance, its failure, steps, locally minimal)``; the last is False when the
    deadline stopped the shrink before a pass found nothing more to remove. With a
    ``pool``, the removals are judged a few at a time and the first that keeps the failure
    (in the hunter's order) is taken, as one at a time would."""
    width = 2 * pool.slots if pool is not None and pool.spec.parallel else 1
    steps = 0
    while True:
        todo = hunter.smaller(inst)
        while True:
            chunk = [s for _, s in zip(range(width), todo)]
            if not chunk:
                return inst, failure, steps, True
            if deadline.expired():
                return inst, failure, steps, False
            got = (_in_order(pool, _judged, [(hunter, s, deadline) for s in chunk])
                   if pool is not None else [hunter.judge(chunk[0], deadline)])
            hit = _first_kept(hunter, chunk, got, deadline)
            if hit is UNDECIDED:
                return inst, failure, steps, False
            if hit is not None:
                inst, failure = hit
                steps += 1
                break


def _first_kept(hunter: Hunter, chunk: list, got: list, deadline: Deadline) -> Any:
    """The first smaller instance whose failure stands a second judge, ``(instance,
    failure)``; None when none does; :data:`UNDECIDED` when the clock cut a judge short
    before one was found."""
    for smaller, g in zip(chunk, got):
        if g is UNDECIDED:
            return UNDECIDED
        if isinstance(g, Failure):
            again = hunter.judge(smaller, deadline)
            if again is UNDECIDED:
                return UNDECIDED
            if isinstance(again, Failure):
                return smaller, g
    return None


def breaker_name(puzzle: str, program: str, breaker: Breaker, k: int) -> str:
    """A kept breaker's file name (without ending): puzzle, program, size and seed."""
    return f"breaker-{puzzle}-{program}-{breaker.size}-{breaker.attempt.replace(':', '-')}-{k}"


def breaker_document(hunter: Any, breaker: Breaker, program: dict[str, Any], name: str,
                     instance_file: str) -> dict[str, Any]:
    """The evidence file beside a kept instance (``NAME.breaker.json``): what failed, how
    (the program's answer or game, its stderr's last lines), what it should have done
    (proved), and how the instance was found and shrunk."""
    return {"type": "breaker", "schema_version": 1, "puzzle": hunter.puzzle, "name": name,
            "instance": instance_file, "program": program,
            "settings": hunter.describe(), "failure": {"kind": breaker.failure.kind,
                                                       "summary": breaker.failure.summary},
            "hunt": breaker.record(), "evidence": breaker.failure.evidence}


#: the ``type`` of a breaker's evidence file
BREAKER_TYPE = "breaker"
#: the longest a re-judged breaker may take
REJUDGE_SECONDS = 300.0


def program_of(who: dict[str, Any]) -> Program:
    """The program a breaker's evidence names (its command and limits)."""
    lim = who.get("limits") or {}
    return Program(str(who["name"]), tuple(who["command"]),
                   limits=Limits(lim.get("first", 1.0), lim.get("turn", 0.150),
                                 lim.get("memory_mb", 768)))


def read_breaker(path: str | Path) -> tuple[dict[str, Any], str, str]:
    """A breaker's evidence (the ``NAME.breaker.json`` a hunt writes), the text of the
    instance file beside it and that file's path; InputError naming what is wrong."""
    from puzzleproof.errors import InputError
    from puzzleproof.formats.numbers import load_json

    path = Path(path)
    doc = load_json(path.read_text(encoding="utf-8"), str(path))
    if not isinstance(doc, dict) or doc.get("type") != BREAKER_TYPE:
        raise InputError('expected a breaker\'s evidence ("type": "breaker")', str(path))
    for key, kind in (("puzzle", str), ("settings", dict), ("program", dict),
                      ("instance", str), ("failure", dict)):
        if not isinstance(doc.get(key), kind):
            raise InputError(f"a breaker's evidence without its {key!r}", str(path))
    inst = path.parent / Path(doc["instance"]).name
    if not inst.is_file():
        raise InputError(f"the instance {doc['instance']!r} is not beside it", str(path))
    return doc, inst.read_text(encoding="utf-8"), str(inst)


def rejudge(path: str | Path, rebuild: Callable[..., tuple[Any, Any]]
            ) -> tuple[dict[str, Any], Failure | None]:
    """The breaker at ``path`` judged again from its files alone: its evidence and the
    failure its program shows there now (None: it now gets it right). ``rebuild`` is the
    puzzle's ``from_evidence`` (the hunter and the instance from the files)."""
    doc, text, source = read_breaker(path)
    hunter, instance = rebuild(doc["settings"], doc["program"], text, source)
    got = hunter.judge(instance, Deadline(REJUDGE_SECONDS))
    return doc, got if isinstance(got, Failure) else None
