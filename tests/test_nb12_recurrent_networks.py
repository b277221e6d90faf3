"""Notebook 12, recurrent networks: the solution earns full marks, the exercise earns nothing, its
check cells pass on the solution and fail readably on the exercise; a predict that computes the
answer without a trained network earns nothing on sequence_task; and the grader's references
agree with each other (dp's unrolled graph, central differences) and with the notebook (the
adding problem's distribution, the SequenceModel's forward pass)."""
from __future__ import annotations

import numpy as np
import pytest

import dp
from autograder.grading.judge import run_checks
from autograder.references import recurrent_networks as reference
from autograder.grading.selfcheck import LocalSubmission
from tests.grading import (COURSE, STUBS_FAIL_EVERYWHERE, assert_full_marks, explain,
                           forbidden_imports_of_probes, full_marks, grade_notebook, grade_source,
                           load_checks, mutate, notebook_cells, notebook_tests, notebooks_fixture,
                           points, solution_source)

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
    assert metrics["sequence_task"]["mse_of_the_trained_parameters"] < 0.5 * THRESHOLD, metrics


(test_exercise_earns_nothing, test_check_cells_pass_on_the_solution,
 test_check_cells_fail_readably_on_the_exercise) = notebook_tests(ASSIGNMENT,
                                                                  **STUBS_FAIL_EVERYWHERE)


def forged_source() -> str:
    """Issue 14's forgery: predict returns the closed form, the sum of the marked values, and no
    network is trained (the rest of the solution is honest)."""
    source = mutate(solution_source(ASSIGNMENT),
                    "return model.forward(sequences).value.reshape(-1)",
                    "return (sequences[..., 0] * sequences[..., 1]).sum(axis=1)")
    source = mutate(source, "_, loss_history, _ = optimizer.train(steps=1500, print_each=500, "
                            "err_hist=True)", "loss_history = [1.0]")
    return mutate(source, "_, settling, _ = optimizer.train(steps=500, print_each=500, "
                          "err_hist=True)", "settling = [1.0]")


def test_a_closed_form_predict_without_a_trained_network_earns_nothing(tmp_path):
    """Its predictions are perfect, so predict's own check passes; the grader's forward pass with
    model's (untrained) parameters fails, and the task earns 0. The other tasks keep their
    points."""
    result = grade_source(forged_source(), ASSIGNMENT, tmp_path, "forger")
    assert points(result) == {**full_marks(ASSIGNMENT), "sequence_task": 0}, explain(result)
    [task] = [t for t in result["tasks"] if t["id"] == "sequence_task"]
    verdicts = {c["name"]: c["status"] for c in task["checks"]}
    assert verdicts == {"test_the_adding_problem_is_learned": "passed",
                        "test_the_trained_cell_solves_the_adding_problem": "failed"}, task
    assert task["metrics"]["mse"] < 1e-20, task
    assert task["metrics"]["mse_of_the_trained_parameters"] > THRESHOLD, task
    assert task["message"].startswith(
        "the grader's SequenceModel with model's trained parameters"), task


# -- the grader's references -----------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(3))
def test_the_unrolled_graph_agrees_with_central_differences(seed):
    x, params, h_init = checks.random_case(np.random.default_rng(seed), public=False)
    dH = np.random.default_rng(100 + seed).normal(size=(len(x),) + h_init.shape)
    unrolled = reference.unrolled_gradients(x, params, h_init, dH)
    numerical = reference.numerical_gradients(x, params, h_init, dH)
    for name, value in numerical.items():
        assert dp.relative_error(unrolled[name], value, checks.NUMERICAL_FLOOR).max() < 1e-6, name
    # the per-step gradients: the last one is the direct gradient, the others add the later steps
    np.testing.assert_allclose(unrolled["H"][-1], dH[-1])
    correct = reference.mistaken_bptt(x, params, h_init, reference.states(x, params, h_init),
                                   dH, mistake=None)
    for name, value in unrolled.items():
        np.testing.assert_allclose(correct[name], value, rtol=1e-10, atol=1e-12)


