"""Skynet Episode 2 verdicts by a memoised search over positions whose leaves are decided
without search, and the winner's certificate read off its table.

A position is (agent node, gateway links left), the player to cut. Two tests end a line at
once (:mod:`.skynet_leaves`): **the invariant** (:func:`~.skynet_leaves.edf_holds`: the
free turns the player gets before the agent can stand on each node with two or more
gateway links cover the cuts those nodes need, earliest deadline first) proves the player
wins, and **a fixed path** (:func:`~.skynet_leaves.fixed_path`: a node with ``c`` links
left that the agent reaches with fewer than ``c - 1`` free turns; at the start also a
chain through several such nodes, :func:`~.skynet_leaves.chain_path`) proves the agent
wins.
Elsewhere the player cuts the agent's gateway link when it has one (forced), else tries
every gateway link of the region, those of the nodes with two or more left first, nearest
in free turns first; the agent's every reply must be won. The search is exact: each
position is won or lost by the rules, and the certificates are tables keyed by position
(one node per position, leaves as invariant or path nodes) that the rules-only checker of
:mod:`puzzleproof.models.skynet_strategy` replays.

The memo is per region, so every start of a map shares it (:class:`TableSearch` is kept in
the solver's cache). A position budget bounds it; when it runs out the caller falls back
to the SAT CEGAR.
"""

from __future__ import annotations

from collections import deque

from puzzleproof.clock import Deadline
from puzzleproof.encoders.skynet_contain import contained
from puzzleproof.encoders.skynet_leaves import chain_path, edf_holds, fixed_path, free_turns
from puzzleproof.encoders.skynet_reduced import Reduced
from puzzleproof.models.skynet_strategy import INVARIANT

__all__ = ["TableSearch", "OutOfBudget", "compact_agent_table"]

WIN_LEAF, LOST_LEAF = -1, -2  # memo values besides a cut index (won) and None (lost)
_MISSING = object()


class OutOfBudget(Exception):
    """The position budget or the deadline ran out: nothing is decided."""


class TableSearch:
    """Memoised verdicts over (agent, links left) for the region of ``red`` (a
    :class:`~.skynet_reduced.Reduced` under ``ep2``); reused for every start in it."""

    def __init__(self, red: Reduced) -> None:
        if red.rule != "ep2":
            raise ValueError("the table search plays Episode 2 rules only")
        self.red = red
        self.memo: dict[tuple[int, int], int | None] = {}
        self.paths: dict[tuple[int, int], list[int]] = {}
        self.deadline: Deadline | None = None
        self.limit = 0
        self.visits = 0

    # -- the search ----------------------------------------------------------------------

    def _moves(self, a: int, mask: int) -> list[int]:
        return [w for w, j in self.red.moves[a] if j is None or mask >> j & 1]

    def _cuts(self, a: int, mask: int) -> list[int]:
        """The cuts worth trying: the agent's own gateway link when it has one (forced),
        else every gateway link of its reach, doubles' first, nearest first."""
        red = self.red
        own = [k for k in red.own[a] if mask >> k & 1]
        if own:
            return own
        dist, _ = free_turns(red, a, mask)
        ranked = []
        for u, f in dist.items():
            left = [k for k in red.own[u] if mask >> k & 1]
            for k in left:
                ranked.append((0 if len(left) >= 2 else 1, f, k))
        return [k for _, _, k in sorted(ranked)]

    def _win(self, a: int, mask: int) -> bool:
        key = (a, mask)
        got = self.memo.get(key, _MISSING)
        if got is not _MISSING:
            return got is not None and got != LOST_LEAF
        self.visits += 1
        if len(self.memo) >= self.limit or (
                self.deadline is not None
                and self.deadline.expired()):
            raise OutOfBudget
        red = self.red
        if edf_holds(red, a, mask):
            self.memo[key] = WIN_LEAF
            return True
        path = fixed_path(red, a, mask)
        if path is not None:
            self.memo[key] = LOST_LEAF
            self.paths[key] = path
            return False
        for k in self._cuts(a, mask):
            after = mask & ~(1 << k)
            if contained(red, a, after):
                self.memo[key] = k
                return True
            if any(after >> j & 1 for j in red.own[a]):
                continue  # the agent steps onto a gateway
            if all(self._win(w, after) for w in self._moves(a, after)):
                self.memo[key] = k
                return True
        self.memo[key] = None  # every cut refuted (links only go: no line returns here)
        return False

    def decide(self, start: int, deadline: Deadline | None = None,
               max_positions: int = 50_000) -> bool | None:
        """True (the player wins from ``start``), False (the agent wins), None (the budget
        ran out; the memo keeps what was decided)."""
        self.deadline, self.limit = deadline, len(self.memo) + max_positions
        full = (1 << self.red.K) - 1
        key = (start, full)
        if key not in self.memo and not edf_holds(self.red, start, full):
            # at the start only (it costs a search per node with two gateway links): a
            # fixed path through several of them
            path = chain_path(self.red, start, full, depth=8, deadline=deadline)
            if path is not None:
                self.memo[key] = LOST_LEAF
                self.paths[key] = path
        try:
            return self._win(start, full)
        except OutOfBudget:  # the memo holds only positions decided in full
            return None

    # -- certificates --------------------------------------------------------------------

    def player_certificate(self, start: int, deadline: Deadline | None = None) -> dict:
        """The player's table from a won ``start``: one node per position, invariant nodes
        at the leaves the invariant proves. Raises :class:`OutOfBudget` past
        ``deadline``."""
        red = self.red
        full = (1 << red.K) - 1
        nodes: dict[str, dict] = {}
        root = f"{start}:{full:x}"
        todo = deque([(start, full)])
        while todo:
            a, mask = todo.popleft()
            nid = f"{a}:{mask:x}"
            if nid in nodes:
                continue
            if deadline is not None and deadline.expired():
                raise OutOfBudget
            k = self.memo[(a, mask)]
            if k == WIN_LEAF:
                nodes[nid] = {"agent": a, "invariant": INVARIANT}
                continue
            after = mask & ~(1 << k)
            nxt: dict[str, str] = {}
            nodes[nid] = {"agent": a, "cut": list(red.cuttable[k]), "next": nxt}
            if contained(red, a, after):
                continue
            for w in self._moves(a, after):
                nxt[str(w)] = f"{w}:{after:x}"
                todo.append((w, after))
        return {"type": "skynet-player-strategy", "root": root, "nodes": nodes}

    def agent_certificate(self, start: int, deadline: Deadline | None = None) -> dict:
        """The agent's table from a lost ``start``: a reply to every legal cut at each
        position, path nodes at the leaves a fixed path proves. A cut outside the region
        is answered (``"otherwise"``) like the first cut that matters, from the position
        with the links unchanged (more links never hurt the agent, so it is lost too).
        Raises
        :class:`OutOfBudget` past ``deadline``."""
        red = self.red
        gates = red.m.gateways
        full = (1 << red.K) - 1
        nodes: dict[str, dict] = {}
        root = f"{start}:{full:x}"
        todo = deque([(start, full)])

        def reply(a: int, after: int) -> int:
            for g, j in red.gate_links[a]:
                if after >> j & 1:
                    return g
            for w in self._moves(a, after):
                if not self._win(w, after):  # memoised; decided when the search was
                    return w
            raise AssertionError(f"agent certificate: no losing reply at {a}:{after:x}")

        self.limit = 1 << 62
        self.deadline = deadline
        while todo:
            a, mask = todo.popleft()
            nid = f"{a}:{mask:x}"
            if nid in nodes:
                continue
            if deadline is not None and deadline.expired():
                raise OutOfBudget
            self._win(a, mask)
            if self.memo.get((a, mask)) == LOST_LEAF:
                nodes[nid] = {"agent": a, "path": self.paths[(a, mask)]}
                continue
            replies: dict[str, dict] = {}
            nodes[nid] = {"agent": a, "replies": replies}
            for k in [j for j in range(red.K) if mask >> j & 1]:
                after = mask & ~(1 << k)
                w = reply(a, after)
                u, v = red.cuttable[k]
                replies[f"{u}-{v}"] = {"move": w, "next": None if w in gates
                                       else f"{w}:{after:x}"}
                if w not in gates:
                    todo.append((w, after))
            # a cut outside the region: the reply to the first cut that matters, from the
            # position with the links unchanged (more links never hurt the agent)
            k0 = next(j for j in range(red.K) if mask >> j & 1)
            w = reply(a, mask & ~(1 << k0))
            nodes[nid]["otherwise"] = {"move": w, "next": None if w in gates
                                       else f"{w}:{mask:x}"}
            if w not in gates:
                todo.append((w, mask))
        return compact_agent_table({"type": "skynet-agent-strategy", "root": root,
                                    "nodes": nodes})


