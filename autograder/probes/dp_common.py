"""Probes shared by the notebooks where dp is allowed (09 MNIST, 11 convolution, 14 convolutional
networks): a student's op on Nodes with dp's gradients through it, and the trained network as
data. They only call the student's code and collect what it gives.

Not in common.py: every sandbox preloads that one, and some notebooks may not import dp. A probe
module imports these under private names (``from .dp_common import array as _array``), so that
only the probes it defines itself answer requests.
"""
import numpy as np

import dp
from dp import Node

from .schema import AnyShape, Array, Either, Plain, Table, TypeName


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
