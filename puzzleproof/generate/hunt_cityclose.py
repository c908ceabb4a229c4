"""Hunting a city-closing program: the smallest map on which its order breaks the rules or
ends far above the proved optimum.

A candidate is a random connected map of ``size`` cities (a random spanning tree and
extra links). The program reads it with the run's rules (:mod:`puzzleproof.games.
cityclose_program`) and writes an order; it fails when the order breaks a rule
(``illegal-order``: the first rule broken, by :func:`puzzleproof.models.cityclose.
score_order`), when it writes no order, crashes or runs out of time, or when its total is
at least ``min_gap`` above the optimum (``gap``), proved by the plain exact DP
(:mod:`puzzleproof.encoders.cityclose_dp`, which shares nothing with the compiled search).
The evidence holds its order and total, its stderr's last lines, the optimum and an optimal
order.

Shrinking removes a city (with its links) or a link, while the map stays connected.
"""

from __future__ import annotations

import json
import random
from typing import Any, Iterator

from puzzleproof.clock import Deadline
from puzzleproof.encoders.cityclose_dp import dp
from puzzleproof.formats.cityclose import map_to_json
from puzzleproof.games.cityclose_program import parse_order, program_input
from puzzleproof.games.program import Program
from puzzleproof.games.runner import Completion
from puzzleproof.generate.hunt import UNDECIDED, Failure, judged_answer, program_of
from puzzleproof.models.cityclose import CityMap, Rules, score_order
from puzzleproof.result import Status

__all__ = ["CitycloseHunter", "from_evidence"]

#: the last lines of the program's stderr an evidence keeps
STDERR_LINES = 20
#: the largest map the hunt draws (the plain DP proves the optimum in seconds up to here)
MAX_CITIES = 16


class CitycloseHunter:
    """The hunt's city-closing part for one program, rules and least gap."""

    puzzle = "cityclose"

    def __init__(self, program: Program, rules: Rules | None = None, min_gap: float = 0.01,
                 sizes: tuple[int, ...] = tuple(range(4, MAX_CITIES + 1)),
                 max_attempts: int | None = None) -> None:
        self.program, self.rules, self.min_gap = program, rules or Rules(), min_gap
        self.sizes, self.max_attempts = sizes, max_attempts

    def candidate(self, rng: random.Random, size: int) -> CityMap | None:
        if size <= self.rules.final_size:
            return None
        links = {tuple(sorted((i, rng.randrange(i)))) for i in range(1, size)}
        for _ in range(int(size * rng.choice((0.2, 0.5, 1.0)))):
            u, v = rng.sample(range(size), 2)
            links.add(tuple(sorted((u, v))))
        order = list(range(size))
        rng.shuffle(order)  # the cities' order decides ties: not always the tree's
        names = tuple(f"c{order[i]}" for i in range(size))
        return CityMap(names, tuple(sorted(links)))  # type: ignore[arg-type]

    def judge(self, m: CityMap, deadline: Deadline) -> Failure | None:
        first = self.program.limits.first
        left = deadline.left()
        if left is not None and left < first:
            return UNDECIDED  # the hunt's clock would cut the program short
        return judged_answer(self.program, program_input(m, self.rules),
                             lambda done: self._verdict(m, done))

    def _verdict(self, m: CityMap, done: Completion) -> Failure | None:
        evidence: dict[str, Any] = {"stderr": done.stderr.splitlines()[-STDERR_LINES:]}
        if not done.output.strip():
            reason, detail = done.verdict or ("no-order", "it wrote no order")
            return Failure(reason, detail, evidence)
        try:
            order = parse_order(done.output, m)
        except Exception as exc:  # noqa: BLE001 - what it wrote is its verdict
            return Failure("malformed-output", str(exc), evidence)
        chk = score_order(m, order, self.rules)
        evidence["order"] = order
        if not chk.ok:
            return Failure("illegal-order", chk.violations[0]["message"],
                           {**evidence, "violations": chk.violations[:10]})
        best = dp(m, self.rules)
        if best.status is not Status.OPTIMAL:
            return None  # no order keeps the rules, or the DP could not tell: no finding
        opt = best.answer["total"]
        gap = (chk.total - opt) / opt if opt else 0.0
        if gap < self.min_gap:
            return None
        return Failure("gap", f"total {chk.total}, {100 * gap:.2f} % above the optimum {opt}",
                       {**evidence, "total": chk.total, "wiener": chk.wiener, "optimum": opt,
                        "optimal_order": best.answer["order"], "gap": round(gap, 6)})

    def smaller(self, m: CityMap) -> Iterator[CityMap]:
        if m.n - 1 > self.rules.final_size:
            for x in reversed(range(m.n)):
                if m.names[x] in self.rules.keep:
                    continue
                keep = [i for i in range(m.n) if i != x]
                new = {v: i for i, v in enumerate(keep)}
                got = _connected_map(tuple(m.names[i] for i in keep),
                                     [(new[u], new[v]) for u, v in m.links if x not in (u, v)])
                if got is not None:
                    yield got
        for link in m.links:
            got = _connected_map(m.names, [lk for lk in m.links if lk != link])
            if got is not None:
                yield got

    def size(self, m: CityMap) -> int:
        return m.n

    def key(self, m: CityMap) -> str:
        return map_to_json(m)

    def files(self, m: CityMap, name: str) -> tuple[str, str]:
        obj = json.loads(map_to_json(m))
        return json.dumps({"name": name, **obj}, indent=1) + "\n", ".json"

    def describe(self) -> dict[str, Any]:
        return {"rules": self.rules.to_dict(), "min_gap": self.min_gap}


def _connected_map(names: tuple[str, ...], links: list[tuple[int, int]]) -> CityMap | None:
    n = len(names)
    adj: list[list[int]] = [[] for _ in range(n)]
    for u, v in links:
        adj[u].append(v)
        adj[v].append(u)
    seen, todo = {0}, [0]
    while todo:
        for w in adj[todo.pop()]:
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return CityMap(names, tuple(sorted(links))) if len(seen) == n else None


def from_evidence(settings: dict, who: dict, text: str, source: str) -> tuple[Any, Any]:
    """The hunter and the instance of a kept breaker, from its evidence's settings and
    program and the instance file's text (:func:`puzzleproof.generate.hunt.rejudge`)."""
    from puzzleproof.formats.cityclose import read_map
    from puzzleproof.models.cityclose import Rules

    r = settings["rules"]
    rules = Rules(r["final_size"], frozenset(r.get("keep") or ()), r.get("no_paths"),
                  bool(r.get("final_not_path")))
    return (CitycloseHunter(program_of(who), rules, settings["min_gap"]),
            read_map(text, source))
