"""Death Run files: graphs, game records, and an SVG drawing.

- graph (JSON): ``{"edges": [[u, v, w], ...], "begin": 0, "ends": [...]}`` (other keys, such
  as ``"type": "deathrun-graph"`` or ``"seed"``, are allowed and ignored).
- game record (JSON, or JSONL with one record a line): ``{"type": "deathrun-game",
  "schema_version": 1, ...}`` as written by :func:`puzzleproof.models.deathrun.play_game`.
  Reading one checks every field's type and shape
  (:func:`puzzleproof.models.deathrun_record.check_record_shape`: an error names the JSON path,
  such as ``rounds[0].students[2].paid``); :func:`puzzleproof.models.deathrun_replay.replay` then
  checks it by the rules.

Every reader raises :class:`InputError` naming the file, the line (when known) and the field.

>>> g = read_graph('{"edges": [[0, 1, 3], [1, 2, 4]], "begin": 0, "ends": [2]}')
>>> g.edges, sniff(write_graph(g)), sniff('{"type": "skynet", "nodes": 3}')
(((0, 1, 3), (1, 2, 4)), True, False)
"""

from __future__ import annotations

import html
import json
from typing import Any

from puzzleproof.errors import InputError
from puzzleproof.formats.numbers import load_json
from puzzleproof.sizes import over_limit
from puzzleproof.models.deathrun import MAX_EDGES, MAX_VERTICES, RECORD_TYPE, Graph, make_graph
from puzzleproof.models.deathrun_record import check_record_shape, describe

__all__ = ["read_graph", "read_instances", "write_graph", "read_record", "read_records", "write_record",
           "sniff", "kind_of", "render_svg", "render_png", "MAX_TEXT"]

#: Largest file read (characters), checked before parsing.
MAX_TEXT = 64 * 1024 * 1024


def _load_json(text: str, source: str | None, line_offset: int = 0) -> Any:
    if len(text) > MAX_TEXT:
        raise InputError(f"the file is {len(text)} characters; at most {MAX_TEXT} are read",
                         source)
    # strict: duplicate keys, numbers too long or not finite, nesting too deep are errors
    return load_json(text, source, line_offset, syntax="not valid JSON")


def _edge_line(text: str, k: int) -> int | None:
    """The line of the k-th (0-based) ``[u, v, w]`` inside ``"edges"`` (a cheap scan)."""
    at = text.find('"edges"')
    if at < 0:
        return None
    at = text.find("[", at)
    if at < 0:
        return None
    depth, count, i = 0, -1, at
    while i < len(text):
        ch = text[i]
        if ch == '"':
            i = text.find('"', i + 1)
            if i < 0:
                return None
        elif ch == "[":
            depth += 1
            if depth == 2:
                count += 1
                if count == k:
                    return text.count("\n", 0, i) + 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                return None
        i += 1
    return None


def graph_from_obj(obj: Any, source: str | None = None, text: str | None = None,
                   where: str = "") -> Graph:
    """Build a graph from parsed JSON, with errors naming the field."""
    pre = f"{where}: " if where else ""
    if not isinstance(obj, dict):
        raise InputError(f"{pre}expected a JSON object with edges, begin and ends, found "
                         f"{describe(obj)}", source)
    for key in ("edges", "begin", "ends"):
        if key not in obj:
            raise InputError(f"{pre}missing field {key!r} (expected edges, begin, ends)", source)
    edges, begin, ends = obj["edges"], obj["begin"], obj["ends"]
    if not isinstance(edges, list):
        raise InputError(f"{pre}field 'edges' must be a list of [u, v, w]", source)
    too_many = over_limit(len(edges), MAX_EDGES, f"{pre}the number of links in field 'edges'")
    if too_many:
        raise InputError(too_many, source)
    if not isinstance(ends, list):
        raise InputError(f"{pre}field 'ends' must be a list of vertices", source)
    too_many = over_limit(len(ends), MAX_VERTICES, f"{pre}the number of vertices in field 'ends'")
    if too_many:
        raise InputError(too_many, source)
    try:
        return make_graph(edges, begin, ends)
    except InputError as exc:
        line = None
        msg = exc.message
        if text is not None and msg.startswith("link "):
            try:
                k = int(msg.split()[1].rstrip(":")) - 1
                line = _edge_line(text, k)
            except ValueError:
                pass
        field = ("edges" if msg.startswith("link ") else "ends" if msg.startswith("end ")
                 else "begin" if msg.startswith("begin") else "edges")
        raise InputError(f"{pre}field {field!r}: {msg}", source, line) from None


