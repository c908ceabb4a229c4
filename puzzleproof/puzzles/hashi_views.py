"""What a person sees of Hashi: the help of each verb, one answer in full, a table of
answers, a check's verdict, and the report's drawings."""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from puzzleproof.puzzles.base import Page, Params, Task
from puzzleproof.puzzles.inputs import plural
from puzzleproof.result import Result, Status

LIMITS = "Hashi width and height <= 200"

SOLVE_HELP = """Solve Hashi puzzles exactly, check every answer by the rules, and report.

\b
One puzzle: its status (SOLVED, UNIQUE, MULTIPLE, INFEASIBLE or UNKNOWN), a
picture of the solution and the solver's effort. Several puzzles (or a folder,
or a JSONL file): a table, one row per puzzle, and a summary; a puzzle that
ships a reference solution is compared with it when the answer is UNIQUE.

\b
Every solution is re-checked by the rule checker in puzzleproof.models, which
shares no code with the solvers. A limit that runs out gives UNKNOWN, never
INFEASIBLE. Exit 0 solved, 1 proved INFEASIBLE or a failed check, 2 bad input.

\b
Examples:
  puzzleproof solve instances/hashi/small-5x5.txt --unique
  puzzleproof solve 3x3m2:3a3c2a2 --all -n 5
  puzzleproof solve puzzle.txt --show lines          # CodinGame's output
  puzzleproof solve instances/hashi/ --unique -o results.jsonl
"""

CHECK_HELP = """Check a SOLUTION written by anything else (a CodinGame bot's output, say)
against the rules of PUZZLE, and list every rule it breaks.

\b
SOLUTION holds one bridge a line, 'x1 y1 x2 y2 n' (CodinGame's output; a
pair printed twice adds up), or JSON [[x1, y1, x2, y2, n], ...]. '-' reads it
from stdin. Exit 0 if it solves the puzzle; 1 if it breaks a rule (clue,
crossing, too many bridges, a bridge that is not between two islands in line,
disconnection); 2 if it cannot be read (the file, line and column are given).
"""

RENDER_HELP = """Draw a puzzle, alone or with a solution, as SVG or text.

\b
Examples:
  puzzleproof render instances/hashi/small-5x5.txt --solve
  puzzleproof render puzzle.txt --solution bot.txt -o bot.svg
"""

CONVERT_HELP = """Convert Hashi puzzles between formats (CodinGame, .has, Tatham, puzz.link,
JSON).

A multi-puzzle input (JSONL, a file of game IDs) is written one puzzle after
another (JSON: one object a line; Tatham and puzz.link: one ID a line; the
grid formats: one after another). The reference solution, if any, is kept in JSON.
"""

CROSSCHECK_HELP = """Run exact solvers and heuristics on the same Hashi puzzles and report
where they disagree.

\b
For each puzzle and method: the answer, its status, this command's own rule
check of the answer, effort and time. A disagreement is an answer that breaks a
rule, a method that says unsolvable or gives up where another found a checked
solution, two UNIQUE claims with different solutions, or a UNIQUE puzzle whose
solution differs from the reference shipped with it. Exit 1 if there is any.

\b
Examples:
  puzzleproof crosscheck hashi instances/hashi/ --method sat,article
  puzzleproof crosscheck hashi puzzles/ --bot-cmd 'mine=python3 bot.py' -j 2
"""

GENERATE_HELP = """Generate Hashi puzzles with a unique solution, proved by an exact solver.

\b
Each puzzle comes from a random connected bridge network, which is its solution.
Where the exact solver finds a second solution, the network is changed there (a
bridge raised or lowered, an island put on the other solution's bridge) and the
solver asked again, until the network is proved the only solution. A puzzle is
kept (with --min-assumptions, --min-depth) only if the article's solver needs
enough guesses. The JSONL records carry the solution and the measures of
difficulty: the article solver's sure bridges, assumptions, wrong assumptions and
depth, the exact solver's cut rounds, and the repairs made. Same seed and
options, same puzzles, whatever --jobs (with --time-limit: the first of them).

\b
Examples (the project's shipped set is made this way):
  puzzleproof generate hashi --size 15x15 -n 5 --seed 1 -o set.jsonl
  puzzleproof generate hashi --size 30x30 --min-assumptions 30 -n 10 --time-limit 120
"""


