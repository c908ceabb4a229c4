"""A report a person can read, from any run: ``puzzleproof report RUN.jsonl``.

The run is a JSONL file the project wrote: a cross-check of any puzzle (``"record"``,
``"disagreement"``, ``"instance-done"`` lines; Skynet referee batches too), or a
puzzle's own kind of run (its plugin's ``ReportSpec.runs``: a Death Run tournament's game
lines, a Hashi generator run's puzzles with their measures). The report holds:

- the summary tables (per method: verdicts, time, effort; per bot: scores);
- every disagreement with its evidence drawn by the project's own renderers
  (:mod:`puzzleproof.formats`): the Hashi puzzle with the heuristic's bridges beside the
  checked solution, the Skynet map with the agent's winning line, the city map with both
  orders, the Death Run game;
- plots where they help: time per instance size per method, Wiener number per step, score
  distributions (matplotlib, Agg).

Instances are found from the run's own records where they carry them (Skynet game records,
Death Run games, generated Hashi puzzles), else by reading the instance name as a file (a
cross-check of files names its instances by path), else among the INPUTS given (the inputs
the run was made from); a Hashi puzzle with a checked solution is rebuilt from it. An
instance found nowhere is said, not drawn.

:func:`to_html` writes one self-contained page (inline CSS, inline SVG, PNG as data URIs: no
network needed); :func:`to_markdown` writes Markdown with the pictures as files beside it.
"""

from __future__ import annotations

import base64
import os
import html
import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Sequence

from puzzleproof import puzzles as registry
from puzzleproof.errors import InputError
from puzzleproof.formats.document import Figure, Report, Section, Table, Text, png, subplots
from puzzleproof.verify.crosscheck import describe
from puzzleproof.verify.records import Record, program_stderr

__all__ = ["Figure", "Table", "Text", "Section", "Report", "load_run", "build", "to_html",
           "to_markdown"]

#: disagreements drawn at most (the table lists every one)
MAX_DRAWN = 24
#: lines of a program's stderr shown (its last ones)
STDERR_LINES = 30
SOLVED = {"SOLVED", "UNIQUE", "MULTIPLE", "OPTIMAL"}


# --------------------------------------------------------------------------------------------
# Reading the run


#: the fields a report reads from each kind of line, with their types
_REQUIRED: dict[str, dict[str, type | tuple]] = {
    "record": {"instance": str, "method": str, "status": str, "wall_time": (int, float),
               "check_ok": bool},
    "disagreement": {"instance": str, "kind": str, "methods": list, "evidence": dict},
}


def _required(kind: str) -> dict[str, type | tuple]:
    """The fields a line of type ``kind`` must have: the harness's, or those of a puzzle's
    own kind of run (its plugin's ``ReportSpec.line_fields``)."""
    if kind in _REQUIRED:
        return _REQUIRED[kind]
    for p in registry.all_puzzles():
        if p.report is not None and kind in p.report.line_fields:
            return dict(p.report.line_fields[kind])
    return {}


def load_run(path: str | Path) -> list[dict]:
    """Every line of a run as a JSON object with a ``"type"``; a line that is not is an
    :class:`~puzzleproof.errors.InputError` naming the file and line (a last line cut short
    by a killed run is dropped)."""
    from puzzleproof.formats import read_path
    from puzzleproof.sizes import limit
    from puzzleproof.formats.jsonl import MAX_RUN_BYTES

    p = Path(path)
    if p.is_dir():
        raise InputError("is a folder; expected a run's JSONL file", str(path))
    if not p.exists() and not p.is_symlink():
        raise InputError("no such file", str(path))
    text = read_path(p, limit(MAX_RUN_BYTES), regular=True)
    lines = text.split("\n")
    out = []
    for k, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            if k == len(lines) and not text.endswith("\n"):
                break  # torn by a kill
            raise InputError(f"expected a JSON object on each line ({exc.msg})", str(path),
                             k) from None
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            raise InputError("expected a JSON object with a \"type\" (a record the project "
                             "wrote)", str(path), k)
        missing = [k for k, t in _required(obj["type"]).items()
                   if not isinstance(obj.get(k), t)]
        if missing:
            raise InputError(f"a {obj['type']!r} line without a valid "
                             f"{', '.join(repr(m) for m in missing)}", str(path), k)
        out.append(obj)
    if not out:
        raise InputError("holds no records; expected a run written by crosscheck, a "
                         "tournament or generate (-o RUN.jsonl)", str(path))
    return out


