"""The zygote: a trusted process that has imported what submissions import, and forks them.

Starting a submission process used to mean a fresh interpreter importing NumPy, matplotlib and
dp, about half a second for every notebook, however trivial. A grader process (see
`autograder.forkserver`) starts one zygote, which imports all that once (`PRELOAD`, minus the
assignment's forbidden modules) and then forks one child per submission. The zygote itself
runs sealed, in the allow-list file system that bubblewrap builds (autograder.seal), and each
child encloses itself further before any student code runs (`autograder.isolation.enclose`:
its own user, PID, mount, IPC, network and UTS namespaces, so that it can see neither the
zygote nor its siblings, its own tmpfs, no capabilities, the resource limits); only then it
runs `autograder.runner.main`, which installs the Python guards and runs the student's code.
A child cannot write into the zygote: it cannot even name it.

What the zygote itself must never do, and does not:
  * run or even see student code: it receives only the isolation settings and the file
    descriptors of the submission's channels (the cells travel from the grader to the child);
  * install audit hooks or guards (they would be inherited half-done; the child installs them);
  * fork while it has more than one thread (a lock held by another thread would stay locked in
    the child): it counts its threads before every fork, and refuses when there are more
    (OpenBLAS starts none: OPENBLAS_NUM_THREADS=1 is in its environment before NumPy loads);
  * hold a secret: its environment is a submission's (no AUTOGRADER_SECRET), the grading seed
    never reaches it.

Protocol on the control socket (SOCK_SEQPACKET, one JSON message per packet):
  grader -> zygote  {"preload": [module, ...]} once (not in its command line, which must name
                    no module: `executors` finds submission processes by theirs);
                    {"fork": settings} with four descriptors: request (read end), reply (write
                    end), output file, status (write end);  {"kill": pid};  {"release": pid}
  zygote -> grader  {"hello": ..., "threads": n} once;  {"pid": n} or {"error": text} per fork
The status pipe receives the child's exit code (4 bytes, as Popen.returncode) when it ends. The
zygote reaps a child only on "release", after the grader's last signal to it: until then its pid
cannot be reused, as with a Popen child that has not been waited for. End of file on the control
socket (the grader gone) kills every child's process group, and the zygote exits.
"""
from __future__ import annotations

import fcntl
import gc
import importlib
import json
import os
import selectors
import shutil
import signal
import socket
import time
import stat
import struct
import sys
import types

from autograder import isolation

_exit = os._exit   # the real one, whatever a child's code does to `os` later

PRELOAD = ("numpy", "numpy.testing", "matplotlib.pyplot", "dp", "autograder.protocol",
           "autograder.guard", "autograder.runner", "autograder.probes.common")
SETUP_TIMEOUT = 30.0     # seconds for a child to set up its isolation
MAX_MESSAGE = 1 << 20
DIRECTORY_PREFIX = "autograder-zygote-"   # its HOME and matplotlib folder, removed at its end


def preload(modules) -> list:
    """Import `modules`; returns those that failed (e.g. dp while it is being edited). A failed
    import leaves no half-imported module behind, so that a child imports it as a fresh
    interpreter would, and sees the same error."""
    failed = []
    for name in modules:
        before = set(sys.modules)
        try:
            importlib.import_module(name)
        except BaseException:  # noqa: BLE001 - whatever the module raises
            for added in set(sys.modules) - before:
                del sys.modules[added]
            failed.append(name)
    return failed


def warm_up():
    """Draw and close one figure: the first figure of every fresh process pays for matplotlib's
    backend, fonts and mathtext parser (log axes' tick labels), about 30 ms that the children
    now share. A child's figures are the same to the byte (tests/test_zygote.py)."""
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    import io
    figure, axes = plt.subplots()
    axes.loglog([1e-3, 1.0], [1e-3, 1.0], label="x")
    axes.set_xlabel("x")
    axes.legend()
    figure.tight_layout()
    figure.savefig(io.BytesIO(), format="png", dpi=80)
    plt.close(figure)


def threads() -> int:
    return len(os.listdir("/proc/self/task"))


