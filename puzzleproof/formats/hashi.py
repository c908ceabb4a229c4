"""Hashiwokakero formats: read and write every format users bring, and draw solutions.

Puzzle formats (``FORMATS``):

- ``codingame``: ``width``, ``height``, then ``height`` rows of ``.`` and clue digits.
- ``grid``: the rows alone.
- ``has``: Coelho et al.'s ``rows cols n`` header, then rows of integers (0 = water).
- ``tatham``: Simon Tatham's game ID ``WxHm<m>:<desc>`` (or ``WxH<params>:<desc>``).
- ``puzzlink``: ``https://puzz.link/p?hashi/<cols>/<rows>/<body>`` (``hashikake`` and
  ``bridges`` are aliases; the scheme and host may be left out).
- ``json``: one object ``{"width", "height", "max_bridges", "grid": [rows], "solution"?}``;
  ``grid`` rows use ``.``, ``1``-``9``, ``A``-``G`` (10-16) and ``?`` (clue not given). An
  ``"islands": [[x, y, clue], ...]`` list may replace ``grid``, and a ``"game_id"`` alone is
  read as a Tatham ID. A file of several such objects, one per line, is ``jsonl``.

Solution formats: CodinGame's output (one bridge a line, ``x1 y1 x2 y2 n``) and JSON (a list
of ``[x1, y1, x2, y2, n]`` or an object with a ``"solution"`` list).

Example:
    >>> recs = read_puzzles("p?hashi/3/1/2g2")
    >>> recs[0].puzzle.to_rows()
    ['2.2']
    >>> write_puzzle(recs[0].puzzle, "tatham")
    '3x1m2:2a2'
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from puzzleproof.errors import InputError
from puzzleproof.formats.numbers import check_size, json_int, load_json, parse_int
from puzzleproof.models.hashi import BridgeLine, Island, Puzzle, clue_from_char, clue_to_char

__all__ = [
    "MAX_SIDE",
    "FORMATS",
    "WRITE_FORMATS",
    "SOLUTION_FORMATS",
    "HashiRecord",
    "SolutionLine",
    "detect_format",
    "read_puzzles",
    "write_puzzle",
    "read_solution",
    "write_solution",
    "render_ascii",
    "render_svg",
]

#: The file endings of Hashi puzzles (what a folder walk picks up).
SUFFIXES = (".has", ".txt", ".json", ".jsonl", ".tatham", ".url")

FORMATS = ("codingame", "grid", "has", "tatham", "puzzlink", "json", "jsonl")
WRITE_FORMATS = ("codingame", "grid", "has", "tatham", "puzzlink", "json")
SOLUTION_FORMATS = ("codingame", "json")

#: The widest and tallest grid read (times ``--max-size``), checked before anything is
#: allocated: above the largest published sets (Coelho et al.'s 34x34 with 400 islands) and
#: the largest grid ``generate hashi`` makes (200x200).
MAX_SIDE = 200


@dataclass
class HashiRecord:
    """A puzzle as read, with the reference solution shipped beside it, if any."""

    puzzle: Puzzle
    name: str
    solution: list[BridgeLine] | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SolutionLine:
    """One bridge of a solution read from a file, with where each of its five numbers was."""

    bridge: BridgeLine
    line: int | None = None
    cols: tuple[int, ...] = ()


_PUZZLINK_RE = re.compile(r"(?:^|[?/])(hashi|hashikake|bridges)/(\d+)/(\d+)/([^\s/?#&]*)",
                          re.ASCII)
_TATHAM_RE = re.compile(r"^(\d+)x(\d+)([^:\s]*):(\S*)$", re.ASCII)


def _ascii_int(token: str) -> bool:
    return token.isascii() and token.isdigit()


def _check_dims(width: int, height: int, line: int | None = 1, col: int | None = 1) -> None:
    """Refuse a grid beyond :data:`MAX_SIDE` (times ``--max-size``) before allocating it."""
    check_size(width, MAX_SIDE, "the width", line=line, col=col)
    check_size(height, MAX_SIDE, "the height", line=line, col=col)


# -- detection ----------------------------------------------------------------------------

def detect_format(text: str) -> str:
    """Name the puzzle format of ``text`` (one of :data:`FORMATS`), or raise InputError."""
    s = text.strip()
    if not s:
        raise InputError("empty input; expected a Hashi puzzle")
    if s[0] in "{[":
        lines = [ln for ln in s.splitlines() if ln.strip()]
        if len(lines) > 1 and all(ln.lstrip().startswith("{") and ln.rstrip().endswith("}")
                                  for ln in lines):
            try:
                json.loads(lines[0])
                return "jsonl"
            except (ValueError, RecursionError):  # the reader then says what is wrong
                pass
        return "json"
    if _PUZZLINK_RE.search(s) and "\n" not in s:
        return "puzzlink"
    if _TATHAM_RE.match(s):
        return "tatham"
    lines = [ln.strip() for ln in s.splitlines() if ln.strip()]
    first = lines[0].split()
    if len(first) == 3 and all(t.isdigit() for t in first):  # the reader checks each digit
        return "has"
    is_grid = all(re.fullmatch(r"[.0-9A-G?]+", ln) for ln in lines)
    if len(first) == 1 and first[0].isdigit():
        # CodinGame's header is two integers; a one-column grid may start with a digit too
        if len(lines) > 1 and _ascii_int(lines[1]) and len(lines[1]) < 10 and (
                len(lines) == 2 + int(lines[1]) or any(len(ln) > 1 for ln in lines)):
            return "codingame"
        if not is_grid:
            return "codingame"  # let the CodinGame reader say what is wrong with the header
    if is_grid:
        return "grid"
    raise InputError("cannot tell the format: expected CodinGame input (width, height, rows), "
                     "a .has file, a Tatham game ID, a puzz.link URL or JSON", line=1, col=1)


# -- readers ------------------------------------------------------------------------------

def read_puzzles(text: str, source: str = "<string>", fmt: str | None = None,
                 max_bridges: int | None = None) -> list[HashiRecord]:
    """Read every puzzle in ``text``. ``fmt`` defaults to :func:`detect_format`.

    ``max_bridges`` overrides the format's default where the format does not say (CodinGame,
    grid, .has, puzz.link: 2).
    """
    try:
        if fmt is None or fmt in ("tatham", "puzzlink"):
            many = _one_id_a_line(text, fmt)
            if many is not None:
                return [rec for k, (ln, t) in enumerate(many, start=1)
                        for rec in _read_id_line(t, source, ln, k, fmt, max_bridges)]
        fmt = fmt or detect_format(text)
        if fmt not in FORMATS:
            raise InputError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
        if fmt == "jsonl":
            return _read_jsonl(text, source, max_bridges)
        if fmt == "json":
            return [_read_json(text, source, max_bridges)]
        reader = {"codingame": _read_codingame, "grid": _read_grid, "has": _read_has,
                  "tatham": _read_tatham, "puzzlink": _read_puzzlink}[fmt]
        puzzle = reader(text, max_bridges)
        name = source if source not in ("<argument>", "<string>") else text.strip()[:60]
        return [HashiRecord(_named(puzzle, name), name)]
    except InputError as exc:
        raise exc.located(source) from None


def _one_id_a_line(text: str, fmt: str | None) -> list[tuple[int, str]] | None:
    """The lines of a file holding several Tatham game IDs or puzz.link URLs, one a line
    (what ``generate hashi --format tatham`` writes), or None when it is not such a file."""
    lines = _content_lines(text)
    if len(lines) < 2:
        return None
    if all(_TATHAM_RE.match(t) or (_PUZZLINK_RE.search(t) and " " not in t) for _, t in lines):
        return lines
    return None


def _read_id_line(line_text: str, source: str, line: int, k: int, fmt: str | None,
                  max_bridges: int | None) -> list[HashiRecord]:
    kind = fmt or ("tatham" if _TATHAM_RE.match(line_text) else "puzzlink")
    reader = _read_tatham if kind == "tatham" else _read_puzzlink
    try:
        puzzle = reader(line_text, max_bridges)
    except InputError as exc:
        raise InputError(exc.message, source, line, exc.col) from None
    name = f"{source}#{k}"
    return [HashiRecord(_named(puzzle, name), name)]


def read_instances(text: str, source: str = "<string>", fmt: str | None = None,
                   max_bridges: int | None = None) -> list:
    """The registry's reader: every puzzle in ``text`` as :class:`puzzleproof.instance.Loaded`
    (name, puzzle, reference solution)."""
    from puzzleproof.instance import Loaded

    return [Loaded(r.name, r.puzzle, r.solution)
            for r in read_puzzles(text, source, fmt, max_bridges)]


def _named(p: Puzzle, name: str) -> Puzzle:
    return Puzzle(p.width, p.height, p.islands, p.max_bridges, name)


def _content_lines(text: str) -> list[tuple[int, str]]:
    """Non-empty lines with their 1-based numbers, trailing space and CR removed."""
    return [(i + 1, ln.rstrip()) for i, ln in enumerate(text.splitlines()) if ln.strip()]


def _int_at(token: str, line: int, col: int, what: str) -> int:
    return parse_int(token, what, line=line, col=col)


def _tokens(line_text: str) -> list[tuple[str, int]]:
    """Whitespace-separated tokens with their 1-based columns."""
    return [(m.group(), m.start() + 1) for m in re.finditer(r"\S+", line_text)]


def _rows_to_puzzle(rows: list[tuple[int, int, str]], width: int, max_bridges: int) -> Puzzle:
    """Rows as ``(line, first_col, text)``; errors carry line and column of the bad cell."""
    islands = []
    for y, (ln, col0, row) in enumerate(rows):
        if len(row) != width:
            raise InputError(f"row {y + 1} has {len(row)} cells, expected {width} "
                             "(the grid must be rectangular)", line=ln,
                             col=col0 + min(len(row), width))
        for x, ch in enumerate(row):
            if ch == ".":
                continue
            try:
                clue = clue_from_char(ch)
            except InputError as exc:
                raise exc.located(line=ln, col=col0 + x) from None
            if clue is not None and not 1 <= clue <= 4 * max_bridges:
                raise InputError(f"clue {ch} out of range: expected 1 to {4 * max_bridges} "
                                 f"with at most {max_bridges} bridges per pair", line=ln,
                                 col=col0 + x)
            islands.append(Island(x, y, clue))
    return Puzzle(width, len(rows), tuple(islands), max_bridges)


def _read_codingame(text: str, max_bridges: int | None) -> Puzzle:
    lines = _content_lines(text)
    if len(lines) < 2:
        raise InputError("expected the width and the height on the first two lines",
                         line=len(lines) + 1, col=1)
    (lw, wt), (lh, ht) = lines[0], lines[1]
    width = _int_at(wt.strip(), lw, 1, "the width")
    height = _int_at(ht.strip(), lh, 1, "the height")
    if width < 1 or height < 1:
        raise InputError(f"width and height must be positive, found {width} and {height}",
                         line=lw, col=1)
    _check_dims(width, height, lw, 1)
    rows = [(ln, 1 + len(t) - len(t.lstrip()), t.strip()) for ln, t in lines[2:]]
    if len(rows) != height:
        last = lines[-1][0]
        raise InputError(f"expected {height} grid rows after the header, found {len(rows)}",
                         line=last + (1 if len(rows) < height else 0), col=1)
    return _rows_to_puzzle(rows, width, max_bridges or 2)


def _read_grid(text: str, max_bridges: int | None) -> Puzzle:
    rows = [(ln, 1 + len(t) - len(t.lstrip()), t.strip()) for ln, t in _content_lines(text)]
    if not rows:
        raise InputError("empty input; expected the rows of a Hashi grid", line=1, col=1)
    _check_dims(len(rows[0][2]), len(rows), rows[0][0], 1)
    return _rows_to_puzzle(rows, len(rows[0][2]), max_bridges or 2)


def _read_has(text: str, max_bridges: int | None) -> Puzzle:
    lines = _content_lines(text)
    head = _tokens(lines[0][1])
    if len(head) != 3:
        raise InputError(f"expected 'rows cols islands' on the first line, found "
                         f"{len(head)} numbers", line=lines[0][0], col=1)
    nrows, ncols, nisl = (_int_at(t, lines[0][0], c, w)
                          for (t, c), w in zip(head, ("rows", "columns", "the island count")))
    if nrows < 1 or ncols < 1:
        raise InputError(f"rows and columns must be positive, found {nrows} and {ncols}",
                         line=lines[0][0], col=1)
    _check_dims(ncols, nrows, lines[0][0], 1)
    body = lines[1:]
    if len(body) != nrows:
        raise InputError(f"expected {nrows} grid rows, found {len(body)}",
                         line=(body[-1][0] + 1) if body else lines[0][0] + 1, col=1)
    m = max_bridges or 2
    islands = []
    for y, (ln, t) in enumerate(body):
        toks = _tokens(t)
        if len(toks) != ncols:
            raise InputError(f"row {y + 1} has {len(toks)} numbers, expected {ncols} "
                             "(the grid must be rectangular)", line=ln,
                             col=toks[min(len(toks), ncols) - 1][1] if toks else 1)
        for x, (tok, col) in enumerate(toks):
            v = _int_at(tok, ln, col, "a clue or 0")
            if v == 0:
                continue
            if not 1 <= v <= 4 * m:
                raise InputError(f"clue {v} out of range: expected 0 (water) or 1 to {4 * m}",
                                 line=ln, col=col)
            islands.append(Island(x, y, v))
    if len(islands) != nisl:
        raise InputError(f"the header announces {nisl} islands but the grid has "
                         f"{len(islands)}", line=lines[0][0], col=head[2][1])
    return Puzzle(ncols, nrows, tuple(islands), m)


def _read_tatham(text: str, max_bridges: int | None) -> Puzzle:
    s = text.strip()
    m = _TATHAM_RE.match(s)
    if not m:
        raise InputError("expected a Tatham game ID 'WxHm2:<desc>'", line=1, col=1)
    width = parse_int(m.group(1), "the width", line=1, col=1)
    height = parse_int(m.group(2), "the height", line=1, col=m.start(2) + 1)
    params, desc = m.group(3), m.group(4)
    mb = re.search(r"m(\d+)", params, re.ASCII)
    maxb = max_bridges or (parse_int(mb.group(1), "the most bridges per pair", line=1,
                                     col=m.start(3) + mb.start(1) + 1) if mb else 2)
    if not 1 <= maxb <= 4:
        raise InputError(f"max bridges m{maxb} out of range: expected m1 to m4", line=1,
                         col=len(m.group(1)) + len(m.group(2)) + 2 + (mb.start() if mb else 0))
    if width < 1 or height < 1:
        raise InputError(f"size must be positive, found {width}x{height}", line=1, col=1)
    _check_dims(width, height)
    offset = m.start(4) + 1
    islands, pos, total = [], 0, width * height
    for i, ch in enumerate(desc):
        if pos >= total:
            raise InputError(f"description runs past the {width}x{height} grid", line=1,
                             col=offset + i)
        if "a" <= ch <= "z":
            pos += ord(ch) - ord("a") + 1
            if pos > total:
                raise InputError(f"a run of water runs past the {width}x{height} grid",
                                 line=1, col=offset + i)
            continue
        if ch.isdigit() and ch != "0" or "A" <= ch <= "G":
            clue = clue_from_char(ch)
            if clue > 4 * maxb:  # type: ignore[operator]
                raise InputError(f"clue {clue} out of range: expected 1 to {4 * maxb} with m{maxb}",
                                 line=1, col=offset + i)
            islands.append(Island(pos % width, pos // width, clue))
            pos += 1
            continue
        raise InputError(f"expected a clue (1-9, A-G) or a water run (a-z), found {ch!r}",
                         line=1, col=offset + i)
    if pos != total:
        raise InputError(f"description covers {pos} cells, expected {total} "
                         f"({width}x{height})", line=1, col=offset + len(desc))
    return Puzzle(width, height, tuple(islands), maxb)


def _read_puzzlink(text: str, max_bridges: int | None) -> Puzzle:
    s = text.strip()
    m = _PUZZLINK_RE.search(s)
    if not m:
        raise InputError("expected a puzz.link URL 'p?hashi/<cols>/<rows>/<body>'", line=1, col=1)
    cols = parse_int(m.group(2), "the number of columns", line=1, col=m.start(2) + 1)
    rows = parse_int(m.group(3), "the number of rows", line=1, col=m.start(3) + 1)
    body = m.group(4)
    if cols < 1 or rows < 1:
        raise InputError(f"size must be positive, found {cols}x{rows}", line=1, col=m.start(2) + 1)
    _check_dims(cols, rows, 1, m.start(2) + 1)
    maxb = max_bridges or 2
    offset = m.start(4) + 1
    islands, pos, i, total = [], 0, 0, cols * rows
    while i < len(body):
        ch, col = body[i], offset + i
        if pos >= total:
            raise InputError(f"body runs past the {cols}x{rows} grid", line=1, col=col)
        if ch in "0123456789abcdef":
            clue: int | None = int(ch, 16)
            i += 1
        elif ch == "-":
            digits = body[i + 1:i + 3]
            if not re.fullmatch(r"[0-9a-f]{2}", digits):
                raise InputError(f"expected two hex digits after '-', found {digits!r}",
                                 line=1, col=col + 1)
            clue = int(digits, 16)
            i += 3
        elif ch == ".":
            clue = None
            i += 1
        elif "g" <= ch <= "z":
            pos += int(ch, 36) - 15
            if pos > total:
                raise InputError(f"a run of empty cells runs past the {cols}x{rows} grid",
                                 line=1, col=col)
            i += 1
            continue
        else:
            raise InputError(f"expected a hex clue, '-hh', '.' or a run g-z, found {ch!r}",
                             line=1, col=col)
        if clue is not None and not 1 <= clue <= 4 * maxb:
            raise InputError(f"clue {clue} out of range: expected 1 to {4 * maxb}", line=1, col=col)
        islands.append(Island(pos % cols, pos // cols, clue))
        pos += 1
    # puzz.link bodies may stop early: the cells after the last code are empty.
    return Puzzle(cols, rows, tuple(islands), maxb)


def _record_from_obj(obj: Any, source: str, line: int | None, idx: int,
                     max_bridges: int | None) -> HashiRecord:
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object for a puzzle, found {type(obj).__name__}",
                         line=line)
    name = str(obj.get("name") or obj.get("id")
               or (f"{source}#{idx + 1}" if line is not None else source))
    meta = {k: v for k, v in obj.items() if k not in ("grid", "islands", "solution")}
    try:
        if "grid" in obj or "islands" in obj:
            maxb = max_bridges or json_int(obj.get("max_bridges", 2), "'max_bridges'", 1, 4)
            for key in ("width", "height"):
                if key in obj:
                    check_size(json_int(obj[key], f"'{key}'", 1), MAX_SIDE, f"'{key}'")
            if "grid" in obj:
                grid = obj["grid"]
                if not (isinstance(grid, list) and grid and all(isinstance(r, str) for r in grid)):
                    raise InputError("'grid' must be a non-empty list of strings")
                _check_dims(len(grid[0]), len(grid), line, None)
                rows = [(line or 0, 1, r) for r in grid]
                width = len(grid[0])
                try:
                    puzzle = _rows_to_puzzle(rows, width, maxb)
                except InputError as exc:
                    raise InputError(f"in 'grid': {exc.message}"
                                     + (f" (column {exc.col})" if line is None and exc.col else ""),
                                     line=line) from None
            else:
                isl = obj["islands"]
                if not isinstance(isl, list) or not all(
                        isinstance(t, list) and len(t) == 3 for t in isl):
                    raise InputError("'islands' must be a list of [x, y, clue]")
                for key in ("width", "height"):
                    if key not in obj:
                        raise InputError(f"an 'islands' list needs '{key}'")
                puzzle = Puzzle(obj["width"], obj["height"],
                                tuple(Island(json_int(x, f"islands[{k}]'s x", 0),
                                             json_int(y, f"islands[{k}]'s y", 0),
                                             None if c is None else
                                             json_int(c, f"islands[{k}]'s clue", 1))
                                      for k, (x, y, c) in enumerate(isl)), maxb)
            for key in ("width", "height"):
                if key in obj and obj[key] != getattr(puzzle, key):
                    raise InputError(f"'{key}' is {obj[key]} but the grid's is "
                                     f"{getattr(puzzle, key)}")
        elif "game_id" in obj:
            if not isinstance(obj["game_id"], str):
                raise InputError("'game_id' must be a string (a Tatham game ID)")
            puzzle = _read_tatham(obj["game_id"], max_bridges)
        else:
            raise InputError("expected a 'grid', 'islands' or 'game_id' field")
        solution = None
        if obj.get("solution") is not None:
            solution = [s.bridge for s in _solution_from_json(obj["solution"], line)]
    except InputError as exc:
        raise exc.located(source, line) from None
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"malformed puzzle object: {exc}", source, line) from None
    return HashiRecord(_named(puzzle, name), name, solution, meta)


def _read_json(text: str, source: str, max_bridges: int | None) -> HashiRecord:
    obj = load_json(text, source)
    return _record_from_obj(obj, source, None, 0, max_bridges)


def _read_jsonl(text: str, source: str, max_bridges: int | None) -> list[HashiRecord]:
    out = []
    for ln, t in _content_lines(text):
        obj = load_json(t, source, ln - 1)
        out.append(_record_from_obj(obj, source, ln, len(out), max_bridges))
    return out


# -- writers ------------------------------------------------------------------------------

def write_puzzle(puzzle: Puzzle, fmt: str, solution: Sequence[BridgeLine] | None = None) -> str:
    """Write ``puzzle`` in ``fmt`` (one of :data:`WRITE_FORMATS`); raise if it cannot hold it."""
    if fmt == "json":
        obj: dict[str, Any] = {"type": "hashi", "width": puzzle.width, "height": puzzle.height,
                               "max_bridges": puzzle.max_bridges, "grid": puzzle.to_rows()}
        if puzzle.name:
            obj["name"] = puzzle.name
        if solution is not None:
            obj["solution"] = [list(b) for b in solution]
        return json.dumps(obj) + "\n"
    if any(i.clue is None for i in puzzle.islands) and fmt != "puzzlink":
        raise InputError(f"the {fmt} format cannot hold an island without a clue")
    if fmt in ("codingame", "grid", "has"):
        if puzzle.max_bridges != 2 or any(i.clue > 9 for i in puzzle.islands):  # type: ignore
            raise InputError(f"the {fmt} format holds only puzzles with at most 2 bridges per "
                             f"pair (this one allows {puzzle.max_bridges})")
        rows = puzzle.to_rows()
        if fmt == "grid":
            return "\n".join(rows) + "\n"
        if fmt == "codingame":
            return f"{puzzle.width}\n{puzzle.height}\n" + "\n".join(rows) + "\n"
        lines = [f"{puzzle.height} {puzzle.width} {len(puzzle.islands)}"]
        for r in rows:
            lines.append(" ".join(f"{0 if c == '.' else int(c):2d}" for c in r) + " ")
        return "\n".join(lines) + "\n"
    if fmt == "tatham":
        desc, run = [], 0
        for r in puzzle.to_rows():
            for ch in r:
                if ch == ".":
                    run += 1
                    if run == 26:
                        desc.append("z")
                        run = 0
                    continue
                if run:
                    desc.append(chr(ord("a") + run - 1))
                    run = 0
                desc.append(ch)
        if run:
            desc.append(chr(ord("a") + run - 1))
        return f"{puzzle.width}x{puzzle.height}m{puzzle.max_bridges}:{''.join(desc)}"
    if fmt == "puzzlink":
        if puzzle.max_bridges != 2:
            raise InputError("puzz.link's hashi holds only puzzles with at most 2 bridges per pair")
        body, run = [], 0
        clues = {(i.x, i.y): i.clue for i in puzzle.islands}
        for y in range(puzzle.height):
            for x in range(puzzle.width):
                if (x, y) not in clues:
                    run += 1
                    if run == 20:
                        body.append("z")
                        run = 0
                    continue
                if run:
                    body.append(_b36(run + 15))
                    run = 0
                c = clues[(x, y)]
                body.append("." if c is None else format(c, "x") if c < 16 else f"-{c:02x}")
        if run:
            body.append(_b36(run + 15))
        return f"https://puzz.link/p?hashi/{puzzle.width}/{puzzle.height}/{''.join(body)}"
    raise InputError(f"unknown format {fmt!r}; expected one of {', '.join(WRITE_FORMATS)}")


def _b36(v: int) -> str:
    return "0123456789abcdefghijklmnopqrstuvwxyz"[v]


# -- solutions ----------------------------------------------------------------------------

def _solution_from_json(data: Any, line: int | None = None) -> list[SolutionLine]:
    if isinstance(data, dict):
        data = data.get("solution", data.get("answer"))
    if not isinstance(data, list):
        raise InputError("expected a list of [x1, y1, x2, y2, n] bridges", line=line)
    out = []
    for k, b in enumerate(data):
        if not (isinstance(b, list) and len(b) == 5
                and all(isinstance(v, int) and not isinstance(v, bool) for v in b)):
            raise InputError(f"bridge {k + 1}: expected [x1, y1, x2, y2, n] of integers, "
                             f"found {json.dumps(b)}", line=line)
        out.append(SolutionLine(tuple(b), line))  # type: ignore[arg-type]
    return out


def read_solution(text: str, source: str = "<string>") -> list[SolutionLine]:
    """Read a solution: CodinGame's ``x1 y1 x2 y2 n`` lines, or JSON."""
    s = text.strip()
    try:
        if s.startswith(("[", "{")):
            return _solution_from_json(load_json(text, source))
        out = []
        for ln, t in _content_lines(text):
            if t.lstrip().startswith("#"):
                continue
            toks = _tokens(t)
            if len(toks) != 5:
                raise InputError(f"expected 'x1 y1 x2 y2 n' (5 integers), found {len(toks)} "
                                 f"field{'' if len(toks) == 1 else 's'}", line=ln,
                                 col=toks[min(len(toks), 5) - 1][1] if toks else 1)
            vals = tuple(_int_at(tok, ln, col, name) for (tok, col), name in
                         zip(toks, ("x1", "y1", "x2", "y2", "the number of bridges")))
            out.append(SolutionLine(vals, ln, tuple(c for _, c in toks)))  # type: ignore[arg-type]
        return out
    except InputError as exc:
        raise exc.located(source) from None


