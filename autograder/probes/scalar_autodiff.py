"""Probes of 01 scalar autodiff: the student's Scalar and numerical_gradient on the grader's inputs.

No dp here: this module runs next to the student's code, where dp is a forbidden import.

The tasks are probed apart, so that one mistake costs the points of one task:
- `binary` and `unary` read the gradients of one operation from the local derivatives that
  the student's nodes store (`parents`), with a chain-rule pass of their own: the operators
  are graded whether or not the student's `backward()` works;
- `graph` builds its nodes with the `Scalar` constructor and the true local derivatives, not
  with the student's operators: `backward()` is graded on its own.
"""
import math
import operator

from .schema import Either, Hint, Items, Number, TypeName

_BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv}

# op -> (value, local derivatives) of its operands' values, for the nodes of `graph`
_LOCAL = {
    "add": lambda a, b: (a + b, (1.0, 1.0)),
    "mul": lambda a, b: (a * b, (b, a)),
    "exp": lambda a: (math.exp(a), (math.exp(a),)),
    "log": lambda a: (math.log(a), (1 / a,)),
    "tanh": lambda a: (math.tanh(a), (1 - math.tanh(a) ** 2,)),
}

# the functions numerical_gradient is tried on, by name
_FUNCTIONS = {"exp": math.exp, "sin": math.sin, "log": math.log, "tanh": math.tanh,
              "cube": lambda x: x ** 3}


def _gradients(out) -> dict:
    """{id(node): d out / d node} for the nodes below `out`, by the chain rule over the local
    derivatives in their `parents`. A node passes its gradient on once all of its children have
    passed theirs to it: Kahn's order, from a count of each node's children."""
    children, seen, stack = {}, {id(out)}, [out]
    while stack:
        for parent, _ in stack.pop().parents:
            children[id(parent)] = children.get(id(parent), 0) + 1
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append(parent)
    grads, ready = {id(out): 1.0}, [out]
    while ready:
        node = ready.pop()
        for parent, local in node.parents:
            grads[id(parent)] = grads.get(id(parent), 0.0) + float(local) * grads[id(node)]
            children[id(parent)] -= 1
            if children[id(parent)] == 0:
                ready.append(parent)
    return grads


def _result(ns, out, operands) -> dict:
    """The type and value of `out`, and d out / d operand (None for a Python number)."""
    if not isinstance(out, ns["Scalar"]):
        return {"type": type(out).__name__}
    grads = _gradients(out)
    return {"type": "Scalar", "value": float(out.value),
            "grads": [grads.get(id(x), 0.0) if isinstance(x, ns["Scalar"]) else None
                      for x in operands]}


def binary(ns, op, a, b, number=None):
    """`a <op> b` for Scalars a and b, or with the Python number a (number="left") or b
    (number="right"): its type, value, and [d/da, d/db]."""
    scalar = ns["Scalar"]
    left = a if number == "left" else scalar(a)
    right = b if number == "right" else scalar(b)
    return _result(ns, _BINARY[op](left, right), (left, right))


def unary(ns, fn, a):
    """-x (fn="neg") or x.<fn>() for the Scalar x = a: its type, value, and [d/dx]."""
    x = ns["Scalar"](a)
    return _result(ns, -x if fn == "neg" else getattr(x, fn)(), (x,))


def graph(ns, program, inputs):
    """Leaves holding `inputs` start a list of registers; each instruction [op, i] or
    [op, i, j] of `program` appends a node op(register i, register j). Then the student's
    backward() from the last register. Returns the last register's grad, and the grad of every
    input."""
    scalar = ns["Scalar"]
    registers = [scalar(x) for x in inputs]
    for op, *args in program:
        operands = [registers[i] for i in args]
        value, derivatives = _LOCAL[op](*(x.value for x in operands))
        registers.append(scalar(value, tuple(zip(operands, derivatives))))
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
    """The reply of `binary`/`unary`: the gradient of each operand, None for a Python number."""
    return Either({"type": "Scalar", "value": Number(),
                   "grads": [None if number else Number() for number in operands]},
                  {"type": TypeName("Scalar")})


REPLIES = {
    "binary": lambda op, a, b, number=None: _operation(number == "left", number == "right"),
    "unary": lambda fn, a: _operation(False),
    "graph": lambda program, inputs: {"grad": Number(),
                                      "input_grads": Items(Number(), len(inputs))},
    "numgrad": {"estimate": Number(), "offsets": Hint(Items(Number(finite=False), max_len=10))},
}
