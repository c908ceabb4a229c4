"""City closing's commands: ``solve``, ``check``, ``render``, ``convert``, ``crosscheck`` and
``generate`` for ``cityclose`` on the shared verbs, and the new verb ``plot`` (the Wiener
number per step of several methods, as the article draws it).

Every order shown is re-scored by :mod:`puzzleproof.models.cityclose` (through
:func:`puzzleproof.verify.cityclose_methods.check_order`) before it is printed; an order file
written by ``solve cityclose -o`` carries its rules, status, bounds, proof data and a
fingerprint of its map, so ``check cityclose MAP FILE`` needs no options.
"""

from __future__ import annotations

import json
import resource
from pathlib import Path
from typing import Any, Callable

import click
from rich.table import Table

from puzzleproof.cli.legacy import (SECONDS,
                                    Exit, check_group, check_output, convert_group, deliver, emit,
                                    err, force_option, gather,
                                    json_option, jsonl_option,
                                    method_option, mixed, out,
                                    output_option, plural,
                                    progress_bar, quiet_option,
                                    read_arg, render_group,
                                    say, seed_option, short,
                                    solve_group, split_names,
                                    time_limit_option)
from puzzleproof.errors import InputError
from puzzleproof.formats import read_source
from puzzleproof.result import Result, Status

PUZZLE = "cityclose"


def _default_methods() -> list[str]:
    from puzzleproof import puzzles as registry

    return list(registry.get(PUZZLE).default_methods)


def _methods() -> tuple[str, ...]:
    from puzzleproof.verify.cityclose_methods import METHODS

    return tuple(METHODS)


# -- the rules, one set of options for every command ----------------------------------------

class _PathLength(click.ParamType):
    """K of ``--no-paths [K]``: an integer >= 3. The value is optional, so a map written
    right after the option is taken for K: say how to write both."""

    name = "K"

    def convert(self, value: Any, param: Any, ctx: Any) -> int:
        if isinstance(value, int):
            return value
        text = str(value).strip()
        if not (text.isascii() and text.isdigit()):
            self.fail(f"expected K, a number of cities >= 3, found {text!r}; --no-paths takes "
                      "an optional K, so put it after the map (MAP --no-paths) or write "
                      "--no-paths=K", param, ctx)
        k = int(text[:30])
        if k < 3:
            self.fail(f"K is {k}; a path shape needs at least 3 cities", param, ctx)
        return k


def rules_options(f: Callable) -> Callable:
    """``--final-size``, ``--keep``, ``--keep-marked``, ``--no-paths [K]``,
    ``--final-not-path``: the rules an order must keep (defaults: end on one city, nothing
    kept, no shape rule)."""
    decorators = [
        click.option("--final-size", type=click.IntRange(1), default=None, metavar="K",
                     help="Stop when K cities are left (default 1)."),
        click.option("--keep", multiple=True, metavar="CITY",
                     help="Never close CITY (repeatable; names are case-insensitive)."),
        click.option("--keep-marked", is_flag=True,
                     help="Never close the cities the map file marks (its 'keep', "
                          "'large_cities' and 'start' fields, as the Two Spies maps have)."),
        click.option("--no-paths", type=_PathLength(), is_flag=False, flag_value=4,
                     default=None, metavar="[K]",
                     help="No map of the sequence may be a path (a line) of K or more cities; "
                          "K is 4 when not given (write --no-paths=3 for 3-city lines)."),
        click.option("--final-not-path", is_flag=True,
                     help="The last map may not be a path of 3 or more cities."),
    ]
    for d in reversed(decorators):
        f = d(f)
    return f


def _rule_args(kw: dict[str, Any]) -> dict[str, Any]:
    return {k: kw.pop(k) for k in ("final_size", "keep", "keep_marked", "no_paths",
                                   "final_not_path")}


def _rules_given(r: dict[str, Any]) -> bool:
    return bool(r["final_size"] is not None or r["keep"] or r["keep_marked"]
                or r["no_paths"] is not None or r["final_not_path"])