def _run_kind(recs: list[dict], path: str) -> tuple[str, Any]:
    """``("crosscheck", None)`` for a run of records, else ``(record type, plugin)`` for a
    puzzle's own kind of run (a Death Run tournament, a Hashi generator run)."""
    types = {r["type"] for r in recs}
    if "record" in types:
        return "crosscheck", None
    for p in registry.all_puzzles():
        for kind in (p.report.runs if p.report else {}):
            if kind in types:
                return kind, p
    raise InputError("holds no cross-check records, nor a run any puzzle reports on "
                     f"(found {', '.join(sorted(types))})", path)


def _puzzle_of(recs: list[dict], path: str, inputs: Sequence[str]) -> str:
    """The puzzle the records name. Records written before they named it are recognised
    by reading their instances (files the records name, or the INPUTS); never guessed
    from method names."""
    named = {r.get("puzzle") for r in recs if r["type"] == "record"} - {None}
    if len(named) > 1:
        raise InputError(f"holds records of several puzzles ({', '.join(sorted(named))}); "
                         "report one run at a time", path)
    if named:
        name = named.pop()
        try:
            return registry.get(name).name
        except KeyError:
            raise InputError(f"its records are of the puzzle {name!r}, which is not "
                             "installed", path) from None
    from puzzleproof.puzzles.inputs import Inputs

    reader, base = Inputs(), Path(os.path.realpath(path)).parent
    names = [r["instance"] for r in recs if r["type"] == "record"][:20] + list(inputs)
    for name in names:
        for cand in (name, name.rsplit("@", 1)[0], str(base / name.rsplit("@", 1)[0])):
            try:
                c = reader.read(cand) if Path(cand).is_file() or cand in inputs else None
            except (InputError, OSError):
                continue
            if c is not None and c.puzzle is not None:
                return c.puzzle
    raise InputError("its records were written before records named their puzzle, and "
                     "their instances are not found: give --puzzle NAME (or the run's "
                     "inputs)", path)


# --------------------------------------------------------------------------------------------
# Finding instances


class _Instances:
    """Instances by name: from INPUTS, or by reading the name as a file."""

    def __init__(self, plugin: Any, inputs: Sequence[str], base: Path) -> None:
        from puzzleproof.puzzles.inputs import Inputs

        self.plugin, self.base, self.by_name = plugin, base, {}
        self.reader = Inputs()
        if inputs:
            g = self.reader.gather(list(inputs), plugin, strict=False)
            for ld in g.loaded:
                for key in {ld.name, Path(ld.name).stem, Path(ld.name).name}:
                    self.by_name.setdefault(key, ld.instance)

    def get(self, name: str) -> Any:
        spec = self.plugin.report
        key = spec.instance_key(name) if spec else name
        for k in (name, key, Path(key).stem, Path(key).name):
            if k in self.by_name:
                return self.by_name[k]
        for cand in (Path(key), self.base / key):
            try:
                if cand.is_file():
                    c = self.reader.read(str(cand), self.plugin.name)
                    if c.loaded:
                        self.by_name[key] = c.loaded[0].instance
                        return self.by_name[key]
            except (InputError, OSError, ValueError):
                continue
        return None


# --------------------------------------------------------------------------------------------
# Plots


def _per_size_plot(pts: dict[str, list[tuple[float, float]]], what: str, ylabel: str,
                   name: str, title: str, caption: str, log: bool) -> Figure | None:
    """One scatter of a value against instance size, a colour per method."""
    if not pts:
        return None
    fig, ax = subplots(figsize=(7, 4))
    for m, p in sorted(pts.items()):
        ax.scatter([x for x, _ in p], [y for _, y in p], s=14, label=m, alpha=0.7)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(what)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return Figure(name, "png", png(fig), caption)


def _time_plot(recs: list[dict], sizes: dict[str, int], what: str) -> Figure | None:
    pts: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for r in recs:
        if r["instance"] in sizes:
            pts[r["method"]].append((sizes[r["instance"]], max(r["wall_time"], 1e-4)))
    return _per_size_plot(pts, what, "seconds per instance", "time-per-size",
                          "Time per instance size, per method",
                          f"Time per instance ({what}), per method", log=True)


def _effort_plot(recs: list[dict], sizes: dict[str, int], what: str) -> Figure | None:
    pts: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for r in recs:
        if r["instance"] in sizes and isinstance(r.get("effort"), (int, float)):
            pts[r["method"]].append((sizes[r["instance"]], r["effort"]))
    return _per_size_plot(pts, what, "effort", "effort-per-size",
                          "Effort per instance size, per method",
                          f"Effort per instance ({what})", log=False)