def method_help(methods: Sequence[Any], several: bool = False) -> str:
    listing = "; ".join(f"{m.name} ({m.kind}: {m.summary})" for m in methods)
    return ("Methods by name, comma-separated: " if several else "Method: ") + listing + "."


# -- answers -------------------------------------------------------------------------------

def _norm(line: Sequence[int]) -> tuple:
    x1, y1, x2, y2, n = line
    return (min((x1, y1), (x2, y2)), max((x1, y1), (x2, y2)), n)


def verdict(reference: Any, res: Result) -> tuple[str, bool]:
    """(what the check says, whether it is a failure) for a result and its reference."""
    if not res.check_ok:
        return "FAILED", True
    if reference is not None and res.status is Status.UNIQUE:
        same = sorted(map(_norm, reference)) == sorted(map(_norm, res.answer))
        return ("ok (= ref)", False) if same else ("DIFFERS from ref", True)
    return ("ok" if res.check is not None else "-"), False


def unknown_note(res: Result) -> str:
    """Which limit ran out, in words (an UNKNOWN always says it)."""
    cert = res.certificate if isinstance(res.certificate, dict) else {}
    if cert.get("note"):
        return str(cert["note"])
    limit = (res.params or {}).get("time_limit")
    return f"the time limit ({limit:g} s) ran out" if limit is not None else "a limit ran out"


def _status_text(res: Result) -> str:
    return f"UNKNOWN: {unknown_note(res)}" if res.status is Status.UNKNOWN else res.status.value


def _limit_short(res: Result) -> str:
    """A table cell's status: UNKNOWN names its limit briefly (``UNKNOWN (time limit)``)."""
    if res.status is not Status.UNKNOWN:
        return res.status.value
    cert = res.certificate if isinstance(res.certificate, dict) else {}
    limit = cert.get("limit")
    return f"UNKNOWN ({str(limit).replace('-', ' ')})" if limit and limit != "limit" else \
        "UNKNOWN (limit)"


def _effort(res: Result) -> str:
    st = res.stats or {}
    if "cut_rounds" in st:
        return (f"{plural(st.get('cut_rounds', 0), 'cut round')}, "
                f"{plural(st.get('cuts', 0), 'cut')}, {res.wall_time:.3f} s")
    if "assumptions" in st:
        return f"{plural(st['assumptions'], 'assumption')}, {res.wall_time:.3f} s"
    return f"{res.wall_time:.3f} s"


def solve_one(task: Task, res: Result, p: Params) -> Page:
    """One answer in full: the status line, the picture (or CodinGame's lines), the other
    solutions of a MULTIPLE, and on stderr what failed."""
    check, failed = verdict(task.reference, res)
    who = f"{res.solver} {res.solver_version}".strip()
    head = f"{task.name}: {_status_text(res)} ({who}; {_effort(res)}); rule check: {check}"
    cert = res.certificate or {}
    page = Page()
    if p.show == "lines":
        if res.answer is not None:
            from puzzleproof.formats import hashi as hfmt

            page.raw(hfmt.write_solution(res.answer, "codingame"))
        page.note(head)
        if res.status is Status.INFEASIBLE:
            for reason in cert.get("reasons", [cert.get("proof")]):
                page.note(f"  no solution: {reason}")
    else:
        page.line(head)
        if p.show != "none":
            _picture(page, task.instance, res, cert, bool(p.ascii_only))
    if failed:
        page.note(f"puzzleproof: check failed for {task.name}: {check}")
        for v in (res.check or {}).get("violations", []):
            page.note(f"  {v['kind']}: {v['message']}")
    return page


