"""Death Run tournaments: fair seating, games in parallel processes, records appended as they
finish, resume, a summary per bot and role, a plot, and the cross-check against the bounds.

**Seating** (:func:`schedule`). Every pairing plays on the same graphs (graph ``i`` is
``generate_graph(f"{seed}:{i}")`` unless graphs are given). On each graph:

- *students are judged in mixed fields*: each game seats two of each of four student bots
  (the groups of four rotate through all 4-bot combinations of the pool, or the pool
  repeated when it has fewer than four), in a seat order rotated from graph to graph, facing
  a criminal pair drawn in rotation from the ordered pairs of the criminal pool;
- *criminals are judged in pairs of two different bots, in both seat orders*, each pair
  facing the same fixed mixed student field (two of each of the first four student bots).

A game's id is ``g{graph}:{s|c}{k}``; its seed is ``f"{seed}:{id}"``. A run of ``games``
games plays exactly that many, graph after graph (the last graph may hold only its first
games); the specs are made as the executor takes them (:func:`iter_schedule`), so a run of
any length holds one graph and a few hundred specs at a time.

**Figures** (:class:`Tally`). Games on one graph share it, so the independent unit is the
graph: a bot's mean is the mean over graphs of its mean on each graph, its 95 % interval is
Student's t over those graph means (:mod:`puzzleproof.games.tournament_stats`), and two bots
are compared by a paired t test on the graphs both played. Each finished game's
record (the engine's record plus ``"game_id"`` and ``"judged"``) is appended to the JSONL
output as one line; with ``resume`` the games already there are skipped, so a killed run
loses nothing and repeats nothing.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from puzzleproof import executor, processes
from puzzleproof.errors import InputError
from puzzleproof.models.deathrun import Graph, generate_graph, make_graph, play_game
from puzzleproof.formats.jsonl import load_records, trim_torn_tail
from puzzleproof.games.deathrun_workers import (DEFAULT_INIT_TIMEOUT, DEFAULT_MEMORY_LIMIT_MB,
                                                 DEFAULT_MOVE_TIMEOUT,
                                                 BotSpec, WorkerPool, make_player, parse_bot)
from puzzleproof.games.tournament_stats import mean_interval, paired_test

__all__ = ["GameSpec", "schedule", "iter_schedule", "graphs_for_games", "per_graph",
           "run_games", "run_tournament", "resolve_bots", "TournamentReport", "Tally",
           "summarise", "scores_by_bot", "plot_scores", "crosscheck_records"]


@dataclass(frozen=True)
class GameSpec:
    game_id: str
    judged: str  # "students" or "criminals"
    graph_index: int
    graph: dict[str, Any]
    seed: str
    criminals: tuple[str, ...]
    students: tuple[str, ...]


def _student_groups(students: Sequence[str]) -> list[tuple[str, ...]]:
    if len(students) <= 4:
        return [tuple(students[i % len(students)] for i in range(4))]
    combos = list(itertools.combinations(students, 4))
    if len(combos) <= 70:
        return combos
    n = len(students)
    return [tuple(students[(i + j) % n] for j in range(4)) for i in range(n)]


def _criminal_pairs(criminals: Sequence[str]) -> list[tuple[str, str]]:
    if len(criminals) == 1:
        return [(criminals[0], criminals[0])]
    return [(a, b) for a, b in itertools.permutations(criminals, 2)]


def per_graph(criminals: Sequence[str], students: Sequence[str]) -> int:
    """Games played on each graph."""
    return len(_student_groups(students)) + (len(_criminal_pairs(criminals))
                                             if len(set(criminals)) > 1 else 0)


def graphs_for_games(criminals: Sequence[str], students: Sequence[str], games: int) -> int:
    """How many graphs hold ``games`` games (the last one possibly in part; at least one)."""
    return max(1, -(-games // per_graph(criminals, students)))


def _graph_games(gi: int, gj: dict[str, Any], seed: int | str, criminals: Sequence[str],
                 students: Sequence[str]) -> Iterator[GameSpec]:
    """The games of graph ``gi`` (see the module docstring)."""
    groups = _student_groups(students)
    pairs = _criminal_pairs(criminals)
    field4 = tuple(students[i % len(students)] for i in range(4))
    rot = gi % 4
    for k, grp in enumerate(groups):
        order = grp[rot:] + grp[:rot]
        crim = pairs[(gi * len(groups) + k) % len(pairs)]
        gid = f"g{gi}:s{k}"
        yield GameSpec(gid, "students", gi, gj, f"{seed}:{gid}", crim, order + order)
    if len(set(criminals)) > 1:
        order = field4[rot:] + field4[:rot]
        for k, pr in enumerate(pairs):
            gid = f"g{gi}:c{k}"
            yield GameSpec(gid, "criminals", gi, gj, f"{seed}:{gid}", pr, order + order)


def iter_schedule(criminals: Sequence[str], students: Sequence[str], seed: int | str = 0, *,
                  games: int | None = None, n_graphs: int | None = None,
                  graphs: Sequence[Graph] | None = None) -> Iterator[GameSpec]:
    """The games of a tournament in their fixed order, made one at a time (a graph is built
    when its first game is asked for, so a run of any length holds one graph at a time).

    Graph ``i`` is ``graphs[i % len(graphs)]`` when graphs are given, else the contest
    generator's ``f"{seed}:{i}"``. It stops after exactly ``games`` games (the last graph
    then holds only the first of its games) or, without ``games``, after ``n_graphs``
    graphs (default: each given graph once).

    >>> [s.game_id for s in iter_schedule(["crowd", "toll"], ["greedy"], games=4)]
    ['g0:s0', 'g0:c0', 'g0:c1', 'g1:s0']
    """
    if not criminals or not students:
        raise ValueError("a tournament needs at least one criminal and one student bot")
    if games is None and n_graphs is None:
        if graphs is None:
            raise ValueError("give games, n_graphs or graphs")
        n_graphs = len(graphs)
    if graphs is not None and not len(graphs):
        raise ValueError("graphs is empty")
    made = 0
    gi = 0
    while (games is None or made < games) and (n_graphs is None or gi < n_graphs):
        g = graphs[gi % len(graphs)] if graphs is not None else generate_graph(f"{seed}:{gi}")
        for spec in _graph_games(gi, g.to_json(), seed, criminals, students):
            if games is not None and made >= games:
                return
            made += 1
            yield spec
        gi += 1


def schedule(criminals: Sequence[str], students: Sequence[str], n_graphs: int,
             seed: int | str = 0, graphs: Sequence[Graph] | None = None) -> list[GameSpec]:
    """The games of ``n_graphs`` whole graphs as a list (:func:`iter_schedule` streams).

    >>> len(schedule(["crowd", "gap-toll"], ["greedy", "random"], 3))
    9
    """
    if graphs is not None:
        n_graphs = len(graphs)
    return list(iter_schedule(criminals, students, seed, n_graphs=n_graphs, graphs=graphs))


# --------------------------------------------------------------------------------------------
# Running games

_POOL: WorkerPool | None = None


def _pool(move_timeout: float, init_timeout: float,
          memory_limit: float | None = DEFAULT_MEMORY_LIMIT_MB) -> WorkerPool:
    global _POOL
    if _POOL is not None and _POOL.memory_limit != memory_limit:
        close_workers()  # workers keep the limit they were started with
    if _POOL is None:
        import multiprocessing.util

        _POOL = WorkerPool(move_timeout, init_timeout, memory_limit)
        multiprocessing.util.Finalize(None, _POOL.close, exitpriority=10)
    _POOL.move_timeout, _POOL.init_timeout = move_timeout, init_timeout
    return _POOL


def resolve_bots(criminals: Sequence[str], students: Sequence[str]) -> dict[tuple[str, str],
                                                                          BotSpec]:
    """The bots of a tournament, read here: ``{(spec text, role): BotSpec}``, a bot file's
    text in its spec (a bad spec is an InputError before any game). Games carry them, so a
    worker that cannot see the files (a Dask worker elsewhere) plays the same bots."""
    return {**{(c, "criminal"): parse_bot(c, "criminal") for c in criminals},
            **{(s, "student"): parse_bot(s, "student") for s in students}}


def _bot(text: str, role: str, bots: dict[tuple[str, str], BotSpec] | None) -> BotSpec:
    found = (bots or {}).get((text, role))
    return found.here() if found is not None else parse_bot(text, role)


def play_spec(spec: GameSpec, move_timeout: float = DEFAULT_MOVE_TIMEOUT,
              init_timeout: float = DEFAULT_INIT_TIMEOUT, graph: Graph | None = None,
              memory_limit: float | None = DEFAULT_MEMORY_LIMIT_MB,
              bots: dict[tuple[str, str], BotSpec] | None = None) -> dict[str, Any]:
    """Play one scheduled game (in this process; bot files in this process's workers, each
    limited to ``memory_limit`` MB). ``bots``: the bots as read where the run began
    (:func:`resolve_bots`); a bot not there is read here."""
    g = graph or make_graph(spec.graph["edges"], spec.graph["begin"], spec.graph["ends"])
    pool = _pool(move_timeout, init_timeout, memory_limit)
    crim = [make_player(_bot(c, "criminal", bots), "criminal", pool) for c in spec.criminals]
    studs = [make_player(_bot(s, "student", bots), "student", pool) for s in spec.students]
    t0 = time.monotonic()
    rec = play_game(g, crim, studs, spec.seed,
                    names=list(spec.criminals) + list(spec.students))
    rec["game_id"] = spec.game_id
    rec["judged"] = spec.judged
    rec["graph_index"] = spec.graph_index
    rec["wall_time"] = round(time.monotonic() - t0, 4)
    return rec


def close_workers() -> None:
    """Stop this process's bot-file workers (the tournament does it at the end)."""
    global _POOL
    if _POOL is not None:
        _POOL.close()
        _POOL = None


