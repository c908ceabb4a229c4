"""City closing for the command and the cross-check harness: the methods by name, the check of
every answer, the check of an order someone else wrote, and the cross-check plug-in.

``METHODS[name] = (callable, exact)``; every callable is
``run(map, rules, *, time_limit=None, seed=0, width=None, tiebreak="last") -> Result`` and
fills ``Result.check`` with :func:`puzzleproof.models.cityclose.score_order`'s verdict on the
answer (the methods' own bookkeeping is never trusted).

Cross-check disagreements (beyond the harness's generic ones):

- ``illegal-order``: an answer that breaks a rule or whose claimed total is not its score;
- ``below-optimum``: a method claims a total below a proved optimum and its order does not
  score that (the claim is false);
- ``optimal-above-order``: an exact method claims OPTIMAL with a total above another
  method's checked order (the proof is wrong);
- ``reference-optimum-mismatch`` / ``below-reference``: an instance shipped with a reference
  optimum (a generated map's evidence) proved under the same rules, and an exact method proves
  another optimum, or a legal order scores below it.

An exact method's UNKNOWN (a limit ran out, bounds kept) is no disagreement: the kind sets
``exact_unknown_is_open``, so the harness does not call it a missed solution.

Each record's ``stats["gap_to_optimum"]`` is filled by :func:`gaps` from the records of an
instance once an optimum is proved.

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

from puzzleproof.models.cityclose import CityMap, Rules, score_order
from puzzleproof.limits import Deadline
from puzzleproof.result import Result, Status
from puzzleproof.verify import cityclose_heuristics as H
from puzzleproof.verify.crosscheck import Instance, Method, PuzzleKind

__all__ = ["METHODS", "EXACT_METHODS", "run", "check_answer", "check_order", "OrderVerdict",
           "crosscheck_kind", "cityclose_disagreements", "gaps", "DP_REVERIFY_MAX",
           "warm_exact", "warm_all", "merged_beam_incumbent"]

#: ``check_order`` re-proves optimality with the independent DP up to this many cities.
DP_REVERIFY_MAX = 20


_WARM: set[str] = set()


def warm_exact(engine: str = "word") -> float:
    """Load (or compile, on a fresh checkout) the exact DP's compiled loops once per process,
    on a small map, and return the seconds it took: ``engine="word"`` for maps of up to 63
    cities, ``"wide"`` for larger ones (the wide-set kernels and their minima, loaded only
    when such a map comes). Loading is start-up: done before a method's clock starts, so
    the limit is about solving."""
    if engine in _WARM:
        return 0.0
    import time

    from puzzleproof.encoders import cityclose_exact

    t0 = time.monotonic()
    tiny = CityMap(("a", "b", "c", "d"), ((0, 1), (1, 2), (2, 3), (3, 0)))
    cityclose_exact.solve(tiny, Rules(), engine=engine)
    H.greedy(tiny)  # the heuristics' compiled Wiener numbers and bounds
    _WARM.add(engine)
    return time.monotonic() - t0


def warm_all() -> float:
    """Compile (or load) every compiled loop of city closing, word and wide sets: run once
    after installing, so that no later first run pays for compiling (numba caches the code
    beside the modules)."""
    from puzzleproof.encoders import cityclose_exact

    total = warm_exact("word") + warm_exact("wide")
    m = CityMap(tuple(f"c{i}" for i in range(70)), tuple((i, i + 1) for i in range(69)))
    import time

    t0 = time.monotonic()
    cityclose_exact.solve(m, Rules())  # the wide per-size minima
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
    and takes at most 1.5 s of CPU (or 2 % of a longer time limit), all until the deadline
    the encoder gives; the best order
    as city indices, or None when none was found in time. (On Africa's 49 countries width
    300 finds the optimum 63562 in about a second, width 10 stops 0.5 % above it; the exact
    search then needs a few hundred states instead of millions.)"""
    def incumbent(deadline: Deadline) -> list[int] | None:
        import time

        best: tuple[int, list[int]] | None = None
        cap = max(_WIDEN_CPU, _WIDEN_SHARE * (deadline.limit or 0.0))
        w = width
        while w <= width * _WIDEN_MAX and not deadline.expired():
            cpu = time.process_time()
            mb = H.merged_beam(m, rules, width=w, deadline=deadline)
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


def _exact(m: CityMap, rules: Rules, *, time_limit=None, seed=0, width=None, tiebreak="last"
           ) -> Result:
    from puzzleproof.encoders import cityclose_exact

    # loading the compiled loops is start-up, before the clock starts
    warm = warm_exact("wide" if m.n > cityclose_exact.MAX_WORD_CITIES else "word")
    res = cityclose_exact.solve(m, rules, deadline=Deadline(time_limit), seed=seed,
                                incumbent=merged_beam_incumbent(m, rules, width or 10))
    if warm:
        res.stats["warm_up_s"] = round(warm, 3)
    return res


