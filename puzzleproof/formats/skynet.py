"""Skynet formats: CodinGame's initial block, its custom-test format, JSON, and game records.

- ``codingame``: ``N L E``, ``L`` lines ``N1 N2``, ``E`` lines with a gateway, then optionally
  one line with the agent's start ``SI`` (as in ``../shared/instances/skynet/``).
- ``custom``: CodinGame's custom-test format: a first word (``LOCKED``), ``N``, ``N`` lines of
  coordinates ``x y``, ``L``, ``L`` links, the start, ``E``, ``E`` gateways.
- ``json``: ``{"type": "skynet", "nodes", "links", "gateways", "start"?, "coords"?}``.
- game records (JSON): ``{"type": "skynet-game", "map", "rule", "start", "turns": [{"agent_at",
  "cut", "agent_moved_to"}], "result", "reason", ...}`` and, for an external program, its
  capped ``"stderr"`` (the record's ``stderr`` attribute); replay with
  :func:`puzzleproof.models.skynet.replay`.

Example:
    >>> m = read_map("4 4 1\\n0 1\\n0 2\\n1 3\\n2 3\\n3\\n0\\n")
    >>> m.n, m.links, sorted(m.gateways), m.start
    (4, ((0, 1), (0, 2), (1, 3), (2, 3)), [3], 0)
"""

from __future__ import annotations

import json
import re
from typing import Any

from puzzleproof.errors import InputError
from puzzleproof.models.skynet import GameRecord, SkynetMap, Turn

__all__ = ["MAP_FORMATS", "read_map", "write_map", "detect_map_format", "record_to_json", "render_svg",
           "record_from_json", "init_block", "read_instances"]

MAP_FORMATS = ("codingame", "custom", "json")


def detect_map_format(text: str) -> str:
    s = text.strip()
    if not s:
        raise InputError("empty input; expected a Skynet map")
    if s[0] == "{":
        return "json"
    first = s.split(None, 1)[0]
    if re.fullmatch(r"[A-Za-z_]+", first):
        return "custom"
    return "codingame"


class _Tokens:
    """Integer tokens with their line and column, for located errors."""

    def __init__(self, text: str) -> None:
        self.items = [(m.group(), ln + 1, m.start() + 1)
                      for ln, line in enumerate(text.splitlines())
                      for m in re.finditer(r"\S+", line)]
        self.pos = 0
        self.last_line = len(text.splitlines())

    def take(self, what: str) -> int:
        if self.pos >= len(self.items):
            raise InputError(f"expected {what}, found the end of the input",
                             line=self.last_line + 1, col=1)
        tok, ln, col = self.items[self.pos]
        self.pos += 1
        if not re.fullmatch(r"-?\d+", tok):
            raise InputError(f"expected {what} (an integer), found {tok!r}", line=ln, col=col)
        return int(tok)

    def take_float(self, what: str) -> float:
        if self.pos >= len(self.items):
            raise InputError(f"expected {what}, found the end of the input",
                             line=self.last_line + 1, col=1)
        tok, ln, col = self.items[self.pos]
        self.pos += 1
        try:
            return float(tok)
        except ValueError:
            raise InputError(f"expected {what} (a number), found {tok!r}", line=ln,
                             col=col) from None

    def where(self) -> tuple[int, int]:
        if self.pos == 0:
            return 1, 1
        _, ln, col = self.items[self.pos - 1]
        return ln, col

    def rest(self) -> list[tuple[str, int, int]]:
        return self.items[self.pos:]


def _build(toks: _Tokens, make) -> SkynetMap:
    """Run ``make`` and give a model error the place of the last token read."""
    try:
        return make()
    except InputError as exc:
        ln, col = toks.where()
        raise exc.located(line=ln, col=col) from None