# --------------------------------------------------------------------------------------------
# Cross-checks


def _drawn(draw, *args) -> list[Any]:
    """What ``draw(*args)`` gives, or one line saying why the evidence cannot be drawn (a
    record the project did not write as it writes them): the tables still list it."""
    try:
        return draw(*args)
    except Exception as exc:  # noqa: BLE001 - drawing is the report's extra, never its end
        return [f"(the evidence cannot be drawn: {type(exc).__name__}: {str(exc)[:200]})"]


#: the per-method columns shown when the run does not name its own (title, summary key)
_COLUMNS = (("solved", "solved"), ("unique", "unique"), ("multiple", "multiple"),
            ("infeasible", "infeasible"), ("won", "won"), ("lost", "lost"),
            ("failed", "failed"), ("unknown", "unknown"), ("not sent", "not_sent"))


def _columns(recs: list[dict], rows: list[dict]) -> list[tuple[str, str]]:
    """The columns of the terminal's table, as the run's summary names them; else every
    count some method has (``failed`` always)."""
    last = next((r for r in reversed(recs) if r.get("type") == "run-summary"), None)
    summary = last.get("summary") if last is not None else None
    named = summary.get("columns") if isinstance(summary, dict) else None
    if isinstance(named, list) and all(isinstance(c, list) and len(c) == 2 for c in named):
        return [(str(t), str(k)) for t, k in named]
    return [(t, k) for t, k in _COLUMNS if k == "failed" or any(row[k] for row in rows)]


def _summary(recs: list[dict], records: list[dict], disagreements: list[dict],
             n_instances: int) -> Section:
    """The terminal's table: the same rows (:meth:`CrosscheckReport.summary`), the same
    columns."""
    from puzzleproof.verify.crosscheck import CrosscheckReport

    methods = list(dict.fromkeys(r["method"] for r in records))
    kinds = {r["method"]: "exact" if r.get("exact") else "heuristic" for r in records}
    rows = CrosscheckReport(records, disagreements, methods).summary()
    columns = _columns(recs, rows)
    table = [[row["method"], kinds[row["method"]], row["instances"],
              *[row.get(k, "") for _, k in columns], f"{row['mean_time']:.3f}",
              f"{row['max_time']:.3f}",
              "" if row["mean_effort"] is None else f"{row['mean_effort']:.1f}"]
             for row in rows]
    return Section("Summary", [
        f"{n_instances} instance(s), {len(methods)} method(s), {len(records)} record(s), "
        f"{len(disagreements)} disagreement(s).",
        Table(["method", "kind", "records", *[t for t, _ in columns], "mean s", "max s",
               "mean effort"], table, "Verdicts per method, as the command's table gives "
                                      "them (failed: an answer that breaks a rule of the "
                                      "puzzle, a crash or garbage)")])


def _plots(plugin: Any, records: list[dict], by_inst: dict, found: _Instances) -> Section:
    spec = plugin.report
    sizes = {}
    for name, rs in by_inst.items():
        s = None
        if spec is not None and spec.size is not None:
            s = _safe(spec.size, found.get(name), rs[0])
            if s is None:
                s = next((v for r in rs for v in [_safe(spec.size, None, r)] if v), None)
        if s is not None:
            sizes[name] = s
    what = spec.size_name if spec is not None else "size"
    return Section("Plots", [f for f in (_time_plot(records, sizes, what),
                                         _effort_plot(records, sizes, what)) if f])


def _safe(fn, *args) -> Any:
    try:
        return fn(*args)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError):
        return None


def _disagreements(plugin: Any, disagreements: list[dict], by_inst: dict,
                   found: _Instances) -> Section:
    dis = Section("Disagreements")
    if not disagreements:
        dis.blocks.append("No disagreement: every method's answer passed the rule check and "
                          "no method contradicted another.")
        return dis
    dis.blocks.append(Table(["instance", "kind", "methods", "what"],
                            [[d["instance"], d["kind"], ", ".join(d["methods"]), describe(d)]
                             for d in disagreements]))
    draw = plugin.report.draw if plugin.report is not None else None
    for k, d in enumerate(disagreements[:MAX_DRAWN]):
        dis.blocks.append(f"### {d['instance']}: {d['kind']} [{', '.join(d['methods'])}]")
        if draw is not None:
            dis.blocks += _drawn(draw, d, by_inst[d["instance"]], found.get(d["instance"]), k)
        for m in d["methods"]:
            rec = next((r for r in by_inst.get(d["instance"], []) if r["method"] == m), None)
            if rec is not None:
                dis.blocks += _stderr_blocks(rec)
    if len(disagreements) > MAX_DRAWN:
        dis.blocks.append(f"(the first {MAX_DRAWN} are drawn; the table lists all)")
    return dis


