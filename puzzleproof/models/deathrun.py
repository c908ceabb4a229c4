"""Death Run (CMIMC 2024): the graph, the rules and the engine, as plain Python.

The contest's rules (``docs/PUZZLES.md`` section 4):

- A graph is a DAG with integer weights; students start on ``begin`` and stop on an end.
  Contest graphs (:func:`generate_graph`): vertex 0 links to the 8 vertices of layer 1,
  15 layers of 8 (121 vertices), links between consecutive layers with probability 1/2,
  then a repair out-link for a vertex with none and a repair in-link for a vertex with none,
  weights uniform in 1..10, the ends are layer 15.
- A game is rounds until every student stands on an end (15 on contest graphs). Each round
  the 2 criminals act first, in seat order, each seeing only the *previous* round's combined
  updates (a dict with every edge, 0 where nothing changed), the vertex counts (a dict with
  every vertex) and its own budget (100 at start). A move ``(u, v, w)`` counts only if
  ``(u, v)`` is an edge and ``0 <= w <= budget`` (``w`` a finite int or float, not a bool);
  otherwise nothing happens. Then the 8 students move one at a time, each seeing this
  round's combined updates and the counts as changed by the students before it; an illegal
  move becomes a random legal out-link drawn from the game's seeded RNG.
- A student adds the current weight of each link it crosses; when a student crosses link
  ``e`` each criminal scores the total *it* has added to ``e`` so far. Every game asserts:
  the students' scores sum to the base weights crossed plus the criminals' scores.

A game is a pure function of (graph, bots, seed): the engine's RNG is seeded from the seed
and each bot is built after ``random.seed(f"{seed}:{seat}")`` in its process (seats 0 and 1
are the criminals, 2..9 the students). Bots are reached through :class:`Player` objects:
:class:`InProcessPlayer` here, worker processes in :mod:`puzzleproof.games.deathrun_workers`.

Example:
    >>> g = make_graph([(0, 1, 2), (0, 2, 5), (1, 3, 1), (2, 3, 1)], 0, [3])
    >>> g.vertices, g.out[0], nominal_distance(g)
    ((0, 1, 2, 3), ((1, 2), (2, 5)), 3)
"""

from __future__ import annotations

import abc
import math
import numbers
import random
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable, Sequence

from puzzleproof.errors import InputError
from puzzleproof.clock import Deadline
from puzzleproof.sizes import limit, over_limit
from puzzleproof.models.deathrun_record import RECORD_TYPE, SCHEMA_VERSION, describe

__all__ = ["Graph", "make_graph", "generate_graph", "nominal_distance", "BaseCriminal",
           "BaseStudent", "Player", "InProcessPlayer", "play_game", "scoreboard",
           "check_criminal_move", "check_student_move", "RECORD_TYPE", "SCHEMA_VERSION",
           "BUDGET", "CRIMINALS", "STUDENTS", "LAYERS", "HEIGHT", "MAX_VERTICES", "MAX_EDGES",
           "MAX_WEIGHT"]

BUDGET = 100
CRIMINALS = 2
STUDENTS = 8
LAYERS = 15
HEIGHT = 8
#: Size limits checked before anything is allocated.
MAX_VERTICES = 100_000
MAX_EDGES = 1_000_000
MAX_WEIGHT = 10**9
#: Relative tolerance of the score invariant (criminal raises may be floats).
_TOL = 1e-9


@dataclass(frozen=True)
class Graph:
    """A Death Run course: a DAG with non-negative integer weights, a begin and ends.

    Build it with :func:`make_graph` (which checks it) or :func:`generate_graph`.
    ``edges`` is sorted; ``vertices`` is every vertex named by an edge, the begin or an end.
    """

    edges: tuple[tuple[int, int, int], ...]
    begin: int
    ends: tuple[int, ...]
    vertices: tuple[int, ...]

    @cached_property
    def weight(self) -> dict[tuple[int, int], int]:
        return {(u, v): w for u, v, w in self.edges}

    @cached_property
    def out(self) -> dict[int, tuple[tuple[int, int], ...]]:
        """``out[u]``: the ``(v, w)`` of u's out-links, sorted by v (every vertex has a key)."""
        acc: dict[int, list[tuple[int, int]]] = {v: [] for v in self.vertices}
        for u, v, w in self.edges:
            acc[u].append((v, w))
        return {u: tuple(lst) for u, lst in acc.items()}

    @cached_property
    def end_set(self) -> frozenset[int]:
        return frozenset(self.ends)

    @cached_property
    def topo(self) -> tuple[int, ...]:
        """The vertices in a topological order (begin-reachable ones and the rest)."""
        order = _topo_order(self.vertices, self.edges)
        assert order is not None
        return tuple(order)

    @cached_property
    def depth(self) -> dict[int, int]:
        """Longest number of links from the begin (unreachable vertices: by their preds)."""
        d = {v: 0 for v in self.vertices}
        for u in self.topo:
            for v, _ in self.out[u]:
                d[v] = max(d[v], d[u] + 1)
        return d

    def edge_list(self) -> list[tuple[int, int, int]]:
        """A fresh copy of the edge list in the contest's form ``[(u, v, w), ...]``."""
        return list(self.edges)

    def to_json(self) -> dict[str, Any]:
        return {"edges": [list(e) for e in self.edges], "begin": self.begin,
                "ends": list(self.ends)}

    def fingerprint(self) -> str:
        import hashlib
        return hashlib.sha1(repr((self.edges, self.begin, self.ends)).encode()).hexdigest()[:16]


