"""The zygote (autograder.zygote, autograder.forkserver): submissions forked from a process that
has imported what they need, graded exactly as when each starts a fresh interpreter."""
import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import jupytext
import nbformat
import pytest

from autograder import forkserver
from autograder.grade import Submission, grade_one
from autograder.sandbox import Sandbox, SubmissionCrashed
from tests.grading import COURSE, ROOT, exercise_path, solution_source
from tests.mutants import all_mutants

pytestmark = pytest.mark.skipif(not forkserver.enabled(), reason="the zygote is for Linux")


def _parent_command(pid) -> bytes:
    parent = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
    return Path(f"/proc/{parent}/cmdline").read_bytes()


def _sandbox(*cells, assignment="01_scalar_autodiff", **limits):
    a = COURSE.assignment(assignment)
    if limits:
        a = dataclasses.replace(a, limits=dataclasses.replace(a.limits, **limits))
    return Sandbox([(n, code) for n, code in enumerate(cells, start=1)], a)


def _gone(pid) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in "ZX"
    except OSError:
        return True


def test_a_submission_is_forked_by_a_zygote():
    with _sandbox("x = 1") as sandbox:
        assert b"autograder.zygote" in _parent_command(sandbox.process.pid)
        assert sandbox.report["errors"] == []


def test_a_child_inherits_no_socket_or_pipe_of_the_zygote():
    """Only its two channels to the grader; its /proc files are its own (readable) as after exec."""
    cell = ("import os\nfor fd in sorted(os.listdir('/proc/self/fd'), key=int):\n"
            "    if os.path.exists(f'/proc/self/fd/{fd}'):   # (not the listing's own)\n"
            "        print(fd, os.readlink(f'/proc/self/fd/{fd}'))")
    with _sandbox(cell) as sandbox:
        assert sandbox.report["errors"] == []
    links = [line.split(" ", 1)[1] for line in sandbox.captured_output.splitlines()]
    assert sum(link.startswith("pipe:") for link in links) == 2, links
    assert not [link for link in links if "socket" in link or "eventpoll" in link], links


def _notebooks(tmp_path):
    notebooks = {
        "solution_01": ("01_scalar_autodiff", jupytext.reads(solution_source("01_scalar_autodiff"), fmt="py:percent")),
        "stub_01": ("01_scalar_autodiff", nbformat.read(str(exercise_path("01_scalar_autodiff")), as_version=4)),
    }
    for assignment in ("04_activation_functions", "06_optimizers"):
        notebooks[f"solution_{assignment[:2]}"] = (assignment, jupytext.reads(solution_source(assignment),
                                                                             fmt="py:percent"))
    mutant = next(m for m in all_mutants() if m.assignment == "01_scalar_autodiff")
    notebooks["mutant_01"] = ("01_scalar_autodiff", jupytext.reads(mutant.source(), fmt="py:percent"))
    paths = {}
    for name, (assignment, notebook) in notebooks.items():
        paths[name] = (tmp_path / f"{name}.ipynb", assignment)
        nbformat.write(notebook, str(paths[name][0]))
    return paths


def test_grading_is_the_same_with_and_without_the_zygote(tmp_path, monkeypatch):
    """Scores, messages, output, flags and the figures' PNG bytes, for notebooks that import
    matplotlib and dp (04, 06) or must not import dp (01). (In 06, a child that closed the
    font files the zygote's matplotlib keeps open printed errors.)"""
    graded, notebooks = {}, _notebooks(tmp_path)
    for zygote in ("1", "0"):
        monkeypatch.setenv("AUTOGRADER_ZYGOTE", zygote)
        for name, (path, assignment) in notebooks.items():
            result, figures = grade_one(Submission(path, name, assignment))
            graded[zygote, name] = json.dumps(result, sort_keys=True), figures
    for name in notebooks:
        assert graded["1", name][0] == graded["0", name][0], name
        assert graded["1", name][1] == graded["0", name][1], name
    assert json.loads(graded["1", "solution_04"][0])["score"] == COURSE.assignment("04_activation_functions").max_score
    assert graded["1", "solution_04"][1], "the figures of 04"


def test_a_dead_zygote_is_replaced():
    with _sandbox("x = 1") as sandbox:
        first = int(Path(f"/proc/{sandbox.process.pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    os.kill(first, signal.SIGKILL)
    with _sandbox("x = 2") as sandbox:
        second = int(Path(f"/proc/{sandbox.process.pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        assert sandbox.probe("__figures__") == []
    assert second != first and _gone(first)


def test_a_zygote_that_cannot_start_falls_back_to_exec(monkeypatch):
    monkeypatch.setattr(forkserver, "BOOTSTRAP", "import sys; sys.exit(3)")
    monkeypatch.setattr(forkserver, "_unusable", set())
    monkeypatch.setattr(forkserver, "_zygotes", {})
    with _sandbox("y = 1", assignment="02_matrix_autodiff") as sandbox:
        assert b"autograder.runner" in Path(f"/proc/{sandbox.process.pid}/cmdline").read_bytes()
        assert sandbox.report["errors"] == []
    assert forkserver._unusable


def test_the_exit_status_of_a_forked_submission_reaches_the_grader():
    with _sandbox("x = 1") as sandbox:
        os.kill(sandbox.process.pid, signal.SIGKILL)
        with pytest.raises(SubmissionCrashed, match="signal SIGKILL"):
            sandbox.probe("__figures__")
    assert sandbox.process is None


@pytest.mark.parametrize("assignment", [a.id for a in COURSE.assignments])
def test_a_zygote_imports_no_module_its_assignment_forbids(assignment):
    a = COURSE.assignment(assignment)
    modules = forkserver.preload_for(a)
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r})\nimport importlib\n"
            f"for m in {list(modules)!r}:\n    importlib.import_module(m)\n"
            "from autograder.zygote import warm_up\nwarm_up()\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(a.forbidden_imports)!r}))")
    run = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True,
                         env={"MPLBACKEND": "Agg", "OPENBLAS_NUM_THREADS": "1", "PATH": os.environ["PATH"]})
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_a_zygote_ends_with_its_grader_and_takes_its_submissions_along(tmp_path):
    """The grader killed (SIGKILL: no clean-up of its own): its zygote sees the end of its
    control socket, kills the submission still running, removes its folder and exits."""
    code = (f"import sys, os, time; sys.path.insert(0, {str(ROOT)!r})\n"
            "from tests.test_zygote import _sandbox\n"
            "sandbox = _sandbox('import time\\nwhile True:\\n    time.sleep(1)', time_limit=300, cpu_limit=300)\n"
            "import threading; threading.Thread(target=sandbox.start, daemon=True).start()\n"
            "while sandbox.process is None:\n    time.sleep(0.05)\n"
            "print(sandbox.process.pid, flush=True)\ntime.sleep(600)\n")
    grader = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "TMPDIR": str(tmp_path)})
    child = int(grader.stdout.readline())
    zygote = int(Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[1])
    assert b"autograder.zygote" in Path(f"/proc/{zygote}/cmdline").read_bytes()
    grader.kill()
    grader.wait()
    deadline = time.monotonic() + 10
    while not (_gone(child) and _gone(zygote)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(child) and _gone(zygote)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("autograder-zygote-")]
