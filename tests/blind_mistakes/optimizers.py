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

# Round 2 (2026-11-28), written blind as round 1 was.
MISTAKES += [
    Mistake(A, "momentum_update", "momentum_steps_with_the_raw_gradient",
            "    return theta - lr * v\n", "    return theta - lr * g\n",
            "the velocity v is computed and stored, but the step uses the raw gradient g",
            ("velocity", "lr * v", "lr·v", "momentum", "g instead", "instead of v",
             "raw gradient", "wrong variable")),
    Mistake(A, "momentum_update", "momentum_velocity_starts_at_the_gradient",
            "beta * state.get(\"v\", 0.0) + (1 - beta) * g", "beta * state.get(\"v\", g) + (1 - beta) * g",
            "v is 0 before the first step; starting it at g makes the first step lr·g, not "
            "lr·(1-β)·g", ("initial", "v = 0", "v=0", "start", "first step", "zero", "initialis",
                          "initializ")),
    Mistake(A, "rmsprop_update", "rmsprop_divides_by_the_previous_average",
            "    s = state[\"s\"] = beta * state.get(\"s\", 0.0) + (1 - beta) * g ** 2\n",
            "    s = state.get(\"s\", 0.0)\n    state[\"s\"] = beta * s + (1 - beta) * g ** 2\n",
            "the step must divide by the updated average; it uses s from before this step "
            "(0 at the first step)", ("previous", "old", "before", "order", "stale", "updated",
                                      "new s", "first step")),
    Mistake(A, "adam_update", "adam_step_counter_not_stored",
            "t = state[\"t\"] = state.get(\"t\", 0) + 1", "t = state.get(\"t\", 0) + 1",
            "t is never written back, so every step is step 1 and the bias correction never "
            "fades", STATE + ("step count", "counter", "t = 1", "t=1", "bias correction")),
    Mistake(A, "adam_update", "adam_v_corrected_with_beta1",
            "v_hat = v / (1 - beta2 ** t)", "v_hat = v / (1 - beta1 ** t)",
            "copy-paste: v's bias correction is 1 - β2^t, not 1 - β1^t",
            ("beta1", "beta2", "β1", "β2", "bias correction", "v_hat")),
    Mistake(A, "loss_curves", "loss_curves_logged_twice",
            "ax.plot(np.arange(len(path)), rosenbrock(path), label=name)",
            "ax.plot(np.arange(len(path)), np.log10(rosenbrock(path)), label=name)",
            "the axis is already logarithmic: plotting log10 of the loss takes the log twice",
            ("log", "twice", "double", "scale", "values", "log10")),
]

# Round 3 (2026-11-28), written blind as rounds 1 and 2 were.
MISTAKES += [
    Mistake(A, "momentum_update", "momentum_without_damping",
            'v = state["v"] = beta * state.get("v", 0.0) + (1 - beta) * g',
            'v = state["v"] = beta * state.get("v", 0.0) + g',
            "the velocity is an exponential average, β v + (1 - β) g: the factor (1 - β) on "
            "the gradient is missing", ("1 - beta", "1 - β", "(1 - beta)", "factor", "damp",
                                        "average"), slow=True),
    Mistake(A, "rmsprop_update", "rmsprop_squared_norm",
            "(1 - beta) * g ** 2", "(1 - beta) * (g * g).sum()",
            "RMSProp keeps a running average of each coordinate's g²; the squared norm gives "
            "every coordinate the same step size", ("elementwise", "element-wise", "per "
                                                     "coordinate", "norm", "sum", "each"),
            slow=True),
    Mistake(A, "adam_update", "adam_bias_correction_multiplies",
            "m_hat = m / (1 - beta1 ** t)", "m_hat = m * (1 - beta1 ** t)",
            "the bias correction divides by 1 - β₁ᵗ; multiplying makes the first steps smaller "
            "still", ("bias correction", "divid", "multipl", "m_hat", "1 - beta1"), slow=True),
    Mistake(A, "momentum_update", "momentum_step_ascends",
            "    return theta - lr * v\n", "    return theta + lr * v\n",
            "the step goes against the velocity, θ - η v; + climbs the loss",
            ("sign", "ascen", "minus", "+", "climb"), slow=True),
    Mistake(A, "lr_sweep", "sweep_records_the_start",
            "optimise(update, START, STEPS, lr=lr, **hyperparameters)[-1]",
            "optimise(update, START, STEPS, lr=lr, **hyperparameters)[0]",
            "the final loss is the loss at the last point of the path; [0] is the start, the "
            "same for every run", ("last", "final", "[-1]", "start", "first", "index"), slow=True),
    Mistake(A, "loss_curves", "loss_curves_axes_swapped",
            "ax.plot(np.arange(len(path)), rosenbrock(path), label=name)",
            "ax.plot(rosenbrock(path), np.arange(len(path)), label=name)",
            "plot(x, y): the steps belong on the x axis and the loss on the y axis",
            ("axes", "axis", "swap", "x and y", "exchang"), slow=True),
]

