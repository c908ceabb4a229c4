"""Skynet strategy certificates and their rules-only checkers.

A strategy is a JSON object ``{"type": ..., "root": node id, "nodes": {id: node}}``:

- ``skynet-player-strategy``: a node is ``{"agent": a, "cut": [u, v], "next": {move: id}}``;
  after the cut, ``next`` names the node for every place the agent may move to. A node may
  instead be ``{"agent": a, "invariant": "free-turns-cover-doubles"}``: from this position
  the player follows one fixed rule (cut the agent's gateway link when it has one, else a
  link of the node with two or more gateway links that the agent can reach in the fewest
  free turns), and the checker proves that the rule wins by checking an invariant at the
  position (:func:`invariant_holds`; in words: the cuts the nodes with two or more
  gateway links need are never more than the free turns the player gets before the agent
  can stand on them, earliest deadline first).
- ``skynet-agent-strategy``: a node is ``{"agent": a, "replies": {"u-v": {"move": w,
  "next": id | null}}, "otherwise": {"move": w, "next": id | null}}``: the agent's answer
  to every legal cut (``next`` null: the move reaches a gateway); ``"otherwise"``
  (optional) answers every cut not named in ``replies``, so a policy that changes its
  move only for the few cuts that break its plan stays small. A node may instead be ``{"agent": a, "path": [a, p1, ...]}`` (Episode
  2 only): from this position the agent walks the path whatever is cut, stepping onto a
  gateway whenever its node keeps a gateway link; the checker proves it wins by counting
  (:func:`path_wins`: some prefix of the path has more gateway links than turns).
- ``skynet-agent-escape`` (with ``"horizon": H``): the same nodes; the agent is still free
  (not contained) after each of the player's first ``H`` cuts, whatever they are - the
  proof that the value (fewest cuts to contain it) is more than ``H``. With ``"form":
  "witness"`` the nodes name the links their claim rests on and are proved once each
  (:mod:`puzzleproof.models.skynet_escape`).

Ids may be shared (a DAG), so a strategy can be as small as the positions it visits: the
solvers write tables keyed by position (agent node, links left), one node per position.
The checkers replay a strategy against **every** opponent move, using only the rules of
:mod:`puzzleproof.models.skynet` (links as bits of an integer, for speed); they share
nothing with the solvers that write strategies. Each (node, position) pair is checked
once, so a replay takes time linear in the positions the strategy covers. Files written
before the invariant node existed read and check as before.
"""

from __future__ import annotations

from typing import Any

from puzzleproof.clock import Deadline
from puzzleproof.models.skynet import SkynetMap
from puzzleproof.models.skynet_board import Board
from puzzleproof.models.skynet_escape import OutOfTime as WitnessOutOfTime
from puzzleproof.models.skynet_escape import check_witness_escape

__all__ = ["check_player_strategy", "check_agent_strategy", "check_agent_escape",
           "strategy_depth", "certificate_kind", "CheckLimit", "INVARIANT", "invariant_holds",
           "path_wins"]

#: the one invariant a player node may name (see the module docstring)
INVARIANT = "free-turns-cover-doubles"


class CheckLimit(Exception):
    """The replay passed its ``deadline`` before it was done: nothing is claimed."""


def invariant_holds(bd: Board, a: int, links: int) -> str | None:
    """Why the invariant fails at (agent ``a``, ``links``), player to cut (None: it
    holds): for every ``t``, the nodes the agent can reach with ``f`` =
    :meth:`Board.free_turns` at most ``t`` need at most ``t`` cuts in all to keep one gateway
    link each (a node with ``c >= 2`` uncut gateway links needs ``c - 1``).

    Why it wins: the player's rule is to cut the agent's gateway link when it has one
    (there is at most one: the agent's node has ``f = 0``), else a link of a node with
    two or more left and the least ``f`` (earliest deadline first). The agent never
    steps onto a gateway. After the cut and the agent's move to ``w``, every ``f`` has
    dropped by at most one, and by one only on a free turn (``f(a, d) <= [a free] +
    f(w, d)``; cuts only remove links, which never lowers ``f``), and on a free turn
    the rule removed one needed cut from the earliest deadline: so the condition at
    ``t + 1`` before gives it at ``t`` after (a forced turn: at ``t`` gives ``t``), and
    the invariant holds at the next turn. Every turn removes a link, so the game ends,
    and it can only end with the agent contained. With no node keeping two gateway
    links the invariant holds trivially."""
    dist = bd.free_turns(a, links)
    gb = bd.gate_bits
    need = []
    for u, f in dist.items():
        c = bin(gb[u] & links).count("1")
        if c >= 2:
            need.append((f, c - 1, u))
    total = 0
    for f, c, u in sorted(need):
        total += c
        if total > f:
            return (f"the nodes with two or more gateway links within {f} free turn(s) "
                    f"of the agent (node {u} among them) need {total} cuts")
    return None


