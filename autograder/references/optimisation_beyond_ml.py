"""References of 10 optimisation beyond ML, the grader's side only (never in the student bundle).

The catenary. A rope of n points on [0, 1], y = (0, z, 0), dx = 1 / (n - 1):

    s_i = sqrt(dx^2 + (y_(i+1) - y_i)^2),   L = sum_i s_i,   E = sum_i s_i (y_i + y_(i+1)) / 2,
    loss(z) = (L - L0)^2 + E.

The boundary-value problem. On n points t_i = i dt of [0, t1], dt = t1 / (n - 1), y' ~ D1 y and
y'' ~ D2 y by 4th-order five-point stencils (central inside, one-sided at the two ends of each
side), and the residual of 2y'' + y' + 2y = 0 is r = A y with A = 2 D2 + D1 + 2 I.

Gradient descent, as `descend` takes it, on a quadratic 1/2 z^T Q z + c^T z: z <- z - lr (Q z + c).

The checks (autograder/checks/optimisation_beyond_ml.py) reach these through `references.of(...)`:
plain data in, plain data out, never a student's reply.
"""
from __future__ import annotations

import functools
from math import factorial

import numpy as np

import dp
from dp import Node

from . import misconception


# -- the stencils ----------------------------------------------------------------------------------
def stencil(offsets, order) -> np.ndarray:
    """The weights w of sum_j w_j y(t + o_j dt) = dt^order y^(order)(t) + O(dt^5), derived from the
    Taylor expansions at the offsets o_j: sum_j w_j o_j^k / k! = [k == order], k = 0 .. 4."""
    offsets = np.asarray(offsets, dtype=float)
    k = np.arange(len(offsets))
    taylor = offsets[None, :] ** k[:, None] / np.array([factorial(j) for j in k])[:, None]
    return np.linalg.solve(taylor, (k == order).astype(float))


# the 4th-order stencils on y_(i-2) .. y_(i+2) and on y_i .. y_(i+4)
CENTRAL_1, CENTRAL_2 = stencil(range(-2, 3), 1), stencil(range(-2, 3), 2)
FORWARD_1, FORWARD_2 = stencil(range(5), 1), stencil(range(5), 2)


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


def ode_matrix(n, t1) -> np.ndarray:
    """A (n, n) with A y = 2 y'' + y' + 2 y on n points of [0, t1]."""
    D1, D2 = derivative_matrices(n, t1 / (n - 1))
    return 2 * D2 + D1 + 2 * np.eye(n)


# -- the catenary ----------------------------------------------------------------------------------
def catenary(z, length=1.1):
    """The rope's loss of the free heights z (a Node of n - 2 values), as a dp graph. Written as
    ArrayFlow writes it, with cross-correlations."""
    rope = dp.concatenate([Node(np.zeros(1)), z, Node(np.zeros(1))])
    s = (rope.conv1d(np.array([-1.0, 1.0])).square() + (1.0 / (len(z) + 1)) ** 2).sqrt()
    return (s.sum() - length).square() + (s * rope.conv1d(np.array([0.5, 0.5]))).sum()


def catenary_loss(z, length, rope=catenary) -> list:
    """[loss(z), d loss / dz] by dp (of the loss `rope` writes)."""
    out = rope(Node(np.array(z, dtype=float), "z"), length)
    return [float(out.value), out.grad(1.0)["z"]]


def catenary_written(z, length=1.1):
    """`catenary` as the exercise has students write it (derived.py: `forms`): the segments'
    differences and mean heights by slices, not cross-correlations."""
    dx = 1.0 / (len(z) + 1)
    y = dp.concatenate([Node(np.zeros(1)), z, Node(np.zeros(1))])
    dy = y[1:] - y[:-1]
    s = (dy * dy + dx * dx).sqrt()
    mean_height = (y[1:] + y[:-1]) / 2
    return (s.sum() - length) ** 2 + (s * mean_height).sum()


def catenary_loss_written(z, length) -> list:
    """`catenary_loss`, of the loss as the exercise writes it."""
    return catenary_loss(z, length, catenary_written)


AS_WRITTEN = {"catenary_loss": ("catenary_loss_written",)}


def loss_value(z, length, dx=None, height="mean", sign=1.0, power=2, ends=True) -> float:
    """The catenary's loss in NumPy, and its known mistakes by keyword (dx: a function of the
    number of points n = len(z) + 2)."""
    n = len(z) + 2
    dx = 1.0 / (n - 1) if dx is None else dx(n)
    y = np.concatenate([[0.0], z, [0.0]]) if ends else np.asarray(z)
    dy = np.diff(y)
    s = np.sqrt(dx ** 2 + dy ** 2)
    heights = {"mean": (y[1:] + y[:-1]) / 2, "left": y[:-1], "right": y[1:]}[height]
    return (s.sum() - length) ** power + sign * (s * heights).sum()


