"""Probes of 01 scalar autodiff: the student's Scalar and numerical_gradient on the grader's inputs.

No dp here: this module runs next to the student's code, where dp is a forbidden import. It only
calls the student's code and collects what it made; every chain rule and every derivative formula
is the grader's (autograder/checks/scalar_autodiff.py).

The tasks are probed apart, so that one mistake costs the points of one task:
- `binary` and `unary` return the graph of one operation as the student's nodes hold it: each
  node's parents and the local derivatives stored with them. The grader runs the chain rule on
  it, so the operators are graded whether or not the student's `backward()` works;
- `graph` builds nodes with the `Scalar` constructor from the values and local derivatives that
  the grader sends, not with the student's operators: `backward()` is graded on its own.
"""
import math
import operator

from .schema import Either, Hint, Items, Number, TypeName

_BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv}

# the functions numerical_gradient is tried on, by name
_FUNCTIONS = {"exp": math.exp, "sin": math.sin, "log": math.log, "tanh": math.tanh,
              "cube": lambda x: x ** 3}

MAX_NODES = 10_000     # a single operation makes a handful


def _result(ns, out, operands) -> dict:
    """The type and value of `out`, and the nodes it was computed from, as the student's nodes
    hold them: `parents[k]` lists [index of the parent, its local derivative] for node k. Node 0
    is `out`, then the operands that are Scalars (`operands`: their indices, None for a Python
    number), then every other node in the order they were met."""
    scalar = ns["Scalar"]
    if not isinstance(out, scalar):
        return {"type": type(out).__name__}
    nodes, index = [out], {id(out): 0}
    for x in operands:
        if isinstance(x, scalar) and id(x) not in index:
            index[id(x)] = len(nodes)
            nodes.append(x)
    parents = []
    for node in nodes:                      # the list grows as new parents are met
        edges = []
        for parent, local in node.parents:
            if id(parent) not in index:
                if len(nodes) == MAX_NODES:
                    raise ValueError(f"one operation made a graph of more than {MAX_NODES:,} nodes")
                index[id(parent)] = len(nodes)
                nodes.append(parent)
            edges.append([index[id(parent)], float(local)])
        parents.append(edges)
    return {"type": "Scalar", "value": float(out.value), "parents": parents,
            "operands": [index[id(x)] if isinstance(x, scalar) else None for x in operands]}


def binary(ns, op, a, b, number=None):
    """`a <op> b` for Scalars a and b, or with the Python number a (number="left") or b
    (number="right"): its type, value and graph (`_result`)."""
    scalar = ns["Scalar"]
    left = a if number == "left" else scalar(a)
    right = b if number == "right" else scalar(b)
    return _result(ns, _BINARY[op](left, right), (left, right))


def unary(ns, fn, a):
    """-x (fn="neg") or x.<fn>() for the Scalar x = a: its type, value and graph (`_result`)."""
    x = ns["Scalar"](a)
    return _result(ns, -x if fn == "neg" else getattr(x, fn)(), (x,))


def graph(ns, inputs, nodes):
    """Leaves holding `inputs` start a list of registers; each node of `nodes` (arrays "values",
    "parents" and "locals", a row per node; parent -1: none) appends Scalar(value, ((register i,
    local), ...)). Then the student's backward() from the last register. Returns the last
    register's grad, and the grad of every input."""
    scalar = ns["Scalar"]
    registers = [scalar(x) for x in inputs]
    for value, parents, local in zip(nodes["values"].tolist(), nodes["parents"].tolist(),
                                     nodes["locals"].tolist()):
        registers.append(scalar(value, tuple((registers[i], d) for i, d in zip(parents, local) if i >= 0)))
    out = registers[-1]
    out.backward()
    return {"grad": float(out.grad),
            "input_grads": [float(x.grad) for x in registers[:len(inputs)]]}


def numgrad(ns, function, x, eps=None):
    """The student's numerical_gradient of the named function at x (with its default eps when
    eps is None), and where it evaluated the function, as offsets from x in units of eps."""
    f, points = _FUNCTIONS[function], []

    def traced(t):
        points.append(t)
        return f(t)

    args = (traced, x) if eps is None else (traced, x, eps)
    estimate = ns["numerical_gradient"](*args)
    unit = 1e-6 if eps is None else eps
    return {"estimate": float(estimate), "offsets": [(t - x) / unit for t in points[:10]]}


def _operation(*operands):
    """The reply of `binary`/`unary`: the graph, the index of each operand (None for a Python
    number)."""
    edge = [Number(integer=True), Number()]
    return Either({"type": "Scalar", "value": Number(),
                   "parents": Items(Items(edge), max_len=MAX_NODES),
                   "operands": [None if number else Number(integer=True) for number in operands]},
                  {"type": TypeName("Scalar")})


REPLIES = {
    "binary": lambda op, a, b, number=None: _operation(number == "left", number == "right"),
    "unary": lambda fn, a: _operation(False),
    "graph": lambda inputs, nodes: {"grad": Number(), "input_grads": Items(Number(), len(inputs))},
    "numgrad": {"estimate": Number(), "offsets": Hint(Items(Number(finite=False), max_len=10))},
}
