"""What a person sees of city closing: the help of each verb, one answer in full, a table of
answers, a check's verdict, a map as text, the cross-check's table of gaps, the plot's
totals, and the report's plots and drawings of orders."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any, Sequence

from puzzleproof.formats.document import Figure, Section, Table
from puzzleproof.puzzles.base import Page, Params, Task
from puzzleproof.puzzles.inputs import plural
from puzzleproof.result import Result, Status

MAX_DRAWN = 24


def _limits() -> str:
    from puzzleproof.formats.cityclose import MAX_LINKS
    from puzzleproof.models.cityclose import MAX_CITIES

    return f"city closing <= {MAX_CITIES:,} cities, {MAX_LINKS:,} links"


#: the sizes the reader accepts (for ``--max-size``'s help)
LIMITS = _limits()

SOLVE_HELP = """Find the order of closings with the least sum of Wiener numbers (exactly by
default), re-score it by the rules, and print it.

\b
One map: the status (OPTIMAL proved; SOLVED for a heuristic; UNKNOWN with the
best order, the proved lower bound and the limit that ran out; INFEASIBLE when
no order keeps the rules), the city closed at each step with the Wiener number
after it, and the total. Several maps or a folder: one table row per map. The
map stays connected after every closing; --final-size, --keep, --no-paths and
--final-not-path add the designer's rules. Every order is re-scored by the rule
checker in puzzleproof.models (no solver code) before it is shown; a generated
map's shipped optimum is compared with a proved one.

\b
Exit 0 done; 1 a proved INFEASIBLE, a failed check or a proved optimum that
differs from the map's reference; 2 unreadable input or misuse.

\b
Examples:
  puzzleproof solve cityclose instances/cityclose-europe/europe41-land-borders.json
  puzzleproof solve cityclose europe30.json --method greedy
  puzzleproof solve cityclose europe30.json --method beam --beam-width 10 --json
  puzzleproof solve cityclose roundabout.json --keep-marked --final-size 5 \\
      --no-paths -o order.json
  puzzleproof solve cityclose instances/cityclose/ --time-limit 30
  puzzleproof check cityclose europe30.json order.json    # re-score the order file
"""

CHECK_HELP = """Re-score an ORDER of closings on MAP with the rules alone, and list every rule it
breaks.

\b
ORDER is JSON ({"order": [names...], "wiener": [...], "total": N}, a list of
names, or a file of several orders chosen with --key) or one city name a line.
An order may also name the last city left. Claimed Wiener numbers and totals
are compared with the re-scored ones. The rules come from the options, else
from the order file ('solve cityclose -o' records them), else the defaults.
When the file claims OPTIMAL (or --optimum is given), the independent DP
re-proves the optimum on maps of at most 20 cities; beyond that the output says
that optimality rests on the named method's proof and was not re-verified.

\b
Exit 0 a legal order whose claims hold; 1 a broken rule, a wrong claimed total
or Wiener number, or a claimed OPTIMAL that is not; 2 unreadable map or order.

\b
Examples:
  puzzleproof check cityclose europe30.json europe30-blog-orders.json --key greedy
  puzzleproof check cityclose europe30.json my-order.txt --optimum 13208
  puzzleproof check cityclose roundabout.json order.json   # rules from the file
"""

RENDER_HELP = """Draw a city map (cities placed by their coordinates, or by a seeded layout), alone
or with each city labelled by the step that closes it.

\b
SVG is written by puzzleproof itself, PNG through matplotlib. Without -o (and
without --format svg) a text listing goes to stdout: each city with its links
and closing step.

\b
Examples:
  puzzleproof render cityclose europe30.json -o europe30.svg
  puzzleproof render cityclose europe30.json --solve --method beam -o beam.png
  puzzleproof render cityclose europe30.json --order order.json -o order.svg
  puzzleproof render cityclose roundabout.json       # text listing
"""

CONVERT_HELP = """Convert a city map between formats; what is written is read back and compared
(same cities in the same order, same links) before it is delivered.

