"""Checks of 04 activation functions: the 10-layer network, the binary cross-entropy, the per-layer
gradient sums, and the vanishing-gradient plot.

The expected values of the first three tasks come from the references
(autograder/references/activation_functions.py: the forward pass and backpropagation written
out by hand in NumPy), on weights and inputs chosen here; the student bundle replaces them by
the values they gave for the public seed. The plot's lines are compared with the true gradient
sums of the student's own networks on the plot's batch, recomputed here with dp's public API
(`dp_gradient_sums`), so that a line is only right if it shows those networks' gradients.
"""
import numpy as np
import pytest

import dp
from autograder import references
from autograder.grading import answers
from autograder.grading.checking import (diagnosed, located, misconception, rel_error,
                                         shape_located, within)
from dp import Node

ref = references.of(__name__)
ACTIVATIONS = ("sigmoid", "tanh", "relu")
SIZES = (2,) + (20,) * 9 + (1,)            # 10 weight layers: layer<l>_W has shape SIZES[l-1:l+1]
RTOL = 1e-6       # values that the student's code and the reference both compute in float64
BCE_RTOL = 1e-5   # leaves room for log(p + eps) instead of clipping p
# S_1 / S_10, layer 1's gradient sum over layer 10's, at the specified initialisation on the
# notebook's batch, measured for 1,000 seeds: sigmoid median 3.9e-6, 99th percentile 2.2e-4,
# largest 1.2e-2 (when p happens to equal the class frequency, S_10 is small too); tanh at least
# 0.12, relu at least 0.28. Thresholds with a margin on both sides:
SIGMOID_DECAY = 0.05    # the sigmoid's S_1 is below 1/20 of its S_10
OTHER_DECAY = 0.02      # tanh's and relu's S_1 are above 1/50 of their S_10


def random_params(rng, gain=1.5) -> dict:
    """Weights N(0, gain^2 / fan_in) and biases N(0, 0.1^2): outputs well inside (0, 1)."""
    params = {}
    for l in range(1, 11):
        n_in, n_out = SIZES[l - 1], SIZES[l]
        params[f"layer{l}_W"] = rng.normal(0, gain / np.sqrt(n_in), (n_in, n_out))
        params[f"layer{l}_b"] = rng.normal(0, 0.1, (1, n_out))
    return params


def random_batch(rng, public):
    n = 12 if public else int(rng.integers(5, 60))
    x = rng.normal(size=(n, 2))
    y = rng.permutation(np.arange(n) % 2).reshape(n, 1).astype(float)     # both classes
    return x, y


def _first_difference(got, expected) -> tuple:
    i = int(np.argmax(np.abs(got - expected) / (np.abs(got) + np.abs(expected) + 1e-300)))
    return i, got.flat[i], expected.flat[i]


# -- deep_network ---------------------------------------------------------------------------------
def _specified_shapes() -> dict:
    shapes = {}
    for l in range(1, 11):
        shapes[f"layer{l}_W"] = (SIZES[l - 1], SIZES[l])
        shapes[f"layer{l}_b"] = (1, SIZES[l])
    return shapes


@pytest.mark.task("deep_network")
def test_parameters_are_named_and_shaped_as_specified(submission):
    expected = _specified_shapes()
    for activation in ACTIVATIONS:
        got = submission.probe("parameters", activation=activation)
        missing = [name for name in expected if name not in got]
        extra = sorted(set(got) - set(expected))
        assert not missing, (f"DeepNetwork({activation!r}) has no parameter {', '.join(missing)}; "
                             f"its parameters are {', '.join(got) or 'none'}")
        assert not extra, (f"DeepNetwork({activation!r}) has parameters that the network does not "
                           f"specify: {', '.join(extra)}")
        for name, shape in expected.items():
            assert tuple(got[name]) == shape, (
                f"DeepNetwork({activation!r}): {name} has shape {tuple(got[name])}, expected {shape} "
                f"(2 inputs, 9 hidden layers of 20 units, 1 output)")


