"""One Skynet question on one map and start, and the steps every question shares.

:class:`Question` holds what :func:`puzzleproof.encoders.skynet_sat.solve` was asked, the one
clock it runs against (a :class:`~puzzleproof.clock.Deadline` made when the question
starts, bounding everything done for it: the reduction, the searches, writing and checking
certificates), the budget of its SAT calls, and the answer and statistics being built. Its
steps: one bounded game decided by the CEGAR (:meth:`Question.run`), the winner's
certificate written and replayed (:meth:`~Question.win_cert`, :meth:`~Question.loss_cert`,
:meth:`~Question.escape_cert`), the verdict without search (:meth:`~Question.quick_cert`:
the Episode 2 table search, the invariant at the start), and the two questions answered
here: the verdict (with the Episode 2 value, which follows from it) and the bounded
question "contain within H cuts?". The Episode 1 value has a module of its own
(:mod:`.skynet_value`).
"""

from __future__ import annotations

import time
from typing import Any, Callable

import pysat

from puzzleproof.encoders import skynet_certify as _certify
from puzzleproof.encoders.cegar import HOLDS, LIMIT, REFUTED, Budget
from puzzleproof.encoders.skynet_cegar import DEFAULT_SOLVER, Decision, SolverCache, decide
from puzzleproof.encoders.skynet_certify import (NoCertificate, TooLarge, agent_certificate,
                                                 agent_certificate_from_tree,
                                                 player_certificate)
from puzzleproof.encoders.skynet_forks import ForkSearch
from puzzleproof.encoders.skynet_forks import OutOfBudget as ForksOutOfBudget
from puzzleproof.encoders.skynet_reduced import Reduced
from puzzleproof.encoders.skynet_table import OutOfBudget, TableSearch
from puzzleproof.clock import Deadline
from puzzleproof.models.skynet import SkynetMap
from puzzleproof.models.skynet_strategy import strategy_depth
from puzzleproof.result import Result, Status, which_limit

__all__ = ["Question", "TABLE_MAX_POSITIONS", "ESCAPE_MAX_NODES"]

TABLE_MAX_POSITIONS = 20_000  # the table search's positions per start before the CEGAR
ESCAPE_MAX_NODES = 5_000  # escape strategies answer every cut: they grow fast with H
FORK_SHARE = 1 / 4  # of the time left, for the fork search of an Episode 2 verdict
FORK_MAX = 8  # forks before a fixed path takes over
FORK_MAX_POSITIONS = 20_000


