"""Notebook 03, a DP library: the solution earns full marks, the exercise earns nothing, its
check cells pass on the solution and fail readably on the exercise, and the grader's own
model for the training loop (the probes' NumPy regressor) agrees with dp."""
from __future__ import annotations

import numpy as np
import pytest

import dp
from autograder.probes import dp_library as probes
from tests.grading import (COURSE, STUBS_FAIL_EVERYWHERE, assert_full_marks,
                           forbidden_imports_of_probes, grade_notebook, load_checks,
                           notebook_tests, notebooks_fixture)

ASSIGNMENT = "03_dp_library"
TARGET = COURSE.assignment(ASSIGNMENT).thresholds["toy_loss"]
checks = load_checks(ASSIGNMENT)
notebooks = notebooks_fixture(ASSIGNMENT)


def test_solution_earns_full_marks(notebooks):
    result = assert_full_marks(grade_notebook(notebooks["solution"], ASSIGNMENT), ASSIGNMENT)
    metrics = {t["id"]: t["metrics"] for t in result["tasks"]}
    assert metrics["named_leaves"]["max_rel_error"] < 1e-8, metrics
    assert metrics["model_layers"]["max_rel_error"] < 1e-8, metrics
    # measured by the grader from the parameters the loop left, with a margin below the target
    assert metrics["training_loop"]["final_loss"] < 0.5 * TARGET, metrics


(test_exercise_earns_nothing, test_check_cells_pass_on_the_solution,
 test_check_cells_fail_readably_on_the_exercise) = notebook_tests(ASSIGNMENT,
                                                                  **STUBS_FAIL_EVERYWHERE)


# -- the grader's own model for train() ---------------------------------------------------------

def test_regressor_agrees_with_dp():
    """train() is graded on the probes' NumPy network: its loss and gradients are dp's."""
    rng = np.random.default_rng(3)
    x, y, params = checks.toy_problem(rng)
    params = {name: value + rng.normal(0, 0.3, value.shape) for name, value in params.items()}
    regressor = probes._Regressor(dp.Node, checks.TOY_LAYERS, params)
    renamed = {"h1": "h0", "h2": "h1"}          # dp_network names its layers h0, h1, ...
    reference = checks.dp_network([["ReLU_Layer", 1, checks.TOY_HIDDEN],
                                   ["Linear_Layer", checks.TOY_HIDDEN, 1]],
                                  {renamed[n[:2]] + n[2:]: value for n, value in params.items()})
    grads, loss = regressor.get_grad(x, y)
    expected, expected_loss = reference.get_grad(x, y)
    assert loss == pytest.approx(expected_loss, rel=1e-12)
    assert loss == pytest.approx(checks.toy_loss(params, x, y), rel=1e-12)
    for name in params:
        np.testing.assert_allclose(grads[name], expected[renamed[name[:2]] + name[2:]],
                                   rtol=1e-10, atol=1e-12)


def test_regressor_refuses_unknown_names_and_shapes():
    params = {"h1_W": np.ones((1, 2)), "h1_b": np.zeros((1, 2))}
    regressor = probes._Regressor(dp.Node, ["h1"], params)
    with pytest.raises(KeyError, match="no parameter 'h1_w'"):
        regressor.set_param({"h1_w": np.ones((1, 2))})
    with pytest.raises(ValueError, match="shape"):
        regressor.set_param({"h1_W": np.ones((2, 1))})


def test_toy_problems_need_training_and_can_be_solved():
    """Each toy problem starts at a loss of at least 1, and gradient descent with the
    notebook's defaults (1,000 steps, lr 0.05) reaches half the target on every one."""
    for seed in range(5):
        x, y, params = checks.toy_problem(np.random.default_rng(seed))
        assert checks.toy_loss(params, x, y) >= 1
        regressor = probes._Regressor(dp.Node, checks.TOY_LAYERS, params)
        for _ in range(1000):
            grads, _ = regressor.get_grad(x, y)
            regressor.set_param({k: v - 0.05 * grads[k] for k, v in regressor.get_param().items()})
        assert checks.toy_loss(regressor.get_param(), x, y) < 0.5 * TARGET, seed


def test_probes_do_not_import_dp():
    assert not forbidden_imports_of_probes(ASSIGNMENT)
