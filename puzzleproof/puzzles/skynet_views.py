"""What a person sees of Skynet Revolution: the help of each verb, the table of verdicts,
a check's verdict, a refereed game, a batch of games and the worst-case agent's summary,
the Episode 1 cuts table, and the report's drawings of lost games."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from puzzleproof.errors import InputError
from puzzleproof.formats.document import Figure, Section, Text
from puzzleproof.puzzles.base import Page, Params, Task
from puzzleproof.puzzles.inputs import plural
from puzzleproof.result import Result

LIMITS = "Skynet N <= 500 nodes, L <= 1000 links, E <= 20 gateways (CodinGame's)"

SOLVE_HELP = """Decide Skynet Revolution exactly: can the player keep the agent from every
gateway against EVERY agent, and how many cuts does it take?

\b
The answer is WIN or LOSS for the player (UNKNOWN if a limit ran out), with the
winner's strategy as a certificate that is replayed against every opponent move
by the rules alone before it is shown ('check' column). --min-cuts adds the
value (fewest cuts to contain the agent); --horizon H asks only whether H cuts
suffice. Under ep2 the value is the number of gateway links of the agent's
component whenever the player wins (only those can be cut).

\b
Examples:
  puzzleproof solve skynet map.txt                     # verdict from the map's start
  puzzleproof solve skynet map.txt --all-starts        # every start node
  puzzleproof solve skynet map.txt --rule ep1 --min-cuts -o strategy.json
  puzzleproof check skynet map.txt strategy.json --rule ep1
"""

CHECK_HELP = """Replay a Skynet strategy certificate against EVERY opponent move, with the
rules only.

