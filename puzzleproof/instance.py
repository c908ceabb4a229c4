"""What a reader returns: one instance as read from a file, a record of a set or a string.

Every puzzle's reader (``formats/*.read_instances``) returns a list of :class:`Loaded`, and
every verb and the Python API work on them; it sits at the bottom of the layers so that the
readers need nothing above them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Loaded"]


@dataclass
class Loaded:
    """One instance as read: a name (file, or ``file#record``), the model instance, and the
    reference answer shipped with it, if any (a Hashi set's solution, a city map's published
    orders, a Death Run graph's evidence)."""

    name: str
    instance: Any
    reference: Any = None
