"""The grader's side of the zygote (autograder.zygote): start it, ask it for submission
processes, restart it when it has died, stop it with the grader.

    child = forkserver.fork(preload, settings, request_r, reply_w, output_fd)
    # -> a ForkedChild (pid, poll, wait, release), or None: then start the process with exec

Each grader process (the main one with --jobs 1, each pool or Dask worker otherwise) has its
own zygotes, one per set of preloaded modules (which depends on the assignment: its probes,
and not what it forbids), at most `KEEP` at a time. A zygote that died is started again at the
next submission; one that cannot start (or will not fork safely) is not tried again in this
process, and submissions are started with exec as before. AUTOGRADER_ZYGOTE=0 turns it off.
"""
from __future__ import annotations

import atexit
import json
import os
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from .course import ROOT
from .zygote import DIRECTORY_PREFIX, MAX_MESSAGE, PRELOAD

KEEP = 2                   # zygotes per grader process (e.g. two assignments graded in turn)
START_TIMEOUT = 120.0      # seconds for a zygote to import everything, on a busy machine
REPLY_TIMEOUT = 60.0       # seconds for a fork and the child's isolation set-up
BOOTSTRAP = ("import sys; sys.path.insert(0, sys.argv[1]); "
             "from autograder.zygote import main; main(int(sys.argv[2]), sys.argv[3])")

_zygotes = {}              # key -> Zygote, in order of use
_unusable = set()          # keys whose zygote would not start
_lock = threading.Lock()


def enabled() -> bool:
    return os.environ.get("AUTOGRADER_ZYGOTE", "1") != "0" and sys.platform == "linux"


def preload_for(assignment) -> tuple:
    """What a zygote for `assignment` imports: `zygote.PRELOAD` and its probes, without the
    modules it forbids (never imported before the student's code, they would stay reachable)."""
    modules = PRELOAD + (assignment.probes_module,)
    return tuple(m for m in modules if m.split(".")[0] not in set(assignment.forbidden_imports))


def code_stamp() -> tuple:
    """Changes when the code a zygote has imported changes on disk: a zygote started before
    (a long-lived Dask worker, a course edited during a run) is then replaced. (A millisecond:
    os.scandir, where Path.rglob takes twice as long.)"""
    found, folders = [], [str(ROOT / "autograder"), str(ROOT / "dp")]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                    folders.append(entry.path)
                elif entry.name.endswith(".py"):
                    found.append((entry.path, entry.stat().st_mtime_ns))
    return tuple(sorted(found))


class ZygoteError(OSError):
    """The zygote did not answer as it should: it is stopped, and replaced once."""


class ForkedChild:
    """A submission process forked by a zygote: what the sandbox uses of a Popen. Its exit
    code comes from the zygote through a pipe; `release` lets the zygote reap it, after which
    its pid may be reused, so call it last (Popen's equivalent: `wait`)."""

    def __init__(self, pid, status_r, zygote):
        self.pid, self._status_r, self._zygote, self.returncode = pid, status_r, zygote, None

    def poll(self):
        return self.wait(0) if self.returncode is None and self._readable(0) else self.returncode

    def wait(self, timeout=None):
        if self.returncode is None:
            if not self._readable(timeout):
                raise subprocess.TimeoutExpired(f"submission {self.pid}", timeout)
            data = os.read(self._status_r, 4)
            # No code: the zygote died. The grader has killed the process group by then, or
            # will; the process ended or ends as if killed.
            self.returncode = struct.unpack("!i", data)[0] if len(data) == 4 else -9
        return self.returncode

    def _readable(self, timeout) -> bool:
        return bool(select.select([self._status_r], [], [], timeout)[0])

    def release(self):
        if self._status_r is not None:
            os.close(self._status_r)
            self._status_r = None
            self._zygote.release(self.pid)


