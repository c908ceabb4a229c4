"""A report a person can read, from any run: ``puzzleproof report RUN.jsonl``.

The run is a JSONL file the project wrote: a cross-check of any puzzle (``"record"``,
``"disagreement"``, ``"instance-done"`` lines; Skynet referee batches too), a Death Run
tournament or cross-check (``"deathrun-game"`` lines) or a Hashi generator run (``"hashi"``
lines with their measures). The report holds:

- the summary tables (per method: verdicts, time, effort; per bot: scores);
- every disagreement with its evidence drawn by the project's own renderers
  (:mod:`puzzleproof.formats`): the Hashi puzzle with the heuristic's bridges beside the
  checked solution, the Skynet map with the agent's winning line, the city map with both
  orders, the Death Run game;
- plots where they help: time per instance size per method, Wiener number per step, score
  distributions (matplotlib, Agg).

Instances are found from the run's own records where they carry them (Skynet game records,
Death Run games, generated Hashi puzzles), else by reading the instance name as a file (a
cross-check of files names its instances by path), else among the INPUTS given (the inputs
the run was made from); a Hashi puzzle with a checked solution is rebuilt from it. An
instance found nowhere is said, not drawn.

:func:`to_html` writes one self-contained page (inline CSS, inline SVG, PNG as data URIs: no
network needed); :func:`to_markdown` writes Markdown with the pictures as files beside it.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from puzzleproof.errors import InputError

__all__ = ["Figure", "Table", "Section", "Report", "load_run", "build", "to_html",
           "to_markdown"]

#: disagreements drawn at most (the table lists every one)
MAX_DRAWN = 24
SOLVED = {"SOLVED", "UNIQUE", "MULTIPLE", "OPTIMAL"}


@dataclass
class Figure:
    name: str  # a file name without extension
    kind: str  # "svg" (text) or "png" (bytes)
    data: Any
    caption: str = ""


@dataclass
class Table:
    headers: list[str]
    rows: list[list[Any]]
    caption: str = ""


@dataclass
class Section:
    title: str
    blocks: list[Any] = field(default_factory=list)  # str (a paragraph), Table, Figure


@dataclass
class Report:
    title: str
    intro: list[str]
    sections: list[Section]


# --------------------------------------------------------------------------------------------
# Reading the run


#: the fields a report reads from each kind of line, with their types
_REQUIRED: dict[str, dict[str, type | tuple]] = {
    "record": {"instance": str, "method": str, "status": str, "wall_time": (int, float),
               "check_ok": bool},
    "disagreement": {"instance": str, "kind": str, "methods": list, "evidence": dict},
    "deathrun-game": {"game_id": str, "graph": dict, "seats": list, "scores": dict},
    "hashi": {"grid": list},
}


def load_run(path: str | Path) -> list[dict]:
    """Every line of a run as a JSON object with a ``"type"``; a line that is not is an
    :class:`~puzzleproof.errors.InputError` naming the file and line (a last line cut short
    by a killed run is dropped)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("no such file", str(path)) from None
    except IsADirectoryError:
        raise InputError("is a folder; expected a run's JSONL file", str(path)) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not a text file ({exc.reason} at byte {exc.start})",
                         str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot be read: {exc.strerror or exc}", str(path)) from None
    lines = text.split("\n")
    out = []
    for k, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            if k == len(lines) and not text.endswith("\n"):
                break  # torn by a kill
            raise InputError(f"expected a JSON object on each line ({exc.msg})", str(path),
                             k) from None
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            raise InputError("expected a JSON object with a \"type\" (a record the project "
                             "wrote)", str(path), k)
        missing = [k for k, t in _REQUIRED.get(obj["type"], {}).items()
                   if not isinstance(obj.get(k), t)]
        if missing:
            raise InputError(f"a {obj['type']!r} line without a valid "
                             f"{', '.join(repr(m) for m in missing)}", str(path), k)
        out.append(obj)
    if not out:
        raise InputError("holds no records; expected a run written by crosscheck, a "
                         "tournament or generate (-o RUN.jsonl)", str(path))
    return out


