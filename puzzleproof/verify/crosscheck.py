"""The cross-check harness: run exact methods and heuristics on instances, find disagreements.

Generic over puzzles: a puzzle plugs in through a :class:`PuzzleKind` (how to load instances,
which methods exist, how to rule-check an answer and compare two answers). For each instance
and method the harness records the answer, its status, the harness's *own* rule check of the
answer (it does not trust the method's), effort and time, as one JSON object appended to a
JSONL file the moment it exists (``"type": "record"``). When all methods of an instance are
in, its disagreements are appended too (``"type": "disagreement"``). A stopped run loses
nothing; a rerun with the same output file skips what is done (``resume``).

A **disagreement** is any of:

- ``invalid-answer``: a method's answer fails the rule check;
- ``missed-solution``: a method says unsolvable (INFEASIBLE), gives up (UNKNOWN) or fails
  (ERROR) where another method produced a checked solution. For an optimisation puzzle the
  kind says which UNKNOWNs are open questions instead (``PuzzleKind.open_unknown``): an exact
  method whose proof ran out keeps its bounds, and a heuristic whose time ran out beside
  another method's answer found nothing wrong; neither is a miss;
- ``unique-mismatch``: two methods claim UNIQUE with different solutions;
- ``reference-mismatch``: a solution differs from the reference shipped with the instance,
  when some method proved the instance UNIQUE.

Work runs on local processes or a Dask cluster (:mod:`puzzleproof.executor`; one task per
instance and method); exact solvers inside use one worker each. Records are appended here, in
the process that runs the harness, whichever executor ran the task.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from puzzleproof import executor
from puzzleproof.clock import PerTask
from puzzleproof.method import Method
from puzzleproof.formats.jsonl import load_records, trim_torn_tail
from puzzleproof.games.program import programs_in, reach_check
from puzzleproof.verify.records import Disagreement, Record

__all__ = ["Instance", "Method", "PuzzleKind", "describe", "CrosscheckReport", "run_crosscheck",
           "find_disagreements"]

SOLVED_STATUSES = {"SOLVED", "UNIQUE", "MULTIPLE", "OPTIMAL"}


@dataclass
class Instance:
    id: str
    data: Any  # the model instance (picklable)
    reference: Any = None  # a reference answer shipped with the instance


@dataclass
class PuzzleKind:
    """How the harness handles one puzzle."""

    name: str
    methods: dict[str, Method]
    check: Callable[[Any, Any], list[dict]]  # (data, answer) -> violations (empty: valid)
    canon: Callable[[Any], Any]  # answer -> a comparable canonical form
    #: puzzle-specific disagreements: (instance, records) -> [(kind, methods, evidence)]
    extra: Callable[[Instance, Sequence[dict]], list[tuple[str, list[str], dict]]] | None = None
    #: optimisation puzzles (city closing): which UNKNOWN records are open questions, not a
    #: ``missed-solution`` when another method produced a legal answer (a limit ran out: an
    #: exact method keeps its bounds, a heuristic its search); None: every UNKNOWN is a miss
    open_unknown: Callable[[dict], bool] | None = None
    #: loads what every task of the kind needs (compiled code), once per worker process and
    #: outside the tasks' time (a task may run in a forked child: see puzzleproof.executor)
    warm: Callable[[], Any] | None = None


@dataclass
class CrosscheckReport:
    records: list[dict]
    disagreements: list[dict]
    methods: list[str]
    interrupted: bool = False
    new_records: int = 0

    @property
    def exit_code(self) -> int:
        return 1 if self.disagreements else 0

    def summary(self) -> list[dict]:
        """Per method: counts by outcome, mean and max time, mean and max effort. ``failed``
        counts every record whose answer breaks a rule and every ERROR (a crash, a program's
        garbage); ``solved``, ``won`` and ``lost`` only answers that passed the check. The
        terminal's table, the ``--json`` summary and the report all show these rows."""
        out = []
        for m in self.methods:
            recs = [r for r in self.records if r["method"] == m]
            times = [r["wall_time"] for r in recs]
            efforts = [r["effort"] for r in recs if isinstance(r.get("effort"), (int, float))]
            row = {"method": m, "instances": len(recs),
                   "solved": sum(r["status"] in SOLVED_STATUSES and r["check_ok"] for r in recs),
                   "unique": sum(r["status"] == "UNIQUE" and r["check_ok"] for r in recs),
                   "multiple": sum(r["status"] == "MULTIPLE" and r["check_ok"] for r in recs),
                   "infeasible": sum(r["status"] == "INFEASIBLE" for r in recs),
                   "failed": sum(not r["check_ok"] or r["status"] == "ERROR" for r in recs),
                   "unknown": sum(r["status"] == "UNKNOWN" for r in recs),
                   "not_sent": sum(r["status"] == "NOT-SENT" for r in recs),
                   "won": sum(r["status"] == "WIN" and r["check_ok"] for r in recs),
                   "lost": sum(r["status"] == "LOSS" and r["check_ok"] for r in recs),
                   "mean_time": sum(times) / len(times) if times else 0.0,
                   "max_time": max(times) if times else 0.0,
                   "mean_effort": sum(efforts) / len(efforts) if efforts else None,
                   "max_effort": max(efforts) if efforts else None}
            out.append(row)
        return out


