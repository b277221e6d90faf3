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

import numpy as np

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
