"""Notebook 08, batch normalisation: the solution earns full marks, the exercise nothing; the
check cells pass on the solution and fail readably on the exercise; the grader's reference
(dp.BatchNorm and its autodiff) agrees with central differences and with the notebook's formula;
and a correct implementation written differently passes every check on hidden inputs."""
from __future__ import annotations

import numpy as np
import pytest

import dp
from autograder.grading.judge import run_checks
from autograder.references import batch_normalisation as reference
from autograder.grading.selfcheck import LocalSubmission
from tests.grading import (COURSE, LIKE_JUPYTER_IN_ITS_FOLDER, assert_full_marks, explain,
                           full_marks, grade_notebook, load_checks, notebook_tests,
                           notebooks_fixture)

ASSIGNMENT = "08_batch_normalisation"
FULL = full_marks(ASSIGNMENT)
checks = load_checks(ASSIGNMENT)
notebooks = notebooks_fixture(ASSIGNMENT, built=True)


def test_solution_earns_full_marks(notebooks):
    result = assert_full_marks(grade_notebook(notebooks["solution"], ASSIGNMENT), ASSIGNMENT)
    assert all(t["metrics"]["max_rel_error"] < 1e-12 for t in result["tasks"]), explain(result)


(test_exercise_earns_nothing, test_check_cells_pass_on_the_solution,
 test_check_cells_fail_readably_on_the_exercise) = notebook_tests(ASSIGNMENT,
                                                                  **LIKE_JUPYTER_IN_ITS_FOLDER)


# -- the grader's reference -------------------------------------------------------------------------
def test_reference_gradients_agree_with_central_differences_and_the_formula():
    rng = np.random.default_rng(3)
    x = checks.random_batch(rng, public=False, n=6, d=4)
    gamma, beta = checks.random_affine(rng, 4)
    eps, dy = 1e-3, rng.normal(size=x.shape)
    grads = reference.gradients(x, gamma, beta, eps, dy)

    def loss(x_, gamma_, beta_):
        return float(np.sum(dy * reference.forward(x_, gamma_, beta_, eps)["y"]))

    numerical = {"dx": dp.numerical_gradient(lambda v: loss(v, gamma, beta), x.copy()),
                 "dgamma": dp.numerical_gradient(lambda v: loss(x, v, beta), gamma.copy()),
                 "dbeta": dp.numerical_gradient(lambda v: loss(x, gamma, v), beta.copy())}
    for name, value in numerical.items():
        assert checks.rel_error(grads[name], value) < 1e-6, name
    ref = reference.forward(x, gamma, beta, eps)
    g, x_hat = gamma * dy, ref["x_hat"]
    formula = (g - g.mean(0, keepdims=True) - x_hat * (g * x_hat).mean(0, keepdims=True)) / ref["std"]
    assert checks.rel_error(grads["dx"], formula) < 1e-12
    assert checks.rel_error(ref["y"], gamma * x_hat + beta) < 1e-12


# -- a correct implementation written otherwise --------------------------------------------------------
def staged_forward(x, gamma, beta, eps=1e-5):
    """The forward pass as a chain of small steps (the CS231n computational graph), with np.var."""
    centered = x - np.mean(x, axis=0)
    std = np.sqrt(np.var(x, axis=0) + eps)
    x_hat = centered / std
    return x_hat * gamma + beta, x_hat, std


def staged_backward(dy, x_hat, std, gamma):
    """The backward pass step by step through the graph of the forward pass, not the closed form."""
    n = len(dy)
    dx_hat = dy * gamma
    centered = x_hat * std
    dinv_std = np.sum(dx_hat * centered, axis=0)
    dvar = dinv_std * -0.5 * std ** -3
    dcentered = dx_hat / std + dvar * 2 * centered / n
    dx = dcentered - np.mean(dcentered, axis=0)
    return dx, np.sum(dy * x_hat, axis=0, keepdims=True), np.sum(dy, axis=0)[None, :]


def blended_running(running_mean, running_var, x, momentum):
    new_mean = running_mean + (1 - momentum) * (np.mean(x, axis=0) - running_mean)
    new_var = running_var + (1 - momentum) * (np.mean((x - x.mean(0)) ** 2, axis=0) - running_var)
    return new_mean, new_var


class OtherBatchNorm(dp.Layer):
    def __init__(self, n, name, momentum=0.9, eps=1e-5):
        self.gamma = dp.Node(np.ones((1, n)), name + "_g")
        self.beta = dp.Node(np.zeros((1, n)), name + "_b")
        self.running_mean, self.running_var = np.zeros((1, n)), np.ones((1, n))
        self.momentum, self.eps, self.training = momentum, eps, True

    def forward(self, x):
        scale = self.gamma / np.sqrt(self.running_var + self.eps)
        return x * scale + (self.beta - self.running_mean * scale)


@pytest.mark.parametrize("seed", range(8))
def test_a_correct_implementation_written_otherwise_passes_on_hidden_inputs(seed):
    assignment = COURSE.assignment(ASSIGNMENT)
    namespace = {"batchnorm_forward": staged_forward, "batchnorm_backward": staged_backward,
                 "update_running_statistics": blended_running, "MyBatchNorm": OtherBatchNorm}
    results = run_checks(LocalSubmission(namespace, assignment), assignment, seed=2000 + seed,
                         public=False)
    assert {r["id"]: r["points"] for r in results} == FULL, [
        (r["id"], r["message"]) for r in results if r["status"] != "passed"]
