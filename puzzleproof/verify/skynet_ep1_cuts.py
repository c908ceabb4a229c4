"""Episode 1 bots judged by the cuts they use, against the proved fewest cuts.

Under Episode 1 rules every node links to at most one gateway, so a bot that always cuts the
agent's own gateway link when it has one can never lose: the agent cannot stand next to two
gateways at once. No correct Episode 1 bot can be *broken*; what separates bots is how many
cuts they need. This module measures that, per bot and start:

- ``article``: the cuts of one game against the article's agent model (low ties);
- ``worst``: the most cuts any agent can force on the bot (the agent picks every move to
  make the game last; an exhaustive search over positions, exact for bots that decide from
  the position alone, as all of ours do), or a lower bound when its budget runs out;
- the proved fewest cuts (``solve skynet --rule ep1 --min-cuts``: the least number of
  cuts that contains the agent whatever it does), or bounds when its limit runs out.

``worst - fewest`` is the bot's excess: cuts it spends beyond the best strategy's.

Example:
    >>> from puzzleproof.models.skynet import SkynetMap
    >>> star = SkynetMap(4, ((0, 1), (0, 2), (1, 3), (2, 3)), frozenset({3}), start=0)
    >>> worst_cuts(star, "ep1", 0, "ep1-path")["cuts"]
    2
"""

from __future__ import annotations

import copy
import sys
import time
from typing import Any

from puzzleproof.clock import Deadline, PerTask
from puzzleproof.models.skynet import SkynetMap, agent_moves, check_cut, outcome
from puzzleproof.players.skynet_agents import make_agent
from puzzleproof.players.skynet_bots import CUTS_AGENT_GATEWAY_LINK, make_bot
from puzzleproof.games.skynet_referee import play

#: the bots judged on Episode 1 maps (every one of ours except the exact ones; the Episode 2
#: bots' cuts are legal under Episode 1 rules)
EP1_BOTS = ("ep1-article", "ep1-path", "ep1-front", "ep2-article", "ep2-slack", "ep2-double",
            "ep2-nearest", "ep2-pqdfs")

__all__ = ["single_gateway_map", "article_cuts", "worst_cuts", "fewest_cuts", "cut_report",
           "EP1_NOTE"]

EP1_NOTE = ("Episode 1: every node links to at most one gateway, so a bot that always cuts "
            "the agent's gateway link cannot lose; what differs is the cuts it uses against "
            "the proved fewest.")


def single_gateway_map(m: SkynetMap) -> bool:
    """True when every node links to at most one gateway (Episode 1's promise)."""
    return not m.ep1_problems()


def article_cuts(m: SkynetMap, rule: str, start: int, bot: str) -> dict:
    """One game of ``bot`` against the article's agent: its result and cuts."""
    r = play(m, rule, make_bot(bot), make_agent("article"), start)
    return {"result": r.result, "reason": r.reason, "cuts": r.cuts}


def worst_cuts(m: SkynetMap, rule: str, start: int, bot: str, *,
               max_positions: int = 200_000, deadline: Deadline | None = None) -> dict:
    """The most cuts an agent can force on ``bot`` from ``start``.

    Returns ``{"cuts": n, "exact": True, "positions": k}`` when the whole game was searched,
    ``{"cuts": None, "at_least": n, "exact": False, ...}`` when the budget ran out (``n``
    the longest game found so far), and ``"lost": reason`` with ``cuts`` None when some
    agent line beats the bot (or the bot crashes or cuts illegally: a defect).
    """
    memo: dict = {}
    best = [0]
    count = [0]

    class Stop(Exception):
        pass

    class Lost(Exception):
        def __init__(self, reason: str) -> None:
            self.reason = reason

    def longest(state, b, depth: int) -> int:
        key = (state.agent, state.links)
        if key in memo:
            return memo[key]
        count[0] += 1
        if count[0] > max_positions or (deadline is not None and count[0] % 128 == 0
                                        and deadline.expired()):
            raise Stop
        try:
            cut = b.cut(state.agent)
        except Exception as exc:  # noqa: BLE001  (a crash is a defect of the bot)
            raise Lost(f"crash: {type(exc).__name__}: {exc}") from None
        if check_cut(m, state, cut, rule) is not None:
            raise Lost("illegal-cut")
        after = state.cut(cut)
        best[0] = max(best[0], depth + 1)
        if outcome(after) == "WIN":
            memo[key] = 1
            return 1
        most = 0
        for v in agent_moves(after):
            if v in m.gateways:
                raise Lost("agent-reached-gateway")
            most = max(most, longest(after.move(v), copy.deepcopy(b), depth + 1))
        memo[key] = 1 + most
        return 1 + most

    b = make_bot(bot)
    b.reset(m)
    state = m.initial_state(start)
    if outcome(state) == "WIN":
        return {"cuts": 0, "exact": True, "positions": 0}
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 4 * len(m.links) + 200))
    try:
        cuts = longest(state, b, 0)
    except Stop:
        return {"cuts": None, "at_least": best[0], "exact": False, "positions": count[0]}
    except Lost as lost:
        return {"cuts": None, "lost": lost.reason, "exact": True, "positions": count[0]}
    finally:
        sys.setrecursionlimit(old)
    return {"cuts": cuts, "exact": True, "positions": count[0]}


