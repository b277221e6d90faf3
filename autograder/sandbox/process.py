"""Start a submission process in isolation, and talk to it: `Sandbox.start`, `probe`, `close`.

The layers, from the outside in:
  * sealed (autograder.sandbox.seal): an allow-list file system built by bubblewrap, in which the
    submission sees the Python runtime, the packages it may import, its probe module and the
    training data, and nothing of the grader; as root, under a uid of its own;
  * its own user, PID, IPC, mount, network and UTS namespaces, a size-limited tmpfs as its
    folder, no /proc and no capabilities (autograder.sandbox.isolation.enclose);
  * resource limits: address space, CPU seconds, processes, file size, no core dumps;
  * a wall-time deadline kept here, for running the notebook and all probes, and a budget of
    its own for each probe call (probe_time_limit; see `probe`);
  * the Python guards (autograder.sandbox.guard);
  * plain-data replies only, of bounded size (see `protocol`); its output through a file
    descriptor the grader made, never a path in its folder.
With --no-isolation (trusted work only) only the limits, the deadline and the guards remain.

The process is forked by a zygote that has imported NumPy, matplotlib and dp once for this
grader process (`autograder.sandbox.zygote`, `autograder.sandbox.forkserver`), inside the same seal.
"""
from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from ..course.config import ROOT
from . import cpushare, forkserver, isolation, memcap, protocol, seal
from .workdirs import WorkDir
from .errors import PROBE_TIMEOUT, ProbeError, ProbeTimeout, SubmissionCrashed, SubmissionTimeout  # noqa: F401 (also imported from here)

EXECUTION_SHARE = 0.75  # of the time limit for running the notebook; the rest is for probes
# Unsealed (--no-isolation) only, where the Python guards are all there is: what the submission
# may not read (reference solutions, also in git history and the tests' mutants, the course file).
HIDDEN = [ROOT / "solutions", ROOT / "tests", ROOT / ".git", ROOT / "course.toml"]
# Said at the end of its output (what its result keeps) when the grader had to kill a submission
# that had been told to stop: its processes would otherwise have outlived its sandbox.
LEFTOVERS = ("\n[autograder] the submission's processes were still running after it was told to "
             "stop; they were all killed (its whole PID namespace) when its sandbox closed\n")
STRAYS = "[autograder] {} more processes left in the sandbox were killed when it closed\n"
# Said at the end of its output when a probe ran past its budget and its process was killed.
STALLED = ("\n[autograder] probe {name!r} ran past its {budget:g} s (probe_time_limit) and its "
           "process was killed; any probes after it ran on the notebook run again in a fresh "
           "process\n")
# How long the grader waits for a submission process whose channel ended to exit, for its exit
# status: how it ended decides whose doing it was (a SIGKILL from outside is not the submission's,
# and the submission is graded again). On a loaded machine, reaping a process killed with its
# PID namespace took more than 2 s; only a submission that closes its channel and goes on
# running waits this long, and is then killed.
EXIT_WAIT = 10


