"""Death Run bot files run in worker processes, so that no bot can take the engine down.

A bot is ``FILE.py`` or ``FILE.py:Class``; the class defaults to ``BaseCriminal`` or
``BaseStudent`` (contest entries define their strategy under those names in ``criminal.py``
and ``student.py``). Files run unchanged: they may import networkx, random, math, copy,
heapq... A file that defines a class it also inherits from (``class BaseStudent(
BaseStudent)``) or that never defines the base classes gets the contest's bases injected.

Each worker is a long-lived process in its own process group hosting one bot at a time; each
game loads the bot's module afresh (modules imported from the bot's folder are dropped after
the game), seeds ``random`` with ``f"{seed}:{seat}"`` before loading and building it, so no
state leaks between games and games replay exactly. A bot that raises, returns garbage
(anything but plain numbers in the expected shape), prints to stdout or runs past the limit
(``move_timeout``, default 1 s; ``init_timeout``, 5 s, covers loading and ``__init__``) gets
an invalid move with the reason; a bot that timed out has its worker's whole process group
killed (a replacement is started for the next game) and its later moves in that game are
invalid. A bot that runs out of memory (each worker has an address-space limit,
``memory_limit``, default 768 MB as on CodinGame) gets the verdict "memory limit" and its worker
is replaced; one that closes or replaces its stdout, or prints, gets an invalid move saying so.
A crash names the line of the bot's own file it came from (the last frame in that file). Its
stderr (how contest players debug) goes to a file per worker, emptied at each game and cut to
its last :data:`STDERR_KEEP` bytes as it grows; the game record keeps the last of it per
seat.

No process is left behind (see :mod:`puzzleproof.processes`): workers die with their parent
(``PR_SET_PDEATHSIG`` on Linux, and a watchdog that polls the parent's pid) and take with them
their process group and every descendant (on Linux a worker is a child subreaper, so a bot's
orphaned grandchildren stay its descendants); the parent's guardian process kills the
workers' groups if the parent is killed, SIGKILL included; processes a bot forked are killed
when its game ends. What escapes: a grandchild that calls ``setsid`` *and* whose worker is
killed with SIGKILL directly (not through its parent), as that leaves nobody who knows it.

>>> parse_bot("greedy", "student").builtin, parse_bot("x.py:Mine", "criminal", check=False).cls
('greedy', 'Mine')
"""

from __future__ import annotations

import ast
import os
import pickle
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from puzzleproof import processes
from puzzleproof.games.runner import launch
from puzzleproof.models.deathrun import BaseCriminal, BaseStudent

__all__ = ["BotSpec", "parse_bot", "WorkerPool", "FilePlayer", "make_player",
           "DEFAULT_MOVE_TIMEOUT", "DEFAULT_INIT_TIMEOUT", "DEFAULT_MEMORY_LIMIT_MB"]

DEFAULT_MOVE_TIMEOUT = 1.0
DEFAULT_INIT_TIMEOUT = 5.0
#: a bot worker's address space (RLIMIT_AS), as CodinGame's memory limit
DEFAULT_MEMORY_LIMIT_MB = 768
DEFAULT_CLASS = {"criminal": "BaseCriminal", "student": "BaseStudent"}
#: the bytes of a bot's stderr a game record keeps (its last)
STDERR_KEEP = 4096
#: a bot's stderr file is cut back to its last STDERR_KEEP bytes beyond this size
STDERR_CAP = 1 << 20


def _where(exc: BaseException, path: str) -> str:
    """`` at FILE:LINE in FUNCTION``: the last frame of the bot's own file in the
    traceback of ``exc`` (empty when the error is not in that file)."""
    import traceback

    last = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename == path:
            last = (lineno, frame.f_code.co_name)
    if last is None:
        return ""
    return f" at {os.path.basename(path)}:{last[0]} in {last[1]}"