def fewest_cuts(m: SkynetMap, start: int, deadline: Deadline) -> dict:
    """The proved fewest cuts under ep1 (SAT CEGAR with its certificate replayed) within
    ``deadline``: ``{"value": v}`` or ``{"value": None, "lower": a, "upper": b}`` when the
    limit ran out (``upper`` at worst the gateway links the agent can reach: cutting the
    agent's gateway link when it has one, else any other, contains it within that many
    cuts)."""
    from puzzleproof.encoders.skynet_sat import solve

    t0 = time.monotonic()
    res = solve(m, "ep1", start, value=True, deadline=deadline)
    ans = res.answer or {}
    seconds = round(time.monotonic() - t0, 3)
    checked = bool(res.check and res.check.get("ok"))
    reach = _reachable(m, start)
    trivial = sum(1 for u, v in m.gateway_links if u in reach or v in reach)
    sane = ans.get("value") is not None and (ans["value"] >= 1 or not trivial)
    proofs = _proofs(res)
    if res.status.value == "WIN" and sane and checked:
        return {"value": int(ans["value"]), "seconds": seconds, "solver": res.solver,
                **_named(ans), **_lower_note(ans, proofs), **proofs}
    if ans.get("value") is not None and not sane:  # no cut contains an agent that can
        ans = {"note": f"the solver's value {ans['value']} was rejected: a gateway is "
                       "reachable, so at least one cut is needed"}
    lower = int(ans.get("value_lower") or (1 if trivial else 0))
    upper = int(min(ans.get("value_upper") or trivial, trivial))
    lower_by = (((ans.get("lower_bound") or {}).get("by")
                 or "the bound of solve --rule ep1 --min-cuts (its refutations, or a minimum cut)")
                if ans.get("value_lower") else "a gateway is reachable")
    # lower bounds from bounded games: "contain within H cuts?" refuted (LOSS, the agent's
    # escape replayed) proves the fewest is at least H + 1; tried while the time lasts
    H = lower
    while H < upper:
        left = deadline.left()
        if left is not None and left < 1:
            break
        r = solve(m, "ep1", start, horizon=H, deadline=deadline)
        if r.status.value != "LOSS" or (r.check is not None and not r.check.get("ok")):
            break
        if r.check is not None:  # with no escape written, a later checked one covers it
            lower, lower_by = H + 1, f"horizon {H} refuted (the agent's escape checked)"
            if r.certificate is not None:
                proofs["escape"] = r.certificate
        H += 1
    seconds = round(time.monotonic() - t0, 3)
    if lower >= upper:
        return {"value": upper, "seconds": seconds, "solver": res.solver,
                "lower_by": lower_by, **proofs}
    return {"value": None, "lower": lower, "upper": upper, "lower_by": lower_by,
            **_lower_note(ans, proofs),
            **({"upper_by": ans["upper_bound"]["by"]} if ans.get("upper_bound") else {}),
            "seconds": seconds, "solver": res.solver,
            "note": ans.get("note") or f"status {res.status.value}", **proofs}


def _named(ans: dict) -> dict:
    """The proofs a proved value names, from the solver's answer."""
    out = {}
    if ans.get("upper_bound"):
        out["upper_by"] = ans["upper_bound"]["by"]
    lb = ans.get("lower_bound") or {}
    if lb.get("by"):
        out["lower_by"] = lb["by"]
    return out


def _lower_note(ans: dict, proofs: dict) -> dict:
    """Why the lower bound comes without the agent's escape, when the solver said (the
    escape too large or the limit first): the record must not look as if it had one."""
    note = (ans.get("lower_bound") or {}).get("note")
    return {"lower_note": note} if note and "escape" not in proofs else {}


def _proofs(res: Any) -> dict:
    """The checked certificates behind the bounds: the player's strategy (``strategy``) and
    the agent's escape from one cut fewer than the lower bound (``escape``), each only when
    its replay passed."""
    out: dict[str, Any] = {}
    if res.certificate is not None and (res.check or {}).get("ok"):
        out["strategy"] = res.certificate
    lb = (res.answer or {}).get("lower_bound") or {}
    if lb.get("escape") is not None and (lb.get("check") or {}).get("ok"):
        out["escape"] = lb["escape"]
    return out


def _reachable(m: SkynetMap, start: int) -> set[int]:
    seen = {start}
    stack = [start]
    while stack:
        u = stack.pop()
        if u in m.gateways:
            continue
        for v in m.neighbours[u]:
            if v not in seen:
                seen.add(v)
                stack.append(v)
    return seen


