"""Checks of 14 convolutional networks: conv2d and maxpool2d with their gradients, the trained CNN's
accuracy on digits held by the grader, and the plot of the first layer's filters.

- conv2d_grad, maxpool2d_grad: the student's op against dp's own (references/
  convolutional_networks.py, the grader's side only, replayed from public cases in the student
  bundle), differentiated for a random upstream gradient (not all ones), on shapes, strides,
  paddings and channels drawn here when grading (kernels not square, strides that do not divide
  the padded size, windows that overlap).
- cnn_accuracy: the notebook's trained `net`, read as data by the probe `network` (its layers'
  kinds, sizes and parameters), must be a CNN (probes `stack_problem`: a convolution that combines
  neighbouring pixels, then dense layers); when grading, the grader runs it through its own
  forward pass on its test digits (`dp.data.mnist().x_test`, which the sandbox does not have) and
  `predict` must give the network's digits, else the lower of the two accuracies counts. The
  self-check takes the network's own digits (no public case can hold the grader's forward pass on
  a student's parameters). Credit rises linearly from the floor to the bar (course.toml;
  calibrated by benchmarks/cnn_sweep.py).
- filter_plot: `plot_filters(net)` returns a matplotlib figure with one image per filter of net's
  first Conv layer, each image that filter's weights (up to a positive scale and a shift: a
  colour map shows them alike).
"""
import numpy as np
import pytest

import dp
from autograder import references
from autograder.grading import answers, training
from autograder.grading.checking import (assert_accuracy, below_the_bar, diagnosed, digit_labels,
                                         floored_rel_error, floored_rel_errors, leaf_gradient,
                                         misconception, node_reply, on_parameters, within,
                                         wrong_shape)
from autograder.probes.convolutional_networks import stack_problem

ref = references.of(__name__)

TOL = 1e-9          # float64 on both sides, the same sums in another order
AGREEMENT = 0.99    # the share of digits on which two ways of predicting must agree (as 09)
SAMPLE = 1000       # digits on which grading compares forward's digits with the grader's


# -- inputs ---------------------------------------------------------------------------------------
def conv_case(rng, public, i) -> tuple:
    """x (N, C, H, W), filters w (F, C, KH, KW) far from symmetric, a bias b (F,), stride,
    padding, and an upstream gradient g of the output's shape. The self-check's cases are fixed:
    a stride that leaves rows of the padded input over, whose last windows reach the padding on
    the right (a padding of the top and left only fails), and one with windows that overlap."""
    if public:
        (n, c, h, w_), (f, kh, kw), stride, padding = [((2, 2, 6, 6), (3, 3, 2), 2, 1),
                                                       ((1, 3, 6, 5), (2, 2, 3), 1, 0)][i % 2]
    else:
        n, c, f = (int(v) for v in rng.integers(1, 4, 3))
        kh, kw = (int(v) for v in rng.integers(1, 5, 2))
        stride, padding = int(rng.integers(1, 4)), int(rng.integers(0, 3))
        h, w_ = (int(rng.integers(max(1, k - 2 * padding), k + 7)) for k in (kh, kw))
    w = rng.normal(size=(f, c, kh, kw))
    while kh * kw > 1 and np.max(np.abs(w - w[:, :, ::-1, ::-1])) < 0.5:
        w = rng.normal(size=(f, c, kh, kw))
    oh, ow = (h + 2 * padding - kh) // stride + 1, (w_ + 2 * padding - kw) // stride + 1
    return (rng.normal(size=(n, c, h, w_)), w, rng.normal(size=f), stride, padding,
            rng.normal(size=(n, f, oh, ow)))


def pool_case(rng, public, i, default_stride=False) -> tuple:
    """x (N, C, H, W) without ties, a window size, a stride (windows that overlap when it is
    smaller than the size; the size itself, maxpool2d's default, with `default_stride`), and an
    upstream gradient g of the output's shape."""
    if public:
        (n, c, h, w), size, stride = [((2, 2, 4, 6), 2, 2), ((1, 2, 7, 7), 3, 2)][i % 2]
    else:
        n, c = (int(v) for v in rng.integers(1, 4, 2))
        size = int(rng.integers(2, 4))
        stride = int(rng.integers(1, size + 1))
        h, w = (int(v) for v in rng.integers(size, size + 7, 2))
    stride = size if default_stride else stride
    oh, ow = (h - size) // stride + 1, (w - size) // stride + 1
    return rng.normal(size=(n, c, h, w)), size, stride, rng.normal(size=(n, c, oh, ow))


def cases(rng, public, draw) -> list:
    return [draw(rng, public, i) for i in range(2 if public else 4)]


