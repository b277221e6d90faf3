"""References of 01 scalar autodiff (grader only; see autograder/references/__init__.py).

Every value is computed by dp on inputs that the checks drew: the value and the gradients of one
operation, the gradients of a program of operations, a derivative; and the nodes (values with
their local derivatives) from which the `graph` probe builds the graph that the student's
backward() runs on. Arguments and results are plain data.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from dp import Node

from . import misconception

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


def node_gradients(program, inputs) -> list:
    """d out / d r for every register r of `program` (the inputs first; out is the last), by
    the chain rule from the output back: d out/d r = sum over r's children c of
    d out/d c * d c/d r (the local derivatives of `_nodes`)."""
    grads = [0.0] * (len(inputs) + len(program)) if program else [1.0] * len(inputs)
    grads[-1] = 1.0
    for k, (_, edges) in reversed(list(enumerate(_nodes(program, inputs)))):
        for register, local in edges:
            grads[register] += grads[len(inputs) + k] * local
    return grads


def _nodes(program, inputs) -> list:
    """[value, [(register, local derivative), ...]] for each instruction [op, i] or [op, i, j]."""
    values, nodes = list(inputs), []
    for op, *args in program:
        value, derivatives = LOCAL[op](*(values[i] for i in args))
        values.append(value)
        nodes.append([value, list(zip(args, derivatives))])
    return nodes


def graph_nodes(program, inputs) -> dict:
    """The nodes that the `graph` probe makes after the leaves holding `inputs` (`_nodes`), as
    arrays: their "values" (n,), the registers of their "parents" (n, 2; -1 for the second of an
    [op, i]) and the "locals", d node / d parent (n, 2; 0 there). 01's chain of 5,000 nodes
    travels to the probe in a millisecond, as nested lists in 60 ms."""
    nodes = _nodes(program, inputs)

    def column(k, fill):        # k = 0: the parents' registers, 1: the local derivatives
        return [[edge[k] for edge in edges] + [fill] * (2 - len(edges)) for _, edges in nodes]
    return {"values": np.array([value for value, _ in nodes], dtype=float),
            "parents": np.array(column(0, -1), dtype=np.int64).reshape(-1, 2),
            "locals": np.array(column(1, 0.0), dtype=float).reshape(-1, 2)}


def derivative(function, x, eps=None) -> float:
    """f'(x) for the named function f (eps: the step of the numerical estimate compared with it,
    which only the known mistakes' estimates depend on)."""
    return float(FUNCTIONS[function](Node(x, "x")).grad(1)["x"])


# -- the references as the exercise has students write them (derived.py: `forms`) ---------------
# Each operation gives its value and its local derivatives, one function of the operands each,
# by the formulas of the exercise's docstrings: a slip in one (-a / b, the square lost) is then a
# mutation of it, as it is not of dp's code (-g * out / b has no square to lose).
def _add(a, b):
    """a + b.   d/da = 1,  d/db = 1"""
    return a + b, (lambda: 1.0, lambda: 1.0)


def _sub(a, b):
    """a - b.   d/da = 1,  d/db = -1"""
    return a - b, (lambda: 1.0, lambda: -1.0)


def _mul(a, b):
    """a * b.   d/da = b,  d/db = a"""
    return a * b, (lambda: b, lambda: a)


def _div(a, b):
    """a / b.   d/da = 1/b,  d/db = -a/b^2"""
    return a / b, (lambda: 1 / b, lambda: -a / b ** 2)


def _neg(a):
    """-a.   d/da = -1"""
    return -a, (lambda: -1.0,)


def _exp(a):
    """e^a.   d/da = e^a"""
    value = math.exp(a)
    return value, (lambda: value,)


def _log(a):
    """ln a.   d/da = 1/a"""
    return math.log(a), (lambda: 1 / a,)


def _tanh(a):
    """tanh a.   d/da = 1 - tanh^2 a"""
    value = math.tanh(a)
    return value, (lambda: 1 - value ** 2,)


def _sigmoid(a):
    """sigma(a) = 1 / (1 + e^-a).   d/da = sigma(a) (1 - sigma(a))"""
    value = 1 / (1 + math.exp(-a))
    return value, (lambda: value * (1 - value),)


WRITTEN = {"add": _add, "sub": _sub, "mul": _mul, "div": _div, "neg": _neg, "exp": _exp,
           "log": _log, "tanh": _tanh, "sigmoid": _sigmoid}


def binary_written(op, a, b, number=None) -> list:
    """`binary`, by the exercise's formulas."""
    value, (da, db) = WRITTEN[op](a, b)
    return [value, _sides(number, da(), db())]


def unary_written(fn, x) -> list:
    """`unary`, by the exercise's formulas."""
    value, (dx,) = WRITTEN[fn](x)
    return [value, [dx()]]


def derivative_written(function, x, eps=None) -> float:
    """`derivative` as numerical_gradient estimates it: the central difference
    (f(x + eps) - f(x - eps)) / (2 eps), whose error (about eps^2) is far below the checks'."""
    f, eps = ESTIMATED[function], 1e-6 if eps is None else eps
    return (f(x + eps) - f(x - eps)) / (2 * eps)


