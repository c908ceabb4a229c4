"""The shape of a Death Run game record, checked before it is replayed.

A record (as :func:`puzzleproof.models.deathrun.play_game` writes it) is read in two steps:
:func:`check_record_shape` says whether every field has the type the format gives it (an
error here is an unreadable file: exit 2), then :func:`puzzleproof.models.deathrun_replay.replay`
says whether the game followed the rules (an error there is a broken rule: exit 1).

The format, field by field (``?`` marks an optional field; other keys are ignored):

- ``type``: ``"deathrun-game"``; ``schema_version``: ``1``
- ``seed``: an integer, or a string that begins with one (``"7:3"``, ``"7:g0:s1"``: what
  ``generate`` and ``tournament`` write)
- ``graph``: ``{"edges": [[u, v, w], ...], "begin": v, "ends": [v, ...]}`` (integers)
- ``budget``: a number >= 0
- ``seats``: ``[{"seat": i, "role": "criminal" | "student", "bot": str}, ...]``, seat ``i``
  at index ``i``, the criminals first
- ``note?``: str; ``init?``: ``[{"seat": int, "ok": bool, "reason?": str}, ...]``
- ``rounds``: ``[{"round": int, "criminal_view": {"updates": UPD, "counts": CNT},
  "criminals": [{"seat": int, "budget": number, "valid": bool, "move": [u, v, w] (when
  valid), "reason?": str, "output?": str}, ...], "updates": UPD, "students": [{"seat": int,
  "at": int, "counts": CNT, "valid": bool, "to": int, "paid": number, "reason?": str,
  "output?": str}, ...]}, ...]`` where UPD is ``[[u, v, number], ...]`` and CNT
  ``[[v, int], ...]``
- ``scores``: ``{"criminals": [number, ...], "students": [number, ...]}``, one per seat
- ``base_crossed?``: number; ``final_budgets?``: ``[number, ...]`` (one per criminal)
- ``invalid_moves?``: ``[{"seat": int, "bot": str, "round": int, "reason": str}, ...]``
- ``scoreboard?``: ``[{"seat": int, "role": str, "bot": str, "score": number,
  "invalid_moves": int}, ...]``
- ``game_id?``, ``judged?``: str; ``graph_index?``: int; ``wall_time?``: number (a
  tournament's)

>>> try:
...     check_record_shape({"type": "deathrun-game", "schema_version": 1, "seed": "x"})
... except InputError as exc:
...     print(exc)
missing field 'graph' (expected seed, graph, budget, seats, rounds, scores)
>>> describe(None), describe("x"), describe([1, 2]), describe({})
('null', 'a string ("x")', 'a list of 2 items', 'an object')
"""

from __future__ import annotations

import json
import math
import numbers
import re
from typing import Any

from puzzleproof.errors import InputError

__all__ = ["check_record_shape", "describe", "RECORD_TYPE", "SCHEMA_VERSION"]

#: The ``type`` and ``schema_version`` every game record carries (the engine writes them).
RECORD_TYPE = "deathrun-game"
SCHEMA_VERSION = 1

_SEED = re.compile(r"-?[0-9]+(:[A-Za-z0-9_-]+)*")
_REQUIRED = ("seed", "graph", "budget", "seats", "rounds", "scores")


def describe(x: Any) -> str:
    """What a JSON value is, in words (``null``, ``a string ("x")``, ``an object``...)."""
    if x is None:
        return "null"
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, numbers.Integral):
        s = str(x)
        return f"the integer {s if len(s) <= 30 else s[:27] + '...'}"
    if isinstance(x, numbers.Real):
        return f"the number {x!r}"
    if isinstance(x, str):
        s = x if len(x) <= 40 else x[:37] + "..."
        return f"a string ({json.dumps(s)})"
    if isinstance(x, (list, tuple)):
        return f"a list of {len(x)} item{'s' if len(x) != 1 else ''}" if x else "an empty list"
    if isinstance(x, dict):
        return "an object"
    return "a value of another kind"


class _Bad(Exception):
    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)


def _is_int(x: Any) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _is_num(x: Any) -> bool:
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        return False
    try:
        return math.isfinite(float(x))
    except (OverflowError, ValueError):
        return False


def _expect(ok: bool, path: str, expected: str, x: Any) -> None:
    if not ok:
        raise _Bad(path, f"expected {expected}, found {describe(x)}")


def _obj(x: Any, path: str, what: str) -> dict:
    _expect(isinstance(x, dict), path, f"an object {what}", x)
    return x


def _list(x: Any, path: str, what: str) -> list:
    _expect(isinstance(x, list), path, f"a list {what}", x)
    return x