# -- comparing ------------------------------------------------------------------------------------
def compare(got, expected, what, context, metrics, mistakes=(), part=None):
    """Assert that the array `got` is `expected`; a wrong shape or value is named, and the known
    mistake it equals (`mistakes`: what ref.misconceptions gave, whose `part` `expected` is)."""
    assert not isinstance(got, dict), f"{context}{what} must be an array, not a {got['not_array']}"
    assert got.shape == expected.shape, (
        f"{context}{what} has shape {got.shape}, expected {expected.shape}"
        f"{wrong_shape(got, expected, mistakes, within(TOL, floored_rel_error), part)}")
    errors = floored_rel_errors(got, expected)
    error = float(np.max(errors, initial=0.0))
    metrics["max_rel_error"] = max(error, metrics.get("max_rel_error", 0.0))
    if error > TOL:
        i = tuple(int(n) for n in np.unravel_index(int(np.argmax(errors)), expected.shape))
        raise AssertionError(f"{context}{what}[{', '.join(map(str, i))}] is {got[i]:.6g}, expected "
                             f"{expected[i]:.6g} (relative error {error:.1e})"
                             + misconception(got, expected, mistakes, within(TOL, floored_rel_error),
                                             part))


# -- conv2d_grad ----------------------------------------------------------------------------------
def conv_context(x, w, stride, padding) -> str:
    return (f"for x of shape {x.shape}, filters w of shape {w.shape}, stride {stride} and padding "
            f"{padding}: ")


def check_conv(submission, rng, public, metrics, part, what):
    for x, w, b, stride, padding, g in cases(rng, public, conv_case):
        out = submission.probe("conv2d", x=x, w=w, b=b, stride=stride, padding=padding, g=g)
        context = conv_context(x, w, stride, padding)
        node_reply(out, f"conv2d(x {x.shape}, w {w.shape}, stride={stride}, padding={padding})",
                  g.shape)
        expected = ref.conv(x, w, b, stride, padding, g)
        got = out["value"] if part == "value" else leaf_gradient(out, part, "conv2d")
        compare(got, expected[part], what, context if part == "value" else
                context + "for L = sum(g * y), ", metrics,
                ref.misconceptions.conv(x, w, b, stride, padding, g), part)


@pytest.mark.task("conv2d_grad")
def test_value_is_the_cross_correlation_with_stride_padding_and_channels(submission, rng, public,
                                                                        metrics):
    check_conv(submission, rng, public, metrics, "value", "conv2d(x, w, b)")


@pytest.mark.task("conv2d_grad")
def test_input_gradient_adds_up_the_windows(submission, rng, public, metrics):
    check_conv(submission, rng, public, metrics, "x", "dL/dx")


@pytest.mark.task("conv2d_grad")
def test_weight_gradient_sums_over_the_images(submission, rng, public, metrics):
    check_conv(submission, rng, public, metrics, "w", "dL/dw")


@pytest.mark.task("conv2d_grad")
def test_bias_gradient_sums_over_images_and_positions(submission, rng, public, metrics):
    check_conv(submission, rng, public, metrics, "b", "dL/db")


# -- maxpool2d_grad -------------------------------------------------------------------------------
def check_pool(submission, rng, public, metrics, part, what):
    for x, size, stride, g in cases(rng, public, pool_case):
        out = submission.probe("maxpool2d", x=x, size=size, stride=stride, g=g)
        context = f"for x of shape {x.shape}, windows of {size}x{size} and stride {stride}: "
        node_reply(out, f"maxpool2d(x {x.shape}, {size}, {stride})", g.shape)
        got = out["value"] if part == "value" else leaf_gradient(out, "x", "maxpool2d")
        compare(got, ref.pool(x, size, stride, g)[part], what,
                context if part == "value" else context + "for L = sum(g * y), ", metrics,
                ref.misconceptions.pool(x, size, stride, g), part)


@pytest.mark.task("maxpool2d_grad")
def test_value_is_the_maximum_of_each_window(submission, rng, public, metrics):
    check_pool(submission, rng, public, metrics, "value", "maxpool2d(x, size, stride)")


@pytest.mark.task("maxpool2d_grad")
def test_gradient_goes_to_the_maximum_of_each_window(submission, rng, public, metrics):
    check_pool(submission, rng, public, metrics, "x", "dL/dx")


@pytest.mark.task("maxpool2d_grad")
def test_windows_are_their_size_apart_by_default(submission, rng, public, metrics):
    for x, size, stride, g in cases(rng, public, lambda *case: pool_case(*case, default_stride=True)):
        out = submission.probe("maxpool2d", x=x, size=size, stride=None, g=g)
        node_reply(out, f"maxpool2d(x {x.shape}, {size})", g.shape)
        compare(out["value"], ref.pool(x, size, stride, g)["value"], "maxpool2d(x, size)",
                f"for x of shape {x.shape} and windows of {size}x{size}, the stride not given "
                f"(its default is the window size, {size}: windows side by side): ", metrics,
                ref.misconceptions.pool(x, size, stride, g), "value")


