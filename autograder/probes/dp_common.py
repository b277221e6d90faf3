"""Probes shared by the notebooks where dp is allowed (09 MNIST, 11 convolution, 14 convolutional
networks): a student's op on Nodes with dp's gradients through it, and the trained network as
data. They only call the student's code and collect what it gives.

Not in common.py: every sandbox preloads that one, and some notebooks may not import dp. A probe
module imports these under private names (``from .dp_common import array as _array``), so that
only the probes it defines itself answer requests.
"""
import itertools

import numpy as np

import dp
from dp import Node

from .schema import (AnyShape, Array, Either, Hint, Items, Number, Optional, Plain, Table, Text,
                     TypeName)


def array(value):
    """A student's result as a float array of its own (a Node as its value), or
    {"not_array": type name}."""
    if isinstance(value, Node):
        value = value.value
    try:
        return np.array(value, dtype=float)
    except (TypeError, ValueError):
        return {"not_array": type(value).__name__}


def value_and_gradients(out, upstream, leaves) -> dict:
    """The op's value, and d sum(upstream * out) / d leaf for each named leaf that it reaches."""
    if not isinstance(out, Node):
        return {"type": type(out).__name__}
    value = array(out.value)
    if value.shape != np.shape(upstream):
        return {"type": "Node", "value": value, "grads": None}
    grads = (out * upstream).sum().grad(1)
    return {"type": "Node", "value": value,
            "grads": {name: array(grads[name]) for name in leaves if name in grads}}


def op_reply(g, *leaves):
    """The reply schema of `value_and_gradients` for the upstream gradient `g` and the leaves'
    values: a value of g's shape with a gradient per leaf in its shape, or a value of another
    shape (of g or a leaf) without gradients, or the name of a type that is no Node."""
    grads = Table(Plain(AnyShape(*leaves)), max_len=len(leaves))
    return Either({"type": "Node", "value": Array(np.shape(g), finite=False), "grads": grads},
                  {"type": "Node", "value": AnyShape(g, *leaves), "grads": None},
                  {"type": TypeName("Node")})


def model(ns):
    """The notebook's `net`, or else its only dp Model; None when there is none."""
    if isinstance(ns.get("net"), dp.Model):
        return ns["net"]
    models = [value for value in ns.values() if isinstance(value, dp.Model)]
    return models[0] if len(models) == 1 else None


def network(ns, images, layer, stack_problem, kinds: str, max_layers: int, max_weights: int):
    """The trained network as data: {"layers": [...] in the order of net.layers(), "digits": the
    most probable digit of each image by the network's own forward pass in evaluation mode}, or
    {"not_standard": why not}. The grader runs the layers itself; the digits only tell whether
    forward is the stack of those layers.

    `layer` gives one layer as plain data (None when it is none of `kinds`, as the message names
    them); `stack_problem` says why plain-data layers are not a network the grader runs (None
    when they are one); at most `max_layers` layers and `max_weights` parameters are sent."""
    net = model(ns)
    if net is None:
        return {"not_standard": "the notebook has no dp network named net"}
    # each layer once, where it first appears (a list of the layers may name them again); by
    # Model.layers, which an attribute named `layers` does not hide
    found = list({id(item): item for item in dp.Model.layers(net)}.values())
    layers = [layer(item) for item in found]
    if None in layers:
        other = next(type(item).__name__ for item, data in zip(found, layers) if data is None)
        return {"not_standard": f"net has a layer that is none of {kinds}: {other}"[:300]}
    if len(layers) > max_layers:
        return {"not_standard": f"net has {len(layers)} layers, more than the {max_layers} the "
                                f"grader runs"}
    size = sum(np.size(v) for data in layers for v in data.values() if isinstance(v, np.ndarray))
    if size > max_weights:
        return {"not_standard": f"net has {size:,} parameters, more than the {max_weights:,} "
                                f"that the grader reads"}
    problem = stack_problem(layers)
    if problem:
        return {"not_standard": f"net: {problem}"[:300]}
    try:
        with dp.no_grad():
            scores = net.eval().forward(images.copy())
        digits = np.asarray(getattr(scores, "value", scores), dtype=float).argmax(axis=1)
    except Exception as error:                   # noqa: BLE001 - the student's forward, reported
        return {"not_standard": f"net.eval().forward(x) raised {type(error).__name__}: {error}"[:300]}
    return {"layers": layers, "digits": digits.astype(float)}


