"""Checks of 10 optimisation beyond ML: the catenary's loss and shape, the boundary-value problem's
residual and solution.

- catenary_loss: the student's loss and its gradient (by the student's dp graph) on heights,
  numbers of points and target lengths chosen here, against the reference `catenary` (dp).
- catenary_shape: the student's `descend` on the reference loss: its first steps are exactly
  gradient steps, and from a start chosen here it reaches the cosh curve a = 0.30645, b = 1/2
  (metrics: the fitted a, the length L, the sag).
- ode_residual: the student's residual and its gradient on vectors, lengths and intervals chosen
  here, against the reference stencils; a wrong row is named (left end, inside, right end).
- ode_solution: the student's `jacobian` of the reference residual, and `gauss_newton` on it:
  within 2e-3 of the exact solution of 2y'' + y' + 2y = 0, y(0) = 1, y(6.1) = 0.1 (metric:
  max_error), and the least-squares optimum for boundary values chosen here.

The optimisers run on the grader's problems, so a wrong loss or residual costs its own task only.
"""
import numpy as np
import pytest

from autograder.probes.optimisation_beyond_ml import (CENTRAL_1, CENTRAL_2, FORWARD_1, FORWARD_2,
                                                      bvp_residual, catenary, derivative_matrices,
                                                      ode_matrix)
from dp import Node

RTOL = 1e-8              # the same formula, computed by the student's graph and by ours
LENGTH, POINTS = 1.1, 50
# the catenary y = a cosh((x - b) / a) + c through (0, 0) and (1, 0) that the loss converges to
A_CATENARY, L_CATENARY, SAG_CATENARY = 0.30645, 1.50663, 0.5068
SHAPE_TOLERANCE = 2e-3   # max |y - y_catenary|; the converged discrete rope is within 1e-4
T1, ENDS, ODE_POINTS = 6.1, (1.0, 0.1), 20
ODE_TOLERANCE = 2e-3     # max |y - y_exact|; the least-squares optimum is 1.75e-3 away


def rel_error(got, expected) -> float:
    """max |got - expected| / max(|expected|, 1e-3 max|expected|, 1e-12), inf if not finite."""
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    if got.shape != expected.shape or not np.all(np.isfinite(got)):
        return float("inf")
    scale = np.maximum(np.abs(expected), max(1e-3 * np.max(np.abs(expected), initial=0), 1e-12))
    return float(np.max(np.abs(got - expected) / scale, initial=0.0))


def _reference(function, x, upstream) -> tuple:
    """(value, d sum(upstream * out) / dx) of a dp function, by dp."""
    out = function(Node(np.array(x, dtype=float), "x"))
    return out.value, out.grad(np.asarray(upstream, dtype=float))["x"]


def _assert_node(reply, what, shape):
    assert reply["type"] == "Node", (
        f"{what} returned a {reply['type']}, not a Node: build it from dp operations")
    assert tuple(reply["shape"]) == shape, f"{what} has shape {tuple(reply['shape'])}, expected {shape}"
    assert reply["value"].size == int(np.prod(shape)), (
        f"{what} has {reply['value'].size} values for the shape {shape}")
    reply["value"] = reply["value"].reshape(shape)
    assert reply["grad"] is not None, (
        f"no gradient reaches the input of {what}: build the result from the Node you were given")


# -- catenary_loss ---------------------------------------------------------------------------------
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


def _loss_cases(rng, public) -> list:
    """(z, length) cases: free heights of ropes with 4 to 60 points, target lengths 1.05 .. 1.8."""
    if public:
        return [(np.array([-0.2, -0.35, -0.3, -0.15]), LENGTH), (rng.normal(0, 0.3, 10), 1.3)]
    return [(rng.normal(0, float(rng.uniform(0.05, 0.5)), int(rng.integers(2, 59))),
             float(rng.uniform(1.05, 1.8))) for _ in range(3)]