def test_every_named_mistake_is_caught():
    """Each mistake the messages can name gives gradients that the checks reject."""
    x, params, h_init = checks.random_case(np.random.default_rng(7), public=False, T=5)
    H = reference.states(x, params, h_init)
    dH = np.random.default_rng(8).normal(size=H.shape)
    expected = reference.unrolled_gradients(x, params, h_init, dH)
    mistakes = reference.bptt_mistakes(x, params, h_init, H, dH, list(checks.MISTAKES))
    for mistake, wrong in mistakes.items():
        worst = max(dp.relative_error(wrong[k], expected[k], checks.FLOOR).max() for k in expected)
        assert worst > 1e-2, mistake


def test_the_grader_draws_the_notebooks_adding_problem():
    """The sequences that sequence_task is graded on come from the distribution the notebook
    trains on and documents (the grader keeps its own copy of the generator)."""
    namespace = notebook_cells(ASSIGNMENT, "adding_problem")
    assert namespace["T_ADD"] == checks.T_ADD
    ours = namespace["adding_problem"](50, checks.T_ADD, np.random.default_rng(0))
    theirs = checks.adding_problem(50, checks.T_ADD, np.random.default_rng(0))
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[1][:, 0], theirs[1])
    markers = theirs[0][:, :, 1]
    assert np.all(markers.sum(axis=1) == 2)          # exactly two marked steps per sequence


class Trained:
    """A stand-in for the notebook's trained `model`: get_param() returns `params`, forward ones."""

    def __init__(self, params):
        self.params = params

    def get_param(self):
        return self.params

    def forward(self, sequences):
        return dp.Node(np.ones((len(sequences), 1)))


def shaped(**shapes) -> dict:
    """SequenceModel's parameters for 16 units, with the given names changed to the given shapes
    (None: removed)."""
    params = {name: np.full(shape, 0.1) for name, shape in checks.model_shapes(16).items()}
    params.update({name: np.full(shape, 0.1) for name, shape in shapes.items() if shape})
    return {name: value for name, value in params.items() if shapes.get(name, ()) is not None}


@pytest.mark.parametrize("params, says", [
    (shaped(b_y=None), "model has {'W_x': (2, 16), 'W_h': (16, 16), 'b': (1, 16), 'W_y': (16, 1)}"),
    (shaped(W_x=(3, 16)), "'W_x': (3, 16)"),
    (shaped(W_y=(1, 16)), "'W_y': (1, 16)"),
    ({**shaped(), "W_h": "a string"}, "'W_h': None"),
    (shaped(W_x=(2, 300), W_h=(300, 300), b=(1, 300), W_y=(300, 1)),
     "reply to probe 'model': params['W_h'] is an array of shape (300, 300)"),   # its schema
])
def test_parameters_of_other_names_or_shapes_fail_with_a_message(params, says):
    """The trained parameters must be SequenceModel's (any number of units up to 256): others
    fail the check with a message that shows them, before the grader's forward pass runs."""
    assignment = COURSE.assignment(ASSIGNMENT)
    namespace = {"model": Trained(params), "predict": lambda sequences: np.ones(len(sequences))}
    [result] = run_checks(LocalSubmission(namespace, assignment), assignment, seed=1,
                          tasks=["sequence_task"])
    [check] = [c for c in result["checks"]
               if c["name"] == "test_the_trained_cell_solves_the_adding_problem"]
    assert check["status"] == "failed" and says in check["message"], check


@pytest.mark.parametrize("k", [16, 5])
def test_the_graders_forward_pass_is_the_notebooks_sequence_model(k):
    """reference.adding_predictions on a model's parameters gives that model's forward pass."""
    notebook = notebook_cells(ASSIGNMENT, "init_params", "rnn_forward", "SequenceModel",
                              "adding_problem")
    rng = np.random.default_rng(k)
    model = notebook["SequenceModel"](k=k, seed=k)
    model.set_param({"b": rng.normal(0, 0.3, (1, k)), "b_y": rng.normal(size=(1, 1))})
    sequences, _ = notebook["adding_problem"](64, checks.T_ADD, rng)
    with dp.no_grad():
        theirs = model.forward(sequences).value.reshape(-1)
    np.testing.assert_allclose(reference.adding_predictions(model.get_param(), sequences), theirs,
                               rtol=1e-12, atol=1e-14)
    assert set(model.get_param()) == set(checks.model_shapes(k))
    assert {n: v.shape for n, v in model.get_param().items()} == checks.model_shapes(k)


def test_probes_use_no_forbidden_import():
    assert not forbidden_imports_of_probes(ASSIGNMENT)
