"""City closing (Two Spies) as a plugin: its reader, its methods (four exact back ends, the
plain DP and the article's heuristics, listed in :mod:`puzzleproof.verify.cityclose_methods`),
and its part of every shared verb. The rules an order must keep (one set of option rows for
every verb) and how one method runs under them are :mod:`~puzzleproof.puzzles.cityclose_rules`;
the runs over several methods or maps (crosscheck, generate, plot) are
:mod:`~puzzleproof.puzzles.cityclose_runs`; what a person sees is drawn in
:mod:`~puzzleproof.puzzles.cityclose_views`. The puzzle's own verb ``plot cityclose`` is
:mod:`puzzleproof.puzzles.cityclose_commands`.

Every order shown is re-scored by :mod:`puzzleproof.models.cityclose` (through
:func:`puzzleproof.verify.cityclose_methods.check_order`) before it is returned; an order file
written by ``solve cityclose -o`` carries its rules, status, bounds, proof data and a
fingerprint of its map, so ``check cityclose MAP FILE`` needs no options.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from puzzleproof.errors import InputError, UsageError
from puzzleproof.instance import Loaded
from puzzleproof.puzzles import cityclose_runs as runs
from puzzleproof.puzzles import cityclose_views as views
from puzzleproof.puzzles.cityclose_commands import COMMANDS
from puzzleproof.puzzles.base import (CheckSpec, ConvertSpec, CrosscheckSpec, GenerateSpec,
                                      Outcome, Page, Params, Picture, Plugin, Reader, RenderSpec,
                                      ReportSpec, SolveSpec, Task)
from puzzleproof.puzzles.cityclose_rules import (KEY, RULES, TIEBREAK, WIDTH, make_rules,
                                                 one_method, reference_note, rules_from_doc,
                                                 rules_given, solve_map)
from puzzleproof.puzzles.inputs import plural
from puzzleproof.puzzles.options import (BOT_CMD, COUNT, MEMORY_LIMIT, METHOD, METHODS, SEED,
                                         TIME_LIMIT, WHERE,
                                         Opt)
from puzzleproof.result import Result, Status
from puzzleproof.verify.cityclose_methods import METHODS as METHOD_LIST

__all__ = ["PLUGIN"]

# -- solve -----------------------------------------------------------------------------------

def _solve_prepare(p: Params) -> None:
    p["method"] = one_method(p)


def _tasks(loaded: Sequence[Loaded], p: Params) -> list[Task]:
    return [Task(ld.name, ld.instance, ld, {"rules": make_rules(ld.instance, p, ld.name)})
            for ld in loaded]


def _solve_run(task: Task, p: Params, session: Any) -> Result:
    return solve_map(task.instance, task.extra["rules"], p.method, p)


def _record(task: Task, res: Result, p: Params, full: bool) -> dict:
    """One map's record (the same in ``--json``, ``--jsonl`` and ``-o``: the certificate
    with its bounds is small, and a stream of records must say what a single one says)."""
    m, rules = task.instance, task.extra["rules"]
    d = res.to_dict()
    note, failed = reference_note(task, res)
    d.update({"name": task.name, "method_name": p.method, "cities": m.n,
              "links": len(m.links), "rules": rules.to_dict(), "reference": note,
              "failed": failed or not res.check_ok,
              "peak_rss_mb": (res.stats or {}).get("peak_rss_mb")})
    return d


def _order_file(task: Task, res: Result, p: Params) -> tuple[str, str] | None:
    """``-o`` of one map: its order file (status, bounds, rules, proof data, the map's
    fingerprint), read back by ``check cityclose MAP FILE``."""
    from puzzleproof.formats.cityclose import map_digest, order_document

    if res.answer is None:
        return None
    if p.out_format == "lines":  # one city a line, as a program writes its order
        return "".join(f"{c}\n" for c in res.answer["order"]), " (order, one city a line)"
    m, rules = task.instance, task.extra["rules"]
    cert = res.certificate if isinstance(res.certificate, dict) else {}
    bounds = {k: cert[k] for k in ("lower_bound", "upper_bound", "gap") if k in cert}
    doc = order_document(m, res.answer, status=res.status.value, method=res.solver,
                         bounds=bounds, rules=rules.to_dict(),
                         extra={"method_name": p.method, "map_digest": map_digest(m),
                                "proof": cert or None, "wall_time": round(res.wall_time, 4),
                                "checked": res.check_ok})
    return json.dumps(doc, indent=1) + "\n", f" (order, {res.status.value})"


def _failed(task: Task, res: Result, p: Params) -> bool:
    return (not res.check_ok or reference_note(task, res)[1]
            or res.status is Status.INFEASIBLE)


def _show_one(task: Task, res: Result, p: Params) -> Page:
    note, ref_failed = reference_note(task, res)
    return views.solve_one(task, res, p, note, ref_failed)


SOLVE = SolveSpec(
    help=views.SOLVE_HELP,
    options=(METHOD.but(default="exact", show_default=True,
                        help=views.method_help(METHOD_LIST)),
             *RULES, WIDTH, TIEBREAK,
             TIME_LIMIT.but(help="Seconds per map (exact, ilp, dp, beams); when they run out "
                                 "the answer is UNKNOWN, naming the limit."),
             SEED,
             Opt("output", ("-o", "--output"), "One map: its order file (JSON: order, Wiener "
                 "numbers, total, status, bounds, rules, proof data; 'check cityclose MAP "
                 "FILE' reads it back). Several maps: one JSON record a line per map. Never "
                 "overwrites an existing file unless --force.", kind="path")),
    run=_solve_run, table=lambda rows, p, errors: views.solve_table(rows, p, reference_note),
    record=_record, tasks=_tasks, prepare=_solve_prepare, show_one=_show_one,
    write=_order_file, failed=_failed, describe=lambda t, p: f"{t.name} ({p.method})",
    formats=("json", "lines"),
    inputs_name="MAPS...")


# -- check -----------------------------------------------------------------------------------

def _order_doc(text: str) -> dict:
    """The order file's object when ``text`` is one ``solve cityclose -o`` wrote, else {}."""
    if not text.lstrip().startswith("{"):
        return {}
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return obj if isinstance(obj, dict) and obj.get("type") == "cityclose-order" else {}


