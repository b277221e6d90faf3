"""Notebook 05, weight initialisation: the solution earns every point, the exercise none, the
notebook's own check cells pass as Jupyter runs them, and the statistical thresholds leave a wide
margin both ways: correct initialisers never fail them, the planted bugs never pass."""
import numpy as np
import pytest

from autograder import references
from autograder.references import weight_initialisation as reference

from tests.grading import (assert_earns_nothing, assert_full_marks, exercise_path, explain,
                           full_marks, grade_notebook, grade_source, load_checks, mutate,
                           notebook_fixture, points, solution_source)

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


# -- the plot's experiment: the notebook's, not one of the student's choosing ------------------------
def test_the_prescribed_experiment_passes_with_a_wide_margin_whatever_the_notebooks_seed(
        notebook, monkeypatch):
    """The experiment drawn as the notebook draws it, with 100 other seeds: every network's
    variance within half the check's tolerances, over the network and in each layer."""
    monkeypatch.setattr(checks, "ref", references.of("weight_initialisation"))  # not nb05_checks
    worst = {"network": 0.0, "layer": 0.0}
    for seed in range(100):
        rng = np.random.default_rng(seed)
        x = rng.standard_normal((checks.N_EXAMPLES, checks.WIDTH))
        networks = {name: [init(checks.WIDTH, checks.WIDTH, rng) for _ in range(checks.N_LAYERS)]
                    for name, init in notebook["PLOT_INITS"].items()}
        checks.assert_prescribed_experiment(None, networks, x, None)
        for name, layers in networks.items():
            wanted, _ = checks._stated_variance(name)
            worst["network"] = max(worst["network"], abs(np.var(layers) / wanted - 1))
            worst["layer"] = max(worst["layer"], *(abs(W.var() / wanted - 1) for W in layers))
    assert worst["network"] < checks.VARIANCE_RTOL / 2, worst
    assert worst["layer"] < checks.LAYER_VARIANCE_RTOL / 2, worst


def _plot_of(experiment: str) -> str:
    """The solution with `experiment` run just before its plot cell (which plots `networks`)."""
    return mutate(solution_source(A), "fig, axes = plt.subplots(1, 2, figsize=(11, 4))",
                  experiment + "\nfig, axes = plt.subplots(1, 2, figsize=(11, 4))")


@pytest.mark.parametrize("experiment, says", [
    # the red team's tiny05: one 1 x 1 layer per network, two inputs; every line recomputes
    ("networks = {name: [np.ones((1, 1))] for name in PLOT_INITS}\n"
     "x_stats = np.array([[1.0], [3.0]])\nN_LAYERS = 1",
     "x_stats has shape (2, 1), expected (1000, 100)"),
    ("networks = {name: [] for name in PLOT_INITS}\nN_LAYERS = 0",
     "networks['std 0.01'] has 0 weight matrices, expected 10 of shape (100, 100)"),
    ("networks = {name: layers[:3] for name, layers in networks.items()}\nN_LAYERS = 3",
     "networks['std 0.01'] has 3 weight matrices of shape (100, 100), expected 10"),
    ('networks["xavier"] = [he_normal(WIDTH, WIDTH, rng) for _ in range(N_LAYERS)]',
     "networks['xavier']: the weights' variance is 0.02"),
    ('networks["std 1"] = [W / 2 for W in networks["std 1"]]',
     "networks['std 1']: the weights' variance is 0.25"),
    ('networks["he"][4] = networks["he"][4] * 1.3',
     "(layer 5: 0.03"),
])
def test_a_plot_of_another_experiment_fails(tmp_path, experiment, says):
    """Every line recomputes from `networks` and `x_stats`, but these are not the notebook's
    experiment: the plot earns nothing, and the message says what differs."""
    result = grade_source(_plot_of(experiment), A, tmp_path)
    expected = {**full_marks(A), "activation_statistics": 0.0}
    assert points(result) == expected, explain(result)
    [task] = [t for t in result["tasks"] if t["id"] == "activation_statistics"]
    assert says in task["message"], explain(result)


@pytest.mark.parametrize("kind, other", [("uniform", "normal"), ("normal", "uniform")])
def test_weights_drawn_from_the_other_distribution_are_named_so(kind, other):
    """A normal of std a (the uniform's bound) has three times the uniform's variance: the
    kurtosis says which mistake it is, and outranks what the variance alone would name."""
    rng, metrics = np.random.default_rng(1), {}
    W = _draw(other, 0.01, (300, 500), rng)
    said = checks.looks_other(W, kind, metrics, "w")
    assert said.startswith(checks.OTHER_DISTRIBUTION) and f"yours look {other}" in said
    assert checks.looks_other(_draw(kind, 0.01, (300, 500), rng), kind, metrics, "w") == ""