def _run_kind(recs: list[dict], path: str) -> str:
    types = Counter(r["type"] for r in recs)
    if types["record"]:
        return "crosscheck"
    if types["deathrun-game"]:
        return "deathrun"
    if types["hashi"]:
        return "hashi-generated"
    raise InputError("holds no cross-check records, Death Run games or generated puzzles "
                     f"(found {', '.join(sorted(types))})", path)


def _guess_puzzle(recs: list[dict]) -> str:
    from puzzleproof import puzzles as registry

    methods = {r["method"] for r in recs if r["type"] == "record"}
    best, score = "hashi", -1
    for info in registry.all_puzzles():
        s = len(methods & {m.name for m in info.methods})
        if info.name == "skynet" and any("@" in str(r.get("instance")) for r in recs):
            s += 2
        if s > score:
            best, score = info.name, s
    return best


# --------------------------------------------------------------------------------------------
# Finding instances


class _Instances:
    """Instances by name: from INPUTS, or by reading the name as a file."""

    def __init__(self, puzzle: str, inputs: Sequence[str], base: Path) -> None:
        self.puzzle, self.base, self.by_name = puzzle, base, {}
        if inputs:
            from puzzleproof.cli.common import gather

            g = gather(list(inputs), puzzle, strict=False)
            for ld in g.loaded:
                for key in {ld.name, Path(ld.name).stem, Path(ld.name).name}:
                    self.by_name.setdefault(key, ld.instance)

    def get(self, name: str) -> Any:
        key = name.rsplit("@", 1)[0] if self.puzzle == "skynet" else name
        for k in (name, key, Path(key).stem, Path(key).name):
            if k in self.by_name:
                return self.by_name[k]
        for cand in (Path(key), self.base / key):
            try:
                if cand.is_file():
                    from puzzleproof.cli.common import read_arg

                    c = read_arg(str(cand), self.puzzle)
                    if c.loaded:
                        self.by_name[key] = c.loaded[0].instance
                        return self.by_name[key]
            except (InputError, OSError, ValueError):
                continue
        return None


# --------------------------------------------------------------------------------------------
# Plots


def _png(fig) -> bytes:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _per_size_plot(pts: dict[str, list[tuple[float, float]]], what: str, ylabel: str,
                   name: str, title: str, caption: str, log: bool) -> Figure | None:
    """One scatter of a value against instance size, a colour per method."""
    if not pts:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for m, p in sorted(pts.items()):
        ax.scatter([x for x, _ in p], [y for _, y in p], s=14, label=m, alpha=0.7)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(what)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return Figure(name, "png", _png(fig), caption)


def _time_plot(recs: list[dict], sizes: dict[str, int], what: str) -> Figure | None:
    pts: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for r in recs:
        if r["instance"] in sizes:
            pts[r["method"]].append((sizes[r["instance"]], max(r["wall_time"], 1e-4)))
    return _per_size_plot(pts, what, "seconds per instance", "time-per-size",
                          "Time per instance size, per method",
                          f"Time per instance ({what}), per method", log=True)


def _effort_plot(recs: list[dict], sizes: dict[str, int], what: str) -> Figure | None:
    pts: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for r in recs:
        if r["instance"] in sizes and isinstance(r.get("effort"), (int, float)):
            pts[r["method"]].append((sizes[r["instance"]], r["effort"]))
    return _per_size_plot(pts, what, "effort", "effort-per-size",
                          "Effort per instance size, per method",
                          f"Effort per instance ({what})", log=False)


# --------------------------------------------------------------------------------------------
# Cross-checks


def _size(puzzle: str, rec: dict, inst: Any) -> int | None:
    try:
        return _size_of(puzzle, rec, inst)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError):
        return None


def _size_of(puzzle: str, rec: dict, inst: Any) -> int | None:
    if inst is not None:
        for attr in ("islands", "cities", "n"):
            v = getattr(inst, attr, None)
            if v is not None:
                return v if isinstance(v, int) else len(v)
        g = getattr(inst, "graph", None) or getattr(inst, "map", None)
        if g is not None and hasattr(g, "n"):
            return g.n
    ans = rec.get("answer")
    if puzzle == "hashi" and isinstance(ans, list) and ans:
        return len({(b[0], b[1]) for b in ans} | {(b[2], b[3]) for b in ans})
    if puzzle == "cityclose" and isinstance(ans, dict) and "order" in ans:
        return len(ans["order"]) + len(ans.get("left") or [])
    return None