def _topo_order(vertices: Sequence[int], edges: Sequence[tuple[int, int, int]]
                ) -> list[int] | None:
    indeg = {v: 0 for v in vertices}
    succ: dict[int, list[int]] = {v: [] for v in vertices}
    for u, v, _ in edges:
        succ[u].append(v)
        indeg[v] += 1
    stack = sorted((v for v in vertices if indeg[v] == 0), reverse=True)
    order = []
    while stack:
        u = stack.pop()
        order.append(u)
        for v in succ[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                stack.append(v)
    return order if len(order) == len(indeg) else None


def _is_int(x: Any) -> bool:
    # a plain int first: the ABC check costs about 3 us a value, a second on a large graph
    return type(x) is int or (isinstance(x, numbers.Integral) and not isinstance(x, bool))


def make_graph(edges: Sequence[Sequence[Any]], begin: int, ends: Sequence[int]) -> Graph:
    """Check and build a graph. Raises :class:`InputError` (without a location; readers add
    it) for: a malformed link, a vertex or weight out of range, a non-integer, negative or
    bool weight, a repeated link, a cycle, an end that has out-links or cannot be reached,
    and a vertex other than an end with no way out."""
    top = limit(MAX_VERTICES)
    too_many = over_limit(len(edges), MAX_EDGES, "the number of links")
    if too_many:
        raise InputError(too_many)
    for what, x in (("begin", begin),):
        if not _is_int(x) or not 0 <= x < top:
            raise InputError(f"{what} must be a vertex number 0..{top - 1}, found {describe(x)}")
    if len(ends) == 0:
        raise InputError("no ends: expected at least one end vertex")
    too_many = over_limit(len(ends), MAX_VERTICES, "the number of ends")
    if too_many:
        raise InputError(too_many)
    for k, x in enumerate(ends):
        if not _is_int(x) or not 0 <= x < top:
            raise InputError(f"end {k + 1} must be a vertex number 0..{top - 1}, "
                             f"found {describe(x)}")
    clean: list[tuple[int, int, int]] = []
    seen: set[tuple[int, int]] = set()
    for k, e in enumerate(edges):
        if not isinstance(e, (list, tuple)) or len(e) != 3:
            raise InputError(f"link {k + 1}: expected [u, v, w], found {describe(e)}"[:200])
        u, v, w = e
        for name, x in (("u", u), ("v", v)):
            if not _is_int(x) or not 0 <= x < top:
                raise InputError(f"link {k + 1}: {name} must be a vertex number "
                                 f"0..{top - 1}, found {describe(x)}"[:200])
        if not _is_int(w):
            raise InputError(f"link {k + 1} ({u}->{v}): the weight must be an integer, "
                             f"found {describe(w)}"[:200])
        if w < 0 or w > MAX_WEIGHT:
            raise InputError(f"link {k + 1} ({u}->{v}): the weight must be in 0..{MAX_WEIGHT}, "
                             f"found {w}")
        if (u, v) in seen:
            raise InputError(f"link {k + 1}: {u}->{v} is repeated")
        seen.add((u, v))
        clean.append((int(u), int(v), int(w)))
    ends_t = tuple(int(x) for x in ends)
    if len(set(ends_t)) != len(ends_t):
        raise InputError("an end is listed twice")
    verts = sorted({int(begin), *ends_t, *(u for u, _, _ in clean), *(v for _, v, _ in clean)})
    clean.sort()
    order = _topo_order(verts, clean)
    if order is None:
        cyc = _find_cycle(verts, clean)
        raise InputError("the links form a cycle: " + " -> ".join(map(str, cyc)))
    outdeg = {v: 0 for v in verts}
    for u, _, _ in clean:
        outdeg[u] += 1
    end_set = set(ends_t)
    if begin in end_set:
        raise InputError(f"the begin {begin} is an end; expected a course to run")
    for x in ends_t:
        if outdeg[x]:
            raise InputError(f"end {x} has out-links; an end must be where a run stops")
    for v in verts:
        if v not in end_set and outdeg[v] == 0:
            raise InputError(f"vertex {v} is not an end and has no way out")
    reach = {begin}
    succ: dict[int, list[int]] = {v: [] for v in verts}
    for u, v, _ in clean:
        succ[u].append(v)
    for u in order:
        if u in reach:
            reach.update(succ[u])
    missing = [x for x in ends_t if x not in reach]
    if missing:
        raise InputError(f"end {missing[0]} cannot be reached from the begin {begin}")
    return Graph(tuple(clean), int(begin), ends_t, tuple(verts))


def _find_cycle(verts: Sequence[int], edges: Sequence[tuple[int, int, int]]) -> list[int]:
    succ: dict[int, list[int]] = {v: [] for v in verts}
    for u, v, _ in edges:
        succ[u].append(v)
    color = {v: 0 for v in verts}
    for root in verts:
        if color[root]:
            continue
        stack = [(root, iter(succ[root]))]
        path = [root]
        color[root] = 1
        while stack:
            u, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                color[u] = 2
                stack.pop()
                path.pop()
            elif color[nxt] == 1:
                return path[path.index(nxt):] + [nxt]
            elif color[nxt] == 0:
                color[nxt] = 1
                stack.append((nxt, iter(succ[nxt])))
                path.append(nxt)
    return []


def generate_graph(seed: int | str, layers: int = LAYERS, height: int = HEIGHT,
                   p: float = 0.5, wmin: int = 1, wmax: int = 10) -> Graph:
    """A contest graph from a seed (PUZZLES.md section 4).

    Vertex 0 is the supersource, linked to every vertex of layer 1; layer ``i`` (1-based)
    holds the vertices ``1 + (i-1)*height .. i*height``. Each pair of vertices in consecutive
    layers is linked with probability ``p``; then each vertex of layers 1..L-1 without an
    out-link gets one to a random vertex of the next layer, and each vertex of layers 2..L
    without an in-link gets one from a random vertex of the previous layer; then weights are
    drawn uniformly in ``wmin..wmax`` in the order of the sorted links.

    >>> g = generate_graph(1)
    >>> len(g.vertices), len(g.ends), g.ends[0]
    (121, 8, 113)
    """
    if layers < 1 or height < 1:
        raise ValueError("layers and height must be at least 1")
    rng = random.Random(f"deathrun-graph:{seed}")
    layer = [list(range(1 + i * height, 1 + (i + 1) * height)) for i in range(layers)]
    links: set[tuple[int, int]] = {(0, v) for v in layer[0]}
    for i in range(layers - 1):
        for u in layer[i]:
            for v in layer[i + 1]:
                if rng.random() < p:
                    links.add((u, v))
    for i in range(layers - 1):
        for u in layer[i]:
            if not any((u, v) in links for v in layer[i + 1]):
                links.add((u, rng.choice(layer[i + 1])))
    for i in range(1, layers):
        for v in layer[i]:
            if not any((u, v) in links for u in layer[i - 1]):
                links.add((rng.choice(layer[i - 1]), v))
    edges = [(u, v, rng.randint(wmin, wmax)) for u, v in sorted(links)]
    return make_graph(edges, 0, layer[-1])


def distances_to_ends(g: Graph, weight: dict[tuple[int, int], float] | None = None
                      ) -> dict[int, float]:
    """Cheapest distance from every vertex to an end (``inf`` if none) under ``weight``."""
    wt = g.weight if weight is None else weight
    dist: dict[int, float] = {}
    ends = g.end_set
    for u in reversed(g.topo):
        if u in ends:
            dist[u] = 0
            continue
        best = math.inf
        for v, _ in g.out[u]:
            c = wt[(u, v)] + dist[v]
            if c < best:
                best = c
        dist[u] = best
    return dist


def nominal_distance(g: Graph) -> int:
    """The shortest path from the begin to an end with the base weights."""
    return distances_to_ends(g)[g.begin]  # type: ignore[return-value]


# --------------------------------------------------------------------------------------------
# The contest's bot interface


class BaseCriminal:
    """The contest's criminal interface: override ``strategy``."""

    def __init__(self, edge_list, begin, ends):
        self.edge_list = edge_list
        self.begin = begin
        self.ends = ends

    def strategy(self, edge_updates, vertex_count, budget):
        return 0, 0, 0


class BaseStudent:
    """The contest's student interface: override ``strategy``."""

    def __init__(self, edge_list, begin, ends):
        self.edge_list = edge_list
        self.begin = begin
        self.ends = ends

    def strategy(self, edge_updates, vertex_count, current_vertex):
        return current_vertex


class Player(abc.ABC):
    """One seat's bot as the engine sees it.

    ``start`` builds the bot (returns ``None`` or why it failed); ``call`` asks for a move
    with the strategy's arguments and returns ``(output, None)`` or ``(None, why it
    failed)``; ``close`` ends the bot's game. A player never raises for the bot's faults.
    """

    name: str = "?"

    @abc.abstractmethod
    def start(self, edge_list: list, begin: int, ends: list, seed_text: str) -> str | None:
        """Build the bot; None, or why it failed."""

    @abc.abstractmethod
    def call(self, *args: Any) -> tuple[Any, str | None]:
        """One move: ``(output, None)`` or ``(None, why it failed)``."""

    def close(self) -> None:
        pass


class InProcessPlayer(Player):
    """A bot class run in this process: ``random.seed(seed_text)`` then ``cls(edge_list,
    begin, ends)``. Exceptions become invalid moves; there is no time limit (our own bots)."""

    def __init__(self, cls: Callable[..., Any], name: str | None = None) -> None:
        self.cls = cls
        self.name = name or getattr(cls, "bot_name", getattr(cls, "__name__", "bot"))
        self.bot: Any = None
        self.dead: str | None = None

    def start(self, edge_list, begin, ends, seed_text):
        random.seed(seed_text)
        try:
            self.bot = self.cls(edge_list, begin, ends)
        except Exception as exc:  # a failing bot is a verdict
            self.dead = f"init failed: {type(exc).__name__}: {exc}"[:300]
            return self.dead
        return None

    def call(self, *args):
        if self.dead:
            return None, f"bot not running ({self.dead})"
        try:
            return self.bot.strategy(*args), None
        except Exception as exc:
            return None, f"crash: {type(exc).__name__}: {exc}"[:300]


# --------------------------------------------------------------------------------------------
# Move checks (shared by the engine and the replay)


def _number(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        return None
    try:
        return float(x)
    except (TypeError, ValueError, OverflowError):
        return None


def check_criminal_move(g: Graph, out: Any, budget: float
                        ) -> tuple[tuple[int, int, float] | None, str | None]:
    """``(move, None)`` for a valid criminal output, else ``(None, reason)``."""
    if not isinstance(out, (tuple, list)) or len(out) != 3:
        return None, f"not a (u, v, w) triple: {_short(out)}"
    u, v, w = out
    if not _is_int(u) or not _is_int(v):
        return None, f"u and v must be vertex numbers: {_short(out)}"
    if (int(u), int(v)) not in g.weight:
        return None, f"({int(u)}, {int(v)}) is not an edge"
    x = _number(w)
    if x is None:
        return None, f"w is not a number: {_short(w)}"
    if not math.isfinite(x):
        return None, f"w is not finite: {x}"
    if x < 0:
        return None, f"w is negative: {x}"
    if x > budget:
        return None, f"w {x} exceeds the budget {budget}"
    return (int(u), int(v), int(x) if isinstance(w, numbers.Integral) else x), None


def check_student_move(g: Graph, at: int, out: Any) -> tuple[int | None, str | None]:
    """``(vertex, None)`` for a valid student output, else ``(None, reason)``."""
    if not _is_int(out):
        return None, f"not a vertex number: {_short(out)}"
    if (at, int(out)) not in g.weight:
        return None, f"{at} -> {int(out)} is not a link"
    return int(out), None


def _short(x: Any) -> str:
    try:
        s = repr(x)
    except Exception:  # a hostile __repr__
        s = f"<{type(x).__name__}>"
    return s if len(s) <= 120 else s[:117] + "..."


def _sparse_updates(upd: dict[tuple[int, int], float]) -> list[list]:
    return [[u, v, w] for (u, v), w in upd.items() if w]


def _sparse_counts(counts: dict[int, int]) -> list[list[int]]:
    return [[v, n] for v, n in counts.items() if n]


def _budget_arg(b: float) -> float | int:
    return int(b) if float(b).is_integer() else b


# --------------------------------------------------------------------------------------------
# The engine


class _Game:
    """One game being played: the state the rules keep (weights, each criminal's additions
    and budget, positions, counts, scores) and the record written as it goes. The steps are
    :meth:`start`, :meth:`criminals_act` and :meth:`students_move` (one round), :meth:`finish`."""

    def __init__(self, g: Graph, criminals: Sequence[Player], students: Sequence[Player],
                 seed: int | str, budget: float, names: Sequence[str] | None) -> None:
        self.g = g
        self.players = list(criminals) + list(students)
        #: read before each player's move; :class:`OutOfTime` when it has passed
        self.deadline: Deadline | None = None
        self.nc = nc = len(criminals)
        self.ns = len(students)
        self.labels = list(names) if names is not None else [p.name for p in self.players]
        self.rng = random.Random(f"deathrun-engine:{seed}")
        self.weight: dict[tuple[int, int], float] = dict(g.weight)
        self.keys = list(self.weight)
        self.added: list[dict[tuple[int, int], float]] = [dict() for _ in range(nc)]
        self.budgets = [budget] * nc
        self.pos = [g.begin] * self.ns
        self.counts = {v: 0 for v in g.vertices}
        self.counts[g.begin] = self.ns
        self.s_scores = [0.0] * self.ns
        self.c_scores = [0.0] * nc
        self.base_crossed = 0.0
        self.invalid: list[dict[str, Any]] = []
        self.prev: dict[tuple[int, int], float] = {e: 0 for e in self.keys}
        self.record: dict[str, Any] = {
            "type": RECORD_TYPE, "schema_version": SCHEMA_VERSION, "seed": seed,
            "graph": g.to_json(), "budget": budget,
            "seats": [{"seat": i, "role": "criminal" if i < nc else "student",
                       "bot": self.labels[i]} for i in range(len(self.players))],
            "note": ("bots received edge_updates with every edge (0 where unchanged) and "
                     "vertex_count with every vertex; stored here sparse (non-zero entries)"),
            "init": [], "rounds": []}

    def _invalid(self, seat: int, rnd: int, why: str) -> None:
        self.invalid.append({"seat": seat, "bot": self.labels[seat], "round": rnd,
                             "reason": why})

    def start(self, seed: int | str) -> None:
        for i, p in enumerate(self.players):
            why = p.start(self.g.edge_list(), self.g.begin, list(self.g.ends), f"{seed}:{i}")
            self.record["init"].append({"seat": i, "ok": why is None,
                                        **({"reason": why} if why else {})})
            if why:
                self._invalid(i, 0, why)

    def running(self) -> bool:
        return any(x not in self.g.end_set for x in self.pos)

    def _in_time(self, rnd: int) -> None:
        if self.deadline is not None and self.deadline.expired():
            raise OutOfTime(rnd - 1)

    def criminals_act(self, rnd: int) -> tuple[dict[str, Any], dict[tuple[int, int], float]]:
        """The criminals' turn: each sees the previous round's updates; returns the round's
        record so far and this round's updates."""
        cur = {e: 0 for e in self.keys}
        rr: dict[str, Any] = {"round": rnd,
                              "criminal_view": {"updates": _sparse_updates(self.prev),
                                                "counts": _sparse_counts(self.counts)},
                              "criminals": [], "updates": None, "students": []}
        for c in range(self.nc):
            self._in_time(rnd)
            out, why = self.players[c].call(dict(self.prev), dict(self.counts),
                                            _budget_arg(self.budgets[c]))
            move = None
            if why is None:
                move, why = check_criminal_move(self.g, out, self.budgets[c])
            entry: dict[str, Any] = {"seat": c, "budget": self.budgets[c],
                                     "valid": move is not None}
            if move is not None:
                u, v, w = move
                e = (u, v)
                self.weight[e] += w
                self.added[c][e] = self.added[c].get(e, 0) + w
                self.budgets[c] -= w
                cur[e] += w
                entry["move"] = [u, v, w]
            else:
                entry["reason"] = why
                if out is not None:
                    entry["output"] = _short(out)
                self._invalid(c, rnd, why)
            rr["criminals"].append(entry)
        rr["updates"] = _sparse_updates(cur)
        return rr, cur

    def students_move(self, rnd: int, rr: dict[str, Any],
                      cur: dict[tuple[int, int], float]) -> None:
        """The students' turn, one at a time, each seeing this round's updates."""
        g = self.g
        for s, p in enumerate(self.players[self.nc:]):
            at = self.pos[s]
            if at in g.end_set:
                continue
            seat = self.nc + s
            self._in_time(rnd)
            view = _sparse_counts(self.counts)
            out, why = p.call(dict(cur), dict(self.counts), at)
            to = None
            if why is None:
                to, why = check_student_move(g, at, out)
            entry = {"seat": seat, "at": at, "counts": view, "valid": to is not None}
            if to is None:
                entry["reason"] = why
                if out is not None:
                    entry["output"] = _short(out)
                to = self.rng.choice(g.out[at])[0]
                self._invalid(seat, rnd, why)
            e = (at, to)
            paid = self.weight[e]
            self.s_scores[s] += paid
            self.base_crossed += g.weight[e]
            for c in range(self.nc):
                self.c_scores[c] += self.added[c].get(e, 0)
            self.counts[at] -= 1
            self.counts[to] += 1
            self.pos[s] = to
            entry["to"] = to
            entry["paid"] = paid
            rr["students"].append(entry)

    def finish(self) -> dict[str, Any]:
        """Check the score invariant and complete the record."""
        total = math.fsum(self.s_scores)
        other = math.fsum([self.base_crossed, *self.c_scores])
        assert abs(total - other) <= _TOL * max(1.0, abs(total)) * 10, (
            f"score invariant broken: students {total} != base {self.base_crossed} + "
            f"criminals {self.c_scores}")
        rec = self.record
        rec["scores"] = {"criminals": self.c_scores, "students": self.s_scores}
        rec["base_crossed"] = self.base_crossed
        rec["final_budgets"] = self.budgets
        rec["invalid_moves"] = self.invalid
        for seat, p in zip(rec["seats"], self.players):
            tail = getattr(p, "stderr_tail", None)
            text = tail() if callable(tail) else ""
            if text:  # a bot file's stderr: how a contest player debugs
                seat["stderr"] = text
                last = [ln for ln in text.splitlines() if ln.strip()][-3:]
                for m in self.invalid:  # shown beside the bot's invalid moves
                    if m["seat"] == seat["seat"]:
                        m["stderr"] = "\n".join(last)
        return rec


class OutOfTime(Exception):
    """The deadline a game was played against passed before it ended (``rounds``: the
    rounds played whole); the game has no result."""

    def __init__(self, rounds: int) -> None:
        super().__init__(f"the time limit ran out after {rounds} round(s)")
        self.rounds = rounds


def play_game(g: Graph, criminals: Sequence[Player], students: Sequence[Player],
              seed: int | str = 0, *, budget: float = BUDGET,
              names: Sequence[str] | None = None,
              deadline: Deadline | None = None) -> dict[str, Any]:
    """Play one game and return its record (a JSON-able dict, see the module docstring).

    ``criminals`` take seats 0.. and ``students`` the seats after them. The players are
    started here and closed at the end, whatever happens. Raises ``AssertionError`` if the
    score invariant fails (an engine bug, never a bot's fault), :class:`OutOfTime` when
    ``deadline`` passes before the game ends (read before each move: the game then has no
    result).
    """
    game = _Game(g, criminals, students, seed, budget, names)
    game.deadline = deadline
    try:
        game.start(seed)
        rnd = 0
        while game.running():
            if deadline is not None and deadline.expired():
                raise OutOfTime(rnd)
            rnd += 1
            if rnd > len(g.vertices):  # impossible on a checked DAG
                raise AssertionError("the game does not end")
            rr, cur = game.criminals_act(rnd)
            game.students_move(rnd, rr, cur)
            game.record["rounds"].append(rr)
            game.prev = cur
    finally:
        for p in game.players:
            try:
                p.close()
            except Exception:
                pass
    return game.finish()


def scoreboard(record: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per seat: seat, role, bot, score, invalid moves."""
    nc = sum(1 for s in record["seats"] if s["role"] == "criminal")
    bad: dict[int, int] = {}
    for m in record.get("invalid_moves", []):
        bad[m["seat"]] = bad.get(m["seat"], 0) + 1
    rows = []
    for s in record["seats"]:
        i = s["seat"]
        score = (record["scores"]["criminals"][i] if i < nc
                 else record["scores"]["students"][i - nc])
        rows.append({"seat": i, "role": s["role"], "bot": s["bot"], "score": score,
                     "invalid_moves": bad.get(i, 0)})
    return rows
