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
import os
import re
from typing import Any

from puzzleproof.errors import InputError
from puzzleproof.formats.numbers import (check_size, json_int, json_number, load_json,
                                        parse_float, parse_int)
from puzzleproof.models.skynet import RULES, GameRecord, SkynetMap, Turn

__all__ = ["MAP_FORMATS", "MAX_NODES", "MAX_LINKS", "MAX_GATEWAYS", "read_map", "write_map",
           "detect_map_format", "record_to_json", "render_svg", "record_from_json", "init_block", "read_instances", "read_strategy",
           "STRATEGY_TYPES"]

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


#: Size limits, CodinGame's (times ``--max-size``), checked before anything is allocated.
MAX_NODES = 500
MAX_LINKS = 1000
MAX_GATEWAYS = 20


class _Tokens:
    """Integer tokens with their line and column, for located errors."""

    def __init__(self, text: str) -> None:
        self.items = [(m.group(), ln + 1, m.start() + 1)
                      for ln, line in enumerate(text.splitlines())
                      for m in re.finditer(r"\S+", line)]
        self.pos = 0
        self.last_line = len(text.splitlines())

    def _next(self, what: str) -> tuple[str, int, int]:
        if self.pos >= len(self.items):
            raise InputError(f"expected {what}, found the end of the input",
                             line=self.last_line + 1, col=1)
        item = self.items[self.pos]
        self.pos += 1
        return item

    def take(self, what: str, lo: int | None = None, hi: int | None = None) -> int:
        tok, ln, col = self._next(what)
        return parse_int(tok, what, lo, hi, line=ln, col=col)

    def take_float(self, what: str) -> float:
        tok, ln, col = self._next(what)
        return parse_float(tok, what, line=ln, col=col)

    def where(self) -> tuple[int, int]:
        if self.pos == 0:
            return 1, 1
        _, ln, col = self.items[self.pos - 1]
        return ln, col

    def fail(self, message: str) -> InputError:
        """An error at the token read last."""
        ln, col = self.where()
        return InputError(message, line=ln, col=col)

    def in_range(self, value: int, n: int, what: str) -> None:
        """A node number read last must be one of the map's ``0..n-1``."""
        if not 0 <= value < n:
            raise self.fail(f"{what} out of range 0..{n - 1}")

    def size(self, what: str, lo: int, base: int) -> int:
        value = self.take(what, lo)
        ln, col = self.where()
        return check_size(value, base, what, line=ln, col=col)

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
    """``count`` links, each checked where it is written (range, loop, repeat)."""
    out: list[tuple[int, int]] = []
    seen: set[tuple[int, int]] = set()
    for k in range(count):
        u = toks.take(f"link {k + 1}'s first node")
        toks.in_range(u, n, f"link {k + 1}: node {u}")
        v = toks.take(f"link {k + 1}'s second node")
        toks.in_range(v, n, f"link {k + 1}: node {v}")
        if u == v:
            raise toks.fail(f"link {k + 1}: {u}-{v} joins a node to itself")
        key = (min(u, v), max(u, v))
        if key in seen:
            raise toks.fail(f"link {k + 1}: {u}-{v} appears twice")
        seen.add(key)
        out.append((u, v))
    return out


def _gateways(toks: _Tokens, count: int, n: int) -> list[int]:
    gates: list[int] = []
    for k in range(count):
        g = toks.take(f"gateway {k + 1}")
        toks.in_range(g, n, f"gateway {g}")
        if g in gates:
            raise toks.fail(f"gateway {g} is listed twice")
        gates.append(g)
    return gates


def _start(toks: _Tokens, n: int, gates: list[int], what: str) -> int:
    s = toks.take(what)
    toks.in_range(s, n, f"start {s}")
    if s in gates:
        raise toks.fail(f"the agent starts on gateway {s}; expected a node that is not a "
                        "gateway")
    return s


def _read_codingame(text: str) -> SkynetMap:
    t = _Tokens(text)
    n = t.size("N (nodes)", 1, MAX_NODES)
    l = t.size("L (links)", 0, MAX_LINKS)
    e = t.size("E (gateways)", 1, MAX_GATEWAYS)
    links = _links(t, l, n)
    gates = _gateways(t, e, n)
    start = _start(t, n, gates, "the agent's start SI") if t.rest() else None
    if t.rest():
        tok, ln, col = t.rest()[0]
        raise InputError(f"unexpected {tok[:40]!r} after the start node", line=ln, col=col)
    return _build(t, lambda: SkynetMap(n, tuple(links), frozenset(gates), start,
                                       gateway_order=tuple(gates)))


