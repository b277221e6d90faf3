"""Notebook 05, weight initialisation: the solution earns every point, the exercise none, the
notebook's own check cells pass as Jupyter runs them, and the statistical thresholds leave a wide
margin both ways: correct initialisers never fail them, the planted bugs never pass."""
import numpy as np
import pytest

from autograder.references import weight_initialisation as reference

from tests.grading import (assert_earns_nothing, assert_full_marks, exercise_path, grade_notebook,
                           grade_source, load_checks, notebook_fixture, solution_source)

A = "05_weight_initialisation"
checks = load_checks(A)


def test_solution_gets_full_marks(tmp_path):
    assert_full_marks(grade_source(solution_source(A), A, tmp_path), A, flags=False)


def test_exercise_gets_zero_on_every_task():
    assert_earns_nothing(grade_notebook(exercise_path(A), A), A, says="NotImplementedError")


# -- the notebook, run in-process as Jupyter runs it ----------------------------------------------
notebook = notebook_fixture(A)


def test_self_checks_pass_in_the_notebook_although_jupyter_closed_the_figures(notebook):
    assert set(notebook["networks"]) == set(checks.PLOT_INITS)   # every check cell ran and passed


def test_notebook_shows_what_its_discussion_says(notebook):
    stds = {(name, act): checks.activation_stds(weights, act, notebook["x_stats"])
            for name, weights in notebook["networks"].items() for act in checks.PLOT_ACTIVATIONS}
    assert stds["std 0.01", "tanh"][-1] < 1e-8 and stds["std 1", "relu"][-1] > 1e7
    assert 0.5 < stds["he", "relu"][-1] / stds["he", "relu"][0] < 2
    assert stds["xavier", "relu"][-1] / stds["xavier", "relu"][0] < 0.1


# -- the statistical thresholds ---------------------------------------------------------------------
def _draw(kind, variance, shape, rng):
    if kind == "uniform":
        a = np.sqrt(3 * variance)
        return rng.uniform(-a, a, shape)
    return rng.normal(0, np.sqrt(variance), shape)


@pytest.mark.parametrize("name", list(checks.INITIALISERS))
def test_correct_initialisers_pass_with_a_wide_margin(name):
    """Over many hidden sizes and seeds, the measured variance, mean and kurtosis of a correct
    initialiser stay within a third of the check's tolerance."""
    _, kind, _ = checks.INITIALISERS[name]
    worst = {"variance": 0.0, "mean_sigmas": 0.0, "kurtosis": 0.0}
    for seed in range(10):
        rng = np.random.default_rng(seed)
        fan_in, fan_out = checks._fans(rng, public=False)
        variance = reference.variance(name, fan_in, fan_out)
        W = _draw(kind, variance, (fan_in, fan_out), rng)
        worst["variance"] = max(worst["variance"], abs(W.var() / variance - 1))
        worst["mean_sigmas"] = max(worst["mean_sigmas"], abs(W.mean()) / np.sqrt(variance / W.size))
        kurtosis = checks.excess_kurtosis(W) - checks.EXCESS_KURTOSIS[kind]
        worst["kurtosis"] = max(worst["kurtosis"], abs(kurtosis))
    assert worst["variance"] < checks.VARIANCE_RTOL / 3, worst
    assert worst["mean_sigmas"] < checks.MEAN_SIGMAS * 0.75, worst
    assert worst["kurtosis"] < checks.KURTOSIS_ATOL / 3, worst


def test_hidden_fans_are_far_enough_apart_to_tell_fan_in_from_fan_out():
    for seed in range(200):
        fan_in, fan_out = checks._fans(np.random.default_rng(seed), public=False)
        assert max(fan_in, fan_out) / min(fan_in, fan_out) >= 1.55
        assert fan_in * fan_out >= 150_000
        # He with fan_out, and He without its factor 2, are many tolerances away
        assert abs(fan_in / fan_out - 1) > 10 * checks.VARIANCE_RTOL


def _diagnosis(name, variance, fan_in, fan_out) -> str:
    return checks._variance_diagnosis(reference.variance_mistakes(name, fan_in, fan_out), variance,
                                      reference.variance(name, fan_in, fan_out))


def test_diagnosis_names_the_swapped_fans():
    hint = _diagnosis("he_normal", 2 / 700, 300, 700)
    assert "fan_out where fan_in belongs" in hint, hint
    hint = _diagnosis("xavier_uniform", 2 / 1000 / 3, 300, 700)
    assert "a = sqrt(3 Var(W))" in hint, hint
