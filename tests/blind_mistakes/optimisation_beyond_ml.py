"""Blind mistakes in 10, optimisation beyond ML (see tests/blind_mistakes/__init__.py)."""
from . import Mistake
from .activation_functions import OFF_BY_ONE
from .dp_library import SIGN
from .matrix_autodiff import TRANSPOSE
from .scalar_autodiff import SQUARE, SWAP
from .weight_initialisation import ROOT

A = "10_optimisation_beyond_ml"
# Written and left out: descend updating the caller's z0 in place (`z, losses = z0, []` and
# `z -= lr * ...`), which the docstring forbids; the checks of catenary_shape do not see it (the
# self-check gives it full marks), so it is no yardstick for naming. Reported as a gap in the checks.

MISTAKES = [
    Mistake(A, "catenary_loss", "catenary_spacing_off_by_one",
            "dx = 1.0 / (len(z) + 1)", "dx = 1.0 / len(z)",
            "n = len(z) + 2 points make n - 1 = len(z) + 1 intervals, so dx = 1/(len(z) + 1)",
            OFF_BY_ONE + ("dx", "spacing", "interval")),
    Mistake(A, "catenary_loss", "catenary_segment_length_without_root",
            "s = (dy * dy + dx * dx).sqrt()", "s = dy * dy + dx * dx",
            "a segment's length is sqrt(dx² + dy²): the square root is missing", ROOT),
    Mistake(A, "catenary_loss", "catenary_length_penalty_not_squared",
            "(s.sum() - length) ** 2 +", "(s.sum() - length) +",
            "the length penalty is (L - L0)²: without the square, a short rope is rewarded",
            SQUARE),
    Mistake(A, "catenary_loss", "catenary_height_not_halved",
            "mean_height = (y[1:] + y[:-1]) / 2", "mean_height = y[1:] + y[:-1]",
            "a segment's height is the mean of its ends, (y_i + y_(i+1)) / 2; the 1/2 is missing",
            ("half", "/ 2", "/2", "factor", "average", "midpoint", "mean")),
    Mistake(A, "catenary_shape", "descend_climbs",
            "z = z - lr * value.grad(1)[\"z\"]", "z = z + lr * value.grad(1)[\"z\"]",
            "gradient descent steps against the gradient: + climbs the loss", SIGN),
    Mistake(A, "catenary_shape", "descend_records_loss_after_the_step",
            "        value = loss(Node(z, \"z\"))\n        losses.append(value.item())\n"
            "        z = z - lr * value.grad(1)[\"z\"]",
            "        value = loss(Node(z, \"z\"))\n        z = z - lr * value.grad(1)[\"z\"]\n"
            "        losses.append(loss(Node(z, \"z\")).item())",
            "each loss is to be recorded before its step; here it is the loss after it, one step "
            "late", OFF_BY_ONE + ("before", "after", "late", "shift")),
    Mistake(A, "ode_residual", "ode_derivatives_swapped",
            "return 2 * (D2 @ y) + D1 @ y + 2 * y", "return 2 * (D1 @ y) + D2 @ y + 2 * y",
            "the residual is 2y'' + y' + 2y: the first and second derivative are swapped",
            SWAP + ("d1", "d2", "y''", "y'")),
    Mistake(A, "ode_residual", "second_derivative_divided_by_dt_once",
            "return D1 / dt, D2 / dt ** 2", "return D1 / dt, D2 / dt",
            "a second derivative scales with 1/dt², not 1/dt", SQUARE + ("dt",)),
    Mistake(A, "ode_residual", "backward_stencil_sign",
            "D1[i, i - 4:i + 1] = -forward_1[::-1]", "D1[i, i - 4:i + 1] = forward_1[::-1]",
            "the one-sided stencil at the right end is the mirrored forward one with its sign "
            "flipped (for the first derivative); the sign is missing", SIGN + ("stencil",)),
    Mistake(A, "ode_residual", "ode_step_off_by_one",
            "t1 / (len(y) - 1)", "t1 / len(y)",
            "n points on [0, t1] are t1/(n - 1) apart, not t1/n", OFF_BY_ONE
            + ("dt", "spacing", "step")),
    Mistake(A, "ode_solution", "gauss_newton_wrong_direction",
            "z = z - np.linalg.lstsq(J, r, rcond=None)[0]", "z = z + np.linalg.lstsq(J, r, rcond=None)[0]",
            "the Gauss-Newton step is z - δ with J δ ≈ r; + moves away from the solution", SIGN),
    Mistake(A, "ode_solution", "jacobian_transposed",
            "return r.value, np.array(rows)", "return r.value, np.array(rows).T",
            "row i of the Jacobian is the gradient of r_i; transposing it mixes up rows and columns",
            TRANSPOSE),
]

