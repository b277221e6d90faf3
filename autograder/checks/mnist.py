"""Checks of 09 MNIST: accuracy on test digits held by the grader, and the error analysis on the
validation digits (its confusion matrix and worst-classified digits, recomputed from the trained
network by the same trusted forward pass when grading).

The digits are the grader's `dp.data.mnist().x_test`: the grading sandbox holds the training
digits only (autograder/sandbox/seal.py), so no submission has them. In the self-check they are the
notebook's own test digits (the student has no others).

How the accuracy is measured:
- **on the parameters**, when the notebook's `net` is a standard stack of dp layers (Dense layers
  with an activation the grader runs, Dropout, BatchNorm; widths chaining 784 -> ... -> 10, as
  probes/mnist.py `stack_problem` says): when grading, the grader runs the trained parameters
  through its own forward pass (references/mnist.py), so a `predict` that answers without the
  network earns no more than the network does; `predict` must give the network's digits, else
  the lower of the two accuracies counts. A reply that claims a stack which is not one fails.
  The forward pass on the student's trained parameters is grader-only, since no public case can
  hold it: the self-check takes the digits of the network's own forward pass instead (and says
  "when graded").
- **on predict(x)** otherwise: no dp network, one that is not a standard stack, or one whose
  forward does not compute the stack of its layers (its digits differ from the grader's). The
  message and metrics["graded_on"] say which, and why.

Credit rises linearly from 0 at the floor to all points at the bar (course.toml, per data
source: `accuracy` and `accuracy_floor` for the 5,000-digit subset, `accuracy_full` and
`accuracy_full_floor` for the full MNIST; calibrated by benchmarks/mnist_sweep.py).
"""
import numpy as np
import pytest

import dp
from autograder import references
from autograder.grading import training
from autograder.grading.checking import (assert_accuracy, assert_log_scale_and_labels,  # noqa: F401
                                         bar_and_floor, credit, digit_labels as _labels,
                                         below_the_bar, diagnosed, misconception,
                                         notebook_split,
                                         on_parameters)
from autograder.probes.mnist import stack_problem
from autograder.references import NotPublic

ref = references.of(__name__)
AGREEMENT = 0.99         # the share of digits on which two ways of predicting must agree (float32
                         # parameters in a float64 forward pass may break a near tie)
SAMPLE = 1000            # digits on which grading compares forward's digits with the grader's


# where a network below the bar went wrong, named when it is a fact of the code (grading/training.py)
TRAINING = {name: diagnosed(name, why) for name, why in training.WHY.items()}


@pytest.fixture(scope="module")
def digits():
    return dp.data.mnist(download=False, verbose=False)


@pytest.mark.task("mnist_accuracy")
def test_accuracy_on_held_out_digits(submission, digits, assignment, metrics, rng, public):
    order = rng.permutation(len(digits.y_test))          # an order the notebook never saw
    images, labels = digits.x_test[order], digits.y_test[order]
    predicted = _labels(submission.probe("predict", images=images), labels)
    sample = images if public else images[:SAMPLE]      # the full MNIST's 10,000 need not go twice
    reply = submission.probe("network", images=sample)
    layers, why_not = reply.get("layers"), reply.get("not_standard")
    if layers is not None:
        problem = stack_problem(layers)      # the probe sends none such: a forged reply
        assert problem is None, f"the network that the notebook sent is not a standard stack: {problem}"
        # the self-check has no trusted forward pass on the student's parameters: it uses
        # forward's own digits; grading runs the parameters and compares forward's with them
        network = reply["digits"] if public else ref.network_digits(layers, images)
        differ = float(np.mean(reply["digits"] != network[:len(sample)]))
        if differ > 1 - AGREEMENT:
            layers, why_not = None, (f"net.forward does not compute the stack of its layers: their "
                                     f"digits differ on {differ:.0%} of the images")
    if layers is None:
        how = f"graded on predict(x), since {why_not}"
        metrics["graded_on"], accuracy = how[10:], float(np.mean(predicted == labels))
    else:
        metrics["graded_on"] = "parameters" + (" (when graded)" if public else "")
        accuracy, how = on_parameters(network, predicted, labels, public, AGREEMENT,
                                      lambda: ref.misconceptions.network_digits(layers, images))
        how += below_the_bar(submission, digits, assignment, network, labels, public,
                             lambda images: ref.network_digits(layers, images), layers, TRAINING)
    assert_accuracy(accuracy, how, len(labels), assignment, digits.source, metrics)


