"""City closing's rules and how one method runs under them, shared by the plugin's verbs
(:mod:`puzzleproof.puzzles.cityclose`), its batch runs
(:mod:`puzzleproof.puzzles.cityclose_runs`) and the ``plot`` verb: the option rows of the rules
(defined once), the rules made from their values (or read from an order file), one method run
and re-scored, and what a shipped reference optimum says of the answer."""

from __future__ import annotations

import resource
from typing import Any

from puzzleproof.errors import InputError, UsageError
from puzzleproof.puzzles.base import Params, Task, resolve_methods
from puzzleproof.puzzles.options import Opt
from puzzleproof.result import Result, Status
from puzzleproof.verify.cityclose_methods import NAMES, method

__all__ = ["RULES", "WIDTH", "TIEBREAK", "KEY", "rules_given", "make_rules", "rules_from_doc",
           "solve_map", "reference_note", "chosen_methods", "one_method"]

# -- the rules, one set of option rows for every verb ----------------------------------------

def _path_length(text: str) -> int:
    """K of ``--no-paths [K]``: an integer >= 3. The value is optional, so a map written
    right after the option is taken for K: say how to write both."""
    text = str(text).strip()
    if not (text.isascii() and text.isdigit()):
        raise ValueError(f"expected K, a number of cities >= 3, found {text!r}; --no-paths "
                         "takes an optional K, so put it after the map (MAP --no-paths) or "
                         "write --no-paths=K")
    k = int(text[:30])
    if k < 3:
        raise ValueError(f"K is {k}; a path shape needs at least 3 cities")
    return k


FINAL_SIZE = Opt("final_size", ("--final-size",), "Stop when K cities are left (default 1).",
                 kind="int", range=(1, None), metavar="K")
KEEP = Opt("keep", ("--keep",), "Never close CITY (repeatable; names are case-insensitive).",
           multiple=True, metavar="CITY")
KEEP_MARKED = Opt("keep_marked", ("--keep-marked",), "Never close the cities the map file "
                  "marks (its 'keep', 'large_cities' and 'start' fields, as the Two Spies maps "
                  "have).", kind="flag", default=False)
NO_PATHS = Opt("no_paths", ("--no-paths",), "No map of the sequence may be a path (a line) of "
               "K or more cities; K is 4 when not given (write --no-paths=3 for 3-city lines).",
               kind="int", range=(3, None), metavar="[K]", parse=_path_length, flag_value=4)
FINAL_NOT_PATH = Opt("final_not_path", ("--final-not-path",), "The last map may not be a path "
                     "of 3 or more cities.", kind="flag", default=False)
#: ``--final-size``, ``--keep``, ``--keep-marked``, ``--no-paths [K]``, ``--final-not-path``:
#: the rules an order must keep (defaults: end on one city, nothing kept, no shape rule)
RULES = (FINAL_SIZE, KEEP, KEEP_MARKED, NO_PATHS, FINAL_NOT_PATH)
RULE_NAMES = tuple(o.name for o in RULES)

WIDTH = Opt("beam_width", ("--beam-width",), "Beam width (beam, merged-beam; the incumbent of exact and "
            "ilp).", kind="int", default=10, range=(1, None), show_default=True)
TIEBREAK = Opt("tiebreak", ("--tiebreak",), "Greedy's ties: 'last' lets the last-listed city "
               "win (the article's 13343 on europe30.json), 'first' the first-listed (13352).",
               kind="choice", choices=("last", "first"), default="last", show_default=True)
KEY = Opt("key", ("--key",), "Which order of a file that holds several (the blog's file: "
          "greedy, beam_width_10).", metavar="NAME")


def rules_given(p: Params) -> bool:
    return bool(p.final_size is not None or p.keep or p.keep_marked
                or p.no_paths is not None or p.final_not_path)


def make_rules(m: Any, p: Any, source: str | None = None) -> Any:
    """The :class:`~puzzleproof.models.cityclose.Rules` of the option values ``p`` for map
    ``m``; an unknown kept city or a final size beyond the map is one line naming the map
    (exit 2)."""
    from puzzleproof.models.cityclose import Rules

    given = p.get("keep") or ()
    keep: list[str] = []
    for name in (given,) if isinstance(given, str) else given:
        i = m.index(name)
        if i is None:
            raise InputError(f"--keep: no city {name!r} on the map", source or m.name)
        keep.append(m.names[i])
    if p.get("keep_marked"):
        keep += [m.names[i] for i in sorted(m.marked)]
    final_size = p.get("final_size") or 1
    if final_size > m.n:
        raise InputError(f"--final-size {final_size} exceeds the map's {m.n} cities",
                         source or m.name)
    try:
        return Rules(final_size, frozenset(keep), p.get("no_paths"),
                     bool(p.get("final_not_path")))
    except InputError as exc:
        raise exc.located(source or m.name) from None


def rules_from_doc(obj: Any, source: str) -> Any:
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


# -- solving one map -------------------------------------------------------------------------

def _peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def solve_map(m: Any, rules: Any, name: str, p: Params) -> Result:
    """Run the method ``name`` under ``p``'s deadline and re-score its answer by the rules
    (``res.check`` is the model's verdict, ``res.stats['peak_rss_mb']`` the process's peak
    memory)."""
    from puzzleproof.verify.cityclose_methods import check_order

    values = {"rules": rules, "width": p.beam_width or 10, "tiebreak": p.tiebreak or "last",
              "seed": p.seed or 0}
    res = method(name).bind(values)(m, deadline=p.deadline())
    if res.answer is not None:
        v = check_order(m, res.answer["order"], rules, claimed_total=res.answer.get("total"),
                        claimed_wiener=res.answer.get("wiener"), reprove=False)
        violations = list(v["violations"]) + [x for x in (res.check or {}).get("violations", [])
                                              if x not in v["violations"]]
        res.check = {"ok": not violations, "violations": violations, "total": v["total"],
                     "checked_by": "puzzleproof.models.cityclose.score_order"}
    res.stats.setdefault("peak_rss_mb", _peak_rss_mb())
    return res


def reference_note(task: Task, res: Result) -> tuple[str | None, bool]:
    """What a shipped reference optimum says of ``res``: (note, failure)."""
    from puzzleproof.verify.cityclose_methods import reference_rules_match

    ref, rules = task.reference, task.extra["rules"]
    if not (isinstance(ref, dict) and isinstance(ref.get("optimum"), int)
            and reference_rules_match(ref, rules)):
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


def chosen_methods(value: str | None, default: tuple[str, ...]) -> list[str]:
    """``"a,b"`` -> the methods named (each one of city closing's), or ``default``."""
    return resolve_methods(None, value, allowed=NAMES, default=default)


def one_method(p: Params, default: str = "exact") -> str:
    """The one method ``--method`` names (solve and render run one)."""
    names = chosen_methods(p.method or default, (default,))
    if len(names) != 1:
        raise UsageError("solve takes one method; crosscheck and plot compare several")
    return names[0]