@pytest.mark.task("catenary_loss")
def test_catenary_loss_value_and_gradient(submission, rng, public, metrics):
    worst = 0.0
    for z, length in _loss_cases(rng, public):
        what = (f"catenary_loss(z, length={length:.4g}) for z of {len(z)} free heights "
                f"({len(z) + 2} points)")
        reply = submission.probe("catenary_loss", z=z, length=length)
        _assert_node(reply, what, ())
        value, grad = _reference(lambda node: catenary(node, length), z, 1.0)
        worst = metrics["max_rel_error"] = max(worst, abs(reply["value"] - value) / max(1.0, abs(value)),
                                               rel_error(reply["grad"], grad))
        if abs(reply["value"] - value) >= RTOL * max(1.0, abs(value)):   # a loss may be near 0
            hint = next((f"; yours is the loss with a mistake: {text}"
                         for text, options in LOSS_MISTAKES.items()
                         if abs(loss_value(z, length, **options) - reply["value"])
                         <= 1e-9 * (1 + abs(value))),
                        "")
            raise AssertionError(
                f"{what} is {float(reply['value']):.10g}, expected {float(value):.10g}{hint}")
        if rel_error(reply["grad"], grad) >= RTOL:
            i = int(np.argmax(np.abs(reply["grad"] - grad)))
            raise AssertionError(f"{what}: its value is right, but d loss / d z[{i}] is "
                                 f"{reply['grad'][i]:.8g}, expected {grad[i]:.8g}")


# -- catenary_shape --------------------------------------------------------------------------------
def catenary_curve(x, a=A_CATENARY):
    """a cosh((x - 1/2) / a) + c, with c such that the curve is 0 at x = 0 and x = 1."""
    return a * (np.cosh((x - 0.5) / a) - np.cosh(0.5 / a))


def fit_cosh(x, y) -> tuple:
    """(a, b, c) of the least-squares fit a cosh((x - b) / a) + c to (x, y), by Gauss-Newton."""
    p = np.array([0.3, 0.5, np.min(y) - 0.3])
    for _ in range(50):
        a, b, c = p
        u = (x - b) / a
        J = np.stack([np.cosh(u) - u * np.sinh(u), -np.sinh(u), np.ones_like(x)], axis=1)
        step = np.linalg.lstsq(J, a * np.cosh(u) + c - y, rcond=None)[0]
        p = p - step
        if np.max(np.abs(step)) < 1e-14:
            break
    return tuple(float(v) for v in p)


def _start(rng, public, n=POINTS) -> np.ndarray:
    """Free heights of a smooth rope through (0, 0) and (1, 0) that is not the catenary."""
    x = np.linspace(0, 1, n)[1:-1]
    depth = 0.45 if public else float(rng.uniform(0.35, 0.6))
    bumps = sum(rng.normal(0, 0.03) * np.sin(k * np.pi * x) for k in range(2, 6))
    return -depth * np.sin(np.pi * x) + bumps


def _descend(submission, z0, lr, steps) -> dict:
    reply = submission.probe("descent", z0=z0, lr=lr, steps=steps, length=LENGTH)
    assert reply["problem"] is None, reply["problem"]
    assert reply["z"].shape == z0.shape, (
        f"descend returned z of shape {reply['z'].shape}, expected {z0.shape}, the shape of z0")
    assert reply["losses"].shape == (steps,), (
        f"descend(..., steps={steps}) returned {reply['losses'].size} losses, expected {steps}: "
        f"the loss before each step")
    return reply