def _field(d: dict, key: str, path: str, required: bool = True) -> tuple[bool, Any, str]:
    p = f"{path}.{key}" if path else key
    if key not in d:
        if required:
            raise _Bad(path, f"missing field {key!r}")
        return False, None, p
    return True, d[key], p


def _int(d: dict, key: str, path: str, required: bool = True) -> None:
    has, x, p = _field(d, key, path, required)
    if has:
        _expect(_is_int(x), p, "an integer", x)


def _num(d: dict, key: str, path: str, required: bool = True) -> None:
    has, x, p = _field(d, key, path, required)
    if has:
        _expect(_is_num(x), p, "a number", x)


def _str(d: dict, key: str, path: str, required: bool = True) -> None:
    has, x, p = _field(d, key, path, required)
    if has:
        _expect(isinstance(x, str), p, "a string", x)


def _bool(d: dict, key: str, path: str, required: bool = True) -> None:
    has, x, p = _field(d, key, path, required)
    if has:
        _expect(isinstance(x, bool), p, "true or false", x)


def _tuples(x: Any, path: str, what: str, kinds: str) -> None:
    """A list of fixed-length lists: ``kinds`` is ``"i"`` (integer) or ``"n"`` (number) per
    position."""
    for k, t in enumerate(_list(x, path, f"of {what}")):
        p = f"{path}[{k}]"
        _expect(isinstance(t, list) and len(t) == len(kinds), p, f"a list {what}", t)
        for j, (kind, y) in enumerate(zip(kinds, t)):
            if kind == "i":
                _expect(_is_int(y), f"{p}[{j}]", "an integer", y)
            else:
                _expect(_is_num(y), f"{p}[{j}]", "a number", y)


def _numbers(x: Any, path: str, per: str, count: int) -> None:
    for k, y in enumerate(_list(x, path, f"of numbers, one per {per}")):
        _expect(_is_num(y), f"{path}[{k}]", "a number", y)
    if len(x) != count:
        raise _Bad(path, f"expected {count} numbers (one per {per}), found {len(x)}")


def _graph(x: Any) -> None:
    g = _obj(x, "graph", "with edges, begin and ends")
    _, edges, p = _field(g, "edges", "graph")
    _tuples(edges, p, "[u, v, w] of integers", "iii")
    _int(g, "begin", "graph")
    _, ends, p = _field(g, "ends", "graph")
    for k, v in enumerate(_list(ends, p, "of end vertices")):
        _expect(_is_int(v), f"{p}[{k}]", "an integer", v)


def _seats(x: Any) -> tuple[int, int]:
    seats = _list(x, "seats", "of {seat, role, bot}")
    nc = 0
    for i, s in enumerate(seats):
        p = f"seats[{i}]"
        _obj(s, p, "with seat, role and bot")
        _int(s, "seat", p)
        if s["seat"] != i:
            raise _Bad(f"{p}.seat", f"expected {i} (the seats are numbered in order), "
                                    f"found {describe(s['seat'])}")
        _, role, rp = _field(s, "role", p)
        _expect(role in ("criminal", "student"), rp, '"criminal" or "student"', role)
        if role == "criminal":
            if nc != i:
                raise _Bad(rp, 'expected "student" (the criminals take the first seats), '
                               'found "criminal"')
            nc += 1
        _str(s, "bot", p)
    return nc, len(seats) - nc


def _mover(d: dict, p: str) -> None:
    _int(d, "seat", p)
    _bool(d, "valid", p)
    _str(d, "reason", p, required=False)
    _str(d, "output", p, required=False)


def _rounds(x: Any) -> None:
    for k, rr in enumerate(_list(x, "rounds", "of rounds")):
        p = f"rounds[{k}]"
        _obj(rr, p, "(a round)")
        _int(rr, "round", p)
        _, cv, cp = _field(rr, "criminal_view", p)
        _obj(cv, cp, "with updates and counts")
        _tuples(_field(cv, "updates", cp)[1], f"{cp}.updates", "[u, v, w]", "iin")
        _tuples(_field(cv, "counts", cp)[1], f"{cp}.counts", "[vertex, count]", "ii")
        _, crims, lp = _field(rr, "criminals", p)
        for j, ce in enumerate(_list(crims, lp, "of criminal moves")):
            q = f"{lp}[{j}]"
            _obj(ce, q, "(a criminal's move)")
            _mover(ce, q)
            _num(ce, "budget", q)
            has, mv, mp = _field(ce, "move", q, required=ce["valid"])
            if has:
                _expect(isinstance(mv, list) and len(mv) == 3, mp, "a list [u, v, w]", mv)
                for i, (kind, y) in enumerate(zip("iin", mv)):
                    if kind == "i":
                        _expect(_is_int(y), f"{mp}[{i}]", "an integer", y)
                    else:
                        _expect(_is_num(y), f"{mp}[{i}]", "a number", y)
        _tuples(_field(rr, "updates", p)[1], f"{p}.updates", "[u, v, w]", "iin")
        _, studs, lp = _field(rr, "students", p)
        for j, st in enumerate(_list(studs, lp, "of student moves")):
            q = f"{lp}[{j}]"
            _obj(st, q, "(a student's move)")
            _mover(st, q)
            _int(st, "at", q)
            _tuples(_field(st, "counts", q)[1], f"{q}.counts", "[vertex, count]", "ii")
            _int(st, "to", q)
            _num(st, "paid", q)


