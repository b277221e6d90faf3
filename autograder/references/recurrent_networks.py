"""References of 12 recurrent networks, the grader's side only (never in the student bundle).

The Elman cell, unrolled over time:

    h_t = tanh(a_t),   a_t = x_t W_x + h_{t-1} W_h + b,   h_{-1} = h_init,

with x (T, n, d) time first, W_x (d, k), W_h (k, k), b (1, k), h_init and every h_t (n, k).
For a loss L = sum_t sum(dH_t * h_t), backpropagation through time runs t = T-1, ..., 0:

    dh_t = dH_t + da_{t+1} W_h^T   (no second term at T-1),   da_t = dh_t * (1 - h_t^2),
    dL/dW_x = sum_t x_t^T da_t,   dL/dW_h = sum_t h_{t-1}^T da_t,   dL/db = sum_t 1^T da_t,
    dL/dh_init = da_0 W_h^T.

The checks (autograder/checks/recurrent_networks.py) reach these functions through
`references.of(...)`: plain data in and out, never a student's reply, except
`adding_predictions`, the trusted forward pass run on a student's trained parameters (see there).
"""
from __future__ import annotations

import numpy as np

import dp
from dp import Node

from . import misconception

PARAMETERS = ("W_x", "W_h", "b")


def _states(x, params, h_init, feedback=True, activation=np.tanh) -> np.ndarray:
    """(T, n, k) by a NumPy loop; without `feedback` every step reads h_init instead of h_{t-1}."""
    h, states = h_init, []
    for x_t in x:
        previous = h if feedback else h_init
        h = activation(x_t @ params["W_x"] + previous @ params["W_h"] + params["b"])
        states.append(h)
    return np.stack(states)


def states(x, params, h_init) -> np.ndarray:
    """The states (T, n, k): h_t = tanh(x_t W_x + h_{t-1} W_h + b), h_{-1} = h_init (n, k)."""
    return _states(x, params, h_init)


# -- known mistakes of the forward pass (autograder/references/__init__.py: `misconception`) -----
@misconception("states", "no feedback: every step reads the initial state, not h_{t-1}")
def states_without_feedback(x, params, h_init):
    return _states(x, params, h_init, feedback=False)


@misconception("states", "the cell without its tanh")
def states_without_tanh(x, params, h_init):
    return _states(x, params, h_init, activation=lambda a: a)


@misconception("states", "a start from ones: the delay node's default initial state is zeros")
def states_from_ones(x, params, h_init):
    return _states(x, params, np.ones_like(h_init)) if not np.any(h_init) else None


@misconception("states", "a start from zeros: use h_init when it is given")
def states_from_zeros(x, params, h_init):
    return _states(x, params, np.zeros_like(h_init))


def unrolled_gradients(x, params, h_init, dH) -> dict:
    """dp's backprop through the explicitly unrolled graph of L = sum_t sum(dH_t * h_t): the
    parameters and h_init are named leaves shared by every step, and a zero leaf "state<t>" added
    to each state gives dL/dh_t as well (under "H", shape (T, n, k))."""
    leaves = {name: Node(params[name], name) for name in PARAMETERS}
    h, loss = Node(h_init, "h_init"), 0
    for t, x_t in enumerate(x):
        a = Node(x_t).dot(leaves["W_x"]) + h.dot(leaves["W_h"]) + leaves["b"]
        h = a.tanh() + Node(np.zeros(h_init.shape), f"state{t}")
        loss = loss + (h * dH[t]).sum()
    grads = loss.grad(1)
    return {**{name: grads[name] for name in (*PARAMETERS, "h_init")},
            "H": np.stack([grads[f"state{t}"] for t in range(len(x))])}


def numerical_gradients(x, params, h_init, dH) -> dict:
    """Central differences of L = sum_t sum(dH_t * h_t) for the parameters and h_init."""
    arrays = {**params, "h_init": h_init}

    def loss(name, value):
        changed = {**arrays, name: value}
        return float(np.sum(dH * _states(x, changed, changed["h_init"])))
    return {name: dp.numerical_gradient(lambda v, name=name: loss(name, v), value.copy())
            for name, value in arrays.items()}