@pytest.mark.task("catenary_shape")
def test_descend_takes_gradient_steps(submission, rng, public):
    """A few steps from a random start, compared step by step with z <- z - lr * grad."""
    z0 = rng.normal(-0.3, 0.1, 6 if public else int(rng.integers(4, 20)))
    lr, steps = (0.003, 3) if public else (float(rng.uniform(0.001, 0.01)), int(rng.integers(2, 6)))
    reply = _descend(submission, z0, lr, steps)
    z, losses = z0, []
    for _ in range(steps):
        value, grad = _reference(lambda node: catenary(node, LENGTH), z, 1.0)
        losses.append(float(value))
        z = z - lr * grad
    setting = f"descend on the catenary's loss from z0 of {len(z0)} heights, lr={lr:.4g}, steps={steps}"
    assert rel_error(reply["losses"], losses) < RTOL, (
        f"{setting}: the losses are {np.round(reply['losses'], 8).tolist()}, expected "
        f"{np.round(losses, 8).tolist()} (loss(z_k) before step k)")
    assert rel_error(reply["z"], z) < RTOL, (
        f"{setting}: z after the last step differs from z - lr * gradient by up to "
        f"{np.max(np.abs(reply['z'] - z)):.3g}")


@pytest.mark.task("catenary_shape")
def test_descend_finds_the_catenary(submission, rng, public, metrics):
    """From a rope that is not a catenary, gradient descent on the loss with n = 50 points and
    L0 = 1.1 reaches the cosh curve with a = 0.30645 (the soft penalty lets the rope stretch)."""
    z0 = _start(rng, public)
    lr = 0.01 if public else float(rng.uniform(0.007, 0.01))
    steps = 5000 if public else int(np.ceil(70 / lr))      # the error shrinks like exp(-0.13 lr steps)
    reply = _descend(submission, z0, lr, steps)
    x = np.linspace(0, 1, POINTS)
    y = np.concatenate([[0.0], reply["z"], [0.0]])
    assert np.all(np.isfinite(y)), (
        f"descend(lr={lr:.4g}, steps={steps}) returned heights that are not finite")
    error = metrics["max_error"] = float(np.max(np.abs(y - catenary_curve(x))))
    metrics["L"] = float(np.sum(np.sqrt(np.diff(x) ** 2 + np.diff(y) ** 2)))
    try:
        with np.errstate(all="ignore"):
            a, b, c = fit_cosh(x, y)
        if np.isfinite([a, b, c]).all():
            metrics.update(a=a, b=b, sag=-(a + c))
    except np.linalg.LinAlgError:    # a rope far from any cosh curve: no metrics, the assert says why
        pass
    start = np.max(np.abs(np.concatenate([[0.0], z0, [0.0]]) - catenary_curve(x)))
    assert error < SHAPE_TOLERANCE, (
        f"after {steps} steps of descend with lr={lr:.4g} from a rope {start:.3f} away from the "
        f"catenary a cosh((x - 1/2)/a) + c with a = {A_CATENARY}, the rope is still {error:.3g} away "
        f"(at most {SHAPE_TOLERANCE} expected); its length is {metrics['L']:.5f} "
        f"(expected {L_CATENARY})")


# -- ode_residual ----------------------------------------------------------------------------------
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
}


def residual(D1, D2, y) -> np.ndarray:
    return 2 * D2 @ y + D1 @ y + 2 * y


def _rows(i, n) -> str:
    return ("the left end (forward formulas)" if i < 2 else "the right end (backward formulas)"
            if i >= n - 2 else "the inside (central formulas)")


def _residual_cases(rng, public) -> list:
    """(y, t1) cases: random vectors of 8 to 40 values on intervals [0, t1]."""
    if public:
        return [(np.linspace(1, 0, 8) ** 2, 7.0), (rng.normal(0, 1, 12), T1)]
    return [(rng.normal(0, 1, int(rng.integers(8, 41))), float(rng.uniform(1, 10))) for _ in range(3)]