def path_wins(bd: Board, a: int, links: int, path: Any) -> str | None:
    """Why the agent's fixed path does not win from (agent ``a``, ``links``), player to
    cut (None: it wins). The agent walks ``path`` (starting at ``a``) over links the
    player may not cut, stepping onto a gateway whenever its node keeps a gateway link
    after the cut. To survive turn ``i`` the player must have cut, by then, every
    gateway link of the distinct nodes ``p0..pi``, one a turn: the path wins when some
    prefix has more such links than turns (containing the agent needs those cuts too,
    the path being reachable)."""
    if not isinstance(path, list) or not path or path[0] != a:
        return f"the path must be a list of nodes starting at the agent's node {a}"
    seen: set[int] = set()
    total = 0
    for i, v in enumerate(path):
        if not isinstance(v, int) or not 0 <= v < bd.m.n or v in bd.gates:
            return f"path node {v!r} is not a node of the map outside the gateways"
        if i:
            u = path[i - 1]
            b = next((b for w, b in bd.inc[u] if w == v), None)
            if b is None or not links & b:
                return f"no uncut link {u}-{v} on the path"
            if bd.rule != "ep2":
                return "a fixed path proves nothing when the player may cut its links"
        if v not in seen:
            seen.add(v)
            total += bin(bd.gate_bits[v] & links).count("1")
        if total > i + 1:
            return None
    return (f"no prefix of the path has more gateway links than turns ({total} links, "
            f"{len(path)} turns)")


def _strategy_nodes(strategy: Any, kind: str) -> tuple[dict, Any] | str:
    if not isinstance(strategy, dict) or strategy.get("type") != kind:
        return f"expected a JSON object with \"type\": \"{kind}\""
    nodes = strategy.get("nodes")
    if not isinstance(nodes, dict) or strategy.get("root") not in nodes:
        return "the strategy has no 'nodes' or its 'root' is not one of them"
    return nodes, strategy["root"]


def _walk(stack: list, problems: list[str], deadline: Deadline | None = None):
    """Pop (agent, links, node id, path) from ``stack`` (the caller pushes onto it) until
    it is empty or five problems are found, each (node, position) once: strategies are
    DAGs. Raises :class:`CheckLimit` once ``deadline`` has passed."""
    done: set = set()
    popped = 0
    while stack and len(problems) < 5:
        popped += 1
        if deadline is not None and popped % 32 == 0 and deadline.expired():
            raise CheckLimit("the time limit ran out during the replay")
        item = stack.pop()
        if not isinstance(item[2], (str, int)):  # a malformed id: the caller reports it
            yield item[:2] + (None,) + item[3:]
            continue
        key = (item[2], item[0], item[1])
        if key not in done:
            done.add(key)
            yield item


def _path(path: tuple) -> str:
    return "->".join(map(str, path[-12:]))


