"""References of 07 dropout (the grader's side only): the scale of the units that inverted
dropout keeps.

Inverted dropout drops each unit with probability p and scales the kept ones by 1 / (1 - p):
y = m * x / (1 - p) with m ~ Bernoulli(1 - p), so that E[y] = x in training, and evaluation
needs no rescaling (y = x). Its gradient carries the same mask and scale: dL/dx = G * m / (1 - p).
"""
from __future__ import annotations

from . import misconception


def kept_scale(p: float) -> float:
    """y / x of a kept unit: 1 / (1 - p), the inverse of the keep probability."""
    return 1 / (1 - p)


def dropped_fraction(p: float) -> float:
    """The expected fraction of the units dropped: p."""
    return p


# -- known mistakes (autograder/references/__init__.py: `misconception`) ----------------------------
@misconception("kept_scale", "the kept units are not rescaled: divide by the keep probability 1 - p")
def kept_not_rescaled(p):
    return 1.0


@misconception("kept_scale", "the kept units are divided by p; divide by 1 - p, the keep "
                             "probability")
def kept_divided_by_p(p):
    return 1 / p


@misconception("kept_scale", "the kept units are multiplied by 1 - p; divide by it instead")
def kept_times_keep_probability(p):
    return 1 - p


@misconception("dropped_fraction", "units kept with probability p, i.e. dropped with probability "
                                   "1 - p: p is the probability to drop a unit")
def p_is_the_keep_probability(p):
    return 1 - p


# -- keys of the questions graded automatically (autograder/grading/answers.py) ---------------------
def forgot_eval_answer() -> dict:
    """The test loss measured in training mode: higher (b), the predictions of random thinned
    networks, whose noise adds to the squared error."""
    return {"right": "b", "why": {
        "a": "the mean of each unit is preserved, but the squared error of a noisy prediction is "
             "its bias squared plus its variance: the noise of the random masks adds to the loss",
        "c": "dropout regularises the training; at test time its random masks only add noise "
             "to the predictions, and so to their squared error"}}
