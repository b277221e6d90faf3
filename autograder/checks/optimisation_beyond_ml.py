"""Checks of 10 optimisation beyond ML: the catenary's loss and shape, the boundary-value problem's
residual and solution.

- catenary_loss: the student's loss and its gradient (by the student's dp graph) on heights,
  numbers of points and target lengths chosen here, against the reference loss.
- catenary_shape: the student's `descend` on losses sent as data (quadratics 1/2 z^T Q z + c^T z):
  its first steps are exactly gradient steps, and on the rope's loss near its minimum (its
  Hessian Q there and c = -Q z*, whose minimiser is the discrete catenary) it reaches the cosh
  curve a = 0.30645, b = 1/2 from a start chosen here (metrics: the rope's length L, and a and the
  sag of the catenary of that length).
- ode_residual: the student's residual and its gradient on vectors, lengths and intervals chosen
  here, against the reference stencils; a wrong row is named (left end, inside, right end).
- ode_solution: the student's `jacobian` of the grader's residual r = A y (A sent as data), and
  `gauss_newton` on it: within 2e-3 of the exact solution of 2y'' + y' + 2y = 0, y(0) = 1,
  y(6.1) = 0.1 (metric: max_error), and the least-squares optimum for boundary values chosen here.

The optimisers run on the grader's problems, so a wrong loss or residual costs its own task only.
The reference computations (the loss, the stencils, the optimum) are in
autograder/references/optimisation_beyond_ml.py, reached through `ref`.
"""
import numpy as np
import pytest

from autograder import references
from autograder.grading.checking import located, misconception, shape_located, within

ref = references.of(__name__)

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


def _assert_node(reply, what, shape):
    assert reply["type"] == "Node", (
        f"{what} returned a {reply['type']}, not a Node: build it from dp operations")
    assert tuple(reply["shape"]) == shape, (
        f"{what} has shape {tuple(reply['shape'])}, expected {shape}"
        + shape_located(tuple(reply["shape"]), shape))
    assert reply["value"].size == int(np.prod(shape)), (
        f"{what} has {reply['value'].size} values for the shape {shape}")
    reply["value"] = reply["value"].reshape(shape)
    assert reply["grad"] is not None, (
        f"no gradient reaches the input of {what}: build the result from the Node you were given")


# -- catenary_loss ---------------------------------------------------------------------------------
def _same_loss(got, expected) -> bool:
    """The loss `got` is `expected` within RTOL (relative, or absolute for a loss near 0)."""
    return abs(got - expected) < RTOL * max(1.0, abs(expected))


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
        value, grad = ref.catenary_loss(z, length)
        mistakes = ref.misconceptions.catenary_loss(z, length)
        worst = metrics["max_rel_error"] = max(worst, abs(reply["value"] - value) / max(1.0, abs(value)),
                                               rel_error(reply["grad"], grad))
        if not _same_loss(reply["value"], value):
            raise AssertionError(
                f"{what} is {float(reply['value']):.10g}, expected {float(value):.10g}"
                + misconception(reply["value"], value, mistakes, _same_loss, part=0))
        if rel_error(reply["grad"], grad) >= RTOL:
            i = int(np.argmax(np.abs(reply["grad"] - grad)))
            raise AssertionError(f"{what}: its value is right, but d loss / d z[{i}] is "
                                 f"{reply['grad'][i]:.8g}, expected {grad[i]:.8g}")


# -- catenary_shape --------------------------------------------------------------------------------
def catenary_curve(x, a=A_CATENARY):
    """a cosh((x - 1/2) / a) + c, with c such that the curve is 0 at x = 0 and x = 1."""
    return a * (np.cosh((x - 0.5) / a) - np.cosh(0.5 / a))


def catenary_of_length(L, low=0.05, high=100.0) -> float:
    """The a of the catenary a cosh((x - 1/2) / a) + c through (0, 0) and (1, 0) whose length
    2 a sinh(1 / 2a) is L (> 1), by bisection: the length falls as a grows."""
    length = lambda a: 2 * a * np.sinh(0.5 / a)  # noqa: E731
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if length(middle) > L else (low, middle)
    return (low + high) / 2


