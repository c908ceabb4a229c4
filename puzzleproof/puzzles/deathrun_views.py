"""What a person sees of Death Run: the report of a tournament or cross-check's games."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from puzzleproof.errors import InputError
from puzzleproof.formats.document import Figure, Section, Table

MAX_DRAWN = 24


def game_sections(recs: list[dict], path: str = "") -> list[Section]:
    from puzzleproof.formats.deathrun import graph_from_obj, render_svg
    from puzzleproof.verify.deathrun_tournament import plot_scores, summarise

    games = [r for r in recs if r["type"] == "deathrun-game"]
    summary = summarise(games)
    sections = [Section("Summary", [f"{len(games)} game(s)."])]
    for role, rows in summary.items():
        if not rows:
            continue
        keys = [k for k in rows[0] if not isinstance(rows[0][k], (list, dict))]
        sections[0].blocks.append(Table(keys, [[_fmt(row[k]) for k in keys] for row in rows],
                                        f"{role}: mean with its 95 % confidence interval"))
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scores.png"
        plot_scores(games, path)
        sections.append(Section("Score distributions", [
            Figure("scores", "png", path.read_bytes(), "Scores per bot and role")]))
    failed = [r for r in recs if r["type"] == "deathrun-game-error"]
    if failed:
        sections.append(Section("Games that failed", [Table(
            ["game", "error"], [[r.get("game_id"), r.get("error")] for r in failed])]))
    bad = [g for g in games if g.get("invalid_moves")]
    shown = bad[:MAX_DRAWN // 4] or games[:1]
    drawn = Section("Games drawn", ["Games with invalid moves are drawn; without any, the "
                                    "first game."])
    for g in shown:
        try:
            graph = graph_from_obj(g.get("graph"), None, None, "the record's graph")
        except InputError as exc:
            drawn.blocks.append(f"(game {g.get('game_id')} cannot be drawn: {exc})")
            continue
        drawn.blocks.append(Figure(f"game-{g.get('game_id')}".replace("/", "-"), "svg",
                                   render_svg(graph, g),
                                   f"game {g.get('game_id')}: each student's path in its own "
                                   "colour, raised links marked"))
    sections.append(drawn)
    return sections

def _fmt(v: Any) -> Any:
    return f"{v:.2f}" if isinstance(v, float) else v