def _links(toks: _Tokens, count: int, n: int) -> list[tuple[int, int]]:
    out = []
    for k in range(count):
        u = toks.take(f"link {k + 1}'s first node")
        v = toks.take(f"link {k + 1}'s second node")
        for x in (u, v):
            if not 0 <= x < n:
                ln, col = toks.where()
                raise InputError(f"link {k + 1}: node {x} out of range 0..{n - 1}", line=ln,
                                 col=col)
        out.append((u, v))
    return out


def _read_codingame(text: str) -> SkynetMap:
    t = _Tokens(text)
    n, l, e = t.take("N (nodes)"), t.take("L (links)"), t.take("E (gateways)")
    if n < 1 or l < 0 or e < 1:
        raise InputError(f"expected N >= 1, L >= 0, E >= 1, found {n} {l} {e}", line=1, col=1)
    links = _links(t, l, n)
    gates = [t.take(f"gateway {k + 1}") for k in range(e)]
    start = t.take("the agent's start SI") if t.rest() else None
    if t.rest():
        tok, ln, col = t.rest()[0]
        raise InputError(f"unexpected {tok!r} after the start node", line=ln, col=col)
    return _build(t, lambda: SkynetMap(n, tuple(links), frozenset(gates), start,
                                       gateway_order=tuple(gates)))


def _read_custom(text: str) -> SkynetMap:
    t = _Tokens(text)
    t.pos = 1  # the first word (LOCKED)
    n = t.take("N (nodes)")
    if n < 1:
        raise InputError(f"expected N >= 1, found {n}", line=t.where()[0], col=1)
    coords = tuple((t.take_float(f"node {k}'s x"), t.take_float(f"node {k}'s y"))
                   for k in range(n))
    l = t.take("L (links)")
    links = _links(t, l, n)
    start = t.take("the agent's start")
    e = t.take("E (gateways)")
    gates = [t.take(f"gateway {k + 1}") for k in range(e)]
    if t.rest():
        tok, ln, col = t.rest()[0]
        raise InputError(f"unexpected {tok!r} after the gateways", line=ln, col=col)
    return _build(t, lambda: SkynetMap(n, tuple(links), frozenset(gates), start, coords,
                                       gateway_order=tuple(gates)))