def check_player_strategy(m: SkynetMap, rule: str, start: int, strategy: Any, *,
                          deadline: Deadline | None = None) -> list[str]:
    """Replay a player strategy against every agent move; return the problems (empty: it
    contains the agent whatever it does). Uses only the rules; memoised on (node,
    position), so linear in the positions covered. An invariant node is proved by checking
    its invariant at every position that reaches it (:func:`invariant_holds`)."""
    got = _strategy_nodes(strategy, "skynet-player-strategy")
    if isinstance(got, str):
        return [got]
    nodes, root = got
    bd = Board(m, rule)
    m.initial_state(start)  # validates the start
    problems: list[str] = []
    stack: list = [(start, bd.full, root, (start,))]
    for a, links, nid, path in _walk(stack, problems, deadline):
        where = "agent path " + _path(path)
        node = nodes.get(nid)
        if isinstance(node, dict) and "invariant" in node and "cut" not in node:
            if node.get("agent") != a:
                problems.append(f"{where}: node {nid!r} expects the agent at "
                                f"{node.get('agent')}")
            elif node["invariant"] != INVARIANT:
                problems.append(f"{where}: node {nid!r} names an unknown invariant "
                                f"{node['invariant']!r}")
            elif (why := invariant_holds(bd, a, links)) is not None:
                problems.append(f"{where}: the invariant {INVARIANT} fails: {why}")
            continue
        if not isinstance(node, dict) or "cut" not in node:
            problems.append(f"{where}: node {nid!r} gives no cut")
            continue
        if node.get("agent") != a:
            problems.append(f"{where}: node {nid!r} expects the agent at {node.get('agent')}")
            continue
        try:
            cut = (int(node["cut"][0]), int(node["cut"][1]))
        except (TypeError, ValueError, IndexError):
            problems.append(f"{where}: malformed cut {node.get('cut')!r}")
            continue
        why, after = bd.after(a, links, cut)
        if why:
            problems.append(f"{where}: illegal cut: {why}")
            continue
        if bd.contained(a, after):
            continue
        nxt = node.get("next") or {}
        for v in bd.moves(a, after):
            if v in bd.gates:
                problems.append(f"{where}: after cut {cut[0]}-{cut[1]} the agent reaches "
                                f"gateway {v}")
                continue
            child = nxt.get(str(v)) if isinstance(nxt, dict) else None
            if child is None:
                problems.append(f"{where}: no answer when the agent moves to {v}")
                continue
            stack.append((v, after, child, path + (v,)))
    return problems


def check_agent_strategy(m: SkynetMap, rule: str, start: int, strategy: Any, *,
                         deadline: Deadline | None = None) -> list[str]:
    """Replay an agent strategy against every legal cut; return the problems (empty: the
    agent reaches a gateway whatever the player does)."""
    got = _strategy_nodes(strategy, "skynet-agent-strategy")
    if isinstance(got, str):
        return [got]
    return _replay_agent(m, rule, start, *got, None, deadline)


def check_agent_escape(m: SkynetMap, rule: str, start: int, strategy: Any, *,
                       deadline: Deadline | None = None) -> list[str]:
    """Replay an agent escape strategy against every sequence of legal cuts; return the
    problems (empty: after each of the first ``horizon`` cuts the agent is not contained,
    or it has reached a gateway)."""
    got = _strategy_nodes(strategy, "skynet-agent-escape")
    if isinstance(got, str):
        return [got]
    horizon = strategy.get("horizon")
    if not isinstance(horizon, int) or isinstance(horizon, bool) or horizon < 0:
        return ["the escape strategy gives no 'horizon' (a number of cuts)"]
    bd = Board(m, rule)
    m.initial_state(start)
    if bd.contained(start, bd.full):
        return ["the agent is contained before any cut"]
    if strategy.get("form") == "witness":
        try:
            return check_witness_escape(m, rule, start, strategy, deadline=deadline)
        except WitnessOutOfTime:
            raise CheckLimit("the time limit ran out during the replay") from None
    return _replay_agent(m, rule, start, *got, horizon, deadline)


