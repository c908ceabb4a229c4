"""What a report is made of: sections of paragraphs, tables and figures (SVG text or PNG
bytes), written out as HTML or Markdown by :mod:`puzzleproof.report`. The puzzles' plugins
build their sections from these, so the report itself knows no puzzle."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Figure", "Table", "Section", "Report", "png", "pyplot"]


@dataclass
class Figure:
    name: str  # a file name without extension
    kind: str  # "svg" (text) or "png" (bytes)
    data: Any
    caption: str = ""


@dataclass
class Table:
    headers: list[str]
    rows: list[list[Any]]
    caption: str = ""


@dataclass
class Section:
    title: str
    blocks: list[Any] = field(default_factory=list)  # str (a paragraph), Table, Figure


@dataclass
class Report:
    title: str
    intro: list[str]
    sections: list[Section]


def pyplot():
    """matplotlib's pyplot on the Agg back end (no display here)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def png(fig) -> bytes:
    """A matplotlib figure as PNG bytes (the figure is closed)."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()
