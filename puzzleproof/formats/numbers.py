"""One strict way to read numbers, JSON and declared sizes, for every reader.

Every number a user brings goes through here, so that hostile or sloppy input gets one
clear :class:`~puzzleproof.errors.InputError` (file, line, what was expected) instead of a
crash, a silent coercion or a hang:

- text numbers are ASCII digits only (``'²'`` and Arabic-Indic digits are refused, as are
  ``1e999``, ``inf`` and ``nan`` where an integer is expected), at most :data:`MAX_DIGITS`
  digits (never the 4,300-digit conversion), and range-checked against the field's meaning;
- JSON numbers must have the expected type: ``true`` is not 1, ``2.5`` is not 2, ``2.0`` is
  not an integer;
- JSON is parsed by :func:`load_json`: duplicate keys, numbers too long or not finite
  (``1e999``, ``NaN``) and nesting too deep are errors naming the file and line;
- a declared size (grid width, node count) is checked by :func:`check_size` against the
  puzzle's limit *before* anything is allocated. The limits can be lifted deliberately:
  ``puzzleproof --max-size FACTOR ...`` or ``PUZZLEPROOF_MAX_SIZE=FACTOR`` multiplies them.

Example:
    >>> parse_int("42", "the width", 1, 100)
    42
    >>> parse_int("4²", "the width", source="p.txt", line=1, col=1)
    Traceback (most recent call last):
    ...
    puzzleproof.errors.InputError: p.txt:1:1: expected the width (an integer), found '4²'
    >>> json_int(True, "'max_bridges'", 1, 4)
    Traceback (most recent call last):
    ...
    puzzleproof.errors.InputError: expected 'max_bridges' (an integer), found true
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from puzzleproof.errors import InputError
from puzzleproof.sizes import LIFT_HINT, SIZE_ENV, limit, size_factor

__all__ = ["MAX_DIGITS", "SIZE_ENV", "parse_int", "parse_float", "json_int", "json_number",
           "json_error", "load_json", "size_factor", "limit", "check_size"]

#: The most digits a number may have (an int64 has 19; nothing the puzzles mean needs more).
MAX_DIGITS = 30

_INT_RE = re.compile(r"[+-]?[0-9]+", re.ASCII)
_FLOAT_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?",
                       re.ASCII)


def _show(token: str) -> str:
    return repr(token if len(token) <= 40 else token[:37] + "...")


def _num(value: float) -> str:
    if isinstance(value, int) and value.bit_length() > 128:
        return f"a number of about {int(value.bit_length() * 0.30103)} digits"
    return str(value)


def _range(value: float, what: str, lo: float | None, hi: float | None, source: str | None,
           line: int | None, col: int | None) -> None:
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        if lo is not None and hi is not None:
            want, phrase = f"{lo}..{hi}", f"in {lo}..{hi}"
        elif lo is not None:
            want = phrase = f"at least {lo}"
        else:
            want = phrase = f"at most {hi}"
        expected = what if want in what else f"{what} {phrase}"
        raise InputError(f"expected {expected}, found {_num(value)}", source, line, col)


def parse_int(token: str, what: str, lo: int | None = None, hi: int | None = None, *,
              source: str | None = None, line: int | None = None,
              col: int | None = None) -> int:
    """``token`` as an integer: ASCII digits with an optional sign, at most
    :data:`MAX_DIGITS` digits, within ``lo..hi``; else InputError saying what was expected."""
    if not isinstance(token, str) or not _INT_RE.fullmatch(token):
        raise InputError(f"expected {what} (an integer), found {_show(str(token))}", source,
                         line, col)
    if len(token.lstrip("+-")) > MAX_DIGITS:
        raise InputError(f"expected {what} (an integer of at most {MAX_DIGITS} digits), found "
                         f"one of {len(token.lstrip('+-'))} digits", source, line, col)
    value = int(token)
    _range(value, what, lo, hi, source, line, col)
    return value


def parse_float(token: str, what: str, lo: float | None = None, hi: float | None = None, *,
                source: str | None = None, line: int | None = None,
                col: int | None = None) -> float:
    """``token`` as a finite decimal number (ASCII; ``1e999``, ``inf``, ``nan`` refused)."""
    if not isinstance(token, str) or len(token) > 2 * MAX_DIGITS \
            or not _FLOAT_RE.fullmatch(token):
        raise InputError(f"expected {what} (a number), found {_show(str(token))}", source,
                         line, col)
    value = float(token)
    if not math.isfinite(value):
        raise InputError(f"expected {what} (a finite number), found {_show(token)}", source,
                         line, col)
    _range(value, what, lo, hi, source, line, col)
    return value


def _json_show(value: Any) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def json_int(value: Any, what: str, lo: int | None = None, hi: int | None = None, *,
             source: str | None = None, line: int | None = None) -> int:
    """A JSON value that must be an integer: not a bool, not a float (not even ``2.0``), not
    a string of digits."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"expected {what} (an integer), found {_json_show(value)}", source,
                         line)
    _range(value, what, lo, hi, source, line, None)
    return value