def mistaken_bptt(x, params, h_init, H, dH, mistake=None) -> dict:
    """BPTT in NumPy, as in the module's docstring, with one mistake (None: none):
    "tanh"          without the tanh derivative, da_t = dh_t;
    "overwrite"     each shared gradient overwritten at every step instead of summed;
    "last_step"     over the last step only;
    "no_delay"      dh_t = dH_t, nothing sent back through the delay node;
    "wrap"          h_{t-1} at t = 0 read from H[-1] instead of h_init;
    "untransposed"  the gradient sent back through W_h instead of W_h^T."""
    W_h = params["W_h"]
    grads = {name: np.zeros_like(params[name]) for name in PARAMETERS}
    total, later = np.zeros_like(H), np.zeros_like(h_init)
    steps = [len(x) - 1] if mistake == "last_step" else reversed(range(len(x)))
    for t in steps:
        dh = dH[t] + (0 if mistake == "no_delay" else later)
        total[t] = dh
        da = dh if mistake == "tanh" else dh * (1 - H[t] ** 2)
        previous = H[t - 1] if t > 0 or mistake == "wrap" else h_init
        shares = {"W_x": x[t].T @ da, "W_h": previous.T @ da, "b": da.sum(axis=0, keepdims=True)}
        for name, share in shares.items():
            grads[name] = share if mistake == "overwrite" else grads[name] + share
        later = da @ (W_h if mistake == "untransposed" else W_h.T)
    return {**grads, "h_init": later, "H": total}


def unrolled_gradients_written(x, params, h_init, dH) -> dict:
    """`unrolled_gradients` as the notebook has students write them: BPTT in NumPy (derived.py:
    `forms`: dp's backprop has no loop back in time to slip in)."""
    return mistaken_bptt(x, params, h_init, states(x, params, h_init), dH)


AS_WRITTEN = {"unrolled_gradients": ("unrolled_gradients_written",)}


def bptt_mistakes(x, params, h_init, H, dH, mistakes) -> dict:
    """{mistake: the gradients BPTT with that mistake gives} for each of `mistakes`."""
    return {mistake: mistaken_bptt(x, params, h_init, H, dH, mistake) for mistake in mistakes}


# the known mistakes of BPTT (`mistaken_bptt`), as mistakes of the gradients of the unrolled graph
BPTT_MISTAKES = {
    "tanh": "BPTT without the tanh derivative (1 - h_t^2)",
    "overwrite": "a gradient overwritten at every step instead of summed over the steps",
    "last_step": "BPTT over the last step only",
    "no_delay": "BPTT that does not send the gradient back through the delay node to h_{t-1}: "
                "dL/dh_t holds only its direct part, nothing from step t+1",
    "wrap": "h_{t-1} at t = 0 read from H[-1] (the last state) instead of h_init",
    "untransposed": "the gradient sent back through W_h instead of its transpose",
}
for _mistake, _why in BPTT_MISTAKES.items():
    misconception("unrolled_gradients", _why, name=f"bptt_{_mistake}")(
        lambda x, params, h_init, dH, mistake=_mistake: mistaken_bptt(
            x, params, h_init, states(x, params, h_init), dH, mistake))


def adding_predictions(params, sequences) -> np.ndarray:
    """The notebook's SequenceModel with the trained `params` on sequences (n, T, 2), batch first:
    the cell reads x = sequences time first (T, n, 2) from h_init = 0, and a linear readout of the
    last state predicts y_hat = h_{T-1} W_y + b_y, n numbers.

    The one reference that takes a student's reply as argument: the trusted forward pass on the
    student's trained parameters (W_x (2, k), W_h (k, k), b (1, k), W_y (k, 1), b_y (1, 1), their
    shapes checked before the call). No public case can hold it for every student, so the check
    calls it when grading only; the self-check measures model.forward's own predictions."""
    x = np.asarray(sequences, dtype=float).transpose(1, 0, 2)
    h_last = _states(x, params, np.zeros((x.shape[1], params["W_h"].shape[0])))[-1]
    return (h_last @ params["W_y"] + params["b_y"]).reshape(-1)
