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


def conv(x, k, g) -> dict:
    """dp's conv1d of x (B, L) with the kernel k (K,): {"value": y, "x": dL/dx, "k": dL/dk}."""
    y = Node(x, "x").conv1d(Node(k, "k"))
    return {"value": y.value, **y.grad(g)}


def pool(x, n, g) -> dict:
    """dp's maxpool1d of x (B, L) over windows of n: {"value": y, "x": dL/dx}."""
    y = Node(x, "x").maxpool1d(n)
    return {"value": y.value, **y.grad(g)}


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
    x = Node(np.asarray(x, dtype=float))
    pooled = [x.conv1d(params[k]).maxpool1d(2) for k in ("k1", "k2", "k3")]
    hidden = (dp.concatenate(pooled, axis=1) @ params["hidden_W"] + params["hidden_b"]).tanh()
    return (hidden @ params["out_W"] + params["out_b"]).value[:, 0]
