"""Death Run's cross-check: a tournament's games judged against the exact bounds.

Students: each seat's realised cost next to the robust bound of its graph (a cost above it
is a finding, ``exploitable``; the robust student above its own certified bound is a failed
check). Criminals: revenue next to the sum over rounds of the single-round toll optimum
(:func:`~puzzleproof.games.deathrun_tournament.crosscheck_records`). Every record is
replayed by the rules, and each graph shipped with evidence (from ``generate deathrun``) has
its game played again: the finding holds while the student still pays more than the robust
bound, recomputed here.
"""

from __future__ import annotations

from typing import Any, Sequence

from puzzleproof.clock import Deadline
from puzzleproof.models.deathrun_replay import replay
from puzzleproof.verify.deathrun_methods import STEP, bot_method

__all__ = ["judge", "worst_pairs", "confirm_evidence", "is_program", "SUMMARY_TYPE"]

SUMMARY_TYPE = "deathrun-crosscheck"


def worst_pairs(records: Sequence[dict]) -> dict[str, dict]:
    """Per student bot: the criminal pair it paid most against (mean cost)."""
    acc: dict[tuple[str, tuple[str, ...]], list[float]] = {}
    for r in records:
        nc = sum(1 for s in r["seats"] if s["role"] == "criminal")
        pair = tuple(s["bot"] for s in r["seats"][:nc])
        for s in r["seats"][nc:]:
            acc.setdefault((s["bot"], pair), []).append(r["scores"]["students"][s["seat"] - nc])
    worst: dict[str, dict] = {}
    for (bot, pair), xs in acc.items():
        m = sum(xs) / len(xs)
        if bot not in worst or m > worst[bot]["mean_cost"]:
            worst[bot] = {"criminals": list(pair), "mean_cost": m, "games": len(xs)}
    return worst


def confirm_evidence(graphs: Sequence[Any], names: Sequence[str],
                     evidence: Sequence[Any]) -> list[dict]:
    """Play the game of each shipped graph's evidence again (a field of its student against
    its criminals, with its seed): the finding holds while the student still pays more than
    the robust bound. A file whose game stayed within the bound claims nothing (a
    measurement)."""
    seen, found = set(), []
    for g, name, ev in zip(graphs, names, evidence):
        if not isinstance(ev, dict) or "game_seed" not in ev or name in seen:
            continue
        seen.add(name)
        crims = ev.get("criminals") or ["toll", "toll"]
        student = ev.get("student", "greedy")
        try:
            res = bot_method(student, "student").bind(
                {"seed": ev["game_seed"], "opponents": tuple(crims)})(g, deadline=Deadline(None))
        except KeyError as exc:
            found.append({"graph": name, "holds": False, "detail": f"unknown bot {exc}"})
            continue
        cost, bound = res.answer["score"], res.answer["bound"]
        gap = ev.get("gap")
        claim = not (isinstance(gap, (int, float)) and gap <= 0)
        found.append({"graph": name, "holds": cost > bound + 1e-9 or not claim,
                      "claim": claim, "student": student, "criminals": crims, "cost": cost,
                      "bound": bound, "recorded_cost": ev.get("greedy_cost"),
                      "game_seed": ev["game_seed"]})
    return found


def _failures(records: Sequence[dict], flags: list[dict]) -> list[dict]:
    """Records that do not replay by the rules, and the robust student above its bound."""
    by_id = {r["game_id"]: r for r in records}
    failures: list[dict] = []
    for r in records:
        problems = replay(r)
        if problems:
            failures.append({"kind": "record-does-not-replay", "game_id": r["game_id"],
                             "problem": problems[0]})
    for f in flags:
        if f["bot"] == "robust":
            failures.append({**f, "kind": "robust-above-bound", "record": by_id[f["game_id"]]})
    return failures


def judge(records: Sequence[dict], graphs: Sequence[Any], names: Sequence[str],
          evidence: Sequence[Any], seed: int) -> dict:
    """The cross-check summary of a tournament's ``records`` (played on ``graphs``, named
    ``names``, shipped with ``evidence``): what the ``--json`` record and the JSONL's last
    line hold. ``ok`` is False when a check failed."""
    from puzzleproof.games.deathrun_tournament import crosscheck_records

    cc = crosscheck_records(records, step=STEP, criminal_games=None)
    by_id = {r["game_id"]: r for r in records}
    name_of = dict(enumerate(names))
    flags = cc["flags"]
    for f in flags:
        f["graph"] = name_of.get(by_id[f["game_id"]].get("graph_index"), "?")
        f["criminals"] = [s["bot"] for s in by_id[f["game_id"]]["seats"]
                          if s["role"] == "criminal"]
    failures = _failures(records, flags)
    # a user's own student file above the bound is a finding against it (exit 1); the
    # built-in baselines' are known findings (measurements of weak bots)
    programs = [f for f in flags if is_program(f["bot"])]
    findings = confirm_evidence(graphs, names, evidence)
    failures += [{"kind": "finding-no-longer-holds", **x} for x in findings if not x["holds"]]
    return {"type": SUMMARY_TYPE, "schema_version": 1, "seed": seed,
            "graphs": len(graphs), "games": len(records), "students": cc["students"],
            "criminals": cc["criminals"], "worst_criminals": worst_pairs(records),
            "exploitable": flags, "program_findings": programs, "known_findings": findings,
            "failures": failures, "ok": not failures,
            "counts": {"games": len(records), "above_bound": len(flags),
                       "program_findings": len(programs), "failed_checks": len(failures),
                       "findings_confirmed": sum(bool(k.get("holds")) for k in findings),
                       "findings_broken": sum(not k.get("holds") for k in findings)}}


def is_program(bot: str) -> bool:
    """A bot given as a contest file (``student.py``, ``bots/mine.py:Class``), not one of
    ours."""
    return ".py" in str(bot)
