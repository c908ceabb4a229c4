"""The tree of agent lines the Skynet CEGAR grows: one node per agent history.

The proposer (:class:`~puzzleproof.encoders.skynet_cegar.Proposer`) holds a prefix tree of
the agent move sequences seen so far; the refuter, the abstract policy test
(:mod:`.skynet_policy`) and the certificate writers (:mod:`.skynet_certify`) walk the same
tree. A node is an agent history: where the agent stands after ``depth`` cuts, and for each
reply seen, the child it leads to. The proposer's literals for the node (the cut chosen
there, the links left after it, whether the line is still alive and whether the agent is
contained) ride on the node, so every reader of the tree finds them in one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["TNode"]


@dataclass(eq=False)
class TNode:
    """One agent history in the proposer's tree (compared by identity)."""

    id: int
    depth: int  # cuts made before this node; the node's own cut is number depth + 1
    pos: int  # the agent's node
    parent: "TNode | None"
    children: dict[int, "TNode"] = field(default_factory=dict)
    c: list[int] = field(default_factory=list)  # proposer: cut k here
    r: list[int] = field(default_factory=list)  # proposer: link k still there after it
    alive: int = 0
    cont: int = 0  # proposer: contained after the cut (value questions)
    gate_moves: set = field(default_factory=set)