\b
Examples:
  puzzleproof convert cityclose europe30.json --format graphml -o europe30.graphml
  puzzleproof convert cityclose map.gml --format edges
"""

CROSSCHECK_HELP = """Run the exact methods and the article's heuristics on the same maps, check every
order by the rules, and report each heuristic's gap to the proved optimum.

\b
A disagreement is an illegal order (or a claimed total that is not the order's
score), a method claiming a total below a proved optimum, an exact method
claiming OPTIMAL above another method's legal order, a proved INFEASIBLE where
another method found a legal order, or (generated maps ship their optimum) a
proved optimum that differs from the shipped one. A method whose limit ran out
is UNKNOWN (an exact one with its bounds): an open question, not a
disagreement. Default methods: exact, merged-beam, beam, greedy. Exit 1 if any
disagreement.

\b
Examples:
  puzzleproof crosscheck cityclose instances/cityclose/
  puzzleproof crosscheck cityclose instances/cityclose-europe/ \\
      --method exact,beam,greedy --time-limit 120 -o runs.jsonl
  puzzleproof crosscheck cityclose maps/ --no-paths --resume -o runs.jsonl -j 2
"""

GENERATE_HELP = """Generate seeded city maps on which the article's greedy or beam search ends far
from the proved optimum.

\b
Each kept map is a city-map JSON file with its evidence: greedy's and beam's
totals and orders, the proved optimum with an optimal order and the method that
proved it, the gaps, the rules and the seed. Same options and seed, same maps.
'solve' and 'crosscheck' compare a proved optimum with the shipped one.

\b
Examples:
  puzzleproof generate cityclose --kind ring --cities 14 -n 2 --seed 1 -o maps/
  puzzleproof generate cityclose --kind grid -n 1 --seed 7 -o grid.json
  puzzleproof crosscheck cityclose maps/
"""

PLOT_HELP = """Draw the Wiener number after each closing for several methods on one map, and
the per-step advantage of each over the first (baseline minus method), as the
article shows for greedy and beam search.

\b
Each method's order is re-scored by the rules before it is drawn; a method
without an order (stuck, INFEASIBLE) is left out and said. The totals are
printed too.

\b
Examples:
  puzzleproof plot cityclose europe30.json --method greedy,beam -o steps.png
  puzzleproof plot cityclose europe30.json --method greedy,beam,exact -o steps.svg
"""

PLOT_VERB_HELP = """Plot what methods do on an instance: 'plot [PUZZLE] INPUT -o FILE.png'.