def _start(rng, public, n=POINTS) -> np.ndarray:
    """Free heights of a smooth rope through (0, 0) and (1, 0) that is not the catenary."""
    x = np.linspace(0, 1, n)[1:-1]
    depth = 0.45 if public else float(rng.uniform(0.35, 0.6))
    bumps = sum(rng.normal(0, 0.03) * np.sin(k * np.pi * x) for k in range(2, 6))
    return -depth * np.sin(np.pi * x) + bumps


def _descend(submission, Q, c, z0, lr, steps) -> dict:
    reply = submission.probe("descent", Q=Q, c=c, z0=z0, lr=lr, steps=steps)
    assert reply["problem"] is None, reply["problem"]
    assert reply["z"].shape == z0.shape, (
        f"descend returned z of shape {reply['z'].shape}, expected {z0.shape}, the shape of z0"
        + shape_located(reply["z"].shape, z0.shape))
    assert reply["losses"].shape == (steps,), (
        f"descend(..., steps={steps}) returned {reply['losses'].size} losses, expected {steps}: "
        f"the loss before each step" + shape_located(reply["losses"].shape, (steps,)))
    return reply


@pytest.mark.task("catenary_shape")
def test_descend_takes_gradient_steps(submission, rng, public):
    """A few steps from a random start on a random quadratic 1/2 z^T Q z + c^T z (Q symmetric
    positive definite, gradient Q z + c), compared step by step with z <- z - lr * grad."""
    z0 = rng.normal(-0.3, 0.1, 6 if public else int(rng.integers(4, 20)))
    lr, steps = (0.003, 3) if public else (float(rng.uniform(0.001, 0.01)), int(rng.integers(2, 6)))
    M = rng.normal(size=(len(z0), len(z0)))
    Q, c = M @ M.T / len(z0) + np.eye(len(z0)), rng.normal(size=len(z0))
    reply = _descend(submission, Q, c, z0, lr, steps)
    expected = losses, z = ref.gradient_steps(Q, c, z0, lr, steps)
    mistakes = ref.misconceptions.gradient_steps(Q, c, z0, lr, steps)
    setting = (f"descend on a quadratic loss 1/2 z^T Q z + c^T z from z0 of {len(z0)} values, "
               f"lr={lr:.4g}, steps={steps}")
    close = lambda got, value: rel_error(got, value) < RTOL      # noqa: E731
    assert close(reply["losses"], losses), (
        f"{setting}: the losses are {np.round(reply['losses'], 8).tolist()}, expected "
        f"{np.round(losses, 8).tolist()} (loss(z_k) before step k)"
        + misconception(reply["losses"], losses, mistakes, close, 0))
    assert close(reply["z"], z), (
        f"{setting}: z after the last step differs from z - lr * gradient by up to "
        f"{np.max(np.abs(reply['z'] - z)):.3g}"
        + misconception(reply["z"], expected[1], mistakes, close, 1))


@pytest.mark.task("catenary_shape")
def test_descend_finds_the_catenary(submission, rng, public, metrics):
    """From a rope that is not a catenary, gradient descent on the rope's loss near its minimum
    (n = 50 points, L0 = 1.1: the reference's quadratic model there, whose minimiser is the
    discrete rope at rest and whose curvature is the rope's) reaches the cosh curve with
    a = 0.30645 (the soft penalty lets the rope stretch)."""
    z0 = _start(rng, public)
    lr = 0.01 if public else float(rng.uniform(0.007, 0.01))
    steps = 5000 if public else int(np.ceil(70 / lr))      # the error shrinks like exp(-0.08 lr steps)
    Q, c = ref.catenary_model(POINTS, LENGTH)
    reply = _descend(submission, Q, c, z0, lr, steps)
    x = np.linspace(0, 1, POINTS)
    y = np.concatenate([[0.0], reply["z"], [0.0]])
    assert np.all(np.isfinite(y)), (
        f"descend(lr={lr:.4g}, steps={steps}) returned heights that are not finite")
    error = metrics["max_error"] = float(np.max(np.abs(y - catenary_curve(x))))
    metrics["L"] = float(np.sum(np.sqrt(np.diff(x) ** 2 + np.diff(y) ** 2)))
    if metrics["L"] > 1:
        a = metrics["a"] = catenary_of_length(metrics["L"])
        metrics["sag"] = float(a * (np.cosh(0.5 / a) - 1))
    start = np.max(np.abs(np.concatenate([[0.0], z0, [0.0]]) - catenary_curve(x)))
    assert error < SHAPE_TOLERANCE, (
        f"after {steps} steps of descend with lr={lr:.4g} from a rope {start:.3f} away from the "
        f"catenary a cosh((x - 1/2)/a) + c with a = {A_CATENARY}, the rope is still {error:.3g} away "
        f"(at most {SHAPE_TOLERANCE} expected); its length is {metrics['L']:.5f} "
        f"(expected {L_CATENARY})")


