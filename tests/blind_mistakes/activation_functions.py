"""Blind mistakes in 04, activation functions (see tests/blind_mistakes/__init__.py)."""
from . import Mistake
from .dp_library import SIGN

A = "04_activation_functions"
OFF_BY_ONE = ("off-by-one", "off by one", "one too", "one layer", "one step", "one row", "range",
              "last", "first")
SUM_MEAN = ("mean", "sum", "average")

MISTAKES = [
    Mistake(A, "deep_network", "output_sigmoid_forgotten",
            "return self.linear[9](h).sigmoid()", "return self.linear[9](h)",
            "the output layer must end with a sigmoid to give a probability",
            ("sigmoid", "output", "activation", "probab")),
    Mistake(A, "deep_network", "one_hidden_layer_skipped",
            "for layer in self.linear[:9]:", "for layer in self.linear[:8]:",
            "the loop stops one layer early: layer 9 is never applied", OFF_BY_ONE
            + ("skip", "layer 9", "missing")),
    Mistake(A, "deep_network", "output_layer_gets_hidden_activation",
            "return self.linear[9](h).sigmoid()",
            "return getattr(self.linear[9](h), self.activation)()",
            "the output layer uses the hidden activation instead of the sigmoid",
            ("sigmoid", "output", "activation")),
    Mistake(A, "bce_loss", "bce_sign",
            "return -(y * p.log() + (1 - y) * (1 - p).log()).mean()",
            "return (y * p.log() + (1 - y) * (1 - p).log()).mean()",
            "the cross-entropy is minus the mean log-likelihood: the minus sign is missing", SIGN),
    Mistake(A, "bce_loss", "bce_sum_not_mean",
            "return -(y * p.log() + (1 - y) * (1 - p).log()).mean()",
            "return -(y * p.log() + (1 - y) * (1 - p).log()).sum()",
            "the loss is the mean over the examples, not their sum", SUM_MEAN),
    Mistake(A, "bce_loss", "bce_not_clipped",
            "    p = dp.minimum(dp.maximum(p, EPS), 1 - EPS)\n", "",
            "without clipping p into [EPS, 1-EPS], log(0) gives inf for a confident prediction",
            ("clip", "eps", "log(0)", "inf", "nan", "stab")),
    Mistake(A, "bce_loss", "bce_terms_swapped",
            "(y * p.log() + (1 - y) * (1 - p).log())",
            "(y * (1 - p).log() + (1 - y) * p.log())",
            "y multiplies log p and (1-y) multiplies log(1-p); the two logs are swapped",
            ("swap", "exchang", "log(1 - p)", "log(1-p)", "1 - p")),
    Mistake(A, "gradient_sums", "gradient_sums_without_abs",
            "np.abs(grads[f\"layer{l}_W\"]).sum()", "grads[f\"layer{l}_W\"].sum()",
            "S_l sums the absolute values; without abs, positive and negative entries cancel",
            ("abs", "absolute", "|", "sign", "cancel")),
    Mistake(A, "gradient_sums", "gradient_sums_mean",
            "np.abs(grads[f\"layer{l}_W\"]).sum()", "np.abs(grads[f\"layer{l}_W\"]).mean()",
            "S_l is a sum over the entries, not a mean", SUM_MEAN),
    Mistake(A, "gradient_sums", "gradient_sums_last_layer_missing",
            "for l in range(1, 11)])", "for l in range(1, 10)])",
            "range(1, 10) stops at layer 9: the output layer is missing", OFF_BY_ONE
            + ("layer 10", "shape", "length", "missing")),
    Mistake(A, "gradient_sums", "gradient_sums_of_biases",
            "np.abs(grads[f\"layer{l}_W\"]).sum()", "np.abs(grads[f\"layer{l}_b\"]).sum()",
            "S_l is about the weights W, not the biases b", ("bias", "_b", "weight", "_w")),
    Mistake(A, "vanishing_plot", "vanishing_plot_linear_scale",
            "ax.set_yscale(\"log\")\nax.set_xticks(np.arange(1, 11))",
            "ax.set_xticks(np.arange(1, 11))",
            "the sums span many orders of magnitude: the y axis must be logarithmic",
            ("log", "scale", "y axis", "y-axis")),
    Mistake(A, "vanishing_plot", "vanishing_plot_layers_reversed",
            "ax.plot(np.arange(1, 11), gradient_sums(net, x_plot, y_plot)",
            "ax.plot(np.arange(10, 0, -1), gradient_sums(net, x_plot, y_plot)",
            "layer 1 is the input layer: the x values run the wrong way round",
            ("order", "revers", "x", "layer")),
]