def _check_rules(m: Any, ld: Loaded, doc: dict, source: str, p: Params, notes: list[str]
                 ) -> Any:
    """The rules of a check: the options', else the order file's, else the defaults."""
    if rules_given(p):
        rules = make_rules(m, p, ld.name)
        if doc.get("rules") and rules_from_doc(doc["rules"], source).to_dict() \
                != rules.to_dict():
            notes.append(f"note: the options' rules replace the rules recorded in {source}")
        return rules
    rules = rules_from_doc(doc.get("rules"), source) if doc else make_rules(m, p)
    for name in rules.keep:
        if m.index(name) is None:
            raise InputError(f"rules.keep: no city {name!r} on the map", source)
    return rules


def _claims_checked(v: dict, doc: dict, claimed_status: str | None) -> None:
    """What an order file claims beyond its order: its bounds and status."""
    bounds = doc.get("bounds") if isinstance(doc.get("bounds"), dict) else {}
    if claimed_status == "OPTIMAL" and "lower_bound" in bounds \
            and bounds["lower_bound"] != v["total"]:
        v["violations"].append({"kind": "bound-mismatch", "step": None, "city": None,
                                "message": f"claims OPTIMAL with lower bound "
                                           f"{bounds['lower_bound']}, but the order scores "
                                           f"{v['total']}"})
    if claimed_status not in (None, "OPTIMAL", "SOLVED", "UNKNOWN"):
        v["violations"].append({"kind": "bad-status", "step": None, "city": None,
                                "message": f"an order file cannot claim {claimed_status!r}"})
    v["ok"] = not v["violations"]


def _check(args: Sequence[str], p: Params, inputs: Any) -> Outcome:
    from puzzleproof.formats.cityclose import map_digest, read_order
    from puzzleproof.verify.cityclose_methods import check_order

    ld = inputs.one(args[0], PLUGIN, None, "check")
    m = ld.instance
    text, source = inputs.text(args[1])
    oi = read_order(text, source, p.key)
    doc = _order_doc(text)
    if isinstance(doc.get("map_digest"), str) and doc["map_digest"] != map_digest(m):
        raise InputError(f"the order was written for another map ({doc.get('map')}, "
                         f"{doc.get('cities')} cities)", source)
    notes: list[str] = []
    rules = _check_rules(m, ld, doc, source, p, notes)
    status = doc.get("status") if isinstance(doc.get("status"), str) else None
    method = doc.get("method") if isinstance(doc.get("method"), str) else None
    v = check_order(m, oi.order, rules, p.optimum, claimed_total=oi.claimed_total,
                    claimed_wiener=oi.claimed_wiener, claimed_status=status,
                    claimed_method=method, deadline=p.deadline())
    _claims_checked(v, doc, status)
    record = {"map": ld.name, "order_file": source, "key": oi.key, "rules": rules.to_dict(),
              "claimed_status": status, "claimed_method": method, **v}
    page = views.check_page(ld.name, source + (f" [{oi.key}]" if oi.key else ""), v, rules,
                            bool(doc) and not rules_given(p), status, method)
    for note in notes:
        page.items.insert(0, ("err", note))
    return Outcome(v["ok"], record, page)