def json_number(value: Any, what: str, lo: float | None = None, hi: float | None = None, *,
                source: str | None = None, line: int | None = None) -> float:
    """A JSON value that must be a finite number (int or float, not a bool)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        raise InputError(f"expected {what} (a number), found {_json_show(value)}", source,
                         line)
    _range(value, what, lo, hi, source, line, None)
    return float(value)


# -- JSON -------------------------------------------------------------------------------------

def _line_of(text: str, needle: str, nth: int = 1) -> int | None:
    """The 1-based line of the ``nth`` occurrence of ``needle`` in ``text``."""
    at = -1
    for _ in range(nth):
        at = text.find(needle, at + 1)
        if at < 0:
            return None
    return text.count("\n", 0, at) + 1


_LONG_DIGITS = re.compile(r"\d{%d}" % (MAX_DIGITS + 1))


def json_error(exc: json.JSONDecodeError) -> tuple[str, int, int]:
    """``(message, line, column)`` of a JSON syntax error, the same on every Python: a
    trailing comma (``[1,]``, ``{"a": 1,}``) is named as Python 3.13 names it, at the comma,
    where 3.11 and 3.12 report the bracket after it ("Expecting value", "Expecting property
    name enclosed in double quotes").

    >>> try:
    ...     json.loads('{"grid": ["1.1"],}')
    ... except json.JSONDecodeError as exc:
    ...     json_error(exc)
    ('Illegal trailing comma before end of object', 1, 17)
    """
    doc, pos = exc.doc, exc.pos
    if exc.msg.startswith(("Expecting value", "Expecting property name")) \
            and 0 <= pos < len(doc) and doc[pos] in "]}":
        k = pos - 1
        while k >= 0 and doc[k] in " \t\n\r":
            k -= 1
        if k > 0 and doc[k] == ",":
            kind = "array" if doc[pos] == "]" else "object"
            at = json.JSONDecodeError(f"Illegal trailing comma before end of {kind}", doc, k)
            return at.msg, at.lineno, at.colno
    return exc.msg, exc.lineno, exc.colno


def load_json(text: str, source: str | None = None, line_offset: int = 0, *,
              syntax: str = "invalid JSON") -> Any:
    """Parse JSON strictly: errors name ``source`` and the line (plus ``line_offset``, for a
    line of a JSONL file) for bad syntax, a duplicate key, a number longer than
    :data:`MAX_DIGITS` digits or not finite (``1e999``, ``NaN``, ``Infinity``), and nesting
    too deep for the parser. A syntax error's message starts with ``syntax`` and the error
    has ``syntax_error = True`` (a caller may then try the text as JSONL)."""

    if not text.strip():
        exc = InputError(f"{syntax}: the text is empty (expected a JSON value)", source)
        exc.syntax_error = True  # type: ignore[attr-defined]
        raise exc

    def where(token: str) -> int | None:
        ln = _line_of(text, token)
        return None if ln is None else ln + line_offset

    def parse_int(s: str) -> int:
        if len(s.lstrip("-")) > MAX_DIGITS:
            raise InputError(f"a number of {len(s.lstrip('-'))} digits; at most {MAX_DIGITS} "
                             "are read", source, where(s[:50]))
        return int(s)

    def parse_float(s: str) -> float:
        value = float(s)
        if not math.isfinite(value) or len(s) > 2 * MAX_DIGITS:
            raise InputError(f"the number {_show(s)} is out of range (expected a finite "
                             "number)", source, where(s[:50]))
        return value

    def parse_constant(s: str) -> Any:
        raise InputError(f"{s} is not a number JSON allows (expected a finite number)", source,
                         where(s))

    def pairs(items: list[tuple[str, Any]]) -> dict:
        out: dict = {}
        for key, value in items:
            if key in out:
                needle = json.dumps(key)
                raise InputError(f"the key {needle[:60]} appears twice in one object",
                                 source, where_dup(needle))
            out[key] = value
        return out

    def where_dup(needle: str) -> int | None:
        ln = _line_of(text, needle, 2)
        return None if ln is None else ln + line_offset

    # without a run of digits longer than the limit anywhere, the parser's own integers
    # are as strict and several times faster (a hook is called for every number)
    if _LONG_DIGITS.search(text) is None:
        parse_int = int  # type: ignore[assignment]
    try:
        return json.loads(text, parse_int=parse_int, parse_float=parse_float,
                          parse_constant=parse_constant, object_pairs_hook=pairs)
    except json.JSONDecodeError as exc:
        msg, line, col = json_error(exc)
        err = InputError(f"{syntax}: {msg}", source, line + line_offset, col)
        err.syntax_error = True  # type: ignore[attr-defined]
        raise err from None
    except RecursionError:
        raise InputError(f"{syntax}: nested too deeply", source, 1 + line_offset) from None
    except ValueError as exc:  # a number the hooks did not see (Python's own limits)
        raise InputError(f"{syntax}: {exc}"[:200], source) from None


# -- declared sizes -------------------------------------------------------------------------

def check_size(value: int, base: int, what: str, *, source: str | None = None,
               line: int | None = None, col: int | None = None) -> int:
    """Refuse a declared size above its limit before anything is allocated, naming the
    limit and how to lift it; return ``value``."""
    top = limit(base)
    if value > top:
        raise InputError(f"{what} is {_num(value)}, above the limit of {top}; {LIFT_HINT}",
                         source, line, col)
    return value