def _run_task(kind: PuzzleKind, method: Method, inst: Instance, each: PerTask) -> dict:
    """Run one method on one instance and make its record (in a worker process)."""
    t0 = time.monotonic()
    error = None
    try:
        res = method(inst.data, deadline=each.start())
        status, answer = res.status.value, res.answer
        stats, cert = res.stats, res.certificate
        solver = f"{res.solver} {res.solver_version}".strip()
    except Exception as exc:  # a crashing method is a verdict, not a crash of the harness
        status, answer, stats, cert, solver = "ERROR", None, {}, None, method.name
        if getattr(exc, "not_sent", False):  # the instance could not be put to it at all
            status = "NOT-SENT"
        # a judged program's failure is its verdict, said in its own words; anything else
        # names the exception (a bug of the method)
        error = str(exc) if getattr(exc, "is_verdict", False) else f"{type(exc).__name__}: {exc}"
    wall = time.monotonic() - t0
    violations = kind.check(inst.data, answer) if answer is not None else []
    return Record(kind.name, inst.id, method.name, method.exact, status, answer,
                  not violations, violations, round(wall, 4), stats,
                  stats.get(method.effort) if method.effort else None, cert, solver,
                  error).to_dict()


def _failure_record(kind: PuzzleKind, method: Method, inst: Instance,
                    failure: "executor.TaskFailure") -> dict:
    """The record of a task that gave no answer: UNKNOWN when it hung past its limit, ERROR
    when its worker kept dying."""
    hung = failure.kind == "timeout"
    return Record(kind.name, inst.id, method.name, method.exact,
                  "UNKNOWN" if hung else "ERROR",
                  stats={"limit": "hang limit"} if hung else {"attempts": failure.attempts},
                  certificate={"note": failure.message} if hung else None,
                  solver=method.name, error=failure.message).to_dict()


def find_disagreements(kind: PuzzleKind, inst: Instance, recs: Sequence[dict]) -> list[dict]:
    """Every disagreement among the records of one instance (see the module docstring)."""
    out: list[dict] = []

    def add(what: str, methods: list[str], evidence: dict) -> None:
        out.append(Disagreement(kind.name, inst.id, what, methods, evidence).to_dict())

    good = [r for r in recs if r["status"] in SOLVED_STATUSES and r["answer"] is not None
            and r["check_ok"]]
    for r in recs:
        if r["answer"] is not None and not r["check_ok"]:
            add("invalid-answer", [r["method"]], {"answer": r["answer"],
                                                   "violations": r["violations"]})
    if good:
        # the same witness whatever order the records finished in (a resumed or parallel
        # run writes the same disagreements as a serial one): exact methods first, by name
        witness = min(good, key=lambda r: (not r.get("exact"), r["method"]))
        for r in recs:
            if r["status"] in ("INFEASIBLE", "UNKNOWN", "ERROR"):
                if r["status"] == "UNKNOWN" and kind.open_unknown is not None \
                        and kind.open_unknown(r):
                    continue
                add("missed-solution", [r["method"], witness["method"]],
                    {"claim": r["status"], "error": r.get("error"),
                     "solution_by": witness["method"], "solution": witness["answer"]})
    uniques = [r for r in good if r["status"] == "UNIQUE"]
    for a, b in zip(uniques, uniques[1:]):
        if kind.canon(a["answer"]) != kind.canon(b["answer"]):
            add("unique-mismatch", [a["method"], b["method"]],
                {a["method"]: a["answer"], b["method"]: b["answer"]})
    if inst.reference is not None and uniques:
        ref = kind.canon(inst.reference)
        for r in good:
            if kind.canon(r["answer"]) != ref:
                add("reference-mismatch", [r["method"]],
                    {"answer": r["answer"], "reference": inst.reference,
                     "unique_by": uniques[0]["method"]})
    if kind.extra is not None:
        for what, methods, evidence in kind.extra(inst, recs):
            add(what, methods, evidence)
    return out


