"""The grading engine: course.toml, notebooks, the sandbox protocol, grading and reports."""
import csv
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import numpy as np
import pytest

from autograder.sandbox import protocol
from autograder.course.config import CourseError, load_course
from autograder.grading.grade import discover, grade_all
from autograder.course.notebook import NotebookError, code_cells, read_notebook, scan_imports, strip_magics
from tests.grading import (COURSE, ROOT, explain, full_marks, notebook_from_source, points,
                           solution_source)

MNIST = "09_mnist"

# A fast, honest, partial MNIST submission: the nearest class mean of the training digits
# (0.795 accuracy, at most the floor 0.80: no points).
CENTROIDS = """
import numpy as np
import dp

data = dp.data.mnist()
means = np.stack([data.x_train[data.y_train == k].mean(0) for k in range(10)])
def predict(x):
    return ((x[:, None, :] - means[None]) ** 2).sum(-1).argmin(1)
"""
def write_notebook(path, *cells, metadata=None):
    nb = nbformat.v4.new_notebook(metadata=metadata or {})
    nb.cells = [nbformat.v4.new_code_cell(textwrap.dedent(c)) for c in cells]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))
    return path


def grade_cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "autograder", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


# -- course.toml ----------------------------------------------------------------------------
def test_course_loads_with_tasks_points_and_limits():
    course = load_course()
    mnist = course.assignment(MNIST)
    assert mnist.thresholds["accuracy"] == 0.90 and mnist.limits.time_limit == 600
    assert course.task_owner("mnist_accuracy") is mnist


@pytest.mark.parametrize("text, message", [
    ("", "missing key 'course'"),
    ("[course]\n", "missing key 'assignment'"),
    ("[course]\n[[assignment]]\nid='a'\nnotebook='n'\n", "missing key 'task'"),
    ("[course]\n[limits]\ntime_limit=1\n[[assignment]]\nid='a'\nnotebook='n'\n[[assignment.task]]\nid='t'\npoints=1\n",
     "missing limit 'cpu_limit'"),
    ("[course]\n[[assignment]]\nid='a'\nnotebook='n'\ntime_limit=-1\n[[assignment.task]]\nid='t'\npoints=1\n",
     "time_limit: must be a positive number"),
    ("[course\n", "not valid TOML"),
    ("[course]\nseed_policy='sometimes'\n", "seed_policy must be"),
    ("[course]\nseed_polcy='fixed'\n", r"\[course\]: unknown key 'seed_polcy'; did you mean 'seed_policy'"),
    ("[course]\n[limit]\ntime_limit=1\n", "unknown key 'limit'; did you mean 'limits'"),
    ("[course]\n[limits]\nmemory=1\n", r"\[limits\]: unknown key 'memory'; did you mean 'memory_limit'"),
    ("[course]\n[[assignment]]\nid='a'\nnotebook='n'\ntreshold={}\n[[assignment.task]]\nid='t'\npoints=1\n",
     "assignment 'a': unknown key 'treshold'; did you mean 'thresholds'"),
    ("[course]\n[[assignment]]\nid='a'\nnotebook='n'\n[[assignment.task]]\nid='t'\npoint=1\n",
     "task 't': unknown key 'point'; did you mean 'points'"),
])
def test_bad_course_toml_names_what_is_wrong(tmp_path, text, message):
    path = tmp_path / "course.toml"
    path.write_text(text)
    with pytest.raises(CourseError, match=message):
        load_course(path)


def test_duplicate_task_ids_are_rejected(tmp_path):
    text = (ROOT / "course.toml").read_text().replace('id = "bce_loss"', 'id = "mnist_accuracy"')
    (tmp_path / "course.toml").write_text(text)
    with pytest.raises(CourseError, match="task id 'mnist_accuracy' is already used"):
        load_course(tmp_path / "course.toml")


def test_unknown_assignment_lists_the_known_ones():
    with pytest.raises(CourseError, match="unknown assignment 'nope'.*09_mnist"):
        COURSE.assignment("nope")


# -- the protocol -----------------------------------------------------------------------------
def test_plain_data_round_trips():
    value = {"a": [1, 2.5, None, True, "s"], "x": np.arange(6, dtype=np.float32).reshape(2, 3),
             "nan": float("nan"), "n": np.int64(3), "scalar": np.array(2.0), "t": np.eye(3).T}
    back = protocol.decode(json.loads(protocol.dumps(value)[8:]))
    assert back["scalar"].shape == () and back["t"].tolist() == np.eye(3).tolist()
    np.testing.assert_array_equal(back["x"], value["x"])
    assert back["x"].dtype == np.float32 and np.isnan(back["nan"]) and back["n"] == 3


@pytest.mark.parametrize("bad", [object(), np.array([object()]), {1: 2}, lambda: 0])
def test_non_plain_data_is_refused(bad):
    with pytest.raises(protocol.ProtocolError):
        protocol.dumps(bad)