# -- cnn_accuracy ---------------------------------------------------------------------------------
# where a network below the bar went wrong, named when it is a fact of the code (grading/training.py)
TRAINING = {name: diagnosed(name, why) for name, why in training.WHY.items()}


@pytest.fixture(scope="module")
def digits():
    return dp.data.mnist(download=False, verbose=False)


@pytest.mark.task("cnn_accuracy")
def test_accuracy_on_held_out_digits(submission, digits, assignment, metrics, rng, public):
    order = rng.permutation(len(digits.y_test))          # an order the notebook never saw
    images, labels = digits.x_test[order], digits.y_test[order]
    predicted = digit_labels(submission.probe("predict", images=images), labels)
    reply = submission.probe("network", images=images if public else images[:SAMPLE])
    assert "layers" in reply, (
        f"the grader runs your trained network itself, and cannot: {reply['not_standard']}. "
        f"Build net as CNN(...) of the notebook's layers, with a convolution")
    layers = reply["layers"]
    problem = stack_problem(layers)          # the probe sends none such: a forged reply
    assert problem is None, f"the network that the notebook sent is not a CNN the grader runs: {problem}"
    # the self-check has no trusted forward pass on the student's parameters: it uses forward's
    # own digits; grading runs the parameters and compares forward's with them
    network = reply["digits"] if public else ref.network_digits(layers, images)
    differ = float(np.mean(reply["digits"] != network[:len(reply["digits"])]))
    assert differ <= 1 - AGREEMENT, (
        f"net.forward does not compute the stack of its layers: their digits differ on "
        f"{differ:.0%} of the images; keep CNN's forward a pass through its layers in order")
    accuracy, how = on_parameters(network, predicted, labels, public, AGREEMENT,
                                  lambda: ref.misconceptions.network_digits(layers, images))
    how += below_the_bar(submission, digits, assignment, network, labels, public,
                         lambda images: ref.network_digits(layers, images), layers, TRAINING)
    assert_accuracy(accuracy, how, len(labels), assignment, digits.source, metrics)


# -- filter_plot ----------------------------------------------------------------------------------
SHOWN_AS_IS = 1e-6   # the residual of an image fitted by a w + c (a > 0), relative to its spread


def shows(image, filter_) -> bool:
    """Whether `image` is `filter_` (KH, KW) as a colour map shows it: a filter_ + c with a > 0
    (rescaled and shifted, e.g. to [0, 1]), to SHOWN_AS_IS."""
    if isinstance(image, dict) or image.shape != filter_.shape or not np.all(np.isfinite(image)):
        return False
    if np.ptp(filter_) == 0:
        return np.ptp(image) == 0
    basis = np.stack([filter_.ravel(), np.ones(filter_.size)], axis=1)
    coefficients = np.linalg.lstsq(basis, image.ravel(), rcond=None)[0]
    residual = image.ravel() - basis @ coefficients
    return coefficients[0] > 0 and np.linalg.norm(residual) <= SHOWN_AS_IS * np.linalg.norm(image - image.mean())


@pytest.mark.task("filter_plot")
def test_the_figure_shows_every_first_layer_filter(submission, metrics):
    out = submission.probe("filters")
    assert "no_conv" not in out, f"plot_filters(net) has nothing to show: {out.get('no_conv')}"
    assert out["type"] == "Figure", (
        f"plot_filters(net) must return the matplotlib figure (plt.subplots gives it), not a "
        f"{out['type']}")
    weights, images = out["W"], out["images"]
    assert np.all(np.isfinite(weights)), (
        "net's first Conv layer has NaN or infinite weights: its training diverged (a smaller "
        "learning rate?)")
    filters = weights[:, 0]                        # the first layer reads one channel: the digit
    metrics["filters"], metrics["images"] = len(filters), int(out["count"])
    assert out["count"] == len(filters), (
        f"net's first Conv layer has {len(filters)} filters; the figure shows {out['count']} "
        f"images: one per filter (ax.imshow(W[f, 0]) on an axes of its own)")
    unmatched = [f for f in range(len(filters)) if not any(shows(i, filters[f]) for i in images)]
    if unmatched:
        f = unmatched[0]
        hint = ("it is shown transposed" if any(shows(i, filters[f].T) for i in images) else
                "it is shown with its sign flipped" if any(shows(i, -filters[f]) for i in images)
                else "show W[f, 0], the KxK weights of the filter on the digit's one channel")
        raise AssertionError(f"no image of the figure shows filter {f} of net's first Conv layer "
                             f"({len(unmatched)} of {len(filters)} filters are missing): {hint}")


# -- receptive_field: a question graded automatically (autograder/grading/answers.py) --------------
@pytest.mark.task("receptive_field")
def test_the_receptive_field_after_two_convolutions_and_poolings(submission, public):
    answers.judge(submission, public, "answer_receptive_field", ref.receptive_field_answer)
