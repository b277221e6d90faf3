"""The submission process: run a notebook's code cells, then answer probes.

Started by `autograder.sandbox.process` with the operating system's isolation already in place. It
reads one job from the request channel, installs the guards (autograder.sandbox.guard), executes the
cells in a fresh namespace within the execution budget, reports, and then answers probe
requests until told to stop. It only ever sends plain data (see `protocol`). Nothing here is
trusted by the grader: a submission can change what this process replies, never what the
grader compares it with.
"""
from __future__ import annotations

import importlib
import io
import os
import signal
import sys
import time
import traceback

from autograder.sandbox.errors import where_raised

_exit = os._exit   # the real one: the guards replace os._exit for the student's code


class ExecutionTimeout(BaseException):
    """The notebook used up its execution budget (raised in the running cell)."""


def _on_alarm(signum, frame):
    raise ExecutionTimeout()


def run_cells(cells, namespace, budget):
    """Execute each cell; an error in one cell is recorded and the next cell still runs. When
    the budget is used up, the running cell is interrupted and the rest are not run."""
    errors, me, deadline = [], os.getpid(), time.monotonic() + budget
    signal.signal(signal.SIGALRM, _on_alarm)
    for number, code in cells:
        left = deadline - time.monotonic()
        if left <= 0:
            errors.append({"cell": number, "line": None,
                           "error": "not run: the time for running the notebook was used up"})
            continue
        signal.setitimer(signal.ITIMER_REAL, left)
        try:
            exec(compile(code, f"<cell {number}>", "exec"), namespace)
        except ExecutionTimeout:
            errors.append({"cell": number, "line": None, "error": f"interrupted: the notebook "
                           f"took longer than its {budget:.0f} s to run"})
        except BaseException as error:  # noqa: BLE001 - SystemExit and KeyboardInterrupt too
            frames = traceback.extract_tb(error.__traceback__)
            line = next((f.lineno for f in reversed(frames) if f.filename == f"<cell {number}>"), None)
            errors.append({"cell": number, "line": line,
                           "error": f"{type(error).__name__}: {error}"[:2000]})
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if os.getpid() != me:       # a process forked by the cell must not go on to the probes
            _exit(0)
    return errors


def answer(probes, namespace, request):
    name, kwargs = request.get("probe"), request.get("kwargs", {})
    function = getattr(probes, name, None) if isinstance(name, str) and not name.startswith("_") else None
    if name == "__figures__":
        from autograder.probes.common import figure_pngs as function
    elif function is None or not isinstance(kwargs, dict):
        return {"ok": False, "error": f"unknown probe {name!r}"}
    try:
        result = function(namespace, **kwargs)
    except BaseException as error:  # noqa: BLE001
        where = where_raised(error.__traceback__, lambda file: file.startswith("<cell"),
                             lambda file, function, line: f"{file[1:-1]}, line {line}")
        text = str(error) or ("not implemented yet" if isinstance(error, NotImplementedError) else "")
        return {"ok": False, "error": f"{type(error).__name__}: {text}"[:2000] + where}
    return {"ok": True, "result": result}


def main(request_fd: int, reply_fd: int, protect=()) -> None:
    """`protect`: more process ids the code may not signal (the grader, when this process was
    forked by a zygote and its parent is the zygote)."""
    from autograder.sandbox import guard, protocol
    sys.dont_write_bytecode = True
    job = protocol.receive(request_fd, max_bytes=1 << 30)
    probes = importlib.import_module(job["probes"])
    importlib.import_module("autograder.probes.common")
    os.register_at_fork(after_in_child=lambda: [os.close(fd) for fd in (request_fd, reply_fd)])
    import numpy
    import numpy.testing
    watched = [probes, numpy, numpy.testing, protocol, guard, sys.modules[__name__]]
    watched += [sys.modules[m] for m in ("pytest", "autograder", "autograder.probes.common") if m in sys.modules]
    before = guard.snapshot(watched)
    guard.install(job["forbidden"], os.getcwd(), job["hidden"], job["max_output"], protect)
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    sys.stdin = io.StringIO("")
    start = time.perf_counter()
    errors = run_cells(job["cells"], namespace, job["budget"])
    sys.stdout.flush()
    protocol.send(reply_fd, {"ready": True, "errors": errors, "seconds": time.perf_counter() - start,
                             "attempts": list(guard.ATTEMPTS),
                             "tampered": guard.tampered(before, watched)[:20]})
    while True:
        try:
            request = protocol.receive(request_fd, max_bytes=1 << 30)
        except (EOFError, OSError):
            break
        if not isinstance(request, dict) or request.get("stop"):
            break
        reply = answer(probes, namespace, request)
        try:
            message = protocol.dumps(reply)
        except BaseException as error:  # noqa: BLE001 - whatever a student's object raises
            message = protocol.dumps({"ok": False, "error": f"the reply is not plain data: "
                                                            f"{type(error).__name__}: {error}"[:2000]})
        protocol.send_bytes(reply_fd, message)
        sys.stdout.flush()
    _exit(0)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