ROWS = 200                 # rows of the optimizer's training data that `training` sends
MAX_LOSSES = 100_000       # losses of loss_hist that `training` sends


def training(ns, images, onehot):
    """What the notebook's training did, for locating where a network below the bar went wrong
    (the grader judges it; every part only explains a verdict): the losses of `loss_hist`, net's
    loss and its logits on the grader's `images` (digits of the notebook's own training split,
    whose one-hot labels `onehot` the student has too), and the optimizer's learning rate, steps
    and its first ROWS training rows (images flattened, labels as rows) with its labels' shape."""
    net = model(ns)
    return {"losses": _numbers(ns.get("loss_hist")), "loss": _scalar(net, images, onehot),
            "logits": _logits(net, images), "optimizer": _optimizer(ns),
            "names": _parameter_names(net)}


MAX_NAMED = 32              # layers whose parameters' names `training` sends


def _parameter_names(net):
    """The names of each layer's parameters, in the order of net.layers(), or None."""
    try:
        found = list({id(item): item for item in dp.Model.layers(net)}.values())[:MAX_NAMED]
        return [[str(node.name)[:100] for node in list(layer.parameters().values())[:8]]
                for layer in found]
    except Exception:           # noqa: BLE001 - no layers of dp's: nothing to locate with
        return None


def _numbers(values):
    """`values` (a list of floats or Nodes, or an array) as a float array, or None."""
    try:
        return np.array([float(getattr(v, "value", v))
                         for v in itertools.islice(iter(values), MAX_LOSSES)], dtype=float)
    except (TypeError, ValueError):
        return None


def _scalar(net, images, onehot):
    try:
        with dp.no_grad():
            return float(np.asarray(getattr(net.eval().loss(images.copy(), onehot.copy()), "value",
                                            np.nan), dtype=float))
    except Exception:           # noqa: BLE001 - the student's loss: nothing to locate with it
        return None


def _logits(net, images):
    try:
        with dp.no_grad():
            logits = np.array(getattr(net.eval().forward(images.copy()), "value", None), dtype=float)
        return logits if logits.shape == (len(images), 10) else None
    except Exception:           # noqa: BLE001 - the student's forward, said by the accuracy check
        return None


def _optimizer(ns):
    """The notebook's `optimizer`, else its only dp optimizer, as data (see `training`)."""
    found = ns.get("optimizer")
    if not isinstance(found, dp.Optimizer):
        found = [v for v in ns.values() if isinstance(v, dp.Optimizer)]
        found = found[0] if len(found) == 1 else None
    if found is None:
        return None
    try:
        x = np.asarray(getattr(found.x_train, "value", found.x_train), dtype=float)
        y = np.asarray(getattr(found.y_train, "value", found.y_train), dtype=float)
        return {"lr": float(found.lr), "steps": int(found.steps_done),
                "x": x[:ROWS].reshape(min(len(x), ROWS), -1)[:, :784].copy(),
                "y": y[:ROWS].reshape(min(len(y), ROWS), -1)[:, :10].copy(),
                "y_shape": [int(n) for n in y.shape[:8]]}
    except (TypeError, ValueError, AttributeError):
        return None


def training_reply(images):
    """The reply schema of `training` on `images`."""
    return {"losses": Hint(Optional(Array((None,), finite=False, max_size=MAX_LOSSES))),
            "loss": Hint(Optional(Number(finite=False))),
            "logits": Hint(Optional(Array((len(images), 10), finite=False))),
            "optimizer": Hint(Optional({
                "lr": Number(finite=False), "steps": Number(integer=True),
                "x": Array((None, None), finite=False, max_size=ROWS * 784),
                "y": Array((None, None), finite=False, max_size=ROWS * 10),
                "y_shape": Items(Number(integer=True), max_len=8)})),
            "names": Hint(Optional(Items(Items(Text(100), max_len=8), max_len=MAX_NAMED)))}