City closing: the Wiener number after each closing for each method, and the
per-step advantage of each over the first, as the article draws it."""

#: the cross-check table's note under the counts
CROSSCHECK_NOTE = ("exact methods: OPTIMAL proved, UNKNOWN when the limit ran out (best order "
                   "and both bounds kept, no disagreement); heuristics: a legal order; effort: "
                   "states kept (exact), states expanded (beam)")


def method_help(methods: Sequence[Any], several: bool = False) -> str:
    listing = "; ".join(f"{m.name} ({m.kind}: {m.summary})" for m in methods)
    return ("Methods by name, comma-separated: " if several else "Method: ") + listing + "."


def map_size(m: Any) -> str:
    return f"{plural(m.n, 'city', 'cities')}, {plural(len(m.links), 'link')}"


def rules_text(rules: Any) -> str:
    parts = [f"final size {rules.final_size}"]
    if rules.keep:
        parts.append("keep " + ", ".join(sorted(rules.keep)))
    if rules.no_paths is not None:
        parts.append(f"no paths of {rules.no_paths}+ cities")
    if rules.final_not_path:
        parts.append("the last map no path")
    return "; ".join(parts)


# -- answers -------------------------------------------------------------------------------

def bounds(res: Result) -> tuple[Any, Any]:
    cert = res.certificate if isinstance(res.certificate, dict) else {}
    return cert.get("lower_bound"), cert.get("upper_bound")


def status_line(res: Result, limit: float | None) -> str:
    """One line: the status and what it rests on (``limit``: the ``--time-limit`` an
    UNKNOWN names)."""
    a = res.answer
    lb, _ = bounds(res)
    if res.status is Status.OPTIMAL:
        cert = res.certificate if isinstance(res.certificate, dict) else {}
        how = f"; {cert['closed_by']}" if cert.get("closed_by") else ""
        stopped = (res.stats or {}).get("stopped")
        after = f", though the search stopped early ({stopped})" if stopped else ""
        return (f"OPTIMAL, total {a['total']} (proved by {res.solver}: lower bound {lb}"
                f"{how}{after})")
    if res.status is Status.SOLVED:
        return f"SOLVED, total {a['total']} ({res.solver}, a heuristic: no proof of optimality)"
    if res.status is Status.INFEASIBLE:
        return _infeasible_line(res)
    return _unknown_line(res, limit)


def _infeasible_line(res: Result) -> str:
    cert = res.certificate if isinstance(res.certificate, dict) else {}
    why = cert.get("reason") or (res.stats or {}).get("reason")
    rules = (res.params or {}).get("rules") or {}
    kept, final = len(rules.get("keep") or ()), rules.get("final_size", 1)
    if kept > final:  # the commonest cause, and one the user can fix at once
        why = (f"{kept} cities are kept but the map closes down to {final}: "
               f"add --final-size {kept} or more")
    return (f"INFEASIBLE: proved by {res.solver}, no order keeps the rules"
            + (f" ({why})" if why and why != "no order keeps the rules" else ""))


def _unknown_line(res: Result, limit: float | None) -> str:
    a = res.answer
    lb, ub = bounds(res)
    reason = (res.stats or {}).get("reason")
    ran_out = (f"the time limit of {limit:g} s ran out" if limit is not None
               and reason and "time" in str(reason) else
               "a limit ran out" if reason else "the method gave up")
    if (res.stats or {}).get("too_large"):
        ran_out = f"the map is beyond its reach: {reason} (the exact method goes further)"
    elif reason:
        ran_out += f" ({reason})"
    stuck = (res.stats or {}).get("stuck_at_step")
    if a is None and stuck is not None:
        return (f"UNKNOWN: {res.solver} is stuck at step {stuck}: no closing keeps the rules "
                "(no order found; not a proof that none exists)")
    if a is None:
        return f"UNKNOWN: no order found; {ran_out}"
    gap = f" (gap {100 * (ub - lb) / ub:.2f} %)" if isinstance(lb, int) and ub else ""
    return (f"UNKNOWN: best order {a['total']}, proved lower bound "
            f"{lb if lb is not None else 'none'}{gap}; {ran_out}")


def effort(res: Result) -> str:
    st = res.stats or {}
    if "states" in st:
        text = f"{st['states']:,} states"
        if st.get("pruned"):
            text += f", {st['pruned']:,} pruned"
        return text
    if "expanded" in st:
        return f"{st['expanded']:,} expanded"
    if "conflicts" in st:
        return f"{st['conflicts']:,} conflicts"
    if "steps" in st:
        return f"{st['steps']} steps"
    return ""


def solve_one(task: Task, res: Result, p: Params, note: str | None, ref_failed: bool
              ) -> Page:
    """One answer in full: the status, the rules and effort, each closing with the Wiener
    number after it, the total; on stderr what failed."""
    from rich.table import Table as RichTable

    m, rules = task.instance, task.extra["rules"]
    who = f"{res.solver} {res.solver_version}".strip()
    eff = effort(res)
    page = Page().line(f"{task.name}: {status_line(res, p.time_limit)}")
    page.line(f"  {map_size(m)}; rules: {rules_text(rules)}; {who}"
              + (f", {eff}" if eff else "") + f", {res.wall_time:.3f} s")
    a = res.answer
    if a is not None:
        chk = "legal, re-scored by the rules" if res.check_ok else "BREAKS THE RULES"
        page.line(f"  check: {chk}" + (f"; {note}" if note else ""))
        table = RichTable(show_header=True, box=None, pad_edge=False)
        for col, just in (("step", "right"), ("closed", "left"), ("open", "right"),
                          ("Wiener", "right")):
            table.add_column(col, justify=just)  # type: ignore[arg-type]
        wseq = a["wiener"]
        table.add_row("0", "-", str(m.n), str(wseq[0]))
        for k, (city, w) in enumerate(zip(a["order"], wseq[1:]), start=1):
            table.add_row(str(k), city, str(m.n - k), str(w))
        page.table(table)
        page.line(f"left: {', '.join(a.get('left', []))}")
        page.line(f"total {a['total']} (the sum of {plural(len(wseq), 'Wiener number')}; "
                  f"average {a['total'] / len(wseq):.2f})")
    if not res.check_ok:
        page.note(f"puzzleproof: the order of {res.solver} FAILED the rule check:")
        for v in (res.check or {}).get("violations", []):
            page.note(f"  {v['kind']}: {v['message']}")
    elif ref_failed:
        page.note(f"puzzleproof: {task.name}: {note}")
    return page


def solve_table(rows: list[tuple[Task, Result]], p: Params,
                reference_note: Any) -> Page:
    """A batch: one row a map, the counts, and the UNKNOWNs' lines."""
    from rich.table import Table as RichTable

    table = RichTable(title=f"City closing, method '{p.method}'", title_justify="left")
    for col, just in (("map", "left"), ("cities", "right"), ("status", "left"),
                      ("total", "right"), ("lower bound", "right"), ("check", "left"),
                      ("reference", "left"), ("effort", "right"), ("time (s)", "right")):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    counts: dict[str, int] = {}
    for task, res in rows:
        lb, _ = bounds(res)
        note, _ = reference_note(task, res)
        counts[res.status.value] = counts.get(res.status.value, 0) + 1
        table.add_row(_short(task.name, 40), str(task.instance.n), res.status.value,
                      "" if res.answer is None else str(res.answer["total"]),
                      "" if lb is None else str(lb),
                      "-" if res.answer is None else ("ok" if res.check_ok else "FAILED"),
                      note or "", effort(res), f"{res.wall_time:.3f}")
    page = Page().table(table)
    times = [res.wall_time for _, res in rows]
    page.line(", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
              + (f"; time total {sum(times):.2f} s" if times else ""))
    for task, res in rows:
        if res.status is Status.UNKNOWN:
            page.line(f"  {task.name}: {status_line(res, p.time_limit)}")
    return page


