"""References of 02 matrix autodiff (grader only; see autograder/references/__init__.py).

dp runs the program of a check on the check's matrices: its value, and the gradient of every
input for L = sum(G * out) with the check's upstream gradient G. A program is a list of
instructions [op, i, ...] on registers, the inputs first (as the `run` probe has them).
"""
from __future__ import annotations

import numpy as np

from dp import Node

from . import misconception

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


# -- known mistakes (autograder/references/__init__.py: `misconception`) ----------------------------
# The same programs run by reverse mode in NumPy, each op's backward pass a vector-Jacobian
# product (VJP) of the upstream gradient G, as the notebook writes them; a known mistake replaces
# one VJP. VJPS[op](G, out, *operands, *arguments) -> the gradient of each matrix operand.
def _unbroadcast(grad, shape, keepdims=True):
    """grad summed over the axes along which an operand of `shape` was broadcast."""
    stretched = tuple(axis for axis, n in enumerate(shape) if n == 1 and grad.shape[axis] != 1)
    return grad.sum(axis=stretched, keepdims=keepdims)


VJPS = {
    "dot": lambda g, out, a, b: (g @ b.T, a.T @ g),
    "T": lambda g, out, a: (g.T,),
    "transpose": lambda g, out, a: (g.T,),
    "add": lambda g, out, a, b: (_unbroadcast(g, a.shape), _unbroadcast(g, b.shape)),
    "mul": lambda g, out, a, b: (_unbroadcast(g * b, a.shape), _unbroadcast(g * a, b.shape)),
    "plus_number": lambda g, out, a, c: (g,),
    "number_plus": lambda g, out, a, c: (g,),
    "times_number": lambda g, out, a, c: (g * c,),
    "number_times": lambda g, out, a, c: (g * c,),
    "sum": lambda g, out, a, axis=None: (np.broadcast_to(g, a.shape),),
    "softmax": lambda g, s, a: (s * (g - (g * s).sum(axis=1, keepdims=True)),),
    "log": lambda g, out, a: (g / a,),
}


def _numpy_gradients(inputs, program, upstream, **mistaken) -> list:
    """dL/dx for every input, L = sum(G * out), by reverse mode in NumPy with the VJPs of VJPS,
    those of `mistaken` ({op: VJP}) in their place."""
    vjps = {**VJPS, **mistaken}
    registers = [np.asarray(x, dtype=float) for x in inputs]
    for op, *args in program:
        function, arity = OPS[op]
        out = function(*(Node(registers[i]) for i in args[:arity]), *args[arity:]).value
        registers.append(out.reshape((1, 1)) if out.ndim == 0 else out)
    grads = [np.zeros_like(r) for r in registers]
    grads[-1] = np.asarray(upstream, dtype=float).reshape(registers[-1].shape)
    for k in reversed(range(len(inputs), len(registers))):
        op, *args = program[k - len(inputs)]
        arity = OPS[op][1]
        operands = args[:arity]
        for i, grad in zip(operands, vjps[op](grads[k], registers[k],
                                               *(registers[i] for i in operands), *args[arity:])):
            grads[i] = grads[i] + grad
    return grads[:len(inputs)]


def gradients_written(inputs, program, upstream) -> list:
    """`gradients` as the notebook has students write them, by the VJPs of VJPS (derived.py:
    `forms`: a slip in a VJP, an axis of softmax's sum, is a mutation of VJPS, not of dp)."""
    return _numpy_gradients(inputs, program, upstream)


AS_WRITTEN = {"gradients": ("gradients_written",)}


def _mistake(ops: str, why: str):
    """Register the decorated VJP as the known mistake of the backward pass of the ops `ops`
    (names separated by spaces: one function of the notebook may be several ops), that is of
    `gradients` with it, where the program uses one of them and its shapes let it run (a
    mistaken product of matrices of other shapes raises, as the mistaken code does)."""
    def register(vjp):
        def mistaken_gradients(inputs, program, upstream):
            if not any(instruction[0] in ops.split() for instruction in program):
                return None
            try:
                return _numpy_gradients(inputs, program, upstream,
                                        **dict.fromkeys(ops.split(), vjp))
            except ValueError:          # shapes that do not fit
                return None
        misconception("gradients", why, name=vjp.__name__)(mistaken_gradients)
        return vjp
    return register


@_mistake("dot", "each operand of the matrix product gets the other one's gradient: dL/da = G b^T, "
                 "dL/db = a^T G")
def dot_gradients_swapped(g, out, a, b):
    return a.T @ g, g @ b.T


@_mistake("dot", "dL/da = b^T G: the factors in the wrong order, dL/da = G b^T")
def dot_factors_in_wrong_order(g, out, a, b):
    return b.T @ g, a.T @ g


@_mistake("T transpose", "the gradient of a^T passed on without transposing it back: dL/da = G^T")
def transpose_gradient_not_transposed(g, out, a):
    return (g,)


@_mistake("mul", "d(a * b)/db = b: the operand's own value instead of the other's")
def mul_gradient_own_value(g, out, a, b):
    return _unbroadcast(g * b, a.shape), _unbroadcast(g * b, b.shape)


@_mistake("sum", "the backward pass of a sum ignores the upstream gradient: ones")
def sum_backward_returns_ones(g, out, a, axis=None):
    return (np.ones(a.shape),)


@_mistake("softmax", "only the diagonal of the softmax Jacobian: G s (1 - s) instead of "
                     "s (G - sum_k G_k s_k)")
def softmax_gradient_diagonal_only(g, s, a):
    return (g * s * (1 - s),)


@_mistake("log", "d log a = 1/a, not multiplied by the upstream gradient: G / a")
def log_gradient_ignores_upstream(g, out, a):
    return (1 / a,)