@dataclass(frozen=True)
class BotSpec:
    """A bot by name: a built-in (``builtin``) or a file and class (``path``, ``cls``).
    ``source``: the file's text as read where the bot was named (:func:`parse_bot` with
    ``check``), so that the bot travels with its games to a machine that lacks the file
    (:meth:`here`)."""

    text: str
    role: str
    builtin: str | None = None
    path: str | None = None
    cls: str | None = None
    source: str | None = field(default=None, repr=False, compare=False)

    @property
    def label(self) -> str:
        return self.text

    def here(self) -> "BotSpec":
        """This bot as this machine can load it: the file at ``path`` when it holds
        ``source``, else ``source`` written under this user's temporary folder, in a
        folder named by its digest, with the file's own name (what a crash names). A bot
        that travels so is alone in its folder: modules beside the original are found
        only where the worker sees the original folder."""
        if self.source is None or self.path is None:
            return self
        data = self.source.encode("utf-8")
        try:
            with open(self.path, "rb") as fh:
                if fh.read() == data:
                    return self
        except OSError:
            pass
        import hashlib
        import tempfile

        folder = os.path.join(tempfile.gettempdir(), f"puzzleproof-{os.getuid()}", "bots",
                              hashlib.sha256(data).hexdigest()[:24])
        target = os.path.join(folder, os.path.basename(self.path))
        if not os.path.isfile(target):
            os.makedirs(folder, mode=0o700, exist_ok=True)
            part = f"{target}.{os.getpid()}.part"
            with open(part, "wb") as fh:
                fh.write(data)
            os.replace(part, target)
        return replace(self, path=target)


def parse_bot(text: str, role: str, check: bool = True) -> BotSpec:
    """Read ``NAME`` (built-in), ``FILE.py`` or ``FILE.py:Class``. With ``check``, a missing
    file, a file that is not Python or a class it does not define is an
    :class:`~puzzleproof.errors.InputError`."""
    from puzzleproof.errors import InputError
    from puzzleproof.players.deathrun_bots import CRIMINAL_BOTS, STUDENT_BOTS

    if role not in DEFAULT_CLASS:
        raise ValueError(f"role must be criminal or student, not {role!r}")
    table = CRIMINAL_BOTS if role == "criminal" else STUDENT_BOTS
    if text in table:
        return BotSpec(text, role, builtin=text)
    path, sep, cls = text.rpartition(":") if ".py:" in text else (text, "", "")
    if not path.endswith(".py"):
        raise InputError(f"no built-in {role} bot {text!r} (expected one of "
                         f"{', '.join(table)}, or FILE.py[:Class])")
    cls = cls or DEFAULT_CLASS[role]
    if check:
        p = Path(path)
        if not p.is_file():
            raise InputError("no such bot file", path)
        try:
            source = p.read_text(encoding="utf-8")
            tree = ast.parse(source, filename=path)
        except SyntaxError as exc:
            raise InputError(f"not valid Python: {exc.msg}", path, exc.lineno, exc.offset
                             ) from None
        except (UnicodeDecodeError, OSError) as exc:
            raise InputError(f"cannot read the bot file: {exc}", path) from None
        names = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
        if cls not in names:
            raise InputError(f"defines no class {cls!r} (classes: {', '.join(names) or 'none'})",
                             path)
        return BotSpec(text, role, path=str(p.resolve()), cls=cls, source=source)
    return BotSpec(text, role, path=path, cls=cls)


# --------------------------------------------------------------------------------------------
# The worker process


def _plain(x: Any, depth: int = 0) -> Any:
    """A bot's output as plain data: ints, finite or not floats, and tuples of them;
    anything else becomes ``("__garbage__", repr)``."""
    import numbers

    if isinstance(x, bool) or x is None or isinstance(x, str):
        return x if not isinstance(x, str) else ("__garbage__", repr(x)[:120])
    if isinstance(x, numbers.Integral):
        return int(x)
    if isinstance(x, numbers.Real):
        try:
            return float(x)
        except Exception:
            return ("__garbage__", f"<{type(x).__name__}>")
    if isinstance(x, (tuple, list)) and depth == 0 and len(x) <= 16:
        return tuple(_plain(y, 1) for y in x)
    try:
        r = repr(x)
    except Exception:
        r = f"<{type(x).__name__}>"
    return ("__garbage__", r[:120])


