"""Notebook 11, convolution: the solution earns full marks, the exercise nothing; the check cells
pass on the solution and fail readably on the exercise; the grader's references agree with the
textbook formulas; the grader draws its histograms exactly as the notebook does; and correct code
written differently passes every check on hidden seeds, with the solution's trained network."""
from __future__ import annotations

import contextlib
import io
import os
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pytest

import dp
from autograder.grading.judge import run_checks
from autograder.references import convolution as reference
from autograder.grading.selfcheck import LocalSubmission
from tests.grading import (COURSE, LIKE_JUPYTER_IN_ITS_FOLDER, assert_full_marks, explain,
                           full_marks, grade_notebook, grade_source, load_checks, mutate,
                           notebook_tests, notebooks_fixture, points, solution_source,
                           threadpool_limits)

ASSIGNMENT = "11_convolution"
FULL = full_marks(ASSIGNMENT)
checks = load_checks(ASSIGNMENT)
notebooks = notebooks_fixture(ASSIGNMENT, built=True)


@pytest.fixture(scope="module")
def solved():
    """The solution's namespace after running it as a script (check cells silent): its trained
    `net`, `predict`, `adversarial` and data recipe."""
    namespace = {"__name__": "__main__"}
    saved = os.environ.get("AUTOGRADER_GRADING")
    os.environ["AUTOGRADER_GRADING"] = "1"            # check("...") does nothing
    plt.switch_backend("Agg")
    try:
        with threadpool_limits(1), contextlib.redirect_stdout(io.StringIO()), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")           # plt.show() under Agg
            exec(compile(solution_source(ASSIGNMENT), "convolution.py", "exec"), namespace)
    finally:
        plt.close("all")
        if saved is None:
            del os.environ["AUTOGRADER_GRADING"]
        else:
            os.environ["AUTOGRADER_GRADING"] = saved
    return namespace


# -- grading the notebooks ------------------------------------------------------------------------
def test_solution_earns_full_marks(notebooks):
    result = assert_full_marks(grade_notebook(notebooks["solution"], ASSIGNMENT), ASSIGNMENT)
    metrics = {t["id"]: t["metrics"] for t in result["tasks"]}
    assert metrics["conv1d_grad"]["max_rel_error"] < 1e-12, metrics
    assert metrics["maxpool_grad"]["max_rel_error"] < 1e-12, metrics
    assert metrics["histogram_classifier"]["accuracy"] >= 0.99, metrics
    assert metrics["histogram_classifier"]["accuracy_of_the_trained_parameters"] >= 0.99, metrics
    attack = metrics["adversarial_input"]
    assert attack["f_before"] < 0 < attack["f_after"], metrics


(test_exercise_earns_nothing, test_check_cells_pass_on_the_solution,
 test_check_cells_fail_readably_on_the_exercise) = notebook_tests(ASSIGNMENT,
                                                                  **LIKE_JUPYTER_IN_ITS_FOLDER)


# -- a predict that needs no network ---------------------------------------------------------------
CHI_SQUARE = """
    statistic = SAMPLES * ((histograms - NORMAL_HISTOGRAM) ** 2 / NORMAL_HISTOGRAM).sum(axis=1)
    return (statistic < 53.6).astype(int)       # Pearson's test, its cut set on x_train
"""


def forged_source() -> str:
    """Issue 14's forgery in 11: predict is a closed-form test of normality (Pearson's chi-square
    against the standard normal's histogram, 0.994 right on the notebook's x_test), and net is
    never trained (the rest of the solution is honest)."""
    predict = "    with dp.no_grad():\n        return (net.forward(histograms).value > 0).astype(int)\n"
    training = "_, loss_hist, _ = optimizer.train(steps=4000, print_each=1000, err_hist=True)"
    source = mutate(solution_source(ASSIGNMENT), predict, CHI_SQUARE.lstrip("\n"))
    return mutate(source, training, "loss_hist = [1.0]")


