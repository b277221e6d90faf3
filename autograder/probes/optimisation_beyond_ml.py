"""Probes of 10 optimisation beyond ML: the student's losses on the grader's inputs, and the
student's optimisers on the grader's own problems.

The two optimisers are graded apart from the two losses, so that one mistake costs one task:
`descend` minimises a quadratic 1/2 z^T Q z + c^T z, and `gauss_newton` the least squares of an
affine residual z -> A (ends[0], z, ends[1]), whose Q, c and A the grader sends (not the
student's `catenary_loss` or `ode_residual`). The probes hold no loss or stencil of their own.
"""
import numpy as np

import dp
from dp import Node

from .schema import AnyShape, Array, Either, Items, Number, Optional, Text, TypeName


# -- probes ----------------------------------------------------------------------------------------
def _value_and_gradient(out, upstream) -> dict:
    """A function's output Node as plain data: its value, and d sum(upstream * out) / d leaf."""
    if not isinstance(out, Node):
        return {"type": type(out).__name__, "shape": None, "value": None, "grad": None}
    value = np.asarray(out.value, dtype=float)
    reply = {"type": "Node", "shape": list(value.shape), "value": value, "grad": None}  # the shape
    if value.shape == np.shape(upstream):                     # apart: a 0-d array is sent as (1,)
        grad = out.grad(np.asarray(upstream, dtype=out.value.dtype)).get("leaf")
        reply["grad"] = None if grad is None else np.asarray(grad, dtype=float)
    return reply


def catenary_loss(ns, z, length):
    """The student's catenary_loss(Node(z), length): its value and gradient."""
    return _value_and_gradient(ns["catenary_loss"](Node(np.array(z, dtype=float), "leaf"), length), 1.0)


def ode_residual(ns, y, t1, upstream):
    """The student's ode_residual(Node(y), t1): its value and d sum(upstream * r) / dy."""
    return _value_and_gradient(ns["ode_residual"](Node(np.array(y, dtype=float), "leaf"), t1), upstream)


def _pair(result, what, names=("z", "losses")) -> dict:
    """A pair returned by a student's function, as plain data: {"problem": None, names...}."""
    if not (isinstance(result, tuple) and len(result) == 2):
        return {"problem": f"{what} returned {type(result).__name__} {str(result)[:60]}, "
                           f"not a pair ({', '.join(names)})"}
    try:
        return {"problem": None, **{name: np.array(v, dtype=float) for name, v in zip(names, result)}}
    except (TypeError, ValueError) as error:
        return {"problem": f"{what} returned {' or '.join(names)} that are not arrays of numbers: {error}"}


def quadratic(Q, c):
    """z (a Node) -> 1/2 z^T Q z + c^T z, a scalar Node."""
    Q, c = np.array(Q, dtype=float), np.array(c, dtype=float)
    return lambda z: 0.5 * (z * (Q @ z)).sum() + (z * c).sum()


def affine_residual(A, ends):
    """z (a Node of the n - 2 inner values) -> A y with y = (ends[0], z, ends[1])."""
    A = np.array(A, dtype=float)
    return lambda z: A @ dp.concatenate([np.full(1, float(ends[0])), z, np.full(1, float(ends[1]))])


def squares_residual(c):
    """z (a Node) -> z * z - c: a residual whose Jacobian, diag(2 z), changes with z."""
    c = np.array(c, dtype=float)
    return lambda z: z * z - c


def solve_squares(ns, c, z0, steps):
    """The student's gauss_newton on the grader's nonlinear residual z * z - c."""
    result = ns["gauss_newton"](squares_residual(c), np.array(z0, dtype=float), steps)
    return _pair(result, f"gauss_newton(residual, z0, steps={steps})")


def descent(ns, Q, c, z0, lr, steps):
    """The student's descend on the grader's quadratic."""
    result = ns["descend"](quadratic(Q, c), np.array(z0, dtype=float), lr, steps)
    return _pair(result, f"descend(loss, z0, lr={lr:g}, steps={steps})")


def jacobian(ns, A, ends, z):
    """The student's jacobian of the grader's residual at z: (r, J)."""
    result = ns["jacobian"](affine_residual(A, ends), np.array(z, dtype=float))
    return _pair(result, "jacobian(residual, z)", names=("r", "J"))


def solve_bvp(ns, A, ends, z0, steps):
    """The student's gauss_newton on the grader's residual."""
    result = ns["gauss_newton"](affine_residual(A, ends), np.array(z0, dtype=float), steps)
    return _pair(result, f"gauss_newton(residual, z0, steps={steps})")


def _node_reply(leaf, upstream):
    return Either({"type": "Node", "shape": Items(Number(integer=True), max_len=32),
                   "value": AnyShape(leaf, upstream), "grad": Optional(Array(np.shape(leaf), finite=False))},
                  {"type": TypeName("Node"), "shape": None, "value": None, "grad": None})


def _pair_reply(names, *like):
    return Either({"problem": None, **{name: AnyShape(*like) for name in names}},
                  {"problem": Text(500)})


def _descent_reply(z0):
    """z, and the losses along the way (as many as the student's loop gives)."""
    return Either({"problem": None, "z": AnyShape(z0), "losses": Array(None, finite=False, max_size=10_000_000)},
                  {"problem": Text(500)})


REPLIES = {
    "catenary_loss": lambda z, length: _node_reply(np.asarray(z), np.ones(())),
    "ode_residual": lambda y, t1, upstream: _node_reply(np.asarray(y), upstream),
    "descent": lambda Q, c, z0, lr, steps: _descent_reply(z0),
    "jacobian": lambda A, ends, z: _pair_reply(("r", "J"), np.zeros((len(z) + 2, len(z)))),
    "solve_bvp": lambda A, ends, z0, steps: _descent_reply(z0),
    "solve_squares": lambda c, z0, steps: _descent_reply(z0),
}