def _picture(page: Page, puzzle: Any, res: Result, cert: dict, ascii_only: bool) -> None:
    from puzzleproof.formats import hashi as hfmt

    if res.status is Status.INFEASIBLE:
        for reason in cert.get("reasons", [cert.get("proof")]):
            page.line(f"  no solution: {reason}")
        return
    draw = lambda sol: hfmt.render_ascii(puzzle, sol, unicode=not ascii_only)  # noqa: E731
    if res.answer is not None:
        if res.status is Status.MULTIPLE:  # numbered like the others that follow it
            page.line("solution 1:")
        page.raw(draw(res.answer))
    if res.status is Status.MULTIPLE:
        others = [cert["second"]] if "second" in cert else cert.get("solutions", [])[1:]
        for k, sol in enumerate(others, start=2):
            page.line(f"solution {k}:")
            page.raw(draw(sol))
    if res.status is Status.UNIQUE and "count" in cert:
        page.line("  enumeration complete: exactly one solution")
    elif "count" in cert:
        page.line(f"  {plural(cert['count'], 'solution')} listed"
                  + ("; that is all of them" if cert.get("complete") else
                     "; there may be more (raise -n)"))


def solve_table(rows: list[tuple[Task, Result]], p: Params, errors: list) -> Page:
    """A batch: one row a puzzle (a BAD INPUT row for one that could not be read), the
    counts, and the UNKNOWNs' notes."""
    from rich.table import Table

    from puzzleproof.puzzles.inputs import plural as _pl

    table = Table(title=f"Hashi, method '{p.method}', question: {p.mode}", title_justify="left")
    # the effort each method counts: the exact solvers' cut rounds, the article's assumptions
    effort = "assumptions" if p.method == "article" else "cut_rounds"
    for col, just in (("puzzle", "left"), ("size", "right"), ("islands", "right"),
                      ("status", "left"), ("check", "left"), (effort.replace("_", " "), "right"),
                      ("time (s)", "right")):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    counts: Counter = Counter()
    for arg, exc in errors:
        table.add_row(_short(arg), "", "", "BAD INPUT", _short(str(exc.message), 60), "", "")
        counts["BAD INPUT"] += 1
    for task, res in rows:
        counts[res.status.value] += 1
        pz = task.instance
        table.add_row(_short(task.name), f"{pz.width}x{pz.height}", str(len(pz.islands)),
                      _limit_short(res), verdict(task.reference, res)[0],
                      str(res.stats.get(effort, "")), f"{res.wall_time:.3f}")
    page = Page().table(table)
    times = [res.wall_time for _, res in rows]
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    if times:
        summary += (f"; time mean {sum(times) / len(times):.3f} s, max {max(times):.3f} s, "
                    f"total {sum(times):.2f} s")
    page.line(summary)
    unknown = [(t, r) for t, r in rows if r.status is Status.UNKNOWN]
    for t, r in unknown[:10]:
        page.line(f"  UNKNOWN: {t.name}: {unknown_note(r)}")
    if len(unknown) > 10:
        page.line(f"  ... and {len(unknown) - 10} more UNKNOWN (their notes are in --json / -o "
                  "records)")
    _ = _pl
    return page


def _short(name: str, width: int = 48) -> str:
    return name if len(name) <= width else "…" + name[-(width - 1):]


# -- check and render ----------------------------------------------------------------------

def check_page(puzzle: Any, source: str, lines: list, violations: list) -> Page:
    from puzzleproof.models.hashi import GEOMETRY_KINDS

    page = Page()
    if not violations:
        return page.line(f"{source}: solves {puzzle.name}: every clue met, no crossing, "
                         f"connected ({plural(len(lines), 'bridge line')})")
    page.line(f"{source}: does NOT solve {puzzle.name}: {plural(len(violations), 'violation')}"
              + ("; the answer is empty" if not lines else ""))
    for v in violations:
        where = ""
        if v.line is not None and lines[v.line].line is not None:
            sl = lines[v.line]
            where = f"{source}:{sl.line}"
            if sl.cols and v.kind in GEOMETRY_KINDS:
                where += f":{sl.cols[4] if v.kind == 'count' else sl.cols[0]}"
            where += ": "
        page.line(f"  {where}{v.kind}: {v.message}")
    return page