\b
A player strategy ("type": "skynet-player-strategy") must contain the agent
whatever it does; an agent strategy ("skynet-agent-strategy") must reach a
gateway whatever the player cuts; an agent escape ("skynet-agent-escape", with
"horizon": H, written for "solve skynet -H H" answered LOSS) must leave the agent
uncontained after each of the first H cuts. All are DAGs of positions:
{"type", "root": id, "nodes": {id: {"agent", "cut", "next": {move: id}}}} for the
player, {id: {"agent", "replies": {"u-v": {"move", "next": id | null}}}} for the
agent. Exit 0 if it holds, 1 if not (the first problems are listed), 2 if malformed.
"""

RENDER_HELP = """Draw a Skynet map (gateways red, the agent's start blue) as SVG, with a
game on it or a fence around the start.

\b
Examples:
  puzzleproof render skynet map.txt -o map.svg
  puzzleproof render skynet map.txt --game game.json -o game.svg
  puzzleproof render skynet map.txt --fence 1,2,3,4,5 -o fence.png
"""


def _short(name: str, width: int = 48) -> str:
    return name if len(name) <= width else "…" + name[-(width - 1):]


# -- solve -----------------------------------------------------------------------------------

def shown_verdict(r: Result) -> str:
    """The status, or the verdict when only the value ran out of time (its certificate
    checked)."""
    a = r.answer or {}
    if (r.status.value == "UNKNOWN" and a.get("verdict") in ("WIN", "LOSS")
            and "value_lower" in a and (r.check is None or r.check.get("ok"))):
        return a["verdict"]
    return r.status.value


def _value_cell(r: Result) -> str:
    a = r.answer or {}
    value = a.get("value")
    if value is None and "value_lower" in a:
        value = f"{a['value_lower']}..{a['value_upper']}"
    if "horizon" in a:
        value = f"<= {a['horizon']}: {a['verdict']}"
    return "" if value is None else str(value)


def _effort_cell(r: Result) -> str:
    st = r.stats or {}
    effort = (f"{st.get('iterations', 0)} it / {st.get('tree_nodes', 0)} nodes"
              if r.solver == "sat-cegar" else f"{st.get('states', 0)} states")
    if st.get("decided_by") and r.check is not None and "positions" in r.check:
        # decided without the CEGAR: the certificate's size (a table, by position)
        effort = f"table, {plural(r.check['positions'], 'position')}"
    return effort


def solve_table(rows: list[tuple[Task, Result]], p: Params, errors: list) -> Page:
    """Every map and start: verdict, value, the certificate's check, solver, time, effort;
    the certificate problems, the note of a single answer, and the counts."""
    from rich.table import Table

    table = Table(title=None, show_lines=False)
    for col in ("map", "start", "verdict", "min cuts", "check", "solver", "seconds", "effort"):
        table.add_column(col, justify="right" if col in ("start", "seconds") else "left")
    for t, r in rows:
        chk = "-" if r.check is None else ("ok" if r.check.get("ok") else "FAILED")
        table.add_row(_short(Path(t.instance[0].name or "").name, 32), str(t.extra["start"]),
                      shown_verdict(r), _value_cell(r), chk, r.solver, f"{r.wall_time:.3f}",
                      _effort_cell(r))
    rules = sorted({t.extra["rule"] for t, _ in rows}) or [p.rule or "ep2"]
    page = Page().table(table)
    for t, r in rows:
        if r.check is not None and not r.check.get("ok"):
            for prob in r.check.get("violations", [])[:3]:
                page.line(f"{t.instance[0].name} start {t.extra['start']}: certificate "
                          f"problem: {prob}")
        if (r.answer or {}).get("note") and len(rows) == 1:
            page.line(f"note: {r.answer['note']}")
    won = sum(shown_verdict(r) == "WIN" for _, r in rows)
    lost = sum(shown_verdict(r) == "LOSS" for _, r in rows)
    open_values = sum(r.status.value == "UNKNOWN" and shown_verdict(r) != "UNKNOWN"
                      for _, r in rows)
    return page.line(f"{len(rows)} start(s), rule {'/'.join(rules)}: {won} WIN, {lost} LOSS, "
                     f"{len(rows) - won - lost} UNKNOWN"
                     + (f" ({open_values} of the verdicts with the value left open by the "
                        "limit)" if open_values else ""))


# -- check -----------------------------------------------------------------------------------

def check_page(source: str, who: str, map_name: str, rule: str, start: int, problems: list,
               backed: str) -> Page:
    page = Page()
    if problems:
        page.line(f"{source}: the {who} strategy does NOT win on {map_name} ({rule}, start "
                  f"{start}):")
        for prob in problems:
            page.line(f"  {prob}")
        return page
    leaves = ("" if "+" not in backed else
              " (nodes on the links each rests on, each proved once)" if "witness" in backed
              else " (a table by position whose leaves the checker "
              + ("proved by the invariant" if "invariant" in backed else
                 "proved by counting fixed agent paths") + ")")
    return page.line(f"{source}: the {who} strategy wins on {map_name} ({rule}, start "
                     f"{start}) against every opponent move{leaves}")


# -- render ----------------------------------------------------------------------------------

def _games_in(obj: object, depth: int = 0) -> list[dict]:
    """The game records (``"type": "skynet-game"``) in a JSON value the project wrote: the
    value itself, a breaker's "game", a record's answer, a disagreement's detail."""
    if depth > 4:
        return []
    if isinstance(obj, dict):
        if obj.get("type") == "skynet-game":
            return [obj]
        return [g for v in obj.values() for g in _games_in(v, depth + 1)]
    if isinstance(obj, list) and depth:
        return [g for v in obj for g in _games_in(v, depth + 1)]
    return []


def _strict(text: str) -> object:
    """JSON as the project writes it: ``NaN`` and ``Infinity`` are no numbers."""
    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not a number")

    return json.loads(text, parse_constant=refuse)


def _json_values(text: str) -> list[object]:
    """The file as one JSON value, or as JSON lines (empty when it is neither)."""
    try:
        return [_strict(text)]
    except (ValueError, RecursionError):
        pass
    objs: list[object] = []
    for line in text.splitlines():
        if line.strip():
            try:
                objs.append(_strict(line))
            except (ValueError, RecursionError):
                return []
    return objs


def _game_text(text: str, source: str, pick: int | None = None,
               on_map: Any = None) -> str:
    """The game record in a file the project wrote: a game record itself, a breaker's
    evidence (its "game"), or referee / cross-check records (JSONL) holding games - the
    ``pick``-th game of the file (1-based), by default the first lost one, else the first,
    of the games ``on_map(game)`` accepts (all without it)."""
    objs = _json_values(text)
    games = [g for o in objs for g in _games_in(o)]
    if not objs or (len(objs) == 1 and games == [objs[0]] and pick in (None, 1)):
        return text  # not JSON (the record reader says what is wrong), or the record itself
    if not games:
        raise InputError("holds no game record; expected a game record (skynet referee -o), "
                         "a breaker's evidence, or referee / cross-check records with games",
                         source)
    if pick is not None:
        if not 1 <= pick <= len(games):
            raise InputError(f"#{pick}: the file holds {len(games)} game record(s), "
                             f"numbered 1..{len(games)}", source)
        return json.dumps(games[pick - 1])
    mine = [g for g in games if on_map is None or on_map(g)]
    if not mine:
        raise InputError(f"none of its {len(games)} game record(s) was played on this map",
                         source)
    lost = [g for g in mine if g.get("result") == "LOSS"]
    return json.dumps((lost or mine)[0])


def game_record_of(arg: str, m: Any = None) -> Any:
    """The game record ``arg`` names (``FILE`` or ``FILE#K``), read by the rules' reader;
    without ``#K``, one played on map ``m`` when given (a file of referee records holds the
    games of many maps)."""
    from puzzleproof.formats import read_source
    from puzzleproof.formats import skynet as sfmt

    pick = None
    base, hash_, k = arg.rpartition("#")
    if hash_ and k.isdigit() and len(k) < 10 and not Path(arg).exists():
        arg, pick = base, int(k)  # FILE#K: the K-th game record of the file
    text, source, _ = read_source(arg)

    def on_map(g: Any) -> bool:
        try:
            got = sfmt.record_from_json(json.dumps(g), source).map
        except InputError:
            return False
        return got.links == m.links and got.gateways == m.gateways

    return sfmt.record_from_json(_game_text(text, source, pick,
                                            None if m is None else on_map), source)


# -- refereed games --------------------------------------------------------------------------

def line_text(line: Any) -> str:
    if isinstance(line, (list, tuple)):
        return "; ".join(str(x) for x in line)
    return str(line or "")


def game_page(r: Any) -> Page:
    """One game, turn by turn, and the program's stderr when it lost."""
    page = Page().line(f"{r.map.name}: {r.bot} vs agent {r.agent} ({r.rule}, start {r.start}): "
                       f"{r.result} ({r.reason}) after {plural(len(r.turns), 'turn')}, "
                       f"{plural(r.cuts, 'cut')}" + (f"; {r.detail}" if r.detail else ""))
    for k, t in enumerate(r.turns, start=1):
        cut = "-" if t.cut is None else f"{t.cut[0]}-{t.cut[1]}"
        moved = "" if t.agent_moved_to is None else f", agent -> {t.agent_moved_to}"
        ms = f" ({r.turn_seconds[k - 1] * 1000:.1f} ms)" if k <= len(r.turn_seconds) else ""
        page.line(f"  turn {k}: agent at {t.agent_at}, cut {cut}{ms}{moved}")
    stderr = getattr(r, "stderr", None)
    if stderr and r.result != "WIN":
        page.line("  the program's stderr (last lines):")
        for ln in [x for x in str(stderr).splitlines() if x.strip()][-10:]:
            page.line(f"    | {ln}")
    return page


def batch_page(batch: Any, target: Any) -> Page:
    """A referee batch: the table per bot and agent, the lost games with their stderr, the
    judged ones, the defects, and the worst-case agent's summary."""
    from rich.table import Table

    report = batch.report
    table = Table(title=f"{len(batch.instances)} map/start pairs x {len(batch.methods)} "
                        "bot/agent pairs", title_justify="left")
    for col in ("bot/agent", "rule", "games", "won", "lost", "check failed", "cuts mean",
                "cuts max", "max turn ms"):
        table.add_column(col, justify="left" if col in ("bot/agent", "rule") else "right")
    for row in report.summary():
        if row["method"].endswith("/worst"):
            continue  # the worst-case agent's searches have a table of their own
        recs = [r for r in report.records if r["method"] == row["method"]]
        slowest = max(((r.get("stats") or {}).get("max_turn_ms", 0) for r in recs), default=0)
        eff = row["mean_effort"]
        table.add_row(row["method"], "/".join(sorted({_rule_of(r) for r in recs})),
                      str(row["instances"]), str(row["won"]), str(row["lost"]),
                      str(row["failed"]), "" if eff is None else f"{eff:.1f}",
                      str(row["max_effort"] or ""), f"{slowest:.2f}")
    page = Page()
    if table.row_count:
        page.table(table)
    page.extend(_lost_lines(batch.lost, target))
    page.extend(_judged_lines(batch.judged))
    if report.disagreements:
        page.line(f"{plural(len(report.disagreements), 'game record')} fail the rules check")
    if batch.searched:
        page.extend(worst_page(batch.searched))
    return page


def _rule_of(r: dict) -> str:
    """The rule a refereed game was played under (its record says it)."""
    answer = r.get("answer") if isinstance(r.get("answer"), dict) else {}
    return str(answer.get("rule") or (r.get("stats") or {}).get("rule") or "?")


def _lost_lines(lost: list[dict], target: Any) -> Page:
    page = Page()
    for r in sorted(lost, key=lambda x: (x["instance"], x["method"]))[:40]:
        answer = r.get("answer") if isinstance(r.get("answer"), dict) else {}
        why = (r.get("stats") or {}).get("reason") or r.get("error")
        detail = answer.get("detail")
        page.line(f"  lost: {r['instance']} {r['method']} ({_rule_of(r)}): {why}"
                  + (f" ({detail})" if detail else ""))
        tail = [ln for ln in str(answer.get("stderr") or "").splitlines() if ln.strip()][-3:]
        for ln in tail:
            page.line(f"    stderr| {_short(ln, 100)}")
    if len(lost) > 40:
        page.line(f"  ... and {len(lost) - 40} more lost games"
                  + (f" (all in {target})" if target else ""))
    return page


def _judged_lines(judged: list[dict]) -> Page:
    page = Page()
    winnable = [j for j in judged if j.get("verdict") == "lost-proved-winnable"]
    if winnable:
        page.line(f"{plural(len(winnable), 'lost game')} on starts proved winnable (the exact "
                  "solver's strategy contains every agent there):")
        for j in winnable[:20]:
            page.line(f"  {j['game']} {j['method']}: lost by {j.get('reason')}; losing line: "
                      f"{line_text(j.get('losing_line'))}")
    others = len(judged) - len(winnable)
    if others:
        page.line(f"{plural(others, 'other lost game')} on starts proved lost or left open by "
                  "the solver's limit (no strategy is known to win there)")
    defects = [j for j in judged if j.get("defect")]
    if defects:
        page.line(f"{plural(len(defects), 'lost game')} ended by the program's own failure, a "
                  "defect whatever the start:")
        for j in defects[:10]:
            page.line(f"  {j['game']} {j['method']} ({j.get('reason')})")
        if len(defects) > 10:
            page.line(f"  ... and {len(defects) - 10} more (all in the records)")
    return page


def worst_page(searched: list[dict]) -> Page:
    """Per bot: starts PROVED, BEATEN, lost because unwinnable, UNKNOWN; the beaten lines,
    the unknowns' reasons and the bots found non-deterministic."""
    from rich.table import Table

    from puzzleproof.verify.skynet_referee_batch import worst_counts

    table = Table(title="against the worst-case agent (every agent line searched)",
                  title_justify="left")
    for col in ("bot", "starts", "PROVED", "BEATEN", "lost: unwinnable", "UNKNOWN",
                "lines", "runs from start", "forked", "max s"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for bot, row in worst_counts(searched).items():
        table.add_row(bot, str(row["starts"]), str(row["PROVED"]), str(row["BEATEN"]),
                      str(row["UNWINNABLE"]), str(row["UNKNOWN"]), str(row["lines"]),
                      str(row["replays"]), str(row["forks"]), f"{row['max_seconds']:.2f}")
    page = Page().table(table)
    shown = {"BEATEN": 0, "UNKNOWN": 0}
    for r in sorted(searched, key=lambda x: (x["method"], x["instance"])):
        page.extend(_worst_line(r, shown))
    for kind, n in shown.items():
        if n > 20:
            page.line(f"  ... and {n - 20} more {kind} starts (all in the records)")
    return page


def _worst_line(r: dict, shown: dict) -> Page:
    from puzzleproof.verify.skynet_methods import lost_game_lines

    page = Page()
    st = r.get("stats") or {}
    a = r.get("answer") if isinstance(r.get("answer"), dict) else {}
    kind = st.get("adversary") or "UNKNOWN"
    bot = r["method"].rsplit("/", 1)[0]
    if kind in shown:
        shown[kind] += 1
        if shown[kind] > 20:
            return page
    if kind == "BEATEN":
        page.line(f"  BEATEN: {r['instance']} {bot}: {st.get('reason')}; line: "
                  f"{line_text(lost_game_lines(a.get('record') or {}))}")
    elif kind == "UNKNOWN":
        page.line(f"  UNKNOWN: {r['instance']} {bot}: "
                  + (st.get("note") or r.get("error") or "no answer"))
    for flag in ("nondeterministic", "history_dependent"):
        if a.get(flag):
            page.line(f"  note: {r['instance']} {bot}: the bot is "
                      f"{flag.replace('_', '-').replace('nond', 'non-d')}")
    return page


# -- Episode 1 -------------------------------------------------------------------------------

def ep1_page(maps: list, rows: list[dict], failures: list[str], names: list[str]) -> Page:
    """The Episode 1 table: every bot's cuts (article agent / worst case) against the
    fewest, and the findings that no longer hold."""
    from rich.table import Table

    from puzzleproof.verify.skynet_ep1_cuts import EP1_NOTE, cuts_text, fewest_text

    table = Table(title="Episode 1: cuts used (article agent / worst case) against the fewest",
                  title_justify="left")
    for col in ["map", "start", "fewest", *names]:
        table.add_column(col, justify="left" if col == "map" else "right")
    for rep in rows:
        table.add_row(str(rep["map"]).rsplit("/", 1)[-1], str(rep["start"]),
                      fewest_text(rep["fewest"]), *[cuts_text(rep["bots"][b]) for b in names])
    page = Page().table(table)
    page.line(EP1_NOTE + " '>=n': the worst-case search stopped at its budget; 'a..b': the "
              "fewest cuts' proved bounds.")
    doubles = [m.name for m in maps if m.ep1_problems()]
    if doubles:
        page.line("not Episode 1 maps (a node links to two gateways), so bots may lose them: "
                  f"{', '.join(str(d) for d in doubles[:5])}")
    for f in failures:
        page.line(f"FINDING NO LONGER HOLDS: {f}")
    return page

#: lost games drawn at most in a report
MAX_DRAWN = 12


def draw_game(d: dict, k: Any, stderr: bool = True) -> list[Any]:
    """The lost game of ``d``'s evidence: the map with the cuts and the agent's winning
    line, the line in words and (``stderr``) the program's last lines on stderr."""
    rec = (d.get("evidence") or {}).get("record")
    if not isinstance(rec, dict):
        return []
    from puzzleproof.formats.skynet import record_from_json, render_svg

    try:
        game = record_from_json(json.dumps(rec))
    except InputError as exc:
        return [f"(the game record cannot be drawn: {exc})"]
    agent = rec.get("agent") or "worst"
    against = "the worst-case agent" if agent in ("worst", "worst-case") else \
        f"the agent model '{agent}'"
    blocks: list[Any] = [Figure(
        f"disagreement-{k}", "svg", render_svg(game.map, game),
        f"{d['methods'][0]} against {against} ({game.rule}, start {game.start}): cut links "
        f"dashed and numbered by turn, the agent's winning line in blue ({game.reason})")]
    from puzzleproof.verify.skynet_methods import lost_game_lines

    blocks.append("Losing line: " + line_text(lost_game_lines(rec)))
    tail = str(rec.get("stderr") or "").rstrip("\n").splitlines()[-30:]
    if stderr and any(x.strip() for x in tail):
        blocks.append(Text("\n".join(tail), f"{d['methods'][0]}'s stderr (last lines)"))
    return blocks


def game_of(answer: Any) -> dict | None:
    """The game record in a Skynet record's answer (a referee batch's game, or the game a
    bot lost against the worst-case agent)."""
    if isinstance(answer, dict):
        if answer.get("type") == "skynet-game":
            return answer
        rec = answer.get("record")
        if isinstance(rec, dict) and rec.get("type") == "skynet-game":
            return rec
    return None



def draw_disagreement(d: dict, recs: list[dict], inst: Any, k: int) -> list[Any]:
    return draw_game(d, k, stderr=False)  # the report adds each program's stderr


#: how a judged lost game reads in the report, in the order the games are drawn
_LOSS_ORDER = {"lost-proved-winnable": (0, "a start proved winnable: the bot could have won"),
               "lost-unproved": (2, "the start's value is not proved (the solver's limit "
                                    "ran out)"),
               "lost-proved-lost": (3, "a start proved lost against every strategy")}


def _loss_rank(judged: dict | None) -> tuple[int, str]:
    """Where a lost game comes in the report, and what its heading says of it: losses on
    starts proved winnable first, then the program's own failures (a crash, an illegal
    cut), then the unproved, then the starts no strategy wins."""
    if judged is None:
        return 4, "not judged"
    rank, words = _LOSS_ORDER.get(judged.get("verdict"), (4, "not judged"))
    if judged.get("defect") and rank > 0:
        return 1, f"the program's own failure ({judged.get('reason')})"
    return rank, words


def lost_games(recs: list[dict], found: Any) -> list[Any]:
    """Referee batches and bots against the agent: the games lost, drawn (those a
    disagreement already draws left out), losses on starts proved winnable first and
    marked, as the referee's verdicts (its ``lost-game`` lines) say."""
    records = [r for r in recs if r["type"] == "record"]
    disagreements = [r for r in recs if r["type"] == "disagreement"]
    judged = {(j.get("game"), j.get("method")): j for j in recs if j["type"] == "lost-game"}
    drawn = {(d["instance"], d["methods"][0]) for d in disagreements[:24] if d["methods"]}
    lost = [(_loss_rank(judged.get((r["instance"], r["method"]))), r, g) for r in records
            for g in [game_of(r.get("answer"))]
            if g is not None and g.get("result") == "LOSS"
            and (r["instance"], r["method"]) not in drawn]
    if not lost:
        return []
    lost.sort(key=lambda x: x[0][0])  # stable: file order within a rank
    winnable = sum(rank == 0 for (rank, _), _, _ in lost)
    sec = Section("Lost games", [f"{len(lost)} more game(s) lost by a bot"
                                 + (f", {winnable} of them on starts proved winnable "
                                    "(drawn first)" if judged else "")
                                 + (f"; the first {MAX_DRAWN} drawn"
                                    if len(lost) > MAX_DRAWN else "") + "."])
    for k, ((rank, words), r, g) in enumerate(lost[:MAX_DRAWN]):
        mark = "LOST A WINNABLE GAME" if rank == 0 else "lost"
        sec.blocks.append(f"### {r['instance']}: {r['method']} {mark}"
                          + (f" ({words})" if judged else ""))
        try:
            sec.blocks += draw_game({"evidence": {"record": g}, "methods": [r["method"]]},
                                    f"lost-{k}")
        except Exception as exc:  # noqa: BLE001 - a drawing never ends the report
            sec.blocks.append(f"(the game cannot be drawn: {type(exc).__name__}: {exc})")
    return [sec]
