"""The Episode 1 value of a Skynet start (fewest cuts that contain the agent), proved from
both sides.

How the bounds are found, and why, is told in :mod:`puzzleproof.encoders.skynet_sat`; here
are the steps, each within its share of the question's clock (:class:`~.skynet_question.
Question`): the exact search (:mod:`.skynet_fewest`) for up to half the time (it settles
most maps alone; where its cost grows slowly from one horizon to the next it skips one, see
:meth:`Ep1Value._skip`), the fence search
(:mod:`.skynet_fences`) or else the verdict for a first upper bound, the exact search on the
map without its pockets for a better lower bound, then horizon after horizon the exact
search, the containment search (:mod:`.skynet_contain`) and SAT. Every strategy is replayed
by the rules before it counts; a lower bound comes with the agent's escape when it is small
enough to write, else names the method that refuted the horizon.
"""

from __future__ import annotations

import time
from typing import Any

from puzzleproof.clock import Deadline
from puzzleproof.encoders import skynet_certify as _certify
from puzzleproof.encoders.cegar import HOLDS, LIMIT, REFUTED, Budget
from puzzleproof.encoders.skynet_cegar import Decision, decide
from puzzleproof.encoders.skynet_certify import NoCertificate, player_certificate
from puzzleproof.encoders.skynet_contain import ContainSearch
from puzzleproof.encoders.skynet_fences import FenceSearch, fenced_map
from puzzleproof.encoders.skynet_fewest import (PROOFS_MAX, FewestCuts, OutOfTime,
                                                 kernels_cold, pocket_nodes, without)
from puzzleproof.encoders.skynet_question import Question
from puzzleproof.encoders.skynet_refutation import refutation
from puzzleproof.encoders.skynet_reduced import Reduced
from puzzleproof.models.skynet import SkynetMap
from puzzleproof.models.skynet_strategy import strategy_depth
from puzzleproof.processes import note
from puzzleproof.result import Result, Status

__all__ = ["Ep1Value"]

CONTAIN_MAX_POSITIONS = 200_000  # the containment search's positions (about 1-2 minutes)
FENCE_MAX_EVALUATIONS = 1500  # fences decided by the fence search (30-60 ms each on 05)
FENCE_MAX_SECONDS = 20.0  # the fence search's share, with no time limit or a long one
FENCE_DECIDE_SECONDS = 2.0  # at most per fence (most are decided in tens of milliseconds)
FENCE_PATIENCE = 300  # moves tried without a smaller boundary before it stops
# the exact fewest-cuts search (:mod:`.skynet_fewest`) at each ep1 horizon, first: before
# the fence search, horizon after horizon until EXACT_FIRST_SHARE of the time is spent
# (it settles most maps alone); after it, at most EXACT_LATER_SHARE of the time left a
# horizon and EXACT_GROWTH times the positions of the last horizon (plus EXACT_SLACK), and
# once it runs out there it is not asked again (the containment search and SAT have the
# rest: on the Episode 1 maps of instances/skynet/ep1 at 60 s they settled no horizon, so
# the exact search, whose table carries over, has the larger share). Its cost can jump a hundredfold from one horizon
# to the next (the complex mesh: 954 positions refute 12, 160,000 refute 13), so with a
# time limit the first phase is bounded by time alone (with none, by the growth too: the
# fence search and SAT must get their turn)
EXACT_GROWTH = 25
EXACT_SLACK = 500
EXACT_FIRST_SHARE = 1 / 2
EXACT_LATER_SHARE = 1 / 2
# when the first upper bound leaves one horizon open, the exact search goes on with it for
# this share of the time left (it has settled every horizon below; the other searches rarely
# settle one it cannot)
LAST_HORIZON_SHARE = 3 / 4
# the first phase asks one horizon beyond the next when the last two were refuted, the last
# took this long or more, and the positions grew at most this much a horizon between them
# (Ep1Value._skip): the double-star ring refutes 17 in 594,000 positions from the table
# 15 left, in 560,000 from 16's, whose own refutation took 389,000
SKIP_MIN_SECONDS = 0.5
SKIP_GROWTH = 4.0
# the same search on the map without its pockets (skynet_fewest.pocket_nodes), once the one
# above runs out: it proves lower bounds only, at most 3/4 of the time left (or this long:
# SAT rarely settles a horizon this search cannot, and the fence search needs seconds)
POCKET_MAX_SECONDS = 60.0
POCKET_MIN_SHARE = 0.1  # of the map's links, removed with the pockets, for it to be tried
POCKET_BY = ("exact search (puzzleproof.encoders.skynet_fewest) on the map without its "
             "pockets {nodes} (a node removed never makes the agent harder to contain): no "
             "strategy contains the agent within {h} cuts there, so none does here; its "
             "refutation is the escape, written on the links each step rests on")