def _hashi_from_solution(answer: list) -> Any:
    """The puzzle a checked solution solves: its islands, clues from their bridges."""
    from puzzleproof.models.hashi import Island, Puzzle

    deg: Counter = Counter()
    for x1, y1, x2, y2, n in answer:
        deg[(x1, y1)] += n
        deg[(x2, y2)] += n
    islands = tuple(sorted((Island(x, y, c) for (x, y), c in deg.items()),
                           key=lambda i: (i.y, i.x)))
    return Puzzle(max(x for x, _ in deg) + 1, max(y for _, y in deg) + 1, islands,
                  max(max(b[4] for b in answer), 2), "rebuilt from its solution")


def _lines(answer: Any) -> list[tuple] | None:
    try:
        lines = [tuple(int(v) for v in b) for b in answer]
    except (TypeError, ValueError):
        return None
    return lines if all(len(b) == 5 for b in lines) else None


def _drawn(draw, *args) -> list[Any]:
    """What ``draw(*args)`` gives, or one line saying why the evidence cannot be drawn (a
    record the project did not write as it writes them): the tables still list it."""
    try:
        return draw(*args)
    except Exception as exc:  # noqa: BLE001 - drawing is the report's extra, never its end
        return [f"(the evidence cannot be drawn: {type(exc).__name__}: {str(exc)[:200]})"]


def _draw_hashi(d: dict, recs: list[dict], inst: Any, k: int) -> list[Any]:
    from puzzleproof.formats.hashi import render_svg

    good = next((r for r in recs if r["status"] in SOLVED and r["check_ok"] and r["answer"]),
                None)
    ev = d["evidence"]
    shown: list[tuple[str, Any]] = []
    if d["kind"] == "invalid-answer":
        shown.append((f"{d['methods'][0]}'s answer (breaks a rule)", ev.get("answer")))
    elif d["kind"] == "unique-mismatch":
        shown += [(f"{m}'s solution", ev.get(m)) for m in d["methods"]]
    elif d["kind"] == "reference-mismatch":
        shown += [("the answer", ev.get("answer")), ("the shipped reference", ev.get("reference"))]
    elif d["kind"] == "missed-solution":
        bad = next((r for r in recs if r["method"] == d["methods"][0]), None)
        if bad is not None and bad.get("answer"):
            shown.append((f"{d['methods'][0]}'s partial answer", bad["answer"]))
        shown.append((f"the checked solution by {ev.get('solution_by')}", ev.get("solution")))
    if good is not None and not any(s is good["answer"] for _, s in shown):
        shown.append((f"the checked solution by {good['method']}", good["answer"]))
    puzzle = inst
    if puzzle is None and good is not None:
        puzzle = _hashi_from_solution(good["answer"])
    if puzzle is None:
        return ["(the puzzle was not found: pass the run's inputs to draw it)"]
    blocks: list[Any] = []
    right = {tuple(sorted([(b[0], b[1]), (b[2], b[3])])) + (b[4],)
             for b in (good["answer"] if good else [])}
    for j, (label, ans) in enumerate(shown):
        lines = _lines(ans) if ans is not None else None
        if lines is None:
            continue
        mine = {tuple(sorted([(b[0], b[1]), (b[2], b[3])])) + (b[4],) for b in lines}
        note = ""
        if right and mine != right and "checked solution" not in label:
            wrong = sorted(mine - right)
            missing = sorted(right - mine)
            note = (f"; wrong bridges: {_bridges(wrong)}" if wrong else "") + \
                   (f"; missing bridges: {_bridges(missing)}" if missing else "")
        blocks.append(Figure(f"disagreement-{k}-{j}", "svg",
                             render_svg(puzzle, lines, title=label), label + note))
    return blocks


def _bridges(bs: list[tuple]) -> str:
    text = ", ".join(f"{a}-{b}×{n}" for a, b, n in bs[:12])
    return text + (f" and {len(bs) - 12} more" if len(bs) > 12 else "")