def make_rules(m, r: dict[str, Any], source: str | None = None):
    """The :class:`Rules` of the options for map ``m``; an unknown kept city or a final size
    beyond the map is one line naming the map (exit 2)."""
    from puzzleproof.models.cityclose import Rules

    keep: list[str] = []
    for name in r.get("keep") or ():
        i = m.index(name)
        if i is None:
            raise InputError(f"--keep: no city {name!r} on the map", source or m.name)
        keep.append(m.names[i])
    if r.get("keep_marked"):
        keep += [m.names[i] for i in sorted(m.marked)]
    final_size = r.get("final_size") or 1
    if final_size > m.n:
        raise InputError(f"--final-size {final_size} exceeds the map's {m.n} cities",
                         source or m.name)
    try:
        return Rules(final_size, frozenset(keep), r.get("no_paths"),
                     bool(r.get("final_not_path")))
    except InputError as exc:
        raise exc.located(source or m.name) from None


def rules_text(rules) -> str:
    parts = [f"final size {rules.final_size}"]
    if rules.keep:
        parts.append("keep " + ", ".join(sorted(rules.keep)))
    if rules.no_paths is not None:
        parts.append(f"no paths of {rules.no_paths}+ cities")
    if rules.final_not_path:
        parts.append("the last map no path")
    return "; ".join(parts)


def _rules_from_doc(obj: Any, source: str):
    """The rules an order file records (``solve cityclose -o`` writes them)."""
    from puzzleproof.models.cityclose import Rules

    if obj is None:
        return Rules()
    if not isinstance(obj, dict):
        raise InputError("'rules' must be an object", source)
    unknown = set(obj) - {"final_size", "keep", "no_paths", "final_not_path"}
    if unknown:
        raise InputError(f"rules: unknown field {sorted(unknown)[0]!r}", source)
    keep = obj.get("keep") or []
    if not isinstance(keep, list) or not all(isinstance(k, str) for k in keep):
        raise InputError("rules.keep: expected a list of city names", source)
    try:
        return Rules(obj.get("final_size", 1), frozenset(keep), obj.get("no_paths"),
                     bool(obj.get("final_not_path", False)))
    except InputError as exc:
        raise exc.located(source) from None


# -- shared helpers ---------------------------------------------------------------------------

def _one_map(arg: str, verb: str):
    """The one map of ``arg`` (a file, ``-``): ``(Loaded, CityMap)``."""
    c = read_arg(arg, PUZZLE)
    if not c.is_instance:
        raise InputError(f"is {c.what}, not a city map", arg)
    if len(c.loaded) != 1:
        raise InputError(f"holds {len(c.loaded)} maps; {verb} takes exactly one", arg)
    return c.loaded[0], c.loaded[0].instance


def _size(m) -> str:
    return f"{plural(m.n, 'city', 'cities')}, {plural(len(m.links), 'link')}"


def _peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _solve_one(m, rules, method: str, time_limit, seed, width, tiebreak) -> Result:
    """Run ``method`` and re-score its answer by the rules (``res.check`` is the model's
    verdict, ``res.stats['peak_rss_mb']`` the process's peak memory)."""
    from puzzleproof.verify.cityclose_methods import check_order, run

    res = run(method, m, rules, time_limit=time_limit, seed=seed, width=width,
              tiebreak=tiebreak)
    if res.answer is not None:
        v = check_order(m, res.answer["order"], rules, claimed_total=res.answer.get("total"),
                        claimed_wiener=res.answer.get("wiener"), reprove=False)
        violations = list(v["violations"]) + [x for x in (res.check or {}).get("violations", [])
                                              if x not in v["violations"]]
        res.check = {"ok": not violations, "violations": violations, "total": v["total"],
                     "checked_by": "puzzleproof.models.cityclose.score_order"}
    res.stats.setdefault("peak_rss_mb", _peak_rss_mb())
    return res


def _reference_note(ref: Any, rules, res: Result) -> tuple[str | None, bool]:
    """What a shipped reference optimum says of ``res``: (note, failure)."""
    from puzzleproof.verify.cityclose_methods import _reference_rules_match

    if not (isinstance(ref, dict) and isinstance(ref.get("optimum"), int)
            and _reference_rules_match(ref, rules)):
        return None, False
    opt = ref["optimum"]
    if res.answer is None or not res.check_ok:
        return f"reference optimum {opt}", False
    total = res.answer["total"]
    if res.status is Status.OPTIMAL:
        if total == opt:
            return f"= reference optimum {opt}", False
        return f"DIFFERS from the reference optimum {opt}", True
    if total < opt:
        return f"BELOW the reference optimum {opt}", True
    return f"+{100 * (total - opt) / opt:.2f} % over the reference optimum {opt}", False