@pytest.mark.task("deep_network")
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_forward_gives_the_probabilities_of_the_specified_network(submission, rng, public,
                                                                  metrics, activation):
    params = random_params(rng)
    x, _ = random_batch(rng, public)
    got = submission.probe("forward", activation=activation, params=params, x=x)
    assert got.shape == (len(x), 1), (
        f"DeepNetwork({activation!r}).forward(x) for x of shape {x.shape} must return shape "
        f"({len(x)}, 1), one probability per row; it returned shape {got.shape}"
        + shape_located(got.shape, (len(x), 1)))
    expected = ref.probabilities(activation, params, x)
    mistakes = ref.misconceptions.probabilities(activation, params, x)
    error = metrics[f"max_rel_error_{activation}"] = rel_error(got, expected)
    i, value, right = _first_difference(got, expected)
    assert error < RTOL, (
        f"DeepNetwork({activation!r}).forward(x): row {i} gives {value:.6g}, the network with these "
        f"weights gives p = {right:.6g}" + misconception(got, expected, mistakes, within(RTOL)))


# -- bce_loss -------------------------------------------------------------------------------------
def _bce_reply(submission, p, y, part):
    """The value (a float) or the gradient that the student's bce_loss(p, y) gives (`part`)."""
    reply = submission.probe("bce", p=p, y=y)
    assert reply["is_node"], (
        f"bce_loss must return a dp Node computed with dp operations (so that gradients flow back "
        f"to p); it returned a {reply['type']}")
    if part == "grad":      # the probe gives one only for a loss of one number
        return reply["grad"]
    value = reply["value"]
    assert value.size == 1, (
        f"bce_loss must return one number, the mean over the examples; for p of shape {p.shape} it "
        f"returned shape {value.shape}")
    return float(value.reshape(()))


@pytest.mark.task("bce_loss")
def test_loss_value_is_the_mean_binary_cross_entropy(submission, rng, public, metrics):
    _, y = random_batch(rng, public)
    p = rng.uniform(0.02, 0.98, y.shape)
    value = _bce_reply(submission, p, y, "value")
    expected, _ = ref.bce(p, y)
    mistakes = ref.misconceptions.bce(p, y)
    error = metrics["max_rel_error"] = rel_error(value, expected)
    assert error < BCE_RTOL, (
        f"bce_loss(p, y) for {len(y)} examples is {value:.6g}, the binary cross-entropy is "
        f"{expected:.6g}" + misconception(value, expected, mistakes, within(BCE_RTOL), part=0))


@pytest.mark.task("bce_loss")
def test_loss_gradient_flows_back_to_the_probabilities(submission, rng, public, metrics):
    _, y = random_batch(rng, public)
    p = rng.uniform(0.02, 0.98, y.shape)
    grad = _bce_reply(submission, p, y, "grad")
    _, expected = ref.bce(p, y)
    mistakes = ref.misconceptions.bce(p, y)
    assert grad is not None and grad.shape == p.shape, (
        "bce_loss(p, y) does not depend on p through dp operations (no gradient reaches p); "
        "compute it from the Node p with .log(), * and .mean()")
    error = metrics["max_rel_error_grad"] = rel_error(grad, expected)
    i, value, right = _first_difference(grad, expected)
    assert error < BCE_RTOL, (
        f"the gradient of bce_loss(p, y) with respect to p[{i}] is {value:.6g}, expected "
        f"(-y/p + (1 - y)/(1 - p)) / n = {right:.6g}"
        + misconception(grad, expected, mistakes, within(BCE_RTOL), part=1))


NOT_CLIPPED = diagnosed("p_not_clipped", "p is not clipped into [EPS, 1 - EPS] before the "
                        "logarithms: at p = 0 or 1, log 0 is -inf and 0 * log 0 is nan")


