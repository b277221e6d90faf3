"""Notebook 07, dropout: the solution earns full marks, the exercise nothing; the notebook's check
cells pass on the solution and fail readably on the exercise; and the statistical checks pass a
correct layer written differently (another way to draw the mask) on hidden seeds."""
from __future__ import annotations

import pytest

import dp
from autograder.grading.judge import run_checks
from autograder.grading.selfcheck import LocalSubmission
from tests.grading import (COURSE, LIKE_JUPYTER_IN_ITS_FOLDER, assert_full_marks, full_marks,
                           grade_notebook, notebook_tests, notebooks_fixture)

ASSIGNMENT = "07_dropout"
FULL = full_marks(ASSIGNMENT)
notebooks = notebooks_fixture(ASSIGNMENT, built=True)


def test_solution_earns_full_marks(notebooks):
    result = assert_full_marks(grade_notebook(notebooks["solution"], ASSIGNMENT), ASSIGNMENT)
    metrics = {t["id"]: t["metrics"] for t in result["tasks"]}
    assert metrics["dropout_forward"]["max_scale_error"] < 1e-14, metrics
    assert metrics["dropout_backward"]["max_rel_error"] < 1e-14, metrics


(test_exercise_earns_nothing, test_check_cells_pass_on_the_solution,
 test_check_cells_fail_readably_on_the_exercise) = notebook_tests(ASSIGNMENT,
                                                                  **LIKE_JUPYTER_IN_ITS_FOLDER)


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
    submission = LocalSubmission({"MyDropout": BinomialDropout, "answer_forgot_eval": "b"}, assignment)
    results = run_checks(submission, assignment, seed=1000 + seed, public=False)
    assert {r["id"]: r["points"] for r in results} == FULL, [
        (r["id"], r["message"]) for r in results if r["status"] != "passed"]
    forward = {r["id"]: r["metrics"] for r in results}["dropout_forward"]
    assert abs(forward["mean_output_over_input"] - 1) < 0.05, forward



class Identity(dp.Layer):
    """No dropout at all: the input, in every mode (it earned backward and eval, 5 of 8)."""

    def __init__(self, p=0.5, rng=None):
        self.p, self.rng, self.training = p, rng, True

    def forward(self, x):
        return x


@pytest.mark.parametrize("public", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_a_layer_that_drops_nothing_earns_nothing(seed, public):
    assignment = COURSE.assignment(ASSIGNMENT)
    submission = LocalSubmission({"MyDropout": Identity}, assignment)
    results = run_checks(submission, assignment, seed=2000 + seed, public=public)
    assert {r["id"]: r["points"] for r in results} == {task: 0 for task in FULL}, results
    messages = {r["id"]: r["message"] for r in results}
    for task, what in (("dropout_backward", "no dropout to backpropagate through"),
                       ("dropout_eval", "no dropout for evaluation mode to switch off")):
        assert "in training mode forward(x) returned x unchanged" in messages[task] and what in \
            messages[task], messages[task]


def _scale_message(values, p, x):
    from autograder.checks import dropout as checks07
    with pytest.raises(AssertionError) as raised:
        checks07.test_kept_units_are_scaled_by_exactly_1_over_1_minus_p((p, x, values), {})
    return str(raised.value)


def test_a_layer_that_drops_nothing_is_located_in_its_mask_not_named_unscaled():
    """y = x in every call: the kept units' scale (1, not 1 / (1 - p)) is not the mistake, the mask
    is; a layer that drops units but keeps x unscaled is named."""
    import numpy as np
    rng = np.random.default_rng(0)
    p, x = 0.3, rng.uniform(0.5, 1.5, (4, 5))
    nothing_dropped = np.tile(x, (200, 1, 1))
    message = _scale_message(nothing_dropped, p, x)
    assert "The first difference is in the mask: no output was 0 in any of the 200 calls, so no " \
        "unit was dropped" in message and "it matches a known mistake" not in message
    unscaled = nothing_dropped * (rng.uniform(size=nothing_dropped.shape) >= p)
    assert "the kept units are not rescaled" in _scale_message(unscaled, p, x)
