"""Test helpers: turn a solution source (jupytext percent) into a notebook and grade it; and, below,
what the notebook tests (tests/test_nbXX_*.py) share: loading a check module, running a notebook
in-process as Jupyter does, the assertions on graded and self-checked notebooks, and the tests
that every notebook with check cells has (notebook_tests)."""
from __future__ import annotations

import ast
import contextlib
import importlib.util
import json
import os
import re
import warnings
from pathlib import Path

import jupytext
import nbformat
import pytest

from autograder.course.config import PACKAGE, ROOT, load_course
from autograder.grading.grade import Submission, grade_one
from autograder.course.notebook import is_check_call_only
from autograder.grading.selfcheck import CheckFailed

COURSE = load_course()


def solution_source(assignment_id: str) -> str:
    return COURSE.assignment(assignment_id).solution_path().read_text(encoding="utf-8")


def notebook_from_source(source: str, path: Path) -> Path:
    """Write the jupytext percent `source` as a notebook at `path`."""
    notebook = jupytext.reads(source, fmt="py:percent")
    nbformat.write(notebook, str(path))
    return path


def mutate(source: str, old: str, new: str) -> str:
    """`source` with the one occurrence of `old` replaced by `new` (an error if not exactly one)."""
    count = source.count(old)
    if count != 1:
        raise AssertionError(f"the mutation's text occurs {count} times in the solution, not once:\n{old}")
    return source.replace(old, new)


def grade_notebook(path: Path, assignment_id: str, student: str = "student") -> dict:
    """Grade one notebook exactly as `python -m autograder grade` does; returns the result."""
    result, _ = grade_one(Submission(Path(path), student, assignment_id))
    return result


def grade_source(source: str, assignment_id: str, tmp_path: Path, student="student") -> dict:
    path = notebook_from_source(source, Path(tmp_path) / f"{student}.ipynb")
    return grade_notebook(path, assignment_id, student)


def exercise_path(assignment_id: str) -> Path:
    return COURSE.assignment(assignment_id).exercise_path(ROOT)


def repeatable(result: dict, also=()) -> dict:
    """`result` without `seconds`, the time grading took, which no second grading repeats (and
    without the keys in `also`)."""
    return {k: v for k, v in result.items() if k != "seconds" and k not in also}


def points(result: dict) -> dict:
    """{task id: points} of a result, for compact assertions."""
    return {t["id"]: t["points"] for t in result["tasks"]}


def explain(result: dict) -> str:
    """The result's tasks, readable, for assertion messages."""
    return json.dumps([{k: t[k] for k in ("id", "status", "points", "message")}
                       for t in result["tasks"]] + [{"flags": result["flags"],
                                                     "cell_errors": result["cell_errors"]}], indent=1)


class Mutant:
    """A realistic bug planted in a solution: `old` -> `new` in its source. It must cost the
    points of `task` and of no other task. `slow`: its test runs with the slow tests (`make
    test-slow`), not in `make test`."""

    def __init__(self, assignment: str, task: str, name: str, old: str, new: str, why: str = "",
                 slow: bool = False):
        self.assignment, self.task, self.name = assignment, task, name
        self.old, self.new, self.why, self.slow = old, new, why, slow

    def __repr__(self):
        return f"{self.assignment}:{self.name}"

    def source(self) -> str:
        return mutate(solution_source(self.assignment), self.old, self.new)


# -- helpers shared by the notebook tests (tests/test_nbXX_*.py) -------------------------------------

try:      # one BLAS thread, as in the grader's sandbox: small products on a busy machine are
    from threadpoolctl import threadpool_limits       # many times slower with a thread pool
except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn (mlxtend)
    def threadpool_limits(limits=None):
        return contextlib.nullcontext()


def full_marks(assignment_id: str) -> dict:
    """{task id: its points}: what a perfect submission of `assignment_id` earns."""
    return {t.id: t.points for t in COURSE.assignment(assignment_id).tasks}