# Round 2 (2026-11-28), written blind as round 1 was.
MISTAKES += [
    Mistake(A, "catenary_loss", "catenary_ends_not_fixed",
            "y = dp.concatenate([np.zeros(1), z, np.zeros(1)])", "y = z",
            "the rope is (0, z, 0): the two fixed ends at height 0 are left out, so the first "
            "and last segments are missing", ("end", "fixed", "boundary", "endpoint", "height 0",
                                              "concatenat", "pad", "segment")),
    Mistake(A, "catenary_loss", "catenary_length_is_a_mean",
            "return (s.sum() - length) ** 2 + (s * mean_height).sum()",
            "return (s.mean() - length) ** 2 + (s * mean_height).sum()",
            "the rope's length L is the sum of the segment lengths, not their mean",
            ("sum", "mean", "total length", "average", "length")),
    Mistake(A, "catenary_shape", "descend_steps_by_the_loss_value",
            "z = z - lr * value.grad(1)[\"z\"]", "z = z - lr * value.item()",
            "the step is along the gradient dloss/dz; the loss value itself is subtracted "
            "from every coordinate", ("gradient", "value", "loss value", "derivative",
                                      "instead of the gradient")),
    Mistake(A, "catenary_shape", "descend_differentiates_at_the_start",
            "        value = loss(Node(z, \"z\"))\n        losses.append(value.item())\n"
            "        z = z - lr",
            "        value = loss(Node(z0, \"z\"))\n        losses.append(value.item())\n"
            "        z = z - lr",
            "the loss and its gradient must be evaluated at the current z, not at the start z0",
            ("z0", "starting point", "start", "initial", "stale", "current z", "current")),
    Mistake(A, "ode_residual", "forward_stencil_of_row_one_at_column_zero",
            "        D1[i, i:i + 5] = forward_1\n", "        D1[i, 0:5] = forward_1\n",
            "row 1's forward stencil starts at its own point, column 1: both rows get the "
            "stencil of point 0", ("row 1", "column", "offset", "index", "shift", "i:i + 5",
                                   "forward stencil", "stencil")),
    Mistake(A, "ode_residual", "ode_coefficients_swapped",
            "return 2 * (D2 @ y) + D1 @ y + 2 * y", "return 2 * (D2 @ y) + 2 * (D1 @ y) + y",
            "2y'' + y' + 2y: the factor 2 belongs to y, not to y'", SWAP + ("coefficient", "2y",
                                                                          "2 y", "factor")),
    Mistake(A, "ode_solution", "jacobian_one_row_per_unknown",
            "rows = [r.grad(unit)[\"z\"] for unit in np.eye(len(r))]",
            "rows = [r.grad(unit)[\"z\"] for unit in np.eye(len(z))]",
            "the Jacobian has one row per residual, len(r), not one per unknown, len(z)",
            ("rows", "len(r)", "len(z)", "shape", "residual", "unknown")),
]

