"""What a bot answered on a map, kept from one start's search to the next.

The adversary (:mod:`puzzleproof.games.skynet_adversary`) judges every start of a map
against the same bot. Positions from which every line was won against that bot (*settled*:
the bot's cut there and at every position after it is known, and every line ends with the
agent contained) stay won whatever start led there, as long as the bot decides from the
position alone, the assumption position mode makes and checks. :class:`Knowledge` keeps the
settled positions and the bot's cut at each, per (map, rule, bot), so that a later start's
lines end where they enter them.

A batch judges its starts in several processes (a pool, each task in a forked child of a
worker), so knowledge is also kept on disk, one file per (map, rule, bot) in a directory of
the run: the directory named by ``PUZZLEPROOF_ADVERSARY_STORE`` when set (the caller
removes it), else ``adversary-<pid>-<start time>`` of the run's main process under
``$TMPDIR/puzzleproof-<uid>/``, removed by the next run once that process has ended. A
process that is the run itself (one start from the command line, a test) keeps knowledge in
memory only. Each file is a sequence of fixed-size records (agent node, index of the link
cut, links mask), appended under a lock, read by every process from where it last stopped,
so concurrent starts of the same map share as they go. A bot found to answer a position two
ways is marked (``.mixed``) and shares nothing more in the run.
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import os
import shutil
import struct
import tempfile
import threading

__all__ = ["Knowledge", "knowledge_for", "STORE_ENV"]

STORE_ENV = "PUZZLEPROOF_ADVERSARY_STORE"
_HEAD = struct.Struct("<HH")
_LOCK = threading.Lock()
_MEMORY: dict[tuple, "Knowledge"] = {}
_RUN_DIR: list[str] = []


class Knowledge:
    """Settled positions ``(agent, links mask)`` and the bot's cut at each (the bit of the
    link), for one (map, rule, bot); ``mixed`` once the bot answered a position two ways."""

    def __init__(self, links: int, path: str | None) -> None:
        self.cuts: dict[tuple[int, int], int] = {}
        self.settled: set[tuple[int, int]] = set()
        self.path = path
        self.width = (links + 7) // 8
        self.offset = 0
        self.mixed = path is not None and os.path.exists(path + ".mixed")

    def refresh(self) -> None:
        """Read what other processes settled since the last look."""
        if self.path is None or self.mixed:
            return
        if os.path.exists(self.path + ".mixed"):
            self.mixed = True
            return
        try:
            with open(self.path, "rb") as f:
                fcntl.flock(f, fcntl.LOCK_SH)
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return
        size = _HEAD.size + self.width
        whole = len(data) - len(data) % size
        for k in range(0, whole, size):
            agent, cut = _HEAD.unpack_from(data, k)
            mask = int.from_bytes(data[k + _HEAD.size:k + size], "little")
            self.cuts.setdefault((agent, mask), 1 << cut)
            self.settled.add((agent, mask))
        self.offset += whole

    def learn(self, settled: list[tuple[tuple[int, int], int]]) -> None:
        """Keep these settled positions (``((agent, mask), cut bit)``), here and on disk."""
        if self.mixed:
            return
        new = [(key, cut) for key, cut in settled if key not in self.settled]
        for key, cut in new:
            self.cuts.setdefault(key, cut)
            self.settled.add(key)
        if self.path is None or not new:
            return
        data = b"".join(_HEAD.pack(a, cut.bit_length() - 1) + mask.to_bytes(self.width,
                                                                             "little")
                        for (a, mask), cut in new)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)

    def forget(self) -> None:
        """The bot answered a position two ways: share nothing more (here and in the run)."""
        self.mixed = True
        self.cuts.clear()
        self.settled.clear()
        if self.path is not None:
            with open(self.path + ".mixed", "w"):
                pass


def knowledge_for(m, rule: str, identity: tuple | None) -> Knowledge | None:
    """The knowledge of the bot with this ``identity`` (None: none, it cannot be told
    apart from another) on this map under this rule, read up to date."""
    if identity is None:
        return None
    key = (m.n, m.links, m.gateways, rule, identity)
    with _LOCK:
        k = _MEMORY.get(key)
        if k is None:
            while len(_MEMORY) >= 4:
                _MEMORY.pop(next(iter(_MEMORY)))
            # on disk only for an identity of plain values (names, paths, numbers): an
            # object's repr may name another object in another process
            folder = _store_dir() if _plain(identity) else None
            name = hashlib.sha256(repr(key).encode()).hexdigest()[:24]
            k = _MEMORY[key] = Knowledge(len(m.links),
                                         None if folder is None else
                                         os.path.join(folder, name + ".pos"))
    if k.mixed:
        return None
    k.refresh()
    return None if k.mixed else k


def _plain(value) -> bool:
    if isinstance(value, tuple):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (str, int, float, bool))


def _store_dir() -> str | None:
    """The run's directory (see the module doc), made on first use; None in the run's own
    process, which keeps knowledge in memory."""
    named = os.environ.get(STORE_ENV)
    if named:
        os.makedirs(named, exist_ok=True)
        return named
    if _RUN_DIR:
        return _RUN_DIR[0]
    import multiprocessing

    parent = multiprocessing.parent_process()
    if parent is None or parent.pid is None:
        return None
    root = os.path.join(tempfile.gettempdir(), f"puzzleproof-{os.getuid()}")
    os.makedirs(root, mode=0o700, exist_ok=True)
    _remove_stale(root)
    run = os.path.join(root, f"adversary-{parent.pid}-{_started(parent.pid)}")
    os.makedirs(run, exist_ok=True)
    _RUN_DIR.append(run)
    return run


def _started(pid: int) -> str:
    """When process ``pid`` started (clock ticks since boot), to tell it from a later
    process given the same id; '0' where the system does not say."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return "0"


def _remove_stale(root: str) -> None:
    for name in os.listdir(root):
        if not name.startswith("adversary-"):
            continue
        try:
            _, pid, started = name.split("-")
            alive = _started(int(pid)) == started and started != "0"
        except ValueError:
            continue
        if not alive and not (started == "0" and _exists(int(pid))):
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@atexit.register
def _clean_own() -> None:
    """A run whose main process is this one leaves no directory behind."""
    root = os.path.join(tempfile.gettempdir(), f"puzzleproof-{os.getuid()}")
    mine = os.path.join(root, f"adversary-{os.getpid()}-{_started(os.getpid())}")
    if os.path.isdir(mine):
        shutil.rmtree(mine, ignore_errors=True)
