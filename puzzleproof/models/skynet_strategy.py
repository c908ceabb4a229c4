"""Skynet strategy certificates and their rules-only checkers.

A strategy is a JSON object ``{"type": ..., "root": node id, "nodes": {id: node}}``:

- ``skynet-player-strategy``: a node is ``{"agent": a, "cut": [u, v], "next": {move: id}}``;
  after the cut, ``next`` names the node for every place the agent may move to.
- ``skynet-agent-strategy``: a node is ``{"agent": a, "replies": {"u-v": {"move": w,
  "next": id | null}}}``: the agent's answer to every legal cut (``next`` null: the move
  reaches a gateway).
- ``skynet-agent-escape`` (with ``"horizon": H``): the same nodes; the agent is still free
  (not contained) after each of the player's first ``H`` cuts, whatever they are - the
  proof that the value (fewest cuts to contain it) is more than ``H``.

The checkers replay a strategy against **every** opponent move, using only the rules of
:mod:`puzzleproof.models.skynet`; they share nothing with the solvers that write strategies.
Ids may be shared (a DAG), so a strategy can be as small as the positions it visits.
"""

from __future__ import annotations

import time

from typing import Any

from puzzleproof.models.skynet import SkynetMap, agent_moves, check_cut, legal_cuts, outcome

__all__ = ["check_player_strategy", "check_agent_strategy", "check_agent_escape",
           "strategy_depth", "CheckLimit"]


class CheckLimit(Exception):
    """The replay passed its ``deadline`` before it was done: nothing is claimed."""


def _strategy_nodes(strategy: Any, kind: str) -> tuple[dict, Any] | str:
    if not isinstance(strategy, dict) or strategy.get("type") != kind:
        return f"expected a JSON object with \"type\": \"{kind}\""
    nodes = strategy.get("nodes")
    if not isinstance(nodes, dict) or strategy.get("root") not in nodes:
        return "the strategy has no 'nodes' or its 'root' is not one of them"
    return nodes, strategy["root"]


def _walk(stack: list, problems: list[str], deadline: float | None = None):
    """Pop (state, node id, path) from ``stack`` (the caller pushes onto it) until it is
    empty or five problems are found, each (node, position) once: strategies are DAGs.
    Raises :class:`CheckLimit` once ``time.monotonic()`` passes ``deadline``."""
    done: set = set()
    popped = 0
    while stack and len(problems) < 5:
        popped += 1
        if deadline is not None and popped % 512 == 0 and time.monotonic() > deadline:
            raise CheckLimit("the time limit ran out during the replay")
        state, nid, path = stack.pop()
        key = (nid, state.agent, state.links)
        if key not in done:
            done.add(key)
            yield state, nid, path


def check_player_strategy(m: SkynetMap, rule: str, start: int, strategy: Any, *,
                          deadline: float | None = None) -> list[str]:
    """Replay a player strategy against every agent move; return the problems (empty: it
    contains the agent whatever it does). Uses only the rules; memoised on (node, state)."""
    got = _strategy_nodes(strategy, "skynet-player-strategy")
    if isinstance(got, str):
        return [got]
    nodes, root = got
    problems: list[str] = []
    stack = [(m.initial_state(start), root, (start,))]
    for state, nid, path in _walk(stack, problems, deadline):
        where = "agent path " + "->".join(map(str, path[-12:]))
        node = nodes.get(nid)
        if not isinstance(node, dict) or "cut" not in node:
            problems.append(f"{where}: node {nid!r} gives no cut")
            continue
        if node.get("agent") != state.agent:
            problems.append(f"{where}: node {nid!r} expects the agent at {node.get('agent')}")
            continue
        try:
            cut = (int(node["cut"][0]), int(node["cut"][1]))
        except (TypeError, ValueError, IndexError):
            problems.append(f"{where}: malformed cut {node.get('cut')!r}")
            continue
        why = check_cut(m, state, cut, rule)
        if why:
            problems.append(f"{where}: illegal cut: {why}")
            continue
        after = state.cut(cut)
        if outcome(after) == "WIN":
            continue
        for v in agent_moves(after):
            moved = after.move(v)
            if outcome(moved) == "LOSS":
                problems.append(f"{where}: after cut {cut[0]}-{cut[1]} the agent reaches "
                                f"gateway {v}")
                continue
            child = (node.get("next") or {}).get(str(v))
            if child is None:
                problems.append(f"{where}: no answer when the agent moves to {v}")
                continue
            stack.append((moved, child, path + (v,)))
    return problems