def compact_agent_table(cert: dict) -> dict:
    """An agent table made smaller without changing what it answers: path nodes with the
    same agent and path become one, and at each node the replies shared by the most cuts
    (a move onto a gateway or onto a path node: both hold whatever else was cut) become its
    ``"otherwise"`` reply. Valid for tables that name every legal cut or answer the others
    with a pass's reply already in ``"otherwise"``: a cut dropped from ``replies`` had the
    reply that ``"otherwise"`` now gives; the pass reply it replaces answered only cuts that
    change nothing the agent can reach, which a path or a gateway move answers as well."""
    nodes = cert["nodes"]
    same: dict[tuple, str] = {}
    alias: dict[str, str] = {}
    for nid, node in nodes.items():
        if "path" in node and "replies" not in node:
            alias[nid] = same.setdefault((node.get("agent"), tuple(node["path"])), nid)
    out: dict[str, dict] = {}
    todo = [alias.get(cert["root"], cert["root"])]
    while todo:
        nid = todo.pop()
        if nid in out:
            continue
        node = nodes[nid]
        if "replies" in node:
            node = _shared_otherwise(node, alias, nodes)
            for e in list(node["replies"].values()) + [node.get("otherwise") or {}]:
                if e.get("next") is not None:
                    todo.append(e["next"])
        out[nid] = node
    return {**cert, "root": alias.get(cert["root"], cert["root"]), "nodes": out}


def _shared_otherwise(node: dict, alias: dict[str, str], nodes: dict[str, dict]) -> dict:
    """``node`` with its references renamed and its most shared path or gateway reply as
    ``"otherwise"`` (see :func:`compact_agent_table`)."""
    def renamed(e: dict) -> dict:
        nxt = e.get("next")
        return e if nxt is None or nxt not in alias else {**e, "next": alias[nxt]}

    replies = {c: renamed(e) for c, e in node["replies"].items()}
    other = node.get("otherwise")
    other = None if other is None else renamed(other)
    count: dict[tuple, int] = {}
    for e in replies.values():
        nxt = e.get("next")
        if nxt is None or "replies" not in nodes[nxt]:
            key = (e.get("move"), nxt)
            count[key] = count.get(key, 0) + 1
    if count:
        move, nxt = max(count, key=lambda key: count[key])
        if count[(move, nxt)] > 1:
            replies = {c: e for c, e in replies.items()
                       if (e.get("move"), e.get("next")) != (move, nxt)}
            other = {"move": move, "next": nxt}
    out = {**node, "replies": replies}
    if other is not None:
        out["otherwise"] = other
    return out