CHECK = CheckSpec(
    help=views.CHECK_HELP,
    options=(KEY, Opt("optimum", ("--optimum",), "The best known or proved total: say how far "
                      "the order is from it.", kind="int", range=(0, None), metavar="N"),
             *RULES,
             TIME_LIMIT.but(default=60.0, show_default=True, help="Seconds for the "
                            "independent DP that re-proves a claimed optimum.")),
    check=_check, arguments="MAP ORDER")


# -- render ----------------------------------------------------------------------------------

def _drawn_order(ld: Loaded, rules: Any, p: Params) -> tuple[Any, str, list[str], bool]:
    """An order file to draw: (its order, the title, notes, whether it breaks a rule); an
    order for another map is refused (nothing to draw on this one)."""
    from puzzleproof.formats import read_source
    from puzzleproof.formats.cityclose import read_order
    from puzzleproof.models.cityclose import score_order

    text, source, _ = read_source(p.order_arg)
    chk = score_order(ld.instance, read_order(text, source, p.key).order, rules)
    unknown = [v for v in chk.violations if v["kind"] == "unknown-city"]
    if unknown:
        raise InputError(f"not an order for {ld.name} ({unknown[0]['message']}"
                         + (f", and {len(unknown) - 1} more unknown" if len(unknown) > 1
                            else "") + ")", source)
    if chk.ok:
        return chk.order, f"{ld.name}: total {chk.total}", [], False
    return chk.order, f"{ld.name}: NOT a legal order", [
        f"{source} breaks the rules ({plural(len(chk.violations), 'problem')}, first: "
        f"{chk.violations[0]['message']}); drawn with the title saying so (exit 1)"], True


def _solved_order(ld: Loaded, rules: Any, p: Params) -> tuple[Any, str, list[str]]:
    """The method's checked order to draw (None, and why, when there is none)."""
    res = solve_map(ld.instance, rules, one_method(p), p)
    if res.answer is None:
        return None, "", [f"{ld.name}: {views.status_line(res, p.time_limit)}; nothing to draw"]
    if not res.check_ok:
        return None, "", [f"puzzleproof: the order of {res.solver} failed the rule check: "
                          f"{res.check}"]
    return (res.answer["order"],
            f"{ld.name}: {res.status.value} {res.answer['total']} ({res.solver})",
            [f"{ld.name}: {views.status_line(res, p.time_limit)}"])


def _render(arg: str, kind: str, p: Params, inputs: Any) -> Picture:
    from puzzleproof.formats.cityclose import render_png, render_svg

    ld = inputs.one(arg, PLUGIN, None, "render")
    if p.order_arg and p.do_solve:
        raise UsageError("give --order or --solve, not both")
    rules = make_rules(ld.instance, p, ld.name)
    order, title, notes, broken = None, ld.name, [], False
    if p.order_arg:
        order, title, notes, broken = _drawn_order(ld, rules, p)
    elif p.do_solve:
        order, title, notes = _solved_order(ld, rules, p)
        if order is None:
            return Picture(None, kind, ok=False, notes=notes)
    m = ld.instance
    data = (render_svg(m, order, title=title) if kind == "svg" else
            render_png(m, order, title=title) if kind == "png" else
            views.text_listing(m, order, title))
    return Picture(data, kind, ok=not broken, notes=notes)


RENDER = RenderSpec(
    help=views.RENDER_HELP,
    options=(Opt("order_arg", ("--order",), "Label each city with the step that closes it (an "
                 "order file, JSON or one name a line); it is re-scored first, and a wrong one "
                 "is drawn with the title saying so (exit 1).", metavar="ORDER"),
             KEY.but(help="Which order of a file of several."),
             Opt("do_solve", ("--solve",), "Solve the map (with --method) and draw the order "
                 "found.", kind="flag", default=False),
             METHOD.but(default="exact", show_default=True,
                        help=views.method_help(METHOD_LIST)),
             *RULES,
             TIME_LIMIT.but(help="Seconds for --solve; when they run out the answer is "
                                 "UNKNOWN, naming the limit.")),
    render=_render, kinds=("svg", "png", "text"), default_kind="text", argument="MAP")


# -- convert ---------------------------------------------------------------------------------

def _convert(arg: str, fmt: str, p: Params, inputs: Any) -> tuple[str, str]:
    """The map in ``fmt``, read back and compared before it is delivered."""
    from puzzleproof.formats.cityclose import read_map, write_map

    m = inputs.one(arg, PLUGIN, None, "convert").instance
    text = write_map(m, fmt)
    back = read_map(text, f"<{fmt}>", fmt)
    if back.names != m.names or set(back.links) != set(m.links):
        raise RuntimeError(f"the {fmt} text does not read back to the same map")
    return text, f" ({views.map_size(m)}, {fmt})"