def drawn_solution(puzzle: Any, solution_arg: str) -> tuple[list, list[str], bool]:
    """A solution file to draw: its bridges (lines that are no bridge left out), the notes
    said on stderr, and whether it breaks a rule."""
    from puzzleproof.formats import hashi as hfmt
    from puzzleproof.formats import read_source
    from puzzleproof.models.hashi import GEOMETRY_KINDS, check_solution

    text, source, _ = read_source(solution_arg)
    answer = [ln.bridge for ln in hfmt.read_solution(text, source)]
    violations = check_solution(puzzle, answer)
    notes = []
    bad = [v for v in violations if v.kind in GEOMETRY_KINDS]
    if bad:
        answer = [b for k, b in enumerate(answer) if not any(v.line == k for v in bad)]
        notes.append(f"note: {len(bad)} line(s) of {source} are not bridges "
                     f"({bad[0].message}); drawing the rest")
    if violations:
        notes.append(f"note: {source} does NOT solve the puzzle "
                     f"({plural(len(violations), 'rule violation')}, first: "
                     f"{violations[0].message}); drawn with the title saying so (exit 1)")
    return answer, notes, bool(violations)


def solved_for_drawing(ld: Any, p: Params) -> tuple[list | None, str]:
    """The sat method's checked solution to draw, or None and why there is none."""
    from puzzleproof.verify.hashi_methods import METHODS

    sat = next(m for m in METHODS if m.name == "sat")
    res = sat.bind({"mode": "solve"})(ld.instance, deadline=p.deadline())
    if res.answer is None:
        return None, f"{ld.name}: {_status_text(res)}; nothing to draw"
    if not res.check_ok:
        return None, f"puzzleproof: the solver's answer failed the rule check: {res.check}"
    return res.answer, ""


# -- report --------------------------------------------------------------------------------

def size(inst: Any, rec: dict) -> int | None:
    if inst is not None:
        return len(inst.islands)
    ans = rec.get("answer")
    if isinstance(ans, list) and ans:
        return len({(b[0], b[1]) for b in ans} | {(b[2], b[3]) for b in ans})
    return None


def draw_disagreement(d: dict, recs: list[dict], inst: Any, k: int) -> list[Any]:
    """The puzzle drawn with each answer the disagreement is about, the checked solution
    beside them, and the wrong and missing bridges named."""
    from puzzleproof.formats.document import Figure
    from puzzleproof.formats.hashi import render_svg

    good = next((r for r in recs if r["status"] in _SOLVED and r["check_ok"] and r["answer"]),
                None)
    shown = _shown_answers(d, recs)
    if good is not None and not any(s is good["answer"] for _, s in shown):
        shown.append((f"the checked solution by {good['method']}", good["answer"]))
    puzzle = inst
    if puzzle is None and good is not None:
        puzzle = _from_solution(good["answer"])
    if puzzle is None:
        return ["(the puzzle was not found: pass the run's inputs to draw it)"]
    right = {_key(b) for b in (good["answer"] if good else [])}
    blocks: list[Any] = []
    for j, (label, ans) in enumerate(shown):
        lines = _lines(ans) if ans is not None else None
        if lines is None:
            continue
        mine = {_key(b) for b in lines}
        note = ""
        if right and mine != right and "checked solution" not in label:
            wrong, missing = sorted(mine - right), sorted(right - mine)
            note = (f"; wrong bridges: {_bridges(wrong)}" if wrong else "") + \
                   (f"; missing bridges: {_bridges(missing)}" if missing else "")
        blocks.append(Figure(f"disagreement-{k}-{j}", "svg",
                             render_svg(puzzle, lines, title=label), label + note))
    return blocks


_SOLVED = {"SOLVED", "UNIQUE", "MULTIPLE", "OPTIMAL"}