def _read_custom(text: str) -> SkynetMap:
    t = _Tokens(text)
    t.pos = 1  # the first word (LOCKED)
    n = t.size("N (nodes)", 1, MAX_NODES)
    coords = tuple((t.take_float(f"node {k}'s x"), t.take_float(f"node {k}'s y"))
                   for k in range(n))
    l = t.size("L (links)", 0, MAX_LINKS)
    links = _links(t, l, n)
    start = t.take("the agent's start")
    t.in_range(start, n, f"start {start}")
    start_at = t.where()
    e = t.size("E (gateways)", 1, MAX_GATEWAYS)
    gates = _gateways(t, e, n)
    if start in gates:
        raise InputError(f"the agent starts on gateway {start}; expected a node that is not a "
                         "gateway", line=start_at[0], col=start_at[1])
    if t.rest():
        tok, ln, col = t.rest()[0]
        raise InputError(f"unexpected {tok[:40]!r} after the gateways", line=ln, col=col)
    return _build(t, lambda: SkynetMap(n, tuple(links), frozenset(gates), start, coords,
                                       gateway_order=tuple(gates)))


def _pair(value: Any, what: str, lo: int | None = None, hi: int | None = None) -> tuple:
    if not isinstance(value, list) or len(value) != 2:
        raise InputError(f"expected {what} (a list of two numbers), found "
                         f"{json.dumps(value)[:40]}")
    return (json_int(value[0], what, lo, hi), json_int(value[1], what, lo, hi))


def _map_from_obj(obj: Any, where: str = "") -> SkynetMap:
    """A map object, each field checked strictly (errors name the field: ``'links'[3]``)."""
    at = f"{where}." if where else ""
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object for a Skynet map{' in ' + where if where else ''}"
                         f" with 'nodes', 'links' and 'gateways', found {json.dumps(obj)[:40]}")
    for key in ("nodes", "links", "gateways"):
        if key not in obj:
            raise InputError(f"the Skynet map{' in ' + where if where else ''} has no {key!r} "
                             "(expected 'nodes', 'links', 'gateways')")
    n = check_size(json_int(obj["nodes"], f"'{at}nodes'", 1), MAX_NODES, f"'{at}nodes'")
    links, gates = obj["links"], obj["gateways"]
    if not isinstance(links, list):
        raise InputError(f"expected '{at}links' to be a list of [u, v]")
    if not isinstance(gates, list):
        raise InputError(f"expected '{at}gateways' to be a list of nodes")
    check_size(len(links), MAX_LINKS, f"the number of '{at}links'")
    check_size(len(gates), MAX_GATEWAYS, f"the number of '{at}gateways'")
    pairs = [_pair(x, f"'{at}links'[{k}] (nodes 0..{n - 1})", 0, n - 1)
             for k, x in enumerate(links)]
    gs = [json_int(g, f"'{at}gateways'[{k}] (a node 0..{n - 1})", 0, n - 1)
          for k, g in enumerate(gates)]
    if len(set(gs)) != len(gs):
        raise InputError(f"'{at}gateways' lists a gateway twice")
    start = obj.get("start")
    if start is not None:
        start = json_int(start, f"'{at}start' (a node 0..{n - 1})", 0, n - 1)
    coords = obj.get("coords")
    if coords is not None:
        if not isinstance(coords, list) or len(coords) != n:
            raise InputError(f"expected '{at}coords' to be a list of {n} [x, y]")
        coords = tuple(tuple(json_number(c, f"'{at}coords'[{k}]") for c in _xy(xy, k, at))
                       for k, xy in enumerate(coords))
    name = obj.get("name")
    if name is not None and not isinstance(name, str):
        raise InputError(f"expected '{at}name' to be a string")
    return SkynetMap(n, tuple(pairs), frozenset(gs), start, coords, name, tuple(gs))


def _xy(value: Any, k: int, at: str) -> list:
    if not isinstance(value, list) or len(value) != 2:
        raise InputError(f"expected '{at}coords'[{k}] to be [x, y]")
    return value


def read_map(text: str, source: str = "<string>", fmt: str | None = None) -> SkynetMap:
    """Read a map in ``fmt`` (detected when None); errors name source, line and column."""
    try:
        fmt = fmt or detect_map_format(text)
        if fmt == "json":
            obj = load_json(text, source)
            if isinstance(obj, dict) and obj.get("type") == "skynet-game":
                m = _map_from_obj(obj.get("map"), "the game record's 'map'")
            else:
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