def test_a_closed_form_predict_without_a_trained_network_earns_nothing(tmp_path):
    """predict's labels pass on their own; the grader's forward pass with net's (untrained)
    parameters fails, and histogram_classifier earns 0. The ops keep their points."""
    result = grade_source(forged_source(), ASSIGNMENT, tmp_path, "forger")
    got = points(result)
    assert got["histogram_classifier"] == 0 and got["conv1d_grad"] == FULL["conv1d_grad"] and \
        got["maxpool_grad"] == FULL["maxpool_grad"], explain(result)
    [task] = [t for t in result["tasks"] if t["id"] == "histogram_classifier"]
    verdicts = {c["name"]: c["status"] for c in task["checks"]}
    assert verdicts == {
        "test_accuracy_on_histograms_held_by_the_grader": "passed",
        "test_the_trained_parameters_classify_through_the_graders_network": "failed",
        "test_predict_gives_the_networks_decisions": "failed"}, task
    metrics = task["metrics"]
    assert metrics["accuracy"] >= 0.99 > metrics["accuracy_of_the_trained_parameters"], task
    assert task["message"].startswith(
        "the grader's HistogramNet with net's trained parameters"), task


class Trained:
    """A stand-in for the notebook's trained `net`: get_param() returns `params`, forward ones."""

    def __init__(self, params):
        self.params = params

    def get_param(self):
        return self.params

    def forward(self, x):
        return dp.Node(np.ones(len(x)))


def shaped(**shapes) -> dict:
    """HistogramNet's parameters, the given names changed to the given shapes (None: removed)."""
    params = {name: np.full(shape, 0.1) for name, shape in checks.PARAMETERS.items()}
    params.update({name: np.full(shape, 0.1) for name, shape in shapes.items() if shape})
    return {name: value for name, value in params.items() if shapes.get(name, ()) is not None}


@pytest.mark.parametrize("params, says", [
    (shaped(out_b=None), "'out_W': (7, 1)}"),
    (shaped(hidden_W=(18, 8)), "'hidden_W': (18, 8)"),
    (shaped(k4=(5,)), "'k4': (5,)"),
    ({**shaped(), "k1": "a string"}, "'k1': None"),
])
def test_parameters_of_other_names_or_shapes_fail_with_a_message(params, says):
    """The trained parameters must be HistogramNet's: others fail the check with a message that
    shows them, before the grader's forward pass runs."""
    assignment = COURSE.assignment(ASSIGNMENT)
    namespace = {"net": Trained(params), "predict": lambda h: np.ones(len(h))}
    [result] = run_checks(LocalSubmission(namespace, assignment), assignment, seed=1,
                          tasks=["histogram_classifier"])
    [check] = [c for c in result["checks"]
               if c["name"] == "test_the_trained_parameters_classify_through_the_graders_network"]
    assert check["status"] == "failed" and says in check["message"], check
    assert check["message"].startswith("the grader recomputes f from net's parameters, which must "
                                       "be those of HistogramNet"), check


# -- the grader's references and data ----------------------------------------------------------------
def test_reference_conv1d_is_the_textbook_correlation_with_its_gradients():
    rng = np.random.default_rng(4)
    x, k, g = rng.normal(size=(3, 11)), np.array([2.0, -1.0, 0.5, 3.0]), rng.normal(size=(3, 8))
    ref = reference.conv(x, k, g)
    assert np.allclose(ref["value"], [np.correlate(row, k, "valid") for row in x], rtol=1e-13)
    # dL/dk_j = sum_b sum_i g_bi x_b(i+j): correlation of x with g, not reversed
    kernel_gradient = sum(np.correlate(xb, gb, "valid") for xb, gb in zip(x, g))
    assert np.allclose(ref["k"], kernel_gradient, rtol=1e-13)
    # dL/dx = full convolution of g with k
    assert np.allclose(ref["x"], [np.convolve(gb, k, "full") for gb in g], rtol=1e-13)