def _shown_answers(d: dict, recs: list[dict]) -> list[tuple[str, Any]]:
    ev = d["evidence"]
    shown: list[tuple[str, Any]] = []
    if d["kind"] == "invalid-answer":
        shown.append((f"{d['methods'][0]}'s answer (breaks a rule)", ev.get("answer")))
    elif d["kind"] == "unique-mismatch":
        shown += [(f"{m}'s solution", ev.get(m)) for m in d["methods"]]
    elif d["kind"] == "reference-mismatch":
        shown += [("the answer", ev.get("answer")), ("the shipped reference", ev.get("reference"))]
    elif d["kind"] == "missed-solution":
        bad = next((r for r in recs if r["method"] == d["methods"][0]), None)
        if bad is not None and bad.get("answer"):
            shown.append((f"{d['methods'][0]}'s partial answer", bad["answer"]))
        shown.append((f"the checked solution by {ev.get('solution_by')}", ev.get("solution")))
    return shown


def _key(b: Sequence[int]) -> tuple:
    return tuple(sorted([(b[0], b[1]), (b[2], b[3])])) + (b[4],)


def _from_solution(answer: list) -> Any:
    """The puzzle a checked solution solves: its islands, clues from their bridges."""
    from puzzleproof.models.hashi import Island, Puzzle

    deg: Counter = Counter()
    for x1, y1, x2, y2, n in answer:
        deg[(x1, y1)] += n
        deg[(x2, y2)] += n
    islands = tuple(sorted((Island(x, y, c) for (x, y), c in deg.items()),
                           key=lambda i: (i.y, i.x)))
    return Puzzle(max(x for x, _ in deg) + 1, max(y for _, y in deg) + 1, islands,
                  max(max(b[4] for b in answer), 2), "rebuilt from its solution")


def _lines(answer: Any) -> list[tuple] | None:
    try:
        lines = [tuple(int(v) for v in b) for b in answer]
    except (TypeError, ValueError):
        return None
    return lines if all(len(b) == 5 for b in lines) else None


def _bridges(bs: list[tuple]) -> str:
    text = ", ".join(f"{a}-{b}×{n}" for a, b, n in bs[:12])
    return text + (f" and {len(bs) - 12} more" if len(bs) > 12 else "")


def generated_sections(recs: list[dict], path: str) -> list[Any]:
    """A generator run: each puzzle's measures, a plot of hardness, the first puzzles."""
    import json

    from puzzleproof.formats.document import Figure, Section, Table, png, subplots
    from puzzleproof.formats.hashi import read_puzzles, render_svg

    text = "\n".join(json.dumps(r) for r in recs if r["type"] == "hashi")
    rows, sizes, effort, figs = [], [], [], []
    for k, rec in enumerate(read_puzzles(text, path, "jsonl")):
        meas = (recs[k].get("measures") or {})
        art, ex = meas.get("article") or {}, meas.get("exact") or {}
        secs = ex.get("seconds")
        rows.append([rec.name, len(rec.puzzle.islands), art.get("assumptions"),
                     art.get("status"), ex.get("cut_rounds"),
                     f"{secs:.2f}" if isinstance(secs, float) else secs])
        sizes.append(len(rec.puzzle.islands))
        effort.append(art.get("assumptions") or 0)
        if k < 6:
            figs.append(Figure(f"puzzle-{k}", "svg", render_svg(rec.puzzle, rec.solution,
                                                                title=rec.name),
                               f"{rec.name} with its unique solution"))
    blocks: list[Any] = [Table(["puzzle", "islands", "article assumptions", "article",
                                "exact cut rounds", "exact s"], rows,
                               "Each puzzle is unique (proved); the article's heuristic needs "
                               "the stated number of assumptions")]
    if rows:
        fig, ax = subplots(figsize=(6, 3.5))
        ax.scatter(sizes, effort, s=16)
        ax.set_xlabel("islands")
        ax.set_ylabel("article's assumptions")
        ax.set_title("Hardness of the generated puzzles")
        ax.grid(alpha=0.3)
        blocks.append(Figure("hardness", "png", png(fig), "Assumptions per puzzle size"))
    return [Section("Generated puzzles", blocks), Section("Puzzles drawn", figs)]
