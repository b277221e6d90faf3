"""Probes of 14 convolutional networks: the student's conv2d and maxpool2d on the grader's inputs,
with dp's gradients through them for the grader's upstream gradient; the trained CNN as data (its
layers' kinds, sizes and parameters), which the grader runs through its own forward pass on digits
that stay with it; the student's predictions; and the figure of the first layer's filters. (`dp`
is allowed in this notebook, so the probes may use it.)

The tasks are probed apart, so that one mistake costs the points of one task: the network is read
through `net` and `predict`, never through the student's conv2d or maxpool2d, and the filter plot
through `plot_filters(net)`.
"""
import numpy as np

import dp
from dp import Node

from .common import answer  # noqa: F401 - a probe of this notebook
from .dp_common import array as _array, model as _model, network as _network, op_reply as _op_reply
from .dp_common import training as _training, training_reply as _training_reply
from .dp_common import value_and_gradients as _value_and_gradients
from .schema import ANSWER, AnyShape, Array, Either, Items, Number, Plain, Text, TypeName

IMAGE = (1, 28, 28)              # (C, H, W) of a digit
OUTPUTS = 10
MAX_LAYERS = 24
MAX_WEIGHTS = 4_000_000          # parameters the grader reads (32 MB, within a reply's 64 MiB)
MAX_MULTIPLY_ADDS = 10_000_000   # per image, of the grader's forward pass (LeNet-5: 0.4 million);
                                 # a larger network is not run (the grader's time is bounded)
MAX_IMAGES = 64                  # images of the filter plot the grader reads
ACTIVATIONS = ("linear", "relu", "sigmoid", "tanh", "softmax")   # dense layers' (dp.Dense)
ELEMENTWISE = ("relu",)                                          # layers that keep the shape
POOLS = ("maxpool", "avgpool")


def conv2d(ns, x, w, b, stride, padding, g):
    """conv2d(Node x, Node w, Node b, stride, padding): its value and the gradients of
    sum(g * y) for x, w and b."""
    out = ns["conv2d"](Node(x.copy(), "x"), Node(w.copy(), "w"), Node(b.copy(), "b"),
                       int(stride), int(padding))
    return _value_and_gradients(out, g, ("x", "w", "b"))


def maxpool2d(ns, x, size, stride, g):
    """maxpool2d(Node x, size, stride): its value and the gradient of sum(g * y) for x; without
    the stride argument (its default) when `stride` is None."""
    strides = () if stride is None else (int(stride),)
    out = ns["maxpool2d"](Node(x.copy(), "x"), int(size), *strides)
    return _value_and_gradients(out, g, ("x",))


def predict(ns, images):
    """The student's `predict` on the grader's images; the labels never leave the grader."""
    return _array(ns["predict"](images.copy()))


# -- the trained network as data -------------------------------------------------------------------
def _layer(layer) -> dict | None:
    """One layer as plain data, by its kind (dp's Dense, or the notebook's layers, which say their
    `kind`), or None when it is none of these."""
    array = lambda value: np.array(getattr(value, "value", value), dtype=float)  # noqa: E731
    if type(layer) is dp.Dense:
        return {"kind": "dense", "activation": str(layer.activation or "linear"),
                "W": array(layer.W), "b": array(layer.b)}
    kind = getattr(type(layer), "kind", None)
    if kind == "conv":
        return {"kind": "conv", "W": array(layer.W), "b": array(layer.b),
                "stride": int(layer.stride), "padding": int(layer.padding)}
    if kind in POOLS:
        return {"kind": kind, "size": int(layer.size), "stride": int(layer.stride)}
    if kind in ELEMENTWISE + ("flatten",):
        return {"kind": kind}
    return None


def _conv_sees_neighbours(layer, height, width) -> bool:
    """Whether a conv layer combines neighbouring pixels: a kernel of 2 or more weights, at least
    one filter with 2 or more of them nonzero, and 2 or more outputs (a kernel as large as its
    input is a dense layer by another name)."""
    W = layer["W"]
    kh, kw = W.shape[2:]
    outputs = [(n + 2 * layer["padding"] - k) // layer["stride"] + 1
               for n, k in ((height, kh), (width, kw))]
    nonzero = np.abs(W) > 1e-6 * np.max(np.abs(W), initial=0.0)
    return kh * kw >= 2 and outputs[0] * outputs[1] >= 2 and \
        bool(np.any(nonzero.reshape(len(W), -1).sum(axis=1) >= 2))