def test_reference_maxpool_routes_the_gradient_to_each_maximum():
    x = np.array([[3.0, 1, -5, 0, 2.5, 2, 9, 5]])
    ref = reference.pool(x, 2, np.array([[1.0, 2, 3, 4]]))
    assert ref["value"].tolist() == [[3, 0, 2.5, 9]]
    assert ref["x"].tolist() == [[1, 0, 0, 2, 3, 0, 4, 0]]


def test_drawn_kernels_are_never_symmetric_and_shapes_vary():
    rng = np.random.default_rng(0)
    conv = [checks.random_conv_case(rng, public=False) for _ in range(200)]
    assert all(np.max(np.abs(k - k[::-1])) >= 0.5 for _, k, _ in conv)
    assert len({(x.shape, len(k)) for x, k, _ in conv}) > 50
    pool = [checks.random_pool_case(rng, public=False) for _ in range(200)]
    assert all(x.shape[1] == n * g.shape[1] for x, n, g in pool)


def test_the_grader_draws_histograms_as_the_notebook_does(solved):
    for seed in range(3):
        x_nb, y_nb = solved["histograms"](200, np.random.default_rng(seed))
        x_gr, y_gr = checks.histograms(200, np.random.default_rng(seed))
        assert np.array_equal(x_nb, x_gr) and np.array_equal(y_nb, y_gr)
    assert np.allclose(x_gr.sum(axis=1), 1) and set(np.unique(y_gr)) == {0.0, 1.0}


def test_reference_f_is_the_notebooks_network(solved):
    x, _ = checks.histograms(50, np.random.default_rng(9))
    with dp.no_grad():
        notebook = solved["net"].forward(x).value
    assert np.allclose(reference.classifier_f(solved["net"].get_param(), x), notebook, rtol=1e-12)


# -- correct code written otherwise, on hidden seeds -----------------------------------------------
def conv1d_by_numpy(x, k):
    """Row by row with NumPy's own correlate and convolve."""
    def to_x(g):
        return np.array([np.convolve(gb, k.value, "full") for gb in g])

    def to_k(g):
        return sum(np.correlate(xb, gb, "valid") for xb, gb in zip(x.value, g))
    value = np.array([np.correlate(xb, k.value, "valid") for xb in x.value])
    return dp.Node._result(value, "conv1d", (x, to_x), (k, to_k))


def maxpool1d_by_mask(x, n):
    """The gradient through a mask of the maxima (the same as the first maximum without ties)."""
    windows = x.value.reshape(len(x.value), -1, n)
    is_max = windows == windows.max(axis=-1, keepdims=True)
    return dp.Node._result(windows.max(axis=-1), "maxpool1d",
                           (x, lambda g: (is_max * g[..., None]).reshape(x.shape)))


def adversarial_by_plain_steps(net, x0, rate=0.01):
    """Steps of length `rate` (2-norm) along the raw gradient, clipped and renormalised; a list."""
    path = [x0]
    while net.forward(path[-1][None, :]).value[0] <= 0 and len(path) < 2000:
        gradient = net.forward(dp.Node(path[-1][None, :], "x")).sum().grad(1)["x"][0]
        x = np.clip(path[-1] + rate * gradient / np.linalg.norm(gradient), 0, None)
        path.append(x / x.sum())
    return path


@pytest.mark.parametrize("seed", range(6))
def test_correct_code_written_otherwise_passes_on_hidden_seeds(solved, seed):
    assignment = COURSE.assignment(ASSIGNMENT)
    namespace = {**solved, "conv1d": conv1d_by_numpy, "maxpool1d": maxpool1d_by_mask,
                 "predict": lambda h: solved["net"].forward(h).value > 0,     # booleans
                 "adversarial": adversarial_by_plain_steps}
    with threadpool_limits(1):
        results = run_checks(LocalSubmission(namespace, assignment), assignment, seed=3000 + seed,
                             public=False)
    assert {r["id"]: r["points"] for r in results} == FULL, [
        (r["id"], r["message"]) for r in results if r["status"] != "passed"]
    metrics = {r["id"]: r["metrics"] for r in results}
    assert metrics["histogram_classifier"]["accuracy"] >= 0.993, metrics
    assert metrics["histogram_classifier"]["accuracy_of_the_trained_parameters"] >= 0.993, metrics


