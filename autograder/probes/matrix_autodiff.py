"""Probes of 02 matrix autodiff: the student's Tensor operations on the grader's matrices.

No dp here: this module runs next to the student's code, where dp is a forbidden import.

`run` makes leaves of the grader's matrices, applies the operations of one task and starts the
notebook's `backward()` (given code, the same in every notebook) from the grader's upstream
gradient. A check uses only the operations of its own task, so a mistake in one operation
costs the points of that task only.
"""
import numpy as np

from .schema import Array, Either, Optional, TypeName

# op -> (function, number of Tensor operands); further arguments are passed as they are
_OPS = {
    "dot": (lambda a, b: a.dot(b), 2),
    "T": (lambda a: a.T, 1),
    "transpose": (lambda a: a.transpose(), 1),
    "add": (lambda a, b: a + b, 2),
    "mul": (lambda a, b: a * b, 2),
    "plus_number": (lambda a, c: a + c, 1),
    "number_plus": (lambda a, c: c + a, 1),
    "times_number": (lambda a, c: a * c, 1),
    "number_times": (lambda a, c: c * a, 1),
    "sum": (lambda a, axis=None: a.sum() if axis is None else a.sum(axis=axis), 1),
    "softmax": (lambda a: a.softmax(), 1),
    "log": (lambda a: a.log(), 1),
}


def _array(x):
    return None if x is None else np.array(x, dtype=float)


def run(ns, inputs, program, upstream):
    """Leaves Tensor(x) for the matrices x of `inputs` start a list of registers; each
    instruction [op, i, ...] appends op(register i, ...), with a second register for the
    binary ops and a number or an axis for the others. Then the student's backward(upstream)
    from the last register. Returns the type and value of the last register and the grad of
    every input leaf (None where backward left it unset)."""
    tensor = ns["Tensor"]
    registers = [tensor(np.array(x, dtype=float)) for x in inputs]
    for op, *args in program:
        function, arity = _OPS[op]
        operands = [registers[i] for i in args[:arity]]
        registers.append(function(*operands, *args[arity:]))
    out = registers[-1]
    if not isinstance(out, tensor):
        return {"type": type(out).__name__}
    value = _array(out.value)
    if value.shape != np.shape(upstream):
        return {"type": "Tensor", "value": value, "grads": None}
    out.backward(np.array(upstream, dtype=float))
    return {"type": "Tensor", "value": value,
            "grads": [_array(leaf.grad) for leaf in registers[:len(inputs)]]}


REPLIES = {   # values and gradients may hold nan or inf: the checks explain where they come from
    "run": lambda inputs, program, upstream: Either(
        {"type": "Tensor", "value": Array(np.shape(upstream), finite=False),
         "grads": [Optional(Array(np.shape(x), finite=False)) for x in inputs]},
        {"type": "Tensor", "value": Array(None, finite=False, max_size=10 * np.size(upstream) + 100),
         "grads": None},
        {"type": TypeName("Tensor")}),
}
