"""Probes of 09 MNIST: the student's predictions on images chosen by the grader, and the trained
network as data (its layers' kinds and parameters), which the grader runs through its own forward
pass. The labels never leave the grader."""
import numpy as np

import dp
from dp.model import BatchNorm, Dense, Dropout

from .schema import AnyShape, Array, Either, Items, Number, Optional, Plain, Text

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


def _model(ns):
    """The notebook's `net`, or else its only dp Model; None when there is none."""
    if isinstance(ns.get("net"), dp.Model):
        return ns["net"]
    models = [value for value in ns.values() if isinstance(value, dp.Model)]
    return models[0] if len(models) == 1 else None


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
    """The trained network as data: {"layers": [...] in the order of net.layers(), "digits": the
    most probable digit of each image by the network's own forward pass in evaluation mode}, or
    {"not_standard": why not}. The grader runs the layers itself; the digits only tell whether
    forward is the stack of those layers."""
    net = _model(ns)
    if net is None:
        return {"not_standard": "the notebook has no dp network named net"}
    # each layer once, where it first appears (a list of the layers may name them again); by
    # Model.layers, which an attribute named `layers` does not hide
    found = list({id(layer): layer for layer in dp.Model.layers(net)}.values())
    layers = [_layer(layer) for layer in found]
    if None in layers:
        other = next(type(l).__name__ for l, d in zip(found, layers) if d is None)
        return {"not_standard": f"net has a layer that is not one of dp's Dense, Dropout, "
                                f"BatchNorm: {other}"}
    problem = stack_problem(layers)
    if problem:
        return {"not_standard": f"net: {problem}"}
    size = sum(np.size(v) for layer in layers for v in layer.values() if isinstance(v, np.ndarray))
    if size > MAX_WEIGHTS:
        return {"not_standard": f"net has {size:,} parameters, more than the {MAX_WEIGHTS:,} "
                                f"that the grader reads"}
    try:
        with dp.no_grad():
            scores = net.eval().forward(images)
        digits = np.asarray(getattr(scores, "value", scores), dtype=float).argmax(axis=1)
    except Exception as error:                   # noqa: BLE001 - the student's forward, reported
        return {"not_standard": f"net.eval().forward(x) raised {type(error).__name__}: {error}"[:300]}
    return {"layers": layers, "digits": digits.astype(float)}


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


_WEIGHTS = Array((None, None), max_size=MAX_WEIGHTS)      # finite: a diverged network raised in
_ROW = Array((1, None), max_size=MAX_WEIGHTS)             # training (dp: "the loss became nan")
LAYER = Either({"kind": "dense", "activation": Text(20), "W": _WEIGHTS, "b": _ROW},
               {"kind": "dropout"},
               {"kind": "batchnorm", "gamma": _ROW, "beta": _ROW, "mean": _ROW, "var": _ROW,
                "eps": Number()})

REPLIES = {
    "predict": lambda images: Plain(AnyShape(range(len(images)))),
    "network": lambda images: Either(
        {"layers": Items(LAYER, max_len=MAX_LAYERS), "digits": Array((len(images),))},
        {"not_standard": Text(300)}),
    "error_analysis": {"confusion": Optional(Array((10, 10))), "worst": Optional(Array((None,), max_size=100)),
                       "y_val": Array((None,), max_size=100_000),
                       "x_val_sums": Array((None,), max_size=100_000),
                       "probabilities": Optional(Array((None, 10), finite=False, max_size=1_000_000))},
}
