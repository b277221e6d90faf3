"""Checks of 08 batch normalisation: the forward pass, the hand-written backward pass, the running
statistics and the evaluation mode.

The reference is dp's own `BatchNorm` layer: its forward pass in training mode, its gradients by
automatic differentiation for a random upstream gradient, its running statistics after several
batches, and its evaluation mode with running statistics set here. The inputs have features with
nonzero means and very different variances (one of them small, so that where eps goes matters).
"""
import numpy as np
import pytest

import dp
from autograder.checking import floored_rel_error as rel_error
from autograder.checking import floored_rel_errors as rel_errors
from dp import Node

TOL = 1e-8        # float64 on both sides; the bugs below are off by 1e-3 and more


# -- inputs ---------------------------------------------------------------------------------------
def random_batch(rng, public, n=None, d=None) -> np.ndarray:
    """x of shape (n, d): feature j ~ N(loc_j, scale_j^2), loc in [-5, 5], scale in [0.03, 5]."""
    if n is None:
        n = 8 if public else int(rng.integers(4, 40))
    if d is None:
        d = 3 if public else int(rng.integers(2, 10))
    loc = rng.uniform(-5, 5, d)
    scale = 10 ** rng.uniform(-1.5, 0.7, d)
    scale[rng.integers(d)] = 10 ** -1.5             # one feature of variance 1e-3
    return rng.normal(loc, scale, (n, d))


def random_affine(rng, d) -> tuple:
    """gamma (1, d) away from 0 and 1, beta (1, d)."""
    gamma = rng.uniform(0.5, 2.0, (1, d)) * rng.choice([-1.0, 1.0], (1, d))
    return gamma, rng.normal(size=(1, d))


def random_eps(rng, public) -> float:
    return 1e-5 if public else float(10 ** rng.uniform(-5, -3))


def random_momentum(rng, public) -> float:
    return 0.9 if public else float(rng.uniform(0.6, 0.95))


# -- the reference: dp.BatchNorm ------------------------------------------------------------------
def reference_layer(gamma, beta, eps, momentum=0.9) -> dp.BatchNorm:
    layer = dp.BatchNorm(gamma.shape[1], "ref", momentum=momentum, eps=eps)
    layer.gamma.value, layer.beta.value = gamma.copy(), beta.copy()
    return layer


def reference_forward(x, gamma, beta, eps) -> dict:
    y = reference_layer(gamma, beta, eps)(Node(x)).value
    std = np.sqrt(x.var(axis=0, keepdims=True) + eps)
    return {"y": y, "x_hat": (x - x.mean(axis=0, keepdims=True)) / std, "std": std}


def reference_gradients(x, gamma, beta, eps, dy) -> dict:
    grads = reference_layer(gamma, beta, eps)(Node(x, "x")).grad(dy)
    return {"dx": grads["x"], "dgamma": grads["ref_gamma"], "dbeta": grads["ref_beta"]}


def reference_running(running_mean, running_var, batches, momentum) -> list:
    layer = reference_layer(np.ones_like(running_mean), np.zeros_like(running_mean), 1e-5, momentum)
    layer.running_mean, layer.running_var = running_mean.copy(), running_var.copy()
    steps = []
    for batch in batches:
        layer(Node(batch))
        steps.append({"running_mean": layer.running_mean.copy(),
                      "running_var": layer.running_var.copy()})
    return steps


def reference_eval(x, gamma, beta, running_mean, running_var, eps) -> np.ndarray:
    layer = reference_layer(gamma, beta, eps)
    layer.running_mean, layer.running_var = running_mean.copy(), running_var.copy()
    layer.training = False
    return layer(Node(x)).value


# -- comparing ------------------------------------------------------------------------------------
def _diagnosis(got, candidates: dict) -> str:
    for name, value in candidates.items():
        if np.shape(got) == np.shape(value) and rel_error(got, value) < 1e-6:
            return f"; it matches {name}"
    return ""


