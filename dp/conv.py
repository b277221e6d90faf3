"""Images and statistics: 2-d convolution and pooling over NCHW batches, and the statistics
nodes of the computational-network chapter (mean, inverse standard deviation, per-dimension
normalisation).

Every op sees its input through *windows*: ``_windows(x, (KH, KW), stride, padding)`` is a view
of shape (N, C, OH, OW, KH, KW) whose element [n, c, i, j, p, q] is the padded input at
(n, c, i*SH + p, j*SW + q). The forward pass reduces over the window axes; the backward pass
gives a gradient per window element, and `_fold` adds those back to the input positions they
came from (overlapping windows add up). Only the KH * KW kernel offsets are looped over in
Python, never the pixels.

Output size along an axis: OH = (H + 2 P - KH) // S + 1, as in torch.nn.functional.
"""
from __future__ import annotations

import numpy as np

from .node import Node, ShapeError, op


def _pair(value, what, op_name, least):
    pair = (value, value) if np.isscalar(value) else tuple(value)
    if len(pair) != 2 or any(int(v) != v or v < least for v in pair):
        raise ShapeError(f"{op_name}: {what} must be an integer >= {least} or a pair of them, "
                         f"not {value!r}")
    return tuple(int(v) for v in pair)


def _windows(x, kernel, stride, padding, op_name, fill=0.0):
    """The (N, C, OH, OW, KH, KW) view of `x` (N, C, H, W) padded with `fill` (a read-only view)."""
    if x.ndim != 4:
        raise ShapeError(f"{op_name}: the input must be 4-d (N, C, H, W), not {x.shape}")
    (ph, pw), (sh, sw) = padding, stride
    if ph or pw:
        x = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=fill)
    if x.shape[2] < kernel[0] or x.shape[3] < kernel[1]:
        raise ShapeError(f"{op_name}: window {kernel} is larger than the padded input "
                         f"{x.shape[2:]} (input {x.shape}, padding {padding})")
    view = np.lib.stride_tricks.sliding_window_view(x, kernel, axis=(2, 3))
    return view[:, :, ::sh, ::sw]


def _fold(piece, x_shape, kernel, stride, padding, dtype):
    """The adjoint of `_windows`: ``piece(p, q)`` is the gradient (N, C, OH, OW) of every window's
    element (p, q); add each onto the input position it was read from, and drop the padding."""
    (ph, pw), (sh, sw) = padding, stride
    g = np.zeros((x_shape[0], x_shape[1], x_shape[2] + 2 * ph, x_shape[3] + 2 * pw), dtype)
    for p, q in np.ndindex(*kernel):   # KH * KW strided adds, each over every window at once
        part = piece(p, q)
        g[:, :, p:p + sh * part.shape[2]:sh, q:q + sw * part.shape[3]:sw] += part
    return g[:, :, ph:ph + x_shape[2], pw:pw + x_shape[3]]


def _node(x):
    return x if isinstance(x, Node) else Node(x)