def _optional(rec: dict, nc: int) -> None:
    _str(rec, "note", "", required=False)
    if "init" in rec:
        for i, e in enumerate(_list(rec["init"], "init", "of {seat, ok}")):
            p = f"init[{i}]"
            _obj(e, p, "with seat and ok")
            _int(e, "seat", p)
            _bool(e, "ok", p)
            _str(e, "reason", p, required=False)
    _num(rec, "base_crossed", "", required=False)
    if "final_budgets" in rec:
        _numbers(rec["final_budgets"], "final_budgets", "criminal seat", nc)
    if "invalid_moves" in rec:
        for i, m in enumerate(_list(rec["invalid_moves"], "invalid_moves",
                                    "of {seat, bot, round, reason}")):
            p = f"invalid_moves[{i}]"
            _obj(m, p, "with seat, bot, round and reason")
            _int(m, "seat", p)
            _str(m, "bot", p)
            _int(m, "round", p)
            _str(m, "reason", p)
    if "scoreboard" in rec:
        for i, r in enumerate(_list(rec["scoreboard"], "scoreboard", "of rows")):
            p = f"scoreboard[{i}]"
            _obj(r, p, "(a row with seat, role, bot, score and invalid_moves)")
            _int(r, "seat", p)
            _str(r, "role", p)
            _str(r, "bot", p)
            _num(r, "score", p)
            _int(r, "invalid_moves", p)
    _str(rec, "game_id", "", required=False)
    _str(rec, "judged", "", required=False)
    _int(rec, "graph_index", "", required=False)
    _num(rec, "wall_time", "", required=False)


def _check(rec: Any) -> None:
    _expect(isinstance(rec, dict), "", "a JSON object (a Death Run game record)", rec)
    if rec.get("type") != RECORD_TYPE:
        raise _Bad("type", f"expected \"{RECORD_TYPE}\", found "
                           f"{describe(rec['type']) if 'type' in rec else 'no type field'}")
    sv = rec.get("schema_version")
    if "schema_version" not in rec:
        raise _Bad("", f"missing field 'schema_version' (expected {SCHEMA_VERSION})")
    if not _is_int(sv) or sv != SCHEMA_VERSION:
        raise _Bad("schema_version", f"expected {SCHEMA_VERSION} (the version this reads), "
                                     f"found {describe(sv)}")
    for key in _REQUIRED:
        if key not in rec:
            raise _Bad("", f"missing field {key!r} (expected {', '.join(_REQUIRED)})")
    seed = rec["seed"]
    _expect(_is_int(seed) or (isinstance(seed, str) and _SEED.fullmatch(seed) is not None),
            "seed", 'an integer, or a string that begins with one (such as "7:g0:s1")', seed)
    _graph(rec["graph"])
    budget = rec["budget"]
    _expect(_is_num(budget) and budget >= 0, "budget", "a number >= 0", budget)
    nc, ns = _seats(rec["seats"])
    _rounds(rec["rounds"])
    sc = _obj(rec["scores"], "scores", "with criminals and students")
    _numbers(_field(sc, "criminals", "scores")[1], "scores.criminals",
             "criminal seat", nc)
    _numbers(_field(sc, "students", "scores")[1], "scores.students",
             "student seat", ns)
    _optional(rec, nc)


def check_record_shape(record: Any) -> None:
    """Raise :class:`InputError` (without a location; readers add it) naming the JSON path of
    the first field whose type or shape is not the record format's, and what was expected.
    The rules (moves, views, scores) are :func:`puzzleproof.models.deathrun_replay.replay`'s."""
    try:
        _check(record)
    except _Bad as exc:
        raise InputError(str(exc)) from None
