"""Mutants of 05 weight initialisation.

The plot's networks have square layers (fan_in = fan_out = WIDTH) and the plot is checked against
the statistics of the notebook's own `networks`, so a wrong initialiser costs its own task only.
"""
from tests.grading import Mutant

A = "05_weight_initialisation"

MUTANTS = [
    Mutant(A, "xavier_init", "xavier_fans_swapped",
           "return rng.uniform(-a, a, size=(fan_in, fan_out))\n    ### END SOLUTION\n\n\ndef xavier_normal",
           "return rng.uniform(-a, a, size=(fan_out, fan_in))\n    ### END SOLUTION\n\n\ndef xavier_normal",
           "fan_in and fan_out swapped: the variance 2 / (fan_in + fan_out) is symmetric, the shape is not"),
    Mutant(A, "xavier_init", "xavier_std_as_variance",
           "rng.normal(0.0, np.sqrt(2.0 / (fan_in + fan_out)), size=(fan_in, fan_out))",
           "rng.normal(0.0, 2.0 / (fan_in + fan_out), size=(fan_in, fan_out))",
           "the variance passed as rng.normal's scale (the standard deviation): sqrt missing"),
    Mutant(A, "xavier_init", "xavier_uniform_bound_is_the_std",
           "a = np.sqrt(6.0 / (fan_in + fan_out))",
           "a = np.sqrt(2.0 / (fan_in + fan_out))",
           "U(-a, a) with a the standard deviation: a variance a^2 / 3, three times too small"),
    Mutant(A, "xavier_init", "xavier_normal_drawn_uniform",
           "return rng.normal(0.0, np.sqrt(2.0 / (fan_in + fan_out)), size=(fan_in, fan_out))",
           "a = np.sqrt(6.0 / (fan_in + fan_out))\n    return rng.uniform(-a, a, (fan_in, fan_out))",
           "the right variance from the wrong distribution"),
    Mutant(A, "he_init", "he_fan_out",
           "rng.normal(0.0, np.sqrt(2.0 / fan_in), size=(fan_in, fan_out))",
           "rng.normal(0.0, np.sqrt(2.0 / fan_out), size=(fan_in, fan_out))",
           "He with fan_out where fan_in belongs"),
    Mutant(A, "he_init", "he_without_factor_2",
           "a = np.sqrt(6.0 / fan_in)",
           "a = np.sqrt(3.0 / fan_in)",
           "Var(W) = 1 / fan_in (LeCun's): the factor 2 that makes up for the ReLU is missing"),
    Mutant(A, "he_init", "he_global_random_state",
           "return rng.normal(0.0, np.sqrt(2.0 / fan_in), size=(fan_in, fan_out))",
           "return np.random.normal(0.0, np.sqrt(2.0 / fan_in), size=(fan_in, fan_out))",
           "np.random instead of the generator passed in: not reproducible"),
    Mutant(A, "activation_statistics", "std_over_the_wrong_axis",
           "stds.append(h.std())",
           "stds.append(h.std(axis=0).mean())",
           "the std of each unit over the batch, averaged, instead of the std of all entries"),
    Mutant(A, "activation_statistics", "statistics_before_the_activation",
           "h = act(h @ W)\n        means.append(h.mean())\n        stds.append(h.std())",
           "z = h @ W\n        h = act(z)\n        means.append(z.mean())\n        stds.append(z.std())",
           "the statistics of the pre-activations"),
    Mutant(A, "activation_statistics", "plot_linear_y_axis",
           'ax.set_yscale("log")\n    ax.set_xticks(layers)',
           'ax.set_xticks(layers)',
           "a linear y axis"),
    Mutant(A, "activation_statistics", "plot_means",
           "_, stds = activation_statistics(weights, activation, x_stats)",
           "stds, _ = activation_statistics(weights, activation, x_stats)",
           "plotting the means instead of the standard deviations"),
]

# What the feedback names (issue 19): mutant -> the id of its known mistake in the catalogue
# (autograder/references/weight_initialisation.py, autograder/checks/weight_initialisation.py).
# The held-out mutants (tests/mutants/__init__.py) are measured: never given a mistake here.
NAMED = {
    "xavier_std_as_variance": "variance_squared",
    "xavier_uniform_bound_is_the_std": "variance_of_the_bound_as_std",
    "he_fan_out": "variance_2_over_fan_out",
    "he_without_factor_2": "variance_1_over_fan_in",
    "statistics_before_the_activation": "statistics_before_the_activation",
    "plot_means": "activation_means",
    "plot_linear_y_axis": "statistics_plot_not_logarithmic",
}
# The mutants (held-out ones too) whose bug is no wrong value that a known mistake could equal.
UNNAMEABLE = {
    "xavier_fans_swapped": "a wrong shape, (fan_out, fan_in), which the shape check says",
    "he_global_random_state": "random numbers from another source: not reproducible, no value",
}
