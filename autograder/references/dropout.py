"""References of 07 dropout (the grader's side only): the scale of the units that inverted
dropout keeps.

Inverted dropout drops each unit with probability p and scales the kept ones by 1 / (1 - p):
y = m * x / (1 - p) with m ~ Bernoulli(1 - p), so that E[y] = x in training, and evaluation
needs no rescaling (y = x). Its gradient carries the same mask and scale: dL/dx = G * m / (1 - p).
"""
from __future__ import annotations


def kept_scale(p: float) -> float:
    """y / x of a kept unit: 1 / (1 - p), the inverse of the keep probability."""
    return 1 / (1 - p)
