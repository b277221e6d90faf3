"""Probes of 07 dropout: the student's MyDropout layer, seeded by the grader, in training and in
evaluation mode. The layer's random numbers come from a Generator made here from the grader's
seed, so a draw can be repeated."""
import numpy as np

import dp
from dp import Node

from .common import answer  # noqa: F401 - a probe of this notebook
from .schema import ANSWER, AnyShape, Array, Either, Flag, Hint, Items, Number, Optional, TypeName


def _layer(ns, p, seed, training=True):
    layer = ns["MyDropout"](p, np.random.default_rng(seed))
    layer.training = training
    return layer


def _output(out) -> dict:
    """A layer's output as plain data: its value, and whether it is a Node at all."""
    value = out.value if isinstance(out, Node) else out
    return {"value": np.asarray(value, dtype=float), "is_node": isinstance(out, Node),
            "type": type(out).__name__}


def _gradient(out, u):
    """d sum(u * out) / dx for the leaf named "x", or None when no gradient reaches x."""
    if not isinstance(out, Node) or out.shape != np.shape(u):
        return None
    grad = (out * u).sum().grad(1).get("x")
    return None if grad is None else np.asarray(grad, dtype=float)


def train_outputs(ns, p, x, seed, draws):
    """`draws` outputs of one layer in training mode on the same input: shape (draws, *x.shape)."""
    layer = _layer(ns, p, seed)
    outputs = [_output(layer(Node(x, "x"))) for _ in range(draws)]
    bad = next((o for o in outputs if o["value"].shape != np.shape(x)), None)
    if bad is not None:
        return {"values": None, "shape": list(bad["value"].shape), "type": bad["type"]}
    return {"values": np.stack([o["value"] for o in outputs]), "shape": list(np.shape(x)),
            "type": outputs[0]["type"]}


def train_gradient(ns, p, x, u, seed):
    """One forward pass in training mode, and the gradient of sum(u * output) with respect to x."""
    out = _layer(ns, p, seed)(Node(x, "x"))
    return {**_output(out), "grad": _gradient(out, u)}


def twice_gradient(ns, p, x, u, v, seed):
    """Two forward passes of one layer in training mode on the same x before any backward pass,
    and the gradient of sum(u * first) + sum(v * second) with respect to x."""
    layer, leaf = _layer(ns, p, seed), Node(x, "x")
    first, second = layer(leaf), layer(leaf)
    values = [_output(out) for out in (first, second)]
    grad = None
    if all(isinstance(out, Node) and out.shape == np.shape(x) for out in (first, second)):
        grad = ((first * u).sum() + (second * v).sum()).grad(1).get("x")
    return {"first": values[0]["value"], "second": values[1]["value"],
            "grad": None if grad is None else np.asarray(grad, dtype=float)}


def eval_gradient(ns, p, x, u, seed):
    """Two forward passes in evaluation mode, the gradient of sum(u * output) with respect to x,
    and whether the layer drew random numbers."""
    rng = np.random.default_rng(seed)
    before = rng.bit_generator.state
    layer = ns["MyDropout"](p, rng)
    layer.training = False
    first, second = layer(Node(x, "x")), layer(Node(x, "x"))
    return {**_output(first), "second": _output(second)["value"], "grad": _gradient(first, u),
            "drew_random_numbers": rng.bit_generator.state != before}


AGAIN = 20      # forward passes in training mode after evaluation (`model_eval`)


def model_eval(ns, p, x, seed):
    """The layer inside a dp Model switched to evaluation mode with `net.eval()`, and then back
    to training mode with `net.train()`: AGAIN outputs of that, each (or None for a reply of
    another shape)."""
    class Net(dp.Model):
        def __init__(self):
            super().__init__()
            self.drop = ns["MyDropout"](p, np.random.default_rng(seed))

        def forward(self, x):
            return self.drop(x)

    net = Net().eval()
    evaluated = {**_output(net.forward(Node(x, "x"))), "training": bool(net.drop.training)}
    net.train()
    again = [_output(net.forward(Node(x, "x")))["value"] for _ in range(AGAIN)]
    same = all(a.shape == np.shape(x) for a in again)
    return {**evaluated, "again": np.stack(again) if same else None}


def _output_reply(x, **more):
    return {"value": AnyShape(x), "is_node": Flag(), "type": Hint(TypeName()), **more}


def _grad(x):
    return Optional(Array(np.shape(x), finite=False))


REPLIES = {
    "answer": lambda variable: ANSWER,
    "train_outputs": lambda p, x, seed, draws: Either(
        {"values": Array((draws, *np.shape(x))),
         "shape": Hint(Items(Number(integer=True), np.ndim(x))), "type": Hint(TypeName())},
        {"values": None, "shape": Items(Number(integer=True), max_len=32), "type": TypeName()}),
    "train_gradient": lambda p, x, u, seed: _output_reply(x, grad=_grad(x)),
    "twice_gradient": lambda p, x, u, v, seed: {
        "first": AnyShape(x), "second": AnyShape(x), "grad": _grad(x)},
    "eval_gradient": lambda p, x, u, seed: _output_reply(
        x, second=AnyShape(x), grad=_grad(x), drew_random_numbers=Flag()),
    "model_eval": lambda p, x, seed: _output_reply(
        x, training=Flag(), again=Optional(Array((AGAIN, *np.shape(x)), finite=False))),
}
