"""City closing for the command and the cross-check harness: the methods by name, the check of
every answer, the check of an order someone else wrote, and the cross-check plug-in.

:data:`METHODS` lists them once, as :class:`~puzzleproof.method.Method` objects (the plugin
and the harness share them): ``method.bind({"rules": ..., "width": ...})(map, deadline=...)``
runs one and fills ``Result.check`` with :func:`puzzleproof.models.cityclose.score_order`'s
verdict on the answer (the methods' own bookkeeping is never trusted).

Cross-check disagreements (beyond the harness's generic ones):

- ``below-optimum``: a method claims a total below a proved optimum and its order does not
  score that (the claim is false);
- ``optimal-above-order``: an exact method claims OPTIMAL with a total above another
  method's checked order (the proof is wrong);
- ``bound-above-order``: an exact method's proved lower bound (OPTIMAL or UNKNOWN) is above
  a checked order's total (the bound is wrong);
- ``reference-optimum-mismatch`` / ``below-reference``: an instance shipped with a reference
  optimum (a generated map's evidence) proved under the same rules, and an exact method proves
  another optimum, or a legal order scores below it.

An UNKNOWN whose limit ran out is no disagreement: an exact method keeps its bounds, and a
heuristic that ran out of time beside another method's order failed to find nothing the
rules ask for (an order always exists when any method found one; what is asked is a good
one). The kind's ``open_unknown`` says so, and the harness does not call it a missed
solution; a heuristic stuck at a dead end (``stuck_at_step``) still is one.

An instance's optimum is proved by an exact method's OPTIMAL, or by an exact method's lower
bound that meets any method's checked order (:func:`proved_optimum`): the cross-check's
table then shows the optimum, not an open gap, beside an exact method stopped by its limit.
Each method's gap to it comes from :func:`gaps`.

Example:
    >>> from puzzleproof.models.cityclose import CityMap, Rules
    >>> star = CityMap(("hub", "a", "b", "c"), ((0, 1), (0, 2), (0, 3)))
    >>> r = run("dp", star, Rules())
    >>> r.status.value, r.answer["total"], r.check["ok"]
    ('OPTIMAL', 14, True)
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Sequence

from puzzleproof.clock import Deadline
from puzzleproof.encoders.cityclose_dp import dp
from puzzleproof.method import Method
from puzzleproof.models.cityclose import CityMap, Rules, score_order
from puzzleproof.processes import note
from puzzleproof.result import Result, Status
from puzzleproof.verify.crosscheck import Instance, PuzzleKind

__all__ = ["METHODS", "NAMES", "EXACT_METHODS", "OPTIONS", "method", "run", "run_checked",
           "check_answer", "check_order", "OrderVerdict", "crosscheck_kind",
           "cityclose_disagreements", "gaps", "open_unknown", "reference_rules_match",
           "DP_REVERIFY_MAX", "warm_exact", "warm_all", "merged_beam_incumbent", "proved_optimum"]

#: ``check_order`` re-proves optimality with the independent DP up to this many cities.
DP_REVERIFY_MAX = 20


_WARM: set[str] = set()
#: engines whose compiled loops were found in numba's cache
_CACHED: set[str] = set()


def _heuristics() -> Any:
    """The heuristics' module, imported when a method first runs (it loads numpy: the
    command's start-up, every verb's, should not pay for it)."""
    from puzzleproof.players import cityclose_article

    return cityclose_article


def _warm_map() -> CityMap:
    """A map of 9 cities on which the exact DP runs every compiled step (its greedy order is
    not optimal, so it makes layers, prunes and traces the optimum back). Made when needed:
    a map checks the size limits, which read the user's PUZZLEPROOF_MAX_SIZE, and importing
    the plugin must not (a bad value is said by the command, once)."""
    return CityMap(tuple(f"c{i}" for i in range(9)),
                   ((0, 3), (0, 4), (0, 8), (1, 5), (2, 7), (2, 8), (3, 4), (3, 6), (4, 7),
                    (4, 8), (5, 6), (5, 7), (7, 8)))


def warm_exact(engine: str = "word", *, told: bool = True) -> float:
    """Load (or compile, on a fresh checkout) the exact DP's compiled loops once per process,
    on a small map, and return the seconds it took: ``engine="word"`` for maps of up to 63
    cities, ``"wide"`` for larger ones (the wide-set kernels and their minima, loaded only
    when such a map comes). Loading counts against a method's time limit, as everything it
    does does (the first run on a fresh install also compiles, which no clock can cut
    short: :func:`warm_all` does it at once). ``told``: say on stderr that it compiles when
    the cache is cold (not when ``prepare`` is the caller)."""
    if engine in _WARM:
        return 0.0
    import time

    from puzzleproof.encoders import cityclose_exact

    if told and _cache_cold(engine):  # prepare itself is not told to run prepare
        note("compiling city closing's loops, once (about 20 s; 'puzzleproof prepare' does "
             "it right after installing)")
    t0 = time.monotonic()
    warm = _warm_map()
    cityclose_exact.solve(warm, Rules(), engine=engine)
    _heuristics().greedy(warm)  # the heuristics' compiled Wiener numbers and bounds
    _WARM.add(engine)
    return time.monotonic() - t0


def _cache_cold(engine: str) -> bool:
    """Whether the compiled loops ``engine`` needs are missing from numba's cache (a fresh
    install not yet prepared): judged by the index files of the modules' compiled
    functions; False when that cannot be told."""
    import importlib
    import os

    if engine in _CACHED:
        return False
    # the modules whose loops are entered from Python (the one-word primitives of
    # cityclose_bits are compiled into their callers, with no cache entry of their own)
    names = ["cityclose_graph", "cityclose_rows", "cityclose_bounds", "cityclose_layers",
             "cityclose_minima", "cityclose_lagrange"]
    try:
        for name in names:
            mod = importlib.import_module(f"puzzleproof.encoders.{name}")
            for obj in vars(mod).values():
                if getattr(obj, "__module__", None) != mod.__name__:
                    continue  # imported: judged where it is defined, when that is listed
                cache = getattr(obj, "_cache", None)
                path = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
                if path and not os.path.exists(path):
                    return True
    except Exception:  # noqa: BLE001 - numba's internals moved: no note, nothing else
        return False
    _CACHED.add(engine)  # a cache found full stays full: asked once per process
    return False


def warm_all() -> float:
    """Compile (or load) every compiled loop of city closing, word and wide sets, and return
    the seconds it took: ``puzzleproof prepare`` runs it once after installing, so that no
    later first run pays for compiling (numba caches the code beside the modules, or in
    the user's cache folder where those cannot be written)."""
    from puzzleproof.encoders import cityclose_exact

    import time

    from puzzleproof.encoders.cityclose_bounds import distance_matrix
    from puzzleproof.encoders.cityclose_lagrange import pair_sum_bounds
    from puzzleproof.encoders.cityclose_minima import min_wiener_by_size

    total = warm_exact("word", told=False) + warm_exact("wide", told=False)
    m = CityMap(tuple(f"c{i}" for i in range(70)), tuple((i, i + 1) for i in range(69)))
    t0 = time.monotonic()
    cityclose_exact.solve(m, Rules())  # the wide per-size minima
    warm = _warm_map()
    pair_sum_bounds(distance_matrix(warm.adj), range(2, warm.n))
    min_wiener_by_size(warm.adj, 4, 6, cap=1)  # a size left unfinished: its open bound
    return total + time.monotonic() - t0


#: the merged beam widens by this factor while it improves and stays cheap
_WIDEN = 3
#: CPU seconds of one beam past which the incumbent stops widening (or this share of a
#: longer time limit)
_WIDEN_CPU = 1.5
_WIDEN_SHARE = 0.02
#: the widest beam the incumbent tries, as a multiple of the first width
_WIDEN_MAX = 100


def merged_beam_incumbent(m: CityMap, rules: Rules, width: int) -> Callable[..., Any]:
    """The incumbent the exact encoders start from: the merged beam of ``width``, then
    wider beams (x3 each time, up to 100 times the first) while a beam improves on the last
    and takes at most 1.5 s of CPU (or 2 % of the longer time left), all until the deadline
    the encoder gives; the best order as city indices, or None when none was found in time.
    Why widen: the exact search prunes against this order's total, and on maps of tens of
    cities a wider beam often meets the optimum, where the first width stops a fraction of
    a per cent above it and leaves millions of states unpruned."""
    def incumbent(deadline: Deadline) -> list[int] | None:
        import time

        best: tuple[int, list[int]] | None = None
        cap = max(_WIDEN_CPU, _WIDEN_SHARE * (deadline.left() or 0.0))
        w = width
        while w <= width * _WIDEN_MAX and not deadline.expired():
            cpu = time.process_time()
            mb = _heuristics().merged_beam(m, rules, width=w, deadline=deadline)
            cpu = time.process_time() - cpu
            if mb.answer is None:
                break
            improved = best is None or mb.answer["total"] < best[0]
            if improved:
                best = (mb.answer["total"], [m.index(c) for c in mb.answer["order"]])
            if (not improved and w > width) or cpu > cap:
                break
            w *= _WIDEN
        return None if best is None else best[1]
    return incumbent


def _exact(m: CityMap, rules: Rules, *, deadline: Deadline, seed=0, width=None,
           tiebreak="last") -> Result:
    clock = deadline  # started with the task: loading counts against it
    from puzzleproof.encoders import cityclose_exact

    warm = warm_exact("wide" if m.n > cityclose_exact.MAX_WORD_CITIES else "word")
    res = cityclose_exact.solve(m, rules, deadline=clock, seed=seed,
                                incumbent=merged_beam_incumbent(m, rules, width or 10))
    if warm:
        res.stats["warm_up_s"] = round(warm, 3)
    return res


def _ilp_with(backend: str) -> Callable[..., Result]:
    def solve(m: CityMap, rules: Rules, *, deadline: Deadline, seed=0, width=None,
              tiebreak="last") -> Result:
        dl = deadline  # started with the task: loading counts against it
        from puzzleproof.encoders import cityclose_ilp

        warm_exact()  # the compiled greedy order is the fallback warm start
        return cityclose_ilp.solve(m, rules, deadline=dl, seed=seed,
                                   incumbent=merged_beam_incumbent(m, rules, width or 10),
                                   backend=backend)
    return solve


def _dp(m: CityMap, rules: Rules, *, deadline: Deadline, seed=0, width=None,
        tiebreak="last") -> Result:
    return dp(m, rules, deadline=deadline)


def _merged(m: CityMap, rules: Rules, *, deadline: Deadline, seed=0, width=None,
            tiebreak="last") -> Result:
    return _heuristics().merged_beam(m, rules, width=width or 10, deadline=deadline)


def _beam(m: CityMap, rules: Rules, *, deadline: Deadline, seed=0, width=None,
          tiebreak="last") -> Result:
    return _heuristics().beam(m, rules, width=width or 10, deadline=deadline)


def _greedy(m: CityMap, rules: Rules, *, deadline: Deadline, seed=0, width=None,
            tiebreak="last") -> Result:
    return _heuristics().greedy(m, rules, tiebreak=tiebreak, deadline=deadline)


def _ilp(backend: str, m: CityMap, rules: Rules, **kwargs: Any) -> Result:
    """The integer program on ``backend`` (a top-level function: a method's ``run`` is sent
    to worker processes)."""
    return _ilp_with(backend)(m, rules, **kwargs)


#: the seconds compiling city closing's loops may take on a fresh install (7-15 s on 2
#: cores): a shorter time limit cannot hold it, since no clock can cut compiling short
COMPILE_SECONDS = 30.0


def _unprepared(solver: Any, m: CityMap, deadline: Deadline) -> str | None:
    """Why a run under ``deadline`` would overrun it, or None: the compiled loops are not in
    the cache yet (a fresh install without ``puzzleproof prepare``) and the limit is shorter
    than compiling them. The plain DP compiles nothing."""
    left = deadline.left()
    if left is None or left >= COMPILE_SECONDS or solver is _dp:
        return None
    from puzzleproof.encoders.cityclose_exact import MAX_WORD_CITIES

    if not _cache_cold("wide" if m.n > MAX_WORD_CITIES else "word"):
        return None
    return (f"not started: the compiled loops are not prepared (a fresh install), and "
            f"compiling them takes longer than this limit; run 'puzzleproof prepare' once, or "
            f"give --time-limit {COMPILE_SECONDS:g} or more")


def run_checked(solver: Callable[..., Result], m: CityMap, *, deadline: Deadline,
                rules: Rules | None = None, width: int | None = None,
                tiebreak: str = "last", seed: int = 0) -> Result:
    """Run ``solver`` on ``m`` under ``rules`` and attach the independent check of its answer
    (re-scored by the model; an OPTIMAL whose lower bound is not its total is wrong)."""
    rules = rules or Rules()
    unprepared = _unprepared(solver, m, deadline)
    if unprepared:
        return Result("cityclose", Status.UNKNOWN, None, solver="not started",
                      params={"rules": rules.to_dict(), "time_limit": deadline.limit},
                      stats={"reason": unprepared}, instance=m.name)
    # the solvers take the task's own clock: what they load and set up counts against it
    res = solver(m, rules, deadline=deadline, seed=seed, width=width, tiebreak=tiebreak)
    if res.answer is not None:
        res.check = check_answer(m, res.answer, rules)
        _closed_by_bound(res)
        if res.status == Status.OPTIMAL and res.certificate:
            lb = res.certificate.get("lower_bound")
            if lb is not None and lb != res.answer["total"]:
                res.check["ok"] = False
                res.check["violations"].append(
                    {"kind": "bound-mismatch", "step": None, "city": None,
                     "message": f"OPTIMAL with lower bound {lb} below total "
                                f"{res.answer['total']}"})
    return res


#: the proof named when a method's own lower bound meets its checked order
BOUND_MEETS_ORDER = "the method's proved lower bound meets its checked order's total"


def _closed_by_bound(res: Result) -> None:
    """An UNKNOWN whose proved lower bound equals its checked order's total is OPTIMAL,
    whatever stopped the method (the clock, a cap): the order is re-scored by the model and
    no order can score below the bound. The methods say so themselves; this holds it for
    every method the harness runs."""
    cert = res.certificate if isinstance(res.certificate, dict) else None
    if res.status != Status.UNKNOWN or cert is None or not (res.check or {}).get("ok"):
        return
    lb, total = cert.get("lower_bound"), res.check.get("total")
    if isinstance(lb, int) and lb == total:
        res.status = Status.OPTIMAL
        cert.setdefault("closed_by", BOUND_MEETS_ORDER)
        cert["gap"] = 0.0
        if res.stats and "reason" in res.stats:
            res.stats["stopped"] = res.stats.pop("reason")


#: the options every city-closing method takes (``Method.bind`` fixes them)
OPTIONS = ("rules", "width", "tiebreak", "seed")


def _method(name: str, kind: str, summary: str, solver: Any) -> Method:
    return Method(name, kind, summary, run=partial(run_checked, solver), options=OPTIONS,
                  effort="states" if kind == "exact" else "expanded")


#: City closing's methods, listed once: the plugin offers them, ``solve`` runs the one named
#: and the harness runs several side by side.
METHODS: tuple[Method, ...] = (
    _method("exact", "exact", "layered dynamic program over connected sets (compiled with "
            "numba)", _exact),
    _method("ilp", "exact", "integer program over removal orders (OR-Tools CP-SAT)",
            partial(_ilp, "cp-sat")),
    _method("ilp-scip", "exact", "the same integer program solved by SCIP through MathOpt "
            "(stronger bounds, slower on small maps)", partial(_ilp, "scip")),
    _method("ilp-highs", "exact", "the same integer program solved by HiGHS through MathOpt",
            partial(_ilp, "highs")),
    _method("dp", "exact", "plain dynamic program over connected sets (small maps)", _dp),
    _method("merged-beam", "heuristic", "beam search with states of the same open cities "
            "merged", _merged),
    _method("beam", "heuristic", "the article's beam search (width 10)", _beam),
    _method("greedy", "heuristic", "the article's greedy: the lowest Wiener number next",
            _greedy),
)
NAMES = tuple(m.name for m in METHODS)
EXACT_METHODS = tuple(m.name for m in METHODS if m.exact)


def method(name: str) -> Method:
    """The method called ``name``; ValueError naming the known ones."""
    for m in METHODS:
        if m.name == name:
            return m
    raise ValueError(f"unknown method {name!r}; expected one of {', '.join(NAMES)}")


def check_answer(m: CityMap, answer: Any, rules: Rules) -> dict[str, Any]:
    """The independent check of an answer ``{"order", "wiener", "total", ...}``: re-scored by
    the model, with a claimed total or Wiener list that differs reported as a violation."""
    if not isinstance(answer, dict) or not isinstance(answer.get("order"), list):
        return {"ok": False, "violations": [{"kind": "malformed", "step": None, "city": None,
                                             "message": "expected {\"order\": [...]}"}]}
    chk = score_order(m, answer["order"], rules)
    violations = list(chk.violations)
    # an illegal order has no total: its broken rules say it all (no second report)
    if chk.ok and "total" in answer and answer["total"] != chk.total:
        violations.append({"kind": "wrong-total", "step": None, "city": None,
                           "message": f"claims total {answer['total']}, the order scores "
                                      f"{chk.total}"})
    if chk.ok and "wiener" in answer and answer["wiener"] != chk.wiener:
        violations.append({"kind": "wrong-wiener", "step": None, "city": None,
                           "message": "the claimed Wiener numbers differ from the order's"})
    return {"ok": not violations, "violations": violations, "total": chk.total}


def run(name: str, m: CityMap, rules: Rules | None = None, *,
        deadline: Deadline | None = None, **options: Any) -> Result:
    """Run the method called ``name`` (``options``: ``width``, ``tiebreak``, ``seed``) within
    ``deadline`` (None: no limit) with the independent check of its answer attached."""
    return method(name).bind(dict(options, rules=rules or Rules()))(m, deadline=deadline)


class OrderVerdict(dict):
    """What :func:`check_order` found (a dict, JSON-ready): ``ok``, ``violations``, ``wiener``,
    ``total``, ``left``, ``optimum``, ``gap``, ``optimality`` (``"proved-by-dp"``,
    ``"not-optimal"``, ``"not-re-verified"``, or None when not asked) and ``message``."""


def _claims_broken(chk: Any, claimed_total: Any, claimed_wiener: Any) -> list[dict]:
    """The claims of an order's file (its total, its Wiener numbers) that its legal order
    does not score; an illegal order has no total: its broken rules say it all."""
    out = []
    if claimed_total is not None and chk.ok and claimed_total != chk.total:
        out.append({"kind": "wrong-total", "step": None, "city": None,
                    "message": f"the file claims total {claimed_total}; the order "
                               f"scores {chk.total}"})
    if claimed_wiener is not None and chk.ok and list(claimed_wiener) != chk.wiener:
        # the blog's lists run on to the empty map (zeros after the last city): compare the
        # common part, and the rest must be zeros
        cw = list(claimed_wiener)
        if cw[:len(chk.wiener)] != chk.wiener or any(x != 0 for x in cw[len(chk.wiener):]):
            out.append({"kind": "wrong-wiener", "step": None, "city": None,
                        "message": "the file's Wiener numbers differ from the order's"})
    return out


def check_order(m: CityMap, order: Sequence[str], rules: Rules | None = None,
                optimum: int | None = None, *, claimed_total: Any = None,
                claimed_wiener: Any = None, claimed_status: str | None = None,
                claimed_method: str | None = None, reprove: bool = True,
                deadline: Deadline | None = None) -> OrderVerdict:
    """Re-score ``order`` (always) and list every broken rule; compare with ``optimum`` (the
    best known or proved total) when given; re-prove a claimed optimum with the independent DP
    when the map has at most :data:`DP_REVERIFY_MAX` cities, and otherwise say plainly that
    optimality rests on the named method's proof and was not re-verified. ``deadline``
    bounds the re-proof (none: no limit).

    ``ok`` is False when a rule is broken, a claimed total/Wiener list is wrong, a claimed
    OPTIMAL is not optimal, or the given ``optimum`` is disproved (a legal order scores below
    it, or the DP proves another)."""
    rules = rules or Rules()
    chk = score_order(m, list(order), rules)
    v = OrderVerdict(ok=chk.ok, violations=list(chk.violations), order=chk.order,
                     wiener=chk.wiener, total=chk.total, left=chk.left, optimum=optimum,
                     gap=None, optimality=None, message="")
    v["violations"] += _claims_broken(chk, claimed_total, claimed_wiener)
    msgs: list[str] = []
    if chk.ok and chk.total is not None and (claimed_status == "OPTIMAL" or optimum is not None):
        if reprove and m.n <= DP_REVERIFY_MAX:
            _reproved(v, m, rules, claimed_status, deadline, msgs)
        else:
            v["optimality"] = "not-re-verified"
            why = (f"{m.n} cities; the independent DP re-proves up to {DP_REVERIFY_MAX}"
                   if reprove else "re-proof not asked")
            if claimed_status == "OPTIMAL":
                who = f"{claimed_method}'s proof" if claimed_method else \
                    "the proof of the method that wrote it"
                msgs.append(f"optimality rests on {who} and was not re-verified ({why})")
            elif optimum is not None and chk.total >= optimum:
                msgs.append(f"the given optimum {optimum} is taken on trust, not re-verified "
                            f"({why})")
    if chk.total is not None and optimum is not None:
        msgs.insert(0, _against_optimum(v, chk.total, optimum))
    v["ok"] = not v["violations"]
    if v["violations"]:
        msgs.insert(0, f"{len(v['violations'])} broken rule(s)")
    elif chk.total is not None and optimum is None:
        msgs.insert(0, f"legal order, total {chk.total}")
    v["message"] = "; ".join(msgs)
    return v


def _reproved(v: OrderVerdict, m: CityMap, rules: Rules, claimed_status: str | None,
              deadline: Deadline | None, msgs: list[str]) -> None:
    """The independent DP's optimum beside the order's total: ``v["optimum"]`` becomes the
    proved optimum (the gap is measured from it); a claimed OPTIMAL above it is broken."""
    ref = dp(m, rules, deadline=deadline)
    if ref.status != Status.OPTIMAL:
        return
    best, total = ref.answer["total"], v["total"]
    if total == best:
        v["optimality"] = "proved-by-dp"
        msgs.append(f"optimal: the independent DP proves {best}")
    else:
        v["optimality"] = "not-optimal"
        msgs.append(f"not optimal: the independent DP finds {best}")
        if claimed_status == "OPTIMAL":
            v["violations"].append({"kind": "not-optimal", "step": None, "city": None,
                                    "message": f"claimed OPTIMAL at {total}; the optimum "
                                               f"is {best}"})
    if v["optimum"] is not None and v["optimum"] != best:
        v["violations"].append({"kind": "wrong-optimum", "step": None, "city": None,
                                "message": f"the given optimum {v['optimum']} is not the "
                                           f"optimum: the independent DP proves {best}"})
    v["optimum"] = best


def _against_optimum(v: OrderVerdict, total: int, given: int) -> str:
    """The order's total beside the optimum (the DP's when it re-proved one, else the one
    given): the gap, or the given optimum disproved by a legal order scoring below it."""
    best = v["optimum"]
    v["gap"] = (total - best) / best if best else None
    if total < given and not any(x["kind"] == "wrong-optimum" for x in v["violations"]):
        v["violations"].append({"kind": "wrong-optimum", "step": None, "city": None,
                                "message": f"the given optimum {given} is wrong: this legal "
                                           f"order scores {total}"})
    if total < best:
        return f"total {total}, below the given optimum {given}"
    if not best:
        return f"total {total}"
    return (f"total {total}, {total - best} above the optimum {best} "
            f"({100 * (total - best) / best:.3f} %)")


# -- the cross-check plug-in ------------------------------------------------------------------

def _harness_check(rules: Rules, data: CityMap, answer: Any) -> list[dict]:
    return [dict(vi, line=None, island=None) for vi in check_answer(data, answer, rules)
            ["violations"]]


def _canon(answer: Any) -> Any:
    return tuple(answer.get("order", [])) if isinstance(answer, dict) else answer


def proved_optimum(recs: Sequence[dict]) -> tuple[int, str] | None:
    """The optimum the records of one instance prove, and by what: an exact method's checked
    OPTIMAL, or else an exact method's proved lower bound that meets some method's checked
    order (the order is optimal whichever method found it, whatever stopped the exact one);
    None when neither."""
    checked = [r for r in recs if isinstance(r["answer"], dict) and r["check_ok"]
               and isinstance(r["answer"].get("total"), int)]
    for r in checked:
        if r.get("exact") and r["status"] == "OPTIMAL":
            return r["answer"]["total"], r["method"]
    bounds = [(r["certificate"]["lower_bound"], r["method"]) for r in recs if r.get("exact")
              and isinstance(r.get("certificate"), dict)
              and isinstance(r["certificate"].get("lower_bound"), int)]
    if not bounds or not checked:
        return None
    lb, by = max(bounds, key=lambda b: b[0])
    best = min(checked, key=lambda r: r["answer"]["total"])
    if best["answer"]["total"] != lb:
        return None
    return lb, f"{by}'s lower bound meets {best['method']}'s order"


def reference_rules_match(ref: Any, rules: Rules | None) -> bool:
    """Whether a shipped reference optimum was proved under ``rules`` (a reference without
    rules was proved under the default rules)."""
    mine = (rules or Rules()).to_dict()
    theirs = ref.get("rules") if isinstance(ref, dict) else None
    if not isinstance(theirs, dict):
        return mine == Rules().to_dict()
    norm = dict(Rules().to_dict(), **theirs)
    norm["keep"] = sorted(str(k).casefold() for k in norm.get("keep") or [])
    return norm == dict(mine, keep=sorted(k.casefold() for k in mine["keep"]))


def cityclose_disagreements(exact: tuple[str, ...], inst: Instance, recs: Sequence[dict],
                            rules: Rules | None = None) -> list[tuple[str, list[str], dict]]:
    """The city-closing disagreements of one instance (see the module docstring), and, when
    the instance ships a reference optimum proved under the same ``rules``
    (``{"optimum": N, "rules": ..., "order": ...}``, a generated map's evidence):
    ``reference-optimum-mismatch`` (an exact method proves a different optimum) and
    ``below-reference`` (a legal order scores less than the reference optimum)."""
    out = []
    ref = inst.reference
    if isinstance(ref, dict) and isinstance(ref.get("optimum"), int) \
            and reference_rules_match(ref, rules):
        opt = ref["optimum"]
        for r in recs:
            if not isinstance(r["answer"], dict) or not r["check_ok"]:
                continue
            total = r["answer"].get("total")
            if r["status"] == "OPTIMAL" and r.get("exact") and total != opt:
                out.append(("reference-optimum-mismatch", [r["method"]],
                            {"message": f"{r['method']} proves {total}; the shipped "
                                        f"reference optimum is {opt}",
                             "proved": total, "reference_optimum": opt,
                             "order": r["answer"]["order"]}))
            elif isinstance(total, int) and total < opt:
                out.append(("below-reference", [r["method"]],
                            {"message": f"{r['method']}'s legal order scores {total}, below "
                                        f"the shipped reference optimum {opt}",
                             "total": total, "reference_optimum": opt,
                             "order": r["answer"]["order"]}))
    ex = set(exact) | {r["method"] for r in recs if r.get("exact")}
    checked = [r for r in recs if isinstance(r["answer"], dict) and r["check_ok"]]
    for r in recs:
        lb = (r.get("certificate") or {}).get("lower_bound") if r["method"] in ex else None
        if not isinstance(lb, int):
            continue
        for o in checked:
            if o["answer"].get("total", lb) < lb:
                out.append(("bound-above-order", [r["method"], o["method"]],
                            {"lower_bound": lb, "better_total": o["answer"]["total"],
                             "better_order": o["answer"]["order"]}))
    proved = [r for r in checked if r["method"] in ex and r["status"] == "OPTIMAL"]
    for p in proved:
        opt = p["answer"]["total"]
        for r in recs:
            if r is p or not isinstance(r["answer"], dict):
                continue
            claimed = r["answer"].get("total")
            if not isinstance(claimed, int) or claimed >= opt:
                continue
            if r["check_ok"]:
                out.append(("optimal-above-order", [p["method"], r["method"]],
                            {"claimed_optimum": opt, "better_total": claimed,
                             "better_order": r["answer"]["order"]}))
            else:
                out.append(("below-optimum", [r["method"], p["method"]],
                            {"claimed_total": claimed, "proved_optimum": opt,
                             "violations": r["violations"], "proved_by": p["method"]}))
    return out


def gaps(recs: Sequence[dict]) -> dict[str, float | None]:
    """Each method's gap to the proved optimum among ``recs`` (one instance), as a fraction;
    empty when no exact method proved one."""
    p = proved_optimum(recs)
    if p is None:
        return {}
    opt = p[0]
    out: dict[str, float | None] = {}
    for r in recs:
        if r["answer"] is not None and r["check_ok"] and opt:
            out[r["method"]] = (r["answer"]["total"] - opt) / opt
        else:
            out[r["method"]] = None
    return out


def open_unknown(rec: dict) -> bool:
    """Whether an UNKNOWN record is an open question rather than a missed solution: an exact
    method's (its proof ran out; bounds kept), or a heuristic's whose limit ran out (a time
    limit, or the harness's hang limit). A heuristic stuck at a dead end is a miss."""
    if rec.get("exact"):
        return True
    stats = rec.get("stats") or {}
    return bool(stats.get("limit")) or "limit" in str(stats.get("reason") or "")


def crosscheck_kind(methods: Sequence[str] | None = None, rules: Rules | None = None, *,
                    width: int | None = None, tiebreak: str = "last", seed: int = 0,
                    extra: dict[str, Method] | None = None) -> PuzzleKind:
    """The city-closing plug-in for :func:`puzzleproof.verify.crosscheck.run_crosscheck`
    (instances: ``Instance(id, CityMap)``). ``gaps(records of one instance)`` gives the
    per-method gap to the optimum."""
    rules = rules or Rules()
    names = list(NAMES if methods is None else methods)
    values = {"rules": rules, "width": width, "tiebreak": tiebreak, "seed": seed}
    ms = {nm: method(nm).bind(values) for nm in names}
    ms.update(extra or {})  # programs judged beside the methods
    exact = tuple(nm for nm in names if ms[nm].exact)
    return PuzzleKind("cityclose", ms, partial(_harness_check, rules), _canon,
                      extra=partial(cityclose_disagreements, exact, rules=rules),
                      open_unknown=open_unknown,
                      warm=warm_exact if "exact" in names else None)
