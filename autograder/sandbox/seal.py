"""The sealed sandbox's file system: an allow-list, spelled out as one bubblewrap command line.

A submission's process sees a file system made for it, and nothing else exists for it:

  /usr                 the system's libraries (/usr/local and system site-packages hidden)
  <python prefix>      the Python runtime: interpreter and standard library, no site-packages
  /sandbox/site/       NumPy, matplotlib and what they need (from the grader's environment)
  /sandbox/lib/        the submission process's own code (runner, guard, protocol, zygote,
                       isolation), the assignment's probe module, and dp unless it is forbidden
  /sandbox/data/       the MNIST training digits (never the test digits the grader holds)
  /work, /tmp          fresh, size-limited tmpfs per submission (autograder.sandbox.isolation.enclose)

No repository, no other submission, no other checkout, no grader files, no held-out data: what
is not listed here is not there. bubblewrap (https://github.com/containers/bubblewrap) builds it
in new user, PID, IPC, network, UTS and cgroup namespaces, read-only, and kills it when the
grader dies (--die-with-parent). Inside runs a zygote (autograder.sandbox.zygote) that forks one child
per submission; each child gets namespaces of its own again (see `isolation.enclose`), so that
submissions cannot see or reach each other, nor the zygote.

As root, bubblewrap runs as a uid of its own (`isolation.claim_uid`), never as root. Without
root it needs unprivileged user namespaces, which most current distributions allow.
"""
from __future__ import annotations

import ast
import functools
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from ..course.config import PACKAGE

SITE, LIB, DATA = "/sandbox/site", "/sandbox/lib", "/sandbox/data"
WORK = "/work"
MNIST_FILE = f"{DATA}/mnist-train.npz"
PACKAGES = ("numpy", "matplotlib")       # what every submission may import, with their needs
# The submission process's own code: what runs it, never what judges it.
RUNTIME = ("__init__.py", "sandbox/__init__.py", "sandbox/runner.py", "sandbox/guard.py",
           "sandbox/protocol.py", "sandbox/errors.py", "sandbox/zygote.py", "sandbox/isolation.py",
           "sandbox/seccomp.py",
           "probes/__init__.py", "probes/common.py")
INSTALL_HINT = ("install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf "
                "install bubblewrap) and allow unprivileged user namespaces")


class IsolationUnavailable(RuntimeError):
    """Submissions cannot be sealed on this machine (the message says why and what to do)."""


def bwrap() -> str | None:
    return shutil.which("bwrap")


@functools.lru_cache(maxsize=None)
def unavailable() -> str | None:
    """Why sealed sandboxes cannot be made here, or None when they can (tried once)."""
    if not sys.platform.startswith("linux"):
        return f"sealed grading needs Linux namespaces; this is {sys.platform}"
    if bwrap() is None:
        return "bubblewrap (bwrap) is not installed"
    probe = [bwrap(), "--unshare-all", "--die-with-parent", *_system_binds(), "--proc", "/proc",
             "--dev", "/dev", "--", "/bin/true" if os.path.exists("/bin/true") else "/usr/bin/true"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=30, **_as_sandbox_user())
    except (OSError, subprocess.SubprocessError) as error:
        return f"bubblewrap could not start: {error}"
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        return f"bubblewrap cannot create namespaces here ({reason[0]})"
    return None


def require() -> None:
    """Raise IsolationUnavailable, with what to do, when sealed sandboxes cannot be made."""
    reason = unavailable()
    if reason is not None:
        raise IsolationUnavailable(
            f"cannot seal submissions: {reason}.\nTo grade untrusted work, {INSTALL_HINT}; "
            f"to grade trusted work without isolation, pass --no-isolation.")


def _as_sandbox_user() -> dict:
    """Popen arguments that run bubblewrap as an unprivileged uid when we are root (the probe
    in `unavailable` runs it as nobody; zygotes as a uid of their own, see forkserver)."""
    if os.geteuid() != 0:
        return {}
    return {"user": 65534, "group": 65534, "extra_groups": [], "cwd": "/"}