LOSS_MISTAKES = {
    "the potential energy has the wrong sign: E = + sum s_i (y_i + y_(i+1)) / 2": {"sign": -1.0},
    "each segment's height is its left end y_i, not the mean of its two ends": {"height": "left"},
    "each segment's height is its right end y_(i+1), not the mean of its two ends": {"height": "right"},
    "the length penalty is not squared: (L - L0) instead of (L - L0)^2": {"power": 1},
    "dx = 1/n: n points make n - 1 segments, dx = 1/(n - 1)": {"dx": lambda n: 1.0 / n},
    "dx^2 = 1/n (as printed in the paper's eq. 79): s_i = sqrt(dx^2 + dy_i^2) with dx = 1/(n - 1)":
        {"dx": lambda n: np.sqrt(1.0 / n)},
    "the fixed ends are missing: the rope is y = (0, z, 0), with a segment from 0 to z[0] and one "
    "from z[-1] to 0": {"ends": False},
}


# the ids of the known mistakes of LOSS_MISTAKES, in its order: each gives [its loss, no gradient]
for _id, (_why, _options) in zip(
        ("energy_sign_flipped", "height_at_the_left_end", "height_at_the_right_end",
         "length_penalty_not_squared", "dx_one_over_n", "dx_squared_one_over_n", "ends_missing"),
        LOSS_MISTAKES.items(), strict=True):
    misconception("catenary_loss", _why, name=_id)(
        lambda z, length, options=_options: [float(loss_value(z, length, **options)), None])


def _gradient(z, length) -> np.ndarray:
    return catenary(Node(z, "z"), length).grad(1)["z"]


@functools.lru_cache(maxsize=8)
def _minimum(points, length) -> tuple:
    """(z*, H): the minimiser of the loss of a rope of `points` points, by Newton's method from the
    continuous catenary's heights, and the Hessian there (central differences of dp gradients)."""
    x = np.linspace(0, 1, points)
    z = 0.30645 * (np.cosh((x - 0.5) / 0.30645) - np.cosh(0.5 / 0.30645))[1:-1]
    for _ in range(30):
        H = np.array([(_gradient(z + 1e-5 * e, length) - _gradient(z - 1e-5 * e, length)) / 2e-5
                      for e in np.eye(len(z))])
        H = (H + H.T) / 2
        step = np.linalg.solve(H, _gradient(z, length))
        z = z - step
        if np.max(np.abs(step)) < 1e-13:
            break
    return z, H


def catenary_model(points, length) -> list:
    """[Q, c]: the rope's loss near its minimum z*, as the quadratic 1/2 z^T Q z + c^T z (Q the
    Hessian at z*, c = -Q z*): a loss whose minimiser is the discrete catenary z* and whose
    curvature, so the speed of gradient descent, is the rope's."""
    z, H = _minimum(points, length)
    return [H, -H @ z]


# -- gradient descent (descend) --------------------------------------------------------------------
def gradient_steps(Q, c, z0, lr, steps) -> list:
    """[the losses before each step, z after the last] of gradient descent z <- z - lr (Q z + c)
    on the quadratic 1/2 z^T Q z + c^T z from z0."""
    z, losses = z0, []
    for _ in range(steps):
        losses.append(float(z @ Q @ z / 2 + c @ z))
        z = z - lr * (Q @ z + c)
    return [np.array(losses), z]


@misconception("gradient_steps", "a step up the gradient: z + lr * gradient")
def gradient_ascent(Q, c, z0, lr, steps) -> list:
    return gradient_steps(Q, c, z0, -lr, steps)


@misconception("gradient_steps", "the step size 0.005 (the paper's, descend's default) "
                                "whatever lr is given")
def step_size_ignored(Q, c, z0, lr, steps) -> list:
    return gradient_steps(Q, c, z0, 0.005, steps)


# -- the boundary-value problem --------------------------------------------------------------------
def ode_residual(y, t1, upstream) -> list:
    """[A y, A^T upstream]: the residual and d sum(upstream * r) / dy."""
    A = ode_matrix(len(y), t1)
    return [A @ np.asarray(y, dtype=float), A.T @ np.asarray(upstream, dtype=float)]


def _right_end_rows(D1, D2, dt, first, second):
    """Copies of (D1, D2) whose last two rows hold the stencils `first` and `second` (y_(i-4) .. y_i)."""
    D1, D2, n = D1.copy(), D2.copy(), len(D1)
    for i in range(n - 2, n):
        D1[i], D2[i] = 0, 0
        D1[i, i - 4:i + 1], D2[i, i - 4:i + 1] = first / dt, second / dt ** 2
    return D1, D2