def answer_tasks(assignment_id: str) -> set:
    """The tasks of `assignment_id` that are questions graded automatically: those whose checks
    call `answers.judge` (autograder/grading/answers.py), read from the checks' source."""
    path = PACKAGE / "checks" / f"{COURSE.assignment(assignment_id).notebook}.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef) and "answers.judge(" in ast.unparse(node):
            found |= {d.args[0].value for d in node.decorator_list if isinstance(d, ast.Call)
                      and ast.unparse(d.func) == "pytest.mark.task"}
    return found


def load_checks(assignment_id: str):
    """The assignment's autograder/checks/<notebook>.py, loaded as a module of its own (named
    nbXX_checks) so that a test can use its references and thresholds. The `task` mark it uses is
    registered by the grader, not by this test suite: its PytestUnknownMarkWarning is suppressed."""
    path = PACKAGE / "checks" / f"{COURSE.assignment(assignment_id).notebook}.py"
    spec = importlib.util.spec_from_file_location(f"nb{assignment_id[:2]}_checks", path)
    module = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pytest.PytestUnknownMarkWarning)
        spec.loader.exec_module(module)
    return module


SOLUTION_BLOCK = re.compile(r"^([ \t]*)### BEGIN SOLUTION\n.*?^[ \t]*### END SOLUTION[ \t]*$",
                            re.M | re.S)


def stub_source(source: str, your_code_here: bool = True) -> str:
    """`source` with every `### BEGIN SOLUTION ... ### END SOLUTION` block replaced as nbgrader
    does, keeping the indentation: `raise NotImplementedError()`, after a `# YOUR CODE HERE` line
    unless `your_code_here` is false."""
    stub = "{0}# YOUR CODE HERE\n{0}raise NotImplementedError()" if your_code_here else \
        "{0}raise NotImplementedError()"
    return SOLUTION_BLOCK.sub(lambda m: stub.format(m[1]), source)


def notebook_paths(assignment_id: str, folder: Path, built: bool = False) -> dict:
    """{"solution": path, "exercise": path}: the solution as a notebook in `folder`, and the built
    exercise under exercises/. When it is not built, `built=True` fails with a hint; otherwise the
    exercise is the solution stubbed the way nbgrader stubs it, in `folder`."""
    source = solution_source(assignment_id)
    exercise = exercise_path(assignment_id)
    if built:
        assert exercise.exists(), "run `python -m autograder build`"
    elif not exercise.exists():
        exercise = notebook_from_source(stub_source(source), Path(folder) / "exercise.ipynb")
    return {"solution": notebook_from_source(source, Path(folder) / "solution.ipynb"),
            "exercise": exercise}


def notebooks_fixture(assignment_id: str, built: bool = False):
    """A module-scoped fixture of notebook_paths(assignment_id, a temporary folder, built); in a
    test module: `notebooks = notebooks_fixture(ASSIGNMENT)`."""
    @pytest.fixture(scope="module")
    def notebooks(tmp_path_factory):
        return notebook_paths(assignment_id, tmp_path_factory.mktemp(f"nb{assignment_id[:2]}"), built)
    return notebooks


def solution_namespace(assignment_id: str) -> dict:
    """The solution's namespace, its cells run one by one in this process, each `check` cell for
    real (AUTOGRADER_GRADING unset meanwhile), and all figures closed after every cell, as
    Jupyter's inline backend does. Any cell's error propagates."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    saved = os.environ.pop("AUTOGRADER_GRADING", None)
    namespace = {"__name__": "__main__"}
    try:
        for cell in jupytext.reads(solution_source(assignment_id), fmt="py:percent").cells:
            if cell.cell_type == "code":
                exec(compile(cell.source, "<cell>", "exec"), namespace)
                plt.close("all")
    finally:
        if saved is not None:
            os.environ["AUTOGRADER_GRADING"] = saved
    return namespace


def notebook_cells(assignment_id: str, *names) -> dict:
    """A namespace (np, dp and Node imported) with the solution cells that define `names` (a
    `def` or `class` of that name) run in it, in the notebook's order."""
    import numpy as np
    import dp
    namespace = {"np": np, "dp": dp, "Node": dp.Node}
    for cell in jupytext.reads(solution_source(assignment_id), fmt="py:percent").cells:
        if any(f"def {name}" in cell.source or f"class {name}" in cell.source for name in names):
            exec(cell.source, namespace)
    return namespace


