"""Guards inside the submission process, installed before the student's code runs.

They are a second layer behind the operating system's (autograder.sandbox.isolation) and the only one
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

ATTEMPTS = []   # what the guards refused, for the grader's flags (first occurrence of each)

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
            try:
                self.stream.write(text[: self.left])
            except OSError:        # the file-size limit reached by writes that bypassed us
                self.left = 0
        self.left -= len(text)
        if self.left < 0 and "output beyond the limit (dropped)" not in ATTEMPTS:
            ATTEMPTS.append("output beyond the limit (dropped)")
        return len(text)

    def flush(self):
        try:
            self.stream.flush()
        except OSError:
            pass

    def isatty(self):
        return False


def _write_mode(mode, flags):
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC))


def _by_student(depth=3) -> bool:
    """Whether the student's own code (a notebook cell) is among the nearest callers: libraries
    trying something on their own (matplotlib looking for fonts) are refused but not flagged."""
    frame = sys._getframe(2)
    for _ in range(depth):
        while frame is not None and frame.f_code.co_filename == __file__:
            frame = frame.f_back
        if frame is None:
            return False
        if frame.f_code.co_filename.startswith("<cell"):
            return True
        frame = frame.f_back
    return False


def refuse(error, what):
    """Record an attempt (once per kind) and raise `error`."""
    if what not in ATTEMPTS and len(ATTEMPTS) < 50 and _by_student():
        ATTEMPTS.append(what)
    raise error


def install(forbidden, workdir, hidden, max_output, protect=()):
    """Install every guard; call once, before running the student's code. The parent process
    may not be signalled, nor the processes in `protect`."""
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
            refuse(ForbiddenImport(f"importing {args[0]!r} is not allowed in this assignment"),
                   f"import of {str(args[0]).split('.')[0]}")
        if event == "socket.__new__" and args[1] != 1:                       # AF_UNIX only
            refuse(PermissionError("network access is not allowed while grading"), "network access")
        if event in PROCESS_EVENTS:
            refuse(PermissionError("starting processes is not allowed while grading"),
                   "starting processes")
        if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            path = os.path.realpath(os.fsdecode(args[0]))
            if any(path == h or path.startswith(h + os.sep) for h in hidden):
                refuse(PermissionError(f"{path}: grader files cannot be read while grading"),
                       f"reading grader files ({path})")
            if _write_mode(args[1], args[2]) and not writable(path):
                refuse(PermissionError(f"{path}: only the submission's own folder is writable"),
                       f"writing outside its folder ({path})")
    sys.addaudithook(audit)

    me, parent, group = os.getpid(), os.getppid(), os.getpgid(0)
    real_kill, real_killpg = os.kill, os.killpg
    untouchable = {0, -1, me, parent, -group, *protect}
    groups = {0, group}
    for pid in (parent, *protect):
        try:
            groups.add(os.getpgid(pid))
        except OSError:
            pass

    def kill(pid, sig):
        if pid in untouchable:
            refuse(PermissionError("signalling the grader or this process is not allowed"),
                   "signalling the grader or itself")
        return real_kill(pid, sig)

    def killpg(pgid, sig):
        if pgid in groups:
            refuse(PermissionError("signalling the grader or this process is not allowed"),
                   "signalling the grader or itself")
        return real_killpg(pgid, sig)

    def leave(*args):
        refuse(SystemExit("os._exit/os.abort ends only the current cell while grading"),
               "exiting the process (os._exit/os.abort)")

    os.kill, os.killpg, os._exit, os.abort = kill, killpg, leave, leave
    sys.stdout = CappedStream(sys.stdout, max_output)    # one limit per stream
    sys.stderr = CappedStream(sys.stderr, max_output)


def snapshot(modules) -> dict:
    """Identity of every public attribute of `modules` (to see later what was replaced)."""
    return {f"{m.__name__}.{k}": id(v) for m in modules for k, v in vars(m).items()
            if not k.startswith("_")}


def tampered(before: dict, modules) -> list:
    after = snapshot(modules)
    return sorted(k for k, v in before.items() if after.get(k) != v)
