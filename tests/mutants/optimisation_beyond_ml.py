"""Mutants of 10 optimisation beyond ML.

The optimisers are graded on the grader's own loss and residual, so a wrong catenary loss or a
wrong stencil costs its own task only, even though the notebook's own rope and ODE runs then go
astray (a rope that rises without bound, a residual that no longer vanishes at the solution).
"""
from tests.grading import Mutant

A = "10_optimisation_beyond_ml"
LOSS = "return (s.sum() - length) ** 2 + (s * mean_height).sum()"
STEP = 'z = z - lr * value.grad(1)["z"]'

MUTANTS = [
    Mutant(A, "catenary_loss", "potential_energy_with_the_wrong_sign",
           LOSS, "return (s.sum() - length) ** 2 - (s * mean_height).sum()",
           "the energy's sign flipped: the rope is pushed up, not down"),
    Mutant(A, "catenary_loss", "segment_height_from_its_left_end",
           "mean_height = (y[1:] + y[:-1]) / 2", "mean_height = y[:-1]",
           "each segment's height taken at its left end, not at its centre"),
    Mutant(A, "catenary_loss", "length_penalty_without_the_square",
           LOSS, "return (s.sum() - length) + (s * mean_height).sum()",
           "(L - L0) instead of (L - L0)^2: a loss with no minimum"),
    Mutant(A, "catenary_loss", "dx_one_over_the_number_of_points",
           "dx = 1.0 / (len(z) + 1)", "dx = 1.0 / (len(z) + 2)",
           "dx = 1/n for n points, which make n - 1 segments"),
    Mutant(A, "catenary_shape", "descend_ignores_its_step_size",
           STEP, 'z = z - 0.005 * value.grad(1)["z"]',
           "the paper's step size hard-coded in place of lr"),
    Mutant(A, "catenary_shape", "descend_climbs",
           STEP, 'z = z + lr * value.grad(1)["z"]',
           "a step up the gradient"),
    Mutant(A, "ode_residual", "right_end_not_mirrored",
           "D1[i, i - 4:i + 1] = -forward_1[::-1]", "D1[i, i - 4:i + 1] = forward_1[::-1]",
           "the backward y' formula with the forward signs: the mirror image of y' changes sign"),
    Mutant(A, "ode_residual", "central_second_derivative_misprinted",
           "central_2 = np.array([-1 / 12, 4 / 3, -5 / 2, 4 / 3, -1 / 12])",
           "central_2 = np.array([-1 / 12, -4 / 3, -5 / 2, 4 / 3, -1 / 12])",
           "the sign misprint of the paper's eq. 124: -4/3 on y_(i-1)"),
    Mutant(A, "ode_residual", "central_first_derivative_wrong_coefficient",
           "central_1 = np.array([1 / 12, -2 / 3, 0, 2 / 3, -1 / 12])",
           "central_1 = np.array([1 / 12, -1 / 3, 0, 1 / 3, -1 / 12])",
           "1/3 in place of 2/3 in the central y' stencil"),
    Mutant(A, "ode_residual", "dt_from_the_number_of_points",
           "D1, D2 = derivative_matrices(len(y), t1 / (len(y) - 1))",
           "D1, D2 = derivative_matrices(len(y), t1 / len(y))",
           "dt = t1 / n for n points, which make n - 1 intervals"),
    Mutant(A, "ode_solution", "jacobian_rows_from_an_upstream_of_ones",
           'rows = [r.grad(unit)["z"] for unit in np.eye(len(r))]',
           'rows = [r.grad(np.ones(len(r)))["z"] for unit in np.eye(len(r))]',
           "every row is the gradient of sum(r), not of r_i"),
    Mutant(A, "ode_solution", "jacobian_taken_once",
           "    for _ in range(steps):\n        r, J = jacobian(residual, z)",
           "    _, J = jacobian(residual, z)\n    for _ in range(steps):\n        r, _ = jacobian(residual, z)",
           "the Jacobian taken once before the loop (right for a linear residual only; round 5's gap)", slow=True),
    Mutant(A, "ode_solution", "gauss_newton_step_with_the_wrong_sign",
           "z = z - np.linalg.lstsq(J, r, rcond=None)[0]", "z = z + np.linalg.lstsq(J, r, rcond=None)[0]",
           "z + delta where delta solves J delta = r"),
]

# What the feedback names (issue 19): mutant -> the id of its known mistake in the catalogue
# (autograder/references/optimisation_beyond_ml.py, autograder/checks/optimisation_beyond_ml.py).
# The held-out mutants (tests/mutants/__init__.py) are measured: never given a mistake here.
NAMED = {
    "jacobian_taken_once": "jacobian_taken_once",
    "potential_energy_with_the_wrong_sign": "energy_sign_flipped",
    "segment_height_from_its_left_end": "height_at_the_left_end",
    "length_penalty_without_the_square": "length_penalty_not_squared",
    "descend_ignores_its_step_size": "step_size_ignored",
    "descend_climbs": "gradient_ascent",
    "right_end_not_mirrored": "right_end_y1_not_mirrored",
    "central_first_derivative_wrong_coefficient": "central_y1_one_third",
    "dt_from_the_number_of_points": "dt_over_n",
    "jacobian_rows_from_an_upstream_of_ones": "jacobian_rows_of_the_sum",
}
UNNAMEABLE = {}