# Round 2 (2026-11-28), written blind as round 1 was.
SIGN = ("sign", "minus", "negat", "parenthes", "bracket", "second term")
MISTAKES += [
    Mistake(A, "deep_network", "hidden_activation_hard_coded",
            "h = getattr(layer(h), self.activation)()", "h = layer(h).relu()",
            "the hidden layers must use the network's activation; ReLU is always used",
            ("activation", "relu", "hard-coded", "hard coded", "ignor", "self.activation")),
    Mistake(A, "bce_loss", "bce_minus_on_the_first_term_only",
            "return -(y * p.log() + (1 - y) * (1 - p).log()).mean()",
            "return (-y * p.log() + (1 - y) * (1 - p).log()).mean()",
            "the minus sign belongs to both terms: only y·log p is negated", SIGN),
    Mistake(A, "bce_loss", "bce_clipped_from_below_only",
            "p = dp.minimum(dp.maximum(p, EPS), 1 - EPS)", "p = dp.maximum(p, EPS)",
            "p must be clipped into [ε, 1-ε]: without the upper bound log(1 - p) is log 0 for "
            "p = 1", ("clip", "1 - eps", "1-eps", "1 - ε", "1-ε", "upper", "log(0)", "log 0",
                      "nan", "inf")),
    Mistake(A, "gradient_sums", "gradient_sums_abs_of_the_sum",
            "np.abs(grads[f\"layer{l}_W\"]).sum()", "np.abs(grads[f\"layer{l}_W\"].sum())",
            "S_l sums |dL/dW| entry by entry; the absolute value of the sum lets the entries "
            "cancel", ("abs", "|", "absolute", "order", "cancel", "each entry", "sum of")),
    Mistake(A, "gradient_sums", "gradient_sums_frobenius_norm",
            "np.abs(grads[f\"layer{l}_W\"]).sum()", "np.linalg.norm(grads[f\"layer{l}_W\"])",
            "S_l is the sum of absolute values (L1), not the Euclidean (Frobenius) norm",
            ("norm", "l1", "l2", "frobenius", "euclid", "abs", "absolute", "square")),
    Mistake(A, "vanishing_plot", "vanishing_plot_layers_from_zero",
            "ax.plot(np.arange(1, 11), gradient_sums(net, x_plot, y_plot), marker=\"o\", "
            "label=name)",
            "ax.plot(gradient_sums(net, x_plot, y_plot), marker=\"o\", label=name)",
            "without x values the layers are drawn at 0..9: layer l belongs at x = l",
            ("x axis", "x-axis", "x values", "x data", "layer", "from 0", "off by one",
             "off-by-one", "shift")),
]

