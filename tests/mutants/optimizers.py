"""Mutants of 06 optimizers.

The loss curves are checked against the losses along the notebook's own `paths`, so a wrong
update rule (even one that diverges to inf and nan on Rosenbrock) costs its own task only.
"""
from tests.grading import Mutant

A = "06_optimizers"
MOMENTUM = 'v = state["v"] = beta * state.get("v", 0.0) + (1 - beta) * g'
RMSPROP_STEP = "return theta - lr * g / (np.sqrt(s) + eps)"
ADAM_CORRECTION = "m_hat = m / (1 - beta1 ** t)\n    v_hat = v / (1 - beta2 ** t)"

MUTANTS = [
    Mutant(A, "momentum_update", "momentum_without_one_minus_beta",
           MOMENTUM, 'v = state["v"] = beta * state.get("v", 0.0) + g',
           "v <- beta v + g: another convention, lr / (1 - beta) times the specified step"),
    Mutant(A, "momentum_update", "momentum_beta_swapped",
           MOMENTUM, 'v = state["v"] = (1 - beta) * state.get("v", 0.0) + beta * g',
           "beta on g and (1 - beta) on v"),
    Mutant(A, "momentum_update", "momentum_step_with_the_old_velocity",
           MOMENTUM + "\n    return theta - lr * v",
           'v = state.get("v", 0.0)\n    state["v"] = beta * v + (1 - beta) * g\n    return theta - lr * v',
           "stepping with last step's v, updated only afterwards"),
    Mutant(A, "momentum_update", "momentum_mutates_theta",
           MOMENTUM + "\n    return theta - lr * v",
           MOMENTUM + "\n    theta -= lr * v\n    return theta",
           "theta updated in place: the caller's array changes"),
    Mutant(A, "rmsprop_update", "rmsprop_root_taken_in_place",
           RMSPROP_STEP, "s **= 0.5      # the root, in place: the state now holds sqrt(s)\n"
                         "    return theta - lr * g / (s + eps)",
           "the state buffer overwritten with its root, so the next step averages the wrong thing"),
    Mutant(A, "rmsprop_update", "rmsprop_without_eps",
           RMSPROP_STEP, "return theta - lr * g / np.sqrt(s)",
           "epsilon missing"),
    Mutant(A, "rmsprop_update", "rmsprop_without_sqrt",
           RMSPROP_STEP, "return theta - lr * g / (s + eps)",
           "the square root missing"),
    Mutant(A, "rmsprop_update", "rmsprop_eps_inside_sqrt",
           RMSPROP_STEP, "return theta - lr * g / np.sqrt(s + eps)",
           "epsilon added under the root"),
    Mutant(A, "rmsprop_update", "rmsprop_squares_g_in_place",
           's = state["s"] = beta * state.get("s", 0.0) + (1 - beta) * g ** 2',
           'g2 = g\n    g2 **= 2\n    s = state["s"] = beta * state.get("s", 0.0) + (1 - beta) * g2',
           "squaring the caller's gradient array in place"),
    Mutant(A, "adam_update", "adam_without_bias_correction",
           ADAM_CORRECTION, "m_hat, v_hat = m, v",
           "no bias correction"),
    Mutant(A, "adam_update", "adam_bias_correction_at_t_1",
           't = state["t"] = state.get("t", 0) + 1', "t = 1",
           "the bias correction of step 1 at every step"),
    Mutant(A, "adam_update", "adam_global_step_counter",
           't = state["t"] = state.get("t", 0) + 1',
           'global adam_steps\n    adam_steps = t = globals().get("adam_steps", 0) + 1',
           "one step counter for all parameters (and all runs), not one per parameter"),
    Mutant(A, "adam_update", "adam_betas_swapped",
           'm = state["m"] = beta1 * state.get("m", 0.0) + (1 - beta1) * g',
           'm = state["m"] = beta2 * state.get("m", 0.0) + (1 - beta2) * g',
           "the second moment's decay rate for the first moment"),
    Mutant(A, "loss_curves", "linear_y_axis",
           'ax.set_yscale("log")\nax.set_xlabel("step t")',
           'ax.set_xlabel("step t")',
           "a linear y axis"),
    Mutant(A, "loss_curves", "gradient_norm_plotted",
           "ax.plot(np.arange(len(path)), rosenbrock(path), label=name)",
           "ax.plot(np.arange(len(path)), np.linalg.norm(rosenbrock_grad(path), axis=1), label=name)",
           "the size of the gradient instead of the loss"),
    Mutant(A, "loss_curves", "labels_swapped",
           "for name, path in paths.items():\n    ax.plot(",
           "for name, path in zip(reversed(list(paths)), paths.values()):\n    ax.plot(",
           "each line labelled with another optimizer"),
    Mutant(A, "loss_curves", "without_the_start",
           "ax.plot(np.arange(len(path)), rosenbrock(path), label=name)",
           "ax.plot(np.arange(1, len(path)), rosenbrock(path[1:]), label=name)",
           "the steps counted from 1, leaving out theta_0"),
    Mutant(A, "lr_sweep", "sweep_linear_x_axis",
           'ax_sweep.set_xscale("log")\n', "",
           "a linear x axis for learning rates that span five orders of magnitude"),
    Mutant(A, "lr_sweep", "sweep_plots_the_lowest_loss",
           "final.append(rosenbrock(optimise(update, START, STEPS, lr=lr, **hyperparameters)[-1]))",
           "final.append(np.nanmin(rosenbrock(optimise(update, START, STEPS, lr=lr, **hyperparameters))))",
           "the lowest loss along each run instead of its final loss"),
    Mutant(A, "lr_sweep", "sweep_spaced_linearly",
           "learning_rates = np.logspace(-5, 0, 16)",
           "learning_rates = np.linspace(1e-5, 1, 16)",
           "np.linspace over five decades: 15 of the 16 rates lie above 0.06", slow=True),
    Mutant(A, "lr_sweep", "sweep_too_narrow",
           "learning_rates = np.logspace(-5, 0, 16)", "learning_rates = np.linspace(1e-3, 3e-2, 8)",
           "a sweep over less than two orders of magnitude: it cannot show both crawling and diverging"),
    Mutant(A, "lr_sweep", "sgd_learning_rate_that_crawls",
           'LEARNING_RATE = {"sgd": 2e-3,', 'LEARNING_RATE = {"sgd": 1e-3,',
           "gradient descent's textbook 1e-3, chosen without reading the sweep: it ends 4 times "
           "above the best"),
    Mutant(A, "lr_sweep", "adam_default_learning_rate",
           '"adam": 0.2}', '"adam": 1e-3}',
           "Adam's default learning rate, which crawls here"),
]