class Sandbox:
    """One running submission. Use as a context manager; `close` kills everything it started.
    `sealed`: the allow-list sandbox (autograder.sandbox.seal); False only for --no-isolation."""

    def __init__(self, cells, assignment, protect=(), sealed=True):
        self.cells, self.assignment, self.limits = cells, assignment, assignment.limits
        self.sealed = sealed
        self.hidden = [] if sealed else [str(p) for p in HIDDEN + [Path(p) for p in protect] if Path(p).exists()]
        self.process = None
        self.layers = isolation.describe(sealed)
        self.broken = None   # the error that ended the conversation, repeated to later probes
        self.stalled = None  # the probe whose budget ran out: the next probe restarts the notebook
        self.lost = None     # why its end was not its own doing, if so: grade it again
        self._killing = False
        self._oom_kills = 0  # kills by its memory cgroup's limit before it started (memcap)
        self.leftovers = ""  # what the grader says at the end of its output (LEFTOVERS)
        self.report = {}
        self.captured_output = ""
        # Sealed, the submission's folder is a tmpfs of its own that the grader never opens.
        self._workdir = None if sealed else WorkDir()      # locked while in use (autograder.sandbox.workdirs)
        self.workdir = seal.WORK if sealed else str(self._workdir.path)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def start(self) -> "Sandbox":
        # What it prints goes to a file that no folder names: nothing in the sandbox can make
        # the grader open something else in its place (a FIFO, a link to a secret).
        self._stdout = tempfile.TemporaryFile()
        self.deadline = time.monotonic() + self.limits.time_limit
        self.report = self._launch(self.limits.time_limit * EXECUTION_SHARE)
        return self

    def _launch(self, budget) -> dict:
        """Fork the submission process, run the notebook's cells within `budget` seconds, and
        return its report."""
        request_r, self._request_w = os.pipe()
        self._reply_r, reply_w = os.pipe()
        self._killing = False
        try:
            self.process = self._spawn(request_r, reply_w)
            if self.sealed:
                self.layers = isolation.describe(True) + [cpushare.describe(self.process.cgroup),
                                                          memcap.describe(self.process.memory)]
                self._oom_kills = memcap.oom_kills(self.process.memory)
        except forkserver.ZygoteError as error:
            raise SubmissionCrashed(f"the sandbox could not start: {error}") from None
        except forkserver.ChildKilled as error:
            self.lost = str(error)
            raise SubmissionCrashed(f"the submission process could not be set up: {error}") from None
        except OSError as error:
            raise SubmissionCrashed(f"the submission process could not be set up: {error}") from None
        finally:
            os.close(request_r)
            os.close(reply_w)
        os.set_blocking(self._request_w, False)
        self._send({"cells": self.cells, "forbidden": list(self.assignment.forbidden_imports),
                    "probes": self.assignment.probes_module, "hidden": self.hidden,
                    "budget": budget, "max_output": self.limits.max_output}, "starting")
        report = self._receive("running the notebook")
        if not isinstance(report, dict) or report.get("ready") is not True:
            raise SubmissionCrashed("the submission process did not start properly")
        return report

    def _restart(self):
        """Run the notebook again in a fresh process, after a probe that ran past its budget
        was killed: what the old process held, halfway through that probe, is not trusted.
        Within what is left of the time limit; if it cannot, later probes get why."""
        self.stalled = None
        self._release()
        try:
            again = self._launch(min(self.limits.time_limit * EXECUTION_SHARE, max(self.remaining(), 0)))
        except ProbeError as error:
            self.broken = self.broken or error
            raise
        for kind in ("attempts", "tampered"):   # what the run again tried is reported too
            seen = self.reported(kind)
            self.report[kind] = seen + [item for item in self.reported(kind, again) if item not in seen]

    def reported(self, kind, report=None) -> list:
        """The report's list `kind` ("attempts", "tampered"; from the submission's process:
        hostile data) as at most 20 strings of at most 200 characters; [] if it is no list."""
        items = (self.report if report is None else report).get(kind)
        return [str(item)[:200] for item in items[:20]] if isinstance(items, list) else []

    def _spawn(self, request_r, reply_w):
        """The submission process, forked by the zygote of its assignment (autograder.sandbox.zygote)."""
        settings = {"sealed": self.sealed, "workdir": self.workdir,
                    "env": seal.child_environment(self.workdir, self.sealed),
                    "limits": dataclasses.asdict(self.limits),
                    "root": seal.LIB if self.sealed else str(ROOT),
                    "protect": [] if self.sealed else [os.getpid()]}
        return forkserver.fork(self.assignment, self.sealed, settings, request_r, reply_w,
                               self._stdout.fileno())

    def _end(self, error):
        """The conversation is over: stop the submission now, and give later probes `error`."""
        self.broken = error
        self._kill()
        raise error

    def _timeout(self, doing):
        return SubmissionTimeout(f"time limit of {self.limits.time_limit:g} s reached while {doing}")

    def _out_of_time(self, doing, until, probe):
        """A send or receive timed out: the probe's own budget (`probe`: its name), when that
        ends before the time limit, fails that probe alone; the time limit ends the submission."""
        if probe is None or until is None or until >= self.deadline:
            self._end(self._timeout(doing))
        self.stalled = probe
        self._kill()
        self.leftovers += STALLED.format(name=probe, budget=self.limits.probe_time_limit)
        raise ProbeTimeout(PROBE_TIMEOUT.format(name=probe, budget=self.limits.probe_time_limit))

    def _send(self, message, doing, until=None, probe=None):
        """Send `message` before `until` (time.monotonic(); the time limit by default)."""
        try:
            protocol.send(self._request_w, message,
                          timeout=max((until or self.deadline) - time.monotonic(), 0))
        except TimeoutError:
            self._out_of_time(doing, until, probe)
        except OSError:
            self._end(SubmissionCrashed(f"the submission process ended while {doing}{self._exit_reason()}"))

    def _receive(self, doing, until=None, probe=None):
        try:
            return protocol.receive(self._reply_r, self.limits.max_reply,
                                    max((until or self.deadline) - time.monotonic(), 0))
        except TimeoutError:
            self._out_of_time(doing, until, probe)
        except (EOFError, OSError):
            self._end(SubmissionCrashed(f"the submission process ended while {doing}{self._exit_reason()}"))
        except protocol.ProtocolError as error:
            raise ProbeError(f"unusable reply while {doing}: {error}") from None

    def _exit_reason(self):
        try:
            code = self.process.wait(timeout=EXIT_WAIT)
        except subprocess.TimeoutExpired:
            return ""
        memory = getattr(self.process, "memory", None)
        if getattr(self.process, "zygote_died", False):
            self.lost = "its zygote ended"
        elif code == -signal.SIGKILL and memory is not None \
                and memcap.oom_kills(memory) > self._oom_kills:
            return " (signal SIGKILL: memory_limit reached, counting kernel memory such as socket buffers)"
        elif code == -signal.SIGKILL and not self._killing:
            # Not the grader's kill, nor a limit's (the CPU limit is SIGXCPU, memory a
            # MemoryError): from outside, e.g. the OOM killer or an administrator.
            self.lost = "the submission process was killed from outside (SIGKILL)"
        if code < 0:
            name = signal.Signals(-code).name
            hint = {"SIGXCPU": "CPU time limit", "SIGKILL": "killed, e.g. out of memory",
                    "SIGSEGV": "crashed"}.get(name, "")
            return f" (signal {name}{': ' + hint if hint else ''})"
        return f" (exit status {code})"

    def probe(self, name, **kwargs):
        """Call probe `name` in the submission process; returns its plain-data result.

        Each call has a budget of its own, probe_time_limit, kept here (the submission cannot
        extend it). Past it, the process is killed and the call raises ProbeTimeout: that probe
        fails alone. Its process is not used again, since the probe left its namespace halfway
        through (a half-updated global, a lock held) and stopping it inside would need its
        cooperation; the next probe runs the notebook again in a fresh process (a fork of the
        zygote, the cells once more), within the same time limit."""
        if self.broken is not None:
            raise type(self.broken)(str(self.broken))
        if self.stalled is not None:
            self._restart()
        if self.process is None or self.process.poll() is not None:
            self._end(SubmissionCrashed(f"the submission process is not running{self._exit_reason()}"))
        until = min(self.deadline, time.monotonic() + self.limits.probe_time_limit)
        self._send({"probe": name, "kwargs": kwargs}, f"sending probe {name!r}", until, name)
        reply = self._receive(f"answering probe {name!r}", until, name)
        if not isinstance(reply, dict) or "ok" not in reply:
            raise SubmissionCrashed(f"malformed reply to probe {name!r}")
        if not reply["ok"]:
            raise ProbeError(str(reply.get("error", "unknown error"))[:2000])
        return reply.get("result")

    def output(self) -> str:
        """What the submission printed (the first `max_output` bytes)."""
        try:
            self._stdout.seek(0)
            return self._stdout.read(self.limits.max_output).decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""

    def _kill(self):
        """SIGKILL the submission and everything it started."""
        if self.process is not None:
            self._killing = True
            self.process.kill()

    def _release(self, stopped=False) -> None:
        """Kill the process and everything it started, let its zygote reap it, close its
        channels. `stopped`: it had been told to stop (LEFTOVERS if it still ran)."""
        self._kill()
        self.process.wait()
        # Its zygote kills its whole PID namespace and checks that nothing of it is left
        # before it forks the next submission (autograder.sandbox.zygote).
        released = self.process.release()
        self.leftovers += LEFTOVERS if stopped and released.get("running") else ""
        if released.get("strays"):
            self.leftovers += STRAYS.format(released["strays"])
        for fd in (self._request_w, self._reply_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.process = None

    def close(self) -> None:
        if self.process is not None:
            stopped = False             # told to stop, as every submission is at its end
            if self.broken is None and self.stalled is None:
                try:
                    protocol.send(self._request_w, {"stop": True}, timeout=0.1)
                    stopped = True
                    self.process.wait(timeout=0.5)
                except (OSError, TimeoutError, subprocess.TimeoutExpired):
                    pass
            self._release(stopped)
        if getattr(self, "_stdout", None) is not None and not self._stdout.closed:
            self.captured_output = self.output() + self.leftovers
            self._stdout.close()
        if self._workdir is not None:
            self._workdir.remove()
