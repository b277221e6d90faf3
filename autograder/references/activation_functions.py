"""References of 04 activation functions (grader only; see autograder/references/__init__.py).

The 10-layer network of the notebook with the checks' weights and batch, written out in NumPy
(the forward pass and backpropagation by hand), the binary cross-entropy, and what a check's
diagnosis compares a wrong reply with. Arguments are the checks' own inputs: parameters
{layer<l>_W, layer<l>_b}, a batch x (n, 2), labels y (n, 1), probabilities p.
"""
from __future__ import annotations

import numpy as np

from dp import Node

from . import misconception

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


# -- known mistakes of the forward pass (autograder/references/__init__.py: `misconception`) --------
@misconception("probabilities", "the logits z, not the probability sigmoid(z)")
def output_logits(activation, params, x):
    return _forward(activation, params, x)[1]


@misconception("probabilities", "sigmoid(-z), the probability of class 0")
def output_sigmoid_of_minus_z(activation, params, x):
    return sigmoid(-_forward(activation, params, x)[1])


@misconception("probabilities", "the hidden activation at the output instead of sigmoid(z)")
def output_hidden_activation(activation, params, x):
    return ACT[activation][0](_forward(activation, params, x)[1])


for _other in ACTIVATIONS:
    misconception("probabilities", f"the network with {_other} as the hidden activation",
                  name=f"hidden_activation_{_other}",
                  activation=tuple(a for a in ACTIVATIONS if a != _other))(
        lambda activation, params, x, other=_other: probabilities(other, params, x))
for _layer in range(1, 10):
    misconception("probabilities", f"the network without the activation after layer {_layer}",
                  name=f"no_activation_after_layer_{_layer}")(
        lambda activation, params, x, layer=_layer: sigmoid(
            _forward(activation, params, x, plain=(layer,))[1]))


@misconception("probabilities", "the network without any hidden activation")
def no_hidden_activation(activation, params, x):
    return sigmoid(_forward(activation, params, x, plain=range(1, 10))[1])


def bce(p, y) -> list:
    """[mean binary cross-entropy, its gradient with respect to p]:
    L = -mean(y log p + (1 - y) log(1 - p)), dL/dp = (-y/p + (1 - y)/(1 - p)) / n."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = -(np.where(y > 0, y * np.log(p), 0) + np.where(y < 1, (1 - y) * np.log1p(-p), 0))
        grad = (-y / p + (1 - y) / (1 - p)) / p.size
    return [float(terms.mean()), grad]


def bce_written(p, y) -> list:
    """`bce` as the exercise has students write it (derived.py: `forms`): the plain formula on a
    dp Node, its gradient by dp's backprop (the guards of `bce` hide a slip in a term of a class
    that the labels leave out: 1 + y for 1 - y changes nothing where y = 1 is masked)."""
    p = Node(p, "p")
    loss = -(y * p.log() + (1 - y) * (1 - p).log()).mean()
    return [loss.item(), loss.grad(1)["p"]]


AS_WRITTEN = {"bce": ("bce_written",)}


# -- known mistakes of the loss: [value, dL/dp] as `bce` gives them ---------------------------------
@misconception("bce", "the negative of it: the loss must be -(y log p + (1 - y) log(1 - p))")
def bce_negated(p, y):
    value, grad = bce(p, y)
    return [-value, -grad]


@misconception("bce", "the sum over the examples instead of the mean")
def bce_summed(p, y):
    value, grad = bce(p, y)
    return [value * p.size, grad * p.size]


@misconception("bce", "only the y log p term: the (1 - y) log(1 - p) term of class 0 is missing")
def bce_class_1_term_only(p, y):
    return [float(-np.mean(y * np.log(p))), -y / p / p.size]


@misconception("bce", "only the (1 - y) log(1 - p) term: the y log p term of class 1 is missing")
def bce_class_0_term_only(p, y):
    return [float(-np.mean((1 - y) * np.log1p(-p))), (1 - y) / (1 - p) / p.size]


def gradient_sums(activation, params, x, y) -> np.ndarray:
    """S_l = sum |dL/dW_l|, l = 1..10."""
    return np.array([np.abs(gw).sum() for gw, _ in _gradients(activation, params, x, y)])


# -- known mistakes of gradient_sums ---------------------------------------------------------------
def _weight_gradients(activation, params, x, y) -> list:
    return [gw for gw, _ in _gradients(activation, params, x, y)]


@misconception("gradient_sums", "in reverse order: the first value must be layer 1, the input layer")
def sums_reversed(activation, params, x, y):
    return gradient_sums(activation, params, x, y)[::-1]


@misconception("gradient_sums", "in the order layer1, layer10, layer2, ... (sorted as text, not by "
                                "layer number)")
def sums_sorted_as_text(activation, params, x, y):
    return gradient_sums(activation, params, x, y)[[0, 9, 1, 2, 3, 4, 5, 6, 7, 8]]


@misconception("gradient_sums", "sums of the signed gradients: take the absolute values before "
                                "summing")
def sums_signed(activation, params, x, y):
    return np.array([gw.sum() for gw in _weight_gradients(activation, params, x, y)])


@misconception("gradient_sums", "the absolute value of the summed gradient: take the absolute "
                                "values first")
def sums_absolute_of_sum(activation, params, x, y):
    return np.array([abs(gw.sum()) for gw in _weight_gradients(activation, params, x, y)])


@misconception("gradient_sums", "means instead of sums")
def sums_means(activation, params, x, y):
    return np.array([np.abs(gw).mean() for gw in _weight_gradients(activation, params, x, y)])


@misconception("gradient_sums", "sums over the weights and the biases: only the weights W count")
def sums_with_biases(activation, params, x, y):
    return np.array([np.abs(gw).sum() + np.abs(gb).sum()
                     for gw, gb in _gradients(activation, params, x, y)])


# -- keys of the questions graded automatically (autograder/grading/answers.py) ---------------------
def sigmoid_slope_answer() -> dict:
    """The largest value of sigma'(z) = sigma(z) (1 - sigma(z)): 1/4, at z = 0."""
    return {"value": 0.25, "tolerance": 1e-3,
            "hint": "sigma'(z) = sigma(z) (1 - sigma(z)) is largest where sigma(z) = 1/2, at z = 0"}
