"""Copies of a running Python program: the referee's side of :mod:`.fork_host`.

A Python program (``python [OPTIONS] bot.py``, ``python -m module``, or a script whose
``#!`` line names Python) can run under the fork host (:func:`fork_host_command`), which
forks it where it stands on request: the referee sends the copy's standard input, output
and control socket over the run's control socket, then ``SIGUSR1``
(:func:`send_request`); the copy announces its process id (:func:`wait_born`) and goes on
from the very same state. Every copy lives in the run's process group; a :class:`Family`
kills that group with its last member.

A **pristine run** (:func:`pristine_run`) is such a run started and left waiting for its
first input, kept for the life of this process (one per program, ended after
:data:`PRISTINE_IDLE_SECONDS` unused), within :func:`pristine_runs` only (a hunt, where it
pays; one judge alone, such as a breaker judged again, runs the program afresh): a judge that needs the program from its start many
times (a hunt: thousands of small instances) forks it instead of starting an interpreter and
the program's imports each time. Copies are fast, not authoritative: their standard error
goes nowhere and their exit status is not seen (they are children of the run, not of the
referee), so whatever a copy gets wrong is confirmed by a fresh run before it is reported.
:func:`answer_from_copy` is the one-answer protocol (a puzzle solver) on a copy; a game's
sessions are :mod:`.skynet_sessions`.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import platform
import re
import select
import shutil
import signal
import socket
import threading
import time
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from puzzleproof.clock import Deadline

if TYPE_CHECKING:
    from puzzleproof.games.program import Program
    from puzzleproof.games.runner import Completion, ExternalProgram

__all__ = ["Family", "PristineRun", "fork_host_command", "hosted", "send_request", "wait_born",
           "pristine_run", "pristine_runs", "close_pristine", "answer_from_copy", "FORK_SECONDS",
           "PRISTINE_INPUT_BYTES", "PRISTINE_IDLE_SECONDS"]

#: seconds a program has to answer a fork request (it is normally waiting for input)
FORK_SECONDS = 2.0
#: the longest first input given to a copy of a pristine run: it is written before the copy
#: exists, into a pipe that holds 64 KB
PRISTINE_INPUT_BYTES = 16 * 1024
#: seconds a pristine run is kept unused before it is ended (a hunt uses it every few
#: milliseconds; a long-lived worker process, such as a Dask worker's, must not keep it)
PRISTINE_IDLE_SECONDS = 20.0
#: how often a starting program is looked at until it waits for its input
_IDLE_POLL = 0.005
#: the number of the ``read`` system call, where ``/proc/PID/syscall`` says it
_READ_CALL = {"x86_64": "0", "aarch64": "63"}.get(platform.machine())
_HOST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fork_host.py")
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")
_MODULE = re.compile(r"^[A-Za-z_][\w.]*$")
#: interpreter options that leave ``python [OPTIONS] script.py`` a plain script run
_PY_FLAGS = {"-u", "-O", "-OO", "-B", "-E", "-s", "-S", "-I", "-q"}


class Family:
    """The processes forked from one host run: one process group, closed with its last
    member (the group is killed then, copies and their children included)."""

    def __init__(self, prog: "ExternalProgram") -> None:
        self.prog, self.members, self.lock = prog, 1, threading.Lock()

    def join(self) -> None:
        with self.lock:
            self.members += 1

    def leave(self) -> None:
        with self.lock:
            self.members -= 1
            last = self.members == 0
        if last:
            self.prog.close()


def send_request(ctrl: socket.socket, family: Family) -> tuple[int, int, socket.socket] | None:
    """Ask the run behind ``ctrl`` for a copy (it is made when the run is signalled):
    ``(stdin to write, stdout to read, the copy's control socket)``, the copy a member of
    ``family``; None when the request cannot be sent (the run is gone)."""
    ir, iw = os.pipe()
    orr, ow = os.pipe()
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        socket.send_fds(ctrl, [b"F"], [ir, ow, theirs.fileno()])
    except OSError:
        for fd in (iw, orr):
            os.close(fd)
        mine.close()
        return None
    finally:
        os.close(ir)
        os.close(ow)
        theirs.close()
    family.join()
    return iw, orr, mine


def wait_born(ctrl: socket.socket, parent_pid: int, deadline: Deadline | None = None) -> int:
    """The process id a copy announces on ``ctrl`` (-1: none came before ``deadline``,
    :data:`FORK_SECONDS` from now by default)."""
    got = b""
    end = (deadline or Deadline(FORK_SECONDS)).at or time.monotonic() + FORK_SECONDS
    wait = 0.02
    try:
        while True:
            ctrl.settimeout(max(0.001, min(wait, end - time.monotonic())))
            try:
                got = ctrl.recv(32)
                break
            except socket.timeout:
                if time.monotonic() >= end:
                    raise
            # a signal that lands just before the program blocks in read() is not seen
            # until its next input: signal again (a spare signal finds nothing to do)
            os.kill(parent_pid, signal.SIGUSR1)
            wait = min(0.5, wait * 2)
        return int(got) if got.endswith(b"\n") else -1
    except (OSError, ValueError):
        return -1


# -- pristine runs ----------------------------------------------------------------------------

class PristineRun:
    """A Python program started under the fork host and left waiting for its first input
    (see the module doc). ``spent``: the seconds that took, which a copy's first answer
    does not get again (its first-answer limit is what a fresh run would have left)."""

    def __init__(self, program: "Program") -> None:
        from puzzleproof.games.runner import ProgramEnded, start

        t0 = time.monotonic()
        self.prog: "ExternalProgram | None" = None
        with hosted(program.command, program.cwd) as (argv, fds, self.ctrl):
            if argv is not None:
                with contextlib.suppress(ProgramEnded):
                    self.prog = start(program, argv=argv, pass_fds=fds)
        self.pid = 0 if self.prog is None else self.prog.pid
        self.family = None if self.prog is None else Family(self.prog)
        self.ready = self.prog is not None and _waits_for_input(
            self.pid, Deadline(program.limits.first), self.prog.exited)
        self.spent = time.monotonic() - t0
        #: answers given by copies, and the seconds they took (see :meth:`worth_it`)
        self.answers, self.answer_seconds = 0, 0.0

    def worth_it(self) -> bool:
        """Whether a copy still saves at least half a fresh run: its answers (after the
        first three) take less on average than the start-up it saves. A program whose
        work comes after its input (imports made when it is first asked) is run afresh."""
        return self.answers < 3 or self.answer_seconds / self.answers < self.spent

    def request(self) -> tuple[int, int, socket.socket] | None:
        """A copy asked for (:func:`send_request`); :meth:`signal` makes it."""
        return None if self.family is None else send_request(self.ctrl, self.family)

    def signal(self) -> None:
        try:
            os.kill(self.pid, signal.SIGUSR1)
        except OSError:  # gone: the copy never comes, and its wait says so
            pass

    def alive(self) -> bool:
        return self.prog is not None and not self.prog.exited()

    def close(self) -> None:
        """End the run; its copies live on until they are closed (the family's last)."""
        self.ctrl.close()
        if self.prog is None:
            return
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        family, self.family = self.family, None
        if family is not None:
            family.leave()


_runs: dict[tuple, PristineRun | None] = {}
_used: dict[tuple, float] = {}
_lock = threading.Lock()
_reaper: list[threading.Thread] = []
_allowed = [0]  # how many :func:`pristine_runs` blocks are open in this process


@contextlib.contextmanager
def pristine_runs(end: bool = True) -> Iterator[None]:
    """Within this block (any thread of the process), programs are started once and copied
    (:func:`pristine_run`); ``end``: their runs end with the block (a hunt's own process;
    a worker's task leaves them to its next task, the idle reaper and the worker's end)."""
    with _lock:
        _allowed[0] += 1
    try:
        yield
    finally:
        with _lock:
            _allowed[0] -= 1
        if end:
            close_pristine()


def pristine_run(program: "Program") -> PristineRun | None:
    """This process's pristine run of ``program``, started on first use; None outside
    :func:`pristine_runs`, when the program is not one the fork host runs, or when it does
    not come to wait for its input within its first-answer limit (it is then run afresh,
    where any fault of its start-up shows)."""
    if not _allowed[0]:
        return None
    key = (os.getpid(), *program.identity())
    with _lock:
        _used[key] = time.monotonic()
        run = _runs.get(key, False)
        if run and not run.alive():
            run.close()  # it died since (killed from outside): started again, once
            run = False
        if run is False:
            run = PristineRun(program)
            if not run.ready:
                run.close()
                run = None
            _runs[key] = run
            _start_reaper()
        return run


def _start_reaper() -> None:
    if not any(t.is_alive() for t in _reaper):
        _reaper[:] = [threading.Thread(target=_reap_idle, name="pristine-reaper",
                                       daemon=True)]
        _reaper[0].start()


def _reap_idle() -> None:
    """End the pristine runs unused for :data:`PRISTINE_IDLE_SECONDS`, until none is left."""
    while True:
        time.sleep(PRISTINE_IDLE_SECONDS / 4)
        now = time.monotonic()
        close_pristine(lambda key: now - _used.get(key, 0.0) > PRISTINE_IDLE_SECONDS)
        with _lock:
            if not any(k[0] == os.getpid() for k in _runs):
                return


def close_pristine(which: Callable[[tuple], bool] = lambda key: True) -> None:
    """End this process's pristine runs (``which`` of them, by key); their copies live on
    until they are closed."""
    with _lock:
        mine = [k for k in _runs if k[0] == os.getpid() and which(k)]
        runs = [_runs.pop(k) for k in mine]
    for run in runs:
        if run is not None:
            run.close()


atexit.register(close_pristine)


def _waits_for_input(pid: int, deadline: Deadline, exited: Callable[[], bool]) -> bool:
    """Whether process ``pid`` comes to wait in a read of its standard input before
    ``deadline`` (Linux's ``/proc`` says where a process is blocked; elsewhere it is not
    known: False), before it has ``exited()``. A pristine run is forked where it stands, so
    it must stand there."""
    while not exited():
        try:
            with open(f"/proc/{pid}/syscall") as f:
                words = f.read().split()
        except OSError:
            words = []
        if _READ_CALL is not None and words[:2] == [_READ_CALL, "0x0"]:
            return True
        if not words:
            try:
                with open(f"/proc/{pid}/wchan") as f:
                    if f.read().strip().endswith("pipe_read"):
                        return True
            except OSError:
                return False
        if deadline.expired():
            return False
        time.sleep(_IDLE_POLL)
    return False


# -- one answer from a copy ------------------------------------------------------------------

def answer_from_copy(program: "Program", stdin_text: str, deadline: Deadline
                     ) -> "Completion | None":
    """:func:`~puzzleproof.games.runner.answer` with ``close_input``, played by a copy of the
    program's pristine run: the input, then its output until it closes it, by ``deadline``
    (the task's, less the run's start-up: what a fresh run would have had; a task without
    one: the first-answer limit). Not authoritative: no stderr, no exit status, so a copy
    that wrote a wrong answer, or none, is to be confirmed by a fresh run. None when there
    is no pristine run (or the input is too long to be written ahead)."""
    from puzzleproof.games.runner import Completion, ExitInfo

    data = stdin_text.encode()
    run = pristine_run(program) if len(data) <= PRISTINE_INPUT_BYTES else None
    request = None if run is None or not run.worth_it() else run.request()
    if request is None:
        return None
    iw, orr, mine = request
    family = run.family
    run.signal()
    pidfd = pid = -1
    finished = False
    try:
        os.write(iw, data)  # it waits in the pipe while the copy is made
        os.close(iw)
        iw = -1
        pid = wait_born(mine, run.pid)
        if pid <= 0:
            return None
        pidfd = _pidfd(pid)
        t0 = time.monotonic()
        at = (deadline.at if deadline.at is not None else t0 + program.limits.first)
        out, finished, verdict = _read_to_end(orr, Deadline(deadline.limit,
                                                            at=at - run.spent))
        run.answers += 1
        run.answer_seconds += time.monotonic() - t0
        return Completion(out, finished, run.spent + time.monotonic() - t0, "", verdict,
                          ExitInfo())
    except OSError:
        return None
    finally:
        if pidfd >= 0:  # not its pid: once it exits, the run may reap it and the id be reused
            try:
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            except OSError:
                pass
            os.close(pidfd)
        elif pid > 0 and not finished:  # still writing, or still running
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for fd in (iw, orr):
            if fd >= 0:
                os.close(fd)
        mine.close()
        if family is not None:
            family.leave()


def _pidfd(pid: int) -> int:
    """A descriptor of process ``pid`` (Linux), to signal it safely; -1 where there is none
    (it then ends with the run's process group)."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return -1


def _read_to_end(fd: int, deadline: Deadline) -> tuple[str, bool, tuple[str, str] | None]:
    """What the copy writes on ``fd`` until it closes it: ``(text, closed in time,
    verdict)``, with the runner's cap on the whole output."""
    from puzzleproof.games.runner import MAX_OUTPUT_BYTES

    buf = bytearray()
    while True:
        left = deadline.left() or 0.0
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return buf.decode(errors="replace"), False, (
                "timeout", f"still running after {deadline.limit or 0:g} s")
        chunk = os.read(fd, 65536)
        if not chunk:
            return buf.decode(errors="replace"), True, None
        buf += chunk
        if len(buf) > MAX_OUTPUT_BYTES:
            return (buf[:MAX_OUTPUT_BYTES].decode(errors="replace"), False,
                    ("output-too-long", f"more than {MAX_OUTPUT_BYTES >> 20} MB of output"))


@contextlib.contextmanager
def hosted(command: Sequence[str], cwd: str | None
           ) -> Iterator[tuple[list[str] | None, list[int], socket.socket]]:
    """The control channel of a run under the fork host: yields (the host's command line,
    None when the host cannot run ``command``; the descriptors to pass to it; this
    process's end of the channel). The program is started inside the block; its end of
    the channel is closed here when the block ends (it lives on in the program only)."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        yield fork_host_command(command, theirs.fileno(), cwd), [theirs.fileno()], mine
    finally:
        theirs.close()


# -- the host's command ------------------------------------------------------------------------

def fork_host_command(command: Sequence[str], control_fd: int | None = None,
                      cwd: str | None = None) -> list[str] | None:
    """The command run under the fork host (the control descriptor in place), or None when
    it is not a Python program the host can run: ``python [OPTIONS] script ARGS``,
    ``python [OPTIONS] -m MODULE ARGS``, or a script whose ``#!`` line names a Python
    interpreter (as console scripts such as ``puzzleproof`` are)."""
    argv = list(command)
    if not argv:
        return None
    fd = "FD" if control_fd is None else str(control_fd)
    if _PYTHON.match(os.path.basename(argv[0])):
        k = 1
        while k < len(argv) and argv[k] in _PY_FLAGS:
            k += 1
        if k + 1 < len(argv) and argv[k] == "-m" and _MODULE.match(argv[k + 1]):
            return argv[:k] + [_HOST, fd] + argv[k:]
        if k < len(argv) and not argv[k].startswith("-") \
                and os.path.isfile(os.path.join(cwd or "", argv[k])):
            return argv[:k] + [_HOST, fd] + argv[k:]
        return None
    script = os.path.join(cwd or "", argv[0]) if os.sep in argv[0] else shutil.which(argv[0])
    if not script or not os.access(script, os.X_OK):  # what the kernel would refuse to run
        return None
    interpreter = _python_shebang(script)
    if interpreter is None:
        return None
    return interpreter + [_HOST, fd, os.path.abspath(script)] + argv[1:]


def _python_shebang(path: str) -> list[str] | None:
    """The interpreter (and its options) named by the ``#!`` line of ``path`` when it is a
    Python interpreter (directly or through ``env``), else None."""
    try:
        with open(path, "rb") as f:
            head = f.readline(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].decode(errors="replace").split()
    if words and os.path.basename(words[0]) == "env":
        words = words[1:]
        found = shutil.which(words[0]) if words else None
        if found is None:
            return None
        words[0] = found
    if not words or not _PYTHON.match(os.path.basename(words[0])) \
            or not all(w in _PY_FLAGS for w in words[1:]):
        return None
    return words