def notebook_fixture(assignment_id: str):
    """A module-scoped fixture of solution_namespace(assignment_id); in a test module:
    `notebook = notebook_fixture(A)`."""
    @pytest.fixture(scope="module")
    def notebook():
        return solution_namespace(assignment_id)
    return notebook


def run_in_process(path, monkeypatch, capsys, cwd=None, like_jupyter: bool = False) -> dict:
    """Run the notebook at `path`'s code cells in one namespace, as its kernel would (in `cwd` if
    given; AUTOGRADER_GRADING unset, Agg backend), the next cell after a cell's error.
    `like_jupyter`: close all figures after every cell, as Jupyter's inline backend does, and run on
    one BLAS thread as the grader's sandbox does; otherwise figures are closed at the end.
    Returns {"tasks": {task id: (its check cell's exception or None, what the cell printed)},
    "cell errors": ["Type: message" of every other cell that raised], "namespace": the namespace}."""
    import matplotlib.pyplot as plt
    notebook = nbformat.read(str(path), as_version=4)
    if cwd is not None:
        monkeypatch.chdir(cwd)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.delenv("AUTOGRADER_GRADING", raising=False)
    plt.switch_backend("Agg")
    namespace = {"__name__": "__main__"}
    outcomes, errors = {}, []
    try:
        with threadpool_limits(1) if like_jupyter else contextlib.nullcontext():
            for cell in notebook.cells:
                if cell.cell_type != "code":
                    continue
                capsys.readouterr()
                try:
                    exec(compile(cell.source, "<cell>", "exec"), namespace)
                    error = None
                except Exception as caught:  # noqa: BLE001 - a student sees it, the next cell runs
                    error = caught
                if like_jupyter:
                    plt.close("all")
                if is_check_call_only(cell.source):
                    [task] = re.findall(r'check\("([\w-]+)"\)', cell.source)
                    outcomes[task] = (error, capsys.readouterr().out)
                elif error is not None:
                    errors.append(f"{type(error).__name__}: {error}")
    finally:
        plt.close("all")
    return {"tasks": outcomes, "cell errors": errors, "namespace": namespace}


def each_says_not_implemented(errors) -> bool:
    """Every error (a "Type: message" string) mentions NotImplementedError."""
    return all("NotImplementedError" in e for e in errors)


def only_stubs_raised(errors) -> bool:
    """Some cell raised, and every one a NotImplementedError (no NameError after it, say)."""
    return bool(errors) and all(e.startswith("NotImplementedError") for e in errors)


def assert_full_marks(result: dict, assignment_id: str, flags: bool = True) -> dict:
    """`result` earned every point of `assignment_id`, no cell raised and (if `flags`) nothing was
    flagged. Returns `result`, for further assertions on its metrics."""
    assert points(result) == full_marks(assignment_id), explain(result)
    if flags:
        assert not result["cell_errors"] and not result["flags"], explain(result)
    else:
        assert result["cell_errors"] == [], explain(result)
    return result


def assert_earns_nothing(result: dict, assignment_id: str, says: str | None = None,
                         cell_errors=None) -> None:
    """`result` earned 0 on every task of `assignment_id`; every task's message contains `says`
    (when given), and the graded cell errors satisfy `cell_errors` (a test on their texts, when
    given)."""
    assert points(result) == dict.fromkeys(full_marks(assignment_id), 0.0), explain(result)
    if says is not None:
        for task in result["tasks"]:
            assert says in task["message"], explain(result)
    if cell_errors is not None:
        assert cell_errors([e["error"] for e in result["cell_errors"]]), explain(result)


def assert_check_cells_pass(run: dict, tasks, answers=()) -> None:
    """Of a run_in_process() `run`: every cell ran, and each task's check cell printed its
    verdict: passed; for a question graded automatically (`answers`), "checked when graded"."""
    assert run["cell errors"] == []
    assert set(run["tasks"]) == set(tasks)
    for task, (error, printed) in run["tasks"].items():
        assert error is None, f"check({task!r}) raised {error!r}"
        verdict = (rf"⚠ {task}: 0 of 1 check passed; 1 not checked here \(checked when graded\)"
                   if task in answers else rf"✔ {task}: (all \d+ checks|its 1 check) passed ")
        assert re.match(verdict, printed), printed