#: the file that says what a folder of maps is (``{"type": "skynet-set", "rule": "ep1"}``)
SET_FILE = "SET.json"
_sets: dict[str, str | None] = {}


def set_rule(source: str) -> str | None:
    """The rule of the set a map file belongs to: its folder's ``SET.json`` (an Episode 1
    set is refereed under Episode 1 rules by default), None without one."""
    from puzzleproof.formats.numbers import load_json

    if source.startswith("<"):
        return None
    folder = os.path.dirname(os.path.abspath(source))
    if folder not in _sets:
        path = os.path.join(folder, SET_FILE)
        rule = None
        if os.path.isfile(path) and os.path.getsize(path) < 1_000_000:
            with open(path, encoding="utf-8") as fh:
                obj = load_json(fh.read(), path)
            if isinstance(obj, dict) and obj.get("type") == "skynet-set":
                rule = obj.get("rule")
                if rule not in ("ep1", "ep2"):
                    raise InputError('"rule" must be "ep1" or "ep2"', path)
        _sets[folder] = rule
    return _sets[folder]


def read_instances(text: str, source: str = "<string>", fmt: str | None = None) -> list:
    """The registry's reader: the map in ``text`` as one :class:`puzzleproof.instance.Loaded`,
    with the rule its set says (:func:`set_rule`). A game record or breaker evidence is not
    a map file (its ``type`` says what it is)."""
    from dataclasses import replace

    from puzzleproof.instance import Loaded

    m = read_map(text, source, fmt)
    rule = set_rule(source)
    if rule is not None:
        m = replace(m, rule=rule)
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
    """Read a game record; every field is checked (errors name the file and the field)."""
    try:
        obj = load_json(text, source)
        if not isinstance(obj, dict) or obj.get("type") != "skynet-game":
            raise InputError("expected a game record (a JSON object with \"type\": "
                             "\"skynet-game\")")
        m = _map_from_obj(obj.get("map"), "the game record's 'map'")
        rule = obj.get("rule")
        if rule not in RULES:
            raise InputError(f"expected 'rule' to be one of {', '.join(RULES)}, found "
                             f"{json.dumps(rule)[:40]}")
        start = json_int(obj.get("start"), "'start'")
        turns_obj = obj.get("turns")
        if not isinstance(turns_obj, list):
            raise InputError("expected 'turns' to be a list of {\"agent_at\", \"cut\", "
                             "\"agent_moved_to\"}")
        turns = []
        for k, t in enumerate(turns_obj):
            what = f"'turns'[{k}]"
            if not isinstance(t, dict):
                raise InputError(f"expected {what} to be an object with 'agent_at', 'cut' and "
                                 "'agent_moved_to'")
            cut = t.get("cut")
            moved = t.get("agent_moved_to")
            turns.append(Turn(json_int(t.get("agent_at"), f"{what}.agent_at"),
                              None if cut is None else _pair(cut, f"{what}.cut"),
                              None if moved is None else json_int(moved,
                                                                  f"{what}.agent_moved_to")))
        texts = {}
        for key in ("result", "reason", "bot", "agent", "detail"):
            value = obj.get(key)
            if value is not None and not isinstance(value, str):
                raise InputError(f"expected {key!r} to be a string, found "
                                 f"{json.dumps(value)[:40]}")
            texts[key] = value
        seconds = obj.get("turn_seconds", [])
        if not isinstance(seconds, list):
            raise InputError("expected 'turn_seconds' to be a list of numbers")
        seconds = [json_number(x, f"'turn_seconds'[{k}]") for k, x in enumerate(seconds)]
        record = GameRecord(m, rule, start, turns, texts["result"], texts["reason"],
                            texts["bot"], texts["agent"], texts["detail"], seconds)
        if isinstance(obj.get("stderr"), str):  # an external program's (capped) stderr
            record.stderr = obj["stderr"]  # type: ignore[attr-defined]
        return record
    except InputError as exc:
        raise exc.located(source) from None


STRATEGY_TYPES = ("skynet-player-strategy", "skynet-agent-strategy", "skynet-agent-escape")