EXACT_BY = ("exact search (puzzleproof.encoders.skynet_fewest): no strategy contains the "
            "agent within {h} cuts; its refutation is the escape, written on the links "
            "each step rests on")
EXACT_UPPER_BY = "exact search (skynet_fewest)"
MIN_CUT_BY = "minimum cut (a maximum flow per node), no agent strategy needed"
WITNESS_MAX_NODES = 400_000  # nodes of an escape read off the exact search (tens of MB)
#: the seconds compiling the exact search's kernels may take on a fresh install (about 5 s
#: on 2 cores): with less time left it does not start (see Ep1Value._unprepared)
KERNELS_COMPILE_SECONDS = 15.0
PROOF_SHARE = 1 / 10  # of the time, kept for writing and replaying the lower bound's escape

Exact = tuple[bool, "dict | None", "dict | None"]  # (contained?, strategy, its check)

def _behind_lower(chk: dict | None, lb_chk: dict | None) -> dict | None:
    """The answer's check: ``chk`` unless the escape behind the lower bound failed its
    replay (which would be a bug), then that failure."""
    if lb_chk is not None and lb_chk["ok"] is False:
        return {"ok": False, "violations": ["the escape behind the lower bound: " + v
                                            for v in lb_chk["violations"]],
                "by": lb_chk["by"]}
    return chk


def _memory_said(fc: FewestCuts, st: dict) -> None:
    """In the exact search's stats ``st``, where its bounds on memory (skynet_fewest's
    TABLE_MAX and PROOFS_MAX) acted: the times its table was halved, and whether it let
    its proofs go."""
    if fc.forgotten:
        st["table_halved"] = fc.forgotten
    if not fc.proofs_kept:
        st["proofs_kept"] = False


def _part(clock: Deadline, fraction: float, most: float) -> Deadline:
    """``fraction`` of the time left on ``clock``, at most ``most`` seconds."""
    part = clock.share(fraction)
    cap = time.monotonic() + most
    return part if part.at is not None and part.at <= cap else Deadline(clock.limit, at=cap)