def cut_report(m: SkynetMap, start: int, bots: list[str], *, fewest: dict | None = None,
               each: PerTask = PerTask(None), max_positions: int = 200_000) -> dict:
    """Every bot's cuts (article agent, worst case) next to the fewest cuts (computed unless
    given), for one map and start, under ep1 rules; each search (the fewest cuts, each bot's
    worst case) gets the limit ``each`` from its own start."""
    if fewest is None:
        fewest = fewest_cuts(m, start, each.start())
    rows: dict[str, Any] = {}
    for b in bots:
        row = {"article": article_cuts(m, "ep1", start, b),
               "worst": worst_cuts(m, "ep1", start, b, max_positions=max_positions,
                                   deadline=each.start())}
        row["cuts_agent_gateway_link"] = b in CUTS_AGENT_GATEWAY_LINK
        rows[b] = row
    if fewest.get("value") is None:
        # a bot whose whole game was searched contains the agent within its worst case
        # against every agent: an upper bound (for bots that decide from the position)
        exact = {b: r["worst"]["cuts"] for b, r in rows.items()
                 if r["worst"].get("cuts") is not None}
        if exact and min(exact.values()) < fewest.get("upper", 10 ** 9):
            b = min(exact, key=lambda x: (exact[x], x))
            fewest = {**fewest, "upper": exact[b], "upper_by": f"{b}'s worst case"}
        if fewest.get("lower") == fewest.get("upper"):
            fewest = {**fewest, "value": fewest["upper"]}
    for row in rows.values():
        w = row["worst"].get("cuts")
        row["excess"] = None if w is None or fewest.get("value") is None \
            else w - fewest["value"]
    return {"map": m.name, "start": start, "single_gateway": single_gateway_map(m),
            "fewest": fewest, "bots": rows}


def cuts_text(row: dict) -> str:
    """A bot's figures in a table cell: article-agent cuts / worst case."""
    a = row["article"]
    w = row["worst"]
    first = str(a["cuts"]) if a["result"] == "WIN" else f"LOSS({a['reason']})"
    if w.get("cuts") is not None:
        second = str(w["cuts"])
    elif w.get("lost"):
        second = f"LOSS({w['lost']})"
    else:
        second = f">={w.get('at_least', 0)}"
    return f"{first} / {second}"


def fewest_text(f: dict) -> str:
    return str(f["value"]) if f.get("value") is not None else f"{f['lower']}..{f['upper']}"


#: a recorded worst case is searched again in a cross-check when it took at most this many
#: positions (the larger maps keep their recorded figure, said so)
RECHECK_POSITIONS = 5_000


def _recorded_report(m: SkynetMap, s: int, rec: dict, names: list[str],
                     failures: list[str]) -> dict:
    """A start's report from its shipped cuts record: the article agent's game replayed and
    the worst case searched again where it is small; a figure that changed is a failure."""
    rep = {"map": m.name, "start": s, "fewest": rec["fewest"], "bots": {},
           "recorded": rec["file"]}
    for b in names:
        old = (rec.get("bots") or {}).get(b)
        row = {"article": article_cuts(m, "ep1", s, b)}
        worst = (old or {}).get("worst") or {}
        if old is None or (worst.get("cuts") is not None
                           and worst.get("positions", 0) <= RECHECK_POSITIONS):
            worst = worst_cuts(m, "ep1", s, b, max_positions=RECHECK_POSITIONS * 2)
        row["worst"] = worst
        row["excess"] = (old or {}).get("excess")
        if old is not None and (old["article"] != row["article"]
                                or old["worst"].get("cuts") != worst.get("cuts")):
            failures.append(f"{m.name}@{s}: {b} now {cuts_text(row)}, "
                            f"recorded {cuts_text(old)} ({rec['file']})")
        rep["bots"][b] = row
    return rep


def cuts_table(maps: list[SkynetMap], starts: dict, bots: list[str] | None,
               each: PerTask) -> tuple[list[dict], list[str]]:
    """For Episode 1 maps: every bot's cuts against the article's agent and in the worst
    case, next to the fewest cuts (recorded in NAME.cuts.json, or proved now, each search
    within the limit ``each`` from its own start): the rows, and the failures (a recorded
    figure that no longer holds, or a bot that loses a map where every node links to at
    most one gateway)."""
    from puzzleproof.formats.skynet_evidence import cuts_record_of

    names = list(bots or EP1_BOTS)
    rows: list[dict] = []
    failures: list[str] = []
    for m in maps:
        rec = cuts_record_of(m)
        for s in starts.get(m.name or "", []):
            if rec is not None and rec.get("start") == s:
                rep = _recorded_report(m, s, rec, names, failures)
            else:
                rep = cut_report(m, s, names, each=each, max_positions=RECHECK_POSITIONS * 4)
            if not m.ep1_problems():
                for b, row in rep["bots"].items():
                    if row["article"]["result"] != "WIN" or row["worst"].get("lost"):
                        failures.append(f"{m.name}@{s}: {b} loses an Episode 1 map "
                                        f"({row['worst'].get('lost') or row['article']['reason']})")
            rows.append(rep)
    return rows, failures