# -- the attack's steps follow the gradient ---------------------------------------------------------
def straight_line_attack(x_train):
    """The red team's lazy11: an attack without the gradient, in steps of `rate` per bin on the
    straight line from x0 to the histogram of x_train with the largest f, until f > 0."""
    def adversarial(net, x0, rate=0.002):
        with dp.no_grad():
            def f(x):
                return np.ravel(net.forward(np.atleast_2d(x)).value)
            target = x_train[np.argmax(f(x_train))]
            n = int(np.ceil(np.abs(target - x0).max() / rate))
            path = [x0]
            for i in range(1, n + 1):
                path.append(x0 + i / n * (target - x0))
                if f(path[-1])[0] > 0:
                    break
        return np.array(path)
    return adversarial


def test_steps_fit_the_gradient_for_ascent_written_otherwise_and_not_for_a_straight_line(solved):
    """Over 30 attacks on hidden histograms: the fit of every step of the solution's and of the
    plain-steps form leaves less than 1e-6 of STEP_RESIDUAL; of every straight line, some step
    leaves more than 100 times it."""
    params = solved["net"].get_param()
    worst = {"adversarial": 0.0, "plain": 0.0, "straight line": np.inf}
    for seed in range(10):
        candidates, labels = checks.histograms(64, np.random.default_rng(500 + seed))
        for i in checks._targets(reference.classifier_f(params, candidates), labels)[:3]:
            for name, attack in [("adversarial", solved["adversarial"]),
                                 ("plain", adversarial_by_plain_steps),
                                 ("straight line", straight_line_attack(solved["x_train"]))]:
                path = np.array(attack(solved["net"], candidates[i].copy()))
                judged = checks.step_residuals(
                    path, reference.classifier_gradient(params, path[:-1]))
                largest = max(residual for _, residual, _ in judged)
                if name == "straight line":
                    worst[name] = min(worst[name], largest)
                else:
                    worst[name] = max(worst[name], largest)
                    assert all(b > 0 for _, _, b in judged), name
    assert worst["adversarial"] < checks.STEP_RESIDUAL * 1e-6, worst
    assert worst["plain"] < checks.STEP_RESIDUAL * 1e-6, worst
    assert worst["straight line"] > checks.STEP_RESIDUAL * 100, worst


@pytest.mark.parametrize("public", [False, True], ids=["graded", "self-check"])
def test_an_attack_in_a_straight_line_to_a_training_histogram_fails(solved, public):
    """The red team's lazy11, graded and self-checked: f rises to > 0 in small steps, but no step
    follows the gradient."""
    assignment = COURSE.assignment(ASSIGNMENT)
    for attack, passes in [(adversarial_by_plain_steps, True),
                           (straight_line_attack(solved["x_train"]), False)]:
        namespace = {**solved, "adversarial": attack}
        with threadpool_limits(1):
            [result] = run_checks(LocalSubmission(namespace, assignment), assignment, seed=77,
                                  public=public, tasks=["adversarial_input"])
        assert (result["status"] == "passed") == passes, (passes, result["message"])
        if not passes:
            assert "does not follow the gradient of f" in result["message"], result["message"]


def test_the_red_teams_lazy_attack_graded_from_the_solution_loses_the_attack_only(tmp_path):
    source = mutate(solution_source(ASSIGNMENT),
                    'gradient = f.sum().grad(1)["x"][0]\n        direction = gradient - gradient.mean()',
                    "direction = x_train[np.argmax(f_of(x_train))] - x")
    result = grade_source(source, ASSIGNMENT, tmp_path)
    assert points(result) == {**FULL, "adversarial_input": 0}, explain(result)
    [task] = [t for t in result["tasks"] if t["id"] == "adversarial_input"]
    assert "does not follow the gradient of f" in task["message"], explain(result)
