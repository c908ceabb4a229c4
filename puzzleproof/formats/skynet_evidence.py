"""What ships beside a Skynet map file: a breaker's evidence (``NAME.evidence.json``, the
bots that lose the map and the line that beats them) and an Episode 1 cuts record
(``NAME.cuts.json``, the fewest cuts and each bot's). Both are read strictly: a side file
whose fields are not of the shape the project writes is one clear error naming the file and
the field, never an internal error.

Example (``...`` stands for the rest of a line):
    >>> check_cuts_record({"type": "skynet-ep1-cuts", "start": 1, "fewest": {"value": 2},
    ...                    "bots": {}}, "m.cuts.json")["start"]
    1
    >>> check_cuts_record({"type": "skynet-ep1-cuts", "start": 1, "fewest": "x",
    ...                    "bots": {}}, "m.cuts.json")
    Traceback (most recent call last):
    ...
    puzzleproof.errors.InputError: m.cuts.json: cuts record: "fewest" must be ...
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from puzzleproof.errors import InputError

__all__ = ["sidecar", "evidence_of", "cuts_record_of", "check_evidence", "check_cuts_record",
           "evidence_rule"]

#: the largest side file read (the shipped ones are a few kB; a breaker's games a few 100 kB)
MAX_BYTES = 20_000_000


def sidecar(path_of_map: str | None, suffix: str, kind: str, what: str) -> dict | None:
    """The record of type ``kind`` shipped beside a map file (NAME``suffix``), if any, read
    strictly (an unreadable one is an error naming it and ``what`` it is); ``"file"`` is
    added, naming where it was read."""
    from puzzleproof.formats.numbers import load_json

    name = path_of_map or ""
    candidate = Path(f"{Path(name).with_suffix('')}{suffix}")
    if not name or not candidate.is_file():
        return None
    try:
        if candidate.stat().st_size > MAX_BYTES:
            raise InputError(f"unreadable {what}: larger than {MAX_BYTES:,} bytes",
                             str(candidate))
        text = candidate.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"unreadable {what}: {exc}", str(candidate)) from None
    try:
        obj = load_json(text, str(candidate))
    except InputError as exc:
        raise InputError(f"unreadable {what}: {exc.message}", str(candidate), exc.line) from None
    if not isinstance(obj, dict) or obj.get("type") != kind:
        return None
    obj["file"] = str(candidate)
    return obj


def evidence_of(m: Any) -> dict | None:
    """The breaker evidence shipped beside a map (NAME.evidence.json), checked, if any."""
    ev = sidecar(m.name, ".evidence.json", "skynet-breaker", "evidence")
    return None if ev is None else check_evidence(ev, ev["file"])


def cuts_record_of(m: Any) -> dict | None:
    """The Episode 1 cuts record shipped beside a map (NAME.cuts.json), checked, if any."""
    rec = sidecar(m.name, ".cuts.json", "skynet-ep1-cuts", "cuts record")
    return None if rec is None else check_cuts_record(rec, rec["file"])


def _bad(source: str, what: str, message: str) -> InputError:
    return InputError(f"{what}: {message}", source)


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def check_evidence(ev: dict, source: str) -> dict:
    """A breaker's evidence whose fields the cross-check reads have their shapes."""
    what = "evidence"
    if "start" in ev and not _whole(ev["start"]):
        raise _bad(source, what, '"start" must be a whole number')
    lost_by = ev.get("lost_by", [])
    if not isinstance(lost_by, list) or not all(isinstance(b, str) for b in lost_by):
        raise _bad(source, what, '"lost_by" must be a list of bot names')
    if ev.get("rule") not in (None, "ep1", "ep2"):
        raise _bad(source, what, '"rule" must be "ep1" or "ep2"')
    if "game" in ev and not isinstance(ev["game"], dict):
        raise _bad(source, what, '"game" must be a game record (an object)')
    return ev


def _check_fewest(f: Any, source: str) -> None:
    ok = isinstance(f, dict) and (
        _whole(f.get("value")) or (f.get("value") is None and _whole(f.get("lower"))
                                   and _whole(f.get("upper"))))
    if not ok:
        raise _bad(source, "cuts record", '"fewest" must be an object with "value" (a whole '
                   'number or null), or "lower" and "upper"')


def _check_bot_row(bot: str, row: Any, source: str) -> None:
    what = f'cuts record: bot "{bot}"'
    if not isinstance(row, dict):
        raise _bad(source, what, "must be an object")
    art = row.get("article")
    if not isinstance(art, dict) or not isinstance(art.get("result"), str) or (
            art.get("result") == "WIN" and not _whole(art.get("cuts"))):
        raise _bad(source, what, '"article" must be an object with "result" (and "cuts", '
                   'a whole number, when it is WIN)')
    worst = row.get("worst")
    if not isinstance(worst, dict) or (worst.get("cuts") is not None
                                       and not _whole(worst.get("cuts"))):
        raise _bad(source, what, '"worst" must be an object whose "cuts" is a whole number '
                   'or null')
    if not _whole(worst.get("positions", 0)):
        raise _bad(source, what, '"worst.positions" must be a whole number')


def check_cuts_record(rec: dict, source: str) -> dict:
    """An Episode 1 cuts record whose fields the cross-check reads have their shapes."""
    if not _whole(rec.get("start")):
        raise _bad(source, "cuts record", '"start" must be a whole number')
    _check_fewest(rec.get("fewest"), source)
    bots = rec.get("bots", {})
    if not isinstance(bots, dict):
        raise _bad(source, "cuts record", '"bots" must be an object of bot names')
    for bot, row in bots.items():
        _check_bot_row(bot, row, source)
    return rec


def evidence_rule(ev: dict | None) -> str:
    """The rule a breaker's evidence was found under (ep2 without evidence)."""
    if not ev:
        return "ep2"
    game = ev.get("game") if isinstance(ev.get("game"), dict) else {}
    rule = ev.get("rule") or game.get("rule")
    return rule if rule in ("ep1", "ep2") else "ep2"
