"""Death Run's methods, listed once: the exact bounds (``robust``, ``toll-round``, ``fh-lp``)
and the built-in bots, as :class:`~puzzleproof.method.Method` objects that the plugin, the
tournament and the cross-check share; and how a list of named bots is read and seated.

Every method answers one graph with a :class:`~puzzleproof.result.Result` whose ``check``
comes from code that does not share the method's logic:

- ``robust``: the worst-case DP's certified bound on a student's cost against any play of the
  combined criminal budget, with its policy's first moves; checked for what holds without
  the solver (the policy path is a begin-end path; nominal <= lower bound <= upper bound).
- ``toll-round``: the first round's single-raise toll optimum (every student on the begin),
  by a MIP; checked against the exact enumeration.
- ``fh-lp``: the Fulkerson-Harding LP (how far the combined budget could lengthen the
  shortest path); checked by a shortest path on its raised weights and by the k-disjoint
  paths formula of its dual.
- a bot (``greedy``, ``toll``, ...): one game on the graph, a student bot in all eight
  student seats against the ``toll`` pair, a criminal bot in both criminal seats against the
  tournament's mixed student field; the record is replayed by the rules.

>>> [m.name for m in EXACT], sorted(bot_names("student"))
(['robust', 'toll-round', 'fh-lp'], ['cautious', 'dodger', 'greedy', 'planner', 'random', 'robust'])
"""

from __future__ import annotations

import math
import time
from typing import Any, Sequence

from puzzleproof.errors import UsageError
from puzzleproof.clock import Deadline
from puzzleproof.method import Method
from puzzleproof.models.deathrun import (BUDGET, CRIMINALS, STUDENTS, Graph, distances_to_ends,
                                         play_game)
from puzzleproof.models.deathrun_replay import replay
from puzzleproof.result import Result, Status

__all__ = ["METHODS", "EXACT", "BOTS", "TOTAL_BUDGET", "STEP", "DEFAULT_STUDENTS",
           "DEFAULT_CRIMINALS", "STUDENT_FIELD", "CRIMINAL_PAIR", "bot_names", "bot_method",
           "bot_list", "seat", "robust_bound", "run_robust", "run_toll_round", "run_fh_lp",
           "run_bot", "check_bound", "nominal_path", "path_cost", "play_one", "levels"]

#: The criminals' combined budget the robust bound is certified for (2 x 100).
TOTAL_BUDGET = float(BUDGET * CRIMINALS)
#: The grid step of the robust DP's budget axis.
STEP = 1.0
#: The bots a cross-check judges by default.
DEFAULT_STUDENTS = ("robust", "greedy", "cautious", "random")
DEFAULT_CRIMINALS = ("toll", "gap-toll", "crowd")
#: What a bot's own game is played against: the strongest built-in criminal pair for a
#: student bot, the tournament's fixed mixed field for a criminal bot.
CRIMINAL_PAIR = ("toll", "toll")
STUDENT_FIELD = DEFAULT_STUDENTS * 2


# -- the exact methods -------------------------------------------------------------------

def first_moves(g: Graph, table: Any, budget: float) -> list[dict]:
    """Each link out of the begin with its guarantee (nothing raised yet: the link's weight
    plus the worst case from its head), best first."""
    moves = [{"to": u, "weight": w, "guarantee": w + table.value(u, budget)}
             for u, w in g.out[g.begin]]
    return sorted(moves, key=lambda m: (m["guarantee"], m["to"]))


def nominal_path(g: Graph) -> list[int]:
    """The shortest begin-end path on the base weights (ties: the smaller vertex)."""
    d = distances_to_ends(g)
    path = [g.begin]
    while path[-1] not in g.end_set:
        v = path[-1]
        path.append(min(g.out[v], key=lambda x: (x[1] + d[x[0]], x[0]))[0])
    return path


def path_cost(g: Graph, path: Sequence[int]) -> int:
    return sum(g.weight[(a, b)] for a, b in zip(path, path[1:]))


def check_bound(g: Graph, a: dict) -> dict:
    """What can be checked of a bound without the solver: the policy's path is a path from
    the begin to an end, and nominal <= lower bound <= upper bound."""
    problems = []
    path = a["path_if_nothing_raised"]
    if path[0] != g.begin or path[-1] not in g.end_set or any(
            (u, v) not in g.weight for u, v in zip(path, path[1:])):
        problems.append(f"the policy's path {path} is not a path from the begin to an end")
    lo, up = a["lower_bound"], a["upper_bound"]
    if lo is not None and not a["nominal"] <= lo + 1e-9:
        problems.append(f"the lower bound {lo} is below the nominal shortest path")
    if lo is not None and not lo <= up + 1e-9:
        problems.append(f"the lower bound {lo} is above the upper bound {up}")
    if not a["nominal"] <= up + 1e-9:
        problems.append(f"the bound {up} is below the nominal shortest path")
    return {"ok": not problems, "violations": problems}