# Round 4 (2026-11-28), written blind as rounds 1 to 3 were.
MISTAKES += [
    Mistake(A, "momentum_update", "momentum_velocity_aliases_the_gradient",
            "    v = state[\"v\"] = beta * state.get(\"v\", 0.0) + (1 - beta) * g\n",
            "    v = state.setdefault(\"v\", g)\n    v *= beta\n    v += (1 - beta) * g\n",
            "state.setdefault(\"v\", g) stores the caller's gradient array itself as v: the "
            "in-place *= and += then change g too, and v does not start at 0",
            ("alias", "in place", "in-place", "same array", "copy", "start at 0", "zero",
             "initial"), slow=True),
    Mistake(A, "rmsprop_update", "rmsprop_average_starts_at_one",
            "beta * state.get(\"s\", 0.0) + (1 - beta) * g ** 2",
            "beta * state.get(\"s\", 1.0) + (1 - beta) * g ** 2",
            "the running average s starts at 0 before the first step, not at 1",
            ("initial", "start", "0 before", "zero", "first step", "1.0"), slow=True),
    Mistake(A, "adam_update", "adam_bias_correction_product_for_power",
            "v_hat = v / (1 - beta2 ** t)", "v_hat = v / (1 - beta2 * t)",
            "the bias correction is 1 - β2 to the power t; 1 - β2·t multiplies instead and "
            "is even negative after the second step", ("power", "**", "β2^t", "beta2 ** t",
                                                       "exponent", "multipl"), slow=True),
    Mistake(A, "adam_update", "adam_steps_with_the_uncorrected_moment",
            "return theta - lr * m_hat / (np.sqrt(v_hat) + eps)",
            "return theta - lr * m / (np.sqrt(v_hat) + eps)",
            "the step uses the bias-corrected first moment m_hat; m is the raw running average",
            ("m_hat", "bias", "correct", "m instead"), slow=True),
    Mistake(A, "adam_update", "adam_stores_the_corrected_moment",
            "m_hat = m / (1 - beta1 ** t)", "m_hat = state[\"m\"] = m / (1 - beta1 ** t)",
            "the state must keep the raw running average m; storing the corrected m_hat "
            "corrects it again at every step", STATE + ("m_hat", "bias", "correct"),
            slow=True),
    Mistake(A, "lr_sweep", "sweep_list_not_reset_per_optimiser",
            "for name, (update, hyperparameters) in SETTINGS.items():\n    final = []\n",
            "final = []\nfor name, (update, hyperparameters) in SETTINGS.items():\n",
            "the list of final losses must start empty for each optimiser: created once, it "
            "keeps the earlier optimisers' results",
            ("reset", "empty", "each optimi", "accumulat", "earlier", "previous", "length",
             "state"), slow=True),
    Mistake(A, "loss_curves", "loss_curves_steps_from_one",
            "ax.plot(np.arange(len(path)), rosenbrock(path), label=name)",
            "ax.plot(np.arange(1, len(path) + 1), rosenbrock(path), label=name)",
            "path[0] is the start, step 0: numbering the points from 1 shifts every curve by a "
            "step", ("off by one", "off-by-one", "step 0", "shift", "x axis", "x-axis", "start"),
            slow=True),
]

# Round 5 (2026-11-28), written blind as rounds 1 to 4 were.
MISTAKES += [
    Mistake(A, "momentum_update", "momentum_beta_hard_coded",
            "v = state[\"v\"] = beta * state.get(\"v\", 0.0) + (1 - beta) * g",
            "v = state[\"v\"] = 0.9 * state.get(\"v\", 0.0) + 0.1 * g",
            "the average must use the argument beta: 0.9 written out ignores the beta the "
            "caller passes", ("beta", "β", "argument", "0.9", "hard-coded", "hardcoded",
                              "parameter"), slow=True),
    Mistake(A, "momentum_update", "momentum_learning_rate_forgotten",
            "    return theta - lr * v\n", "    return theta - v\n",
            "the step is lr times the velocity: without lr it is the full average gradient",
            ("lr", "learning rate", "step size", "η"), slow=True),
    Mistake(A, "rmsprop_update", "rmsprop_eps_inside_the_root",
            "return theta - lr * g / (np.sqrt(s) + eps)", "return theta - lr * g / np.sqrt(s + eps)",
            "RMSProp adds eps to the root, sqrt(s) + eps, as written: inside the root it is a "
            "different and far larger guard", ("eps", "ε", "inside", "root", "sqrt"), slow=True),
    Mistake(A, "rmsprop_update", "rmsprop_average_forgets_the_past",
            "s = state[\"s\"] = beta * state.get(\"s\", 0.0) + (1 - beta) * g ** 2",
            "s = state[\"s\"] = (1 - beta) * g ** 2",
            "s is a running average: the term beta * s of the previous steps is missing, so s "
            "holds the current gradient only", ("previous", "running", "average", "beta * s",
                                                 "β", "beta", "past", "state"), slow=True),
    Mistake(A, "adam_update", "adam_step_with_the_uncorrected_v",
            "return theta - lr * m_hat / (np.sqrt(v_hat) + eps)",
            "return theta - lr * m_hat / (np.sqrt(v) + eps)",
            "the step divides by the root of the corrected v_hat: the raw v is biased towards "
            "0 in the first steps, so the steps are too large", ("v_hat", "bias", "correct",
                                                                 "uncorrected", "v̂"), slow=True),
    Mistake(A, "adam_update", "adam_first_moment_reads_v",
            "m = state[\"m\"] = beta1 * state.get(\"m\", 0.0) + (1 - beta1) * g",
            "m = state[\"m\"] = beta1 * state.get(\"v\", 0.0) + (1 - beta1) * g",
            "m's running average continues the previous m: state.get(\"v\") reads the second "
            "moment instead", ("\"m\"", "'m'", "key", "first moment", "second moment",
                               "previous m", "state"), slow=True),
    Mistake(A, "lr_sweep", "adam_learning_rate_left_at_the_default",
            "LEARNING_RATE = {\"sgd\": 2e-3, \"momentum\": 2e-2, \"rmsprop\": 1e-2, \"adam\": 0.2}",
            "LEARNING_RATE = {\"sgd\": 2e-3, \"momentum\": 2e-2, \"rmsprop\": 1e-2, \"adam\": 1e-3}",
            "the learning rate is read off the sweep: Adam's default 1e-3 is far from its best "
            "on this function", ("adam", "learning rate", "sweep", "best", "default", "1e-3"), slow=True),
    Mistake(A, "lr_sweep", "sweep_linspace_for_logspace",
            "learning_rates = np.logspace(-5, 0, 16)", "learning_rates = np.linspace(-5, 0, 16)",
            "linspace(-5, 0) gives the numbers -5 ... 0, negative learning rates: the decades "
            "1e-5 ... 1 are np.logspace(-5, 0)", ("logspace", "linspace", "negative", "decade",
                                                   "log", "learning rate"), slow=True),
]