class Ep1Value:
    """The ``ep1`` value of the question ``q`` (asked with ``value``, no horizon).

    ``lower``..``upper`` is the bracket proved so far; ``refuted`` is what proved the lower
    bound (``"exact"``: the exact search, a :class:`Decision`: SAT's refutation, None: the
    minimum cut); ``best_cert``/``best_chk`` the strategy achieving ``upper``."""

    def __init__(self, q: Question) -> None:
        self.q = q
        self.mc: dict[int, int] = {}
        self.lower = self.upper = 0
        self.refuted: Decision | str | None = None
        self.best_cert: dict | None = None
        self.best_chk: dict | None = None
        self.fewest: FewestCuts | None = None  # built on first use, kept across horizons
        self.last_exact = 0  # positions of the last horizon it settled
        # the horizons it settled, in order ({"H", "contained", "positions", "seconds"}):
        # what _skip reads, and the stats' "settled"
        self.settled: list[dict[str, Any]] = []
        self.unsettled = (-1, 0, 0.0)  # the horizon it ran out at: positions, seconds
        self.exact_spent = False
        self.search: ContainSearch | None = None  # built on first use, memo kept
        self.search_spent = False
        self.pocket: dict[str, Any] = {}  # the exact search on the map without its pockets
        self.fence_deadline = Deadline(None)
        self.final = q.clock  # the question's whole clock (see _keep_for_the_proof)

    def solve(self) -> Result:
        q = self.q
        if not q.red.threat:
            return q.contained_at_start()
        self._keep_for_the_proof()
        mc = q.min_cuts()
        if mc is None:
            return q.result(Status.UNKNOWN, note="limit reached")
        self.mc = mc
        self.lower = max(1, min(mc.values()))  # the fewest links that separate any node
        done = self._exact_first()
        if done is None:
            done = self._first_upper()
        if done is None and self.upper == self.lower + 1:
            done = self._last_horizon()
        if done is None and self.unsettled[0] == self.lower + 1:
            done = self._resume_skip()
        if done is not None:
            return done
        # the exact search ran out below the upper bound: the same search on the map without
        # its pockets raises the lower bound (where pockets near the start weaken the tempo
        # bound, as on the complex mesh)
        raised = self.pocket_search(self.lower, self.upper)
        if raised > self.lower:
            self.lower, self.refuted = raised, "exact"
        return self._deepen()

    def _keep_for_the_proof(self) -> None:
        """The searches stop PROOF_SHARE of the time early: the rest is for writing and
        replaying the escape behind the lower bound (:meth:`exact_lower`), which reads the
        question's full clock (``self.final``)."""
        q = self.q
        self.final = q.clock
        left = q.clock.left()
        if left is None:
            return
        at = q.clock.at - left * PROOF_SHARE  # type: ignore[operator]
        q.clock = Deadline(q.clock.limit, at=at)
        q.budget.deadline = at if q.budget.deadline is None else min(q.budget.deadline, at)

    # -- the bracket -------------------------------------------------------------------

    def _exact_first(self) -> Result | None:
        """The exact search first, horizon after horizon for up to EXACT_FIRST_SHARE of the
        time: it often settles the value outright, and its lower bound stops the fence
        search early."""
        q = self.q
        first = q.clock.share(EXACT_FIRST_SHARE)
        while self.lower <= q.red.K:
            got = self._exact_skip(first) if self._skip() else self._exact_step(first)
            if got is not True:
                return got
        return None

    def _skip(self) -> bool:
        """Whether the next horizon asked is one beyond the next: when the last two settled
        were refuted, the last took SKIP_MIN_SECONDS or more, and the positions grew at most
        SKIP_GROWTH times a horizon between them. Iterative deepening then does most of
        its work on the horizons below the last, while the table they leave helps the
        next one little, so skipping one saves about the work of the horizon skipped. Where
        the cost jumps from one horizon to the next, the one beyond might not end in time
        where the next would: asked in order."""
        done = self.settled
        if len(done) < 2 or self.lower + 1 > self.q.red.K:
            return False
        a, b = done[-2], done[-1]
        if a["contained"] or b["contained"] or b["seconds"] < SKIP_MIN_SECONDS:
            return False
        growth = (b["positions"] / max(1, a["positions"])) ** (1 / (b["H"] - a["H"]))
        return growth <= SKIP_GROWTH

    def _exact_skip(self, deadline: Deadline) -> Result | bool | None:
        """"Contain within ``lower + 1``?" by the exact search until ``deadline`` (see
        :meth:`_skip`): True when refuted (``lower`` raised by two, "within ``lower``"
        refuted with it); when contained, "within ``lower``?" is asked too and settles the
        value (``lower + 1`` with the strategy just found when it is refuted); None when
        either runs out (a strategy found stays as the upper bound)."""
        h = self.lower + 1
        exact = self.exact_search(h, deadline)
        if exact is None:
            return None
        if not exact[0]:
            self.refuted = "exact"
            self.lower = h + 1
            return True
        got = self._exact_step(deadline)
        if got is True:  # "within h - 1" refuted: lower is h, contained within h
            return self._exact_won(exact)
        if got is None:
            self._exact_upper(h, exact)
            self.q.answer["verdict"] = "WIN"
        return got

    def _exact_upper(self, h: int, exact: Exact) -> None:
        """The exact search contained the agent within ``h`` cuts: the upper bound, with the
        strategy and its check."""
        self.upper, self.best_cert, self.best_chk = h, exact[1], exact[2]
        self.q.answer["upper_bound"] = {"by": EXACT_UPPER_BY, "cuts": h}

    def _exact_step(self, deadline: Deadline) -> Result | bool | None:
        """"Contain within ``lower``?" by the exact search until ``deadline``: the value (a
        Result) when yes, True when refuted (``lower`` raised by one), None when it ran
        out (what it learnt stays in its table)."""
        exact = self.exact_search(self.lower, deadline)
        if exact is None:
            return None
        if exact[0]:
            return self._exact_won(exact)
        self.refuted = "exact"
        self.lower += 1
        return True

    def _exact_won(self, exact: Exact) -> Result:
        """The exact search contained the agent within ``lower`` cuts, every horizon below
        refuted: the value, with both proofs."""
        q, answer, lower = self.q, self.q.answer, self.lower
        answer.update(verdict="WIN", value=lower, value_lower=lower, value_upper=lower,
                      upper_bound={"by": EXACT_UPPER_BY, "cuts": lower})
        answer["lower_bound"] = (self.exact_lower(lower - 1) if self.refuted else
                                 {"horizon": lower - 1, "by": MIN_CUT_BY})
        chk = _behind_lower(exact[2], answer["lower_bound"].get("check"))
        return q.result(Status.WIN, exact[1], chk)

    def _last_horizon(self) -> Result | None:
        """One horizon is left open (``upper`` is ``lower + 1``): whichever way "contain
        within ``lower``?" goes, it settles the value, so the exact search, whose table
        holds every horizon below, goes on with it for LAST_HORIZON_SHARE of the time left
        before anything else is tried. None when it runs out (what it learnt stays)."""
        got = self._exact_step(self.q.clock.share(LAST_HORIZON_SHARE))
        return self._settled() if got is True else got

    def _resume_skip(self) -> Result | None:
        """The first phase ran out on a horizon it skipped to (two or more below the upper
        bound): that horizon, whose search has filled the table, goes on first, with
        EXACT_LATER_SHARE of the time left (see :meth:`_exact_skip`). The value when that
        settles it, else None (the bracket raised when it was refuted)."""
        got = self._exact_skip(self.q.clock.share(EXACT_LATER_SHARE))
        if got is True and self.lower >= self.upper:
            return self._settled()
        return got if isinstance(got, Result) else None

    def _first_upper(self) -> Result | None:
        """The first upper bound: a won fence (an Episode 2 game inside a set of nodes
        contains the agent, so its strategy proves the verdict WIN too, and it is usually
        far smaller than the verdict strategy, in cuts and in positions), else the verdict
        strategy's depth. A Result when the verdict is LOSS or the limit came first."""
        q = self.q
        if self.upper:
            return None  # the exact search's own strategy (:meth:`_exact_skip`)
        m, rule, s = q.m, q.rule, q.s
        # the invariant at the start (no search) bounds the value by the gateway links the
        # agent can reach; a fence is worth its certificate only below that
        inv = _certify.quick_certificate(q.red, q.until)
        ceiling = strategy_depth(m, rule, s, inv[1]) if inv is not None and inv[0] else None
        fence = self.fence_bound(self.lower, ceiling)
        if fence is not None:
            q.answer["verdict"] = "WIN"
            cert, chk, upper, about = fence
            q.answer["upper_bound"] = {**about, "cuts": upper}
        else:
            got = q.verdict(inv, self._verdict_open)
            if isinstance(got, Result):
                return got
            cert, chk = got
            upper = strategy_depth(m, rule, s, cert) if cert is not None else q.red.K
            q.answer["upper_bound"] = {"by": "the verdict strategy", "cuts": upper}
        self.best_cert, self.best_chk, self.upper = cert, chk, upper
        return None

    def _verdict_open(self, found: str | None) -> Result:
        """The limit came before the verdict was checked (``found``: the solver's, not
        reported unchecked): what the exact search proved still holds."""
        q, exact = self.q, self.refuted == "exact"
        q.answer.pop("verdict", None)
        if exact:
            q.answer["lower_bound"] = self.exact_lower(self.lower - 1)
        return q.result(Status.UNKNOWN, note=(
            "limit reached before the verdict" if found is None else
            "limit reached while the certificate was written or checked (the solver's "
            f"verdict {found} is not reported unchecked)")
            + (f": if the player wins, it needs {self.lower} cuts or more" if exact else ""))

    def _deepen(self) -> Result:
        """From the lower bound up, each H is tried by the exact search, the containment
        search (fast when it finds a strategy; checked like every strategy) and SAT, whose
        refutation of "contain within H?" proves value > H. Each horizon is decided from
        scratch (seeding a horizon with the last one's lines makes the proposer's tree grow
        with lines that no longer matter)."""
        H = self.lower
        while H < self.upper:
            got = self._horizon(H)
            if isinstance(got, Result):
                return got
            if got:
                break
            H += 1
        return self._settled()

    def _horizon(self, H: int) -> Result | bool:
        """"Contain within ``H``?": True when the upper bound came down to ``H`` (the value),
        False when refuted, a Result when the limit came first."""
        q, answer = self.q, self.q.answer
        try:
            exact = self.exact_search(H)  # settles small horizons faster than SAT on most maps
            found = None if exact is not None else self.upper_search(H)
        except NoCertificate:
            # the limit came while a strategy for H was checked: it is not reported
            # unchecked, and what was proved before stands (as for the fence's strategy)
            return self._value_open(H)
        if exact is not None and exact[0]:
            self._exact_upper(H, exact)
            return True
        if exact is not None:
            self.refuted = "exact"
            return False
        if found:
            c2, chk2, depth = found
            if (chk2 is None or chk2["ok"]) and depth < self.upper:
                self.upper, self.best_cert, self.best_chk = depth, c2, chk2
                answer["upper_bound"] = {"by": "containment search (minimum-cut guided)",
                                         "cuts": depth}
                if depth <= H:
                    return True
        d = q.run(H, True, None, self.mc)
        if d.status == LIMIT:
            return self._value_open(H)
        if d.status == HOLDS:
            self.upper = H
            self.best_cert, self.best_chk = q.win_cert(d)
            answer["upper_bound"] = {"by": "SAT (contain within H)", "cuts": H}
            return True
        self.refuted = d
        return False

    def _value_open(self, H: int) -> Result:
        """The limit came at horizon ``H``: the value is left between ``H`` and ``upper``,
        with the best strategy checked so far and the lower bound's proof."""
        q, upper = self.q, self.upper
        q.answer.update(value_lower=H, value_upper=upper)
        if self.refuted == "exact":
            q.answer["lower_bound"] = self.exact_lower(H - 1)
        return q.result(Status.UNKNOWN, self.best_cert, self.best_chk,
                        f"limit reached: the value is between {H} and {upper}")

    def _settled(self) -> Result:
        """The value ``upper``, with the proof that one cut fewer does not contain."""
        q, upper, refuted, chk = self.q, self.upper, self.refuted, self.best_chk
        q.answer.update(value=upper, value_lower=upper, value_upper=upper)
        if refuted == "exact":
            q.answer["lower_bound"] = lb = self.exact_lower(upper - 1)
            chk = _behind_lower(chk, lb.get("check"))
        elif isinstance(refuted, Decision):  # value > upper - 1: the agent's escape, replayed
            esc, esc_chk = q.escape_cert(refuted, extra=True)
            q.answer["lower_bound"] = {"horizon": refuted.horizon, "escape": esc,
                                       "check": esc_chk}
            chk = _behind_lower(chk, esc_chk)
        else:
            q.answer["lower_bound"] = {"horizon": upper - 1, "by": MIN_CUT_BY}
        return q.result(Status.WIN, self.best_cert, chk)

    # -- the exact search ----------------------------------------------------------------

    def exact_search(self, h: int, deadline: Deadline | None = None) -> Exact | None:
        """"Contain within ``h`` cuts?" by the exact search (:mod:`.skynet_fewest`, ep1):
        (answer, the winning strategy and its check when yes), or None when it ran out of
        its time: ``deadline``, one of its own (the phase before the fence search, or the
        last horizon left open), after which it may be asked again; without one,
        EXACT_LATER_SHARE of the time left, and once that runs out it is not asked again."""
        q = self.q
        if self.exact_spent or q.rule != "ep1" or not q.exact:
            return None
        if self.fewest is None:
            if self._unprepared():
                self.exact_spent = True
                return None
            self.fewest = FewestCuts(q.red)
            q.stats["exact_search"] = {"settled": self.settled, "positions": 0,
                                       "seconds": 0.0}
        fewest, st = self.fewest, q.stats["exact_search"]
        t1 = time.monotonic()
        own = deadline is not None
        clock = deadline if deadline is not None else q.clock.share(EXACT_LATER_SHARE)
        q.say(f"exact search, {h} cuts")
        before = fewest.positions
        timed = own and clock.at is not None
        try:
            won = fewest.contains(q.s, fewest.full, h, clock, None if timed
                                  else EXACT_GROWTH * self.last_exact + EXACT_SLACK)
        except OutOfTime:
            self.exact_spent = not own
            won = None
        st["positions"] = fewest.positions
        _memory_said(fewest, st)
        seconds = time.monotonic() - t1
        st["seconds"] = round(st["seconds"] + seconds, 4)
        # a horizon asked again after running out: its figures add up over the calls
        spent, used = (self.unsettled[1:] if self.unsettled[0] == h else (0, 0.0))
        spent, used = spent + fewest.positions - before, used + seconds
        if won is None:
            st["ran_out_at"], self.unsettled = h, (h, spent, used)
            return None
        self.last_exact, self.unsettled = spent, (-1, 0, 0.0)
        st.pop("ran_out_at", None)
        self.settled.append({"H": h, "contained": won, "positions": spent,
                             "seconds": round(used, 4)})
        if not won or not q.certificate:
            return won, None, None
        try:
            c = fewest.certificate(q.s, deadline=q.until)
        except OutOfTime:
            raise NoCertificate from None
        chk = q.check(c, True)
        st["check_ok"] = chk["ok"]  # False would be a bug here
        return (True, c, chk) if chk["ok"] else None

    def _unprepared(self) -> bool:
        """Whether the exact search must stay out: its compiled kernels are not prepared (a
        fresh install) and the time left is shorter than compiling them, which no clock can
        cut short. Said in the stats; with time enough, compiling is only announced."""
        if not kernels_cold():
            return False
        q = self.q
        left = q.clock.left()
        if left is not None and left < KERNELS_COMPILE_SECONDS:
            why = ("its compiled loop is not prepared (a fresh install) and compiling it "
                   "takes longer than the time left; run 'puzzleproof prepare' once")
            q.stats["exact_search"] = {"not_started": why}
            note(f"the exact fewest-cuts search did not start: {why}")
            return True
        note("compiling the exact fewest-cuts search's loop, once (about 5 s; 'puzzleproof "
             "prepare' does it right after installing)")
        return False

    def pocket_search(self, lower: int, upper: int) -> int:
        """The lower bound ``lower`` raised by the exact search on the map without its
        pockets (POCKET_BY), deepening from 1 (its table learns on the cheap horizons)
        until it contains the agent there, reaches ``upper`` or runs out of its share of
        the time."""
        q = self.q
        drop = pocket_nodes(q.m, q.s) if q.rule == "ep1" and q.exact else ()
        if not drop or self.fewest is None:  # the exact search did not start: nor does this
            return lower
        sub = without(q.m, drop)
        if len(q.m.links) - len(sub.links) < POCKET_MIN_SHARE * len(q.m.links):
            # nearly the same map: the search would repeat the one above, horizon by
            # horizon (the double-star ring: 2 of 74 links, 18 s of a 60 s limit)
            return lower
        sred = Reduced(sub, q.rule, q.s)
        if not sred.threat:
            return lower
        fc = FewestCuts(sred)
        t1 = time.monotonic()
        deadline = _part(q.clock, 3 / 4, POCKET_MAX_SECONDS if q.clock.at is None
                         else POCKET_MAX_SECONDS * 4)
        st = q.stats["pocket_search"] = {"removed": list(drop), "links": len(sub.links),
                                         "settled": []}
        h = 1
        while h < upper:
            q.say(f"exact search without the pockets, {h} cuts")
            t2, before = time.monotonic(), fc.positions
            try:
                won = fc.contains(q.s, fc.full, h, deadline)
            except OutOfTime:
                st["ran_out_at"] = h
                break
            st["settled"].append({"H": h, "contained": won, "positions": fc.positions - before,
                                  "seconds": round(time.monotonic() - t2, 4)})
            if won:
                break  # the value there: no higher bound from this map
            if h >= lower:
                self.pocket.update(fc=fc, top=h, drop=drop)
            h += 1
        st["seconds"] = round(time.monotonic() - t1, 4)
        _memory_said(fc, st)
        return max(lower, self.pocket.get("top", 0) + 1)

    def exact_lower(self, h: int) -> dict:
        """``answer["lower_bound"]`` for "contain within ``h``" refuted by the exact search
        (on the full map, else on the map without its pockets): the agent's escape read off
        the refutation (:mod:`.skynet_refutation`, at most WITNESS_MAX_NODES nodes) and
        replayed, with the method named."""
        q, fewest, pocket = self.q, self.fewest, self.pocket
        searcher = fewest
        out: dict[str, Any] = {"horizon": h, "by": EXACT_BY.format(h=h)}
        if pocket.get("top", -1) >= h and (
                fewest is None or fewest.fail.get(fewest.key(q.s, fewest.full), -1) < h):
            searcher = pocket["fc"]
            out["by"] = POCKET_BY.format(h=h, nodes=sorted(pocket["drop"]))
        final = self.final
        if not q.certificate or searcher is None:
            return out
        if not searcher.proofs_kept:
            out["note"] = (f"the search let its proofs go past {PROOFS_MAX} refutations, to "
                           "stay within memory; the escape is not written")
            return out
        try:
            if final.expired():
                raise OutOfTime
            esc = refutation(searcher, q.s, h, final, WITNESS_MAX_NODES, q.m.links)
            chk = _certify.check(q.m, q.rule, q.s, esc, False, final)
        except (OutOfTime, NoCertificate):
            out["note"] = (f"the escape has more than {WITNESS_MAX_NODES} nodes or the "
                           "limit came first; not written")
            return out
        out.update(escape=esc, check=chk)
        return out

    # -- strategies for the upper bound --------------------------------------------------

    def upper_search(self, h: int) -> tuple[dict, dict | None, int] | None:
        """A strategy containing the agent within ``h`` cuts from the minimum-cut guided
        search (:mod:`.skynet_contain`), checked, with its depth (the cuts it needs against
        the worst agent); None when not found. Each call gets at most half the time left;
        once a call runs out (or CONTAIN_MAX_POSITIONS positions in all) it is not asked
        again."""
        q = self.q
        if self.search_spent:
            return None
        if self.search is None:
            self.search = ContainSearch(q.red)
            q.stats["containment_search"] = {"found": None, "positions": 0, "seconds": 0.0}
        search, st = self.search, q.stats["containment_search"]
        q.say(f"containment search, {h} cuts")
        t1 = time.monotonic()
        got = search.search(h, q.clock.share(1 / 2),
                            CONTAIN_MAX_POSITIONS - search.positions)
        st["positions"] = search.positions
        st["seconds"] = round(st["seconds"] + time.monotonic() - t1, 4)
        if got is None:
            self.search_spent = True
        if not got:
            return None
        st["found"] = h
        c = search.certificate(q.until)
        if c is None:
            raise NoCertificate
        if not q.certificate:
            return c, None, h
        chk = q.check(c, True)
        st["check_ok"] = chk["ok"]  # False would be a bug here
        return c, chk, strategy_depth(q.m, q.rule, q.s, c) if chk["ok"] else h

    def fence_bound(self, floor: int, ceiling: int | None = None
                    ) -> tuple[dict | None, dict | None, int, dict] | None:
        """The best fence :mod:`.skynet_fences` finds in its share of the time (an eighth
        of what is left, at most FENCE_MAX_SECONDS), as a player strategy for the real
        map (checked there) with the cuts it needs and a description for the answer;
        None when no fence is won (then neither is the real map under ``ep2``), when the
        best needs ``ceiling`` cuts or more (a bound known without it), or when its
        strategy could not be written in time. ``floor``: no strategy contains with fewer
        (the exact search's or the minimum cut's bound)."""
        q = self.q
        t1 = time.monotonic()
        self.fence_deadline = _part(q.clock, 1 / 8, FENCE_MAX_SECONDS)
        q.say("fence search (Episode 2 games inside fences)")
        fs = FenceSearch(q.m, q.s, self._fence_wins, seed=q.s)
        best = fs.run(self.fence_deadline, FENCE_MAX_EVALUATIONS, FENCE_PATIENCE, floor)
        st = q.stats["fence_search"] = {"fences_decided": fs.evaluations, "boundary": None,
                                        "seconds": round(time.monotonic() - t1, 4),
                                        "improvements": fs.trail}
        if best is None:
            return None
        size, fence = best
        if ceiling is not None and size >= ceiling:
            # its strategy would prove no more than the invariant's; writing and checking
            # it can take the whole limit on a large fence
            st["note"] = f"no better than the invariant at the start ({ceiling} cuts)"
            return None
        d = self._fence_verdict(fenced_map(q.m, fence, q.s), q.until)
        if d.status != HOLDS:  # the limit, on a fence already decided once
            return None
        st.update(boundary=size, fence_nodes=len(fence))
        about = {"by": f"fence search: the Episode 2 game inside {len(fence)} nodes with "
                 f"{size} boundary links, won", "fence": sorted(fence), "boundary": size}
        if not q.certificate:
            return None, None, size, about
        got = self._fence_strategy(d, st)
        if got is None:
            return None
        st["seconds"] = round(time.monotonic() - t1, 4)
        return got[0], got[1], got[2], about

    def _fence_verdict(self, fm: SkynetMap, limit: Deadline) -> Decision:
        """The fenced map's Episode 2 verdict, its conflicts charged to the budget."""
        budget = self.q.budget
        left = None if budget.conflicts is None else max(0, budget.conflicts - budget.used)
        sub = Budget(limit.at, left)
        fred = Reduced(fm, "ep2", self.q.s)
        d = decide(fred, fred.K, False, sub, self.q.solver)
        budget.used += sub.used
        budget.calls += sub.calls
        return d

    def _fence_wins(self, fm: SkynetMap) -> bool | None:
        """Whether the player wins the game inside the fence (None: out of time)."""
        if self.q.budget.spent() or self.fence_deadline.expired():
            return None
        limit = _part(self.fence_deadline, 1.0, FENCE_DECIDE_SECONDS)
        return {HOLDS: True, REFUTED: False}.get(self._fence_verdict(fm, limit).status)

    def _fence_strategy(self, d: Decision, st: dict) -> tuple[dict, dict, int] | None:
        """The won fence's strategy, written for the real map and replayed there, with the
        cuts it needs; None when not written or checked in time (the bounds proved so far
        stand) or when its check fails (a bug)."""
        q = self.q
        try:
            # no invariant node: the fenced map's gateways are not the real map's
            cert = player_certificate(d.proposer.red, d.proposer, d.candidate or {},
                                      q.until, invariant=False)
            chk = q.check(cert, True)
        except NoCertificate:
            st["note"] = "the limit came while its strategy was written or checked"
            return None
        st["check_ok"] = chk["ok"]  # False would be a bug here
        if not chk["ok"]:
            return None
        return cert, chk, strategy_depth(q.m, q.rule, q.s, cert)
