"""References of 01 scalar autodiff (grader only; see autograder/references/__init__.py).

Every value is computed by dp on inputs that the checks drew: the value and the gradients of one
operation, the gradients of a program of operations, a derivative; and the nodes (values with
their local derivatives) from which the `graph` probe builds the graph that the student's
backward() runs on. Arguments and results are plain data.
"""
from __future__ import annotations

import math
import operator

from dp import Node

PYTHON_OPERATORS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
                    "div": operator.truediv}
GRAPH_OPS = {"add": operator.add, "mul": operator.mul, "exp": Node.exp, "log": Node.log,
             "tanh": Node.tanh}
# op -> (value, local derivatives) of its operands' values: d(a + b) = (1, 1), d(a b) = (b, a),
# d exp a = exp a, d log a = 1 / a, d tanh a = 1 - tanh^2 a
LOCAL = {
    "add": lambda a, b: (a + b, (1.0, 1.0)),
    "mul": lambda a, b: (a * b, (b, a)),
    "exp": lambda a: (math.exp(a), (math.exp(a),)),
    "log": lambda a: (math.log(a), (1 / a,)),
    "tanh": lambda a: (math.tanh(a), (1 - math.tanh(a) ** 2,)),
}
FUNCTIONS = {"exp": Node.exp, "sin": Node.sin, "log": Node.log, "tanh": Node.tanh,
             "cube": lambda x: x ** 3}


def binary(op, a, b, number=None) -> list:
    """[value of a <op> b, [d/da, d/db]]; the derivative with respect to the side given as a
    Python number (`number` = "left" or "right") is None."""
    left = a if number == "left" else Node(a, "a")
    right = b if number == "right" else Node(b, "b")
    out = PYTHON_OPERATORS[op](left, right)
    grads = out.grad(1)
    return [out.item(), [None if number == "left" else float(grads["a"]),
                         None if number == "right" else float(grads["b"])]]


def unary(fn, x) -> list:
    """[value of -x (fn="neg") or fn(x), [d/dx]]."""
    node = Node(x, "x")
    out = -node if fn == "neg" else getattr(node, fn)()
    return [out.item(), [float(out.grad(1)["x"])]]


def program_gradients(program, inputs) -> list:
    """d out / d x_i for each input of `program` (instructions [op, i] or [op, i, j] on the
    registers, the inputs first; out is the last register)."""
    registers = [Node(x, f"x{i}") for i, x in enumerate(inputs)]
    for op, *args in program:
        registers.append(GRAPH_OPS[op](*(registers[i] for i in args)))
    grads = registers[-1].grad(1)
    return [float(grads.get(f"x{i}", 0.0)) for i in range(len(inputs))]


def graph_nodes(program, inputs) -> list:
    """The nodes that the `graph` probe makes after the leaves holding `inputs`: [value,
    [[register, local derivative], ...]] for each instruction [op, i] or [op, i, j]."""
    values, nodes = list(inputs), []
    for op, *args in program:
        value, derivatives = LOCAL[op](*(values[i] for i in args))
        values.append(value)
        nodes.append([value, [[i, d] for i, d in zip(args, derivatives)]])
    return nodes


def derivative(function, x) -> float:
    """f'(x) for the named function f."""
    return float(FUNCTIONS[function](Node(x, "x")).grad(1)["x"])
