"""Skynet Revolution decided by iterative SAT: counterexample-guided expansion (CEGAR).

The game from a start node, bounded to ``H`` turns, is a two-player game the player
(cutting links) wins or loses. Two incremental python-sat solvers decide it
(:func:`puzzleproof.encoders.cegar.cegar_loop`):

**The proposer** holds a prefix tree of agent move sequences (the counterexamples so far)
and chooses, for every tree node (an agent history), the link the player cuts there; its
clauses say the player wins on every sequence in the tree: each sequence either uses a link
the player has cut (it cannot happen), is contained (value questions: a witness region with
no gateway and no uncut link leaving it), and never moves onto a gateway over an uncut link.
No proposal (UNSAT) means no strategy wins even against these few sequences: the agent wins.

**The refuter** looks for one agent move sequence that beats the proposal completed off the
tree by a default policy (:meth:`Reduced.policy`: cut the agent's own gateway link when it
has one, else a link of the node nearest the start that still has two gateway links, else
pass).
The tree's cuts come in as assumptions, so the refuter is built once and reused; tree nodes
are added as clauses as the tree grows. No sequence (UNSAT) means the completed proposal
wins. In verdict questions a cheap abstract test (:class:`PolicyCheck`) runs first and often
shows that without the SAT call. Passing is never better than cutting (fewer links only
take moves away from the agent), so the real strategy replaces every pass by some legal cut
and still wins (it follows the completed proposal on a second, smaller set of links); it is
written out as a certificate and replayed by the rules-only checker.

Questions: the **verdict** (can the player keep the agent from every gateway?) at the
horizon ``K`` = links that matter (after ``K`` cuts nothing is left to cross), where only
sequences that reach a gateway count; the **value** (fewest cuts that contain the agent) by
deepening ``H`` from a min-cut lower bound (the fewest links that separate *some* region
node from the gateways: the removed links finally separate the node where the agent ends),
where a sequence that is still free after ``H`` turns counts too; the proposer's first two
tree levels take every agent reply (:class:`Proposer`). Under ``ep1`` the value is first
asked of an exact search (:mod:`.skynet_fewest`: iterative deepening over positions with a
tempo bound and forced cuts) while its cost grows slowly: it settles the official maps
01-03 outright (a few ms), refutes map 04 up to 7 cuts in about 2.5 s, and yields to SAT
at once on map 05, where its bound is weak; a refutation it proves comes with the agent's
escape when that answers at most ESCAPE_MAX_NODES positions. ``--min-cuts`` under ``ep1``
(``benchmarks/skynet_exact.py --only-ep1``, 2 cores at load 4, November 2026): 01, 02, 03
in 0.01-0.05 s (were 0.06-0.09 s), 04 value 8 in 6.8 s (7.8 s), 06 value 5 in 1.5 s (4.6
s), both sides by the exact search on 01-03 and 06; map 05 stays open. Once the exact
search runs out below the upper bound, the same search on the map without its pockets
(nodes with no gateway link and at most 3 links, :func:`.skynet_fewest.pocket_nodes`)
raises the lower bound: a node removed never makes the agent harder to contain. Map 05
(2 cores, 26 Nov 2026): 9..20 at 5 s, 11..15 at 15 and 30 s, 12..15 at 60 and 120 s
(before the exact search's witnesses and this bound: 7..15 or 8..15 at 60 s; the issue's
target, the value proved within 60 s, is not met). Then the first upper
bound (and the verdict's certificate, when one is won) comes from a fence
(:mod:`.skynet_fences`: the Episode 2 game inside a set of nodes; it stops at the exact
search's lower bound), and each ``H`` is first tried by the exact search, while it lasts,
then by a containment search (:mod:`.skynet_contain`), both checked like every strategy;
when no fence is won the verdict is decided as usual. Under
``ep2`` only gateway links can be cut and the agent roams its component freely, so
containment needs every gateway link of that component cut: the value is that number
whenever the verdict is WIN, and the solver says so without search.

Reductions: only the agent's region (non-gateway nodes it can reach) and the links touching
it matter; links between two gateways and links elsewhere are never worth cutting. Limits
are a deadline and a conflict budget shared by all SAT calls (:class:`Budget`); a spent
limit is UNKNOWN with whatever bounds are proved.

Before the CEGAR, Episode 2 verdicts go to an exact search over positions whose leaves are
proved without search (:mod:`.skynet_table`: an invariant for the player, a fixed path for
the agent), its memo shared by the starts of a map through the cache; it decides every
start of every official map at once, and the CEGAR runs only when it runs out of its half
of the time. Under ``ep1`` the invariant alone is tried at the start.

Modules: :mod:`.skynet_reduced` holds the reduced map and :mod:`.skynet_tree` the tree of
agent lines; :mod:`.skynet_cegar` the CEGAR proper (proposer, refuter, one bounded game
decided; :mod:`.skynet_policy` its abstract policy test); :mod:`.skynet_leaves` the
invariant and fixed-path leaf tests; :mod:`.skynet_certify` writes the winner's strategy
from a decision and replays it by the rules; :mod:`.skynet_question` holds one question's
clock, budget and answer with the verdict and the bounded question, and
:mod:`.skynet_value` the Episode 1 value; this module asks them.

Limits: one :class:`~puzzleproof.clock.Deadline`, made from ``time_limit`` when
:func:`solve` starts (or passed as ``deadline``), bounds everything done for the question:
the reduction's minimum cuts, every search and its share of the time, every SAT call
(interrupted at the deadline), and writing and replaying certificates. From the number of
links that matter on, "contain within H cuts?" is the verdict (after that many cuts none is
left) and is asked as such: nothing is built per turn of a larger horizon.
"""