class Question:
    """What :func:`~.skynet_sat.solve` was asked about ``start`` on ``m``, the clock and
    budget it runs against, and the answer being built (``answer``, ``stats``).

    ``clock`` bounds everything done for the question (its ``limit`` names the limit in an
    UNKNOWN's note).
    """

    def __init__(self, m: SkynetMap, rule: str, start: int, *, value: bool,
                 horizon: int | None, clock: Deadline,
                 conflicts: int | None, solver: str = DEFAULT_SOLVER,
                 certificate: bool = True, cache: SolverCache | None = None,
                 on_progress: Callable[[str], None] | None = None, exact: bool = True,
                 t0: float | None = None) -> None:
        self.t0 = time.monotonic() if t0 is None else t0
        self.m, self.rule, self.s = m, rule, start
        self.value, self.horizon, self.exact = value, horizon, exact
        self.clock = clock
        self.solver, self.certificate, self.cache = solver, certificate, cache
        self.budget = Budget(clock.at, conflicts)
        self.red = cache.reduce(m, rule, start) if cache is not None else Reduced(m, rule, start)
        self.params = {"rule": rule, "start": start, "value": value, "horizon": horizon,
                       "time_limit": clock.limit, "conflicts": conflicts}
        self.stats: dict[str, Any] = {"region_nodes": len(self.red.region),
                                      "links_that_matter": self.red.K, "iterations": 0,
                                      "tree_nodes": 0, "horizons": []}
        self.answer: dict[str, Any] = {}
        self.say = on_progress or (lambda _msg: None)

    # -- the answer ----------------------------------------------------------------------

    def result(self, status: Status, cert: dict | None = None, check: dict | None = None,
               note: str | None = None) -> Result:
        """The :class:`Result` of the question with the answer built so far."""
        budget, stats, answer = self.budget, self.stats, self.answer
        stats["conflicts"] = budget.used
        stats["sat_calls"] = budget.calls
        if note and status is Status.UNKNOWN and note.startswith("limit reached"):
            stopped = Deadline(self.clock.limit, at=budget.deadline)
            note = which_limit(stopped, self.params) + note[len("limit"):]
        if note:
            answer["note"] = note
        return Result("skynet", status, dict(answer), cert, solver="sat-cegar",
                      solver_version=f"python-sat {pysat.__version__} ({self.solver})",
                      params=self.params, wall_time=time.monotonic() - self.t0, stats=stats,
                      check=check, instance=self.m.name)

    def guarded(self, ask: Callable[[], Result]) -> Result:
        """``ask()``, or UNKNOWN when the limit came while a certificate was written or
        checked (a verdict is never reported unchecked)."""
        try:
            return ask()
        except NoCertificate:
            found = self.answer.pop("verdict", None)
            self.answer.pop("value", None)
            return self.result(Status.UNKNOWN, note="limit reached while the certificate was "
                               "written or checked"
                               + (f" (the solver's verdict {found} is not reported unchecked)"
                                  if found else ""))

    @property
    def until(self) -> Deadline:
        """The question's clock as its SAT budget sees it (a SAT call stopped just before
        the deadline ends the time for everything else too)."""
        return Deadline(self.clock.limit, at=self.budget.deadline)

    def min_cuts(self) -> dict[int, int] | None:
        """:meth:`Reduced.min_cuts` within the question's clock (None when it ran out)."""
        return self.red.min_cuts(self.until)

    def contained_at_start(self) -> Result:
        """No gateway can be reached: contained before any cut."""
        self.answer.update(verdict="WIN", value=0)
        return self.result(Status.WIN, None, None, "no gateway is reachable from the start")

    # -- the steps -----------------------------------------------------------------------

    def run(self, H: int, val: bool, seeds: list[list[int]] | None = None,
            mc: dict[int, int] | None = None) -> Decision:
        """The bounded game of ``H`` turns decided by the CEGAR (``val``: contain the agent;
        else keep it off the gateways), its effort added to the statistics."""
        self.say(f"horizon {H} ({'contain' if val else 'keep off the gateways'})")
        d = decide(self.red, H, val, self.budget, self.solver, seeds, mc, cache=self.cache)
        stats = self.stats
        tree = 0 if d.proposer is None else len(d.proposer.nodes)
        stats["iterations"] += d.iterations
        stats["tree_nodes"] += tree
        stats["horizons"].append({"H": H, "status": d.status, "iterations": d.iterations,
                                  "tree_nodes": tree, "seconds": round(d.seconds, 4)})
        return d

    def check(self, cert: dict, win: bool) -> dict:
        """The rules replay of ``cert`` within the clock (:func:`.skynet_certify.check`)."""
        return _certify.check(self.m, self.rule, self.s, cert, win, self.until)

    def win_cert(self, d: Decision) -> tuple[dict | None, dict | None]:
        """The player's strategy of a HOLDS decision, written and replayed."""
        if not self.certificate:
            return None, None
        cert = player_certificate(self.red, d.proposer, d.candidate or {},
                                  self.until)
        return cert, self.check(cert, True)

    def loss_cert(self, d: Decision) -> tuple[dict | None, dict | None]:
        """The agent's strategy of a REFUTED verdict, written and replayed."""
        if not self.certificate:
            return None, None
        cert = agent_certificate_from_tree(self.red, d.proposer, self.until)
        if cert is None:
            cert = agent_certificate(self.red, self.until)
        if cert is None:
            raise NoCertificate
        return cert, self.check(cert, False)

    def cut_escape(self, horizon: int) -> tuple[dict | None, dict | None]:
        """The agent's escape behind a LOSS by minimum cuts (every node's minimum cut to the
        gateways above ``horizon``), checked: one witness node on every link claiming that
        each node within ``horizon - 1`` moves keeps more than ``horizon`` disjoint paths,
        which the checker counts itself (:mod:`puzzleproof.models.skynet_escape`)."""
        if not self.certificate:
            return None, None
        node: dict[str, Any] = {"agent": self.s, "links": f"{(1 << len(self.m.links)) - 1:x}",
                                "h": horizon}
        if horizon > 0:
            node["tempo"] = True
        cert = {"type": "skynet-agent-escape", "form": "witness", "horizon": horizon,
                "root": "0", "nodes": {"0": node}}
        return cert, self.check(cert, False)

    def escape_cert(self, d: Decision, extra: bool = False) -> tuple[dict | None, dict | None]:
        """The agent's escape for a refuted "contain within d.horizon cuts?". ``extra``: it
        backs a value's lower bound beside a checked strategy, so a limit reached while it
        is written leaves it out (the bound rests on the SAT refutation, as when it is too
        large) instead of turning a proved value into UNKNOWN."""
        if not self.certificate:
            return None, None
        try:
            cert = agent_certificate_from_tree(self.red, d.proposer, self.until,
                                               d.horizon, ESCAPE_MAX_NODES)
            if cert is None:
                raise AssertionError("the refuted tree game is not won by the agent")
            return cert, self.check(cert, False)
        except TooLarge:
            return None, {"ok": None, "violations": [], "by": None, "note":
                          f"the agent's escape answers more than {ESCAPE_MAX_NODES} "
                          "positions; not written (the bound rests on the SAT refutation)"}
        except NoCertificate:
            if not extra:
                raise
            return None, {"ok": None, "violations": [], "by": None, "note":
                          "the limit came while the agent's escape was written; not written "
                          "(the bound rests on the SAT refutation)"}

    def quick_cert(self, known: Any = ...) -> tuple[bool, dict | None, dict | None] | None:
        """The verdict by the table search (:mod:`.skynet_table`, Episode 2; its memo kept
        in the cache for the other starts) or, under ``ep1``, by the invariant at the start
        alone (``known``: :func:`~.skynet_certify.quick_certificate`'s answer when already
        asked): (won, certificate, check), or None when they leave it open."""
        if self.rule == "ep2":
            got = self._table_verdict()
            if got is None:
                return None
            won, cert = got
        else:
            got = (_certify.quick_certificate(self.red, self.until)
                   if known is ... else known)
            if got is None or not got[0]:
                return None
            won, cert = got
            self.stats["decided_by"] = "the invariant at the start"
        if not self.certificate:
            return won, None, None
        return won, cert, self.check(cert, won)

    def _fork_verdict(self) -> tuple[bool, dict | None] | None:
        """An Episode 2 loss by the fork search (:mod:`.skynet_forks`) in a quarter of the
        time left, with the agent's policy (None when it finds none)."""
        t1 = time.monotonic()
        s, cache = self.s, self.cache
        forks = cache.forks(self.red) if cache is not None else ForkSearch(self.red)
        before = forks.positions
        lost = forks.decide(s, self.clock.share(FORK_SHARE), FORK_MAX, FORK_MAX_POSITIONS)
        self.stats["fork_search"] = {"decided": lost is True,
                                     "positions": forks.positions - before,
                                     "seconds": round(time.monotonic() - t1, 4)}
        if lost is not True:
            return None
        self.stats["decided_by"] = "fork search"
        if not self.certificate:
            return False, None
        try:
            return False, forks.certificate(s, self.until)
        except ForksOutOfBudget:
            raise NoCertificate from None

    def _table_verdict(self) -> tuple[bool, dict | None] | None:
        """The Episode 2 verdict by the fork search, then the table search in half the time
        left, with the winner's table (None when the searches ran out first)."""
        got = self._fork_verdict()
        if got is not None:
            return got
        t1 = time.monotonic()
        s, cache = self.s, self.cache
        table = cache.table(self.red) if cache is not None else TableSearch(self.red)
        before = len(table.memo)
        won = table.decide(s, self.clock.share(1 / 2), TABLE_MAX_POSITIONS)
        self.stats["table_search"] = {"decided": won is not None,
                                      "positions": len(table.memo) - before,
                                      "seconds": round(time.monotonic() - t1, 4)}
        if won is None:
            return None
        self.stats["decided_by"] = "table search"
        if not self.certificate:
            return won, None
        deadline = self.until
        try:
            return won, (table.player_certificate(s, deadline) if won
                         else table.agent_certificate(s, deadline))
        except OutOfBudget:
            raise NoCertificate from None

    # -- the questions -------------------------------------------------------------------

    def ask(self) -> Result:
        """The verdict (with the Episode 2 value under ``value``) or the bounded question;
        the Episode 1 value is :class:`~.skynet_value.Ep1Value`'s."""
        if not self.red.threat:
            return self.contained_at_start()
        if self.horizon is not None:
            return self.bounded(self.horizon)
        got = self.verdict()
        if isinstance(got, Result):
            return got
        cert, chk = got
        if not self.value:
            return self.result(Status.WIN, cert, chk)
        K = self.red.K  # ep2 (the ep1 value is not asked here)
        self.answer.update(value=K, value_lower=K, value_upper=K)
        return self.result(Status.WIN, cert, chk,
                           "ep2: only gateway links can be cut and the agent roams its "
                           "component, so containing it takes every gateway link of the "
                           "component")

    def verdict(self, inv: Any = ...,
                on_open: Callable[[str | None], Result] | None = None
                ) -> Result | tuple[dict | None, dict | None]:
        """The verdict: a Result when it is LOSS or the limit came first (``on_open(found)``
        words the latter; ``found``: the solver's verdict, not reported unchecked), else
        the player's certificate and its check (``answer["verdict"]`` is WIN). ``inv``:
        the invariant at the start when already asked (:meth:`quick_cert`)."""
        on_open = on_open or self._verdict_open
        found = None
        try:
            quick = self.quick_cert(inv)
            if quick is None:
                d = self.run(self.red.K, False)
                if d.status == LIMIT:
                    return on_open(None)
                found = "LOSS" if d.status == REFUTED else "WIN"
                if d.status == REFUTED:
                    cert, chk = self.loss_cert(d)
                    self.answer["verdict"] = "LOSS"
                    return self.result(Status.LOSS, cert, chk)
                cert, chk = self.win_cert(d)
            else:
                won, cert, chk = quick
                if not won:
                    self.answer["verdict"] = "LOSS"
                    return self.result(Status.LOSS, cert, chk)
        except NoCertificate:
            return on_open(found)
        self.answer["verdict"] = "WIN"
        return cert, chk

    def _verdict_open(self, found: str | None) -> Result:
        self.answer.pop("verdict", None)
        return self.result(Status.UNKNOWN, note=(
            "limit reached before the verdict" if found is None else
            "limit reached while the certificate was written or checked (the solver's "
            f"verdict {found} is not reported unchecked)"))

    def bounded(self, horizon: int) -> Result:
        """"Can the player contain the agent within ``horizon`` cuts?" (WIN or LOSS for that
        bounded game), with the player's strategy or the agent's escape. From ``K`` cuts on
        (the links that matter: after ``K`` cuts none is left) it is the verdict, asked as
        such (:meth:`_beyond`): nothing is built per turn of a larger horizon."""
        answer, s = self.answer, self.s
        if horizon >= self.red.K:
            return self._beyond(horizon)
        mc = self.min_cuts()
        if mc is None:
            return self.result(Status.UNKNOWN, note="limit reached")
        if horizon < mc[s] and horizon < min(mc.values()) and self.rule == "ep1":
            answer.update(verdict="LOSS", horizon=horizon)
            cert, chk = self.cut_escape(horizon)
            return self.result(Status.LOSS, cert, chk, note=f"containing the agent needs at "
                               f"least {min(mc.values())} cuts (a minimum cut); the "
                               "certificate is the agent's escape on that bound")
        d = self.run(horizon, True, None, mc)
        if d.status == LIMIT:
            return self.result(Status.UNKNOWN, note="limit reached")
        answer.update(verdict="WIN" if d.status == HOLDS else "LOSS", horizon=horizon)
        if d.status == HOLDS:
            cert, chk = self.win_cert(d)
            if cert is not None:
                answer["cuts_needed"] = strategy_depth(self.m, self.rule, s, cert)
            return self.result(Status.WIN, cert, chk)
        cert, chk = self.escape_cert(d)
        if cert is None and chk is not None:
            return self.result(Status.LOSS, None, None, "no strategy contains the agent "
                               "within the horizon; " + chk["note"])  # type: ignore[index]
        return self.result(Status.LOSS, cert, chk, "no strategy contains the agent within "
                           "the horizon; the certificate is the agent's escape")

    def _beyond(self, horizon: int) -> Result:
        """The bounded question for ``horizon`` >= ``K``: the verdict. A won verdict's
        strategy never passes while a link that matters is left, so it contains the agent
        within ``K`` cuts (its depth, ``cuts_needed``); a lost one's agent strategy
        reaches a gateway whatever is cut, within any number of cuts."""
        got = self.verdict()
        if isinstance(got, Result):
            if got.status is Status.LOSS:
                got.answer["horizon"] = horizon
                got.answer["note"] = ("no strategy keeps the agent from the gateways (the "
                                      f"{self.red.K} links that matter are all cut within "
                                      "the horizon); the certificate is the agent's strategy")
            return got
        cert, chk = got
        self.answer["horizon"] = horizon
        if cert is not None:
            self.answer["cuts_needed"] = strategy_depth(self.m, self.rule, self.s, cert)
        return self.result(Status.WIN, cert, chk)
