"""City closing (Two Spies): the map, the rules, the Wiener number and the score of an order.

A map is a connected undirected graph of named cities. Cities are closed one at a time; the
map must stay connected after every closing. The score of an order is the sum of the Wiener
numbers (sum of shortest-path lengths over unordered pairs of open cities) of every map in the
sequence, from the full map down to the last one; the article's average ranks orders the same.

Rules (:class:`Rules`) beyond connectivity:

- ``final_size`` (k, default 1): the order closes ``n - k`` cities and ends on ``k``.
- ``keep``: cities that are never closed (names, matched case-insensitively).
- ``no_paths`` (K, at least 3, or None): no map of the sequence, the full map included, may be
  a path of K or more cities (the designer's "line of cities").
- ``final_not_path``: the last map may not be a path of 3 or more cities (a map of one or two
  cities is not counted as a path shape: with ``final_size=3`` the end must be a triangle).

An order may name the last city left as well: with ``final_size=1`` an order naming all ``n``
cities is read as closing the first ``n - 1`` (the blog's orders are written that way).

This module imports no solver: every solver's order is re-scored here by
:func:`score_order`, which lists every broken rule.

Example:
    >>> m = CityMap(("a", "b", "c", "d"), ((0, 1), (1, 2), (2, 3), (3, 0), (0, 2)))
    >>> wiener(m)
    7
    >>> chk = score_order(m, ["B", "d", "a"], Rules())
    >>> chk.ok, chk.wiener, chk.total, chk.left
    (True, [7, 3, 1, 0], 11, ['c'])
    >>> [v["kind"] for v in score_order(m, ["a", "a", "x"], Rules()).violations]
    ['closed-twice', 'unknown-city', 'wrong-final-size']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from puzzleproof.errors import InputError
from puzzleproof.sizes import over_limit

__all__ = ["CityMap", "Rules", "OrderCheck", "wiener", "wiener_mask", "is_connected_mask",
           "is_path_mask", "forbidden_shape", "score_order", "MAX_CITIES", "prepare",
           "answer_of"]

#: The largest map any reader or solver accepts (checked before anything is built).
MAX_CITIES = 5000


def _popcount(x: int) -> int:
    return x.bit_count()


@dataclass(frozen=True)
class CityMap:
    """A map of ``n`` cities ``0..n-1`` named ``names``, joined by undirected ``links``.

    ``coords`` holds one ``(lat, lng)`` (or ``(y, x)``) per city when the file gave them;
    ``tags`` one tuple of strings per city (region, code, "large", "start:p1" ...);
    ``marked`` the cities the file marks as large cities or starts (a hint for ``keep``);
    ``aliases`` other names per city (country codes) that orders may use too.
    Immutable and picklable; names and aliases are unique case-insensitively.
    """

    names: tuple[str, ...]
    links: tuple[tuple[int, int], ...]
    coords: tuple[tuple[float, float], ...] | None = None
    tags: tuple[tuple[str, ...], ...] | None = None
    marked: frozenset[int] = frozenset()
    aliases: tuple[tuple[str, ...], ...] | None = None
    name: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        n = len(self.names)
        if n < 1:
            raise InputError("a map needs at least one city")
        too_many = over_limit(n, MAX_CITIES, "the number of cities")
        if too_many:
            raise InputError(too_many)
        seen: dict[str, int] = {}
        for i, nm in enumerate(self.names):
            if not isinstance(nm, str) or not nm.strip():
                raise InputError(f"city {i}: a name must be a non-empty string, found {nm!r}")
            key = nm.strip().casefold()
            if key in seen:
                raise InputError(f"city name {nm!r} appears twice (names are case-insensitive)")
            seen[key] = i
        if self.aliases is not None:
            if len(self.aliases) != n:
                raise InputError(f"{len(self.aliases)} alias lists for {n} cities")
            for i, al in enumerate(self.aliases):
                for a in al:
                    key = a.strip().casefold()
                    if seen.setdefault(key, i) != i:
                        raise InputError(f"name {a!r} of {self.names[i]} is already the name of "
                                         f"{self.names[seen[key]]}")
        links: list[tuple[int, int]] = []
        pairs: set[tuple[int, int]] = set()
        for u, v in self.links:
            for x in (u, v):
                if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < n:
                    raise InputError(f"link {u}-{v}: city {x!r} out of range 0..{n - 1}")
            if u == v:
                raise InputError(f"link {self.names[u]}-{self.names[v]} joins a city to itself")
            key = (u, v) if u < v else (v, u)
            if key in pairs:
                raise InputError(f"link {self.names[u]}-{self.names[v]} appears twice")
            pairs.add(key)
            links.append(key)
        object.__setattr__(self, "links", tuple(links))
        if self.coords is not None and len(self.coords) != n:
            raise InputError(f"{len(self.coords)} coordinates for {n} cities")
        if self.tags is not None and len(self.tags) != n:
            raise InputError(f"{len(self.tags)} tag lists for {n} cities")
        object.__setattr__(self, "_index", seen)
        adj = [0] * n
        for u, v in links:
            adj[u] |= 1 << v
            adj[v] |= 1 << u
        object.__setattr__(self, "_adj", tuple(adj))

    # pickling: the derived caches are rebuilt
    def __getstate__(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("names", "links", "coords", "tags", "marked",
                                              "aliases", "name")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)
        self.__post_init__()

    @property
    def n(self) -> int:
        return len(self.names)

    @property
    def adj(self) -> tuple[int, ...]:
        """One neighbour bitmask per city."""
        return self._adj  # type: ignore[attr-defined]

    @property
    def full_mask(self) -> int:
        return (1 << self.n) - 1

    def index(self, name: str) -> int | None:
        """The city named ``name`` (case-insensitive, surrounding blanks ignored), or None."""
        if not isinstance(name, str):
            return None
        return self._index.get(name.strip().casefold())  # type: ignore[attr-defined]

    def neighbours(self, v: int) -> list[int]:
        return _bits(self.adj[v])

    def is_connected(self) -> bool:
        return is_connected_mask(self.adj, self.full_mask)

    def names_of(self, mask: int) -> list[str]:
        return [self.names[i] for i in _bits(mask)]


@dataclass(frozen=True)
class Rules:
    """The rules an order must keep (see the module docstring).

    >>> Rules(final_size=3, keep=frozenset({"Berlin"}), no_paths=4).no_paths
    4
    """

    final_size: int = 1
    keep: frozenset[str] = frozenset()
    no_paths: int | None = None
    final_not_path: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.final_size, bool) or not isinstance(self.final_size, int) \
                or self.final_size < 1:
            raise InputError(f"the final size must be a whole number >= 1, found "
                             f"{self.final_size!r}")
        if self.no_paths is not None and (isinstance(self.no_paths, bool)
                                          or not isinstance(self.no_paths, int)
                                          or self.no_paths < 3):
            raise InputError(f"no-paths K must be a whole number >= 3, found {self.no_paths!r}")
        object.__setattr__(self, "keep", frozenset(self.keep))

    def keep_mask(self, m: CityMap) -> int:
        """The kept cities as a bitmask; an unknown name is an :class:`InputError`."""
        mask = 0
        for name in sorted(self.keep):
            i = m.index(name)
            if i is None:
                raise InputError(f"kept city {name!r} is not on the map")
            mask |= 1 << i
        return mask

    def to_dict(self) -> dict[str, Any]:
        return {"final_size": self.final_size, "keep": sorted(self.keep),
                "no_paths": self.no_paths, "final_not_path": self.final_not_path}


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def is_connected_mask(adj: Sequence[int], mask: int) -> bool:
    """Whether the cities in ``mask`` form a connected map (the empty map is not)."""
    if not mask:
        return False
    seen = mask & -mask
    frontier = seen
    while frontier:
        nb = 0
        f = frontier
        while f:
            low = f & -f
            nb |= adj[low.bit_length() - 1]
            f ^= low
        frontier = nb & mask & ~seen
        seen |= frontier
    return seen == mask


def wiener_mask(adj: Sequence[int], mask: int) -> int | None:
    """The Wiener number of the map on the cities of ``mask``; None when it is disconnected.

    >>> wiener_mask((0b10, 0b101, 0b10), 0b111)  # a path of three cities
    4
    """
    total = 0
    rest = mask
    while rest:
        low = rest & -rest
        rest ^= low
        seen = low
        frontier = low
        d = 0
        while frontier:
            d += 1
            nb = 0
            f = frontier
            while f:
                b = f & -f
                nb |= adj[b.bit_length() - 1]
                f ^= b
            frontier = nb & mask & ~seen
            seen |= frontier
            total += d * _popcount(frontier)
        if seen != mask:
            return None
    return total // 2


def wiener(m: CityMap, cities: Iterable[int | str] | int | None = None) -> int | None:
    """The Wiener number of ``m`` restricted to ``cities`` (all by default): the sum of the
    shortest-path lengths over unordered pairs. None when that map is disconnected.

    ``cities`` is a bitmask, or city indices or names.
    """
    if cities is None:
        mask = m.full_mask
    elif isinstance(cities, int) and not isinstance(cities, bool):
        mask = cities
    else:
        mask = 0
        for c in cities:
            i = m.index(c) if isinstance(c, str) else c
            if i is None or not 0 <= i < m.n:
                raise ValueError(f"unknown city {c!r}")
            mask |= 1 << i
    if not mask:
        return 0
    return wiener_mask(m.adj, mask)


def is_path_mask(adj: Sequence[int], mask: int) -> bool:
    """Whether the connected map on ``mask`` is a path (a line of cities; one city counts)."""
    size = _popcount(mask)
    degsum = 0
    rest = mask
    while rest:
        low = rest & -rest
        rest ^= low
        d = _popcount(adj[low.bit_length() - 1] & mask)
        if d > 2:
            return False
        degsum += d
    return degsum // 2 == size - 1


def forbidden_shape(adj: Sequence[int], mask: int, rules: Rules, final: bool) -> str | None:
    """The shape rule the (connected) map on ``mask`` breaks, or None.

    Returns ``"path-shape"`` when ``rules.no_paths`` forbids it, ``"final-path"`` when it is
    the last map and ``rules.final_not_path`` forbids it.
    """
    size = _popcount(mask)
    if rules.no_paths is not None and size >= rules.no_paths and is_path_mask(adj, mask):
        return "path-shape"
    if final and rules.final_not_path and size >= 3 and is_path_mask(adj, mask):
        return "final-path"
    return None


@dataclass
class OrderCheck:
    """What :func:`score_order` found.

    Attributes:
        ok: no rule is broken.
        violations: every broken rule, ``{"kind", "step", "city", "message"}``; kinds are
            ``malformed``, ``unknown-city``, ``closed-twice``, ``kept-city``, ``disconnects``,
            ``path-shape``, ``final-path``, ``wrong-final-size``.
        order: the closings as read (names as the map spells them when known).
        wiener: the Wiener number of every map in the sequence, the full map first (None for
            a disconnected map).
        total: the sum of ``wiener`` (None when a map is disconnected).
        left: the cities of the last map.
        last_named: the city an order of all ``n`` names ended on (read as the one left).
    """

    ok: bool
    violations: list[dict[str, Any]]
    order: list[str]
    wiener: list[int | None]
    total: int | None
    left: list[str]
    last_named: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"type": "cityclose-check", "ok": self.ok, "violations": self.violations,
                "order": self.order, "wiener": self.wiener, "total": self.total,
                "left": self.left, "last_named": self.last_named}


def score_order(m: CityMap, order: Sequence[str | int], rules: Rules | None = None
                ) -> OrderCheck:
    """Re-score ``order`` (city names, case-insensitive, or indices) on ``m`` under ``rules``
    and list every rule it breaks (see :class:`OrderCheck`)."""
    rules = rules or Rules()
    violations: list[dict[str, Any]] = []

    def bad(kind: str, step: int | None, city: Any, message: str) -> None:
        violations.append({"kind": kind, "step": step, "city": city, "message": message})

    if isinstance(order, (str, bytes)) or not isinstance(order, Sequence):
        bad("malformed", None, None, f"an order is a list of city names, found {order!r:.80}")
        order = []
    order = list(order)
    try:
        keep = rules.keep_mask(m)
    except InputError as exc:
        bad("unknown-city", None, None, exc.message)
        keep = 0
    last_named = None
    if rules.final_size == 1 and len(order) == m.n and m.n > 0:
        last_named = order[-1]
        order = order[:-1]
    mask = m.full_mask
    names: list[str] = []
    w0 = wiener_mask(m.adj, mask)
    if w0 is None:
        bad("disconnects", 0, None, "the full map is disconnected")
    else:
        shape = forbidden_shape(m.adj, mask, rules, final=not order)
        if shape:
            bad(shape, 0, None, f"the full map is a path of {m.n} cities")
    wseq: list[int | None] = [w0]
    for step, c in enumerate(order, start=1):
        if isinstance(c, bool) or not isinstance(c, (str, int)):
            bad("malformed", step, c, f"step {step}: expected a city name, found {c!r:.40}")
            names.append(str(c))
            continue
        i = m.index(c) if isinstance(c, str) else (c if 0 <= c < m.n else None)
        if i is None:
            bad("unknown-city", step, c, f"step {step}: no city {c!r} on the map")
            names.append(str(c))
            continue
        nm = m.names[i]
        names.append(nm)
        if not mask >> i & 1:
            bad("closed-twice", step, nm, f"step {step}: {nm} is already closed")
            continue
        if keep >> i & 1:
            bad("kept-city", step, nm, f"step {step}: {nm} is a kept city")
        was_connected = wseq[-1] is not None
        mask &= ~(1 << i)
        w = wiener_mask(m.adj, mask) if mask else None
        wseq.append(w)
        if w is None:
            if was_connected:
                what = "closes the last city" if not mask else "disconnects the map"
                bad("disconnects", step, nm, f"step {step}: closing {nm} {what}")
        else:
            shape = forbidden_shape(m.adj, mask, rules, final=step == len(order))
            if shape == "path-shape":
                bad(shape, step, nm, f"step {step}: after closing {nm} the map is a path of "
                    f"{_popcount(mask)} cities (no-paths {rules.no_paths})")
            elif shape == "final-path":
                bad(shape, step, nm, f"step {step}: the last map is a path of "
                    f"{_popcount(mask)} cities")
    if last_named is not None:
        li = m.index(last_named) if isinstance(last_named, str) else None
        if li is None or not mask >> li & 1:
            bad("unknown-city" if li is None else "closed-twice", len(order) + 1, last_named,
                f"the last name {last_named!r} should be the city left, "
                f"{', '.join(m.names_of(mask)) or 'none'}")
    size = _popcount(mask)
    if size != rules.final_size:
        bad("wrong-final-size", None, None, f"the order ends on {size} cities; the final size "
            f"is {rules.final_size}")
    total = None if any(w is None for w in wseq) else sum(wseq)  # type: ignore[arg-type]
    return OrderCheck(not violations, violations, names, wseq, total, m.names_of(mask),
                      None if last_named is None else str(last_named))


def prepare(m: CityMap, rules: Rules) -> tuple[int, int]:
    """``(keep_mask, closings)``; raises InputError for an unknown kept city or a final size
    larger than the map."""
    keep = rules.keep_mask(m)
    if rules.final_size > m.n:
        raise InputError(f"the final size {rules.final_size} exceeds the map's {m.n} cities")
    return keep, m.n - rules.final_size


def answer_of(m: CityMap, order: Sequence[int], wseq: Sequence[int]) -> dict[str, Any]:
    """The answer object of an order given as city indices, with its Wiener numbers:
    ``{"order", "left", "wiener", "total"}`` (city names), the shape every method returns."""
    closed = 0
    for i in order:
        closed |= 1 << i
    left = [m.names[i] for i in range(m.n) if not closed >> i & 1]
    return {"order": [m.names[i] for i in order], "left": left, "wiener": list(wseq),
            "total": int(sum(wseq))}
