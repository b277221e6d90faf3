"""Probes of 09 MNIST: the student's predictions on images chosen by the grader, and the trained
network as data (its layers' kinds and parameters), which the grader runs through its own forward
pass. The labels never leave the grader."""
import numpy as np

import dp
from dp.model import BatchNorm, Dense, Dropout

from .dp_common import model as _model, network as _network
from .dp_common import training as _training, training_reply as _training_reply
from .weight_initialisation import all_figure_data
from .schema import AXES, AnyShape, Array, Either, Items, Number, Optional, Plain, Text

MAX_LAYERS = 32
MAX_WEIGHTS = 4_000_000          # parameters the grader reads (32 MB, within a reply's 64 MiB):
                                 # 784-2000-1000-10 fits; a larger network is graded on predict
INPUTS, OUTPUTS = 784, 10
ACTIVATIONS = ("linear", "relu", "sigmoid", "tanh", "softmax")   # those the grader's forward runs


def predict(ns, images):
    """The student's `predict` on `images` as floats."""
    try:
        return np.asarray(ns["predict"](images), dtype=float)
    except (TypeError, ValueError):
        return {"not_array": type(ns["predict"](images)).__name__}


def _layer(layer) -> dict | None:
    """One layer as plain data, or None when it is not one of dp's dense, dropout, batchnorm."""
    array = lambda value: np.array(getattr(value, "value", value), dtype=float)  # noqa: E731
    if type(layer) is Dense:
        return {"kind": "dense", "activation": str(layer.activation or "linear"),
                "W": array(layer.W), "b": array(layer.b)}
    if type(layer) is Dropout:
        return {"kind": "dropout"}
    if type(layer) is BatchNorm:
        return {"kind": "batchnorm", "gamma": array(layer.gamma), "beta": array(layer.beta),
                "mean": array(layer.running_mean), "var": array(layer.running_var),
                "eps": float(layer.eps)}
    return None


def stack_problem(layers) -> str | None:
    """Why the plain-data `layers` are not a standard stack from 784 inputs to 10 scores that the
    grader can run, or None when they are. (The probe asks before it sends them; the check asks
    again, of whatever arrived.)"""
    width, dense = INPUTS, 0
    for i, layer in enumerate(layers):
        if layer["kind"] == "dense":
            W, b = layer["W"], layer["b"]
            if layer["activation"] not in ACTIVATIONS:
                return f"its layer {i} has the activation {layer['activation']!r}"
            if W.ndim != 2 or W.shape[0] != width or b.shape != (1, W.shape[1]):
                return (f"its layer {i} has weights of shape {W.shape} and a bias of shape "
                        f"{b.shape} after {width} values")
            width, dense = W.shape[1], dense + 1
        elif layer["kind"] == "batchnorm" and any(np.shape(layer[k]) != (1, width)
                                                  for k in ("gamma", "beta", "mean", "var")):
            return f"its layer {i} (batch normalisation) does not have {width} features"
    if dense == 0 or width != OUTPUTS:
        return f"its layers end with {width} values, not {OUTPUTS} scores"
    return None


def network(ns, images):
    """The trained network as data (`dp_common.network`): its layers as `_layer` gives them, if
    they are a standard stack the grader runs (`stack_problem`), and the digits of its own
    forward pass."""
    return _network(ns, images, _layer, stack_problem, "dp's Dense, Dropout, BatchNorm",
                    MAX_LAYERS, MAX_WEIGHTS)


def _integers(value, shape_ok) -> np.ndarray | None:
    """`value` as a float array when it is a numeric array whose shape `shape_ok` accepts."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "fiu" and shape_ok(value.shape):
        return value.astype(float)
    return None


def error_analysis(ns):
    """The notebook's error analysis: `confusion` (10, 10) and `worst` (indices into x_val), as
    floats or None, with what the grader needs to recompute them: the validation split's labels
    and each validation image's pixel sum (that the split is the notebook's), and the
    probabilities of the network's own forward pass on x_val (None without a dp network)."""
    x_val, y_val = np.asarray(ns["x_val"], dtype=float), np.asarray(ns["y_val"], dtype=float)
    net, probabilities = _model(ns), None
    if net is not None:
        with dp.no_grad():
            probabilities = np.asarray(net.eval().forward(x_val).softmax().value, dtype=float)
    return {"confusion": _integers(ns.get("confusion"), lambda shape: shape == (10, 10)),
            "worst": _integers(ns.get("worst"), lambda shape: len(shape) == 1 and shape[0] <= 100),
            "y_val": y_val, "x_val_sums": x_val.reshape(len(x_val), -1).sum(axis=1),
            "probabilities": probabilities}


def sweep(ns):
    """The width x learning-rate sweep: `sweep[width][lr]` as rows (width, lr, accuracy), None
    where it is not a dict of dicts of numbers, and what the figures show."""
    table = ns.get("sweep")
    rows = None
    if isinstance(table, dict) and all(isinstance(row, dict) for row in table.values()):
        try:
            rows = np.array([[float(width), float(lr), float(accuracy)]
                             for width, row in table.items() for lr, accuracy in row.items()],
                            dtype=float).reshape(-1, 3)
        except (TypeError, ValueError):
            rows = None
    return {"sweep": rows, "axes": all_figure_data(ns)}


_WEIGHTS = Array((None, None), max_size=MAX_WEIGHTS)      # finite: a diverged network raised in
_ROW = Array((1, None), max_size=MAX_WEIGHTS)             # training (dp: "the loss became nan")
LAYER = Either({"kind": "dense", "activation": Text(20), "W": _WEIGHTS, "b": _ROW},
               {"kind": "dropout"},
               {"kind": "batchnorm", "gamma": _ROW, "beta": _ROW, "mean": _ROW, "var": _ROW,
                "eps": Number()})


def training(ns, images, onehot):
    """What the notebook's training did (`dp_common.training`): asked only of a network below the
    bar, to locate where its training went wrong."""
    return _training(ns, images, onehot)


REPLIES = {
    "training": lambda images, onehot: _training_reply(images),
    "predict": lambda images: Plain(AnyShape(range(len(images)))),
    "network": lambda images: Either(
        {"layers": Items(LAYER, max_len=MAX_LAYERS), "digits": Array((len(images),))},
        {"not_standard": Text(300)}),
    "sweep": {"sweep": Optional(Array((None, 3), finite=False, max_size=3000)), "axes": AXES},
    "error_analysis": {"confusion": Optional(Array((10, 10))), "worst": Optional(Array((None,), max_size=100)),
                       "y_val": Array((None,), max_size=100_000),
                       "x_val_sums": Array((None,), max_size=100_000),
                       "probabilities": Optional(Array((None, 10), finite=False, max_size=1_000_000))},
}