def _short(name: str, width: int = 48) -> str:
    return name if len(name) <= width else "…" + name[-(width - 1):]


# -- check and render ----------------------------------------------------------------------

def check_page(map_name: str, which: str, v: dict, rules: Any, from_file: bool,
               claimed_status: str | None, claimed_method: str | None) -> Page:
    """A check's verdict: legal or every problem, the rules, the Wiener numbers, the claims
    and what the re-proof said."""
    page = Page()
    if v["ok"]:
        page.line(f"{which}: a legal order on {map_name}: "
                  f"{plural(len(v['order']), 'closing')}, left {', '.join(v['left'])}; "
                  f"total {v['total']}")
    else:
        page.line(f"{which}: does NOT hold on {map_name}: "
                  f"{plural(len(v['violations']), 'problem')}")
        for x in v["violations"]:
            page.line(f"  {x['kind']}: {x['message']}")
    page.line(f"  rules: {rules_text(rules)}" + (" (from the order file)" if from_file else ""))
    if v["total"] is not None:
        page.line("  Wiener numbers: " + " ".join(str(w) for w in v["wiener"]))
    if claimed_status:
        page.line(f"  the file claims {claimed_status}"
                  + (f" by {claimed_method}" if claimed_method else ""))
    message = re.sub(r"^\d+ broken rule\(s\)(; )?", "", v["message"])
    if message:
        page.line(f"  {message}")
    return page


