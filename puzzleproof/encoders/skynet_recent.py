"""The exact fewest-cuts search's memory of recent refutations at each node, scanned in
compiled code.

A position refuted on links ``W`` stays refuted on any links left that include ``W`` (fewer
links never help the agent; :mod:`.skynet_fewest`). The search keeps, per agent node, the
last ``size`` refutations there (horizon, ``W``, the refuted position) and, before
searching a position, asks whether one of them, refuted at its horizon or above, rests on
links that are all still there. That question is asked at nearly every position, against
a few hundred witnesses of up to a thousand bits each, so the witnesses live in one byte
array per node and the scan is compiled.

Example:
    >>> rec = Recent(size=2, nbits=8)
    >>> rec.add(3, 5, 0b0110, "p")
    >>> rec.find(3, 5, 0b1111), rec.find(3, 6, 0b1111), rec.find(3, 5, 0b1011)
    ((5, 6, 'p'), None, None)
    >>> rec.add(3, 7, 0b0001, "q"); rec.add(3, 7, 0b0010, "s")  # the oldest is dropped
    >>> rec.find(3, 5, 0b0110), rec.find(3, 5, 0b0001)
    ((7, 2, 's'), (7, 1, 'q'))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from puzzleproof.encoders.cityclose_bits import njit

__all__ = ["Recent", "warm"]


class Recent:
    """The last ``size`` refutations at each node, for links numbered below ``nbits``."""

    def __init__(self, size: int, nbits: int) -> None:
        self.size = size
        self.nbytes = max(1, (nbits + 7) // 8)
        # node -> [horizons (-1: empty), witnesses' bytes, positions, next slot]
        self.at: dict[int, list[Any]] = {}

    def add(self, node: int, horizon: int, links: int, position: Any) -> None:
        """Remember that ``position`` at ``node`` is refuted at ``horizon`` on ``links``."""
        got = self.at.get(node)
        if got is None:
            got = self.at[node] = [np.full(self.size, -1, dtype=np.int64),
                                   np.zeros((self.size, self.nbytes), dtype=np.uint8),
                                   [None] * self.size, 0]
        slot = got[3]
        got[0][slot] = horizon
        got[1][slot] = np.frombuffer(links.to_bytes(self.nbytes, "little"), dtype=np.uint8)
        got[2][slot] = position
        got[3] = (slot + 1) % self.size

    def find(self, node: int, horizon: int, left: int) -> tuple[int, int, Any] | None:
        """The newest refutation at ``node`` at ``horizon`` or above whose links are all in
        ``left``, as (its horizon, its links, its position); None when there is none."""
        got = self.at.get(node)
        if got is None:
            return None
        gone = np.frombuffer((~left & ((1 << 8 * self.nbytes) - 1)).to_bytes(
            self.nbytes, "little"), dtype=np.uint8)
        slot = _find(got[0], got[1], got[3], horizon, gone)
        if slot < 0:
            return None
        return int(got[0][slot]), int.from_bytes(got[1][slot].tobytes(), "little"), got[2][slot]


def warm() -> None:
    """Compile (or load from numba's cache) the scan (the ``prepare`` verb)."""
    rec = Recent(size=1, nbits=1)
    rec.add(0, 1, 1, None)
    rec.find(0, 1, 1)


@njit(cache=True)
def _find(horizons, wits, nxt, horizon, gone):
    """The newest slot (counting back from ``nxt``) refuted at ``horizon`` or above whose
    witness misses every byte of ``gone``; -1 when there is none."""
    size = horizons.shape[0]
    for step in range(1, size + 1):
        slot = (nxt - step) % size
        if horizons[slot] < horizon:
            continue
        row = wits[slot]
        inside = True
        for b in range(gone.shape[0]):
            if row[b] & gone[b]:
                inside = False
                break
        if inside:
            return slot
    return -1