def robust_bound(g: Graph, total_budget: float = TOTAL_BUDGET, step: float = STEP) -> float:
    """The robust student's certified bound (the DP's upper table, cached per graph)."""
    from puzzleproof.encoders.deathrun_robust import robust_table

    return robust_table(g, total_budget, step, lower=False).bound()


def run_robust(g: Graph, *, deadline: Deadline, budget: float = TOTAL_BUDGET,
               step: float = STEP, seed: int | None = None) -> Result:
    """The robust student's certified bound, its first moves and the nominal path beside
    it; UNKNOWN when ``deadline`` passes while the tables are filled (their work grows with
    the links and the square of ``budget / step``: minutes on the largest graphs read)."""
    from puzzleproof.encoders.deathrun_robust import (TableOutOfTime, out_of_time,
                                                       robust_table, solve)

    t0 = time.monotonic()
    try:
        table = robust_table(g, budget, step, lower=True, cache=False, deadline=deadline)
    except TableOutOfTime as stop:
        return out_of_time(stop, deadline, budget, step, seed, t0)
    res = solve(g, budget=budget, step=step, seed=seed, table=table)
    res.wall_time = time.monotonic() - t0
    res.answer["first_moves"] = first_moves(g, table, budget)
    res.answer["nominal_path"] = nominal_path(g)
    res.check = check_bound(g, res.answer)
    return res


def _unknown(solver: str, t0: float, why: str, params: dict) -> Result:
    return Result("deathrun", Status.UNKNOWN, None, certificate={"note": why},
                  solver=solver, params=params, wall_time=time.monotonic() - t0)


def run_toll_round(g: Graph, *, deadline: Deadline, budget: float = float(BUDGET)) -> Result:
    """The first round's toll optimum for one criminal (every student on the begin, the
    base weights): the MIP's answer, checked against the exact enumeration."""
    from puzzleproof.encoders.deathrun_tolls import solve_round

    t0 = time.monotonic()
    counts = {v: 0 for v in g.vertices}
    counts[g.begin] = STUDENTS
    left = deadline.left()
    why = None if left is None else f"the time limit ({deadline.limit:g} s) ran out"
    if deadline.expired():
        return _unknown("scip (or-tools)", t0, f"{why} before the MIP started",
                        {"budget": budget})
    try:
        res = solve_round(g, dict(g.weight), counts, budget, deadline=deadline)
    except RuntimeError:
        if why is None:
            raise  # without a limit the MIP always reaches its optimum
        return _unknown("scip (or-tools)", t0, f"{why} before the MIP proved its optimum",
                        {"budget": budget})
    res.params = {"budget": budget}
    return res


def run_fh_lp(g: Graph, *, deadline: Deadline, budget: float = TOTAL_BUDGET) -> Result:
    """Fulkerson-Harding: the longest the combined budget can make the shortest path if the
    student saw every raise before starting. The LP's value is checked by a shortest path on
    its raised weights (primal) and by ``min over k of (B + L_k) / k`` (dual)."""
    from puzzleproof.encoders.deathrun_tolls import fh_formula, fh_lp

    t0 = time.monotonic()
    lp = fh_lp(g, budget)
    formula = fh_formula(g, budget)
    tol = 1e-6 * max(1.0, abs(formula["value"]))
    problems = []
    if abs(lp["check"] - lp["value"]) > tol:
        problems.append(f"the shortest path on the LP's raised weights is {lp['check']}, not "
                        f"its value {lp['value']}")
    if abs(formula["value"] - lp["value"]) > tol:
        problems.append(f"the k-path formula gives {formula['value']}, the LP {lp['value']}")
    answer = {"value": lp["value"], "budget": budget,
              "raises": [[u, v, x] for (u, v), x in sorted(lp["raises"].items())],
              "k": formula["k"], "disjoint_path_costs": formula["L"]}
    return Result("deathrun", Status.OPTIMAL, answer,
                  certificate={"dual": f"(B + L_k) / k at k = {formula['k']}"},
                  solver="glop (or-tools)", params={"budget": budget},
                  wall_time=time.monotonic() - t0,
                  check={"ok": not problems, "violations": problems})


