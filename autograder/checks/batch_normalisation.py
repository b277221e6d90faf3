"""Checks of 08 batch normalisation: the forward pass, the hand-written backward pass, the running
statistics and the evaluation mode.

The reference (autograder/references/batch_normalisation.py, the grader's side only) is dp's own
`BatchNorm` layer: its forward pass in training mode, its gradients by automatic differentiation
for a random upstream gradient, its running statistics after several batches, and its evaluation
mode with running statistics set here; and the known mistakes that the messages name. The inputs
have features with nonzero means and very different variances (one of them small, so that where
eps goes matters).
"""
import numpy as np
import pytest

from autograder import references
from autograder.grading.checking import floored_rel_error as rel_error
from autograder.grading.checking import floored_rel_errors as rel_errors
from autograder.grading.checking import (another_part, diagnosed, misconception, shape_located,
                                         within)

ref = references.of(__name__)

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


# -- comparing ------------------------------------------------------------------------------------
IN_ANOTHER_PLACE = diagnosed("result_in_another_place", "a result holds the values of another: "
                             "returned in another order, or computed under the other's name")


def _compare(got, expected, what, metrics, mistakes=(), part=None, shape_hint="", context="",
             parts=None):
    """Assert that `got` (an array returned by the student) is `expected`; `context` (the inputs)
    starts the message, which names the known mistake (`mistakes`, what ref.misconceptions gave,
    and the `part` of their values that `expected` is) that `got` equals, or the other of the
    expected `parts` ({name: value}, `what` among them) that it is."""
    assert not isinstance(got, dict), f"{context}{what} must be a NumPy array, not a {got['not_array']}"
    def named() -> str:
        other = parts and another_part(got, parts, what, within(TOL, rel_error))
        if other:
            return f"{IN_ANOTHER_PLACE}: your {what} is the expected {other}"
        return misconception(got, expected, mistakes, within(TOL, rel_error), part)
    assert got.shape == expected.shape, (
        f"{context}{what} has shape {got.shape}, expected {expected.shape}"
        + (named() or shape_hint or shape_located(got.shape, expected.shape)))
    errors = rel_errors(got, expected)
    error = float(np.max(errors, initial=0.0))
    metrics["max_rel_error"] = max(error, metrics.get("max_rel_error", 0.0))
    if error > TOL:
        i = tuple(int(k) for k in np.unravel_index(int(np.argmax(errors)), expected.shape))
        raise AssertionError(f"{context}{what}[{', '.join(map(str, i))}] is {got[i]:.6g}, expected "
                             f"{expected[i]:.6g} (relative error {error:.1e})" + named())


def _returned(out, function):
    assert "error" not in out, f"{function} must return a tuple; it returned {out['error']}"
    return out


# -- batchnorm_forward ----------------------------------------------------------------------------
@pytest.mark.task("batchnorm_forward")
def test_output_is_the_batch_normalised_input_scaled_and_shifted(submission, rng, public, metrics):
    x = random_batch(rng, public)
    gamma, beta = random_affine(rng, x.shape[1])
    eps = random_eps(rng, public)
    out = _returned(submission.probe("forward", x=x, gamma=gamma, beta=beta, eps=eps),
                    "batchnorm_forward")
    expected = ref.forward(x, gamma, beta, eps)
    _compare(out["y"], expected["y"], "y", metrics, ref.misconceptions.forward(x, gamma, beta, eps),
             "y", context=f"for x of shape {x.shape} and eps = {eps:.2g}: ")


@pytest.mark.task("batchnorm_forward")
def test_returns_x_hat_and_the_standard_deviation(submission, rng, public, metrics):
    x = random_batch(rng, public)
    gamma, beta = random_affine(rng, x.shape[1])
    eps = random_eps(rng, public)
    out = _returned(submission.probe("forward", x=x, gamma=gamma, beta=beta, eps=eps),
                    "batchnorm_forward")
    expected = ref.forward(x, gamma, beta, eps)
    mistakes = ref.misconceptions.forward(x, gamma, beta, eps)
    _compare(out["x_hat"], expected["x_hat"], "x_hat", metrics, mistakes, "x_hat", parts=expected)
    std = out["std"]
    if isinstance(std, np.ndarray) and std.shape == (x.shape[1],):
        std = std.reshape(1, -1)                       # (d,) is as good as (1, d)
    _compare(std, expected["std"], "std", metrics, mistakes, "std",
             shape_hint=" (one value per feature)")


