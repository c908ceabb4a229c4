"""City closing's runs over several methods or maps: the cross-check (every method on every
map through the harness, with each heuristic's gap to the proved optimum), the generator of
maps on which the article's heuristics end far from the optimum, and ``plot`` (each method's
Wiener number per step on one map)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any, Iterator, Sequence

from puzzleproof.clock import PerTask
from puzzleproof.errors import InputError, UsageError
from puzzleproof.instance import Loaded
from puzzleproof.puzzles import cityclose_views as views
from puzzleproof.puzzles.base import Generated, Outcome, Page, Params
from puzzleproof.puzzles.cityclose_rules import chosen_methods, make_rules, solve_map

__all__ = ["crosscheck", "gap_row", "generate", "generate_prepare", "generate_layout",
           "hunter", "plot_prepare", "plot"]

#: the methods a cross-check runs when none are named
DEFAULT_METHODS = ("exact", "merged-beam", "beam", "greedy")


# -- hunting a program -----------------------------------------------------------------------

def hunter(p: Params) -> Any:
    """With --bot-cmd: the hunt for the maps on which the program's order breaks the rules
    or ends at least --min-gap above the optimum (kept cities are not drawn: --keep names
    cities of a map, and the hunt's maps are random)."""
    if p.program is None:
        return None
    from puzzleproof.generate.hunt_cityclose import CitycloseHunter
    from puzzleproof.models.cityclose import Rules

    if p.keep or p.keep_marked:
        raise UsageError("a hunt draws random maps: --keep names no city of them")
    rules = Rules(p.final_size or 1, frozenset(), p.no_paths, bool(p.final_not_path))
    return CitycloseHunter(p.program, rules, min_gap=p.min_gap, max_attempts=p.max_attempts)


# -- crosscheck ------------------------------------------------------------------------------

def _run_rules(loaded: Sequence[Loaded], p: Params) -> Any:
    """One set of rules for the run; kept cities must be on every map."""
    from puzzleproof.models.cityclose import Rules

    rules = None
    for ld in loaded:
        rl = make_rules(ld.instance, p, ld.name)
        rules = rl if rules is None else rules
    rules = rules or Rules()
    if rules.final_size > min(ld.instance.n for ld in loaded):
        raise InputError(f"--final-size {rules.final_size} exceeds a map's cities")
    return rules


def crosscheck(loaded: Sequence[Loaded], p: Params, env: Any) -> Outcome:
    """The harness on every map with the chosen methods, then the table of totals and gaps
    (its rows are the ``--json`` summary's ``maps``)."""
    from puzzleproof.puzzles.harness import Table, run_harness
    from puzzleproof.verify.cityclose_methods import crosscheck_kind
    from puzzleproof.verify.crosscheck import Instance

    from puzzleproof.games.cityclose_program import external_method

    rules = _run_rules(loaded, p)
    extra = {name: external_method(program, rules)
             for name, program in (p.externals or {}).items()}
    chosen = chosen_methods(p.method, DEFAULT_METHODS) + list(extra)
    seen: dict[str, int] = {}
    instances, maps = [], {}
    for ld in loaded:
        seen[ld.name] = seen.get(ld.name, -1) + 1
        key = ld.name if not seen[ld.name] else f"{ld.name}@{seen[ld.name]}"
        instances.append(Instance(key, ld.instance, ld.reference))
        maps[key] = ld
    kind = crosscheck_kind([c for c in chosen if c not in extra], rules, width=p.beam_width,
                           tiebreak=p.tiebreak or "last", extra=extra)
    table = Table((("legal order", "solved"), ("infeasible", "infeasible"),
                   ("unknown", "unknown"), ("failed", "failed")), note=views.CROSSCHECK_NOTE)
    report, outcome = run_harness("cityclose", kind, instances, chosen, env, PerTask(p.time_limit),
                                  table)
    by_inst: dict[str, list[dict]] = defaultdict(list)
    for rec in report.records:
        by_inst[rec["instance"]].append(rec)
    rows = [gap_row(i.id, maps[i.id].instance, maps[i.id].reference, by_inst[i.id], chosen,
                    rules) for i in instances]
    outcome.record.update(rules=rules.to_dict(), maps=rows)
    outcome.page.extend(views.gaps_page(rows, chosen))
    return outcome


def _bounds_of(recs: list[dict]) -> dict[str, Any]:
    """What the exact methods proved of one map: its optimum (and by whom: an OPTIMAL, or a
    lower bound that meets a checked order), the best lower bound, the best legal total, a
    proved INFEASIBLE."""
    from puzzleproof.verify.cityclose_methods import proved_optimum

    infeasible = next((rec for rec in recs if rec.get("exact")
                       and rec["status"] == "INFEASIBLE"), None)
    legal = [rec["answer"]["total"] for rec in recs if isinstance(rec["answer"], dict)
             and rec["check_ok"]]
    lbs = [rec["certificate"].get("lower_bound") for rec in recs if rec.get("exact")
           and isinstance(rec.get("certificate"), dict)
           and isinstance(rec["certificate"].get("lower_bound"), int)]
    row = {"optimum": None, "proved_by": None, "lower_bound": max(lbs) if lbs else None,
           "best_known": min(legal) if legal else None,
           "infeasible_by": infeasible["method"] if infeasible else None}
    proved = proved_optimum(recs)
    if proved is not None:
        row.update(optimum=proved[0], proved_by=proved[1], lower_bound=proved[0])
    return row


def gap_row(key: str, m: Any, ref: Any, recs: list[dict], chosen: list[str], rules: Any
            ) -> dict:
    """One map's line of the gap table: the optimum (proved, or bounds), and each method's
    total and gap (from the lower bound when no optimum is proved: a gap at most that)."""
    from puzzleproof.verify.cityclose_methods import reference_rules_match

    row: dict[str, Any] = {"map": key, "cities": m.n, **_bounds_of(recs), "reference": None,
                           "methods": {}}
    if isinstance(ref, dict) and isinstance(ref.get("optimum"), int) \
            and reference_rules_match(ref, rules):
        row["reference"] = ref["optimum"]
    base = row["optimum"] if row["optimum"] is not None else row["lower_bound"]
    by = {rec["method"]: rec for rec in recs}
    for name in chosen:
        rec = by.get(name)
        if rec is None:
            row["methods"][name] = {"status": "not run", "total": None, "gap": None}
            continue
        a = rec["answer"] if isinstance(rec["answer"], dict) else None
        total = a.get("total") if a and rec["check_ok"] else None
        gap = (total - base) / base if total is not None and base else None
        row["methods"][name] = {"status": rec["status"], "total": total, "gap": gap,
                                "gap_is_bound": row["optimum"] is None and gap is not None,
                                "check_ok": rec["check_ok"],
                                "wall_time": rec.get("wall_time")}
    return row


# -- generate --------------------------------------------------------------------------------

def generate_prepare(p: Params) -> None:
    """The rules of generated maps (no kept city: they are named c00, c01, ...)."""
    from puzzleproof.models.cityclose import Rules

    if p.keep or p.keep_marked:
        raise UsageError("generated maps name their cities c00, c01, ...: --keep is for "
                         "solving a given map")
    p["rules"] = Rules(p.final_size or 1, frozenset(), p.no_paths, bool(p.final_not_path))
    if p.rules.final_size >= p.cities:
        raise UsageError(f"--final-size {p.rules.final_size} leaves nothing to close on "
                         f"{p.cities} cities")


def generate_layout(p: Params) -> str:
    """Where the command writes the maps: one to stdout, -o FILE.json (one map) or -o
    FOLDER (one file a map)."""
    target = Path(p.output) if p.output else None
    as_file = target is not None and target.suffix.lower() == ".json"
    if target is None and p.count > 1:
        raise UsageError("several maps need -o FOLDER (one file a map)")
    if as_file and p.count > 1:
        raise UsageError("-o FILE.json holds one map: give -n 1, or a folder")
    if target is not None and not as_file and target.exists() and not target.is_dir():
        raise InputError("is a file, not a folder: give FILE.json for one map, or a folder",
                         str(target))
    return "lines" if target is None else "file" if as_file else "folder"


def generate(p: Params, executor: Any, on_attempt: Any) -> Iterator[Generated]:
    """The maps kept, each a city-map JSON file with its evidence (the record)."""
    from puzzleproof.generate.cityclose import generate as draw
    from puzzleproof.generate.cityclose import to_json

    dropped: dict[str, int] = {}
    kept = draw(p.kind, p.cities, count=p.count, seed=p.seed, min_gap=p.min_gap,
                rules=p.rules, max_tries=p.max_attempts, per_map=PerTask(p.time_limit),
                jobs=executor, progress=lambda k, d: on_attempt(d, k), dropped=dropped)
    folder = bool(p.output) and Path(p.output).suffix.lower() != ".json"
    for gm in kept:
        ev, name, text = gm.evidence, gm.map.name, to_json(gm)
        line = (f"{gm.map.n} cities, {len(gm.map.links)} links; optimum {ev['optimum']} "
                f"({ev['optimum_by']}), greedy {ev['greedy']} (+{100 * ev['greedy_gap']:.2f} "
                f"%), beam {ev['beam']} (+{100 * ev['beam_gap']:.2f} %)")
        if folder:
            note = "{path}: " + line
        else:  # one map: named, after the file it went to (if any)
            note = ("wrote {path}\n" if p.output else "") + f"{name}: {line}"
        yield Generated(name, {"type": "cityclose", "name": name, "cities": gm.map.n,
                               "links": len(gm.map.links), "evidence": ev},
                        line=text.rstrip("\n"), files={f"{name}.json": text}, note=note)
    if len(kept) < p.count and dropped:
        yield _dropped_note(dropped, p)


def _dropped_note(dropped: dict[str, int], p: Params) -> str:
    """Why the maps drawn were not kept, each reason with the option that would keep more."""
    why = {"unproved": f"optimum not proved within --time-limit {p.time_limit:g} s (raise it)",
           "gap": f"greedy and beam within --min-gap {p.min_gap:g} of the optimum (lower it)",
           "disconnected": "not connected"}
    return "dropped: " + "; ".join(f"{n} with {why[k]}" if k != "disconnected" else
                                    f"{n} {why[k]}" for k, n in sorted(dropped.items()))


# -- plot ------------------------------------------------------------------------------------

def plot_prepare(p: Params) -> None:
    """The methods to draw (``p.method`` becomes their list) and the picture's file, checked
    before any work."""
    p["method"] = chosen_methods(p.method, ())
    if not p.method:
        raise UsageError("give at least one method")
    if not p.output:
        raise UsageError("give -o FILE.png (or .svg) for the plot")
    if Path(p.output).suffix.lower() not in (".png", ".svg"):
        raise UsageError("the plot is .png or .svg: name -o accordingly")


def plot(arg: str, p: Params, inputs: Any) -> Outcome:
    """Each method's order on the map, re-scored, its Wiener numbers drawn to ``p.output``
    (.png or .svg) and its total printed; a method without a legal order is left out and
    said (none: exit 1). ``p`` is prepared by :func:`plot_prepare`."""
    from puzzleproof.formats.cityclose import plot_steps
    from puzzleproof.puzzles.registry import get

    ld = inputs.one(arg, get("cityclose"), None, "plot")
    rules = make_rules(ld.instance, p, ld.name)
    page, runs, rows = Page(), {}, []
    for name in p.method:
        res = solve_map(ld.instance, rules, name, p)
        rows.append((name, res))
        if res.answer is not None and res.check_ok:
            runs[name] = list(res.answer["wiener"])
        else:
            page.note(f"note: {name}: {views.status_line(res, p.time_limit)}; not drawn")
    if not runs:
        page.note("puzzleproof: no method produced a legal order; nothing to plot")
        return Outcome(False, {}, page)
    plot_steps(runs, p.output, title=ld.name)
    page.note(f"wrote {p.output}")
    record = {"map": ld.name, "rules": rules.to_dict(), "output": p.output,
              "methods": [{"method": n, "status": res.status.value,
                           "total": res.answer["total"] if n in runs else None,
                           "wiener": runs.get(n), "wall_time": round(res.wall_time, 4)}
                          for n, res in rows]}
    return Outcome(True, record, page.extend(views.plot_page(rows, runs)))
