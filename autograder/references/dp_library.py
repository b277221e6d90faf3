"""References of 03 DP library (the grader's side only): dp's own gradients of the checks'
graphs and networks.

`grad(g)` of an output returns {name: dL/d(leaf)} for every named leaf that the output was computed
from, by the chain rule in topological order: every node passes grad_fn(its gradient) to each of
its parents, and a node used several times adds up its shares. A `Model`'s get_grad(x, y) is
(grad(1) of loss(x, y) by parameter name, the loss). dp does exactly this, so the references are
dp's, run on the graphs and networks that the checks chose.
"""
from __future__ import annotations

import numpy as np

import dp
from dp import Node

from . import misconception

GRAPH_OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "dot": lambda a, b: a.dot(b),
    "T": lambda a: a.T,
    "sum": lambda a: a.sum(),
    "exp": Node.exp,
    "log": Node.log,
    "square": Node.square,
    "relu": Node.relu,
    "tanh": Node.tanh,
}


def graph_gradients(inputs, names, program, upstream=None) -> dict:
    """{name: gradient} of grad(1), or of grad(upstream), on the graph whose leaves are
    Node(input, name) (name None: a constant) and whose instructions [op, i] or [op, i, j] each
    append op(register i, register j) to the registers; the last register is the output."""
    registers = [Node(np.asarray(x, dtype=float), name) for x, name in zip(inputs, names)]
    for op, *args in program:
        registers.append(GRAPH_OPS[op](*(registers[i] for i in args)))
    out = registers[-1]
    if upstream is None:
        return out.grad(1)
    return out.grad(np.asarray(upstream).reshape(out.value.shape))


# -- known mistakes (autograder/references/__init__.py: `misconception`) ----------------------------
def _shares(op, operands, g) -> list:
    """The gradient that each operand position of op(*operands) receives for the upstream g (one
    share per position, so a * a gives two), by dp."""
    leaves = [Node(np.asarray(v, dtype=float), f"o{j}") for j, v in enumerate(operands)]
    grads = (GRAPH_OPS[op](*leaves) * g).sum().grad(1)
    return [grads.get(f"o{j}", np.zeros(np.shape(v))) for j, v in enumerate(operands)]


@misconception("graph_gradients", "a node's gradient overwritten by each share instead of summed: "
                                  "a node used twice keeps only the last share")
def shares_overwritten(inputs, names, program, upstream=None):
    """grad() that passes each node's gradient on in reverse order of the instructions (a
    topological order), every parent keeping only the last share it receives."""
    registers = [np.asarray(x, dtype=float) for x in inputs]
    for op, *args in program:
        registers.append(np.asarray(GRAPH_OPS[op](*(Node(registers[i]) for i in args)).value))
    grads = {len(registers) - 1: np.ones(registers[-1].shape) * (
        1.0 if upstream is None else np.asarray(upstream).reshape(registers[-1].shape))}
    for k in reversed(range(len(inputs), len(registers))):
        op, *args = program[k - len(inputs)]
        for i, share in zip(args, _shares(op, [registers[i] for i in args], grads.pop(k))):
            grads[i] = share
    return {name: grads[i] for i, name in enumerate(names) if name is not None and i in grads}


def _network(layers, params):
    """A dp Model with layers h0, h1, ... made by dp's factories from [[factory, n_in, n_out],
    ...], the parameters `params` ({"h0_W": ..., "h0_b": ...}), and the mean squared error."""
    class Reference(dp.Model):
        def __init__(self):
            super().__init__()
            self.stack = [getattr(self, factory)(n_in, n_out, f"h{i}")
                          for i, (factory, n_in, n_out) in enumerate(layers)]

        def forward(self, x):
            h = Node(x)
            for layer in self.stack:
                h = layer(h)
            return h

        def loss(self, x, y):
            return (self.forward(x) - y).square().mean()

    net = Reference()
    net.set_param({name: np.asarray(value, dtype=float) for name, value in params.items()})
    return net


def network_output(layers, params, x) -> np.ndarray:
    """forward(x) of the network of `layers` with the parameters `params`."""
    return _network(layers, params).forward(np.asarray(x, dtype=float)).value


@misconception("network_output", "a ReLU layer is linear: the ReLU is not applied")
def relu_layers_linear(layers, params, x):
    return network_output([["Linear_Layer", n_in, n_out] for _, n_in, n_out in layers], params, x)