@pytest.mark.task("bce_loss")
def test_loss_is_finite_when_a_prediction_is_exactly_right(submission):
    p = np.array([[0.0], [1.0], [0.3], [0.8]])
    y = np.array([[0.0], [1.0], [0.0], [1.0]])
    value, grad = _bce_reply(submission, p, y, "value"), _bce_reply(submission, p, y, "grad")
    expected, _ = ref.bce(p, y)
    assert np.isfinite(value) and abs(value - expected) < 1e-5, (
        f"bce_loss(p, y) with p = {p.ravel().tolist()} and y = {y.ravel().tolist()} is {value:.6g}, "
        f"expected {expected:.6g}" + ("" if np.isfinite(value) else NOT_CLIPPED))
    assert grad is not None, f"bce_loss at p = {p.ravel().tolist()} gives no gradient for p"
    assert np.all(np.isfinite(grad)), (
        f"the gradient of bce_loss at p = {p.ravel().tolist()} is not finite: {grad}{NOT_CLIPPED}"
        f" (with dp.maximum and dp.minimum)")


# -- gradient_sums --------------------------------------------------------------------------------
@pytest.mark.task("gradient_sums")
def test_gradient_sums_are_the_sums_of_absolute_weight_gradients(submission, rng, public, metrics):
    # on a stack of ten linear layers (the probe's LayerStack): any Model with weights layer<l>_W
    params = random_params(rng, gain=1.0)
    x, y = random_batch(rng, public)
    got = submission.probe("gradient_sums", params=params, x=x, y=y)
    assert got.shape == (10,), (
        f"gradient_sums must return 10 values, one per weight layer; it returned shape {got.shape}"
        f"{shape_located(got.shape, (10,))}")
    expected = ref.gradient_sums("identity", params, x, y)
    mistakes = ref.misconceptions.gradient_sums("identity", params, x, y)
    error = metrics["max_rel_error"] = rel_error(got, expected)
    i, value, right = _first_difference(got, expected)
    assert error < RTOL, (
        f"gradient_sums on a network of 10 linear layers and {len(y)} examples: layer {i + 1} "
        f"value {value:.6g} differs from the true sum of |dL/dW| {right:.6g}"
        + misconception(got, expected, mistakes, within(RTOL)))


# -- vanishing_plot -------------------------------------------------------------------------------
def _gradient_plot(data) -> tuple:
    """(axes, {activation: line}) of the plot: an axes with lines labelled sigmoid, tanh and relu."""
    candidates = []
    for ax in data["axes"]:
        lines = {}
        for line in ax["lines"]:
            lines.setdefault(line["label"].strip().lower(), line)
        if all(name in lines for name in ACTIVATIONS):
            candidates.append((ax, {name: lines[name] for name in ACTIVATIONS}))
    labels = sorted({line["label"] for ax in data["axes"] for line in ax["lines"]
                     if not line["label"].startswith("_")})
    assert candidates, (
        "no plot with three lines labelled 'sigmoid', 'tanh' and 'relu' was found "
        + (f"(the labelled lines are: {', '.join(labels)}); " if labels else "(no labelled lines); ")
        + "draw with ax.plot(..., label=name) on the axes `ax` of `fig`")
    for ax, lines in candidates:
        if all(len(line["y"]) == 10 for line in lines.values()):
            return ax, lines
    ax, lines = candidates[0]
    raise AssertionError("each line must have 10 values, one per layer; yours have "
                         + ", ".join(f"{name} {len(line['y'])}" for name, line in lines.items()))


def dp_gradient_sums(activation, params, x, y) -> np.ndarray:
    """S_l = sum |dL/dW_l|, l = 1..10, of the network that `params` (a student's own weights)
    make with the hidden `activation`, by dp: a_l = h_{l-1} W_l + b_l, h_l = act(a_l) for
    l < 10, L = dp.binary_cross_entropy(a_10, y), the mean binary cross-entropy of
    p = sigmoid(a_10), from the logits."""
    leaves = {name: Node(value, name) for name, value in params.items()}
    grads = dp.binary_cross_entropy(dp_logits(activation, leaves, x), y).grad(1)
    return np.array([float(np.sum(np.abs(grads[f"layer{l}_W"]))) for l in range(1, 11)])


def dp_logits(activation, leaves, x) -> Node:
    """a_10 of the specified network with the parameters `leaves` ({name: Node}), by dp."""
    h = Node(x)
    for l in range(1, 11):
        h = h.dot(leaves[f"layer{l}_W"]) + leaves[f"layer{l}_b"]
        h = getattr(h, activation)() if l < 10 else h
    return h