def check_agent_strategy(m: SkynetMap, rule: str, start: int, strategy: Any, *,
                         deadline: float | None = None) -> list[str]:
    """Replay an agent strategy against every legal cut; return the problems (empty: the
    agent reaches a gateway whatever the player does)."""
    got = _strategy_nodes(strategy, "skynet-agent-strategy")
    if isinstance(got, str):
        return [got]
    return _replay_agent(m, rule, start, *got, None, deadline)


def check_agent_escape(m: SkynetMap, rule: str, start: int, strategy: Any, *,
                       deadline: float | None = None) -> list[str]:
    """Replay an agent escape strategy against every sequence of legal cuts; return the
    problems (empty: after each of the first ``horizon`` cuts the agent is not contained,
    or it has reached a gateway)."""
    got = _strategy_nodes(strategy, "skynet-agent-escape")
    if isinstance(got, str):
        return [got]
    horizon = strategy.get("horizon")
    if not isinstance(horizon, int) or isinstance(horizon, bool) or horizon < 0:
        return ["the escape strategy gives no 'horizon' (a number of cuts)"]
    if outcome(m.initial_state(start)) == "WIN":
        return ["the agent is contained before any cut"]
    return _replay_agent(m, rule, start, *got, horizon, deadline)


def _replay_agent(m: SkynetMap, rule: str, start: int, nodes: dict, root: Any,
                  horizon: int | None, deadline: float | None = None) -> list[str]:
    """Every legal cut at every position the agent strategy reaches: no cut may contain
    the agent, and each reply must be a legal move. A line ends when the agent is on a
    gateway, or (``horizon``) once that many cuts have left it free."""
    problems: list[str] = []
    stack = [(m.initial_state(start), root, ())]
    for state, nid, path in _walk(stack, problems, deadline):
        where = "cuts " + (" ".join(path[-12:]) or "(none)")
        if horizon is not None and len(path) >= horizon:
            continue  # free after every one of the first horizon cuts
        node = nodes.get(nid)
        if not isinstance(node, dict) or node.get("agent") != state.agent:
            problems.append(f"{where}: node {nid!r} does not follow the agent at {state.agent}")
            continue
        cuts = legal_cuts(state, rule)
        if not cuts:
            problems.append(f"{where}: no legal cut left and the agent has not won")
            continue
        for u, v in cuts:
            after = state.cut((u, v))
            key2 = f"{u}-{v}"
            if outcome(after) == "WIN":
                problems.append(f"{where}: cut {key2} contains the agent after "
                                f"{len(path) + 1} cut(s)")
                continue
            if horizon is not None and len(path) + 1 >= horizon:
                continue
            replies = node.get("replies") or {}
            reply = replies.get(key2) or replies.get(f"{v}-{u}")
            if not isinstance(reply, dict):
                problems.append(f"{where}: no reply to cut {key2}")
                continue
            move = reply.get("move")
            if move not in agent_moves(after):
                problems.append(f"{where}: after cut {key2} the agent cannot move to {move}")
                continue
            moved = after.move(move)
            if outcome(moved) == "LOSS":
                continue
            stack.append((moved, reply.get("next"), path + (key2,)))
    return problems


def strategy_depth(m: SkynetMap, rule: str, start: int, strategy: dict) -> int:
    """The most cuts a (checked) player strategy needs before the agent is contained, over
    every agent reply: an upper bound on the value of the game from ``start``."""
    nodes = strategy["nodes"]
    memo: dict = {}

    def depth(state, nid) -> int:
        key = (nid, state.agent, state.links)
        if key in memo:
            return memo[key]
        node = nodes[nid]
        after = state.cut(tuple(node["cut"]))
        if outcome(after) == "WIN":
            d = 1
        else:
            d = 1 + max(depth(after.move(v), node["next"][str(v)]) for v in agent_moves(after))
        memo[key] = d
        return d

    state = m.initial_state(start)
    return 0 if outcome(state) == "WIN" else depth(state, strategy["root"])
