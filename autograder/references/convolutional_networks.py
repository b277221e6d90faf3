"""References of 14 convolutional networks, the grader's side only (never in the student bundle).

The ops are dp's own `dp.conv2d` and `dp.maxpool2d`, differentiated by dp for an upstream
gradient g, i.e. for L = sum(g * y):

    conv2d     y[n,f,i,j] = b[f] + sum_{c,p,q} w[f,c,p,q] x_pad[n, c, iS + p, jS + q];
               dL/dw = sum_n G_n X_n^T,  dL/db = g summed over n, i, j,
               dL/dx = W^T G_n folded back onto the pixels (overlapping windows add up);
    maxpool2d  y[n,c,i,j] = max_{p,q} x[n, c, iS + p, jS + q];  dL/dx = g at the first maximum
               of each window, 0 elsewhere (overlapping windows add up).

A trained CNN, as the probe `network` sends it (a list of layers, checked by the probes'
`stack_problem` before the call), maps digits x (n, 784), seen as (n, 1, 28, 28), to scores:

    conv      h <- dp.conv2d(h, W, b, stride, padding)      relu     h <- max(h, 0)
    maxpool   h <- dp.maxpool2d(h, size, stride)             avgpool  h <- dp.avgpool2d(h, size, stride)
    flatten   h <- h.reshape(n, -1)                          dense    h <- act(h W + b)

and the predicted digit of an image is the index of its largest score.

`network_digits` is the one reference that takes a student's reply as argument: the trusted forward
pass on the student's trained parameters. No public case can hold it for every student, so the
check calls it when grading only (as 09's).
"""
from __future__ import annotations

import numpy as np

import dp
from dp import Node

from . import misconception
from .mnist import ACTIVATIONS

# The trusted forward pass is called only when grading, never with the public seed; the ops'
# references are (public cases are recorded for them).


def conv(x, w, b, stride, padding, g) -> dict:
    """dp's conv2d: {"value": y, "x": dL/dx, "w": dL/dw, "b": dL/db} for L = sum(g * y)."""
    y = dp.conv2d(Node(x, "x"), Node(w, "w"), Node(b, "b"), stride, padding)
    return {"value": y.value, **y.grad(g)}


def pool(x, size, stride, g) -> dict:
    """dp's maxpool2d: {"value": y, "x": dL/dx} for L = sum(g * y)."""
    y = dp.maxpool2d(Node(x, "x"), size, stride)
    return {"value": y.value, **y.grad(g)}


# -- known mistakes (autograder/references/__init__.py: `misconception`) ----------------------------
def _with(right: dict, **mistaken) -> dict:
    """The reference's dict with the parts in `mistaken` replaced."""
    return {**right, **mistaken}


@misconception("conv", "the kernel flipped (a convolution of signal processing): deep-learning "
                       "layers compute the cross-correlation, w[f,c,p,q] times x_pad[n,c,iS+p,jS+q]")
def kernel_flipped(x, w, b, stride, padding, g):
    flipped = conv(x, w[:, :, ::-1, ::-1], b, stride, padding, g)
    return _with(flipped, w=flipped["w"][:, :, ::-1, ::-1])


@misconception("conv", "the bias added once per filter and image, not at every output position: "
                       "its gradient sums g over n, i and j")
def bias_gradient_over_the_batch_only(x, w, b, stride, padding, g):
    return _with(conv(x, w, b, stride, padding, g), b=g[:, :, 0, 0].sum(axis=0))


@misconception("conv", "dL/db is the mean of g, not its sum over n, i and j")
def bias_gradient_mean(x, w, b, stride, padding, g):
    return _with(conv(x, w, b, stride, padding, g), b=g.mean(axis=(0, 2, 3)))


@misconception("conv", "dL/dw of the first image only: the filters are shared by the whole batch, "
                       "sum G_n X_n^T over the images")
def weight_gradient_first_image(x, w, b, stride, padding, g):
    return _with(conv(x, w, b, stride, padding, g), w=conv(x[:1], w, b, stride, padding, g[:1])["w"])


@misconception("conv", "dL/dx with overlapping windows overwriting each other: a pixel in several "
                       "windows gets the sum of all their gradients (+= in col2im)")