def _compare(got, expected, what, metrics, candidates=None, shape_hint="", context=""):
    """Assert that `got` (an array returned by the student) is `expected`; `context` (the inputs)
    starts the message."""
    assert not isinstance(got, dict), f"{context}{what} must be a NumPy array, not a {got['not_array']}"
    assert got.shape == expected.shape, (
        f"{context}{what} has shape {got.shape}, expected {expected.shape}" + shape_hint)
    errors = rel_errors(got, expected)
    error = float(np.max(errors, initial=0.0))
    metrics["max_rel_error"] = max(error, metrics.get("max_rel_error", 0.0))
    if error > TOL:
        i = tuple(int(k) for k in np.unravel_index(int(np.argmax(errors)), expected.shape))
        raise AssertionError(f"{context}{what}[{', '.join(map(str, i))}] is {got[i]:.6g}, expected "
                             f"{expected[i]:.6g} (relative error {error:.1e})"
                             + _diagnosis(got, candidates or {}))


def _returned(out, function):
    assert "error" not in out, f"{function} must return a tuple; it returned {out['error']}"
    return out


# -- batchnorm_forward ----------------------------------------------------------------------------
def _forward_mistakes(x, gamma, beta, eps) -> dict:
    mean, n = x.mean(axis=0, keepdims=True), len(x)
    var = x.var(axis=0, keepdims=True)
    normalise = {"the unbiased variance (dividing by n - 1): divide by n":
                     (x - mean) / np.sqrt(var * n / (n - 1) + eps),
                 "sqrt(var) + eps: eps goes inside the square root": (x - mean) / (np.sqrt(var) + eps),
                 "no eps at all": (x - mean) / np.sqrt(var),
                 "dividing by the variance, not by the standard deviation": (x - mean) / (var + eps),
                 "statistics over each row (axis 1): normalise each feature over the batch (axis 0)":
                     (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, keepdims=True) + eps)}
    candidates = {name: gamma * x_hat + beta for name, x_hat in normalise.items()}
    x_hat = (x - mean) / np.sqrt(var + eps)
    candidates["x_hat without the scale gamma and shift beta"] = x_hat
    candidates["gamma and beta swapped"] = beta * x_hat + gamma
    return candidates


@pytest.mark.task("batchnorm_forward")
def test_output_is_the_batch_normalised_input_scaled_and_shifted(submission, rng, public, metrics):
    x = random_batch(rng, public)
    gamma, beta = random_affine(rng, x.shape[1])
    eps = random_eps(rng, public)
    out = _returned(submission.probe("forward", x=x, gamma=gamma, beta=beta, eps=eps),
                    "batchnorm_forward")
    expected = reference_forward(x, gamma, beta, eps)
    _compare(out["y"], expected["y"], "y", metrics, _forward_mistakes(x, gamma, beta, eps),
             context=f"for x of shape {x.shape} and eps = {eps:.2g}: ")


@pytest.mark.task("batchnorm_forward")
def test_returns_x_hat_and_the_standard_deviation(submission, rng, public, metrics):
    x = random_batch(rng, public)
    gamma, beta = random_affine(rng, x.shape[1])
    eps = random_eps(rng, public)
    out = _returned(submission.probe("forward", x=x, gamma=gamma, beta=beta, eps=eps),
                    "batchnorm_forward")
    expected = reference_forward(x, gamma, beta, eps)
    var, n = x.var(axis=0, keepdims=True), len(x)
    _compare(out["x_hat"], expected["x_hat"], "x_hat", metrics,
             {name: (y - beta) / gamma for name, y in _forward_mistakes(x, gamma, beta, eps).items()
              if "gamma" not in name})
    std = out["std"]
    if isinstance(std, np.ndarray) and std.shape == (x.shape[1],):
        std = std.reshape(1, -1)                       # (d,) is as good as (1, d)
    _compare(std, expected["std"], "std", metrics,
             {"the standard deviation without eps: std = sqrt(var + eps)": np.sqrt(var),
              "the variance: std = sqrt(var + eps)": var + eps,
              "sqrt(var) + eps: eps goes inside the square root": np.sqrt(var) + eps,
              "the unbiased standard deviation: divide by n": np.sqrt(var * n / (n - 1) + eps)},
             shape_hint=" (one value per feature)")


# -- batchnorm_backward ---------------------------------------------------------------------------
@pytest.fixture
def backward_case(submission, rng, public):
    """(inputs, the student's gradients, the reference gradients) for a random upstream dy."""
    x = random_batch(rng, public)
    gamma, beta = random_affine(rng, x.shape[1])
    eps = random_eps(rng, public)
    dy = rng.normal(size=x.shape)
    ref = reference_forward(x, gamma, beta, eps)
    out = _returned(submission.probe("backward", dy=dy, x_hat=ref["x_hat"], std=ref["std"],
                                     gamma=gamma), "batchnorm_backward")
    inputs = {"dy": dy, "x_hat": ref["x_hat"], "std": ref["std"], "gamma": gamma}
    return inputs, out, reference_gradients(x, gamma, beta, eps, dy)