@op("conv2d")
def conv2d(x, weight, bias=None, stride=1, padding=0) -> Node:
    """2-d cross-correlation (no kernel flip), as torch.nn.functional.conv2d:

        y[n, f, i, j] = b[f] + sum_{c, p, q} w[f, c, p, q] x_pad[n, c, i S + p, j S + q]

    x (N, C, H, W), weight (F, C, KH, KW), bias (F,) or None -> y (N, F, OH, OW).
    Computed as matrix products (im2col): for each image n, its windows as the columns of
    X_n (C KH KW, OH OW), the kernels as the rows of W (F, C KH KW): Y_n = W X_n. Backward, with
    G_n (F, OH OW) the upstream gradient of image n:
    d/dW = sum_n G_n X_n^T,  d/db = sum of G over n, i, j,  d/dX_n = W^T G_n folded onto the pixels.
    """
    x, weight = _node(x), _node(weight)
    stride, padding = _pair(stride, "stride", "conv2d", 1), _pair(padding, "padding", "conv2d", 0)
    if weight.ndim != 4 or x.ndim != 4 or x.shape[1] != weight.shape[1]:
        raise ShapeError(f"conv2d: input {x.shape} with weight {weight.shape}: expected input "
                         f"(N, C, H, W) and weight (F, C, KH, KW) with the same C")
    f, c, kh, kw = weight.shape
    windows = _windows(x.value, (kh, kw), stride, padding, "conv2d")
    n, _, oh, ow = windows.shape[:4]
    columns = windows.transpose(0, 1, 4, 5, 2, 3).reshape(n, c * kh * kw, oh * ow)  # a copy
    kernels = weight.value.reshape(f, c * kh * kw)
    y = (kernels @ columns).reshape(n, f, oh, ow)

    def to_input(g):
        g_windows = (kernels.T @ g.reshape(n, f, oh * ow)).reshape(n, c, kh, kw, oh, ow)
        return _fold(lambda p, q: g_windows[:, :, p, q], x.shape, (kh, kw), stride, padding,
                     g.dtype)
    inputs = [(x, to_input),
              (weight, lambda g: (g.reshape(n, f, oh * ow) @ columns.transpose(0, 2, 1))
                                 .sum(axis=0).reshape(weight.shape))]
    if bias is not None:
        bias = _node(bias)
        if bias.shape != (f,):
            raise ShapeError(f"conv2d: bias {bias.shape} for weight {weight.shape}: expected ({f},)")
        y += bias.value[:, None, None]
        inputs.append((bias, lambda g: g.sum(axis=(0, 2, 3))))
    return Node._result(y, "conv2d", *inputs)


def _pool_arguments(op_name, size, stride, padding):
    kernel = _pair(size, "size", op_name, 1)
    stride = kernel if stride is None else _pair(stride, "stride", op_name, 1)
    padding = _pair(padding, "padding", op_name, 0)
    if padding[0] > kernel[0] // 2 or padding[1] > kernel[1] // 2:
        raise ShapeError(f"{op_name}: padding {padding} must be at most half the window {kernel}")
    return kernel, stride, padding


@op("maxpool2d")
def maxpool2d(x, size, stride=None, padding=0) -> Node:
    """Max over each KH x KW window (stride defaults to the window; padding counts as -inf), as
    torch.nn.functional.max_pool2d:  y[n, c, i, j] = max_{p, q} x_pad[n, c, i S + p, j S + q].
    d/dx = g at the first maximum of each window, 0 elsewhere (overlapping windows add up)."""
    x = _node(x)
    kernel, stride, padding = _pool_arguments("maxpool2d", size, stride, padding)
    windows = _windows(x.value, kernel, stride, padding, "maxpool2d", fill=-np.inf)
    out = windows[..., 0, 0].copy()
    for p, q in np.ndindex(*kernel):      # elementwise maxima of the KH * KW window elements
        np.maximum(out, windows[..., p, q], out=out)

    def to_input(g):
        unclaimed = np.ones(out.shape, bool)    # windows whose maximum has not been found yet

        def first_maximum(p, q):
            first = windows[..., p, q] == out
            first &= unclaimed
            np.logical_xor(unclaimed, first, out=unclaimed)
            return g * first
        return _fold(first_maximum, x.shape, kernel, stride, padding, g.dtype)
    return Node._result(out, "maxpool2d", (x, to_input))


@op("avgpool2d")
def avgpool2d(x, size, stride=None, padding=0) -> Node:
    """Mean over each KH x KW window (stride defaults to the window; padding counts as 0 and is
    included in the mean), as torch.nn.functional.avg_pool2d:
    y[n, c, i, j] = 1/(KH KW) sum_{p, q} x_pad[n, c, i S + p, j S + q].  d/dx = g / (KH KW),
    spread over each window."""
    x = _node(x)
    kernel, stride, padding = _pool_arguments("avgpool2d", size, stride, padding)
    windows = _windows(x.value, kernel, stride, padding, "avgpool2d")
    area = kernel[0] * kernel[1]

    def to_input(g):
        share = g / area
        return _fold(lambda p, q: share, x.shape, kernel, stride, padding, g.dtype)
    return Node._result(windows.mean(axis=(-2, -1)), "avgpool2d", (x, to_input))