# Round 6 (2026-11-28), written blind as rounds 1 to 5 were.
MISTAKES += [
    Mistake(A, "momentum_update", "momentum_gradient_squared",
            "+ (1 - beta) * g\n", "+ (1 - beta) * g ** 2\n",
            "momentum averages the gradient itself; g² (copied from RMSprop) loses its sign",
            ("square", "g²", "g ** 2", "g**2", "rmsprop", "sign"), slow=True),
    Mistake(A, "momentum_update", "momentum_state_key_misspelled",
            "beta * state.get(\"v\", 0.0)", "beta * state.get(\"m\", 0.0)",
            "the velocity is stored under \"v\" but read back under \"m\": the read always gives "
            "0, so there is no momentum", STATE + ("key", "\"v\"", "'v'", "spell"), slow=True),
    Mistake(A, "rmsprop_update", "rmsprop_eps_added_outside",
            "theta - lr * g / (np.sqrt(s) + eps)", "theta - lr * g / np.sqrt(s) + eps",
            "ε belongs in the denominator: without the parentheses it is added to θ and the "
            "division by √s has no guard", PRECEDENCE + ("denominator", "eps", "ε"), slow=True),
    Mistake(A, "rmsprop_update", "rmsprop_doubles_instead_of_squaring",
            "(1 - beta) * g ** 2\n", "(1 - beta) * g * 2\n",
            "RMSprop averages g²: `* 2` doubles the gradient where `** 2` squares it",
            ("square", "g²", "g ** 2", "g**2", "double", "power"), slow=True),
    Mistake(A, "adam_update", "adam_second_moment_of_m",
            "(1 - beta2) * g ** 2", "(1 - beta2) * m ** 2",
            "v averages the squared gradient g², not the square of the first moment m",
            ("g²", "g ** 2", "g**2", "m ** 2", "m²", "first moment", "wrong variable"), slow=True),
    Mistake(A, "lr_sweep", "logspace_given_the_values",
            "learning_rates = np.logspace(-5, 0, 16)", "learning_rates = np.logspace(1e-5, 1, 16)",
            "np.logspace takes the exponents: logspace(1e-5, 1) runs from 10^0.00001 ≈ 1 to 10, "
            "not from 1e-5 to 1", ("logspace", "exponent", "10^", "learning rates"),
            slow=True),
    Mistake(A, "lr_sweep", "sweep_learning_rate_axis_linear",
            "ax_sweep.set_xscale(\"log\")\n", "",
            "the learning rates span five decades: on a linear x axis all but the last few "
            "crowd at 0", ("x axis", "x-axis", "xscale", "log scale", "linear scale"), slow=True),
    Mistake(A, "lr_sweep", "sgd_rate_past_the_divergence",
            "LEARNING_RATE = {\"sgd\": 2e-3,", "LEARNING_RATE = {\"sgd\": 2e-2,",
            "the sweep shows SGD diverging above about 1e-2: 2e-2 is past the edge, so its path "
            "blows up", ("diverg", "too large", "2e-2", "blow", "overflow"), slow=True),
    Mistake(A, "loss_curves", "legend_label_is_a_string_literal",
            "rosenbrock(path), label=name)", "rosenbrock(path), label=\"name\")",
            "label=\"name\" is the word name for every curve: the variable name is meant",
            ("\"name\"", "string", "same label", "literal"), slow=True),
]