# -- the bots ----------------------------------------------------------------------------

def run_bot(g: Graph, *, deadline: Deadline, bot: str, role: str,
            seed: int | str | None = 0, opponents: Sequence[str] | None = None) -> Result:
    """One game of the built-in ``bot`` on ``g`` (see the module docstring; ``opponents``
    replaces the other side), replayed by the rules. The answer: the bot's worst seat score
    (a student's cost, a criminal's revenue), every seat's score, and the robust bound. The
    game and the bound's tables stop at ``deadline`` (read before each move, and every few
    vertices of the tables) with UNKNOWN."""
    from puzzleproof.encoders.deathrun_robust import TableOutOfTime, robust_table
    from puzzleproof.models.deathrun import OutOfTime
    from puzzleproof.players.deathrun_bots import builtin_player

    t0 = time.monotonic()
    seed = 0 if seed is None else seed
    if role == "student":
        crims = list(opponents or CRIMINAL_PAIR)
        studs = [bot] * STUDENTS
    else:
        crims = [bot] * CRIMINALS
        studs = list(opponents or STUDENT_FIELD)
    try:
        rec = play_game(g, [builtin_player(c, "criminal") for c in crims],
                        [builtin_player(s, "student") for s in studs], seed=seed,
                        names=crims + studs, deadline=deadline)
    except OutOfTime as stop:
        return _bot_out_of_time(bot, role, seed, deadline, t0,
                                f"after {stop.rounds} round(s) of the game")
    try:
        bound = robust_table(g, TOTAL_BUDGET, STEP, lower=False, deadline=deadline).bound()
    except TableOutOfTime:
        return _bot_out_of_time(bot, role, seed, deadline, t0,
                                "while the robust bound was computed")
    problems = replay(rec, g)
    mine = rec["scores"]["students"] if role == "student" else rec["scores"]["criminals"]
    worst = max(mine) if role == "student" else min(mine)
    answer = {"bot": bot, "role": role, "score": worst, "criminals": crims,
              "students": studs, "scores": rec["scores"], "bound": bound,
              "game": rec}
    return Result("deathrun", Status.SOLVED, answer, solver=f"{role} bot {bot}", seed=None,
                  params={"seed": seed}, wall_time=time.monotonic() - t0,
                  check={"ok": not problems, "violations": problems[:10]})


def _bot_out_of_time(bot: str, role: str, seed: Any, deadline: Deadline, t0: float,
                     when: str) -> Result:
    return Result("deathrun", Status.UNKNOWN,
                  {"note": f"time limit ({deadline.limit:g} s) reached {when}"},
                  solver=f"{role} bot {bot}", params={"seed": seed},
                  wall_time=time.monotonic() - t0)


def _bot(name: str, role: str, summary: str) -> Method:
    return Method(name, "heuristic", summary, run="puzzleproof.verify.deathrun_methods:run_bot",
                  options=("seed", "opponents"), bound=(("bot", name), ("role", role)))


EXACT = (
    Method("robust", "exact", "worst-case dynamic program over (vertex, budget left): a "
           "certified bound on a student's cost, and the student bot that keeps it",
           run="puzzleproof.verify.deathrun_methods:run_robust",
           options=("budget", "step", "seed")),
    Method("toll-round", "exact", "single-round toll optimum (a MIP, checked by enumeration):"
           " what one raise could earn", run="puzzleproof.verify.deathrun_methods:run_toll_round"),
    Method("fh-lp", "exact", "Fulkerson-Harding LP: how far a budget can lengthen a shortest "
           "path", run="puzzleproof.verify.deathrun_methods:run_fh_lp", options=("budget",)),
)