@references.misconception("dp_gradient_sums", "the true sums in reverse order: layer 1 comes first")
def dp_gradient_sums_reversed(activation, params, x, y) -> np.ndarray:
    return dp_gradient_sums(activation, params, x, y)[::-1]


def _true_sums(data, names=ACTIVATIONS) -> dict:
    """{activation: the true gradient sums of nets[activation] on (x_plot, y_plot)}, for the
    activations `names` (a check reads only the networks it grades)."""
    nets, kind = data["nets"], data["nets_type"]
    assert nets is not None, (
        f"`nets` must be a dict of the three networks of the plot, nets = {{'sigmoid': ..., "
        f"'tanh': ..., 'relu': ...}}; it is {'not defined' if kind == 'NoneType' else 'a ' + kind}")
    for name in names:
        assert name in nets, f"nets has no network {name!r} (keys must be 'sigmoid', 'tanh', 'relu')"
        missing = [f"layer{l}_W" for l in range(1, 11) if f"layer{l}_W" not in nets[name]]
        assert not missing, f"nets[{name!r}] has no parameter {', '.join(missing)}"
        for l in range(1, 11):      # any widths (the lines are those of the student's own
            W, b = nets[name][f"layer{l}_W"], nets[name].get(f"layer{l}_b")   # nets), no broadcasting
            assert W.ndim == 2 and b is not None and b.shape == (1, W.shape[1]), (
                f"nets[{name!r}]: layer{l}_b has shape {getattr(b, 'shape', None)}, expected "
                f"(1, {W.shape[1] if W.ndim == 2 else 'n_out'}) for layer{l}_W of shape {W.shape}")
    assert data["x_plot"] is not None and data["y_plot"] is not None, (
        "x_plot and y_plot, the batch of the plot, must be defined")
    x, y = data["x_plot"], data["y_plot"].reshape(-1, 1)
    try:
        return {name: dp_gradient_sums(name, nets[name], x, y) for name in names}
    except (ValueError, KeyError) as error:
        raise AssertionError(f"the networks in nets cannot be evaluated on x_plot of shape "
                             f"{x.shape}: {error}") from None


@pytest.mark.task("vanishing_plot")
def test_plot_has_a_line_per_activation_over_layers_1_to_10(submission):
    _, lines = _gradient_plot(submission.probe("plot"))
    for name, line in lines.items():
        assert np.array_equal(line["x"], np.arange(1, 11)), (
            f"{name} line: the x values must be the layer numbers 1 to 10, not "
            f"{np.round(line['x'], 3).tolist()}" + located(line["x"], np.arange(1, 11)))


NOT_LOG = diagnosed("gradient_plot_not_logarithmic",
                    "the y axis is not logarithmic, where the sums span orders of magnitude "
                    "(ax.set_yscale('log'))")


@pytest.mark.task("vanishing_plot")
def test_plot_has_a_logarithmic_y_axis_and_axis_labels(submission):
    ax, _ = _gradient_plot(submission.probe("plot"))
    assert ax["yscale"] == "log", f"the y axis is {ax['yscale']}{NOT_LOG}"
    assert ax["xlabel"].strip() and ax["ylabel"].strip(), (
        "label both axes (ax.set_xlabel, ax.set_ylabel): the layer, and the sum of |dL/dW|")


