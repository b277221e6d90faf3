"""References of 11 convolution, the grader's side only (never in the student bundle).

The ops are dp's own `Node.conv1d` and `Node.maxpool1d`, differentiated by dp for an upstream
gradient g, i.e. for L = sum(g * y):

    conv1d     y_bi = sum_j x_b(i+j) k_j ('valid', (B, L) -> (B, L - K + 1));
               dL/dk_j = sum_b sum_i g_bi x_b(i+j),   dL/dx = g convolved with k ('full');
    maxpool1d  y_bc = max_r x_b(cn+r);   dL/dx_b(cn+r) = g_bc at the first maximum of each window,
               0 elsewhere.

The checks (autograder/checks/convolution.py) reach these functions through `references.of(...)`:
plain data in and out, never a student's reply, except `classifier_f`, the trusted forward pass
run on a student's trained parameters (see there).
"""
from __future__ import annotations

import numpy as np

import dp
from dp import Node

from . import misconception


def conv(x, k, g) -> dict:
    """dp's conv1d of x (B, L) with the kernel k (K,): {"value": y, "x": dL/dx, "k": dL/dk}."""
    y = Node(x, "x").conv1d(Node(k, "k"))
    return {"value": y.value, **y.grad(g)}


def pool(x, n, g) -> dict:
    """dp's maxpool1d of x (B, L) over windows of n: {"value": y, "x": dL/dx}."""
    y = Node(x, "x").maxpool1d(n)
    return {"value": y.value, **y.grad(g)}


# -- known mistakes (autograder/references/__init__.py: `misconception`) ----------------------------
def _correlate(x, k, flip=False) -> np.ndarray:
    """'valid' cross-correlation of the rows of x with k (one kernel, or one per row), or with k
    flipped (a convolution) when `flip`."""
    K = k.shape[-1]
    n = x.shape[-1] - K + 1
    return sum(x[..., j:j + n] * k[..., K - 1 - j if flip else j, None] for j in range(K))


def _with(right: dict, **mistaken) -> dict:
    """The reference's {"value", "x", "k"} with the parts in `mistaken` replaced."""
    return {**right, **mistaken}


@misconception("conv", "the convolution (the kernel flipped) instead of the cross-correlation: "
                       "y_i = sum_j x_(i+j) k_j")
def correlate_is_a_convolution(x, k, g):
    padded = np.pad(g, [(0, 0), (len(k) - 1, len(k) - 1)])
    return {"value": _correlate(x, k, flip=True), "x": _correlate(padded, k[::-1], flip=True),
            "k": _correlate(x, g, flip=True).sum(axis=0)}


@misconception("conv", "dL/dx correlated with the kernel itself: the full correlation of g is with "
                       "the flipped kernel")
def input_gradient_kernel_not_flipped(x, k, g):
    padded = np.pad(g, [(0, 0), (len(k) - 1, len(k) - 1)])
    return _with(conv(x, k, g), x=_correlate(padded, k))


@misconception("conv", "dL/dk reversed: dL/dk_j = sum_i g_i x_(i+j) keeps the kernel's orientation")
def kernel_gradient_reversed(x, k, g):
    right = conv(x, k, g)
    return _with(right, k=right["k"][::-1])


@misconception("conv", "dL/dk of the first row only: the kernel is shared, sum over the rows")
def kernel_gradient_first_row(x, k, g):
    return _with(conv(x, k, g), k=_correlate(x[:1], g[:1])[0])


@misconception("pool", "the minimum of each window")
def pool_minimum(x, n, g):
    return _with(pool(x, n, g), value=-pool(-x, n, g)["value"])


@misconception("pool", "g sent to the minimum of each window")
def pool_gradient_to_minimum(x, n, g):
    return _with(pool(x, n, g), x=pool(-x, n, g)["x"])


@misconception("pool", "g sent to every element of its window; only the maximum gets it")
def pool_gradient_everywhere(x, n, g):
    return _with(pool(x, n, g), x=np.repeat(g, n, axis=-1))


@misconception("pool", "g shared among the window (average pooling); the maximum gets all of it")
def pool_gradient_averaged(x, n, g):
    return _with(pool(x, n, g), x=np.repeat(g, n, axis=-1) / n)


def classifier_f(params, x) -> np.ndarray:
    """f (n,) of the notebook's HistogramNet with `params` for histograms x (n, 16), with dp:

        p_i = maxpool(correlate(x, k_i), 2), i = 1, 2, 3     (n, 16) -> 3 x (n, 6)
        h = tanh(concat(p_1, p_2, p_3) hidden_W + hidden_b)   (n, 18) -> (n, 7)
        f = h out_W + out_b                                   (n, 7) -> (n,)

    The one reference that takes a student's reply as argument: the trusted forward pass on the
    student's trained parameters (k1, k2, k3 (5,), hidden_W (18, 7), hidden_b (1, 7), out_W (7, 1),
    out_b (1, 1), their shapes checked before the call), and, for the attack, on the student's
    path. No public case can hold it for every student, so the checks call it when grading only;
    the self-check uses f as the student's net.forward gives it."""
    return _classifier(params, Node(np.asarray(x, dtype=float))).value[:, 0]


def classifier_gradient(params, x) -> np.ndarray:
    """The gradient of classifier_f with respect to each histogram of x, (n, 16): grading only,
    like classifier_f (the attack's path, where it is taken, is the student's)."""
    return _classifier(params, Node(np.asarray(x, dtype=float), "x")).sum().grad(1)["x"]


def _classifier(params, x: Node) -> Node:
    """f (n, 1) of HistogramNet with `params` for the histograms x, a Node."""
    pooled = [x.conv1d(params[k]).maxpool1d(2) for k in ("k1", "k2", "k3")]
    hidden = (dp.concatenate(pooled, axis=1) @ params["hidden_W"] + params["hidden_b"]).tanh()
    return hidden @ params["out_W"] + params["out_b"]