# Round 3 (2026-11-28), written blind as rounds 1 and 2 were.
MISTAKES += [
    Mistake(A, "deep_network", "one_hidden_width_too_many",
            "sizes = [2] + [20] * 9 + [1]", "sizes = [2] + [20] * 10 + [1]",
            "ten layers need eleven sizes: [20] * 10 makes the last layer 20 wide, not 1",
            ("off by one", "off-by-one", "size", "shape", "width", "one too many"), slow=True),
    Mistake(A, "deep_network", "activation_before_the_layer",
            "h = getattr(layer(h), self.activation)()",
            "h = layer(getattr(h, self.activation)())",
            "each hidden layer is activation(layer(h)): applying the activation first squashes "
            "the input and leaves the last hidden layer linear",
            ("order", "before", "after", "activation"), slow=True),
    Mistake(A, "bce_loss", "bce_one_minus_outside_the_log",
            "(1 - y) * (1 - p).log()", "(1 - y) * (1 - p.log())",
            "the second term is log(1 - p); 1 - log(p) misplaces the parentheses",
            ("parenthes", "bracket", "precedence", "log(1 - p)", "log(1-p)", "1 - log"),
            slow=True),
    Mistake(A, "gradient_sums", "gradient_sums_over_one_axis",
            'np.abs(grads[f"layer{l}_W"]).sum()', 'np.abs(grads[f"layer{l}_W"]).sum(axis=0)',
            "each layer's entry is the sum over all of W's elements; summing over axis 0 leaves "
            "one number per unit", ("axis", "every element", "all elements", "shape", "scalar"),
            slow=True),
    Mistake(A, "vanishing_plot", "plot_of_the_logarithm_on_a_log_axis",
            "gradient_sums(net, x_plot, y_plot), marker=", "np.log10(gradient_sums(net, x_plot, "
            "y_plot)), marker=",
            "the log axis already shows orders of magnitude: plotting log10 of the sums on it "
            "takes the logarithm twice (and negative values vanish)",
            ("log", "twice", "logarithm"), slow=True),
    Mistake(A, "gradient_sums", "gradient_sums_from_the_output_layer",
            "for l in range(1, 11)])", "for l in range(10, 0, -1)])",
            "entry l is layer l, counted from the input; range(10, 0, -1) lists the layers from "
            "the output", ("order", "revers", "output", "first layer", "index"), slow=True),
]

# Round 4 (2026-11-28), written blind as rounds 1 to 3 were.
# Written and left out: the log scale set on the x axis instead of the y axis
# (`ax.set_xscale("log")`); the self-check of vanishing_plot gives it full marks. (Stop 40: on
# main it fails, "the y axis is linear".)
MISTAKES += [
    Mistake(A, "deep_network", "output_uses_the_ninth_layer",
            "return self.linear[9](h).sigmoid()", "return self.linear[8](h).sigmoid()",
            "the ten layers are self.linear[0] to self.linear[9]: the output layer is index 9, "
            "index 8 is the last hidden layer, used a second time",
            OFF_BY_ONE + ("index", "output layer", "layer 10", "twice"), slow=True),
    Mistake(A, "bce_loss", "bce_second_weight_y_minus_one",
            "(1 - y) * (1 - p).log()).mean()", "(y - 1) * (1 - p).log()).mean()",
            "the weight of the second term is 1 - y; y - 1 flips the sign of the log(1 - p) "
            "term", SIGN + ("1 - y", "y - 1", "second term"), slow=True),
    Mistake(A, "bce_loss", "bce_clip_minimum_and_maximum_swapped",
            "p = dp.minimum(dp.maximum(p, EPS), 1 - EPS)",
            "p = dp.maximum(dp.minimum(p, EPS), 1 - EPS)",
            "clipping into [ε, 1-ε] is min(max(p, ε), 1-ε): with minimum and maximum exchanged "
            "every p becomes 1-ε", ("clip", "minimum", "maximum", "min", "max", "swap",
                                     "exchang", "1 - eps", "1-ε"), slow=True),
    Mistake(A, "gradient_sums", "gradient_sums_of_squares",
            "np.abs(grads[f\"layer{l}_W\"]).sum()", "(grads[f\"layer{l}_W\"] ** 2).sum()",
            "S_l is the sum of the absolute values |dL/dW|, not of their squares",
            ("abs", "absolute", "square", "**2", "** 2", "l1", "l2"), slow=True),
    Mistake(A, "gradient_sums", "gradient_sums_of_the_global_training_set",
            "grads, _ = net.get_grad(x, y)", "grads, _ = net.get_grad(x_train, y_train)",
            "gradient_sums must use the x and y it is given: it reads the notebook's global "
            "x_train and y_train instead", ("x_train", "global", "argument", "given", "input",
                                            "data"), slow=True),
]