def read_strategy(text: str, source: str = "<string>", m: SkynetMap | None = None) -> dict:
    """Read a strategy certificate (see :mod:`puzzleproof.models.skynet_strategy`) and check
    its shape, every field with its type (node numbers in range when the map ``m`` is given):
    a malformed certificate is an InputError naming the file and the field (``nodes["t0"].cut``),
    so that the replay judges only well-formed strategies. Whether it wins is the replay's
    question, not this one's."""
    try:
        data = load_json(text, source)
        if not isinstance(data, dict) or data.get("type") not in STRATEGY_TYPES:
            raise InputError("expected a strategy object with \"type\": "
                             + ", ".join(f'"{t}"' for t in STRATEGY_TYPES))
        hi = None if m is None else m.n - 1
        node = f" (a node 0..{hi})" if hi is not None else ""
        for key in ("rule",):
            if key in data and data[key] not in RULES:
                raise InputError(f"expected 'rule' to be one of {', '.join(RULES)}, found "
                                 f"{json.dumps(data[key])[:40]}")
        if data.get("start") is not None:
            json_int(data["start"], f"'start'{node}", 0, hi)
        if "map" in data:
            _map_from_obj(data["map"], "the strategy's 'map'")
        if data["type"] == "skynet-agent-escape":
            json_int(data.get("horizon"), "'horizon' (a number of cuts)", 0)
        nodes, root = data.get("nodes"), data.get("root")
        if not isinstance(nodes, dict):
            raise InputError("expected 'nodes' to be an object {id: node}")
        if not isinstance(root, str):
            raise InputError(f"expected 'root' to be a node id (a string), found "
                             f"{json.dumps(root)[:40]}")
        player = data["type"] == "skynet-player-strategy"
        for nid, nd in nodes.items():
            at = f"nodes[{json.dumps(nid)[:40]}]"
            if not isinstance(nd, dict):
                raise InputError(f"expected {at} to be an object")
            json_int(nd.get("agent"), f"{at}.agent{node}", 0, hi)
            if player and "invariant" in nd and "cut" not in nd:
                if not isinstance(nd["invariant"], str):
                    raise InputError(f"expected {at}.invariant to be the invariant's name")
            elif not player and "path" in nd and "replies" not in nd:
                if not isinstance(nd["path"], list) or not nd["path"]:
                    raise InputError(f"expected {at}.path to be a list of nodes")
                for k, v in enumerate(nd["path"]):
                    json_int(v, f"{at}.path[{k}]{node}", 0, hi)
            elif player:
                _pair(nd.get("cut"), f"{at}.cut (two nodes"
                      + (f" 0..{hi})" if hi is not None else ")"), 0, hi)
                nxt = nd.get("next", {})
                if not isinstance(nxt, dict):
                    raise InputError(f"expected {at}.next to be an object {{node: id}}")
                for move, child in nxt.items():
                    parse_int(move, f"a move in {at}.next{node}", 0, hi)
                    if not isinstance(child, str):
                        raise InputError(f"expected {at}.next[{json.dumps(move)[:20]}] to be a "
                                         "node id (a string)")
            elif data.get("form") == "witness":
                _witness_node(nd, at, node, hi)
            else:
                _agent_node(nd, at, node, hi)
        return data
    except InputError as exc:
        raise exc.located(source) from None


def _agent_node(nd: dict, at: str, node: str, hi: int | None) -> None:
    """An agent table's node: a reply to each cut named ``"u-v"``, and an ``"otherwise"``
    reply for the cuts it does not name."""
    replies = nd.get("replies", {})
    if not isinstance(replies, dict):
        raise InputError(f"expected {at}.replies to be an object {{\"u-v\": reply}}")
    for cut, reply in replies.items():
        rat = f"{at}.replies[{json.dumps(cut)[:20]}]"
        ends = cut.split("-")
        if len(ends) != 2:
            raise InputError(f"expected a cut 'u-v' as a key of {at}.replies, "
                             f"found {json.dumps(cut)[:40]}")
        for e in ends:
            parse_int(e, f"a node of the cut {json.dumps(cut)[:20]} in {at}.replies", 0, hi)
        _reply(reply, rat, node, hi)
    if "otherwise" in nd:
        _reply(nd["otherwise"], f"{at}.otherwise", node, hi)


