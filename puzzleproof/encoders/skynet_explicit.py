"""Skynet decided by explicit-state search: memoised minimax over (agent node, links left).

The independent exact solver the SAT game solver is checked against. A state is the agent's
node and the set of links not cut yet (a bitmask over the links that may be cut: the gateway
links under ``ep2``, every link under ``ep1``). The player moves first each turn:

- it wins at once if, after its cut, no gateway is reachable from the agent;
- a position where the agent is next to two or more gateways over uncut links is lost (only
  one can be cut); next to exactly one, that cut is forced;
- otherwise some cut must leave every agent reply (a neighbour over uncut links, never a
  gateway) in a won position.

``value`` is the fewest cuts after which the agent is contained whatever it does (the game
length in turns), ``None`` when the agent can win. Both the verdict and the value come with a
certificate: the winner's strategy as a tree (player: agent history -> cut; agent: a reply to
every cut), checked by :func:`check_player_strategy` / :func:`check_agent_strategy`, which
replay it against every opponent move using only the rules in :mod:`puzzleproof.models.skynet`.

Exponential in the number of cuttable links; a node budget gives UNKNOWN.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from typing import Any

from puzzleproof.models.skynet import SkynetMap
from puzzleproof.clock import Deadline
from puzzleproof.models.skynet_strategy import (CheckLimit, check_agent_strategy,
                                                check_player_strategy)
from puzzleproof.result import Result, Status, which_limit

__all__ = ["ExplicitSolver", "solve", "check_player_strategy", "check_agent_strategy"]

INF = float("inf")


class _Budget(Exception):
    pass


@dataclass
class _Game:
    m: SkynetMap
    rule: str
    cuttable: list[tuple[int, int]]  # index -> link
    fixed_adj: list[list[int]]  # neighbours over links that can never be cut
    cut_adj: list[list[tuple[int, int]]]  # node -> (neighbour, bit index) over cuttable links


def _prepare(m: SkynetMap, rule: str) -> _Game:
    if rule == "ep2":
        cuttable = sorted(m.gateway_links)
    else:
        cuttable = sorted(m.links)
    index = {l: k for k, l in enumerate(cuttable)}
    fixed_adj: list[list[int]] = [[] for _ in range(m.n)]
    cut_adj: list[list[tuple[int, int]]] = [[] for _ in range(m.n)]
    for u, v in m.links:
        k = index.get((u, v))
        if k is None:
            fixed_adj[u].append(v)
            fixed_adj[v].append(u)
        else:
            cut_adj[u].append((v, k))
            cut_adj[v].append((u, k))
    return _Game(m, rule, cuttable, fixed_adj, cut_adj)


class ExplicitSolver:
    """Memoised minimax. ``value(agent, mask)``: fewest cuts to contain (INF: agent wins)."""

    def __init__(self, m: SkynetMap, rule: str, max_nodes: int | None = 2_000_000,
                 deadline: Deadline | None = None) -> None:
        self.g = _prepare(m, rule)
        self.memo: dict[tuple[int, int], float] = {}
        self.wmemo: dict[tuple[int, int], bool] = {}
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.nodes = 0

    def neighbours(self, a: int, mask: int) -> list[int]:
        g = self.g
        return g.fixed_adj[a] + [v for v, k in g.cut_adj[a] if mask >> k & 1]

    def reachable_gateway(self, a: int, mask: int) -> bool:
        gates = self.g.m.gateways
        seen = {a}
        queue = deque([a])
        while queue:
            u = queue.popleft()
            for v in self.neighbours(u, mask):
                if v in gates:
                    return True
                if v not in seen:
                    seen.add(v)
                    queue.append(v)
        return False

    def candidate_cuts(self, a: int, mask: int) -> list[int]:
        """Bits worth cutting now: forced ones first; links out of the agent's reach never
        matter, so only links touching its reachable region are tried."""
        g = self.g
        gates = g.m.gateways
        adjacent = [k for v, k in g.cut_adj[a] if mask >> k & 1 and v in gates]
        if adjacent:
            return adjacent  # one of them must go now (two or more: lost anyway)
        region = {a}
        queue = deque([a])
        while queue:
            u = queue.popleft()
            for v in self.neighbours(u, mask):
                if v not in region and v not in gates:
                    region.add(v)
                    queue.append(v)
        out = set()
        for u in region:
            for v, k in g.cut_adj[u]:
                if mask >> k & 1:
                    out.add(k)
        return sorted(out)

    def _count(self) -> None:
        """One more state explored; raise when the node or time budget is spent."""
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise _Budget
        # a state costs microseconds on small maps and milliseconds on large ones (its
        # cuts are ordered): the clock is read every 8, a small share of either
        if self.deadline is not None and self.nodes % 8 == 0 and self.deadline.expired():
            raise _Budget

    def _lost_now(self, a: int, mask: int) -> bool:
        """The agent is next to two gateways over uncut links (or one that cannot be cut)."""
        gates = self.g.m.gateways
        return (sum(1 for v, k in self.g.cut_adj[a] if mask >> k & 1 and v in gates) > 1
                or any(v in gates for v in self.g.fixed_adj[a]))

    def value(self, a: int, mask: int) -> float:
        key = (a, mask)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        self._count()
        if not self.reachable_gateway(a, mask):
            self.memo[key] = 0
            return 0
        gates = self.g.m.gateways
        best = INF
        if not self._lost_now(a, mask):
            for k in self.candidate_cuts(a, mask):
                after = mask & ~(1 << k)
                if not self.reachable_gateway(a, after):
                    best = 1
                    break
                worst = 0.0
                for v in self.neighbours(a, after) or [a]:
                    if v in gates:
                        worst = INF
                        break
                    worst = max(worst, self.value(v, after))
                    if worst >= best - 1:
                        break
                if 1 + worst < best:
                    best = 1 + worst
        self.memo[key] = best
        return best

    def win(self, a: int, mask: int) -> bool:
        """The verdict alone: can the player contain the agent from here? Stops at the first
        winning cut, so it is far cheaper than :meth:`value`."""
        key = (a, mask)
        hit = self.wmemo.get(key)
        if hit is not None:
            return hit
        if key in self.memo:
            return self.memo[key] != INF
        self._count()
        if not self.reachable_gateway(a, mask):
            self.wmemo[key] = True
            return True
        gates = self.g.m.gateways
        result = False
        if not self._lost_now(a, mask):
            for k in self.ordered_cuts(a, mask):
                after = mask & ~(1 << k)
                moves = self.neighbours(a, after) or [a]
                if any(v in gates for v in moves):
                    continue
                if all(self.win(v, after) for v in moves):
                    result = True
                    break
        self.wmemo[key] = result
        return result

    def ordered_cuts(self, a: int, mask: int) -> list[int]:
        """Candidate cuts, most urgent first: links of nodes with more gateway links, nearer
        the agent."""
        g = self.g
        gates = g.m.gateways
        cands = self.candidate_cuts(a, mask)
        dist = {a: 0}
        queue = deque([a])
        while queue:
            u = queue.popleft()
            for v in self.neighbours(u, mask):
                if v not in dist and v not in gates:
                    dist[v] = dist[u] + 1
                    queue.append(v)

        def urgency(k: int) -> tuple:
            u, v = g.cuttable[k]
            x = u if v in gates else v
            links = sum(1 for w, j in g.cut_adj[x] if mask >> j & 1 and w in gates)
            return (-links, dist.get(x, 10 ** 6), k)

        return sorted(cands, key=urgency)

    # -- certificates ---------------------------------------------------------------------
    # A strategy is a DAG of positions (the game is memoryless: what matters is where the
    # agent is and which links are left), so it stays as small as the solved state space:
    # {"type": "skynet-player-strategy" | "skynet-agent-strategy", "root": id, "nodes": {...}}

    def player_strategy(self, a: int, mask: int, optimal: bool = True) -> dict:
        """Player node: ``{"agent", "cut": [u, v], "next": {agent move: node id}}``. With
        ``optimal`` the strategy also achieves :meth:`value` (fewest cuts); without, it only
        wins (built from :meth:`win`)."""
        nodes: dict[str, dict] = {}

        def build(a: int, mask: int) -> str:
            nid = f"{a}:{mask:x}"
            if nid in nodes:
                return nid
            nodes[nid] = {}
            if optimal:  # a cut whose worst reply keeps the value
                target = self.value(a, mask)
                order = self.candidate_cuts(a, mask)
                contained_ok = target <= 1
                good = lambda moves, after: 1 + max(self.value(v, after) for v in moves) == target
            else:  # any cut after which every reply is still won
                order = self.ordered_cuts(a, mask)
                contained_ok = True
                good = lambda moves, after: all(self.win(v, after) for v in moves)
            legal = order or [k for k in range(len(self.g.cuttable)) if mask >> k & 1]
            for k in legal:
                after = mask & ~(1 << k)
                cut = list(self.g.cuttable[k])
                if not self.reachable_gateway(a, after):
                    if contained_ok:
                        nodes[nid] = {"agent": a, "cut": cut, "next": {}}
                        return nid
                    continue
                moves = self.neighbours(a, after) or [a]
                if any(v in self.g.m.gateways for v in moves):
                    continue
                if good(moves, after):
                    nodes[nid] = {"agent": a, "cut": cut, "next": {}}
                    nodes[nid]["next"] = {str(v): build(v, after) for v in moves}
                    return nid
            raise AssertionError("no cut achieves the value")  # the memo says one exists

        root = build(a, mask)
        return {"type": "skynet-player-strategy", "root": root, "nodes": nodes}

    def agent_strategy(self, a: int, mask: int) -> dict:
        """Agent node: ``{"agent", "replies": {"u-v": {"move": v, "next": node id | None}}}``
        (``next`` None: the move reaches a gateway)."""
        g = self.g
        nodes: dict[str, dict] = {}

        def build(a: int, mask: int) -> str:
            nid = f"{a}:{mask:x}"
            if nid in nodes:
                return nid
            replies: dict[str, dict] = {}
            nodes[nid] = {"agent": a, "replies": replies}
            for k in range(len(g.cuttable)):
                if not mask >> k & 1:
                    continue
                after = mask & ~(1 << k)
                moves = self.neighbours(a, after) or [a]
                u, v = g.cuttable[k]
                gate = next((w for w in moves if w in g.m.gateways), None)
                if gate is not None:
                    replies[f"{u}-{v}"] = {"move": gate, "next": None}
                    continue
                bad = next(w for w in moves if not self.win(w, after))
                replies[f"{u}-{v}"] = {"move": bad, "next": build(bad, after)}
            return nid

        root = build(a, mask)
        return {"type": "skynet-agent-strategy", "root": root, "nodes": nodes}


def solve(m: SkynetMap, rule: str = "ep2", start: int | None = None, *, value: bool = False,
          max_nodes: int | None = 2_000_000, deadline: Deadline | None = None,
          certificate: bool = True) -> Result:
    """The verdict (WIN/LOSS for the player) with the winner's strategy as a certificate, and
    with ``value`` the fewest cuts that contain the agent whatever it does (then the player's
    strategy achieves it). ``deadline`` (the task's clock; None: no limit) bounds the
    search, writing the strategy and its replay. A spent budget gives UNKNOWN (with the
    verdict, if it was settled)."""
    t0 = time.monotonic()
    clock = deadline if deadline is not None else Deadline(None)
    named = clock.limit  # the limit an UNKNOWN names
    s = m.start if start is None else start
    solver = ExplicitSolver(m, rule, max_nodes, clock)
    full = (1 << len(solver.g.cuttable)) - 1
    params = {"rule": rule, "start": s, "value": value, "max_nodes": max_nodes,
              "time_limit": named}
    verdict: bool | None = None
    try:
        verdict = solver.win(s, full)
        v = solver.value(s, full) if value and verdict else None
        cert: Any = None
        if certificate:
            cert = (solver.player_strategy(s, full, optimal=value) if verdict
                    else solver.agent_strategy(s, full))
    except _Budget:
        known = {} if verdict is None else {"verdict": "WIN" if verdict else "LOSS"}
        known["note"] = (f"{which_limit(clock, params)} reached"
                         + ("" if verdict is None else " (the verdict was settled; the "
                            "value or the certificate was not)"))
        return Result("skynet", Status.UNKNOWN, known, None,
                      solver="explicit", params=params, wall_time=time.monotonic() - t0,
                      stats={"states": solver.nodes}, instance=m.name)
    status = Status.WIN if verdict else Status.LOSS
    checked = None
    if cert is not None:
        try:
            problems = (check_player_strategy(m, rule, s, cert, deadline=clock) if verdict
                        else check_agent_strategy(m, rule, s, cert, deadline=clock))
        except CheckLimit:
            note = (f"{which_limit(clock, params)} reached while the "
                    "strategy was replayed (the verdict was settled by the search)")
            return Result("skynet", Status.UNKNOWN, {"verdict": status.value, "note": note},
                          None, solver="explicit", params=params,
                          wall_time=time.monotonic() - t0, stats={"states": solver.nodes},
                          instance=m.name)
        checked = {"ok": not problems, "violations": problems,
                   "by": "puzzleproof.encoders.skynet_explicit.check_*_strategy (rules replay)"}
    answer = {"verdict": status.value}
    if value and verdict:
        answer["value"] = int(v)  # type: ignore[arg-type]
    return Result("skynet", status, answer, cert, solver="explicit", solver_version="1",
                  params=params, wall_time=time.monotonic() - t0,
                  stats={"states": solver.nodes}, check=checked, instance=m.name)