def settle(timeout=5.0):
    """Wait for the threads that imports left running to end, e.g. matplotlib's timer that
    would warn about a slow font cache build (cancelled, but not yet gone)."""
    if "threading" in sys.modules:
        threading = sys.modules["threading"]
        for thread in threading.enumerate():
            if thread is not threading.main_thread():
                thread.join(timeout)


class Server:
    """The zygote's loop: fork on request, report exits, reap on release."""

    def __init__(self, control: socket.socket, directory: str):
        self.control, self.directory = control, directory
        self.children = {}     # pid -> status pipe (write end), None once the exit is reported
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        signal.signal(signal.SIGCHLD, lambda *_: None)   # the wakeup fd does the work
        signal.set_wakeup_fd(self.wake_w)

    def send(self, message):
        self.control.send(json.dumps(message).encode())

    def serve(self):
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.control, selectors.EVENT_READ)
        self.selector.register(self.wake_r, selectors.EVENT_READ)
        while True:
            for key, _ in self.selector.select():
                if key.fileobj is self.control:
                    try:
                        data, fds, _, _ = socket.recv_fds(self.control, MAX_MESSAGE, 4)
                    except OSError:
                        data, fds = b"", []
                    if not data:
                        return self.shutdown()
                    try:
                        self.handle(json.loads(data), fds)
                    except OSError:      # the grader went away while we answered
                        return self.shutdown()
                else:
                    while True:
                        try:
                            if not os.read(self.wake_r, 512):
                                break
                        except BlockingIOError:
                            break
                    self.report_exits()

    def handle(self, message, fds):
        if "release" in message:
            self.release(message["release"])
        elif "kill" in message:
            if message["kill"] in self.children:
                _kill_group(message["kill"])
        elif "fork" in message and len(fds) == 4:
            self.send(self.fork(message["fork"], *fds))
        else:
            for fd in fds:
                os.close(fd)
            self.send({"error": "malformed request"})

    def fork(self, settings, request_r, reply_w, output, status_w) -> dict:
        if threads() != 1:
            for fd in (request_r, reply_w, output, status_w):
                os.close(fd)
            return {"error": f"the zygote has {threads()} threads; forking it is not safe"}
        ready_r, ready_w = os.pipe()
        sys.stdout.flush()          # nothing buffered here may reach a child's output
        sys.stderr.flush()
        try:
            pid = os.fork()
        except OSError as error:    # e.g. too many processes: as a failed Popen
            for fd in (request_r, reply_w, output, status_w, ready_r, ready_w):
                os.close(fd)
            return {"error": f"fork failed: {error}"}
        if pid == 0:
            try:
                self.control.detach()          # (its descriptor is closed below, not twice)
                _close_inherited(keep={0, 1, 2, request_r, reply_w, output, ready_w})
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                _become_submission(settings, request_r, reply_w, output, ready_w)
            finally:
                _exit(1)            # never back into the zygote's loop
        for fd in (request_r, reply_w, output, ready_w):
            os.close(fd)
        asked = time.monotonic()
        answer = _read_all(ready_r, SETUP_TIMEOUT)
        os.close(ready_r)
        if answer == b"ok":
            self.children[pid] = status_w
            self.report_exits()
            return {"pid": pid}
        ended = time.monotonic() - asked < SETUP_TIMEOUT    # it ended before saying anything
        try:                        # setup failed (or hung): the child must not live on
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        os.close(status_w)
        # SIGKILLed during its set-up, before any code of the submission ran: from outside.
        killed = ended and not answer and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        return {"error": answer.decode("utf-8", "replace") or (
            "the submission process was killed while it was set up" if killed else
            "the submission process did not set up in time"), "killed": killed}

    def report_exits(self):
        """Send each ended child's exit code to its status pipe, without reaping it."""
        for pid, status_w in list(self.children.items()):
            if status_w is None:
                continue
            try:
                ended = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                ended = None
            if ended is None:
                continue
            code = -ended.si_status if ended.si_code in (os.CLD_KILLED, os.CLD_DUMPED) else ended.si_status
            try:
                os.write(status_w, struct.pack("!i", code))
            except OSError:         # the grader stopped listening
                pass
            os.close(status_w)
            self.children[pid] = None

    def release(self, pid):
        if pid in self.children:
            self.report_exits()
            status_w = self.children.pop(pid)
            if status_w is not None:  # still running: the grader is done with it all the same
                os.close(status_w)
                _kill_group(pid)
            os.waitpid(pid, 0)

    def shutdown(self):
        """The grader is gone: nothing it started may outlive it."""
        for pid, status_w in self.children.items():
            _kill_group(pid)
            os.waitpid(pid, 0)
            if status_w is not None:
                os.close(status_w)
        self.children.clear()
        if os.path.basename(self.directory).startswith(DIRECTORY_PREFIX):
            shutil.rmtree(self.directory, ignore_errors=True)