def run_crosscheck(kind: PuzzleKind, instances: Sequence[Instance], methods: Sequence[str],
                   out_path: Path | None = None, *, resume: bool = False, jobs: int | None = None,
                   each: PerTask = PerTask(None),
                   progress: Callable[[int, int, str], None] | None = None,
                   hang_limit: float | None = None,
                   echo: Callable[[dict], None] | None = None) -> CrosscheckReport:
    """Cross-check ``methods`` on ``instances``; append records to ``out_path`` as they come.

    With ``resume``, records already in ``out_path`` are kept and their tasks skipped; without
    it an existing file is an error (nothing is overwritten). Each task has ``each``'s time
    from its own start. ``progress(done, total, label)`` is called after each task; ``echo(obj)``
    for every line appended (a record, a disagreement, an instance done), as it comes. ``jobs`` is a number of local processes or an
    :class:`~puzzleproof.executor.ExecutorSpec` (a Dask cluster); a task running past
    ``hang_limit`` seconds (default from the time limit,
    :func:`~puzzleproof.executor.hang_limit_for`) is killed and recorded UNKNOWN, and a task
    whose worker dies too often is recorded ERROR.
    """
    for m in methods:
        if m not in kind.methods:
            raise ValueError(f"unknown method {m!r} for {kind.name}; expected one of "
                             f"{', '.join(kind.methods)}")
    ids = [i.id for i in instances]
    if len(set(ids)) != len(ids):
        raise ValueError("instance ids must be unique")
    run = _Run(kind, instances, list(methods), out_path, _earlier(out_path, resume))
    run.echo = echo
    try:
        return run.go(jobs, each, progress, hang_limit)
    finally:
        run.close()


def _earlier(out_path: Path | None, resume: bool) -> list[dict]:
    """What an earlier run wrote to ``out_path`` (its torn last line trimmed), when
    resuming; an existing file is refused otherwise."""
    if out_path is None:
        return []
    if out_path.exists() and out_path.stat().st_size and not resume:
        raise FileExistsError(f"{out_path} exists; pass resume to continue it, or choose "
                              "another output")
    if not resume:
        return []
    old = load_records(out_path)
    trim_torn_tail(out_path)
    return old


