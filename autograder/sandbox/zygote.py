"""The zygote: a trusted process that has imported what submissions import, and forks them.

Starting a submission process used to mean a fresh interpreter importing NumPy, matplotlib and
dp, about half a second for every notebook, however trivial. A grader process (see
`autograder.sandbox.forkserver`) starts one zygote, which imports all that once (`PRELOAD`, minus the
assignment's forbidden modules) and then forks one child per submission. The zygote itself
runs sealed, in the allow-list file system that bubblewrap builds (autograder.sandbox.seal), and each
child encloses itself further before any student code runs (`autograder.sandbox.isolation.enclose`:
its own user, PID, mount, IPC, network and UTS namespaces, so that it can see neither the
zygote nor its siblings, its own tmpfs, no capabilities, the resource limits); only then it
runs `autograder.sandbox.runner.main`, which installs the Python guards and runs the student's code.
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
  zygote -> grader  {"hello": ..., "threads": n} once;  {"pid": n} or {"error": text} per fork;
                    {"released": pid, "running": bool, "strays": n, "gone": bool} per release
The status pipe receives the child's exit code (4 bytes, as Popen.returncode) when it ends. The
zygote reaps a child only on "release", after the grader's last signal to it: until then its pid
cannot be reused, as with a Popen child that has not been waited for. End of file on the control
socket (the grader gone) kills every child, and the zygote exits.

Nothing of a submission outlives its sandbox. A sealed child is two processes: the one the
zygote forked, which waits (`isolation.enclose`), and the submission, the first process (init)
of a PID namespace of its own. Every process the submission starts is in that namespace or one
below it, and no process can leave its PID namespace; when its init dies, the kernel kills them
all, and the init ends (its pidfd becomes readable) only once they are all gone. The waiting
process writes the init's pid, as this zygote numbers it, on a pipe before any code of the
submission runs (the submission cannot forge it), and the zygote holds a pidfd to it. "kill" and
"release" SIGKILL the init (never only the waiting process: the submission can clear its
PR_SET_PDEATHSIG), "release" waits until the init is gone, checks that no process of this
zygote's PID namespace is left but its own and its running children's (killing any, `strays`),
and says whether the submission was still running when the grader ended it (`running`). A
zygote that cannot make sure a submission is gone (`gone` false) exits after answering: the
grader replaces it, and its bubblewrap PID namespace takes everything in it along.

A child shares no open file description with the zygote or another child: the read-only files
it keeps (matplotlib's fonts) are opened again for it (`_own_description`), so that a file
offset cannot carry anything from one submission to the next.
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

from autograder.sandbox import isolation

_exit = os._exit   # the real one, whatever a child's code does to `os` later

PRELOAD = ("numpy", "numpy.testing", "matplotlib.pyplot", "dp", "autograder.sandbox.protocol",
           "autograder.sandbox.guard", "autograder.sandbox.runner", "autograder.probes.common")
SETUP_TIMEOUT = 30.0     # seconds for a child to set up its isolation
GONE_TIMEOUT = 10.0      # seconds for a killed submission's PID namespace to empty
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
        self.inits = {}        # pid -> (pid, pidfd or None) of the submission, first of its PID namespace
        self.running = set()   # pids whose submission still ran when the grader asked to kill it
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
                        if self.handle(json.loads(data), fds) is False:
                            return self.shutdown()
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
        """Answer `message`; False when this zygote must end (see `release`)."""
        if "release" in message:
            answer = self.release(message["release"])
            self.send(answer)
            return answer["gone"]
        elif "kill" in message:
            if message["kill"] in self.children:
                self.kill(message["kill"])
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
        report_r, report_w = os.pipe()      # the submission's pid, from the waiting process
        sys.stdout.flush()          # nothing buffered here may reach a child's output
        sys.stderr.flush()
        try:
            pid = os.fork()
        except OSError as error:    # e.g. too many processes: as a failed Popen
            for fd in (request_r, reply_w, output, status_w, ready_r, ready_w, report_r, report_w):
                os.close(fd)
            return {"error": f"fork failed: {error}"}
        if pid == 0:
            try:
                self.control.detach()          # (its descriptor is closed below, not twice)
                _close_inherited(keep={0, 1, 2, request_r, reply_w, output, ready_w, report_w})
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                _become_submission(settings, request_r, reply_w, output, ready_w, report_w)
            finally:
                _exit(1)            # never back into the zygote's loop
        for fd in (request_r, reply_w, output, ready_w, report_w):
            os.close(fd)
        asked = time.monotonic()
        answer = _read_all(ready_r, SETUP_TIMEOUT)
        os.close(ready_r)
        # End of file once the waiting process has written and closed it, and the submission
        # closed its copy (before it said "ok"): nothing here comes from the submission's code.
        report = _read_all(report_r, SETUP_TIMEOUT if answer == b"ok" else 0)
        os.close(report_r)
        init = _open_init(pid, report) if settings["sealed"] else None
        if answer == b"ok" and (init is not None or not settings["sealed"]):
            self.children[pid] = status_w
            if init is not None:
                self.inits[pid] = init
            self.report_exits()
            return {"pid": pid}
        if answer == b"ok":
            answer = b"the zygote could not find the submission's PID namespace"
        ended = time.monotonic() - asked < SETUP_TIMEOUT    # it ended before saying anything
        if init is None and len(report) == 4:   # a hung set-up: its pid is trusted, not verified
            _kill_init((int.from_bytes(report, "big"), None))
        elif init is not None:
            _kill_init(init)
        try:                        # setup failed (or hung): the child must not live on
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        os.close(status_w)
        if init is not None:
            _gone(init, GONE_TIMEOUT)
            _close_init(init)
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

    def kill(self, pid):
        """SIGKILL the submission `pid` and everything it started: its PID namespace's init,
        which takes the whole namespace along; the waiting process then reaps it and ends as
        killed (it is killed itself only without an init, or if it does not end)."""
        init = self.inits.get(pid)
        if init is None:
            _kill_group(pid)
            return
        if not _gone(init):
            self.running.add(pid)
        _kill_init(init)

    def release(self, pid) -> dict:
        """Kill what is left of `pid`, make sure that nothing is, and reap it."""
        answer = {"released": pid, "running": False, "strays": 0, "gone": True}
        if pid not in self.children:
            return answer
        self.report_exits()
        status_w = self.children.pop(pid)
        init = self.inits.pop(pid, None)
        if status_w is not None:  # still running: the grader is done with it all the same
            os.close(status_w)
        self.kill(pid)
        answer["running"] = pid in self.running
        self.running.discard(pid)
        if init is not None:
            answer["gone"] = _gone(init, GONE_TIMEOUT)
            _close_init(init)
            _reap(pid, GONE_TIMEOUT)  # the waiting process, once it has reaped the init
        else:
            os.waitpid(pid, 0)
        if init is not None:
            answer["strays"] = self.kill_strays()
        return answer

    def kill_strays(self) -> int:
        """SIGKILL every process of this (sealed) zygote's PID namespace that is neither
        bubblewrap's (1), the zygote, nor a running child or one of its descendants: what a
        submission left behind, which its namespace's end should have made impossible."""
        parents = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    with open(f"/proc/{name}/stat") as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                except (OSError, IndexError):
                    continue
                if fields[0] not in ("Z", "X"):     # a zombie's parent is reaping it
                    parents[int(name)] = int(fields[1])
        running, strays = set(self.children), 0
        for pid in set(parents) - {1, os.getpid()}:
            ancestor, seen = pid, set()
            while ancestor not in running and ancestor in parents and ancestor not in seen:
                seen.add(ancestor)
                ancestor = parents[ancestor]
            if ancestor not in running:
                try:
                    os.kill(pid, signal.SIGKILL)
                    strays += 1
                except OSError:
                    pass
        return strays

    def shutdown(self):
        """The grader is gone: nothing it started may outlive it."""
        for pid in self.children:
            self.kill(pid)
        for pid, status_w in self.children.items():
            if pid in self.inits:
                _gone(self.inits[pid], GONE_TIMEOUT)
                _close_init(self.inits[pid])
                _reap(pid, GONE_TIMEOUT)
            else:
                os.waitpid(pid, 0)
            if status_w is not None:
                os.close(status_w)
        self.children.clear()
        self.inits.clear()
        if os.path.basename(self.directory).startswith(DIRECTORY_PREFIX):
            shutil.rmtree(self.directory, ignore_errors=True)


