"""Start a submission process in isolation, and talk to it: `Sandbox.start`, `probe`, `close`.

The layers (autograder.isolation for the operating system's, autograder.guard for Python's):
  * its own session and process group, all killed at the end (and, as root, every process of
    its uid, so nothing escapes by starting a new session);
  * resource limits: address space, CPU seconds, processes, file size, no core dumps;
  * a wall-time deadline kept here, for running the notebook and all probes;
  * a fresh temporary directory as working directory and HOME, a minimal environment;
  * as root: its own uid, a read-only file system but its directory, grader files hidden, and
    no network (namespaces); always: the Python guards;
  * plain-data replies only, of bounded size (see `protocol`).

The process is forked by a zygote that has imported NumPy, matplotlib and dp once for this
grader process (`autograder.zygote`, `autograder.forkserver`), which saves a fresh interpreter
and its imports per submission; the child then applies all of the above before any student
code runs. Without a usable zygote it is a fresh interpreter started with exec, as before.
"""
from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from . import forkserver, isolation, protocol
from .workdirs import WorkDir
from .course import ROOT
from .errors import ProbeError, SubmissionCrashed, SubmissionTimeout  # noqa: F401 (also imported from here)

EXECUTION_SHARE = 0.75  # of the time limit for running the notebook; the rest is for probes
# What a submission may never read: reference solutions (also in git history and the tests'
# mutants), the course file with its seed, and the grader's output.
HIDDEN = [ROOT / "solutions", ROOT / "tests", ROOT / ".git", ROOT / "course.toml"]

BOOTSTRAP = ("import sys; sys.path.insert(0, sys.argv[1]); "
             "from autograder.runner import main; main(int(sys.argv[2]), int(sys.argv[3]))")


def child_environment(workdir: Path) -> dict:
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(workdir), "TMPDIR": str(workdir),
           "LANG": "C.UTF-8", "MPLBACKEND": "Agg", "MPLCONFIGDIR": str(workdir / ".matplotlib"),
           "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "AUTOGRADER_GRADING": "1",
           "DP_OFFLINE": "1", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    data_dir = os.environ.get("DP_DATA_DIR", str(Path.home() / ".cache" / "dp" / "mnist"))
    env["DP_DATA_DIR"] = data_dir   # the same MNIST as the grader's, when it has one
    return env


class ExecChild(subprocess.Popen):
    """A submission process started with exec (no zygote)."""

    def release(self):
        """Nothing to do: `wait` has reaped it (a ForkedChild is reaped by its zygote)."""