@pytest.mark.parametrize("message", [
    {"__array__": "object", "shape": [1], "data": ""},
    {"__array__": "float64", "shape": [1000], "data": "AAAA"},
    {"__float__": "__import__('os')"},
])
def test_forged_messages_are_rejected(message):
    with pytest.raises(protocol.ProtocolError):
        protocol.decode(message)


# -- notebooks --------------------------------------------------------------------------------
def test_grade_cells_and_magics_are_not_run(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("%matplotlib inline\nx = 1\n!ls"),
                nbformat.v4.new_code_cell('check("mnist_accuracy")'),
                nbformat.v4.new_code_cell("y = 2", metadata={"nbgrader": {"grade": True, "solution": False}}),
                nbformat.v4.new_markdown_cell("text")]
    cells = code_cells(nb)
    assert [n for n, _ in cells] == [1]
    assert "x = 1" in cells[0][1] and "%" not in cells[0][1].replace("# %", "")
    assert strip_magics("%%bash\nrm -rf /") == ""


@pytest.mark.parametrize("code, flagged", [
    ("import dp", True), ("from dp.node import Node", True), ("__import__('dp')", True),
    ("import importlib\nimportlib.import_module('dp.node')", True), ("exec('import dp')", True),
    ("import numpy", False), ("dpx = 1", False),
])
def test_forbidden_imports_are_flagged(code, flagged):
    flags = scan_imports([(3, code)], ["dp"])
    assert bool(flags) == flagged
    if flagged:
        assert flags == ["forbidden import: dp (cell 3)"]


@pytest.mark.parametrize("content, message", [
    (b"{not json", "not valid JSON"), (b"\xff\xfe\x00", "not UTF-8"),
    (b'{"cells": [], "nbformat": 3}', "nbformat 3 is not supported"), (b"[]", "not a Jupyter notebook"),
    (b'{"nbformat": 4}', "no list of cells"),
])
def test_unreadable_notebooks_get_a_clear_message(tmp_path, content, message):
    path = tmp_path / "broken.ipynb"
    path.write_bytes(content)
    with pytest.raises(NotebookError, match=message):
        read_notebook(path)


def test_student_and_assignment_come_from_the_nbgrader_layout(tmp_path):
    path = write_notebook(tmp_path / "submitted" / "alice" / MNIST / "mnist.ipynb", "x = 1")
    other = write_notebook(tmp_path / "bob_mnist.ipynb", "x = 1")
    found = discover([tmp_path], COURSE)
    assert {(s.student, s.assignment_id) for s in found} == {("alice", MNIST), ("bob", MNIST)}
    assert {s.path for s in found} == {path, other}


# -- grading end to end -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def class_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("class")
    (root / "submitted" / "full" / MNIST).mkdir(parents=True)
    notebook_from_source(solution_source(MNIST), root / "submitted" / "full" / MNIST / "mnist.ipynb")
    write_notebook(root / "submitted" / "partial" / MNIST / "mnist.ipynb", CENTROIDS)
    write_notebook(root / "submitted" / "cheat" / MNIST / "mnist.ipynb", CENTROIDS, """
        import numpy, numpy.testing, sys
        numpy.mean = lambda *a, **k: 1.0                 # the grader's comparisons are not here
        numpy.allclose = lambda *a, **k: True
        numpy.testing.assert_allclose = lambda *a, **k: None
        try:
            import pytest                                # not even in the sandbox
            pytest.approx = lambda *a, **k: a[0]
        except ImportError:
            pass
        import autograder.probes.mnist as probes
        probes.predict = lambda ns, images: numpy.zeros(len(images), dtype=int) + 7
        """)
    (root / "submitted" / "broken" / MNIST).mkdir(parents=True)
    (root / "submitted" / "broken" / MNIST / "mnist.ipynb").write_text('{"cells": [')
    out = root / "out"
    run = grade_cli("grade", root / "submitted", "--out", out, "--jobs", "2")
    return root, out, run


def load(out, student):
    return json.loads((out / "results" / student / f"{MNIST}.json").read_text())


def test_grade_exits_zero_and_prints_the_table(class_dir):
    _, out, run = class_dir
    assert run.returncode == 0, run.stderr
    assert "grades:" in run.stdout and "partial" in run.stdout


def test_full_submission_passes_with_its_accuracy_measured(class_dir):
    result = load(class_dir[1], "full")
    assert points(result) == full_marks(MNIST) and not result["flags"], explain(result)
    assert result["tasks"][0]["metrics"]["accuracy"] >= 0.90


def test_partial_submission_fails_with_its_accuracy_in_the_message(class_dir):
    task = load(class_dir[1], "partial")["tasks"][0]
    assert task["status"] == "failed" and task["points"] == 0
    assert 0.5 < task["metrics"]["accuracy"] < 0.8
    assert "below the required 0.9" in task["message"]


def test_tampering_with_numpy_pytest_and_probes_earns_nothing_extra(class_dir):
    result = load(class_dir[1], "cheat")
    assert result["score"] == 0, explain(result)
    # its stand-in for the probe replies in a form the probe never sends: refused, not scored
    assert result["tasks"][0]["message"].startswith("reply to probe 'predict':"), explain(result)
    assert "accuracy" not in result["tasks"][0]["metrics"]