def read_graph(text: str, source: str | None = None) -> Graph:
    """Read a graph file (or a game record, whose graph is taken)."""
    obj = _load_json(text, source)
    if isinstance(obj, dict) and obj.get("type") == RECORD_TYPE:
        return graph_from_obj(obj.get("graph"), source, None, "the record's graph")
    return graph_from_obj(obj, source, text)


def read_instances(text: str, source: str = "<string>") -> list:
    """The registry's reader: the graph in ``text`` as one
    :class:`puzzleproof.instance.Loaded`. A game record is not a graph file (its ``type`` says
    what it is); text that is not a Death Run graph raises InputError at line 1."""
    from puzzleproof.instance import Loaded

    if kind_of(text) != "graph":
        if text.lstrip().startswith("{") and '"edges"' in text and len(text) <= MAX_TEXT:
            _load_json(text, source)  # a Death Run graph with a JSON error: say where
        raise InputError("not a Death Run graph: expected JSON with 'edges' ([u, v, w] "
                         "triples), 'begin' and 'ends'", source, 1)
    obj = _load_json(text, source)  # once: the graph and its evidence come from it
    g = graph_from_obj(obj, source, text)
    name = source
    if source not in ("<string>", "<stdin>", "<argument>"):
        name = source.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
    evidence = obj["evidence"] if isinstance(obj.get("evidence"), dict) else None
    return [Loaded(name, g, evidence)]


def write_graph(g: Graph, evidence: dict | None = None) -> str:
    """The graph as JSON, one link a line (with an ``"evidence"`` object when given: the
    generator's measurements, read back as the instance's reference)."""
    lines = ",\n".join(f"    [{u}, {v}, {w}]" for u, v, w in g.edges)
    tail = "" if evidence is None else f',\n  "evidence": {json.dumps(evidence)}'
    return (f'{{"type": "deathrun-graph",\n  "begin": {g.begin},\n  "ends": '
            f'{json.dumps(list(g.ends))},\n  "edges": [\n{lines}\n  ]{tail}\n}}\n')


def _check_record(obj: Any, source: str | None, where: str, line: int | None) -> dict:
    pre = f"{where}: " if where else ""
    if not isinstance(obj, dict) or obj.get("type") != RECORD_TYPE:
        raise InputError(f"{pre}expected a Death Run game record (\"type\": \"{RECORD_TYPE}\")",
                         source, line)
    try:  # every field's type and shape, with the JSON path of the first bad one
        check_record_shape(obj)
    except InputError as exc:
        raise InputError(f"{pre}{exc.message}", source, line) from None
    try:  # the graph's rules (ranges, repeats, a cycle, unreachable ends)
        graph_from_obj(obj["graph"], source, None, f"{pre}graph")
    except InputError as exc:
        raise exc.located(source, line) from None
    return obj


def read_record(text: str, source: str | None = None) -> dict:
    """Read one game record (a JSON object, or a JSONL file holding exactly one)."""
    recs = read_records(text, source)
    if len(recs) != 1:
        raise InputError(f"expected one game record, found {len(recs)}", source)
    return recs[0]


def read_records(text: str, source: str | None = None) -> list[dict]:
    """Read game records: one JSON object, or JSONL (lines of other types are skipped)."""
    s = text.strip()
    if not s:
        raise InputError("empty input; expected a Death Run game record", source)
    if len(text) > MAX_TEXT:
        raise InputError(f"the file is {len(text)} characters; at most {MAX_TEXT} are read",
                         source)
    try:
        obj = load_json(s, source, syntax="not valid JSON")
        return [_check_record(obj, source, "", None)]
    except InputError as exc:
        if not getattr(exc, "syntax_error", False):
            raise  # a duplicate key, a huge number: not a reason to try JSONL
    out = []
    for i, line in enumerate(text.splitlines()):
        if not line.strip():
            continue
        obj = _load_json(line, source, i)
        if isinstance(obj, dict) and obj.get("type") != RECORD_TYPE and "type" in obj:
            continue  # summaries and other records in a tournament's JSONL
        out.append(_check_record(obj, source, f"record on line {i + 1}", i + 1))
    if not out:
        raise InputError("no Death Run game record found", source)
    return out