# -- ode_residual ----------------------------------------------------------------------------------
def _rows(i, n) -> str:
    return ("the left end (forward formulas)" if i < 2 else "the right end (backward formulas)"
            if i >= n - 2 else "the inside (central formulas)")


def _residual_rows_differ(got, expected) -> np.ndarray:
    """Where the residual `got` is not `expected` within RTOL (relative, or absolute near 0)."""
    return np.abs(got - expected) > RTOL * (1 + np.abs(expected))


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
        value, grad = ref.ode_residual(y, t1, upstream)
        mistakes = ref.misconceptions.ode_residual(y, t1, upstream)
        worst = metrics["max_rel_error"] = max(worst, rel_error(reply["value"], value),
                                               rel_error(reply["grad"], grad))
        wrong = np.flatnonzero(_residual_rows_differ(reply["value"], value))
        if wrong.size:
            i = int(wrong[0])
            raise AssertionError(
                f"{what}: r[{i}], in {_rows(i, n)}, is {reply['value'][i]:.8g}, expected "
                f"{value[i]:.8g} ({wrong.size} of {n} values differ, in rows "
                f"{wrong.tolist()[:8]})" + misconception(
                    reply["value"], value, mistakes,
                    lambda a, b: a.shape == b.shape and not _residual_rows_differ(a, b).any(), 0))
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


def _solve(submission, A, ends, z0, steps) -> dict:
    reply = submission.probe("solve_bvp", A=A, ends=list(ends), z0=z0, steps=steps)
    assert reply["problem"] is None, reply["problem"]
    assert reply["z"].shape == z0.shape, (
        f"gauss_newton returned z of shape {reply['z'].shape}, expected {z0.shape}, the shape of z0"
        + shape_located(reply["z"].shape, z0.shape))
    assert np.all(np.isfinite(reply["z"])), "gauss_newton returned values that are not finite"
    return reply


def _line(ends, n, rng, noise) -> np.ndarray:
    """The straight line between the boundary values, at the inner points, with some noise."""
    return np.linspace(ends[0], ends[1], n)[1:-1] + rng.normal(0, noise, n - 2)


def residual_jacobian(A) -> np.ndarray:
    """J = dr/dz of the residual r = A (y(0), z, y(t1)): the inner columns of A."""
    return A[:, 1:-1]


@references.misconception("residual_jacobian", "every row is the gradient of sum(r): backpropagate "
                                               "the unit vector e_i to get row i")
def jacobian_rows_of_the_sum(A) -> np.ndarray:
    J = residual_jacobian(A)
    return np.tile(J.sum(axis=0), (len(J), 1))


