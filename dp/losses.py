"""Losses. Each returns a scalar Node: the mean over the examples (rows) unless
``reduction="sum"``.

Binary cross-entropy and the squared error are built from Node ops (so their gradients come from
the ops' definitions). Cross-entropy from logits, the loss of every classifier, is one op of its
own, made as every op is (`custom_op`), with the fused gradient (softmax(z) - y) / n: one node
instead of five, and one expression on the way back instead of five ops' gradients.
"""
from __future__ import annotations

import numpy as np

from .node import Node, _state, concatenate, custom_op


def _check_reduction(reduction: str) -> None:
    if reduction not in ("mean", "sum"):
        raise ValueError(f"loss: reduction must be 'mean' or 'sum', not {reduction!r}")


def _reduce(per_example: Node, reduction: str) -> Node:
    _check_reduction(reduction)
    return per_example.mean() if reduction == "mean" else per_example.sum()


def _as_node(x):
    return x if isinstance(x, Node) else Node(x)


def cross_entropy(logits, y, reduction="mean") -> Node:
    """Softmax cross-entropy from logits z (n rows of classes) and targets y of z's shape,
    one-hot (or soft), as one op:

        L = (1/n) sum_i -sum_k y_ik log softmax(z_i)_k       (n = 1 for reduction="sum")
        dL/dz = (softmax(z) * sum_k y_k - y) / n             = (softmax(z) - y) / n for one-hot y
        dL/dy = -log softmax(z) / n

    Stable for any logits: log softmax(z) = (z - max z) - log sum_k e^(z_k - max z).
    """
    logits, y = _as_node(logits), _as_node(y)
    if y.shape != logits.shape:
        raise ValueError(f"cross_entropy: targets {y.shape} must be one-hot with the logits' "
                         f"shape {logits.shape} (see dp.one_hot)")
    _check_reduction(reduction)
    z, target = logits.value, y.value
    shifted = z - z.max(axis=-1, keepdims=True)
    exp = np.exp(shifted)
    total = exp.sum(axis=-1, keepdims=True)
    log_p = shifted - np.log(total)
    rows = z.size // z.shape[-1] if reduction == "mean" and z.ndim else 1
    loss = -(target * log_p).sum(keepdims=_state["compat_2019"]) / rows

    def to_logits(g):
        scale = g / rows
        p = exp / total
        return scale * (p * target.sum(axis=-1, keepdims=True) - target)
    return custom_op("cross_entropy", loss, (logits, to_logits),
                     (y, lambda g: (g / -rows) * log_p))


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