def write_record(record: dict) -> str:
    return json.dumps(record, separators=(",", ":")) + "\n"


def kind_of(text: str) -> str | None:
    """``"graph"``, ``"record"`` or ``None``: what Death Run file ``text`` looks like."""
    s = text.lstrip()
    if not s.startswith("{") or len(text) > MAX_TEXT:
        return None
    try:
        obj = json.loads(s)
    except json.JSONDecodeError:
        first = s.split("\n", 1)[0]
        try:
            obj = json.loads(first)
        except (ValueError, RecursionError):
            return None
    except (ValueError, RecursionError):  # a huge number, deep nesting: the reader says so
        return None
    if not isinstance(obj, dict):
        return None
    if obj.get("type") == RECORD_TYPE:
        return "record"
    if obj.get("type") not in (None, "deathrun-graph"):
        return None
    if (isinstance(obj.get("edges"), list) and "begin" in obj and isinstance(obj.get("ends"),
                                                                             list)):
        return "graph"
    return None


def sniff(text: str) -> bool:
    """True when ``text`` is a Death Run graph or game record (not Hashi, Skynet or city)."""
    return kind_of(text) is not None


# --------------------------------------------------------------------------------------------
# Drawing

_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf"]


def _layout(g: Graph, dx: float, dy: float, pad: float
            ) -> tuple[dict[int, tuple[float, float]], dict[int, list[int]], int]:
    """Vertex positions in layers by depth from the begin; the layers; the tallest one."""
    depth = g.depth
    layers: dict[int, list[int]] = {}
    for v in g.vertices:
        layers.setdefault(depth[v], []).append(v)
    tall = max(len(x) for x in layers.values())
    pos = {}
    for d, vs in layers.items():
        off = (tall - len(vs)) * dy / 2
        for i, v in enumerate(sorted(vs)):
            pos[v] = (pad + d * dx, pad + off + i * dy)
    return pos, layers, tall


def _game_paths(g: Graph, record: dict | None
                ) -> tuple[dict[tuple[int, int], float], list[tuple[str, list[int], float]]]:
    """From a record: the total raise on each link, and each student's (label, walk, cost)."""
    raised: dict[tuple[int, int], float] = {}
    paths: list[tuple[str, list[int], float]] = []
    if record is not None:
        nc = sum(1 for s in record["seats"] if s["role"] == "criminal")
        walk: dict[int, list[int]] = {s["seat"]: [g.begin] for s in record["seats"]
                                      if s["role"] == "student"}
        for rr in record["rounds"]:
            for c in rr["criminals"]:
                if c.get("valid"):
                    u, v, w = c["move"]
                    raised[(u, v)] = raised.get((u, v), 0) + w
            for st in rr["students"]:
                walk[st["seat"]].append(st["to"])
        for s in record["seats"]:
            if s["role"] == "student":
                paths.append((f"seat {s['seat']} {s['bot']}", walk[s["seat"]],
                              record["scores"]["students"][s["seat"] - nc]))
    return raised, paths