# What the feedback names (issue 19): mutant -> the id of its known mistake in the catalogue
# (autograder/references/optimizers.py, autograder/checks/optimizers.py). The held-out mutants
# (tests/mutants/__init__.py) are measured: never given a mistake here.
NAMED = {
    "momentum_without_one_minus_beta": "momentum_without_one_minus_beta",
    "momentum_beta_swapped": "momentum_beta_swapped",
    "momentum_step_with_the_old_velocity": "momentum_with_the_old_velocity",
    "rmsprop_root_taken_in_place": "rmsprop_root_kept_in_state",
    "rmsprop_without_eps": "rmsprop_without_eps",
    "rmsprop_without_sqrt": "rmsprop_without_sqrt",
    "rmsprop_squares_g_in_place": "rmsprop_squares_g_in_place",
    "adam_without_bias_correction": "adam_without_bias_correction",
    "adam_bias_correction_at_t_1": "adam_bias_correction_at_t_1",
    "adam_betas_swapped": "adam_beta2_for_m",
    "gradient_norm_plotted": "rosenbrock_gradient_norms",
    "sweep_plots_the_lowest_loss": "lowest_losses",
    "linear_y_axis": "loss_plot_not_logarithmic",
    "sweep_linear_x_axis": "sweep_plot_not_logarithmic",
}
# The mutants (held-out ones too) whose bug is no wrong value that a known mistake could equal.
UNNAMEABLE = {
    "sweep_spaced_linearly": "a grid's spacing, checked by its decades",
    "momentum_mutates_theta": "a side effect: the path is right, the caller's theta is changed",
    "labels_swapped": "a plot's labels",
    "without_the_start": "a plot's x values (its layout)",
    "sweep_too_narrow": "a sweep's range (its design)",
    "sgd_learning_rate_that_crawls": "a choice of learning rate, checked against a range",
    "adam_default_learning_rate": "a choice of learning rate, checked against a range",
}
