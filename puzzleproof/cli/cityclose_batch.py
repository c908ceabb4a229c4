"""City closing's batch commands: ``crosscheck cityclose`` (every method on every map, with
each heuristic's gap to the proved optimum), ``generate cityclose`` and the verb ``plot``.
Registered when :mod:`puzzleproof.cli.cityclose` is imported.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from puzzleproof.cli.legacy import (FiniteRange,
                                    Exit, check_output, count_option, crosscheck_group,
                                    deliver, emit,
                                    force_option, gather,
                                    generate_group,
                                    jobs_option, json_option,
                                    method_option, mixed, out,
                                    output_option, plural,
                                    quiet_option,
                                    resume_option, say,
                                    seed_option, short,
                                    split_names,
                                    time_limit_option)
from puzzleproof.errors import InputError
from puzzleproof.formats import write_atomic

from puzzleproof.cli.cityclose import (PUZZLE, _default_methods, _methods, _one_map,
                                       _rule_args,
                                       _solve_one,
                                       _status_line,
                                       make_rules,
                                       rules_options)


# -- crosscheck -----------------------------------------------------------------------------

class _Keep:
    """The harness's per-instance hook, wrapped to keep each instance's records in this
    process (for the gap table); workers get it without them."""

    def __init__(self, extra) -> None:
        self.extra = extra
        self.recs: dict[str, list[dict]] = {}

    def __call__(self, inst, recs):
        self.recs[inst.id] = list(recs)
        return self.extra(inst, recs)

    def __getstate__(self) -> dict:
        return {"extra": self.extra, "recs": {}}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)


@crosscheck_group.command(name="cityclose")
@click.argument("inputs", nargs=-1, required=True)
@method_option(PUZZLE, None, multiple=True)
@rules_options
@click.option("--width", type=click.IntRange(1), default=10, show_default=True,
              help="Beam width (beam, merged-beam; the incumbent of exact and ilp).")
@click.option("--tiebreak", type=click.Choice(("last", "first")), default="last",
              show_default=True, help="Greedy's ties (see 'solve cityclose --help').")
@output_option("JSONL file that receives one record per map and method as soon as it "
               "exists, and the disagreements.")
@force_option
@resume_option
@jobs_option
@time_limit_option(60.0, "per map and method")
@json_option
@quiet_option
def crosscheck_cityclose(inputs, method, width, tiebreak, output, force, resume, jobs,
                         time_limit, as_json, quiet, **kw) -> None:
    """Run the exact methods and the article's heuristics on the same maps, check every
    order by the rules, and report each heuristic's gap to the proved optimum.

    \b
    A disagreement is an illegal order (or a claimed total that is not the order's
    score), a method claiming a total below a proved optimum, an exact method
    claiming OPTIMAL above another method's legal order, a proved INFEASIBLE where
    another method found a legal order, or (generated maps ship their optimum) a
    proved optimum that differs from the shipped one. An exact method whose limit
    ran out is UNKNOWN with its bounds: an open question, not a disagreement.
    Default methods: exact, merged-beam, beam, greedy. Exit 1 if any disagreement.

    \b
    Examples:
      puzzleproof crosscheck cityclose instances/cityclose/
      puzzleproof crosscheck cityclose ../shared/instances/cityclose/europe30.json \\
          --method exact,beam,greedy --time-limit 120 -o runs.jsonl
      puzzleproof crosscheck cityclose maps/ --no-paths --resume -o runs.jsonl -j 2
    """
    from puzzleproof.cli.batch import records_of, run_and_report
    from puzzleproof.verify.crosscheck import Instance
    from puzzleproof.verify.cityclose_methods import crosscheck_kind

    r = _rule_args(kw)
    chosen = split_names(method, _methods(), "method") if method else _default_methods()
    g = gather(inputs, PUZZLE, strict=not mixed())
    g.say_skipped(quiet)
    for _, exc in g.errors:
        say(f"puzzleproof: error: {exc}")
    if not g.loaded:
        if g.errors:
            raise Exit(2)
        raise InputError("no city map found in " + " ".join(inputs))
    from puzzleproof.models.cityclose import Rules

    # one set of rules for the run; kept cities must be on every map
    rules = None
    for ld in g.loaded:
        rl = make_rules(ld.instance, r, ld.name)
        rules = rl if rules is None else rules
    rules = rules or Rules()
    if rules.final_size > min(ld.instance.n for ld in g.loaded):
        raise InputError(f"--final-size {rules.final_size} exceeds a map's cities")
    seen: dict[str, int] = {}
    instances = []
    maps = {}
    for ld in g.loaded:
        key = ld.name
        if key in seen:
            seen[key] += 1
            key = f"{ld.name}@{seen[ld.name]}"
        else:
            seen[key] = 0
        instances.append(Instance(key, ld.instance, ld.reference))
        maps[key] = ld
    kind = crosscheck_kind(chosen, rules, width=width, tiebreak=tiebreak)
    keep = _Keep(kind.extra)
    kind.extra = keep
    if as_json:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            code = run_and_report(PUZZLE, kind, instances, chosen, output, force, resume, jobs,
                                  time_limit, True, quiet)
        text = buf.getvalue().strip()
        obj = json.loads(text.splitlines()[-1]) if text else {"type": "crosscheck"}
    else:
        code = run_and_report(PUZZLE, kind, instances, chosen, output, force, resume, jobs,
                              time_limit, False, quiet)
    recs = dict(keep.recs)
    if output and Path(output).exists():  # instances done by an earlier run (--resume)
        missing = {i.id for i in instances} - set(recs)
        for rec in records_of(output):
            if rec.get("type") == "record" and rec["instance"] in missing \
                    and rec["method"] in chosen:
                recs.setdefault(rec["instance"], []).append(rec)
    rows = [_gap_row(i.id, maps[i.id], recs.get(i.id, []), chosen, rules) for i in instances]
    if as_json:
        obj["rules"] = rules.to_dict()
        obj["maps"] = rows
        emit(obj)
    else:
        _print_gaps(rows, chosen)
    raise Exit(max(code, 2 if g.errors else 0))


def _gap_row(key: str, ld, recs: list[dict], chosen: list[str], rules) -> dict:
    """One map's line of the gap table: the optimum (proved, or bounds), and each method's
    total and gap."""
    from puzzleproof.verify.cityclose_methods import _reference_rules_match

    by = {rec["method"]: rec for rec in recs}
    proved = next((rec for rec in recs if rec.get("exact") and rec["status"] == "OPTIMAL"
                   and rec["check_ok"] and isinstance(rec["answer"], dict)), None)
    infeasible = next((rec for rec in recs if rec.get("exact")
                       and rec["status"] == "INFEASIBLE"), None)
    legal = [rec["answer"]["total"] for rec in recs if isinstance(rec["answer"], dict)
             and rec["check_ok"]]
    lbs = [rec["certificate"].get("lower_bound") for rec in recs if rec.get("exact")
           and isinstance(rec.get("certificate"), dict)
           and isinstance(rec["certificate"].get("lower_bound"), int)]
    row: dict[str, Any] = {"map": key, "cities": ld.instance.n, "optimum": None,
                           "proved_by": None, "lower_bound": max(lbs) if lbs else None,
                           "best_known": min(legal) if legal else None,
                           "infeasible_by": infeasible["method"] if infeasible else None,
                           "reference": None, "methods": {}}
    if proved is not None:
        row["optimum"] = proved["answer"]["total"]
        row["proved_by"] = proved["method"]
        row["lower_bound"] = row["optimum"]
    ref = ld.reference
    if isinstance(ref, dict) and isinstance(ref.get("optimum"), int) \
            and _reference_rules_match(ref, rules):
        row["reference"] = ref["optimum"]
    base = row["optimum"] if row["optimum"] is not None else row["lower_bound"]
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


def _print_gaps(rows: list[dict], chosen: list[str]) -> None:
    table = Table(title="Totals and gaps to the proved optimum, per map", title_justify="left")
    for col, just in (("map", "left"), ("cities", "right"), ("optimum", "right"),
                      ("proved by", "left"), ("reference", "right")):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    for name in chosen:
        table.add_column(name, justify="right")
    for row in rows:
        if row["optimum"] is not None:
            opt = str(row["optimum"])
        elif row["infeasible_by"]:
            opt = "INFEASIBLE"
        elif row["lower_bound"] is not None:
            opt = f"{row['lower_bound']}..{row['best_known']}" if row["best_known"] else \
                f">= {row['lower_bound']}"
        else:
            opt = "UNKNOWN"
        cells = []
        for name in chosen:
            c = row["methods"][name]
            if c["total"] is None:
                cells.append("FAILED" if c.get("check_ok") is False else c["status"])
                continue
            gap = c["gap"]
            if gap is None:
                cells.append(str(c["total"]))
            else:
                cells.append(f"{c['total']} ({'<= ' if c['gap_is_bound'] else ''}"
                             f"+{100 * gap:.2f} %)")
        ref = "" if row["reference"] is None else str(row["reference"])
        table.add_row(short(row["map"], 36), str(row["cities"]), opt,
                      row["proved_by"] or ("" if row["optimum"] is None else "?"), ref, *cells)
    out.print(table)
    proved = [row for row in rows if row["optimum"] is not None]
    means = []
    for name in chosen:
        gaps = [row["methods"][name]["gap"] for row in proved
                if row["methods"][name]["gap"] is not None]
        if gaps and len(gaps) == len(proved):
            means.append(f"{name} +{100 * sum(gaps) / len(gaps):.2f} % (max "
                         f"+{100 * max(gaps):.2f} %)")
    if proved and means:
        out.print(f"mean gap over the {plural(len(proved), 'map')} with a proved optimum: "
                  + ", ".join(means), markup=False)
    if len(proved) < len(rows):
        out.print(f"{len(rows) - len(proved)} map(s) without a proved optimum: the range is "
                  "the proved lower bound .. the best legal order, and gaps are measured "
                  "from the lower bound (so they are at most that)", markup=False)


# -- generate -------------------------------------------------------------------------------

@generate_group.command(name="cityclose")
@click.option("--kind", "shape", type=click.Choice(("delaunay", "grid", "ring")),
              default="delaunay", show_default=True,
              help="delaunay: random points joined by a planar triangulation; grid: a grid "
                   "with holes; ring: a jittered ring with short chords.")
@click.option("--cities", type=click.IntRange(3, 40), default=14, show_default=True,
              help="Cities of each map (the optimum is proved by the plain DP up to 18, by "
                   "the compiled exact DP beyond: 30 takes about half a minute).")
@count_option(1, "maps to keep")
@seed_option
@click.option("--min-gap", type=FiniteRange(0), default=0.01, show_default=True,
              help="Keep a map only when greedy or beam (width 10) ends at least this "
                   "fraction above the proved optimum (0.01 = 1 %).")
@click.option("--max-attempts", type=click.IntRange(1), default=500, show_default=True,
              help="Random maps to draw at most.")
@time_limit_option(60.0, "to prove each drawn map's optimum (maps not proved are dropped)")
@rules_options
@click.option("-o", "--output", type=click.Path(), default=None,
              help="A .json file (one map) or a folder (one NAME.json a map; created when "
                   "missing). Without it one map goes to stdout. Never overwrites an existing "
                   "file unless --force.")
@force_option
@jobs_option
@quiet_option
def generate_cityclose(shape, cities, count, seed, min_gap, max_attempts, time_limit, output,
                       force, jobs, quiet, **kw) -> None:
    """Generate seeded city maps on which the article's greedy or beam search ends far
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
    from puzzleproof.generate.cityclose import generate, to_json
    from puzzleproof.models.cityclose import Rules

    r = _rule_args(kw)
    if r["keep"] or r["keep_marked"]:
        raise click.UsageError("generated maps name their cities c00, c01, ...: --keep is "
                               "for solving a given map")
    rules = Rules(r["final_size"] or 1, frozenset(), r["no_paths"], bool(r["final_not_path"]))
    if rules.final_size >= cities:
        raise click.UsageError(f"--final-size {rules.final_size} leaves nothing to close on "
                               f"{cities} cities")
    target = Path(output) if output else None
    as_file = target is not None and target.suffix.lower() == ".json"
    if target is None and count > 1:
        raise click.UsageError("several maps need -o FOLDER (one file a map)")
    if as_file and count > 1:
        raise click.UsageError("-o FILE.json holds one map: give -n 1, or a folder")
    if as_file:
        check_output(output, force)
    elif target is not None and target.exists() and not target.is_dir():
        raise InputError("is a file, not a folder: give FILE.json for one map, or a folder",
                         str(target))
    from puzzleproof.cli.legacy import executor_for, progress_bar

    try:
        with progress_bar(quiet) as bar:
            task = bar.add_task(f"kept ({shape} maps of {cities} cities)", total=count)
            kept = generate(shape, cities, count=count, seed=seed, min_gap=min_gap,
                            rules=rules, max_tries=max_attempts, time_limit=time_limit,
                            jobs=executor_for(jobs),
                            progress=lambda k, d: bar.update(
                                task, completed=k, description=f"kept of {d} draws"))
    except KeyboardInterrupt:
        say("interrupted; nothing written")
        raise Exit(130)
    written = 0
    for gm in kept:
        ev = gm.evidence
        text = to_json(gm)
        line = (f"{gm.map.name}: {gm.map.n} cities, {len(gm.map.links)} links; optimum "
                f"{ev['optimum']} ({ev['optimum_by']}), greedy {ev['greedy']} "
                f"(+{100 * ev['greedy_gap']:.2f} %), beam {ev['beam']} "
                f"(+{100 * ev['beam_gap']:.2f} %)")
        if target is None:
            sys.stdout.write(text)
        elif as_file:
            deliver(text, output, force)
        else:
            path = target / f"{gm.map.name}.json"
            if path.exists() and not force:
                raise InputError("exists; pass --force to overwrite it, or choose another "
                                 "folder or seed", str(path))
            write_atomic(path, text)
            line = f"{path}: " + line.split(": ", 1)[1]
        written += 1
        if not quiet:
            say(line)
    if len(kept) < count:
        say(f"puzzleproof: only {len(kept)} of {count} maps after {max_attempts} draws; "
            "lower --min-gap or raise --max-attempts")
        raise Exit(1)
    raise Exit(0)