# Round 5 (2026-11-28), written blind as rounds 1 to 4 were.
# Written and left out (not gradable by the self-check, which leaves sigmoid_slope "unchecked":
# it is graded against the reference only when grading): old `answer_sigmoid_slope = 0.25` ->
# new `answer_sigmoid_slope = 0.5` (the value sigma(0), not the slope) and -> `= 1.0` (tanh's
# largest slope). No full-marks gaps in this notebook's round 5.
MISTAKES += [
    Mistake(A, "deep_network", "layer_names_from_zero",
            "self.Linear_Layer(sizes[l - 1], sizes[l], f\"layer{l}\")",
            "self.Linear_Layer(sizes[l - 1], sizes[l], f\"layer{l - 1}\")",
            "the parameters are named layer1_W ... layer10_W: counting from 0 names them "
            "layer0_W ... layer9_W", ("name", "layer1", "layer0", "from 1", "from 0",
                                       "numbered", "parameter"), slow=True),
    Mistake(A, "deep_network", "every_layer_applied_to_the_input",
            "h = getattr(layer(h), self.activation)()", "h = getattr(layer(x), self.activation)()",
            "each layer takes the previous layer's output h, not the network's input x",
            ("h", "previous", "input", "layer(x)", "chain", "output of"), slow=True),
    Mistake(A, "bce_loss", "bce_negative_class_term_missing",
            "return -(y * p.log() + (1 - y) * (1 - p).log()).mean()",
            "return -(y * p.log()).mean()",
            "the binary cross-entropy has a term for each class: (1 - y) log(1 - p) is missing, "
            "so the examples of class 0 cost nothing", ("1 - y", "1-y", "class 0", "second term",
                                                         "log(1 - p)", "missing", "negative"), slow=True),
    Mistake(A, "gradient_sums", "gradient_sums_range_from_zero",
            "return np.array([np.abs(grads[f\"layer{l}_W\"]).sum() for l in range(1, 11)])",
            "return np.array([np.abs(grads[f\"layer{l}_W\"]).sum() for l in range(10)])",
            "the layers are numbered 1 to 10: range(10) asks for layer0_W, which does not exist",
            ("range", "layer0", "from 1", "1 to 10", "keyerror", "off-by-one", "off by one"), slow=True),
    Mistake(A, "gradient_sums", "gradient_sums_maximum",
            "return np.array([np.abs(grads[f\"layer{l}_W\"]).sum() for l in range(1, 11)])",
            "return np.array([np.abs(grads[f\"layer{l}_W\"]).max() for l in range(1, 11)])",
            "S_l sums |dL/dW| over every entry; max() keeps the largest entry only",
            ("sum", "max", "largest", "every entry", "all entries"), slow=True),
    Mistake(A, "vanishing_plot", "every_curve_of_one_network",
            "ax.plot(np.arange(1, 11), gradient_sums(net, x_plot, y_plot), marker=\"o\", label=name)",
            "ax.plot(np.arange(1, 11), gradient_sums(nets[\"relu\"], x_plot, y_plot), marker=\"o\", label=name)",
            "each curve must show its own network `net`: nets[\"relu\"] draws the same curve three "
            "times under three labels", ("net", "same curve", "same network", "each network",
                                          "identical", "relu", "label"), slow=True),
    Mistake(A, "vanishing_plot", "legend_labels_all_the_same",
            "gradient_sums(net, x_plot, y_plot), marker=\"o\", label=name)",
            "gradient_sums(net, x_plot, y_plot), marker=\"o\", label=\"gradient sum\")",
            "each curve is labelled with its activation's name; one label for all three cannot "
            "tell them apart", ("label", "legend", "name", "activation"), slow=True),
]

