"""Notebook 01, scalar autodiff: the solution earns full marks, the exercise earns nothing, and
the notebook's own check cells pass on the solution and fail, readably, on the exercise."""
from __future__ import annotations

from tests.grading import (assert_full_marks, explain, forbidden_imports_of_probes,
                           grade_notebook, notebook_tests, notebooks_fixture)

ASSIGNMENT = "01_scalar_autodiff"

# {"solution": path, "exercise": path}: the exercise is the built one under exercises/ when it
# exists, else derived from the solution the way nbgrader derives it
notebooks = notebooks_fixture(ASSIGNMENT)


def test_solution_earns_full_marks(notebooks):
    result = assert_full_marks(grade_notebook(notebooks["solution"], ASSIGNMENT), ASSIGNMENT)
    # far below the checks' tolerance of 1e-6: rounding only (and eps^2 for numerical_gradient)
    assert all(t["metrics"]["max_rel_error"] < 1e-7 for t in result["tasks"]), explain(result)


# the check cells run in the exercise's folder (or a temporary one), as the student's kernel would
(test_exercise_earns_nothing, test_check_cells_pass_on_the_solution,
 test_check_cells_fail_readably_on_the_exercise) = notebook_tests(
    ASSIGNMENT, says="NotImplementedError", chdir=True)


def test_probes_do_not_import_dp():
    """The probes run next to the student's code, where dp is a forbidden import."""
    assert not forbidden_imports_of_probes(ASSIGNMENT)