def _ilp_with(backend: str) -> Callable[..., Result]:
    def solve(m: CityMap, rules: Rules, *, time_limit=None, seed=0, width=None,
              tiebreak="last") -> Result:
        from puzzleproof.encoders import cityclose_ilp

        warm_exact()  # the compiled greedy order is the fallback warm start
        dl = Deadline(time_limit)  # the import above is start-up, before the clock starts
        return cityclose_ilp.solve(m, rules, deadline=dl, seed=seed,
                                   incumbent=merged_beam_incumbent(m, rules, width or 10),
                                   backend=backend)
    return solve


def _dp(m: CityMap, rules: Rules, *, time_limit=None, seed=0, width=None, tiebreak="last"
        ) -> Result:
    return H.dp(m, rules, time_limit=time_limit)


def _merged(m: CityMap, rules: Rules, *, time_limit=None, seed=0, width=None, tiebreak="last"
            ) -> Result:
    return H.merged_beam(m, rules, width=width or 10, time_limit=time_limit)


def _beam(m: CityMap, rules: Rules, *, time_limit=None, seed=0, width=None, tiebreak="last"
          ) -> Result:
    return H.beam(m, rules, width=width or 10, time_limit=time_limit)


def _greedy(m: CityMap, rules: Rules, *, time_limit=None, seed=0, width=None, tiebreak="last"
            ) -> Result:
    return H.greedy(m, rules, tiebreak=tiebreak)


METHODS: dict[str, tuple[Callable[..., Result], bool]] = {
    "exact": (_exact, True),
    "ilp": (_ilp_with("cp-sat"), True),
    "ilp-scip": (_ilp_with("scip"), True),
    "ilp-highs": (_ilp_with("highs"), True),
    "dp": (_dp, True),
    "merged-beam": (_merged, False),
    "beam": (_beam, False),
    "greedy": (_greedy, False),
}
EXACT_METHODS = tuple(k for k, (_, ex) in METHODS.items() if ex)


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


