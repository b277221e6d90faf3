"""Notebook 06, optimizers: the solution earns every point, the exercise none, the notebook's own
check cells pass as Jupyter runs them, grading uses other problems than the self-check, and every
named mistake is far from dp's reference on any hidden problem."""
import numpy as np
import pytest

from autograder.grade import grading_seed
from autograder.judge import run_checks
from autograder.selfcheck import LocalSubmission
from tests.grading import (COURSE, assert_earns_nothing, assert_full_marks, exercise_path,
                           explain, grade_notebook, grade_source, load_checks, notebook_fixture,
                           solution_source)

A = "06_optimizers"
RULES = ("momentum_update", "rmsprop_update", "adam_update")
checks = load_checks(A)


def test_solution_gets_full_marks(tmp_path):
    result = assert_full_marks(grade_source(solution_source(A), A, tmp_path), A, flags=False)
    errors = [t["metrics"].get(f"{t['id']}_max_rel_error", 0) for t in result["tasks"]]
    assert max(errors) < 1e-12, explain(result)


def test_exercise_gets_zero_on_every_task():
    assert_earns_nothing(grade_notebook(exercise_path(A), A), A)


# -- the notebook, run in-process as Jupyter runs it ----------------------------------------------
notebook = notebook_fixture(A)


def test_self_checks_pass_in_the_notebook_although_jupyter_closed_the_figures(notebook):
    assert set(notebook["paths"]) == set(checks.LOSS_NAMES)     # every check cell ran and passed


def test_notebook_race_ends_as_its_discussion_says(notebook):
    final = {name: checks.rosenbrock(path[-1]) for name, path in notebook["paths"].items()}
    assert final["sgd"] > 0.1 and final["momentum"] < 1e-3 and final["adam"] < 1e-3, final
    assert final["rmsprop"] > 10 * final["adam"], final


def test_your_adam_trains_a_dp_model_exactly_as_dp_adam(notebook):
    mine, reference = notebook["histories"].values()
    assert np.allclose(mine, reference, rtol=1e-12, atol=0)


class RecordingSubmission(LocalSubmission):
    """The notebook's namespace, probed in-process, remembering every probe's arguments."""

    def __init__(self, namespace):
        super().__init__(namespace, COURSE.assignment(A))
        self.calls = []

    def probe(self, name, **kwargs):
        self.calls.append(kwargs)
        return super().probe(name, **kwargs)


def test_grading_uses_other_starting_points_and_hyperparameters_than_the_self_check(notebook):
    assignment = COURSE.assignment(A)
    public, hidden = RecordingSubmission(notebook), RecordingSubmission(notebook)
    for submission, seed, is_public in [(public, COURSE.public_seed, True),
                                        (hidden, grading_seed(COURSE, "alice", A), False)]:
        results = run_checks(submission, assignment, seed, public=is_public, tasks=list(RULES))
        assert all(r["status"] == "passed" for r in results), results
    for rule in RULES:
        mine = [c for c in public.calls if c["rule"] == rule]
        theirs = [c for c in hidden.calls if c["rule"] == rule]
        assert mine and theirs
        public_starts = [s for c in mine for s in c["starts"]]
        for call in theirs:
            assert call["hyperparameters"] not in [c["hyperparameters"] for c in mine]
            assert not any(s.shape == p.shape and np.allclose(s, p)
                           for s in call["starts"] for p in public_starts)


@pytest.mark.parametrize("rule", RULES)
def test_every_named_mistake_is_far_from_the_reference_on_hidden_problems(rule):
    """On 30 hidden problems, each mistake's path leaves dp's by more than a thousand times the
    check's tolerance (relative), within the steps the check runs."""
    closest = {}
    for seed in range(30):
        rng = np.random.default_rng(seed)
        problem = checks.quadratic(rng, public=False)
        hyper = checks.hyperparameters(rule, rng, problem["cond"])
        theta0, n_steps = checks.start(rng, problem), checks.steps(rng, public=False)
        [right] = checks.paths(checks.reference(rule, hyper), problem["A"], problem["c"], [theta0], n_steps)
        for text, update in checks.mistakes(rule, hyper).items():
            [wrong] = checks.paths(update, problem["A"], problem["c"], [theta0], n_steps)
            closest[text] = min(closest.get(text, np.inf), checks.rel_error(wrong, right))
    assert min(closest.values()) > 1000 * checks.RTOL, closest
