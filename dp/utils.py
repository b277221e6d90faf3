"""Helpers: one-hot labels, mini-batches, and numerical gradient checking."""
from __future__ import annotations

import numpy as np

from .init import generator
from .node import Node, no_grad


def one_hot(labels, num_classes=None, dtype=np.float64) -> np.ndarray:
    """Integer labels (n,) -> an (n, num_classes) matrix with a single 1 per row."""
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.dtype.kind not in "iu" and not np.all(labels == labels.round()):
        raise ValueError(f"one_hot: expected a 1-d array of integer labels, got shape "
                         f"{labels.shape} and dtype {labels.dtype}")
    labels = labels.astype(np.intp)
    num_classes = int(labels.max()) + 1 if num_classes is None else num_classes
    if labels.size and (labels.min() < 0 or labels.max() >= num_classes):
        raise ValueError(f"one_hot: labels must lie in [0, {num_classes}), "
                         f"found {labels.min()}..{labels.max()}")
    out = np.zeros((labels.size, num_classes), dtype)
    out[np.arange(labels.size), labels] = 1
    return out


def batches(x, y, batch_size, seed=None, shuffle=True, repeat=False):
    """Yield ``(x_batch, y_batch)`` covering the data once per epoch, in a random order each
    epoch (reproducible with `seed`, else drawn from dp's generator); forever if `repeat`."""
    x, y = np.asarray(x), np.asarray(y)
    if len(x) != len(y):
        raise ValueError(f"batches: x has {len(x)} examples but y has {len(y)}")
    if batch_size < 1:
        raise ValueError(f"batches: batch_size must be at least 1, not {batch_size}")
    rng = np.random.default_rng(seed) if seed is not None else generator()
    while True:
        order = rng.permutation(len(x)) if shuffle else np.arange(len(x))
        for start in range(0, len(x), batch_size):
            index = order[start:start + batch_size]
            yield x[index], y[index]
        if not repeat:
            return


class GradcheckError(AssertionError):
    """The analytic gradient disagrees with central differences."""


def relative_error(a, b, floor=1.0) -> np.ndarray:
    """|a - b| / max(|a| + |b|, floor): relative for large values, absolute below `floor`."""
    return np.abs(a - b) / np.maximum(np.abs(a) + np.abs(b), floor)


def numerical_gradient(f, x: np.ndarray, eps=1e-6) -> np.ndarray:
    """d f / d x by central differences, (f(x + eps) - f(x - eps)) / (2 eps), for a scalar f."""
    x = x.astype(np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        saved = x[i]
        x[i] = saved + eps
        up = f(x)
        x[i] = saved - eps
        down = f(x)
        x[i] = saved
        grad[i] = (up - down) / (2 * eps)
    return grad


def gradcheck(fn, *inputs, eps=1e-6, tol=1e-6, floor=1.0, seed=0) -> float:
    """Check ``fn(*nodes) -> Node`` against central differences in float64.

    The output is contracted with a random upstream gradient u (not all ones, which would let a
    wrong `sum` backward pass), and every input element is checked. Returns the largest
    relative error (see `relative_error`); raises `GradcheckError` naming the input, the
    element, the expected and the received value if it exceeds `tol`.
    """
    arrays = [np.array(x, dtype=np.float64) for x in inputs]
    leaves = [Node(a, f"input{i}") for i, a in enumerate(arrays)]
    out = fn(*leaves)
    u = np.random.default_rng(seed).standard_normal(out.shape)
    analytic = (out * u).sum().grad(1)
    worst = 0.0
    for i, a in enumerate(arrays):
        def contracted(x, i=i):
            with no_grad():
                return float(np.sum(fn(*[Node(x if j == i else b) for j, b in enumerate(arrays)])
                                    .value * u))
        expected = numerical_gradient(contracted, a.copy(), eps)
        received = analytic.get(f"input{i}", np.zeros_like(a))
        error = relative_error(received, expected, floor)
        if error.size and error.max() > tol:
            at = np.unravel_index(error.argmax(), error.shape)
            raise GradcheckError(f"gradcheck: input {i} (shape {a.shape}), element {at}: "
                                 f"expected {expected[at]:.8g}, received {received[at]:.8g} "
                                 f"(relative error {error.max():.2g} > {tol:g})")
        worst = max(worst, float(error.max(initial=0.0)))
    return worst
