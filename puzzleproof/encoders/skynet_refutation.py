"""The agent's escape read off the exact fewest-cuts search, in witness form.

When :class:`~.skynet_fewest.FewestCuts` refutes "contain within ``r`` cuts" at a position,
it keeps the links the refutation rests on (its witness) and how it was refuted: a path to
a gateway with no cut left, two gateway links at the agent, the tempo bound, the tempo
bound one move ahead, or the agent's answers to the cuts it searched (each cut outside
the links behind an answer is answered the same way). :func:`refutation` writes those
proofs as an escape whose nodes name their links
(:mod:`puzzleproof.models.skynet_escape`), so the rules-only checker proves each node once
on its own links: the proof is as large as the search's refutation, not as the tree of
every cut at every position (the full table answers every one of a map's links at every
position and is out of reach beyond a few cuts).
"""

from __future__ import annotations

from typing import Any

from puzzleproof.clock import Deadline
from puzzleproof.encoders.skynet_fewest import FewestCuts, OutOfTime

__all__ = ["refutation"]


class _Writer:
    """Writes the nodes of one escape; ``bit[k]`` is the map's link bit of link ``k`` of
    the search."""

    def __init__(self, fc: FewestCuts, links: Any, deadline: Deadline | None,
                 max_nodes: int | None):
        self.fc, self.deadline, self.max_nodes = fc, deadline, max_nodes
        index = {lk: i for i, lk in enumerate(links)}
        self.bit = [1 << index[lk] for lk in fc.ends]
        self.gates = fc.red.m.gateways
        self.nodes: dict[str, dict] = {}
        self.todo: list[tuple[tuple[int, int], int]] = []
        self.queued: set[tuple[tuple[int, int], int]] = set()

    def links(self, w: int) -> str:
        """A search mask as a hexadecimal mask over the map's links."""
        out, bit = 0, self.bit
        while w:
            low = w & -w
            out |= bit[low.bit_length() - 1]
            w ^= low
        return f"{out:x}"

    def other(self, u: int, k: int) -> int:
        x, y = self.fc.ends[k]
        return y if x == u else x

    def add(self, nid: str, node: dict) -> str:
        if nid not in self.nodes:
            if self.max_nodes is not None and len(self.nodes) >= self.max_nodes:
                raise OutOfTime
            if len(self.nodes) % 64 == 0 and self.deadline is not None \
                    and self.deadline.expired():
                raise OutOfTime
            self.nodes[nid] = node
        return nid

    def proof(self, ref: tuple[tuple[int, int], int]) -> str:
        """The id of the node of a refutation (written when its turn comes)."""
        (a, links), r = ref
        nid = f"{a}:{links:x}:{r}"
        if ref not in self.queued:
            self.queued.add(ref)
            self.todo.append(ref)
        return nid

    def leaf(self, a: int, w: int, h: int, tempo: bool = False) -> str:
        nid = f"{'t' if tempo else 'p'}{a}:{w:x}:{h}"
        node: dict[str, Any] = {"agent": a, "links": self.links(w), "h": h}
        if tempo:
            node["tempo"] = True
        return self.add(nid, node)

    def walk(self, a: int, w: int) -> list[int]:
        """A walk from ``a`` to a gateway over the search links ``w`` (breadth first)."""
        fc = self.fc
        prev: dict[int, int | None] = {a: None}
        queue = [a]
        for u in queue:
            for k in fc.gb[u]:
                if w >> k & 1:
                    out = [self.other(u, k), u]
                    while prev[out[-1]] is not None:
                        out.append(prev[out[-1]])  # type: ignore[arg-type]
                    return out[::-1]
            for v, k in fc.nb[u]:
                if w >> k & 1 and v not in prev:
                    prev[v] = u
                    queue.append(v)
        raise AssertionError(f"refutation: no path from {a} on its witness")

    def along(self, a: int, w: int) -> dict:
        """The reply that walks a path of ``w`` to a gateway: its first step, then a node
        with no cut left on the rest of the path."""
        walk = self.walk(a, w)
        first = walk[1]
        if first in self.gates:
            return {"move": first, "next": None}
        rest = self._path_links(walk[1:])
        return {"move": first, "next": self.leaf(first, rest, 0)}

    def _path_links(self, walk: list[int]) -> int:
        fc, out = self.fc, 0
        for u, v in zip(walk, walk[1:]):
            k = next(k for x, k in fc.nb[u] if x == v) if v not in self.gates else \
                next(k for k in fc.gb[u] if self.other(u, k) == v)
            out |= 1 << k
        return out


