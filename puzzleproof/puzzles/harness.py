"""The cross-check of a puzzle whose methods each answer one instance: run the harness
(:func:`puzzleproof.verify.crosscheck.run_crosscheck`), confirm the known findings shipped
with the instances, and make the table, the disagreements and the ``--json`` summary.

A puzzle's :class:`~puzzleproof.puzzles.base.CrosscheckSpec` calls :func:`run_harness` with
its kind, instances and methods, and adds its own parts (a table of totals, a table of cuts)
to the page it gets back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from puzzleproof.clock import PerTask
from puzzleproof.puzzles.base import CrosscheckEnv, Outcome, Page
from puzzleproof.puzzles.inputs import plural
from puzzleproof.verify.crosscheck import describe, run_crosscheck
from puzzleproof.verify.records import harness_counts

__all__ = ["Table", "run_harness", "split_findings"]


@dataclass
class Table:
    """How a puzzle's cross-check table reads: its columns (title, summary key), what one
    instance is called, and the note printed under it."""

    columns: tuple[tuple[str, str], ...]
    what: str = "instance"
    note: str = ""
    summary_extra: dict[str, Any] = field(default_factory=dict)


def run_harness(puzzle: str, kind: Any, instances: Sequence[Any], chosen: list[str],
                env: CrosscheckEnv, each: PerTask, table: Table,
                findings: dict[str, dict] | None = None) -> tuple[Any, Outcome]:
    """Run the harness and judge: ``(report, outcome)``; the outcome's code is 1 on a new
    disagreement or a known finding that no longer holds, 130 when interrupted."""
    report = run_crosscheck(kind, instances, chosen, env.target, resume=env.resume,
                            jobs=env.executor, each=each, progress=env.progress,
                            echo=env.echo)
    confirmed, broken, unchecked = split_findings(report, findings or {}, chosen)
    new = [d for d in report.disagreements if d not in confirmed]
    record = {"type": "crosscheck", "schema_version": 2, "puzzle": puzzle,
              "instances": len(instances), "methods": chosen, "summary": report.summary(),
              "disagreements": new, "confirmed_findings": confirmed,
              "broken_findings": broken, "unchecked_findings": unchecked,
              "interrupted": report.interrupted,
              "columns": [list(c) for c in table.columns]}
    record["counts"] = harness_counts(record)
    page = summary_page(report, len(instances), table)
    page.extend(findings_page(confirmed, broken, unchecked))
    page.extend(disagreements_page(new, env.target))
    code = 130 if report.interrupted else (1 if new or broken else 0)
    if report.interrupted:
        page.note(f"interrupted after {plural(report.new_records, 'new record')}"
                  + (f"; they are in {env.target}: rerun with --resume to finish"
                     if env.target else ""))
    return report, Outcome(code == 0, record, page, code)


def split_findings(report: Any, findings: dict[str, dict], chosen: list[str]):
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


def summary_page(report: Any, n_instances: int, table: Table) -> Page:
    """The table of counts per method, its note and the first UNKNOWNs with their limit."""
    from rich.table import Table as RichTable

    t = RichTable(title=f"Cross-check of {plural(n_instances, table.what)}",
                  title_justify="left")
    t.add_column("method", justify="left")
    for title, _ in table.columns:
        t.add_column(title, justify="right")
    for title in ("mean s", "max s", "effort mean", "effort max"):
        t.add_column(title, justify="right")
    for row in report.summary():
        eff = row["mean_effort"]
        t.add_row(row["method"], *[str(row.get(key, "")) for _, key in table.columns],
                  f"{row['mean_time']:.3f}", f"{row['max_time']:.3f}",
                  "" if eff is None else f"{eff:.2f}",
                  "" if row["max_effort"] is None else str(row["max_effort"]))
    page = Page().table(t)
    if table.note:
        page.line(table.note)
    for r in [r for r in report.records if r["status"] == "NOT-SENT"][:10]:
        page.line(f"  {r['instance']} {r['method']}: {r.get('error')} (the program is not "
                  "charged)")
    for r in [r for r in report.records if r["status"] == "UNKNOWN"][:10]:
        cert = r.get("certificate")
        note = cert.get("note") if isinstance(cert, dict) else None
        page.line(f"  UNKNOWN: {r['instance']} {r['method']}"
                  + (f": {note}" if note else ": its time limit ran out"))
    return page


def findings_page(confirmed: list, broken: list, unchecked: list) -> Page:
    page = Page()
    if confirmed:
        page.line(f"{plural(len(confirmed), 'known finding')} confirmed (shipped evidence, "
                  "still true):")
        for d in confirmed:
            page.line(f"  {d['instance']}: {d['methods'][0]} loses a game proved winnable by "
                      f"{d['methods'][1] if len(d['methods']) > 1 else 'an exact method'}")
    for b in broken:
        page.line(f"FINDING NO LONGER HOLDS: {b['map']}@{b['start']}: {b['evidence']} says "
                  f"{b['bot']} loses, but now it is {b['now']}")
    for u in unchecked:
        page.line(f"  finding not checked: {u['map']}@{u['start']} ({', '.join(u['bots'])}): "
                  f"{u['why']}")
    return page


def disagreements_page(disagreements: list[dict], target: Any) -> Page:
    page = Page()
    if not disagreements:
        return page.line("no disagreement" + (f"; records in {target}" if target else ""))
    page.line(f"{plural(len(disagreements), 'disagreement')}:")
    for d in disagreements:
        page.line(f"  {d['instance']}: {d['kind']} [{', '.join(d['methods'])}] {describe(d)}")
    if target:
        page.line(f"evidence (answers, game records) in {target}")
    return page