def _close_inherited(keep):
    """In a child: close what it must not inherit from the zygote, its control socket, pipes,
    epoll descriptor (closed, never changed: its registrations are the zygote's), the status
    pipes of other children, anything writable. Files open read-only stay: modules hold them
    (matplotlib's fonts), and closing them under their feet breaks those modules; but each gets
    an open file description of its own (`_own_description`): one shared with the zygote, and
    so with every other child, would let a submission leave a message in its file offset."""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd in keep:
            continue
        try:
            read_only_file = stat.S_ISREG(os.fstat(fd).st_mode) and \
                fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY
        except OSError:       # the listing's own descriptor, gone by now
            continue
        if not read_only_file or not _own_description(fd):
            os.close(fd)


def _own_description(fd) -> bool:
    """Replace `fd`'s open file description (the zygote's) by a new one of the same file, at
    the same offset, with the same flags; False if that cannot be done (then close it)."""
    try:
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        path = getattr(os, "O_PATH", 0)
        offset = 0 if flags & path else os.lseek(fd, 0, os.SEEK_CUR)
        fresh = os.open(f"/proc/self/fd/{fd}", os.O_RDONLY | os.O_CLOEXEC | (flags & (
            path | os.O_NONBLOCK | getattr(os, "O_NOATIME", 0) | getattr(os, "O_DIRECT", 0))))
    except OSError:
        return False
    try:
        if offset:
            os.lseek(fresh, offset, os.SEEK_SET)
        os.dup2(fresh, fd, inheritable=os.get_inheritable(fd))
    except OSError:
        return False
    finally:
        os.close(fresh)
    return True