@pytest.mark.task("ode_residual")
def test_ode_residual_value_and_gradient(submission, rng, public, metrics):
    worst = 0.0
    for y, t1 in _residual_cases(rng, public):
        n = len(y)
        upstream = rng.normal(size=n)
        what = f"ode_residual(y, t1={t1:.4g}) for y of {n} points"
        reply = submission.probe("ode_residual", y=y, t1=t1, upstream=upstream)
        _assert_node(reply, what, (n,))
        A = ode_matrix(n, t1)
        value, grad = _reference(lambda node: A @ node, y, upstream)
        worst = metrics["max_rel_error"] = max(worst, rel_error(reply["value"], value),
                                               rel_error(reply["grad"], grad))
        wrong = np.flatnonzero(np.abs(reply["value"] - value) > RTOL * (1 + np.abs(value)))
        if wrong.size:
            i = int(wrong[0])
            D1, D2 = derivative_matrices(n, t1 / (n - 1))
            hint = next((f"; yours is the residual with a mistake: {text}"
                         for text, mistake in RESIDUAL_MISTAKES.items()
                         if np.allclose(reply["value"], residual(*mistake(D1, D2, t1 / (n - 1)), y),
                                        rtol=1e-9, atol=1e-9)), "")
            raise AssertionError(
                f"{what}: r[{i}], in {_rows(i, n)}, is {reply['value'][i]:.8g}, expected "
                f"{value[i]:.8g} ({wrong.size} of {n} values differ, in rows "
                f"{wrong.tolist()[:8]}){hint}")
        if rel_error(reply["grad"], grad) >= RTOL:
            i = int(np.argmax(np.abs(reply["grad"] - grad)))
            raise AssertionError(f"{what}: its value is right, but the gradient with respect to "
                                 f"y[{i}] is {reply['grad'][i]:.8g}, expected {grad[i]:.8g}")


# -- ode_solution ----------------------------------------------------------------------------------
def exact_solution(t, ends=ENDS, t1=T1):
    """y = e^(-t/4) (y0 cos wt + B sin wt), w = sqrt(15)/4, with y(0) = ends[0], y(t1) = ends[1]."""
    w = np.sqrt(15) / 4
    B = (ends[1] * np.exp(t1 / 4) - ends[0] * np.cos(w * t1)) / np.sin(w * t1)
    return np.exp(-t / 4) * (ends[0] * np.cos(w * t) + B * np.sin(w * t))


def least_squares(ends, t1, n) -> np.ndarray:
    """The inner values minimising |A y|^2 with y = (ends[0], z, ends[1])."""
    A = ode_matrix(n, t1)
    return np.linalg.lstsq(A[:, 1:-1], -(A[:, 0] * ends[0] + A[:, -1] * ends[1]), rcond=None)[0]


def _solve(submission, ends, t1, z0, steps) -> dict:
    reply = submission.probe("solve_bvp", ends=list(ends), t1=t1, z0=z0, steps=steps)
    assert reply["problem"] is None, reply["problem"]
    assert reply["z"].shape == z0.shape, (
        f"gauss_newton returned z of shape {reply['z'].shape}, expected {z0.shape}, the shape of z0")
    assert np.all(np.isfinite(reply["z"])), "gauss_newton returned values that are not finite"
    return reply


def _line(ends, n, rng, noise) -> np.ndarray:
    """The straight line between the boundary values, at the inner points, with some noise."""
    return np.linspace(ends[0], ends[1], n)[1:-1] + rng.normal(0, noise, n - 2)