def _bounds(res: Result) -> tuple[Any, Any]:
    cert = res.certificate if isinstance(res.certificate, dict) else {}
    return cert.get("lower_bound"), cert.get("upper_bound")


def _status_line(res: Result, time_limit) -> str:
    """One line: the status and what it rests on."""
    a = res.answer
    lb, ub = _bounds(res)
    reason = (res.stats or {}).get("reason")
    if res.status is Status.OPTIMAL:
        return f"OPTIMAL, total {a['total']} (proved by {res.solver}: lower bound {lb})"
    if res.status is Status.SOLVED:
        return f"SOLVED, total {a['total']} ({res.solver}, a heuristic: no proof of optimality)"
    if res.status is Status.INFEASIBLE:
        cert = res.certificate if isinstance(res.certificate, dict) else {}
        why = cert.get("reason") or reason
        rules = (res.params or {}).get("rules") or {}
        kept, final = len(rules.get("keep") or ()), rules.get("final_size", 1)
        if kept > final:  # the commonest cause, and one the user can fix at once
            why = (f"{kept} cities are kept but the map closes down to {final}: "
                   f"add --final-size {kept} or more")
        return (f"INFEASIBLE: proved by {res.solver}, no order keeps the rules"
                + (f" ({why})" if why and why != "no order keeps the rules" else ""))
    # UNKNOWN
    limit = (f"the time limit of {time_limit:g} s ran out" if time_limit is not None
             and reason and "time" in str(reason) else
             "a limit ran out" if reason else "the method gave up")
    if reason:
        limit += f" ({reason})"
    stuck = (res.stats or {}).get("stuck_at_step")
    if a is None and stuck is not None:
        return (f"UNKNOWN: {res.solver} is stuck at step {stuck}: no closing keeps the rules "
                "(no order found; not a proof that none exists)")
    if a is None:
        return f"UNKNOWN: no order found; {limit}"
    gap = f" (gap {100 * (ub - lb) / ub:.2f} %)" if isinstance(lb, int) and ub else ""
    return (f"UNKNOWN: best order {a['total']}, proved lower bound "
            f"{lb if lb is not None else 'none'}{gap}; {limit}")


def _effort(res: Result) -> str:
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


def _order_doc(m, res: Result, rules, method: str) -> dict:
    from puzzleproof.formats.cityclose import map_digest, order_document

    lb, ub = _bounds(res)
    cert = res.certificate if isinstance(res.certificate, dict) else {}
    bounds = {k: cert[k] for k in ("lower_bound", "upper_bound", "gap") if k in cert}
    return order_document(m, res.answer, status=res.status.value, method=res.solver,
                          bounds=bounds, rules=rules.to_dict(),
                          extra={"method_name": method, "map_digest": map_digest(m),
                                 "proof": cert or None, "wall_time": round(res.wall_time, 4),
                                 "checked": res.check_ok})


def _record(ld, m, rules, method: str, res: Result, cert: bool = True) -> dict:
    d = res.to_dict()
    if not cert:
        d.pop("certificate", None)
    note, failed = _reference_note(ld.reference, rules, res)
    d.update({"name": ld.name, "method_name": method, "cities": m.n, "links": len(m.links),
              "rules": rules.to_dict(), "reference": note,
              "failed": failed or not res.check_ok,
              "peak_rss_mb": (res.stats or {}).get("peak_rss_mb")})
    return d


# -- solve ----------------------------------------------------------------------------------

@solve_group.command(name="cityclose")
@click.argument("maps", nargs=-1, required=True)
@method_option(PUZZLE, "exact")
@rules_options
@click.option("--width", type=click.IntRange(1), default=10, show_default=True,
              help="Beam width (beam, merged-beam; the incumbent of exact and ilp).")
@click.option("--tiebreak", type=click.Choice(("last", "first")), default="last",
              show_default=True,
              help="Greedy's ties: 'last' lets the last-listed city win (the article's 13343 "
                   "on europe30.json), 'first' the first-listed (13352).")
