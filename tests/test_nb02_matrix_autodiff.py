"""Notebook 02, matrix autodiff: the solution earns full marks, the exercise earns nothing, its
check cells pass on the solution and fail readably on the exercise, and grading runs the
checks on other shapes than the self-check does.

The helpers above the tests serve tests/test_nb03_dp_library.py as well."""
from __future__ import annotations

import ast
import re

import jupytext
import matplotlib.pyplot as plt
import pytest

from autograder.course import PACKAGE
from autograder.grade import grading_seed
from autograder.judge import run_checks
from autograder.notebook import is_check_call_only
from autograder.selfcheck import CheckFailed, LocalSubmission
from tests.grading import (COURSE, exercise_path, explain, grade_notebook, notebook_from_source,
                           points, solution_source)

ASSIGNMENT = "02_matrix_autodiff"
SOLUTION_BLOCK = re.compile(r"^([ \t]*)### BEGIN SOLUTION\n.*?^[ \t]*### END SOLUTION[ \t]*$",
                            re.M | re.S)


def full_marks(assignment_id: str) -> dict:
    return {t.id: t.points for t in COURSE.assignment(assignment_id).tasks}


def stub_source(source: str) -> str:
    """`source` with every solution block replaced as nbgrader does, keeping the indentation."""
    stub = "{0}# YOUR CODE HERE\n{0}raise NotImplementedError()"
    return SOLUTION_BLOCK.sub(lambda m: stub.format(m[1]), source)


def notebook_paths(assignment_id: str, folder) -> dict:
    """{"solution": path, "exercise": path}: the built exercise when it exists, else the
    solution stubbed the way nbgrader stubs it."""
    source = solution_source(assignment_id)
    built = exercise_path(assignment_id)
    return {"solution": notebook_from_source(source, folder / "solution.ipynb"),
            "exercise": built if built.exists() else
            notebook_from_source(stub_source(source), folder / "exercise.ipynb")}


def run_in_process(path, monkeypatch, capsys) -> dict:
    """Run a notebook's code cells in one namespace, as its kernel would. Returns
    {task id: (error or None, what the check cell printed)}, "cell errors": the other cells'
    errors, and "namespace"."""
    notebook = jupytext.read(str(path))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.delenv("AUTOGRADER_GRADING", raising=False)
    plt.switch_backend("Agg")
    namespace = {"__name__": "__main__"}
    outcomes, errors = {}, []
    try:
        for cell in notebook.cells:
            if cell.cell_type != "code":
                continue
            capsys.readouterr()
            try:
                exec(compile(cell.source, "<cell>", "exec"), namespace)
                error = None
            except Exception as caught:  # noqa: BLE001 - a student sees it, the next cell runs
                error = caught
            if is_check_call_only(cell.source):
                [task] = re.findall(r'check\("([\w-]+)"\)', cell.source)
                outcomes[task] = (error, capsys.readouterr().out)
            elif error is not None:
                errors.append(f"{type(error).__name__}: {error}")
    finally:
        plt.close("all")
    return {"tasks": outcomes, "cell errors": errors, "namespace": namespace}


def assert_exercise_earns_nothing(path, assignment_id):
    result = grade_notebook(path, assignment_id)
    assert points(result) == dict.fromkeys(full_marks(assignment_id), 0.0), explain(result)
    for task in result["tasks"]:
        assert "NotImplementedError" in task["message"], explain(result)
    # the stub runs top to bottom: every cell that fails, fails for want of an implementation
    assert all("NotImplementedError" in e["error"] for e in result["cell_errors"]), explain(result)


def assert_check_cells_pass(path, assignment_id, monkeypatch, capsys):
    run = run_in_process(path, monkeypatch, capsys)
    assert run["cell errors"] == []
    assert set(run["tasks"]) == set(full_marks(assignment_id))
    for task, (error, printed) in run["tasks"].items():
        assert error is None, f"check({task!r}) raised {error!r}"
        assert printed.startswith(f"✔ {task}: all "), printed


def assert_check_cells_fail_readably(path, assignment_id, monkeypatch, capsys, says=()):
    """Every check cell raises CheckFailed, saying "not implemented yet" and `says`."""
    run = run_in_process(path, monkeypatch, capsys)
    assert all("NotImplementedError" in e for e in run["cell errors"]), run["cell errors"]
    assert set(run["tasks"]) == set(full_marks(assignment_id))
    for task, (error, printed) in run["tasks"].items():
        assert isinstance(error, CheckFailed), f"check({task!r}) raised {error!r}"
        message = str(error)
        assert message.startswith(f"✘ {task}: 0 of "), message
        assert "not implemented yet" in message and all(s in message for s in says), message
        assert printed.strip() == message


def forbidden_imports_of_probes(assignment_id) -> set:
    """The assignment's forbidden modules that its probes module imports (it runs next to the
    student's code, where they are blocked)."""
    assignment = COURSE.assignment(assignment_id)
    tree = ast.parse((PACKAGE / "probes" / f"{assignment.notebook}.py").read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    return imported & set(assignment.forbidden_imports)


# -- the tests ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def notebooks(tmp_path_factory):
    return notebook_paths(ASSIGNMENT, tmp_path_factory.mktemp("nb02"))


def test_solution_earns_full_marks(notebooks):
    result = grade_notebook(notebooks["solution"], ASSIGNMENT)
    assert points(result) == full_marks(ASSIGNMENT), explain(result)
    assert not result["cell_errors"] and not result["flags"], explain(result)
    assert all(t["metrics"]["max_rel_error"] < 1e-8 for t in result["tasks"]), explain(result)


def test_exercise_earns_nothing(notebooks):
    assert_exercise_earns_nothing(notebooks["exercise"], ASSIGNMENT)


def test_check_cells_pass_on_the_solution(notebooks, monkeypatch, capsys):
    assert_check_cells_pass(notebooks["solution"], ASSIGNMENT, monkeypatch, capsys)


def test_check_cells_fail_readably_on_the_exercise(notebooks, monkeypatch, capsys):
    assert_check_cells_fail_readably(notebooks["exercise"], ASSIGNMENT, monkeypatch, capsys,
                                     says=["with a of shape"])


class RecordingSubmission(LocalSubmission):
    """The notebook's namespace, probed in-process; remembers the shapes of every probe's
    input matrices."""

    def __init__(self, namespace, assignment):
        super().__init__(namespace, assignment)
        self.shapes = set()

    def probe(self, name, **kwargs):
        self.shapes.update(tuple(x.shape) for x in kwargs.get("inputs", []))
        return super().probe(name, **kwargs)


def test_grading_uses_other_shapes_than_the_self_check(notebooks, monkeypatch, capsys):
    namespace = run_in_process(notebooks["solution"], monkeypatch, capsys)["namespace"]
    assignment = COURSE.assignment(ASSIGNMENT)
    runs = {}
    for student in (None, "alice", "bob"):
        submission = RecordingSubmission(namespace, assignment)
        seed = COURSE.public_seed if student is None else grading_seed(COURSE, student, ASSIGNMENT)
        results = run_checks(submission, assignment, seed, public=student is None)
        assert all(r["status"] == "passed" for r in results), results
        runs[student] = submission.shapes
    public = runs.pop(None)
    assert len(public) >= 5, public
    for student, shapes in runs.items():
        # a 1x1 matrix (a broadcast number) is the only shape both may use
        assert shapes & public <= {(1, 1)}, (student, sorted(shapes & public))
    assert runs["alice"] != runs["bob"], "two students were graded on the same shapes"


def test_probes_do_not_import_dp():
    assert not forbidden_imports_of_probes(ASSIGNMENT)