def _stderr_blocks(rec: dict) -> list[Text]:
    """A judged program's stderr in the run of ``rec`` (its last lines), as it wrote it."""
    lines = program_stderr(rec).rstrip("\n").splitlines()
    if not lines:
        return []
    shown = lines[-STDERR_LINES:]
    return [Text("\n".join(shown), f"{rec['method']}'s stderr on {rec['instance']}"
                 + (f" (the last {len(shown)} of {len(lines)} lines)"
                    if len(shown) < len(lines) else ""))]


def _failures(records: list[dict]) -> Section | None:
    """The records with no verdict (UNKNOWN: a limit; ERROR: a crash, a program's garbage),
    each with its reason and, for a program, what it wrote on stderr."""
    unknown = [r for r in records if r["status"] in ("UNKNOWN", "ERROR")]
    if not unknown:
        return None
    rows = []
    for r in unknown:
        cert = r.get("certificate")
        why = r.get("error") or (cert.get("note") if isinstance(cert, dict) else "") \
            or "its time limit ran out"
        rows.append([r["instance"], r["method"], r["status"], str(why).split("\n", 1)[0]])
    blocks: list[Any] = [Table(["instance", "method", "status", "why"], rows)]
    for r in [r for r in unknown if r["status"] == "ERROR"][:MAX_DRAWN]:
        text = program_stderr(r) or "\n".join(
            ln for ln in str(r.get("error") or "").splitlines()[1:]
            if not ln.startswith("--- stderr"))
        if text.strip():
            blocks.append(f"### {r['instance']}: {r['method']} ({r['status']})")
            blocks += _stderr_blocks({**r, "stderr": text})
    return Section("Unknown and failed", blocks)


def _crosscheck(recs: list[dict], plugin: Any, found: _Instances) -> list[Section]:
    records = [r for r in recs if r["type"] == "record"]
    disagreements = [r for r in recs if r["type"] == "disagreement"]
    by_inst: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by_inst[r["instance"]].append(r)
    sections = [_summary(recs, records, disagreements, len(by_inst)),
                _disagreements(plugin, disagreements, by_inst, found)]
    if plugin.report is not None and plugin.report.sections is not None:
        sections += _drawn(plugin.report.sections, recs, found)
    failures = _failures(records)
    if failures is not None:
        sections.append(failures)
    plots = _plots(plugin, records, by_inst, found)
    if plots.blocks:
        sections.append(plots)
    return sections


def _run_summary(recs: list[dict]) -> Section | None:
    """What the command said at the end of the run (its ``run-summary`` line): the counts,
    the exit status, the agents and rules of a referee's games, as the terminal gave them."""
    from puzzleproof.verify.records import counts_text

    last = next((r for r in reversed(recs) if r.get("type") == "run-summary"), None)
    if last is None or not isinstance(last.get("counts"), dict):
        return None
    counts = last["counts"]
    words = registry.count_words(last.get("puzzle"))
    rows = [[name.replace("_", " "), n] for name, n in counts.items()]
    rows.append(["exit status", last.get("exit_status")])
    summary = last.get("summary") if isinstance(last.get("summary"), dict) else {}
    for part in summary.get("parts") or [summary]:
        for key in ("agents", "rules"):
            if part.get(key):
                rows.append([key, ", ".join(map(str, part[key]))])
    return Section("Run summary", [
        f"As the command reported it ({last.get('verb')}): "
        + counts_text(counts, last.get("exit_status"), words) + ".",
        Table(["what", "count"], rows, "The run's counts and exit status")])


def build(path: str | Path, inputs: Sequence[str] = (), puzzle: str | None = None) -> Report:
    """The report of the run in ``path`` (instances for drawings found as the module
    docstring says)."""
    recs = load_run(path)
    kind, plugin = _run_kind(recs, str(path))
    if kind == "crosscheck":
        for r in recs:
            if r["type"] == "record":
                Record.from_dict(r)  # every record reads (an earlier version's too)
        plugin = registry.get(puzzle or _puzzle_of(recs, str(path), inputs))
        found = _Instances(plugin, inputs, Path(os.path.realpath(path)).parent)
        title = f"Cross-check of {plugin.title}"
        sections = _crosscheck(recs, plugin, found)
    else:
        title, make = plugin.report.runs[kind]
        sections = make(recs, str(path))
    summary = _run_summary(recs)
    if summary is not None:
        sections.insert(0, summary)
    return Report(title, [f"Run: {Path(path).name} ({len(recs)} line(s))."], sections)