# -- statistics nodes (the chapter's Mean, InvStdDev and PerDimMeanVarNorm) ------------------------
# The chapter's samples are columns; dp's are rows, so statistics run over axis 0 by default.
# Over a whole training set they are computed once and then held constant (`Statistics`); as
# graph nodes they are differentiable, so that a normalisation inside a network learns through them.
@op("inv_std_dev")
def inv_std_dev(x, axis=0, eps=0.0) -> Node:
    """s = 1 / sqrt(var + eps), var = mean((x - mu)^2) over `axis` (kept), mu the mean there.

    d s / d x_k = -s^3 (x_k - mu) / n  (n samples along the axis; the mean's own dependence on
    x_k drops out because sum_k (x_k - mu) = 0).
    """
    x = _node(x)
    mu = x.value.mean(axis=axis, keepdims=True)
    centred = x.value - mu
    s = 1.0 / np.sqrt((centred * centred).mean(axis=axis, keepdims=True) + eps)
    count = x.value.size // s.size
    return Node._result(s, "inv_std_dev", (x, lambda g: g * (-s ** 3) * centred / count))


@op("per_dim_mean_var_norm")
def per_dim_mean_var_norm(x, mean, inv_std) -> Node:
    """y = (x - m) * s, with m and s broadcast over the samples (CNTK's PerDimMeanVarNorm).

    d/dx = g s,  d/dm = -g s,  d/ds = g (x - m)  (each summed back over the broadcast axes).
    """
    x, mean, inv_std = _node(x), _node(mean), _node(inv_std)
    centred = x.value - mean.value
    return Node._result(centred * inv_std.value, "per_dim_mean_var_norm",
                        (x, lambda g: g * inv_std.value), (mean, lambda g: -g * inv_std.value),
                        (inv_std, lambda g: g * centred))


class Statistics:
    """The chapter's pre-computed Mean and InvStdDev: accumulated over a training set, one
    minibatch at a time, then fixed (constant nodes, no gradient)::

        stats = Statistics()
        for x_batch, _ in batches(x_train, y_train, 256):
            stats.add(x_batch)
        x = per_dim_mean_var_norm(x_batch, stats.mean(), stats.inv_std_dev())

    After k samples: mean = (1/k) sum x,  second = (1/k) sum x^2  (both updated as running means
    over batches), and inv_std_dev = 1 / sqrt(second - mean^2 + eps).
    """

    def __init__(self, axis=0, eps=1e-8):
        self.axis, self.eps, self.count = axis, eps, 0
        self._mean = self._second = None

    def add(self, x) -> Statistics:
        x = x.value if isinstance(x, Node) else np.asarray(x, dtype=np.float64)
        batch = x.shape[self.axis]
        if self._mean is not None and x.mean(axis=self.axis, keepdims=True).shape != self._mean.shape:
            raise ShapeError(f"Statistics.add: a batch of shape {x.shape} after batches whose "
                             f"statistics have shape {self._mean.shape}")
        self.count += batch
        weight = batch / self.count          # running means: the new batch's share of all samples
        mean = x.mean(axis=self.axis, keepdims=True)
        second = (x * x).mean(axis=self.axis, keepdims=True)
        if self._mean is None:
            self._mean, self._second = mean, second
        else:
            self._mean = self._mean + weight * (mean - self._mean)
            self._second = self._second + weight * (second - self._second)
        return self

    def _check(self):
        if self._mean is None:
            raise ValueError("Statistics: no samples were added")

    def mean(self) -> Node:
        self._check()
        return Node(self._mean)

    def inv_std_dev(self) -> Node:
        self._check()
        return Node(1.0 / np.sqrt(np.maximum(self._second - self._mean ** 2, 0.0) + self.eps))

