"""The submission process: run a notebook's code cells, then answer probes.

Started by `autograder.sandbox` with resource limits already in place. It reads one job from
the request channel, executes the cells in a fresh namespace with forbidden imports blocked and
the network cut, reports, and then answers probe requests until told to stop. It only ever
sends plain data (see `protocol`). Nothing here is trusted by the grader: a submission can
change what this process replies, never what the grader compares it with.
"""
from __future__ import annotations

import ctypes
import importlib
import importlib.abc
import io
import os
import sys
import time
import traceback

CLONE_NEWNET = 0x40000000


class ForbiddenImport(ImportError):
    pass


class ImportBlocker(importlib.abc.MetaPathFinder):
    """Refuses to import the assignment's forbidden modules (and their submodules)."""

    def __init__(self, forbidden):
        self.forbidden = set(forbidden)

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.forbidden:
            raise ForbiddenImport(f"importing {name!r} is not allowed in this assignment")
        return None


def cut_network() -> str:
    """Leave the network: a new, empty network namespace when the OS allows it, and in any case
    no sockets other than local pairs from Python."""
    layers = []
    try:
        if ctypes.CDLL(None, use_errno=True).unshare(CLONE_NEWNET) == 0:
            layers.append("network namespace")
    except (OSError, AttributeError):
        pass

    def audit(event, args):
        if event == "socket.__new__" and args[1] not in (1,):   # AF_UNIX only
            raise PermissionError("network access is not allowed while grading")
        if event in ("socket.connect", "socket.bind", "socket.sendto") and not isinstance(args[1], (str, bytes)):
            raise PermissionError("network access is not allowed while grading")
    sys.addaudithook(audit)
    layers.append("socket audit hook")
    return ", ".join(layers)


def run_cells(cells, namespace):
    """Execute each cell; an error in one cell is recorded and the next cell still runs."""
    errors = []
    for number, code in cells:
        try:
            exec(compile(code, f"<cell {number}>", "exec"), namespace)
        except BaseException as error:  # noqa: BLE001 - SystemExit and KeyboardInterrupt too
            frames = traceback.extract_tb(error.__traceback__)
            line = next((f.lineno for f in reversed(frames) if f.filename == f"<cell {number}>"), None)
            errors.append({"cell": number, "line": line,
                           "error": f"{type(error).__name__}: {error}"[:2000]})
    return errors


def answer(probes, namespace, request):
    name, kwargs = request.get("probe"), request.get("kwargs", {})
    function = getattr(probes, name, None) if isinstance(name, str) and not name.startswith("_") else None
    if name == "__figures__":
        from autograder.probes.common import figure_pngs as function
    elif function is None:
        return {"ok": False, "error": f"unknown probe {name!r}"}
    try:
        result = function(namespace, **kwargs)
    except BaseException as error:  # noqa: BLE001
        frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename.startswith("<cell")]
        where = f" ({frames[-1].filename[1:-1]}, line {frames[-1].lineno})" if frames else ""
        return {"ok": False, "error": f"{type(error).__name__}: {error}"[:2000] + where}
    return {"ok": True, "result": result}


def main(request_fd: int, reply_fd: int) -> None:
    from autograder import protocol
    job = protocol.receive(request_fd, max_bytes=1 << 30)
    probes = importlib.import_module(job["probes"])
    forbidden = set(job["forbidden"])
    for name in list(sys.modules):
        if name.split(".")[0] in forbidden:
            del sys.modules[name]
    sys.meta_path.insert(0, ImportBlocker(forbidden))
    layers = cut_network()
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    sys.stdin = io.StringIO("")
    start = time.perf_counter()
    errors = run_cells(job["cells"], namespace)
    sys.stdout.flush()
    protocol.send(reply_fd, {"ready": True, "errors": errors, "isolation": layers,
                             "seconds": time.perf_counter() - start})
    while True:
        try:
            request = protocol.receive(request_fd, max_bytes=1 << 30)
        except EOFError:
            break
        if request.get("stop"):
            break
        reply = answer(probes, namespace, request)
        try:
            message = protocol.dumps(reply)
        except Exception as error:  # noqa: BLE001 - whatever a student's object raises
            message = protocol.dumps({"ok": False, "error": f"the reply is not plain data: {error}"[:2000]})
        protocol.send_bytes(reply_fd, message)
        sys.stdout.flush()


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