# -- batchnorm_backward ---------------------------------------------------------------------------
@pytest.fixture
def backward_case(submission, rng, public):
    """(the known mistakes' gradients, the student's gradients, the reference gradients) for a
    random upstream dy."""
    x = random_batch(rng, public)
    gamma, beta = random_affine(rng, x.shape[1])
    eps = random_eps(rng, public)
    dy = rng.normal(size=x.shape)
    forward = ref.forward(x, gamma, beta, eps)
    inputs = {"dy": dy, "x_hat": forward["x_hat"], "std": forward["std"], "gamma": gamma}
    expected = ref.gradients(x, gamma, beta, eps, dy)
    mistakes = ref.misconceptions.gradients(x, gamma, beta, eps, dy)
    out = _returned(submission.probe("backward", **inputs), "batchnorm_backward")
    return mistakes, out, expected


SUM_OVER_BATCH = " (sum over the batch, axis 0, keeping the axis)"


@pytest.mark.task("batchnorm_backward")
def test_dbeta_is_the_sum_of_the_upstream_gradient(backward_case, metrics):
    mistakes, out, expected = backward_case
    _compare(out["dbeta"], expected["dbeta"], "dbeta", metrics, mistakes, "dbeta",
             shape_hint=SUM_OVER_BATCH, parts=expected)


@pytest.mark.task("batchnorm_backward")
def test_dgamma_matches_autodiff(backward_case, metrics):
    mistakes, out, expected = backward_case
    _compare(out["dgamma"], expected["dgamma"], "dgamma", metrics, mistakes, "dgamma",
             shape_hint=SUM_OVER_BATCH, parts=expected)


@pytest.mark.task("batchnorm_backward")
def test_dx_matches_autodiff_of_the_forward_pass(backward_case, metrics):
    mistakes, out, expected = backward_case
    _compare(out["dx"], expected["dx"], "dx", metrics, mistakes, "dx", parts=expected)


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
    expected = ref.running(running_mean, running_var, batches, momentum)
    mistakes = ref.misconceptions.running(running_mean, running_var, batches, momentum)
    for step, (got, right) in enumerate(zip(out["steps"], expected)):
        where = f"after batch {step + 1} of {len(batches)} (momentum {momentum:.3g}): "
        for name in ("running_mean", "running_var"):
            _compare(got[name], right[name], name, metrics, mistakes,
                     lambda steps, step=step, name=name: steps[step][name], context=where)
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
    momentum = random_momentum(rng, public)
    case["g"] = rng.normal(size=x.shape)
    out = submission.probe("evaluate", momentum=momentum, **case)
    return case, out


@pytest.mark.task("batchnorm_eval")
def test_evaluation_mode_normalises_with_the_running_statistics(eval_case, metrics):
    case, out = eval_case
    x, gamma, beta, eps = case["x"], case["gamma"], case["beta"], case["eps"]
    rm, rv = case["running_mean"], case["running_var"]
    _compare(out["y"], ref.evaluate(x, gamma, beta, rm, rv, eps), "y", metrics,
             ref.misconceptions.evaluate(x, gamma, beta, rm, rv, eps), context="in evaluation mode: ")


@pytest.mark.task("batchnorm_eval")
def test_an_example_is_normalised_the_same_alone_or_in_a_batch(eval_case, metrics):
    case, out = eval_case
    inputs = (case["x"][:1], case["gamma"], case["beta"], case["running_mean"],
              case["running_var"], case["eps"])
    _compare(out["y_first_alone"], ref.evaluate(*inputs), "y", metrics,
             ref.misconceptions.evaluate(*inputs),
             context="in evaluation mode, for a batch of one example: ")


NOT_A_NODE = diagnosed("evaluation_output_not_a_node", "in evaluation mode the output is not a "
                       "Node computed from x: an array (x.value, gamma.value) cuts the graph")


@pytest.mark.task("batchnorm_eval")
def test_evaluation_mode_passes_the_gradient_to_x(eval_case, metrics):
    case, out = eval_case
    inputs = [case[k] for k in ("x", "gamma", "beta", "running_mean", "running_var", "eps", "g")]
    assert out["dx"] is not None, (
        "in evaluation mode no gradient reaches x through the layer: the output must be a Node "
        "computed from the Node x" + (NOT_A_NODE + f" (it returned a {out['type']})"
                                      if out["type"] != "Node" else ""))
    _compare(out["dx"], ref.evaluate_gradient(*inputs), "dx", metrics,
             context="in evaluation mode, for L = sum(g * y): ")


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