def _replay_agent(m: SkynetMap, rule: str, start: int, nodes: dict, root: Any,
                  horizon: int | None, deadline: Deadline | None = None) -> list[str]:
    """Every legal cut at every position the agent strategy reaches: no cut may contain
    the agent, and each reply must be a legal move. A line ends when the agent is on a
    gateway, or (``horizon``) once that many cuts have left it free. Positions are
    memoised with the cuts made so far, which the links left determine."""
    bd = Board(m, rule)
    m.initial_state(start)
    problems: list[str] = []
    stack: list = [(start, bd.full, root, ())]
    for a, links, nid, path in _walk(stack, problems, deadline):
        where = "cuts " + (" ".join(path[-12:]) or "(none)")
        if horizon is not None and len(path) >= horizon:
            continue  # free after every one of the first horizon cuts
        node = nodes.get(nid)
        if not isinstance(node, dict) or node.get("agent") != a:
            problems.append(f"{where}: node {nid!r} does not follow the agent at {a}")
            continue
        if "path" in node and "replies" not in node:
            if horizon is not None:
                problems.append(f"{where}: a fixed path answers no escape question")
            elif (why := path_wins(bd, a, links, node["path"])) is not None:
                problems.append(f"{where}: node {nid!r}: {why}")
            continue
        cuts = bd.legal(links)
        if not cuts:
            problems.append(f"{where}: no legal cut left and the agent has not won")
            continue
        replies = node.get("replies") or {}
        for u, v in cuts:
            _, after = bd.after(a, links, (u, v))
            key2 = f"{u}-{v}"
            if bd.contained(a, after):
                problems.append(f"{where}: cut {key2} contains the agent after "
                                f"{len(path) + 1} cut(s)")
                continue
            if horizon is not None and len(path) + 1 >= horizon:
                continue
            reply = replies.get(key2) or replies.get(f"{v}-{u}") or node.get("otherwise")
            if not isinstance(reply, dict):
                problems.append(f"{where}: no reply to cut {key2}")
                continue
            move = reply.get("move")
            if move not in bd.moves(a, after):
                problems.append(f"{where}: after cut {key2} the agent cannot move to {move}")
                continue
            if move in bd.gates:
                continue
            stack.append((move, after, reply.get("next"), path + (key2,)))
    return problems


def certificate_kind(strategy: Any) -> str:
    """What backs a verdict: ``position-table`` (every position answered),
    ``position-table+invariant`` (a table handing over to the invariant), or the type."""
    if not isinstance(strategy, dict):
        return "none"
    kind = strategy.get("type", "?")
    nodes = strategy.get("nodes") or {}
    if kind == "skynet-player-strategy":
        inv = any(isinstance(x, dict) and "invariant" in x for x in nodes.values())
        return "position-table+invariant" if inv else "position-table"
    if kind == "skynet-agent-escape" and strategy.get("form") == "witness":
        return "agent-escape+witness"
    if kind == "skynet-agent-strategy":
        path = any(isinstance(x, dict) and "path" in x for x in nodes.values())
        return "agent-table+path" if path else "agent-table"
    return kind


def strategy_depth(m: SkynetMap, rule: str, start: int, strategy: dict) -> int:
    """The most cuts a (checked) player strategy needs before the agent is contained, over
    every agent reply: an upper bound on the value of the game from ``start``. From an
    invariant node, the rule cuts a gateway link the agent can reach every turn, so it
    needs at most as many cuts as there are such links."""
    nodes = strategy["nodes"]
    bd = Board(m, rule)
    memo: dict = {}
    # an explicit stack (tables of large maps are deep): post-order evaluation
    root = (strategy["root"], start, bd.full)
    if bd.contained(start, bd.full):
        return 0
    todo = [(root, False)]
    while todo:
        key, expanded = todo.pop()
        if key in memo and not expanded:
            continue
        nid, a, links = key
        node = nodes[nid]
        if "cut" not in node:  # an invariant node
            reach = bd.free_turns(a, links)  # every non-gateway node the agent reaches
            memo[key] = sum(bin(bd.gate_bits[u] & links).count("1") for u in reach)
            continue
        _, after = bd.after(a, links, tuple(node["cut"]))
        kids = ([] if bd.contained(a, after) else
                [(node["next"][str(v)], v, after) for v in bd.moves(a, after)])
        if not expanded:
            todo.append((key, True))
            todo.extend((k, False) for k in kids if k not in memo)
            continue
        memo[key] = 1 + max((memo[k] for k in kids), default=0)
    return memo[root]
