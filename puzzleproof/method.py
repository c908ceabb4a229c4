"""What a method is: a named way to answer an instance, exact, heuristic or external.

One type for every place that runs methods: a puzzle plugin lists its methods as
:class:`Method` objects, ``solve`` runs the one named, the cross-check harness runs several
side by side (in worker processes: a method is picklable when its ``run`` is a
``"module:function"`` string or a top-level function), and a user's program becomes a method
of kind ``external``.

Example:
    >>> m = Method("half", "heuristic", "halves a number", run=lambda x, *, deadline, k=2: x / k,
    ...            options=("k",))
    >>> m(10), m.bind({"k": 5, "other": 1})(10)
    (5.0, 2.0)
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, replace
from typing import Any, Mapping

from puzzleproof.clock import Deadline

__all__ = ["KINDS", "Method", "load_ref", "seconds_run"]

#: what a method's answers are worth: ``exact`` methods prove them, ``heuristic`` ones and
#: ``external`` programs (a user's solver or bot) are judged
KINDS = ("exact", "heuristic", "external")


def load_ref(ref: Any) -> Any:
    """``"package.module:attribute"`` imported (anything else passes through), so that a
    method or plugin names its heavy functions without importing them before they run."""
    if not isinstance(ref, str):
        return ref
    module, _, attr = ref.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class Method:
    """A way to answer an instance, found by name.

    ``run(instance, *, deadline, **options)`` returns the answer (a
    :class:`~puzzleproof.result.Result`); it may be a ``"module:function"`` string, imported
    on first call. ``options`` names the keyword options it takes; :meth:`bind` fixes their
    values from a verb's option values, and a call passes them on with one
    :class:`~puzzleproof.clock.Deadline` that bounds everything the method does for the
    instance. ``effort`` is the statistic a cross-check table summarises as effort."""

    name: str
    kind: str
    summary: str = ""
    run: Any = None
    options: tuple[str, ...] = ()
    effort: str | None = None
    bound: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"method {self.name!r}: kind {self.kind!r} is not one of "
                             f"{', '.join(KINDS)}")

    @property
    def exact(self) -> bool:
        return self.kind == "exact"

    def bind(self, values: Mapping[str, Any]) -> "Method":
        """The same method with the options it takes fixed from ``values`` (the others in
        ``values`` are not its business)."""
        fixed = dict(self.bound)
        fixed.update({k: values[k] for k in self.options if k in values})
        return replace(self, bound=tuple(sorted(fixed.items())))

    def __call__(self, instance: Any, *, deadline: Deadline | float | None = None) -> Any:
        fn = load_ref(self.run)
        return fn(instance, deadline=Deadline.of(deadline), **dict(self.bound))


def seconds_run(fn: Any) -> Any:
    """A ``run`` from a function that takes ``(instance, seconds)``: it is given the seconds
    of the task's deadline (picklable when ``fn`` is)."""
    from functools import partial

    return partial(_run_with_seconds, fn)


def _run_with_seconds(fn: Any, instance: Any, *, deadline: Deadline) -> Any:
    return load_ref(fn)(instance, deadline.limit)
