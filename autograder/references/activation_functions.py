"""References of 04 activation functions (grader only; see autograder/references/__init__.py).

The 10-layer network of the notebook with the checks' weights and batch, written out in NumPy
(the forward pass and backpropagation by hand), the binary cross-entropy, and what a check's
diagnosis compares a wrong reply with. Arguments are the checks' own inputs: parameters
{layer<l>_W, layer<l>_b}, a batch x (n, 2), labels y (n, 1), probabilities p.
"""
from __future__ import annotations

import numpy as np

ACTIVATIONS = ("sigmoid", "tanh", "relu")


def sigmoid(z):
    """1 / (1 + e^-z), written so that it neither overflows nor loses precision."""
    return np.exp(-np.logaddexp(0.0, -z))


# activation: (function of a, derivative written with its output h = act(a))
ACT = {
    "sigmoid": (sigmoid, lambda h: h * (1 - h)),
    "tanh": (np.tanh, lambda h: 1 - h ** 2),
    "relu": (lambda a: np.maximum(a, 0.0), lambda h: (h > 0).astype(float)),
    "identity": (lambda a: a, np.ones_like),    # the layer stack of the gradient_sums probe
}


def _forward(activation, params, x, plain=()):
    """Hidden outputs [h0 = x, h1, ..., h9] and the logits z (n, 1); layers in `plain` skip
    their activation (to recognise that bug)."""
    hs = [np.asarray(x, dtype=float)]
    for l in range(1, 10):
        a = hs[-1] @ params[f"layer{l}_W"] + params[f"layer{l}_b"]
        hs.append(a if l in plain else ACT[activation][0](a))
    return hs, hs[-1] @ params["layer10_W"] + params["layer10_b"]


def _gradients(activation, params, x, y) -> list:
    """[(dL/dW_l, dL/db_l) for l = 1..10] for the mean binary cross-entropy of p = sigmoid(z):

        delta_10 = (p - y) / n,  delta_l = (delta_{l+1} W_{l+1}^T) * act'(a_l),
        dL/dW_l = h_{l-1}^T delta_l,  dL/db_l = sum of delta_l over the examples.
    """
    hs, z = _forward(activation, params, x)
    delta = (sigmoid(z) - y) / len(y)
    grads = []
    for l in range(10, 0, -1):
        grads.append((hs[l - 1].T @ delta, delta.sum(axis=0, keepdims=True)))
        if l > 1:
            delta = (delta @ params[f"layer{l}_W"].T) * ACT[activation][1](hs[l - 1])
    return grads[::-1]


def probabilities(activation, params, x) -> np.ndarray:
    """p = sigmoid(z), the network's probability of class 1 for every row of x."""
    return sigmoid(_forward(activation, params, x)[1])


def forward_mistakes(activation, params, x) -> dict:
    """{what a wrong forward pass computes: its output} for a diagnosis."""
    _, z = _forward(activation, params, x)
    mistakes = {"the logits z, not the probability sigmoid(z)": z,
                "sigmoid(-z), the probability of class 0": sigmoid(-z),
                f"{activation}(z) at the output instead of sigmoid(z)": ACT[activation][0](z)}
    for other in ACTIVATIONS:
        if other != activation:
            mistakes[f"the network with {other} as the hidden activation"] = probabilities(
                other, params, x)
    for l in range(1, 10):
        mistakes[f"the network without the activation after layer {l}"] = sigmoid(
            _forward(activation, params, x, plain=(l,))[1])
    mistakes["the network without any hidden activation"] = sigmoid(
        _forward(activation, params, x, plain=range(1, 10))[1])
    return mistakes


def bce(p, y) -> list:
    """[mean binary cross-entropy, its gradient with respect to p]:
    L = -mean(y log p + (1 - y) log(1 - p)), dL/dp = (-y/p + (1 - y)/(1 - p)) / n."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = -(np.where(y > 0, y * np.log(p), 0) + np.where(y < 1, (1 - y) * np.log1p(-p), 0))
        grad = (-y / p + (1 - y) / (1 - p)) / p.size
    return [float(terms.mean()), grad]


def bce_mistakes(p, y) -> dict:
    """{what a wrong loss computes: its value} for a diagnosis."""
    expected = bce(p, y)[0]
    return {
        "the negative of it: the loss must be -(y log p + (1 - y) log(1 - p))": -expected,
        "the sum over the examples instead of the mean": expected * len(y),
        "only the y log p term: the (1 - y) log(1 - p) term of class 0 is missing":
            float(-np.mean(y * np.log(p))),
        "only the (1 - y) log(1 - p) term: the y log p term of class 1 is missing":
            float(-np.mean((1 - y) * np.log1p(-p))),
    }


def gradient_sums(activation, params, x, y) -> np.ndarray:
    """S_l = sum |dL/dW_l|, l = 1..10."""
    return np.array([np.abs(gw).sum() for gw, _ in _gradients(activation, params, x, y)])


def gradient_sums_mistakes(activation, params, x, y) -> dict:
    """{what a wrong gradient_sums computes: its values} for a diagnosis."""
    grads = _gradients(activation, params, x, y)
    sums = np.array([np.abs(gw).sum() for gw, _ in grads])
    return {
        "in reverse order: the first value must be layer 1, the input layer": sums[::-1],
        "in the order layer1, layer10, layer2, ... (sorted as text, not by layer number)":
            sums[[0, 9, 1, 2, 3, 4, 5, 6, 7, 8]],
        "sums of the signed gradients: take the absolute values before summing":
            np.array([gw.sum() for gw, _ in grads]),
        "the absolute value of the summed gradient: take the absolute values first":
            np.array([abs(gw.sum()) for gw, _ in grads]),
        "means instead of sums": np.array([np.abs(gw).mean() for gw, _ in grads]),
        "sums over the weights and the biases: only the weights W count":
            np.array([np.abs(gw).sum() + np.abs(gb).sum() for gw, gb in grads]),
    }