def _close_inherited(keep):
    """In a child: close what it must not inherit from the zygote, its control socket, pipes,
    epoll descriptor (closed, never changed: its registrations are the zygote's), the status
    pipes of other children, anything writable. Files open read-only stay: modules hold them
    (matplotlib's fonts), and closing them under their feet breaks those modules."""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd in keep:
            continue
        try:
            read_only_file = stat.S_ISREG(os.fstat(fd).st_mode) and \
                fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY
        except OSError:       # the listing's own descriptor, gone by now
            continue
        if not read_only_file:
            os.close(fd)


def _kill_group(pid):
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _read_all(fd, timeout) -> bytes:
    import select
    chunks = []
    while select.select([fd], [], [], timeout)[0]:
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _become_submission(settings, request_r, reply_w, output, ready_w):
    """In the forked child: become a submission process, then run the runner. New session,
    standard streams, then the isolation: sealed (`isolation.enclose`: namespaces of its own,
    its tmpfs, no capabilities), or with --no-isolation only limits and a working folder."""
    from autograder import runner
    try:
        os.setsid()
        null = os.open(os.devnull, os.O_RDONLY)
        for source, target in ((null, 0), (output, 1), (output, 2)):
            os.dup2(source, target)
        for fd in {null, output} - {0, 1, 2}:
            os.close(fd)
        limits = types.SimpleNamespace(**settings["limits"])
        if settings["sealed"]:
            isolation.enclose(limits, settings["workdir"])    # returns in the submission process
        else:
            isolation.unsealed_setup(limits, settings["workdir"])
        os.environ.clear()
        os.environ.update(settings["env"])
        _fresh_process_state(settings, request_r, reply_w)
        os.write(ready_w, b"ok")
    except BaseException as error:  # noqa: BLE001 - reported to the zygote, which tells the grader
        try:
            os.write(ready_w, f"{type(error).__name__}: {error}".encode()[:2000])
        finally:
            _exit(127)
    os.close(ready_w)
    runner.main(request_r, reply_w, protect=settings.get("protect", ()))


def _fresh_process_state(settings, request_r, reply_w):
    """What a fresh interpreter would have differently from a fork of the zygote: its
    arguments, an unset temporary folder cache, and NumPy's global random state seeded from
    the operating system (Python's `random` reseeds itself after a fork)."""
    sys.argv[:] = ["-c", settings["root"], str(request_r), str(reply_w)]
    if "tempfile" in sys.modules:
        sys.modules["tempfile"].tempdir = None
    if "numpy.random" in sys.modules:
        sys.modules["numpy.random"].seed()


def main(control_fd: int, directory: str) -> None:
    control = socket.socket(fileno=control_fd)
    failed = preload(json.loads(control.recv(MAX_MESSAGE))["preload"])
    isolation.load_libc()
    warm_up()
    settle()
    gc.collect()     # what the imports and the warm-up left as garbage, not inherited by all
    gc.freeze()      # the rest is never collected in a child: its collections would write to
                     # (and so copy) every page of the inherited heap, and take longer
    server = Server(control, directory)
    server.send({"hello": os.getpid(), "threads": threads(), "failed": failed})
    server.serve()
