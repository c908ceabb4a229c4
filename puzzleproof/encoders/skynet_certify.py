"""Certificates of a decided Skynet game: the winner's strategy written out from a
decision of :mod:`puzzleproof.encoders.skynet_cegar`, and its rules replay.

A HOLDS decision gives the player's strategy (:class:`PlayerStrategy`, every pass replaced
by a legal cut); a REFUTED one gives the agent's strategy or, for "contain within H?", the
agent's escape. Each is a JSON object read by :mod:`puzzleproof.models.skynet_strategy`,
whose checkers share nothing with the solver; :func:`check` runs them inside the solver's
deadline (a replay that runs out raises :class:`NoCertificate`: no verdict is reported
unchecked).
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from puzzleproof.encoders.skynet_cegar import Proposer, Reduced, TNode
from puzzleproof.encoders.skynet_contain import contained as _contained
from puzzleproof.models.skynet import SkynetMap, norm
from puzzleproof.models.skynet_strategy import (CheckLimit, check_agent_escape,
                                                check_agent_strategy, check_player_strategy)

__all__ = ["PlayerStrategy", "NoCertificate", "TooLarge", "player_certificate",
           "agent_certificate", "agent_certificate_from_tree", "check"]

# -- certificates ----------------------------------------------------------------------

class NoCertificate(Exception):
    """The deadline passed while a certificate was being written."""


class TooLarge(Exception):
    """An escape strategy would answer more positions than the cap allows."""




class PlayerStrategy:
    """The completed proposal of a HOLDS decision as a player strategy that never passes.

    The refuter proved that the *virtual* strategy wins: the tree's cuts on the tree,
    :meth:`Reduced.policy` off it, passes allowed. The real strategy follows it on a second
    mask: it makes the virtual cut when that link is still there and otherwise (a virtual
    pass, or a link it already cut) cuts another link - the agent's own gateway link, else
    the nearest gateway link. The real links are always a subset of the virtual ones, so
    every real agent line is a virtual line, which the virtual strategy wins. In a verdict
    (not a value question), once no node keeps two gateway links the strategy simply cuts
    the agent's own gateway link (else the nearest one), which wins whatever the agent does.

    A position is ``(agent, vmask, rmask, tree node or None)``; :meth:`step` gives the cut
    and the position after it, :meth:`follow` the position after an agent move. Both the
    certificate writer and the exact bot (:mod:`puzzleproof.verify.skynet_bots`) use it.
    """

    def __init__(self, red: Reduced, A: Proposer, cand: dict) -> None:
        self.red, self.A, self.cand = red, A, cand
        full = (1 << red.K) - 1
        self.start = (red.start, full, full, A.root)

    def fallback(self, a: int, mask: int) -> int:
        red = self.red
        for k in red.own[a]:
            if mask >> k & 1:
                return k
        # the nearest remaining gateway link, by BFS over links still there (a gateway
        # link, not a link between two region nodes, so the agent's region stays whole and
        # the positions to answer stay few)
        seen = {a}
        queue = deque([a])
        while queue:
            u = queue.popleft()
            for k in red.own[u]:
                if mask >> k & 1:
                    return k
            for w, k in red.moves[u]:
                if (k is None or mask >> k & 1) and w not in seen:
                    seen.add(w)
                    queue.append(w)
        return next(k for k in range(red.K) if mask >> k & 1)

    def safe(self, mask: int) -> bool:
        """No node keeps two gateway links (and the question is the verdict)."""
        return not self.A.value and all(sum(mask >> k & 1 for k in ks) < 2
                                        for ks in self.red.own.values())

    def step(self, pos: tuple) -> tuple[int, tuple]:
        """The link index to cut at ``pos`` and the position after the cut."""
        a, vmask, rmask, x = pos
        if self.safe(rmask):
            k = self.fallback(a, rmask)
            after = rmask & ~(1 << k)
            return k, (a, after, after, None)
        if x is not None:
            k = self.cand[x.id][0] if x.id in self.cand else None
        else:
            k = self.red.policy(a, vmask)
        vafter = vmask if k is None else vmask & ~(1 << k)
        real = k if k is not None and rmask >> k & 1 else self.fallback(a, rmask)
        return real, (a, vafter, rmask & ~(1 << real), x)

    def follow(self, pos: tuple, w: int) -> tuple:
        """The position after the agent moves to ``w``."""
        _, vmask, rmask, x = pos
        return (w, vmask, rmask, None if x is None else x.children.get(w))

    @staticmethod
    def key(pos: tuple) -> str:
        a, vmask, rmask, x = pos
        if vmask == rmask and x is None:
            return f"s{a}:{rmask:x}"
        return f"t{x.id}:{rmask:x}" if x is not None else f"{a}:{vmask:x}:{rmask:x}"


def player_certificate(red: Reduced, A: Proposer, cand: dict,
                        deadline: float | None = None) -> dict:
    """The :class:`PlayerStrategy` of a HOLDS decision written out for every agent move."""
    gates = red.m.gateways
    strat = PlayerStrategy(red, A, cand)
    nodes: dict[str, dict] = {}

    def build(pos: tuple) -> str:
        nid = strat.key(pos)
        if nid in nodes:
            return nid
        if deadline is not None and len(nodes) % 256 == 0 and time.monotonic() > deadline:
            raise NoCertificate
        a = pos[0]
        k, after = strat.step(pos)
        rmask = after[2]
        node: dict[str, Any] = {"agent": a, "cut": list(red.cuttable[k]), "next": {}}
        nodes[nid] = node
        if _contained(red, a, rmask):
            return nid
        moves = [w for w, j in red.moves[a] if j is None or rmask >> j & 1]
        moves += [g for g, j in red.gate_links[a] if rmask >> j & 1]
        for w in moves:
            if w in gates:
                raise AssertionError(f"certificate: the agent reaches gateway {w}")
            node["next"][str(w)] = build(strat.follow(after, w))
        return nid

    root = build(strat.start)
    return {"type": "skynet-player-strategy", "root": root, "nodes": nodes}


def agent_certificate_from_tree(red: Reduced, A: Proposer,
                                 deadline: float | None = None,
                                 horizon: int | None = None,
                                 max_nodes: int | None = None) -> dict | None:
    """The agent's strategy read off the refuted proposer's tree. No proposal means no
    choice of cuts (or passes) at the tree's nodes keeps every tree sequence off the
    gateways, so in the finite game on the tree (the player cuts at a node, the agent moves
    to a child or onto a gateway) the agent wins; a memoised search over (tree node, links
    left) finds its moves. A cut that does not matter is answered like a pass. None if the
    tree game is not won (it always is; the caller then falls back to a plain search).

    With ``horizon`` (a refuted value question "contain within H cuts?") the agent wins
    the tree game by staying uncontained after each of the first H cuts, and the result
    is an escape strategy (``skynet-agent-escape``)."""
    gates = red.m.gateways
    K = red.K
    win: dict[tuple[int, int], bool] = {}
    reply: dict[tuple[int, int, int], tuple[int, TNode | None]] = {}  # k = -1: a pass

    def answer(x: TNode, after: int, k: int | None) -> tuple[int, TNode | None] | None:
        for g, j in red.gate_links[x.pos]:
            if after >> j & 1:
                return g, None
        for w, y in x.children.items():
            j = red.kindex.get(norm(x.pos, w))
            if (j is None or after >> j & 1) and wins(y, after):
                return w, y
        return None

    def wins(x: TNode, mask: int) -> bool:
        key = (x.id, mask)
        if key in win:
            return win[key]
        if deadline is not None and len(win) % 256 == 0 and time.monotonic() > deadline:
            raise NoCertificate
        if max_nodes is not None and len(win) > 4 * max_nodes:
            raise TooLarge
        ok = True
        for k in [j for j in range(K) if mask >> j & 1] + [-1]:
            after = mask if k < 0 else mask & ~(1 << k)
            if horizon is not None and _contained(red, x.pos, after):
                ok = False
                break
            if horizon is not None and x.depth + 1 >= horizon:
                reply[(x.id, mask, k)] = (-1, None)  # free after the last cut asked about
                continue
            got = answer(x, after, k)
            if got is None:
                ok = False
                break
            reply[(x.id, mask, k)] = got
        win[key] = ok
        return ok

    full = (1 << K) - 1
    if not wins(A.root, full):
        return None
    relevant = set(red.cuttable)
    others = [l for l in red.m.links if l not in relevant]
    nodes: dict[str, dict] = {}

    def build(x: TNode, mask: int) -> str:
        nid = f"t{x.id}:{mask:x}"
        if nid in nodes:
            return nid
        if max_nodes is not None and len(nodes) >= max_nodes:
            raise TooLarge
        replies: dict[str, dict] = {}
        nodes[nid] = {"agent": x.pos, "replies": replies}

        def entry(k: int) -> dict:
            w, y = reply[(x.id, mask, k)]
            after = mask if k < 0 else mask & ~(1 << k)
            if w < 0:
                return {"move": None, "next": None}
            return {"move": w, "next": None if w in gates or y is None else build(y, after)}

        for k in [j for j in range(K) if mask >> j & 1]:
            u, v = red.cuttable[k]
            replies[f"{u}-{v}"] = entry(k)
        if others:
            e = entry(-1)
            for u, v in others:
                replies[f"{u}-{v}"] = e
        return nid

    root = build(A.root, full)
    if horizon is not None:
        return {"type": "skynet-agent-escape", "horizon": horizon, "root": root,
                "nodes": nodes}
    return {"type": "skynet-agent-strategy", "root": root, "nodes": nodes}


def agent_certificate(red: Reduced, deadline: float | None) -> dict | None:
    """The agent's strategy for a lost game: a memoised search over (agent, links left) in
    the region. A cut that does not matter is answered like a pass: the reply to some cut
    that matters, then the search goes on with the links unchanged (passing never helps the
    player, so that position is lost too). None when the deadline passes first."""
    m, gates = red.m, red.m.gateways
    K = red.K
    lost: dict[tuple[int, int], bool] = {}  # (agent, mask) -> the player loses
    reply: dict[tuple[int, int, int], int] = {}  # (agent, mask, k) -> move
    count = [0]

    def moves(a: int, mask: int) -> list[int]:
        out = [g for g, j in red.gate_links[a] if mask >> j & 1]
        return out + [w for w, j in red.moves[a] if j is None or mask >> j & 1]

    def loses(a: int, mask: int) -> bool:  # the masks shrink along every line: no cycles
        key = (a, mask)
        if key in lost:
            return lost[key]
        count[0] += 1
        if deadline is not None and count[0] % 512 == 0 and time.monotonic() > deadline:
            raise TimeoutError
        result = not _contained(red, a, mask)
        for k in [j for j in range(K) if result and mask >> j & 1]:
            after = mask & ~(1 << k)
            best = next((w for w in moves(a, after) if w in gates or loses(w, after)), None)
            if best is None:
                result = False
                break
            reply[(a, mask, k)] = best
        lost[key] = result
        return result

    relevant = set(red.cuttable)
    others = [l for l in m.links if l not in relevant]
    nodes: dict[str, dict] = {}

    def build(a: int, mask: int) -> str:
        nid = f"{a}:{mask:x}"
        if nid in nodes:
            return nid
        if not loses(a, mask):
            raise AssertionError(f"agent certificate: position {nid} is not lost")
        replies: dict[str, dict] = {}
        nodes[nid] = {"agent": a, "replies": replies}
        for k in [j for j in range(K) if mask >> j & 1]:
            w = reply[(a, mask, k)]
            u, v = red.cuttable[k]
            replies[f"{u}-{v}"] = {"move": w, "next": None if w in gates
                                   else build(w, mask & ~(1 << k))}
        if others:
            k0 = next(j for j in range(K) if mask >> j & 1)
            w = reply[(a, mask, k0)]
            entry = {"move": w, "next": None if w in gates else build(w, mask)}
            for u, v in others:
                replies[f"{u}-{v}"] = entry
        return nid

    full = (1 << K) - 1
    try:
        if not loses(red.start, full):
            return None
        root = build(red.start, full)
    except TimeoutError:
        return None
    return {"type": "skynet-agent-strategy", "root": root, "nodes": nodes}


def check(m: SkynetMap, rule: str, start: int, cert: dict, win: bool,
           deadline: float | None = None) -> dict:
    """The rules replay of a certificate; a replay that passes ``deadline`` raises
    :class:`NoCertificate` (the limit covers the check: no verdict is reported unchecked)."""
    try:
        if cert.get("type") == "skynet-agent-escape":
            problems = check_agent_escape(m, rule, start, cert, deadline=deadline)
        elif win:
            problems = check_player_strategy(m, rule, start, cert, deadline=deadline)
        else:
            problems = check_agent_strategy(m, rule, start, cert, deadline=deadline)
    except CheckLimit:
        raise NoCertificate() from None
    return {"ok": not problems, "violations": problems,
            "by": "puzzleproof.models.skynet_strategy (rules replay, every opponent move)"}
