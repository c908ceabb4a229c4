"""The abstract policy test of the Skynet CEGAR (:class:`PolicyCheck`), tried before the
refuter's SAT call on verdict questions; see :mod:`puzzleproof.encoders.skynet_cegar`."""

from __future__ import annotations

from collections import deque

from puzzleproof.clock import Deadline
from puzzleproof.encoders.skynet_reduced import Reduced
from puzzleproof.encoders.skynet_tree import TNode

__all__ = ["PolicyCheck"]


class PolicyCheck:
    """A fast sufficient test that a completed proposal keeps the agent off the gateways
    (verdict questions), tried before the refuter's SAT call, whose "no line" proofs are the
    slow part on big maps (seconds each at 500 nodes, even with a one-node tree).

    On the tree every line is followed exactly. Off the tree the completed proposal is
    :meth:`Reduced.policy`, and the agent can only win by standing on a node with two
    gateway links left when the player is to cut. An *abstract* game over-approximates the
    agent there. Its state is (agent, links left at each double-gateway node, the
    single-gateway links still there when the line left the tree). The player removes a
    double's link, choosing as the policy does, only on turns that are surely free in the
    real game: the agent stands on a node that never had a gateway link, or a single whose
    link was gone when the line left the tree, or a double with none left; on every other
    turn the abstract player cuts nothing that counts. The agent moves over every region
    link. By induction the abstract counts are never below the real ones (when both players
    choose and the choices differ, the abstract one is a node the real policy skipped
    because it has fewer than two links), so a real winning line maps to an abstract one.
    If no abstract state with the agent on a double that still has two links is reachable
    from where the lines leave the tree, the proposal wins (with no horizon). Otherwise the
    test says nothing and the SAT refuter decides.

    States proved safe (no win reachable) are kept across calls."""

    MAX_STATES = 300_000

    def __init__(self, red: Reduced) -> None:
        self.red = red
        self.index = {d: i for i, d in enumerate(red.doubles)}
        self.nbrs = {u: [w for w, _ in red.moves[u]] for u in red.region}
        # the gateway link of each node that has exactly one
        self.own1 = {u: red.own[u][0] for u in red.region if len(red.own[u]) == 1}
        self.single_links = sum(1 << k for k in self.own1.values())
        self.safe: set[tuple[int, tuple[int, ...], int]] = set()

    def holds(self, root: TNode, cand: dict, deadline: Deadline | None = None) -> bool:
        """Whether the completed proposal ``cand`` surely wins (False also when
        ``deadline`` passes first: the test then says nothing)."""
        red = self.red
        gates = red.m.gateways
        exits: list[tuple[int, tuple[int, ...], int]] = []
        stack = [(root, (1 << red.K) - 1)]
        while stack:
            x, mask = stack.pop()
            if x.id not in cand:
                return False  # a line reaches a node the proposal does not cover
            k = cand[x.id][0]
            after = mask if k is None else mask & ~(1 << k)
            if any(after >> j & 1 for j in red.own[x.pos]):
                return False  # the agent steps onto a gateway here
            for w, j in red.moves[x.pos]:
                if j is not None and not after >> j & 1:
                    continue
                if w in gates:
                    return False
                y = x.children.get(w)
                if y is not None:
                    stack.append((y, after))
                else:
                    exits.append((w, tuple(sum(after >> i & 1 for i in red.own[d])
                                           for d in red.doubles), after & self.single_links))
        return self._safe_from(exits, deadline)

    def _safe_from(self, starts: list[tuple[int, tuple[int, ...], int]],
                   deadline: Deadline | None = None) -> bool:
        """No abstract win from ``starts`` (agent, links left per double, single-gateway
        links left when the line left the tree: a node whose one link is gone then is a
        free turn for the player ever after, as in the real game)."""
        index, order_of, nbrs, own1 = self.index, self.red.order, self.nbrs, self.own1
        own = self.red.own
        seen = set(starts) - self.safe
        queue = deque(seen)
        while queue:
            a, r, singles = queue.popleft()
            i = index.get(a)
            if i is not None and r[i] >= 2:
                return False
            k = own1.get(a)
            # the player surely has a free turn (cuts a double's link as the policy does)
            # when this node never had a gateway link, or its links are surely gone
            if (not own[a] or (k is not None and not singles >> k & 1)
                    or (i is not None and r[i] == 0)):
                for d in order_of[a]:
                    j = index[d]
                    if r[j] >= 2:
                        r = r[:j] + (r[j] - 1,) + r[j + 1:]
                        break
            for w in nbrs[a]:
                st = (w, r, singles)
                if st not in seen and st not in self.safe:
                    seen.add(st)
                    if len(seen) > self.MAX_STATES:
                        return False
                    if (deadline is not None and not len(seen) & 1023
                            and deadline.expired()):
                        return False  # nothing learnt: only whole searches are kept
                    queue.append(st)
        if len(self.safe) + len(seen) > 4 * self.MAX_STATES:
            self.safe.clear()  # a memo, not a proof store: bound its memory
        self.safe |= seen
        return True
