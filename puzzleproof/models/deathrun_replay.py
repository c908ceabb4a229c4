"""Death Run's rules replayed over a game record: every move legal, every view what the
engine owed the player, every score what the rules give. Written apart from the engine
(:mod:`puzzleproof.models.deathrun`'s ``_Game``) so that a bug in one is not repeated in the
other; every game any bot plays is checked here before a score reaches a user."""

from __future__ import annotations

import math
import random
from typing import Any

from puzzleproof.errors import InputError
from puzzleproof.models.deathrun import (Graph, _number, check_criminal_move,
                                         check_student_move, make_graph)
from puzzleproof.models.deathrun_record import RECORD_TYPE, check_record_shape

__all__ = ["replay"]


class _Stop(Exception):
    """A problem after which the replay cannot go on (the positions no longer agree)."""


class _Replay:
    """A record re-played by the rules, written apart from the engine (:class:`_Game`) so
    that a bug in one is not repeated in the other. Steps: :meth:`round` (the criminals'
    views and moves, :meth:`_criminals`; the students' moves, :meth:`_students`) and
    :meth:`scores`."""

    def __init__(self, record: dict[str, Any], g: Graph) -> None:
        self.g = g
        self.record = record
        seats = record["seats"]
        self.nc = nc = sum(1 for s in seats if s["role"] == "criminal")
        self.ns = ns = len(seats) - nc
        self.rng = random.Random(f"deathrun-engine:{record['seed']}")
        self.weight: dict[tuple[int, int], float] = dict(g.weight)
        self.keys = list(self.weight)
        self.added: list[dict[tuple[int, int], float]] = [dict() for _ in range(nc)]
        self.budgets = [record["budget"]] * nc
        self.pos = [g.begin] * ns
        self.counts = {v: 0 for v in g.vertices}
        self.counts[g.begin] = ns
        self.s_scores = [0.0] * ns
        self.c_scores = [0.0] * nc
        self.base = 0.0
        self.prev: dict[tuple[int, int], float] = {e: 0 for e in self.keys}
        self.probs: list[str] = []

    def bad(self, msg: str) -> None:
        if len(self.probs) < 50:
            self.probs.append(msg)

    def round(self, k: int, rr: dict[str, Any]) -> None:
        rnd = k + 1
        g = self.g
        if rr.get("round") != rnd:
            self.bad(f"round {rnd}: numbered {rr.get('round')!r}")
        if all(x in g.end_set for x in self.pos):
            self.bad(f"round {rnd}: every student had already finished")
        cv = rr["criminal_view"]
        if _as_upd(cv["updates"]) != _nz(self.prev):
            self.bad(f"round {rnd}: the criminals were shown the wrong previous updates")
        if _as_counts(cv["counts"]) != _nzc(self.counts):
            self.bad(f"round {rnd}: the criminals were shown the wrong vertex counts")
        cur = self._criminals(rnd, rr["criminals"])
        if _as_upd(rr["updates"]) != _nz(cur):
            self.bad(f"round {rnd}: the students were shown the wrong updates")
        self._students(rnd, rr["students"])
        self.prev = cur

    def _criminals(self, rnd: int, moves: list[dict[str, Any]]
                   ) -> dict[tuple[int, int], float]:
        cur = {e: 0 for e in self.keys}
        if [c["seat"] for c in moves] != list(range(self.nc)):
            self.bad(f"round {rnd}: the criminals did not act once each in seat order")
        for c, ce in enumerate(moves[:self.nc]):
            if ce["budget"] != self.budgets[c]:
                self.bad(f"round {rnd}: seat {c} was told budget {ce['budget']}, had "
                         f"{self.budgets[c]}")
            if ce["valid"]:
                move, why = check_criminal_move(self.g, ce.get("move"), self.budgets[c])
                if move is None:
                    self.bad(f"round {rnd}: seat {c}'s move {ce.get('move')!r} is marked valid "
                             f"but {why}")
                    continue
                u, v, w = move
                self.weight[(u, v)] += w
                self.added[c][(u, v)] = self.added[c].get((u, v), 0) + w
                self.budgets[c] -= w
                cur[(u, v)] += w
            elif not ce.get("reason"):
                self.bad(f"round {rnd}: seat {c}'s invalid move has no reason")
        return cur

    def _students(self, rnd: int, moves: list[dict[str, Any]]) -> None:
        g, nc = self.g, self.nc
        moved = [st["seat"] - nc for st in moves]
        expect = [s for s in range(self.ns) if self.pos[s] not in g.end_set]
        if moved != expect:
            self.bad(f"round {rnd}: students moved in seats {moved}, expected {expect}")
            raise _Stop
        for st in moves:
            s = st["seat"] - nc
            at = self.pos[s]
            if st["at"] != at:
                self.bad(f"round {rnd}: seat {st['seat']} is recorded at {st['at']}, was at {at}")
            if _as_counts(st["counts"]) != _nzc(self.counts):
                self.bad(f"round {rnd}: seat {st['seat']} was shown the wrong vertex counts")
            to = st["to"]
            if st["valid"]:
                if check_student_move(g, at, to)[0] is None:
                    self.bad(f"round {rnd}: seat {st['seat']} moved {at}->{to}, not a link")
                    raise _Stop
            else:
                drawn = self.rng.choice(g.out[at])[0]
                if drawn != to:
                    self.bad(f"round {rnd}: seat {st['seat']}'s invalid move became {to}, the "
                             f"engine's seeded draw is {drawn}")
                    to = drawn
                if not st.get("reason"):
                    self.bad(f"round {rnd}: seat {st['seat']}'s invalid move has no reason")
            e = (at, to)
            if not _close(st["paid"], self.weight[e]):
                self.bad(f"round {rnd}: seat {st['seat']} paid {st['paid']}, the link weighed "
                         f"{self.weight[e]}")
            self.s_scores[s] += self.weight[e]
            self.base += g.weight[e]
            for c in range(nc):
                self.c_scores[c] += self.added[c].get(e, 0)
            self.counts[at] -= 1
            self.counts[to] += 1
            self.pos[s] = to

    def scores(self) -> None:
        if any(x not in self.g.end_set for x in self.pos):
            self.bad("the game stops before every student reached an end")
        sc = self.record["scores"]
        for c in range(self.nc):
            if not _close(sc["criminals"][c], self.c_scores[c]):
                self.bad(f"criminal seat {c}: recorded score {sc['criminals'][c]}, by the "
                         f"rules {self.c_scores[c]}")
        for s in range(self.ns):
            if not _close(sc["students"][s], self.s_scores[s]):
                self.bad(f"student seat {self.nc + s}: recorded score {sc['students'][s]}, by "
                         f"the rules {self.s_scores[s]}")
        if not _close(math.fsum(self.s_scores), math.fsum([self.base, *self.c_scores])):
            self.bad("the score invariant fails")


