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

from collections import deque
from typing import Any

from puzzleproof.clock import Deadline
from puzzleproof.encoders.skynet_cegar import Proposer
from puzzleproof.encoders.skynet_contain import contained as _contained
from puzzleproof.encoders.skynet_leaves import chain_path, edf_holds, fixed_path
from puzzleproof.encoders.skynet_reduced import Reduced
from puzzleproof.encoders.skynet_table import compact_agent_table
from puzzleproof.encoders.skynet_tree import TNode
from puzzleproof.models.skynet import SkynetMap, norm
from puzzleproof.models.skynet_strategy import (INVARIANT, CheckLimit, check_agent_escape,
                                                check_agent_strategy, certificate_kind,
                                                check_player_strategy)

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
    certificate writer and the exact bot (:mod:`puzzleproof.players.skynet_bots`) use it.
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
        own = self.red.own
        return not self.A.value and all(sum(mask >> k & 1 for k in own[d]) < 2
                                        for d in self.red.doubles)

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


def quick_certificate(red: Reduced, deadline: Deadline | None = None
                      ) -> tuple[bool, dict] | None:
    """A verdict without search, when the start decides it: (True, a one-node player
    strategy) when the invariant holds there, (False, a one-node agent path) when a
    fixed path wins; None otherwise (also when ``deadline`` passes while a chain of
    fixed paths is sought)."""
    full = (1 << red.K) - 1
    a = red.start
    if edf_holds(red, a, full):
        return True, {"type": "skynet-player-strategy", "root": f"{a}:{full:x}",
                      "nodes": {f"{a}:{full:x}": {"agent": a, "invariant": INVARIANT}}}
    path = fixed_path(red, a, full) or chain_path(red, a, full, deadline=deadline)
    if path is not None:
        return False, {"type": "skynet-agent-strategy", "root": f"{a}:{full:x}",
                       "nodes": {f"{a}:{full:x}": {"agent": a, "path": path}}}
    return None


def player_certificate(red: Reduced, A: Proposer, cand: dict,
                        deadline: Deadline | None = None, invariant: bool = True) -> dict:
    """The :class:`PlayerStrategy` of a HOLDS decision written out as a table keyed by
    position (agent node, links left): one node per position, whatever line reaches it
    (every line that reaches a position is won by the strategy from there, so the first
    answer written serves them all). Built breadth-first in time linear in the positions.

    With ``invariant`` (verdicts only: the strategy answers no value question), a position
    where the free turns cover the cuts the doubles need (:func:`edf_holds`) is written
    as an invariant node (:data:`~puzzleproof.models.skynet_strategy.INVARIANT`): the
    player then follows a fixed rule the checker proves by the invariant, so the table
    stops there instead of following the agent over the whole region."""
    strat = PlayerStrategy(red, A, cand)
    use_inv = invariant and not A.value
    nodes: dict[str, dict] = {}
    moves_of, gate_links = red.moves, red.gate_links
    pos = strat.start
    root = f"{pos[0]}:{pos[2]:x}"
    todo = deque([(root, pos)])
    count = 0
    while todo:
        nid, pos = todo.popleft()
        if nid in nodes:
            continue
        count += 1
        if deadline is not None and count % 16 == 0 and deadline.expired():
            raise NoCertificate
        a = pos[0]
        if use_inv and edf_holds(red, a, pos[2]):
            nodes[nid] = {"agent": a, "invariant": INVARIANT}
            continue
        k, after = strat.step(pos)
        rmask = after[2]
        node: dict[str, Any] = {"agent": a, "cut": list(red.cuttable[k]), "next": {}}
        nodes[nid] = node
        if any(rmask >> j & 1 for _, j in gate_links[a]):
            raise AssertionError(f"certificate: the agent at {a} reaches a gateway")
        if _contained(red, a, rmask):
            continue
        nxt = node["next"]
        for w, j in moves_of[a]:
            if j is None or rmask >> j & 1:
                cid = f"{w}:{rmask:x}"
                nxt[str(w)] = cid
                if cid not in nodes:
                    todo.append((cid, strat.follow(after, w)))
    return {"type": "skynet-player-strategy", "root": root, "nodes": nodes}


def agent_certificate_from_tree(red: Reduced, A: Proposer,
                                 deadline: Deadline | None = None,
                                 horizon: int | None = None,
                                 max_nodes: int | None = None) -> dict | None:
    """The agent's strategy read off the refuted proposer's tree. No proposal means no
    choice of cuts (or passes) at the tree's nodes keeps every tree sequence off the
    gateways, so in the finite game on the tree (the player cuts at a node, the agent moves
    to a child or onto a gateway) the agent wins; a memoised search over (tree node, links
    left) finds its moves (:class:`_TreeGame`). A cut that does not matter is answered like
    a pass. None if the tree game is not won (it always is; the caller then falls back to a
    plain search).

    With ``horizon`` (a refuted value question "contain within H cuts?") the agent wins
    the tree game by staying uncontained after each of the first H cuts, and the result
    is an escape strategy (``skynet-agent-escape``). Raises :class:`NoCertificate` past
    ``deadline`` and :class:`TooLarge` above ``max_nodes`` positions."""
    game = _TreeGame(red, deadline, horizon, max_nodes)
    full = (1 << red.K) - 1
    if not game.wins(A.root, full):
        return None
    root = game.build(A.root, full)
    if horizon is not None:
        return compact_agent_table({"type": "skynet-agent-escape", "horizon": horizon,
                                    "root": root, "nodes": game.nodes})
    return compact_agent_table({"type": "skynet-agent-strategy", "root": root,
                                "nodes": game.nodes})


