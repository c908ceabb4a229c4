"""Pictures of city maps: an SVG or PNG of the map with each city labelled by its closing
step, and the plot of the Wiener number per step of several methods (matplotlib)."""

from __future__ import annotations

import math
from typing import Sequence

from puzzleproof.models.cityclose import CityMap

__all__ = ["render_svg", "render_png", "plot_steps", "closing_steps"]


# -- pictures ------------------------------------------------------------------------------

def _layout(m: CityMap, seed: int = 1) -> list[tuple[float, float]]:
    if m.coords is not None:
        lat0 = sum(c[0] for c in m.coords) / m.n
        k = math.cos(math.radians(lat0)) if abs(lat0) <= 90 else 1.0
        return [(lng * k, -lat) for lat, lng in m.coords]
    from puzzleproof.formats.layout import layout

    pos = layout(m.n, m.links, seed=seed)
    return [(float(pos[i][0]), -float(pos[i][1])) for i in range(m.n)]


def _esc(s: str) -> str:
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def render_svg(m: CityMap, order: Sequence[str] | None = None, size: int = 720,
               seed: int = 1, title: str | None = None) -> str:
    """The map as SVG text: cities placed by their coordinates (lat/lng projected) or by a
    spring layout with a fixed seed; with ``order``, each city labelled with the step that
    closes it (cities left drawn in red). Unknown names in ``order`` are ignored. ``title``
    replaces the map's name as the heading."""
    pts = _layout(m, seed)
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    span = max(x1 - x0, y1 - y0) or 1.0
    pad = 60
    scale = (size - 2 * pad) / span
    width = int((x1 - x0) * scale + 2 * pad)
    height = int((y1 - y0) * scale + 2 * pad)

    def at(i: int) -> tuple[float, float]:
        return (pad + (pts[i][0] - x0) * scale, pad + (pts[i][1] - y0) * scale)

    step: dict[int, int] = {}
    for s, c in enumerate(order or [], start=1):
        i = m.index(c) if isinstance(c, str) else None
        if i is not None and i not in step:
            step[i] = s
    total = max(step.values(), default=0)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    if title or m.name:
        out.append(f'<text x="8" y="16" font-size="13">{_esc(title or m.name or "")}</text>')
    for u, v in m.links:
        (ax, ay), (bx, by) = at(u), at(v)
        out.append(f'<line x1="{ax:.1f}" y1="{ay:.1f}" x2="{bx:.1f}" y2="{by:.1f}" '
                   'stroke="#999" stroke-width="1.5"/>')
    for i in range(m.n):
        x, y = at(i)
        if order is None:
            fill, label = "#4477aa", m.names[i]
        elif i in step:
            t = step[i] / max(total, 1)
            fill = f"rgb({int(230 - 150 * t)},{int(230 - 120 * t)},{int(255 - 60 * t)})"
            label = f"{m.names[i]} ({step[i]})"
        else:
            fill, label = "#cc3311", f"{m.names[i]} (left)"
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="7" fill="{fill}" stroke="#333"/>')
        out.append(f'<text x="{x + 9:.1f}" y="{y - 7:.1f}">{_esc(label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def closing_steps(m: CityMap, order: Sequence[str] | None) -> dict[int, int]:
    step: dict[int, int] = {}
    for k, c in enumerate(order or [], start=1):
        i = m.index(c) if isinstance(c, str) else None
        if i is not None and i not in step:
            step[i] = k
    return step


def render_png(m: CityMap, order: Sequence[str] | None = None, seed: int = 1,
               title: str | None = None) -> bytes:
    """The picture of :func:`render_svg` as PNG bytes, drawn with matplotlib (the same
    layout, colours and labels)."""
    from puzzleproof.formats.document import subplots
    import io

    pts = _layout(m, seed)
    step = closing_steps(m, order)
    total = max(step.values(), default=0)
    fig, ax = subplots(figsize=(9, 9 * 0.75))
    for u, v in m.links:
        ax.plot([pts[u][0], pts[v][0]], [-pts[u][1], -pts[v][1]], color="#999999",
                linewidth=1.2, zorder=1)
    for i in range(m.n):
        if order is None:
            fill, label = "#4477aa", m.names[i]
        elif i in step:
            t = step[i] / max(total, 1)
            fill = ((230 - 150 * t) / 255, (230 - 120 * t) / 255, (255 - 60 * t) / 255)
            label = f"{m.names[i]} ({step[i]})"
        else:
            fill, label = "#cc3311", f"{m.names[i]} (left)"
        ax.scatter([pts[i][0]], [-pts[i][1]], s=70, color=fill, edgecolors="#333333",
                   zorder=2)
        ax.annotate(label, (pts[i][0], -pts[i][1]), xytext=(5, 5), textcoords="offset points",
                    fontsize=8, zorder=3)
    ax.set_aspect("equal", adjustable="datalim")
    ax.axis("off")
    heading = title or m.name
    if heading:
        ax.set_title(heading, fontsize=11)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight", dpi=110)
    return buf.getvalue()


def plot_steps(runs: dict[str, Sequence[int]], path: str, title: str | None = None) -> None:
    """Plot the Wiener number per step of several methods (``{method: [W_0, W_1, ...]}``) and
    the per-step advantage of each over the first (``W_first - W_method``), as the article
    does; written to ``path`` (``.png`` or ``.svg``) atomically. Needs matplotlib."""
    from puzzleproof.formats.document import subplots
    import io

    from puzzleproof.formats import write_atomic

    fmt = "svg" if str(path).lower().endswith(".svg") else "png"
    fig, ax = subplots(figsize=(8, 4.5))
    names = list(runs)
    colour = {}
    for nm in names:
        (line,) = ax.plot(range(len(runs[nm])), runs[nm], marker=".", label=nm)
        colour[nm] = line.get_color()
    ax.set_xlabel("cities closed")
    ax.set_ylabel("Wiener number")
    if len(names) > 1:
        ax2 = ax.twinx()
        base = runs[names[0]]
        for nm in names[1:]:
            adv = [a - b for a, b in zip(base, runs[nm])]
            ax2.plot(range(len(adv)), adv, linestyle="--", color=colour[nm], alpha=0.8,
                     label=f"{names[0]} - {nm}")
        ax2.axhline(0, color="#888", linewidth=0.5)
        ax2.set_ylabel("advantage (Δ Wiener)")
        ax2.legend(loc="center right")
    ax.legend(loc="upper right")
    totals = ", ".join(f"{nm} {sum(runs[nm])}" for nm in names)
    ax.set_title((title + ": " if title else "") + totals, fontsize=10)
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, bbox_inches="tight")
    write_atomic(path, buf.getvalue())
