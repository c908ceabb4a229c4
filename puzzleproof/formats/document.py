"""What a report is made of: sections of paragraphs, tables and figures (SVG text or PNG
bytes), written out as HTML or Markdown by :mod:`puzzleproof.report`. The puzzles' plugins
build their sections from these, so the report itself knows no puzzle."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Figure", "Table", "Text", "Section", "Report", "png", "subplots"]


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
class Text:
    """Text shown as it is, line for line (a program's stderr, a map file)."""

    text: str
    caption: str = ""


@dataclass
class Section:
    title: str
    blocks: list[Any] = field(default_factory=list)  # str (a paragraph), Table, Text, Figure


@dataclass
class Report:
    title: str
    intro: list[str]
    sections: list[Section]


def subplots(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
    """A new matplotlib figure and its axes (``subplots(nrows, ncols, figsize=...)`` as
    pyplot's), drawn on its own canvas: no pyplot, no change of the back end a notebook user
    chose, nothing kept in pyplot's figure list."""
    try:
        from matplotlib.figure import Figure as MplFigure
    except ImportError:
        from puzzleproof.errors import PuzzleproofError

        raise PuzzleproofError("pictures in PNG and plots need matplotlib, which is not "
                               "installed (pip install matplotlib); write .svg instead") \
            from None
    size = kwargs.pop("figsize", None)
    fig = MplFigure(figsize=size)
    return fig, fig.subplots(*args, **kwargs)


def png(fig: Any) -> bytes:
    """A matplotlib figure as PNG bytes."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    return buf.getvalue()