def render_png(g: Graph, record: dict | None = None, dpi: int = 110,
               title: str | None = None) -> bytes:
    """The drawing of :func:`render_svg` as a PNG (matplotlib)."""
    import io

    from puzzleproof.formats.document import subplots

    pos, layers, tall = _layout(g, 1.0, 0.8, 0.0)
    raised, paths = _game_paths(g, record)
    fig, ax = subplots(figsize=(max(6.0, 0.75 * (max(layers) + 1)),
                                    max(3.5, 0.6 * tall + (1.2 if record else 0.5))))
    for u, v, w in g.edges:
        (x1, y1), (x2, y2) = pos[u], pos[v]
        r = raised.get((u, v), 0)
        ax.plot([x1, x2], [-y1, -y2], color="#c00" if r else "#bbb", lw=1.4 if r else 0.6,
                zorder=1)
        ax.text(x1 + (x2 - x1) * 0.3, -(y1 + (y2 - y1) * 0.3), f"{w}" + (f"+{r:g}" if r
                                                                         else ""),
                fontsize=5, color="#c00" if r else "#555", zorder=2)
    for k, (name, walk, score) in enumerate(paths):
        off = (k - len(paths) / 2) * 0.02
        ax.plot([pos[v][0] for v in walk], [-pos[v][1] - off for v in walk],
                color=_COLORS[k % 10], lw=1.6, alpha=0.7, zorder=3,
                label=f"{name}: {score:.2f}")
    traps = {u for u in g.vertices if len(g.out[u]) == 1 and u not in g.end_set}
    for v in g.vertices:
        x, y = pos[v]
        fill = ("#ffd0d0" if v in traps else "#d0f0d0" if v in g.end_set
                else "#ffe9a8" if v == g.begin else "#eef")
        ax.scatter([x], [-y], s=120, c=fill, edgecolors="#c00" if v in traps else "#333",
                   zorder=4)
        ax.text(x, -y, str(v), fontsize=5, ha="center", va="center", zorder=5)
    ax.set_title((f"{title}\n" if title else "") + "red circles: trap vertices (one way "
                 "out); green: ends; red links: raised", fontsize=8,
                 color="#c00" if title else "black")
    if paths:
        ax.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=4,
                  frameon=False)
    ax.axis("off")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


def render_svg(g: Graph, record: dict | None = None, title: str | None = None) -> str:
    """An SVG drawing: vertices in layers (by depth from the begin), links with their base
    weight (and ``+raise`` from the record), trap vertices (one out-link) in red, ends in
    green, and with a record each student's path in its own colour; ``title`` (a game that
    breaks the rules says so) on top, in red."""
    dx, dy, pad = 90, 60, 40
    pos, layers, tall = _layout(g, dx, dy, pad)
    width = pad * 2 + max(layers) * dx
    height = pad * 2 + (tall - 1) * dy + (60 if record else 20)
    raised, paths = _game_paths(g, record)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="9">',
           '<rect width="100%" height="100%" fill="white"/>']
    if title:
        out.append(f'<text x="{pad}" y="16" font-size="12" fill="#c00">'
                   f'{html.escape(title)}</text>')
    for u, v, w in g.edges:
        (x1, y1), (x2, y2) = pos[u], pos[v]
        r = raised.get((u, v), 0)
        col = "#c00" if r else "#bbb"
        out.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{col}" '
                   f'stroke-width="{1.5 if r else 0.8}"/>')
        lx, ly = x1 + (x2 - x1) * 0.3, y1 + (y2 - y1) * 0.3
        label = f"{w}" + (f"+{r:g}" if r else "")
        out.append(f'<text x="{lx:.1f}" y="{ly - 2:.1f}" fill="{"#c00" if r else "#555"}">'
                   f'{label}</text>')
    for k, (_, walk_, _) in enumerate(paths):
        off = (k - len(paths) / 2) * 1.5
        pts = " ".join(f"{pos[v][0]:.1f},{pos[v][1] + off:.1f}" for v in walk_)
        out.append(f'<polyline points="{pts}" fill="none" stroke="{_COLORS[k % 10]}" '
                   f'stroke-width="2" opacity="0.7"/>')
    traps = {u for u in g.vertices if len(g.out[u]) == 1 and u not in g.end_set}
    for v in g.vertices:
        x, y = pos[v]
        fill = ("#ffd0d0" if v in traps else "#d0f0d0" if v in g.end_set
                else "#ffe9a8" if v == g.begin else "#eef")
        stroke = "#c00" if v in traps else "#333"
        out.append(f'<circle cx="{x}" cy="{y}" r="11" fill="{fill}" stroke="{stroke}"/>')
        out.append(f'<text x="{x}" y="{y + 3}" text-anchor="middle">{v}</text>')
    y = height - (50 if record else 10)
    out.append(f'<text x="{pad}" y="{y}" font-size="11">red circles: trap vertices (one '
               f'way out); green: ends; red links: raised by the criminals</text>')
    for k, (name, _, score) in enumerate(paths):
        out.append(f'<text x="{pad + (k % 4) * 220}" y="{y + 14 + (k // 4) * 13}" '
                   f'font-size="11" fill="{_COLORS[k % 10]}">{html.escape(name)}: '
                   f'{score:.2f}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
