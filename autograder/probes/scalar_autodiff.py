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
  Its work is bounded (`_bounded`): a backward() that follows every path to a node, of which a
  graph of a few nodes can have 2^60, is stopped after a few thousand steps, not left to use up
  the time of every later probe.
"""
import contextlib
import math
import operator

import numpy as np

from .schema import Array, Either, Hint, Items, Number, TypeName

_BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv}

# the functions numerical_gradient is tried on, by name
_FUNCTIONS = {"exp": math.exp, "sin": math.sin, "log": math.log, "tanh": math.tanh,
              "cube": lambda x: x ** 3}

MAX_NODES = 10_000     # a single operation makes a handful
MAX_PARENTS = 4        # of one node: an operation makes a node of one or two (x * x: two edges to x)
# A backward() that visits each node once writes about one grad per node and edge of the graph,
# and reads each node's parents once or twice: more than WORK per node and edge of either is
# following the paths to a node, not visiting it once.
WORK = 50


class _Stop(BaseException):
    """Raised inside the student's backward() when it goes over its bound (`_bounded`): not an
    Exception, so that an `except Exception` of theirs does not go on regardless."""


class TooMuchWork(RuntimeError):
    """What the `graph` probe raises, outside the student's code, when it stopped backward()."""


@contextlib.contextmanager
def _bounded(cls, bound: int, graph: str):
    """Within: the writes of `grad` and the reads of `parents` on the instances of `cls` are
    counted (its __setattr__ and __getattribute__ wrapped, whatever they are: its own, inherited,
    those of a class with __slots__), and the first one over `bound` raises _Stop, as does
    every one after it. Yields a list that then holds what it said (empty while none went over).
    On leaving, `cls` has exactly the attributes it had."""
    counts, over = {"grad": 0, "parents": 0}, []
    if not isinstance(cls, type):
        yield over
        return
    says = {"grad": "gradient updates", "parents": "reads of node.parents"}
    set_attribute, get_attribute = cls.__setattr__, cls.__getattribute__
    own = {name: cls.__dict__[name] for name in ("__setattr__", "__getattribute__")
           if name in cls.__dict__}

    def tick(name):
        counts[name] += 1
        if counts[name] > bound:
            if not over:
                over.append(f"backward() did more than {bound:,} {says[name]} on {graph}")
            raise _Stop(over[0])

    def __setattr__(self, name, value):
        if name == "grad":
            tick(name)
        set_attribute(self, name, value)

    def __getattribute__(self, name):
        if name == "parents":
            tick(name)
        return get_attribute(self, name)

    def restore():
        for name in ("__setattr__", "__getattribute__"):
            if name in own:
                setattr(cls, name, own[name])
            elif name in cls.__dict__:
                delattr(cls, name)

    try:
        cls.__setattr__ = __setattr__
        cls.__getattribute__ = __getattribute__
    except (TypeError, AttributeError):     # a class that cannot be changed: not bounded
        restore()
        yield over
        return
    try:
        yield over
    finally:
        restore()


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


def graph(ns, inputs, nodes, bounded=False, twice=False):
    """Leaves holding `inputs` start a list of registers; each node of `nodes` (arrays "values",
    "parents" and "locals", a row per node; parent -1: none) appends Scalar(value, ((register i,
    local), ...)). Then the student's backward() from the last register (`twice`: two calls in
    a row, as after a second loss on the same nodes). Returns the last register's grad, the
    grad of every input, and of every register (to locate the first that differs), after the
    last call. With `bounded`, the backward() may write a
    grad, and read a node's parents, WORK times per node and edge of the graph (`_bounded`):
    only on the graph of many paths, so that a correct backward that is merely slow (a
    quadratic sort) is not called wrong elsewhere."""
    scalar = ns["Scalar"]
    registers, edges = [scalar(x) for x in inputs], 0
    for value, parents, local in zip(nodes["values"].tolist(), nodes["parents"].tolist(),
                                     nodes["locals"].tolist()):
        made = tuple((registers[i], d) for i, d in zip(parents, local) if i >= 0)
        registers.append(scalar(value, made))
        edges += len(made)
    out = registers[-1]
    graph = f"a graph of {len(registers):,} nodes and {edges:,} edges"
    with (_bounded(type(out), WORK * (len(registers) + edges), graph) if bounded
          else contextlib.nullcontext([])) as over:
        try:
            for _ in range(2 if twice else 1):
                out.backward()
        finally:
            if over:        # whatever the student's code made of the first _Stop
                raise TooMuchWork(over[0]) from None
    return {"grad": float(out.grad),
            "input_grads": [float(x.grad) for x in registers[:len(inputs)]],
            "node_grads": np.array([float(x.grad) for x in registers])}


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
                   "parents": Items(Items(edge, max_len=MAX_PARENTS), max_len=MAX_NODES),
                   "operands": [None if number else Number(integer=True) for number in operands]},
                  {"type": TypeName("Scalar")})


REPLIES = {
    "binary": lambda op, a, b, number=None: _operation(number == "left", number == "right"),
    "unary": lambda fn, a: _operation(False),
    "graph": lambda inputs, nodes, bounded=False, twice=False: {
        "grad": Number(), "input_grads": Items(Number(), len(inputs)),
        "node_grads": Hint(Array((len(inputs) + len(nodes["values"]),), finite=False))},
    "numgrad": {"estimate": Number(), "offsets": Hint(Items(Number(finite=False), max_len=10))},
}