# Round 3 (2026-11-28), written blind as rounds 1 and 2 were.
MISTAKES += [
    Mistake(A, "catenary_loss", "segment_dx_not_squared",
            "s = (dy * dy + dx * dx).sqrt()", "s = (dy * dy + dx).sqrt()",
            "a segment's length is √(Δy² + Δx²): Δx is not squared",
            ("square", "dx * dx", "dx²", "δx²", "pythag"), slow=True),
    Mistake(A, "catenary_loss", "potential_not_weighted_by_length",
            "return (s.sum() - length) ** 2 + (s * mean_height).sum()",
            "return (s.sum() - length) ** 2 + mean_height.sum()",
            "a segment's potential energy is its length times its mean height: the length "
            "factor s is missing", ("length", "weight", "s *", "factor", "mass"), slow=True),
    Mistake(A, "catenary_loss", "differences_of_the_unknowns_only",
            "dy = y[1:] - y[:-1]", "dy = z[1:] - z[:-1]",
            "the differences run over the chain with its fixed ends, y; z leaves out the two "
            "end segments", ("end", "y instead of z", "z instead of y", "variable", "fixed",
                             "segment"), slow=True),
    Mistake(A, "catenary_shape", "descend_update_not_assigned",
            '        z = z - lr * value.grad(1)["z"]', '        z_new = z - lr * value.grad(1)["z"]',
            "the step is computed but z is never replaced by it: every step starts from z0",
            ("update", "assign", "never", "z0", "state", "carried", "unchanged"), slow=True),
    Mistake(A, "ode_residual", "second_derivative_backward_stencil_negated",
            "D2[i, i - 4:i + 1] = forward_2[::-1]", "D2[i, i - 4:i + 1] = -forward_2[::-1]",
            "reversing a one-sided stencil negates the odd derivative only: the second "
            "derivative's backward stencil keeps its sign", ("sign", "negat", "minus",
                                                             "second derivative", "stencil"),
            slow=True),
    Mistake(A, "ode_residual", "central_rows_one_short",
            "for i in range(2, n - 2):", "for i in range(2, n - 3):",
            "the central stencil fills rows 2 … n-3; range(2, n - 3) leaves row n-3 empty",
            ("off by one", "off-by-one", "row", "range", "missing", "zero"), slow=True),
    Mistake(A, "ode_residual", "central_first_derivative_reversed",
            "central_1 = np.array([1 / 12, -2 / 3, 0, 2 / 3, -1 / 12])",
            "central_1 = np.array([-1 / 12, 2 / 3, 0, -2 / 3, 1 / 12])",
            "the first-derivative stencil weighs the later points positively: written from the "
            "right it gives -y'", ("sign", "negat", "revers", "minus", "stencil"), slow=True),
    Mistake(A, "ode_solution", "residual_loss_a_mean",
            "losses.append(float(r @ r))", "losses.append(float(r @ r) / len(r))",
            "the loss is the sum of the squared residuals, rᵀr; dividing by their number gives "
            "the mean", ("mean", "sum", "average", "divid"), slow=True),
]

# Round 4 (2026-11-28), written blind as rounds 1 to 3 were.
MISTAKES += [
    Mistake(A, "catenary_loss", "spacing_by_integer_division",
            "dx = 1.0 / (len(z) + 1)", "dx = 1 // (len(z) + 1)",
            "// is integer division: 1 // (n + 1) is 0, so the horizontal spacing dx vanishes",
            ("integer", "//", "floor", "dx", "0"), slow=True),
    Mistake(A, "catenary_loss", "height_from_the_left_end",
            "mean_height = (y[1:] + y[:-1]) / 2", "mean_height = y[:-1]",
            "a segment's height is the mean of its two ends, (y_i + y_(i+1))/2; the left end "
            "alone is used", ("mean", "average", "both ends", "two ends", "midpoint", "left",
                              "/ 2", "half"), slow=True),
    Mistake(A, "catenary_shape", "descend_one_step_too_many",
            "    for _ in range(steps):\n        value = loss(Node(z, \"z\"))",
            "    for _ in range(steps + 1):\n        value = loss(Node(z, \"z\"))",
            "descend takes exactly `steps` steps and records `steps` losses: range(steps + 1) "
            "runs once more", OFF_BY_ONE + ("one too many", "one step", "steps + 1", "length"),
            slow=True),
    Mistake(A, "ode_residual", "second_derivative_stencil_integer_division",
            "-5 / 2, 4 / 3, -1 / 12])", "-5 // 2, 4 / 3, -1 / 12])",
            "-5 // 2 is floor division, -3, not -2.5: the centre weight of the second-derivative "
            "stencil is wrong", ("integer", "//", "floor", "-5/2", "-2.5", "centre", "center",
                                 "stencil", "coefficient"), slow=True),
    Mistake(A, "ode_residual", "derivative_matrices_multiplied_by_dt",
            "return D1 / dt, D2 / dt ** 2", "return D1 * dt, D2 * dt ** 2",
            "a difference quotient divides by the step: f' ≈ D1 f / dt, f'' ≈ D2 f / dt²",
            ("dt", "divid", "multipl", "step", "scale", "factor"), slow=True),
    Mistake(A, "ode_solution", "jacobian_rows_from_a_ones_seed",
            "rows = [r.grad(unit)[\"z\"] for unit in np.eye(len(r))]",
            "rows = [r.grad(1)[\"z\"] for unit in np.eye(len(r))]",
            "row i of the Jacobian is the gradient of r_i alone, seeded with the unit vector e_i; "
            "a seed of ones gives the gradient of Σ r_i in every row",
            ("seed", "unit", "e_i", "ones", "row", "every row", "sum"), slow=True),
    Mistake(A, "ode_solution", "gauss_newton_takes_a_gradient_step",
            "z = z - np.linalg.lstsq(J, r, rcond=None)[0]", "z = z - J.T @ r",
            "Gauss-Newton solves J δ ≈ r for its step; Jᵀ r is the (half) gradient of rᵀr, a "
            "plain gradient step that three iterations cannot converge with",
            ("lstsq", "least squares", "least-squares", "gradient", "solve", "jᵀ", "j.t"),
            slow=True),
    Mistake(A, "ode_solution", "residual_loss_is_the_norm",
            "losses.append(float(r @ r))", "losses.append(float(np.linalg.norm(r)))",
            "the loss is Σ r_i², the squared norm; np.linalg.norm is its square root",
            SQUARE + ROOT + ("norm",), slow=True),
]