@time_limit_option(None, "per map (exact, ilp, dp, beams)")
@seed_option
@json_option
@jsonl_option
@output_option("One map: its order file (JSON: order, Wiener numbers, total, status, bounds, "
               "rules, proof data; 'check cityclose MAP FILE' reads it back). Several maps: "
               "one JSON record a line per map.")
@force_option
@quiet_option
def solve_cityclose(maps, method, width, tiebreak, time_limit, seed, as_json, as_jsonl, output,
                    force, quiet, **kw) -> None:
    """Find the order of closings with the least sum of Wiener numbers (exactly by
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
      puzzleproof solve cityclose ../shared/instances/cityclose/europe30.json
      puzzleproof solve cityclose europe30.json --method greedy
      puzzleproof solve cityclose europe30.json --method beam --width 10 --json
      puzzleproof solve cityclose roundabout.json --keep-marked --final-size 5 \\
          --no-paths -o order.json
      puzzleproof solve cityclose instances/cityclose/ --time-limit 30
      puzzleproof check cityclose europe30.json order.json    # re-score the order file
    """
    r = _rule_args(kw)
    method = method or "exact"
    split_names(method, _methods(), "method")
    if "," in method:
        raise click.UsageError("solve takes one method; crosscheck and plot compare several")
    if as_json and as_jsonl:
        raise click.UsageError("give --json or --jsonl, not both")
    check_output(output, force)
    g = gather(maps, PUZZLE, strict=not mixed())
    g.say_skipped(quiet)
    if g.errors and not g.loaded and len(g.errors) == 1:
        raise g.errors[0][1]
    for _, exc in g.errors:
        say(f"puzzleproof: error: {exc}")
    jobs = []
    for ld in g.loaded:
        jobs.append((ld, ld.instance, make_rules(ld.instance, r, ld.name)))
    if not jobs:
        raise Exit(2)
    rows: list[tuple[Any, Any, Any, Result]] = []
    interrupted = False
    single = len(jobs) == 1 and not g.errors and not as_jsonl
    try:
        with progress_bar(quiet or as_json or as_jsonl or single) as progress:
            task = progress.add_task(f"solving ({method})", total=len(jobs))
            for ld, m, rules in jobs:
                progress.update(task, description=f"solving ({method}) {short(ld.name, 30)}")
                if single and not quiet and not as_json and err.is_terminal:
                    with err.status(f"solving {ld.name} ({method}, {m.n} cities)"):
                        res = _solve_one(m, rules, method, time_limit, seed, width, tiebreak)
                else:
                    res = _solve_one(m, rules, method, time_limit, seed, width, tiebreak)
                rows.append((ld, m, rules, res))
                progress.advance(task)
                if as_jsonl:
                    emit(_record(ld, m, rules, method, res, cert=False))
    except KeyboardInterrupt:
        interrupted = True
    if single and rows:
        ld, m, rules, res = rows[0]
        code = _report_one(ld, m, rules, method, res, time_limit, as_json, output, force)
        raise Exit(code)
    if as_json:
        emit([_record(ld, m, rules, method, res) for ld, m, rules, res in rows]
             + [{"type": "error", "input": a, "message": str(e)} for a, e in g.errors])
    elif not as_jsonl:
        _print_table(rows, method, time_limit)
    if output and rows:
        deliver("".join(json.dumps(_record(ld, m, rules, method, res)) + "\n"
                        for ld, m, rules, res in rows), output, force,
                f" ({plural(len(rows), 'record')})")
    if interrupted:
        say(f"interrupted after {len(rows)} of {plural(len(jobs), 'map')}; the rows above are "
            "complete for those")
        raise Exit(130)
    if g.errors:
        raise Exit(2)
    failed = any(_record(ld, m, rules, method, res)["failed"] or res.status is Status.INFEASIBLE
                 for ld, m, rules, res in rows)
    raise Exit(1 if failed else 0)