def refutation(fc: FewestCuts, a: int, h: int, deadline: Deadline | None = None,
               max_nodes: int | None = None, links: Any = None) -> dict:
    """The escape proving that no strategy contains the agent on ``a`` within ``h`` cuts,
    from the refutation ``fc`` found (``fc.contains(a, fc.full, h)`` answered False), in
    witness form. ``links``: the links of the map the escape is written for (default: the
    searched map's); a map the searched one was cut from (:func:`~.skynet_fewest.without`)
    holds the escape too, as its nodes rest on links both have. Raises :class:`OutOfTime`
    past ``deadline`` or ``max_nodes`` nodes; ValueError when the search did not refute it
    or let its proofs go (``fc.proofs_kept`` False: check first)."""
    key = fc.key(a, fc.full)
    r = fc.fail.get(key, -1)
    if r < h:
        raise ValueError(f"the search has not refuted containing the agent within {h} cuts")
    if not fc.proofs_kept:
        raise ValueError("the search let its proofs go (skynet_fewest.PROOFS_MAX)")
    out = _Writer(fc, fc.red.m.links if links is None else links, deadline, max_nodes)
    root = out.proof((key, r))
    while out.todo:
        ref = out.todo.pop()
        _write(out, ref)
    return _short_ids({"type": "skynet-agent-escape", "form": "witness", "horizon": h,
                       "root": root, "nodes": out.nodes})


def _short_ids(esc: dict) -> dict:
    """The escape with its node ids numbered (base 36) in place of the positions they were
    named after: the same nodes, a fraction of the text."""
    names: dict[str, str] = {}

    def short(nid: str) -> str:
        got = names.get(nid)
        if got is None:
            n, digits = len(names), ""
            while True:
                n, d = divmod(n, 36)
                digits = "0123456789abcdefghijklmnopqrstuvwxyz"[d] + digits
                if not n:
                    break
            got = names[nid] = digits
        return got

    nodes = {}
    for nid, node in esc["nodes"].items():
        if "replies" in node:
            node = {**node, "replies": [r if r.get("next") is None
                                        else {**r, "next": short(r["next"])}
                                        for r in node["replies"]]}
        nodes[short(nid)] = node
    return {**esc, "root": short(esc["root"]), "nodes": nodes}


def _write(out: _Writer, ref: tuple[tuple[int, int], int]) -> None:
    """The node of one refutation (its children queued)."""
    fc = out.fc
    (a, _), r = ref
    w, spec = fc.proofs[ref]
    nid = f"{a}:{ref[0][1]:x}:{r}"
    node: dict[str, Any] = {"agent": a, "links": out.links(w), "h": max(r, 0)}
    kind = spec[0]
    if kind == "path" or r <= 0:
        node["h"] = 0
    elif kind == "tempo":
        node["tempo"] = True
    elif kind == "two":
        node["replies"] = [{"move": out.other(a, k), "next": None}
                           for k in fc.gb[a] if w >> k & 1][:2]
    else:
        node["replies"] = _replies(out, a, w, r, spec)
    out.add(nid, node)


def _replies(out: _Writer, a: int, w: int, r: int, spec: tuple) -> list[dict]:
    """The replies of a refutation by the agent's answers (after the gateway move of a
    forced cut, or the moves to neighbours the tempo bound protects one move ahead)."""
    replies: list[dict] = []
    if spec[0] == "gate":
        replies.append({"move": out.other(a, spec[1]), "next": None})
    elif spec[0] == "bad":
        for v, j, wt in spec[1]:  # the tempo bound at v, for r - 1 cuts, one cut spare
            replies.append({"move": v, "next": out.leaf(v, wt, r - 1, tempo=True)})
        for v, j, wt in spec[1]:
            left = wt
            while left:  # a cut inside that bound's links: the bound without it
                low = left & -left
                left ^= low
                replies.append({"move": v, "next": out.leaf(v, wt & ~low, r - 1,
                                                             tempo=True)})
    for k, answer in spec[-1]:
        if answer[0] == "path":
            replies.append(out.along(a, answer[1]))
        elif answer[0] == "gate":
            replies.append({"move": out.other(a, answer[1]), "next": None})
        else:
            _, v, j, ref = answer
            replies.append({"move": v, "next": out.proof(ref)})
    return replies