def test_broken_notebook_gets_zero_and_a_message(class_dir):
    result = load(class_dir[1], "broken")
    assert result["score"] == 0 and "not valid JSON" in result["tasks"][0]["message"]
    assert "unreadable notebook" in result["flags"]


def test_grades_csv_has_a_row_per_student_and_a_column_per_task(class_dir):
    rows = list(csv.DictReader((class_dir[1] / "grades.csv").open()))
    assert sorted(r["student"] for r in rows) == ["broken", "cheat", "full", "partial"]
    assert {r["student"]: r["mnist_accuracy"] for r in rows}["full"] == "10"


def test_feedback_shows_the_verdict_message_and_plots(class_dir):
    page = (class_dir[1] / "feedback" / "partial" / f"{MNIST}.html").read_text()
    assert "below the required 0.9" in page and "accuracy = 0." in page
    full = (class_dir[1] / "feedback" / "full" / f"{MNIST}.html").read_text()
    assert "<table>" in full and "10 / 10" in full
    # every figure the notebook shows: the digits, the loss curve, the confusion matrix, ...
    shown = solution_source(MNIST).count("plt.show()")
    assert shown >= 2 and full.count("data:image/png;base64,") == shown


def test_a_second_run_resumes_without_regrading(class_dir):
    root, out, _ = class_dir
    before = {p: p.stat().st_mtime_ns for p in (out / "results").rglob("*.json")}
    run = grade_cli("grade", root / "submitted", "--out", out, "--jobs", "1")
    assert run.returncode == 0
    assert {p: p.stat().st_mtime_ns for p in (out / "results").rglob("*.json")} == before


def test_only_grader_files_in_the_output(class_dir):
    out = class_dir[1]
    names = {p.relative_to(out).parts[0] for p in out.rglob("*")}
    assert names == {"results", "feedback", "grades.csv"}
    assert not list(out.rglob("*.tmp"))


def test_self_check_runs_the_same_checks_on_the_notebooks_globals(capsys):
    from autograder.grading.selfcheck import CheckFailed, check
    namespace = {}
    exec(compile(CENTROIDS, "<notebook>", "exec"), namespace)
    with pytest.raises(CheckFailed, match="mnist_accuracy: 0 of 1 check passed"):
        check("mnist_accuracy", namespace)
    assert "below the required 0.9" in capsys.readouterr().out


def test_failed_self_check_shows_its_report_once_in_ipython(capsys):
    """Jupyter shows a raised CheckFailed through IPython: the report printed by check() must
    not come again in a traceback (one line says that the check failed)."""
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    try:
        shell.user_ns["namespace"] = {}
        exec(compile(CENTROIDS, "<notebook>", "exec"), shell.user_ns["namespace"])
        result = shell.run_cell("from autograder.grading.selfcheck import check\ncheck('mnist_accuracy', namespace)")
    finally:
        InteractiveShell.clear_instance()
    out = capsys.readouterr().out
    assert type(result.error_in_exec).__name__ == "CheckFailed"
    assert out.count("below the required 0.9") == 1, out
    assert "CheckFailed: ✘ mnist_accuracy: 0 of 1 check passed (the report is above)" in out, out
    assert "Traceback" not in out and "selfcheck.py" not in out, out


def test_self_check_does_nothing_while_grading(monkeypatch, capsys):
    from autograder.grading.selfcheck import check
    monkeypatch.setenv("AUTOGRADER_GRADING", "1")
    check("mnist_accuracy", {})      # an empty notebook would fail the check: it is not run
    assert capsys.readouterr().out == ""


def test_a_notebook_may_write_files_in_its_own_folder(tmp_path):
    path = write_notebook(tmp_path / "writer_mnist.ipynb", """
        import os
        open("notes.txt", "w").write("scratch")
        os.makedirs("cache", exist_ok=True)
        print(sorted(os.listdir(".")))
        def predict(x):
            return x.argmax(1) % 10
        """)
    run = grade_cli("check", path, "--json")
    result = json.loads(run.stdout)
    assert result["cell_errors"] == [] and "'cache', 'notes.txt'" in result["output"]


def test_a_check_named_in_the_text_is_no_second_grade_cell():
    from autograder.grading.grade import notebook_flags
    assignment = COURSE.assignment(MNIST)
    cells = [nbformat.v4.new_markdown_cell(f'`check("{t.id}")` below checks it') for t in assignment.tasks]
    cells += [nbformat.v4.new_code_cell(f'check("{t.id}")') for t in assignment.tasks]
    assert not [f for f in notebook_flags(nbformat.v4.new_notebook(cells=cells), assignment)
                if "grade cell" in f]
    assert any("appears 0 times" in f for f in notebook_flags(
        nbformat.v4.new_notebook(cells=cells[:len(assignment.tasks)]), assignment))
