"""The student install (issue 16, item 2): `make lab` is one command that works in a fresh clone
of the repository and in the student bundle alike: it makes .venv, installs the course with its
tools into it (nothing from this machine's environment), and opens JupyterLab on the exercises,
with a Python 3 kernel whose dp and autograder are the course folder's. Slow: pip installs
JupyterLab, once in each place."""
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from autograder.course.config import ROOT
from tests.ecosystem import free_port, get, kernel_environment

BASE_PYTHON = getattr(sys, "_base_executable", None) or shutil.which("python3")


def course_folder(where, tmp_path):
    """A fresh clone of the repository (what is committed), or the bundle that this clone's
    `release` makes."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=300)
    if where == "repository":
        return clone
    made = subprocess.run([sys.executable, "-m", "autograder", "release", str(tmp_path / "bundle"),
                           "--all"], cwd=clone, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(clone)})
    assert made.returncode == 0, made.stderr[-3000:]
    return tmp_path / "bundle"


def start_lab(folder, home, port, token):
    """`make lab` in `folder`, with a Jupyter configuration of this test's (no browser, this
    port and token; as root, allowed), as its own process group. Returns (process, log path)."""
    (home / "config").mkdir(parents=True)
    (home / "config" / "jupyter_server_config.py").write_text(
        f"c.ServerApp.port = {port}\nc.ServerApp.port_retries = 0\nc.ServerApp.ip = '127.0.0.1'\n"
        f"c.ServerApp.open_browser = False\nc.ServerApp.allow_root = True\n"
        f"c.IdentityProvider.token = {token!r}\n")
    env = kernel_environment(home)
    env.pop("PYTHONPATH")                       # the course comes from .venv, not from here
    env.pop("VIRTUAL_ENV", None)
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep)
                                  if not p.startswith(str(ROOT)))
    log = home / "make-lab.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(["make", "lab", f"PYTHON={BASE_PYTHON}"], cwd=folder, env=env,
                                   stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True)
    return process, log


@pytest.mark.slow
@pytest.mark.parametrize("where", ["repository", "bundle"])
def test_make_lab_installs_the_course_and_opens_jupyterlab(where, tmp_path):
    folder = course_folder(where, tmp_path)
    assert not (folder / ".venv").exists()
    port, token = free_port(), "student-install-test"
    process, log = start_lab(folder, tmp_path / "home", port, token)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 1500          # pip installs JupyterLab first
        while True:
            try:
                get(f"{url}/api/status", token, timeout=2)
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, \
                    f"make lab did not open JupyterLab:\n{log.read_text()[-3000:]}"
                time.sleep(2)
        exercises = "" if where == "bundle" else "exercises/"    # the bundle opens exercises/
        listing = get(f"{url}/api/contents/{exercises}01_scalar_autodiff", token)
        assert "scalar_autodiff.ipynb" in {item["name"] for item in listing["content"]}
        assert "python3" in get(f"{url}/api/kernelspecs", token)["kernelspecs"]
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=60)
    python = folder / ".venv" / "bin" / "python"
    found = subprocess.run([python, "-c", "import autograder, dp, matplotlib, pytest; "
                            "print(autograder.__file__); print(dp.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert found.returncode == 0, found.stderr
    assert all(line.startswith(str(folder)) for line in found.stdout.split()), found.stdout
    pip = [python, "-m", "pip", "install", "-q", "-e", ".[student]"]
    again = subprocess.run(pip, cwd=folder, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr             # the documented pip command, too
    assert "does not provide the extra" not in again.stderr, again.stderr
    if where == "bundle":
        told = subprocess.run([python, "-m", "autograder", "check", "x.ipynb"], cwd=folder,
                              capture_output=True, text=True, timeout=120)
        assert told.returncode == 1 and "run its check(\"<task id>\") cells" in told.stderr, told.stderr
        assert "No module named" not in told.stderr
