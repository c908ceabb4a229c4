"""Death Run's batch commands: ``crosscheck deathrun`` (student bots next to the robust bound,
criminal bots next to the single-round optimum) and ``generate deathrun``. Registered when
:mod:`puzzleproof.cli.deathrun` is imported.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import click
from rich.table import Table

from puzzleproof.cli.legacy import (Exit, crosscheck_group, deliver, emit, force_option,
                                    generate_group,
                                    jobs_option, json_option,
                                    mixed, out, output_option,
                                    plural, quiet_option,
                                    resume_option, say, short)
from puzzleproof.errors import InputError
from puzzleproof.formats import write_atomic

from puzzleproof.cli.deathrun import (BOTS_HELP, DEFAULT_CRIMINALS, DEFAULT_STUDENTS, STEP,
                                      TOTAL_BUDGET,
                                      _bots,
                                      _game_graphs,
                                      _label,
                                      _prepare_output,
                                      _print_invalid,
                                      _robust_bound,
                                      _run,
                                      count_games_option,
                                      init_timeout_option,
                                      memory_limit_option,
                                      move_timeout_option)


# -- crosscheck ---------------------------------------------------------------------------

@crosscheck_group.command(name="deathrun")
@click.argument("inputs", nargs=-1)
@click.option("--students", "students", multiple=True, metavar="BOT,...",
              help="Student bots to judge, comma-separated or repeated (default: robust, "
                   "greedy, cautious, random). " + BOTS_HELP)
@click.option("--criminals", "criminals", multiple=True, metavar="BOT,...",
              help="Criminal bots to judge and to judge the students against (default: "
                   "toll, gap-toll, crowd: the strongest built-in criminals).")
@count_games_option
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the games, and of the graphs when none are given.")
@jobs_option
@output_option("JSONL file that receives each game's record as it finishes, then the "
               "cross-check summary (the evidence of every finding).")
@force_option
@resume_option
@move_timeout_option
@init_timeout_option
@memory_limit_option
@json_option
@quiet_option
def crosscheck_deathrun(inputs, students, criminals, count, seed, jobs, output, force, resume,
                        move_timeout, init_timeout, memory_limit, as_json, quiet) -> None:
    """Judge Death Run bots against the exact bounds, game by game.

    \b
    Students: each bot's realised cost, in mixed fields against the criminal pairs,
    next to the robust bound of the graph (what our robust student is guaranteed
    never to exceed against ANY criminals with the combined budget). A game where a
    bot paid more than that bound is flagged 'exploitable', with the game as
    evidence. The robust student itself paying more than its certified bound, ever,
    is a failed check (exit 1, with the record).
    Criminals: each bot's revenue next to the sum over rounds of the single-round
    toll optimum (the most one raise could earn that round against cheapest-path
    students, from the state the criminal saw).
    Every record is also replayed by the rules (a record that does not replay is a
    failure). A graph shipped with evidence (from 'generate deathrun') is a known
    finding: its greedy game is replayed and must still pay more than the bound.

    \b
    Seating: as 'deathrun tournament' (every pairing on the same graphs). Without
    GRAPHS, seeded contest graphs. Exit 0 when nothing failed (exploitable bots are
    findings, not failures), 1 if a check failed.

    \b
    Examples:
      puzzleproof crosscheck deathrun instances/deathrun/
      puzzleproof crosscheck deathrun -n 70 --seed 3 -j 2 -o runs.jsonl
      puzzleproof crosscheck deathrun graphs/ --students student.py,robust,greedy \\
          --criminals criminal.py,toll
      puzzleproof render deathrun runs.jsonl#g0:s0 -o game.svg    # a flagged game
    """
    from puzzleproof.models.deathrun import replay
    from puzzleproof.verify.deathrun_tournament import crosscheck_records

    studs = list(dict.fromkeys(_bots(students or DEFAULT_STUDENTS, "student")))
    crims = list(dict.fromkeys(_bots(criminals or DEFAULT_CRIMINALS, "criminal")))
    graphs, names, evidence = _game_graphs(inputs, crims, studs, count, seed, 6,
                                           strict=not mixed())
    _prepare_output(output, force, resume)
    report = _run(crims, studs, graphs, seed, jobs, output, resume, move_timeout,
                  init_timeout, quiet or as_json, "cross-checking", memory_limit)
    name_of = {i: names[i] for i in range(len(graphs))}
    cc = crosscheck_records(report.records, step=STEP, criminal_games=None)
    by_id = {r["game_id"]: r for r in report.records}
    failures: list[dict] = []
    for r in report.records:
        problems = replay(r)
        if problems:
            failures.append({"kind": "record-does-not-replay", "game_id": r["game_id"],
                             "problem": problems[0]})
    flags = cc["flags"]
    for f in flags:
        f["graph"] = name_of.get(by_id[f["game_id"]].get("graph_index"), "?")
        f["criminals"] = [s["bot"] for s in by_id[f["game_id"]]["seats"]
                          if s["role"] == "criminal"]
        if f["bot"] == "robust":
            failures.append({**f, "kind": "robust-above-bound",
                             "record": by_id[f["game_id"]]})
    findings = _confirm_evidence(graphs, names, evidence)
    failures += [{"kind": "finding-no-longer-holds", **x} for x in findings if not x["holds"]]
    worst = _worst_pairs(report.records)
    summary = {"type": "deathrun-crosscheck", "schema_version": 1, "seed": seed,
               "graphs": len(graphs), "games": len(report.records),
               "students": cc["students"], "criminals": cc["criminals"],
               "worst_criminals": worst, "exploitable": flags, "known_findings": findings,
               "failures": failures, "ok": not failures}
    if output:
        with open(output, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(summary) + "\n")
    if as_json:
        emit(summary)
        raise Exit(1 if failures else 0)
    _print_crosscheck(summary, report, output)
    raise Exit(1 if failures else 0)


def _worst_pairs(records: Sequence[dict]) -> dict[str, dict]:
    """Per student bot: the criminal pair it paid most against (mean cost)."""
    acc: dict[tuple[str, tuple[str, ...]], list[float]] = {}
    for r in records:
        nc = sum(1 for s in r["seats"] if s["role"] == "criminal")
        pair = tuple(s["bot"] for s in r["seats"][:nc])
        for s in r["seats"][nc:]:
            acc.setdefault((s["bot"], pair), []).append(r["scores"]["students"][s["seat"] - nc])
    worst: dict[str, dict] = {}
    for (bot, pair), xs in acc.items():
        m = sum(xs) / len(xs)
        if bot not in worst or m > worst[bot]["mean_cost"]:
            worst[bot] = {"criminals": list(pair), "mean_cost": m, "games": len(xs)}
    return worst


def _confirm_evidence(graphs, names, evidence) -> list[dict]:
    """Replay the game of each shipped graph's evidence (a greedy field against the
    evidence's criminals): the finding holds while greedy still pays more than the
    robust bound (recomputed here, not read from the file)."""
    from puzzleproof.models.deathrun import play_game
    from puzzleproof.verify.deathrun_bots import builtin_player

    seen, found = set(), []
    for g, name, ev in zip(graphs, names, evidence):
        if not isinstance(ev, dict) or "game_seed" not in ev or name in seen:
            continue
        seen.add(name)
        crims = ev.get("criminals") or ["toll", "toll"]
        student = ev.get("student", "greedy")
        try:
            rec = play_game(g, [builtin_player(c, "criminal") for c in crims],
                            [builtin_player(student, "student") for _ in range(8)],
                            seed=ev["game_seed"])
        except KeyError as exc:
            found.append({"graph": name, "holds": False, "detail": f"unknown bot {exc}"})
            continue
        cost = max(rec["scores"]["students"])
        bound = _robust_bound(g)
        gap = ev.get("gap")
        # a file whose greedy game stayed within the bound claims nothing: a measurement
        claim = not (isinstance(gap, (int, float)) and gap <= 0)
        found.append({"graph": name, "holds": cost > bound + 1e-9 or not claim,
                      "claim": claim, "student": student, "criminals": crims, "cost": cost,
                      "bound": bound, "recorded_cost": ev.get("greedy_cost"),
                      "game_seed": ev["game_seed"]})
    return found


def _print_crosscheck(summary: dict, report, output: str | None) -> None:
    worst = summary["worst_criminals"]
    out.print(f"Death Run: {plural(summary['games'], 'game')} on "
              f"{plural(summary['graphs'], 'graph')}, seed {summary['seed']}; "
              f"{report.wall_time:.1f} s", markup=False)
    table = Table(title="students: realised cost next to the robust bound (combined budget "
                        f"{TOTAL_BUDGET:g})", title_justify="left")
    for col in ("bot", "seat-games", "mean cost", "mean bound", "above bound", "worst against",
                "verdict"):
        table.add_column(col, justify="left" if col in ("bot", "worst against", "verdict")
                         else "right")
    for s in sorted(summary["students"], key=lambda x: x["mean_cost"]):
        w = worst.get(s["bot"], {})
        verdict = ("FAILED: above its certified bound" if s["bot"] == "robust"
                   and s["above_bound"] else "within its certified bound"
                   if s["bot"] == "robust" else
                   f"exploitable in {plural(s['above_bound'], 'seat-game')}"
                   if s["above_bound"] else "never above the bound")
        table.add_row(short(_label(s["bot"]), 36), str(s["games"]), f"{s['mean_cost']:.2f}",
                      f"{s['mean_bound']:.2f}", str(s["above_bound"]),
                      f"{'+'.join(w.get('criminals', []))} ({w.get('mean_cost', 0):.2f})",
                      verdict)
    out.print(table)
    table = Table(title="criminals: revenue next to the single-round toll optimum (summed over "
                        "rounds)", title_justify="left")
    for col in ("bot", "seat-games", "mean revenue", "mean single-round optima", "ratio"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for c in sorted(summary["criminals"], key=lambda x: -x["mean_revenue"]):
        opt = c["mean_single_round_optimum_sum"]
        table.add_row(short(_label(c["bot"]), 36), str(c["games"]), f"{c['mean_revenue']:.2f}",
                      f"{opt:.2f}", "-" if not opt else f"{c['mean_revenue'] / opt:.2f}")
    out.print(table)
    flags = [f for f in summary["exploitable"] if f["bot"] != "robust"]
    if flags:
        games = {f["game_id"] for f in flags}
        out.print(f"exploitable: {plural(len(flags), 'seat')} in {plural(len(games), 'game')} "
                  "paid more than the robust bound (worst first):", markup=False)
        for f in sorted(flags, key=lambda x: x["bound"] - x["cost"])[:8]:
            out.print(f"  {_label(f['bot'])} paid {f['cost']:.2f} > bound {f['bound']:.2f} in game "
                      f"{f['game_id']} (graph {f['graph']}, criminals "
                      f"{'+'.join(f['criminals'])}, seat {f['seat']})", markup=False)
        if len(flags) > 8:
            out.print(f"  ... and {len(flags) - 8} more", markup=False)
        first = min(flags, key=lambda x: x["bound"] - x["cost"])
        if output:
            out.print(f"  evidence: the games are in {output}; e.g. puzzleproof render "
                      f"deathrun '{output}#{first['game_id']}' -o game.svg", markup=False)
        else:
            out.print("  evidence: rerun with -o runs.jsonl to keep every game record",
                      markup=False)
    findings = summary["known_findings"]
    if findings:
        claims = [x for x in findings if x.get("claim", True)]
        held = [x for x in claims if x["holds"]]
        if claims:
            out.print(f"{len(held)} of {plural(len(claims), 'known finding')} confirmed "
                      "(graphs shipped with evidence: greedy still pays more than the robust "
                      "bound):", markup=False)
        for x in findings:
            if not x.get("claim", True):
                out.print(f"  {x['graph']}: {x['student']} paid {x['cost']:.2f} <= bound "
                          f"{x['bound']:.2f} against {'+'.join(x['criminals'])} (a measurement, "
                          "not a finding)", markup=False)
            elif "cost" in x:
                out.print(f"  {x['graph']}: {x['student']} paid {x['cost']:.2f} "
                          f"{'>' if x['holds'] else '<='} bound {x['bound']:.2f} against "
                          f"{'+'.join(x['criminals'])}"
                          + ("" if x["holds"] else "  NO LONGER HOLDS"), markup=False)
            else:
                out.print(f"  {x['graph']}: {x['detail']}", markup=False)
    for f in summary["failures"][:10]:
        if f["kind"] == "robust-above-bound":
            out.print(f"FAILED: the robust student paid {f['cost']:.4f} > its certified bound "
                      f"{f['bound']:.4f} in game {f['game_id']} (graph {f['graph']}, seed "
                      f"{f['seed']}); the record is in the summary"
                      + (f" and in {output}" if output else ""), markup=False)
        elif f["kind"] == "record-does-not-replay":
            out.print(f"FAILED: game {f['game_id']} does not replay by the rules: "
                      f"{f['problem']}", markup=False)
    inv = report.invalid
    if inv:
        _print_invalid(inv, limit=5, game=True)
    out.print("no check failed" if not summary["failures"] else
              f"{plural(len(summary['failures']), 'check')} FAILED", markup=False)


# -- generate -----------------------------------------------------------------------------

@generate_group.command(name="deathrun")
@click.option("-n", "--count", type=click.IntRange(1), default=1, show_default=True,
              help="How many graphs to keep.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed: candidate i is the contest generator's graph 'SEED:i'.")
@click.option("--candidates", type=click.IntRange(1), default=None,
              help="Candidate graphs to measure (default: 10 x count).")
@click.option("--criminals", "criminals", default="toll,toll", show_default=True,
              metavar="BOT,BOT", help="The criminal pair the greedy field plays against.")
@click.option("-o", "--output", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Folder for NAME.json (the graph with its evidence). Files are not "
                   "overwritten unless --force. Without it, one graph (-n 1) is printed on "
                   "stdout.")
@force_option
@jobs_option
@quiet_option
def generate_deathrun(count, seed, candidates, criminals, out_dir, force, jobs, quiet) -> None:
    """Make Death Run graphs where greedy play is punished hardest: among seeded
    contest graphs, those where a field of greedy students pays the most above the
    robust student's certified bound (greedy cost - bound, widest first), each written
    with its evidence (the bound, the greedy cost, the game's seed and criminals) under
    an "evidence" key; 'crosscheck deathrun' replays that game as a known finding.

    \b
    Examples:
      puzzleproof generate deathrun -n 3 --seed 1 -o graphs/
      puzzleproof generate deathrun --seed 4 > graph.json
      puzzleproof solve deathrun graphs/
    """
    from puzzleproof.formats import deathrun as dfmt
    from puzzleproof.generate.deathrun import generate

    crims = _bots([criminals], "criminal")
    if len(crims) == 1:
        crims = crims * 2
    if len(crims) != 2 or any(".py" in c for c in crims):
        raise click.UsageError("--criminals: expected two built-in criminal bots")
    if out_dir is None and count > 1:
        raise click.UsageError("several graphs need -o FOLDER")
    folder = Path(out_dir) if out_dir else None
    cand = candidates or 10 * count
    if cand < count:
        raise click.UsageError(f"--candidates {cand} cannot give {count} graphs")
    from puzzleproof.cli.legacy import executor_for, progress_bar

    try:
        with progress_bar(quiet) as bar:
            task = bar.add_task("measuring candidates", total=cand)
            made = generate(count, seed, candidates=cand, criminals=tuple(crims),
                            jobs=executor_for(jobs),
                            progress=lambda d, t: bar.update(task, completed=d, total=t))
    except KeyboardInterrupt:
        say("interrupted; nothing written")
        raise Exit(130)
    command = (f"puzzleproof generate deathrun -n {count} --seed {seed}"
               + (f" --candidates {candidates}" if candidates else "")
               + (f" --criminals {criminals}" if criminals != "toll,toll" else ""))
    texts = []
    for g, ev in made:
        ev = {"type": "deathrun-gap", "student": "greedy", "students": 8, **ev,
              "seed": seed, "candidates": cand, "command": command}
        name = f"gap-s{seed}-{ev['graph_seed'].rsplit(':', 1)[-1]}"
        texts.append((name, dfmt.write_graph(g, ev), ev))
    if folder is None:
        name, text, ev = texts[0]
        deliver(text, None)
        if not quiet:
            say(f"{name}: greedy paid {ev['greedy_cost']:.2f}, robust bound "
                f"{ev['robust_bound']:.2f} (gap {ev['gap']:.2f}), nominal {ev['nominal']}")
        _note_no_gap(texts)
        raise Exit(0)
    for name, _, _ in texts:
        if (folder / f"{name}.json").exists() and not force:
            raise InputError("exists; choose another folder or seed, or pass --force",
                             str(folder / f"{name}.json"))
    folder.mkdir(parents=True, exist_ok=True)
    for name, text, ev in texts:
        path = folder / f"{name}.json"
        write_atomic(path, text)
        if not quiet:
            say(f"{path}: greedy paid {ev['greedy_cost']:.2f}, robust bound "
                f"{ev['robust_bound']:.2f} (gap {ev['gap']:.2f}), nominal {ev['nominal']}")
    say(f"{plural(len(texts), 'graph')} in {folder}")
    _note_no_gap(texts)
    raise Exit(0)


def _note_no_gap(texts) -> None:
    short_of = [name for name, _, ev in texts if ev["gap"] <= 0]
    if short_of:
        say(f"note: greedy stayed within the robust bound on {', '.join(short_of)} (its evidence "
            "is a measurement, not a finding); more --candidates find wider gaps")
