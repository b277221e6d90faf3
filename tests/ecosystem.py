"""Helpers for the tests of the real ecosystem: a Jupyter server (JupyterLab, formgrader) on
localhost and HTTP to it, and expensive work done once per test run, whatever the workers."""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat

from autograder.course.config import ROOT, load_course


def answered(assignment_id: str, count: int = 1000):
    """The student notebook of `assignment_id` (exercises/) with its first `count` answer cells
    filled in from the solution: what a student hands in (nbgrader's cell metadata kept, no
    solution markers)."""
    from autograder.platforms.nbgrader_course import source_notebook
    assignment = load_course().assignment(assignment_id)
    solutions = {cell.id: cell.source for cell in source_notebook(assignment).cells}
    notebook = nbformat.read(str(assignment.exercise_path()), as_version=4)
    answer_cells = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("solution")]
    for cell in answer_cells[:count]:
        cell.source = "\n".join(line for line in solutions[cell.id].splitlines()
                                if "BEGIN SOLUTION" not in line and "END SOLUTION" not in line)
    return notebook


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# JupyterLab as a test needs it: every cell rendered (not only those in view), no pop-ups
# asking about news or updates.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
        {"fetchNews": "false", "checkForUpdates": False},
}


def kernel_environment(home: Path) -> dict:
    """The environment for Jupyter and its kernels: the course repository importable, not in
    grading mode, no user configuration or state from this machine."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("JUPYTER", "AUTOGRADER_", "PYTEST_", "COV_"))}
    env.update({
        "PYTHONPATH": str(ROOT),
        "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "lab-settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "lab-workspaces"),
        "IPYTHONDIR": str(home / "ipython"),
    })
    return env


def get(url: str, token: str, timeout: float = 10):
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        body = response.read()
    return json.loads(body) if body[:1] in (b"{", b"[") else body.decode("utf-8", "replace")


@contextlib.contextmanager
def jupyter(root_dir: Path, home: Path, app: str = "lab", make_lab: bool = False, timeout: float = 120):
    """`jupyter lab` (or `jupyter server`) serving `root_dir` on a free localhost port with a
    random token; yields (base url, token, log path). With `make_lab`, it is the repository's
    `make lab` (root_dir is then the repository). The process group is ended afterwards."""
    port, token = free_port(), secrets.token_hex(16)
    home.mkdir(parents=True, exist_ok=True)
    for name, settings in LAB_SETTINGS.items():
        path = home / "lab-settings" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings))
    log = home / f"jupyter-{app}.log"
    options = ["--no-browser", "--allow-root", f"--ServerApp.port={port}",
               "--ServerApp.port_retries=0", "--ServerApp.ip=127.0.0.1",
               f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root_dir}"]
    if make_lab:   # as it is, without reinstalling (-o: take the venv as up to date)
        command = ["make", "-o", ".venv/.installed-student", "lab", "LAB_ARGS=" + " ".join(options)]
    else:
        command = [sys.executable, "-m", "jupyter", app, *options]
    with open(log, "wb") as out:
        process = subprocess.Popen(command, cwd=ROOT if make_lab else root_dir,
                                   env=kernel_environment(home), stdout=out,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                get(f"{url}/api/status", token, timeout=2)
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"jupyter {app} did not start:\n{log.read_text()[-3000:]}")
                time.sleep(0.3)
        yield url, token, log
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def once_per_run(tmp_path_factory, name: str, make):
    """`make(folder)` run once per test run, even with pytest-xdist's workers (which share the
    parent of their base temporary folders): the first to come makes it, the others wait and
    reuse it. Returns the folder."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder, done = shared / name, shared / f"{name}.done"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not done.exists():
                if folder.exists():        # a failed attempt: start over
                    shutil.rmtree(folder)
                folder.mkdir()
                make(folder)
                done.touch()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return folder
