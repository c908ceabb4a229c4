"""City-closing maps and orders: read, recognised, written and drawn.

Map formats (``fmt``):

- ``json``: ``{"cities": [...], "edges": [...]}`` where a city is a name or an object with
  ``name`` (and ``lat``/``lng`` or ``latlng``, other fields kept as tags), and an edge is
  ``[a, b]`` or ``{"from": a, "to": b}``; or ``{"nodes": [...], "edges": [...]}`` where a node
  has a ``code`` and a ``name`` (edges may use either). Optional ``name``, ``keep``,
  ``large_cities`` and ``start`` (a name or ``{"p1": .., "p2": ..}``): cities the file marks.
- ``edges``: one link ``a b`` a line (tab- or comma-separated when names hold blanks), ``#``
  comments; a line with one name declares a city.
- ``graphml`` and ``gml`` through networkx (a node's ``name`` or ``label`` is its name,
  ``lat``/``lng`` or ``x``/``y`` its place).

City names are matched case-insensitively everywhere. Every bad map raises
:class:`~puzzleproof.errors.InputError` with the file and the line (text formats) or the JSON
field (``edges[3]``): an empty map, a non-string or duplicate name, an unknown city, a link to
itself, a disconnected map, more than :data:`~puzzleproof.models.cityclose.MAX_CITIES` cities.

Orders: JSON (``{"order": [...], "wiener": [...], "total": N}``, a plain list, or a file of
several orders chosen by ``key``, as the blog's ``europe30-blog-orders.json``) or one name a
line. :func:`order_json` writes ``{"type": "cityclose-order", "schema_version": 1, ...}``.

Example:
    >>> m = read_map("# a square\\na b\\nb c\\nc d\\nd a\\n")
    >>> m.names, m.n
    (('a', 'b', 'c', 'd'), 4)
    >>> sniff("a b\\nb c\\n"), sniff("3 2 1\\n0 1\\n1 2\\n2\\n")
    (True, False)
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Sequence

from puzzleproof.errors import InputError
from puzzleproof.formats.numbers import json_error, load_json
from puzzleproof.sizes import over_limit
from puzzleproof.models.cityclose import MAX_CITIES, CityMap, is_connected_mask

__all__ = ["MAP_FORMATS", "MAX_LINKS", "detect_format", "sniff", "read_map", "read_instances",
           "OrderInput",
           "read_order", "order_document", "order_json", "render_svg", "render_png",
           "plot_steps", "map_to_json", "write_map", "map_digest"]

MAP_FORMATS = ("json", "edges", "graphml", "gml")
#: The most links a map may have (checked before anything is built).
MAX_LINKS = 200_000

_GML_START = re.compile(r"\A\s*(?:#[^\n]*\n\s*|Creator\s+\"[^\"]*\"\s*|Version\s+\S+\s*)*graph\s*\[")
_INT = re.compile(r"^[+-]?\d+$")


# -- recognising ---------------------------------------------------------------------------

def _json_map_obj(obj: Any) -> bool:
    if not isinstance(obj, dict):
        return False
    if any(k in obj for k in ("grid", "islands", "game_id", "gateways", "links")):
        return False
    if obj.get("type") not in (None, "cityclose", "cityclose-map"):
        return False
    cities = obj.get("cities", obj.get("nodes"))
    return isinstance(cities, list) and isinstance(obj.get("edges"), list)


def _edge_lines(text: str) -> list[tuple[int, list[str]]]:
    out = []
    for no, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if "\t" in line:
            parts = [p.strip() for p in line.split("\t") if p.strip()]
        elif "," in line:
            parts = [p.strip() for p in line.split(",")]
        else:
            parts = line.split()
        out.append((no, parts))
    return out


def detect_format(text: str) -> str | None:
    """The map format of ``text`` (one of :data:`MAP_FORMATS`), or None when it is not a city
    map this module recognises."""
    head = text.lstrip()[:4096]
    if head.startswith("{"):
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError):  # huge numbers, deep nesting too
            return None
        return "json" if _json_map_obj(obj) else None
    if "<graphml" in head:
        return "graphml"
    if _GML_START.match(text):
        return "gml"
    first = text.lstrip().split("\n", 1)[0].strip().lower()
    lines = _edge_lines(text)
    if not lines or any(len(p) not in (1, 2) for _, p in lines):
        return None
    if first.startswith("# cityclose"):
        return "edges"
    # Skynet maps are lines of integers, Hashi grids single tokens of digits and dots: an edge
    # list is recognised only when it has links and names that are not all numbers.
    if not any(len(p) == 2 for _, p in lines):
        return None
    if all(_INT.match(t) for _, p in lines for t in p):
        return None
    if any(re.fullmatch(r"[0-9.]+", t) and "." in t for _, p in lines for t in p):
        return None
    return "edges"


def sniff(text: str) -> bool:
    """Whether ``text`` is a city map (JSON map, GraphML, GML or an edge list of names); false
    on Hashi and Skynet files, so a folder can mix puzzles.

    >>> sniff('{"cities": ["a", "b"], "edges": [["a", "b"]]}')
    True
    >>> sniff('{"grid": ["1.1"], "game_id": "x"}'), sniff("2 2\\n1 1\\n1 1\\n")
    (False, False)
    """
    try:
        return detect_format(text) is not None
    except Exception:  # a recogniser never raises
        return False


# -- building ------------------------------------------------------------------------------

_WS = re.compile(r"\s*")
_PATH = re.compile(r"([A-Za-z_][\w]*)|\[(\d+)\]")


def _json_locate(text: str, where: str) -> tuple[int | None, int | None]:
    """The line and column of the JSON value at ``where`` (``edges[3]``, ``cities[0].lat``,
    ``start.p1``) in ``text``, or ``(None, None)`` when it cannot be found.

    >>> _json_locate('{"a": 1,\\n "edges": [[1, 2],\\n  [3, 4]]}', "edges[1]")
    (3, 3)
    """
    from json.decoder import scanstring

    path: list[str | int] = [a if a else int(b) for a, b in _PATH.findall(where)]
    dec = json.JSONDecoder()
    pos = _WS.match(text, 0).end()
    try:
        for key in path:
            if text[pos] == "{" and isinstance(key, str):
                pos = _WS.match(text, pos + 1).end()
                while True:
                    if text[pos] != '"':
                        return None, None
                    k, pos = scanstring(text, pos + 1)
                    pos = _WS.match(text, pos).end() + 1  # the ':'
                    pos = _WS.match(text, pos).end()
                    if k == key:
                        break
                    _, pos = dec.raw_decode(text, pos)
                    pos = _WS.match(text, pos).end()
                    if text[pos] != ",":
                        return None, None
                    pos = _WS.match(text, pos + 1).end()
            elif text[pos] == "[" and isinstance(key, int):
                pos = _WS.match(text, pos + 1).end()
                for _ in range(key):
                    _, pos = dec.raw_decode(text, pos)
                    pos = _WS.match(text, pos).end()
                    if text[pos] != ",":
                        return None, None
                    pos = _WS.match(text, pos + 1).end()
                if text[pos] == "]":
                    return None, None
            else:
                return None, None
    except (IndexError, ValueError, RecursionError):
        return None, None
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


class _Builder:
    """Collects cities and links with their locations, then checks and builds the map.
    ``text`` (JSON maps) lets an error at a field (``edges[3]``) name its line and column."""

    def __init__(self, source: str, text: str | None = None) -> None:
        self.source = source
        self.text = text
        self.loc: list[tuple[int | None, str | None]] = []
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self.aliases: list[list[str]] = []
        self.coords: list[tuple[float, float] | None] = []
        self.tags: list[tuple[str, ...]] = []
        self.links: set[tuple[int, int]] = set()
        self.link_list: list[tuple[int, int]] = []
        self.marked: set[int] = set()

    def err(self, msg: str, line: int | None = None, where: str | None = None) -> InputError:
        col = None
        if line is None and where and self.text is not None:
            line, col = _json_locate(self.text, where)
        return InputError(f"{where}: {msg}" if where else msg, self.source, line, col)

    def add_city(self, name: Any, line: int | None = None, where: str | None = None,
                 aliases: Sequence[str] = (), coords: tuple[float, float] | None = None,
                 tags: Sequence[str] = ()) -> int:
        if not isinstance(name, str) or not name.strip():
            raise self.err(f"a city name must be a non-empty string, found {name!r:.60}", line,
                           where)
        too_many = over_limit(len(self.names) + 1, MAX_CITIES, "the number of cities")
        if too_many:
            raise self.err(too_many, line, where)
        key = name.strip().casefold()
        if key in self.index:
            raise self.err(f"city {name!r} appears twice (names are case-insensitive)", line,
                           where)
        i = len(self.names)
        self.names.append(name.strip())
        self.index[key] = i
        good_aliases = []
        for a in aliases:
            k = a.strip().casefold()
            if k in self.index and self.index[k] != i:
                raise self.err(f"code {a!r} of {name!r} is already a city's name or code", line,
                               where)
            if a.strip():
                self.index[k] = i
                good_aliases.append(a.strip())
        self.aliases.append(good_aliases)
        self.loc.append((line, where))
        self.coords.append(coords)
        self.tags.append(tuple(tags))
        return i

    def city(self, name: Any, line: int | None, where: str | None, create: bool) -> int:
        if isinstance(name, bool) or not isinstance(name, str):
            raise self.err(f"expected a city name, found {name!r:.60}", line, where)
        i = self.index.get(name.strip().casefold())
        if i is None:
            if not create:
                raise self.err(f"unknown city {name!r}", line, where)
            i = self.add_city(name, line, where)
        return i

    def add_link(self, a: Any, b: Any, line: int | None = None, where: str | None = None,
                 create: bool = False) -> None:
        u = self.city(a, line, where, create)
        v = self.city(b, line, where, create)
        if u == v:
            raise self.err(f"link {a}-{b} joins a city to itself", line, where)
        key = (min(u, v), max(u, v))
        if key not in self.links:
            too_many = over_limit(len(self.links) + 1, MAX_LINKS, "the number of links")
            if too_many:
                raise self.err(too_many, line, where)
            self.links.add(key)
            self.link_list.append(key)

    def build(self, name: str | None) -> CityMap:
        if not self.names:
            raise self.err("empty map: expected at least one city")
        n = len(self.names)
        adj = [0] * n
        for u, v in self.link_list:
            adj[u] |= 1 << v
            adj[v] |= 1 << u
        if not is_connected_mask(adj, (1 << n) - 1):
            seen, frontier = 1, 1
            while frontier:
                nb = 0
                for i in range(n):
                    if frontier >> i & 1:
                        nb |= adj[i]
                frontier = nb & ~seen
                seen |= frontier
            cut = next(i for i in range(n) if not seen >> i & 1)
            line, where = self.loc[cut]
            raise self.err(f"the map is disconnected: {self.names[cut]} cannot be reached from "
                           f"{self.names[0]}", line, where)
        coords = None
        if any(c is not None for c in self.coords):
            missing = [self.names[i] for i, c in enumerate(self.coords) if c is None]
            if missing:
                line, where = self.loc[self.names.index(missing[0])]
                raise self.err(f"coordinates given for some cities but not for {missing[0]}",
                               line, where)
            coords = tuple(self.coords)  # type: ignore[arg-type]
        try:
            return CityMap(tuple(self.names), tuple(self.link_list), coords,
                           tuple(self.tags) if any(self.tags) else None,
                           frozenset(self.marked),
                           tuple(tuple(a) for a in self.aliases) if any(self.aliases) else None,
                           name=name)
        except InputError as exc:
            raise exc.located(self.source) from None


def _number(v: Any, where: str, b: _Builder) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise b.err(f"expected a number, found {v!r:.40}", None, where)
    return float(v)


def _read_json(text: str, source: str, name: str | None) -> CityMap:
    obj = load_json(text, source, syntax="bad JSON")  # strict: duplicate keys, 1e999, nesting
    b = _Builder(source, text)
    if not isinstance(obj, dict):
        raise b.err("expected a JSON object with 'cities' (or 'nodes') and 'edges'")
    key = "cities" if "cities" in obj else "nodes"
    cities, edges = obj.get(key), obj.get("edges")
    if not isinstance(cities, list):
        raise b.err("expected a list of cities under 'cities' or 'nodes'")
    if not isinstance(edges, list):
        raise b.err("expected a list of links under 'edges'")
    for count, base, what, where in ((len(cities), MAX_CITIES, "cities", key),
                                     (len(edges), MAX_LINKS, "links", "edges")):
        too_many = over_limit(count, base, f"the number of {what}")
        if too_many:
            raise b.err(too_many, None, where)
    for i, c in enumerate(cities):
        where = f"{key}[{i}]"
        if isinstance(c, str):
            b.add_city(c, None, where)
            continue
        if not isinstance(c, dict):
            raise b.err(f"expected a name or an object with 'name', found {c!r:.60}", None, where)
        nm = c.get("name", c.get("code", c.get("id")))
        aliases = [c[k] for k in ("code", "id") if isinstance(c.get(k), str) and c[k] != nm]
        for k in ("code", "id"):
            if k in c and not isinstance(c[k], str):
                raise b.err(f"'{k}' must be a string, found {c[k]!r:.40}", None, where)
        coords = None
        if "lat" in c or "lng" in c:
            coords = (_number(c.get("lat"), f"{where}.lat", b),
                      _number(c.get("lng"), f"{where}.lng", b))
        elif "latlng" in c:
            ll = c["latlng"]
            if not isinstance(ll, list) or len(ll) != 2:
                raise b.err("'latlng' must be [lat, lng]", None, where)
            coords = (_number(ll[0], f"{where}.latlng", b), _number(ll[1], f"{where}.latlng", b))
        tags = [f"{k}={v}" for k, v in c.items()
                if k not in ("name", "lat", "lng", "latlng") and isinstance(v, (str, int, float))
                and not isinstance(v, bool)]
        b.add_city(nm, None, where, aliases, coords, tags)
    for i, e in enumerate(edges):
        where = f"edges[{i}]"
        if isinstance(e, dict):
            if "from" not in e or "to" not in e:
                raise b.err("expected {\"from\": city, \"to\": city}", None, where)
            pair = (e["from"], e["to"])
        elif isinstance(e, list) and len(e) == 2:
            pair = (e[0], e[1])
        else:
            raise b.err(f"expected [city, city], found {e!r:.60}", None, where)
        b.add_link(pair[0], pair[1], None, where)
    for field_name in ("keep", "large_cities"):
        if field_name in obj:
            vals = obj[field_name]
            if not isinstance(vals, list):
                raise b.err("expected a list of city names", None, field_name)
            for j, v in enumerate(vals):
                b.marked.add(b.city(v, None, f"{field_name}[{j}]", False))
    if "start" in obj:
        st = obj["start"]
        items = st.items() if isinstance(st, dict) else [("start", st)] if isinstance(st, str) \
            else enumerate(st) if isinstance(st, list) else None
        if items is None:
            raise b.err("expected a city name or {\"p1\": city, \"p2\": city}", None, "start")
        for k, v in items:
            i = b.city(v, None, f"start.{k}", False)
            b.marked.add(i)
            b.tags[i] = b.tags[i] + (f"start={k}",)
    title = obj.get("name") if isinstance(obj.get("name"), str) else name
    return b.build(title)


def _read_edges(text: str, source: str, name: str | None) -> CityMap:
    b = _Builder(source)
    for no, parts in _edge_lines(text):
        if len(parts) == 1:
            if parts[0].casefold() not in b.index:
                b.add_city(parts[0], no)
        elif len(parts) == 2:
            b.add_link(parts[0], parts[1], no, None, create=True)
        else:
            raise b.err(f"expected 'city city' (a link) or one city name, found {len(parts)} "
                        "fields", no)
    return b.build(name)


def _read_nx(text: str, source: str, name: str | None, fmt: str) -> CityMap:
    import networkx as nx

    b = _Builder(source)
    count = len(re.findall(r"<node\b", text)) if fmt == "graphml" else \
        len(re.findall(r"\bnode\s*\[", text))
    too_many = over_limit(count, MAX_CITIES, "the number of cities")
    if too_many:
        raise b.err(too_many)
    try:
        g = nx.parse_graphml(text) if fmt == "graphml" else nx.parse_gml(text, label=None)
    except Exception as exc:  # networkx raises many kinds; all mean "cannot read"
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        line = None
        m = re.search(r"line (\d+)", msg)
        if m:
            line = int(m.group(1))
        raise InputError(f"bad {fmt.upper()}: {msg}", source, line) from None
    too_many = over_limit(g.number_of_edges(), MAX_LINKS, "the number of links")
    if too_many:
        raise b.err(too_many)
    key_of: dict[Any, str] = {}
    for node, data in g.nodes(data=True):
        nm = data.get("name", data.get("label", node))
        if isinstance(nm, (int, float)) and not isinstance(nm, bool):
            nm = str(nm)
        coords = None
        if "lat" in data and "lng" in data:
            coords = (_number(data["lat"], f"node {node}.lat", b),
                      _number(data["lng"], f"node {node}.lng", b))
        elif "y" in data and "x" in data:
            coords = (_number(data["y"], f"node {node}.y", b),
                      _number(data["x"], f"node {node}.x", b))
        # GML ids are the writer's numbering (0, 1, ...), not names: aliasing them would
        # clash with cities named by numbers
        alias = [str(node)] if isinstance(node, str) and node != nm else []
        b.add_city(nm, None, f"node {node}", alias, coords)
        key_of[node] = nm
    for u, v in g.edges():
        b.add_link(key_of[u], key_of[v], None, f"edge {u}-{v}")
    return b.build(name or (g.graph.get("name") if isinstance(g.graph.get("name"), str) else None))


def read_map(text: str, source: str = "<string>", fmt: str | None = None,
             name: str | None = None) -> CityMap:
    """Read a city map in ``fmt`` (detected when None); see the module docstring."""
    if len(text) > 50_000_000:
        raise InputError("file too large for a city map (over 50 MB)", source)
    if fmt is None:
        fmt = detect_format(text)
        if fmt is None:
            if not text.strip():
                raise InputError("empty map: expected at least one city", source)
            raise InputError("not a city map: expected a JSON map with 'cities'/'nodes' and "
                             "'edges', an edge list of names, GraphML or GML", source, 1)
    if name is None and source not in ("<string>", "<stdin>", "<argument>"):
        name = re.sub(r"\.[^./\\]*$", "", re.split(r"[/\\]", source)[-1])
    if fmt == "json":
        return _read_json(text, source, name)
    if fmt == "edges":
        return _read_edges(text, source, name)
    if fmt in ("graphml", "gml"):
        return _read_nx(text, source, name, fmt)
    raise InputError(f"unknown map format {fmt!r}; expected one of {', '.join(MAP_FORMATS)}",
                     source)


def read_instances(text: str, source: str = "<string>", fmt: str | None = None) -> list:
    """The registry's reader: the map in ``text`` as one :class:`puzzleproof.instance.Loaded`
    whose reference is the proved optimum a generated map's ``evidence`` carries (or None).
    Text that is not a city map raises InputError at line 1, so other puzzles' files are
    told apart cheaply."""
    from puzzleproof.instance import Loaded

    if fmt is None and detect_format(text) is None:
        if text.lstrip()[:1] in ("{", "["):
            try:
                json.loads(text)
            except json.JSONDecodeError as exc:  # bad JSON is bad whoever reads it
                msg, line, col = json_error(exc)
                raise InputError(f"bad JSON: {msg}", source, line, col) from None
            except (ValueError, RecursionError):
                pass
        if not any(ln.split("#", 1)[0].strip() for ln in text.splitlines()):
            raise InputError("empty map: expected at least one city (the file holds only "
                             "blank lines and comments)", source, 1)
        raise InputError("not a city map: expected a JSON map with 'cities'/'nodes' and "
                         "'edges', an edge list of names, GraphML or GML", source, 1)
    m = read_map(text, source, fmt)
    reference = None
    if text.lstrip().startswith("{"):
        try:
            ev = json.loads(text).get("evidence")
        except (ValueError, RecursionError, AttributeError):
            ev = None
        if isinstance(ev, dict) and isinstance(ev.get("optimum"), int) \
                and not isinstance(ev.get("optimum"), bool):
            reference = {"optimum": ev["optimum"], "rules": ev.get("rules"),
                         "order": ev.get("optimal_order")}
    return [Loaded(m.name or source, m, reference)]


def map_to_json(m: CityMap) -> str:
    """The map as a ``cities``/``edges`` JSON file this module reads back."""
    cities: list[Any] = []
    for i, nm in enumerate(m.names):
        c: dict[str, Any] = {"name": nm}
        if m.coords is not None:
            c["lat"], c["lng"] = m.coords[i]
        cities.append(c if len(c) > 1 else nm)
    obj: dict[str, Any] = {"type": "cityclose", "cities": cities,
                           "edges": [[m.names[u], m.names[v]] for u, v in m.links]}
    if m.name:
        obj = {"name": m.name, **obj}
    if m.marked:
        obj["keep"] = [m.names[i] for i in sorted(m.marked)]
    return json.dumps(obj, indent=1) + "\n"


def write_map(m: CityMap, fmt: str) -> str:
    """The map in ``fmt`` (one of :data:`MAP_FORMATS`), as text :func:`read_map` reads back
    to the same cities and links: ``json`` keeps coordinates and marked cities; ``graphml``
    and ``gml`` (through networkx) keep coordinates as ``lat``/``lng``; ``edges`` keeps names
    and links only (a ``# cityclose`` first line, one link a line, tab-separated when a name
    holds a blank or a comma); every format keeps the cities' order (it decides greedy's
    ties).

    >>> m = read_map("a b\\nb c\\n", "m.txt")
    >>> write_map(m, "edges")
    '# cityclose m\\na\\nb\\nc\\n# links\\na b\\nb c\\n'
    >>> read_map(write_map(m, "gml")).links == m.links
    True
    """
    if fmt == "json":
        return map_to_json(m)
    if fmt == "edges":
        for nm in m.names:
            if "#" in nm or "\t" in nm or "\n" in nm:
                raise InputError(f"the edge-list format cannot hold the city name {nm!r} "
                                 "(it has '#', a tab or a line break); write json, graphml or "
                                 "gml")
        tab = any(" " in nm or "," in nm for nm in m.names)
        sep = "\t" if tab else " "
        head = "# cityclose" + (f" {m.name}" if m.name and "\n" not in m.name else "")
        # the cities first, one a line, so their order (which decides greedy's ties) is kept
        lines = [head, *m.names, "# links"]
        lines += [f"{m.names[u]}{sep}{m.names[v]}" for u, v in m.links]
        return "\n".join(lines) + "\n"
    if fmt in ("graphml", "gml"):
        import networkx as nx

        g = nx.Graph()
        if m.name:
            g.graph["name"] = m.name
        for i, nm in enumerate(m.names):
            data: dict[str, Any] = {"name": nm}
            if m.coords is not None:
                data["lat"], data["lng"] = float(m.coords[i][0]), float(m.coords[i][1])
            g.add_node(nm, **data)
        g.add_edges_from((m.names[u], m.names[v]) for u, v in m.links)
        gen = nx.generate_graphml(g) if fmt == "graphml" else nx.generate_gml(g)
        return "\n".join(gen) + "\n"
    raise InputError(f"unknown map format {fmt!r}; expected one of {', '.join(MAP_FORMATS)}")


def map_digest(m: CityMap) -> str:
    """A short fingerprint of the map's cities and links (names case-insensitive, any order,
    any format): an order file records it so that ``check`` can tell another map."""
    import hashlib

    names = sorted(nm.casefold() for nm in m.names)
    links = sorted("\t".join(sorted((m.names[u].casefold(), m.names[v].casefold())))
                   for u, v in m.links)
    return hashlib.sha256("\n".join(names + ["--"] + links).encode()).hexdigest()[:16]


# -- orders --------------------------------------------------------------------------------

@dataclass
class OrderInput:
    """An order as read: the names, and the Wiener numbers and total it claims (if any)."""

    order: list[Any]
    claimed_wiener: list[Any] | None = None
    claimed_total: Any = None
    key: str | None = None


def read_order(text: str, source: str = "<string>", key: str | None = None) -> OrderInput:
    """Read an order: JSON (``{"order": [...]}``, a list of names, or a file of several orders
    chosen by ``key``) or one name a line (``#`` comments).

    >>> read_order('{"greedy": {"order": ["a", "b"]}}', key="greedy").order
    ['a', 'b']
    >>> read_order("Paris\\n# then\\nRome\\n").order
    ['Paris', 'Rome']
    """
    stripped = text.strip()
    if not stripped:
        raise InputError("empty order: expected city names", source)
    if stripped[0] in "[{":
        obj = load_json(text, source, syntax="bad JSON")  # strict: duplicate keys, 1e999, nesting
        where = "order"
        if key is not None:
            if not isinstance(obj, dict) or key not in obj:
                have = ", ".join(k for k, v in obj.items() if isinstance(v, (dict, list))) \
                    if isinstance(obj, dict) else ""
                raise InputError(f"no order under key {key!r}" + (f" (found {have})" if have
                                                                  else ""), source)
            obj = obj[key]
            where = f"{key}.order"
        if isinstance(obj, dict) and "order" not in obj:
            keys = [k for k, v in obj.items() if isinstance(v, dict) and "order" in v]
            if len(keys) == 1:
                key, obj, where = keys[0], obj[keys[0]], f"{keys[0]}.order"
            elif keys:
                raise InputError(f"several orders in one file ({', '.join(keys)}): choose one "
                                 "with --key", source)
        if isinstance(obj, list):
            order, wseq, total = obj, None, None
        elif isinstance(obj, dict) and isinstance(obj.get("order"), list):
            order, wseq, total = obj["order"], obj.get("wiener"), obj.get("total")
        else:
            raise InputError("expected {\"order\": [city names...]} or a list of names",
                             source, None)
        for i, c in enumerate(order):
            if isinstance(c, bool) or not isinstance(c, str):
                line, col = _json_locate(text, (f"{key}." if key is not None else "")
                                         + ("order" if isinstance(obj, dict) else "") + f"[{i}]")
                raise InputError(f"{where}[{i}]: expected a city name, found {c!r:.40}", source,
                                 line, col)
        return OrderInput(list(order), wseq if isinstance(wseq, list) else None, total, key)
    names = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            names.append(line)
    return OrderInput(names, None, None, key)


def order_document(m: CityMap, answer: dict[str, Any], *, status: str,
                   method: str | None = None, bounds: dict[str, Any] | None = None,
                   rules: dict[str, Any] | None = None, extra: dict[str, Any] | None = None
                   ) -> dict[str, Any]:
    """The order file's object: ``type``, ``schema_version``, map, order, the city (cities)
    left, the Wiener number of every map, the total, status, method, bounds and rules."""
    doc: dict[str, Any] = {"type": "cityclose-order", "schema_version": 1, "map": m.name,
                           "cities": m.n, "order": list(answer["order"]),
                           "left": list(answer.get("left", [])),
                           "wiener": list(answer["wiener"]), "total": answer["total"],
                           "status": status, "method": method, "bounds": bounds or {},
                           "rules": rules or {}}
    if extra:
        doc.update(extra)
    return doc


def order_json(m: CityMap, result: Any, rules: Any = None) -> str:
    """A :class:`~puzzleproof.result.Result` of a city-closing method as an order file (JSON
    text with ``"type": "cityclose-order"``); write it with
    :func:`puzzleproof.formats.write_atomic`."""
    cert = result.certificate or {}
    bounds = {k: cert.get(k) for k in ("lower_bound", "upper_bound", "gap") if k in cert}
    rd = rules.to_dict() if hasattr(rules, "to_dict") else (rules or result.params.get("rules"))
    doc = order_document(m, result.answer, status=result.status.value, method=result.solver,
                         bounds=bounds, rules=rd,
                         extra={"wall_time": round(result.wall_time, 4)})
    return json.dumps(doc, indent=1) + "\n"


# the pictures live in their own module (the names stay importable from here)
from puzzleproof.formats.cityclose_draw import plot_steps, render_png, render_svg  # noqa: E402,F401
