"""Death Run's games as its commands and its plugin share them: the option rows of
``deathrun play`` and ``deathrun tournament`` (and of the verbs that play games), reading game
records, the graphs of a run, and a tournament's games."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

from puzzleproof.errors import InputError
from puzzleproof.instance import Loaded
from puzzleproof.puzzles import deathrun_views as views
from puzzleproof.puzzles.base import Params
from puzzleproof.puzzles.options import (COUNT, INIT_TIMEOUT, MEMORY_LIMIT, MOVE_TIMEOUT,
                                         OUTPUT, SEED, Opt)
from puzzleproof.verify.deathrun_methods import (STEP,
                                                 TOTAL_BUDGET)

__all__ = ["record_graph", "BUDGET", "STEP_ROW", "MOVE", "INIT", "MEMORY", "BOT_LIMITS", "STUDENT_POOL", "CRIMINAL_POOL", "PLAY_CRIMINAL", "PLAY_STUDENT", "GRAPH_FILE", "PLAY_SEED", "PLAY_OUTPUT", "GRAPH_FILES", "TOURNAMENT_GAMES", "TOURNAMENT_SEED", "TOURNAMENT_OUTPUT", "PLOT", "read_games", "graphs_for_run", "play_tournament"]

# -- options ---------------------------------------------------------------------------------

BUDGET = Opt("budget", ("--budget",), "The criminals' combined budget the bound holds against.",
             kind="float", default=TOTAL_BUDGET, range=(0, None), show_default=True)
STEP_ROW = Opt("step", ("--step",), "Grid step of the budget axis (the bound stays certified "
               "for real-valued raises; a finer step tightens it and costs budget/step "
               "levels).", kind="float", default=STEP, range=(0, None), open_low=True,
               show_default=True)
MOVE = MOVE_TIMEOUT.but(default=1.0, show_default=True, help="Seconds a bot file has per "
                        "move; a bot past it has this move and the rest of the game invalid "
                        "(a criminal does nothing, a student moves at random).")
INIT = INIT_TIMEOUT.but(default=5.0, show_default=True, help="Seconds a bot file has to load "
                        "and build its bot (__init__).")
MEMORY = MEMORY_LIMIT.but(help="MB a bot file's worker may use (as on CodinGame); a bot past "
                          "it has its move and the rest of the game invalid, with the verdict "
                          "'memory limit'.")
#: the limits a bot file plays under, in every verb that plays games
BOT_LIMITS = (MOVE, INIT, MEMORY)
STUDENT_POOL = Opt("students", ("--students",), "The student pool, comma-separated "
                   "(repeatable).", multiple=True, metavar="BOT,BOT,...")
CRIMINAL_POOL = Opt("criminals", ("--criminals",), "The criminal pool, comma-separated "
                    "(repeatable). " + views.BOTS_HELP, multiple=True, metavar="BOT,BOT,...")

# the game verbs' own rows (deathrun play, deathrun tournament)
PLAY_CRIMINAL = Opt("criminals", ("--criminal",), "A criminal, twice (seats 0 and 1), or once "
                    "for both seats. " + views.BOTS_HELP, multiple=True, metavar="BOT")
PLAY_STUDENT = Opt("students", ("--student",), "Students (seats 2..9): 8 in all, as repeated "
                   "options, a comma-separated list or BOT*K (K copies); 1, 2 or 4 bots are "
                   "repeated to fill 8 seats.", multiple=True, metavar="BOT")
GRAPH_FILE = Opt("graph_file", ("--graph",), "The graph (JSON with edges, begin, ends; or a "
                 "game record, whose graph is used). Default: the contest generator's graph "
                 "for --seed.", metavar="FILE")
PLAY_SEED = SEED.but(help="Seed of the game (the engine's random moves and each bot's "
                     "'random'), and of the graph when --graph is not given.")
PLAY_OUTPUT = OUTPUT.but(help="Write the game record (JSON; 'check deathrun FILE' replays it)."
                         " Never overwrites an existing file unless --force.")
GRAPH_FILES = Opt("graph_files", ("--graph",), "Play on these graphs (repeatable; folders too) "
                  "instead of seeded contest graphs.", multiple=True, metavar="FILE")
TOURNAMENT_GAMES = COUNT.but(default=70, help="How many games (graph after graph, each holding "
                             "every pairing; the last graph may hold only its first games). "
                             "Games stream: any count runs in the same memory.")
TOURNAMENT_SEED = SEED.but(help="Seed of the graphs (graph i is the contest generator's "
                           "'SEED:i') and of every game.")
TOURNAMENT_OUTPUT = OUTPUT.but(help="JSONL file that receives each game's record as it "
                               "finishes. Never overwrites an existing file unless --force.")
PLOT = Opt("plot", ("--plot",), "Write box plots of the scores per bot and role (.png or "
           ".svg).", kind="path")


# -- reading -------------------------------------------------------------------------------

def read_games(arg: str, inputs: Any = None) -> tuple[list[dict], str]:
    """The game records in ``FILE``, or one of them: ``FILE#N`` (the N-th, from 1) or
    ``FILE#GAME_ID`` (a tournament's game id, such as ``g0:s0``); and the name to call
    them by."""
    from puzzleproof.formats import deathrun as dfmt
    from puzzleproof.formats import read_source

    base, sep, pick = arg.rpartition("#")
    if not sep or not Path(base).is_file() or Path(arg).exists():
        base, pick = arg, ""
    if inputs is not None:
        text, source = inputs.text(base)
    else:
        text, source, _ = read_source(base)
    recs = dfmt.read_records(text, source)
    if not pick:
        return recs, source
    if pick.isdigit():
        k = int(pick)
        if not 1 <= k <= len(recs):
            raise InputError(f"record #{k} does not exist (the file holds {len(recs)})", source)
        return [recs[k - 1]], f"{source}#{k}"
    hits = [r for r in recs if str(r.get("game_id")) == pick]
    if not hits:
        raise InputError(f"no game with id {pick!r} (ids: "
                         f"{', '.join(str(r.get('game_id')) for r in recs[:6])}"
                         f"{', ...' if len(recs) > 6 else ''})", source)
    return hits[:1], f"{source}#{pick}"


def record_graph(rec: dict) -> Any:
    from puzzleproof.models.deathrun import make_graph

    gj = rec["graph"]
    return make_graph(gj["edges"], gj["begin"], gj["ends"])


def graphs_for_run(loaded: Sequence[Loaded], crims: Sequence[str], studs: Sequence[str],
                   count: int | None, seed: int, default_graphs: int
                   ) -> tuple[list, list[str], list]:
    """The graphs of a run of games (each pass of the seating plays every graph once): the
    graphs given, repeated to make about ``count`` games, or seeded contest graphs. Returns
    the graphs, their names and their evidence."""
    from puzzleproof.models.deathrun import generate_graph
    from puzzleproof.games.deathrun_tournament import graphs_for_games, per_graph

    if loaded:
        reps = 1 if count is None else max(1, round(count / (len(loaded) * per_graph(crims,
                                                                                    studs))))
        found = list(loaded) * reps
        return [ld.instance for ld in found], [ld.name for ld in found], \
            [ld.reference for ld in found]
    n = default_graphs if count is None else graphs_for_games(crims, studs, count)
    return ([generate_graph(f"{seed}:{i}") for i in range(n)],
            [f"seed {seed}:{i}" for i in range(n)], [None] * n)


def play_tournament(crims: Sequence[str], studs: Sequence[str], graphs: Sequence[Any] | None,
                    p: Params, executor: Any, target: Any, resume: bool, progress: Any,
                    games: int | None = None, keep_records: bool = True,
                    on_record: Callable[[dict], None] | None = None) -> Any:
    """Every pairing's games on ``graphs`` (or seeded contest graphs), exactly ``games`` of
    them when given (streamed: with ``keep_records`` False only the scores are kept),
    records appended to ``target`` as they finish
    (:func:`~puzzleproof.games.deathrun_tournament.run_tournament`)."""
    from puzzleproof.games.deathrun_tournament import run_tournament

    n_graphs = None if games is not None or graphs is None else len(graphs)
    return run_tournament(crims, studs, n_graphs, p.seed, graphs=graphs, games=games,
                          keep_records=keep_records, jobs=executor, out_path=target,
                          resume=resume, move_timeout=p.move_timeout,
                          init_timeout=p.init_timeout, memory_limit=p.memory_limit,
                          progress=progress, on_record=on_record)


