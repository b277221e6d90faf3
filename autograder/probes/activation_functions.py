"""Probes of 04 activation functions: the student's network, loss, gradient sums and plot.

They only call the student's code and collect data. Each task is probed on its own:
`gradient_sums` is called on a `LayerStack` (not on the student's `DeepNetwork`), so that a bug
in the network or the loss does not show up there; the stack is not the notebook's network
(its layers have no activation), since `gradient_sums` must work for any such Model.
"""
import numpy as np

import dp
from dp import Model, Node

from .common import figure_data
from .common import answer  # noqa: F401 - a probe of this notebook
from .schema import ANSWER, AXES, AnyShape, Array, Flag, Hint, Items, Number, Optional, Table, TypeName

ACTIVATIONS = ("sigmoid", "tanh", "relu")


def _array(value) -> np.ndarray:
    """A Node's value, or whatever array the student returned, as floats."""
    return np.asarray(value.value if isinstance(value, Node) else value, dtype=float)


def parameters(ns, activation):
    """{name: shape} of the parameters of the student's DeepNetwork(activation)."""
    net = ns["DeepNetwork"](activation)
    return {name: list(np.shape(value)) for name, value in net.get_param().items()}


def forward(ns, activation, params, x):
    """The student's DeepNetwork(activation), with the grader's parameters, on x."""
    net = ns["DeepNetwork"](activation)
    net.set_param(params)
    return _array(net.forward(x))


def bce(ns, p, y):
    """The student's bce_loss(p, y): its value, and d loss / d p when it is a scalar Node."""
    loss = ns["bce_loss"](Node(p, "p"), y)
    is_node = isinstance(loss, Node)
    grad = loss.grad(1).get("p") if is_node and loss.value.size == 1 else None
    return {"value": _array(loss), "is_node": is_node, "type": type(loss).__name__,
            "grad": None if grad is None else np.asarray(grad, dtype=float)}


class LayerStack(Model):
    """Ten linear layers layer1 ... layer10 with the grader's parameters and no activation
    between them: logits z = (((x W_1 + b_1) W_2 + b_2) ...) W_10 + b_10, loss the mean binary
    cross-entropy of sigmoid(z), from the logits (dp.binary_cross_entropy)."""

    def __init__(self, params):
        super().__init__()
        self.stack = [self.Linear_Layer(*np.shape(params[f"layer{l}_W"]), f"layer{l}")
                      for l in range(1, 11)]
        self.set_param(params)

    def logits(self, x) -> Node:
        h = Node(x)
        for layer in self.stack:
            h = layer(h)
        return h

    def forward(self, x) -> Node:
        return self.logits(x).sigmoid()

    def loss(self, x, y) -> Node:
        return dp.binary_cross_entropy(self.logits(x), y)


def gradient_sums(ns, params, x, y):
    """The student's gradient_sums on a LayerStack with the grader's parameters."""
    return _array(ns["gradient_sums"](LayerStack(params), x, y))


def plot(ns):
    """What the figures that the notebook holds in its variables show (`fig`, `ax`: the same
    ones whether the notebook runs in Jupyter, which closes every figure after its cell, or in
    the grader, which does not: figures open but held by no variable, such as a later loss
    curve, are not the plot), plus the weights of `nets` and the batch (x_plot, y_plot), from
    which the grader recomputes the gradient sums that the lines should show."""
    nets = ns.get("nets")
    weights = None
    if isinstance(nets, dict):
        weights = {str(name): {str(k): _array(v) for k, v in net.get_param().items()}
                   for name, net in nets.items()
                   if str(name) in ACTIVATIONS and isinstance(net, Model)}
    batch = {key: _array(ns[key]) if key in ns else None for key in ("x_plot", "y_plot")}
    return {"axes": figure_data(ns, held_only=True), "nets": weights,
            "nets_type": type(nets).__name__, **batch}


def networks(ns):
    """Of each network of the plot in `nets` (a Model under a key of ACTIVATIONS): whether it is
    an instance of the notebook's DeepNetwork, and if so its own forward pass on x_plot."""
    nets, deep = ns.get("nets"), ns.get("DeepNetwork")
    if not isinstance(nets, dict) or "x_plot" not in ns:
        return {}
    replies = {}
    for key, model in nets.items():
        if str(key) in ACTIVATIONS and isinstance(model, Model):
            is_deep = isinstance(deep, type) and isinstance(model, deep)
            replies[str(key)] = {"is_deep_network": is_deep, "type": type(model).__name__,
                                 "p": _array(model.forward(ns["x_plot"])) if is_deep else None}
    return replies


MANY = 10_000_000     # elements of a network's weights or of the plot's batch

REPLIES = {
    "answer": lambda variable: ANSWER,
    "parameters": lambda activation: Table(Items(Number(integer=True), max_len=8)),
    "forward": lambda activation, params, x: AnyShape(x),
    "bce": lambda p, y: {"value": AnyShape(p), "is_node": Flag(), "type": Hint(TypeName()),
                         "grad": Optional(Array(np.shape(p), finite=False))},
    "gradient_sums": lambda params, x, y: AnyShape(range(10)),
    "networks": Table({"is_deep_network": Flag(), "type": Hint(TypeName()),
                       "p": Optional(Array(None, finite=False, max_size=MANY))},
                      max_len=len(ACTIVATIONS)),
    "plot": {"axes": AXES, "nets": Optional(Table(Table(Array(None, max_size=MANY)))),
             "nets_type": Hint(TypeName()), "x_plot": Optional(Array(None, max_size=MANY)),
             "y_plot": Optional(Array(None, max_size=MANY))},
}