SUM_OVER_BATCH = " (sum over the batch, axis 0, keeping the axis)"


@pytest.mark.task("batchnorm_backward")
def test_dbeta_is_the_sum_of_the_upstream_gradient(backward_case, metrics):
    inputs, out, expected = backward_case
    _compare(out["dbeta"], expected["dbeta"], "dbeta", metrics, shape_hint=SUM_OVER_BATCH)


@pytest.mark.task("batchnorm_backward")
def test_dgamma_matches_autodiff(backward_case, metrics):
    inputs, out, expected = backward_case
    dy, x_hat = inputs["dy"], inputs["x_hat"]
    _compare(out["dgamma"], expected["dgamma"], "dgamma", metrics,
             {"sum(dy): that is dbeta": dy.sum(axis=0, keepdims=True),
              "sum(dy * gamma * x_hat): gamma is not part of dgamma":
                  (dy * inputs["gamma"] * x_hat).sum(axis=0, keepdims=True)},
             shape_hint=SUM_OVER_BATCH)


@pytest.mark.task("batchnorm_backward")
def test_dx_matches_autodiff_of_the_forward_pass(backward_case, metrics):
    inputs, out, expected = backward_case
    dy, x_hat, std, gamma = inputs["dy"], inputs["x_hat"], inputs["std"], inputs["gamma"]
    g = gamma * dy

    def mean(a):
        return a.mean(axis=0, keepdims=True)

    _compare(out["dx"], expected["dx"], "dx", metrics, {
        "the formula without the mean of the gradient, - mean(g), the path through mu":
            (g - x_hat * mean(g * x_hat)) / std,
        "the formula without - x_hat * mean(g * x_hat), the path through the variance":
            (g - mean(g)) / std,
        "gamma * dy / std: only the direct path; mu and the variance depend on x too": g / std,
        "the formula without gamma: g = gamma * dy": (dy - mean(dy) - x_hat * mean(dy * x_hat)) / std,
        "the formula multiplied by std instead of divided":
            (g - mean(g) - x_hat * mean(g * x_hat)) * std})


# -- running_statistics ---------------------------------------------------------------------------
@pytest.mark.task("running_statistics")
def test_running_statistics_after_several_batches(submission, rng, public, metrics):
    d = 3 if public else int(rng.integers(2, 8))
    momentum = random_momentum(rng, public)
    if public:
        running_mean, running_var = np.zeros((1, d)), np.ones((1, d))
    else:
        running_mean, running_var = rng.normal(size=(1, d)), rng.uniform(0.5, 2.0, (1, d))
    batches = [random_batch(rng, public, d=d) for _ in range(3 if public else int(rng.integers(4, 7)))]
    out = submission.probe("running_statistics", running_mean=running_mean,
                           running_var=running_var, batches=batches, momentum=momentum)
    assert "error" not in out, f"update_running_statistics must return a tuple; it returned {out['error']}"
    expected = reference_running(running_mean, running_var, batches, momentum)
    mean, var, m = running_mean, running_var, momentum
    for step, (got, right, batch) in enumerate(zip(out["steps"], expected, batches), start=1):
        n = len(batch)
        batch_mean, batch_var = batch.mean(axis=0, keepdims=True), batch.var(axis=0, keepdims=True)
        where = f"after batch {step} of {len(batches)} (momentum {m:.3g}): "
        mean_mistakes = {
            "momentum on the wrong side: the momentum weighs the old running mean":
                (1 - m) * mean + m * batch_mean,
            "the batch mean alone": batch_mean,
            "the old running mean, not updated": mean}
        var_mistakes = {
            "momentum on the wrong side: the momentum weighs the old running variance":
                (1 - m) * var + m * batch_var,
            "the unbiased batch variance: use the biased one, as in the forward pass":
                m * var + (1 - m) * batch_var * n / (n - 1),
            "the batch standard deviation in place of the variance": m * var + (1 - m) * np.sqrt(batch_var),
            "the batch variance alone": batch_var,
            "the old running variance, not updated": var}
        _compare(got["running_mean"], right["running_mean"], "running_mean", metrics, mean_mistakes,
                 context=where)
        _compare(got["running_var"], right["running_var"], "running_var", metrics, var_mistakes,
                 context=where)
        mean, var = right["running_mean"], right["running_var"]
    assert len(out["steps"]) == len(batches), "update_running_statistics did not return arrays"


