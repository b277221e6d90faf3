"""Blind mistakes in 05, weight initialisation (see tests/blind_mistakes/__init__.py)."""
from . import Mistake
from .activation_functions import OFF_BY_ONE
from .matrix_autodiff import TRANSPOSE

A = "05_weight_initialisation"
ROOT = ("sqrt", "root", "√", "variance", "standard deviation", "std")
FANS = ("fan_in", "fan-in", "fan_out", "fan-out", "fan in", "fan out")

MISTAKES = [
    Mistake(A, "xavier_init", "xavier_uniform_bound_without_root",
            "a = np.sqrt(6.0 / (fan_in + fan_out))", "a = 6.0 / (fan_in + fan_out)",
            "the bound is a = sqrt(6 / (fan_in + fan_out)): the square root is missing", ROOT),
    Mistake(A, "xavier_init", "xavier_normal_variance_as_std",
            "rng.normal(0.0, np.sqrt(2.0 / (fan_in + fan_out))",
            "rng.normal(0.0, 2.0 / (fan_in + fan_out)",
            "rng.normal takes the standard deviation: the variance 2/(fan_in+fan_out) is given "
            "instead of its square root", ROOT),
    Mistake(A, "xavier_init", "xavier_uniform_fan_in_only",
            "a = np.sqrt(6.0 / (fan_in + fan_out))", "a = np.sqrt(6.0 / fan_in)",
            "Xavier averages both fans: 6 / (fan_in + fan_out); fan_out is left out (that is He)",
            FANS + ("he",)),
    Mistake(A, "xavier_init", "xavier_normal_precedence",
            "np.sqrt(2.0 / (fan_in + fan_out))", "np.sqrt(2.0 / fan_in + fan_out)",
            "2.0 / fan_in + fan_out adds fan_out to 2/fan_in: the parentheses are missing",
            ("precedence", "parenthes", "bracket", "group")),
    Mistake(A, "he_init", "he_uniform_bound_three",
            "a = np.sqrt(6.0 / fan_in)", "a = np.sqrt(3.0 / fan_in)",
            "He uniform needs Var(W) = 2/fan_in, so a = sqrt(6/fan_in); sqrt(3/fan_in) halves "
            "the variance", ("factor", "6", "3.0", "variance", "gain", "half", "√2", "sqrt(2)")),
    Mistake(A, "he_init", "he_normal_fan_out",
            "np.sqrt(2.0 / fan_in), size=", "np.sqrt(2.0 / fan_out), size=",
            "He initialisation scales by the number of inputs, fan_in, not fan_out", FANS),
    Mistake(A, "he_init", "he_normal_transposed_shape",
            "rng.normal(0.0, np.sqrt(2.0 / fan_in), size=(fan_in, fan_out))",
            "rng.normal(0.0, np.sqrt(2.0 / fan_in), size=(fan_out, fan_in))",
            "the weights have shape (fan_in, fan_out); this is the transpose", TRANSPOSE
            + ("shape",)),
    Mistake(A, "activation_statistics", "statistics_before_activation",
            "        h = act(h @ W)\n        means.append(h.mean())\n        stds.append(h.std())\n",
            "        z = h @ W\n        means.append(z.mean())\n        stds.append(z.std())\n"
            "        h = act(z)\n",
            "the statistics are of the activations h_l = act(z_l), not of the pre-activations z_l",
            ("pre-activation", "preactivation", "before the activation", "activation")),
    Mistake(A, "activation_statistics", "every_layer_fed_the_input",
            "h = act(h @ W)", "h = act(x @ W)",
            "each layer takes the previous layer's output h_{l-1}; every layer is fed x",
            ("previous", "input", "x @", "h_{l-1}", "state", "layer")),
    Mistake(A, "activation_statistics", "variance_for_std",
            "stds.append(h.std())", "stds.append(h.var())",
            "the standard deviation is asked for; the variance is its square", ROOT
            + ("square",)),
    Mistake(A, "activation_statistics", "statistics_skip_last_layer",
            "    for W in weights:\n        h = act(h @ W)",
            "    for W in weights[:-1]:\n        h = act(h @ W)",
            "the loop stops one layer early: the last layer's statistics are missing", OFF_BY_ONE
            + ("shape", "length", "missing")),
]

