"""Probes of 12 recurrent networks: the student's rnn_forward, bptt and predict on the grader's
inputs. (`dp` is allowed in this notebook, so the probes may use it.)

The tasks are probed apart, so that one mistake costs the points of one task:
- `forward` calls rnn_forward with the grader's parameters as named leaves, and backpropagates with
  dp's engine through the graph the student's code built (task rnn_forward);
- `bptt` calls bptt with the forward states that the grader computed, so it does not depend on
  the student's rnn_forward (task bptt_gradients);
- `predict` returns the trained model's predictions, and `model` the trained model's parameters,
  which the grader runs through its own forward pass, with model.forward's own predictions (which
  the self-check uses instead); the targets stay with the grader (task sequence_task).
"""
import numpy as np

import dp
from dp import Node

from .schema import AnyShape, Array, Either, Items, Number, Plain, Table, TypeName


def _array(x):
    return np.array(x, dtype=float)


def _plain(value):
    """An array of floats, or the name of the type that could not be turned into one."""
    try:
        return _array(value.value if isinstance(value, Node) else value)
    except (TypeError, ValueError):
        return {"not_array": type(value).__name__}


def forward(ns, x, params, h_init=None, upstream=None):
    """rnn_forward(x, leaves) or rnn_forward(x, leaves, h_init) with the parameters (and h_init)
    as named leaves: the type of what it returned, the states' shapes, and their values stacked
    (T, n, k). With `upstream` (T, n, k): dp's gradients of sum_t sum(upstream_t * h_t) with
    respect to every named leaf of the student's graph."""
    leaves = {name: Node(_array(value), name) for name, value in params.items()}
    args = [_array(x), leaves] + ([] if h_init is None else [Node(_array(h_init), "h_init")])
    states = ns["rnn_forward"](*args)
    if not isinstance(states, (list, tuple)):
        return {"type": type(states).__name__}
    other = next((s for s in states if not isinstance(s, Node)), None)
    if other is not None:
        return {"type": f"{type(states).__name__} of {type(other).__name__}"}
    out = {"type": "list", "shapes": [list(s.shape) for s in states]}
    if states and len({tuple(s.shape) for s in states}) == 1:
        out["values"] = np.stack([_array(s.value) for s in states])
        if upstream is not None and out["values"].shape == np.shape(upstream):
            loss = sum((s * u).sum() for s, u in zip(states, _array(upstream)))
            out["grads"] = {str(name): _array(g) for name, g in loss.grad(1).items()}
    return out


def bptt(ns, x, params, h_init, H, dH):
    """The student's bptt on the grader's inputs and forward states: {name: gradient}."""
    grads = ns["bptt"](_array(x), {name: _array(v) for name, v in params.items()},
                       _array(h_init), _array(H), _array(dH))
    if not isinstance(grads, dict):
        return {"type": type(grads).__name__}
    return {"type": "dict", "grads": {str(name): _plain(value) for name, value in grads.items()}}


def predict(ns, sequences):
    """The trained model's predictions for the grader's sequences (n, T, 2)."""
    return _plain(ns["predict"](_array(sequences)))


def model(ns, sequences):
    """The trained `model`'s parameters, model.get_param(), and its own predictions for the
    grader's sequences (n, T, 2), model.forward(sequences) as n numbers."""
    trained = ns["model"]
    with dp.no_grad():
        predictions = _plain(trained.forward(_array(sequences)))
    if not isinstance(predictions, dict):
        predictions = predictions.reshape(-1)
    return {"params": {str(name): _plain(value) for name, value in trained.get_param().items()},
            "predictions": predictions}


MAX_UNITS = 256        # the widest trained cell the grader runs (the notebook's has 16 units)


def _forward_reply(x, params, h_init=None, upstream=None):
    shapes = Items(Items(Number(integer=True), max_len=32), max_len=10 * len(x) + 10)
    values = AnyShape(x, *params.values()) if upstream is None else Array(np.shape(upstream), finite=False)
    grads = Table(Array(None, finite=False, max_size=10 * max(np.size(v) for v in params.values()) + 100))
    return Either({"type": "list", "shapes": shapes, "values": values, "grads": grads},
                  {"type": "list", "shapes": shapes, "values": AnyShape(x, *params.values())},
                  {"type": "list", "shapes": shapes},
                  {"type": TypeName("list")})


REPLIES = {
    "forward": _forward_reply,
    "bptt": lambda x, params, h_init, H, dH: Either(
        {"type": "dict", "grads": Table(Plain(AnyShape(*params.values(), h_init)))},
        {"type": TypeName("dict")}),
    "predict": lambda sequences: Plain(AnyShape(range(len(sequences)))),
    # SequenceModel's five parameters for a cell of at most MAX_UNITS units (checked by name and
    # shape in the check, which says what it expected); a few more names fit, to be named there
    "model": lambda sequences: {
        "params": Table(Plain(Array(None, finite=False, max_size=MAX_UNITS ** 2)), max_len=20),
        "predictions": Plain(AnyShape(range(len(sequences))))},
}
