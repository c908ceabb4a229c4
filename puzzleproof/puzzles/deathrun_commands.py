"""Death Run's own game verbs: ``deathrun play`` (one game) and ``deathrun tournament``.

The shared verbs (``solve``, ``check``, ``render``, ``crosscheck``, ``generate``) reach Death
Run through its plugin (:mod:`puzzleproof.puzzles.deathrun`); its option rows are used here
too, so an option means the same in every verb. Bots are built-in names (students random,
greedy, cautious, robust, planner, dodger; criminals random, crowd, gap-toll, toll, pricer,
ambush) or contest files
``FILE.py[:Class]``, run in worker processes with per-move limits so that a bot that
crashes, hangs or prints garbage gets a verdict and never takes the run down.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Sequence

import click

from puzzleproof.command.output import (Exit, check_output, deliver, emit, executor_for,
                                    progress_bar, say, show)
from puzzleproof.command.options import options
from puzzleproof.command.build import inputs_of, usage_errors
from puzzleproof.command.runs import finish, prepare_output
from puzzleproof.errors import InputError
from puzzleproof import puzzles as registry
from puzzleproof.puzzles import deathrun_games as plugin
from puzzleproof.puzzles import deathrun_views as views
from puzzleproof.puzzles.base import Params
from puzzleproof.puzzles.options import FORCE, JSON, QUIET, RESUME, WHERE

__all__ = ["COMMANDS", "deathrun_group"]


@click.group(name="deathrun", help=views.GROUP_HELP + "\n" + views.BOT_FILE_HELP,
             context_settings={"help_option_names": ["-h", "--help"]})
def deathrun_group() -> None:
    pass


def _require(command: click.Command, *names: str) -> None:
    """The options ``names`` of ``command`` must be given (Click says so, and marks them
    [required] in the help): the game cannot be seated without its bots."""
    for param in command.params:
        if param.name in names:
            param.required = True


def _graphs(files: Sequence[str]) -> list[Any]:
    """The Death Run graphs in ``files`` (folders walked, other files skipped and said)."""
    g = inputs_of().gather(files, registry.get("deathrun"), strict=True)
    if g.errors:
        raise g.errors[0][1]
    skipped = g.skipped_text()
    if skipped:
        say(skipped)
    if not g.loaded:
        raise InputError(f"no Death Run graph in {' '.join(files)}")
    return g.loaded


def _game_graph(graph_file: str | None, seed: int) -> tuple[Any, str]:
    """The graph of one game and how to name it."""
    if graph_file:
        from puzzleproof.formats import deathrun as dfmt
        from puzzleproof.formats import read_source

        text, source, _ = read_source(graph_file)
        return dfmt.read_graph(text, source), source
    from puzzleproof.models.deathrun import generate_graph

    return generate_graph(seed), f"the contest graph of seed {seed}"


# -- deathrun play ------------------------------------------------------------------------

PLAY_ROWS = (plugin.PLAY_CRIMINAL, plugin.PLAY_STUDENT, plugin.GRAPH_FILE, plugin.PLAY_SEED,
             *plugin.BOT_LIMITS, JSON, plugin.PLAY_OUTPUT, FORCE)


@deathrun_group.command(name="play", help=views.PLAY_HELP + "\n" + views.BOT_FILE_HELP)
@options(PLAY_ROWS)
@click.pass_context
@usage_errors
def deathrun_play(ctx: click.Context, **values: Any) -> None:
    from puzzleproof.verify.deathrun_methods import bot_list, play_one, robust_bound, seat

    p = Params(values)
    check_output(p.output, p.force)
    crims, studs = seat(bot_list(p.criminals, "criminal"), bot_list(p.students, "student"))
    g, where = _game_graph(p.graph_file, p.seed)
    try:
        rec = play_one(g, crims, studs, p.seed, p.move_timeout, p.init_timeout,
                       p.memory_limit)
    except KeyboardInterrupt:
        say("interrupted")
        raise Exit(130)
    if p.output:
        deliver(json.dumps(rec) + "\n", p.output, p.force)
    code = _files_failed(rec)
    if p.as_json:
        emit(rec)
        raise Exit(code)
    nc = len(crims)
    show(views.game_page(rec, where, g, robust_bound(g, rec["budget"] * nc)))
    raise Exit(code)


def _files_failed(rec: dict) -> int:
    """1 when a bot file (a user's program, not one of ours) crashed, ran out of time or
    moved invalidly in the game: its verdict is "wrong", as a program's lost game is."""
    from puzzleproof.verify.deathrun_judge import is_program

    bad = [s for s in rec.get("scoreboard", []) if s.get("invalid_moves")
           and is_program(str(s.get("bot")))]
    for s in bad:
        say(f"seat {s['seat']} ({s['bot']}): {s['invalid_moves']} invalid move(s); "
            "the game shows why")
    return 1 if bad else 0


_require(deathrun_play, "criminals", "students")


# -- deathrun tournament ------------------------------------------------------------------

TOURNAMENT_ROWS = (plugin.CRIMINAL_POOL, plugin.STUDENT_POOL, plugin.TOURNAMENT_GAMES,
                   plugin.GRAPH_FILES, plugin.TOURNAMENT_SEED, *WHERE,
                   plugin.TOURNAMENT_OUTPUT, FORCE, RESUME, plugin.PLOT, *plugin.BOT_LIMITS,
                   JSON, QUIET)


def _run(crims: list[str], studs: list[str], graphs: list[Any] | None, p: Params,
         ctx: click.Context) -> Any:
    """The tournament with a progress bar; Ctrl-C says where the finished games are."""
    quiet = bool(p.quiet or p.as_json)
    try:
        with progress_bar(quiet) as progress:
            task = progress.add_task("games", total=None)
            tick: Callable = lambda d, t, label: progress.update(  # noqa: E731
                task, completed=d, total=t, description=f"games {label}")
            report = plugin.play_tournament(crims, studs, graphs, p, executor_for(p.jobs, ctx),
                                            p.output, p.resume, tick, games=p.count,
                                            keep_records=False)
    except KeyboardInterrupt:
        say(views.interrupted_note(p.output))
        raise Exit(130)
    note = views.resumed_note(report, p.output)
    if note and not quiet:
        say(note)
    return report


@deathrun_group.command(name="tournament", help=views.TOURNAMENT_HELP + "\n" + views.BOT_FILE_HELP)
@options(TOURNAMENT_ROWS)
@click.pass_context
@usage_errors
def deathrun_tournament(ctx: click.Context, **values: Any) -> None:
    from puzzleproof.verify.deathrun_methods import bot_list

    p = Params(values)
    crims = list(dict.fromkeys(bot_list(p.criminals, "criminal")))
    studs = list(dict.fromkeys(bot_list(p.students, "student")))
    if p.plot:
        check_output(p.plot, p.force)
    graphs = [g for _, g, _ in _graphs(p.graph_files)] if p.graph_files else None
    prepare_output(p, "deathrun", "deathrun tournament")  # after every input is checked
    report = _run(crims, studs, graphs, p, ctx)
    if p.plot:
        from puzzleproof.games.deathrun_tournament import plot_scores

        plot_scores(report.tally, p.plot)
        say(f"wrote {p.plot}")
    record = {"type": "deathrun-tournament", "schema_version": 2, "seed": p.seed,
              "criminals": crims, "students": studs, "graphs": len(report.tally.graphs),
              "games": report.games, "new_games": report.new_games,
              "resumed_games": report.skipped, "summary": report.summary,
              "invalid_moves": report.invalid, "output": p.output,
              "counts": {"games": report.games, "invalid_moves": len(report.invalid)}}
    finish("deathrun", "deathrun tournament", record,
           views.tournament_page(report, len(report.tally.graphs), p.seed), 0,
           Path(p.output) if p.output else None, bool(p.as_json))
    raise Exit(0)


_require(deathrun_tournament, "criminals", "students")


COMMANDS = (deathrun_group,)
