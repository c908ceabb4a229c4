"""The agent's escape written on the links it rests on, and its rules-only checker.

An escape proves that the fewest cuts containing the agent (Episode 1) are more than
``horizon``: after each of the player's first ``horizon`` cuts the agent is still free,
whatever is cut. Written as a table answering every cut at every position, it grows with
the number of links to the power of the horizon. This form stays small because each node
names the links its claim rests on.

A *witness* node is ``{"agent": a, "links": "<hex mask over m.links>", "h": h, ...}`` and
claims: **with the agent on** ``a``, **the player to cut and at least the links** ``W``
**left, the agent stays free after each of the next** ``h`` **cuts**. The claim only gets
easier with more links (fewer links never help the agent: a cut of a link outside ``W`` is
a pass on ``W``, and every move the agent makes on ``W`` is still there), so the checker
proves each node once, on ``W`` alone, whatever positions reach it. A node proves its claim
in one of three ways:

- ``h`` = 0: the agent reaches a gateway over ``W`` (nothing more to survive);
- ``"tempo": true``: every node ``x`` within ``h - 1`` moves of ``a`` over ``W`` has more
  than ``h`` link-disjoint paths to the gateways in ``W``. Whatever the agent does, after
  ``j <= h`` cuts it stands on such an ``x``, and ``j`` cuts cannot separate it;
- ``"replies": [{"move": w, "next": id | null}, ...]``: for every cut ``k`` of a link in
  ``W`` and for a cut elsewhere (a pass on ``W``), the first reply whose move does not use
  ``k`` and whose next node's links do not hold ``k`` answers it: the agent makes that
  move (onto a gateway: ``next`` null, it has won), and the next node's claim, for ``h - 1``
  cuts or more on links that ``W`` without ``k`` includes, carries the proof on.

Every node also must leave the agent free on ``W`` itself. The checker is the rules of
:mod:`puzzleproof.models.skynet` on bitmasks (:class:`~.skynet_board.Board`) and its own
count of disjoint paths; it shares nothing with the search that writes the proof
(:mod:`puzzleproof.encoders.skynet_fewest`), and it visits each node once.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from puzzleproof.clock import Deadline
from puzzleproof.models.skynet import SkynetMap
from puzzleproof.models.skynet_board import Board

__all__ = ["check_witness_escape", "disjoint_paths", "OutOfTime"]


class OutOfTime(Exception):
    """The deadline passed during the check: nothing is claimed."""


def disjoint_paths(bd: Board, x: int, links: int, most: int) -> int:
    """How many link-disjoint paths lead from ``x`` to the gateways over ``links`` (counted
    up to ``most``): augmenting paths, each found by a depth-first search of the residual
    links."""
    gates, inc = bd.gates, bd.inc
    used: dict[int, int] = {}  # link bit -> +1 when used from its lower node, -1 from higher
    found = 0
    while found < most:
        prev: dict[int, tuple[int, int] | None] = {x: None}
        stack = [x]
        end = None
        while stack and end is None:
            u = stack.pop()
            for v, b in inc[u]:
                if not links & b or v in prev:
                    continue
                f = used.get(b, 0) * (1 if u < v else -1)  # flow from u to v so far
                if f >= 1:
                    continue
                prev[v] = (u, b)
                if v in gates:
                    end = v
                    break
                stack.append(v)
        if end is None:
            return found
        v = end
        while (step := prev[v]) is not None:
            u, b = step
            used[b] = used.get(b, 0) + (1 if u < v else -1)
            if not used[b]:
                del used[b]
            v = u
        found += 1
    return found


def _ball(bd: Board, a: int, links: int, radius: int) -> list[int]:
    """The non-gateway nodes within ``radius`` moves of ``a`` over ``links``."""
    dist = {a: 0}
    queue = deque([a])
    while queue:
        u = queue.popleft()
        if dist[u] >= radius:
            continue
        for v, b in bd.inc[u]:
            if links & b and v not in dist and v not in bd.gates:
                dist[v] = dist[u] + 1
                queue.append(v)
    return list(dist)


def _node(nodes: dict, nid: Any, bd: Board) -> tuple[int, int, int, dict] | str:
    node = nodes.get(nid) if isinstance(nid, (str, int)) else None
    if not isinstance(node, dict):
        return f"no node {nid!r}"
    a, h, hexw = node.get("agent"), node.get("h"), node.get("links")
    if not isinstance(a, int) or not 0 <= a < bd.m.n or a in bd.gates:
        return f"node {nid!r}: the agent {a!r} is not a node outside the gateways"
    if not isinstance(h, int) or isinstance(h, bool) or h < 0:
        return f"node {nid!r}: 'h' must be a number of cuts"
    try:
        w = int(hexw, 16)
    except (TypeError, ValueError):
        return f"node {nid!r}: 'links' must be a hexadecimal mask"
    if w & ~bd.full or w < 0:
        return f"node {nid!r}: 'links' names links the map lacks"
    return a, h, w, node


def check_witness_escape(m: SkynetMap, rule: str, start: int, strategy: dict, *,
                         deadline: Deadline | None = None) -> list[str]:
    """The problems of an escape in witness form (empty: the agent is free after each of
    the first ``horizon`` cuts, whatever they are). Each node is proved once; raises
    :class:`OutOfTime` past ``deadline``."""
    if rule != "ep1":
        return ["an escape in witness form is an Episode 1 proof (any link may be cut)"]
    bd = Board(m, rule)
    nodes, root, horizon = strategy.get("nodes"), strategy.get("root"), strategy.get("horizon")
    if not isinstance(nodes, dict) or not isinstance(horizon, int):
        return ["the escape gives no 'nodes' or no 'horizon'"]
    got = _node(nodes, root, bd)
    if isinstance(got, str):
        return [got]
    if got[0] != start or got[1] < horizon:
        return [f"the root claims the agent on {got[0]} for {got[1]} cuts, not on {start} "
                f"for {horizon}"]
    problems: list[str] = []
    todo, done = [root], set()
    while todo and len(problems) < 5:
        nid = todo.pop()
        if nid in done:
            continue
        done.add(nid)
        if deadline is not None and len(done) % 64 == 0 and deadline.expired():
            raise OutOfTime
        problems += _check_node(bd, nodes, nid, todo)
    return problems


def _check_node(bd: Board, nodes: dict, nid: Any, todo: list) -> list[str]:
    """The problems of one node's claim, proved on its own links (its children pushed)."""
    got = _node(nodes, nid, bd)
    if isinstance(got, str):
        return [got]
    a, h, w, node = got
    if bd.region(a, w) is not None:
        return [f"node {nid!r}: the agent on {a} is contained on the node's own links"]
    if h == 0:
        return []
    if node.get("tempo") is True:
        for x in _ball(bd, a, w, h - 1):
            if disjoint_paths(bd, x, w, h + 1) <= h:
                return [f"node {nid!r}: node {x}, within {h - 1} moves, is cut off from "
                        f"the gateways by {h} cuts or fewer"]
        return []
    replies = node.get("replies")
    if not isinstance(replies, list) or not replies:
        return [f"node {nid!r}: no replies, no tempo claim and h = {h}"]
    answers = []
    for r in replies:
        got = _reply(bd, nodes, a, w, h, r)
        if isinstance(got, str):
            return [f"node {nid!r}: {got}"]
        answers.append(got)
        if r.get("next") is not None:
            todo.append(r["next"])
    bits = [0] + [1 << i for i in range(w.bit_length()) if w >> i & 1]  # 0: a pass
    for k in bits:
        if not any(not (move | child) & k for move, child in answers):
            u, v = bd.link(k)
            return [f"node {nid!r}: no reply answers the cut {u}-{v} (agent on {a})"]
    return []


def _reply(bd: Board, nodes: dict, a: int, w: int, h: int, r: Any
           ) -> tuple[int, int] | str:
    """(the bit of the reply's move, the links of its next node; 0 on a gateway) or why it
    is no reply at all."""
    if not isinstance(r, dict):
        return f"malformed reply {r!r}"
    move = r.get("move")
    bit = next((b for v, b in bd.inc[a] if v == move), None)
    if bit is None or not w & bit:
        return f"the agent on {a} has no link to {move!r} among the node's links"
    if move in bd.gates:
        return (bit, 0) if r.get("next") is None else f"a move onto gateway {move} goes on"
    child = _node(nodes, r.get("next"), bd)
    if isinstance(child, str):
        return child
    ca, ch, cw, _ = child
    if ca != move or ch < h - 1 or cw & ~w:
        return (f"the reply to {move} goes to a node of the agent on {ca} for {ch} cuts "
                f"on links that are not among the node's")
    return bit, cw