@pytest.mark.task("ode_solution")
def test_jacobian_of_the_residual(submission, rng, public):
    """The student's jacobian of the reference residual: r, and J = the inner columns of A."""
    n, t1 = (8, 3.0) if public else (int(rng.integers(8, 25)), float(rng.uniform(2, 8)))
    ends, z = rng.normal(size=2), rng.normal(size=n - 2)
    A = ref.ode_matrix(n, t1)
    reply = submission.probe("jacobian", A=A, ends=list(ends), z=z)
    r = A @ np.concatenate([ends[:1], z, ends[1:]])
    J = residual_jacobian(A)
    what = f"jacobian(residual, z) for a residual of {n} values and z of {n - 2} values"
    assert reply["problem"] is None, reply["problem"]
    assert reply["r"].shape == r.shape and rel_error(reply["r"], r) < RTOL, (
        f"{what}: r is {np.round(reply['r'], 6).tolist()}, expected residual(z) = "
        f"{np.round(r, 6).tolist()}")
    assert reply["J"].shape == J.shape, (
        f"{what}: J has shape {reply['J'].shape}, expected {J.shape}, one row per r_i"
        + (": is it transposed?" if reply["J"].shape == J.T.shape else "")
        + shape_located(reply["J"].shape, J.shape))
    wrong = np.flatnonzero(np.any(_residual_rows_differ(reply["J"], J), axis=1))
    assert wrong.size == 0, (
        f"{what}: row {wrong[0]} of J is {np.round(reply['J'][wrong[0]], 6).tolist()}, expected "
        f"{np.round(J[wrong[0]], 6).tolist()}, the gradient of r_{wrong[0]} alone"
        + misconception(reply["J"], J, references.variants(residual_jacobian, A),
                        lambda a, b: a.shape == b.shape and not _residual_rows_differ(a, b).any()))


@pytest.mark.task("ode_solution")
def test_solution_is_close_to_the_exact_solution(submission, rng, public, metrics):
    z0 = _line(ENDS, ODE_POINTS, rng, 0.0 if public else 0.1)
    steps = 2 if public else int(rng.integers(2, 5))
    A = ref.ode_matrix(ODE_POINTS, T1)
    reply = _solve(submission, A, ENDS, z0, steps)
    t = np.linspace(0, T1, ODE_POINTS)
    y = np.concatenate([[ENDS[0]], reply["z"], [ENDS[1]]])
    # a reference value the check may read: asked of every reply (the public cases hold it)
    losses = gauss_newton_losses(A, ENDS, T1, z0, steps)
    error = metrics["max_error"] = float(np.max(np.abs(y - exact_solution(t))))
    i = int(np.argmax(np.abs(y - exact_solution(t))))
    assert error < ODE_TOLERANCE, (
        f"gauss_newton(residual, z0, steps={steps}) on 2y'' + y' + 2y = 0, y(0) = 1, y(6.1) = 0.1 "
        f"with {ODE_POINTS} points: y at t = {t[i]:.3f} is {y[i]:.6f}, the exact solution "
        f"{exact_solution(t[i]):.6f} (error {error:.3g}, at most {ODE_TOLERANCE} expected)"
        + _first_step_located(reply["losses"], losses))


def gauss_newton_losses(A, ends, t1, z0, steps) -> np.ndarray:
    """Gauss-Newton's loss before each of its `steps` from z0 on the residual A (y(0), z, y(t1)),
    which is linear in z: the loss at z0, then at the least-squares optimum, which the first step
    reaches."""
    best = ref.least_squares(ends, t1, len(z0) + 2)
    r0, r = (A @ np.concatenate([ends[:1], z, ends[1:]]) for z in (z0, best))
    return np.array([r0 @ r0] + [r @ r] * (steps - 1))


def _first_step_located(losses, expected) -> str:
    """'. The first difference is ...': the first of the `losses` (the loss before each step, as
    gauss_newton returned them) that departs from Gauss-Newton's, `expected`."""
    steps = len(expected)
    if losses.shape != expected.shape:
        return f"; it returned losses of shape {losses.shape}, expected ({steps},), one before " \
            f"each step" + shape_located(losses.shape, expected.shape)
    sentence = located(losses, expected, within(RTOL))
    return sentence and (
        f". The losses before each step are {np.round(losses, 6).tolist()}, Gauss-Newton's "
        f"{np.round(expected, 6).tolist()} (its first step reaches the optimum of this linear "
        f"residual){sentence}")


