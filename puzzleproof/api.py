"""The Python API: the command's jobs as functions that return the same dataclasses the
command prints.

Instances may be given as model objects, or as anything the command reads (a path, a Tatham
game ID, a puzz.link URL); the puzzle is inferred through the registry when not named.

Example:
    >>> import puzzleproof
    >>> res = puzzleproof.solve("3x3m2:3a3c2a2", unique=True)
    >>> res.status.value, res.check["ok"]
    ('MULTIPLE', True)
    >>> puzzleproof.check("3x3m2:3a3c2a2", res.answer)
    []
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

from puzzleproof import puzzles as registry
from puzzleproof.errors import InputError
from puzzleproof.result import Result

__all__ = ["load", "solve", "check", "crosscheck", "generate"]


def load(source: Any, puzzle: str | None = None) -> tuple[str, list[registry.Loaded]]:
    """``(puzzle name, instances)`` from a path or literal; model objects pass through."""
    from puzzleproof.formats import read_source
    from puzzleproof.models.hashi import Puzzle
    from puzzleproof.models.skynet import SkynetMap

    if isinstance(source, Puzzle):
        return "hashi", [registry.Loaded(source.name or "puzzle", source)]
    if isinstance(source, SkynetMap):
        return "skynet", [registry.Loaded(source.name or "map", source)]
    if not isinstance(source, str):
        raise TypeError(f"expected a path, a puzzle string or a model object, found "
                        f"{type(source).__name__}")
    text, name, _ = read_source(source)
    c = registry.classify_text(text, name, puzzle)
    if not c.is_instance or c.puzzle is None:
        raise InputError(f"is {c.what}, not an instance", name)
    return c.puzzle, c.loaded


def _single(source: Any, puzzle: str | None) -> tuple[str, Any]:
    name, loaded = load(source, puzzle)
    if len(loaded) != 1:
        raise InputError(f"holds {len(loaded)} instances; expected one")
    return name, loaded[0].instance


def solve(source: Any, *, puzzle: str | None = None, method: str | None = None,
          time_limit: float | None = None, unique: bool = False, rule: str = "ep2",
          start: int | None = None, min_cuts: bool = False, **options: Any) -> Result:
    """Solve one instance exactly (or with a named heuristic); the answer is checked by
    the rules before it is returned (``Result.check``)."""
    name, inst = _single(source, puzzle)
    if name == "hashi":
        from puzzleproof.encoders import hashi_solver

        method = method or "sat"
        if method == "article":
            from puzzleproof.verify import hashi_heuristic

            return hashi_heuristic.solve(inst, time_limit=time_limit)
        return hashi_solver(method)(inst, mode="unique" if unique else "solve",
                                    time_limit=time_limit, **options)
    if name == "skynet":
        s = inst.start if start is None else start
        if s is None:
            raise InputError("the map gives no start; pass start=")
        if (method or "sat") == "explicit":
            from puzzleproof.verify.skynet_explicit import solve as esolve

            return esolve(inst, rule, s, value=min_cuts, max_nodes=None, time_limit=time_limit)
        from puzzleproof.encoders.skynet_sat import solve as ssolve

        return ssolve(inst, rule, s, value=min_cuts, time_limit=time_limit, **options)
    return registry.load_ref(f"puzzleproof.api_{name}:solve")(inst, method=method,
                                                               time_limit=time_limit, **options)


def check(source: Any, answer: Any, *, puzzle: str | None = None, **options: Any) -> list:
    """The rules an answer breaks (empty: it holds). Hashi: a solution as bridge lines;
    Skynet: a strategy certificate (dict)."""
    name, inst = _single(source, puzzle)
    if name == "hashi":
        from puzzleproof.models.hashi import check_solution

        return check_solution(inst, [tuple(x) for x in answer])
    if name == "skynet":
        from puzzleproof.verify.skynet_explicit import (check_agent_strategy,
                                                        check_player_strategy)

        rule = options.get("rule") or answer.get("rule") or "ep2"
        s = options.get("start", answer.get("start", inst.start))
        if answer.get("type") == "skynet-agent-strategy":
            return check_agent_strategy(inst, rule, s, answer)
        return check_player_strategy(inst, rule, s, answer)
    return registry.load_ref(f"puzzleproof.api_{name}:check")(inst, answer, **options)


def crosscheck(sources: Sequence[Any], *, puzzle: str | None = None,
               methods: Sequence[str] | None = None, time_limit: float | None = 60.0,
               jobs: int = 1, rule: str = "ep2"):
    """Cross-check methods on instances of one puzzle: a
    :class:`puzzleproof.verify.crosscheck.CrosscheckReport` (records, disagreements)."""
    from puzzleproof.verify.crosscheck import Instance, run_crosscheck

    loaded: list[registry.Loaded] = []
    names = set()
    for src in sources:
        n, ls = load(src, puzzle)
        names.add(n)
        loaded += ls
    if len(names) != 1:
        raise InputError(f"the instances belong to {len(names)} puzzles; cross-check one at "
                         "a time")
    name = names.pop()
    if name == "hashi":
        from puzzleproof.verify.hashi_methods import hashi_kind

        kind = hashi_kind()
        insts = [Instance(f"{ld.name}@{k}", ld.instance, ld.reference)
                 for k, ld in enumerate(loaded)]
    elif name == "skynet":
        from puzzleproof.verify.skynet_bots import BOTS
        from puzzleproof.verify.skynet_methods import game_instances, verdict_kind

        chosen = list(methods or registry.get("skynet").default_methods)
        kind = verdict_kind([m for m in chosen if m in BOTS],
                            [m for m in chosen if m not in BOTS], rule)
        maps = [ld.instance for ld in loaded]
        insts = game_instances(maps, {m.name or "": [m.start] for m in maps})
    else:
        raise InputError(f"crosscheck of {name} is not in the Python API yet; use the command")
    chosen = list(methods or registry.get(name).default_methods)
    return run_crosscheck(kind, insts, chosen, None, jobs=jobs, time_limit=time_limit)


def generate(puzzle: str, **params: Any) -> Iterator[Any]:
    """Generated instances with their evidence of hardness, as the generator yields them."""
    name = registry.get(puzzle).name
    if name == "hashi":
        from puzzleproof.generate.hashi import GenParams, generate as gen

        jobs = params.pop("jobs", 1)
        return gen(GenParams(**params), jobs=jobs)
    if name == "skynet":
        from puzzleproof.generate.skynet import SkyParams, generate as gen

        return gen(SkyParams(**params))
    return registry.load_ref(f"puzzleproof.api_{name}:generate")(**params)
