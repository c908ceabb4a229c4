"""The registry of puzzles: one entry per puzzle, found by name, alias or by reading a file.

Every verb of the command (``solve``, ``check``, ``render``, ``crosscheck``, ``generate``)
and the Python API find a puzzle here, so a new puzzle registers itself and does not fork
the command line. An entry says:

- its name, title and aliases (``hashi`` is also ``bridges``);
- how to read its instances (``read``: ``(text, source, **options) -> [Loaded]``) and which
  files it writes that are *not* instances (``written``: ``{"type": what}``, for example a
  Skynet breaker's evidence) so that a folder walk skips them and says so;
- its methods by name, exact or heuristic, and the default ones;
- the module that adds its subcommands to the command line.

Functions are named as ``"module:attribute"`` strings and imported on first use, so that
``puzzleproof --help`` does not pay for every solver's import.

Example:
    >>> get("bridges").name
    'hashi'
    >>> sorted(p.name for p in all_puzzles())
    ['cityclose', 'deathrun', 'hashi', 'skynet']
    >>> classify_text('{"type": "skynet-breaker", "map": "m"}', "m.evidence.json").what
    'skynet breaker evidence'
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from puzzleproof.errors import InputError

__all__ = ["MethodInfo", "PuzzleInfo", "Loaded", "Classified", "register", "get",
           "all_puzzles", "names", "classify_text", "load_ref"]


@dataclass(frozen=True)
class MethodInfo:
    """A method by name: ``exact`` methods prove what they answer, heuristics do not."""

    name: str
    exact: bool
    help: str


@dataclass
class Loaded:
    """One instance as read: a name (file, or file#record), the model instance, and the
    reference answer shipped with it, if any."""

    name: str
    instance: Any
    reference: Any = None


@dataclass
class PuzzleInfo:
    """How the project knows one puzzle. See the module docstring."""

    name: str
    title: str
    aliases: tuple[str, ...]
    summary: str
    suffixes: tuple[str, ...]
    read: str
    methods: tuple[MethodInfo, ...]
    default_methods: tuple[str, ...]
    cli: str
    written: dict[str, str] = field(default_factory=dict)
    #: tried first when several puzzles can read the same text (higher wins)
    priority: int = 0
    #: whether a string that is not a file may be an instance (a Tatham game ID)
    literal: bool = False

    def reader(self) -> Callable[..., list[Loaded]]:
        return load_ref(self.read)

    def method(self, name: str) -> MethodInfo:
        for m in self.methods:
            if m.name == name:
                return m
        raise KeyError(name)

    def method_names(self) -> list[str]:
        return [m.name for m in self.methods]


_REGISTRY: dict[str, PuzzleInfo] = {}
_ALIASES: dict[str, str] = {}


def register(info: PuzzleInfo) -> PuzzleInfo:
    """Add a puzzle (its name and aliases must be new)."""
    for key in (info.name, *info.aliases):
        if key in _ALIASES:
            raise ValueError(f"puzzle name {key!r} is taken by {_ALIASES[key]!r}")
        _ALIASES[key] = info.name
    _REGISTRY[info.name] = info
    return info


def get(name: str) -> PuzzleInfo:
    """The puzzle called ``name`` (or one of its aliases); KeyError naming the known ones."""
    key = _ALIASES.get(name.lower())
    if key is None:
        raise KeyError(f"unknown puzzle {name!r}; expected one of {', '.join(names())}")
    return _REGISTRY[key]


def names() -> list[str]:
    return list(_REGISTRY)


def all_puzzles() -> list[PuzzleInfo]:
    return list(_REGISTRY.values())


def load_ref(ref: str) -> Any:
    """Import ``"package.module:attribute"``."""
    module, _, attr = ref.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


# -- recognising files --------------------------------------------------------------------

#: What the project writes that no puzzle reads as an instance.
GENERIC_WRITTEN = {
    "record": "cross-check records",
    "disagreement": "cross-check records",
    "crosscheck": "a cross-check summary",
    "result": "solver results",
    "check": "a check verdict",
    "error": "an error record",
}

#: Files a folder walk never treats as instances.
NOT_INSTANCES = ("README", "LICENSE", "COPYING", "NOTICE", "CHANGELOG")


@dataclass
class Classified:
    """What a text is: ``puzzle`` (None when it belongs to no puzzle), ``what``
    ("instance" or a description of a non-instance file), and the instances read."""

    puzzle: str | None
    what: str
    loaded: list[Loaded] = field(default_factory=list)

    @property
    def is_instance(self) -> bool:
        return self.what == "instance"


def _json_type(text: str) -> str | None:
    """The ``type`` of the first JSON object in ``text`` (a file or a JSONL stream)."""
    s = text.lstrip()
    if not s.startswith("{"):
        return None
    first = s.split("\n", 1)[0] if "\n" in s else s
    for candidate in (first, s):
        try:
            obj = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict) and isinstance(obj.get("type"), str):
            return obj["type"]
        return None
    return None


def written_kind(text: str) -> tuple[str | None, str] | None:
    """``(puzzle, description)`` when ``text`` is a file the project writes that is not an
    instance (evidence, records, strategies), else None."""
    kind = _json_type(text)
    if kind is None:
        return None
    if kind in GENERIC_WRITTEN:
        return None, GENERIC_WRITTEN[kind]
    for p in _REGISTRY.values():
        if kind in p.written:
            return p.name, p.written[kind]
    return None


def classify_text(text: str, source: str, only: str | None = None,
                  options: dict[str, dict[str, Any]] | None = None) -> Classified:
    """Say which puzzle ``text`` is an instance of, reading it (the instances come along).

    ``only`` restricts the candidates to one puzzle; ``options`` gives each puzzle's reader
    its keyword options (``{"hashi": {"max_bridges": 4}}``). Files the project writes that
    are not instances (evidence, records) are recognised by their ``type``. Raises
    InputError naming what each candidate expected when no puzzle can read the text.
    """
    written = written_kind(text)
    if written is not None:
        return Classified(written[0], written[1])
    candidates = [get(only)] if only else sorted(_REGISTRY.values(), key=lambda p: -p.priority)
    errors: list[tuple[PuzzleInfo, InputError]] = []
    suffix = Path(source).suffix.lower()
    hits: list[tuple[PuzzleInfo, list[Loaded]]] = []
    for p in candidates:
        try:
            loaded = p.reader()(text, source, **((options or {}).get(p.name, {})))
        except InputError as exc:
            errors.append((p, exc))
            continue
        hits.append((p, loaded))
    if hits:
        # a file's ending decides between two puzzles that both read it
        hits.sort(key=lambda h: (suffix not in h[0].suffixes, -h[0].priority))
        p, loaded = hits[0]
        return Classified(p.name, "instance", loaded)
    if len(errors) == 1:
        raise errors[0][1]
    # the error of the puzzle that got furthest (the latest line) is the likeliest one
    def depth(e: InputError) -> tuple[int, int]:
        return (e.line or 0, e.col or 0)

    best = max(errors, key=lambda pe: depth(pe[1]))
    expected = ", ".join(f"a {p.title} {('instance' if p.name != 'skynet' else 'map')}"
                         for p, _ in errors)
    if not text.strip():
        raise InputError(f"empty (nothing but blank space); expected {expected}", source)
    exc = InputError(f"cannot tell which puzzle this is (expected {expected}); read as "
                     f"{best[0].name}: {best[1].message}", source, best[1].line, best[1].col)
    # the puzzle whose reader got past the first line is the likeliest author of the file
    exc.guess = best[0].name if depth(best[1]) > (1, 1) else None  # type: ignore[attr-defined]
    raise exc


def is_not_instance_name(path: Path) -> bool:
    """READMEs, licences and other files that are never puzzles, by name."""
    stem = path.name.upper()
    return path.name.startswith(".") or any(stem.startswith(n) for n in NOT_INSTANCES) \
        or path.name == "result.txt"


def folder_suffixes() -> tuple[str, ...]:
    out: list[str] = []
    for p in _REGISTRY.values():
        out += [s for s in p.suffixes if s not in out]
    return tuple(out)


# -- the puzzles --------------------------------------------------------------------------

register(PuzzleInfo(
    name="hashi", title="Hashiwokakero", aliases=("bridges", "hashiwokakero", "hashikake"),
    summary="Bridges (CodinGame 'There Is No Spoon - Episode 2'): exact solutions, "
            "uniqueness, the article's heuristic",
    suffixes=(".has", ".txt", ".json", ".jsonl", ".tatham", ".url"),
    read="puzzleproof.formats.hashi:read_instances",
    methods=(MethodInfo("sat", True, "python-sat with incremental connectivity cuts"),
             MethodInfo("cpsat", True, "OR-Tools CP-SAT, re-solved with hints after each cut"),
             MethodInfo("article", False, "the CodinGame article's intersection + "
                                          "elimination search")),
    default_methods=("sat", "cpsat", "article"),
    cli="puzzleproof.cli.hashi",
    written={"hashi-generated": "a generated puzzle set"},
    priority=1, literal=True,
))

register(PuzzleInfo(
    name="skynet", title="Skynet Revolution", aliases=("dfs", "death-first-search"),
    summary="Skynet Revolution Episodes 1 and 2 (CodinGame 'Death First Search'): proved "
            "verdicts and fewest cuts, bots judged against the worst-case agent",
    suffixes=(".txt", ".json"),
    read="puzzleproof.formats.skynet:read_instances",
    methods=(MethodInfo("sat", True, "CEGAR over two incremental SAT solvers"),
             MethodInfo("explicit", True, "memoised minimax over (agent node, links left)"),
             MethodInfo("exact", False, "our bot playing the proved strategy"),
             MethodInfo("ep1-article", False, "the Episode 1 article's bot"),
             MethodInfo("ep1-path", False, "cut the link on the agent's shortest path"),
             MethodInfo("ep2-article", False, "the Episode 2 article's bot"),
             MethodInfo("ep2-slack", False, "the common 0-1 BFS least-slack rule"),
             MethodInfo("ep1-front", False, "cut the agent's gateway link, else its link "
                                            "toward the nearest gateway"),
             MethodInfo("ep2-double", False, "the agent's gateway link, else a link of the "
                                             "nearest double-gateway node"),
             MethodInfo("ep2-nearest", False, "the agent's gateway link, else the gateway "
                                              "link nearest the agent"),
             MethodInfo("ep2-pqdfs", False, "priority-queue DFS: the first double-gateway "
                                            "node it reaches")),
    default_methods=("sat", "ep2-article", "ep2-slack"),
    cli="puzzleproof.cli.skynet",
    written={"skynet-breaker": "skynet breaker evidence", "skynet-game": "a skynet game record",
             "skynet-player-strategy": "a skynet strategy certificate",
             "skynet-agent-strategy": "a skynet strategy certificate",
             "skynet-agent-escape": "a skynet strategy certificate",
             "skynet-batch": "a skynet referee summary",
             "skynet-ep1-cuts": "a skynet Episode 1 cuts record"},
))

register(PuzzleInfo(
    name="cityclose", title="City closing", aliases=("city-closing", "twospies", "two-spies"),
    summary="City closing (Two Spies): the removal order with the least Wiener numbers, "
            "proved; the article's greedy and beam search judged",
    suffixes=(".json", ".txt", ".edges", ".graphml", ".gml"),
    read="puzzleproof.formats.cityclose:read_instances",
    methods=(MethodInfo("exact", True, "layered dynamic program over connected sets "
                                       "(compiled with numba)"),
             MethodInfo("ilp", True, "integer program over removal orders (OR-Tools CP-SAT)"),
             MethodInfo("ilp-scip", True, "the same integer program solved by SCIP through "
                                          "MathOpt (stronger bounds, slower on small maps)"),
             MethodInfo("ilp-highs", True, "the same integer program solved by HiGHS through "
                                           "MathOpt"),
             MethodInfo("dp", True, "plain dynamic program over connected sets (small maps)"),
             MethodInfo("merged-beam", False, "beam search with states of the same open "
                                              "cities merged"),
             MethodInfo("beam", False, "the article's beam search (width 10)"),
             MethodInfo("greedy", False, "the article's greedy: the lowest Wiener number "
                                         "next")),
    default_methods=("exact", "merged-beam", "beam", "greedy"),
    cli="puzzleproof.cli.cityclose",
    written={"cityclose-order": "a city-closing order"},
))

register(PuzzleInfo(
    name="deathrun", title="Death Run", aliases=("death-run", "cmimc"),
    summary="Death Run (CMIMC 2024): a faithful engine, certified bounds for students and "
            "criminals, bots judged in tournaments",
    suffixes=(".json",),
    read="puzzleproof.formats.deathrun:read_instances",
    methods=(MethodInfo("robust", True, "worst-case dynamic program over (vertex, budget "
                                        "left): a certified bound on a student's cost, and "
                                        "the student bot that keeps it"),
             MethodInfo("toll-round", True, "single-round toll optimum (enumeration, checked "
                                            "by a MIP): what one raise could earn"),
             MethodInfo("fh-lp", True, "Fulkerson-Harding LP: how far a budget can lengthen a "
                                       "shortest path"),
             MethodInfo("greedy", False, "student on the current shortest path"),
             MethodInfo("cautious", False, "student avoiding trap vertices ahead"),
             MethodInfo("random", False, "a random student or criminal"),
             MethodInfo("toll", False, "criminal playing the single-round toll optimum with a "
                                       "budget plan"),
             MethodInfo("gap-toll", False, "criminal raising the crowded link just below the "
                                           "students' detour"),
             MethodInfo("crowd", False, "criminal spending on the crowded link students cannot "
                                        "avoid")),
    default_methods=("robust", "greedy", "cautious", "random", "toll", "gap-toll", "crowd"),
    cli="puzzleproof.cli.deathrun",
    written={"deathrun-game": "a Death Run game record",
             "deathrun-crosscheck": "a Death Run cross-check summary",
             "deathrun-tournament": "a Death Run tournament summary"},
))