def _draw_skynet(d: dict, k: Any) -> list[Any]:
    rec = (d.get("evidence") or {}).get("record")
    if not isinstance(rec, dict):
        return []
    from puzzleproof.formats.skynet import record_from_json, render_svg

    try:
        game = record_from_json(json.dumps(rec))
    except InputError as exc:
        return [f"(the game record cannot be drawn: {exc})"]
    return [Figure(f"disagreement-{k}", "svg", render_svg(game.map, game),
                   f"{d['methods'][0]} against the worst-case agent: cut links dashed and "
                   f"numbered by turn, the agent's winning line in blue ({game.reason})")]


def _skynet_game(answer: Any) -> dict | None:
    """The game record in a Skynet record's answer (a referee batch's game, or the game a
    bot lost against the worst-case agent)."""
    if isinstance(answer, dict):
        if answer.get("type") == "skynet-game":
            return answer
        rec = answer.get("record")
        if isinstance(rec, dict) and rec.get("type") == "skynet-game":
            return rec
    return None


def _draw_cityclose(name: str, recs: list[dict], inst: Any, k: int) -> list[Any]:
    orders = [r for r in recs if isinstance(r.get("answer"), dict) and r["answer"].get("order")]
    if len(orders) < 2:
        return []
    best = min(orders, key=lambda r: r["answer"]["total"])
    worst = max(orders, key=lambda r: r["answer"]["total"])
    blocks: list[Any] = []
    from puzzleproof.formats.cityclose_draw import plot_steps, render_svg

    runs = {r["method"]: r["answer"]["wiener"] for r in orders if r["answer"].get("wiener")}
    if runs:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            path = str(Path(tmp) / "steps.png")
            plot_steps(dict(sorted(runs.items(), key=lambda kv: sum(kv[1]))), path,
                       title=f"{name}: Wiener number per step")
            blocks.append(Figure(f"wiener-{k}", "png", Path(path).read_bytes(),
                                 f"{name}: Wiener number per step, per method"))
    if inst is None:
        blocks.append("(the map was not found: pass the run's inputs to draw both orders)")
        return blocks
    m = getattr(inst, "map", inst)
    for r in (best, worst) if best is not worst else (best,):
        blocks.append(Figure(f"orders-{k}-{r['method']}", "svg",
                             render_svg(m, r["answer"]["order"],
                                        title=f"{name}: {r['method']}, total "
                                              f"{r['answer']['total']}"),
                             f"{r['method']}'s order (each city labelled with the step that "
                             f"closes it), total {r['answer']['total']}"))
    return blocks