def input_gradient_overwritten(x, w, b, stride, padding, g):
    f, c, kh, kw = w.shape
    if stride >= max(kh, kw):                   # no overlap: the right answer
        return None
    n, _, oh, ow = g.shape
    columns = (w.reshape(f, -1).T @ g.reshape(n, f, -1)).reshape(n, c, kh, kw, oh, ow)
    padded = np.zeros((n, c, x.shape[2] + 2 * padding, x.shape[3] + 2 * padding))
    for p in range(kh):
        for q in range(kw):
            padded[:, :, p:p + stride * oh:stride, q:q + stride * ow:stride] = columns[:, :, p, q]
    return _with(conv(x, w, b, stride, padding, g),
                 x=padded[:, :, padding:padding + x.shape[2], padding:padding + x.shape[3]])


@misconception("pool", "the minimum of each window")
def pool_minimum(x, size, stride, g):
    return _with(pool(x, size, stride, g), value=-pool(-x, size, stride, g)["value"])


@misconception("pool", "g sent to the minimum of each window")
def pool_gradient_to_minimum(x, size, stride, g):
    return _with(pool(x, size, stride, g), x=pool(-x, size, stride, g)["x"])


@misconception("pool", "g shared among the window (average pooling); the maximum gets all of it")
def pool_gradient_averaged(x, size, stride, g):
    return _with(pool(x, size, stride, g), x=dp.avgpool2d(Node(x, "x"), size, stride).grad(g)["x"])


@misconception("pool", "g sent to every element of its window; only the maximum gets it")
def pool_gradient_everywhere(x, size, stride, g):
    return _with(pool(x, size, stride, g),
                 x=size * size * dp.avgpool2d(Node(x, "x"), size, stride).grad(g)["x"])


@misconception("pool", "overlapping windows overwrite each other's gradient: a pixel that is the "
                       "maximum of several windows gets the sum of their gradients")
def pool_gradient_overwritten(x, size, stride, g):
    if stride >= size:                          # no overlap: the right answer
        return None
    n, c, oh, ow = g.shape
    windows = np.lib.stride_tricks.sliding_window_view(x, (size, size), axis=(2, 3))[:, :, ::stride, ::stride]
    first = windows.reshape(n, c, oh, ow, -1).argmax(axis=-1)
    gradient = np.zeros_like(x)
    for i in range(oh):                          # window after window, the later one overwriting
        for j in range(ow):
            p, q = np.divmod(first[:, :, i, j], size)
            rows, cols = i * stride + p, j * stride + q
            nn, cc = np.indices((n, c))
            gradient[nn, cc, rows, cols] = g[:, :, i, j]
    return _with(pool(x, size, stride, g), x=gradient)


# -- the trusted forward pass of a trained CNN -----------------------------------------------------
def network_digits(layers, images) -> np.ndarray:
    """The digits (n,) that the stack `layers` (a list of {"kind": ...} dicts, as the probe
    `network` sends them) predicts for `images` (n, 784), by the forward pass above in float64."""
    return _scores(layers, images).argmax(axis=1)


@misconception("network_digits", "the least likely digit of each image (argmin): the prediction is "
                                 "the index of the largest score (argmax)")
def least_likely_digits(layers, images) -> np.ndarray:
    return _scores(layers, images).argmin(axis=1)


def _scores(layers, images) -> np.ndarray:
    """The scores (n, 10) of the stack `layers` for `images`, NaN as -inf (never the largest)."""
    h = np.asarray(images, dtype=float).reshape(-1, 1, 28, 28)
    with dp.no_grad(), np.errstate(all="ignore"):   # trained weights may overflow: wrong digits
        for layer in layers:
            kind = layer["kind"]
            if kind == "conv":
                h = dp.conv2d(h, layer["W"], layer["b"], layer["stride"], layer["padding"]).value
            elif kind in ("maxpool", "avgpool"):
                h = getattr(dp, kind + "2d")(h, layer["size"], layer["stride"]).value
            elif kind == "relu":
                h = np.maximum(h, 0)
            elif kind == "flatten":
                h = h.reshape(len(h), -1)
            elif kind == "dense":
                h = ACTIVATIONS[layer["activation"]](h @ layer["W"] + layer["b"])
        return np.where(np.isnan(h), -np.inf, h)


# -- keys of the questions graded automatically (autograder/grading/answers.py) ---------------------
def receptive_field_answer() -> dict:
    """The side, in pixels, of what one output sees after conv 3x3, max-pool 2, conv 3x3,
    max-pool 2 (stride 1 in the convolutions): 3; the pooling adds one output 1 pixel away, 4,
    and its outputs are 2 apart; the second conv spans 3 of them, 4 + 2 * 2 = 8; the second
    pooling adds one 2 pixels away: 10."""
    return {"value": 10, "tolerance": 0.5,
            "hint": "follow the distance between neighbouring outputs on the image: each layer adds "
                    "(its window - 1) times that distance, and each pooling doubles the distance"}