# Round 6 (2026-11-28), written blind as rounds 1 to 5 were.
MISTAKES += [
    Mistake(A, "deep_network", "relu_layers_for_every_activation",
            "[self.Linear_Layer(sizes[l - 1], sizes[l], f\"layer{l}\")",
            "[self.ReLU_Layer(sizes[l - 1], sizes[l], f\"layer{l}\")",
            "the layers must be linear, the activation is applied in forward: ReLU layers add a "
            "ReLU before every sigmoid or tanh (and before the output's sigmoid)",
            ("relu_layer", "linear_layer", "factory", "relu layer", "linear layer", "relu before"),
            slow=True),
    Mistake(A, "bce_loss", "bce_clips_the_labels",
            "p = dp.minimum(dp.maximum(p, EPS), 1 - EPS)",
            "p = dp.minimum(dp.maximum(y, EPS), 1 - EPS)",
            "the probabilities p are clipped, not the labels y: the loss compares the labels "
            "with themselves",
            ("clip", "wrong variable", "y instead of p", "maximum(y", "labels instead"),
            slow=True),
    Mistake(A, "bce_loss", "bce_upper_clip_is_eps",
            "p = dp.minimum(dp.maximum(p, EPS), 1 - EPS)",
            "p = dp.minimum(dp.maximum(p, EPS), EPS)",
            "the upper bound of the clip is 1 - EPS: clipping at EPS sets every probability to EPS",
            ("clip", "1 - eps", "upper", "bound", "eps"), slow=True),
    Mistake(A, "gradient_sums", "get_grad_unpacked_in_the_wrong_order",
            "grads, _ = net.get_grad(x, y)", "_, grads = net.get_grad(x, y)",
            "get_grad returns (grads, loss): unpacking it the other way round keeps the loss and "
            "drops the gradients", ("unpack", "(grads, loss)", "tuple", "swap"),
            slow=True),
    Mistake(A, "gradient_sums", "gradient_sums_divided_by_the_batch",
            "np.abs(grads[f\"layer{l}_W\"]).sum() for l",
            "np.abs(grads[f\"layer{l}_W\"]).sum() / len(x) for l",
            "the loss is already a mean over the batch: dividing the sum by the batch size again "
            "scales every S_l down", ("batch", "divid", "len(x)", "factor"),
            slow=True),
    Mistake(A, "vanishing_plot", "plot_axes_swapped",
            "ax.plot(np.arange(1, 11), gradient_sums(net, x_plot, y_plot),",
            "ax.plot(gradient_sums(net, x_plot, y_plot), np.arange(1, 11),",
            "plot(x, y): the layer numbers go on the x axis and the sums on the y axis; the two "
            "are exchanged", ("axis", "axes", "swap", "exchang", "x and y", "x axis", "x-axis"),
            slow=True),
    Mistake(A, "vanishing_plot", "log_scale_on_the_layer_axis",
            "ax.set_yscale(\"log\")\nax.set_xticks(", "ax.set_xscale(\"log\")\nax.set_xticks(",
            "the gradient sums span orders of magnitude: the y axis needs the log scale, not the "
            "layer axis", ("y axis", "y-axis", "yscale", "xscale", "log scale", "x axis"),
            slow=True),
    Mistake(A, "deep_network", "input_layer_width_from_the_output",
            "sizes = [2] + [20] * 9 + [1]", "sizes = [1] + [20] * 9 + [1]",
            "the inputs are points in the plane, two features: a first layer of width 1 does "
            "not fit x of shape (n, 2)", ("input layer", "width", "first layer", "n_in", "(n, 2)",
                                         "two features", "layer1_w"),
            slow=True),
]

# Written and left out: answer_sigmoid_slope = 0.5, σ(0) for σ'(0) (the self-check reports the
# answer "unchecked": it is checked only when the notebook is graded).