from __future__ import annotations

import time
from typing import Callable

from puzzleproof.encoders.skynet_cegar import (DEFAULT_SOLVER, PolicyCheck, Proposer, Refuter,
                                               SolverCache, decide)
from puzzleproof.encoders.skynet_certify import PlayerStrategy
from puzzleproof.encoders.skynet_question import Question
from puzzleproof.encoders.skynet_reduced import Reduced
from puzzleproof.encoders.skynet_tree import TNode
from puzzleproof.encoders.skynet_value import Ep1Value
from puzzleproof.errors import InputError
from puzzleproof.clock import Deadline
from puzzleproof.models.skynet import SkynetMap
from puzzleproof.result import Result

# the CEGAR's pieces, importable from here as before
__all__ = ["Reduced", "Proposer", "Refuter", "PolicyCheck", "TNode", "SolverCache",
           "PlayerStrategy", "decide", "solve", "DEFAULT_SOLVER"]


def solve(m: SkynetMap, rule: str = "ep2", start: int | None = None, *, value: bool = False,
          horizon: int | None = None, deadline: Deadline | None = None,
          conflicts: int | None = None, solver: str = DEFAULT_SOLVER,
          certificate: bool = True, cache: SolverCache | None = None,
          on_progress: Callable[[str], None] | None = None, exact: bool = True) -> Result:
    """Decide the game from ``start`` (default: the map's start).

    - default: the verdict, WIN or LOSS, with the winner's strategy as a certificate;
    - ``value``: also the fewest cuts that contain the agent (``answer["value"]``), the
      player's certificate achieving it;
    - ``horizon``: only "can the player contain the agent within ``horizon`` cuts?" (WIN
      or LOSS for that bounded game).

    ``deadline`` (the task's clock; None: no limit) bounds everything done for the
    question. ``exact=False`` leaves out the exact fewest-cuts search (:mod:`.skynet_fewest`)
    of ``ep1`` values (to see what the fence search, the containment search and SAT do
    alone). A spent limit gives UNKNOWN with the bounds proved so far in ``answer``.
    ``cache`` (a :class:`SolverCache`) shares reductions and refuters between calls on the
    same map, as for every start of a map.
    """
    t0 = time.monotonic()
    clock = deadline if deadline is not None else Deadline(None)
    s = m.start if start is None else start
    if s is None:
        raise InputError("the map gives no start node; name one")
    if horizon is not None and horizon < 0:
        raise InputError(f"horizon {horizon}: expected a number of cuts, 0 or more")
    m.initial_state(s)  # validates the start
    q = Question(m, rule, s, value=value, horizon=horizon, clock=clock,
                 conflicts=conflicts, solver=solver, certificate=certificate, cache=cache,
                 on_progress=on_progress, exact=exact, t0=t0)
    ask = Ep1Value(q).solve if value and rule == "ep1" and horizon is None else q.ask
    return q.guarded(ask)
