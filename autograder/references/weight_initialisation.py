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

VARIANCES = {   # Var(W) as a function of the fans
    "xavier": lambda fan_in, fan_out: 2 / (fan_in + fan_out),
    "he": lambda fan_in, fan_out: 2 / fan_in,
}
ACT = {"linear": lambda z: z, "tanh": np.tanh, "relu": lambda z: np.maximum(z, 0.0)}


def variance(initialiser: str, fan_in: int, fan_out: int) -> float:
    """Var(W) of `initialiser` ("xavier_uniform", "he_normal", ...) for these fans."""
    return VARIANCES[initialiser.split("_")[0]](fan_in, fan_out)


def variance_mistakes(initialiser: str, fan_in: int, fan_out: int) -> dict:
    """{what is wrong: the variance it gives} (the right one among them; the check skips it)."""
    wanted = variance(initialiser, fan_in, fan_out)
    candidates = {
        "2 / fan_out: fan_out where fan_in belongs": 2 / fan_out,
        "1 / fan_in: the factor 2 is missing": 1 / fan_in,
        "1 / fan_out": 1 / fan_out,
        "1 / (fan_in + fan_out): the factor 2 is missing": 1 / (fan_in + fan_out),
        "2 / (fan_in + fan_out), the variance of Xavier": VARIANCES["xavier"](fan_in, fan_out),
        "2 / fan_in, the variance of He": VARIANCES["he"](fan_in, fan_out),
        f"({wanted:.3g})^2: the variance was passed where the standard deviation belongs "
        f"(rng.normal's scale is the standard deviation)": wanted ** 2,
    }
    if initialiser.endswith("uniform"):
        candidates["Var(W) / 3: U(-a, a) has variance a^2 / 3, so a = sqrt(3 Var(W)), "
                   "not sqrt(Var(W))"] = wanted / 3
    return candidates


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


def statistics_mistakes(weights, activation, x, which: str) -> dict:
    """{what is wrong: the `which` ("means" or "stds") it gives}."""
    hs = _activations(weights, activation, x)
    x = np.asarray(x, dtype=float)
    zs = [(x if l == 0 else hs[l - 1]) @ W for l, W in enumerate(weights)]
    stat = np.mean if which == "means" else np.std
    candidates = {
        "the statistics of the pre-activations h_{l-1} W_l, before the activation": [stat(z) for z in zs],
        "the statistics of h_0, ..., h_{L-1}: the input instead of the last layer":
            [stat(h) for h in [x] + hs[:-1]],
    }
    if which == "stds":
        candidates.update({
            "variances, not standard deviations": [h.var() for h in hs],
            "standard deviations with ddof=1": [h.std(ddof=1) for h in hs],
            "the standard deviation of each unit over the examples (axis 0), averaged":
                [h.std(axis=0).mean() for h in hs],
            "the standard deviation of each example over the units (axis 1), averaged":
                [h.std(axis=1).mean() for h in hs],
        })
    return {text: [float(v) for v in values] for text, values in candidates.items()}
