"""Probes of 10 optimisation beyond ML: the student's losses on the grader's inputs, and the
student's optimisers on the grader's own problems.

The two optimisers are graded apart from the two losses, so that one mistake costs one task:
`descend` minimises `catenary` below (not the student's `catenary_loss`), and `gauss_newton`
solves the least-squares problem of `bvp_residual` below (not the student's `ode_residual`).
The same three functions are the checks' trusted reference, computed in the grader's process.
"""
from math import factorial

import numpy as np

import dp
from dp import Node

from .schema import AnyShape, Array, Either, Hint, Items, Number, Optional, Text, TypeName


# -- the reference problems ------------------------------------------------------------------------
def stencil(offsets, order) -> np.ndarray:
    """The weights w of sum_j w_j y(t + o_j dt) = dt^order y^(order)(t) + O(dt^5), derived from the
    Taylor expansions at the offsets o_j: sum_j w_j o_j^k / k! = [k == order], k = 0 .. 4."""
    offsets = np.asarray(offsets, dtype=float)
    k = np.arange(len(offsets))
    taylor = offsets[None, :] ** k[:, None] / np.array([factorial(j) for j in k])[:, None]
    return np.linalg.solve(taylor, (k == order).astype(float))


# the 4th-order stencils on y_(i-2) .. y_(i+2) and on y_i .. y_(i+4), for the checks' hints
CENTRAL_1, CENTRAL_2 = stencil(range(-2, 3), 1), stencil(range(-2, 3), 2)
FORWARD_1, FORWARD_2 = stencil(range(5), 1), stencil(range(5), 2)


def catenary(z, length=1.1):
    """The rope's loss (L - length)^2 + sum_i s_i (y_i + y_(i+1)) / 2 of the free heights z (a Node
    of n - 2 values): n points on [0, 1] with heights y = (0, z, 0), s_i = sqrt(dx^2 + dy_i^2).
    Written as ArrayFlow writes it, with cross-correlations."""
    rope = dp.concatenate([Node(np.zeros(1)), z, Node(np.zeros(1))])
    s = (rope.conv1d(np.array([-1.0, 1.0])).square() + (1.0 / (len(z) + 1)) ** 2).sqrt()
    return (s.sum() - length).square() + (s * rope.conv1d(np.array([0.5, 0.5]))).sum()


def derivative_matrices(n, dt):
    """(D1, D2), (n, n): y' ~ D1 y and y'' ~ D2 y from five points each: centred on rows 2 .. n-3,
    the first two rows looking forward (y_i .. y_(i+4)), the last two backward (y_(i-4) .. y_i)."""
    D = np.zeros((2, n, n))
    for row in range(n):
        first = row if row < 2 else row - 4 if row >= n - 2 else row - 2
        offsets = np.arange(first, first + 5) - row
        for order in (1, 2):
            D[order - 1, row, first:first + 5] = stencil(offsets, order) / dt ** order
    return D[0], D[1]


def ode_matrix(n, t1):
    """A (n, n) with A y = 2 y'' + y' + 2 y on n points of [0, t1]."""
    D1, D2 = derivative_matrices(n, t1 / (n - 1))
    return 2 * D2 + D1 + 2 * np.eye(n)


def bvp_residual(ends, t1):
    """z (a Node of the n - 2 inner values) -> the residual A y of y = (ends[0], z, ends[1])."""
    def residual(z):
        A = ode_matrix(len(z) + 2, t1)
        return A @ dp.concatenate([np.full(1, float(ends[0])), z, np.full(1, float(ends[1]))])
    return residual


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


def descent(ns, z0, lr, steps, length):
    """The student's descend on the reference catenary loss."""
    result = ns["descend"](lambda z: catenary(z, length), np.array(z0, dtype=float), lr, steps)
    return _pair(result, f"descend(loss, z0, lr={lr:g}, steps={steps})")


def jacobian(ns, ends, t1, z):
    """The student's jacobian of the reference boundary-value residual at z: (r, J)."""
    result = ns["jacobian"](bvp_residual(ends, t1), np.array(z, dtype=float))
    return _pair(result, "jacobian(residual, z)", names=("r", "J"))


def solve_bvp(ns, ends, t1, z0, steps):
    """The student's gauss_newton on the reference boundary-value residual."""
    result = ns["gauss_newton"](bvp_residual(ends, t1), np.array(z0, dtype=float), steps)
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
    "descent": lambda z0, lr, steps, length: _descent_reply(z0),
    "jacobian": lambda ends, t1, z: _pair_reply(("r", "J"), np.zeros((len(z) + 2, len(z)))),
    "solve_bvp": lambda ends, t1, z0, steps: _descent_reply(z0),
}