def _crosscheck(recs: list[dict], puzzle: str, found: _Instances) -> list[Section]:
    from puzzleproof.cli.batch import describe

    records = [r for r in recs if r["type"] == "record"]
    disagreements = [r for r in recs if r["type"] == "disagreement"]
    by_inst: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by_inst[r["instance"]].append(r)
    methods = list(dict.fromkeys(r["method"] for r in records))
    statuses = sorted({r["status"] for r in records})
    rows = []
    for m in methods:
        rs = [r for r in records if r["method"] == m]
        times = [r["wall_time"] for r in rs]
        eff = [r["effort"] for r in rs if isinstance(r.get("effort"), (int, float))]
        rows.append([m, "exact" if rs[0].get("exact") else "heuristic", len(rs),
                     *[sum(r["status"] == s for r in rs) for s in statuses],
                     sum(not r["check_ok"] for r in rs), f"{sum(times) / len(times):.3f}",
                     f"{max(times):.3f}", f"{sum(eff) / len(eff):.1f}" if eff else ""])
    summary = Section("Summary", [
        f"{len(by_inst)} instance(s), {len(methods)} method(s), {len(records)} record(s), "
        f"{len(disagreements)} disagreement(s).",
        Table(["method", "kind", "records", *statuses, "failed check", "mean s", "max s",
               "mean effort"], rows, "Verdicts per method (failed check: the answer breaks "
                                     "a rule of the puzzle)")])
    if puzzle == "cityclose":
        gap_rows = []
        for name, rs in by_inst.items():
            totals = {r["method"]: r["answer"]["total"] for r in rs
                      if isinstance(r.get("answer"), dict)
                      and isinstance(r["answer"].get("total"), (int, float))}
            if totals:
                low = min(totals.values())
                gap_rows.append([name, *[totals.get(m, "") for m in methods],
                                 max(totals.values()) - low])
        summary.blocks.append(Table(["map", *methods, "largest gap"], gap_rows,
                                    "Total of Wiener numbers per map and method"))
    sizes = {}
    for name, rs in by_inst.items():
        inst = found.get(name)
        s = _size(puzzle, rs[0], inst)
        if s is None:
            s = next((_size(puzzle, r, None) for r in rs if _size(puzzle, r, None)), None)
        if s is not None:
            sizes[name] = s
    what = {"hashi": "islands", "cityclose": "cities"}.get(puzzle, "size")
    plots = Section("Plots", [f for f in (_time_plot(records, sizes, what),
                                          _effort_plot(records, sizes, what)) if f])
    sections = [summary]
    dis = Section("Disagreements")
    if not disagreements:
        dis.blocks.append("No disagreement: every method's answer passed the rule check and "
                          "no method contradicted another.")
    else:
        dis.blocks.append(Table(["instance", "kind", "methods", "what"],
                                [[d["instance"], d["kind"], ", ".join(d["methods"]),
                                  describe(d)] for d in disagreements]))
        for k, d in enumerate(disagreements[:MAX_DRAWN]):
            dis.blocks.append(f"### {d['instance']}: {d['kind']} [{', '.join(d['methods'])}]")
            if puzzle == "hashi":
                dis.blocks += _drawn(_draw_hashi, d, by_inst[d["instance"]],
                                     found.get(d["instance"]), k)
            elif puzzle == "skynet":
                dis.blocks += _drawn(_draw_skynet, d, k)
            elif puzzle == "cityclose":
                dis.blocks += _drawn(_draw_cityclose, d["instance"], by_inst[d["instance"]],
                                     found.get(d["instance"]), k)
        if len(disagreements) > MAX_DRAWN:
            dis.blocks.append(f"(the first {MAX_DRAWN} are drawn; the table lists all)")
    sections.append(dis)
    if puzzle == "cityclose":  # the maps where the methods' totals differ, drawn
        gaps = Section("Maps where the orders differ")
        for k, (name, rs) in enumerate(by_inst.items()):
            totals = {r["answer"]["total"] for r in rs if isinstance(r.get("answer"), dict)
                      and isinstance(r["answer"].get("total"), (int, float))}
            if len(totals) > 1 and k < MAX_DRAWN:
                gaps.blocks.append(f"### {name}")
                gaps.blocks += _drawn(_draw_cityclose, name, rs, found.get(name), 100 + k)
        if gaps.blocks:
            sections.append(gaps)
    if puzzle == "skynet":  # lost games (referee batches, bots against the agent): drawn
        drawn = {(d["instance"], d["methods"][0]) for d in disagreements[:MAX_DRAWN]
                 if d["methods"]}
        lost = [(r, g) for r in records for g in [_skynet_game(r.get("answer"))]
                if g is not None and g.get("result") == "LOSS"
                and (r["instance"], r["method"]) not in drawn]
        if lost:
            sec = Section("Lost games", [f"{len(lost)} more game(s) lost by a bot"
                                         + (f"; the first {MAX_DRAWN // 2} drawn"
                                            if len(lost) > MAX_DRAWN // 2 else "") + "."])
            for k, (r, g) in enumerate(lost[:MAX_DRAWN // 2]):
                sec.blocks.append(f"### {r['instance']}: {r['method']}")
                sec.blocks += _drawn(_draw_skynet, {"evidence": {"record": g},
                                                    "methods": [r["method"]]}, f"lost-{k}")
            sections.append(sec)
    unknown = [r for r in records if r["status"] in ("UNKNOWN", "ERROR")]
    if unknown:
        sections.append(Section("Unknown and failed", [Table(
            ["instance", "method", "status", "why"],
            [[r["instance"], r["method"], r["status"],
              r.get("error") or ((r.get("certificate") or {}).get("note")
                                 if isinstance(r.get("certificate"), dict) else "")
              or "its time limit ran out"] for r in unknown])]))
    if plots.blocks:
        sections.append(plots)
    return sections


# --------------------------------------------------------------------------------------------
# Death Run and generator runs


def _deathrun(recs: list[dict]) -> list[Section]:
    from puzzleproof.formats.deathrun import graph_from_obj, render_svg
    from puzzleproof.verify.deathrun_tournament import plot_scores, summarise

    games = [r for r in recs if r["type"] == "deathrun-game"]
    summary = summarise(games)
    sections = [Section("Summary", [f"{len(games)} game(s)."])]
    for role, rows in summary.items():
        if not rows:
            continue
        keys = [k for k in rows[0] if not isinstance(rows[0][k], (list, dict))]
        sections[0].blocks.append(Table(keys, [[_fmt(row[k]) for k in keys] for row in rows],
                                        f"{role}: mean with its 95 % confidence interval"))
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scores.png"
        plot_scores(games, path)
        sections.append(Section("Score distributions", [
            Figure("scores", "png", path.read_bytes(), "Scores per bot and role")]))
    failed = [r for r in recs if r["type"] == "deathrun-game-error"]
    if failed:
        sections.append(Section("Games that failed", [Table(
            ["game", "error"], [[r.get("game_id"), r.get("error")] for r in failed])]))
    bad = [g for g in games if g.get("invalid_moves")]
    shown = bad[:MAX_DRAWN // 4] or games[:1]
    drawn = Section("Games drawn", ["Games with invalid moves are drawn; without any, the "
                                    "first game."])
    for g in shown:
        try:
            graph = graph_from_obj(g.get("graph"), None, None, "the record's graph")
        except InputError as exc:
            drawn.blocks.append(f"(game {g.get('game_id')} cannot be drawn: {exc})")
            continue
        drawn.blocks.append(Figure(f"game-{g.get('game_id')}".replace("/", "-"), "svg",
                                   render_svg(graph, g),
                                   f"game {g.get('game_id')}: each student's path in its own "
                                   "colour, raised links marked"))
    sections.append(drawn)
    return sections


def _fmt(v: Any) -> Any:
    return f"{v:.2f}" if isinstance(v, float) else v


def _generated(recs: list[dict], path: str) -> list[Section]:
    from puzzleproof.formats.hashi import read_puzzles, render_svg

    text = "\n".join(json.dumps(r) for r in recs if r["type"] == "hashi")
    rows, sizes, effort, figs = [], [], [], []
    for k, rec in enumerate(read_puzzles(text, path, "jsonl")):
        meas = (recs[k].get("measures") or {})
        art = meas.get("article") or {}
        ex = meas.get("exact") or {}
        rows.append([rec.name, len(rec.puzzle.islands), art.get("assumptions"),
                     art.get("status"), ex.get("cut_rounds"), _fmt(ex.get("seconds"))])
        sizes.append(len(rec.puzzle.islands))
        effort.append(art.get("assumptions") or 0)
        if k < 6:
            figs.append(Figure(f"puzzle-{k}", "svg", render_svg(rec.puzzle, rec.solution,
                                                                title=rec.name),
                               f"{rec.name} with its unique solution"))
    blocks: list[Any] = [Table(["puzzle", "islands", "article assumptions", "article",
                                "exact cut rounds", "exact s"], rows,
                               "Each puzzle is unique (proved); the article's heuristic needs "
                               "the stated number of assumptions")]
    if rows:
        plt = _pyplot()
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.scatter(sizes, effort, s=16)
        ax.set_xlabel("islands")
        ax.set_ylabel("article's assumptions")
        ax.set_title("Hardness of the generated puzzles")
        ax.grid(alpha=0.3)
        blocks.append(Figure("hardness", "png", _png(fig), "Assumptions per puzzle size"))
    return [Section("Generated puzzles", blocks), Section("Puzzles drawn", figs)]


def build(path: str | Path, inputs: Sequence[str] = (), puzzle: str | None = None) -> Report:
    """The report of the run in ``path`` (instances for drawings found as the module
    docstring says)."""
    recs = load_run(path)
    kind = _run_kind(recs, str(path))
    if kind == "crosscheck":
        puzzle = puzzle or _guess_puzzle(recs)
        found = _Instances(puzzle, inputs, Path(path).resolve().parent)
        from puzzleproof import puzzles as registry

        title = f"Cross-check of {registry.get(puzzle).title}"
        sections = _crosscheck(recs, puzzle, found)
    elif kind == "deathrun":
        title, sections = "Death Run games", _deathrun(recs)
    else:
        title, sections = "Generated Hashi puzzles", _generated(recs, str(path))
    return Report(title, [f"Run: {Path(path).name} ({len(recs)} line(s))."], sections)


# --------------------------------------------------------------------------------------------
# Writing

_CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}
h3{font-size:1.05em;margin:1.2em 0 .4em}
table{border-collapse:collapse;margin:.6em 0 1em;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}
th{background:#f2f2f2}td.n{text-align:right}
caption{caption-side:top;text-align:left;font-style:italic;padding:.3em 0}
figure{display:inline-block;margin:.6em 1em .6em 0;vertical-align:top}
figure svg,figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.85em;color:#555;max-width:640px}
"""


def _cell(v: Any) -> str:
    return html.escape("" if v is None else str(v))


def _num(v: Any) -> str:
    try:
        float(v)
        return ' class="n"'
    except (TypeError, ValueError):
        return ""


def to_html(report: Report) -> str:
    """One self-contained page."""
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{html.escape(report.title)}</title><style>{_CSS}</style></head><body>",
           f"<h1>{html.escape(report.title)}</h1>"]
    out += [f"<p>{html.escape(p)}</p>" for p in report.intro]
    for sec in report.sections:
        out.append(f"<h2>{html.escape(sec.title)}</h2>")
        for b in sec.blocks:
            if isinstance(b, Table):
                out.append("<table>" + (f"<caption>{html.escape(b.caption)}</caption>"
                                        if b.caption else ""))
                out.append("<tr>" + "".join(f"<th>{_cell(h)}</th>" for h in b.headers) + "</tr>")
                for row in b.rows:
                    out.append("<tr>" + "".join(f"<td{_num(v)}>{_cell(v)}</td>" for v in row)
                               + "</tr>")
                out.append("</table>")
            elif isinstance(b, Figure):
                if b.kind == "svg":
                    body = b.data[b.data.find("<svg"):]
                else:
                    body = (f'<img alt="{html.escape(b.caption)}" src="data:image/png;base64,'
                            f'{base64.b64encode(b.data).decode()}">')
                out.append(f'<figure class="{b.kind}">{body}<figcaption>'
                           f"{html.escape(b.caption)}</figcaption></figure>")
            elif isinstance(b, str) and b.startswith("### "):
                out.append(f"<h3>{html.escape(b[4:])}</h3>")
            else:
                out.append(f"<p>{html.escape(str(b))}</p>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _md_cell(v: Any) -> str:
    return ("" if v is None else str(v)).replace("|", "\\|").replace("\n", " ")


def to_markdown(report: Report, stem: str) -> tuple[str, dict[str, bytes]]:
    """Markdown text and the pictures to write beside it (``{file name: bytes}``), the
    pictures named ``STEM-files/NAME.svg|png``."""
    files: dict[str, bytes] = {}
    out = [f"# {report.title}", ""] + [p + "\n" for p in report.intro]
    for sec in report.sections:
        out += [f"## {sec.title}", ""]
        for b in sec.blocks:
            if isinstance(b, Table):
                if b.caption:
                    out += [f"*{b.caption}*", ""]
                out.append("| " + " | ".join(_md_cell(h) for h in b.headers) + " |")
                out.append("|" + "---|" * len(b.headers))
                out += ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in b.rows]
                out.append("")
            elif isinstance(b, Figure):
                name = f"{stem}-files/{b.name}.{b.kind}"
                files[name] = b.data.encode() if isinstance(b.data, str) else b.data
                out += [f"![{_md_cell(b.caption)}]({name})", "", f"*{b.caption}*", ""]
            else:
                out += [str(b), ""]
    return "\n".join(out), files
