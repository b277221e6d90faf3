"""Notebook 01, scalar autodiff: the solution earns full marks, the exercise earns nothing, and
the notebook's own check cells pass on the solution and fail, readably, on the exercise."""
from __future__ import annotations

import ast
import re

import matplotlib.pyplot as plt
import nbformat
import pytest

from autograder.course import PACKAGE
from autograder.notebook import is_check_call_only
from autograder.selfcheck import CheckFailed
from tests.grading import (COURSE, explain, exercise_path, grade_notebook, notebook_from_source,
                           points, solution_source)

ASSIGNMENT = "01_scalar_autodiff"
FULL = {t.id: t.points for t in COURSE.assignment(ASSIGNMENT).tasks}
SOLUTION_BLOCK = re.compile(r"^([ \t]*)### BEGIN SOLUTION\n.*?^[ \t]*### END SOLUTION[ \t]*$",
                            re.M | re.S)


def stub_source(source: str) -> str:
    """`source` with every solution block replaced as nbgrader does, keeping the indentation."""
    return SOLUTION_BLOCK.sub(
        lambda m: f"{m[1]}# YOUR CODE HERE\n{m[1]}raise NotImplementedError()", source)


@pytest.fixture(scope="module")
def notebooks(tmp_path_factory):
    """{"solution": path, "exercise": path}: the exercise is the built one under exercises/
    when it exists, else derived from the solution the way nbgrader derives it."""
    folder = tmp_path_factory.mktemp("nb01")
    source = solution_source(ASSIGNMENT)
    built = exercise_path(ASSIGNMENT)
    return {"solution": notebook_from_source(source, folder / "solution.ipynb"),
            "exercise": built if built.exists() else
            notebook_from_source(stub_source(source), folder / "exercise.ipynb")}


def run_in_process(path, tmp_path, monkeypatch, capsys) -> dict:
    """Run the notebook's code cells in one namespace, as its kernel would (cwd = its folder).
    Returns {task id: (CheckFailed or None, what the check cell printed)}; every other cell's
    error, if any, under "cell errors"."""
    notebook = nbformat.read(str(path), as_version=4)
    folder = exercise_path(ASSIGNMENT).parent
    monkeypatch.chdir(folder if folder.is_dir() else tmp_path)
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
            code = compile(cell.source, "<cell>", "exec")
            try:
                exec(code, namespace)
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
    outcomes["cell errors"] = errors
    return outcomes


def test_solution_earns_full_marks(notebooks):
    result = grade_notebook(notebooks["solution"], ASSIGNMENT)
    assert points(result) == FULL, explain(result)
    assert not result["cell_errors"] and not result["flags"], explain(result)
    # far below the checks' tolerance of 1e-6: rounding only (and eps^2 for numerical_gradient)
    assert all(t["metrics"]["max_rel_error"] < 1e-7 for t in result["tasks"]), explain(result)


def test_exercise_earns_nothing(notebooks):
    result = grade_notebook(notebooks["exercise"], ASSIGNMENT)
    assert points(result) == dict.fromkeys(FULL, 0.0), explain(result)
    for task in result["tasks"]:
        assert "NotImplementedError" in task["message"], explain(result)


def test_check_cells_pass_on_the_solution(notebooks, tmp_path, monkeypatch, capsys):
    outcomes = run_in_process(notebooks["solution"], tmp_path, monkeypatch, capsys)
    assert outcomes.pop("cell errors") == []
    assert set(outcomes) == set(FULL)
    for task, (error, printed) in outcomes.items():
        assert error is None, f"check({task!r}) raised {error!r}"
        assert printed.startswith(f"✔ {task}: all "), printed


def test_check_cells_fail_readably_on_the_exercise(notebooks, tmp_path, monkeypatch, capsys):
    outcomes = run_in_process(notebooks["exercise"], tmp_path, monkeypatch, capsys)
    outcomes.pop("cell errors")
    assert set(outcomes) == set(FULL)
    for task, (error, printed) in outcomes.items():
        assert isinstance(error, CheckFailed), f"check({task!r}) raised {error!r}"
        message = str(error)
        assert message.startswith(f"✘ {task}: 0 of "), message
        assert "not implemented yet" in message, message
        assert printed.strip() == message


def test_probes_do_not_import_dp():
    """The probes run next to the student's code, where dp is a forbidden import."""
    tree = ast.parse((PACKAGE / "probes" / "scalar_autodiff.py").read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert not imported & set(COURSE.assignment(ASSIGNMENT).forbidden_imports), imported