def write_solution(lines: Sequence[BridgeLine], fmt: str = "codingame") -> str:
    if fmt == "json":
        return json.dumps([list(b) for b in lines]) + "\n"
    if fmt == "codingame":
        return "".join(f"{x1} {y1} {x2} {y2} {n}\n" for x1, y1, x2, y2, n in lines)
    raise InputError(f"unknown solution format {fmt!r}; expected one of "
                     f"{', '.join(SOLUTION_FORMATS)}")


# -- pictures -----------------------------------------------------------------------------

#: bridge glyphs by count (1..4); 3 and 4 bridges (Tatham's m3/m4 variants) get shapes of
#: their own that no clue uses: in ASCII, clue digits and bridge marks never share a character
_GLYPHS = {True: {"h": ("─", "═", "≡", "≣"), "v": ("│", "║", "⦀", "┋")},
           False: {"h": ("-", "=", "#", "%"), "v": ("|", '"', "#", "%")}}
_LEGEND = {True: ("≡ ⦀ 3 bridges", "≣ ┋ 4 bridges"), False: ("# 3 bridges", "% 4 bridges")}


def render_ascii(puzzle: Puzzle, solution: Sequence[BridgeLine] | None = None,
                 unicode: bool = True) -> str:
    """Draw the puzzle (and a solution) as text, one character cell per grid cell and gap.

    Cells sit on even columns and rows; the gaps between them show bridges between adjacent
    islands. Single and double bridges are ``─ ═`` and ``│ ║`` (``- =`` and ``| "`` with
    ``unicode=False``); 3 and 4 bridges (Tatham's m3/m4) are ``≡ ⦀`` and ``≣ ┋`` (``#`` and
    ``%`` in ASCII, never a digit that reads like a clue), and a legend line under the
    picture names them whenever they appear.
    """
    W, H = 2 * puzzle.width - 1, 2 * puzzle.height - 1
    canvas = [[" "] * W for _ in range(H)]
    for y in range(puzzle.height):
        for x in range(puzzle.width):
            canvas[2 * y][2 * x] = "·" if unicode else "."
    glyph = _GLYPHS[unicode]
    heavy: set[int] = set()
    for x1, y1, x2, y2, n in solution or ():
        k = max(1, min(n, 4)) - 1
        if k >= 2:
            heavy.add(k)
        if y1 == y2:
            for cx in range(2 * min(x1, x2) + 1, 2 * max(x1, x2)):
                canvas[2 * y1][cx] = glyph["h"][k]
        elif x1 == x2:
            for cy in range(2 * min(y1, y2) + 1, 2 * max(y1, y2)):
                canvas[cy][2 * x1] = glyph["v"][k]
    for isl in puzzle.islands:
        canvas[2 * isl.y][2 * isl.x] = clue_to_char(isl.clue)
    text = "\n".join("".join(r).rstrip() for r in canvas) + "\n"
    if heavy:
        text += "(" + ", ".join(_LEGEND[unicode][k - 2] for k in sorted(heavy)) + ")\n"
    return text