def run(method: str, m: CityMap, rules: Rules | None = None, **kwargs: Any) -> Result:
    """Run ``METHODS[method]`` and attach the independent check of its answer."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")
    rules = rules or Rules()
    res = METHODS[method][0](m, rules, **kwargs)
    if res.answer is not None:
        res.check = check_answer(m, res.answer, rules)
        if res.status == Status.OPTIMAL and res.certificate:
            lb = res.certificate.get("lower_bound")
            if lb is not None and lb != res.answer["total"]:
                res.check["ok"] = False
                res.check["violations"].append(
                    {"kind": "bound-mismatch", "step": None, "city": None,
                     "message": f"OPTIMAL with lower bound {lb} below total "
                                f"{res.answer['total']}"})
    return res


class OrderVerdict(dict):
    """What :func:`check_order` found (a dict, JSON-ready): ``ok``, ``violations``, ``wiener``,
    ``total``, ``left``, ``optimum``, ``gap``, ``optimality`` (``"proved-by-dp"``,
    ``"not-optimal"``, ``"not-re-verified"``, or None when not asked) and ``message``."""


def check_order(m: CityMap, order: Sequence[str], rules: Rules | None = None,
                optimum: int | None = None, *, claimed_total: Any = None,
                claimed_wiener: Any = None, claimed_status: str | None = None,
                claimed_method: str | None = None, reprove: bool = True,
                time_limit: float | None = 60.0) -> OrderVerdict:
    """Re-score ``order`` (always) and list every broken rule; compare with ``optimum`` (the
    best known or proved total) when given; re-prove a claimed optimum with the independent DP
    when the map has at most :data:`DP_REVERIFY_MAX` cities, and otherwise say plainly that
    optimality rests on the named method's proof and was not re-verified.

    ``ok`` is False when a rule is broken, a claimed total/Wiener list is wrong, or a claimed
    OPTIMAL is not optimal."""
    rules = rules or Rules()
    chk = score_order(m, list(order), rules)
    v = OrderVerdict(ok=chk.ok, violations=list(chk.violations), order=chk.order,
                     wiener=chk.wiener, total=chk.total, left=chk.left, optimum=optimum,
                     gap=None, optimality=None, message="")
    # an illegal order has no total: its broken rules say it all (no second report)
    if claimed_total is not None and chk.ok and claimed_total != chk.total:
        v["violations"].append({"kind": "wrong-total", "step": None, "city": None,
                                "message": f"the file claims total {claimed_total}; the order "
                                           f"scores {chk.total}"})
    if claimed_wiener is not None and chk.ok \
            and list(claimed_wiener) != chk.wiener:
        # the blog's lists run on to the empty map (zeros after the last city): compare the
        # common part, and the rest must be zeros
        cw = list(claimed_wiener)
        common = cw[:len(chk.wiener)]
        if common != chk.wiener or any(x != 0 for x in cw[len(chk.wiener):]):
            v["violations"].append({"kind": "wrong-wiener", "step": None, "city": None,
                                    "message": "the file's Wiener numbers differ from the "
                                               "order's"})
    msgs = []
    if chk.total is not None and optimum is not None:
        v["gap"] = (chk.total - optimum) / optimum if optimum else None
        if chk.total < optimum:
            msgs.append(f"total {chk.total} is below the given optimum {optimum}: the optimum "
                        "is wrong")
        else:
            msgs.append(f"total {chk.total}, {chk.total - optimum} above the optimum {optimum}"
                        f" ({100 * (chk.total - optimum) / optimum:.3f} %)" if optimum else
                        f"total {chk.total}")
    if chk.ok and chk.total is not None and (claimed_status == "OPTIMAL" or optimum is not None):
        if reprove and m.n <= DP_REVERIFY_MAX:
            ref = H.dp(m, rules, time_limit=time_limit)
            if ref.status == Status.OPTIMAL:
                best = ref.answer["total"]
                if chk.total == best:
                    v["optimality"] = "proved-by-dp"
                    msgs.append(f"optimal: the independent DP proves {best}")
                else:
                    v["optimality"] = "not-optimal"
                    msgs.append(f"not optimal: the independent DP finds {best}")
                    if claimed_status == "OPTIMAL":
                        v["violations"].append({"kind": "not-optimal", "step": None,
                                                "city": None,
                                                "message": f"claimed OPTIMAL at {chk.total}; "
                                                           f"the optimum is {best}"})
                if optimum is not None and optimum != best:
                    msgs.append(f"the given optimum {optimum} is not the DP's {best}")
                v["optimum"] = best
                v["gap"] = (chk.total - best) / best if best else None
        else:
            v["optimality"] = "not-re-verified"
            why = (f"{m.n} cities; the independent DP re-proves up to {DP_REVERIFY_MAX}"
                   if reprove else "re-proof not asked")
            if claimed_status == "OPTIMAL":
                who = f"{claimed_method}'s proof" if claimed_method else \
                    "the proof of the method that wrote it"
                msgs.append(f"optimality rests on {who} and was not re-verified ({why})")
            else:
                msgs.append(f"the given optimum {optimum} is taken on trust, not re-verified "
                            f"({why})")
    v["ok"] = not v["violations"]
    if v["violations"]:
        msgs.insert(0, f"{len(v['violations'])} broken rule(s)")
    elif chk.total is not None and optimum is None:
        msgs.insert(0, f"legal order, total {chk.total}")
    v["message"] = "; ".join(msgs)
    return v


# -- the cross-check plug-in ------------------------------------------------------------------

def _run_for_harness(name: str, rules: Rules, opts: dict[str, Any], data: CityMap,
                     time_limit: float | None) -> Result:
    return run(name, data, rules, time_limit=time_limit, **opts)


def _harness_check(rules: Rules, data: CityMap, answer: Any) -> list[dict]:
    return [dict(vi, line=None, island=None) for vi in check_answer(data, answer, rules)
            ["violations"]]


def _canon(answer: Any) -> Any:
    return tuple(answer.get("order", [])) if isinstance(answer, dict) else answer


def _proved(recs: Sequence[dict], exact: set[str]) -> dict | None:
    for r in recs:
        if r["method"] in exact and r["status"] == "OPTIMAL" and r["check_ok"] \
                and r["answer"] is not None:
            return r
    return None


def _reference_rules_match(ref: Any, rules: Rules | None) -> bool:
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
            and _reference_rules_match(ref, rules):
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
        if r["answer"] is not None and not r["check_ok"]:
            out.append(("illegal-order", [r["method"]], {"violations": r["violations"],
                                                        "order": r["answer"].get("order")}))
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
    exact = {r["method"] for r in recs if r.get("exact")}
    p = _proved(recs, exact)
    if p is None:
        return {}
    opt = p["answer"]["total"]
    out: dict[str, float | None] = {}
    for r in recs:
        if r["answer"] is not None and r["check_ok"] and opt:
            out[r["method"]] = (r["answer"]["total"] - opt) / opt
        else:
            out[r["method"]] = None
    return out


def crosscheck_kind(methods: Sequence[str] | None = None, rules: Rules | None = None, *,
                    width: int | None = None, tiebreak: str = "last", seed: int = 0
                    ) -> PuzzleKind:
    """The city-closing plug-in for :func:`puzzleproof.verify.crosscheck.run_crosscheck`
    (instances: ``Instance(id, CityMap)``). ``gaps(records of one instance)`` gives the
    per-method gap to the optimum."""
    rules = rules or Rules()
    names = list(methods or METHODS)
    opts = {"width": width, "tiebreak": tiebreak, "seed": seed}
    ms = {}
    for nm in names:
        if nm not in METHODS:
            raise ValueError(f"unknown method {nm!r}; expected one of {', '.join(METHODS)}")
        ms[nm] = Method(nm, partial(_run_for_harness, nm, rules, opts), exact=METHODS[nm][1],
                        effort_key="states" if METHODS[nm][1] else "expanded")
    exact = tuple(nm for nm in names if METHODS[nm][1])
    return PuzzleKind("cityclose", ms, partial(_harness_check, rules), _canon,
                      extra=partial(cityclose_disagreements, exact, rules=rules),
                      exact_unknown_is_open=True,
                      warm=warm_exact if "exact" in names else None)