def _central_rows(D1, D2, dt, first, second):
    D1, D2 = D1.copy(), D2.copy()
    for i in range(2, len(D1) - 2):
        D1[i, i - 2:i + 3], D2[i, i - 2:i + 3] = first / dt, second / dt ** 2
    return D1, D2


RESIDUAL_MISTAKES = {
    "at the right end, y' uses the forward coefficients reversed without changing their sign "
    "(the backward formula for y' is the mirror image with the opposite sign)":
        lambda D1, D2, dt: _right_end_rows(D1, D2, dt, FORWARD_1[::-1], FORWARD_2[::-1]),
    "at the right end, the forward formulas are used as they are (not mirrored)":
        lambda D1, D2, dt: _right_end_rows(D1, D2, dt, FORWARD_1, FORWARD_2),
    "at the right end, y'' has the opposite sign: only y' changes sign in the mirror image":
        lambda D1, D2, dt: _right_end_rows(D1, D2, dt, -FORWARD_1[::-1], -FORWARD_2[::-1]),
    "the central y'' has -4/3 on y_(i-1) (a sign misprint in the paper's eq. 124): it is +4/3":
        lambda D1, D2, dt: _central_rows(D1, D2, dt, CENTRAL_1, CENTRAL_2 * [1, -1, 1, 1, 1]),
    "the central y' stencil is reversed (its coefficients are antisymmetric: -2/3 on y_(i-1))":
        lambda D1, D2, dt: _central_rows(D1, D2, dt, CENTRAL_1[::-1], CENTRAL_2),
    "dt = t1 / n: n points make n - 1 intervals, dt = t1 / (n - 1)":
        lambda D1, D2, dt: (D1 * len(D1) / (len(D1) - 1), D2 * (len(D1) / (len(D1) - 1)) ** 2),
    "1/3 in place of 2/3 in the central y' stencil: y' = (y_(i-2) - 8 y_(i-1) + 8 y_(i+1) - "
    "y_(i+2)) / (12 dt)":
        lambda D1, D2, dt: _central_rows(D1, D2, dt, CENTRAL_1 * [1, 0.5, 1, 0.5, 1], CENTRAL_2),
}


def residual(D1, D2, y) -> np.ndarray:
    return 2 * D2 @ y + D1 @ y + 2 * y


def _mistaken_residual(mistake, y, t1, upstream) -> list:
    """[r, its gradient] as `ode_residual` gives them, with the derivative matrices of `mistake`."""
    n = len(y)
    dt = t1 / (n - 1)
    D1, D2 = mistake(*derivative_matrices(n, dt), dt)
    A = 2 * D2 + D1 + 2 * np.eye(n)
    return [A @ np.asarray(y, dtype=float), A.T @ np.asarray(upstream, dtype=float)]


# the ids of the known mistakes of RESIDUAL_MISTAKES, in its order
for _id, (_why, _mistake) in zip(
        ("right_end_y1_not_mirrored", "right_end_forward_formulas", "right_end_y2_sign_flipped",
         "central_y2_misprint", "central_y1_reversed", "dt_over_n", "central_y1_one_third"),
        RESIDUAL_MISTAKES.items(), strict=True):
    misconception("ode_residual", _why, name=_id)(
        lambda y, t1, upstream, mistake=_mistake: _mistaken_residual(mistake, y, t1, upstream))


def newton_squares(c, z0, steps) -> dict:
    """Gauss-Newton on r(z) = z * z - c (elementwise): J = diag(2 z) at each step, so the step
    is r / (2 z), Newton's square root. {"z": the final z, "losses": sum(r^2) before each step}."""
    return _squares(c, z0, steps, lambda z: 2 * z)


def _squares(c, z0, steps, jacobian) -> dict:
    z, losses = np.array(z0, dtype=float), []
    for _ in range(steps):
        r, J = z * z - c, jacobian(z)       # J: the diagonal of the Jacobian
        losses.append(float(r @ r))
        z = z - r / J
    return {"z": z, "losses": np.array(losses)}


@misconception("newton_squares", "the Jacobian taken once, at z0, and kept for every step: take "
                                 "(r, J) = jacobian(residual, z) at the z each step starts from")
def jacobian_taken_once(c, z0, steps):
    return _squares(c, z0, steps, lambda z: 2 * np.asarray(z0, dtype=float))


def least_squares(ends, t1, n) -> np.ndarray:
    """The inner values minimising |A y|^2 with y = (ends[0], z, ends[1])."""
    A = ode_matrix(n, t1)
    return np.linalg.lstsq(A[:, 1:-1], -(A[:, 0] * ends[0] + A[:, -1] * ends[1]), rcond=None)[0]
