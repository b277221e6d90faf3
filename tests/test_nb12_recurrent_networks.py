"""Notebook 12, recurrent networks: the solution earns full marks, the exercise earns nothing, its
check cells pass on the solution and fail readably on the exercise; and the grader's references
agree with each other (dp's unrolled graph, central differences) and with the notebook (the
adding problem's distribution)."""
from __future__ import annotations

import jupytext
import numpy as np
import pytest

import dp
from tests.grading import (COURSE, STUBS_FAIL_EVERYWHERE, assert_full_marks,
                           forbidden_imports_of_probes, grade_notebook, load_checks,
                           notebook_tests, notebooks_fixture, solution_source)

ASSIGNMENT = "12_recurrent_networks"
checks = load_checks(ASSIGNMENT)
THRESHOLD = COURSE.assignment(ASSIGNMENT).thresholds.get("sequence_mse", checks.SEQUENCE_MSE)
notebooks = notebooks_fixture(ASSIGNMENT)


def test_solution_earns_full_marks(notebooks):
    result = assert_full_marks(grade_notebook(notebooks["solution"], ASSIGNMENT), ASSIGNMENT)
    metrics = {t["id"]: t["metrics"] for t in result["tasks"]}
    assert metrics["rnn_forward"]["max_rel_error"] < 1e-12, metrics
    assert metrics["bptt_gradients"]["rel_error_vs_unrolled"] < 1e-12, metrics
    assert metrics["bptt_gradients"]["rel_error_vs_numerical"] < 1e-5, metrics
    assert metrics["sequence_task"]["mse"] < 0.5 * THRESHOLD, metrics


(test_exercise_earns_nothing, test_check_cells_pass_on_the_solution,
 test_check_cells_fail_readably_on_the_exercise) = notebook_tests(ASSIGNMENT,
                                                                  **STUBS_FAIL_EVERYWHERE)


# -- the grader's references -----------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(3))
def test_the_unrolled_graph_agrees_with_central_differences(seed):
    x, params, h_init = checks.random_case(np.random.default_rng(seed), public=False)
    dH = np.random.default_rng(100 + seed).normal(size=(len(x),) + h_init.shape)
    unrolled = checks.unrolled_gradients(x, params, h_init, dH)
    numerical = checks.numerical_gradients(x, params, h_init, dH)
    for name, value in numerical.items():
        assert dp.relative_error(unrolled[name], value, checks.NUMERICAL_FLOOR).max() < 1e-6, name
    # the per-step gradients: the last one is the direct gradient, the others add the later steps
    np.testing.assert_allclose(unrolled["H"][-1], dH[-1])
    correct = checks.mistaken_bptt(x, params, h_init, checks.reference_states(x, params, h_init),
                                   dH, mistake=None)
    for name, value in unrolled.items():
        np.testing.assert_allclose(correct[name], value, rtol=1e-10, atol=1e-12)


def test_every_named_mistake_is_caught():
    """Each mistake the messages can name gives gradients that the checks reject."""
    x, params, h_init = checks.random_case(np.random.default_rng(7), public=False, T=5)
    H = checks.reference_states(x, params, h_init)
    dH = np.random.default_rng(8).normal(size=H.shape)
    expected = checks.unrolled_gradients(x, params, h_init, dH)
    for mistake in checks.MISTAKES:
        wrong = checks.mistaken_bptt(x, params, h_init, H, dH, mistake)
        worst = max(dp.relative_error(wrong[k], expected[k], checks.FLOOR).max() for k in expected)
        assert worst > 1e-2, mistake


def test_the_grader_draws_the_notebooks_adding_problem():
    """The sequences that sequence_task is graded on come from the distribution the notebook
    trains on and documents (the grader keeps its own copy of the generator)."""
    notebook = jupytext.reads(solution_source(ASSIGNMENT), fmt="py:percent")
    [cell] = [c.source for c in notebook.cells if "def adding_problem" in c.source]
    namespace = {"np": np, "dp": dp, "Node": dp.Node}
    exec(cell, namespace)
    assert namespace["T_ADD"] == checks.T_ADD
    ours = namespace["adding_problem"](50, checks.T_ADD, np.random.default_rng(0))
    theirs = checks.adding_problem(50, checks.T_ADD, np.random.default_rng(0))
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[1][:, 0], theirs[1])
    markers = theirs[0][:, :, 1]
    assert np.all(markers.sum(axis=1) == 2)          # exactly two marked steps per sequence


def test_probes_use_no_forbidden_import():
    assert not forbidden_imports_of_probes(ASSIGNMENT)