# --------------------------------------------------------------------------------------------
# Writing

_CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}
h3{font-size:1.05em;margin:1.2em 0 .4em}
table{border-collapse:collapse;margin:.6em 0 1em;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}
th{background:#f2f2f2}td.n{text-align:right}
caption{caption-side:top;text-align:left;font-style:italic;padding:.3em 0}
figure{display:inline-block;margin:.6em 1em .6em 0;vertical-align:top}
figure svg,figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.85em;color:#555;max-width:640px}
pre{background:#f7f7f7;border:1px solid #ddd;padding:.5em;overflow-x:auto;font-size:.85em}
"""


def _cell(v: Any) -> str:
    return html.escape("" if v is None else str(v))


def _num(v: Any) -> str:
    try:
        float(v)
        return ' class="n"'
    except (TypeError, ValueError):
        return ""


def to_html(report: Report) -> str:
    """One self-contained page."""
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{html.escape(report.title)}</title><style>{_CSS}</style></head><body>",
           f"<h1>{html.escape(report.title)}</h1>"]
    out += [f"<p>{html.escape(p)}</p>" for p in report.intro]
    for sec in report.sections:
        out.append(f"<h2>{html.escape(sec.title)}</h2>")
        for b in sec.blocks:
            if isinstance(b, Table):
                out.append("<table>" + (f"<caption>{html.escape(b.caption)}</caption>"
                                        if b.caption else ""))
                out.append("<tr>" + "".join(f"<th>{_cell(h)}</th>" for h in b.headers) + "</tr>")
                for row in b.rows:
                    out.append("<tr>" + "".join(f"<td{_num(v)}>{_cell(v)}</td>" for v in row)
                               + "</tr>")
                out.append("</table>")
            elif isinstance(b, Figure):
                if b.kind == "svg":
                    body = b.data[b.data.find("<svg"):]
                else:
                    body = (f'<img alt="{html.escape(b.caption)}" src="data:image/png;base64,'
                            f'{base64.b64encode(b.data).decode()}">')
                out.append(f'<figure class="{b.kind}">{body}<figcaption>'
                           f"{html.escape(b.caption)}</figcaption></figure>")
            elif isinstance(b, Text):
                out.append((f"<p><em>{html.escape(b.caption)}</em></p>" if b.caption else "")
                           + f"<pre>{html.escape(b.text)}</pre>")
            elif isinstance(b, str) and b.startswith("### "):
                out.append(f"<h3>{html.escape(b[4:])}</h3>")
            else:
                out.append(f"<p>{html.escape(str(b))}</p>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _md_cell(v: Any) -> str:
    return ("" if v is None else str(v)).replace("|", "\\|").replace("\n", " ")


def to_markdown(report: Report, stem: str) -> tuple[str, dict[str, bytes]]:
    """Markdown text and the pictures to write beside it (``{file name: bytes}``), the
    pictures named ``STEM-files/NAME.svg|png``."""
    files: dict[str, bytes] = {}
    out = [f"# {report.title}", ""] + [p + "\n" for p in report.intro]
    for sec in report.sections:
        out += [f"## {sec.title}", ""]
        for b in sec.blocks:
            if isinstance(b, Table):
                if b.caption:
                    out += [f"*{b.caption}*", ""]
                out.append("| " + " | ".join(_md_cell(h) for h in b.headers) + " |")
                out.append("|" + "---|" * len(b.headers))
                out += ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in b.rows]
                out.append("")
            elif isinstance(b, Figure):
                name = f"{stem}-files/{b.name}.{b.kind}"
                files[name] = b.data.encode() if isinstance(b.data, str) else b.data
                out += [f"![{_md_cell(b.caption)}]({name})", "", f"*{b.caption}*", ""]
            elif isinstance(b, Text):
                fence = "~~~~" if "```" in b.text else "```"
                out += ([f"*{b.caption}*", ""] if b.caption else []) \
                    + [fence + "text", b.text, fence, ""]
            else:
                out += [str(b), ""]
    return "\n".join(out), files