#: The built-in bots by role; their classes are
#: :data:`~puzzleproof.players.deathrun_bots.STUDENT_BOTS` and
#: :data:`~puzzleproof.players.deathrun_bots.CRIMINAL_BOTS` (a test keeps the two in step).
BOTS = {
    "student": (_bot("robust", "student", "the robust DP's policy: never pays above its bound"),
                _bot("greedy", "student", "the first link of the current shortest path"),
                _bot("cautious", "student", "shortest path avoiding trap vertices ahead"),
                _bot("random", "student", "a random out-link"),
                _bot("planner", "student", "models each criminal from its raises and plans "
                                           "three rounds ahead, the robust move where unsure"),
                _bot("dodger", "student", "forced vertices priced at the money left to the "
                                          "end, next round's strike predicted and avoided")),
    "criminal": (_bot("toll", "criminal", "the single-round toll optimum with a budget plan"),
                 _bot("gap-toll", "criminal", "raises the crowded link just below the "
                                              "students' detour"),
                 _bot("crowd", "criminal", "spends on the crowded link students cannot avoid"),
                 _bot("random", "criminal", "a random link raised by a random amount"),
                 _bot("pricer", "criminal", "tolls the links the students really take, "
                                            "at the largest raise each still pays, its "
                                            "partner's raise predicted"),
                 _bot("ambush", "criminal", "all on a forced link where students stand, else "
                                            "tolls at the gap this game's students pay")),
}


def _by_name(*groups: Sequence[Method]) -> tuple[Method, ...]:
    """The methods with the first of each name."""
    seen: dict[str, Method] = {}
    for m in (m for group in groups for m in group):
        seen.setdefault(m.name, m)
    return tuple(seen.values())


#: Every method of the puzzle by name, for the plugin: the exact ones, then the bots. A name
#: taken twice is listed once, first come: ``robust`` is the exact bound (its policy is the
#: student bot), ``random`` the student; :func:`bot_method` finds each bot by name and role.
METHODS = _by_name(EXACT, BOTS["student"], BOTS["criminal"])


def bot_names(role: str) -> list[str]:
    return [m.name for m in BOTS[role]]


def bot_method(name: str, role: str) -> Method:
    """The built-in bot ``name`` of ``role`` as a method (KeyError naming the known ones)."""
    for m in BOTS[role]:
        if m.name == name:
            return m
    raise KeyError(f"no built-in {role} bot {name!r}; expected one of "
                   f"{', '.join(bot_names(role))}")


def bot_list(values: Sequence[str], role: str) -> list[str]:
    """Bot specs from options: each value a name, ``FILE.py[:Class]``, ``BOT*K`` (K copies)
    or a comma-separated list of them; each is checked (an unknown name, a missing file, a
    class the file does not define: an InputError naming it)."""
    from puzzleproof.games.deathrun_workers import parse_bot

    found: list[str] = []
    for value in values:
        for item in (x.strip() for x in value.split(",")):
            if not item:
                continue
            name, star, k = item.rpartition("*")
            reps = 1
            if star and k.isdigit():
                item, reps = name.strip(), int(k)
                if not 1 <= reps <= 64:
                    raise UsageError(f"{value!r}: expected BOT*K with K from 1 to 64")
            parse_bot(item, role)
            found += [item] * reps
    return found


def seat(criminals: Sequence[str], students: Sequence[str]) -> tuple[list[str], list[str]]:
    """The seats of one game from the bots given: one criminal sits in both criminal seats,
    and 1, 2 or 4 students are repeated to fill the eight student seats."""
    crims, studs = list(criminals), list(students)
    if len(crims) == 1:
        crims = crims * CRIMINALS
    if len(crims) != CRIMINALS:
        raise UsageError(f"a game has {CRIMINALS} criminals; {len(crims)} were given")
    if studs and STUDENTS % len(studs) == 0:
        studs = studs * (STUDENTS // len(studs))
    if len(studs) != STUDENTS:
        raise UsageError(f"a game has {STUDENTS} students; {len(studs)} were given (give "
                         "1, 2, 4 or 8 bots, or BOT*K)")
    return crims, studs


def levels(budget: float, step: float) -> int:
    """The robust DP's budget levels: its tables grow with their square."""
    return math.ceil(budget / step - 1e-12) if step > 0 else 0


def play_one(g: Graph, criminals: Sequence[str], students: Sequence[str], seed: int | str,
             move_timeout: float, init_timeout: float, memory_limit: int) -> dict:
    """One game of the seated bots on ``g`` (bot files in worker processes under the
    limits), its record with the scoreboard."""
    from puzzleproof.models.deathrun import scoreboard
    from puzzleproof.games.deathrun_workers import WorkerPool, make_player, parse_bot

    with WorkerPool(move_timeout, init_timeout, memory_limit) as pool:
        crims = [make_player(parse_bot(c, "criminal"), "criminal", pool) for c in criminals]
        studs = [make_player(parse_bot(s, "student"), "student", pool) for s in students]
        rec = play_game(g, crims, studs, seed, names=list(criminals) + list(students))
    rec["scoreboard"] = scoreboard(rec)
    return rec