#: the largest map whose text listing states its Wiener number (a search from every city)
LISTING_WIENER = 1000


def text_listing(m: Any, order: Sequence[str] | None, title: str) -> str:
    """The map as text: each city with its links (and closing step, given an order)."""
    from puzzleproof.formats.cityclose_draw import closing_steps
    from puzzleproof.models.cityclose import wiener

    step = closing_steps(m, order)
    # one breadth-first search a city: quadratic, so a very large map's is not drawn here
    w = f"Wiener number {wiener(m)}" if m.n <= LISTING_WIENER else \
        f"Wiener number not computed above {LISTING_WIENER:,} cities"
    lines = [f"{title}: {map_size(m)}, {w}" + (" (coordinates given)" if m.coords else "")]
    width = max(len(nm) for nm in m.names)
    for i, nm in enumerate(m.names):
        closed = "" if order is None else (f"closed at step {step[i]}" if i in step
                                           else "left")
        marks = " (marked)" if i in m.marked else ""
        nbrs = ", ".join(m.names[j] for j in m.neighbours(i))
        lines.append(f"  {nm:<{width}}  {closed:<18} links: {nbrs}{marks}" if order is not None
                     else f"  {nm:<{width}}  links: {nbrs}{marks}")
    lines.append("(-o FILE.svg or -o FILE.png draws the map)")
    return "\n".join(lines) + "\n"


# -- crosscheck and plot -------------------------------------------------------------------

def _optimum_cell(row: dict) -> str:
    if row["optimum"] is not None:
        return str(row["optimum"])
    if row["infeasible_by"]:
        return "INFEASIBLE"
    if row["lower_bound"] is not None:
        return f"{row['lower_bound']}..{row['best_known']}" if row["best_known"] else \
            f">= {row['lower_bound']}"
    return "UNKNOWN"


def _method_cell(c: dict) -> str:
    if c["total"] is None:
        return "FAILED" if c.get("check_ok") is False else c["status"]
    if c["gap"] is None:
        return str(c["total"])
    return f"{c['total']} ({'<= ' if c['gap_is_bound'] else ''}+{100 * c['gap']:.2f} %)"


def gaps_page(rows: list[dict], chosen: list[str]) -> Page:
    """The cross-check's table of totals and gaps to the proved optimum, per map, and the
    mean gap of each method over the maps with a proved optimum."""
    from rich.table import Table as RichTable

    table = RichTable(title="Totals and gaps to the proved optimum, per map",
                      title_justify="left")
    for col, just in (("map", "left"), ("cities", "right"), ("optimum", "right"),
                      ("proved by", "left"), ("reference", "right")):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    for name in chosen:
        table.add_column(name, justify="right")
    for row in rows:
        ref = "" if row["reference"] is None else str(row["reference"])
        table.add_row(_short(row["map"], 36), str(row["cities"]), _optimum_cell(row),
                      row["proved_by"] or ("" if row["optimum"] is None else "?"), ref,
                      *[_method_cell(row["methods"][name]) for name in chosen])
    page = Page().table(table)
    proved = [row for row in rows if row["optimum"] is not None]
    means = []
    for name in chosen:
        gaps = [row["methods"][name]["gap"] for row in proved
                if row["methods"][name]["gap"] is not None]
        if gaps and len(gaps) == len(proved):
            means.append(f"{name} +{100 * sum(gaps) / len(gaps):.2f} % (max "
                         f"+{100 * max(gaps):.2f} %)")
    if proved and means:
        page.line(f"mean gap over the {plural(len(proved), 'map')} with a proved optimum: "
                  + ", ".join(means))
    if len(proved) < len(rows):
        page.line(f"{len(rows) - len(proved)} map(s) without a proved optimum: the range is "
                  "the proved lower bound .. the best legal order, and gaps are measured "
                  "from the lower bound (so they are at most that)")
    return page