AS_WRITTEN = {"binary": ("binary_written",), "unary": ("unary_written",),
              "derivative": ("derivative_written",)}


# -- known mistakes (autograder/references/__init__.py: `misconception`) -------------------------
def _sides(number, da, db) -> list:
    """[d/da, d/db], None for the side given as a Python number."""
    return [None if number == "left" else da, None if number == "right" else db]


@misconception("binary", "d(a / b)/db = +a / b^2: the minus sign of the quotient rule is lost",
               op="div")
def div_denominator_sign(op, a, b, number=None):
    return [a / b, _sides(number, 1 / b, a / b ** 2)]


@misconception("binary", "d(a - b)/db = +1, as if it were a + b", op="sub")
def sub_gradient_sign(op, a, b, number=None):
    return [a - b, _sides(number, 1.0, 1.0)]


@misconception("binary", "number - a computed as a - number: __rsub__ must return other - self",
               op="sub", number="left")
def rsub_order(op, a, b, number=None):
    return [b - a, _sides(number, None, 1.0)]


@misconception("unary", "sigma(-x): the sign of the exponent, sigma(x) = 1 / (1 + e^-x)",
               fn="sigmoid")
def sigmoid_of_minus_x(fn, x):
    value = 1 / (1 + math.exp(x))
    return [value, [value * (1 - value)]]


@misconception("unary", "d tanh x/dx = 1 - tanh x: the square is missing, 1 - tanh^2 x", fn="tanh")
def tanh_derivative_unsquared(fn, x):
    return [math.tanh(x), [1 - math.tanh(x)]]


@misconception("unary", "d log x/dx = 1/x^2, not 1/x", fn="log")
def log_derivative_inverse_square(fn, x):
    return [math.log(x), [1 / x ** 2]]


def _backward(program, inputs, order: str, accumulate=True) -> list:
    """d out / d x_i as a backward() gives them on the graph that the `graph` probe makes from
    `program`, when it visits the nodes in `order` ("topological": depth-first post-order,
    reversed, as the notebook's; "preorder": depth-first pre-order from the output;
    "breadth_first": from the output) and passes each node's grad to its parents in that order,
    adding it (`accumulate`) or overwriting what a parent had."""
    parents = [[] for _ in inputs] + [edges for _, edges in _nodes(program, inputs)]
    out, found, seen = len(parents) - 1, [], set()
    if order == "breadth_first":
        found, seen = [out], {out}
        for node in found:          # the list grows as it is read: a queue
            for p, _ in parents[node]:
                if p not in seen:
                    seen.add(p)
                    found.append(p)
    else:
        stack = [(out, False)]
        while stack:
            node, done = stack.pop()
            if done:
                found.append(node)
            elif node not in seen:
                seen.add(node)
                if order == "preorder":
                    found.append(node)
                else:
                    stack.append((node, True))
                stack.extend((p, False) for p, _ in parents[node])
        if order == "topological":
            found.reverse()
    grads = dict.fromkeys(range(len(parents)), 0.0)
    grads[out] = 1.0
    for node in found:
        for p, local in parents[node]:
            grads[p] = (grads[p] if accumulate else 0.0) + local * grads[node]
    return [grads[i] for i in range(len(inputs))]


@misconception("program_gradients", "a node's grad overwritten (=) instead of accumulated (+=): a "
                                    "node used twice keeps only the last share of its gradient")
def overwrite_instead_of_accumulate(program, inputs):
    return _backward(program, inputs, "topological", accumulate=False)


@misconception("program_gradients", "the nodes visited in depth-first pre-order from the output: a "
                                    "node passes its grad on before every node computed from it "
                                    "has added its share (use a topological order)")
def preorder_instead_of_topological(program, inputs):
    return _backward(program, inputs, "preorder")


@misconception("program_gradients", "the nodes visited breadth-first from the output: right when "
                                    "the paths to a node have the same length, wrong otherwise "
                                    "(use a topological order)")
def breadth_first_order(program, inputs):
    return _backward(program, inputs, "breadth_first")


@misconception("derivative", "a forward difference (f(x + eps) - f(x)) / eps: an error of order "
                             "eps, not eps^2 as the central difference")
def forward_difference(function, x, eps=None):
    f, eps = ESTIMATED[function], 1e-6 if eps is None else eps
    return (f(x + eps) - f(x)) / eps


@misconception("derivative", "the central difference divided by eps instead of 2 eps")
def central_difference_over_eps(function, x, eps=None):
    f, eps = ESTIMATED[function], 1e-6 if eps is None else eps
    return (f(x + eps) - f(x - eps)) / eps


# the functions as the numgrad probe gives them to numerical_gradient (floats in, floats out)
ESTIMATED = {"exp": math.exp, "sin": math.sin, "log": math.log, "tanh": math.tanh,
             "cube": lambda x: x ** 3}