def _map_from_obj(obj: Any) -> SkynetMap:
    if not isinstance(obj, dict):
        raise InputError("expected a JSON object for a Skynet map")
    try:
        coords = obj.get("coords")
        return SkynetMap(int(obj["nodes"]), tuple((int(a), int(b)) for a, b in obj["links"]),
                         frozenset(int(g) for g in obj["gateways"]),
                         None if obj.get("start") is None else int(obj["start"]),
                         None if coords is None else tuple((float(x), float(y))
                                                           for x, y in coords),
                         obj.get("name"), tuple(int(g) for g in obj["gateways"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"malformed Skynet map object: expected 'nodes', 'links', 'gateways' "
                         f"({type(exc).__name__}: {exc})") from None


def read_map(text: str, source: str = "<string>", fmt: str | None = None) -> SkynetMap:
    """Read a map in ``fmt`` (detected when None); errors name source, line and column."""
    try:
        fmt = fmt or detect_map_format(text)
        if fmt == "json":
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InputError(f"invalid JSON: {exc.msg}", line=exc.lineno,
                                 col=exc.colno) from None
            if isinstance(obj, dict) and obj.get("type") == "skynet-game":
                obj = obj["map"]
            m = _map_from_obj(obj)
        elif fmt == "custom":
            m = _read_custom(text)
        elif fmt == "codingame":
            m = _read_codingame(text)
        else:
            raise InputError(f"unknown map format {fmt!r}; expected one of "
                             f"{', '.join(MAP_FORMATS)}")
    except InputError as exc:
        raise exc.located(source) from None
    name = m.name or (source if source not in ("<string>", "<argument>") else None)
    return SkynetMap(m.n, m.links, m.gateways, m.start, m.coords, name, m.gateway_order)


def read_instances(text: str, source: str = "<string>", fmt: str | None = None) -> list:
    """The registry's reader: the map in ``text`` as one :class:`puzzleproof.puzzles.Loaded`.
    A game record or breaker evidence is not a map file (its ``type`` says what it is)."""
    from puzzleproof.puzzles import Loaded

    m = read_map(text, source, fmt)
    return [Loaded(m.name or source, m)]


def init_block(m: SkynetMap) -> str:
    """CodinGame's initialisation input (without the start)."""
    lines = [f"{m.n} {len(m.links)} {len(m.gateways)}"]
    lines += [f"{u} {v}" for u, v in m.links]
    lines += [str(g) for g in m.gateway_order]
    return "\n".join(lines) + "\n"


def _map_obj(m: SkynetMap) -> dict:
    obj: dict[str, Any] = {"type": "skynet", "nodes": m.n, "links": [list(l) for l in m.links],
                           "gateways": list(m.gateway_order), "start": m.start}
    if m.coords is not None:
        obj["coords"] = [list(c) for c in m.coords]
    if m.name:
        obj["name"] = m.name
    return obj


def write_map(m: SkynetMap, fmt: str = "codingame") -> str:
    if fmt == "json":
        return json.dumps(_map_obj(m)) + "\n"
    if fmt == "codingame":
        return init_block(m) + ("" if m.start is None else f"{m.start}\n")
    if fmt == "custom":
        if m.coords is None or m.start is None:
            raise InputError("the custom-test format needs coordinates and a start")
        lines = ["LOCKED", str(m.n)] + [f"{x:g} {y:g}" for x, y in m.coords]
        lines += [str(len(m.links))] + [f"{u} {v}" for u, v in m.links]
        lines += [str(m.start), str(len(m.gateways))] + [str(g) for g in m.gateway_order]
        return "\n".join(lines) + "\n"
    raise InputError(f"unknown map format {fmt!r}; expected one of {', '.join(MAP_FORMATS)}")


def record_to_json(r: GameRecord) -> dict:
    return {"type": "skynet-game", "map": _map_obj(r.map), "rule": r.rule, "start": r.start,
            "bot": r.bot, "agent": r.agent, "result": r.result, "reason": r.reason,
            "detail": r.detail, "cuts": r.cuts,
            "turns": [{"agent_at": t.agent_at, "cut": None if t.cut is None else list(t.cut),
                       "agent_moved_to": t.agent_moved_to} for t in r.turns],
            "turn_seconds": [round(s, 4) for s in r.turn_seconds],
            **({"stderr": r.stderr} if getattr(r, "stderr", None) is not None else {})}


def record_from_json(text: str, source: str = "<string>") -> GameRecord:
    try:
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}", line=exc.lineno, col=exc.colno) from None
        if not isinstance(obj, dict) or obj.get("type") != "skynet-game":
            raise InputError("expected a game record (a JSON object with \"type\": "
                             "\"skynet-game\")")
        m = _map_from_obj(obj["map"])
        turns = [Turn(int(t["agent_at"]), None if t.get("cut") is None else
                      (int(t["cut"][0]), int(t["cut"][1])),
                      None if t.get("agent_moved_to") is None else int(t["agent_moved_to"]))
                 for t in obj["turns"]]
        record = GameRecord(m, obj["rule"], int(obj["start"]), turns, obj.get("result"),
                            obj.get("reason"), obj.get("bot"), obj.get("agent"),
                            obj.get("detail"), list(obj.get("turn_seconds", [])))
        if isinstance(obj.get("stderr"), str):  # an external program's (capped) stderr
            record.stderr = obj["stderr"]  # type: ignore[attr-defined]
        return record
    except InputError as exc:
        raise exc.located(source) from None
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise InputError(f"malformed game record ({type(exc).__name__}: {exc})", source) from None


def render_svg(m: SkynetMap, record: GameRecord | None = None, size: int = 640,
               fence: frozenset[int] | None = None) -> str:
    """An SVG of the map: gateways (red squares), the agent's start (blue), links; with a game
    record, cut links dashed and numbered by turn, and the agent's path in blue; with a
    ``fence`` (nodes, see :mod:`puzzleproof.encoders.skynet_fence`), its nodes shaded and its
    boundary links drawn thick in orange."""
    import html

    if m.coords is not None:
        pos = {i: m.coords[i] for i in range(m.n)}
    else:
        import networkx as nx

        g = nx.Graph()
        g.add_nodes_from(range(m.n))
        g.add_edges_from(m.links)
        pos = {k: (float(x), float(y)) for k, (x, y) in nx.spring_layout(g, seed=1).items()}
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    pad = 30
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    scale = (size - 2 * pad) / span

    def at(i: int) -> tuple[float, float]:
        x, y = pos[i]
        return pad + (x - min(xs)) * scale, pad + (y - min(ys)) * scale

    width = pad * 2 + (max(xs) - min(xs)) * scale
    fence = frozenset(fence or ())
    caption = record is not None or bool(fence)
    height = pad * 2 + (max(ys) - min(ys)) * scale + (24 if caption else 0)
    cut_turn = {}
    path = []
    if record is not None:
        for k, t in enumerate(record.turns, start=1):
            if t.cut is not None:
                cut_turn[tuple(sorted(t.cut))] = k
        path = [record.start] + [t.agent_moved_to for t in record.turns
                                 if t.agent_moved_to is not None]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif">',
           f"<title>{html.escape(m.name or 'Skynet map')}</title>",
           f'<rect width="{width:.0f}" height="{height:.0f}" fill="#fbfbf8"/>']
    for u, v in m.links:
        (x1, y1), (x2, y2) = at(u), at(v)
        k = cut_turn.get((u, v))
        if k is None and (u in fence) != (v in fence):
            out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                       'stroke="#dd8a1f" stroke-width="4"/>')
        elif k is None:
            out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                       'stroke="#8a8f98" stroke-width="1.6"/>')
        else:
            out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                       'stroke="#d64545" stroke-width="2" stroke-dasharray="5,4"/>')
            out.append(f'<text x="{(x1 + x2) / 2:.1f}" y="{(y1 + y2) / 2 - 3:.1f}" '
                       f'font-size="11" fill="#d64545" text-anchor="middle">{k}</text>')
    for a, b in zip(path, path[1:]):
        (x1, y1), (x2, y2) = at(a), at(b)
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                   'stroke="#2b6cb0" stroke-width="4" stroke-opacity="0.45"/>')
    for i in range(m.n):
        x, y = at(i)
        if i in m.gateways:
            out.append(f'<rect x="{x - 9:.1f}" y="{y - 9:.1f}" width="18" height="18" '
                       'fill="#e53e3e" stroke="#742a2a"/>')
        else:
            fill = "#2b6cb0" if (record and i == record.start) or (not record and i == m.start) \
                else "#fdf0c2" if i in fence else "white"
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="9" fill="{fill}" '
                       'stroke="#1a202c"/>')
        colour = "white" if i in m.gateways or fill == "#2b6cb0" else "#1a202c"
        out.append(f'<text x="{x:.1f}" y="{y + 4:.1f}" font-size="10" text-anchor="middle" '
                   f'fill="{colour}">{i}</text>')
    if record is not None:
        out.append(f'<text x="{pad}" y="{height - 8:.0f}" font-size="13" fill="#1a202c">'
                   f'{html.escape(str(record.bot))} vs agent {html.escape(str(record.agent))} '
                   f'({record.rule}): {record.result} ({html.escape(str(record.reason))}), '
                   f'{record.cuts} cuts</text>')
    elif fence:
        edge = sum((u in fence) != (v in fence) for u, v in m.links)
        out.append(f'<text x="{pad}" y="{height - 8:.0f}" font-size="13" fill="#1a202c">'
                   f'fence: {len(fence)} nodes, {edge} boundary links</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
