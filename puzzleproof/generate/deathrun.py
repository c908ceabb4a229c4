"""Seeded Death Run graphs where greedy play is punished hardest, with the evidence.

Each candidate is a contest graph (``generate_graph(f"{seed}:{i}")``). On it, the greedy
student's realised cost (the worst of a field of eight greedy students) is measured in a game
against a ``toll`` pair (the strongest built-in criminals; ``criminals`` to change it) and
compared with the robust student's certified bound on that graph (step 1, combined budget
200): the graphs kept are those with the widest ``greedy cost - robust bound``, ties by the
greedy cost. A positive gap means greedy paid more than the robust student is guaranteed
never to pay against any criminals (measured: on about a fifth of contest graphs against
``toll``, by up to about 80; against ``gap-toll`` the gap stays negative).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from puzzleproof.models.deathrun import Graph, generate_graph, nominal_distance, play_game

__all__ = ["generate"]


def _measure(seed: int | str, i: int, criminals: Sequence[str]
             ) -> tuple[float, float, int, Graph, dict[str, Any]]:
    """Candidate ``i``: the greedy field's cost against ``criminals`` and the robust bound."""
    from puzzleproof.encoders.deathrun_robust import robust_table
    from puzzleproof.players.deathrun_bots import builtin_player

    gseed = f"{seed}:{i}"
    g = generate_graph(gseed)
    bound = robust_table(g, 200, 1.0, lower=False).bound()
    rec = play_game(g, [builtin_player(c, "criminal") for c in criminals],
                    [builtin_player("greedy", "student") for _ in range(8)], seed=gseed)
    cost = max(rec["scores"]["students"])
    ev = {"graph_seed": gseed, "robust_bound": bound, "greedy_cost": cost,
          "gap": cost - bound, "nominal": nominal_distance(g),
          "criminals": list(criminals), "game_seed": gseed}
    return cost - bound, cost, i, g, ev


def generate(count: int, seed: int | str = 0, *, candidates: int | None = None,
             criminals: Sequence[str] = ("toll", "toll"), jobs: Any = 1,
             progress: Callable[[int, int], None] | None = None
             ) -> list[tuple[Graph, dict[str, Any]]]:
    """The ``count`` candidates (of ``candidates``, default ``10 * count``) with the widest
    gap, best first, each with its evidence (bound, greedy cost, the game's seed).
    Candidates are measured on ``jobs`` (local processes or an
    :class:`~puzzleproof.executor.ExecutorSpec`); the same graphs whatever runs them.
    ``progress(done, total)`` after each candidate."""
    from puzzleproof import executor

    n = candidates or 10 * count
    scored = []
    with executor.open_pool(jobs) as pool:
        for i, got in pool.stream(_measure, range(n), args=lambda i: (seed, i, tuple(criminals)),
                                  name=lambda i: f"candidate {seed}:{i}"):
            if isinstance(got, executor.TaskFailure):
                raise RuntimeError(got.message)
            scored.append(got)
            if progress:
                progress(len(scored), n)
    scored.sort(key=lambda x: (-x[0], -x[1], x[2]))
    return [(g, ev) for _, _, _, g, ev in scored[:count]]