# Round 5 (2026-11-28), written blind as rounds 1 to 4 were.
# Written and left out (full marks in the self-check): gauss_newton computing the Jacobian once,
# before its loop, old `    for _ in range(steps):\n        r, J = jacobian(residual, z)\n` -> new
# `    r, J = jacobian(residual, z)\n    for _ in range(steps):\n        r = residual(Node(z,
# "z")).value\n` (right for the linear ODE residual, wrong for a nonlinear one such as
# cosh_residual). (Stop 41: fails now; mutant jacobian_taken_once.)
MISTAKES += [
    Mistake(A, "catenary_loss", "length_penalty_difference_of_squares",
            "return (s.sum() - length) ** 2 + (s * mean_height).sum()",
            "return s.sum() ** 2 - length ** 2 + (s * mean_height).sum()",
            "the penalty is the square of the difference, (L - L0)²; L² - L0² is a difference "
            "of squares, negative for a short rope", SQUARE + ("difference", "(l - l0)",
                                                                "penalty"), slow=True),
    Mistake(A, "catenary_loss", "length_argument_ignored",
            "return (s.sum() - length) ** 2 + (s * mean_height).sum()",
            "return (s.sum() - 1.1) ** 2 + (s * mean_height).sum()",
            "the penalty must use the argument length: 1.1 written out ignores the L0 the "
            "caller passes", ("length", "argument", "1.1", "l0", "hard-coded", "hardcoded",
                              "parameter"), slow=True),
    Mistake(A, "catenary_loss", "potential_product_of_sums",
            "return (s.sum() - length) ** 2 + (s * mean_height).sum()",
            "return (s.sum() - length) ** 2 + s.sum() * mean_height.sum()",
            "E sums each segment's length times its own mean height; the product of the two "
            "sums pairs every segment with every height", ("product", "sum", "each segment",
                                                            "elementwise", "s_i"), slow=True),
    Mistake(A, "catenary_shape", "leaf_not_named",
            "value = loss(Node(z, \"z\"))\n        losses.append(value.item())\n        z = z - lr",
            "value = loss(Node(z))\n        losses.append(value.item())\n        z = z - lr",
            "grad returns the gradients of the named leaves: the leaf must be called \"z\" for "
            "grad(1)[\"z\"] to find it", ("name", "\"z\"", "'z'", "named", "keyerror", "leaf"), slow=True),
    Mistake(A, "catenary_shape", "descend_lr_hard_coded",
            "z = z - lr * value.grad(1)[\"z\"]", "z = z - 0.005 * value.grad(1)[\"z\"]",
            "the step must use the argument lr: 0.005, the default, ignores the learning rate "
            "passed", ("lr", "learning rate", "argument", "0.005", "hard-coded", "hardcoded",
                       "step size"), slow=True),
    Mistake(A, "catenary_shape", "descend_returns_swapped",
            "        z = z - lr * value.grad(1)[\"z\"]\n    return z, losses",
            "        z = z - lr * value.grad(1)[\"z\"]\n    return losses, z",
            "descend returns (z, losses) in this order: the two are exchanged",
            SWAP + ("order", "returned", "return"), slow=True),
    Mistake(A, "ode_residual", "residual_y_term_missing",
            "return 2 * (D2 @ y) + D1 @ y + 2 * y", "return 2 * (D2 @ y) + D1 @ y",
            "the residual of 2y'' + y' + 2y = 0 has three terms: 2y is missing",
            ("2y", "2 * y", "term", "missing", "forgot"), slow=True),
    Mistake(A, "ode_residual", "backward_rows_at_the_last_columns",
            "        D1[i, i - 4:i + 1] = -forward_1[::-1]\n        D2[i, i - 4:i + 1] = forward_2[::-1]",
            "        D1[i, n - 5:n] = -forward_1[::-1]\n        D2[i, n - 5:n] = forward_2[::-1]",
            "the mirrored stencil of row i uses the points i - 4 .. i: in row n - 2 it is "
            "shifted one column to the right", ("row", "column", "shift", "mirror", "i - 4",
                                                 "n - 2", "stencil", "offset"), slow=True),
    Mistake(A, "ode_solution", "gauss_newton_losses_not_squared",
            "losses.append(float(r @ r))", "losses.append(float(r.sum()))",
            "the loss is the sum of the squared residuals, r·r; the plain sum lets residuals of "
            "both signs cancel", SQUARE + ("r @ r", "r·r", "sum of squares"), slow=True),
    Mistake(A, "ode_solution", "jacobian_returns_the_node",
            "    return r.value, np.array(rows)", "    return r, np.array(rows)",
            "jacobian returns r as an array of shape (m,); returned as the Node, r @ r and "
            "lstsq get a Node", ("array", "node", ".value", "value"), slow=True),
]

