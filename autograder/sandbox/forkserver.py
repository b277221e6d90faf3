"""The grader's side of the zygote (autograder.sandbox.zygote): start it, sealed in bubblewrap
(autograder.sandbox.seal), ask it for submission processes, restart it when it has died, stop it with
the grader.

    child = forkserver.fork(assignment, sealed, settings, request_r, reply_w, output_fd)
    # -> a ForkedChild (pid, poll, wait, kill, release)

Each grader process (the main one with --jobs 1, each pool or Dask worker otherwise) has its
own zygotes, one per assignment's file system and preloaded modules (its probes, and not what
it forbids), at most `KEEP` at a time. A zygote that died is started again at the next
submission. AUTOGRADER_ZYGOTE=0 starts a fresh zygote for every submission (the same
isolation, without the shared imports). A zygote that cannot start is an error (ZygoteError):
never a reason to run a submission with less isolation.
"""
from __future__ import annotations

import atexit
import functools
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

from . import cpushare, isolation, memcap, seal
from ..course.config import ROOT
from .zygote import DIRECTORY_PREFIX, MAX_MESSAGE, PRELOAD

KEEP = 2                   # zygotes per grader process (e.g. two assignments graded in turn)
START_TIMEOUT = 120.0      # seconds for a zygote to import everything, on a busy machine
REPLY_TIMEOUT = 60.0       # seconds for a fork and the child's isolation set-up
BOOTSTRAP = ("import sys; sys.path[:0] = sys.argv[1].split(':'); "
             "from autograder.sandbox.zygote import main; main(int(sys.argv[2]), sys.argv[3])")

_zygotes = {}              # key -> Zygote, in order of use
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


class ChildKilled(OSError):
    """The child was SIGKILLed (from outside) while it was set up: no fault of the submission."""


class ForkedChild:
    """A submission process forked by a zygote: what the sandbox uses of a Popen. Its exit
    code comes from the zygote through a pipe; `release` lets the zygote reap it, after which
    its pid may be reused, so call it last (Popen's equivalent: `wait`)."""

    def __init__(self, pid, status_r, zygote):
        self.pid, self._status_r, self._zygote, self.returncode = pid, status_r, zygote, None
        self.zygote_died = False          # the zygote ended before telling how the child did
        self.cgroup = zygote.cgroup       # its CPU share (autograder.sandbox.cpushare), or None
        self.memory = zygote.memory       # its memory cgroup (autograder.sandbox.memcap), or None

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
            self.zygote_died = len(data) != 4
        return self.returncode

    def _readable(self, timeout) -> bool:
        return bool(select.select([self._status_r], [], [], timeout)[0])

    def kill(self):
        """SIGKILL the submission and everything it started (its PID namespace, when sealed)."""
        if self._status_r is not None:
            self._zygote.kill(self.pid)

    def release(self) -> dict:
        """Let the zygote reap it, once it has killed what is left of it and made sure nothing
        is (see autograder.sandbox.zygote). Returns the zygote's answer: "running" if the submission
        still ran when it was killed, "strays" the processes killed besides, outside its
        namespace (none should be); {} if the zygote did not answer (it is then stopped, and
        takes everything in its namespace along)."""
        answer = {}
        if self._status_r is not None:
            os.close(self._status_r)
            self._status_r = None
            answer = self._zygote.release(self.pid)
            if self._zygote.single_use or not answer.get("gone"):
                self._zygote.stop()
        return answer


