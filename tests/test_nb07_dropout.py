"""Notebook 07, dropout: the solution earns full marks, the exercise nothing; the notebook's check
cells pass on the solution and fail readably on the exercise; and the statistical checks pass a
correct layer written differently (another way to draw the mask) on hidden seeds.

`notebook_paths`, `run_in_process` and the two check-cell assertions serve test_nb08 as well."""
from __future__ import annotations

import contextlib
import re

import matplotlib.pyplot as plt
import nbformat
import pytest

import dp
from autograder.judge import run_checks
from autograder.notebook import is_check_call_only
from autograder.selfcheck import CheckFailed, LocalSubmission
from tests.grading import (COURSE, exercise_path, explain, grade_notebook, notebook_from_source,
                           points, solution_source)

try:      # one BLAS thread, as in the grader's sandbox: small products on a busy machine are
    from threadpoolctl import threadpool_limits       # many times slower with a thread pool
except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn (mlxtend)
    def threadpool_limits(limits=None):
        return contextlib.nullcontext()

ASSIGNMENT = "07_dropout"
FULL = {t.id: t.points for t in COURSE.assignment(ASSIGNMENT).tasks}


def notebook_paths(assignment: str, folder) -> dict:
    """{"solution": the solution as a notebook in `folder`, "exercise": the built exercise}."""
    assert exercise_path(assignment).exists(), "run `python -m autograder build`"
    return {"solution": notebook_from_source(solution_source(assignment), folder / "solution.ipynb"),
            "exercise": exercise_path(assignment)}


@pytest.fixture(scope="module")
def notebooks(tmp_path_factory):
    return notebook_paths(ASSIGNMENT, tmp_path_factory.mktemp("nb07"))


def run_in_process(path, assignment, monkeypatch, capsys) -> dict:
    """Run the notebook's code cells in one namespace, as its kernel would, in the assignment's
    exercise folder. Returns {task id: (the exception of its check cell or None, what the cell
    printed)}, and the errors of all other cells under "cell errors"."""
    notebook = nbformat.read(str(path), as_version=4)
    monkeypatch.chdir(exercise_path(assignment).parent)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.delenv("AUTOGRADER_GRADING", raising=False)
    plt.switch_backend("Agg")
    namespace = {"__name__": "__main__"}
    outcomes, errors = {}, []
    with threadpool_limits(1):
        for cell in notebook.cells:
            if cell.cell_type != "code":
                continue
            capsys.readouterr()
            try:
                exec(compile(cell.source, "<cell>", "exec"), namespace)
                error = None
            except Exception as caught:  # noqa: BLE001 - a student sees it, the next cell runs
                error = caught
            plt.close("all")              # as Jupyter's inline backend does after every cell
            if is_check_call_only(cell.source):
                [task] = re.findall(r'check\("([\w-]+)"\)', cell.source)
                outcomes[task] = (error, capsys.readouterr().out)
            elif error is not None:
                errors.append(f"{type(error).__name__}: {error}")
    outcomes["cell errors"] = errors
    return outcomes


def test_solution_earns_full_marks(notebooks):
    result = grade_notebook(notebooks["solution"], ASSIGNMENT)
    assert points(result) == FULL, explain(result)
    assert not result["cell_errors"] and not result["flags"], explain(result)
    metrics = {t["id"]: t["metrics"] for t in result["tasks"]}
    assert metrics["dropout_forward"]["max_scale_error"] < 1e-14, metrics
    assert metrics["dropout_backward"]["max_rel_error"] < 1e-14, metrics


def test_exercise_earns_nothing(notebooks):
    result = grade_notebook(notebooks["exercise"], ASSIGNMENT)
    assert points(result) == dict.fromkeys(FULL, 0.0), explain(result)
    for task in result["tasks"]:
        assert "not implemented yet" in task["message"], explain(result)


def assert_check_cells_pass(outcomes: dict, tasks) -> None:
    """Every cell ran, and each task's check cell printed its verdict: passed."""
    assert outcomes.pop("cell errors") == []
    assert set(outcomes) == set(tasks)
    for task, (error, printed) in outcomes.items():
        assert error is None, f"check({task!r}) raised {error!r}"
        assert printed.startswith(f"✔ {task}: all "), printed


def assert_check_cells_fail_readably(outcomes: dict, tasks) -> None:
    """Only the stubs raised (NotImplementedError, no NameError), and each check cell raised
    CheckFailed with a verdict that says what is missing."""
    errors = outcomes.pop("cell errors")
    assert errors and all(e.startswith("NotImplementedError") for e in errors), errors
    assert set(outcomes) == set(tasks)
    for task, (error, printed) in outcomes.items():
        assert isinstance(error, CheckFailed), f"check({task!r}) raised {error!r}"
        assert str(error).startswith(f"✘ {task}: 0 of "), str(error)
        assert "not implemented yet" in str(error), str(error)
        assert printed.strip() == str(error)


def test_check_cells_pass_on_the_solution(notebooks, monkeypatch, capsys):
    assert_check_cells_pass(run_in_process(notebooks["solution"], ASSIGNMENT, monkeypatch, capsys), FULL)


def test_check_cells_fail_readably_on_the_exercise(notebooks, monkeypatch, capsys):
    assert_check_cells_fail_readably(
        run_in_process(notebooks["exercise"], ASSIGNMENT, monkeypatch, capsys), FULL)


class BinomialDropout(dp.Layer):
    """A correct inverted dropout written another way: a binomial keep mask, and the backward
    pass derived by dp from `x * Node(scale)`."""

    def __init__(self, p=0.5, rng=None):
        self.p, self.rng, self.training = p, rng, True

    def forward(self, x):
        if not self.training:
            return x
        keep = self.rng.binomial(1, 1 - self.p, size=x.shape)
        return x * dp.Node(keep / (1 - self.p))


@pytest.mark.parametrize("seed", range(8))
def test_a_correct_layer_written_otherwise_passes_on_hidden_seeds(seed):
    assignment = COURSE.assignment(ASSIGNMENT)
    submission = LocalSubmission({"MyDropout": BinomialDropout}, assignment)
    results = run_checks(submission, assignment, seed=1000 + seed, public=False)
    assert {r["id"]: r["points"] for r in results} == FULL, [
        (r["id"], r["message"]) for r in results if r["status"] != "passed"]
    forward = {r["id"]: r["metrics"] for r in results}["dropout_forward"]
    assert abs(forward["mean_output_over_input"] - 1) < 0.05, forward