@pytest.mark.task("ode_solution")
def test_solution_is_the_least_squares_optimum(submission, rng, public):
    ends = (1.0, -0.5) if public else tuple(float(v) for v in rng.uniform(-2, 2, 2))
    n, t1 = (12, 4.0) if public else (int(rng.integers(10, 31)), float(rng.uniform(3, 8)))
    z0 = _line(ends, n, rng, 0.1)
    steps = 3 if public else int(rng.integers(2, 5))
    A = ref.ode_matrix(n, t1)
    reply = _solve(submission, A, ends, z0, steps)
    best = ref.least_squares(ends, t1, n)
    setting = (f"gauss_newton(residual, z0, steps={steps}) with {n} points on [0, {t1:.4g}], "
               f"y(0) = {ends[0]:.4g}, y({t1:.4g}) = {ends[1]:.4g}")
    r0 = A @ np.concatenate([ends[:1], z0, ends[1:]])
    losses = reply["losses"]
    assert losses.shape == (steps,) and rel_error(losses[0], r0 @ r0) < RTOL, (
        f"{setting} returned the losses {np.round(losses, 6).tolist()}: expected {steps} "
        f"values, the first the loss sum(r^2) at z0, {r0 @ r0:.8g}"
        + (located(losses[0], r0 @ r0, within(RTOL)) if losses.shape == (steps,) else
           shape_located(losses.shape, (steps,))))
    error = np.max(np.abs(reply["z"] - best)) / max(np.max(np.abs(best)), 1e-3)
    assert error < 1e-6, (
        f"{setting}: z is {np.round(reply['z'], 6).tolist()}, but the least-squares optimum is "
        f"{np.round(best, 6).tolist()} (relative difference {error:.3g})")
    r = A @ np.concatenate([ends[:1], best, ends[1:]])    # the residual is affine: one step lands
    assert rel_error(reply["losses"][1:], np.full(steps - 1, r @ r)) < 1e-6, (
        f"{setting} returned the losses {np.round(reply['losses'], 6).tolist()}: after the first "
        f"step each is the loss at the optimum, {r @ r:.8g} (the residual is linear in z, so one "
        f"Gauss-Newton step reaches the optimum)")


@pytest.mark.task("ode_solution")
def test_each_step_takes_the_jacobian_at_its_own_z(submission, rng, public):
    """A residual that is not linear in z: its Jacobian changes from step to step (one taken
    once, at z0, still solves the linear ODE above in one step)."""
    n, steps = (5, 3) if public else (int(rng.integers(3, 9)), int(rng.integers(2, 5)))
    c, z0 = rng.uniform(1, 4, n), rng.uniform(0.8, 2.5, n)
    reply = submission.probe("solve_squares", c=c, z0=z0, steps=steps)
    assert reply["problem"] is None, reply["problem"]
    expected = ref.newton_squares(c, z0, steps)
    mistakes = ref.misconceptions.newton_squares(c, z0, steps)
    setting = (f"gauss_newton(residual, z0, steps={steps}) on the residual r(z) = z * z - c "
               f"({n} values; its Jacobian diag(2 z) changes with z)")
    losses = reply["losses"]
    assert rel_error(losses, expected["losses"]) < RTOL, (
        f"{setting} returned the losses {np.round(losses, 6).tolist()}, expected "
        f"{np.round(expected['losses'], 6).tolist()}: each step takes (r, J) at the z it starts "
        f"from" + (misconception(reply, expected, mistakes, _same_solve)
                   or located(losses, expected["losses"], within(RTOL))))
    assert rel_error(reply["z"], expected["z"]) < RTOL, (
        f"{setting}: z is {np.round(reply['z'], 6).tolist()}, expected "
        f"{np.round(expected['z'], 6).tolist()}" + (misconception(reply, expected, mistakes,
                                                                  _same_solve)
                                                    or located(reply["z"], expected["z"],
                                                               within(RTOL))))


def _same_solve(reply, mistake) -> bool:
    """A reply of gauss_newton equals a mistake's {"z", "losses"}: both, within RTOL."""
    return all(rel_error(reply[key], mistake[key]) < RTOL for key in ("z", "losses"))