def _system_binds() -> list:
    """The system's libraries: /usr read-only, with /usr/local hidden, and the usual links."""
    args = ["--ro-bind", "/usr", "/usr", "--tmpfs", "/usr/local"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    for extra in ("/etc/ld.so.cache", "/etc/fonts"):
        if os.path.exists(extra):
            args += ["--ro-bind", extra, extra]
    for hidden in ("/usr/lib/python3/dist-packages",):
        if os.path.isdir(hidden):
            args += ["--tmpfs", hidden]
    return args


def python_prefix() -> Path:
    return Path(os.path.realpath(sys.base_prefix))


def python_executable() -> str:
    return os.path.realpath(getattr(sys, "_base_executable", sys.executable))


def _runtime_binds() -> list:
    """The interpreter and its standard library, without the base installation's site-packages."""
    prefix = python_prefix()
    args = ["--ro-bind", str(prefix), str(prefix)]
    stdlib = Path(sysconfig.get_paths(vars={"base": str(prefix), "platbase": str(prefix)})["stdlib"])
    site = stdlib / "site-packages"
    if site.is_dir():
        args += ["--tmpfs", str(site)]
    executable = python_executable()
    if not executable.startswith(str(prefix) + os.sep) and not executable.startswith("/usr/"):
        args += ["--ro-bind", executable, executable]
    return args


def _distributions(names) -> dict:
    """name -> Distribution for `names` and everything they require (extras left out)."""
    found, todo = {}, list(names)
    while todo:
        try:
            dist = importlib.metadata.distribution(todo.pop())
        except importlib.metadata.PackageNotFoundError:
            continue
        key = re.sub(r"[-_.]+", "-", dist.metadata["Name"]).lower()
        if key in found:
            continue
        found[key] = dist
        for requirement in dist.requires or []:
            if "extra ==" not in requirement:
                todo.append(re.split(r"[\s;<>=!~\[(]", requirement.strip(), maxsplit=1)[0])
    return found


@functools.lru_cache(maxsize=None)
def site_entries() -> tuple:
    """(source, name) of every top-level file or folder that PACKAGES and their requirements
    installed: bound one by one, so that nothing else of the grader's environment is seen."""
    entries = {}
    for dist in _distributions(PACKAGES).values():
        for file in dist.files or []:
            top = file.parts[0]
            if top in ("..", "__pycache__") or top.endswith(".pth"):
                continue
            source = Path(dist.locate_file(top))
            if source.exists():
                entries[top] = str(source)
    return tuple(sorted((source, name) for name, source in entries.items()))


def probe_modules(module: str) -> list:
    """`module` (autograder.probes.x) and the probe modules it imports relatively."""
    names, todo = [], [module.rsplit(".", 1)[-1]]
    while todo:
        name = todo.pop()
        if name in names:
            continue
        names.append(name)
        tree = ast.parse((PACKAGE / "probes" / f"{name}.py").read_text(encoding="utf-8"))
        todo += [node.module for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module]
    return [f"probes/{name}.py" for name in names]


def lib_entries(assignment) -> list:
    """(source, path under LIB) of the code a submission process of `assignment` runs."""
    files = list(RUNTIME) + [f for f in probe_modules(assignment.probes_module) if f not in RUNTIME]
    entries = [(str(PACKAGE / f), f"autograder/{f}") for f in files]
    if "dp" not in assignment.forbidden_imports:
        entries.append((str(PACKAGE.parent / "dp"), "dp"))
    return entries


def child_environment(workdir, sealed=True) -> dict:
    """A submission's whole environment (a zygote's too): nothing of the grader's, no secret."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(workdir), "TMPDIR": str(workdir),
           "LANG": "C.UTF-8", "MPLBACKEND": "Agg", "MPLCONFIGDIR": f"{workdir}/.matplotlib",
           "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "AUTOGRADER_GRADING": "1",
           "DP_OFFLINE": "1", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    if sealed:
        env["DP_MNIST_FILE"] = MNIST_FILE        # the training digits, nothing more
    else:
        env["DP_DATA_DIR"] = os.environ.get("DP_DATA_DIR", str(Path.home() / ".cache" / "dp" / "mnist"))
    return env


_data = None


def training_data():
    """A file with the MNIST training digits (uint8) for dp.data.mnist() in the sandbox, made
    once per grader process from the grader's own MNIST. It has no name (unlinked): nothing is
    left behind whatever ends the grader, and bubblewrap copies it into each sandbox."""
    global _data
    if _data is None:
        import numpy as np
        import dp.data
        digits = dp.data.mnist(download=False, verbose=False)
        data = tempfile.TemporaryFile()
        np.savez(data, x_train=np.round(digits.x_train * 255).astype(np.uint8),
                 y_train=digits.y_train.astype(np.uint8), source=np.array(digits.source))
        data.flush()
        _data = data
    return _data


def open_training_data() -> int:
    """A descriptor of its own on the training digits, at offset 0 (for one bubblewrap)."""
    return os.open(f"/proc/self/fd/{training_data().fileno()}", os.O_RDONLY | os.O_CLOEXEC)


def sources(assignment) -> list:
    """Every path of the grader's file system that the sandbox of `assignment` shows."""
    return ([str(python_prefix()), python_executable()]
            + [s for s, _ in site_entries()] + [s for s, _ in lib_entries(assignment)])


def command(assignment, env: dict, program: list, data_fd: int) -> list:
    """The bubblewrap command line that runs `program` (argv) sealed, for `assignment`;
    `data_fd` (from `open_training_data`) must be passed to it."""
    args = [bwrap(), "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            *_system_binds(), *_runtime_binds()]
    for source, name in site_entries():
        args += ["--ro-bind", source, f"{SITE}/{name}"]
    for source, path in lib_entries(assignment):
        args += ["--ro-bind", source, f"{LIB}/{path}"]
    args += ["--ro-bind-data", str(data_fd), MNIST_FILE,
             "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", WORK,
             "--remount-ro", "/", "--chdir", "/tmp", "--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    return args + ["--", *program]
