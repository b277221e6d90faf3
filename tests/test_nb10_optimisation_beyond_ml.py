"""Notebook 10, optimisation beyond ML: the solution earns full marks with the published numbers,
the exercise earns nothing, the check cells pass on the solution and fail readably on the
exercise; the grader's references are right (stencils exact on polynomials, the catenary's
constants, the exact ODE solution); correct code written otherwise passes on hidden inputs, and
every named mistake is far from the reference."""
from __future__ import annotations

import numpy as np
import pytest

import dp
from autograder.grading.judge import run_checks
from autograder.probes import optimisation_beyond_ml as probes
from autograder.references import optimisation_beyond_ml as refs
from autograder.grading.selfcheck import LocalSubmission
from dp import Node
from tests.grading import (COURSE, LIKE_JUPYTER_IN_ITS_FOLDER, assert_full_marks, full_marks,
                           grade_notebook, load_checks, notebook_tests, notebooks_fixture)

ASSIGNMENT = "10_optimisation_beyond_ml"
FULL = full_marks(ASSIGNMENT)
checks = load_checks(ASSIGNMENT)
notebooks = notebooks_fixture(ASSIGNMENT, built=True)


# -- the notebooks, graded ------------------------------------------------------------------------
def test_solution_earns_full_marks_with_the_published_numbers(notebooks):
    result = assert_full_marks(grade_notebook(notebooks["solution"], ASSIGNMENT), ASSIGNMENT)
    metrics = {t["id"]: t["metrics"] for t in result["tasks"]}
    shape = metrics["catenary_shape"]
    assert abs(shape["a"] - checks.A_CATENARY) < 2e-4, shape
    assert abs(shape["L"] - checks.L_CATENARY) < 5e-4, shape
    assert abs(shape["sag"] - checks.SAG_CATENARY) < 1e-3, shape
    assert shape["max_error"] < 5e-4, shape
    assert 1.7e-3 < metrics["ode_solution"]["max_error"] < 1.8e-3, metrics
    assert metrics["catenary_loss"]["max_rel_error"] < 1e-12, metrics
    assert metrics["ode_residual"]["max_rel_error"] < 1e-12, metrics


(test_exercise_earns_nothing, test_check_cells_pass_on_the_solution,
 test_check_cells_fail_readably_on_the_exercise) = notebook_tests(ASSIGNMENT,
                                                                  **LIKE_JUPYTER_IN_ITS_FOLDER)


# -- the grader's references ----------------------------------------------------------------------
@pytest.mark.parametrize("n", [6, 9, 20])
def test_stencils_are_exact_on_polynomials_of_degree_four(n):
    t = np.linspace(0, 2.5, n)
    D1, D2 = refs.derivative_matrices(n, t[1] - t[0])
    for k in range(5):
        assert np.allclose(D1 @ t ** k, k * t ** max(k - 1, 0), atol=1e-9), k
        assert np.allclose(D2 @ t ** k, k * (k - 1) * t ** max(k - 2, 0), atol=1e-8), k


def test_derived_stencils_are_the_published_ones():
    assert np.allclose(refs.CENTRAL_1, [1 / 12, -2 / 3, 0, 2 / 3, -1 / 12], rtol=0, atol=1e-13)
    assert np.allclose(refs.CENTRAL_2, [-1 / 12, 4 / 3, -5 / 2, 4 / 3, -1 / 12], rtol=0, atol=1e-13)
    assert np.allclose(refs.FORWARD_1, [-25 / 12, 4, -3, 4 / 3, -1 / 4], rtol=0, atol=1e-13)
    assert np.allclose(refs.FORWARD_2, [35 / 12, -26 / 3, 19 / 2, -14 / 3, 11 / 12], rtol=0, atol=1e-12)


def test_the_right_end_is_the_mirror_image_of_the_left():
    D1, D2 = refs.derivative_matrices(10, 1.0)
    flip = np.eye(10)[::-1]
    assert np.allclose(flip @ D1 @ flip, -D1) and np.allclose(flip @ D2 @ flip, D2)


def test_exact_solution_solves_the_boundary_value_problem():
    t = np.linspace(0, checks.T1, 7)
    h = 1e-4
    y = checks.exact_solution
    d1, d2 = (y(t + h) - y(t - h)) / (2 * h), (y(t + h) - 2 * y(t) + y(t - h)) / h ** 2
    assert np.max(np.abs(2 * d2 + d1 + 2 * y(t))) < 1e-5
    assert np.isclose(y(0.0), 1.0) and np.isclose(y(checks.T1), 0.1)
    w = np.sqrt(15) / 4   # B of the issue
    assert np.isclose((0.1 * np.exp(checks.T1 / 4) - np.cos(w * checks.T1)) / np.sin(w * checks.T1), 1.27790, atol=1e-5)