@pytest.mark.task("vanishing_plot")
def test_nets_are_deep_networks_that_compute_the_specified_network(submission, metrics):
    """The plot's networks are the notebook's experiment: DeepNetwork objects whose own forward
    pass, on x_plot, gives the probabilities of the specified network (layers 1-9 with the
    activation of their key, a sigmoid output) with their parameters; so their layers, the
    activation of each and its output are those that deep_network specifies. Their widths are
    those of the student's DeepNetwork, whose own task judges them."""
    data = submission.probe("plot")
    _true_sums(data)             # nets, with ten layers of weights and biases, and the batch
    own = submission.probe("networks")
    x = data["x_plot"]
    for name in ACTIVATIONS:
        reply = own.get(name)
        assert reply is not None and reply["is_deep_network"], (
            f"nets[{name!r}] is a {reply['type'] if reply else 'something else'}, not a "
            f"DeepNetwork: the plot shows the notebook's networks, nets = {{name: DeepNetwork(name) "
            f"for name in ACTIVATIONS}}, as deep_network specifies them")
        with dp.no_grad():
            expected = dp_logits(name, {k: Node(v) for k, v in data["nets"][name].items()},
                                 x).sigmoid().value
        got = reply["p"]
        assert got.shape == expected.shape, (
            f"nets[{name!r}].forward(x_plot) has shape {got.shape}, expected {expected.shape}"
            + shape_located(got.shape, expected.shape))
        error = metrics[f"max_rel_error_forward_{name}"] = rel_error(got, expected)
        i, value, right = _first_difference(got, expected)
        assert error < RTOL, (
            f"nets[{name!r}].forward(x_plot): row {i} gives p = {value:.6g}, but the specified "
            f"network (layers 1-9 {name}, a sigmoid output) with nets[{name!r}]'s parameters gives "
            f"{right:.6g}: the plot shows networks that compute what deep_network specifies "
            f"(if deep_network fails, fix that first)")


@pytest.mark.task("vanishing_plot")
def test_lines_show_the_true_gradient_sums_of_nets(submission, metrics):
    data = submission.probe("plot")
    _, lines = _gradient_plot(data)
    truth = _true_sums(data)
    worst = 0.0
    for name, line in lines.items():
        got = line["y"]
        error = rel_error(got, truth[name])
        worst = metrics["max_rel_error"] = max(worst, error)
        if error < RTOL:
            continue
        i, value, right = _first_difference(got, truth[name])
        swapped = [other for other in ACTIVATIONS if other != name
                   and within(RTOL)(got, truth[other])]
        x, y = data["x_plot"], data["y_plot"].reshape(-1, 1)
        hint = misconception(got, truth[name], references.variants(
            dp_gradient_sums, name, data["nets"][name], x, y), within(RTOL))
        raise AssertionError(
            f"{name} line: layer {i + 1} value {value:.3g} differs from the true gradient sum "
            f"{right:.3g} of nets[{name!r}] on (x_plot, y_plot)"
            + (f"; your line shows the true sums of nets[{swapped[0]!r}]: are the labels swapped?"
               if swapped else hint or
               "; plot gradient_sums(nets[name], x_plot, y_plot) of the network as specified (if "
               "deep_network or bce_loss fails, fix that first), and leave the networks in nets "
               "unchanged after plotting (train copies)"))


@pytest.mark.task("vanishing_plot")
def test_sigmoid_gradient_vanishes_towards_the_input(submission, metrics):
    sums = _true_sums(submission.probe("plot"), ["sigmoid"])["sigmoid"]
    ratio = metrics["sigmoid_decay"] = float(sums[0] / sums[-1])
    assert ratio < SIGMOID_DECAY, (
        f"in nets['sigmoid'], layer 1's gradient sum is {ratio:.2g} times layer 10's; at the "
        f"specified initialisation (Xavier uniform, zero biases) it is orders of magnitude "
        f"smaller (less than {SIGMOID_DECAY:g} times): create the networks as DeepNetwork(name), "
        f"untrained")


@pytest.mark.task("vanishing_plot")
def test_tanh_and_relu_gradients_do_not_vanish(submission, metrics):
    truth = _true_sums(submission.probe("plot"), ["tanh", "relu"])
    for name in ("tanh", "relu"):
        ratio = metrics[f"{name}_decay"] = float(truth[name][0] / truth[name][-1])
        assert ratio > OTHER_DECAY, (
            f"in nets[{name!r}], layer 1's gradient sum is only {ratio:.2g} times layer 10's; "
            f"at the specified initialisation (Xavier uniform, zero biases) it is more than "
            f"{OTHER_DECAY:g} times: create the networks as DeepNetwork(name), untrained")


# -- sigmoid_slope: a question graded automatically (autograder/grading/answers.py) ----------------
@pytest.mark.task("sigmoid_slope")
def test_the_largest_slope_of_the_sigmoid(submission, public):
    answers.judge(submission, public, "answer_sigmoid_slope", ref.sigmoid_slope_answer)
