"""References of 09 MNIST, the grader's side only (never in the student bundle).

A standard stack of dp layers, in evaluation mode, maps images x (n, 784) to scores (n, 10):

    dense:      h <- act(h W + b),   W (n_in, n_out), b (1, n_out), act one of ACTIVATIONS
    dropout:    h <- h               (inverted dropout is the identity in evaluation)
    batchnorm:  h <- gamma (h - running_mean) / sqrt(running_var + eps) + beta

and the predicted digit of an image is the index of its largest score (a final softmax, being
monotonic, changes none).

`network_digits` and `network_probabilities` are the references that take a student's reply as argument: the trusted forward
pass on the student's trained parameters (their kinds and shapes checked by the check before the
call). Such a call cannot be recorded for every student, so the check makes it only when grading.
"""
from __future__ import annotations

import functools

import numpy as np

import dp

from . import misconception

# The checks call these references only when grading, never with the public seed, so a release
# records no public cases for 09 and need not train its solution to learn that
# (autograder/grading/public_cases.py; tests/test_mutants.py checks that no public call is made).
PUBLIC_CASES = False


def _sigmoid(a):
    return 0.5 * (1 + np.tanh(a / 2))        # = 1 / (1 + e^-a), without overflow


ACTIVATIONS = {"linear": lambda a: a, "relu": lambda a: np.maximum(a, 0), "sigmoid": _sigmoid,
               "tanh": np.tanh, "softmax": lambda a: a}   # argmax(softmax(a)) = argmax(a)


def network_digits(layers, images) -> np.ndarray:
    """The digits (n,) that the stack `layers` (a list of {"kind": ...} dicts, as the probe
    `network` sends them) predicts for `images` (n, 784), by the forward pass above in float64."""
    return _scores(layers, images).argmax(axis=1)


def network_probabilities(layers, images) -> np.ndarray:
    """The probabilities (n, 10), the softmax of the stack's scores, for `images` (n, 784): the
    trusted forward pass behind the error analysis (its argmax is network_digits)."""
    scores = _scores(layers, images)
    with np.errstate(all="ignore"):
        shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
        return np.nan_to_num(shifted / shifted.sum(axis=1, keepdims=True))


@misconception("network_digits", "the least likely digit of each image (argmin): the prediction is "
                                 "the index of the largest score (argmax)")
def least_likely_digits(layers, images) -> np.ndarray:
    return _scores(layers, images).argmin(axis=1)


def _scores(layers, images) -> np.ndarray:
    """The scores (n, 10) of the stack `layers` for `images`, NaN as -inf (never the largest)."""
    h = np.asarray(images, dtype=float)
    with np.errstate(all="ignore"):           # trained weights may overflow: their digits are wrong
        for layer in layers:
            if layer["kind"] == "dense":
                h = ACTIVATIONS[layer["activation"]](h @ layer["W"] + layer["b"])
            elif layer["kind"] == "batchnorm":
                h = layer["gamma"] * (h - layer["mean"]) / np.sqrt(layer["var"] + layer["eps"]) \
                    + layer["beta"]
        return np.where(np.isnan(h), -np.inf, h)


def sweep_accuracies(widths, learning_rates, steps) -> list:
    """[[width, lr, accuracy], ...]: the validation accuracy of every network of 09's sweep,
    trained as the notebook says, on the notebook's split of the training digits (the grader's
    dp.data.mnist(), the sandbox's too): the validation digits are the first tenth of them in the
    order np.random.default_rng(0).permutation, the training digits the rest. Each network is
    784-width-10 (dp's ReLU_Layer, then Linear_Layer, made right after dp.seed(0)), trained by
    dp.Adam(net, x_train, one_hot(y_train), lr=lr, batch_size=128, seed=0) for `steps` steps.
    The same for every submission: computed once per process (about 0.3 s)."""
    return [list(row) for row in _sweep(tuple(widths), tuple(learning_rates), int(steps))]


class _OneHidden(dp.Model):
    """The sweep's network, as the notebook gives it: 784-width-10, ReLU then linear."""

    def __init__(self, width):
        super().__init__()
        self.hidden = self.ReLU_Layer(784, width, "hidden")
        self.out = self.Linear_Layer(width, 10, "out")

    def forward(self, x):
        return self.out(self.hidden(x))

    def loss(self, x, y):
        return dp.cross_entropy(self.forward(x), y)


@functools.lru_cache(maxsize=2)
def _sweep(widths: tuple, learning_rates: tuple, steps: int) -> tuple:
    data = dp.data.mnist(download=False, verbose=False)
    order = np.random.default_rng(0).permutation(len(data.x_train))
    n_val = len(order) // 10
    x_val, y_val = data.x_train[order[:n_val]], data.y_train[order[:n_val]]
    x_train, y_train = data.x_train[order[n_val:]], data.y_train[order[n_val:]]
    rows = []
    for width in widths:
        for lr in learning_rates:
            dp.seed(0)
            net = _OneHidden(width)
            dp.Adam(net, x_train, dp.one_hot(y_train, 10), lr=lr, batch_size=128,
                    seed=0).train(steps=steps, print_each=0)
            with dp.no_grad():
                scores = net.eval().forward(x_val).value
            rows.append((float(width), float(lr), float(np.mean(scores.argmax(axis=1) == y_val))))
    return tuple(rows)
