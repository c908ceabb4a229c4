"""Cross-check runs for every puzzle: run the harness, print one table per puzzle, the
disagreements with their evidence, and the known findings confirmed or broken."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from puzzleproof.cli.common import emit, executor_for, out, plural, progress_bar, say, short
from puzzleproof.errors import InputError

#: the summary columns each puzzle's table shows: (title, summary key)
COLUMNS = {
    "hashi": (("solved", "solved"), ("unique", "unique"), ("multiple", "multiple"),
              ("infeasible", "infeasible"), ("failed", "failed"), ("unknown", "unknown")),
    "skynet": (("WIN", "won"), ("LOSS", "lost"), ("unknown", "unknown"),
               ("failed check", "failed")),
}
EFFORT_NOTE = {
    "hashi": "effort: cut rounds for exact solvers, assumptions for the article's solver",
    "skynet": "exact methods: proved verdicts; bots: played against the worst-case agent "
              "(LOSS: an agent line beats the bot); effort: positions searched",
}


def run_and_report(puzzle: str, kind, instances, chosen: list[str], output: str | None,
                   force: bool, resume: bool, jobs: int | None, time_limit: float | None,
                   as_json: bool, quiet: bool, findings: dict[str, dict] | None = None,
                   columns=None) -> int:
    """Run the harness and report; return the exit code (0 nothing wrong, 1 a disagreement
    or a known finding that no longer holds, 130 interrupted)."""
    from puzzleproof.verify.crosscheck import run_crosscheck

    if resume and not output:
        raise click.UsageError("--resume needs -o, the file of the run to continue")
    target = Path(output) if output else None
    if target is not None and target.exists() and target.stat().st_size and not resume:
        if force:
            target.unlink()
        else:
            raise InputError("exists; pass --resume to continue that run, --force to start "
                             "it again, or choose another output", str(target))
    with progress_bar(quiet or as_json) as progress:
        task = progress.add_task("cross-checking", total=None)

        def tick(done: int, total: int, label: str) -> None:
            progress.update(task, completed=done, total=total,
                            description=f"cross-checking {short(label, 40)}")

        report = run_crosscheck(kind, instances, chosen, target, resume=resume,
                                jobs=executor_for(jobs), time_limit=time_limit,
                                progress=tick)
    confirmed, broken, unchecked = split_findings(report, findings or {}, chosen)
    new = [d for d in report.disagreements if d not in confirmed]
    if as_json:
        emit({"type": "crosscheck", "schema_version": 1, "puzzle": puzzle,
              "instances": len(instances), "methods": chosen, "summary": report.summary(),
              "disagreements": new, "confirmed_findings": confirmed,
              "broken_findings": broken, "unchecked_findings": unchecked,
              "interrupted": report.interrupted})
    else:
        print_table(puzzle, report, len(instances), columns)
        print_findings(confirmed, broken, unchecked)
        print_disagreements(new, target)
    if report.interrupted:
        say(f"interrupted after {plural(report.new_records, 'new record')}"
            + (f"; they are in {target}: rerun with --resume to finish" if target else ""))
        return 130
    return 1 if new or broken else 0


def split_findings(report, findings: dict[str, dict], chosen: list[str]):
    """Disagreements that a shipped evidence file predicted (confirmed), evidence whose bot
    no longer loses (broken), and evidence whose bots were not run (unchecked)."""
    confirmed, broken, unchecked = [], [], []
    for name, ev in findings.items():
        start = ev.get("start")
        inst = f"{name}@{start}"
        if not any(r["instance"] == inst for r in report.records):
            unchecked.append({"map": name, "start": start, "bots": ev.get("lost_by", []),
                              "why": "its start was not played"})
            continue
        for bot in ev.get("lost_by", []):
            if bot not in chosen:
                unchecked.append({"map": name, "start": start, "bots": [bot],
                                  "why": f"{bot} was not among the methods"})
                continue
            hit = [d for d in report.disagreements if d["instance"] == inst
                   and d["kind"] == "loses-winnable-game" and d["methods"][0] == bot]
            if hit:
                confirmed.extend(hit)
            else:
                rec = next((r for r in report.records if r["instance"] == inst
                            and r["method"] == bot), None)
                broken.append({"map": name, "start": start, "bot": bot,
                               "evidence": ev.get("file"),
                               "now": rec["status"] if rec else "not run"})
    return confirmed, broken, unchecked


def print_table(puzzle: str, report, n_instances: int, columns=None) -> None:
    cols = columns or COLUMNS.get(puzzle, COLUMNS["hashi"])
    what = "map/start pair" if puzzle == "skynet" else "instance"
    table = Table(title=f"Cross-check of {plural(n_instances, what)}", title_justify="left")
    table.add_column("method", justify="left")
    for title, _ in cols:
        table.add_column(title, justify="right")
    for title in ("mean s", "max s", "effort mean", "effort max"):
        table.add_column(title, justify="right")
    for row in report.summary():
        recs = [r for r in report.records if r["method"] == row["method"]]
        row = dict(row)
        row["multiple"] = sum(r["status"] == "MULTIPLE" for r in recs)
        row["failed"] = row["failed"] + sum(1 for r in recs if not r["check_ok"]
                                            and r["status"] not in ("SOLVED", "UNIQUE",
                                                                    "MULTIPLE", "OPTIMAL"))
        eff = row["mean_effort"]
        table.add_row(row["method"], *[str(row.get(key, "")) for _, key in cols],
                      f"{row['mean_time']:.3f}", f"{row['max_time']:.3f}",
                      "" if eff is None else f"{eff:.2f}",
                      "" if row["max_effort"] is None else str(row["max_effort"]))
    out.print(table)
    if puzzle in EFFORT_NOTE:
        out.print(EFFORT_NOTE[puzzle], markup=False)
    unknown = [r for r in report.records if r["status"] == "UNKNOWN"]
    for r in unknown[:10]:
        note = (r.get("certificate") or {}).get("note") if isinstance(r.get("certificate"),
                                                                      dict) else None
        out.print(f"  UNKNOWN: {r['instance']} {r['method']}"
                  + (f": {note}" if note else ": its time limit ran out"), markup=False)


def print_findings(confirmed, broken, unchecked) -> None:
    if confirmed:
        out.print(f"{plural(len(confirmed), 'known finding')} confirmed (shipped evidence, "
                  "still true):", markup=False)
        for d in confirmed:
            out.print(f"  {d['instance']}: {d['methods'][0]} loses a game proved winnable by "
                      f"{d['methods'][1] if len(d['methods']) > 1 else 'an exact method'}",
                      markup=False)
    for b in broken:
        out.print(f"FINDING NO LONGER HOLDS: {b['map']}@{b['start']}: {b['evidence']} says "
                  f"{b['bot']} loses, but now it is {b['now']}", markup=False)
    for u in unchecked:
        out.print(f"  finding not checked: {u['map']}@{u['start']} ({', '.join(u['bots'])}): "
                  f"{u['why']}", markup=False)


def describe(d: dict) -> str:
    ev = d["evidence"]
    kind = d["kind"]
    if kind == "invalid-answer":
        return "; ".join(v["message"] for v in ev["violations"][:3])
    if kind == "missed-solution":
        return (f"{d['methods'][0]} says {ev['claim']}"
                + (f" ({ev['error']})" if ev.get("error") else "")
                + f" but {ev['solution_by']} found a checked solution")
    if kind == "unique-mismatch":
        return "both claim UNIQUE with different solutions"
    if kind == "reference-mismatch":
        return f"answer differs from the shipped reference (UNIQUE by {ev['unique_by']})"
    if kind == "loses-winnable-game":
        rec = ev.get("record") or {}
        line = " ".join(f"{t['cut'][0]}-{t['cut'][1]}>{t['agent_moved_to']}"
                        if t.get("cut") else "(no cut)" for t in rec.get("turns", []))
        text = (f"proved WIN by {ev.get('proved_win_by')}; the agent wins in "
                f"{plural(len(rec.get('turns', [])), 'turn')} ({rec.get('reason')}): "
                f"cut>move {line}")
        if rec.get("stderr"):
            tail = [x for x in str(rec["stderr"]).splitlines() if x.strip()][-3:]
            text += "".join(f"\n      stderr| {short(x, 100)}" for x in tail)
        return text
    return json.dumps(ev)[:300]


def print_disagreements(disagreements: list[dict], target: Path | None) -> None:
    if not disagreements:
        out.print("no disagreement" + (f"; records in {target}" if target else ""),
                  markup=False)
        return
    out.print(f"{plural(len(disagreements), 'disagreement')}:", markup=False)
    for d in disagreements:
        out.print(f"  {d['instance']}: {d['kind']} [{', '.join(d['methods'])}] {describe(d)}",
                  markup=False)
    if target:
        out.print(f"evidence (answers, game records) in {target}", markup=False)


def records_of(path: str) -> list[dict[str, Any]]:
    from puzzleproof.verify.crosscheck import load_records

    return load_records(Path(path))
