"""Run a Python bot so that the referee can fork it between turns (standard library only).

Usage (by the referee, with the bot's own interpreter)::

    python3 fork_host.py CONTROL_FD bot.py [ARGS...]
    python3 fork_host.py CONTROL_FD -m MODULE [ARGS...]

The bot runs unchanged (``runpy``, as ``__main__``, with its own ``sys.argv`` and
``sys.path[0]``; a console script such as ``puzzleproof`` runs as the script it is),
reading its real standard input and writing its real standard output. The host adds one
thing: a ``SIGUSR1`` handler. The referee sends, over the control socket
``CONTROL_FD``, a message carrying three descriptors (the new standard input, the new standard
output and a new control socket) and then the signal. The handler forks the bot where it
stands (normally blocked reading its next input line, with nothing unread); the copy moves its
standard input and output onto the new descriptors, sends its process id on its new control
socket and carries on from the very same state. The referee can then play a different agent
move to each copy: lines that share a prefix share the run of that prefix.

Details that matter:

- The signal is blocked while the handler runs, and every message waiting on the socket is
  served each time (standard signals do not queue), so requests never nest or get lost.
  The referee sends the descriptors before the signal, so the handler never waits.
- The copy's standard error goes to ``/dev/null`` (the referee confirms any line lost in a
  copy with a fresh run of the bot, whose standard error it keeps).
- Each process reaps the copies it made (they are its children) whenever it forks again; the
  referee kills copies it no longer needs, and the whole process group at the end.
- ``socket.recv_fds`` is not used: before Python 3.12 it ignores its ``flags`` argument.

A bot that has threads of its own, or handles ``SIGUSR1`` itself, cannot be forked faithfully;
the referee compares a forked line with a fresh run and falls back to fresh runs when they
differ.
"""

import os
import runpy
import signal
import socket
import sys

_INT = 4  # bytes of a descriptor in SCM_RIGHTS data
_state = {"ctrl": None, "kids": []}


def _fds_of(ancillary):
    fds = []
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            for i in range(0, len(data) - len(data) % _INT, _INT):
                fds.append(int.from_bytes(data[i:i + _INT], sys.byteorder, signed=True))
    return fds


def _reap():
    alive = []
    for pid in _state["kids"]:
        try:
            done, _status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        if done == 0:
            alive.append(pid)
    _state["kids"] = alive


def _become_copy(fds):
    """In the new process: take the new descriptors and announce ourselves."""
    try:
        os.dup2(fds[0], 0)
        os.dup2(fds[1], 1)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        os.close(null)
        os.close(fds[0])
        os.close(fds[1])
        _state["ctrl"].close()
        _state["kids"] = []
        ctrl = socket.socket(fileno=fds[2])
        _state["ctrl"] = ctrl
        ctrl.sendall(b"%d\n" % os.getpid())
    except BaseException:
        os._exit(70)


def _on_fork(signum, frame):
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    try:
        _reap()
        while True:
            try:
                data, anc, _flags, _addr = _state["ctrl"].recvmsg(
                    16, socket.CMSG_SPACE(3 * _INT), socket.MSG_DONTWAIT)
            except OSError:  # nothing more waiting (or the referee has gone)
                return
            fds = _fds_of(anc)
            if len(fds) != 3:
                for fd in fds:
                    os.close(fd)
                if not data:
                    return
                continue
            pid = os.fork()
            if pid == 0:
                _become_copy(fds)
                return  # the copy goes back to what the bot was doing
            _state["kids"].append(pid)
            for fd in fds:
                os.close(fd)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})


def main():
    if len(sys.argv) < 3 or sys.argv[2] == "-m" and len(sys.argv) < 4:
        sys.stderr.write("usage: fork_host.py CONTROL_FD (BOT.py | -m MODULE) [ARGS...]\n")
        return 2
    _state["ctrl"] = socket.socket(fileno=int(sys.argv[1]))
    signal.signal(signal.SIGUSR1, _on_fork)
    if sys.argv[2] == "-m":  # as ``python -m MODULE``: the module's path is argv[0]
        module = sys.argv[3]
        sys.argv = ["-m"] + sys.argv[4:]
        sys.path[0] = os.getcwd()
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        return 0
    script = sys.argv[2]
    sys.argv = sys.argv[2:]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