def assert_check_cells_fail_readably(run: dict, tasks, says=(), cell_errors=None) -> None:
    """Of a run_in_process() `run` of an exercise: the other cells' errors satisfy `cell_errors`
    (when given), and each task's check cell raised CheckFailed with a verdict of 0 points that
    says "not implemented yet" and each of `says`, and printed it."""
    if cell_errors is not None:
        assert cell_errors(run["cell errors"]), run["cell errors"]
    assert set(run["tasks"]) == set(tasks)
    for task, (error, printed) in run["tasks"].items():
        assert isinstance(error, CheckFailed), f"check({task!r}) raised {error!r}"
        message = str(error)
        assert message.startswith(f"✘ {task}: 0 of "), message
        assert "not implemented yet" in message and all(s in message for s in says), message
        assert printed.strip() == message


def notebook_tests(assignment_id: str, says: str, chdir: bool = False, like_jupyter: bool = False,
                   graded_errors=None, cell_errors=None, check_says=()) -> tuple:
    """The tests every notebook with check cells shares, on the module's `notebooks` fixture:
    (test_exercise_earns_nothing, test_check_cells_pass_on_the_solution,
    test_check_cells_fail_readably_on_the_exercise). Assign them to those names in the test module.

    The exercise, graded, earns nothing, `says` in every task's message, its cell errors passing
    `graded_errors`; run in-process (in the exercise's folder, or else a temporary one, if
    `chdir`; see run_in_process for `like_jupyter`) the solution's check cells pass and the
    exercise's fail readably (assert_check_cells_fail_readably with `check_says`, `cell_errors`)."""
    tasks = full_marks(assignment_id)

    def run(path, tmp_path, monkeypatch, capsys):
        folder = exercise_path(assignment_id).parent
        cwd = (folder if folder.is_dir() else tmp_path) if chdir else None
        return run_in_process(path, monkeypatch, capsys, cwd, like_jupyter)

    def test_exercise_earns_nothing(notebooks):
        assert_earns_nothing(grade_notebook(notebooks["exercise"], assignment_id), assignment_id,
                             says, graded_errors)

    def test_check_cells_pass_on_the_solution(notebooks, tmp_path, monkeypatch, capsys):
        assert_check_cells_pass(run(notebooks["solution"], tmp_path, monkeypatch, capsys), tasks,
                                answer_tasks(assignment_id))

    def test_check_cells_fail_readably_on_the_exercise(notebooks, tmp_path, monkeypatch, capsys):
        assert_check_cells_fail_readably(run(notebooks["exercise"], tmp_path, monkeypatch, capsys),
                                         tasks, check_says, cell_errors)

    return (test_exercise_earns_nothing, test_check_cells_pass_on_the_solution,
            test_check_cells_fail_readably_on_the_exercise)


# notebook_tests() options that several notebooks share:
# 02, 03, 12: the stub runs top to bottom, so every cell that fails, graded or run in-process,
# fails for want of an implementation, and every task's message says NotImplementedError;
STUBS_FAIL_EVERYWHERE = dict(says="NotImplementedError", graded_errors=each_says_not_implemented,
                             cell_errors=each_says_not_implemented)
# 07, 08, 10, 11: the check cells run like Jupyter, in the exercise's folder; some cell fails and
# only the stubs do; every task's message says "not implemented yet".
LIKE_JUPYTER_IN_ITS_FOLDER = dict(says="not implemented yet", chdir=True, like_jupyter=True,
                                  cell_errors=only_stubs_raised)


def forbidden_imports_of_probes(assignment_id: str) -> set:
    """The assignment's forbidden modules that its probes module imports (it runs next to the
    student's code, where they are blocked)."""
    assignment = COURSE.assignment(assignment_id)
    tree = ast.parse((PACKAGE / "probes" / f"{assignment.notebook}.py").read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    return imported & set(assignment.forbidden_imports)