def _group_members() -> list[int]:
    me, pg = os.getpid(), os.getpgrp()
    out = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read().decode(errors="replace")
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[2]) == pg and fields[0] != "Z":
                out.append(int(name))
        except (OSError, IndexError, ValueError):
            continue
    return out


def _strays() -> list[int]:
    """What a bot started: the other members of this worker's process group, and its
    descendants (on Linux the worker is a child subreaper, so orphans stay descendants even
    when they left the group)."""
    from puzzleproof import processes

    me = os.getpid()
    return sorted(set(_group_members()) | set(processes.descendants(me)) - {me})


def _kill_strays() -> None:
    """Kill every process a bot started (see :func:`_strays`), and reap."""
    for pid in _strays():
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break


def _exit_all(code: int = 1) -> None:
    """End this worker and everything its bots started."""
    try:
        for pid in _strays():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        os.killpg(os.getpgrp(), signal.SIGKILL)
    finally:
        os._exit(code)


def _die_with_parent(parent: int) -> None:
    """SIGTERM (the parent-death signal on Linux, or from anyone) and a parent found gone (the
    watchdog, for other systems and as a second line) end the worker and its bots' processes."""
    from puzzleproof import processes

    signal.signal(signal.SIGTERM, lambda *_: _exit_all(1))
    processes.set_child_subreaper()
    processes.die_with_parent(parent, signal.SIGTERM, on_death=_exit_all, watchdog=True)


