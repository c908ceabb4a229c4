"""What a person sees of Skynet Revolution: the report's drawings of lost games."""

from __future__ import annotations

import json
from typing import Any

from puzzleproof.errors import InputError
from puzzleproof.formats.document import Figure, Section

#: lost games drawn at most in a report
MAX_DRAWN = 12


def draw_game(d: dict, k: Any) -> list[Any]:
    rec = (d.get("evidence") or {}).get("record")
    if not isinstance(rec, dict):
        return []
    from puzzleproof.formats.skynet import record_from_json, render_svg

    try:
        game = record_from_json(json.dumps(rec))
    except InputError as exc:
        return [f"(the game record cannot be drawn: {exc})"]
    return [Figure(f"disagreement-{k}", "svg", render_svg(game.map, game),
                   f"{d['methods'][0]} against the worst-case agent: cut links dashed and "
                   f"numbered by turn, the agent's winning line in blue ({game.reason})")]

def game_of(answer: Any) -> dict | None:
    """The game record in a Skynet record's answer (a referee batch's game, or the game a
    bot lost against the worst-case agent)."""
    if isinstance(answer, dict):
        if answer.get("type") == "skynet-game":
            return answer
        rec = answer.get("record")
        if isinstance(rec, dict) and rec.get("type") == "skynet-game":
            return rec
    return None



def draw_disagreement(d: dict, recs: list[dict], inst: Any, k: int) -> list[Any]:
    return draw_game(d, k)


def lost_games(recs: list[dict], found: Any) -> list[Any]:
    """Referee batches and bots against the agent: the games lost, drawn (those a
    disagreement already draws left out)."""
    records = [r for r in recs if r["type"] == "record"]
    disagreements = [r for r in recs if r["type"] == "disagreement"]
    drawn = {(d["instance"], d["methods"][0]) for d in disagreements[:24] if d["methods"]}
    lost = [(r, g) for r in records for g in [game_of(r.get("answer"))]
            if g is not None and g.get("result") == "LOSS"
            and (r["instance"], r["method"]) not in drawn]
    if not lost:
        return []
    sec = Section("Lost games", [f"{len(lost)} more game(s) lost by a bot"
                                 + (f"; the first {MAX_DRAWN} drawn"
                                    if len(lost) > MAX_DRAWN else "") + "."])
    for k, (r, g) in enumerate(lost[:MAX_DRAWN]):
        sec.blocks.append(f"### {r['instance']}: {r['method']}")
        try:
            sec.blocks += draw_game({"evidence": {"record": g}, "methods": [r["method"]]},
                                    f"lost-{k}")
        except Exception as exc:  # noqa: BLE001 - a drawing never ends the report
            sec.blocks.append(f"(the game cannot be drawn: {type(exc).__name__}: {exc})")
    return [sec]
