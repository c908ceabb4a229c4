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

A game's id is ``g{graph}:{s|c}{k}``; its seed is ``f"{seed}:{id}"``. Each finished game's
record (the engine's record plus ``"game_id"`` and ``"judged"``) is appended to the JSONL
output as one line; with ``resume`` the games already there are skipped, so a killed run
loses nothing and repeats nothing.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from puzzleproof import executor, procs
from puzzleproof.models.deathrun import Graph, generate_graph, make_graph, play_game
from puzzleproof.verify.crosscheck import _trim_torn_tail, load_records
from puzzleproof.verify.deathrun_workers import (DEFAULT_INIT_TIMEOUT, DEFAULT_MEMORY_LIMIT_MB,
                                                 DEFAULT_MOVE_TIMEOUT,
                                                 WorkerPool, make_player, parse_bot)

__all__ = ["GameSpec", "schedule", "graphs_for_games", "run_games", "run_tournament",
           "TournamentReport", "summarise", "plot_scores", "crosscheck_records"]


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
    """How many graphs make about ``games`` games (at least one)."""
    return max(1, round(games / per_graph(criminals, students)))


def schedule(criminals: Sequence[str], students: Sequence[str], n_graphs: int,
             seed: int | str = 0, graphs: Sequence[Graph] | None = None) -> list[GameSpec]:
    """The games of a tournament, in a fixed order (see the module docstring).

    >>> len(schedule(["crowd", "gap-toll"], ["greedy", "random"], 3))
    9
    """
    if not criminals or not students:
        raise ValueError("a tournament needs at least one criminal and one student bot")
    groups = _student_groups(students)
    pairs = _criminal_pairs(criminals)
    field4 = tuple(students[i % len(students)] for i in range(4))
    gs = list(graphs) if graphs is not None else [generate_graph(f"{seed}:{i}")
                                                   for i in range(n_graphs)]
    out = []
    for gi, g in enumerate(gs):
        gj = g.to_json()
        for k, grp in enumerate(groups):
            rot = gi % 4
            order = grp[rot:] + grp[:rot]
            crim = pairs[(gi * len(groups) + k) % len(pairs)]
            gid = f"g{gi}:s{k}"
            out.append(GameSpec(gid, "students", gi, gj, f"{seed}:{gid}", crim, order + order))
        if len(set(criminals)) > 1:
            for k, pr in enumerate(pairs):
                rot = gi % 4
                order = field4[rot:] + field4[:rot]
                gid = f"g{gi}:c{k}"
                out.append(GameSpec(gid, "criminals", gi, gj, f"{seed}:{gid}", pr,
                                    order + order))
    return out


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


def play_spec(spec: GameSpec, move_timeout: float = DEFAULT_MOVE_TIMEOUT,
              init_timeout: float = DEFAULT_INIT_TIMEOUT, graph: Graph | None = None,
              memory_limit: float | None = DEFAULT_MEMORY_LIMIT_MB) -> dict[str, Any]:
    """Play one scheduled game (in this process; bot files in this process's workers, each
    limited to ``memory_limit`` MB)."""
    g = graph or make_graph(spec.graph["edges"], spec.graph["begin"], spec.graph["ends"])
    pool = _pool(move_timeout, init_timeout, memory_limit)
    crim = [make_player(parse_bot(c, "criminal"), "criminal", pool) for c in spec.criminals]
    studs = [make_player(parse_bot(s, "student"), "student", pool) for s in spec.students]
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


def run_games(specs: Sequence[GameSpec], *, jobs: int = 1,
              move_timeout: float = DEFAULT_MOVE_TIMEOUT,
              init_timeout: float = DEFAULT_INIT_TIMEOUT,
              on_record: Callable[[dict], None] | None = None,
              memory_limit: float | None = DEFAULT_MEMORY_LIMIT_MB,
              on_failure: Callable[[dict], None] | None = None) -> list[dict]:
    """Play ``specs`` on ``jobs`` (a number of local processes or an
    :class:`~puzzleproof.executor.ExecutorSpec`); ``on_record(record)`` as each one finishes.
    A game whose worker kept dying is ``on_failure(error record)`` (default: an error)."""
    out: list[dict] = []

    def accept(rec: dict) -> None:
        out.append(rec)
        if on_record:
            on_record(rec)

    # local workers die with this process (their bot workers with them); SIGTERM kills them
    # and raises SystemExit(143) here, after the records already accepted; on Dask, a game
    # whose worker died is played again elsewhere
    try:
        with procs.sigterm_exits(), executor.open_pool(jobs) as pool:
            for s, rec in pool.stream(
                    play_spec, specs, name=lambda s: f"game {s.game_id}",
                    args=lambda s: (s, move_timeout, init_timeout, None, memory_limit)):
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
    records: list[dict]
    summary: dict[str, list[dict]]
    new_games: int
    skipped: int
    wall_time: float
    invalid: list[dict] = field(default_factory=list)
    failed: list[dict] = field(default_factory=list)  # games whose worker kept dying


def run_tournament(criminals: Sequence[str], students: Sequence[str], n_graphs: int,
                   seed: int | str = 0, *, graphs: Sequence[Graph] | None = None,
                   jobs: int = 1, out_path: str | os.PathLike | None = None,
                   resume: bool = False, move_timeout: float = DEFAULT_MOVE_TIMEOUT,
                   init_timeout: float = DEFAULT_INIT_TIMEOUT,
                   on_record: Callable[[dict], None] | None = None,
                   progress: Callable[[int, int, str], None] | None = None,
                   memory_limit: float | None = DEFAULT_MEMORY_LIMIT_MB
                   ) -> TournamentReport:
    """Run (or resume) a tournament; bot specs are names or ``FILE.py[:Class]`` (checked
    first: a bad spec raises :class:`~puzzleproof.errors.InputError` before any game).

    ``out_path`` gets one JSONL line per finished game; an existing non-empty file is a
    ``FileExistsError`` unless ``resume``. Returns every record (old and new) and the summary.
    """
    for c in criminals:
        parse_bot(c, "criminal")
    for s in students:
        parse_bot(s, "student")
    specs = schedule(criminals, students, n_graphs, seed, graphs)
    old: list[dict] = []
    path = Path(out_path) if out_path is not None else None
    if path is not None:
        if path.exists() and path.stat().st_size and not resume:
            raise FileExistsError(f"{path} exists; pass resume to continue it")
        if resume:
            _trim_torn_tail(path)
            old = [r for r in load_records(path) if r.get("type") == "deathrun-game"]
    ids = {s.game_id for s in specs}
    old = [r for r in old if r.get("game_id") in ids]
    by_id = {s.game_id: s for s in specs}
    for r in old:
        s = by_id[r["game_id"]]
        bots = [x.get("bot") for x in r.get("seats", []) if isinstance(x, dict)]
        if (bots != list(s.criminals) + list(s.students) or r.get("seed") != s.seed
                or r.get("graph") != s.graph):
            from puzzleproof.errors import InputError

            raise InputError(f"game {r['game_id']} there was played by other bots, on another "
                             "graph or with another seed: resume with the options that began "
                             "the run, or write to another file", str(path))
    done = {r["game_id"] for r in old}
    todo = [s for s in specs if s.game_id not in done]
    sink = open(path, "a", encoding="utf-8") if path is not None else None
    t0 = time.monotonic()
    count = [0]

    def accept(rec: dict) -> None:
        if sink is not None:
            sink.write(json.dumps(rec, separators=(",", ":")) + "\n")
            sink.flush()
        count[0] += 1
        if on_record:
            on_record(rec)
        if progress:
            progress(count[0], len(todo), rec["game_id"])

    failed: list[dict] = []

    def fail(rec: dict) -> None:  # written, so the run shows it; --resume plays it again
        failed.append(rec)
        if sink is not None:
            sink.write(json.dumps(rec, separators=(",", ":")) + "\n")
            sink.flush()

    try:
        new = run_games(todo, jobs=jobs, move_timeout=move_timeout,
                        init_timeout=init_timeout, on_record=accept,
                        memory_limit=memory_limit, on_failure=fail)
    finally:
        if sink is not None:
            sink.close()
    recs = old + new
    inv = [{"game_id": r["game_id"], **m} for r in recs for m in r.get("invalid_moves", [])]
    return TournamentReport(recs, summarise(recs), len(new), len(done),
                            time.monotonic() - t0, inv, failed)


# --------------------------------------------------------------------------------------------
# Summary


def _ci(xs: list[float]) -> tuple[float, float | None]:
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, None
    return m, 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))