def _report_one(ld, m, rules, method: str, res: Result, time_limit, as_json: bool,
                output: str | None, force: bool) -> int:
    note, ref_failed = _reference_note(ld.reference, rules, res)
    if output:
        if res.answer is not None:
            deliver(json.dumps(_order_doc(m, res, rules, method), indent=1) + "\n", output,
                    force, f" (order, {res.status.value})")
        else:
            say(f"nothing written to {output}: the answer is {res.status.value}, with no order")
    if as_json:
        emit(_record(ld, m, rules, method, res))
    else:
        _print_one(ld, m, rules, res, time_limit, note)
    if not res.check_ok:
        say(f"puzzleproof: the order of {res.solver} FAILED the rule check:")
        for v in (res.check or {}).get("violations", []):
            say(f"  {v['kind']}: {v['message']}")
        return 1
    if ref_failed:
        say(f"puzzleproof: {ld.name}: {note}")
        return 1
    return 1 if res.status is Status.INFEASIBLE else 0


def _print_one(ld, m, rules, res: Result, time_limit, note: str | None) -> None:
    who = f"{res.solver} {res.solver_version}".strip()
    effort = _effort(res)
    out.print(f"{ld.name}: {_status_line(res, time_limit)}", markup=False)
    out.print(f"  {_size(m)}; rules: {rules_text(rules)}; {who}"
              + (f", {effort}" if effort else "") + f", {res.wall_time:.3f} s", markup=False)
    a = res.answer
    if a is None:
        return
    chk = "legal, re-scored by the rules" if res.check_ok else "BREAKS THE RULES"
    out.print(f"  check: {chk}" + (f"; {note}" if note else ""), markup=False)
    table = Table(show_header=True, box=None, pad_edge=False)
    for col, just in (("step", "right"), ("closed", "left"), ("open", "right"),
                      ("Wiener", "right")):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    wseq = a["wiener"]
    table.add_row("0", "-", str(m.n), str(wseq[0]))
    for k, (city, w) in enumerate(zip(a["order"], wseq[1:]), start=1):
        table.add_row(str(k), city, str(m.n - k), str(w))
    out.print(table)
    out.print(f"left: {', '.join(a.get('left', []))}", markup=False)
    out.print(f"total {a['total']} (the sum of {plural(len(wseq), 'Wiener number')}; average "
              f"{a['total'] / len(wseq):.2f})", markup=False)


def _print_table(rows, method: str, time_limit) -> None:
    table = Table(title=f"City closing, method '{method}'", title_justify="left")
    for col, just in (("map", "left"), ("cities", "right"), ("status", "left"),
                      ("total", "right"), ("lower bound", "right"), ("check", "left"),
                      ("reference", "left"), ("effort", "right"), ("time (s)", "right")):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    counts: dict[str, int] = {}
    for ld, m, rules, res in rows:
        lb, _ = _bounds(res)
        note, _ = _reference_note(ld.reference, rules, res)
        counts[res.status.value] = counts.get(res.status.value, 0) + 1
        table.add_row(short(ld.name, 40), str(m.n), res.status.value,
                      "" if res.answer is None else str(res.answer["total"]),
                      "" if lb is None else str(lb),
                      "-" if res.answer is None else ("ok" if res.check_ok else "FAILED"),
                      note or "", _effort(res), f"{res.wall_time:.3f}")
    out.print(table)
    times = [res.wall_time for *_, res in rows]
    out.print(", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
              + (f"; time total {sum(times):.2f} s" if times else ""), markup=False)
    for ld, m, rules, res in rows:
        if res.status is Status.UNKNOWN:
            out.print(f"  {ld.name}: {_status_line(res, time_limit)}", markup=False)


# -- check ----------------------------------------------------------------------------------

@check_group.command(name="cityclose")
@click.argument("map_arg", metavar="MAP")
@click.argument("order_arg", metavar="ORDER")
@click.option("--key", default=None, metavar="NAME",
              help="Which order of a file that holds several (the blog's file: greedy, "
                   "beam_width_10).")
@click.option("--optimum", type=click.IntRange(0), default=None, metavar="N",
              help="The best known or proved total: say how far the order is from it.")
@rules_options
@click.option("--time-limit", type=SECONDS, default=60.0,
              show_default=True,
              help="Seconds for the independent DP that re-proves a claimed optimum.")