# Round 2 (2026-11-28), written blind as round 1 was.
MISTAKES += [
    Mistake(A, "xavier_init", "xavier_uniform_bound_from_the_variance",
            "a = np.sqrt(6.0 / (fan_in + fan_out))", "a = np.sqrt(2.0 / (fan_in + fan_out))",
            "U(-a, a) has variance a²/3: the bound is sqrt(6/(fan_in+fan_out)), the 2 belongs "
            "to the variance", ("6", "a²/3", "a^2/3", "a**2/3", "bound", "uniform", "variance",
                                "factor", "3")),
    Mistake(A, "xavier_init", "xavier_uniform_from_zero",
            "a = np.sqrt(6.0 / (fan_in + fan_out))\n    return rng.uniform(-a, a,",
            "a = np.sqrt(6.0 / (fan_in + fan_out))\n    return rng.uniform(0, a,",
            "U(-a, a) is centred on 0: drawing from U(0, a) makes every weight positive",
            ("-a", "symmetric", "zero mean", "mean", "centred", "centered", "negative",
             "positive", "lower bound")),
    Mistake(A, "he_init", "he_normal_factor_two_missing",
            "np.sqrt(2.0 / fan_in)", "np.sqrt(1.0 / fan_in)",
            "He's variance is 2/fan_in (ReLU halves it); 1/fan_in is LeCun's", 
            ("2", "factor", "lecun", "half", "twice", "relu")),
    Mistake(A, "he_init", "he_uniform_with_xavier_bound",
            "a = np.sqrt(6.0 / fan_in)", "a = np.sqrt(6.0 / (fan_in + fan_out))",
            "copy-paste from Xavier: He's bound is sqrt(6/fan_in), without fan_out",
            FANS + ("xavier", "glorot", "fan_in + fan_out")),
    Mistake(A, "activation_statistics", "statistics_returned_swapped",
            "return np.array(means), np.array(stds)", "return np.array(stds), np.array(means)",
            "the function returns (means, stds): the two arrays are in the wrong order",
            ("swap", "order", "exchang", "means", "stds", "the other")),
    Mistake(A, "activation_statistics", "statistics_per_unit",
            "        means.append(h.mean())\n        stds.append(h.std())",
            "        means.append(h.mean(axis=0))\n        stds.append(h.std(axis=0))",
            "the statistics are over all entries of h_l; axis=0 gives one per unit",
            ("axis", "all entries", "per unit", "per neuron", "each unit", "shape", "flatten")),
]

# Round 3 (2026-11-28), written blind as rounds 1 and 2 were.
MISTAKES += [
    Mistake(A, "xavier_init", "xavier_normal_variance_halved",
            "np.sqrt(2.0 / (fan_in + fan_out))", "np.sqrt(1.0 / (fan_in + fan_out))",
            "Glorot's variance is 2 / (fan_in + fan_out), the reciprocal of the mean fan; "
            "1 / (fan_in + fan_out) is half of it", ("2.0", "factor", "two", "half", "2 /"),
            slow=True),
    Mistake(A, "xavier_init", "xavier_uniform_integer_division",
            "a = np.sqrt(6.0 / (fan_in + fan_out))", "a = np.sqrt(6 // (fan_in + fan_out))",
            "6 // (fan_in + fan_out) is integer division: 0 for any fan over 6, so every weight "
            "is 0", ("integer", "//", "floor", "zero", "division"), slow=True),
    Mistake(A, "he_init", "he_uniform_root_of_the_numerator_only",
            "a = np.sqrt(6.0 / fan_in)", "a = np.sqrt(6.0) / fan_in",
            "the bound is √(6 / fan_in); √6 / fan_in divides by fan_in outside the root",
            ("root", "sqrt", "parenthes", "precedence", "bracket"), slow=True),
    Mistake(A, "he_init", "he_normal_two_outside_the_root",
            "np.sqrt(2.0 / fan_in)", "2.0 / np.sqrt(fan_in)",
            "He's standard deviation is √(2 / fan_in); 2 / √fan_in takes the root of fan_in only",
            ("root", "sqrt", "parenthes", "precedence", "bracket"), slow=True),
    Mistake(A, "activation_statistics", "statistics_one_layer_behind",
            "        h = act(h @ W)\n        means.append(h.mean())\n        stds.append(h.std())\n",
            "        means.append(h.mean())\n        stds.append(h.std())\n        h = act(h @ W)\n",
            "each layer's statistics are taken before it runs: entry l holds layer l - 1's (the "
            "first is the input's)", ("off by one", "off-by-one", "one layer", "shift", "before",
                                      "input"), slow=True),
    Mistake(A, "activation_statistics", "first_layer_skipped",
            "    for W in weights:\n        h = act(h @ W)",
            "    for W in weights[1:]:\n        h = act(h @ W)",
            "weights[1:] skips the first layer: the input goes into layer 2's weights",
            ("off by one", "off-by-one", "first layer", "skip", "length", "missing"), slow=True),
]

