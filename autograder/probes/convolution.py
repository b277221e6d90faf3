"""Probes of 11 convolution: the student's conv1d and maxpool1d on the grader's inputs with the
gradients for the grader's upstream gradient; the classifier's predictions on the grader's
histograms; the trained network's parameters (which the grader runs through its own forward
pass) with f as the notebook's forward gives it (which the self-check uses instead); and the
adversarial attack on a histogram chosen by the grader. The classifier and the attack are probed
through the notebook's `net`, `predict` and `adversarial`, never through conv1d or maxpool1d, so
each task stands on its own."""
import numpy as np

import dp
from dp import Node

from .dp_common import array as _array, op_reply as _op_reply
from .dp_common import value_and_gradients as _value_and_gradients
from .schema import AnyShape, Array, Items, Optional, Plain, Table, Text


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


def _f(net, histograms):
    """f on `histograms` as the notebook's net.forward gives it."""
    with dp.no_grad():
        return _array(net.forward(histograms.copy()))


def model(ns, histograms):
    """The trained network's parameters, net.get_param(), and f on `histograms` as net.forward
    gives it."""
    net = ns["net"]
    return {"params": {str(name): _array(v) for name, v in net.get_param().items()},
            "f": _f(net, histograms)}


def adversarial(ns, x0):
    """adversarial(net, x0) on the grader's histogram x0: its path x0, ..., xT, the parameters it
    was attacked with, the names of those that the attack changed (it must change only x), and f
    along the path as net.forward gives it (None for a path that is no array of histograms)."""
    net = ns["net"]
    before = net.get_param()
    path = _array(ns["adversarial"](net, x0.copy()))
    after = net.get_param()
    changed = sorted(name for name, value in before.items()
                     if name not in after or not np.array_equal(value, after[name]))
    histograms = not isinstance(path, dict) and path.ndim == 2 and path.shape[1] == len(x0)
    return {"path": path, "params": {name: _array(v) for name, v in before.items()},
            "changed": changed, "f": _f(net, path) if histograms else None}


MANY = 10_000_000    # elements of the trained network's parameters
PARAMS = Table(Plain(Array(None, finite=False, max_size=MANY)))

REPLIES = {
    "conv1d": lambda x, k, g: _op_reply(g, x, k),
    "maxpool1d": lambda x, n, g: _op_reply(g, x),
    "predict": lambda histograms: Plain(AnyShape(range(len(histograms)))),
    "model": lambda histograms: {"params": PARAMS, "f": Plain(AnyShape(histograms))},
    "adversarial": lambda x0: {"path": Plain(Array(None, finite=False, max_size=MANY)),
                               "params": PARAMS, "changed": Items(Text(100), max_len=1000),
                               "f": Optional(Plain(Array(None, finite=False, max_size=MANY)))},
}