@pytest.mark.task("ode_solution")
def test_jacobian_of_the_residual(submission, rng, public):
    """The student's jacobian of the reference residual: r, and J = the inner columns of A."""
    n, t1 = (8, 3.0) if public else (int(rng.integers(8, 25)), float(rng.uniform(2, 8)))
    ends, z = rng.normal(size=2), rng.normal(size=n - 2)
    reply = submission.probe("jacobian", ends=list(ends), t1=t1, z=z)
    A = ode_matrix(n, t1)
    r = A @ np.concatenate([ends[:1], z, ends[1:]])
    J = A[:, 1:-1]
    what = f"jacobian(residual, z) for a residual of {n} values and z of {n - 2} values"
    assert reply["problem"] is None, reply["problem"]
    assert reply["r"].shape == r.shape and rel_error(reply["r"], r) < RTOL, (
        f"{what}: r is {np.round(reply['r'], 6).tolist()}, expected residual(z) = "
        f"{np.round(r, 6).tolist()}")
    assert reply["J"].shape == J.shape, (
        f"{what}: J has shape {reply['J'].shape}, expected {J.shape}, one row per r_i"
        + (": is it transposed?" if reply["J"].shape == J.T.shape else ""))
    wrong = np.flatnonzero(np.any(np.abs(reply["J"] - J) > RTOL * (1 + np.abs(J)), axis=1))
    same = np.allclose(reply["J"], reply["J"][:1]) and np.allclose(reply["J"][0], J.sum(axis=0))
    assert wrong.size == 0, (
        f"{what}: row {wrong[0]} of J is {np.round(reply['J'][wrong[0]], 6).tolist()}, expected "
        f"{np.round(J[wrong[0]], 6).tolist()}, the gradient of r_{wrong[0]} alone"
        + ("; every row of yours is the gradient of sum(r): backpropagate the unit vector e_i "
           "to get row i" if same else ""))


@pytest.mark.task("ode_solution")
def test_solution_is_close_to_the_exact_solution(submission, rng, public, metrics):
    z0 = _line(ENDS, ODE_POINTS, rng, 0.0 if public else 0.1)
    steps = 2 if public else int(rng.integers(2, 5))
    reply = _solve(submission, ENDS, T1, z0, steps)
    t = np.linspace(0, T1, ODE_POINTS)
    y = np.concatenate([[ENDS[0]], reply["z"], [ENDS[1]]])
    error = metrics["max_error"] = float(np.max(np.abs(y - exact_solution(t))))
    i = int(np.argmax(np.abs(y - exact_solution(t))))
    assert error < ODE_TOLERANCE, (
        f"gauss_newton(residual, z0, steps={steps}) on 2y'' + y' + 2y = 0, y(0) = 1, y(6.1) = 0.1 "
        f"with {ODE_POINTS} points: y at t = {t[i]:.3f} is {y[i]:.6f}, the exact solution "
        f"{exact_solution(t[i]):.6f} (error {error:.3g}, at most {ODE_TOLERANCE} expected)")


@pytest.mark.task("ode_solution")
def test_solution_is_the_least_squares_optimum(submission, rng, public):
    ends = (1.0, -0.5) if public else tuple(float(v) for v in rng.uniform(-2, 2, 2))
    n, t1 = (12, 4.0) if public else (int(rng.integers(10, 31)), float(rng.uniform(3, 8)))
    z0 = _line(ends, n, rng, 0.1)
    steps = 3 if public else int(rng.integers(2, 5))
    reply = _solve(submission, ends, t1, z0, steps)
    best = least_squares(ends, t1, n)
    setting = (f"gauss_newton(residual, z0, steps={steps}) with {n} points on [0, {t1:.4g}], "
               f"y(0) = {ends[0]:.4g}, y({t1:.4g}) = {ends[1]:.4g}")
    r0 = bvp_residual(ends, t1)(Node(z0)).value
    assert reply["losses"].shape == (steps,) and rel_error(reply["losses"][0], r0 @ r0) < RTOL, (
        f"{setting} returned the losses {np.round(reply['losses'], 6).tolist()}: expected {steps} "
        f"values, the first the loss sum(r^2) at z0, {r0 @ r0:.8g}")
    error = np.max(np.abs(reply["z"] - best)) / max(np.max(np.abs(best)), 1e-3)
    assert error < 1e-6, (
        f"{setting}: z is {np.round(reply['z'], 6).tolist()}, but the least-squares optimum is "
        f"{np.round(best, 6).tolist()} (relative difference {error:.3g})")