# Round 4 (2026-11-28), written blind as rounds 1 to 3 were.
MISTAKES += [
    Mistake(A, "xavier_init", "xavier_normal_fans_multiplied",
            "np.sqrt(2.0 / (fan_in + fan_out))", "np.sqrt(2.0 / (fan_in * fan_out))",
            "Glorot's variance is 2 / (fan_in + fan_out): the fans are added, not multiplied",
            FANS + ("product", "multipl", "sum", "added", "+"), slow=True),
    Mistake(A, "xavier_init", "xavier_uniform_drawn_from_a_normal",
            "a = np.sqrt(6.0 / (fan_in + fan_out))\n    return rng.uniform(-a, a, size=",
            "a = np.sqrt(6.0 / (fan_in + fan_out))\n    return rng.normal(0.0, a, size=",
            "Xavier uniform draws from U(-a, a); a normal distribution with the bound a as its "
            "standard deviation has three times the variance",
            ("uniform", "normal", "distribution", "bound"), slow=True),
    Mistake(A, "he_init", "he_uniform_bound_is_the_standard_deviation",
            "a = np.sqrt(6.0 / fan_in)", "a = np.sqrt(2.0 / fan_in)",
            "√(2/fan_in) is He's standard deviation; U(-a, a) has variance a²/3, so the bound is "
            "√(6/fan_in)", ("bound", "6", "a²/3", "variance", "standard deviation", "3"),
            slow=True),
    Mistake(A, "activation_statistics", "standard_deviation_not_centred",
            "stds.append(h.std())", "stds.append(np.sqrt(np.mean(h ** 2)))",
            "the standard deviation subtracts the mean first: √mean(h²) is the root mean square, "
            "larger than the std wherever the mean is not 0 (ReLU)",
            ("mean", "centr", "subtract", "root mean square", "rms", "std"), slow=True),
    Mistake(A, "activation_statistics", "layer_weights_transposed",
            "h = act(h @ W)", "h = act(h @ W.T)",
            "a layer computes h W with W of shape (fan_in, fan_out): the weights are transposed",
            TRANSPOSE, slow=True),
    Mistake(A, "activation_statistics", "plot_shows_the_means",
            "_, stds = activation_statistics(weights, activation, x_stats)",
            "stds, _ = activation_statistics(weights, activation, x_stats)",
            "activation_statistics returns (means, stds): unpacked the wrong way round, the plot "
            "shows the means", ("mean", "std", "standard deviation", "order", "unpack", "swap"),
            slow=True),
]

# Round 5 (2026-11-28), written blind as rounds 1 to 4 were.
MISTAKES += [
    Mistake(A, "xavier_init", "xavier_uniform_global_generator",
            "return rng.uniform(-a, a, size=(fan_in, fan_out))\n    ### END SOLUTION\n\n\ndef xavier_normal",
            "return np.random.uniform(-a, a, size=(fan_in, fan_out))\n    ### END SOLUTION\n\n\ndef xavier_normal",
            "the weights must be drawn from the generator passed in, rng: NumPy's global one "
            "ignores it, so the same rng does not give the same weights",
            ("rng", "generator", "np.random", "seed", "reproduc", "argument"), slow=True),
    Mistake(A, "xavier_init", "xavier_normal_mean_and_std_swapped",
            "rng.normal(0.0, np.sqrt(2.0 / (fan_in + fan_out)), size=(fan_in, fan_out))",
            "rng.normal(np.sqrt(2.0 / (fan_in + fan_out)), 0.0, size=(fan_in, fan_out))",
            "normal(loc, scale): the mean 0 comes first and the standard deviation second; "
            "swapped, every weight is the same constant", ("loc", "scale", "mean", "swap",
                                                            "order", "argument", "constant"), slow=True),
    Mistake(A, "he_init", "he_normal_size_missing",
            "return rng.normal(0.0, np.sqrt(2.0 / fan_in), size=(fan_in, fan_out))",
            "return rng.normal(0.0, np.sqrt(2.0 / fan_in))",
            "without size, normal() draws one number: the result must be a (fan_in, fan_out) "
            "matrix", ("shape", "size", "one number", "scalar", "matrix"), slow=True),
    Mistake(A, "he_init", "he_uniform_square_shape",
            "    a = np.sqrt(6.0 / fan_in)\n    return rng.uniform(-a, a, size=(fan_in, fan_out))",
            "    a = np.sqrt(6.0 / fan_in)\n    return rng.uniform(-a, a, size=(fan_in, fan_in))",
            "the weight matrix has shape (fan_in, fan_out): fan_in twice gives a square matrix",
            ("shape", "fan_out", "square", "size"), slow=True),
    Mistake(A, "activation_statistics", "activation_left_out",
            "        h = act(h @ W)\n", "        h = h @ W\n",
            "each layer applies the activation: h_l = act(h_{l-1} W_l); without it every layer "
            "is linear", ("activation", "act(", "each layer", "every layer", "linear",
                          "nonlinear", "non-linear"), slow=True),
    Mistake(A, "activation_statistics", "activation_before_the_product",
            "        h = act(h @ W)\n", "        h = act(h) @ W\n",
            "h_l = act(h_{l-1} W_l): the activation comes after the product, not before it",
            ("order", "before", "after", "act(", "activation", "product"), slow=True),
    Mistake(A, "activation_statistics", "layers_applied_in_reverse",
            "    for W in weights:\n        h = act(h @ W)\n",
            "    for W in weights[::-1]:\n        h = act(h @ W)\n",
            "the input goes through W_1 first; the layers are applied in reverse order",
            ("order", "revers", "first layer", "w_1", "[::-1]"), slow=True),
    Mistake(A, "activation_statistics", "plot_linear_scale",
            "    ax.set_yscale(\"log\")\n    ax.set_xticks(layers)\n",
            "    ax.set_xticks(layers)\n",
            "the standard deviations span many orders of magnitude: on a linear axis the "
            "vanishing curves are all flat at 0", ("log", "scale", "axis", "yscale"), slow=True),
]