class Zygote:
    """One zygote process and its control socket."""

    def __init__(self, modules):
        from .sandbox import child_environment
        self.directory = Path(tempfile.mkdtemp(prefix=DIRECTORY_PREFIX))
        self.owner, self.lock = os.getpid(), threading.Lock()
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            # Its output goes to a file, as a child's does (Python buffers both alike).
            with theirs, open(self.directory / ".output", "wb") as output:
                self.process = subprocess.Popen(
                    [sys.executable, "-I", "-c", BOOTSTRAP, str(ROOT), str(theirs.fileno()),
                     str(self.directory)],
                    cwd="/", env=child_environment(self.directory), stdin=subprocess.DEVNULL,
                    stdout=output, stderr=subprocess.STDOUT, pass_fds=(theirs.fileno(),),
                    process_group=0)   # the grader's Ctrl-C is not for it: it ends with the grader
        except BaseException:
            self.control.close()
            shutil.rmtree(self.directory, ignore_errors=True)
            raise
        try:
            self.control.send(json.dumps({"preload": list(modules)}).encode())
            hello = self._receive(START_TIMEOUT)
            if hello.get("threads") != 1:
                raise ZygoteError(f"the zygote has {hello.get('threads')} threads after its imports")
        except (OSError, ValueError):
            self.stop()
            raise

    def alive(self) -> bool:
        return self.process.poll() is None

    def _receive(self, timeout) -> dict:
        if not select.select([self.control], [], [], timeout)[0]:
            raise ZygoteError("the zygote did not answer in time")
        data = self.control.recv(MAX_MESSAGE)
        if not data:
            raise ZygoteError(f"the zygote ended{self._log()}")
        return json.loads(data)

    def _log(self):
        try:
            return ": " + (self.directory / ".output").read_text()[-2000:]
        except OSError:
            return ""

    def fork(self, settings, fds) -> ForkedChild:
        status_r, status_w = os.pipe()
        try:
            with self.lock:
                try:
                    socket.send_fds(self.control, [json.dumps({"fork": settings}).encode()],
                                    [*fds, status_w])
                except OSError as error:
                    raise ZygoteError(f"the zygote is gone ({error})") from None
                answer = self._receive(REPLY_TIMEOUT)
        except BaseException:
            os.close(status_r)
            raise
        finally:
            os.close(status_w)
        if "pid" not in answer:
            os.close(status_r)
            raise OSError(answer.get("error", "the zygote refused"))   # as a failed preexec_fn
        return ForkedChild(answer["pid"], status_r, self)

    def release(self, pid):
        with self.lock:
            try:
                self.control.send(json.dumps({"release": pid}).encode())
            except OSError:
                pass

    def stop(self):
        """Close the control socket: the zygote kills what it started, cleans up and exits."""
        if os.getpid() != self.owner:     # a copy inherited by a forked process: not ours
            self.control.close()
            return
        self.control.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)


def fork(modules, settings, request_r, reply_w, output):
    """A submission process from the zygote for `modules` (started if need be), or None when
    no zygote can serve. Raises OSError when the child's isolation could not be set up (the
    caller then retries without the root-only layers, as with a failed preexec_fn)."""
    key = (tuple(modules), code_stamp())
    for _ in range(2):                 # a zygote that died or stopped answering is replaced once
        zygote = _zygote(key)
        if zygote is None:
            return None
        try:
            return zygote.fork(settings, (request_r, reply_w, output))
        except ZygoteError:
            with _lock:
                if _zygotes.get(key) is zygote:
                    del _zygotes[key]
            zygote.stop()
    return None


def _zygote(key):
    """The running zygote for `key`, started if need be; None if none can be."""
    with _lock:
        if not enabled() or key in _unusable:
            return None
        zygote = _zygotes.pop(key, None)
        if zygote is not None and not zygote.alive():
            zygote.stop()
            zygote = None
        if zygote is None:
            for old in [k for k in _zygotes if k[0] == key[0]]:   # the same modules, older code
                _zygotes.pop(old).stop()
            while len(_zygotes) >= KEEP:                         # the least recently used
                _zygotes.pop(next(iter(_zygotes))).stop()
            _register_cleanup()
            try:
                zygote = Zygote(key[0])
            except (OSError, ValueError):
                _unusable.add(key)
                return None
        _zygotes[key] = zygote         # most recently used last
        return zygote


def stop_all():
    with _lock:
        while _zygotes:
            _zygotes.popitem()[1].stop()


_cleanup_registered = False


def _register_cleanup():
    """Stop the zygotes when this process ends: at exit, and in a multiprocessing worker (a
    --jobs pool or a Dask worker), which ends without running atexit."""
    global _cleanup_registered
    if _cleanup_registered:
        return
    _cleanup_registered = True
    atexit.register(stop_all)
    if "multiprocessing" in sys.modules:
        from multiprocessing import util
        util.Finalize(None, stop_all, exitpriority=0)


def _forget_after_fork():
    """In a process forked from this one (a pool worker), the zygotes are the parent's."""
    global _cleanup_registered
    for zygote in _zygotes.values():
        zygote.control.close()
    _zygotes.clear()
    _cleanup_registered = False


os.register_at_fork(after_in_child=_forget_after_fork)