# -- error_analysis -------------------------------------------------------------------------------
WORST = 8               # the worst-classified validation digits the notebook shows
PROBABILITY_RTOL = 1e-6  # ties and float32 parameters: a digit may swap places with an equal one


def validation_split(digits) -> tuple:
    """The notebook's validation split (its given first cell): (x_val, y_val)."""
    validation = notebook_split(digits)[0]
    return digits.x_train[validation], digits.y_train[validation]


def confusion_of(labels, predicted) -> np.ndarray:
    """Row i, column j: how many digits labelled i were read as j."""
    confusion = np.zeros((10, 10))
    np.add.at(confusion, (np.asarray(labels, dtype=int), np.asarray(predicted, dtype=int)), 1)
    return confusion


@references.misconception("confusion_of", "rows and columns swapped: row i must count the digits "
                                          "labelled i, column j those read as j")
def confusion_transposed(labels, predicted) -> np.ndarray:
    return confusion_of(labels, predicted).T


def _analysis(submission, digits, public) -> tuple:
    """(reply, y_val, probabilities): the notebook's error analysis, its validation labels, and
    its network's probabilities on the validation digits (the grader's forward pass on the
    trained parameters when grading a standard stack; the network's own otherwise)."""
    x_val, y_val = validation_split(digits)
    reply = submission.probe("error_analysis")
    same = (reply["y_val"].shape == y_val.shape and np.array_equal(reply["y_val"], y_val)
            and np.allclose(reply["x_val_sums"], x_val.sum(axis=1)))
    assert same, ("x_val and y_val are not the notebook's validation split: keep the split of its "
                  "first cell, on which the grader recomputes your error analysis")
    probabilities = reply["probabilities"]
    assert probabilities is not None and probabilities.shape == (len(y_val), 10), (
        "the error analysis needs your dp network `net` (net.eval().forward(x_val) gives the logits)")
    if not public:
        network = submission.probe("network", images=x_val[:1])
        if network.get("layers") is not None and stack_problem(network["layers"]) is None:
            probabilities = ref.network_probabilities(network["layers"], x_val)
    return reply, y_val, probabilities


@pytest.mark.task("error_analysis")
def test_confusion_matrix_is_your_networks_on_the_validation_digits(submission, digits, public, metrics):
    reply, y_val, probabilities = _analysis(submission, digits, public)
    got = reply["confusion"]
    assert got is not None, "`confusion` must be a (10, 10) array of counts"
    digits = probabilities.argmax(axis=1)
    expected = confusion_of(y_val, digits)
    moved = float(np.abs(got - expected).sum() / 2)
    metrics["confusion_digits_misplaced"] = moved
    if moved > (1 - AGREEMENT) * len(y_val):
        i, j = np.unravel_index(np.argmax(np.abs(got - expected)), got.shape)
        raise AssertionError(
            f"confusion[{i}, {j}] is {got[i, j]:g}, but {expected[i, j]:g} of the {len(y_val)} "
            f"validation digits labelled {i} are read as {j} by your network ({moved:g} digits "
            f"counted elsewhere)"
            + (misconception(got, expected, references.variants(confusion_of, y_val, digits),
                             lambda a, b: np.abs(a - b).sum() / 2 <= (1 - AGREEMENT) * len(y_val))
               or "; row i: the label, column j: the network's most probable digit"))