# -- plot: a new verb -----------------------------------------------------------------------

from puzzleproof.cli.verbs import PuzzleVerb  # noqa: E402

plot_group = PuzzleVerb("plot", help="""Plot what methods do on an instance: 'plot [PUZZLE] INPUT -o FILE.png'.

City closing: the Wiener number after each closing for each method, and the
per-step advantage of each over the first, as the article draws it.""")


@plot_group.command(name="cityclose")
@click.argument("map_arg", metavar="MAP")
@click.option("--method", "--methods", "method", default="greedy,beam,exact",
              show_default=True, metavar="NAME[,NAME...]",
              help="Methods to draw, comma-separated, the first being the baseline of the "
                   "advantage lines: " + ", ".join(("exact", "ilp", "dp", "merged-beam",
                                                    "beam", "greedy")) + ".")
@rules_options
@click.option("--width", type=click.IntRange(1), default=10, show_default=True,
              help="Beam width (beam, merged-beam).")
@click.option("--tiebreak", type=click.Choice(("last", "first")), default="last",
              show_default=True, help="Greedy's ties.")
@time_limit_option(None, "per method (an UNKNOWN exact method is drawn with its best order)")
@output_option("The plot (.png or .svg); required.")
@force_option
@json_option
def plot_cityclose(map_arg, method, width, tiebreak, time_limit, output, force, as_json,
                   **kw) -> None:
    """Draw the Wiener number after each closing for several methods on one map, and
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
    from puzzleproof.formats.cityclose import plot_steps

    r = _rule_args(kw)
    names = split_names(method, _methods(), "method")
    if not names:
        raise click.UsageError("give at least one method")
    if not output:
        raise click.UsageError("give -o FILE.png (or .svg) for the plot")
    if Path(output).suffix.lower() not in (".png", ".svg"):
        raise click.UsageError("the plot is .png or .svg: name -o accordingly")
    check_output(output, force)
    ld, m = _one_map(map_arg, "plot")
    rules = make_rules(m, r, ld.name)
    runs: dict[str, list[int]] = {}
    rows = []
    for name in names:
        res = _solve_one(m, rules, name, time_limit, 0, width, tiebreak)
        rows.append((name, res))
        if res.answer is not None and res.check_ok:
            runs[name] = list(res.answer["wiener"])
        else:
            say(f"note: {name}: {_status_line(res, time_limit)}; not drawn")
    if not runs:
        say("puzzleproof: no method produced a legal order; nothing to plot")
        raise Exit(1)
    plot_steps(runs, output, title=ld.name)
    say(f"wrote {output}")
    base = next(iter(runs))
    if as_json:
        emit({"type": "plot", "schema_version": 1, "puzzle": PUZZLE, "map": ld.name,
              "rules": rules.to_dict(), "output": output,
              "methods": [{"method": n, "status": res.status.value,
                           "total": res.answer["total"] if n in runs else None,
                           "wiener": runs.get(n), "wall_time": round(res.wall_time, 4)}
                          for n, res in rows]})
        raise Exit(0)
    for name, res in rows:
        if name not in runs:
            continue
        total = res.answer["total"]
        adv = sum(runs[base]) - total
        out.print(f"{name:<12} {res.status.value:<8} total {total}"
                  + (f"  ({base} - {name}: {adv:+d})" if name != base else ""), markup=False)
    raise Exit(0)
