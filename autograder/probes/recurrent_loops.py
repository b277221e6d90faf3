"""Probes of 13 recurrent loops: the student's forward_order, run, backward and the trained LSTM on
the grader's inputs. (`dp` is allowed in this notebook.)

The tasks are probed apart, so that one mistake costs the points of one task:
- `order` calls forward_order on the grader's network (task forward_order);
- `run` calls run with the forward order that the grader gives, and counts the calls of the
  notebook's OPS by the number of axes of their first input: (T, B, k) for a whole sequence,
  (B, k) for one step (task loop_forward);
- `backward` calls backward with the grader's order and forward values (task loop_backward);
- `predict` returns the trained model's classes, and `model` the trained model's parameters, which
  the grader runs through its own LSTM, with model.forward's own classes (which the self-check
  uses instead); the classes of the grader's sequences stay with the grader (task lstm_task).
"""
import numpy as np

import dp

from .schema import AnyShape, Array, Either, Items, Number, Plain, Table, Text, TypeName


def _array(x):
    return np.array(x, dtype=float)


def _plain(value):
    """An array of floats, or the name of the type that could not be turned into one."""
    try:
        return _array(value.value if isinstance(value, dp.Node) else value)
    except (TypeError, ValueError):
        return {"not_array": type(value).__name__}


def _arrays(table):
    return {str(name): _plain(value) for name, value in table.items()}


def order(ns, network):
    """forward_order(network): a list of lists of node names, or the type it returned instead."""
    found = ns["forward_order"]({name: list(spec) for name, spec in network.items()})
    if not isinstance(found, (list, tuple)) or not all(isinstance(c, (list, tuple)) for c in found):
        return {"type": type(found).__name__}
    return {"type": "list", "components": [[str(name) for name in c] for c in found]}


def run(ns, network, params, inputs, order):
    """run(...) with the grader's order: {node: values}, and the number of axes of the first input
    of every call of an op of OPS, in the order of the calls."""
    calls, original = [], ns["OPS"]

    def counted(forward):
        def call(*operands):
            calls.append(int(np.ndim(operands[0])))
            return forward(*operands)
        return call
    ns["OPS"] = {op: (counted(forward), local) for op, (forward, local) in original.items()}
    try:
        values = ns["run"](network, _arrays(params), _arrays(inputs), [list(c) for c in order])
    finally:
        ns["OPS"] = original
    if not isinstance(values, dict):
        return {"type": type(values).__name__}
    return {"type": "dict", "values": _arrays(values), "calls": calls}


def backward(ns, network, params, inputs, order, values, upstream):
    """backward(...) with the grader's order and forward values: {"params": ..., "nodes": ...}."""
    grads = ns["backward"](network, _arrays(params), _arrays(inputs), [list(c) for c in order],
                           _arrays(values), _arrays(upstream))
    if not isinstance(grads, dict) or not all(isinstance(grads.get(part), dict)
                                              for part in ("params", "nodes")):
        return {"type": type(grads).__name__}
    return {"type": "dict", "params": _arrays(grads["params"]), "nodes": _arrays(grads["nodes"])}


def predict(ns, sequences):
    """The trained model's classes for the grader's sequences (n, T, 3)."""
    return _plain(ns["predict"](_array(sequences)))


def model(ns, sequences):
    """The trained `model`'s parameters, model.get_param(), and its own classes for the grader's
    sequences (n, T, 3): the argmax of model.forward(sequences), n numbers."""
    trained = ns["model"]
    with dp.no_grad():
        logits = _plain(trained.forward(_array(sequences)))
    classes = logits if isinstance(logits, dict) or logits.ndim != 2 else logits.argmax(axis=1)
    return {"params": _arrays(trained.get_param()), "predictions": _plain(classes)}


MAX_UNITS = 256        # the widest trained LSTM the grader runs (the notebook's has 16 units)
NAME = Text(100)


def _size(*tables) -> int:
    return 10 * max([np.size(v) for table in tables for v in table.values()] + [1]) + 100


def _components(network):
    return Items(Items(NAME, max_len=len(network)), max_len=len(network))


REPLIES = {
    "order": lambda network: Either({"type": "list", "components": _components(network)},
                                    {"type": TypeName("list")}),
    "run": lambda network, params, inputs, order: Either(
        {"type": "dict", "values": Table(Plain(Array(None, finite=False,
                                                     max_size=_size(params, inputs))),
                                         max_len=2 * len(network)),
         "calls": Items(Number(integer=True), max_len=100 * len(network) * (1 + len(
             next(iter(inputs.values())))))},
        {"type": TypeName("dict")}),
    "backward": lambda network, params, inputs, order, values, upstream: Either(
        {"type": "dict",
         "params": Table(Plain(AnyShape(*params.values())), max_len=2 * len(params) + 10),
         "nodes": Table(Plain(AnyShape(*values.values())), max_len=2 * len(network) + 10)},
        {"type": TypeName("dict")}),
    "predict": lambda sequences: Plain(AnyShape(range(len(sequences)))),
    # LSTMClassifier's five parameters for at most MAX_UNITS units (checked by name and shape in
    # the check, which says what it expected); a few more names fit, to be named there
    "model": lambda sequences: {
        "params": Table(Plain(Array(None, finite=False, max_size=4 * MAX_UNITS ** 2)), max_len=20),
        "predictions": Plain(AnyShape(range(len(sequences))))},
}