# Round 6 (2026-11-28), written blind as rounds 1 to 5 were.
MISTAKES += [
    Mistake(A, "catenary_loss", "mean_height_a_difference",
            "mean_height = (y[1:] + y[:-1]) / 2", "mean_height = (y[1:] - y[:-1]) / 2",
            "a segment's mean height is the average of its two ends, (y_i + y_i+1)/2: the minus "
            "(copied from dy) gives half the rise",
            ("average", "mean height", "minus", "y[1:] - y[:-1]", "difference instead"),
            slow=True),
    Mistake(A, "catenary_loss", "spacing_precedence",
            "dx = 1.0 / (len(z) + 1)", "dx = 1.0 / len(z) + 1",
            "the spacing is 1/(n + 1): without the parentheses it is 1/n + 1",
            ("precedence", "parenthes", "bracket", "spacing"), slow=True),
    Mistake(A, "catenary_shape", "start_cast_to_int",
            "z, losses = np.array(z0, dtype=float), []\n    for _ in range(steps):\n"
            "        value = loss(",
            "z, losses = np.array(z0, dtype=int), []\n    for _ in range(steps):\n"
            "        value = loss(",
            "dtype=int truncates the starting point: the descent starts from the wrong z",
            ("dtype", "truncat", "integer", "dtype=int"), slow=True),
    Mistake(A, "catenary_shape", "descend_returns_the_start",
            "        z = z - lr * value.grad(1)[\"z\"]\n    return z, losses",
            "        z = z - lr * value.grad(1)[\"z\"]\n    return z0, losses",
            "the function returns z0, the starting point, instead of the z the steps reached",
            ("z0", "wrong variable", "final z", "starting point"), slow=True),
    Mistake(A, "ode_residual", "backward_stencil_not_reversed",
            "D1[i, i - 4:i + 1] = -forward_1[::-1]", "D1[i, i - 4:i + 1] = -forward_1",
            "at the right end the one-sided stencil is the forward one mirrored: [::-1] is "
            "missing, so its weights are in the wrong order", ("revers", "[::-1]", "mirror"),
            slow=True),
    Mistake(A, "ode_residual", "first_derivative_matrix_transposed",
            "+ D1 @ y + 2 * y", "+ y @ D1 + 2 * y",
            "y' = D1 y: y @ D1 multiplies by D1's transpose",
            ("transpos", "d1 @ y", "ᵀ"), slow=True),
    Mistake(A, "ode_solution", "lstsq_residuals_for_the_solution",
            "z = z - np.linalg.lstsq(J, r, rcond=None)[0]",
            "z = z - np.linalg.lstsq(J, r, rcond=None)[1]",
            "lstsq returns (solution, residuals, rank, singular values): [1] is the sum of "
            "squared residuals, not the step", ("lstsq", "residuals"), slow=True),
    Mistake(A, "ode_solution", "jacobian_unpacked_the_wrong_way",
            "r, J = jacobian(residual, z)", "J, r = jacobian(residual, z)",
            "jacobian returns (r, J): unpacked the other way round, the residual is taken for "
            "the Jacobian", ("unpack", "swap", "(r, j)", "tuple"), slow=True),
]