CONVERT = ConvertSpec(
    help=views.CONVERT_HELP,
    options=(Opt("to_fmt", ("--format",), "Format to write: json (keeps coordinates "
                 "and marked cities), edges (names and links only), graphml or gml (through "
                 "networkx, with lat/lng).", kind="choice",
                 choices=("json", "edges", "graphml", "gml")),),
    formats=("json", "edges", "graphml", "gml"), write=_convert, argument="MAP")


# -- crosscheck and generate (their runs: cityclose_runs) -----------------------------------

CROSSCHECK = CrosscheckSpec(
    help=views.CROSSCHECK_HELP,
    options=(METHODS.but(help=views.method_help(METHOD_LIST, several=True)),
             *RULES, WIDTH, TIEBREAK.but(help="Greedy's ties (see 'solve cityclose --help')."),
             TIME_LIMIT.but(default=60.0, show_default=True, help="Seconds per map and "
                            "method (a program's time too); when they run out the answer is "
                            "UNKNOWN, naming the limit."),
             BOT_CMD.but(help="A program to judge, NAME=COMMAND (repeatable): it reads the "
                         "map and the rules as JSON on stdin and writes the cities to close, "
                         "one a line (see the README); its order is checked by the rules "
                         "and its total set against the proved optimum."),
             MEMORY_LIMIT),
    run=runs.crosscheck)

GENERATE = GenerateSpec(
    help=views.GENERATE_HELP,
    options=(Opt("kind", ("--kind",), "delaunay: random points joined by a planar "
                 "triangulation; grid: a grid with holes; ring: a jittered ring with short "
                 "chords.", kind="choice", choices=("delaunay", "grid", "ring"),
                 default="delaunay", show_default=True),
             Opt("cities", ("--cities",), "Cities of each map (the optimum is proved by the "
                 "plain DP up to 18, by the compiled exact DP beyond: 30 takes about half a "
                 "minute).", kind="int", default=14, range=(3, 40), show_default=True),
             COUNT.but(help="How many maps to keep."), SEED,
             Opt("min_gap", ("--min-gap",), "Keep a map only when greedy or beam (width 10) "
                 "ends at least this fraction above the proved optimum (0.01 = 1 %).",
                 kind="float", default=0.01, range=(0, None), show_default=True),
             Opt("max_attempts", ("--max-attempts",), "Random maps to draw at most.",
                 kind="int", default=500, range=(1, None), show_default=True),
             TIME_LIMIT.but(default=60.0, show_default=True, help="Seconds to prove each "
                            "drawn map's optimum (maps not proved are dropped)."),
             *RULES, *WHERE),
    generate=runs.generate, prepare=runs.generate_prepare, layout=runs.generate_layout,
    hunter=runs.hunter, rebuild="puzzleproof.generate.hunt_cityclose:from_evidence",
    what="kept", shortfall="raise --max-attempts (why the others were dropped: above)",
    output_help="A .json file (one map) or a folder (one NAME.json a map; created when "
                "missing). Without it one map goes to stdout.")

def _prepare() -> dict:
    """``puzzleproof prepare``: compile the exact search's loops (word and wide sets) and the
    heuristics' into numba's cache, so the first run after installing is as fast as later
    ones."""
    from puzzleproof.verify.cityclose_methods import warm_all

    return {"done": "the exact search's and the heuristics' loops compiled into numba's cache",
            "seconds": warm_all()}


def _write_json(m: Any) -> str:
    from puzzleproof.formats.cityclose import map_to_json

    return map_to_json(m)


READER = Reader(
    read="puzzleproof.formats.cityclose:read_instances",
    suffixes=(".json", ".txt", ".edges", ".graphml", ".gml"), limits=views.LIMITS,
    written={"cityclose-order": "a city-closing order"},
    instance_type="puzzleproof.models.cityclose:CityMap", write=_write_json,
    samples={"instances": ["instances/cityclose/ring14-s1-0.json",
                           "shared/cityclose/two-spies-roundabout.json"],
             "check": [["instances/cityclose/ring14-s1-0.json",
                        "tests/fuzz_seeds/cityclose-ring14-s1-0.order.json"]],
             "written": ["tests/fuzz_seeds/cityclose-ring14-s1-0.order.json"],
             "hardest": "shared/cityclose/europe41-land-borders.json"})

PLUGIN = Plugin(
    name="cityclose", title="City closing", noun="map",
    aliases=("city-closing", "twospies", "two-spies"), rank=30,
    summary="City closing (Two Spies): the removal order with the least Wiener numbers, "
            "proved; the article's greedy and beam search judged",
    reader=READER, methods=METHOD_LIST,
    default_methods=("exact", "merged-beam", "beam", "greedy"),
    solve=SOLVE, check=CHECK, render=RENDER, convert=CONVERT, crosscheck=CROSSCHECK,
    generate=GENERATE,
    report=ReportSpec(draw=views.draw_disagreement, sections=views.totals_sections,
                      size=views.size, size_name="cities"),
    prepare=_prepare, commands=COMMANDS)