class _BotHost:  # pragma: no cover - runs in the worker
    """The worker's side: hosts one bot at a time and answers the parent's requests
    (``load``, ``call``, ``end``, ``quit``). The bot's stdout (fd 1) goes to a private file
    whose size tells whether it printed; its stderr goes nowhere."""

    def __init__(self, conn: Connection, err_path: str) -> None:
        import tempfile

        self.conn = conn
        err_fd = os.open(err_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self.capture = tempfile.TemporaryFile()
        os.dup2(self.capture.fileno(), 1)
        os.dup2(err_fd, 2)
        sys.stdout = open(1, "w", closefd=False)
        sys.stderr = open(2, "w", closefd=False, buffering=1)  # line by line, as a terminal
        try:
            import networkx  # noqa: F401  (most contest bots import it; load it once)
        except ImportError:
            pass
        st = os.fstat(self.capture.fileno())
        self.capture_id = (st.st_dev, st.st_ino)
        self.bot: Any = None
        self.counter = 0
        self.added_paths: list[str] = []
        self.before_modules: set[str] = set()
        self.bot_dir = ""
        self.bot_path = ""

    def printed(self) -> str | None:
        """None, ``"printed"`` (the bot wrote to stdout) or ``"closed"`` (it closed or
        replaced fd 1, which is then restored). Its stderr is flushed to its file."""
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        try:
            st = os.fstat(1)
            same = (st.st_dev, st.st_ino) == self.capture_id
        except OSError:
            same = False
        if not same:
            os.dup2(self.capture.fileno(), 1)
            sys.stdout = open(1, "w", closefd=False)
            os.ftruncate(1, 0)
            os.lseek(1, 0, 0)
            return "closed"
        if st.st_size:
            os.ftruncate(1, 0)
            os.lseek(1, 0, 0)
            return "printed"
        return None

    def cleanup(self) -> None:
        """Drop the bot, the modules it imported from its folder, its path entries, and
        every process it started."""
        self.bot = None
        for name in list(sys.modules):
            if name in self.before_modules:
                continue
            mod = sys.modules.get(name)
            f = getattr(mod, "__file__", None) or ""
            if name.startswith("_deathrun_bot_") or (self.bot_dir and f.startswith(self.bot_dir)):
                del sys.modules[name]
        for p in self.added_paths:
            while p in sys.path:
                sys.path.remove(p)
        self.added_paths.clear()
        _kill_strays()

    def load(self, msg: tuple) -> tuple[str, Any]:
        import importlib.util
        import random

        _, path, cls_name, _role, edge_list, begin, ends, seed_text = msg
        self.cleanup()
        self.bot_path = path
        self.counter += 1
        self.bot_dir = os.path.dirname(path) + os.sep
        self.before_modules = set(sys.modules)
        try:
            sys.path.insert(0, os.path.dirname(path))
            self.added_paths.append(os.path.dirname(path))
            random.seed(seed_text)
            name = f"_deathrun_bot_{self.counter}"
            spec = importlib.util.spec_from_file_location(name, path)
            mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
            # the contest's base classes (models.deathrun), for files that use them
            # without importing them; a file that defines its own replaces them
            mod.__dict__.update(BaseCriminal=BaseCriminal, BaseStudent=BaseStudent)
            sys.modules[name] = mod
            spec.loader.exec_module(mod)  # type: ignore[union-attr]
            self.bot = getattr(mod, cls_name)(edge_list, begin, ends)
            reply: tuple[str, Any] = ("ok", None)
        except MemoryError:
            self.bot = None
            reply = ("memory", "init failed: memory limit reached (MemoryError)")
        except BaseException as exc:  # noqa: BLE001 - SystemExit too
            self.bot = None
            reply = ("error", f"init failed{_where(exc, path)}: {type(exc).__name__}: "
                              f"{exc}"[:300])
        if self.printed() and reply[0] == "ok":
            reply = ("ok-printed", None)
        return reply

    def call(self, args: tuple) -> tuple[str, Any]:
        if self.bot is None:
            return "error", "bot not running"
        try:
            reply: tuple[str, Any] = ("ok", _plain(self.bot.strategy(*args)))
        except MemoryError:
            reply = ("memory", "memory limit reached (MemoryError)")
        except BaseException as exc:  # noqa: BLE001
            reply = ("error", f"crash{_where(exc, self.bot_path)}: {type(exc).__name__}: "
                              f"{exc}"[:300])
        out = self.printed()
        if out == "closed" and reply[0] != "memory":
            reply = ("error", "closed its stdout (the output channel is the move)")
        elif out and reply[0] != "memory":
            reply = ("error", "printed to stdout (the output channel is the move)")
        return reply

    def serve(self) -> None:
        while True:
            try:
                msg = self.conn.recv()
            except (EOFError, OSError):  # the parent is gone: take the bots' processes along
                _exit_all(0)
            kind = msg[0]
            if kind == "quit":
                self.cleanup()
                _exit_all(0)
            if kind == "end":
                self.cleanup()
                reply: tuple[str, Any] = ("ok", None)
            elif kind == "load":
                reply = self.load(msg)
            elif kind == "call":
                reply = self.call(msg[1])
            else:
                reply = ("error", f"unknown request {kind!r}")
            try:
                self.conn.send(reply)
            except (pickle.PicklingError, TypeError):
                self.conn.send(("error", "unpicklable output"))


def _worker_main(fd: int, parent: int, err_path: str) -> None:  # pragma: no cover
    _die_with_parent(parent)
    _BotHost(Connection(fd), err_path).serve()


# --------------------------------------------------------------------------------------------
# The parent side


class _Worker:
    def __init__(self, memory_limit: float | None = DEFAULT_MEMORY_LIMIT_MB) -> None:
        parent_sock, child_sock = socket.socketpair()
        fd = child_sock.fileno()
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH")
                                    else "")
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env.setdefault(var, "1")  # thread pools would eat the address-space limit
        import tempfile

        err_fd, self.err_path = tempfile.mkstemp(prefix="puzzleproof-bot-", suffix=".stderr")
        os.close(err_fd)
        code = ("import sys; from puzzleproof.games.deathrun_workers import _worker_main; "
                f"_worker_main({fd}, {os.getpid()}, {self.err_path!r})")
        # started as every judged program is (its own process group, the memory limit and
        # the parent-death signal, listed with the guardian): puzzleproof.games.runner
        try:
            self.proc, self.notes = launch([sys.executable, "-c", code],
                                           memory_limit=memory_limit, env=env, pass_fds=(fd,),
                                           pipes=False)
        except BaseException:
            child_sock.close()
            parent_sock.close()
            raise
        for n in self.notes:
            processes.note(n)
        child_sock.close()
        self.sock = parent_sock
        self.conn = Connection(os.dup(parent_sock.fileno()))
        self.alive = True

    def request(self, msg: tuple, timeout: float) -> tuple[str, Any]:
        """Send and wait; ``("timeout", None)`` or ``("died", detail)`` on failure."""
        if not self.alive:
            return "died", "worker not running"
        try:
            self.conn.send(msg)
            if not self.conn.poll(timeout):
                self.kill()
                return "timeout", None
            return self.conn.recv()
        except (EOFError, OSError, pickle.UnpicklingError):
            try:
                code = self.proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                code = None
            self.kill()
            return "died", f"the bot's process ended (exit code {code})"

    def kill(self) -> None:
        """Kill the worker's process group and what is still attached to it, and reap it."""
        if self.alive:
            self.alive = False
        processes.kill_tree(self.proc.pid, reaped=self.proc.returncode is not None)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for x in (self.conn, self.sock):
            try:
                x.close()
            except OSError:
                pass
        if not hasattr(self, "last_tail"):
            self.last_tail = self.stderr_tail()  # what it wrote before it was killed
        try:
            os.unlink(self.err_path)
        except OSError:
            pass

    def stderr_tail(self) -> str:
        """The last :data:`STDERR_KEEP` bytes the bot wrote to its stderr this game (the
        file is cut back when it has grown past :data:`STDERR_CAP`)."""
        try:
            with open(self.err_path, "rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                fh.seek(max(0, size - STDERR_KEEP))
                tail = fh.read(STDERR_KEEP)
            if size > STDERR_CAP:
                with open(self.err_path, "wb") as fh:
                    fh.write(tail)
        except OSError:
            return getattr(self, "last_tail", "")
        return tail.decode("utf-8", "replace")

    def stderr_reset(self) -> None:
        try:
            os.truncate(self.err_path, 0)
        except OSError:
            pass

    def quit(self) -> None:
        if self.alive:
            try:
                self.conn.send(("quit",))
                self.proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()  # the group too: nothing a bot forked survives


class WorkerPool:
    """Long-lived worker processes for bot files; a context manager that kills them all.

    >>> with WorkerPool() as pool:
    ...     pool.size()
    0
    """

    def __init__(self, move_timeout: float = DEFAULT_MOVE_TIMEOUT,
                 init_timeout: float = DEFAULT_INIT_TIMEOUT,
                 memory_limit: float | None = DEFAULT_MEMORY_LIMIT_MB) -> None:
        self.move_timeout = move_timeout
        self.init_timeout = init_timeout
        self.memory_limit = memory_limit
        self.idle: list[_Worker] = []
        self.busy: list[_Worker] = []
        self.started = 0

    def size(self) -> int:
        return len(self.idle) + len(self.busy)

    def acquire(self) -> _Worker:
        while self.idle:
            w = self.idle.pop()
            if w.alive and w.proc.poll() is None:
                self.busy.append(w)
                return w
            w.kill()
        w = _Worker(self.memory_limit)
        self.started += 1
        self.busy.append(w)
        return w

    def release(self, w: _Worker) -> None:
        if w in self.busy:
            self.busy.remove(w)
        if w.alive and w.proc.poll() is None:
            status, _ = w.request(("end",), max(self.init_timeout, 5.0))
            if status == "ok" and w.alive:
                self.idle.append(w)
                return
        w.kill()

    def pids(self) -> list[int]:
        return [w.proc.pid for w in self.idle + self.busy if w.alive]

    def close(self) -> None:
        for w in self.idle + self.busy:
            w.quit()
        self.idle.clear()
        self.busy.clear()

    def __enter__(self) -> "WorkerPool":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


def _import_player_base():
    from puzzleproof.models.deathrun import Player
    return Player


class FilePlayer(_import_player_base()):  # type: ignore[misc]
    """An engine player for a bot file, run in a worker of ``pool``."""

    def __init__(self, spec: BotSpec, pool: WorkerPool, name: str | None = None) -> None:
        self.spec = spec
        self.pool = pool
        self.name = name or spec.label
        self.worker: _Worker | None = None
        self.dead: str | None = None
        self.round = 0

    def start(self, edge_list, begin, ends, seed_text):
        self.worker = self.pool.acquire()
        self.worker.stderr_reset()
        self.stderr = ""
        t0 = time.monotonic()
        status, detail = self.worker.request(
            ("load", self.spec.path, self.spec.cls, self.spec.role, edge_list, begin, ends,
             seed_text), self.pool.init_timeout)
        if status in ("ok", "ok-printed"):
            return None
        if status == "memory":
            self.dead = self._memory(detail)
        elif status == "timeout":
            self.dead = f"init timeout: no answer within {self.pool.init_timeout:g} s"
        elif status == "died":
            self.dead = f"init failed: {detail}"
        else:
            self.dead = str(detail)
        _ = t0
        return self.dead

    def call(self, *args):
        self.round += 1
        if self.dead:
            return None, f"bot not running ({self.dead})"
        assert self.worker is not None
        status, detail = self.worker.request(("call", args), self.pool.move_timeout)
        if status == "ok":
            if isinstance(detail, tuple) and len(detail) == 2 and detail[0] == "__garbage__":
                return None, f"garbage output: {detail[1]}"
            if isinstance(detail, tuple) and any(isinstance(x, tuple) and len(x) == 2 and
                                                 x[0] == "__garbage__" for x in detail):
                return None, "garbage output: " + ", ".join(
                    x[1] if isinstance(x, tuple) else repr(x) for x in detail)[:200]
            return detail, None
        if status == "memory":
            self.dead = f"memory limit in round {self.round}"
            return None, self._memory(detail)
        if status == "timeout":
            self.dead = f"timed out in round {self.round}"
            return None, f"timeout: no answer within {self.pool.move_timeout:g} s"
        if status == "died":
            self.dead = f"its process died in round {self.round}"
            return None, f"crash: {detail}"
        return None, str(detail)

    def _memory(self, detail: Any) -> str:
        """The verdict for a bot that ran out of memory; its worker is not reused."""
        if self.worker is not None:
            self.worker.kill()
        limit = self.pool.memory_limit
        return (f"memory limit: {detail}" + (f" (limit {limit:g} MB)" if limit else ""))

    def stderr_tail(self) -> str:
        """The last of what the bot wrote to stderr in this game."""
        if self.worker is not None:
            self.stderr = self.worker.stderr_tail()
        return getattr(self, "stderr", "")

    def close(self):
        if self.worker is not None:
            self.stderr = self.worker.stderr_tail()
            self.pool.release(self.worker)
            self.worker = None


def make_player(spec: BotSpec | str, role: str, pool: WorkerPool | None = None):
    """An engine player for a bot spec (a built-in in process, a file in ``pool``)."""
    from puzzleproof.players.deathrun_bots import builtin_player

    if isinstance(spec, str):
        spec = parse_bot(spec, role)
    if spec.builtin:
        return builtin_player(spec.builtin, role)
    if pool is None:
        raise ValueError("a bot file needs a WorkerPool")
    return FilePlayer(spec, pool)