def plot_page(rows: list[tuple[str, Result]], runs: dict[str, list[int]]) -> Page:
    """Each drawn method's total, and its advantage over the first (the baseline)."""
    page = Page()
    base = next(iter(runs))
    for name, res in rows:
        if name not in runs:
            continue
        total = res.answer["total"]
        adv = sum(runs[base]) - total
        page.line(f"{name:<12} {res.status.value:<8} total {total}"
                  + (f"  ({base} - {name}: {adv:+d})" if name != base else ""))
    return page


# -- report --------------------------------------------------------------------------------


def draw_orders(name: str, recs: list[dict], inst: Any, k: int) -> list[Any]:
    orders = [r for r in recs if isinstance(r.get("answer"), dict) and r["answer"].get("order")]
    if len(orders) < 2:
        return []
    best = min(orders, key=lambda r: r["answer"]["total"])
    worst = max(orders, key=lambda r: r["answer"]["total"])
    blocks: list[Any] = []
    from puzzleproof.formats.cityclose_draw import plot_steps, render_svg

    runs = {r["method"]: r["answer"]["wiener"] for r in orders if r["answer"].get("wiener")}
    if runs:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            path = str(Path(tmp) / "steps.png")
            plot_steps(dict(sorted(runs.items(), key=lambda kv: sum(kv[1]))), path,
                       title=f"{name}: Wiener number per step")
            blocks.append(Figure(f"wiener-{k}", "png", Path(path).read_bytes(),
                                 f"{name}: Wiener number per step, per method"))
    if inst is None:
        blocks.append("(the map was not found: pass the run's inputs to draw both orders)")
        return blocks
    m = getattr(inst, "map", inst)
    for r in (best, worst) if best is not worst else (best,):
        blocks.append(Figure(f"orders-{k}-{r['method']}", "svg",
                             render_svg(m, r["answer"]["order"],
                                        title=f"{name}: {r['method']}, total "
                                              f"{r['answer']['total']}"),
                             f"{r['method']}'s order (each city labelled with the step that "
                             f"closes it), total {r['answer']['total']}"))
    return blocks



def draw_disagreement(d: dict, recs: list[dict], inst: Any, k: int) -> list[Any]:
    return draw_orders(d["instance"], recs, inst, k)


def size(inst: Any, rec: dict) -> int | None:
    if inst is not None:
        return getattr(inst, "n", None)
    ans = rec.get("answer")
    if isinstance(ans, dict) and "order" in ans:
        return len(ans["order"]) + len(ans.get("left") or [])
    return None


def totals_sections(recs: list[dict], found: Any) -> list[Any]:
    """The totals of every method on every map, and the maps where they differ, drawn."""
    records = [r for r in recs if r["type"] == "record"]
    methods = list(dict.fromkeys(r["method"] for r in records))
    by_inst: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by_inst[r["instance"]].append(r)
    rows, gaps = [], Section("Maps where the orders differ")
    for k, (name, rs) in enumerate(by_inst.items()):
        totals = {r["method"]: r["answer"]["total"] for r in rs
                  if isinstance(r.get("answer"), dict)
                  and isinstance(r["answer"].get("total"), (int, float))}
        if not totals:
            continue
        rows.append([name, *[totals.get(m, "") for m in methods],
                     max(totals.values()) - min(totals.values())])
        if len(set(totals.values())) > 1 and k < MAX_DRAWN:
            gaps.blocks.append(f"### {name}")
            try:
                gaps.blocks += draw_orders(name, rs, found.get(name), 100 + k)
            except Exception as exc:  # noqa: BLE001 - a drawing never ends the report
                gaps.blocks.append(f"(cannot be drawn: {type(exc).__name__}: {exc})")
    out = [Section("Totals", [Table(["map", *methods, "largest gap"], rows,
                                    "Total of Wiener numbers per map and method")])]
    return out + ([gaps] if gaps.blocks else [])
