"""Checks of 09 MNIST: accuracy on test digits held by the grader.

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
from autograder.grading.checking import (assert_accuracy, bar_and_floor, credit,  # noqa: F401
                                         digit_labels as _labels, on_parameters)
from autograder.probes.mnist import stack_problem

ref = references.of(__name__)
AGREEMENT = 0.99         # the share of digits on which two ways of predicting must agree (float32
                         # parameters in a float64 forward pass may break a near tie)
SAMPLE = 1000            # digits on which grading compares forward's digits with the grader's


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
    assert_accuracy(accuracy, how, len(labels), assignment, digits.source, metrics)
