"""Guards inside the submission process, installed before the student's code runs.

They are a second layer behind the operating system's (autograder.isolation) and the only one
when the grader is not root. Audit hooks cannot be removed once added (PEP 578):
  * forbidden modules cannot be imported (also through importlib, __import__ or exec);
  * no sockets but local ones; no new processes from Python;
  * files may be written only in the submission's own directory; grader files cannot be read;
  * os._exit, os.abort and signals to the grader, its group or this process end only the
    current cell (as SystemExit does), not the whole submission;
  * stdout and stderr keep the first `max_output` bytes and drop the rest.
"""
from __future__ import annotations

import importlib.abc
import io
import os
import sys

PROCESS_EVENTS = ("os.fork", "os.forkpty", "os.system", "os.posix_spawn", "os.exec",
                  "os.spawn", "subprocess.Popen", "pty.spawn")


class ForbiddenImport(ImportError):
    pass


class ImportBlocker(importlib.abc.MetaPathFinder):
    """Refuses the assignment's forbidden modules (and their submodules)."""

    def __init__(self, forbidden):
        self.forbidden = frozenset(forbidden)

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.forbidden:
            raise ForbiddenImport(f"importing {name!r} is not allowed in this assignment")
        return None


class CappedStream(io.TextIOBase):
    """A text stream that passes on the first `limit` characters and silently drops the rest."""

    def __init__(self, stream, limit):
        self.stream, self.left = stream, limit

    def write(self, text):
        if self.left > 0:
            self.stream.write(text[: self.left])
            self.left -= len(text)
        return len(text)

    def flush(self):
        self.stream.flush()

    def isatty(self):
        return False


def _write_mode(mode, flags):
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC))


def install(forbidden, workdir, hidden, max_output):
    """Install every guard; call once, before running the student's code."""
    forbidden = frozenset(forbidden)
    for name in list(sys.modules):
        if name.split(".")[0] in forbidden:
            del sys.modules[name]
    sys.meta_path.insert(0, ImportBlocker(forbidden))
    workdir = os.path.realpath(workdir)
    hidden = tuple(os.path.realpath(h) for h in hidden)

    def writable(path):
        return (path == workdir or path.startswith(workdir + os.sep) or path == "/dev/null"
                or path.startswith("/dev/shm/"))

    def audit(event, args):
        if event == "import" and str(args[0]).split(".")[0] in forbidden:
            raise ForbiddenImport(f"importing {args[0]!r} is not allowed in this assignment")
        if event == "socket.__new__" and args[1] != 1:                       # AF_UNIX only
            raise PermissionError("network access is not allowed while grading")
        if event in PROCESS_EVENTS:
            raise PermissionError("starting processes is not allowed while grading")
        if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            path = os.path.realpath(os.fsdecode(args[0]))
            if any(path == h or path.startswith(h + os.sep) for h in hidden):
                raise PermissionError(f"{path}: grader files cannot be read while grading")
            if _write_mode(args[1], args[2]) and not writable(path):
                raise PermissionError(f"{path}: only the submission's own folder is writable")
    sys.addaudithook(audit)

    me, parent, group = os.getpid(), os.getppid(), os.getpgid(0)
    real_kill, real_killpg = os.kill, os.killpg

    def kill(pid, sig):
        if pid in (0, -1, me, parent, -group):
            raise PermissionError("signalling the grader or this process is not allowed")
        return real_kill(pid, sig)

    def killpg(pgid, sig):
        if pgid in (0, group) or pgid == os.getpgid(parent):
            raise PermissionError("signalling the grader or this process is not allowed")
        return real_killpg(pgid, sig)

    def leave(*args):
        raise SystemExit("os._exit/os.abort ends only the current cell while grading")

    os.kill, os.killpg, os._exit, os.abort = kill, killpg, leave, leave
    sys.stdout = CappedStream(sys.stdout, max_output)
    sys.stderr = CappedStream(sys.stderr, max_output)
