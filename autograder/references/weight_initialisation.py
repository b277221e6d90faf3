"""References of 05 weight initialisation (the grader's side only): the variances that Xavier
and He specify, the activation statistics of a network, and the known mistakes that the messages
name.

Xavier/Glorot keeps the variance of the activations and of the gradients alike in both directions
for tanh-like units: Var(W) = 2 / (fan_in + fan_out). He keeps it for ReLU units, which zero half
of their inputs: Var(W) = 2 / fan_in. A uniform U(-a, a) has variance a^2 / 3, so a = sqrt(3 Var(W));
a normal has standard deviation sqrt(Var(W)).

The activation statistics of a network W_1 .. W_L on an input batch x: h_0 = x,
h_l = act(h_{l-1} W_l), and per layer l = 1..L the mean and the standard deviation of all the
entries of h_l.
"""
from __future__ import annotations

import numpy as np

from . import misconception, variants

SCALES = {      # what each initialiser draws with: a normal's standard deviation, a uniform's bound
    "xavier_normal": lambda fan_in, fan_out: np.sqrt(2 / (fan_in + fan_out)),
    "xavier_uniform": lambda fan_in, fan_out: np.sqrt(6 / (fan_in + fan_out)),
    "he_normal": lambda fan_in, fan_out: np.sqrt(2 / fan_in),
    "he_uniform": lambda fan_in, fan_out: np.sqrt(6 / fan_in),
}
ACT = {"linear": lambda z: z, "tanh": np.tanh, "relu": lambda z: np.maximum(z, 0.0)}


def variance(initialiser: str, fan_in: int, fan_out: int) -> float:
    """Var(W) of `initialiser` ("xavier_uniform", "he_normal", ...) for these fans: its scale
    squared, and a third of it for a uniform U(-a, a)."""
    scale = SCALES[initialiser](fan_in, fan_out)
    return float(scale ** 2 / 3 if initialiser.endswith("uniform") else scale ** 2)


# -- known mistakes of the variance (autograder/references/__init__.py: `misconception`) -----------
UNIFORM, NORMAL = ("xavier_uniform", "he_uniform"), ("xavier_normal", "he_normal")
FORMULAS = {   # id: (why, Var(W) as a function of the fans)
    "variance_2_over_fan_out": ("2 / fan_out: fan_out where fan_in belongs", lambda i, o: 2 / o),
    "variance_1_over_fan_in": ("1 / fan_in: the factor 2 is missing", lambda i, o: 1 / i),
    "variance_1_over_fan_out": ("1 / fan_out", lambda i, o: 1 / o),
    "variance_1_over_fan_sum": ("1 / (fan_in + fan_out): the factor 2 is missing",
                                lambda i, o: 1 / (i + o)),
    "variance_of_xavier": ("2 / (fan_in + fan_out), the variance of Xavier",
                           lambda i, o: variance("xavier_normal", i, o)),
    "variance_of_he": ("2 / fan_in, the variance of He", lambda i, o: variance("he_normal", i, o)),
}
for _id, (_why, _formula) in FORMULAS.items():
    misconception("variance", _why, name=_id)(
        lambda initialiser, fan_in, fan_out, formula=_formula: formula(fan_in, fan_out))


@misconception("variance", "Var(W)^2: the variance was passed where the standard deviation "
                           "belongs (rng.normal's scale is the standard deviation)")
def variance_squared(initialiser, fan_in, fan_out):
    return variance(initialiser, fan_in, fan_out) ** 2


@misconception("variance", "Var(W) / 3: U(-a, a) has variance a^2 / 3, so a = sqrt(3 Var(W)), not "
                           "sqrt(Var(W))", initialiser=UNIFORM)
def variance_of_the_bound_as_std(initialiser, fan_in, fan_out):
    return variance(initialiser, fan_in, fan_out) / 3


def variance_mistakes(initialiser: str, fan_in: int, fan_out: int) -> list:
    """[[id, why, the variance it gives]] of the known mistakes (the right one may be among
    them; a check never names it)."""
    return variants(variance, initialiser, fan_in, fan_out)


def _activations(weights, activation, x) -> list:
    """[h_1, ..., h_L] with h_l = act(h_{l-1} W_l), h_0 = x."""
    hs, h = [], np.asarray(x, dtype=float)
    for W in weights:
        h = ACT[activation](h @ W)
        hs.append(h)
    return hs


def statistics(weights, activation, x) -> tuple:
    """(means, stds) of all entries of each h_l, l = 1..L."""
    hs = _activations(weights, activation, x)
    return np.array([h.mean() for h in hs]), np.array([h.std() for h in hs])


# -- known mistakes of the statistics: (means, stds) as `statistics` gives them ------------------
def _stats(hs, std=np.std) -> tuple:
    return np.array([h.mean() for h in hs]), np.array([std(h) for h in hs])


@misconception("statistics", "the statistics of the pre-activations h_{l-1} W_l, before the "
                             "activation")
def statistics_before_the_activation(weights, activation, x):
    hs = [np.asarray(x, dtype=float)] + _activations(weights, activation, x)[:-1]
    return _stats([h @ W for h, W in zip(hs, weights)])


@misconception("statistics", "the statistics of h_0, ..., h_{L-1}: the input instead of the last "
                             "layer")
def statistics_from_the_input(weights, activation, x):
    return _stats([np.asarray(x, dtype=float)] + _activations(weights, activation, x)[:-1])


@misconception("statistics", "variances, not standard deviations")
def statistics_variances(weights, activation, x):
    return _stats(_activations(weights, activation, x), np.var)


@misconception("statistics", "standard deviations with ddof=1")
def statistics_unbiased_stds(weights, activation, x):
    return _stats(_activations(weights, activation, x), lambda h: h.std(ddof=1))


@misconception("statistics", "the standard deviation of each unit over the examples (axis 0), "
                             "averaged")
def statistics_stds_per_unit(weights, activation, x):
    return _stats(_activations(weights, activation, x), lambda h: h.std(axis=0).mean())


@misconception("statistics", "the standard deviation of each example over the units (axis 1), "
                             "averaged")
def statistics_stds_per_example(weights, activation, x):
    return _stats(_activations(weights, activation, x), lambda h: h.std(axis=1).mean())
