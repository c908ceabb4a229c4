"""What a person sees of city closing: the report's plots and drawings of orders."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from puzzleproof.formats.document import Figure, Section, Table

MAX_DRAWN = 24


def draw_orders(name: str, recs: list[dict], inst: Any, k: int) -> list[Any]:
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



def draw_disagreement(d: dict, recs: list[dict], inst: Any, k: int) -> list[Any]:
    return draw_orders(d["instance"], recs, inst, k)


def size(inst: Any, rec: dict) -> int | None:
    if inst is not None:
        return getattr(inst, "n", None)
    ans = rec.get("answer")
    if isinstance(ans, dict) and "order" in ans:
        return len(ans["order"]) + len(ans.get("left") or [])
    return None


def totals_sections(recs: list[dict], found: Any) -> list[Any]:
    """The totals of every method on every map, and the maps where they differ, drawn."""
    records = [r for r in recs if r["type"] == "record"]
    methods = list(dict.fromkeys(r["method"] for r in records))
    by_inst: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by_inst[r["instance"]].append(r)
    rows, gaps = [], Section("Maps where the orders differ")
    for k, (name, rs) in enumerate(by_inst.items()):
        totals = {r["method"]: r["answer"]["total"] for r in rs
                  if isinstance(r.get("answer"), dict)
                  and isinstance(r["answer"].get("total"), (int, float))}
        if not totals:
            continue
        rows.append([name, *[totals.get(m, "") for m in methods],
                     max(totals.values()) - min(totals.values())])
        if len(set(totals.values())) > 1 and k < MAX_DRAWN:
            gaps.blocks.append(f"### {name}")
            try:
                gaps.blocks += draw_orders(name, rs, found.get(name), 100 + k)
            except Exception as exc:  # noqa: BLE001 - a drawing never ends the report
                gaps.blocks.append(f"(cannot be drawn: {type(exc).__name__}: {exc})")
    out = [Section("Totals", [Table(["map", *methods, "largest gap"], rows,
                                    "Total of Wiener numbers per map and method")])]
    return out + ([gaps] if gaps.blocks else [])