@json_option
def check_cityclose(map_arg, order_arg, key, optimum, time_limit, as_json, **kw) -> None:
    """Re-score an ORDER of closings on MAP with the rules alone, and list every rule it
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
    from puzzleproof.formats.cityclose import map_digest, read_order
    from puzzleproof.verify.cityclose_methods import check_order

    r = _rule_args(kw)
    ld, m = _one_map(map_arg, "check")
    text, source, _ = read_source(order_arg)
    oi = read_order(text, source, key)
    doc: dict[str, Any] = {}
    if text.lstrip().startswith("{"):
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError):
            obj = None
        if isinstance(obj, dict) and obj.get("type") == "cityclose-order":
            doc = obj
    if doc:
        if isinstance(doc.get("map_digest"), str) and doc["map_digest"] != map_digest(m):
            raise InputError(f"the order was written for another map ({doc.get('map')}, "
                             f"{doc.get('cities')} cities)", source)
    if _rules_given(r):
        rules = make_rules(m, r, ld.name)
        if doc.get("rules") and _rules_from_doc(doc["rules"], source).to_dict() \
                != rules.to_dict():
            say(f"note: the options' rules replace the rules recorded in {source}")
    else:
        rules = _rules_from_doc(doc.get("rules"), source) if doc else make_rules(m, r)
        for name in rules.keep:
            if m.index(name) is None:
                raise InputError(f"rules.keep: no city {name!r} on the map", source)
    claimed_status = doc.get("status") if isinstance(doc.get("status"), str) else None
    claimed_method = doc.get("method") if isinstance(doc.get("method"), str) else None
    v = check_order(m, oi.order, rules, optimum, claimed_total=oi.claimed_total,
                    claimed_wiener=oi.claimed_wiener, claimed_status=claimed_status,
                    claimed_method=claimed_method, time_limit=time_limit)
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
    if as_json:
        emit({"type": "check", "schema_version": 1, "puzzle": PUZZLE, "map": ld.name,
              "order_file": source, "key": oi.key, "rules": rules.to_dict(),
              "claimed_status": claimed_status, "claimed_method": claimed_method, **v})
        raise Exit(0 if v["ok"] else 1)
    which = f"{source}" + (f" [{oi.key}]" if oi.key else "")
    closings = len(v["order"])
    if v["ok"]:
        out.print(f"{which}: a legal order on {ld.name}: {plural(closings, 'closing')}, "
                  f"left {', '.join(v['left'])}; total {v['total']}", markup=False)
    else:
        out.print(f"{which}: does NOT hold on {ld.name}: "
                  f"{plural(len(v['violations']), 'problem')}", markup=False)
        for x in v["violations"]:
            out.print(f"  {x['kind']}: {x['message']}", markup=False)
    out.print(f"  rules: {rules_text(rules)}" + (" (from the order file)" if doc and not
                                                  _rules_given(r) else ""), markup=False)
    if v["total"] is not None:
        out.print("  Wiener numbers: " + " ".join(str(w) for w in v["wiener"]), markup=False)
    if claimed_status:
        out.print(f"  the file claims {claimed_status}"
                  + (f" by {claimed_method}" if claimed_method else ""), markup=False)
    import re

    message = re.sub(r"^\d+ broken rule\(s\)(; )?", "", v["message"])
    if message:
        out.print(f"  {message}", markup=False)
    raise Exit(0 if v["ok"] else 1)


# -- render ---------------------------------------------------------------------------------

@render_group.command(name="cityclose")
@click.argument("map_arg", metavar="MAP")
@click.option("--order", "order_arg", default=None, metavar="ORDER",
              help="Label each city with the step that closes it (an order file, JSON or one "
                   "name a line); it is re-scored first, and a wrong one is drawn with the "
                   "title saying so.")
@click.option("--key", default=None, metavar="NAME", help="Which order of a file of several.")
@click.option("--solve", "do_solve", is_flag=True,
              help="Solve the map (with --method) and draw the order found.")
@method_option(PUZZLE, "exact")
@rules_options
@time_limit_option(None, "for --solve")
@click.option("--format", "kind", type=click.Choice(("svg", "png", "text")), default=None,
              help="Picture kind (default: from -o's extension, else a text listing).")
@output_option("Write the picture to a file (.svg or .png).")
@force_option
def render_cityclose(map_arg, order_arg, key, do_solve, method, time_limit, kind, output,
                     force, **kw) -> None:
    """Draw a city map (cities placed by their coordinates, or by a seeded layout), alone
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
    from puzzleproof.formats.cityclose import read_order, render_png, render_svg
    from puzzleproof.models.cityclose import score_order

    r = _rule_args(kw)
    ld, m = _one_map(map_arg, "render")
    check_output(output, force)
    if order_arg and do_solve:
        raise click.UsageError("give --order or --solve, not both")
    kind = kind or ({".svg": "svg", ".png": "png"}.get(Path(output).suffix.lower(), None)
                    if output else None) or "text"
    if kind == "png" and not output:
        raise click.UsageError("PNG is binary: give -o FILE.png (or --format svg for stdout)")
    rules = make_rules(m, r, ld.name)
    order = None
    title = ld.name
    broken = False
    if order_arg:
        text, source, _ = read_source(order_arg)
        oi = read_order(text, source, key)
        chk = score_order(m, oi.order, rules)
        unknown = [v for v in chk.violations if v["kind"] == "unknown-city"]
        if unknown:  # an order for another map: nothing to draw on this one
            raise InputError(f"not an order for {ld.name} ({unknown[0]['message']}"
                             + (f", and {len(unknown) - 1} more unknown" if len(unknown) > 1
                                else "") + ")", source)
        order = chk.order
        if chk.ok:
            title = f"{ld.name}: total {chk.total}"
        else:
            title = f"{ld.name}: NOT a legal order"
            say(f"{source} breaks the rules ({plural(len(chk.violations), 'problem')}, "
                f"first: {chk.violations[0]['message']}); drawn with the title saying so "
                "(exit 1)")
            broken = True
    elif do_solve:
        method = method or "exact"
        split_names(method, _methods(), "method")
        res = _solve_one(m, rules, method, time_limit, 0, 10, "last")
        if res.answer is None:
            say(f"{ld.name}: {_status_line(res, time_limit)}; nothing to draw")
            raise Exit(1)
        if not res.check_ok:
            say(f"puzzleproof: the order of {res.solver} failed the rule check: {res.check}")
            raise Exit(1)
        order = res.answer["order"]
        title = f"{ld.name}: {res.status.value} {res.answer['total']} ({res.solver})"
        say(f"{ld.name}: {_status_line(res, time_limit)}")
    if kind == "svg":
        deliver(render_svg(m, order, title=title), output, force)
    elif kind == "png":
        deliver(render_png(m, order, title=title), output, force)
    else:
        deliver(_text_listing(m, order, title), output, force)
    if broken:
        raise Exit(1)