def render_svg(puzzle: Puzzle, solution: Sequence[BridgeLine] | None = None,
               title: str | None = None, cell: int = 36) -> str:
    """An SVG picture of the puzzle with its bridges (double bridges as two parallel lines)."""
    pad = cell // 2
    w, h = puzzle.width * cell + 2 * pad, puzzle.height * cell + 2 * pad

    def centre(x: int, y: int) -> tuple[float, float]:
        return pad + x * cell + cell / 2, pad + y * cell + cell / 2

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'viewBox="0 0 {w} {h}" font-family="sans-serif">']
    if title:
        out.append(f"<title>{html.escape(title)}</title>")
    out.append(f'<rect width="{w}" height="{h}" fill="#f4f8fb"/>')
    out.append('<g stroke="#dde6ee" stroke-width="1">')
    for x in range(puzzle.width):
        cx, _ = centre(x, 0)
        out.append(f'<line x1="{cx}" y1="{pad}" x2="{cx}" y2="{h - pad}"/>')
    for y in range(puzzle.height):
        _, cy = centre(0, y)
        out.append(f'<line x1="{pad}" y1="{cy}" x2="{w - pad}" y2="{cy}"/>')
    out.append("</g>")
    out.append('<g stroke="#1f4e79" stroke-width="2.5" stroke-linecap="round">')
    gap = cell / 9
    for x1, y1, x2, y2, n in solution or ():
        ax, ay = centre(x1, y1)
        bx, by = centre(x2, y2)
        horizontal = y1 == y2
        for j in range(n):
            off = (j - (n - 1) / 2) * gap
            dx, dy = (0, off) if horizontal else (off, 0)
            out.append(f'<line x1="{ax + dx:.1f}" y1="{ay + dy:.1f}" x2="{bx + dx:.1f}" '
                       f'y2="{by + dy:.1f}"/>')
    out.append("</g>")
    r = cell * 0.36
    for isl in puzzle.islands:
        cx, cy = centre(isl.x, isl.y)
        out.append(f'<circle cx="{cx}" cy="{cy}" r="{r:.1f}" fill="white" stroke="#1f4e79" '
                   'stroke-width="2"/>')
        label = "?" if isl.clue is None else str(isl.clue)
        out.append(f'<text x="{cx}" y="{cy}" text-anchor="middle" dominant-baseline="central" '
                   f'font-size="{cell * 0.42:.0f}" fill="#102a43">{label}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