class _Run:
    """One cross-check: the tasks still to do, the records and disagreements so far, and the
    JSONL sink they are appended to as they come."""

    def __init__(self, kind: PuzzleKind, instances: Sequence[Instance], methods: list[str],
                 out_path: Path | None, old: list[dict]) -> None:
        self.kind, self.instances = kind, instances
        self.by_inst = {i.id: i for i in instances}
        done = {(r["instance"], r.get("method")) for r in old if r.get("type") == "record"}
        self.records = [r for r in old if r.get("type") == "record"
                        and r.get("instance") in self.by_inst and r.get("method") in methods]
        self.disagreements = [d for d in old if d.get("type") == "disagreement"
                              and d.get("instance") in self.by_inst]
        self.judged = {d.get("instance") for d in old
                       if d.get("type") in ("disagreement", "instance-done")}
        self.tasks = [(i, m) for i in instances for m in methods if (i.id, m) not in done]
        self.pending: dict[str, int] = {}
        for inst, _ in self.tasks:
            self.pending[inst.id] = self.pending.get(inst.id, 0) + 1
        self.sink = open(out_path, "a", encoding="utf-8") if out_path is not None else None
        self.echo: Callable[[dict], None] | None = None
        self.report = CrosscheckReport(self.records, self.disagreements, methods)

    def emit(self, obj: dict) -> None:
        if self.sink is not None:
            self.sink.write(json.dumps(obj) + "\n")
            self.sink.flush()
        if self.echo is not None:
            self.echo(obj)

    def close(self) -> None:
        if self.sink is not None:
            self.sink.close()

    def close_instance(self, inst: Instance) -> None:
        recs = [r for r in self.records if r["instance"] == inst.id]
        found = find_disagreements(self.kind, inst, recs)
        for d in found:
            self.emit(d)
        self.emit({"type": "instance-done", "schema_version": 2, "puzzle": self.kind.name,
                   "instance": inst.id, "disagreements": len(found)})
        self.disagreements.extend(found)

    def go(self, jobs: Any, each: PerTask, progress: Any,
           hang_limit: float | None) -> CrosscheckReport:
        # instances whose records were all there but whose verdict was never written
        for inst in self.instances:
            if inst.id not in self.pending and inst.id not in self.judged:
                self.close_instance(inst)
        kind = self.kind
        hang = hang_limit if hang_limit is not None else executor.hang_limit_for(each)
        finished = 0
        # SIGTERM with a pool: workers killed, SystemExit(143) raised here, the sink closed
        # with whole records. Without one the default stays (the process ends at once, even
        # inside a solver's C code that a Python handler would wait for; records are flushed
        # one by one)
        try:
            # the programs judged must be reachable as here on every Dask worker
            checks = reach_check(programs_in(list(kind.methods.values())))
            with executor.open_pool(executor.as_spec(jobs), checks) as pool:
                for (inst, m), rec in pool.stream(
                        _run_task, self.tasks, hang_limit=hang, warm=kind.warm,
                        args=lambda t: (kind, kind.methods[t[1]], t[0], each),
                        name=lambda t: f"{t[1]} on {t[0].id}"):
                    if isinstance(rec, executor.TaskFailure):
                        rec = _failure_record(kind, kind.methods[m], inst, rec)
                    finished = _accept(rec, self.records, self.emit, self.pending,
                                       self.by_inst, self.close_instance, finished,
                                       len(self.tasks), progress)
        except KeyboardInterrupt:
            self.report.interrupted = True
        self.report.new_records = finished
        return self.report


def _accept(rec, records, emit, pending, by_inst, close_instance, finished, total, progress):
    records.append(rec)
    emit(rec)
    pending[rec["instance"]] -= 1
    if pending[rec["instance"]] == 0:
        close_instance(by_inst[rec["instance"]])
    finished += 1
    if progress:
        progress(finished, total, f"{rec['method']} {rec['instance']}")
    return finished


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else "…" + text[-(width - 1):]


def describe(d: dict) -> str:
    """One disagreement in words (a table cell, a report's row)."""
    ev = d["evidence"]
    kind = d["kind"]
    if kind == "invalid-answer":
        return "; ".join(v["message"] for v in ev["violations"][:3])
    if kind == "missed-solution":
        return (f"{d['methods'][0]} says {ev['claim']}"  # the error's first line: its
                # stderr stays in the evidence
                + (f" ({str(ev['error']).splitlines()[0]})" if ev.get("error") else "")
                + f" but {ev['solution_by']} found a checked solution")
    if kind == "unique-mismatch":
        return "both claim UNIQUE with different solutions"
    if kind == "reference-mismatch":
        return f"answer differs from the shipped reference (UNIQUE by {ev['unique_by']})"
    if kind == "loses-winnable-game":
        rec = ev.get("record") or {}
        turns = rec.get("turns", [])
        line = " ".join(f"{t['cut'][0]}-{t['cut'][1]}>{t['agent_moved_to']}"
                        if t.get("cut") else "(no cut)" for t in turns)
        text = (f"proved WIN by {ev.get('proved_win_by')}; the agent wins in "
                f"{len(turns)} turn{'' if len(turns) == 1 else 's'} ({rec.get('reason')}): "
                f"cut>move {line}")
        if rec.get("stderr"):
            tail = [x for x in str(rec["stderr"]).splitlines() if x.strip()][-3:]
            text += "".join(f"\n      stderr| {_short(x, 100)}" for x in tail)
        return text
    if isinstance(ev.get("message"), str):
        return ev["message"]
    if ev.get("violations"):
        return "; ".join(v["message"] for v in ev["violations"][:3])
    return json.dumps(ev)[:300]