def _text_listing(m, order, title: str) -> str:
    from puzzleproof.formats.cityclose_draw import closing_steps
    from puzzleproof.models.cityclose import wiener

    step = closing_steps(m, order)
    lines = [f"{title}: {_size(m)}, Wiener number {wiener(m)}"
             + (" (coordinates given)" if m.coords else "")]
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


# -- convert --------------------------------------------------------------------------------

@convert_group.command(name="cityclose")
@click.argument("map_arg", metavar="MAP")
@click.option("--format", "--to", "to_fmt", type=click.Choice(("json", "edges", "graphml",
                                                               "gml")),
              required=True, help="Format to write: json (keeps coordinates and marked "
                                  "cities), edges (names and links only), graphml or gml "
                                  "(through networkx, with lat/lng).")
@output_option("Write to a file instead of stdout.")
@force_option
def convert_cityclose(map_arg, to_fmt, output, force) -> None:
    """Convert a city map between formats; what is written is read back and compared
    (same cities in the same order, same links) before it is delivered.

    \b
    Examples:
      puzzleproof convert cityclose europe30.json --format graphml -o europe30.graphml
      puzzleproof convert cityclose map.gml --format edges
    """
    from puzzleproof.formats.cityclose import read_map, write_map

    ld, m = _one_map(map_arg, "convert")
    check_output(output, force)
    text = write_map(m, to_fmt)
    back = read_map(text, f"<{to_fmt}>", to_fmt)
    if back.names != m.names or set(back.links) != set(m.links):
        raise RuntimeError(f"the {to_fmt} text does not read back to the same map")
    deliver(text, output, force, f" ({_size(m)}, {to_fmt})")


# the batch commands live in their own module; importing it registers them
from puzzleproof.cli import cityclose_batch  # noqa: E402

GROUPS = (cityclose_batch.plot_group,)