@pytest.mark.task("running_statistics")
def test_update_returns_new_values_and_leaves_its_arguments_unchanged(submission, rng, public):
    batch = random_batch(rng, public)
    d = batch.shape[1]
    out = submission.probe("running_statistics", running_mean=np.zeros((1, d)),
                           running_var=np.ones((1, d)), batches=[batch],
                           momentum=random_momentum(rng, public))
    assert "error" not in out, f"update_running_statistics must return a tuple; it returned {out['error']}"
    assert not out["steps"][0]["changed_inputs"], (
        "update_running_statistics changed the arrays it was given: return new arrays "
        "(running_mean = momentum * running_mean + ..., not running_mean *= momentum)")


# -- batchnorm_eval -------------------------------------------------------------------------------
@pytest.fixture
def eval_case(submission, rng, public):
    """The grader's inputs, running statistics far from the batch's, and the probe's result."""
    x = random_batch(rng, public)
    d = x.shape[1]
    gamma, beta = random_affine(rng, d)
    case = {"x": x, "gamma": gamma, "beta": beta, "eps": random_eps(rng, public),
            "running_mean": x.mean(axis=0, keepdims=True) + rng.choice([-1.0, 1.0], (1, d))
            * rng.uniform(0.5, 2.0, (1, d)) * x.std(axis=0, keepdims=True),
            "running_var": x.var(axis=0, keepdims=True) * 10 ** rng.uniform(-0.7, 0.7, (1, d))}
    out = submission.probe("evaluate", momentum=random_momentum(rng, public), **case)
    return case, out


@pytest.mark.task("batchnorm_eval")
def test_evaluation_mode_normalises_with_the_running_statistics(eval_case, metrics):
    case, out = eval_case
    x, gamma, beta, eps = case["x"], case["gamma"], case["beta"], case["eps"]
    rm, rv = case["running_mean"], case["running_var"]
    batch_mean, batch_var = x.mean(axis=0, keepdims=True), x.var(axis=0, keepdims=True)
    mistakes = {
        "the batch statistics: in evaluation mode use the running mean and variance":
            gamma * (x - batch_mean) / np.sqrt(batch_var + eps) + beta,
        "the batch mean with the running variance": gamma * (x - batch_mean) / np.sqrt(rv + eps) + beta,
        "the running mean with the batch variance": gamma * (x - rm) / np.sqrt(batch_var + eps) + beta,
        "the running variance used as the standard deviation": gamma * (x - rm) / (rv + eps) + beta,
        "sqrt(running_var) + eps: eps goes inside the square root":
            gamma * (x - rm) / (np.sqrt(rv) + eps) + beta,
        "no scale gamma and shift beta": (x - rm) / np.sqrt(rv + eps)}
    _compare(out["y"], reference_eval(x, gamma, beta, rm, rv, eps), "y", metrics, mistakes,
             context="in evaluation mode: ")


@pytest.mark.task("batchnorm_eval")
def test_an_example_is_normalised_the_same_alone_or_in_a_batch(eval_case, metrics):
    case, out = eval_case
    expected = reference_eval(case["x"][:1], case["gamma"], case["beta"], case["running_mean"],
                              case["running_var"], case["eps"])
    mistakes = {"beta: a single example normalised with its own batch statistics is 0; use the "
                "running statistics": case["beta"]}
    _compare(out["y_first_alone"], expected, "y", metrics, mistakes,
             context="in evaluation mode, for a batch of one example: ")


@pytest.mark.task("batchnorm_eval")
def test_evaluation_leaves_the_running_statistics_unchanged(eval_case):
    case, out = eval_case
    for name in ("running_mean", "running_var"):
        got = out[name]
        assert isinstance(got, np.ndarray) and got.shape == case[name].shape, (
            f"after evaluation, layer.{name} is no longer an array of shape {case[name].shape}")
        assert np.array_equal(got, case[name]), (
            f"evaluation mode changed layer.{name}: only training batches update the running "
            f"statistics")