def _witness_node(nd: dict, at: str, node: str, hi: int | None) -> None:
    """An escape's node in witness form: its links (a hexadecimal mask), the cuts it
    survives, and a tempo claim or a list of replies."""
    links = nd.get("links")
    if not isinstance(links, str) or not links or any(c not in "0123456789abcdef"
                                                      for c in links):
        raise InputError(f"expected {at}.links to be a hexadecimal mask of links")
    json_int(nd.get("h"), f"{at}.h (a number of cuts)", 0)
    if "tempo" in nd and not isinstance(nd["tempo"], bool):
        raise InputError(f"expected {at}.tempo to be true or false")
    replies = nd.get("replies", [])
    if not isinstance(replies, list):
        raise InputError(f"expected {at}.replies to be a list of replies")
    for k, reply in enumerate(replies):
        _reply(reply, f"{at}.replies[{k}]", node, hi)


def _reply(reply: Any, rat: str, node: str, hi: int | None) -> None:
    if not isinstance(reply, dict):
        raise InputError(f"expected {rat} to be {{\"move\", \"next\"}}")
    if reply.get("move") is not None:
        json_int(reply["move"], f"{rat}.move{node}", 0, hi)
    if reply.get("next") is not None and not isinstance(reply["next"], str):
        raise InputError(f"expected {rat}.next to be a node id or null")


