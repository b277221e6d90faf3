"""Probes of 11 convolution: the student's conv1d and maxpool1d on the grader's inputs with the
gradients for the grader's upstream gradient; the classifier's predictions on the grader's
histograms; the trained network's parameters (which the grader runs through its own forward
pass), alone and with f as the notebook's forward gives it; and the adversarial attack on a
histogram chosen by the grader. The classifier and the attack are probed through the notebook's
`net`, `predict` and `adversarial`, never through conv1d or maxpool1d, so each task stands on
its own."""
import numpy as np

import dp
from dp import Node

from .schema import AnyShape, Array, Either, Items, Plain, Table, Text, TypeName


def _array(value):
    """A student's result as a float array (a Node as its value), or {"not_array": type name}."""
    if isinstance(value, Node):
        value = value.value
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return {"not_array": type(value).__name__}
    return array


def _value_and_gradients(out, upstream, leaves) -> dict:
    """The op's value, and d sum(upstream * out) / d leaf for each named leaf that it reaches."""
    if not isinstance(out, Node):
        return {"type": type(out).__name__}
    value = _array(out.value)
    if value.shape != np.shape(upstream):
        return {"type": "Node", "value": value, "grads": None}
    grads = (out * upstream).sum().grad(1)
    return {"type": "Node", "value": value,
            "grads": {name: _array(grads[name]) for name in leaves if name in grads}}


def conv1d(ns, x, k, g):
    """conv1d(Node x, Node k): its value and the gradients of sum(g * y) for x and k."""
    out = ns["conv1d"](Node(x.copy(), "x"), Node(k.copy(), "k"))
    return _value_and_gradients(out, g, ("x", "k"))


def maxpool1d(ns, x, n, g):
    """maxpool1d(Node x, n): its value and the gradient of sum(g * y) for x."""
    out = ns["maxpool1d"](Node(x.copy(), "x"), int(n))
    return _value_and_gradients(out, g, ("x",))


def predict(ns, histograms):
    """The student's labels for the grader's histograms; the true labels never leave the grader."""
    return _array(ns["predict"](histograms.copy()))


def parameters(ns):
    """The trained network's parameters, net.get_param(): {name: array}."""
    return {str(name): _array(v) for name, v in ns["net"].get_param().items()}


def model(ns, histograms):
    """The trained network's parameters, and f on `histograms` as the notebook's forward gives it."""
    with dp.no_grad():
        f = ns["net"].forward(histograms.copy())
    return {"params": parameters(ns), "f": _array(f)}


def adversarial(ns, x0):
    """adversarial(net, x0) on the grader's histogram x0: its path x0, ..., xT, the parameters it
    was attacked with, and the names of those that the attack changed (it must change only x)."""
    net = ns["net"]
    before = net.get_param()
    path = ns["adversarial"](net, x0.copy())
    after = net.get_param()
    changed = sorted(name for name, value in before.items()
                     if name not in after or not np.array_equal(value, after[name]))
    return {"path": _array(path), "params": {name: _array(v) for name, v in before.items()},
            "changed": changed}


def _op_reply(g, *leaves):
    grads = Table(Plain(AnyShape(*leaves)), max_len=len(leaves))
    return Either({"type": "Node", "value": Array(np.shape(g), finite=False), "grads": grads},  # as the probe sends
                  {"type": "Node", "value": AnyShape(g, *leaves), "grads": None},
                  {"type": TypeName("Node")})


MANY = 10_000_000    # elements of the trained network's parameters
PARAMS = Table(Plain(Array(None, finite=False, max_size=MANY)))

REPLIES = {
    "conv1d": lambda x, k, g: _op_reply(g, x, k),
    "maxpool1d": lambda x, n, g: _op_reply(g, x),
    "predict": lambda histograms: Plain(AnyShape(range(len(histograms)))),
    "parameters": PARAMS,
    "model": lambda histograms: {"params": PARAMS, "f": Plain(AnyShape(histograms))},
    "adversarial": lambda x0: {"path": Plain(Array(None, finite=False, max_size=MANY)),
                               "params": PARAMS, "changed": Items(Text(100), max_len=1000)},
}
