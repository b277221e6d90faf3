"""Losses, built from Node ops (so their gradients come from the ops' definitions).

Each returns a scalar Node: the mean over the examples (rows) unless ``reduction="sum"``.
"""
from __future__ import annotations

import numpy as np

from .node import Node, concatenate


def _reduce(per_example: Node, reduction: str) -> Node:
    if reduction == "mean":
        return per_example.mean()
    if reduction == "sum":
        return per_example.sum()
    raise ValueError(f"loss: reduction must be 'mean' or 'sum', not {reduction!r}")


def _as_node(x):
    return x if isinstance(x, Node) else Node(x)


def cross_entropy(logits, y, reduction="mean") -> Node:
    """Softmax cross-entropy from logits: -sum_k y_k log softmax(z)_k per row.

    `y` holds one-hot (or soft) targets with the shape of `logits`. Stable for any logits,
    because it uses log_softmax instead of log(softmax(z)).
    """
    logits, y = _as_node(logits), _as_node(y)
    if y.shape != logits.shape:
        raise ValueError(f"cross_entropy: targets {y.shape} must be one-hot with the logits' "
                         f"shape {logits.shape} (see dp.one_hot)")
    return _reduce(-(y * logits.log_softmax()).sum(axis=-1), reduction)


def binary_cross_entropy(logits, y, reduction="mean") -> Node:
    """Logistic loss from logits z and targets y in [0, 1]:

        -(y log sigma(z) + (1 - y) log(1 - sigma(z))) = log(1 + e^z) - y z

    log(1 + e^z) = -log_softmax([0, z])[0] never overflows, and its gradient is sigma(z)
    everywhere (a max(z, 0) + log(1 + e^-|z|) form would get the kink at z = 0 wrong).
    """
    z, y = _as_node(logits), _as_node(y)
    column = z.reshape(z.shape + (1,))
    pair = concatenate([Node(np.zeros(column.shape, z.dtype)), column], axis=-1)
    softplus = -pair.log_softmax()[..., 0]
    return _reduce(softplus - z * y, reduction)


def mean_squared_error(prediction, y, reduction="mean") -> Node:
    """(prediction - y)^2, averaged over all elements (or summed)."""
    return _reduce((_as_node(prediction) - y).square(), reduction)


mse = mean_squared_error