class _TreeGame:
    """The finite game on a refuted proposer's tree, solved for the agent
    (:meth:`wins`, memoised over (tree node, links left)), and its strategy written as a
    table (:meth:`build`). In a verdict (no ``horizon``) a position where a fixed path wins
    (:func:`fixed_path`) is a leaf: the agent walks it whatever is cut, so the search and
    the table stop there."""

    def __init__(self, red: Reduced, deadline: Deadline | None, horizon: int | None,
                 max_nodes: int | None) -> None:
        self.red, self.deadline, self.horizon, self.max_nodes = red, deadline, horizon, max_nodes
        self.win: dict[tuple[int, int], bool] = {}
        # (node id, links left, cut k or -1 for a pass) -> (the agent's move, its tree node)
        self.reply: dict[tuple[int, int, int], tuple[int, TNode | None]] = {}
        self.paths: dict[tuple[int, int], list[int]] = {}  # (node id, links left) -> path
        self.nodes: dict[str, dict] = {}

    def answer(self, x: TNode, after: int) -> tuple[int, TNode | None] | None:
        """The agent's winning move at ``x`` with links ``after`` left: a gateway when one
        is next to it, else a child that wins; None when there is none."""
        red = self.red
        for g, j in red.gate_links[x.pos]:
            if after >> j & 1:
                return g, None
        for w, y in x.children.items():
            j = red.kindex.get(norm(x.pos, w))
            if (j is None or after >> j & 1) and self.wins(y, after):
                return w, y
        return None

    def wins(self, x: TNode, mask: int) -> bool:
        """Whether the agent at tree node ``x`` (links ``mask`` left, the player to cut)
        answers every cut and the pass with a winning move."""
        key = (x.id, mask)
        win = self.win
        if key in win:
            return win[key]
        if (self.deadline is not None and len(win) % 16 == 0
                and self.deadline.expired()):
            raise NoCertificate
        if self.max_nodes is not None and len(win) > 4 * self.max_nodes:
            raise TooLarge
        red, horizon = self.red, self.horizon
        if horizon is None:
            path = fixed_path(red, x.pos, mask)
            if path is not None:
                self.paths[key] = path
                win[key] = True
                return True
        ok = True
        for k in [j for j in range(red.K) if mask >> j & 1] + [-1]:
            after = mask if k < 0 else mask & ~(1 << k)
            if horizon is not None and _contained(red, x.pos, after):
                ok = False
                break
            if horizon is not None and x.depth + 1 >= horizon:
                self.reply[(x.id, mask, k)] = (-1, None)  # free after the last cut asked about
                continue
            got = self.answer(x, after)
            if got is None:
                ok = False
                break
            self.reply[(x.id, mask, k)] = got
        win[key] = ok
        return ok

    def build(self, x: TNode, mask: int) -> str:
        """The table node of (``x``, ``mask``) and those below it; its id. A cut outside
        the links that matter is answered like a pass (``"otherwise"``)."""
        nid = f"t{x.id}:{mask:x}"
        nodes = self.nodes
        if nid in nodes:
            return nid
        if self.max_nodes is not None and len(nodes) >= self.max_nodes:
            raise TooLarge
        red = self.red
        path = self.paths.get((x.id, mask))
        if path is not None:
            nodes[nid] = {"agent": x.pos, "path": path}
            return nid
        replies: dict[str, dict] = {}
        nodes[nid] = {"agent": x.pos, "replies": replies, "otherwise": self._entry(x, mask, -1)}
        for k in [j for j in range(red.K) if mask >> j & 1]:
            u, v = red.cuttable[k]
            replies[f"{u}-{v}"] = self._entry(x, mask, k)
        return nid

    def _entry(self, x: TNode, mask: int, k: int) -> dict:
        """The reply to cut ``k`` (-1: a cut that does not matter, answered as a pass)."""
        w, y = self.reply[(x.id, mask, k)]
        after = mask if k < 0 else mask & ~(1 << k)
        if w < 0:
            return {"move": None, "next": None}
        return {"move": w, "next": None if w in self.red.m.gateways or y is None
                else self.build(y, after)}


def agent_certificate(red: Reduced, deadline: Deadline | None) -> dict | None:
    """The agent's strategy for a lost game: a memoised search over (agent, links left) in
    the region. A cut that does not matter is answered like a pass: the reply to some cut
    that matters, then the search goes on with the links unchanged (passing never helps the
    player, so that position is lost too). None when the deadline passes first."""
    gates = red.m.gateways
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
        if deadline is not None and count[0] % 16 == 0 and deadline.expired():
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

    nodes: dict[str, dict] = {}

    def build(a: int, mask: int) -> str:
        nid = f"{a}:{mask:x}"
        if nid in nodes:
            return nid
        path = fixed_path(red, a, mask)
        if path is not None:
            nodes[nid] = {"agent": a, "path": path}
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
        # a cut outside the links that matter: the reply to the first one that matters,
        # from the position with the links unchanged (more links never hurt the agent)
        k0 = next(j for j in range(K) if mask >> j & 1)
        w = reply[(a, mask, k0)]
        nodes[nid]["otherwise"] = {"move": w, "next": None if w in gates else build(w, mask)}
        return nid

    full = (1 << K) - 1
    try:
        if not loses(red.start, full):
            return None
        root = build(red.start, full)
    except TimeoutError:
        return None
    return compact_agent_table({"type": "skynet-agent-strategy", "root": root, "nodes": nodes})


def check(m: SkynetMap, rule: str, start: int, cert: dict, win: bool,
           deadline: Deadline | None = None) -> dict:
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
    return {"ok": not problems, "violations": problems, "certificate": certificate_kind(cert),
            "positions": len(cert.get("nodes") or {}),
            "by": "puzzleproof.models.skynet_strategy (rules replay, every opponent move)"}