def test_least_squares_optimum_is_within_the_tolerance_of_the_exact_solution():
    z = refs.least_squares(checks.ENDS, checks.T1, checks.ODE_POINTS)
    y = np.concatenate([[1.0], z, [0.1]])
    error = np.max(np.abs(y - checks.exact_solution(np.linspace(0, checks.T1, checks.ODE_POINTS))))
    assert 1.7e-3 < error < checks.ODE_TOLERANCE


def test_reference_catenary_loss_agrees_with_numpy_and_central_differences():
    rng = np.random.default_rng(0)
    for n in (3, 10, 48):
        z, length = rng.normal(0, 0.3, n), float(rng.uniform(1, 2))
        assert np.isclose(refs.catenary(Node(z), length).item(), refs.loss_value(z, length), rtol=1e-13)
        assert dp.gradcheck(lambda node: refs.catenary(node, length), z) < 1e-7


def test_the_minimiser_of_the_catenary_loss_is_the_published_catenary():
    """Newton's method on the reference loss (Hessian from differences of dp gradients) finds a
    symmetric rope at rest within 1e-4 of the published cosh curve, with its length and sag."""
    z, _ = refs._minimum(checks.POINTS, checks.LENGTH)
    assert np.max(np.abs(refs.catenary_loss(z, checks.LENGTH)[1])) < 1e-10
    x = np.linspace(0, 1, checks.POINTS)
    y = np.concatenate([[0.0], z, [0.0]])
    assert np.max(np.abs(y - y[::-1])) < 1e-9                  # b = 1/2
    L = np.sum(np.hypot(np.diff(x), np.diff(y)))
    assert abs(L - checks.L_CATENARY) < 1e-4
    a = checks.catenary_of_length(L)
    assert abs(a - checks.A_CATENARY) < 1e-4 and abs(a * (np.cosh(0.5 / a) - 1) - checks.SAG_CATENARY) < 2e-4
    assert np.max(np.abs(y - checks.catenary_curve(x))) < 1e-4 < checks.SHAPE_TOLERANCE


def test_the_quadratic_model_of_the_rope_has_the_ropes_minimiser_and_curvature():
    """descend is graded on 1/2 z^T Q z + c^T z: its minimiser -Q^-1 c is the rope at rest, and Q
    is the Hessian of the loss there (a gradient step on either moves alike near the minimum)."""
    Q, c = refs.catenary_model(checks.POINTS, checks.LENGTH)
    z, _ = refs._minimum(checks.POINTS, checks.LENGTH)
    assert np.allclose(np.linalg.solve(Q, -c), z, rtol=0, atol=1e-10)
    eigenvalues = np.linalg.eigvalsh(Q)
    assert 0.05 < eigenvalues[0] and eigenvalues[-1] < 2 / 0.01     # lr 0.01 is stable
    for eps in (1e-4, 1e-5):           # the model's gradient is right to first order in the step
        nearby = z + eps * np.random.default_rng(0).normal(size=len(z))
        gradient = refs.catenary_loss(nearby, checks.LENGTH)[1]
        assert np.max(np.abs(Q @ nearby + c - gradient)) < 100 * eps * np.max(np.abs(gradient))


def test_the_probes_hold_no_loss_or_stencil():
    """The grader sends the quadratic and the residual's matrix: the probe module has neither the
    catenary's loss nor the finite-difference stencils (issue 15)."""
    assert not {"catenary", "derivative_matrices", "ode_matrix", "stencil", "bvp_residual",
                "CENTRAL_1", "FORWARD_1"} & set(vars(probes))


# -- correct code written otherwise; named mistakes ----------------------------------------------------
def matrix_catenary_loss(z, length=1.1):
    """The differences and the means by (n - 1, n - 2) matrices on z: the ends are zero."""
    m = len(z)
    differences = np.eye(m + 1, m) - np.eye(m + 1, m, k=-1)     # y_(i+1) - y_i
    means = (np.eye(m + 1, m) + np.eye(m + 1, m, k=-1)) / 2
    s = ((differences @ z) ** 2 + 1 / (m + 1) ** 2) ** 0.5
    return (s.sum() - length) ** 2 + (s * (means @ z)).sum()


def conv_ode_residual(y, t1):
    """Central rows by conv1d, the four end rows as dot products with the one-sided stencils."""
    n, dt = len(y), t1 / (len(y) - 1)

    def derivative(central, forward, sign, power):
        ends = [(y[i:i + 5] * forward).sum().reshape(1) for i in (0, 1)]
        backs = [(y[i - 4:i + 1] * (sign * forward[::-1])).sum().reshape(1) for i in (n - 2, n - 1)]
        return dp.concatenate(ends + [y.conv1d(central)] + backs) / dt ** power
    d1 = derivative(refs.CENTRAL_1, refs.FORWARD_1, -1, 1)
    d2 = derivative(refs.CENTRAL_2, refs.FORWARD_2, 1, 2)
    return 2 * d2 + d1 + 2 * y


