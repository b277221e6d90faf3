"""Blind mistakes in 06, optimizers (see tests/blind_mistakes/__init__.py)."""
from . import Mistake
from .scalar_autodiff import SQUARE, SWAP
from .weight_initialisation import ROOT

A = "06_optimizers"
STATE = ("state", "stored", "written back", "write back", "kept", "keep", "previous step",
         "never saved", "not saved", "remember")
HYPER = SWAP + ("β", "beta", "1 - β", "1 - beta")
PRECEDENCE = ("precedence", "parenthes", "bracket", "group")

MISTAKES = [
    Mistake(A, "momentum_update", "momentum_velocity_not_stored",
            "v = state[\"v\"] = beta * state.get(\"v\", 0.0) + (1 - beta) * g",
            "v = beta * state.get(\"v\", 0.0) + (1 - beta) * g",
            "v is never written back into state, so every step starts again from v = 0", STATE),
    Mistake(A, "momentum_update", "momentum_weights_swapped",
            "beta * state.get(\"v\", 0.0) + (1 - beta) * g",
            "(1 - beta) * state.get(\"v\", 0.0) + beta * g",
            "v <- β v + (1-β) g: β and 1-β are swapped, so the new gradient gets the large weight",
            HYPER),
    Mistake(A, "momentum_update", "momentum_updates_theta_in_place",
            "    return theta - lr * v\n", "    theta -= lr * v\n    return theta\n",
            "theta -= ... changes the caller's array in place: theta must be left unchanged",
            ("in place", "in-place", "modif", "alias", "unchanged", "copy", "changed")),
    Mistake(A, "rmsprop_update", "rmsprop_root_missing",
            "return theta - lr * g / (np.sqrt(s) + eps)", "return theta - lr * g / (s + eps)",
            "the step divides by the root of the mean square, sqrt(s), not by s", ROOT),
    Mistake(A, "rmsprop_update", "rmsprop_gradient_not_squared",
            "beta * state.get(\"s\", 0.0) + (1 - beta) * g ** 2",
            "beta * state.get(\"s\", 0.0) + (1 - beta) * g",
            "s is the running mean of g², the square is missing", SQUARE),
    Mistake(A, "rmsprop_update", "rmsprop_average_not_stored",
            "s = state[\"s\"] = beta * state.get(\"s\", 0.0)", "s = beta * state.get(\"s\", 0.0)",
            "s is never written back into state, so it is not a running average", STATE),
    Mistake(A, "adam_update", "adam_step_counter_from_zero",
            "t = state[\"t\"] = state.get(\"t\", 0) + 1",
            "t = state.get(\"t\", 0)\n    state[\"t\"] = t + 1",
            "the first step is t = 1; with t = 0 the bias correction divides by 1 - β⁰ = 0",
            ("off-by-one", "off by one", "step count", "counter", "t = 0", "t=0", "bias correction",
             "first step")),
    Mistake(A, "adam_update", "adam_betas_swapped",
            "m = state[\"m\"] = beta1 * state.get(\"m\", 0.0) + (1 - beta1) * g\n"
            "    v = state[\"v\"] = beta2 * state.get(\"v\", 0.0) + (1 - beta2) * g ** 2",
            "m = state[\"m\"] = beta2 * state.get(\"m\", 0.0) + (1 - beta2) * g\n"
            "    v = state[\"v\"] = beta1 * state.get(\"v\", 0.0) + (1 - beta1) * g ** 2",
            "β1 belongs to the first moment m and β2 to the second moment v; they are swapped",
            HYPER + ("β1", "beta1", "β2", "beta2")),
    Mistake(A, "adam_update", "adam_without_bias_correction",
            "m_hat = m / (1 - beta1 ** t)\n    v_hat = v / (1 - beta2 ** t)",
            "m_hat = m\n    v_hat = v",
            "the moments start at 0: without dividing by 1 - β^t the first steps are far too small",
            ("bias correction", "bias-correct", "m_hat", "v_hat", "correct", "1 - β")),
    Mistake(A, "adam_update", "adam_root_missing",
            "lr * m_hat / (np.sqrt(v_hat) + eps)", "lr * m_hat / (v_hat + eps)",
            "Adam divides by the root of v_hat, sqrt(v_hat), not by v_hat", ROOT),
    Mistake(A, "adam_update", "adam_bias_correction_precedence",
            "m_hat = m / (1 - beta1 ** t)", "m_hat = m / 1 - beta1 ** t",
            "m / 1 - β1^t subtracts β1^t from m: the parentheses around 1 - β1^t are missing",
            PRECEDENCE),
    Mistake(A, "loss_curves", "loss_curves_linear_scale",
            "ax.set_yscale(\"log\")\nax.set_xlabel(\"step t\")", "ax.set_xlabel(\"step t\")",
            "the losses span many orders of magnitude: the y axis must be logarithmic",
            ("log", "scale", "y axis", "y-axis")),
    Mistake(A, "loss_curves", "loss_curves_plot_a_coordinate",
            "ax.plot(np.arange(len(path)), rosenbrock(path), label=name)",
            "ax.plot(np.arange(len(path)), path[:, 0], label=name)",
            "the curves must show the loss f(θ_t), not the first coordinate of θ_t",
            ("loss", "f(θ", "rosenbrock", "series", "values", "y data", "data")),
]