def _chunks(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    chunk: list[Any] = []
    for x in items:
        chunk.append(x)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


#: Games handed to the executor at a time: a run of any length holds at most this many specs.
CHUNK = 256


def run_games(specs: Iterable[GameSpec], *, jobs: int = 1,
              move_timeout: float = DEFAULT_MOVE_TIMEOUT,
              init_timeout: float = DEFAULT_INIT_TIMEOUT,
              on_record: Callable[[dict], None] | None = None,
              memory_limit: float | None = DEFAULT_MEMORY_LIMIT_MB,
              on_failure: Callable[[dict], None] | None = None,
              keep: bool = True,
              bots: dict[tuple[str, str], BotSpec] | None = None) -> list[dict]:
    """Play ``specs`` (any iterable, consumed :data:`CHUNK` games at a time) on ``jobs`` (a
    number of local processes or an :class:`~puzzleproof.executor.ExecutorSpec`);
    ``on_record(record)`` as each one finishes. A game whose worker kept dying is
    ``on_failure(error record)`` (default: an error). Returns the records when ``keep``.
    ``bots`` (:func:`resolve_bots`) travel with every game."""
    out: list[dict] = []

    def accept(rec: dict) -> None:
        if keep:
            out.append(rec)
        if on_record:
            on_record(rec)

    # local workers die with this process (their bot workers with them); SIGTERM kills them
    # and raises SystemExit(143) here, after the records already accepted; on Dask, a game
    # whose worker died is played again elsewhere
    try:
        with processes.sigterm_exits(), executor.open_pool(jobs) as pool:
            for chunk in _chunks(specs, CHUNK):
                for s, rec in pool.stream(
                        play_spec, chunk, name=lambda s: f"game {s.game_id}",
                        args=lambda s: (s, move_timeout, init_timeout, None, memory_limit,
                                        bots)):
                    if isinstance(rec, executor.TaskFailure):
                        if on_failure is None:
                            raise RuntimeError(rec.message)
                        on_failure({"type": "deathrun-game-error", "schema_version": 1,
                                    "game_id": s.game_id, "status": "ERROR",
                                    "error": rec.message})
                        continue
                    accept(rec)
    finally:
        close_workers()  # bot-file workers of games played in this process
    return out


@dataclass
class TournamentReport:
    """What a tournament gives back. ``records`` holds every game only when the run was
    asked to keep them; ``tally`` always holds the scores the summary is made from."""

    records: list[dict]
    summary: dict[str, list[dict]]
    new_games: int
    skipped: int
    wall_time: float
    invalid: list[dict] = field(default_factory=list)
    failed: list[dict] = field(default_factory=list)  # games whose worker kept dying
    tally: "Tally | None" = None

    @property
    def games(self) -> int:
        return self.tally.games if self.tally is not None else len(self.records)


#: Invalid moves a report lists (all are counted in the summary).
MAX_INVALID_LISTED = 1000


class _Resume:
    """The games of an earlier run, matched to the schedule as it streams past."""

    def __init__(self, path: Path | None, resume: bool) -> None:
        self.old: dict[str, dict] = {}
        self.kept: list[dict] = []
        self.path = path
        if path is None:
            return
        if path.exists() and path.stat().st_size and not resume:
            raise FileExistsError(f"{path} exists; pass resume to continue it")
        if resume:
            trim_torn_tail(path)
            self.old = {r["game_id"]: r for r in load_records(path)
                        if r.get("type") == "deathrun-game" and "game_id" in r}

    def todo(self, specs: Iterable[GameSpec]) -> Iterator[GameSpec]:
        """The specs not played yet; those played are checked and kept aside."""
        for s in specs:
            r = self.old.pop(s.game_id, None)
            if r is None:
                yield s
                continue
            bots = [x.get("bot") for x in r.get("seats", []) if isinstance(x, dict)]
            if (bots != list(s.criminals) + list(s.students) or r.get("seed") != s.seed
                    or r.get("graph") != s.graph):
                raise InputError(f"game {r['game_id']} there was played by other bots, on "
                                 "another graph or with another seed: resume with the options "
                                 "that began the run, or write to another file", str(self.path))
            self.kept.append(r)


def run_tournament(criminals: Sequence[str], students: Sequence[str],
                   n_graphs: int | None = None, seed: int | str = 0, *,
                   graphs: Sequence[Graph] | None = None, games: int | None = None,
                   jobs: int = 1, out_path: str | os.PathLike | None = None,
                   resume: bool = False, move_timeout: float = DEFAULT_MOVE_TIMEOUT,
                   init_timeout: float = DEFAULT_INIT_TIMEOUT,
                   on_record: Callable[[dict], None] | None = None,
                   progress: Callable[[int, int, str], None] | None = None,
                   memory_limit: float | None = DEFAULT_MEMORY_LIMIT_MB,
                   keep_records: bool = True) -> TournamentReport:
    """Run (or resume) a tournament of exactly ``games`` games (or ``n_graphs`` whole
    graphs); bot specs are names or ``FILE.py[:Class]`` (checked first: a bad spec raises
    :class:`~puzzleproof.errors.InputError` before any game). Games stream: their specs are
    made as the executor takes them, and with ``keep_records=False`` only the scores stay
    in memory.

    ``out_path`` gets one JSONL line per finished game; an existing non-empty file is a
    ``FileExistsError`` unless ``resume``. ``progress(done, total, game id)`` counts the
    resumed games as done.
    """
    bots = resolve_bots(criminals, students)
    if games is None and n_graphs is None and graphs is None:
        raise ValueError("give games, n_graphs or graphs")
    if graphs is not None and games is None and n_graphs is None:
        n_graphs = len(graphs)
    total = games if games is not None else n_graphs * per_graph(criminals, students)
    path = Path(out_path) if out_path is not None else None
    prior = _Resume(path, resume)
    specs = prior.todo(iter_schedule(criminals, students, seed, games=games,
                                     n_graphs=n_graphs, graphs=graphs))
    tally = Tally()
    played: list[dict] = []  # this run's games, when the records are kept
    invalid: list[dict] = []
    failed: list[dict] = []
    sink = open(path, "a", encoding="utf-8") if path is not None else None
    t0 = time.monotonic()
    count = [0, 0]  # new, resumed

    def note(rec: dict) -> None:  # once per game, whether played now or kept from the file
        tally.add(rec)
        for m in rec.get("invalid_moves", []):
            if len(invalid) < MAX_INVALID_LISTED:
                invalid.append({"game_id": rec["game_id"], **m})

    def accept(rec: dict) -> None:
        if sink is not None:
            sink.write(json.dumps(rec, separators=(",", ":")) + "\n")
            sink.flush()
        count[0] += 1
        note(rec)
        if keep_records:
            played.append(rec)
        if on_record:
            on_record(rec)
        if progress:
            progress(count[0] + len(prior.kept), total, rec["game_id"])

    def fail(rec: dict) -> None:  # written, so the run shows it; --resume plays it again
        failed.append(rec)
        if sink is not None:
            sink.write(json.dumps(rec, separators=(",", ":")) + "\n")
            sink.flush()

    try:
        run_games(specs, jobs=jobs, move_timeout=move_timeout, init_timeout=init_timeout,
                  on_record=accept, memory_limit=memory_limit, on_failure=fail, keep=False,
                  bots=bots)
    finally:
        if sink is not None:
            sink.close()
    for r in prior.kept:
        note(r)
    # each game once: those kept from the file (one per game id, as matched to the
    # schedule) and those played now
    return TournamentReport(prior.kept + played if keep_records else [], tally.summary(),
                            count[0], len(prior.kept), time.monotonic() - t0, invalid,
                            failed, tally)


# --------------------------------------------------------------------------------------------
# Summary


def _unit(record: dict) -> str:
    """The independent unit a game belongs to: its graph (games on one graph share it)."""
    edges = record["graph"]["edges"]
    return hashlib.sha1(repr((edges, record["graph"]["begin"], record["graph"]["ends"])
                             ).encode()).hexdigest()[:16]


class Tally:
    """Scores gathered as games finish: per role and bot, every seat-game's score grouped
    by graph (the independent unit), the games played and the invalid moves. Each role is
    counted from the games that judge it (all games when none is marked)."""

    def __init__(self) -> None:
        self.scores: dict[str, dict[str, dict[str, list[float]]]] = {"students": {},
                                                                        "criminals": {}}
        self.game_count: dict[str, dict[str, int]] = {"students": {}, "criminals": {}}
        self.bad: dict[tuple[str, str], int] = {}
        self.games = 0
        self.judged: dict[str, int] = {}
        self.graphs: set[str] = set()

    def add(self, r: dict) -> None:
        self.games += 1
        judged = r.get("judged")
        self.judged[judged or "students"] = self.judged.get(judged or "students", 0) + 1
        unit = _unit(r)
        self.graphs.add(unit)
        nc = sum(1 for s in r["seats"] if s["role"] == "criminal")
        seen: set[tuple[str, str]] = set()
        for s in r["seats"]:
            role = "criminals" if s["role"] == "criminal" else "students"
            if judged and judged != role:
                continue
            i = s["seat"]
            sc = r["scores"]["criminals"][i] if i < nc else r["scores"]["students"][i - nc]
            self.scores[role].setdefault(s["bot"], {}).setdefault(unit, []).append(sc)
            seen.add((role, s["bot"]))
        for role, bot in seen:
            self.game_count[role][bot] = self.game_count[role].get(bot, 0) + 1
        for m in r.get("invalid_moves", []):
            role = r["seats"][m["seat"]]["role"]
            key = ("criminals" if role == "criminal" else "students", m["bot"])
            self.bad[key] = self.bad.get(key, 0) + 1

    def seat_scores(self) -> dict[str, dict[str, list[float]]]:
        """``{"students": {bot: [score per seat-game]}, "criminals": {...}}``."""
        return {role: {bot: [x for xs in units.values() for x in xs]
                       for bot, units in table.items()}
                for role, table in self.scores.items()}

    def summary(self) -> dict[str, list[dict]]:
        """Per role, one row per bot, best first (lowest cost for students, highest score
        for criminals): ``mean`` (the mean over graphs of the bot's mean on each graph) and
        ``ci95``, the half-width of its t interval (graphs - 1 degrees of freedom); the
        ``graphs``, ``games`` and seat-games (``n``) it rests on; min, max, invalid moves,
        ``rank``; and the paired t test against the next bot in the ranking on the graphs
        both played (``vs_next``, ``diff_next`` = this minus next, ``ci95_next``, ``p_next``,
        ``significant_next`` at 95 %)."""
        out: dict[str, list[dict]] = {}
        for role, table in self.scores.items():
            rows = []
            means: dict[str, dict[str, float]] = {}
            for bot, units in table.items():
                # sorted, so that the figures do not depend on the order games finished in
                means[bot] = {u: math.fsum(units[u]) / len(units[u]) for u in sorted(units)}
                m, ci = mean_interval([means[bot][u] for u in sorted(units)])
                xs = [x for v in units.values() for x in v]
                rows.append({"role": role[:-1], "bot": bot, "n": len(xs),
                             "games": self.game_count[role].get(bot, 0),
                             "graphs": len(units), "mean": m, "ci95": ci,
                             "min": min(xs), "max": max(xs),
                             "invalid_moves": self.bad.get((role, bot), 0)})
            sign = -1 if role == "criminals" else 1
            rows.sort(key=lambda x: (sign * x["mean"], x["bot"]))
            for k, row in enumerate(rows, 1):
                row["rank"] = k
                nxt = rows[k] if k < len(rows) else None
                test = paired_test(means[row["bot"]], means[nxt["bot"]]) if nxt else None
                row.update({"vs_next": nxt["bot"] if nxt else None,
                            "diff_next": test.diff if test else None,
                            "ci95_next": test.ci95 if test else None,
                            "p_next": test.p if test else None,
                            "significant_next": test.significant if test else None})
            out[role] = rows
        return out


def scores_by_bot(records: Sequence[dict]) -> dict[str, dict[str, list[float]]]:
    """``{"students": {bot: [score per seat-game]}, "criminals": {...}}``, each role from the
    games that judge it (all games when none is marked)."""
    t = Tally()
    for r in records:
        t.add(r)
    return t.seat_scores()


def summarise(records: Sequence[dict]) -> dict[str, list[dict]]:
    """The summary of :meth:`Tally.summary` over ``records``."""
    t = Tally()
    for r in records:
        t.add(r)
    return t.summary()


def plot_scores(records: "Sequence[dict] | Tally", path: str | os.PathLike) -> None:
    """Box plots of the score distributions per bot, one panel per role (PNG or SVG by the
    file name), written atomically; from records or a :class:`Tally`."""
    import io

    from puzzleproof.formats.document import subplots

    from puzzleproof.formats import write_atomic

    data = records.seat_scores() if isinstance(records, Tally) else scores_by_bot(records)
    fig, axes = subplots(1, 2, figsize=(11, 4.5))
    for ax, role, title in ((axes[0], "students", "students: cost (lower is better)"),
                            (axes[1], "criminals", "criminals: score (higher is better)")):
        bots = sorted(data[role], key=lambda b: statistics.fmean(data[role][b]),
                      reverse=(role == "criminals"))
        if bots:
            ax.boxplot([data[role][b] for b in bots], showmeans=True)
            ax.set_xticks(range(1, len(bots) + 1))
            ax.set_xticklabels([Path(b).name if "/" in b else b for b in bots],
                               rotation=20, fontsize=8)
        ax.set_title(title)
        ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    buf = io.BytesIO()
    fmt = "svg" if str(path).endswith(".svg") else "png"
    fig.savefig(buf, format=fmt, dpi=110)
    write_atomic(path, buf.getvalue())


# --------------------------------------------------------------------------------------------
# Cross-check against the bounds


def crosscheck_records(records: Sequence[dict], *, step: float = 1.0,
                       criminal_games: int | None = 20) -> dict[str, Any]:
    """Judge bots against the exact tools, game by game.

    Students: each seat's realised cost next to the robust bound of the game's graph (our
    robust student is guaranteed at most the bound against any criminals); a cost above it
    is flagged ``exploitable`` with the game. Criminals: each criminal's revenue next to the
    sum over rounds of the single-round toll optimum (the best one raise could earn that
    round against cheapest-path students, given the state the criminal saw) for the first
    ``criminal_games`` games (it costs a few hundredths of a second a round).
    """
    from puzzleproof.encoders.deathrun_tolls import best_single_raise
    from puzzleproof.encoders.deathrun_robust import robust_table

    flags: list[dict] = []
    stud: dict[str, list[tuple[float, float]]] = {}
    crim: dict[str, list[tuple[float, float]]] = {}
    bounds: dict[str, float] = {}
    for gi, r in enumerate(records):
        g = make_graph(r["graph"]["edges"], r["graph"]["begin"], r["graph"]["ends"])
        key = g.fingerprint()
        total_budget = r["budget"] * sum(1 for s in r["seats"] if s["role"] == "criminal")
        if (key, total_budget) not in bounds:
            bounds[(key, total_budget)] = robust_table(g, total_budget, step,
                                                        lower=False).bound()
        bound = bounds[(key, total_budget)]
        nc = sum(1 for s in r["seats"] if s["role"] == "criminal")
        for s in r["seats"]:
            i = s["seat"]
            if i < nc:
                continue
            cost = r["scores"]["students"][i - nc]
            stud.setdefault(s["bot"], []).append((cost, bound))
            if cost > bound + 1e-9:
                flags.append({"kind": "exploitable", "bot": s["bot"], "seat": i,
                              "game_id": r.get("game_id", gi), "cost": cost, "bound": bound,
                              "seed": r["seed"]})
        if criminal_games is not None and gi >= criminal_games:
            continue
        weight = dict(g.weight)
        added = [dict() for _ in range(nc)]
        opt = [0.0] * nc
        for rr in r["rounds"]:
            counts = {v: 0 for v in g.vertices}
            for v, n in rr["criminal_view"]["counts"]:
                counts[v] = n
            for c, ce in enumerate(rr["criminals"]):
                o = best_single_raise(g, weight, counts, ce["budget"], added[c])
                opt[c] += o.gain
            for ce in rr["criminals"]:
                if ce["valid"]:
                    u, v, w = ce["move"]
                    weight[(u, v)] += w
                    added[ce["seat"]][(u, v)] = added[ce["seat"]].get((u, v), 0) + w
        for c in range(nc):
            crim.setdefault(r["seats"][c]["bot"], []).append((r["scores"]["criminals"][c],
                                                              opt[c]))
    students = [{"bot": b, "games": len(v), "mean_cost": statistics.fmean(x for x, _ in v),
                 "mean_bound": statistics.fmean(y for _, y in v),
                 "above_bound": sum(x > y + 1e-9 for x, y in v)} for b, v in stud.items()]
    criminals = [{"bot": b, "games": len(v), "mean_revenue": statistics.fmean(x for x, _ in v),
                  "mean_single_round_optimum_sum": statistics.fmean(y for _, y in v)}
                 for b, v in crim.items()]
    return {"type": "deathrun-crosscheck", "students": students, "criminals": criminals,
            "flags": flags}