def ranks_located(chosen, key, what: str) -> str:
    """'. The first difference is in the ranking ...': where the indices `chosen` (the k that
    `key` ranks lowest, lowest first) sit in the ranking of all by `key` (1: the lowest; ties
    share the best rank), said as one run or the first few."""
    ranks = np.sort(np.searchsorted(np.sort(key), key[chosen], side="left") + 1)
    if np.array_equal(ranks, np.arange(ranks[0], ranks[0] + len(ranks))):
        said = f"ranks {ranks[0]} to {ranks[-1]}"
    else:
        said = "ranks " + ", ".join(map(str, ranks[:5])) + (", ..." if len(ranks) > 5 else "")
    return (f". The first difference is in the ranking by {what}, 1 the lowest of {len(key)}: "
            f"yours are at {said}, where 1 to {len(ranks)} belong")


@pytest.mark.task("error_analysis")
def test_worst_digits_have_the_lowest_probability_of_their_label(submission, digits, public):
    reply, y_val, probabilities = _analysis(submission, digits, public)
    worst = reply["worst"]
    true = probabilities[np.arange(len(y_val)), y_val.astype(int)]
    assert worst is not None and worst.shape == (WORST,) and np.all(worst == np.round(worst)) \
        and np.all((worst >= 0) & (worst < len(y_val))) and len(set(worst)) == WORST, (
        f"`worst` must hold {WORST} different indices into x_val (0 to {len(y_val) - 1}); it is "
        f"{None if worst is None else worst.tolist()}"
        + (". The first difference: these are the lowest probabilities p[i, y_val[i]] "
           "themselves, sorted; their indices belong here (np.argsort, not np.sort)"
           if worst is not None and worst.shape == (WORST,)
           and np.allclose(worst, np.sort(true)[:WORST], rtol=PROBABILITY_RTOL) else ""))
    worst = worst.astype(int)
    bar = np.sort(true)[WORST - 1] * (1 + PROBABILITY_RTOL) + 1e-12
    chosen = true[worst]
    assert np.all(chosen <= bar), (
        f"x_val[{worst[np.argmax(chosen)]}] is not among the {WORST} worst-classified digits: your "
        f"network gives its label {y_val[worst[np.argmax(chosen)]]:g} the probability "
        f"{chosen.max():.3g}, but {WORST} digits have {np.sort(true)[WORST - 1]:.3g} or less "
        f"(rank by the probability of the true label, p[i, y_val[i]], lowest first)"
        + ranks_located(worst, true, "p[i, y_val[i]]"))
    assert np.all(np.diff(chosen) >= -PROBABILITY_RTOL * np.abs(chosen[1:]) - 1e-12), (
        f"`worst` must be ordered worst first: the probabilities of the true labels are "
        f"{np.round(chosen, 4).tolist()}")


# -- the width x learning-rate sweep ----------------------------------------------------------------
# Checked by its data: the grid the notebook asks for, of validation accuracies, each the one that
# the network the notebook describes reaches when trained as it says (the grader trains the six
# networks again, once per process: 0.3 s on the 5,000-digit subset), and a plot that shows that
# grid.
WIDTHS, LEARNING_RATES = (16, 64), (1e-3, 3e-3, 1e-2)      # the notebook's given grid
SWEEP_STEPS = 100
SAME_ACCURACY = 0.0075   # 3 of the subset's 400 validation digits: floating-point noise between the
                         # notebook's process and the grader's flips one or two
TRAINED = 0.5            # chance is 0.1; 100 Adam steps of the grid's best setting reach about 0.9


def _sweep_grid(reply) -> dict:
    """{(width, lr): accuracy} of the notebook's `sweep`, every cell of the given grid present."""
    rows = reply["sweep"]
    assert rows is not None and len(rows), (
        "`sweep` must be a dict {width: {learning rate: validation accuracy}}, e.g. sweep[16][1e-3]")
    grid = {(float(width), float(lr)): float(accuracy) for width, lr, accuracy in rows}
    for width in WIDTHS:
        for lr in LEARNING_RATES:
            assert (float(width), float(lr)) in grid, (
                f"sweep[{width}][{lr:g}] is missing: train every width of WIDTHS with every "
                f"learning rate of LEARNING_RATES, and record each validation accuracy")
    return grid