def scores_by_bot(records: Sequence[dict]) -> dict[str, dict[str, list[float]]]:
    """``{"students": {bot: [score per seat-game]}, "criminals": {...}}``, each role from the
    games that judge it (all games when none is marked)."""
    out: dict[str, dict[str, list[float]]] = {"students": {}, "criminals": {}}
    for r in records:
        judged = r.get("judged")
        nc = sum(1 for s in r["seats"] if s["role"] == "criminal")
        for s in r["seats"]:
            role = "criminals" if s["role"] == "criminal" else "students"
            if judged and judged != role:
                continue
            i = s["seat"]
            sc = r["scores"]["criminals"][i] if i < nc else r["scores"]["students"][i - nc]
            out[role].setdefault(s["bot"], []).append(sc)
    return out


def summarise(records: Sequence[dict]) -> dict[str, list[dict]]:
    """Per role, one row per bot: games (seat-games), mean, 95% CI half-width, rank (1 =
    best: lowest cost for students, highest score for criminals), invalid moves."""
    bad: dict[tuple[str, str], int] = {}
    for r in records:
        for m in r.get("invalid_moves", []):
            role = r["seats"][m["seat"]]["role"]
            key = ("criminals" if role == "criminal" else "students", m["bot"])
            bad[key] = bad.get(key, 0) + 1
    out: dict[str, list[dict]] = {}
    for role, table in scores_by_bot(records).items():
        rows = []
        for bot, xs in table.items():
            m, ci = _ci(xs)
            rows.append({"role": role[:-1], "bot": bot, "n": len(xs), "mean": m, "ci95": ci,
                         "min": min(xs), "max": max(xs),
                         "invalid_moves": bad.get((role, bot), 0)})
        rows.sort(key=lambda x: x["mean"], reverse=(role == "criminals"))
        for k, row in enumerate(rows, 1):
            row["rank"] = k
        out[role] = rows
    return out


def plot_scores(records: Sequence[dict], path: str | os.PathLike) -> None:
    """Box plots of the score distributions per bot, one panel per role (PNG or SVG by the
    file name), written atomically."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from puzzleproof.formats import write_atomic

    data = scores_by_bot(records)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
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
    plt.close(fig)
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
    from puzzleproof.encoders.deathrun_criminal import best_single_raise
    from puzzleproof.encoders.deathrun_student import robust_table

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