def replay(record: dict[str, Any], graph: Graph | None = None) -> list[str]:
    """Re-check a game record by the rules; return the problems found (empty: it is sound).

    Checks: the record's shape (:func:`~puzzleproof.models.deathrun_record.check_record_shape`:
    a field of the wrong type is one problem, ``"malformed record: PATH: ..."``); the graph;
    every criminal move's validity and budget; the views bots were given
    (previous updates, counts, budgets, this round's updates); every student move (a move
    marked valid must be a link; an invalid one must be the engine's seeded random choice);
    the amounts paid, the scores and the invariant; that the game ran to the end.
    """
    if not isinstance(record, dict) or record.get("type") != RECORD_TYPE:
        return [f"not a Death Run game record (type {RECORD_TYPE!r} expected)"]
    try:  # the readers check this first (exit 2); a record built in memory is checked here
        check_record_shape(record)
    except InputError as exc:
        return [f"malformed record: {exc.message}"]
    rp: _Replay | None = None
    try:
        if graph is None:
            gj = record["graph"]
            graph = make_graph(gj["edges"], gj["begin"], gj["ends"])
        rp = _Replay(record, graph)
        for k, rr in enumerate(record["rounds"]):
            rp.round(k, rr)
        rp.scores()
    except _Stop:
        pass
    except InputError as exc:
        return [f"the record's graph: {exc.message}"]
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        probs = rp.probs if rp is not None else []
        return (probs + [f"malformed record: {type(exc).__name__}: {exc}"])[:50]
    assert rp is not None
    return rp.probs


def _close(a: Any, b: float) -> bool:
    x = _number(a)
    return x is not None and abs(x - b) <= 1e-7 * max(1.0, abs(b))


def _nz(upd: dict[tuple[int, int], float]) -> dict[tuple[int, int], float]:
    return {e: w for e, w in upd.items() if w}


def _nzc(counts: dict[int, int]) -> dict[int, int]:
    return {v: n for v, n in counts.items() if n}


def _as_upd(items: Any) -> dict[tuple[int, int], float]:
    return {(int(u), int(v)): w for u, v, w in items}


def _as_counts(items: Any) -> dict[int, int]:
    return {int(v): n for v, n in items}