class Zygote:
    """One zygote process and its control socket. Sealed: started by bubblewrap in the
    assignment's allow-list file system (as root, under a uid of its own)."""

    def __init__(self, assignment, modules, sealed, single_use=False):
        self.single_use, self.uid, self.uid_lock, self.cgroup = single_use, None, None, None
        self.memory = None
        # Unsealed, the zygote's HOME is a folder of ours (it removes it when it ends); sealed,
        # its /tmp inside. Its output goes to a file no folder names, as a submission's does.
        self.directory = None if sealed else Path(tempfile.mkdtemp(prefix=DIRECTORY_PREFIX))
        self.output = tempfile.TemporaryFile()
        self.owner, self.lock = os.getpid(), threading.Lock()
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        if sealed:
            python, path, home = seal.python_executable(), f"{seal.LIB}:{seal.SITE}", "/tmp"
            env = seal.child_environment(home)
            program = [python, "-I", "-S", "-c", BOOTSTRAP, path, str(theirs.fileno()), home]
            data = seal.open_training_data()
            argv = seal.command(assignment, env, program, data)
            extra = {"pass_fds": (theirs.fileno(), data)}
            self.cgroup = cpushare.create()
            self.memory = memcap.create(self.cgroup)
            steps = [functools.partial(cpushare.join, self.cgroup),    # first, while still root
                     functools.partial(cpushare.join, self.memory)]
            if os.geteuid() == 0:
                self.uid, self.uid_lock = isolation.claim_uid()
                steps.append(isolation.run_as(self.uid, [*seal.sources(assignment), seal.bwrap()]))
            extra["preexec_fn"] = lambda: [step() for step in steps]
        else:
            env = seal.child_environment(str(self.directory), sealed=False)
            argv = [sys.executable, "-I", "-c", BOOTSTRAP, str(ROOT), str(theirs.fileno()),
                    str(self.directory)]
            extra = {"cwd": "/", "pass_fds": (theirs.fileno(),)}
        try:
            # Its output goes to a file, as a child's does (Python buffers both alike).
            with theirs:
                self.process = subprocess.Popen(
                    argv, env=env, stdin=subprocess.DEVNULL, stdout=self.output,
                    stderr=subprocess.STDOUT, process_group=0,   # the grader's Ctrl-C is not for it:
                    **extra)                                     # it ends with the grader
        except BaseException:
            self.control.close()
            self._release_uid()
            self._remove_directory()
            raise
        finally:
            if sealed:
                os.close(data)
        try:
            self.control.send(json.dumps({"preload": list(modules)}).encode())
            hello = self._receive(START_TIMEOUT)
            if hello.get("threads") != 1:
                raise ZygoteError(f"the zygote has {hello.get('threads')} threads after its imports")
        except (OSError, ValueError):
            self.stop()
            raise

    def _release_uid(self):
        if self.uid is not None:
            isolation.kill_uid(self.uid)      # whatever of the sandbox is left
            self.uid_lock.close()
            self.uid = self.uid_lock = None
        cpushare.remove(self.cgroup)
        cpushare.remove(self.memory)

    def alive(self) -> bool:
        return self.process.poll() is None

    def _receive(self, timeout) -> dict:
        if not select.select([self.control], [], [], timeout)[0]:
            raise ZygoteError("the zygote did not answer in time")
        try:
            data = self.control.recv(MAX_MESSAGE)
        except OSError as error:
            raise ZygoteError(f"the zygote is gone ({error})") from None
        if not data:
            raise ZygoteError(f"the zygote ended{self._log()}")
        return json.loads(data)

    def _log(self):
        try:
            self.output.seek(0)
            return ": " + self.output.read()[-2000:].decode("utf-8", "replace")
        except OSError:
            return ""

    def fork(self, settings, fds) -> ForkedChild:
        status_r, status_w = os.pipe()
        try:
            with self.lock:
                memcap.limit(self.memory, settings["limits"]["memory_limit"])
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
            if answer.get("killed") is True:
                raise ChildKilled(answer.get("error"))
            raise OSError(answer.get("error", "the zygote refused"))   # as a failed preexec_fn
        return ForkedChild(answer["pid"], status_r, self)

    def _tell(self, message):
        with self.lock:
            try:
                self.control.send(json.dumps(message).encode())
            except OSError:
                pass

    def kill(self, pid):
        self._tell({"kill": pid})

    def release(self, pid) -> dict:
        with self.lock:
            try:
                self.control.send(json.dumps({"release": pid}).encode())
                answer = self._receive(REPLY_TIMEOUT)
            except (OSError, ValueError):
                return {}
        return answer if isinstance(answer, dict) and answer.get("released") == pid else {}

    def stop(self):
        """Close the control socket: the zygote kills what it started, cleans up and exits."""
        if os.getpid() != self.owner:     # a copy inherited by a forked process: not ours
            self.control.close()
            return
        self.control.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()           # bubblewrap: everything in its namespaces dies with it
            self.process.wait()
        self._release_uid()
        self._remove_directory()

    def _remove_directory(self):
        self.output.close()
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)


def fork(assignment, sealed, settings, request_r, reply_w, output) -> ForkedChild:
    """A submission process from the zygote for `assignment` (started if need be). Raises
    ZygoteError when no zygote can serve, OSError when the child could not be set up. A zygote
    that dies (while starting, or killed from outside) or stops answering is replaced once."""
    modules = preload_for(assignment)
    key = (tuple(modules), sealed, code_stamp())
    for attempt in range(2):
        zygote = None
        try:
            if enabled():
                zygote = _zygote(key, assignment)
            else:
                zygote = _start(assignment, modules, sealed, single_use=True)
            return zygote.fork(settings, (request_r, reply_w, output))
        except ZygoteError:
            if zygote is not None:
                _discard(key, zygote)
            if attempt:
                raise
        except BaseException:
            if zygote is not None and zygote.single_use:
                zygote.stop()
            raise


def _discard(key, zygote):
    with _lock:
        if _zygotes.get(key) is zygote:
            del _zygotes[key]
    zygote.stop()


def _zygote(key, assignment):
    """The running zygote for `key`, started if need be (ZygoteError if it cannot be)."""
    with _lock:
        zygote = _zygotes.pop(key, None)
        if zygote is not None and not zygote.alive():
            zygote.stop()
            zygote = None
        if zygote is None:
            for old in [k for k in _zygotes if k[:2] == key[:2]]:   # the same zygote, older code
                _zygotes.pop(old).stop()
            while len(_zygotes) >= KEEP:                           # the least recently used
                _zygotes.pop(next(iter(_zygotes))).stop()
            _register_cleanup()
            zygote = _start(assignment, key[0], key[1])
        _zygotes[key] = zygote         # most recently used last
        return zygote


def _start(assignment, modules, sealed, single_use=False) -> Zygote:
    """A new zygote; whatever keeps it from starting is a ZygoteError (one message, with or
    without AUTOGRADER_ZYGOTE=0)."""
    try:
        return Zygote(assignment, modules, sealed, single_use)
    except ZygoteError:
        raise
    except (OSError, ValueError, subprocess.SubprocessError) as error:
        raise ZygoteError(f"the zygote could not start: {error}") from None


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