def _open_init(waiter, report: bytes):
    """(pid, pidfd or None) of the submission of the waiting process `waiter`, from what the
    waiting process reported; None unless that pid is `waiter`'s child, the first process of a
    PID namespace below ours. The pidfd (Linux 5.3) names it even once its pid is reused."""
    if len(report) != 4:
        return None
    pid = int.from_bytes(report, "big")
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    try:
        with open(f"/proc/{pid}/status") as f:
            fields = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
        ours = int(fields["PPid"]) == waiter and fields["NSpid"].split()[-1] == "1" \
            and len(fields["NSpid"].split()) >= 2
    except (OSError, KeyError, ValueError):
        ours = False
    if not ours:
        _close_init((pid, pidfd))
        return None
    return pid, pidfd


def _kill_init(init):
    """SIGKILL a submission's first process: the kernel kills the rest of its PID namespace."""
    pid, pidfd = init
    try:
        if pidfd is not None:
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
    except OSError:           # gone already
        pass


def _gone(init, timeout=0.0) -> bool:
    """Whether a submission's first process has ended, and so every process of its namespace:
    the kernel lets it end only once they have (its pidfd is then readable)."""
    import select
    pid, pidfd = init
    if pidfd is not None:
        return bool(select.select([pidfd], [], [], timeout)[0])
    deadline = time.monotonic() + timeout
    while True:               # without a pidfd: its entry, while its waiting process has not reaped it
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return True
        except (OSError, IndexError):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)


def _close_init(init):
    if init[1] is not None:
        os.close(init[1])


def _reap(pid, timeout):
    """Reap the child `pid`, SIGKILLed if it has not ended within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) \
            and time.monotonic() < deadline:
        time.sleep(0.005)
    _kill_group(pid)          # (its pid is not reused before it is reaped)
    os.waitpid(pid, 0)


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


def _become_submission(settings, request_r, reply_w, output, ready_w, report_w):
    """In the forked child: become a submission process, then run the runner. New session,
    standard streams, then the isolation: sealed (`isolation.enclose`: namespaces of its own,
    its tmpfs, no capabilities; its waiting process writes the submission's pid on `report_w`),
    or with --no-isolation only limits and a working folder."""
    from autograder.sandbox import runner
    try:
        os.setsid()
        _first_to_go()
        null = os.open(os.devnull, os.O_RDONLY)
        for source, target in ((null, 0), (output, 1), (output, 2)):
            os.dup2(source, target)
        for fd in {null, output} - {0, 1, 2}:
            os.close(fd)
        limits = types.SimpleNamespace(**settings["limits"])
        if settings["sealed"]:       # returns in the submission process
            isolation.enclose(limits, settings["workdir"], report=report_w)
        else:
            isolation.unsealed_setup(limits, settings["workdir"])
        os.close(report_w)           # the waiting process's only: before any code of the submission
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


def _first_to_go():
    """Where memory runs out (the sandbox's memory cgroup, autograder.sandbox.memcap), the
    kernel kills the submission, never the zygote: the highest oom_score_adj, which anyone may
    raise (and only a privileged process lower again)."""
    try:
        with open("/proc/self/oom_score_adj", "w") as adj:
            adj.write("1000")
    except OSError:
        pass


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