class Sandbox:
    """One running submission. Use as a context manager; `close` kills everything it started."""

    def __init__(self, cells, assignment, protect=()):
        self.cells, self.assignment, self.limits = cells, assignment, assignment.limits
        self.hidden = [str(p) for p in HIDDEN + [Path(p) for p in protect] if Path(p).exists()]
        self.process = None
        self.uid, self._uid_lock = isolation.claim_uid() if isolation.can_isolate() else (None, None)
        self.layers = []
        self.broken = None   # the error that ended the conversation, repeated to later probes
        self.report = {}
        self.captured_output = ""
        self._workdir = WorkDir()          # locked while in use; see autograder.workdirs
        self.workdir = self._workdir.path

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def start(self) -> "Sandbox":
        request_r, self._request_w = os.pipe()
        self._reply_r, reply_w = os.pipe()
        self._stdout = open(self.workdir / ".stdout", "wb")
        self.deadline = time.monotonic() + self.limits.time_limit
        if self.uid is not None:
            isolation.kill_uid(self.uid)             # a leftover of an earlier sandbox, if any
            os.chown(self.workdir, self.uid, self.uid)
        try:
            self.process = self._spawn(request_r, reply_w, self.uid)
        except (subprocess.SubprocessError, OSError):  # namespaces refused (e.g. in a container)
            self._release_uid()
            self.process = self._spawn(request_r, reply_w, None)
        self.layers = isolation.describe(self.uid)
        os.close(request_r)
        os.close(reply_w)
        os.set_blocking(self._request_w, False)
        self._send({"cells": self.cells, "forbidden": list(self.assignment.forbidden_imports),
                    "probes": self.assignment.probes_module, "hidden": self.hidden,
                    "budget": self.limits.time_limit * EXECUTION_SHARE,
                    "max_output": self.limits.max_output}, "starting")
        self.report = self._receive("running the notebook")
        if not isinstance(self.report, dict) or self.report.get("ready") is not True:
            raise SubmissionCrashed("the submission process did not start properly")
        return self

    def _spawn(self, request_r, reply_w, uid):
        """The submission process: forked by a zygote that has imported what it needs
        (autograder.zygote), or else a fresh interpreter. The same isolation either way."""
        env = child_environment(self.workdir)
        needed = [sys.base_prefix, sys.prefix, os.path.dirname(os.path.realpath(sys.executable)),
                  ROOT, self.workdir, env["DP_DATA_DIR"]]
        settings = {"workdir": str(self.workdir), "env": env, "uid": uid, "hidden": self.hidden,
                    "limits": dataclasses.asdict(self.limits), "needed": [str(p) for p in needed],
                    "root": str(ROOT), "protect": [os.getpid()]}
        child = forkserver.fork(forkserver.preload_for(self.assignment), settings, request_r,
                                reply_w, self._stdout.fileno())
        if child is not None:
            return child
        return ExecChild(
            [sys.executable, "-I", "-c", BOOTSTRAP, str(ROOT), str(request_r), str(reply_w)],
            cwd=self.workdir, env=env, stdin=subprocess.DEVNULL,
            stdout=self._stdout, stderr=subprocess.STDOUT, pass_fds=(request_r, reply_w),
            start_new_session=True,
            preexec_fn=isolation.child_setup(self.limits, self.workdir, self.hidden, uid, needed))

    def _end(self, error):
        """The conversation is over: stop the submission now, and give later probes `error`."""
        self.broken = error
        self._kill()
        raise error

    def _timeout(self, doing):
        return SubmissionTimeout(f"time limit of {self.limits.time_limit:g} s reached while {doing}")

    def _send(self, message, doing):
        try:
            protocol.send(self._request_w, message, timeout=max(self.remaining(), 0))
        except TimeoutError:
            self._end(self._timeout(doing))
        except OSError:
            self._end(SubmissionCrashed(f"the submission process ended while {doing}{self._exit_reason()}"))

    def _receive(self, doing):
        try:
            return protocol.receive(self._reply_r, self.limits.max_reply, max(self.remaining(), 0))
        except TimeoutError:
            self._end(self._timeout(doing))
        except (EOFError, OSError):
            self._end(SubmissionCrashed(f"the submission process ended while {doing}{self._exit_reason()}"))
        except protocol.ProtocolError as error:
            raise ProbeError(f"unusable reply while {doing}: {error}") from None

    def _exit_reason(self):
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return ""
        if code < 0:
            name = signal.Signals(-code).name
            hint = {"SIGXCPU": "CPU time limit", "SIGKILL": "killed, e.g. out of memory",
                    "SIGSEGV": "crashed"}.get(name, "")
            return f" (signal {name}{': ' + hint if hint else ''})"
        return f" (exit status {code})"

    def probe(self, name, **kwargs):
        """Call probe `name` in the submission process; returns its plain-data result."""
        if self.broken is not None:
            raise type(self.broken)(str(self.broken))
        if self.process is None or self.process.poll() is not None:
            self._end(SubmissionCrashed(f"the submission process is not running{self._exit_reason()}"))
        self._send({"probe": name, "kwargs": kwargs}, f"sending probe {name!r}")
        reply = self._receive(f"answering probe {name!r}")
        if not isinstance(reply, dict) or "ok" not in reply:
            raise SubmissionCrashed(f"malformed reply to probe {name!r}")
        if not reply["ok"]:
            raise ProbeError(str(reply.get("error", "unknown error"))[:2000])
        return reply.get("result")

    def output(self) -> str:
        """What the submission printed (the first `max_output` bytes)."""
        try:
            with open(self.workdir / ".stdout", "rb") as f:
                return f.read(self.limits.max_output).decode("utf-8", "replace")
        except OSError:
            return ""

    def _kill(self):
        """SIGKILL the submission's process group and, as root, every process of its uid."""
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.uid is not None:
            isolation.kill_uid(self.uid)

    def _release_uid(self):
        if self._uid_lock is not None:
            self._uid_lock.close()
        self.uid = self._uid_lock = None

    def close(self) -> None:
        if self.process is not None:
            if self.broken is None:
                try:
                    protocol.send(self._request_w, {"stop": True}, timeout=0.1)
                    self.process.wait(timeout=0.5)
                except (OSError, TimeoutError, subprocess.TimeoutExpired):
                    pass
            self._kill()
            self.process.wait()
            self.process.release()
            for fd in (self._request_w, self._reply_r):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self._stdout.close()
            self.captured_output = self.output()
            self.process = None
        self._release_uid()
        self._workdir.remove()
