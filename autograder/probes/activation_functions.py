"""Probes of 04 activation functions: the student's network, loss, gradient sums and plot.

Each task is probed on its own: `gradient_sums` is called on the `ReferenceNetwork` below (not on
the student's `DeepNetwork`), so that a bug in the network or the loss does not show up there.
"""
import sys

import numpy as np

import dp
from dp import Model, Node

from .common import figure_data
from .schema import AXES, AnyShape, Array, Flag, Hint, Items, Number, Optional, Table, TypeName

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


class ReferenceNetwork(Model):
    """The network as specified (layer<l>_W, layer<l>_b, hidden `activation`, sigmoid output),
    with the grader's parameters and the mean binary cross-entropy as its loss."""

    def __init__(self, activation, params):
        super().__init__()
        self.activation = activation
        self.linear = [self.Linear_Layer(*np.shape(params[f"layer{l}_W"]), f"layer{l}")
                       for l in range(1, 11)]
        self.set_param(params)

    def logits(self, x) -> Node:
        h = Node(x)
        for layer in self.linear[:9]:
            h = getattr(layer(h), self.activation)()
        return self.linear[9](h)

    def forward(self, x) -> Node:
        return self.logits(x).sigmoid()

    def loss(self, x, y) -> Node:
        return dp.binary_cross_entropy(self.logits(x), y)


def gradient_sums(ns, activation, params, x, y):
    """The student's gradient_sums on a network built here with the grader's parameters."""
    return _array(ns["gradient_sums"](ReferenceNetwork(activation, params), x, y))


def _namespace_figures(ns) -> list:
    """Figures the notebook keeps in variables (`fig`, `ax`, arrays of axes): Jupyter's inline
    backend closes every figure after its cell, so a later self-check only finds them here."""
    if "matplotlib" not in sys.modules:
        return []
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    found = []
    for value in list(ns.values()):
        items = value.ravel() if isinstance(value, np.ndarray) and value.dtype == object else (
            value if isinstance(value, (list, tuple)) else [value])
        for item in items:
            figure = item.figure if isinstance(item, Axes) else item
            if isinstance(figure, Figure) and all(figure is not f for f in found):
                found.append(figure)
    return found


def _closed_figures_data(ns) -> list:
    """figure_data() of the namespace figures that pyplot no longer holds."""
    plt = sys.modules.get("matplotlib.pyplot")
    open_figures = [plt.figure(n) for n in plt.get_fignums()] if plt else []
    return [{"title": ax.get_title(), "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
             "xscale": ax.get_xscale(), "yscale": ax.get_yscale(),
             "lines": [{"label": str(line.get_label()),
                        "x": np.asarray(line.get_xdata(), dtype=float),
                        "y": np.asarray(line.get_ydata(), dtype=float)} for line in ax.get_lines()]}
            for figure in _namespace_figures(ns) if all(figure is not f for f in open_figures)
            for ax in figure.axes]


def plot(ns):
    """What the figures show, plus the weights of `nets` and the batch (x_plot, y_plot), from
    which the grader recomputes the gradient sums that the lines should show."""
    nets = ns.get("nets")
    weights = None
    if isinstance(nets, dict):
        weights = {str(name): {str(k): _array(v) for k, v in net.get_param().items()}
                   for name, net in nets.items()
                   if str(name) in ACTIVATIONS and isinstance(net, Model)}
    batch = {key: _array(ns[key]) if key in ns else None for key in ("x_plot", "y_plot")}
    return {"axes": figure_data() + _closed_figures_data(ns), "nets": weights,
            "nets_type": type(nets).__name__, **batch}


MANY = 10_000_000     # elements of a network's weights or of the plot's batch

REPLIES = {
    "parameters": lambda activation: Table(Items(Number(integer=True), max_len=8)),
    "forward": lambda activation, params, x: AnyShape(x),
    "bce": lambda p, y: {"value": AnyShape(p), "is_node": Flag(), "type": Hint(TypeName()),
                         "grad": Optional(Array(np.shape(p), finite=False))},
    "gradient_sums": lambda activation, params, x, y: AnyShape(range(10)),
    "plot": {"axes": AXES, "nets": Optional(Table(Table(Array(None, max_size=MANY)))),
             "nets_type": Hint(TypeName()), "x_plot": Optional(Array(None, max_size=MANY)),
             "y_plot": Optional(Array(None, max_size=MANY))},
}