def _close_spacing(pos: dict[int, tuple[float, float]]) -> float:
    """The distance between the two closest distinct nodes (0 for fewer than two), in layout
    units; a grid of buckets keeps it near-linear."""
    import math

    pts = list(pos.values())
    if len(pts) < 2:
        return 0.0
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    cell = (max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0) / max(1, int(math.sqrt(len(pts))))
    buckets: dict[tuple[int, int], list[tuple[float, float]]] = {}
    for x, y in pts:
        buckets.setdefault((int(x // cell), int(y // cell)), []).append((x, y))
    nearest = [math.inf]
    for x, y in pts:
        bx, by = int(x // cell), int(y // cell)
        best = math.inf
        for ring in range(0, 3):
            for gx in range(bx - ring, bx + ring + 1):
                for gy in range(by - ring, by + ring + 1):
                    if max(abs(gx - bx), abs(gy - by)) != ring:
                        continue
                    for qx, qy in buckets.get((gx, gy), ()):
                        d = math.hypot(qx - x, qy - y)
                        if 0 < d < best:  # coincident nodes cannot be pulled apart
                            best = d
            if best <= ring * cell:
                break
        nearest.append(min(best, 3 * cell))
    return min(nearest)


def render_svg(m: SkynetMap, record: GameRecord | None = None, size: int = 640,
               fence: frozenset[int] | None = None) -> str:
    """An SVG of the map: gateways (red squares), the agent's start (blue), links; with a game
    record, cut links dashed and numbered by turn, and the agent's path in blue; with a
    ``fence`` (nodes, see :mod:`puzzleproof.encoders.skynet_fences`), its nodes shaded and its
    boundary links drawn thick in orange."""
    import html

    pos = _positions(m)
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    pad = 30
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    scale = (size - 2 * pad) / span
    # grow the picture until close nodes sit 24 px apart (at most 4,000 px wide), then
    # shrink the nodes that still crowd; labels too small to read move into tooltips
    gap = _close_spacing(pos)
    if gap > 0 and gap * scale < 24:
        scale = min(24 / gap, (4000 - 2 * pad) / span)
    radius = max(3.0, min(9.0, 0.4 * gap * scale)) if gap > 0 else 9.0
    labelled = radius >= 6
    font = 10 if radius >= 8 else 8

    def at(i: int) -> tuple[float, float]:
        x, y = pos[i]
        return pad + (x - min(xs)) * scale, pad + (y - min(ys)) * scale

    width = pad * 2 + (max(xs) - min(xs)) * scale
    fence = frozenset(fence or ())
    caption = record is not None or bool(fence)
    height = pad * 2 + (max(ys) - min(ys)) * scale + (24 if caption else 0)
    cut_turn, path = _game_marks(record)
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
        tip = "" if labelled else f"<title>node {i}</title>"
        fill = "#e53e3e"
        if i in m.gateways:
            out.append(f'<rect x="{x - radius:.1f}" y="{y - radius:.1f}" width="{2 * radius:.1f}" '
                       f'height="{2 * radius:.1f}" fill="#e53e3e" stroke="#742a2a">{tip}</rect>')
        else:
            fill = "#2b6cb0" if (record and i == record.start) or (not record and i == m.start) \
                else "#fdf0c2" if i in fence else "white"
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{radius:.1f}" fill="{fill}" '
                       f'stroke="#1a202c">{tip}</circle>')
        if labelled:
            colour = "white" if i in m.gateways or fill == "#2b6cb0" else "#1a202c"
            out.append(f'<text x="{x:.1f}" y="{y + font * 0.4:.1f}" font-size="{font}" '
                       f'text-anchor="middle" fill="{colour}">{i}</text>')
    line = _caption(m, record, fence)
    if line:
        out.append(f'<text x="{pad}" y="{height - 8:.0f}" font-size="13" fill="#1a202c">'
                   f'{html.escape(line)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _positions(m: SkynetMap) -> dict[int, tuple[float, float]]:
    """Where each node is drawn: the map's own coordinates, else a seeded spring layout (a
    ring layout from 500 nodes on, where networkx's needs scipy)."""
    if m.coords is not None:
        return {i: m.coords[i] for i in range(m.n)}
    from puzzleproof.formats.layout import layout

    return layout(m.n, m.links, m.start if m.start is not None else 0)


def _game_marks(record: GameRecord | None) -> tuple[dict[tuple[int, int], int], list[int]]:
    """(cut link -> the turn it was cut, the agent's path) of a game record."""
    cut_turn: dict[tuple[int, int], int] = {}
    path: list[int] = []
    if record is not None:
        for k, t in enumerate(record.turns, start=1):
            if t.cut is not None:
                cut_turn[tuple(sorted(t.cut))] = k  # type: ignore[index]
        path = [record.start] + [t.agent_moved_to for t in record.turns
                                 if t.agent_moved_to is not None]
    return cut_turn, path


def _caption(m: SkynetMap, record: GameRecord | None, fence: frozenset[int]) -> str:
    if record is not None:
        return (f"{record.bot} vs agent {record.agent} ({record.rule}): {record.result} "
                f"({record.reason}), {record.cuts} cuts")
    if fence:
        edge = sum((u in fence) != (v in fence) for u, v in m.links)
        return f"fence: {len(fence)} nodes, {edge} boundary links"
    return ""


def render_png(m: SkynetMap, record: GameRecord | None = None,
               fence: frozenset[int] | None = None, dpi: int = 110) -> bytes:
    """The drawing of :func:`render_svg` as a PNG (matplotlib): the same layout, colours and
    marks; node numbers are written up to 150 nodes."""
    import io
    import os

    from puzzleproof.formats.document import subplots

    pos = _positions(m)
    fence = frozenset(fence or ())
    cut_turn, path = _game_marks(record)
    side = min(40.0, max(6.0, 0.35 * m.n ** 0.5 * 2))
    fig, ax = subplots(figsize=(side, side))
    for u, v in m.links:
        (x1, y1), (x2, y2) = pos[u], pos[v]
        k = cut_turn.get((u, v))
        if k is not None:
            ax.plot([x1, x2], [y1, y2], color="#d64545", lw=1.5, ls="--", zorder=1)
            ax.text((x1 + x2) / 2, (y1 + y2) / 2, str(k), color="#d64545", fontsize=8,
                    ha="center", va="bottom", zorder=4)
        elif (u in fence) != (v in fence):
            ax.plot([x1, x2], [y1, y2], color="#dd8a1f", lw=3, zorder=1)
        else:
            ax.plot([x1, x2], [y1, y2], color="#8a8f98", lw=1, zorder=1)
    if len(path) > 1:
        ax.plot([pos[v][0] for v in path], [pos[v][1] for v in path], color="#2b6cb0", lw=4,
                alpha=0.45, zorder=2)
    start = record.start if record is not None else m.start
    small = m.n > 150
    for i in range(m.n):
        x, y = pos[i]
        gate = i in m.gateways
        fill = ("#e53e3e" if gate else "#2b6cb0" if i == start
                else "#fdf0c2" if i in fence else "white")
        ax.scatter([x], [y], s=20 if small else 160, marker="s" if gate else "o", c=fill,
                   edgecolors="#742a2a" if gate else "#1a202c", linewidths=0.8, zorder=3)
        if not small:
            ax.text(x, y, str(i), fontsize=6, ha="center", va="center", zorder=5,
                    color="white" if gate or i == start else "#1a202c")
    ax.invert_yaxis()  # as in the SVG, whose y axis points down
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(os.path.basename(m.name or "") or "Skynet map", fontsize=10)
    line = _caption(m, record, fence)
    if line:
        fig.text(0.02, 0.02, line, fontsize=9)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()