@pytest.mark.task("width_lr_sweep")
def test_sweep_holds_a_validation_accuracy_for_every_width_and_rate(submission):
    grid = _sweep_grid(submission.probe("sweep"))
    for (width, lr), accuracy in grid.items():
        assert np.isfinite(accuracy) and 0 <= accuracy <= 1, (
            f"sweep[{width:g}][{lr:g}] = {accuracy:g} is no accuracy: record the share of the "
            f"validation digits that the network classifies right, between 0 and 1")
    best = max(grid[(float(w), float(lr))] for w in WIDTHS for lr in LEARNING_RATES)
    assert best > TRAINED, (
        f"the best cell of the sweep is {best:.3g} (chance is 0.1): no setting learned; train "
        f"each network (its optimizer's train) before measuring it on x_val")


@pytest.mark.task("width_lr_sweep")
def test_sweep_is_what_its_networks_reach(submission, public):
    grid = _sweep_grid(submission.probe("sweep"))
    if public:
        raise NotPublic("the grader trains the sweep's six networks again when graded")
    for width, lr, expected in ref.sweep_accuracies(WIDTHS, LEARNING_RATES, SWEEP_STEPS):
        got = grid[(width, lr)]
        assert abs(got - expected) <= SAME_ACCURACY, (
            f"sweep[{width:g}][{lr:g}] is {got:.4g}, but OneHidden({width:g}) trained as the "
            f"notebook says reaches {expected:.4g} on the validation digits (the grader trained "
            f"it again): build each network right after dp.seed(0), train it with "
            f"dp.Adam(candidate, x_train, dp.one_hot(y_train, 10), lr=lr, batch_size=128, "
            f"seed=0) for SWEEP_STEPS steps, and measure that network on x_val. The first "
            f"difference is at sweep[{width:g}][{lr:g}].")


RATES_NOT_LOG = diagnosed("sweep_plot_not_logarithmic",
                         "the x axis of the sweep is not logarithmic, where the learning rates "
                         "are a factor of 3 apart (ax_sweep.set_xscale('log'))")


@pytest.mark.task("width_lr_sweep")
def test_sweep_plot_shows_the_grid(submission):
    reply = submission.probe("sweep")
    grid = _sweep_grid(reply)
    for ax in reply["axes"]:
        lines = {width: [line for line in ax["lines"] if str(width) in line["label"].split()]
                 for width in WIDTHS}
        if all(len(found) == 1 for found in lines.values()):
            break
    else:
        raise AssertionError(
            f"no plot with one line per width labelled {', '.join(f'width {w}' for w in WIDTHS)} "
            f"was found: draw ax_sweep.plot(LEARNING_RATES, accuracies, label=f'width {{width}}') "
            f"for each width")
    assert_log_scale_and_labels(ax, "x", "sweep", RATES_NOT_LOG,
                                "the learning rate, and the validation accuracy", "ax_sweep")
    for width, [line] in lines.items():
        expected = [grid[(float(width), float(lr))] for lr in LEARNING_RATES]
        shown = sorted(zip(line["x"].tolist(), line["y"].tolist()))
        assert len(shown) == len(LEARNING_RATES) and np.allclose(
            [x for x, _ in shown], LEARNING_RATES, rtol=1e-9) and np.allclose(
            [y for _, y in shown], expected, rtol=1e-9, atol=1e-12), (
            f"the line {line['label']!r} shows {shown}, but sweep[{width}] holds "
            f"{dict(zip(LEARNING_RATES, expected))}: plot the learning rates on x and the "
            f"validation accuracies of sweep[{width}] on y")