def stack_problem(layers) -> str | None:
    """Why the plain-data `layers` are not a CNN that the grader runs, from a digit (1, 28, 28) to
    10 scores, or None when they are one. A CNN has a convolution that combines neighbouring
    pixels (`_conv_sees_neighbours`), then Flatten, then dense layers; a network without one skips
    the convolution. (The probe asks before it sends the layers; the check asks again, of whatever
    arrived.)"""
    shape, convolves, cost = IMAGE, False, 0
    for i, layer in enumerate(layers):
        kind, where = layer["kind"], f"its layer {i} ({layer['kind']})"
        if kind == "conv":
            W, b, stride, padding = layer["W"], layer["b"], layer["stride"], layer["padding"]
            if len(shape) != 3:
                return f"{where} comes after Flatten: convolutions read images (N, C, H, W)"
            if W.ndim != 4 or W.shape[1] != shape[0] or b.shape != (W.shape[0],):
                return (f"{where} has weights of shape {W.shape} and a bias of shape {b.shape} "
                        f"for an input of {shape[0]} channels")
            if stride < 1 or padding < 0 or any(n + 2 * padding < k for n, k in zip(shape[1:], W.shape[2:])):
                return f"{where}: stride {stride}, padding {padding} and a kernel {W.shape[2:]} on {shape[1:]}"
            convolves = convolves or _conv_sees_neighbours(layer, *shape[1:])
            shape = (W.shape[0],) + tuple((n + 2 * padding - k) // stride + 1
                                          for n, k in zip(shape[1:], W.shape[2:]))
            cost += W[0].size * int(np.prod(shape))
        elif kind in POOLS:
            size, stride = layer["size"], layer["stride"]
            if len(shape) != 3 or size < 1 or stride < 1 or size > min(shape[1:]):
                return f"{where}: a window of {size} with stride {stride} on the shape {shape}"
            shape = (shape[0],) + tuple((n - size) // stride + 1 for n in shape[1:])
        elif kind == "flatten":
            shape = (int(np.prod(shape)),)
        elif kind == "dense":
            W, b = layer["W"], layer["b"]
            if len(shape) != 1:
                return f"{where} reads images of shape {shape}: put Flatten() before the dense layers"
            if layer["activation"] not in ACTIVATIONS:
                return f"{where} has the activation {layer['activation']!r}"
            if W.ndim != 2 or W.shape[0] != shape[0] or b.shape != (1, W.shape[1]):
                return (f"{where} has weights of shape {W.shape} and a bias of shape {b.shape} "
                        f"after {shape[0]} values")
            shape, cost = (W.shape[1],), cost + W.size
        if cost > MAX_MULTIPLY_ADDS:
            return (f"it takes more than {MAX_MULTIPLY_ADDS:,} multiply-adds per image, more than "
                    f"the grader runs")
    if shape != (OUTPUTS,):
        return f"its layers end with the shape {shape}, not {OUTPUTS} scores"
    if not convolves:
        return ("it has no convolution that combines neighbouring pixels (a Conv layer with a "
                "kernel larger than 1x1 and smaller than its input, before the dense layers): it "
                "skips the convolution, which this assignment is about")
    return None


def network(ns, images):
    """The trained network as data (`dp_common.network`): its layers as `_layer` gives them, if
    they are a CNN the grader runs (`stack_problem`), and the digits of its own forward pass."""
    return _network(ns, images, _layer, stack_problem, "Conv, ReLU, MaxPool, AvgPool, Flatten, Dense",
                    MAX_LAYERS, MAX_WEIGHTS)


# -- the filter plot -------------------------------------------------------------------------------
def filters(ns):
    """plot_filters(net) on the trained `net`: the weights of net's first conv layer, and the
    images that the figure it returns shows (axes by axes, in order), or what it returned instead
    of a matplotlib figure."""
    from matplotlib.figure import Figure
    net = _model(ns)
    figure = ns["plot_filters"](net)
    first = next((layer for layer in (dp.Model.layers(net) if net is not None else ())
                  if getattr(type(layer), "kind", None) == "conv"), None)
    if first is None:
        return {"no_conv": "net has no Conv layer"}
    weights = _array(first.W)
    if not isinstance(figure, Figure):
        return {"type": type(figure).__name__}
    images = [_array(np.ma.getdata(image.get_array())) for ax in figure.axes
              for image in ax.get_images()]
    return {"type": "Figure", "W": weights, "images": images[:MAX_IMAGES],
            "count": len(images)}


_ROW = Array((1, None), max_size=MAX_WEIGHTS)         # finite: a diverged network raised in
INTEGER = Number(integer=True)                        # training (dp: "the loss became nan")
LAYER = Either({"kind": "conv", "W": Array((None,) * 4, max_size=MAX_WEIGHTS),
                "b": Array((None,), max_size=MAX_WEIGHTS), "stride": INTEGER, "padding": INTEGER},
               {"kind": Either(*POOLS), "size": INTEGER, "stride": INTEGER},
               {"kind": Either("flatten", *ELEMENTWISE)},
               {"kind": "dense", "activation": Text(20), "W": Array((None, None), max_size=MAX_WEIGHTS),
                "b": _ROW})


def training(ns, images, onehot):
    """What the notebook's training did (`dp_common.training`): asked only of a network below the
    bar, to locate where its training went wrong."""
    return _training(ns, images, onehot)


REPLIES = {
    "training": lambda images, onehot: _training_reply(images),
    "answer": lambda variable: ANSWER,
    "conv2d": lambda x, w, b, stride, padding, g: _op_reply(g, x, w, b),
    "maxpool2d": lambda x, size, stride, g: _op_reply(g, x),
    "predict": lambda images: Plain(AnyShape(range(len(images)))),
    "network": lambda images: Either(
        {"layers": Items(LAYER, max_len=MAX_LAYERS), "digits": Array((len(images),))},
        {"not_standard": Text(300)}),
    "filters": lambda: Either(
        {"type": "Figure", "W": Array((None,) * 4, finite=False, max_size=MAX_WEIGHTS),
         "images": Items(Plain(Array(None, finite=False, max_size=100_000)), max_len=MAX_IMAGES),
         "count": INTEGER},
        {"type": TypeName("Figure")},
        {"no_conv": Text(100)}),
}