# Round 6 (2026-11-28), written blind as rounds 1 to 5 were.
MISTAKES += [
    Mistake(A, "xavier_init", "xavier_uniform_half_interval",
            "    a = np.sqrt(6.0 / (fan_in + fan_out))\n    return rng.uniform(-a, a,",
            "    a = np.sqrt(6.0 / (fan_in + fan_out))\n    return rng.uniform(-a / 2, a / 2,",
            "a is the bound of U(-a, a), not the width of the interval: halving it quarters the "
            "variance", ("bound", "half", "interval", "-a, a", "width", "factor"), slow=True),
    Mistake(A, "xavier_init", "xavier_normal_he_factor_on_the_average_fan",
            "np.sqrt(2.0 / (fan_in + fan_out))", "np.sqrt(2.0 / ((fan_in + fan_out) / 2))",
            "Glorot's variance is 1 over the average fan, 2/(fan_in + fan_out); 2 over the "
            "average fan doubles it", ("average", "2/(fan_in + fan_out)", "factor", "double",
                                       "twice", "variance"), slow=True),
    Mistake(A, "he_init", "he_uniform_gain_applied_twice",
            "a = np.sqrt(6.0 / fan_in)", "a = np.sqrt(6.0 / fan_in) * np.sqrt(2)",
            "the 6 in √(6/fan_in) already holds ReLU's gain of 2; multiplying by √2 again doubles "
            "the variance", ("gain", "√2", "sqrt(2)", "twice", "double", "factor"), slow=True),
    Mistake(A, "he_init", "he_normal_fresh_generator",
            "return rng.normal(0.0, np.sqrt(2.0 / fan_in),",
            "return np.random.default_rng(0).normal(0.0, np.sqrt(2.0 / fan_in),",
            "draw from the generator `rng` you are given: a new generator seeded 0 returns the "
            "same weights whatever rng is", ("rng", "generator", "seed", "default_rng",
                                             "reproduc", "same weights"), slow=True),
    Mistake(A, "activation_statistics", "activation_hard_coded",
            "act = ACTIVATIONS[activation]", "act = ACTIVATIONS[\"tanh\"]",
            "the activation is the argument `activation`: hard-coding tanh gives tanh's "
            "statistics for ReLU too",
            ("hard-coded", "hardcoded", "argument", "always tanh", "ignor"),
            slow=True),
    Mistake(A, "activation_statistics", "statistics_appended_after_the_loop",
            "        means.append(h.mean())\n        stds.append(h.std())\n",
            "    means.append(h.mean())\n    stds.append(h.std())\n",
            "the statistics are appended once per layer, inside the loop: dedented, only the "
            "last layer's are kept",
            ("inside the loop", "last layer", "one value", "indent", "per layer", "every layer"),
            slow=True),
    Mistake(A, "activation_statistics", "standard_deviation_of_the_weights",
            "stds.append(h.std())", "stds.append(W.std())",
            "the standard deviation wanted is the activations' h, not the weights' W",
            ("weights", "w.std", "activations", "wrong variable", "h.std"), slow=True),
    Mistake(A, "activation_statistics", "plot_without_the_layer_numbers",
            "ax.plot(layers, stds, marker=\"o\", label=name)",
            "ax.plot(stds, marker=\"o\", label=name)",
            "without the x values matplotlib numbers the points 0, 1, ...: the layers are 1 to "
            "N", ("x values", "from 0", "off by one", "off-by-one", "x axis", "x-axis", "0-based"),
            slow=True),
]
