"""References of 02 matrix autodiff (grader only; see autograder/references/__init__.py).

dp runs the program of a check on the check's matrices: its value, and the gradient of every
input for L = sum(G * out) with the check's upstream gradient G. A program is a list of
instructions [op, i, ...] on registers, the inputs first (as the `run` probe has them).
"""
from __future__ import annotations

import numpy as np

from dp import Node

NAMES = "abc"
# op -> (dp function, number of Node operands); further arguments (a number, an axis) follow
OPS = {
    "dot": (lambda a, b: a.dot(b), 2),
    "T": (lambda a: a.T, 1),
    "transpose": (lambda a: a.transpose(), 1),
    "add": (lambda a, b: a + b, 2),
    "mul": (lambda a, b: a * b, 2),
    "plus_number": (lambda a, c: a + c, 1),
    "number_plus": (lambda a, c: c + a, 1),
    "times_number": (lambda a, c: a * c, 1),
    "number_times": (lambda a, c: c * a, 1),
    "sum": (lambda a, axis=None: a.sum(axis=axis), 1),
    "softmax": (lambda a: a.softmax(), 1),
    "log": (lambda a: a.log(), 1),
}


def _run(inputs, program):
    """The inputs as named leaves, and the program's output, by dp."""
    leaves = [Node(np.asarray(x, dtype=float), NAMES[i]) for i, x in enumerate(inputs)]
    registers = list(leaves)
    for op, *args in program:
        function, arity = OPS[op]
        registers.append(function(*(registers[i] for i in args[:arity]), *args[arity:]))
    return leaves, registers[-1]


def value(inputs, program) -> np.ndarray:
    """The program's value, 2-D as the notebook's Tensors are (a whole sum is (1, 1))."""
    _, out = _run(inputs, program)
    return out.value.reshape((1, 1)) if out.value.ndim == 0 else out.value


def gradients(inputs, program, upstream) -> list:
    """dL/dx for every input x, L = sum(G * out) for the upstream gradient G (`value`'s shape)."""
    leaves, out = _run(inputs, program)
    grads = out.grad(np.asarray(upstream, dtype=float).reshape(out.value.shape))
    return [grads.get(leaf.name, np.zeros(leaf.value.shape)) for leaf in leaves]