def normal_equations_gauss_newton(residual, z0, steps=3):
    """Gauss-Newton through the normal equations, with the Jacobian by columns of central
    differences (exact for the checks' residuals: affine, or quadratic in each value)."""
    z, losses = np.array(z0, dtype=float), []
    for _ in range(steps):
        r = residual(Node(z)).value
        J = np.stack([(residual(Node(z + 1e-3 * e)).value - residual(Node(z - 1e-3 * e)).value)
                      / 2e-3 for e in np.eye(len(z))], axis=1)
        losses.append(float(r @ r))
        z = z - np.linalg.solve(J.T @ J, J.T @ r)
    return z, losses


def jacobian_by_columns(f, z):
    r = f(Node(z)).value
    return r, np.stack([(f(Node(z + e)).value - r) for e in np.eye(len(z))], axis=1)


OTHERWISE = {"catenary_loss": matrix_catenary_loss, "ode_residual": conv_ode_residual,
             "gauss_newton": normal_equations_gauss_newton, "jacobian": jacobian_by_columns}


@pytest.mark.parametrize("seed", range(4))
def test_correct_code_written_otherwise_passes_on_hidden_inputs(seed):
    assignment = COURSE.assignment(ASSIGNMENT)
    tasks = ["catenary_loss", "ode_residual", "ode_solution"]
    results = run_checks(LocalSubmission(dict(OTHERWISE), assignment), assignment, seed=2000 + seed,
                         public=False, tasks=tasks)
    assert all(r["status"] == "passed" for r in results), [(r["id"], r["message"]) for r in results]


class RecordingSubmission(LocalSubmission):
    def __init__(self, namespace):
        super().__init__(namespace, COURSE.assignment(ASSIGNMENT))
        self.calls = []

    def probe(self, name, **kwargs):
        self.calls.append((name, kwargs))
        return super().probe(name, **kwargs)


def test_grading_uses_other_inputs_than_the_self_check():
    assignment = COURSE.assignment(ASSIGNMENT)
    seen = {}
    for public, seed in [(True, COURSE.public_seed), (False, 77)]:
        submission = RecordingSubmission(dict(OTHERWISE))
        run_checks(submission, assignment, seed, public=public, tasks=["catenary_loss", "ode_residual"])
        seen[public] = [np.concatenate([np.ravel(v) for v in (kw.get("z"), kw.get("y")) if v is not None])
                        for _, kw in submission.calls]
    assert not any(h.shape == p.shape and np.allclose(h, p) for h in seen[False] for p in seen[True])


def test_every_named_mistake_is_far_from_the_reference_on_hidden_inputs():
    closest = {}
    for seed in range(30):
        rng = np.random.default_rng(seed)
        for z, length in checks._loss_cases(rng, public=False):
            right = refs.loss_value(z, length)
            for text, options in refs.LOSS_MISTAKES.items():
                wrong = refs.loss_value(z, length, **options)
                closest[text] = min(closest.get(text, np.inf), abs(wrong - right) / (1 + abs(right)))
        for y, t1 in checks._residual_cases(rng, public=False):
            n = len(y)
            D1, D2 = refs.derivative_matrices(n, t1 / (n - 1))
            right = refs.residual(D1, D2, y)
            for text, mistake in refs.RESIDUAL_MISTAKES.items():
                wrong = refs.residual(*mistake(D1, D2, t1 / (n - 1)), y)
                closest[text] = min(closest.get(text, np.inf),
                                    np.max(np.abs(wrong - right) / (1 + np.abs(right))))
    assert min(closest.values()) > 1000 * checks.RTOL, closest


# -- the self-check in the student bundle ------------------------------------------------------------
def test_the_self_check_gives_the_same_verdicts_from_the_recorded_public_cases():
    """The public run of the solution and of code with a named mistake, its reference values
    recorded, then replayed as in the bundle (no reference module): the same verdicts and
    messages, and no reference computed during the replay."""
    from autograder import references
    assignment = COURSE.assignment(ASSIGNMENT)
    wrong = dict(OTHERWISE, catenary_loss=lambda z, length=1.1: matrix_catenary_loss(z, length) * 1.5)
    namespaces = {"otherwise": dict(OTHERWISE), "wrong": wrong}
    with references.record() as cases:
        graded = {name: run_checks(LocalSubmission(ns, assignment), assignment, COURSE.public_seed,
                                   public=True, tasks=["catenary_loss", "ode_residual", "ode_solution"])
                  for name, ns in namespaces.items()}
    assert set(cases) == {"optimisation_beyond_ml"}
    with references.replay(cases), pytest.MonkeyPatch.context() as patch:
        patch.setattr(refs, "ode_matrix", None)          # a computed reference would raise here
        replayed = {name: run_checks(LocalSubmission(ns, assignment), assignment, COURSE.public_seed,
                                     public=True, tasks=["catenary_loss", "ode_residual", "ode_solution"])
                    for name, ns in namespaces.items()}
    verdicts = lambda results: [(r["id"], r["status"], r["message"]) for r in results]  # noqa: E731
    for name in namespaces:
        assert verdicts(replayed[name]) == verdicts(graded[name]), name
    assert [r["status"] for r in graded["wrong"]] == ["failed", "passed", "passed"]
